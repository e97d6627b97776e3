"""Solving a parametrized system F(x; p) from one seed by monodromy loops in parameter space,
stopped by the trace test in parameter space.

Monodromy solving (Duff–Hill–Jensen–Lee–Leykin–Sommars 2019, "Solving polynomial systems via
homotopy continuation and monodromy", IMA J. Numer. Anal. 39): over a generic parameter value
p*, the solutions of F(.; p*) on an irreducible component of the incidence variety
V = {(x, p) : F(x; p) = 0} are permuted transitively by loops in parameter space that avoid the
discriminant; carrying known solutions around random loops finds the others.

Algorithm (docs/monodromy-solve.md has the derivations):

1. **Start.** The seeds (solutions at the user's parameters p0) are checked (backward error and
   a nonsingular Jacobian: ``witness.parameters.check_solutions``) and carried to a random
   complex base p* (why a generic base: the trace test below needs one; p0 = 0 or integer
   values are often special).
2. **Loops.** Every loop starts and ends at p* and is a closed polygon of straight parameter
   homotopies; two kinds in turn: a *fan* p* -> c0 -> c1 -> c2 -> p* with corners at angles
   alpha, alpha + 2 pi/3, alpha + 4 pi/3 around p* in a random complex line p* + zeta w (it
   winds around 2/3 of the directions from p*), and DHJLLS's *triangle* p* -> c1 -> c2 -> p*
   with c1, c2 drawn independently from a complex normal distribution centred at 0 (their
   random parameter values). Random complex corners play the role of the gamma trick: the
   polygon avoids the discriminant (real codimension 2) with probability one and encloses a
   random part of it. Why both: on x^3 - 8 - p (one branch point, p = -8, base near 0)
   triangles of the right size enclose it with probability ~1/4 and 7 of 12 seeds stopped
   with 1 root, fans found all 3 roots for 12 of 12; on the ED problem of a plane cubic with
   data u of size 90, fans left 1-2 of the 9 critical points unreached (loops centred at u
   mostly permute nothing) while triangles found all 9 (measured). Every known solution
   goes through every loop (a new solution first through the loops it missed, then a new
   loop is drawn: the "flower" with reuse of DHJLLS §3); loop endpoints are matched to known
   solutions by ``witness.distinct`` (undecided matches are not used), matches are the
   edges of the monodromy graph (networkx), per loop the (partial) permutation is recorded.
3. **Trace test in parameter space** (Leykin–Rodriguez–Sottile 2018, "Trace test", Arnold
   Math. J. 4, §3-4, the multihomogeneous trace test with its dimension reduction; as in
   HomotopyContinuation.jl's ``verify_solution_completeness``). Restrict V to the line
   p* + lambda v (v random): a curve C = {(x, lambda) : F(x; p* + lambda v) = 0} in
   P^n x P^1. For the (1,1)-forms g_t = (a.x - 1) lambda + t K(x, lambda) (a random, K a
   (1,1)-form), C ∩ {g_0 = 0} = S x {0} ∪ E, with S the solutions at p* and
   E = C ∩ {a.x = 1} ("extra witnesses"); in the Segre embedding the g_t are a pencil of
   hyperplanes, so for a union of irreducible components of C the sum of the Segre
   coordinates (1, x, lambda, x lambda) / K over the points of C ∩ {g_t = 0} is affine-linear
   in t, and for a proper subset of a component's points it is not (the classical trace test,
   Sommese–Verschelde–Wampler 2002). E is found by the same loops applied to the family
   G(x, lambda; P, V, A) = [F(x; P + lambda V); A.x - 1] at (p*, v, a), seeded by tracking
   solutions from lambda = 0 to 1. The test uses ``TraceOptions.pencils`` pencils (K = 1, the
   affine chart of HomotopyContinuation.jl, then random K) and ``witness.trace.trace_verdict``.
   Passing proves (with probability one: random v, a, K) that S ∪ E is complete on the
   components of C through S, hence S is complete. Failing shows S ∪ E incomplete; it does not
   say which of the two (so ``complete`` is then null, never false).
4. **Loop sizes and the stopping rule.** Loop sizes are the parameter scale (``parameter_scale``
   of p*) times a factor drawn log-uniformly from ``LOOP_SIZE_RANGE`` = [1/64, 64] for every
   loop. Why both ways and at random: the distance from the base to the branch points that
   matter is unknown. x^3 - 8 - p branches at p = -8 while p0 = 0 gives a scale of 1; the ED
   problem of a plane quartic with data u of size 150 needed triangles with corners of size
   ~2 near 0 to reach its last critical point (x ~ 200, mu ~ 2e-5), which sizes cycling
   1, 4, 1/4, ..., 1/64 reached only after 24 fruitless rounds (measured). Without a
   passing trace test, the run stops after ``stall_loops`` consecutive rounds without a new
   solution (a round is one loop for S and one for E) or at a budget (loops, paths,
   seconds): ``complete`` null.
5. **Back to p0.** The solutions at p* are tracked to p0 with the endgame
   (``witness.parameters.account``: regular / singular with multiplicity / at infinity /
   failed): by coefficient-parameter continuation (Morgan–Sommese 1989) every isolated
   solution at p0 on the explored components is reached; ``complete`` is true when the trace
   test passed and no path of this last track failed.

What "complete" covers: the solutions on the irreducible components of V through the seeds
(monodromy never leaves a component; give one seed per component to cover them all).
"""
from __future__ import annotations

