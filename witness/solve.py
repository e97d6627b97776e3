"""Isolated solutions of a square system from a total-degree homotopy, every path accounted for.

``solve_paths(F)`` tracks the prod(deg f_i) paths of the total-degree homotopy
gamma (1 - s) [x_i^(d_i) - 1] + s F in projective space with the Cauchy endgame
(``witness.tracking.track``), and accounts for every path:

1. **End state** (exactly one per path): ``at_infinity``; ``failed`` (with the tracker's reason);
   ``regular`` (finite, and the Jacobian of F there has full rank: ``witness.dualspace.
   scaled_rank``, zero threshold ``RankOptions.zero_below`` or ``ERROR_FACTOR`` x the endpoint's
   error estimate); ``singular`` (finite, rank deficient). The tracker calls an endpoint
   regular when Newton converges quadratically there, which it also does on a reduced
   positive-dimensional solution set: the rank decides here.
2. **Points**: finite endpoints are grouped by the engine's one same/different rule
   (``witness.distinct``, with the endpoints' error estimates); the multiplicity of a point is
   the number of paths that end there. A pair the rule leaves undecided makes the run
   incomplete.
3. **Isolated or not**: a regular point reached by one path is an isolated solution of
   multiplicity 1. A singular point reached by k paths is examined: deflation
   (``witness.deflation``, Leykin–Verschelde–Zhao) refines it when it is isolated, and the local
   dual space (``witness.dualspace``, Dayton–Zeng) decides: isolated with multiplicity mu
   (h(j) = 0), or not isolated (dim D_j > k). Why k bounds mu: with the gamma trick an
   isolated solution of multiplicity mu is the endpoint of exactly mu paths (Sommese–Wampler
   2005, Theorem 8.4.1 and §10). Verdicts: isolated when the dual space stabilizes at mu = k and
   the point deflates to a regular point (necessary for an isolated point, LVZ; not sufficient:
   a point where the rank of a curve's Jacobian drops is isolated in its isosingular stratum,
   so it deflates, measured on cyclic-4); positive-dimensional when dim D_j exceeds k (at the
   deflated, refined point when deflation succeeded); otherwise undecided (stated, with both
   results). A deflation counts only when the deflated system, rebuilt at 60 digits, has a
   regular solution there (``witness.cluster``); when it has none the point is the centre of
   a cluster of close roots, which ``split_cluster`` resolves into simple roots (Newton at 60
   digits, one path each) or leaves undecided.
4. **Attempts**: a run with failed paths is repeated with a fresh gamma (all paths; rerouting
   is off, since a rerouted path may reach a different endpoint and falsify the counts); the
   run with the fewest failed paths is reported, with every attempt's counts.

``complete`` is true when no path failed, every point is decided, and the counts add up:
regular + singular + at infinity + failed = number of paths (checked, not assumed).

**Scaling.** A system whose coefficients or solutions are far from size 1 (x*y - 1e10,
x - 1e12, x^2 - 1e-20) is tracked, and its singular points examined, after Morgan's equation
and variable scaling by powers of two (``witness.scaling``; exact, same solutions and
multiplicities); the points are mapped back and judged on F as written. Without it the paths
of x*y - 1e10, x - y failed at the minimal step, x - 1e12's root was taken for a point at
infinity, and the two roots ±1e-10 of x^2 - 1e-20 were one 'double root' at 0 (backward error
1e-20 on coefficients of size 1).

The start system is the total-degree one (``witness.homotopy.total_degree_start``); there is no
polyhedral (mixed volume) start yet, so sparse systems track more paths than they need.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import networkx as nx
import numpy as np

from . import distinct
from .cluster import (check_deflation, finite_after_all, on_variety_check,
                      regular_zero_check, resolve_cluster)
from .deflation import EPS, DeflationResult, deflate
from .dualspace import LocalStructure, local_structure, row_scales, scaled_rank
from .homotopy import Homotopy, straight_line_homotopy, total_degree_start
from .jsonio import vector_to_json
from .options import Options, TrackerOptions, resolve
from .scaling import Scaling, morgan_scaling
from .system import PolynomialSystem
from .tracking import FailureReason, PathStatus, TrackResult, random_gamma, track

ERROR_FACTOR = 1e3       # rank threshold >= this x an endpoint's error estimate (dualspace.py)
# The Cauchy endgame of a solve starts at 1 - s = 1e-3 (TrackerOptions.endgame_start, default
# 0.1 as in Bertini). Measured on the witness supersets of witness.examples.eleven_components
# (seeds 5, 6): endgame steps 77-86 thousand from 0.1 (paths that end on the quadric wander
# along it on wide circles and close only at radius ~1e-3), 10-15 thousand from 1e-3 (main
# tracking: 13 thousand), no failed path either way; Griewank–Osborne and the triple root need
# no larger circle. Winding numbers up to 32 (default 12): on the dim-0 superset of the
# Sommese–Verschelde–Wampler illustrative system 15 paths form one cycle of winding number 15
# to a point at infinity and failed with 12 (seeds 1, 2). Used when the caller passes no options.
SOLVE_OPTIONS = Options(tracker=TrackerOptions(endgame_start=1e-3, max_winding=32))
ATTEMPTS = 2             # full runs with fresh gammas while paths fail
MAX_DEFLATIONS = 4       # deflation steps at most (each adds rank + 1 variables)


@dataclass(frozen=True)
class EndpointGroup:
    """One point where paths ended.

    point : complex (n,); paths : indices of the paths ending there (multiplicity = their
    number); status : 'regular' (one path, full-rank Jacobian) or 'singular'; winding : the
    paths' winding numbers (Cauchy endgame); accuracy : relative error estimate of ``point``;
    residual : backward error on F; isolated : True / False (on a positive-dimensional
    solution set) / None (undecided); local : the dual-space verdict and deflation : the
    deflation result (singular points only); reason : the verdict in words."""
    point: np.ndarray
    paths: tuple[int, ...]
    status: PathStatus
    winding: tuple[int, ...]
    accuracy: float
    residual: float
    isolated: bool | None
    reason: str
    local: LocalStructure | None = None
    deflation: DeflationResult | None = None

    @property
    def multiplicity(self) -> int:
        return len(self.paths)

    def to_json(self) -> dict:
        return {"point": vector_to_json(self.point), "multiplicity": self.multiplicity,
                "status": self.status, "winding": list(self.winding),
                "accuracy": _num(self.accuracy), "residual": _num(self.residual),
                "isolated": self.isolated, "reason": self.reason,
                "dual_space": self.local.to_json() if self.local else None,
                "deflation": self.deflation.to_json() if self.deflation else None}


def _num(v: float):
    return float(v) if math.isfinite(v) else None


@dataclass(frozen=True)
class PathSolve:
    """Result of ``solve_paths``: every path's end state and the points they reach.

    system; start ('total degree'); n_paths; status, reasons : str (n_paths,) per path (after
    the rank check of step 1); groups : EndpointGroup per point; undecided_pairs : pairs of
    groups the point rule could not separate; gamma, seed; attempts : per run {gamma, counts};
    track : the TrackResult of the run reported (in the scaled coordinates y when ``scaling``
    is set); seconds; scaling : the equation and variable scaling the paths were tracked and
    the singular points examined on (``witness.scaling``: x = 2^d y; None when the system
    needs none); the groups' points and residuals are in F's own coordinates."""
    system: PolynomialSystem
    start: str
    status: np.ndarray
    reasons: np.ndarray
    groups: tuple[EndpointGroup, ...]
    undecided_pairs: tuple[tuple[int, int], ...]
    gamma: complex
    seed: int
    attempts: tuple[dict, ...]
    track: TrackResult = field(repr=False)
    seconds: float = 0.0
    scaling: Scaling | None = None

    @property
    def n_paths(self) -> int:
        return len(self.status)

    def counts(self) -> dict[str, int]:
        return {str(s): int(np.sum(self.status == s)) for s in PathStatus}

    def failure_reasons(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.reasons[self.status == PathStatus.FAILED]:
            out[str(r) or "unknown"] = out.get(str(r) or "unknown", 0) + 1
        return out

    @property
    def isolated(self) -> list[EndpointGroup]:
        return [g for g in self.groups if g.isolated is True]

    @property
    def positive_dimensional(self) -> list[EndpointGroup]:
        return [g for g in self.groups if g.isolated is False]

    @property
    def undecided(self) -> list[EndpointGroup]:
        return [g for g in self.groups if g.isolated is None]

    @property
    def adds_up(self) -> bool:
        c = self.counts()
        finite = sum(g.multiplicity for g in self.groups)
        return (sum(c.values()) == self.n_paths
                and finite == c[PathStatus.REGULAR] + c[PathStatus.SINGULAR])

    @property
    def complete(self) -> bool:
        return (self.adds_up and self.counts()[PathStatus.FAILED] == 0 and not self.undecided
                and not self.undecided_pairs)

    def __repr__(self) -> str:
        c = self.counts()
        return (f"PathSolve({self.n_paths} paths ({self.start}): {c['regular']} regular, "
                f"{c['singular']} singular, {c['at_infinity']} at infinity, {c['failed']} "
                f"failed; {len(self.isolated)} isolated points, "
                f"{len(self.positive_dimensional)} on positive-dimensional sets, "
                f"{len(self.undecided)} undecided; complete={self.complete}, "
                f"{self.seconds:.2f} s)")

    def to_json(self) -> dict:
        c = self.counts()
        return {"start_system": self.start, "n_paths": self.n_paths, "counts": c,
                "failure_reasons": self.failure_reasons(), "adds_up": self.adds_up,
                "complete": self.complete, "points": [g.to_json() for g in self.groups],
                "undecided_pairs": [list(p) for p in self.undecided_pairs],
                "gamma": [self.gamma.real, self.gamma.imag], "seed": self.seed,
                "attempts": list(self.attempts), "seconds": self.seconds,
                "scaling": self.scaling.to_json() if self.scaling else None}


# ----------------------------------------------------------------------------- tracking
def total_degree_homotopy(F: PolynomialSystem, gamma: complex) -> tuple[Homotopy, np.ndarray]:
    """The total-degree homotopy of a square F and its start points (prod d_i, n)."""
    S, X0 = total_degree_start(F)
    prog = F.__dict__.get("_total_degree_program")
    if prog is None:
        prog = straight_line_homotopy(F, S)
        F.__dict__["_total_degree_program"] = prog
    return Homotopy(prog, np.array([[gamma]]), F.n_vars, F, gamma, "total degree"), X0


def endpoint_status(F: PolynomialSystem, tr: TrackResult, options: Options
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per-path status and failure reason (module docstring, step 1): the tracker's, with
    finite endpoints judged regular or singular by the rank of F's Jacobian (rows scaled by
    their terms). A finite endpoint with backward error above ``points.residual_reject`` on F
    is a failed path (reason ``not_a_zero``: the endgame stopped at an estimate that is not a
    solution; measured before the endgame checked its estimates: 1 of 64 paths of the dim-1
    superset of ``witness.examples.eleven_components``, seed 1), so that ``solve_paths`` tries
    again."""
    status, reasons = tr.status.copy(), tr.reasons.copy()
    fin = np.flatnonzero(np.isin(status, (PathStatus.REGULAR, PathStatus.SINGULAR))
                         & np.all(np.isfinite(tr.endpoints), axis=1))
    if not len(fin):
        return status, reasons
    # one batched evaluation for all endpoints (per point, x^1000 - 1 took 20 s here)
    res = F.residual(tr.endpoints[fin])
    J = F.jacobian(tr.endpoints[fin])
    for k, i in enumerate(fin):
        if not res[k] <= options.points.residual_reject:
            status[i], reasons[i] = PathStatus.FAILED, FailureReason.NOT_A_ZERO
            continue
        status[i] = PathStatus.REGULAR if full_rank(F, tr.endpoints[i], tr.accuracy[i],
                                                    options, J=J[k]) else PathStatus.SINGULAR
    return status, reasons


