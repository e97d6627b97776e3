"""The only module that imports phcpy (Debian's python3-phcpy, PHCpack 2.4.86).

Every PHCpack call runs in a child process (multiprocessing 'forkserver' context, phcpy preloaded
in the server so a job starts in milliseconds with a clean PHCpack state):

* a crash (Ada exception -> exit 1, abort -> 134, segfault -> 139) raises ``PHCCrash`` in the
  caller, a hang beyond ``timeout`` seconds raises ``PHCTimeout`` (the child is killed);
* PHCpack's output is silenced at the file-descriptor level (fd 1 and fd 2 go to a log file,
  returned on request with ``keep_log=True`` and parsed where needed, e.g. the factor lines of
  ``polysys_solve``);
* ``verbose=True`` is always passed to PHCpack (``verbose=False`` returns [] on many systems);
* the symbol table is cleared before each system, the variable order is forced with a leading
  ``v1 - v1 + v2 - v2 + ...`` term, and coordinates are mapped back by name;
* the seed is set with ``py2c_set_seed`` and recorded in each result;
* independent jobs run in parallel, one child per core (``run_parallel``).

Precision: 'd', 'dd' or 'qd' for ``solve`` and ``polysys_solve``; the trackers work only in 'd'
(phcpy-notes.md: extended-precision tracking silently returns the start solutions).
Every output is validated by the callers (residuals on the original equations); PHCpack's
return codes are ignored by phcpy.
"""
from __future__ import annotations

import ctypes
import math
import multiprocessing as mp
import os
import re
import secrets
import signal
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .system import PolynomialSystem

PRECISIONS = ("d", "dd", "qd")
DEFAULT_TIMEOUT = 300.0


class PHCError(RuntimeError):
    """Base class of PHCpack failures seen by the caller."""


class PHCCrash(PHCError):
    """The worker process died (exit code in ``exitcode``: 1 Ada exception, -6/134 abort,
    -11/139 segfault)."""

    def __init__(self, job: str, exitcode: int | None, log: str = ""):
        self.job, self.exitcode, self.log = job, exitcode, log
        hint = ("" if log else " with no PHCpack output (if this happens at once, check that "
                "the main script guards its code with `if __name__ == '__main__':`, as "
                "multiprocessing requires)")
        super().__init__(f"PHCpack worker for {job!r} died with exit code {exitcode}"
                         + (f"; last output: {log[-300:]!r}" if log else hint))


class PHCTimeout(PHCError):
    """The worker did not finish within ``timeout`` seconds and was killed."""

    def __init__(self, job: str, timeout: float):
        self.job, self.timeout = job, timeout
        super().__init__(f"PHCpack job {job!r} exceeded its timeout of {timeout:g} s")


class PHCJobError(PHCError):
    """A Python exception inside the worker (traceback text in the message)."""


class PHCCancelled(PHCError):
    """The caller stopped waiting (``run_parallel(cancel=...)``); the worker was killed."""

    def __init__(self, job: str, seconds: float):
        self.job, self.seconds = job, seconds
        super().__init__(f"PHCpack job {job!r} cancelled by the caller after {seconds:.1f} s")


# ----------------------------------------------------------------------------- the worker side
def _silenced_call(fn: Callable, args: tuple, seed: int, log_path: str):
    """Run fn(*args) with fd 1/2 redirected to log_path, seed set, symbol table cleared."""
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    saved = os.dup(1), os.dup(2)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        import phcpy  # noqa: F401  (banner goes to the log)
        from phcpy.phcpy2c3 import py2c_set_seed, py2c_syscon_clear_symbol_table
        py2c_set_seed(seed)
        py2c_syscon_clear_symbol_table()
        return fn(*args)
    finally:
        import sys
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(fd)