import math
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace

import networkx as nx
import numpy as np
from tqdm import tqdm

from . import distinct
from .jsonio import complex_to_json, points_to_json
from .options import Options, resolve
from .parameters import (Family, PathAccounting, account, check_solutions, parameter_scale,
                         random_complex)
from .program import ProgramBuilder, emit_program
from .program_system import ProgramSystem, as_program
from .trace import TraceTestResult, trace_residual, trace_verdict

LOOP_SIZE_RANGE = (1 / 64, 64.0)   # loop sizes, log-uniform, x the parameter scale
STALL_LOOPS = 40        # default stopping rule: rounds in a row without a new solution
MAX_PENCIL_REDRAWS = 2  # per trace test, a pencil with failed paths is redrawn this often


# ----------------------------------------------------------------------------- result
@dataclass(frozen=True)
class MonodromySolveResult:
    """Outcome of ``monodromy_solve``.

    solutions : complex128 (k, n) at the user's parameters p0: regular solutions, then one per
        distinct singular solution (``multiplicities`` (k,): 1, or paths arriving);
    accounting : PathAccounting of the last track (p* -> p0);
    complete : True (trace test passed and no path of the last track failed), None
        (not decided: see stop_reason; never False, module docstring step 3);
    trace_test : the last TraceTestResult (None if never run), trace_residual its residual;
    generic_solutions : solutions found at the generic base p*; extra_witnesses : |E|;
    loops / extra_loops : loops drawn for S / for E; paths_tracked, failed_paths: all tracks;
    stopping_rule, stop_reason : strings; seed; seconds; base (p0), generic_base (p*);
    permutations : per loop of S, the (i, j) maps found; start_check : residuals of the seeds;
    certification : set by callers that certify (``witness.certify.CertificationResult``).
    """
    variables: tuple[str, ...]
    parameters: tuple[str, ...]
    solutions: np.ndarray
    multiplicities: np.ndarray
    accounting: PathAccounting
    complete: bool | None
    trace_test: TraceTestResult | None
    generic_solutions: int
    extra_witnesses: int
    loops: int
    extra_loops: int
    paths_tracked: int
    failed_paths: int
    stopping_rule: str
    stop_reason: str
    seed: int
    seconds: float
    base: np.ndarray
    generic_base: np.ndarray
    permutations: tuple = field(default=(), repr=False)
    start_check: dict = field(default_factory=dict, repr=False)
    failure_reasons: dict = field(default_factory=dict, repr=False)
    certification: object = None

    @property
    def trace_residual(self) -> float:
        return math.nan if self.trace_test is None else self.trace_test.residual

    def __repr__(self) -> str:
        return (f"MonodromySolveResult({len(self.solutions)} solutions, complete="
                f"{self.complete}, trace residual {self.trace_residual:.1e}, {self.loops} "
                f"loops, {self.paths_tracked} paths, {self.seconds:.2f} s, seed {self.seed}; "
                f"stop: {self.stop_reason})")

    def to_json(self) -> dict:
        named = lambda v: {k: complex_to_json(z) for k, z in zip(self.parameters, v)}  # noqa
        tr = self.trace_test
        out = {"variables": list(self.variables), "solutions": points_to_json(self.solutions),
               "multiplicities": self.multiplicities.tolist(),
               "n_solutions": int(len(self.solutions)), "complete": self.complete,
               "trace_residual": None if tr is None or not math.isfinite(tr.residual)
               else tr.residual,
               "trace_test": None if tr is None else tr.to_json(),
               "loops": self.loops, "extra_loops": self.extra_loops,
               "paths_tracked": self.paths_tracked, "failed_paths": self.failed_paths,
               "seed": self.seed, "seconds": self.seconds,
               "stopping_rule": self.stopping_rule, "stop_reason": self.stop_reason,
               "complete_for": "the solutions on the irreducible components of the incidence "
                               "variety {(x, p): F(x; p) = 0} through the start solutions",
               "generic_solutions": self.generic_solutions,
               "extra_witnesses": self.extra_witnesses,
               "paths": self.accounting.to_json(), "base_parameters": named(self.base),
               "generic_base_parameters": named(self.generic_base),
               "failure_reasons": self.failure_reasons, "start_check": self.start_check,
               "permutations": [[list(p) for p in perm] for perm in self.permutations]}
        if self.certification is not None:
            out["certification"] = self.certification.to_json()
        return out