# |f^top(d)| / sum |c| over f's top-degree terms, at a unit direction d, above which d is no
# zero of f^top. Endpoints at infinity stop early and are rough (measured: the at-infinity
# paths of the twisted cubic's dim-1 superset end with |x| ~ 1e-4 where x = 0: 1e-8 for x^2);
# a large finite root gives O(1) (1e-20 y^2 at d = (0, 1): exactly 1).
TOP_FORM_TOL = 1e-3


def top_forms_vanish(F: PolynomialSystem, d: np.ndarray) -> bool:
    """Do the top-degree homogeneous parts of F vanish at the unit direction d (n,) — as they
    must at a solution at infinity (a point at infinity is a zero of (f_1^top, ..., f_n^top))
    — each relative to the sum of its top coefficients' moduli, within TOP_FORM_TOL?"""
    for p in F.polynomials:
        deg = max((sum(e) for e in p), default=0)
        top = [(e, complex(c)) for e, c in p.items() if sum(e) == deg]
        size = sum(abs(c) for _, c in top)
        value = sum(c * np.prod(d ** np.array(e)) for e, c in top)
        if size > 0 and abs(value) > TOP_FORM_TOL * size:
            return False
    return True


def large_roots(F: PolynomialSystem, tr: TrackResult, status: np.ndarray,
                reasons: np.ndarray) -> None:
    """Paths called at infinity whose endpoint direction is no zero of F's top-degree forms
    (``top_forms_vanish``) are no solutions at infinity: a finite root of large modulus
    (``witness.cluster.finite_after_all``: 60-digit Newton in projective coordinates) becomes a
    regular endpoint (tr.endpoints and tr.accuracy updated in place), anything else a failed
    path (reason ``not_at_infinity``). Why: x - 1, 1e-20 y^2 + y - 1 (roots (1, 1) and
    (1, -1e20), none at infinity) was complete: True with one root and one path at infinity.
    Cost: only such paths are examined; genuine points at infinity pass the cheap test."""
    for i in np.flatnonzero(status == PathStatus.AT_INFINITY):
        z = tr.projective[i]
        if not np.all(np.isfinite(z)) or top_forms_vanish(F, z[1:] / np.linalg.norm(z[1:])):
            continue
        x, _ = finite_after_all(F, z)
        if x is None:
            status[i], reasons[i] = PathStatus.FAILED, FailureReason.NOT_AT_INFINITY
        else:
            tr.endpoints[i], tr.accuracy[i] = x, EPS
            status[i], reasons[i] = PathStatus.REGULAR, FailureReason.NONE