def _die_with_parent() -> None:
    """Linux: have the kernel SIGKILL this job when its parent, the forkserver, dies (prctl
    PR_SET_PDEATHSIG; the forkserver forks jobs from its main thread, which lives as long as
    it). With ``_exit_with_caller`` in the forkserver, a caller that is killed or interrupted
    (e.g. a sweep worker) leaves no PHCpack job running; without them the jobs ran on as
    orphans at full CPU (measured). No-op where prctl is unavailable."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(1, signal.SIGKILL, 0, 0, 0) == 0 and os.getppid() == 1:
            os._exit(1)            # the parent died before prctl took effect
    except (OSError, AttributeError):
        pass


def _exit_with_caller() -> None:
    """In the forkserver: exit as soon as the caller process is gone (its parent pid changes).
    A polling thread rather than PR_SET_PDEATHSIG, which fires when the creating THREAD exits
    (Dask runs tasks in worker threads)."""
    ppid = os.getppid()

    def watch() -> None:
        while os.getppid() == ppid:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, name="phc-caller-watch", daemon=True).start()


def _child_main(conn, fn_name: str, args: tuple, seed: int, log_path: str) -> None:
    _die_with_parent()
    try:
        out = _silenced_call(globals()[fn_name], args, seed, log_path)
        conn.send(("ok", out))
    except BaseException:  # report every Python-level failure to the parent
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def _preload() -> None:
    """Import phcpy in the forkserver with its banner silenced."""
    fd = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(fd, 1)
    try:
        import phcpy  # noqa: F401
        import phcpy.solver, phcpy.factor, phcpy.trackers, phcpy.sets  # noqa: F401,E401
    finally:
        os.dup2(saved, 1)
        os.close(fd)
        os.close(saved)


def _ctx():
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["witness.phc"])
    return ctx


# ----------------------------------------------------------------------------- the parent side
@dataclass
class _Running:
    name: str
    proc: Any
    conn: Any
    log_path: str
    start: float
    timeout: float
    seed: int


def _start(fn_name: str, args: tuple, seed: int, timeout: float) -> _Running:
    ctx = _ctx()
    fd, log_path = tempfile.mkstemp(prefix="phc-", suffix=".log")
    os.close(fd)
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(child, fn_name, args, seed, log_path),
                       daemon=True)
    proc.start()
    child.close()
    return _Running(fn_name, proc, parent, log_path, time.perf_counter(), timeout, seed)


def _read_log(path: str) -> str:
    try:
        with open(path, errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _finish(job: _Running) -> tuple[Any, str, float]:
    """Collect a finished (or dead / timed out) job; raise PHC errors. Cleans up the log."""
    try:
        remaining = job.timeout - (time.perf_counter() - job.start)
        status = None
        if job.conn.poll(max(remaining, 0.0)):
            try:
                status = job.conn.recv()
            except EOFError:
                status = None
        elapsed = time.perf_counter() - job.start
        if status is None:
            if job.proc.is_alive() and elapsed >= job.timeout:
                job.proc.kill()
                job.proc.join()
                raise PHCTimeout(job.name, job.timeout)
            job.proc.join(5)
            raise PHCCrash(job.name, job.proc.exitcode, _read_log(job.log_path))
        job.proc.join(5)
        log = _read_log(job.log_path)
        if status[0] == "error":
            raise PHCJobError(f"PHCpack job {job.name!r} raised:\n{status[1]}")
        return status[1], log, elapsed
    finally:
        if job.proc.is_alive():
            job.proc.kill()
            job.proc.join()
        job.conn.close()
        try:
            os.unlink(job.log_path)
        except OSError:
            pass


def _finish_quietly(job: _Running) -> None:
    """Release a killed job's pipe and log file."""
    job.conn.close()
    try:
        os.unlink(job.log_path)
    except OSError:
        pass


def _new_seed(seed: int | None) -> int:
    if seed is None:
        return secrets.randbelow(2**31 - 2) + 1
    seed = int(seed)
    if not 1 <= seed < 2**31:   # measured: with seed 0, PHCpack's deflation does nothing
        raise ValueError(f"PHCpack seed must be in [1, 2^31), got {seed}")
    return seed


