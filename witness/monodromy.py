"""Fill a witness set from one known point by monodromy loops, certified by the linear trace.

Algorithm (monodromy breakup, Sommese–Verschelde–Wampler 2001, "Using monodromy to decompose
solution sets of polynomial systems into irreducible components"; with the incremental linear
trace of Sommese–Verschelde–Wampler 2002 and the graph bookkeeping of Duff et al. 2019,
"Solving polynomial systems via homotopy continuation and monodromy"):

1. Check the start point: backward error on F below ``RESIDUAL_TOL`` and Jacobian rank n - dim
   (numerical rank with the gap reported); raise ValueError otherwise.
2. Square the system (n - dim random complex combinations of F if F has more equations) and put
   a random slice A0 x = b0 through the point: the point is the first witness point.
3. Each loop translates the slice A x = b0 to a random parallel slice A x = b1 and back, with a
   fresh random gamma on each leg (gamma trick), all pending points as one batch. Translations
   suffice: x -> A x is a generic linear projection of the component, a branched cover of C^dim
   whose monodromy group is transitive exactly when the component is irreducible; and they
   never pass near infinity (at infinity the slices are all {A X' = 0}), while rotating A
   does: measured on the deep fiber widths 2,2,2 ranks 1,1, 9 of 1728 paths of rotations failed
   (several paths meeting at |x| ~ 600, condition 1e10 .. 5e11), 0 of 2304 translations. Endpoints are matched to known
   points by relative distance (same point < ``SAME_POINT_TOL`` = 1e-6; a new point needs
   distance > ``DIFFERENT_POINT_TOL`` = 1e-3 to every known point, in between the endpoint is
   counted as ambiguous and not used). Matches are edges of the monodromy graph, and the maps
   i -> j of each loop are recorded as (partial) permutations.
4. Every new point is tracked once to two parallel translates of the base slice (one fixed
   homotopy per translate, so that the point -> trace point correspondence is the same for all
   points, whenever they are found); the linear trace
   of any subset is then a sum. Each connected component of the monodromy graph (networkx) lies
   on one irreducible component; it is complete when its trace residual is below ``TRACE_TOL``.
5. When every connected component passes the trace test, confirm that each is ONE orbit
   (``_full_loops``): the search loops, completed on all of its points, keep only the edges
   whose target is reached once (a path that jumped onto another path collides with it); a
   set whose confirmed edges fall into pieces that each pass the trace test is split (a path
   jump had joined two components: measured on the deep fiber widths 2,2,2 ranks 1,1 seed 2).
6. Loop sizes adapt (``_LoopSizes``): larger after fruitless loops, never at a level whose
   loop lost more than LOOP_LOSS_MAX of its paths. A search that finds nothing in
   REBASE_AFTER fresh loops in a row, and lost paths in them, moves every known point to a new
   random base slice (``_rebase``, at most MAX_REBASES times, only when monodromy chose the
   slice itself): such a stall means points clustered near a branch point of the projection.
   (A stall without lost paths only needs larger loops: the cyclic-4 conics.)
7. Stop when every connected component passes the trace test and is confirmed one orbit
   (``complete=True``) or at the budget
   (``max_loops``, ``max_paths``, ``timeout``): the partial set is returned with
   ``complete=False`` and the stop reason.

Monodromy certifies only the components through its start points: other components of V(F) are
not searched.
"""
from __future__ import annotations

import math
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from tqdm import tqdm

from . import distinct
from .jsonio import points_to_json
from .options import Options, TrackerOptions, resolve
from .rank import numerical_rank
from .system import PolynomialSystem
from .trace import Pencil, TraceTestResult, test_groups, trace_verdict
from .tracking import newton_on_slice, random_gamma, track_slices
from .witness_set import WitnessSet, random_slice, random_translation, square_part

LOOP_FACTORS = ((0.5, 2.0), (2.0, 8.0), (8.0, 32.0), (32.0, 128.0))   # by level (loop_scale)
FULL_LOOPS = 8      # fresh loops over ALL points of a trace-certified set (``_full_loops``)
LOOP_LOSS_MAX = 0.05  # a loop size level whose loop lost more of its paths is not used again
REBASE_AFTER = 3    # fresh loops in a row without a new point (and with a lost path) ...
MAX_REBASES = 2     # ... move the base slice, at most this often per run (``_rebase``)
MAX_PENCIL_REDRAWS = 2  # per trace test, a pencil with failed paths is redrawn up to this often