def full_rank(F: PolynomialSystem, x: np.ndarray, accuracy: float, options: Options,
              A=None, J: np.ndarray | None = None) -> bool:
    """Does [J_F(x); A] have full column rank n (decided)? Rows scaled by their terms at x,
    columns by max(1, |x_j|) (then an entry is a term's size: x_j ∂f/∂x_j; without the column
    scale a simple root of x − 1e8 had a scaled Jacobian of 5e-9 and was called singular).
    ``J``: F's Jacobian at x (m, n) when already evaluated (batched by the caller)."""
    tau = max(options.rank.zero_below, ERROR_FACTOR * _finite(accuracy))
    if not tau < 1:
        return False
    col = np.maximum(1.0, np.abs(x))
    J = F.jacobian(x[None, :])[0] if J is None else J
    J = J / row_scales(F.polynomials, x)[:, None] * col[None, :]
    if A is not None and len(A):
        A = np.asarray(A) * col[None, :]
        J = np.vstack([J, A / np.abs(A).sum(axis=1, keepdims=True)])
    dec = scaled_rank(J, replace(options.rank, zero_below=tau))
    return dec.decided and dec.rank == F.n_vars


def _finite(v: float) -> float:
    return float(v) if math.isfinite(v) else 1.0


def solve_paths(F: PolynomialSystem, *, seed: int | None = 0, options: Options | None = None,
                attempts: int = ATTEMPTS, examine: bool = True, slice_rows: int = 0
                ) -> PathSolve:
    """All isolated solutions of a square system, with every path of a total-degree homotopy
    accounted for (module docstring).

    Parameters
    ----------
    F : PolynomialSystem, square (n equations in n unknowns)
    seed : int (gamma, endgame charts, deflation matrices; recorded) or None (random)
    options : witness.Options (default ``SOLVE_OPTIONS``: the engine's, endgame from 1e-3)
    attempts : full runs with fresh gammas while paths fail (>= 1)
    examine : decide isolated / not isolated for singular points (deflation + dual space);
        without it singular points stay undecided (``witness.decompose`` decides them by
        membership tests instead)
    slice_rows : the last slice_rows equations of F are random linear slices (a witness
        superset's): they do not choose the variable scaling (``witness.scaling``)

    Returns
    -------
    PathSolve

    Raises
    ------
    ValueError
        F not square, attempts < 1.

    Examples
    --------
    >>> from witness import PolynomialSystem
    >>> F = PolynomialSystem.from_strings(["x^2 + y - 3", "x + y^2/8 - 3/2"])
    >>> r = solve_paths(F, seed=1)
    >>> sorted(g.multiplicity for g in r.isolated), r.complete    # triple root + simple root
    ([1, 3], True)
    """
    t0 = time.perf_counter()
    if F.n_equations != F.n_vars:
        raise ValueError(f"solve needs a square system, got {F.n_equations} equations in "
                         f"{F.n_vars} unknowns (use decompose)")
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, got {attempts}")
    opt = SOLVE_OPTIONS if options is None else resolve(options)
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    scaling = morgan_scaling(F, slice_rows)
    G = F if scaling.identity else scaling.apply(F)     # tracked and examined in y: x = 2^d y
    best, log = None, []
    for _ in range(attempts):
        gamma = random_gamma(rng)
        H, X0 = total_degree_homotopy(G, gamma)
        tr = track(H, X0, opt, endgame=True, reroute=False, rng=rng)
        status, reasons = endpoint_status(G, tr, opt)
        failed = int(np.sum(status == PathStatus.FAILED))
        log.append({"gamma": [gamma.real, gamma.imag], "failed": failed,
                    "counts": {str(s): int(np.sum(status == s)) for s in PathStatus},
                    "seconds": tr.seconds})
        if best is None or failed < best[3]:
            best = (tr, status, reasons, failed, gamma)
        if failed == 0:
            break
    tr, status, reasons, _, gamma = best
    large_roots(G, tr, status, reasons)
    groups, pairs = group_endpoints(tr, status, opt)
    if pairs:
        groups, pairs = merge_undecided(groups, pairs), []
    most_accurate = [min(g, key=lambda i: _finite(tr.accuracy[i])) for g in groups]
    res = G.residual(tr.endpoints[most_accurate]) if groups else []   # batched, as above
    out = [_examine(G, tr, status, g, b, float(r), opt, rng, examine)
           for g, b, r in zip(groups, most_accurate, res)]
    # clusters resolved into simple roots: the first root keeps the group's place (the indices
    # of ``pairs``), the others go last
    extra = [g for gs in out for g in gs[1:]]
    out = [gs[0] for gs in out] + extra
    for g in out:
        if g.status == PathStatus.REGULAR:
            status[list(g.paths)] = PathStatus.REGULAR
    if G.is_exact:
        out = _checked_not_isolated(G, out, status, reasons)
    if not scaling.identity:
        out = _unscaled(F, out, scaling)
    return PathSolve(F, "total degree", status, reasons, tuple(out), tuple(pairs),
                     gamma, seed, tuple(log), tr, time.perf_counter() - t0,
                     None if scaling.identity else scaling)


