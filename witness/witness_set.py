"""Witness sets: a system, a random affine slice, and the slice's points on a pure-dim set.

A witness set of a pure k-dimensional algebraic set Z ⊂ V(F) ⊂ C^n is (F, L, Z ∩ L) with L a
generic affine linear space of codimension k, here the slice A x = b with A (k, n), b (k,)
complex (Sommese–Verschelde–Wampler 2001; Sommese–Wampler 2005, ch. 13). Its number of points
is the degree of Z. ``WitnessSet.square`` is F itself when F has n - k equations, otherwise a
random complex combination R F of n - k equations (points are always checked on F).

Functions: ``move_slice`` (track the points to another slice), ``sample`` (points of Z on random
slices), ``membership`` / ``membership_many`` (homotopy membership test, Sommese–Verschelde–
Wampler 2001; many points as one batch of paths),
``trace_test`` (linear trace, Sommese–Verschelde–Wampler 2002: the sum of the points along a
pencil of parallel slices is affine-linear in the pencil parameter iff the points form a union
of full irreducible components), ``refine_witness_set`` (mpmath Newton). ``witness_set(F, dim)``
(PHCpack embedding + cascade, checked and repaired) is in ``decompose.py`` and re-exported.

Tolerances (stated, with margins in every result):
* solution: componentwise backward error < 1e-9 (``tracking.RESIDUAL_TOL``), rejected > 1e-6;
* same point / different point / undecided: ``distinct.compare`` (relative distance against
  the points' Newton-correction error estimates; never same above ``SAME_POINT_TOL`` = 1e-6,
  always different above ``DIFFERENT_POINT_TOL`` = 1e-3);
* trace test (``TraceTestResult``): TWO pencils on independent random slices (the witness
  slice and a fresh one); complete iff the relative trace residual is < ``TRACE_TOL`` = 1e-11
  on both; incomplete if > ``TRACE_FAIL`` = 1e-5 on either; otherwise (or with failed paths)
  "undecided". Measured (``benchmarks/trace.py``: 35 complete witness sets of 5 fiber systems,
  fiber seeds 0-4, 16 trace tests each on 3 kinds of base slice): complete sets give
  7.5e-18 .. 1.8e-14 (max over 3348 fully tracked pencils) -> margin 554x below TRACE_TOL
  (8 of 1678 tests undecided only by failed paths, (2,1,2) deep fiber). Proper subsets (minus
  one or two points) on ONE pencil reach 1.9e-16 (slices through the start point) and 1.3e-11
  (random slices): a missing tight cluster of witness points, or a point near a nearly flat
  sheet of the component, moves almost affinely along the pencil, so no single-pencil
  tolerance separates them (16 of 53789 single pencils below TRACE_TOL; the old TRACE_TOL =
  1e-8 certified a degree-2 subset of a degree-3 component at 1.5e-9). The larger of the
  residuals on two independent slices was >= 3.6e-6 for every proper subset (3.6e5x above
  TRACE_TOL, undecided there as < TRACE_FAIL; >= 1.9e-5 when both slices are random, as in
  ``monodromy``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .refine import RefineResult, refine
from .system import PolynomialSystem
from .distinct import DIFFERENT_POINT_TOL, SAME_POINT_TOL  # noqa: F401  (re-exported)
from .tracking import (RESIDUAL_REJECT, RESIDUAL_TOL, SliceHomotopy, TrackerOptions,
                       TrackResult, _endpoint_newton, random_gamma, track_slices)

TRACE_TOL = 1e-11
TRACE_FAIL = 1e-5
TRACE_PENCILS = 2


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def random_complex(rng: np.random.Generator, *shape) -> np.ndarray:
    """Standard complex normal entries (complex128, the given shape)."""
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / math.sqrt(2)


def random_slice(rng: np.random.Generator, k: int, n: int, through=None):
    """Random affine slice A x = b (A (k, n), b (k,)); through a point if given."""
    A = random_complex(rng, k, n)
    b = A @ np.asarray(through, complex) if through is not None else random_complex(rng, k)
    return A, b


def square_part(F: PolynomialSystem, dim: int, rng: np.random.Generator) -> PolynomialSystem:
    """F if it has n - dim equations, else n - dim random complex combinations of F with its
    equations first scaled to unit coefficient 2-norm (row equilibration).

    Why equilibrate: the deep fiber systems (numag.encode, exact row-reduced coefficient
    equations) have coefficient norms from 3.9 to 42750 ((2,2,2) fiber); unscaled random
    combinations are dominated by the large equations and the small ones are lost in rounding.
    Measured at an ill-conditioned point of that system: condition number of the row-normalized
    homotopy Jacobian 1.4e6 without, 3.4e5 with equilibration. The zero set is unchanged."""
    k = F.n_vars - dim
    if not 0 <= dim < F.n_vars:
        raise ValueError(f"dim must be in 0..{F.n_vars - 1}, got {dim}")
    if F.n_equations < k:
        raise ValueError(f"{F.n_equations} equations cannot cut out dimension {dim} in "
                         f"{F.n_vars} variables (need at least {k})")
    if F.n_equations == k:
        return F
    norms = F.coefficient_norms()
    scale = np.where(norms > 0, 1 / np.where(norms > 0, norms, 1), 1.0)
    return F.randomize(k, rng, row_scale=scale)


def relative_distance(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """||x_i - y|| / (1 + ||y||) for rows x_i of X (p, n) -> (p,)."""
    return np.linalg.norm(X - y, axis=-1) / (1 + np.linalg.norm(y))


@dataclass(frozen=True, eq=False)
class WitnessSet:
    """(system, slice A x = b, points) of a pure ``dim``-dimensional set.

    system: the original PolynomialSystem F; square: the n - dim equations tracked (F or R F);
    slice_A complex128 (dim, n), slice_b (dim,); points complex128 (degree, n); seed: the seed of
    the random choices that made it (None if unknown)."""
    system: PolynomialSystem
    square: PolynomialSystem
    dim: int
    slice_A: np.ndarray
    slice_b: np.ndarray
    points: np.ndarray
    seed: int | None = None
    info: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        n = self.system.n_vars
        pts = np.asarray(self.points, complex).reshape(-1, n)
        object.__setattr__(self, "points", pts)
        if self.slice_A.shape != (self.dim, n) or self.slice_b.shape != (self.dim,):
            raise ValueError(f"slice shapes {self.slice_A.shape}, {self.slice_b.shape} do not "
                             f"match dim {self.dim} in {n} variables")

    @property
    def degree(self) -> int:
        return len(self.points)

    def with_points(self, points, **info) -> "WitnessSet":
        return WitnessSet(self.system, self.square, self.dim, self.slice_A, self.slice_b,
                          points, self.seed, {**self.info, **info})

    def slice_residual(self) -> np.ndarray:
        """max |A x - b| per point (p,)."""
        if self.dim == 0 or not len(self.points):
            return np.zeros(len(self.points))
        return np.abs(self.points @ self.slice_A.T - self.slice_b).max(axis=1)

    def __repr__(self) -> str:
        return (f"WitnessSet(dim={self.dim}, degree={self.degree}, n_vars={self.system.n_vars}, "
                f"n_equations={self.system.n_equations}, seed={self.seed})")

    def to_json(self) -> dict:
        return {"dim": self.dim, "degree": self.degree, "variables": list(self.system.variables),
                "points": [[[z.real, z.imag] for z in x] for x in self.points],
                "slice_A": [[[z.real, z.imag] for z in r] for r in self.slice_A],
                "slice_b": [[z.real, z.imag] for z in self.slice_b], "seed": self.seed,
                **{k: v for k, v in self.info.items() if _jsonable(v)}}


def _jsonable(v) -> bool:
    return isinstance(v, (int, float, str, bool, list, dict, type(None)))


# ----------------------------------------------------------------------------- moving slices
def move_slice(W: WitnessSet, A1, b1, *, seed=None, method: str = "numpy",
               options: TrackerOptions | None = None) -> tuple[WitnessSet, TrackResult]:
    """Track W's points to the slice A1 x = b1 (gamma trick, random gamma from ``seed``).

    Returns (the moved WitnessSet with the successful endpoints that satisfy the original
    equations, the TrackResult with every path's status: failed paths are reported there and in
    ``info['failed_paths']``)."""
    rng = _rng(seed)
    A1, b1 = np.asarray(A1, complex), np.asarray(b1, complex)
    tr = track_slices(W.square, W.slice_A, W.slice_b, A1, b1, W.points, gamma=random_gamma(rng),
                      method=method, options=options)
    moved = WitnessSet(W.system, W.square, W.dim, A1, b1, tr.endpoints[tr.ok], W.seed,
                       {**W.info, "failed_paths": int((~tr.ok).sum())})
    return moved, tr


def sample(W: WitnessSet, count: int = 1, *, seed=None) -> np.ndarray:
    """``count`` x degree points of the set on fresh random slices: complex128
    (count * degree, n) (only endpoints that tracked successfully)."""
    rng = _rng(seed)
    out = []
    for _ in range(count):
        A, b = random_slice(rng, W.dim, W.system.n_vars)
        moved, _ = move_slice(W, A, b, seed=rng)
        out.append(moved.points)
    return np.concatenate(out) if out else np.zeros((0, W.system.n_vars), complex)


# ----------------------------------------------------------------------------- membership
@dataclass(frozen=True)
class MembershipResult:
    """Homotopy membership test of one point.

    verdict: True (member), False (not), None (undecided); residual: backward error of the point
    on the system; distance: smallest relative distance of a moved witness point to the point
    (tolerance ``SAME_POINT_TOL``; margin = log10(tol / distance), > 0 means member);
    failed_paths; reason."""
    verdict: bool | None
    residual: float
    distance: float
    failed_paths: int
    reason: str
    tolerance: float = SAME_POINT_TOL

    @property
    def margin(self) -> float:
        return math.log10(self.tolerance / max(self.distance, 1e-300))

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "residual": self.residual, "distance": self.distance,
                "failed_paths": self.failed_paths, "reason": self.reason,
                "tolerance": self.tolerance, "margin": self.margin}


def membership(point, W: WitnessSet, *, seed=None) -> MembershipResult:
    """Is ``point`` (n,) on the set of W? (homotopy membership test, Sommese–Verschelde–Wampler
    2001: move W's slice to a random slice through the point; the point is a member iff it is
    one of the endpoints).

    Raises ValueError for a wrong shape or NaN."""
    p = np.asarray(point, complex)
    if p.shape != (W.system.n_vars,) or not np.all(np.isfinite(p)):
        raise ValueError(f"point must be finite with shape ({W.system.n_vars},), got {p.shape}")
    return membership_many(p[None, :], W, seed=seed)[0]


def membership_many(points, W: WitnessSet, *, seed=None) -> list[MembershipResult]:
    """Homotopy membership test of each row of ``points`` (q, n) against W, all paths (q x
    degree, each point with its own random slice through it) tracked as one batch.

    A path to a singular endpoint may stop short of s = 1; Newton at s = 1 from there converges
    (linearly): such a match is reported as undecided with its distance, never as a member.
    Raises ValueError for a wrong shape or NaN."""
    P = np.atleast_2d(np.asarray(points, complex))
    n = W.system.n_vars
    if P.shape[1] != n or not np.all(np.isfinite(P)):
        raise ValueError(f"points must be finite with shape (q, {n}), got {P.shape}")
    res = W.system.residual(P) if len(P) else np.zeros(0)
    out: list[MembershipResult | None] = [None] * len(P)
    todo = []
    for i, r in enumerate(res):
        if r > RESIDUAL_REJECT:
            out[i] = MembershipResult(False, float(r), math.inf, 0, f"not a solution (residual "
                                      f"{r:.1e} > {RESIDUAL_REJECT:.0e})")
        elif W.degree == 0:
            out[i] = MembershipResult(False, float(r), math.inf, 0, "empty witness set")
        elif W.dim == 0:
            out[i] = _verdict(float(r), float(relative_distance(W.points, P[i]).min()), 0)
        else:
            todo.append(i)
    if todo:
        for i, m in zip(todo, _track_memberships(P[todo], res[todo], W, _rng(seed))):
            out[i] = m
    return out


def _track_memberships(P, res, W: WitnessSet, rng) -> list[MembershipResult]:
    q, deg, n = len(P), W.degree, W.system.n_vars
    A = random_complex(rng, q, W.dim, n)
    b = np.einsum("qkn,qn->qk", A, P)
    group = np.repeat(np.arange(q), deg)
    A1, b1 = A[group], b[group]
    tr = track_slices(W.square, W.slice_A, W.slice_b, A1, b1, np.tile(W.points, (q, 1)),
                      gamma=random_gamma(rng), groups=group)
    E = tr.endpoints.copy()
    reached = tr.s_reached if tr.s_reached is not None else np.zeros(len(E))
    late = (tr.status != "success") & (np.nan_to_num(reached) > 0.9)
    if late.any():
        idx = np.flatnonzero(late)
        E[idx], _ = _endpoint_newton_loose(W.square, A1[idx], b1[idx], E[idx])
    fin = np.all(np.isfinite(E), axis=1)
    out = []
    for i in range(q):
        g = group == i
        # a path counts only if it succeeded AND ends on the original equations (a path that
        # jumped to a spurious point of the randomized system counts as failed)
        ok, lt = g & fin & tr.ok, g & fin & late
        d = float(relative_distance(E[ok], P[i]).min()) if ok.any() else math.inf
        d_late = float(relative_distance(E[lt], P[i]).min()) if lt.any() else math.inf
        m = _verdict(float(res[i]), d, int((g & ~tr.ok).sum()))
        if m.verdict is not True and d_late < d:
            m = MembershipResult(None, float(res[i]), d_late, m.failed_paths,
                                 f"only a path that stopped short (singular endpoint) comes "
                                 f"within {d_late:.1e} after Newton at the end")
        out.append(m)
    return out


def _endpoint_newton_loose(G, A, b, X, iterations: int = 60):
    """Newton on [G; A_i x - b_i] (per point slices A (p, k, n), b (p, k)) at s = 1."""
    H = SliceHomotopy(G, A[0], b[0], A, b, 1.0)
    return _endpoint_newton(H, X.copy(), iterations)


def _verdict(res: float, d: float, failed: int) -> MembershipResult:
    undecided_res = res > RESIDUAL_TOL
    if d < SAME_POINT_TOL and not undecided_res:
        return MembershipResult(True, res, d, failed, "a moved witness point reaches the point")
    if d < SAME_POINT_TOL:
        return MembershipResult(None, res, d, failed, f"endpoint matches but residual {res:.1e} "
                                f"is between {RESIDUAL_TOL:.0e} and {RESIDUAL_REJECT:.0e}")
    if d > DIFFERENT_POINT_TOL and failed == 0:
        return MembershipResult(False, res, d, failed, "no moved witness point reaches the point")
    return MembershipResult(None, res, d, failed,
                            f"closest endpoint at {d:.1e} (member < {SAME_POINT_TOL:.0e}, not > "
                            f"{DIFFERENT_POINT_TOL:.0e}) with {failed} failed paths")


# ----------------------------------------------------------------------------- trace test
@dataclass(frozen=True)
class TracePencil:
    """Parallel slices A x = b + t v at t = 0, t1, t2 and the points of some set on each.

    values[j]: complex128 (p, n) points at t_j (rows aligned: row i is the same path)."""
    direction: np.ndarray
    ts: tuple[complex, complex, complex]
    values: tuple[np.ndarray, np.ndarray, np.ndarray]
    ok: np.ndarray


def random_pencil(rng: np.random.Generator, dim: int):
    """Direction v (dim,) and t = (0, e^{i a}, -e^{i b}) of a random pencil A x = b + t v."""
    v = random_complex(rng, dim)
    ts = (0j, complex(np.exp(2j * np.pi * rng.random())),
          complex(-np.exp(2j * np.pi * rng.random())))
    return v, ts


def trace_pencil(W: WitnessSet, rng: np.random.Generator, direction=None, ts=None,
                 points=None) -> TracePencil:
    """Track ``points`` (default W.points, on W's slice) to two parallel translates of the slice.
    """
    X = W.points if points is None else np.atleast_2d(points)
    v, ts0 = random_pencil(rng, W.dim)
    v = v if direction is None else direction
    ts = ts or ts0
    vals, ok = [X], np.ones(len(X), bool)
    for t in ts[1:]:
        tr = track_slices(W.square, W.slice_A, W.slice_b, W.slice_A, W.slice_b + t * v, X,
                          gamma=random_gamma(rng))
        vals.append(tr.endpoints)
        ok &= tr.ok
    return TracePencil(v, ts, tuple(vals), ok)


def trace_residual(values, ts) -> float:
    """Relative deviation from affine-linearity of the sums s(t) = sum_i x_i(t) over three t's:
    |s(t2) - s(0) - (t2 - t0)/(t1 - t0) (s(t1) - s(0))| / sum_i,t |x_i(t)| (linear trace,
    Sommese–Verschelde–Wampler 2002)."""
    s = [np.sum(v, axis=0) for v in values]
    lam = (ts[2] - ts[0]) / (ts[1] - ts[0])
    dev = np.linalg.norm(s[2] - s[0] - lam * (s[1] - s[0]))
    scale = sum(np.linalg.norm(v, axis=1).sum() for v in values)
    return float(dev / scale) if scale > 0 else 0.0


@dataclass(frozen=True)
class TraceTestResult:
    """Linear trace test on ``TRACE_PENCILS`` = 2 pencils on independent random slices.

    verdict True (complete: a union of irreducible components): no failed path and the residual
    on every pencil < TRACE_TOL, with both pencils done; False: some pencil's residual >
    TRACE_FAIL (with no failed path); None (undecided) otherwise: failed paths, a residual
    between the two tolerances, or only one pencil done. residual: the largest of
    ``residuals`` (one per pencil); margin = log10(TRACE_TOL / residual) (> 0 passes)."""
    verdict: bool | None
    residual: float
    failed_paths: int
    tolerance: float = TRACE_TOL
    fail_above: float = TRACE_FAIL
    residuals: tuple[float, ...] = ()

    @property
    def margin(self) -> float:
        return math.log10(self.tolerance / max(self.residual, 1e-300))

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "residual": self.residual, "tolerance": self.tolerance,
                "fail_above": self.fail_above, "margin": self.margin,
                "failed_paths": self.failed_paths, "residuals": list(self.residuals),
                "pencils_required": TRACE_PENCILS}


def trace_verdict(residuals, failed: int = 0) -> TraceTestResult:
    """Verdict from the residuals of the pencils done so far (a float counts as one pencil) and
    the number of failed paths (module docstring: TRACE_TOL, TRACE_FAIL, TRACE_PENCILS)."""
    res = (float(residuals),) if np.isscalar(residuals) else tuple(float(r) for r in residuals)
    r = max(res) if res else math.nan
    if failed:
        return TraceTestResult(None, r, failed, residuals=res)
    if r > TRACE_FAIL:
        return TraceTestResult(False, r, 0, residuals=res)
    if len(res) >= TRACE_PENCILS and r < TRACE_TOL:
        return TraceTestResult(True, r, 0, residuals=res)
    return TraceTestResult(None, r, 0, residuals=res)


def trace_values_two_slices(W: WitnessSet, rng: np.random.Generator, method: str = "numpy",
                            options: TrackerOptions | None = None):
    """Pencil values of W's points on W's slice and on a fresh random slice (W's points moved
    there with one fixed gamma, so rows stay aligned). Returns [(values, ts, ok), (values, ts,
    ok)]; ok (p,) marks rows whose paths all succeeded (``TrackResult.ok``: endpoint checks and
    no collision with another row's endpoint) on every slice."""
    out = []
    A2, b2 = random_slice(rng, W.dim, W.system.n_vars)
    moved = track_slices(W.square, W.slice_A, W.slice_b, A2, b2, W.points,
                         gamma=random_gamma(rng), method=method, options=options)
    for A, b, X, ok0 in ((W.slice_A, W.slice_b, W.points, np.ones(W.degree, bool)),
                         (A2, b2, moved.endpoints, moved.ok)):
        v, ts = random_pencil(rng, W.dim)
        vals, ok = [X], ok0.copy()
        for t in ts[1:]:
            tr = track_slices(W.square, A, b, A, b + t * v, X, gamma=random_gamma(rng),
                              method=method, options=options)
            vals.append(tr.endpoints)
            ok &= tr.ok
        out.append((tuple(vals), ts, ok))
    return out


def trace_test(W: WitnessSet, *, seed=None, groups=None):
    """Linear trace test of W's points (Sommese–Verschelde–Wampler 2002) on two pencils: one on
    W's slice, one on a fresh random slice (see TraceTestResult). For dim 0 the verdict is True
    (isolated points are their own components).

    groups: optional list of index lists; then a list of TraceTestResults, one per group (all
    groups share the same paths)."""
    if W.dim == 0 or W.degree == 0:
        res = TraceTestResult(True, 0.0, 0)
        return res if groups is None else [res for _ in groups]
    pens = trace_values_two_slices(W, _rng(seed))
    out = []
    for g in ([list(range(W.degree))] if groups is None else groups):
        g = np.asarray(g, int)
        failed = int(sum((~ok[g]).sum() for _, _, ok in pens))
        out.append(trace_verdict([trace_residual([v[g] for v in vals], ts)
                                  for vals, ts, _ in pens], failed))
    return out[0] if groups is None else out


# ----------------------------------------------------------------------------- refinement
def refine_witness_set(W: WitnessSet, digits: int = 30) -> RefineResult:
    """Newton refinement of W's points in mpmath on F together with the slice (Gauss–Newton when
    F has more than n - dim equations)."""
    return refine(W.system, W.points, digits, slice_A=W.slice_A, slice_b=W.slice_b)