def call(fn_name: str, args: tuple, *, seed: int | None = None,
         timeout: float = DEFAULT_TIMEOUT) -> tuple[Any, str, float, int]:
    """Run one worker job. Returns (result, log, seconds, seed). Raises PHCCrash / PHCTimeout /
    PHCJobError."""
    seed = _new_seed(seed)
    return (*_finish(_start(fn_name, args, seed, timeout)), seed)


def run_parallel(jobs: Sequence[tuple[str, tuple, int | None, float]],
                 workers: int | None = None, cancel: threading.Event | None = None) -> list:
    """Run independent jobs (fn_name, args, seed, timeout) with at most ``workers`` children at a
    time (default: number of cores). Returns, in order, (result, log, seconds, seed) tuples or the
    PHCError instance of a failed job (never raises for a single job's failure). When ``cancel``
    is set, running jobs are killed and they and the pending ones end as ``PHCCancelled``."""
    workers = workers or os.cpu_count() or 1
    pending = list(enumerate(jobs))
    running: list[tuple[int, _Running]] = []
    out: list = [None] * len(jobs)
    t0 = time.perf_counter()
    while pending or running:
        if cancel is not None and cancel.is_set():
            for i, r in running:
                r.proc.kill()
                r.proc.join()
                _finish_quietly(r)
                out[i] = PHCCancelled(r.name, time.perf_counter() - r.start)
            for i, (name, *_rest) in pending:
                out[i] = PHCCancelled(name, time.perf_counter() - t0)
            return out
        while pending and len(running) < workers:
            i, (name, args, seed, timeout) = pending.pop(0)
            seed = _new_seed(seed)
            running.append((i, _start(name, args, seed, timeout)))
        ready = mp.connection.wait([r.conn for _, r in running] + [r.proc.sentinel
                                                                   for _, r in running],
                                   timeout=0.05)
        for i, r in list(running):
            over = time.perf_counter() - r.start >= r.timeout
            if r.conn in ready or r.proc.sentinel in ready or over:
                try:
                    out[i] = (*_finish(r), r.seed)
                except PHCError as err:
                    out[i] = err
                running.remove((i, r))
    return out


# ----------------------------------------------------------------------------- PHCpack strings
def safe_names(n: int) -> list[str]:
    """Variable names used inside PHCpack (never e/E/i/zz../ss..)."""
    return [f"v{k + 1}" for k in range(n)]


def phc_strings(F: PolynomialSystem, precision: str = "d") -> list[str]:
    """PHCpack strings of F with names v1..vn, the order forced by a leading v1 - v1 + ... term
    (PHCpack numbers variables in order of first appearance); coefficients written for the
    parser of ``precision`` (``PolynomialSystem.to_phc_strings``)."""
    names = safe_names(F.n_vars)
    pols = F.to_phc_strings(names, precision)
    lead = " + ".join(f"{v} - {v}" for v in names)
    pols[0] = f"{lead} + {pols[0]}"
    return pols


_SOL_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*:\s*(\S+)\s+(\S+)\s*$")


def _float(text: str) -> float:
    """PHCpack writes e.g. 'NaN*****' for a diverged coordinate: that becomes NaN."""
    try:
        return float(text)
    except ValueError:
        return math.nan
_DIAG = re.compile(r"err\s*:\s*(\S+)\s*=\s*rco\s*:\s*(\S+)\s*=\s*res\s*:\s*(\S+)")


@dataclass(frozen=True)
class ParsedSolution:
    """One PHCpack solution string, coordinates by name (complex), diagnostics as floats."""
    coords: dict
    t: complex
    m: int
    err: float
    rco: float
    res: float


def parse_solution(sol: str) -> ParsedSolution:
    """Parse a PHCpack solution string (any precision; extra digits are rounded to double)."""
    t, m, coords = 0j, 1, {}
    for line in sol.splitlines():
        line_s = line.strip()
        if line_s.startswith("t :"):
            a, b = line_s[3:].split()[:2]
            t = complex(_float(a), _float(b))
        elif line_s.startswith("m :"):
            m = int(line_s[3:].split()[0])
        elif line_s.startswith("=="):
            pass
        else:
            mt = _SOL_LINE.match(line)
            if mt and mt.group(1) != "the":
                coords[mt.group(1)] = complex(_float(mt.group(2)), _float(mt.group(3)))
    d = _DIAG.search(sol)
    err, rco, res = (_float(x) for x in d.groups()) if d else (np.nan,) * 3
    return ParsedSolution(coords, t, m, err, rco, res)


