"""Parameter homotopies for families F(x; p): n equations in n unknowns x and q parameters p.

Coefficient-parameter homotopy (Morgan–Sommese 1989, "Coefficient-parameter polynomial
continuation", Appl. Math. Comput. 29; Sommese–Wampler 2005, ch. 7): the solutions at p0 are
carried to p1 along p(s) = p0 + s (p1 - p0) (``witness.homotopy.parameter_homotopy``, tracked on
a patch of projective space in the unknowns). For p0 generic (off the discriminant), every
isolated solution at ANY p1 is the endpoint of a path from the solutions at p0 (on the
irreducible components of the incidence variety {(x, p) : F(x; p) = 0} the paths start on);
the segment from a generic COMPLEX p0 meets the discriminant (a complex hypersurface, real
codimension 2) with probability zero before s = 1. A real segment between real parameter
values can cross the real discriminant, where paths meet; hence ``track_parameters`` goes
through a random complex intermediate value (start -> random -> target).

* ``Family``: F(x; p) as a system over (x, p) (a PolynomialSystem or ProgramSystem, unknowns
  first), its residuals at given parameters, homotopies between parameter values.
* ``track_parameters``: solutions from start to target parameters via a random complex
  intermediate, with the Cauchy endgame on the last leg and the path accounting
  (``PathAccounting``: regular / singular with multiplicity / at infinity / failed by reason).
* ``check_solutions``: the start check of ``track`` and ``monodromy_solve`` (a start that is
  not a regular solution is refused, with its backward error in the message).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import distinct
from .homotopy import Homotopy, parameter_homotopy
from .jsonio import complex_to_json, points_to_json, vector_to_json
from .options import Options, resolve
from .tracking import PathStatus, TrackResult, track


# ----------------------------------------------------------------------------- families
class ParameterCheck:
    """The system F(.; p) at fixed parameters, for judging endpoints: ``residual(X)`` is F's
    backward error at the points (x, p) of the system over (x, p) (componentwise: the parameter
    values count as variables, so no cancellation inside specialized coefficients hides a
    large term)."""

    def __init__(self, system, n: int, p):
        self.system, self.n = system, n
        self.p = np.asarray(p, complex).reshape(-1)

    @property
    def n_vars(self) -> int:
        return self.n

    def residual(self, X) -> np.ndarray:
        X = np.atleast_2d(np.asarray(X, complex))
        P = np.broadcast_to(self.p, (len(X), len(self.p)))
        return np.asarray(self.system.residual(np.hstack([X, P])))


@dataclass(frozen=True, eq=False)
class Family:
    """F(x; p): ``system`` over the variables (x_1..x_n, p_1..p_q), unknowns first.

    Attributes
    ----------
    system : PolynomialSystem or ProgramSystem
        n equations in n + q variables.
    n : int
        Number of unknowns (the first n variables); the other q are parameters.

    Raises
    ------
    ValueError
        Not n equations, or no parameter.
    """

    system: object
    n: int

    def __post_init__(self):
        if self.system.n_equations != self.n or not 0 < self.n < self.system.n_vars:
            raise ValueError(f"a family needs n equations in n unknowns and >= 1 parameter; got "
                             f"{self.system.n_equations} equations in {self.system.n_vars} "
                             f"variables with n = {self.n}")

    @classmethod
    def from_file(cls, sf) -> "Family":
        """The family of a ``witness.inputfile.SystemFile`` with a ``parameters:`` header.
        Raises ValueError when it declares no parameters or is not square in its unknowns."""
        if not sf.parameters:
            raise ValueError(f"{sf.source}: declares no parameters (add a 'parameters:' header)")
        if sf.system.n_equations != sf.n_vars:
            raise ValueError(f"{sf.source}: {sf.system.n_equations} equations in {sf.n_vars} "
                             f"unknowns ({', '.join(sf.variables)}): a parameter homotopy "
                             f"needs a square system")
        return cls(sf.system, sf.n_vars)

    @property
    def q(self) -> int:
        return self.system.n_vars - self.n

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(self.system.variables[:self.n])

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(self.system.variables[self.n:])

    def parameter_vector(self, p) -> np.ndarray:
        """Parameter values as complex128 (q,); ValueError for a wrong size or NaN."""
        p = np.asarray(p, complex).reshape(-1)
        if p.shape != (self.q,) or not np.all(np.isfinite(p)):
            raise ValueError(f"parameter values must be {self.q} finite numbers, got {p}")
        return p

    def at(self, p) -> ParameterCheck:
        return ParameterCheck(self.system, self.n, self.parameter_vector(p))

    def residual(self, X, p) -> np.ndarray:
        """Backward errors (k,) of the points X (k, n) at parameters p (q,)."""
        return self.at(p).residual(X)

    def jacobian(self, X, p) -> np.ndarray:
        """dF/dx (k, n, n) at the points X (k, n) and parameters p (q,)."""
        X = np.atleast_2d(np.asarray(X, complex))
        P = np.broadcast_to(self.parameter_vector(p), (len(X), self.q))
        return np.asarray(self.system.jacobian(np.hstack([X, P])))[:, :, :self.n]

    @cached_property
    def _absolute(self):
        return absolute_system(self.system)

    def singular_values(self, X, p) -> np.ndarray:
        """``scaled_singular_values`` (k, n) of dF/dx at the points X (k, n), parameters p."""
        X = np.atleast_2d(np.asarray(X, complex))
        if not len(X):
            return np.zeros((0, self.n))
        Z = np.hstack([X, np.broadcast_to(self.parameter_vector(p), (len(X), self.q))])
        scale = np.hstack([self._absolute(Z), np.maximum(1.0, np.abs(X))])
        return scaled_singular_values(self.jacobian(X, p), scale)

    def nonsingular(self, X, p, options: Options | None = None) -> np.ndarray:
        """bool (k,): dF/dx is numerically nonsingular at the points X (k, n)
        (``nonsingular_rule`` on ``singular_values``)."""
        return nonsingular_rule(self.singular_values(X, p), options)

    def homotopy(self, p0, p1) -> Homotopy:
        """The parameter homotopy from p0 to p1 (both (q,)); endpoints judged at p1."""
        p0, p1 = self.parameter_vector(p0), self.parameter_vector(p1)
        return Homotopy(parameter_homotopy(self.system, self.n), np.concatenate([p0, p1]),
                        self.n, self.at(p1), None, "parameter")

    def move(self, X, p0, p1, options=None, *, endgame: bool = False, reroute: bool = True,
             rng=None) -> TrackResult:
        """Track the solutions X (k, n) at p0 to p1 (``witness.tracking.track``)."""
        return track(self.homotopy(p0, p1), X, options, endgame=endgame, reroute=reroute,
                     rng=rng)


def random_complex(rng: np.random.Generator, *shape) -> np.ndarray:
    """Standard complex normal entries."""
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / math.sqrt(2)


def parameter_scale(p) -> float:
    """A size for random parameter moves around p: max(1, root mean square of |p_j|)."""
    p = np.asarray(p, complex).reshape(-1)
    return float(max(1.0, np.sqrt(np.mean(np.abs(p) ** 2)))) if p.size else 1.0


def random_intermediate(rng: np.random.Generator, p0, p1) -> np.ndarray:
    """A random complex parameter value between p0 and p1: the midpoint plus a complex normal
    vector of size max(|p1 - p0|, parameter_scale) / 2 per coordinate (so the two legs leave
    the real locus by about as much as they travel)."""
    p0, p1 = np.asarray(p0, complex), np.asarray(p1, complex)
    size = 0.5 * max(float(np.linalg.norm(p1 - p0)) / math.sqrt(max(p0.size, 1)),
                     parameter_scale(np.concatenate([p0, p1])))
    return 0.5 * (p0 + p1) + size * random_complex(rng, p0.size)


# ----------------------------------------------------------------------------- start check
def check_solutions(family: Family, p, X, options: Options | None = None,
                    what: str = "start solution") -> dict:
    """Refuse points that are not regular solutions of F(.; p).

    Each point must have backward error <= ``PointOptions.residual_tol`` and a nonsingular
    Jacobian dF/dx (``Family.nonsingular``).

    Returns
    -------
    dict with "residuals" and "sigma_min" (smallest scaled singular value per point).

    Raises
    ------
    ValueError
        One line naming the first bad point (its index, 0-based) and its backward error or its
        smallest scaled singular value.
    """
    opt = resolve(options)
    X = np.atleast_2d(np.asarray(X, complex))
    if X.shape[1] != family.n or not len(X):
        raise ValueError(f"{what}s must be a nonempty list of points with {family.n} "
                         f"coordinates, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{what} #{int(np.flatnonzero(~np.all(np.isfinite(X), axis=1))[0])} "
                         f"has non-finite coordinates")
    res = family.residual(X, p)
    tol = opt.points.residual_tol
    for k, r in enumerate(res):
        if not r <= tol:
            raise ValueError(f"{what} #{k} is not a solution at the given parameters: residual "
                             f"(backward error) {r:.2e} > {tol:.0e} (is it in the order "
                             f"{', '.join(family.variables)}?)")
    sv = family.singular_values(X, p)
    ok = nonsingular_rule(sv, opt)
    for k in np.flatnonzero(~ok)[:1]:
        raise ValueError(f"{what} #{k} is a singular solution: scaled Jacobian dF/dx has "
                         f"sigma_min {sv[k, -1]:.1e} <= {opt.rank.zero_below:.0e} * max(1, "
                         f"sigma_max {sv[k, 0]:.1e}); continuation needs regular solutions")
    return {"residuals": res.tolist(), "sigma_min": sv[:, -1].tolist()}


# ----------------------------------------------------------------------------- accounting
@dataclass(frozen=True)
class SingularSolution:
    """A singular endpoint: the point, how many paths reached it (its multiplicity when the
    start solutions were all solutions of a generic member of the family: Morgan–Sommese
    1989), and the winding numbers of those paths (Cauchy endgame)."""
    point: np.ndarray
    multiplicity: int
    winding: tuple[int, ...]
    paths: tuple[int, ...]

    def to_json(self) -> dict:
        return {"point": vector_to_json(self.point), "multiplicity": self.multiplicity,
                "winding": list(self.winding), "paths": list(self.paths)}


@dataclass(frozen=True)
class PathAccounting:
    """Where the paths of a track ended: ``regular`` (ended at a regular solution that passes
    the residual check), ``singular`` (SingularSolution, one per distinct singular endpoint),
    ``at_infinity``, and ``failed`` by reason (``witness.tracking.FailureReason`` values, and
    'off_original' for an endpoint that fails the residual check at the target)."""
    paths: int
    regular: int
    singular: tuple[SingularSolution, ...]
    at_infinity: int
    failed: dict

    @property
    def n_failed(self) -> int:
        return int(sum(self.failed.values()))

    def to_json(self) -> dict:
        return {"paths": self.paths, "regular": self.regular,
                "singular": [s.to_json() for s in self.singular],
                "singular_paths": int(sum(s.multiplicity for s in self.singular)),
                "at_infinity": self.at_infinity, "failed": self.n_failed,
                "failed_by_reason": dict(self.failed)}

    def summary(self) -> str:
        sing = ", ".join(f"m={s.multiplicity}" for s in self.singular)
        failed = ", ".join(f"{k} {v}" for k, v in self.failed.items())
        return (f"{self.paths} paths: {self.regular} regular, {len(self.singular)} singular"
                f"{' (' + sing + ')' if sing else ''}, {self.at_infinity} at infinity, "
                f"{self.n_failed} failed{' (' + failed + ')' if failed else ''}")


def account(tr: TrackResult, options: Options | None = None, jacobian=None
            ) -> tuple[np.ndarray, np.ndarray, PathAccounting]:
    """The solutions a track reached and its path accounting.

    ``jacobian`` (optional): points (k, n) -> bool (k,), False where the target system's
    Jacobian is numerically singular (``Family.nonsingular``); such a regular endpoint is
    counted as singular. Why: the tracker calls an endpoint regular
    when Newton's correction there reaches ``endpoint_tol``, which also happens on a path
    that lies exactly on a singular solution (y = 0 of y (x - y) tracked to x = 0: the
    correction is 0), measured.

    Returns
    -------
    (points (k, n) complex128: the regular endpoints, then one point per distinct singular
    endpoint; multiplicities (k,) int: 1 for regular, paths arriving for singular;
    PathAccounting). Singular endpoints are grouped by ``witness.distinct`` (a pair that is
    neither same nor different joins the group: undecided is never split into two points)."""
    opt = resolve(options)
    st = tr.status
    reg = np.flatnonzero((st == PathStatus.REGULAR) & tr.on_original)
    sing = np.flatnonzero((st == PathStatus.SINGULAR) & tr.on_original)
    if jacobian is not None and len(reg):
        full = jacobian(tr.endpoints[reg])
        sing = np.sort(np.concatenate([sing, reg[~full]]))
        reg = reg[full]
    failed: dict[str, int] = {}
    for i in np.flatnonzero(~np.isin(np.arange(tr.n_paths), np.concatenate([reg, sing]))):
        if st[i] == PathStatus.AT_INFINITY:
            continue
        why = "off_original" if st[i] != PathStatus.FAILED else (str(tr.reasons[i]) or "failed")
        failed[why] = failed.get(why, 0) + 1
    groups = _group(tr.endpoints[sing], tr.accuracy[sing], opt)
    singular = tuple(SingularSolution(tr.endpoints[sing[g[0]]], len(g),
                                      tuple(int(tr.winding[sing[j]]) for j in g),
                                      tuple(int(sing[j]) for j in g)) for g in groups)
    pts = np.vstack([tr.endpoints[reg]] + [s.point[None, :] for s in singular]) \
        if len(reg) or singular else np.zeros((0, tr.endpoints.shape[1]), complex)
    mult = np.array([1] * len(reg) + [s.multiplicity for s in singular], dtype=int)
    acc = PathAccounting(tr.n_paths, len(reg), singular, tr.n_at_infinity, failed)
    return pts, mult, acc


def scaled_singular_values(J: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Singular values (k, n) of M = diag(1/scale_eq) J diag(scale_x) for Jacobians J (k, n, n)
    of a square system at k points; ``scale`` (k, 2n): per point the size of each equation's
    terms (``absolute_system``), then max(1, |x_j|) per unknown. M has O(1) entries at a
    well-conditioned point."""
    J = np.asarray(J, complex)
    n = J.shape[2]
    return np.linalg.svd(J / scale[:, :n, None] * scale[:, None, n:], compute_uv=False)