def _unscaled(F: PolynomialSystem, groups: list[EndpointGroup], scaling: Scaling
              ) -> list[EndpointGroup]:
    """The groups' points mapped back to F's coordinates (x = 2^d y) and their backward errors
    taken on F as written (batched)."""
    if not groups:
        return groups
    X = scaling.to_original(np.array([g.point for g in groups]))
    res = F.residual(X)
    return [replace(g, point=x, residual=float(r)) for g, x, r in zip(groups, X, res)]


# ----------------------------------------------------------------------------- grouping
def group_endpoints(tr: TrackResult, status: np.ndarray, options: Options
                    ) -> tuple[list[list[int]], list[tuple[int, int]]]:
    """Finite endpoints grouped by the point rule: connected components of the SAME relation
    (networkx), and the pairs of groups with an UNDECIDED pair of endpoints between them."""
    fin = np.flatnonzero(np.isin(status, (PathStatus.REGULAR, PathStatus.SINGULAR))
                         & np.all(np.isfinite(tr.endpoints), axis=1))
    if not len(fin):
        return [], []
    X = tr.endpoints[fin]
    e = distinct.error_estimates(tr.accuracy[fin], len(fin), options.points)
    C = distinct.compare(distinct.relative_distances(X, X), e, e, options.points)
    G = nx.Graph()
    G.add_nodes_from(range(len(fin)))
    G.add_edges_from(zip(*np.nonzero(np.triu(C == distinct.SAME, 1))))
    comps = sorted((sorted(c) for c in nx.connected_components(G)), key=min)
    label = np.empty(len(fin), int)
    for k, c in enumerate(comps):
        label[c] = k
    und = {tuple(sorted((int(label[i]), int(label[j]))))
           for i, j in zip(*np.nonzero(np.triu(C == distinct.UNDECIDED, 1)))
           if label[i] != label[j]}
    return [[int(fin[i]) for i in c] for c in comps], sorted(und)