# ----------------------------------------------------------------------------- auxiliary systems
def extra_witness_system(family: Family) -> Family:
    """G(x, lambda; P, V, A) = [F(x; P + lambda V); A.x - 1]: n + 1 unknowns (x, lambda) and
    2q + n parameters (P, V, A); its solutions at (p*, v, a) are E (module docstring, 3)."""
    n, q = family.n, family.q
    names = family.variables + ("_lambda",) + tuple(f"_P{j}" for j in range(q)) + \
        tuple(f"_V{j}" for j in range(q)) + tuple(f"_A{j}" for j in range(n))
    b = ProgramBuilder(len(names), 0, names)
    z = b.variables()
    x, lam, P, V, A = z[:n], z[n], z[n + 1:n + 1 + q], z[n + 1 + q:n + 1 + 2 * q], z[-n:]
    p = [b.add(P[j], b.mul(lam, V[j])) for j in range(q)]
    out = emit_program(b, as_program(family.system), x + p)
    out.append(b.sub(b.dot(A, x), b.const(1)))
    return Family(ProgramSystem(b.build(out, {"system": "extra witnesses"}), names), n + 1)


def pencil_system(family: Family) -> Family:
    """Phi(x, lambda; t, P, V, A, K) = [F(x; P + lambda V); (A.x - 1) lambda + t K(x, lambda)]
    with K(x, lambda) = k0 + kx.x + kl lambda + kxl.(x lambda): n + 1 unknowns, 1 + 2q + 3n + 2
    parameters (t first). Tracking t from 0 moves S x {0} ∪ E along the pencil of (1,1)-forms
    (module docstring, 3)."""
    n, q = family.n, family.q
    names = family.variables + ("_lambda", "_t") + tuple(f"_P{j}" for j in range(q)) + \
        tuple(f"_V{j}" for j in range(q)) + tuple(f"_A{j}" for j in range(n)) + \
        tuple(f"_K{j}" for j in range(2 * n + 2))
    b = ProgramBuilder(len(names), 0, names)
    z = b.variables()
    x, lam, t = z[:n], z[n], z[n + 1]
    r = n + 2
    P, V, A, K = z[r:r + q], z[r + q:r + 2 * q], z[r + 2 * q:r + 2 * q + n], z[r + 2 * q + n:]
    p = [b.add(P[j], b.mul(lam, V[j])) for j in range(q)]
    out = emit_program(b, as_program(family.system), x + p)
    xl = [b.mul(xi, lam) for xi in x]
    k = b.add(b.add(K[0], b.dot(K[1:n + 1], x)),
              b.add(b.mul(K[n + 1], lam), b.dot(K[n + 2:], xl)))
    out.append(b.add(b.mul(b.sub(b.dot(A, x), b.const(1)), lam), b.mul(t, k)))
    return Family(ProgramSystem(b.build(out, {"system": "trace pencil"}), names), n + 1)