def solutions_to_array(sols: Sequence[ParsedSolution], names: Sequence[str]) -> np.ndarray:
    """Coordinates (p, n) complex128 in the order of ``names`` (mapped by name)."""
    X = np.zeros((len(sols), len(names)), dtype=complex)
    for r, s in enumerate(sols):
        missing = [v for v in names if v not in s.coords]
        if missing:
            raise PHCError(f"PHCpack solution lacks variables {missing}: {sorted(s.coords)}")
        X[r] = [s.coords[v] for v in names]
    return X


def make_solution_strings(X: np.ndarray, names: Sequence[str]) -> list[str]:
    """PHCpack solution strings for points X (p, n) (t = 0, m = 1)."""
    out = []
    for x in np.atleast_2d(X):
        lines = ["t :  0.00000000000000E+00   0.00000000000000E+00", "m : 1",
                 "the solution for t :"]
        lines += [f" {v} : {z.real: .16E}  {z.imag: .16E}" for v, z in zip(names, x)]
        lines.append("== err :  0.000E+00 = rco :  1.000E+00 = res :  0.000E+00 =")
        out.append("\n".join(lines))
    return out


# ----------------------------------------------------------------------------- worker jobs
def _job_solve(pols: list[str], precision: str) -> tuple[list[str], float]:
    from phcpy.solver import solve
    t0 = time.perf_counter()
    sols = solve(pols, verbose=True, precision=precision, checkin=False)
    secs = time.perf_counter() - t0          # PHCpack's own time, for the overhead benchmark
    if sols is None:
        raise RuntimeError("phcpy.solver.solve returned None")
    return list(sols), secs


def _job_polysys_solve(pols: list[str], n: int, topdim: int, precision: str):
    """``phcpy.factor.polysys_solve`` with the number of variables given, not scanned.

    phcpy's own polysys_solve counts the variables with ``number_of_symbols``
    (``py2c_scan_for_symbols`` on the joined strings), which is wrong whenever a system has
    more than twice as many variables as equations: it then returns the LENGTH of the joined
    string (measured: 22 for 'v1*v2 - v3;', 'v1*v4 - v5;', 90 with our leading order term), the
    system is stored with that many variables, the cascade embeds it with dozens of slack
    variables, and reading them back raises SYMBOL_TABLE.INDEX_OUT_OF_RANGE ("Reading 85 extra
    symbols ..."): the crash of every cascade on systems with a component of dim >= 3 and few
    equations (issue 16 item 10; docs/phcpy-notes.md). Same calls as phcpy's, with nbvar = n."""
    from phcpy import interface, phcpy2c3 as c
    store, solve, copy, load_sys, load_sols = {
        "d": (interface.store_standard_system, c.py2c_standard_polysys_solve,
              c.py2c_copy_standard_polysys_witset, interface.load_standard_system,
              interface.load_standard_solutions),
        "dd": (interface.store_dobldobl_system, c.py2c_dobldobl_polysys_solve,
               c.py2c_copy_dobldobl_polysys_witset, interface.load_dobldobl_system,
               interface.load_dobldobl_solutions),
        "qd": (interface.store_quaddobl_system, c.py2c_quaddobl_polysys_solve,
               c.py2c_copy_quaddobl_polysys_witset, interface.load_quaddobl_system,
               interface.load_quaddobl_solutions)}[precision]
    if store(pols, nbvar=n):
        raise RuntimeError("PHCpack could not parse the system")
    solve(0, topdim, 1, 1, 1)           # tasks 0, filter, factor, verbose (see module doc)
    out = []
    for dim in range(topdim + 1):
        copy(dim)
        out.append((list(load_sys()), list(load_sols())))
    return out