@dataclass(frozen=True)
class MonodromyResult:
    """Outcome of ``monodromy``.

    witness_set: all points found (on the base slice); components: one WitnessSet per connected
    component of the monodromy graph (``info['trace']`` holds its trace test); trace_tests: their
    TraceTestResults; complete: every component certified by the trace test and confirmed one
    orbit; trace_residual: the largest component trace residual; permutations: per loop, the
    list of (i, j) maps found; paths_tracked / failed_paths / ambiguous_matches: counts; loops;
    stop_reason; seconds; seed; start_check: residual and singular values of the start point's
    Jacobian; irreducibility: per final set, the full-loop confirmation (``_full_loops``: loops
    used, connected True / None = undecided, edges dropped as collisions); split_sets: sets
    split after a path jump; rebases: the moves of the base slice (``_rebase``; the
    permutations are those of the loops on the final base slice). Each component's
    WitnessSet.info['one_orbit'] is its confirmation (True or None)."""
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
    retried_paths: int = 0
    recovered_paths: int = 0
    failure_reasons: dict = field(default_factory=dict)
    irreducibility: tuple = ()
    split_sets: int = 0
    rebases: tuple = ()

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
                                "points": points_to_json(c.points)}
                               for c, t in zip(self.components, self.trace_tests)],
                "complete": self.complete, "trace_residual": self.trace_residual,
                "trace_tolerance": self.trace_tests[0].tolerance if self.trace_tests else None,
                "permutations": [[list(p) for p in perm] for perm in self.permutations],
                "paths_tracked": self.paths_tracked, "failed_paths": self.failed_paths,
                "retried_paths": self.retried_paths, "recovered_paths": self.recovered_paths,
                "failure_reasons": self.failure_reasons,
                "irreducibility": list(self.irreducibility), "split_sets": self.split_sets,
                "rebases": list(self.rebases),
                "ambiguous_matches": self.ambiguous_matches, "loops": self.loops,
                "stop_reason": self.stop_reason, "seconds": self.seconds, "seed": self.seed,
                "start_check": self.start_check, "witness_set": self.witness_set.to_json()}


def _scale_hint(x: np.ndarray) -> str:
    """', or a badly scaled point ...' when x's nonzero coordinates span more than 1e8 (a
    relative rank threshold then reads the small ones' columns as zero)."""
    a = np.abs(np.asarray(x))
    a = a[a > 0]
    if len(a) < 2 or a.max() <= 1e8 * a.min():
        return ""
    return (f", or a badly scaled point (its nonzero coordinates span {a.min():.1e} .. "
            f"{a.max():.1e}: a relative rank threshold may read the small ones as zero)")


def check_start_point(F: PolynomialSystem, dim: int, x: np.ndarray,
                      options: Options | None = None) -> dict:
    """Residual and Jacobian rank at x; ValueError unless x is a regular point of a dim-dim
    component: backward error below ``residual_tol`` and numerical rank n - dim, decided
    (``witness.rank``; the singular values are stated in the message)."""
    opt = resolve(options)
    res = float(F.residual(x))
    if res > opt.points.residual_tol:
        raise ValueError(f"start point is not a solution: backward error {res:.2e} > "
                         f"{opt.points.residual_tol:.0e}")
    sv = np.linalg.svd(F.jacobian(x), compute_uv=False)
    r = F.n_vars - dim
    dec = numerical_rank(sv, opt.rank)
    info = {"residual": res, "singular_values": sv.tolist(), "expected_rank": r,
            "rank": dec.to_json(), "rank_options": opt.rank.__dict__}
    rel = dec.relative
    if dec.rank < r:
        raise ValueError(f"Jacobian rank < {r} at the start point (rank {dec.rank}, sigma_{r}/sigma_1 = "
                         f"{rel[r - 1] if r - 1 < len(rel) else 0:.1e} <= "
                         f"{opt.rank.zero_below:.0e}): singular point or a component of "
                         f"dimension > {dim}{_scale_hint(x)}")
    if dec.rank > r:
        raise ValueError(f"Jacobian rank > {r} at the start point (rank {dec.rank}, sigma_{r + 1}/"
                         f"sigma_1 = {rel[r]:.1e} > {opt.rank.zero_below:.0e}): the point lies "
                         f"on a component of dimension < {dim}")
    if not dec.decided:
        raise ValueError(f"Jacobian rank at the start point undecided: gap {dec.gap:.1e} < "
                         f"{opt.rank.min_gap:.0e} between sigma_{r} and sigma_{r + 1}")
    return info