def segre_chart(Z: np.ndarray, K: np.ndarray) -> np.ndarray:
    """(1, x, lambda, x lambda) / K(x, lambda) for points Z = (x, lambda) (k, n + 1): the
    coordinates whose sum over a pencil's points is affine-linear in t."""
    x, lam = Z[:, :-1], Z[:, -1:]
    n = x.shape[1]
    seg = np.hstack([np.ones_like(lam), x, lam, x * lam])
    k = K[0] + x @ K[1:n + 1] + lam[:, 0] * K[n + 1] + (x * lam) @ K[n + 2:]
    with np.errstate(invalid="ignore", divide="ignore"):
        return seg / k[:, None]


# ----------------------------------------------------------------------------- fibers and loops
class _Fiber:
    """Solutions of one family over a base parameter value, grown by monodromy loops."""

    def __init__(self, family: Family, base: np.ndarray, scale: np.ndarray, rng, opt: Options):
        self.family, self.base, self.scale, self.rng, self.opt = family, base, scale, rng, opt
        self.X = np.zeros((0, family.n), complex)
        self.err = np.zeros(0)
        self.loops: list[tuple[np.ndarray, ...]] = []
        self.pushed: list[set] = []
        self.perms: list[list[tuple[int, int]]] = []
        self.graph = nx.Graph()
        self.paths = self.failed = self.ambiguous = 0
        self.reasons: Counter = Counter()
        self.fruitless = 0

    def move(self, X, p0, p1, **kw):
        tr = self.family.move(X, p0, p1, self.opt, rng=self.rng, **kw)
        self.paths += tr.n_paths
        self.failed += int((~tr.ok).sum())
        self.reasons.update(tr.reason_counts())
        return tr

    def add(self, X: np.ndarray, err: np.ndarray) -> np.ndarray:
        """Add points not yet known; returns the index of each (-2: undecided, skipped)."""
        idx, new, new_err = distinct.match_points(self.X, self.err, X, err, self.opt.points)
        start = len(self.X)
        self.X, self.err = np.vstack([self.X, new]), np.concatenate([self.err, new_err])
        self.graph.add_nodes_from(range(start, len(self.X)))
        self.ambiguous += int((idx == -2).sum())
        return idx

    def step(self, max_loops: int) -> int | None:
        """One loop: the known points that missed an existing loop go through the first such
        loop, else all points through a new loop. Returns the number of new points (None: the
        loop budget is spent)."""
        everyone = set(range(len(self.X)))
        li = next((i for i, done in enumerate(self.pushed) if everyone - done), None)
        if li is None:
            if len(self.loops) >= max_loops:
                return None
            self.loops.append(self._draw())
            self.pushed.append(set())
            self.perms.append([])
            li = len(self.loops) - 1
        todo = np.array(sorted(everyone - self.pushed[li]), dtype=int)
        self.pushed[li].update(todo.tolist())
        before = len(self.X)
        self._run(li, todo)
        found = len(self.X) - before
        self.fruitless = 0 if found else self.fruitless + 1
        return found

    def _draw(self) -> tuple[np.ndarray, ...]:
        """The corners of a new loop of size f (log-uniform in ``LOOP_SIZE_RANGE``) times the
        scale, the two kinds
        in turn (module docstring, 2): a fan around the base, corners base + r_j e^{i(alpha +
        2 pi j / 3)} w (j = 0, 1, 2; r_j log-uniform in [f/2, 2f]) in a random complex line
        base + zeta w; or DHJLLS's triangle, two corners drawn independently from a complex
        normal distribution of size f centred at 0."""
        lo, hi = LOOP_SIZE_RANGE
        f, q = math.exp(self.rng.uniform(math.log(lo), math.log(hi))), len(self.base)
        if len(self.loops) % 2:
            return tuple(f * self.scale * random_complex(self.rng, q) for _ in range(2))
        w = self.scale * random_complex(self.rng, q)
        w /= max(float(np.linalg.norm(w / self.scale)) / math.sqrt(q), 1e-300)
        alpha = 2 * math.pi * self.rng.random()
        r = f * np.exp(self.rng.uniform(math.log(0.5), math.log(2.0), 3))
        return tuple(self.base + r[j] * np.exp(1j * (alpha + 2 * math.pi * j / 3)) * w
                     for j in range(3))

    def _run(self, li: int, todo: np.ndarray) -> None:
        corners = (self.base,) + self.loops[li] + (self.base,)
        X, src = self.X[todo], todo
        for a, b in zip(corners[:-1], corners[1:]):
            # a loop explores: a failed path is lost, not rerouted (a detour is another loop)
            tr = self.move(X, a, b, reroute=False)
            X, src = tr.endpoints[tr.ok], src[tr.ok]
            acc = tr.accuracy[tr.ok]
        err = distinct.error_estimates(acc, len(X), self.opt.points)
        for i, j in zip(src, self.add(X, err)):
            if j >= 0:
                self.graph.add_edge(int(i), int(j))
                self.perms[li].append((int(i), int(j)))