def _job_track(target: list[str], start: list[str], sols: list[str], gamma: complex,
               pwt: int) -> list[str]:
    from phcpy.trackers import track
    return list(track(target, start, sols, precision="d", gamma=gamma, pwt=pwt))


def _job_deflate(pols: list[str], sols: list[str]) -> list[str]:
    from phcpy.solver import standard_deflate
    return list(standard_deflate(pols, sols))


def _job_selftest(kind: str):
    """Deliberate failures, for testing the isolation: 'exit', 'abort', 'segv', 'hang', 'raise'."""
    if kind == "exit":
        os._exit(1)
    if kind == "abort":
        os.abort()
    if kind == "segv":
        import ctypes
        ctypes.string_at(0)
    if kind == "hang":
        time.sleep(3600)
    if kind == "raise":
        raise ValueError("deliberate")
    return "ok"


# ----------------------------------------------------------------------------- public results
@dataclass(frozen=True)
class SolveResult:
    """Isolated solutions from ``phcpy.solver.solve``.

    points: complex128 (p, n) in ``variables`` order; multiplicities: int (p,); err, rco, res:
    float64 (p,) as reported by PHCpack (not yet checked: see ``residuals``); residuals: float64
    (p,) backward error on the input system (``PolynomialSystem.residual``); seed, precision,
    seconds (wall time of the whole call); log (PHCpack's output) when requested; phc_seconds
    (time of phcpy's solve alone, measured inside the worker)."""
    variables: tuple[str, ...]
    points: np.ndarray
    multiplicities: np.ndarray
    err: np.ndarray
    rco: np.ndarray
    res: np.ndarray
    residuals: np.ndarray
    seed: int
    precision: str
    seconds: float
    log: str | None = field(default=None, repr=False)
    phc_seconds: float = math.nan

    def __repr__(self) -> str:
        return (f"SolveResult({len(self.points)} solutions, multiplicities "
                f"{self.multiplicities.tolist()[:10]}, seed={self.seed}, precision="
                f"{self.precision!r}, {self.seconds:.3f} s)")

    def to_json(self) -> dict:
        return {"variables": list(self.variables), "points": _cjson(self.points),
                "multiplicities": self.multiplicities.tolist(), "err": self.err.tolist(),
                "rco": self.rco.tolist(), "res": self.res.tolist(),
                "residuals": self.residuals.tolist(), "seed": self.seed,
                "precision": self.precision, "seconds": self.seconds}


def _cjson(X: np.ndarray) -> list:
    return [[[float(z.real), float(z.imag)] for z in row] for row in np.atleast_2d(X)]


def _check_precision(precision: str) -> None:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")


def solve(F: PolynomialSystem, *, precision: str = "d", seed: int | None = None,
          timeout: float = DEFAULT_TIMEOUT, keep_log: bool = False) -> SolveResult:
    """All isolated solutions of a square system with PHCpack's blackbox solver.

    Raises ValueError if F is not square or precision is unknown; PHCCrash / PHCTimeout /
    PHCJobError on PHCpack failures. Solutions are not filtered: check ``residuals``."""
    _check_precision(precision)
    if F.n_equations != F.n_vars:
        raise ValueError(f"solve needs a square system, got {F.n_equations} equations in "
                         f"{F.n_vars} variables (use witness.decompose)")
    sols, log, secs, seed = call("_job_solve", (phc_strings(F, precision), precision), seed=seed,
                                 timeout=timeout)
    return _solve_result(F, sols, log if keep_log else None, secs, seed, precision)


def _solve_result(F, out, log, secs, seed, precision) -> SolveResult:
    sols, phc_secs = out
    parsed = [parse_solution(s) for s in sols]
    X = solutions_to_array(parsed, safe_names(F.n_vars))
    finite = np.all(np.isfinite(X), axis=1)
    resid = np.full(len(X), np.inf)
    if finite.any():
        resid[finite] = F.residual(X[finite])
    arr = lambda k: np.array([getattr(s, k) for s in parsed], dtype=float)  # noqa: E731
    return SolveResult(F.variables, X, np.array([s.m for s in parsed], dtype=int), arr("err"),
                       arr("rco"), arr("res"), resid, seed, precision, secs, log, phc_secs)


