"""Fibers {W : φ_W = φ_{W0}} as witness sets, compared with the known symmetries.

The fiber through W0 is encoded exactly (numag.encode), its dimension is the nullity of the
system's Jacobian at W0 computed exactly over Q, and its irreducible components are computed by
monodromy from known points (witness.monodromy; no total-degree homotopy), each certified by the
linear trace test. The prediction depends on the type of W0 (paper-notes §2, single layer
(d, d', a), A = Kᵀ Q):

* generic (rk A ≥ 2 or rk V ≥ 2; and every deep network): one component, the orbit of W0 under
  the symmetries (S1)–(S3), of dimension rank of the orbit's tangents at W0 (= a² + 1 when
  a ≤ d) [HMK].
* rank one with u ∦ w (A = u ṽᵀ, V = c wᵀ): two branches, through W0 and through the swapped
  point (w ṽᵀ, c uᵀ) [HMK]; for a = 1 each is a GL_1 × C* orbit of dimension 2. For a ≥ 2 the
  dimension of a branch is not stated by the paper: it is computed, not predicted.
  When a = d' = 1 every point is of this type, so the generic fiber has two components.
* rank one with u ∥ w: the two branches coincide (the swap is a member of W0's component).
* zero (A = 0 or V = 0): {A = 0} ∪ {V = 0} in W coordinates [derived here]: A = Kᵀ Q = 0 iff
  im Q ⊆ ker Kᵀ; with r = rk Q this is Z_r = {rk Q ≤ r, Kᵀ Q = 0}, a vector bundle over the
  Grassmannian of r-planes U ⊂ C^a (Q maps into U, Kᵀ kills U), irreducible of dimension
  r(a − r) + r d + (a − r) d, for max(0, a − d) ≤ r ≤ min(a, d); no Z_r contains another (rk Q
  and rk K = a − r are generic on it). With V free the components are Z_r × C^{d'd}, of
  dimension r(a − r) + a d + d d', and {V = 0} = C^{2ad} × {0}, of dimension 2ad.

Monodromy certifies only the components through its start points; on small shapes PHCpack's
blackbox decomposition (witness.decompose) of the same system is an independent check for
components no start point reached.
"""
from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

import flint
import numpy as np

from witness import decompose, membership, monodromy
from witness.jsonio import points_to_json

from .architecture import Architecture, LayerWeights
from .arith import RationalArithmetic
from .fiber_program import fiber_program
from .encode import FiberSystem, exact_point, fiber_system, with_rank_one_conditions
from .io import weights_to_json
from . import progress as _progress
from .points import PointKind, _rank_one_factors, _rationals, exact_rank, sample_point
from .symmetry import orbit_tangents

BLACKBOX_MAX_VARS = 6          # "small shapes": measured 14 s at 6 unknowns, 130 s at 8


class PointType(enum.StrEnum):
    """The type of W0 that decides the predicted fiber (module docstring)."""

    GENERIC = "generic"
    RANK_ONE = "rank one (u ∦ w)"            # two branches: W0's and the swapped one
    RANK_ONE_PARALLEL = "rank one (u ∥ w)"   # the two branches coincide
    ZERO = "zero"

    @property
    def is_rank_one(self) -> bool:
        return self in (PointType.RANK_ONE, PointType.RANK_ONE_PARALLEL)


class Expectation(enum.StrEnum):
    """What the prediction says of an expected component's start point."""

    SEPARATE = "separate component"            # a component of its own
    ON_W0 = "on W0's component"                # the same component as W0 (u ∥ w: the swap)

    @property
    def separate(self) -> bool:
        return self is Expectation.SEPARATE


class FoundBy(enum.StrEnum):
    """Which computation found a component."""

    MONODROMY = "monodromy"                    # from an expected component's start point
    BLACKBOX = "blackbox"                      # only by PHCpack's blackbox decomposition


@dataclass(frozen=True)
class ExpectedComponent:
    """A component the theory predicts, with a rational point on it to start monodromy from.

    dim is None where the paper does not predict it (it is then computed); `expectation` says
    whether the point should give a component of its own or lie on W0's."""

    label: str
    dim: int | None
    source: str
    point: np.ndarray = field(repr=False)
    expectation: Expectation = Expectation.SEPARATE

    def to_json(self) -> dict:
        return {"label": self.label, "dim": self.dim, "source": self.source,
                "expectation": self.expectation}