# ----------------------------------------------------------------------------- trace test
@dataclass
class _Pencil:
    """One pencil g_t = (a.x - 1) lambda + t K: its K and two values of t, and per point
    (rows appended as points are computed; the trace is a sum, so their order is free) the
    chart values at t = 0, t1, t2, the error estimates at t1, t2 and whether both paths
    succeeded; ``done``: how many points of S and of E are in."""
    K: np.ndarray
    ts: tuple[complex, complex]
    vals: list
    pts: list
    err: list
    ok: np.ndarray
    done: list


def _not_different(A, ea, B, eb, opt: Options, diagonal: bool = False,
                   block: int = 256) -> np.ndarray:
    """bool (len(A),): row of A is not DIFFERENT from some row of B (``diagonal``: B is A,
    and a row is not compared with itself); blocked to bound the memory."""
    out = np.zeros(len(A), bool)
    if not len(A) or not len(B):
        return out
    for s in range(0, len(A), block):
        C = distinct.compare(distinct.relative_distances(A[s:s + block], B), ea[s:s + block],
                             eb, opt.points)
        if diagonal:
            r = np.arange(len(C))
            C[r, s + r] = distinct.DIFFERENT
        out[s:s + block] = (C != distinct.DIFFERENT).any(axis=1)
    return out