def solve_strings(pols: Sequence[str], *, precision: str = "d", seed: int | None = None,
                  timeout: float = DEFAULT_TIMEOUT) -> list[ParsedSolution]:
    """Raw PHCpack blackbox solve of PHCpack strings (no checks: for tests of crash handling and
    for the overhead benchmark)."""
    _check_precision(precision)
    (sols, _), _, _, _ = call("_job_solve", (list(pols), precision), seed=seed,
                              timeout=timeout)
    return [parse_solution(s) for s in sols]


@dataclass(frozen=True)
class PolysysDimension:
    """PHCpack's witness superset at one dimension (from ``polysys_solve``).

    embedded: the embedded system strings (names v1..vn, zz1.., ss..); points: complex128 (p, n)
    (original variables, slack variables dropped); slack: complex128 (p, s) the zz/ss
    coordinates; slice_A (dim, n), slice_b (dim,): the affine slice A x + b = 0 read from the
    last ``dim`` embedded equations at zero slack; factors: PHCpack's grouping (lists of 0-based
    point indices) parsed from its printed output, or None if not printed."""
    dim: int
    embedded: tuple[str, ...]
    points: np.ndarray
    slack: np.ndarray
    slice_A: np.ndarray | None
    slice_b: np.ndarray | None
    multiplicities: np.ndarray
    factors: tuple[tuple[int, ...], ...] | None


@dataclass(frozen=True)
class PolysysResult:
    """``phcpy.factor.polysys_solve`` output per dimension, with seed, precision, seconds, log."""
    variables: tuple[str, ...]
    dims: tuple[PolysysDimension, ...]
    seed: int
    precision: str
    seconds: float
    log: str | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        parts = ", ".join(f"dim {d.dim}: {len(d.points)} pts"
                          + (f" in {len(d.factors)} factors" if d.factors else "")
                          for d in self.dims if len(d.points))
        return f"PolysysResult({parts or 'empty'}; seed={self.seed}, {self.seconds:.3f} s)"

    def to_json(self) -> dict:
        return {"variables": list(self.variables), "seed": self.seed,
                "precision": self.precision, "seconds": self.seconds,
                "dims": [{"dim": d.dim, "points": _cjson(d.points) if len(d.points) else [],
                          "multiplicities": d.multiplicities.tolist(),
                          "factors": [list(f) for f in d.factors] if d.factors else None}
                         for d in self.dims]}


_FACTOR_HDR = re.compile(r"factors of dimension\s+(\d+)\s*:")
_FACTOR_LINE = re.compile(r"points in factor\s+\d+\s*:\s*([\d\s]+)")


def parse_factor_lines(log: str) -> dict[int, list[list[int]]]:
    """Parse 'factors of dimension k :' / 'points in factor j : i1 i2 ...' lines printed by
    PHCpack's polysys_solve into {dim: [[0-based indices], ...]}."""
    out: dict[int, list[list[int]]] = {}
    cur = None
    for line in log.splitlines():
        h = _FACTOR_HDR.search(line)
        if h:
            cur = int(h.group(1))
            out[cur] = []
            continue
        f = _FACTOR_LINE.search(line)
        if f and cur is not None:
            out[cur].append([int(t) - 1 for t in f.group(1).split()])
    return out