@dataclass(frozen=True)
class FiberComponent:
    """An irreducible component found by monodromy (or only by the blackbox decomposition).

    Attributes
    ----------
    label
        the expected component whose start point reached it ('blackbox only' else).
    dim, degree
        dimension and degree (number of witness points).
    trace_test
        verdict, residual, tolerance and margin of the linear trace test.
    points
        witness points (complex, (degree, n_params)).
    stop_reason
        why its monodromy run stopped (a budget means a partial witness set).
    found_by
        monodromy, or only the blackbox decomposition.
    """

    label: str
    dim: int
    degree: int
    trace_test: dict
    points: np.ndarray = field(repr=False)
    stop_reason: str = ""
    found_by: FoundBy = FoundBy.MONODROMY

    @property
    def certified(self) -> bool:
        """The trace test certified the witness set complete."""
        return self.trace_test["verdict"] is True

    def to_json(self) -> dict:
        return {"dim": self.dim, "degree": self.degree, "trace_test": self.trace_test,
                "label": self.label, "stop_reason": self.stop_reason,
                "found_by": self.found_by, "points": points_to_json(self.points)}


@dataclass(frozen=True)
class FiberDecomposition:
    """Result of `fiber`: dimension, components, and the comparison with the prediction.

    Attributes
    ----------
    dimension
        exact nullity of the (deflated, for u ∥ w) fiber system's Jacobian at W0: the
        local fiber dimension at a smooth point, cross-checked by the witness sets' dims.
    tangent_dimension
        the same nullity before deflation (larger where the fiber system is
        non-reduced: by d − 1 at u ∥ w, paper-notes §2).
    point_type
        PointType: 'generic', 'rank one (u ∦ w)', 'rank one (u ∥ w)' or 'zero'.
    matches
        True iff everything agrees with the prediction ("matches the known
        symmetries"); False if something contradicts it; None (undecided) if the only
        obstacle is a witness set that the trace test does not certify (failed paths, a
        residual between the tolerances, or monodromy stopped at a budget with a partial
        set): `verdict` says it in words, with the stop reason, and `evidence` lists each
        check.
    paths_tracked / failed_paths
        totals over all monodromy runs.
    blackbox
        the blackbox decomposition's components and agreement, or None.
    """

    architecture: Architecture
    seed: int
    weights: dict
    point_type: PointType
    dimension: int
    tangent_dimension: int
    expected: tuple[ExpectedComponent, ...]
    components: tuple[FiberComponent, ...]
    matches: bool | None
    verdict: str
    evidence: tuple[str, ...]
    paths_tracked: int
    failed_paths: int
    seconds: float
    encoding: dict
    blackbox: dict | None = None

    def to_json(self) -> dict:
        """The one JSON of a fiber (`numag fiber --json`, sweeps, the fibers study): the
        documented keys first (dimension, components, paths_tracked, seconds, seed, expected
        with the prediction's components, matches and verdict), then the rest."""
        return {"dimension": self.dimension,
                "components": [c.to_json() for c in self.components],
                "paths_tracked": self.paths_tracked, "seconds": round(self.seconds, 3),
                "seed": self.seed,
                "expected": {"components": [e.to_json() for e in self.expected],
                             "matches": self.matches, "verdict": self.verdict},
                "architecture": self.architecture.to_json(), "weights": self.weights,
                "point_type": self.point_type, "tangent_dimension": self.tangent_dimension,
                "evidence": list(self.evidence), "failed_paths": self.failed_paths,
                "encoding": self.encoding, "blackbox": self.blackbox}


# ----------------------------------------------------------------------------- exact helpers
def exact_nullity(fs: FiberSystem, point: np.ndarray) -> int:
    """n − rank over Q of the Jacobian of the fiber system at a rational point (python-flint)."""
    n = fs.system.n_vars
    J = flint.fmpq_mat(fs.system.n_equations, n)
    x = [Fraction(v) for v in point]
    for i, poly in enumerate(fs.system.polynomials):
        row = [Fraction(0)] * n
        for e, c in poly.items():
            for j, k in enumerate(e):
                if k:
                    term = Fraction(c) * k
                    for jj, kk in enumerate(e):
                        p = kk - 1 if jj == j else kk
                        if p:
                            term *= x[jj] ** p
                    row[j] += term
        for j, v in enumerate(row):
            if v:
                J[i, j] = flint.fmpq(v.numerator, v.denominator)
    return n - J.rank()


def orbit_dimension(arch: Architecture, layers: Sequence[LayerWeights]) -> int:
    """Exact rank over Q of the (S1)–(S3) orbit tangents at W (numag.symmetry)."""
    ops = RationalArithmetic()
    T = orbit_tangents(arch, [LayerWeights(*(ops.convert(m) for m in l)) for l in layers], ops)
    return exact_rank(T)


