"""Fill a witness set from one known point by monodromy loops, certified by the linear trace.

Algorithm (monodromy breakup, Sommese–Verschelde–Wampler 2001, "Using monodromy to decompose
solution sets of polynomial systems into irreducible components"; with the incremental linear
trace of Sommese–Verschelde–Wampler 2002 and the graph bookkeeping of Duff et al. 2019,
"Solving polynomial systems via homotopy continuation and monodromy"):

1. Check the start point: backward error on F below ``RESIDUAL_TOL`` and Jacobian rank n - dim
   (numerical rank with the gap reported); raise ValueError otherwise.
2. Square the system (n - dim random complex combinations of F if F has more equations) and put
   a random slice A0 x = b0 through the point: the point is the first witness point.
3. Each loop moves the slice to a random intermediate slice and back, with a fresh random gamma
   on each leg (gamma trick), all pending points as one batch. Endpoints are matched to known
   points by relative distance (same point < ``SAME_POINT_TOL`` = 1e-6; a new point needs
   distance > ``DIFFERENT_POINT_TOL`` = 1e-3 to every known point, in between the endpoint is
   counted as ambiguous and not used). Matches are edges of the monodromy graph, and the maps
   i -> j of each loop are recorded as (partial) permutations.
4. Every new point is tracked once to two parallel translates of the base slice (one fixed
   homotopy per translate, so that the point -> trace point correspondence is the same for all
   points, whenever they are found); the linear trace
   of any subset is then a sum. Each connected component of the monodromy graph (networkx) lies
   on one irreducible component; it is complete when its trace residual is below ``TRACE_TOL``.
5. Stop when every connected component passes the trace test (``complete=True``) or at the budget
   (``max_loops``, ``max_paths``, ``timeout``): the partial set is returned with
   ``complete=False`` and the stop reason.

Monodromy certifies only the components through its start points: other components of V(F) are
not searched.
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from tqdm import tqdm

from .system import PolynomialSystem
from .tracking import RESIDUAL_TOL, TrackerOptions, random_gamma, track_slices
from .witness_set import (DIFFERENT_POINT_TOL, SAME_POINT_TOL, TRACE_TOL, TraceTestResult,
                          WitnessSet, random_complex, random_slice, square_part, trace_residual,
                          trace_verdict)

RANK_GAP_TOL = 1e-8   # singular value ratios below this count as zero (rank check of the start)


@dataclass(frozen=True)
class MonodromyResult:
    """Outcome of ``monodromy``.

    witness_set: all points found (on the base slice); components: one WitnessSet per connected
    component of the monodromy graph (``info['trace']`` holds its trace test); trace_tests: their
    TraceTestResults; complete: every component certified by the trace test; trace_residual: the
    largest component trace residual; permutations: per loop, the list of (i, j) maps found;
    paths_tracked / failed_paths / ambiguous_matches: counts; loops; stop_reason; seconds; seed;
    start_check: residual and singular values of the start point's Jacobian."""
    witness_set: WitnessSet
    components: tuple[WitnessSet, ...]
    trace_tests: tuple[TraceTestResult, ...]
    complete: bool
    trace_residual: float
    permutations: tuple[tuple[tuple[int, int], ...], ...]
    paths_tracked: int
    failed_paths: int
    ambiguous_matches: int
    loops: int
    stop_reason: str
    seconds: float
    seed: int
    start_check: dict = field(repr=False)

    @property
    def degree(self) -> int:
        return self.witness_set.degree

    def __repr__(self) -> str:
        degs = [c.degree for c in self.components]
        return (f"MonodromyResult(dim={self.witness_set.dim}, degree={self.degree}, components "
                f"{degs}, complete={self.complete}, trace_residual={self.trace_residual:.1e}, "
                f"loops={self.loops}, paths={self.paths_tracked}, failed={self.failed_paths}, "
                f"{self.seconds:.2f} s, seed={self.seed}, stop: {self.stop_reason})")

    def to_json(self) -> dict:
        return {"dim": self.witness_set.dim, "degree": self.degree,
                "components": [{"dim": c.dim, "degree": c.degree, "trace": t.to_json(),
                                "points": c.to_json()["points"]}
                               for c, t in zip(self.components, self.trace_tests)],
                "complete": self.complete, "trace_residual": self.trace_residual,
                "trace_tolerance": TRACE_TOL,
                "permutations": [[list(p) for p in perm] for perm in self.permutations],
                "paths_tracked": self.paths_tracked, "failed_paths": self.failed_paths,
                "ambiguous_matches": self.ambiguous_matches, "loops": self.loops,
                "stop_reason": self.stop_reason, "seconds": self.seconds, "seed": self.seed,
                "start_check": self.start_check, "witness_set": self.witness_set.to_json()}