class _State:
    """Points on the base slice with their error estimates, the two trace pencils, the
    monodromy graph, and the path accounting."""

    def __init__(self, W: WitnessSet, rng, method, options: Options):
        self.W, self.rng, self.method, self.options = W, rng, method, options
        n = W.system.n_vars
        self.X = np.zeros((0, n), complex)
        self.err = np.zeros(0)                    # relative error estimates (distinct.py)
        # TraceOptions.pencils pencils: the base pencil, then confirmation pencils on
        # independent random slices, computed only for components whose earlier pencils pass
        self.pencils = tuple(Pencil(W, rng, base=(i == 0), options=options)
                             for i in range(options.trace.pencils))
        self.graph = nx.Graph()
        self.paths = self.failed = self.ambiguous = self.retried = self.recovered = 0
        self.reasons: Counter = Counter()
        self.where: Counter = Counter()          # failed paths by use (loop / pencil)
        self.deadline: float | None = None       # perf_counter time: loops stop between chunks
        self.unfinished = 0                      # loop paths not started past the deadline

    def moved_to(self, W: WitnessSet, X: np.ndarray, err: np.ndarray,
                 index: np.ndarray) -> "_State":
        """A new state on W's slice holding X (the known points moved there; index[i] = the
        new index of old point i, or -1), with this state's path accounting and its graph
        edges between moved points."""
        new = _State(W, self.rng, self.method, self.options)
        for k in ("paths", "failed", "ambiguous", "retried", "recovered", "reasons", "where",
                  "deadline", "unfinished"):
            setattr(new, k, getattr(self, k))
        new.add_points(X, err)
        new.graph.add_edges_from((int(index[u]), int(index[v])) for u, v in self.graph.edges
                                 if index[u] >= 0 and index[v] >= 0)
        return new

    @property
    def redraws(self) -> int:
        return sum(p.draws - 1 for p in self.pencils)

    def track(self, A0, b0, A1, b1, X, gamma, reroute: bool = True):
        tr = track_slices(self.W.square, A0, b0, A1, b1, X, gamma=gamma, method=self.method,
                          options=self.options, rng=self.rng, reroute=reroute)
        self.count(tr)
        self.where[("loop" if not reroute else "pencil")] += int((~tr.ok).sum())
        return tr

    def count(self, tr) -> None:
        self.paths += tr.n_paths
        self.failed += int((~tr.ok).sum())
        self.retried += tr.retried
        self.recovered += tr.recovered
        self.reasons.update(tr.reason_counts())
        return tr

    def add_points(self, P: np.ndarray, err: np.ndarray) -> None:
        """Append new points with their error estimates (pencil values are computed when a
        component is tested)."""
        if not len(P):
            return
        start = len(self.X)
        self.X = np.vstack([self.X, P])
        self.err = np.concatenate([self.err, err])
        self.graph.add_nodes_from(range(start, len(self.X)))

    def trace(self, comp: list[int]) -> TraceTestResult:
        """Trace test of a component (``witness.trace.test_groups``: the pencils in order, a
        pencil with failed paths on the component redrawn at most MAX_PENCIL_REDRAWS times per
        test; the next test after the next loop may redraw again)."""
        return test_groups(self.pencils, self.X, self.err, [comp], self.track, self.options,
                           MAX_PENCIL_REDRAWS)[0]

    def trace_by(self, comp: list[int], deadline: float | None) -> TraceTestResult:
        """``trace``, or undecided without tracking when the deadline (perf_counter seconds)
        has passed: a trace test of hundreds of points takes minutes, and --timeout must hold
        (issue 16 item 9)."""
        if deadline is not None and time.perf_counter() > deadline:
            return trace_verdict(())
        return self.trace(comp)

    def match(self, E: np.ndarray, err: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``distinct.match_points`` against the known points (-1 never remains: new points get
        their future index, -2 is undecided), counting the undecided."""
        idx, new, new_err = distinct.match_points(self.X, self.err, E, err, self.options.points)
        self.ambiguous += int((idx == -2).sum())
        return idx, new, new_err

    def components(self) -> list[list[int]]:
        return sorted((sorted(c) for c in nx.connected_components(self.graph)), key=min)



def monodromy(F: PolynomialSystem | WitnessSet, dim: int | None = None, point=None, *,
              seed: int | None = None, max_loops: int = 50, max_paths: int = 200_000,
              timeout: float | None = None, method: str = "numpy",
              options: Options | TrackerOptions | None = None,
              progress: bool | None = None) -> MonodromyResult:
    """Witness set of the irreducible component(s) through known point(s), by monodromy.

    F: the system (may have more equations than n - dim) with ``dim`` and ``point`` (n,) complex
    on a dim-dimensional component; or a WitnessSet whose points (all on its slice) start the
    loops (then ``dim``/``point`` are ignored; used by ``decompose`` to group a witness set).
    seed: int (recorded; drawn at random when None). method: tracker 'numpy' or 'phc'.
    progress: tqdm bar (None: only on a terminal).

    Raises ValueError for dim out of range, a point of the wrong shape / NaN / not on a regular
    point of a dim-dimensional component (see ``check_start_point``).

    Examples
    --------
    >>> from witness import PolynomialSystem, monodromy
    >>> F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])     # twisted cubic
    >>> r = monodromy(F, 1, [2.0, 4.0, 8.0], seed=0)
    >>> r.degree, r.complete, [c.degree for c in r.components]
    (3, True, [3])
    """
    t0 = time.perf_counter()
    opt = resolve(options)
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    # the base slice may move (``_rebase``) only when the caller did not choose it
    rebase_left = 0 if isinstance(F, WitnessSet) else MAX_REBASES
    rebases: list[dict] = []
    if isinstance(F, WitnessSet):
        W0, start_check = F, {"from_witness_set": True}
        _, corr = newton_on_slice(W0.square, W0.slice_A, W0.slice_b, W0.points, options=opt)
        st = _State(W0, rng, method, opt)
        start_err = distinct.error_estimates(corr, len(W0.points), opt.points)
    else:
        W0, start_check, start_err, moves = _start(F, dim, point, rng, seed, method, opt)
        st = _State(W0, rng, method, opt)
        for moved in moves:                     # the start point's move counts as paths
            st.count(moved)
    st.add_points(W0.points, start_err)
    st.deadline = None if timeout is None else t0 + timeout
    loops: list[tuple] = []
    level = fruitless = nloops = 0   # loop size: LOOP_FACTORS[level] x loop_scale
    stalled = stall_lost = 0         # fresh loops in a row without a new point, paths they lost
    sizes = _LoopSizes(W0, rng)
    pushed: list[set] = []
    perms: list[list[tuple[int, int]]] = []
    reason, checks, splits = "", [], 0
    done: dict[tuple, dict] = {}   # sets already confirmed by full loops
    bar = tqdm(desc="monodromy", unit="pt", disable=None if progress is None else not progress,
               file=sys.stderr, leave=False)
    deadline = st.deadline
    tested: dict[tuple, TraceTestResult] = {}     # the current graph's trace tests
    while True:
        comps = st.components()
        tests = [st.trace_by(c, deadline) for c in comps]
        tested = {tuple(c): t for c, t in zip(comps, tests)}
        bar.n = len(st.X)
        bar.set_postfix(loops=len(loops), paths=st.paths)
        if all(t.verdict is True for t in tests):
            checks = _full_loops(st, comps, loops, pushed, perms, sizes, done, deadline)
            if any(c["split"] for c in checks):
                splits += sum(c["split"] for c in checks)
                continue                 # st.graph lost the unconfirmed edges: test again
            reason = "trace test certified every component"
            if not all(c["connected"] for c in checks):
                reason += "; full loops did not confirm one orbit for every set (undecided)"
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
        if li is None and stalled >= REBASE_AFTER and stall_lost and rebase_left:
            rebase_left -= 1
            moved = _rebase(st, rng)
            if moved is None:
                continue
            W0, st, info = moved
            nloops += len(loops)
            rebases.append(info | {"after_loops": nloops})
            loops, pushed, perms, done, checks = [], [], [], {}, []
            level = fruitless = stalled = stall_lost = 0
            sizes = _LoopSizes(W0, rng)
            continue
        fresh = li is None
        if li is None:
            if nloops + len(loops) >= max_loops:
                reason = f"loop budget {max_loops}"
                break
            loops.append(sizes.new_loop(level))
            pushed.append(set())
            perms.append([])
            li = len(loops) - 1
        todo = sorted(open_pts - pushed[li])
        pushed[li].update(todo)
        before = len(st.X)
        failed = st.failed
        _run_loop(st, loops[li], np.array(todo), perms[li])
        lost = st.failed - failed        # a lost point fails once (out, or else back)
        sizes.record(loops[li], len(todo), lost)
        fruitless = 0 if len(st.X) > before else fruitless + 1
        stalled = 0 if len(st.X) > before else stalled + fresh
        stall_lost = 0 if len(st.X) > before else stall_lost + fresh * lost
        level = sizes.level(fruitless)
    bar.close()
    return _result(st, W0, perms, nloops + len(loops), reason, t0, seed, start_check, checks,
                   splits, rebases, tested, deadline)


def _start(F, dim, point, rng, seed, method, options):
    """Check the start point, square the system, and put the point on a generic base slice.

    The point is first on a random slice through it, then tracked (one path, up to 3 gammas)
    to a random slice A0 x = b0 with b0 standard normal, which becomes the base slice. Why:
    measured on the (2,1,2) deep fiber, slices through the start point cut the component in
    tight clusters of witness points far more often (seeds 0 and 2: clusters at relative
    distance 4e-5, condition ~1e9) than slices with random b0 (40 random slices: median
    condition 1e2, one cluster). Returns (WitnessSet with the one point, start_check, error
    estimate (1,), the TrackResults of the attempts to move it)."""
    if dim is None or point is None:
        raise ValueError("monodromy(F, dim, point): give dim and a point (or a WitnessSet)")
    if not 0 < dim < F.n_vars:
        raise ValueError(f"dim must be in 1..{F.n_vars - 1}, got {dim}")
    x0 = np.asarray(point, complex)
    if x0.shape != (F.n_vars,) or not np.all(np.isfinite(x0)):
        raise ValueError(f"point must be finite with shape ({F.n_vars},), got {x0.shape}")
    info = check_start_point(F, dim, x0, options)
    G = square_part(F, dim, rng)
    A0, bt = random_slice(rng, dim, F.n_vars, through=x0)
    b0 = random_translation(rng, dim)
    moves = []
    for _ in range(3):
        tr = track_slices(G, A0, bt, A0, b0, x0[None, :], gamma=random_gamma(rng),
                          method=method, options=options, rng=rng)
        moves.append(tr)
        if tr.ok[0]:
            info["base_slice"] = "random (start point translated there)"
            W = WitnessSet(F, G, dim, A0, b0, tr.endpoints[:1], seed)
            return W, info, distinct.error_estimates(tr.accuracy, 1, options.points), moves
    info["base_slice"] = "through the start point (translating it failed 3 times)"
    W = WitnessSet(F, G, dim, A0, bt, x0[None, :], seed)
    return W, info, distinct.error_estimates(None, 1, options.points), moves


def loop_scale(W: WitnessSet) -> float:
    """Reference size of the loop translations, max(1, |b|) for W's slice A x = b. A loop
    translates b by this times a log-uniform factor in LOOP_FACTORS[level] times a complex
    normal vector; the level goes up after two loops in a row that found no new point and back
    to 0 after one that did. Why: a loop b0 -> b1 -> b0 (two gamma-trick legs in the complex
    line through b0 and b1) encloses only branch points within a lens around the segment; on
    the swap fiber of (3, 2, 1) (a toric surface of degree 3) loops of size ~1 found no new
    point in 20 loops for 3 of 5 seeds, loops 10-100x larger all 3 points within 1-6 loops on
    all 5 seeds; on the deep fiber (2,2,2) ranks 1,1 large translations push the witness
    points toward infinity, where its closure is singular, and paths fail (measured: loops of
    size ~1 certified seeds 0-4 with 0-15 failed paths, 10x-100x loops had 53-298)."""
    return float(max(1.0, np.linalg.norm(W.slice_b)))


class _LoopSizes:
    """Random loops of the sizes ``loop_scale`` describes, with the levels whose loops lose
    paths left out.

    The level goes up after two fruitless loops in a row (``level``), but never above
    ``top``: a loop of level L >= 1 that lost more than LOOP_LOSS_MAX of its paths (failed
    out or back) sets top = L - 1 for the rest of the run. Why: a lost path is a point the
    loop cannot map, and the paths that fail are those heading for the ill-conditioned points
    a search is still missing. Measured on the deep fiber widths 2,2,2 ranks 1,1 seed 2 (285
    of 288 points known, the 3 missing ones a cluster at |x| ~ 65, relative distance 1.5e-3,
    against a median |x| ~ 10): 15 fruitless loops over all 285 points grew to 77-918 x the
    base slice's scale (levels 2-3) and lost 8-90 % of their paths (1,939 of 9,150 loop
    paths), 6-18 s each, 150 of the run's 203 s; a level-1 loop of size 57 over 281 points
    lost none in 2.6 s."""

    def __init__(self, W: WitnessSet, rng):
        self.W, self.rng = W, rng
        self.top = len(LOOP_FACTORS) - 1
        self.of: dict[int, int] = {}            # id(loop tuple) -> its level

    def level(self, fruitless: int) -> int:
        return min(fruitless // 2, self.top)

    def new_loop(self, level: int) -> tuple:
        W, rng = self.W, self.rng
        lo, hi = LOOP_FACTORS[min(level, self.top)]
        size = loop_scale(W) * math.exp(rng.uniform(math.log(lo), math.log(hi)))
        loop = (W.slice_A, W.slice_b + size * random_translation(rng, W.dim),
                random_gamma(rng), random_gamma(rng))
        self.of[id(loop)] = min(level, self.top)
        return loop

    def record(self, loop: tuple, tracked: int, lost: int) -> None:
        """A loop moved ``tracked`` points and lost ``lost`` of them (failed out or back)."""
        level = self.of.get(id(loop), 0)
        if level >= 1 and tracked and lost > LOOP_LOSS_MAX * tracked:
            self.top = min(self.top, level - 1)


def _run_loop(st: _State, loop, todo: np.ndarray, perm: list) -> None:
    src, E, err = _loop_endpoints(st, loop, todo)
    idx, new, new_err = st.match(E, err)
    st.add_points(new, new_err)
    for i, j in zip(src, idx):
        if j >= 0:
            st.graph.add_edge(int(i), int(j))
            perm.append((int(i), int(j)))


def _rebase(st: _State, rng) -> tuple[WitnessSet, "_State", dict] | None:
    """Move every known point to a new random parallel base slice A x = b' (b' standard
    normal, as ``_start`` draws it; one batch, one gamma) and continue there: (the WitnessSet
    on b' with the moved points, the new state, a record). Points whose path fails, or that
    are not DIFFERENT from another moved point, are dropped (monodromy finds them again);
    graph edges between moved points are kept (both ends moved along one path each; the
    one-orbit confirmation does not use them); loops and pencils start afresh (they are
    defined relative to the base slice). The start point keeps index 0 (up to 3 slices are
    tried; None when it never arrives: the search goes on without a rebase).

    Why: a search that stalls has a base slice near a branch point of the projection x -> A x,
    where witness points cluster and the paths in and out of the cluster fail or jump.
    Measured on the deep fiber widths 2,2,2 ranks 1,1: seed 2, 285 of 288 points after 46
    loops, the 3 missing in a cluster at relative distance 1.5e-3 (every other pair >= 1.8e-2,
    median nearest neighbour 0.12) at |x| ~ 65 (median |x| ~ 10): 15 more loops over all 285
    points found none (150 of the run's 203 s); seed 1, component 2: 142 of 144 points, 35
    loops without a new point (396 s of loops)."""
    W = st.W
    for attempt in range(3):   # the start point (index 0) must arrive: it names its component
        b1 = random_translation(rng, W.dim)
        tr = track_slices(W.square, W.slice_A, W.slice_b, W.slice_A, b1, st.X,
                          gamma=random_gamma(rng), method=st.method, options=st.options,
                          rng=rng)
        st.count(tr)
        st.where["rebase"] += int((~tr.ok).sum())
        ok = np.flatnonzero(tr.ok)
        E = tr.endpoints[ok]
        err = distinct.error_estimates(tr.accuracy[ok], len(ok), st.options.points)
        C = distinct.compare_points(E, err, E, err, st.options.points)
        np.fill_diagonal(C, distinct.DIFFERENT)
        keep = (C == distinct.DIFFERENT).all(axis=1)
        if len(ok) and ok[0] == 0 and keep[0]:
            break
    else:
        return None
    index = np.full(len(st.X), -1)
    index[ok[keep]] = np.arange(int(keep.sum()))
    W1 = WitnessSet(W.system, W.square, W.dim, W.slice_A, b1, E[keep], W.seed, dict(W.info))
    info = {"points": len(st.X), "moved": int(keep.sum()), "failed": int((~tr.ok).sum()),
            "attempts": attempt + 1,
            "not_distinct": int((~keep).sum()),
            "min_relative_distance_before": _min_relative_distance(st.X),
            "min_relative_distance_after": _min_relative_distance(E[keep])}
    return W1, st.moved_to(W1, E[keep], err[keep], index), info


def _min_relative_distance(X: np.ndarray) -> float | None:
    """Smallest distance between two of the points X (p, n), relative to max(1, |x|)."""
    if len(X) < 2:
        return None
    n = np.maximum(np.linalg.norm(X, axis=1), 1.0)
    D = np.linalg.norm(X[:, None] - X[None], axis=2) / np.maximum(n[:, None], n[None])
    np.fill_diagonal(D, np.inf)
    return float(D.min())


def _full_loops(st: _State, comps: list[list[int]], loops: list, pushed: list[set],
                perms: list[list], sizes: _LoopSizes, done: dict,
                deadline: float | None = None) -> list[dict]:
    """Confirm that each trace-certified set is ONE monodromy orbit from loops whose map is
    known on ALL of its points; per set {points, full_loops, connected (True / None), split}.

    Why: the search phase moves only the newest points through a loop, so a path that jumps
    onto the path of a point not (yet) moved leaves no trace but a false edge, and the trace
    test cannot see the merge it causes (the trace of a union of components is linear too).
    Measured on the deep fiber widths 2,2,2 ranks 1,1 seed 2: the two components (degree 144
    each) were joined into one certified set of degree 288. Here each search loop (the
    tracker is deterministic on a loop: same slices, same gammas) is completed on every point
    of the set; a loop then contributes the edges i -> j whose target j is reached from ONE
    point only (a jump lands on the endpoint of another tracked path: both are dropped).
    Every search loop that moved some point of the set is used, in order of the fewest
    points still to move, then up to FULL_LOOPS fresh loops (sizes as in the search:
    ``_LoopSizes``, levels that lost paths left out). A set
    whose full-loop graph is connected is confirmed. When it has two or more connected
    components that each pass the trace test, the set is split: its search edges between
    them are removed from st.graph (the caller tests the pieces again). Otherwise it stays
    undecided (connected None: the result is not complete). Residual risk: a jump onto the
    path of a point whose own path failed in that loop is not seen. ``done`` caches the
    confirmed sets; past ``deadline`` (perf_counter seconds) no more loops are run (the set
    stays undecided)."""
    out = []
    for comp in comps:
        if tuple(comp) in done:
            out.append(done[tuple(comp)])
            continue
        members = set(comp)
        H = nx.Graph()
        H.add_nodes_from(comp)
        info = {"points": list(comp), "full_loops": 0, "new_paths_loops": 0,
                "connected": True if len(comp) == 1 else None, "split": False,
                "dropped_edges": 0}
        out.append(info)
        moved = [sum(i != j for i, j in perms[l] if i in members) for l in range(len(loops))]
        order = sorted((l for l in range(len(loops)) if moved[l]),
                       key=lambda l: len(members - pushed[l]))
        k = 0
        while info["connected"] is None and k < len(order) + FULL_LOOPS and (
                deadline is None or time.perf_counter() < deadline):
            if k < len(order):
                l = order[k]
            else:
                loops.append(sizes.new_loop(sizes.level(k - len(order))))
                pushed.append(set())
                perms.append([])
                l = len(loops) - 1
            k += 1
            todo = sorted(members - pushed[l])
            if todo:
                info["new_paths_loops"] += 1
                src, E, err = _loop_endpoints(st, loops[l], np.array(todo))
                sizes.record(loops[l], len(todo), len(todo) - len(src))
                idx, _, _ = distinct.match_points(st.X, st.err, E, err, st.options.points)
                pushed[l].update(todo)
                perms[l].extend((int(i), int(j)) for i, j in zip(src, idx) if j >= 0)
            edges = [(i, j) for i, j in perms[l] if i in members]
            hits = Counter(j for _, j in edges)
            good = [(i, j) for i, j in edges if hits[j] == 1 and j in members]
            info["dropped_edges"] += len(edges) - len(good)
            H.add_edges_from(good)
            info["full_loops"] += 1
            if nx.is_connected(H):
                info["connected"] = True
                break
            parts = [sorted(p) for p in nx.connected_components(H)]
            info["parts"] = sorted((len(p) for p in parts), reverse=True)[:8]
            if all(st.trace(p).verdict is True for p in parts):
                side = {v: n for n, p in enumerate(parts) for v in p}
                cut = [(u, v) for u, v in st.graph.subgraph(comp).edges
                       if side[u] != side[v]]
                st.graph.remove_edges_from(cut)
                info.update(split=True, parts=[len(p) for p in parts], removed_edges=len(cut))
                break
        if info["connected"]:
            done[tuple(comp)] = info
    return out


LOOP_CHUNK = 64   # points per batch of a loop when a deadline is set (checked between batches)


def _loop_endpoints(st: _State, loop, todo: np.ndarray):
    """The points todo (indices) moved once around the loop (out and back): (sources (k,),
    endpoints (k, n), error estimates (k,)) of the paths that succeeded. A loop explores: a
    failed path is just lost, not rerouted (a detour is a different loop). With a deadline the
    points go in batches of LOOP_CHUNK and none is started after it (counted in
    ``st.unfinished``, not as failed): one loop over 709 points of widths 2,2,2,2 took minutes,
    past a 300 s budget."""
    chunks = [todo] if st.deadline is None else \
        [todo[i:i + LOOP_CHUNK] for i in range(0, len(todo), LOOP_CHUNK)]
    parts = []
    for k, part in enumerate(chunks):
        if st.deadline is not None and time.perf_counter() > st.deadline:
            st.unfinished += sum(len(c) for c in chunks[k:])
            break
        parts.append(_loop_chunk(st, loop, part))
    if not parts:
        n = st.W.system.n_vars
        return np.zeros(0, int), np.zeros((0, n), complex), np.zeros(0)
    return tuple(np.concatenate(x) for x in zip(*parts))


def _loop_chunk(st: _State, loop, todo: np.ndarray):
    A1, b1, g_out, g_back = loop
    W = st.W
    out = st.track(W.slice_A, W.slice_b, A1, b1, st.X[todo], g_out, reroute=False)
    back = st.track(A1, b1, W.slice_A, W.slice_b, out.endpoints[out.ok], g_back, reroute=False)
    src = todo[out.ok][back.ok]
    E = back.endpoints[back.ok]
    return src, E, distinct.error_estimates(back.accuracy[back.ok], len(E), st.options.points)


def _result(st: _State, W0: WitnessSet, perms, nloops, reason, t0, seed, start_check,
            checks, splits, rebases=(), tested=None, deadline=None):
    """The result; trace tests of the loop's last round are reused (they were recomputed here:
    on widths 2,2,2,2 ranks 1,1,1 that second test of a 709-point set overran a 600 s budget
    by more than 20 minutes), and none is started past the deadline (then undecided)."""
    comps = st.components()
    if st.unfinished:
        reason += f"; {st.unfinished} loop paths not started (time budget)"
    tested = tested or {}
    tests = [tested.get(tuple(c)) or st.trace_by(c, deadline) for c in comps]
    confirmed = {tuple(c["points"]): c["connected"] for c in checks}
    W = W0.with_points(st.X)
    comp_sets = tuple(W.with_points(st.X[c], trace=t.to_json(), indices=c,
                                    one_orbit=confirmed.get(tuple(c)))
                      for c, t in zip(comps, tests))
    return MonodromyResult(
        witness_set=W, components=comp_sets, trace_tests=tuple(tests),
        complete=all(t.verdict is True for t in tests) and all(
            confirmed.get(tuple(c)) is True for c in comps),
        trace_residual=max((t.residual for t in tests), default=math.nan),
        permutations=tuple(tuple(p) for p in perms), paths_tracked=st.paths,
        failed_paths=st.failed, ambiguous_matches=st.ambiguous, loops=nloops,
        stop_reason=reason, seconds=time.perf_counter() - t0, seed=seed,
        start_check=start_check, retried_paths=st.retried, recovered_paths=st.recovered,
        failure_reasons=dict(st.reasons), irreducibility=tuple(checks),
        split_sets=splits, rebases=tuple(rebases))