def point_type(arch: Architecture, layers: Sequence[LayerWeights]) -> PointType:
    """Type of a rational single-layer point (exact ranks); generic for deep networks."""
    if not arch.is_single_layer:
        return PointType.GENERIC
    (Q, K, V), = layers
    A = K.T.dot(Q)
    rA, rV = exact_rank(A), exact_rank(V)
    if rA == 0 or rV == 0:
        return PointType.ZERO
    if rA >= 2 or rV >= 2:
        return PointType.GENERIC
    (u, _), (_, w) = _rank_one_factors(A), _rank_one_factors(V)
    return PointType.RANK_ONE_PARALLEL if exact_rank(np.array([u, w], dtype=object)) < 2 \
        else PointType.RANK_ONE


# ----------------------------------------------------------------------------- predictions
def expected_components(arch: Architecture, layers: Sequence[LayerWeights], kind: PointType,
                        rng: np.random.Generator) -> list[ExpectedComponent]:
    """The components theory predicts for the fiber through `layers` (module docstring)."""
    w0 = exact_point(arch, layers)
    kind = PointType(kind)
    if kind is PointType.GENERIC:
        return [ExpectedComponent("orbit of W0", orbit_dimension(arch, layers),
                                  "HMK: generic fiber = (S1)–(S3) orbit", w0)]
    (a, d), _, (d_out, _) = arch.layer_shapes()[0]
    if kind is PointType.ZERO:
        return _zero_components(arch, a, d, d_out, rng)
    branch_dim = 2 if a == 1 else None
    src = "HMK: rank-1 fibers are two scaling lines (u ↔ w)"
    swapped = exact_point(arch, [_branch_point(layers[0], rng, swap=True)])
    if kind is PointType.RANK_ONE_PARALLEL:
        return [ExpectedComponent("W0 = swap", branch_dim, src + "; they coincide for u ∥ w",
                                  w0),
                ExpectedComponent("swap (same branch)", branch_dim, src, swapped,
                                  Expectation.ON_W0)]
    return [ExpectedComponent("branch of W0", branch_dim, src, w0),
            ExpectedComponent("swapped branch", branch_dim, src, swapped)]


def _branch_point(layer: LayerWeights, rng: np.random.Generator, swap: bool) -> list:
    """A point (α ṽᵀ, β xᵀ, c yᵀ) with A ∝ x ṽᵀ, V ∝ c yᵀ; (x, y) = (w, u) if swap else (u, w)."""
    Q, K, V = layer
    (u, vt), (c, w) = _rank_one_factors(K.T.dot(Q)), _rank_one_factors(V)
    a = Q.shape[0]
    alpha, beta = _rationals(rng, (a,)), _rationals(rng, (a,))
    while sum(alpha * beta) == 0:
        beta = _rationals(rng, (a,))
    s = sum(alpha * beta)
    x, y = (w, u) if swap else (u, w)
    return [np.outer(alpha, vt), np.outer(beta, x) / s, np.outer(c, y)]


def _zero_components(arch, a, d, d_out, rng) -> list[ExpectedComponent]:
    out = []
    for r in range(max(0, a - d), min(a, d) + 1):
        Q = np.vstack([_rationals(rng, (r, d)), _zeros((a - r, d))])       # im Q = span(e_1..e_r)
        K = np.vstack([_zeros((r, d)), _rationals(rng, (a - r, d))])       # Kᵀ kills e_1..e_r
        V = _rationals(rng, (d_out, d))
        out.append(ExpectedComponent(
            f"Z_{r} × C^(d'd) (rk Q = {r}, rk K = {a - r})", r * (a - r) + a * d + d * d_out,
            "derived (module docstring): {Kᵀ Q = 0} component", exact_point(arch, [(Q, K, V)])))
    Q, K = _rationals(rng, (a, d)), _rationals(rng, (a, d))
    out.append(ExpectedComponent("{V = 0}", 2 * a * d, "derived: {V = 0} = C^(2ad)",
                                 exact_point(arch, [(Q, K, _zeros((d_out, d)))])))
    return out


def _zeros(shape) -> np.ndarray:
    out = np.empty(shape, dtype=object)
    out.fill(Fraction(0))
    return out