def nonsingular_rule(sv: np.ndarray, options: Options | None = None) -> np.ndarray:
    """bool (k,) from ``scaled_singular_values`` (k, n): sigma_min > zero_below * max(1,
    sigma_max) (``RankOptions.zero_below``). Absolute on purpose: a relative rule (sigma_min /
    sigma_max) cannot see a 1 x 1 Jacobian that vanishes (y = 0 of y (x - y) at x = 0)."""
    opt = resolve(options)
    return sv[:, -1] > opt.rank.zero_below * np.maximum(1.0, sv[:, 0])


def absolute_system(system):
    """A callable Z (k, N) -> (k, m): sum_t |c_t| prod_j max(1, |z_j|)^e_tj per equation, the
    denominator of the backward error (``PolynomialSystem.residual``; for a ProgramSystem its
    absolute program, ``ProgramSystem.residual``)."""
    from .program_system import ProgramSystem
    from .system import PolynomialSystem
    if isinstance(system, ProgramSystem):
        P = system.absolute_program()
        return lambda Z: np.abs(P.evaluate(np.maximum(np.abs(Z), 1.0)))
    A = PolynomialSystem.from_dicts(system.variables, [{e: abs(complex(c)) for e, c in p.items()}
                                                       for p in system.polynomials])
    return lambda Z: np.abs(A.evaluate(np.maximum(np.abs(Z), 1.0)))