def _checked_not_isolated(F: PolynomialSystem, groups: list[EndpointGroup], status, reasons
                          ) -> list[EndpointGroup]:
    """The 'on a positive-dimensional set' verdicts of exact F, checked at 60 digits: a
    regular zero there is isolated after all (``_regular_after_all``); a point where
    Gauss-Newton converges to no zero is undecided; one where it stalls away from V(F)
    (``witness.cluster.on_variety_check``: 'not a zero') is dropped and its paths failed
    ('not_a_zero'), so the solve is not complete. Why the last: x*y - 1, x*y - 1 - 1/10^10
    has no solution, yet its 4 paths ended near the curve x*y = 1 (backward error 1e-10) and
    the solve said complete: True, 'positive-dimensional solution set met'."""
    keep = []
    for g in groups:
        if g.isolated is False:
            g = _regular_after_all(F, g, status)
        on = on_variety_check(F, g.point) if g.isolated is False else None
        if on == "not a zero":
            status[list(g.paths)] = PathStatus.FAILED
            reasons[list(g.paths)] = FailureReason.NOT_A_ZERO
            continue
        if on == "undecided":
            # a dual space larger than the paths, and Gauss-Newton at 60 digits not converging
            # to a zero of F: the endpoint of a path into a cluster of roots, or one stopped
            # short of a root of huge modulus, looks the same ((x - 1)^2 (x - 1 - 1/10^6),
            # seed 2: 3 single-path points near 1 'not isolated', complete: True with no
            # solution; x^20 - y^20 + x, x^20 - y^20 + y - 1: 2 points at |x| ~ 60, backward
            # error 1e-9, no zeros, a 'positive-dimensional set' of a system with 19 isolated
            # roots). A non-reduced positive-dimensional set is then undecided too.
            g = replace(g, isolated=None, reason=f"{g.reason}; but Gauss-Newton at 60 digits "
                        f"does not converge to a zero of F here: not shown to lie on a "
                        f"positive-dimensional set (undecided)")
        keep.append(g)
    return keep