# ----------------------------------------------------------------------------- computation
def fiber(arch: Architecture, weights: Sequence[LayerWeights] | None = None,
          kind: PointKind | str = PointKind.GENERIC, seed: int = 0, blackbox: bool | None = None,
          max_loops: int = 50, timeout: float | None = None,
          progress: bool | None = None) -> FiberDecomposition:
    """Witness sets of the fiber {W : φ_W = φ_W0} through W0, compared with the symmetries.

    Parameters
    ----------
    arch : Architecture
        A lightning architecture (softmax fibers are not polynomial).
    weights : sequence of LayerWeights, optional
        W0 (rational entries; Fractions, ints or floats taken exactly). Default
        numag.points.sample_point(arch, kind, seed).
    kind : {'generic', 'swap', 'parallel', 'zero'}
        The sample point's kind when weights is None; the prediction always follows the exact
        type of W0 (see point_type).
    seed : int
        Seeds every random choice (points, slices, gammas); recorded.
    blackbox : bool, optional
        Also run witness.decompose on the same system (default: when the system has at most
        BLACKBOX_MAX_VARS unknowns).
    max_loops, timeout : int, float, optional
        Monodromy budget per start point (loops; seconds). A run stopped by a budget leaves a
        partial witness set, which makes the verdict undecided, never a mismatch.
    progress : bool, optional
        Progress bar (numag.progress).

    Returns
    -------
    FiberDecomposition

    Raises
    ------
    ValueError
        Softmax, inconsistent weights, a non-positive timeout or max_loops, or a start point
        that is not a smooth point of its component (monodromy needs one).

    Examples
    --------
    A rank-one point of a single layer with u ∦ w: two components (W0's branch and the swapped
    one), each of dimension 2 and degree 3, certified by the trace test (HMK):

    >>> r = fiber(Architecture((3, 2), (1,)), kind="swap", seed=0, blackbox=False)
    >>> print(r.point_type)
    rank one (u ∦ w)
    >>> r.dimension, [(c.dim, c.degree, c.certified) for c in r.components], r.matches
    (2, [(2, 3, True), (2, 3, True)], True)

    References
    ----------
    Henry, Marchetti, Kohn (arXiv 2408.17221): fibers of a single layer, symmetries (S1)–(S3);
    paper-notes §2 (the zero fiber [derived], u ∥ w non-reduced).
    """
    t0 = time.perf_counter()
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout}")
    if max_loops < 1:
        raise ValueError(f"max_loops must be >= 1, got {max_loops}")
    if arch.kind != "lightning":
        raise ValueError("fibers are computed for lightning attention (polynomial); softmax "
                         "fibers are single points in (A, V) coordinates (HMK)")
    rng = np.random.default_rng(seed)
    layers = list(weights) if weights is not None else sample_point(arch, kind, seed)
    fs = fiber_system(arch, layers)
    ptype = point_type(arch, layers)
    expected = expected_components(arch, layers, ptype, rng)
    tangent_dim = dim0 = exact_nullity(fs, fs.base_point)
    deflation = []
    if ptype is PointType.RANK_ONE_PARALLEL:
        fs = with_rank_one_conditions(fs)
        dim0 = exact_nullity(fs, fs.base_point)
        deflation = [f"u ∥ w: Jacobian nullity of the fiber system at W0 is {tangent_dim}; with "
                     f"the 2×2 minors of [A | Vᵀ] (they vanish on the predicted fiber) it is "
                     f"{dim0}" + (" (the fiber system is non-reduced there: deflated)"
                                  if dim0 < tangent_dim else "")]
    comps, evidence, paths, failed = _monodromy_all(fs, expected, rng, max_loops, timeout,
                                                    progress)
    evidence = deflation + evidence
    bb = None
    if blackbox or (blackbox is None and fs.system.n_vars <= BLACKBOX_MAX_VARS):
        bb, extra = _blackbox(fs, comps, seed)
        comps += extra
    matches, verdict, checks = _compare(expected, comps, dim0, bb)
    return FiberDecomposition(arch, seed, weights_to_json(arch, layers), ptype, dim0,
                              tangent_dim, tuple(expected), tuple(comps), matches, verdict,
                              tuple(evidence + checks), paths, failed,
                              time.perf_counter() - t0, fs.to_json(), bb)