def _group(X: np.ndarray, accuracy: np.ndarray, opt: Options) -> list[list[int]]:
    """Groups of rows of X that are the same point (or undecided), in order of first row."""
    if not len(X):
        return []
    e = distinct.error_estimates(accuracy, len(X), opt.points)
    C = distinct.compare(distinct.relative_distances(X, X), e, e, opt.points)
    label = -np.ones(len(X), int)
    for i in range(len(X)):
        if label[i] < 0:
            label[i] = i
            stack = [i]
            while stack:
                j = stack.pop()
                for k in np.flatnonzero((C[j] != distinct.DIFFERENT) & (label < 0)):
                    label[k] = i
                    stack.append(k)
    return [np.flatnonzero(label == r).tolist() for r in np.unique(label)]


def regular_paths(tr: TrackResult, acc: PathAccounting) -> np.ndarray:
    """Indices of the paths counted regular by ``account`` (in the order of its points)."""
    sing = {j for s in acc.singular for j in s.paths}
    reg = np.flatnonzero((tr.status == PathStatus.REGULAR) & tr.on_original)
    return np.array([j for j in reg if j not in sing], dtype=int)


# ----------------------------------------------------------------------------- track command
@dataclass(frozen=True)
class ParameterTrackResult:
    """``track_parameters``: the solutions at the target, per path its end, the accounting.

    solutions : complex128 (k, n), multiplicities (k,): regular endpoints, then the distinct
        singular ones; accounting : PathAccounting (of all paths, both legs: a path failed on
        the first leg counts as failed with reason 'leg 1: <reason>'); legs : the two
        TrackResults; start, intermediate, target : parameter values (q,); seed; seconds."""
    variables: tuple[str, ...]
    parameters: tuple[str, ...]
    solutions: np.ndarray
    multiplicities: np.ndarray
    accounting: PathAccounting
    legs: tuple[TrackResult, ...]
    start: np.ndarray
    intermediate: np.ndarray
    target: np.ndarray
    path_status: tuple[str, ...]
    path_end: tuple[int | None, ...]
    seed: int
    seconds: float
    info: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        named = lambda v: {k: complex_to_json(z) for k, z in zip(self.parameters, v)}  # noqa
        return {"variables": list(self.variables), "solutions": points_to_json(self.solutions),
                "multiplicities": self.multiplicities.tolist(),
                "n_solutions": int(len(self.solutions)),
                "paths": self.accounting.to_json(),
                "path_status": list(self.path_status),
                "path_end": list(self.path_end),
                "start_parameters": named(self.start),
                "intermediate_parameters": named(self.intermediate),
                "target_parameters": named(self.target),
                "rerouted": [int(t.rerouted) for t in self.legs],
                "seed": self.seed, "seconds": self.seconds, **self.info}