def _regular_after_all(F: PolynomialSystem, g: EndpointGroup, status) -> EndpointGroup:
    """A group called 'on a positive-dimensional set' whose point is a regular zero of the
    exact F at 60 digits (``witness.cluster.regular_zero_check``) is isolated after all: one
    path, a regular root (the double-precision rank decision was fooled by ill-conditioning:
    (x - 1)(x - 2)...(x - 14), roots 5..13); more paths, a cluster around a simple root whose
    other roots were not resolved: undecided."""
    ok, why, x = regular_zero_check(F, g.point)
    if not ok:
        return g
    if len(g.paths) == 1:
        status[list(g.paths)] = PathStatus.REGULAR
        return replace(g, point=x, status=PathStatus.REGULAR, isolated=True,
                       residual=float(F.residual(x[None, :])[0]), local=None, deflation=None,
                       reason=f"regular zero ({why}); double precision called it singular")
    return replace(g, isolated=None, reason=f"{g.reason}; but a regular zero at 60 digits "
                   f"({why}) reached by {len(g.paths)} paths: a cluster, not resolved")


def merge_undecided(groups: list[list[int]], pairs: list[tuple[int, int]]) -> list[list[int]]:
    """Groups joined by an undecided pair (neither the same point nor different) merged into
    one, examined as one candidate point reached by all their paths: the high-precision check
    then decides a multiple root (the endpoints were one point) or a cluster (resolved into its
    roots), or leaves it undecided. Why: (x - 1)(x - 1 - 1e-9) ended its 2 paths at 2 points
    the rule could not separate, each singular with one path, so each was called
    'not isolated' (a positive-dimensional set met, for one variable)."""
    G = nx.Graph()
    G.add_nodes_from(range(len(groups)))
    G.add_edges_from(pairs)
    return [sorted(i for k in sorted(c) for i in groups[k])
            for c in sorted(nx.connected_components(G), key=min)]


def _examine(F, tr: TrackResult, status, paths: list[int], best: int, residual: float,
             opt: Options, rng, examine: bool) -> list[EndpointGroup]:
    """The group of paths ending at one point; ``best``: its most accurate path, ``residual``:
    F's backward error at that endpoint. More than one group when the point is the centre of a
    cluster of simple roots that ``split_cluster`` resolved."""
    x, acc = tr.endpoints[best].copy(), float(tr.accuracy[best])
    wind = tuple(int(tr.winding[i]) for i in paths)
    k = len(paths)
    if k == 1 and status[best] == PathStatus.REGULAR:
        return [EndpointGroup(x, (best,), PathStatus.REGULAR, wind, acc, residual, True,
                              "regular endpoint of one path")]
    if not examine:
        return [EndpointGroup(x, tuple(paths), PathStatus.SINGULAR, wind, acc, residual,
                              None, "singular point, not examined")]
    return split_cluster(F, examine_singular(F, x, acc, tuple(paths), wind, opt, rng), rng)