def _monodromy_all(fs, expected, rng, max_loops, timeout, progress):
    comps: list[FiberComponent] = []
    wsets, evidence, paths, failed = [], [], 0, 0
    for e in expected:
        x = np.array([complex(v) for v in e.point])
        owner = _member_of(x, wsets, rng)
        if owner is not None:
            evidence.append(f"start point of '{e.label}' is a member of the component of "
                            f"'{comps[owner].label}'")
            continue
        k = exact_nullity(fs, e.point)
        system, form = fs.system, "expanded"
        if not fs.architecture.is_single_layer:     # deep: the forward pass as a program
            system = fiber_program(fs, fs.system.n_vars - k, int(rng.integers(2 ** 31)),
                                   at=e.point)
            form = f"program ({system.program.info['samples']} sample inputs)"
        res = monodromy(system, k, x, seed=int(rng.integers(2 ** 31)), max_loops=max_loops,
                        timeout=timeout, progress=_progress.enabled(progress))
        paths, failed = paths + res.paths_tracked, failed + res.failed_paths
        evidence.append(f"'{e.label}': monodromy from its point, local dim {k}, "
                        f"{res.loops} loops, {res.paths_tracked} paths, stop: {res.stop_reason}; "
                        f"tracked on the {form} system, checked on the exact coefficient "
                        f"equations")
        for c, t in zip(res.components, res.trace_tests):
            comps.append(FiberComponent(e.label, c.dim, c.degree, t.to_json(), c.points,
                                        res.stop_reason))
            wsets.append(c)
    return comps, evidence, paths, failed


def _member_of(x: np.ndarray, wsets, rng) -> int | None:
    for i, W in enumerate(wsets):
        if membership(x, W, seed=rng).verdict is True:
            return i
    return None


def _blackbox(fs: FiberSystem, comps: list[FiberComponent], seed: int):
    """witness.decompose on the same system; components it finds that no monodromy component
    accounts for (same dim and degree, and a witness point that is a member) are returned."""
    nid = decompose(fs.system, seed=seed)
    found = [(c.dim, c.degree) for c in comps]
    extra, matched = [], []
    for c in nid.components:
        key = (c.dim, c.degree)
        if key in found:
            found.remove(key)
            matched.append(key)
        else:
            extra.append(FiberComponent("blackbox only", c.dim, c.degree, c.trace.to_json(),
                                        c.witness_set.points, found_by=FoundBy.BLACKBOX))
    info = {"components": [{"dim": c.dim, "degree": c.degree} for c in nid.components],
            "certified": nid.certified, "seconds": round(nid.seconds, 2),
            "agrees": not extra and not found,
            "missed_by_blackbox": [{"dim": d, "degree": g} for d, g in found]}
    return info, extra


def _compare(expected, comps, dim0, bb) -> tuple[bool, str, list[str]]:
    checks, problems = [], []
    first = expected[0]
    if first.dim is not None:
        ok = dim0 == first.dim
        checks.append(f"fiber dimension at W0 {dim0} {'=' if ok else '≠'} predicted {first.dim}")
        if dim0 > first.dim:
            problems.append(f"extra dimension: {dim0} > {first.dim}")
        elif not ok:
            problems.append(f"dimension {dim0} < predicted {first.dim}")
    for e in expected:
        mine = [c for c in comps if c.label == e.label]
        if e.dim is not None and any(c.dim != e.dim for c in mine):
            problems.append(f"'{e.label}': dim {[c.dim for c in mine]} ≠ {e.dim}")
    for e in expected:
        if not e.expectation.separate and any(c.label == e.label for c in comps):
            problems.append(f"'{e.label}' gave a separate component: the branches differ")
    missing = [e.label for e in expected if e.expectation.separate
               and not any(c.label == e.label for c in comps)]
    if missing:
        problems.append(f"predicted components not reached separately: {missing}")
    extra = [c for c in comps if c.found_by is FoundBy.BLACKBOX]
    if extra:
        problems.append(f"extra component(s) found by the blackbox decomposition: "
                        f"{[(c.dim, c.degree) for c in extra]}")
    # monodromy stops uncertified only at a budget: an incomplete (trace test False) or
    # undecided witness set leaves the comparison undecided, it does not contradict it
    undecided = [f"'{c.label}' (dim {c.dim}, {c.degree} points, trace test "
                 f"{'incomplete' if c.trace_test['verdict'] is False else 'undecided'}: "
                 f"residual {c.trace_test['residual']:.1e}, {c.trace_test['failed_paths']} "
                 f"failed paths; monodromy stop: {c.stop_reason or 'n/a'})"
                 for c in comps if not c.certified]
    checks.append(f"{len(comps)} component(s): " + ", ".join(
        f"{c.label}: dim {c.dim}, degree {c.degree}, trace residual "
        f"{c.trace_test['residual']:.1e}" for c in comps))
    if bb is not None:
        checks.append(f"blackbox decomposition: {bb['components']} "
                      f"({'agrees' if bb['agrees'] else 'DISAGREES'})")
    if problems:
        return False, "does not match the known symmetries: " + "; ".join(problems), checks
    if undecided:
        why = ", ".join(undecided)
        return None, ("undecided: everything computed agrees with the known symmetries, but the "
                      f"trace test does not certify the witness set of {why}"), checks
    return True, "matches the known symmetries", checks
