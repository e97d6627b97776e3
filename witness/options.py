"""Every numerical tolerance of the engine, one options object per concern.

Each tolerance is defined once, here, with why it has its value and what was measured; the
functions take the options object and honour it (no hidden constants elsewhere).

* ``TrackerOptions``: path tracking, endgame, rerouting (``witness.tracking``).
* ``PointOptions``: is x a solution (backward error), are two points the same
  (``witness.distinct``).
* ``TraceOptions``: the linear trace test (``witness.trace``).
* ``RankOptions``: numerical rank of a Jacobian from its singular values (``witness.rank``).
* ``Options``: the four together; ``DEFAULT`` is used when a caller passes None.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np


def _check_positive(obj, names) -> None:
    for name in names:
        v = getattr(obj, name)
        if not (isinstance(v, (int, float)) and np.isfinite(v) and v > 0):
            raise ValueError(f"{type(obj).__name__}.{name} must be a positive number, got {v!r}")


@dataclass(frozen=True)
class TrackerOptions:
    """Path tracking (``witness.kernels`` does the steps; all tolerances relative to |x| on the
    projective patch, or to 1 + |x| in affine coordinates).

    initial_step, max_step, min_step : step sizes in the path parameter (path length 1).
        min_step 1e-10: measured on the deep fiber (2,2,2) ranks 1,1, paths that fall below it
        near a branch point need thousands of steps and often fail anyway, while a rerouted
        path (below) takes 40-100 steps.
    max_steps : step attempts per path (and per reroute).
    corrector_tol : a step is accepted when a Newton correction after the first is below this
        while contracting by 4x (Bertini's tracking tolerance before the endgame is 1e-5).
    max_predictor_error : the first Newton correction (the predictor's error) above this
        rejects the step: what keeps paths from jumping (with 1e-2, 2 jumps in 1130 paths were
        measured, with 1e-3 none).
    endpoint_tol, endpoint_iterations : Newton at the end; the endpoint is accepted as regular
        when the last relative correction is below endpoint_tol (its accuracy estimate).
    precise_below : steps shorter than this evaluate Newton's residuals in double-double
        (mixed precision; near ill-conditioned points a double evaluation's rounding error
        exceeds the residual). 0 disables it.
    endgame_start : the Cauchy endgame starts from the point where 1 - tau first drops below
        this (Bertini and HomotopyContinuation.jl use 0.1).
    reroutes : attempts for a failed path along a detour through a random complex value of the
        path parameter (a different path to the same target system; only the set of endpoints
        is kept, so every rerouted endpoint must be distinct from the others).
    endgame_tol : two successive Cauchy estimates closer than this (relative) converge.
    max_winding : most loops around the endgame circle before giving up.
    endgame_samples : samples (polygon vertices) per loop of the Cauchy endgame.
    at_infinity_tol : an endpoint with |x0| / |x| below this (homogeneous coordinates) is at
        infinity, i.e. |x| > 1e8 in affine coordinates (the old divergence bound).
    singular_tol : sigma_min / sigma_max of the row-equilibrated Jacobian at an endpoint below
        this makes it singular (double precision: an endpoint with condition 1e10 carries
        errors ~1e-6 and is not a regular point we can certify).
    """
    initial_step: float = 0.05
    max_step: float = 0.2
    min_step: float = 1e-10
    max_steps: int = 3000
    corrector_tol: float = 1e-6
    max_predictor_error: float = 1e-3
    endpoint_tol: float = 1e-11
    endpoint_iterations: int = 4
    precise_below: float = 1e-3
    endgame_start: float = 0.1
    reroutes: int = 3
    endgame_tol: float = 1e-10
    max_winding: int = 12
    endgame_samples: int = 8
    at_infinity_tol: float = 1e-8
    singular_tol: float = 1e-10

    def __post_init__(self):
        _check_positive(self, ("initial_step", "max_step", "min_step", "max_steps",
                               "corrector_tol", "max_predictor_error", "endpoint_tol",
                               "endpoint_iterations", "endgame_start", "endgame_tol",
                               "max_winding", "endgame_samples", "at_infinity_tol",
                               "singular_tol"))
        if self.precise_below < 0 or self.reroutes < 0:
            raise ValueError("precise_below and reroutes must be >= 0")
        if not self.min_step <= self.initial_step <= self.max_step:
            raise ValueError("need min_step <= initial_step <= max_step")

    def vector(self) -> np.ndarray:
        """The float vector the compiled tracker reads (``witness.kernels`` O_* layout)."""
        return np.array([self.initial_step, self.max_step, self.min_step, self.max_steps,
                         self.corrector_tol, self.max_predictor_error, self.endpoint_tol,
                         self.endgame_start, self.endpoint_iterations, self.precise_below])

    def with_(self, **changes) -> "TrackerOptions":
        return replace(self, **changes)


@dataclass(frozen=True)
class PointOptions:
    """Is a point a solution; are two points the same (``witness.distinct``).

    residual_tol : componentwise backward error below which a point is a solution
        (``PolynomialSystem.residual``); residual_reject: above which it is not; undecided in
        between. Measured: witness points of the fiber systems refine to 1e-16..1e-13.
    same_factor, distinct_factor : two points with error estimates e_x, e_y (last Newton
        corrections, relative) at relative distance d are the same if d <= same_factor (e_x +
        e_y) and d < same_tol, different if d >= distinct_factor (e_x + e_y) or d >=
        different_tol, undecided otherwise. For Newton in its quadratic region the last
        correction bounds the distance to the root up to a factor 2 (Kantorovich; Smale's
        alpha theory), so the factors leave margins of 50x and 2500x.
    accuracy_floor : error estimates are at least this (two arrivals at the same regular root
        agree to 2e-16..6e-15 on the fiber systems, measured; 1e-13 keeps a factor >= 16).
    same_tol, different_tol : never "same" above 1e-6, always "different" above 1e-3.
    """
    residual_tol: float = 1e-9
    residual_reject: float = 1e-6
    same_factor: float = 100.0
    distinct_factor: float = 1e4
    accuracy_floor: float = 1e-13
    same_tol: float = 1e-6
    different_tol: float = 1e-3

    def __post_init__(self):
        _check_positive(self, [f.name for f in fields(self)])
        if not self.residual_tol <= self.residual_reject:
            raise ValueError("need residual_tol <= residual_reject")
        if not self.same_tol <= self.different_tol:
            raise ValueError("need same_tol <= different_tol")


@dataclass(frozen=True)
class TraceOptions:
    """The linear trace test on ``pencils`` pencils on independent random slices.

    tol : complete iff the relative trace residual is below this on every pencil; fail_above:
        incomplete if above this on any; undecided in between or with a failed path.
        Measured (``benchmarks/trace.py``: 35 complete witness sets of 5 fiber systems, 3348
        fully tracked pencils): complete sets give 7.5e-18 .. 1.8e-14 (margin 554x below
        1e-11); proper subsets reach 1.9e-16 on ONE pencil but >= 3.6e-6 as the larger of two
        independent pencils (3.6e5x above 1e-11), hence two pencils.
    retracks : a pencil's failed paths are tracked again, gamma turned by +-0.1 rad, up to
        this often before the pencil counts them as failed (``witness.trace.Pencil._retrack``:
        the verdict depends on the set of values, not on which point went where). Why: on the
        (2,2,2)/(1,1) deep fiber, seed 2, 1-8 of the 288 reach paths of each confirmation
        pencil failed (10 draws, 153 of 273 s).
    noise_factor : a pencil counts as linear only when its residual is also at most this times
        its rounding noise (``witness.trace.trace_noise``: the error its values carry by their
        Newton accuracy estimates). A residual below ``tol`` but above that is a nonlinearity
        the values resolve; it is decided again at ``refine_digits`` digits (the values refined
        by Newton in mpmath): linear there passes, nonlinear there fails, unrefinable (or too
        costly: ``witness.trace.REFINE_MAX_WORK``) is undecided. Measured
        (``benchmarks/trace.py`` and the test suite): complete sets have residuals at most
        0.75 times their noise. Why: x^3 y - 1e-12 z^4 (irreducible) was certified as two components of
        degree 1 and 3 (residuals 1.8e-13 and 3.9e-14 < tol, from values accurate to ~3e-16:
        numerically nearly the planes x = 0 and y = 0).
    """
    tol: float = 1e-11
    fail_above: float = 1e-5
    pencils: int = 2
    retracks: int = 4
    noise_factor: float = 10.0
    refine_digits: int = 30

    def __post_init__(self):
        _check_positive(self, ("tol", "fail_above", "pencils", "noise_factor",
                               "refine_digits"))
        if self.retracks < 0:
            raise ValueError("retracks must be >= 0")
        if not self.tol < self.fail_above:
            raise ValueError("need tol < fail_above")


@dataclass(frozen=True)
class RankOptions:
    """Numerical rank from singular values s_1 >= ... >= s_k (``witness.rank``).

    The rank is r = #{i : s_i / s_1 > zero_below}; it is decided only when the gap
    s_r / s_{r+1} is at least min_gap (s_{r+1} = 0 counts as an infinite gap), otherwise
    undecided. zero_below 1e-8: the tolerance monodromy's start check always used (double
    precision Jacobians of the systems here carry relative errors ~1e-14 .. 1e-12, so it sits 4
    orders above noise); min_gap 1e4: the same gap numag's float64 rank rule requires.
    """
    zero_below: float = 1e-8
    min_gap: float = 1e4

    def __post_init__(self):
        _check_positive(self, ("zero_below", "min_gap"))
        if not self.zero_below < 1 < self.min_gap:
            raise ValueError("need zero_below < 1 < min_gap")


@dataclass(frozen=True)
class Options:
    """All engine options; pass one object, every function takes the part it needs."""
    tracker: TrackerOptions = field(default_factory=TrackerOptions)
    points: PointOptions = field(default_factory=PointOptions)
    trace: TraceOptions = field(default_factory=TraceOptions)
    rank: RankOptions = field(default_factory=RankOptions)


DEFAULT = Options()


def resolve(options: "Options | TrackerOptions | None") -> Options:
    """An Options object from None (the defaults), Options, or a TrackerOptions alone."""
    if options is None:
        return DEFAULT
    if isinstance(options, TrackerOptions):
        return Options(tracker=options)
    if isinstance(options, Options):
        return options
    raise TypeError(f"options must be witness.Options or TrackerOptions, got {type(options)}")