def split_cluster(F, g: EndpointGroup, rng, A=None, b=None) -> list[EndpointGroup]:
    """``g`` unchanged unless the high-precision check of its deflation called it the centre
    of a cluster (``witness.cluster``): then its roots by Newton at 60 digits
    (``resolve_cluster``); when as many distinct simple roots are found as paths ended there,
    one regular group per root (one path each, in path order: which path went to which root
    is not known, the endgame converged to the centre); otherwise g stays undecided with the
    reason. Why: x^2 - 1e-20 (roots +-1e-10) was one double root, complete: True."""
    chk = g.deflation.precise if g.deflation is not None else None
    if chk is None or chk.verdict != "cluster":
        return [g]
    res = resolve_cluster(F, g.point, g.multiplicity, rng, A, b, dps=chk.dps)
    if not res.resolved:
        return [replace(g, isolated=None, reason=f"{g.reason}; {res.reason}")]
    resid = F.residual(res.roots)
    why = (f"simple root of a cluster of {g.multiplicity} (the endgame converged to the "
           f"cluster's centre; {chk.reason}; {res.reason})")
    return [EndpointGroup(x, (p,), PathStatus.REGULAR, (w,), max(c, EPS), float(r), True, why)
            for x, p, w, c, r in zip(res.roots, g.paths, g.winding, res.corrections, resid)]


def simple_root_of_k_paths(F, x, k: int, defl: DeflationResult, A, b) -> DeflationResult:
    """x is regular without deflation, yet k > 1 paths ended there: with the gamma trick a
    simple root is the endpoint of exactly one path, so when [F; slice] has a regular solution
    here at 60 digits (``witness.cluster.check_deflation`` with no deflation step) the k paths
    went into a cluster around it ((x - 1)(x - 1 - 1e-9): both paths at ~1 + 5e-10, called one
    double root); the check's verdict becomes 'cluster', and ``split_cluster`` resolves it."""
    chk = check_deflation(F, [], x, A, b)
    if chk.verdict != "multiple":
        return defl
    why = (f"a simple root at {chk.dps} digits ({chk.reason}) reached by {k} paths: a cluster "
           f"of roots around it")
    return replace(defl, regular=False, precise=replace(chk, verdict="cluster", reason=why),
                   reason=why)


def examine_singular(F, x, acc, paths, wind, opt: Options, rng, A=None, b=None
                     ) -> EndpointGroup:
    """Isolated or not (module docstring, step 3) for a singular point x reached by
    len(paths) paths; on the slice A x = b when given (F then has n - dim equations)."""
    k = len(paths)
    first = local_structure(F, x, k, A=A, b=b, accuracy=_finite(acc), rank=opt.rank)
    # an isolated point of multiplicity mu <= k needs at most mu - 1 steps (LVZ, Theorem 3.1)
    defl = deflate(F, x, A=A, b=b, accuracy=_finite(acc), rng=rng, options=opt,
                   max_steps=min(k - 1, MAX_DEFLATIONS))
    if defl.regular and defl.deflation is None and k > 1:
        defl = simple_root_of_k_paths(F, x, k, defl, A, b)
    y = defl.x if defl.regular else x
    acc2 = defl.accuracy if defl.regular else acc
    loc = local_structure(F, y, k, A=A, b=b, accuracy=_finite(acc2), rank=opt.rank) \
        if defl.regular else first
    res = float(F.residual(y))
    if loc.isolated and loc.multiplicity == k and defl.regular:
        why = f"isolated, multiplicity {k} = paths ({loc.reason}; deflation: {defl.reason})"
        return EndpointGroup(y, paths, PathStatus.SINGULAR, wind, acc2, res, True, why, loc, defl)
    if loc.isolated is False:
        return EndpointGroup(y, paths, PathStatus.SINGULAR, wind, acc2, res, False,
                             f"not isolated: {loc.reason}", loc, defl)
    return EndpointGroup(y, paths, PathStatus.SINGULAR, wind, acc2, res, None,
                         f"undecided: dual space says {loc.reason}; {k} paths; deflation: "
                         f"{defl.reason}", loc, defl)