class _ProductTrace:
    """The trace test in parameter space (module docstring, 3): pencils of (1,1)-forms through
    S x {0} ∪ E, values cached per point (each point is tracked once per value of t)."""

    def __init__(self, family: Family, base, v, a, rng, opt: Options):
        self.phi = pencil_system(family)
        self.n, self.rng, self.opt = family.n, rng, opt
        self.fixed = np.concatenate([base, v, a])
        self.pencils = [self._draw(i) for i in range(opt.trace.pencils)]
        self.paths = self.failed = self.redraws = 0
        self.reasons: Counter = Counter()

    def _draw(self, i: int) -> _Pencil:
        n = self.n
        if i == 0:                        # the affine chart (x, lambda) of HC.jl's test
            K = np.zeros(2 * n + 2, complex)
            K[0] = 1.0
        else:
            K = random_complex(self.rng, 2 * n + 2) / math.sqrt(2 * n + 2)
        ts = (complex(np.exp(2j * np.pi * self.rng.random())),
              complex(-np.exp(2j * np.pi * self.rng.random())))
        empty = np.zeros((0, n + 1), complex)
        return _Pencil(K, ts, [np.zeros((0, 2 * n + 2), complex)] * 3, [empty, empty],
                       [np.zeros(0)] * 2, np.zeros(0, bool), [0, 0])

    def _params(self, pen: _Pencil, t: complex) -> np.ndarray:
        return np.concatenate([[t], self.fixed, pen.K])

    def _extend(self, pen: _Pencil, S: np.ndarray, E: np.ndarray) -> None:
        """Track the points of S x {0} and E not yet on the pencil to t1 and t2."""
        new = np.vstack([np.hstack([S[pen.done[0]:], np.zeros((len(S) - pen.done[0], 1))]),
                         E[pen.done[1]:]])
        pen.done = [len(S), len(E)]
        if not len(new):
            return
        ok = np.ones(len(new), bool)
        vals = [segre_chart(new, pen.K)]
        for j, t in enumerate(pen.ts):
            tr = self.phi.move(new, self._params(pen, 0j), self._params(pen, t), self.opt,
                               reroute=False, rng=self.rng)
            self.paths += tr.n_paths
            self.failed += int((~tr.ok).sum())
            self.reasons.update(tr.reason_counts())
            Z = np.where(np.isfinite(tr.endpoints), tr.endpoints, 0)
            e = distinct.error_estimates(tr.accuracy, len(new), self.opt.points)
            # a new endpoint that is not different from another one: a path jumped
            bad = _not_different(Z, e, pen.pts[j], pen.err[j], self.opt)
            bad |= _not_different(Z, e, Z, e, self.opt, diagonal=True)
            ok &= tr.ok & ~bad
            vals.append(segre_chart(Z, pen.K))
            pen.pts[j] = np.vstack([pen.pts[j], Z])
            pen.err[j] = np.concatenate([pen.err[j], e])
        pen.vals = [np.vstack([pen.vals[j], vals[j]]) for j in range(3)]
        pen.ok = np.concatenate([pen.ok, ok])

    def test(self, S: np.ndarray, E: np.ndarray) -> TraceTestResult:
        """Trace test of S x {0} ∪ E on the pencils in order (the next only when the previous
        passes); a pencil with failed paths is redrawn at most MAX_PENCIL_REDRAWS times per
        test; failed paths leave the verdict undecided."""
        residuals, failed = [], 0
        for i in range(len(self.pencils)):
            for attempt in range(MAX_PENCIL_REDRAWS + 1):
                self._extend(self.pencils[i], S, E)
                bad = int((~self.pencils[i].ok).sum())
                if not bad or attempt == MAX_PENCIL_REDRAWS:
                    break
                self.pencils[i] = self._draw(i)
                self.redraws += 1
            pen = self.pencils[i]
            residuals.append(trace_residual(pen.vals, (0j,) + pen.ts))
            failed += bad
            if failed or not residuals[-1] < self.opt.trace.tol:
                break
        return trace_verdict(residuals, failed, self.opt)