def check_start_point(F: PolynomialSystem, dim: int, x: np.ndarray) -> dict:
    """Residual and Jacobian rank at x; ValueError unless x is a regular point of a dim-dim
    component (rank n - dim with singular value gaps on both sides stated in the message)."""
    res = float(F.residual(x))
    if res > RESIDUAL_TOL:
        raise ValueError(f"start point is not a solution: backward error {res:.2e} > "
                         f"{RESIDUAL_TOL:.0e}")
    sv = np.linalg.svd(F.jacobian(x), compute_uv=False)
    r = F.n_vars - dim
    rel = sv / sv[0] if sv[0] > 0 else sv
    lower = float(rel[r - 1]) if r >= 1 else 1.0
    upper = float(rel[r]) if r < len(rel) else 0.0
    info = {"residual": res, "singular_values": sv.tolist(), "expected_rank": r,
            "sigma_r_rel": lower, "sigma_r_plus_1_rel": upper, "rank_tol": RANK_GAP_TOL}
    if lower < RANK_GAP_TOL:
        raise ValueError(f"Jacobian rank < {r} at the start point (sigma_{r}/sigma_1 = "
                         f"{lower:.1e} < {RANK_GAP_TOL:.0e}): singular point or a component of "
                         f"dimension > {dim}")
    if upper > RANK_GAP_TOL:
        raise ValueError(f"Jacobian rank > {r} at the start point (sigma_{r + 1}/sigma_1 = "
                         f"{upper:.1e} > {RANK_GAP_TOL:.0e}): the point lies on a component "
                         f"of dimension < {dim}")
    return info