def _slice_from_embedded(embedded: Sequence[str], dim: int, n: int):
    """Affine slice A x = b of the last ``dim`` embedded equations with slack variables at 0."""
    if dim == 0:
        return np.zeros((0, n), complex), np.zeros(0, complex)
    from .system import PolynomialSystem as PS
    text = [s.replace("\n", " ") for s in embedded[-dim:]]
    names = safe_names(n)
    extra = sorted({m for s in text for m in re.findall(r"\b(?:zz|ss)\d+\b", s)})
    S = PS.from_strings(text, variables=names + extra)
    A = np.zeros((dim, n), complex)
    b = np.zeros(dim, complex)
    for r, p in enumerate(S.polynomials):
        for e, c in p.items():
            if any(e[n:]):
                continue
            if sum(e) == 0:
                b[r] -= complex(c)
            elif sum(e) == 1:
                A[r, e.index(1)] += complex(c)
            else:
                raise PHCError(f"embedded slice equation {r} is not linear: {text[r][:80]}")
    return A, b


def polysys_solve(F: PolynomialSystem, *, topdim: int | None = None, precision: str = "d",
                  seed: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                  keep_log: bool = False) -> PolysysResult:
    """PHCpack's numerical irreducible decomposition (embedding + cascade + filter + factor,
    ``phcpy.factor.polysys_solve``; Sommese–Verschelde 2000, Sommese–Verschelde–Wampler 2001).

    The results are witness *supersets* as PHCpack reports them: validate them (see
    ``witness.decompose``). topdim: highest dimension searched (default n - 1). Raises
    ValueError for a bad topdim/precision, PHC errors on failure."""
    _check_precision(precision)
    n = F.n_vars
    topdim = n - 1 if topdim is None else int(topdim)
    if not 0 <= topdim <= n - 1:
        raise ValueError(f"topdim must be in 0..{n - 1}, got {topdim}")
    out, log, secs, seed = call("_job_polysys_solve",
                                (phc_strings(F, precision), n, topdim, precision),
                                seed=seed, timeout=timeout)
    return _polysys_result(F, out, log, keep_log, secs, seed, precision)


def _polysys_result(F, out, log, keep_log, secs, seed, precision) -> PolysysResult:
    n, names = F.n_vars, safe_names(F.n_vars)
    factors = parse_factor_lines(log)
    dims = []
    for dim, (pols, sols) in enumerate(out):
        parsed = [parse_solution(s) for s in sols]
        X = solutions_to_array(parsed, names) if parsed else np.zeros((0, n), complex)
        extra = sorted({k for s in parsed for k in s.coords if k not in names})
        S = np.array([[s.coords.get(k, 0j) for k in extra] for s in parsed],
                     dtype=complex).reshape(len(parsed), len(extra))
        A = b = None
        if parsed and dim > 0:
            A, b = _slice_from_embedded(pols, dim, n)
        fac = factors.get(dim)
        dims.append(PolysysDimension(dim, tuple(pols), X, S, A, b,
                                     np.array([s.m for s in parsed], dtype=int),
                                     tuple(tuple(f) for f in fac) if fac else None))
    return PolysysResult(F.variables, tuple(dims), seed, precision, secs,
                         log if keep_log else None)


@dataclass(frozen=True)
class Job:
    """An independent PHCpack job for ``run_jobs``: worker function, arguments, seed, timeout,
    and how to turn (raw output, log, seconds, seed) into a result."""
    name: str
    args: tuple
    seed: int | None
    timeout: float
    finish: Callable


def polysys_job(F: PolynomialSystem, *, topdim: int | None = None, precision: str = "d",
                seed: int | None = None, timeout: float = DEFAULT_TIMEOUT) -> Job:
    """A ``polysys_solve`` job (result: PolysysResult)."""
    _check_precision(precision)
    top = F.n_vars - 1 if topdim is None else int(topdim)
    if not 0 <= top <= F.n_vars - 1:
        raise ValueError(f"topdim must be in 0..{F.n_vars - 1}, got {topdim}")
    return Job("_job_polysys_solve", (phc_strings(F, precision), F.n_vars, top, precision),
               seed, timeout,
               lambda out, log, secs, sd: _polysys_result(F, out, log, False, secs, sd,
                                                          precision))