# ----------------------------------------------------------------------------- driver
def monodromy_solve(family: Family, p0, X0, *, seed: int | None = None,
                    stall_loops: int = STALL_LOOPS, max_loops: int = 200,
                    max_paths: int = 1_000_000, timeout: float | None = None,
                    options: Options | None = None,
                    progress: bool | None = None) -> MonodromySolveResult:
    """All solutions of F(.; p0) on the components through the seeds X0, by monodromy.

    Parameters
    ----------
    family : witness.parameters.Family
        F(x; p), n equations in n unknowns and q parameters.
    p0 : complex (q,)
        The parameter values of the seeds (the base).
    X0 : complex (k, n) or (n,)
        One or more regular solutions at p0.
    seed : int, optional
        Seeds every random choice (base, loops, pencils, gammas); drawn and recorded if None.
    stall_loops : int
        Stopping rule: stop after this many rounds in a row without a new solution.
    max_loops, max_paths, timeout : budgets (loops per fiber, paths in total, seconds).
    options : witness.Options
    progress : tqdm bar on stderr (None: only on a terminal).

    Returns
    -------
    MonodromySolveResult

    Raises
    ------
    ValueError
        A seed that is not a regular solution at p0 (the message gives its backward error or
        its smallest scaled singular value), wrong shapes, non-positive budgets.

    Examples
    --------
    >>> from witness import PolynomialSystem
    >>> F = Family(PolynomialSystem.from_strings(["x^3 - 8 - p"], variables=["x", "p"]), 1)
    >>> r = monodromy_solve(F, [0], [[2]], seed=0)
    >>> len(r.solutions), r.complete
    (3, True)

    References
    ----------
    Duff, Hill, Jensen, Lee, Leykin, Sommars 2019; Leykin, Rodriguez, Sottile 2018;
    Morgan, Sommese 1989 (module docstring).
    """
    t0 = time.perf_counter()
    opt = resolve(options)
    if stall_loops < 1 or max_loops < 1 or max_paths < 1 or (timeout is not None
                                                             and not timeout > 0):
        raise ValueError("stall_loops, max_loops, max_paths and timeout must be positive")
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    p0 = family.parameter_vector(p0)
    X0 = np.atleast_2d(np.asarray(X0, complex))
    start_check = check_solutions(family, p0, X0, opt)
    scale = parameter_scale(p0)
    p_star = p0 + scale * random_complex(rng, family.q)
    S = _Fiber(family, p_star, np.full(family.q, parameter_scale(p_star)), rng, opt)
    moved = S.move(X0, p0, p_star)
    S.add(moved.endpoints[moved.ok], distinct.error_estimates(moved.accuracy[moved.ok],
                                                              int(moved.ok.sum()), opt.points))
    lo, hi = LOOP_SIZE_RANGE
    rule = (f"trace test in parameter space (Leykin–Rodriguez–Sottile 2018); else stop after "
            f"{stall_loops} consecutive rounds without a new solution (loop sizes log-uniform "
            f"in [{lo:g}, {hi:g}] x the parameter scale), with complete = null")
    if not len(S.X):
        return _result(family, S, None, None, None, p0, p_star, opt, rule,
                       "no seed could be carried to the generic base", seed, t0, start_check)
    E, trace = _extra_witnesses(family, S, p_star, rng, opt)
    bar = tqdm(desc="monodromy solve", unit="sol", file=sys.stderr, leave=False,
               disable=None if progress is None else not progress)
    stalled, verdict, reason = 0, None, ""
    while True:
        verdict = trace.test(S.X, E.X) if len(E.X) else None
        bar.n = len(S.X)
        bar.set_postfix(extra=len(E.X), loops=len(S.loops), paths=_paths(S, E, trace))
        if verdict is not None and verdict.verdict is True:
            reason = "trace test passed"
            break
        if stalled >= stall_loops:
            reason = f"stopping rule: {stalled} consecutive rounds without a new solution"
            break
        if timeout is not None and time.perf_counter() - t0 > timeout:
            reason = f"timeout {timeout:g} s"
            break
        if _paths(S, E, trace) >= max_paths:
            reason = f"path budget {max_paths}"
            break
        found_s = S.step(max_loops)
        found_e = E.step(max_loops) if len(E.X) else 0
        if found_s is None and found_e is None:
            reason = f"loop budget {max_loops}"
            break
        stalled = 0 if (found_s or found_e) else stalled + 1
    bar.close()
    return _result(family, S, E, trace, verdict, p0, p_star, opt, rule, reason, seed, t0,
                   start_check)