def track_parameters(family: Family, X0, p_start, p_target, *, seed: int = 0,
                     options: Options | None = None, check: bool = True
                     ) -> ParameterTrackResult:
    """Carry solutions X0 of F(.; p_start) to p_target via a random complex intermediate.

    Leg 1 (start -> intermediate, generic: no endgame) and leg 2 (intermediate -> target, the
    Cauchy endgame for singular endpoints and valuation-based detection of paths to infinity,
    ``witness.tracking.track(endgame=True)``). Failed paths are rerouted (set semantics: a
    rerouted endpoint is kept only if it differs from every other endpoint, so for a complete
    start set the rerouted paths recover exactly the missing solutions).

    Parameters
    ----------
    family : Family
    X0 : complex (k, n)
        Solutions at p_start (checked: ``check_solutions``, unless check=False).
    p_start, p_target : complex (q,)
    seed : int
        Seeds the intermediate value and the detours; recorded.
    options : witness.Options

    Returns
    -------
    ParameterTrackResult

    Raises
    ------
    ValueError
        A start point that is not a regular solution (the message names it and its backward
        error), wrong shapes.

    Examples
    --------
    >>> from witness import PolynomialSystem
    >>> F = Family(PolynomialSystem.from_strings(["y*(x - y)"], variables=["y", "x"]), 1)
    >>> r = track_parameters(F, [[0], [2 + 1j]], [2 + 1j], [5], seed=1)
    >>> sorted(round(float(z.real), 9) for z in r.solutions[:, 0]), r.accounting.regular
    ([0.0, 5.0], 2)
    """
    t0 = time.perf_counter()
    opt = resolve(options)
    p0, p1 = family.parameter_vector(p_start), family.parameter_vector(p_target)
    X0 = np.atleast_2d(np.asarray(X0, complex))
    if check:
        check_solutions(family, p0, X0, opt)
    rng = np.random.default_rng(seed)
    mid = random_intermediate(rng, p0, p1)
    leg1 = family.move(X0, p0, mid, opt, rng=rng)
    ok1 = np.flatnonzero(leg1.ok)
    leg2 = family.move(leg1.endpoints[ok1], mid, p1, opt, endgame=True, rng=rng)
    pts, mult, acc2 = account(leg2, opt, lambda X: family.nonsingular(X, p1, opt))
    failed = dict(acc2.failed)
    for i in np.flatnonzero(~leg1.ok):
        why = "leg 1: " + (leg1.reasons[i] or str(leg1.status[i]))
        failed[why] = failed.get(why, 0) + 1
    acc = PathAccounting(len(X0), acc2.regular, acc2.singular, acc2.at_infinity, failed)
    status = np.full(len(X0), "failed", dtype=object)
    end: list[int | None] = [None] * len(X0)
    for j, i in enumerate(ok1):
        status[i] = "at_infinity" if leg2.status[j] == PathStatus.AT_INFINITY else "failed"
    for r, j in enumerate(regular_paths(leg2, acc2)):
        status[ok1[j]], end[ok1[j]] = "regular", r
    for s, sol in enumerate(acc2.singular):
        for j in sol.paths:
            status[ok1[j]], end[ok1[j]] = "singular", acc2.regular + s
    return ParameterTrackResult(family.variables, family.parameters, pts, mult, acc,
                                (leg1, leg2), p0, mid, p1, tuple(str(s) for s in status),
                                tuple(end), int(seed), time.perf_counter() - t0)