def solve_job(F: PolynomialSystem, *, precision: str = "d", seed: int | None = None,
              timeout: float = DEFAULT_TIMEOUT) -> Job:
    """A blackbox ``solve`` job on a square system (result: SolveResult)."""
    _check_precision(precision)
    if F.n_equations != F.n_vars:
        raise ValueError(f"solve needs a square system, got {F.n_equations} x {F.n_vars}")
    return Job("_job_solve", (phc_strings(F, precision), precision), seed, timeout,
               lambda out, log, secs, sd: _solve_result(F, out, None, secs, sd, precision))


def run_jobs(jobs: Sequence[Job], workers: int | None = None,
             cancel: threading.Event | None = None) -> list:
    """Run independent jobs in parallel (one child per core); each entry of the result is the
    job's result or the PHCError that ended it (``PHCCancelled`` once ``cancel`` is set)."""
    raw = run_parallel([(j.name, j.args, j.seed, j.timeout) for j in jobs], workers, cancel)
    return [r if isinstance(r, PHCError) else j.finish(*r) for j, r in zip(jobs, raw)]


def polysys_solve_many(F: PolynomialSystem, seeds: Sequence[int], *, topdim: int | None = None,
                       precision: str = "d", timeout: float = DEFAULT_TIMEOUT) -> list:
    """``polysys_solve`` for several seeds in parallel; a failed run appears as its PHCError."""
    return run_jobs([polysys_job(F, topdim=topdim, precision=precision, seed=s,
                                 timeout=timeout) for s in seeds])


def track(target: PolynomialSystem, start: PolynomialSystem, X: np.ndarray, *,
          gamma: complex, pwt: int = 1, seed: int | None = None,
          timeout: float = DEFAULT_TIMEOUT) -> tuple[np.ndarray, np.ndarray, float]:
    """PHCpack's path tracker (double precision) on H = gamma (1-t)^pwt start + t^pwt target
    from the solutions X (p, n) of ``start``. Returns (endpoints (p, n), t reached (p,),
    seconds). Both systems must be square with the same variables. A path PHCpack could not
    finish has t < 1: callers count it as failed."""
    if target.variables != start.variables:
        raise ValueError("target and start must have the same variables")
    names = safe_names(target.n_vars)
    sols = make_solution_strings(np.asarray(X, complex), names)
    out, _, secs, _ = call("_job_track", (phc_strings(target), phc_strings(start), sols,
                                          complex(gamma), int(pwt)), seed=seed, timeout=timeout)
    parsed = [parse_solution(s) for s in out]
    if len(parsed) != len(sols):
        raise PHCError(f"PHCpack tracker returned {len(parsed)} of {len(sols)} paths")
    t = np.array([s.t.real for s in parsed])
    return solutions_to_array(parsed, names), t, secs


def _in_forkserver() -> bool:
    import sys
    return "multiprocessing.forkserver" in sys.modules and sys.argv[:1] == ["-c"] \
        and getattr(sys.modules.get("__main__"), "__file__", None) is None


if _in_forkserver():   # preload phcpy once in the server: forked jobs start without importing
    _exit_with_caller()
    _preload()


def deflate(F: PolynomialSystem, X: np.ndarray, *, seed: int | None = None,
            timeout: float = DEFAULT_TIMEOUT) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PHCpack's Newton with deflation (Leykin–Verschelde–Zhao 2006) on a square system, double
    precision: restores quadratic convergence at isolated singular roots. Returns (points
    (p, n), multiplicities reported (p,), rco (p,)); validate the points yourself."""
    names = safe_names(F.n_vars)
    out, _, _, _ = call("_job_deflate", (phc_strings(F),
                                         make_solution_strings(np.asarray(X, complex), names)),
                        seed=seed, timeout=timeout)
    parsed = [parse_solution(s) for s in out]
    return (solutions_to_array(parsed, names), np.array([s.m for s in parsed], dtype=int),
            np.array([s.rco for s in parsed]))


def selftest(kind: str, timeout: float = 10.0):
    """Run a deliberately failing worker job ('exit', 'abort', 'segv', 'hang', 'raise', 'ok')."""
    return call("_job_selftest", (kind,), seed=1, timeout=timeout)[0]