def _paths(S: _Fiber, E: _Fiber | None, trace: _ProductTrace | None) -> int:
    return S.paths + (E.paths if E is not None else 0) + (trace.paths if trace else 0)


def _extra_witnesses(family: Family, S: _Fiber, p_star, rng, opt):
    """E's fiber and the pencils: a random direction v, the seeds of S tracked to lambda = 1
    (p* + v), and a random a with a.x = 1 at up to n of them (least-norm solution plus a
    random null-space part, as HomotopyContinuation.jl's verify_solution_completeness)."""
    n, q = family.n, family.q
    v = parameter_scale(p_star) * random_complex(rng, q)
    m = min(n, len(S.X))
    tr = S.move(S.X[:m], p_star, p_star + v, reroute=False)
    Xe = tr.endpoints[tr.ok]
    a = np.zeros(n, complex)
    if len(Xe):
        pinv = np.linalg.pinv(Xe)
        a = pinv @ np.ones(len(Xe)) + (np.eye(n) - pinv @ Xe) @ (
            random_complex(rng, n) / max(1.0, float(np.linalg.norm(Xe[0]))))
    G = extra_witness_system(family)
    gbase = np.concatenate([p_star, v, a])
    gscale = np.concatenate([np.full(q, parameter_scale(p_star)),
                             np.full(q, parameter_scale(v)),
                             np.full(n, max(float(np.linalg.norm(a)) / math.sqrt(n), 1e-300))])
    E = _Fiber(G, gbase, gscale, rng, opt)
    Z = np.hstack([Xe, np.ones((len(Xe), 1), complex)])
    if len(Z):
        ok = G.residual(Z, gbase) <= opt.points.residual_tol
        E.add(Z[ok], distinct.error_estimates(tr.accuracy[tr.ok][ok], int(ok.sum()),
                                              opt.points))
    return E, _ProductTrace(family, p_star, v, a, rng, opt)


def _result(family, S, E, trace, verdict, p0, p_star, opt, rule, reason, seed, t0,
            start_check) -> MonodromySolveResult:
    final = S.move(S.X, p_star, p0, endgame=True, reroute=True)
    pts, mult, acc = account(final, opt, lambda X: family.nonsingular(X, p0, opt))
    complete = True if (verdict is not None and verdict.verdict is True
                        and acc.n_failed == 0) else None
    if complete is None and verdict is not None and verdict.verdict is True:
        reason += f"; but {acc.n_failed} path(s) failed on the way to the given parameters"
    reasons = S.reasons + (E.reasons if E is not None else Counter()) + \
        (trace.reasons if trace is not None else Counter())
    return MonodromySolveResult(
        family.variables, family.parameters, pts, mult, acc, complete, verdict, len(S.X),
        len(E.X) if E is not None else 0, len(S.loops), len(E.loops) if E is not None else 0,
        _paths(S, E, trace), S.failed + (E.failed if E else 0) + (trace.failed if trace else 0),
        rule, reason, seed, time.perf_counter() - t0, p0, p_star,
        tuple(tuple(p) for p in S.perms), start_check, dict(reasons))


def with_certification(result: MonodromySolveResult, certification) -> MonodromySolveResult:
    """The result with a ``witness.certify.CertificationResult`` attached."""
    return replace(result, certification=certification)