class _State:
    """Points on the base slice, their pencil traces, the monodromy graph."""

    def __init__(self, W: WitnessSet, rng, method, options):
        self.W, self.rng, self.method, self.options = W, rng, method, options
        n = W.system.n_vars
        self.X = np.zeros((0, n), complex)
        self.T1 = np.zeros((0, n), complex)
        self.T2 = np.zeros((0, n), complex)
        self.trace_ok = np.zeros(0, bool)
        self.direction = random_complex(rng, W.dim)
        self.ts = (0j, complex(np.exp(2j * np.pi * rng.random())),
                   complex(-np.exp(2j * np.pi * rng.random())))
        # one fixed homotopy per pencil slice: the correspondence point -> trace point must be
        # the same for every batch (a different gamma is a different path: monodromy)
        self.pencil_gammas = (random_gamma(rng), random_gamma(rng))
        self.graph = nx.Graph()
        self.paths = self.failed = self.ambiguous = 0

    def track(self, A0, b0, A1, b1, X, gamma):
        tr = track_slices(self.W.square, A0, b0, A1, b1, X, gamma=gamma, method=self.method,
                          options=self.options)
        self.paths += tr.n_paths
        self.failed += int((~tr.ok).sum())
        return tr

    def add_points(self, P: np.ndarray) -> None:
        """Append new points and track each once to the two pencil slices."""
        if not len(P):
            return
        W = self.W
        ends, ok = [], np.ones(len(P), bool)
        for t, g in zip(self.ts[1:], self.pencil_gammas):
            tr = self.track(W.slice_A, W.slice_b, W.slice_A, W.slice_b + t * self.direction, P,
                            g)
            ends.append(tr.endpoints)
            ok &= tr.ok
        ok &= ~self._collides(ends)
        start = len(self.X)
        self.X = np.vstack([self.X, P])
        self.T1 = np.vstack([self.T1, ends[0]])
        self.T2 = np.vstack([self.T2, ends[1]])
        self.trace_ok = np.concatenate([self.trace_ok, ok])
        self.graph.add_nodes_from(range(start, len(self.X)))

    def _collides(self, ends) -> np.ndarray:
        """New trace points equal to known ones (a path jumped): those traces are unusable."""
        bad = np.zeros(len(ends[0]), bool)
        for E, T in zip(ends, (self.T1, self.T2)):
            allp = np.vstack([T, E])
            D = np.linalg.norm(E[:, None] - allp[None], axis=2) / (1 + np.linalg.norm(E, axis=1))[:, None]
            D[np.arange(len(E)), len(T) + np.arange(len(E))] = np.inf
            bad |= (D < SAME_POINT_TOL).any(axis=1)
        return bad

    def match(self, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index of the known point each endpoint equals (-1 none, -2 ambiguous) and the
        endpoints that are new (deduplicated among themselves)."""
        scale = 1 + np.linalg.norm(self.X, axis=1)
        D = np.linalg.norm(E[:, None, :] - self.X[None, :, :], axis=2) / scale[None, :]
        idx = np.full(len(E), -1)
        if D.size:
            j = D.argmin(axis=1)
            d = D[np.arange(len(E)), j]
            idx = np.where(d < SAME_POINT_TOL, j, np.where(d > DIFFERENT_POINT_TOL, -1, -2))
        new: list[np.ndarray] = []
        for r in np.flatnonzero(idx == -1):
            if new:
                dn = np.linalg.norm(np.array(new) - E[r], axis=1) / (1 + np.linalg.norm(E[r]))
                if dn.min() < SAME_POINT_TOL:
                    idx[r] = len(self.X) + int(dn.argmin())
                    continue
                if dn.min() <= DIFFERENT_POINT_TOL:
                    idx[r] = -2
                    continue
            idx[r] = len(self.X) + len(new)
            new.append(E[r])
        self.ambiguous += int((idx == -2).sum())
        return idx, np.array(new).reshape(-1, self.X.shape[1])

    def components(self) -> list[list[int]]:
        return sorted((sorted(c) for c in nx.connected_components(self.graph)), key=min)

    def trace(self, comp: list[int]) -> TraceTestResult:
        c = np.array(comp)
        failed = int((~self.trace_ok[c]).sum())
        return trace_verdict(trace_residual((self.X[c], self.T1[c], self.T2[c]), self.ts),
                             failed)


def monodromy(F: PolynomialSystem | WitnessSet, dim: int | None = None, point=None, *,
              seed: int | None = None, max_loops: int = 50, max_paths: int = 200_000,
              timeout: float | None = None, method: str = "numpy",
              options: TrackerOptions | None = None, progress: bool | None = None
              ) -> MonodromyResult:
    """Witness set of the irreducible component(s) through known point(s), by monodromy.

    F: the system (may have more equations than n - dim) with ``dim`` and ``point`` (n,) complex
    on a dim-dimensional component; or a WitnessSet whose points (all on its slice) start the
    loops (then ``dim``/``point`` are ignored; used by ``decompose`` to group a witness set).
    seed: int (recorded; drawn at random when None). method: tracker 'numpy' or 'phc'.
    progress: tqdm bar (None: only on a terminal).

    Raises ValueError for dim out of range, a point of the wrong shape / NaN / not on a regular
    point of a dim-dimensional component (see ``check_start_point``)."""
    t0 = time.perf_counter()
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    if isinstance(F, WitnessSet):
        W0, start_check = F, {"from_witness_set": True}
    else:
        W0, start_check = _start(F, dim, point, rng, seed)
    st = _State(W0, rng, method, options)
    st.add_points(W0.points)
    loops: list[tuple] = []
    pushed: list[set] = []
    perms: list[list[tuple[int, int]]] = []
    reason = ""
    bar = tqdm(desc="monodromy", unit="pt", disable=None if progress is None else not progress,
               file=sys.stderr, leave=False)
    while True:
        comps = st.components()
        tests = [st.trace(c) for c in comps]
        bar.n = len(st.X)
        bar.set_postfix(loops=len(loops), paths=st.paths)
        if all(t.verdict is True for t in tests):
            reason = "trace test certified every component"
            break
        if timeout is not None and time.perf_counter() - t0 > timeout:
            reason = f"timeout {timeout:g} s"
            break
        if st.paths >= max_paths:
            reason = f"path budget {max_paths}"
            break
        # pending points of incomplete components, through the first loop that lacks them
        open_pts = {i for c, t in zip(comps, tests) if t.verdict is not True for i in c}
        li = next((l for l in range(len(loops)) if open_pts - pushed[l]), None)
        if li is None:
            if len(loops) >= max_loops:
                reason = f"loop budget {max_loops}"
                break
            A1, b1 = random_slice(rng, W0.dim, W0.system.n_vars)
            loops.append((A1, b1, random_gamma(rng), random_gamma(rng)))
            pushed.append(set())
            perms.append([])
            li = len(loops) - 1
        todo = sorted(open_pts - pushed[li])
        pushed[li].update(todo)
        _run_loop(st, loops[li], np.array(todo), perms[li])
    bar.close()
    return _result(st, W0, perms, len(loops), reason, t0, seed, start_check)


def _start(F, dim, point, rng, seed):
    if dim is None or point is None:
        raise ValueError("monodromy(F, dim, point): give dim and a point (or a WitnessSet)")
    if not 0 < dim < F.n_vars:
        raise ValueError(f"dim must be in 1..{F.n_vars - 1}, got {dim}")
    x0 = np.asarray(point, complex)
    if x0.shape != (F.n_vars,) or not np.all(np.isfinite(x0)):
        raise ValueError(f"point must be finite with shape ({F.n_vars},), got {x0.shape}")
    info = check_start_point(F, dim, x0)
    G = square_part(F, dim, rng)
    A0, b0 = random_slice(rng, dim, F.n_vars, through=x0)
    return WitnessSet(F, G, dim, A0, b0, x0[None, :], seed), info


def _run_loop(st: _State, loop, todo: np.ndarray, perm: list) -> None:
    A1, b1, g_out, g_back = loop
    W = st.W
    out = st.track(W.slice_A, W.slice_b, A1, b1, st.X[todo], g_out)
    ok = out.ok
    back = st.track(A1, b1, W.slice_A, W.slice_b, out.endpoints[ok], g_back)
    src = todo[ok][back.ok]
    E = back.endpoints[back.ok]
    idx, new = st.match(E)
    st.add_points(new)
    for i, j in zip(src, idx):
        if j >= 0:
            st.graph.add_edge(int(i), int(j))
            perm.append((int(i), int(j)))


def _result(st: _State, W0: WitnessSet, perms, nloops, reason, t0, seed, start_check):
    comps = st.components()
    tests = [st.trace(c) for c in comps]
    W = W0.with_points(st.X)
    comp_sets = tuple(W.with_points(st.X[c], trace=t.to_json(), indices=c)
                      for c, t in zip(comps, tests))
    return MonodromyResult(
        witness_set=W, components=comp_sets, trace_tests=tuple(tests),
        complete=all(t.verdict is True for t in tests),
        trace_residual=max((t.residual for t in tests), default=math.nan),
        permutations=tuple(tuple(p) for p in perms), paths_tracked=st.paths,
        failed_paths=st.failed, ambiguous_matches=st.ambiguous, loops=nloops,
        stop_reason=reason, seconds=time.perf_counter() - t0, seed=seed,
        start_check=start_check)
