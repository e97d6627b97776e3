"""What ``solve`` reports: every start path of our total-degree homotopy accounted for
(``witness.solve.solve_paths``), the isolated solutions refined and judged on the system as
written, real or not, optionally certified, and PHCpack's blackbox answer in the requested
precision as an independent check. One assembly function, ``solve_report``.

* **Which answer is primary.** Ours. ``solve_paths`` accounts for every one of the
  prod(deg f_i) paths (regular / singular with multiplicity = paths / at infinity / failed with
  the reason), decides singular points by deflation and the local dual space, and says when a
  path ended on a positive-dimensional solution set. PHCpack's blackbox reports only the
  points it keeps: it does not say how many paths it dropped or why, so its answer cannot be
  checked for completeness from its output (issue 10: ``--precision dd`` returned 0 of the 2
  solutions of a 5-variable system without a warning; ``x^80 - 1`` gave 0 of 80). Its points
  are therefore the independent check, not the answer.
* **Refinement and judgement.** A point is accepted when its backward error on the system as
  written (``PolynomialSystem.residual``, exact coefficients) is below ``RESIDUAL_TOL`` = 1e-9.
  Every finite point whose backward error in double precision is not already below
  ``REFINE_ABOVE`` = 1e-13 (four orders of magnitude of margin) is first refined by Newton's
  method in mpmath on the exact system (``witness.refine``, ``REFINE_DIGITS`` digits, at most
  ``REFINE_STEPS`` steps) and judged at the refined point, provided Newton converged without
  moving it by more than ``MOVE_TOL`` * max(1, |x|_inf) (otherwise it is judged as given:
  Newton from a bad point can land on another, already listed, root); when Newton does not
  converge (singular roots converge only linearly) at the better of the two. Rejected points
  are counted, not listed; so is a point our tracker called regular where Newton did not
  converge (no regular zero there). The same judgement is applied to our points and to
  PHCpack's.
* **The check.** Accepted PHCpack points and our isolated solutions are matched by the engine's
  one same-point rule (``witness.distinct``; error estimates: our endpoint's, PHCpack's
  ``err``). Every difference is listed, in text and JSON, with a verdict:
  - a point of ours PHCpack does not have: "missed by PHCpack" (our point passed the
    residual check on the system as written, and our path accounting is complete), or
    "unresolved" when our run is not complete;
  - a PHCpack point we do not have: when it lies on one of the positive-dimensional sets our
    paths met (the Jacobian of F there is rank deficient and we met such a set) "on a
    positive-dimensional set"; when the Jacobian has full rank it is a regular isolated
    solution our run missed: ``complete`` becomes false; otherwise "unresolved";
  - the same point with different multiplicities: listed ("multiplicity differs").
  PHCpack failing (crash, timeout) is reported as "check not run", never as agreement. The
  check is waited for ``phc_check_deadline`` = max(``PHC_CHECK_MIN_WAIT`` = 60 s,
  ``PHC_CHECK_FACTOR`` = 10 x our own seconds): measured on x^n - 1, PHCpack's blackbox takes
  1.8 s (n = 100), 11 s (200), ~150 s (500) while our solve takes under 2 s, and x^1000 - 1
  kept ``solve`` busy for more than 5 minutes on a check of an answer already complete.
* **Positive-dimensional sets.** Paths that end on a positive-dimensional solution set (local
  dual space larger than the number of paths) are reported as such, with a pointer to
  ``decompose``; their endpoints are not isolated solutions.
* **Real points.** A point is reported as real when max_j |Im x_j| <= ``REAL_TOL`` *
  max(1, max_j |x_j|) (a mixed relative/absolute tolerance, like the residual's), the absolute
  part lowered to ERROR_FACTOR x the point's absolute error estimate when that is smaller
  (``real_mask``: roots ±1e-10 i known to 40 digits are not real); text output then shows real
  coordinates, with as many digits as it takes to print distinct points distinctly
  (``display_digits``), and JSON marks it ``"real": true`` (the numbers are not
  altered). This is a numerical classification; ``--certify`` proves realness (``certify``).

``complete`` is true only when the path accounting is complete (``PathSolve.complete``: every
path in exactly one end state, none failed, every point decided, the counts add up), every
isolated solution of ours passed the residual check, PHCpack found no regular solution we
missed, and no difference stayed unresolved (e.g. `x - 1e8`: our one path ends at the boundary
of what double precision tells from infinity, PHCpack has the root; that is not complete).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from . import distinct
from .certify import CertificationResult, certify
from .jsonio import vector_to_json
from .phc import SolveResult
from .refine import refine
from .deflation import deflate
from .solve import ERROR_FACTOR, MAX_DEFLATIONS, SOLVE_OPTIONS, PathSolve, full_rank
from .system import PolynomialSystem
from .tracking import RESIDUAL_TOL, PathStatus

REAL_TOL = 1e-8         # relative to max(1, |x|_inf): imaginary parts below are rounding noise
REFINE_DIGITS = 20      # Newton in mpmath to this many digits before the residual check
REFINE_ABOVE = 1e-13    # points with a smaller double-precision backward error are not refined
MOVE_TOL = 1e-6         # relative distance Newton may move a point it refines
REFINE_STEPS = 8        # at most; a regular root from double precision needs 2-3
PHC_CHECK_MIN_WAIT = 60.0   # seconds the PHCpack check is waited for at least ...
PHC_CHECK_FACTOR = 10.0     # ... or this times our own solve's seconds


def _finite_or_one(v: float) -> float:
    return float(v) if math.isfinite(v) else 1.0


def phc_check_deadline(own_seconds: float) -> float:
    """Seconds PHCpack's blackbox check of ``solve`` is given (see the module docstring)."""
    return max(PHC_CHECK_MIN_WAIT, PHC_CHECK_FACTOR * own_seconds)


def real_mask(X, tol: float = REAL_TOL, errors=None) -> np.ndarray:
    """bool (p,): max_j |Im x_j| <= max(tol * max_j |x_j|, floor) for points X (p, n); floor =
    ``tol`` (i.e. tol * max(1, |x|_inf)), or with ``errors`` (p,) absolute error estimates of
    the points, min(tol, ERROR_FACTOR x error): a point known to 1e-40 near 0 is not called
    real for an imaginary part of 1e-10 (x^2 + 1e-20, roots ±1e-10 i, was "real")."""
    X = np.atleast_2d(np.asarray(X, dtype=complex))
    size = np.abs(X).max(axis=1, initial=0.0)
    floor = (np.full(len(X), tol) if errors is None
             else np.minimum(tol, ERROR_FACTOR * np.asarray(errors, float)))
    return np.abs(X.imag).max(axis=1, initial=0.0) <= np.maximum(tol * size, floor)


def conjugate_pairs(X, mask) -> np.ndarray:
    """bool (p,): points among ``mask`` (flagged real) with a nonzero imaginary part that are
    the complex conjugate of another such point: |x_a - conj(x_b)| < CONJUGATE_RATIO x
    |x_a - x_b|. Two distinct solutions of a real system that are each other's conjugates are
    not real (a real point is its own conjugate, and the two are distinct): the roots
    1 +- 1e-12 i of (x - 1)^2 + 1e-24 passed the relative tolerance REAL_TOL and were both
    "real", though ``--certify`` proved them non-real."""
    X = np.atleast_2d(np.asarray(X, dtype=complex))
    out = np.zeros(len(X), bool)
    idx = np.flatnonzero(np.asarray(mask, bool) & (np.abs(X.imag).max(axis=1, initial=0) > 0))
    if len(idx) < 2:
        return out
    Y = X[idx]
    D = np.linalg.norm(Y[:, None] - Y[None], axis=2)
    C = np.linalg.norm(Y[:, None] - np.conj(Y)[None], axis=2)
    np.fill_diagonal(D, 0.0)
    pair = (D > 0) & (C < CONJUGATE_RATIO * D)
    out[idx] = pair.any(axis=1)
    return out


CONJUGATE_RATIO = 1e-3


def format_point(x, tol: float = REAL_TOL, digits: int = 6, real: bool | None = None) -> str:
    """Coordinates as text; an imaginary part below ``tol`` * max(1, |x|_inf) is not shown (with
    ``real`` False: below ``tol`` * |x|_inf, but at least the largest one is; with ``real``
    True: none is shown)."""
    x = np.asarray(x, dtype=complex)
    size = float(np.abs(x).max(initial=0.0))
    cut = tol * (size if real is False else max(1.0, size))
    if real:
        cut = math.inf
    im = float(np.abs(x.imag).max(initial=0.0))
    if real is False and 0 < im <= cut:
        cut = im / 2        # a non-real point shows its largest imaginary part (1 +- 1e-12 i)
    x = x + 0.0                                  # -0.0 prints as 0
    return ", ".join(f"{z.real:.{digits}g}" if abs(z.imag) <= cut else f"{z:.{digits}g}"
                     for z in x)


def display_digits(points, real=None, least: int = 6) -> int:
    """The fewest significant digits (``least`` .. 17) at which the points print as distinct
    strings (``format_point``): 1 and 1 + 1e-7 both printed "(1)" at 6 digits."""
    real = [None] * len(points) if real is None else list(real)
    for d in range(least, 18):
        if len({format_point(x, digits=d, real=r) for x, r in zip(points, real)}) == len(points):
            return d
    return 17


@dataclass(frozen=True)
class Solution:
    """One accepted isolated solution: ``point`` complex128 (n,), ``multiplicity`` (number of
    paths ending there), ``residual`` backward error on F as written, ``real`` (``REAL_TOL``),
    ``refinement``: "not needed" (backward error already < ``REFINE_ABOVE``), "converged"
    (Newton reached ``REFINE_DIGITS`` digits), "not converged" (e.g. a singular root; judged at
    the better point) or "moved too far" (Newton converged farther than ``MOVE_TOL`` away:
    judged at the given point); ``status``: "regular" or "singular" (rank of the Jacobian);
    ``paths``: indices of the start paths ending there (empty for points not from our run)."""
    point: np.ndarray
    multiplicity: int
    residual: float
    real: bool
    refinement: str
    status: str = "regular"
    paths: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"point": vector_to_json(self.point), "real": bool(self.real),
                "multiplicity": int(self.multiplicity), "status": self.status,
                "paths": list(self.paths), "residual": float(self.residual),
                "refinement": self.refinement}


@dataclass(frozen=True)
class Judged:
    """Points X (p, n) after refinement and the residual check: ``points`` (p, n), ``residuals``
    (p,), ``refinement`` (p,) str, ``accepted`` bool (p,)."""
    points: np.ndarray
    residuals: np.ndarray
    refinement: np.ndarray
    accepted: np.ndarray


def judge(F: PolynomialSystem, X: np.ndarray) -> Judged:
    """Refine and judge points X (p, n) of F on F as written (module docstring)."""
    X = np.asarray(X, dtype=complex).reshape(-1, F.n_vars)
    finite = np.all(np.isfinite(X), axis=1)
    pts, res = X.copy(), np.full(len(X), np.inf)
    how = np.array(["not finite"] * len(X), dtype=object)
    if finite.any():
        p, r, h = _refined(F, X[finite])
        pts[finite], res[finite], how[finite] = p, r, h
    return Judged(pts, res, how, res < RESIDUAL_TOL)


@dataclass(frozen=True)
class PhcCheck:
    """PHCpack's blackbox solve (``precision``, ``seed``) compared with our solutions.

    ran : False when PHCpack failed (``error`` says how); points : PHCpack's points accepted by
    the residual check, rejected : how many it returned that were not; matched : our solution
    index -> PHCpack point index; differences : list of {"kind", "point", "verdict", ...};
    seconds."""
    ran: bool
    precision: str
    seed: int | None
    points: tuple[np.ndarray, ...] = ()
    multiplicities: tuple[int, ...] = ()
    rejected: int = 0
    differences: tuple[dict, ...] = ()
    error: str = ""
    seconds: float = 0.0

    @property
    def agree(self) -> bool:
        return self.ran and not self.differences

    def to_json(self) -> dict:
        return {"ran": self.ran, "agree": self.agree, "precision": self.precision,
                "seed": self.seed, "error": self.error or None,
                "solutions": len(self.points), "rejected": self.rejected,
                "multiplicities": list(self.multiplicities),
                "differences": list(self.differences), "seconds": self.seconds}

    def text(self) -> list[str]:
        if not self.ran:
            return [f"check: PHCpack blackbox ({self.precision}) not run: {self.error}"]
        head = (f"check: PHCpack blackbox ({self.precision}, seed {self.seed}): "
                f"{len(self.points)} solutions ({self.rejected} rejected by the residual "
                f"check); " + ("agrees" if self.agree else
                               f"{len(self.differences)} differences"))
        return [head] + [f"  [!!] {d['kind']}: ({d['text_point']}) {d['verdict']}"
                         for d in self.differences]


@dataclass(frozen=True)
class SolveReport:
    """The ``solve`` result.

    variables; solutions (isolated, accepted); rejected (our isolated points that failed the
    residual check); paths (``PathSolve``); positive_dimensional (endpoints on
    positive-dimensional sets: {"point", "paths"}); undecided (singular points neither proven
    isolated nor not); check (``PhcCheck``); seed; precision (of the PHCpack check); seconds;
    parameters (values used, as strings, or None); certification (or None)."""
    variables: tuple[str, ...]
    solutions: tuple[Solution, ...]
    rejected: int
    paths: PathSolve
    positive_dimensional: tuple[dict, ...]
    undecided: tuple[dict, ...]
    check: PhcCheck
    seed: int
    precision: str
    seconds: float
    parameters: dict | None = None
    certification: CertificationResult | None = None

    @property
    def n_real(self) -> int:
        return sum(s.real for s in self.solutions)

    @property
    def missed(self) -> int:
        """PHCpack's regular solutions that our run did not find."""
        return sum(d["kind"] == "only PHCpack" and d["regular"] for d in self.check.differences)

    @property
    def unresolved(self) -> int:
        """Differences from PHCpack that neither run explains (verdict 'unresolved: …')."""
        return sum(d["verdict"].startswith("unresolved") for d in self.check.differences)

    @property
    def complete(self) -> bool:
        return (self.paths.complete and self.rejected == 0 and self.missed == 0
                and self.unresolved == 0)

    def path_json(self) -> dict:
        p = self.paths
        return {"start_system": p.start, "n_paths": p.n_paths, "counts": p.counts(),
                "failure_reasons": p.failure_reasons(), "adds_up": p.adds_up,
                "complete": p.complete, "gamma": [p.gamma.real, p.gamma.imag],
                "undecided_pairs": [list(q) for q in p.undecided_pairs],
                "attempts": list(p.attempts)}

    def to_json(self) -> dict:
        out = {"variables": list(self.variables), "complete": self.complete,
               "paths": self.path_json(),
               "solutions": [s.to_json() for s in self.solutions],
               "components": [{"dim": 0, "degree": 1, "multiplicity": s.multiplicity,
                               "points": [vector_to_json(s.point)]} for s in self.solutions],
               "positive_dimensional": list(self.positive_dimensional),
               "undecided": list(self.undecided), "check": self.check.to_json(),
               "real": self.n_real, "rejected": self.rejected, "residual_tol": RESIDUAL_TOL,
               "real_tol": REAL_TOL, "refine_digits": REFINE_DIGITS,
               "refine_above": REFINE_ABOVE, "move_tol": MOVE_TOL, "seed": self.seed,
               "precision": self.precision, "seconds": self.seconds}
        if self.parameters is not None:
            out["parameters"] = self.parameters
        if self.certification is not None:
            out["certification"] = self.certification.to_json()
        return out

    def text(self) -> list[str]:
        p, c = self.paths, self.paths.counts()
        fails = ", ".join(f"{k}: {v}" for k, v in p.failure_reasons().items())
        n_sing = sum(s.status == "singular" for s in self.solutions)
        lines = [f"variables: {', '.join(self.variables)}",
                 f"complete: {self.complete}, seed {self.seed}",
                 f"paths: {p.n_paths} ({p.start}): {c['regular']} regular, {c['singular']} "
                 f"singular, {c['at_infinity']} at infinity, {c['failed']} failed"
                 + (f" ({fails})" if fails else "") + f"; adds up: {p.adds_up}"
                 + (f"; tracked after scaling equations by 2^{list(p.scaling.equation_exponents)}"
                    f", variables by 2^{list(p.scaling.variable_exponents)} (Morgan)"
                    if p.scaling else ""),
                 f"{len(self.solutions)} isolated solutions ({n_sing} singular), {self.n_real} "
                 f"real ({self.rejected} rejected by the residual check)"]
        digits = display_digits([s.point for s in self.solutions],
                                [s.real for s in self.solutions])
        for s in self.solutions:
            tag = "real" if s.real else "    "
            lines.append(f"  m={s.multiplicity}  {s.status:8s} {tag}  "
                         f"({format_point(s.point, digits=digits, real=s.real)})"
                         f"  residual {s.residual:.1e}")
        if self.positive_dimensional:
            n = sum(len(g["paths"]) for g in self.positive_dimensional)
            lines.append(f"positive-dimensional solution set met: {n} paths ended on it at "
                         f"{len(self.positive_dimensional)} points (not isolated solutions); "
                         f"run `python -m witness decompose` for its components")
        for g in self.paths.undecided:
            lines.append(f"  [!!] undecided singular point ({format_point(g.point)}), "
                         f"{g.multiplicity} paths: {g.reason}")
        if p.undecided_pairs:
            lines.append(f"  [!!] {len(p.undecided_pairs)} pairs of endpoints neither the same "
                         f"point nor different (witness.distinct)")
        lines += self.check.text()
        if self.certification is not None:
            lines.append(self.certification.summary())
        return lines


def solve_report(F: PolynomialSystem, paths: PathSolve, phc_result: SolveResult | None = None,
                 *, phc_error: str = "", precision: str = "d",
                 certify_solutions: bool = False, parameters: dict | None = None,
                 seconds: float | None = None) -> SolveReport:
    """Judge our isolated solutions, compare them with PHCpack's, optionally certify.

    Parameters
    ----------
    F : PolynomialSystem
        The system as written (exact coefficients), square.
    paths : witness.solve.PathSolve
        Our total-degree solve of F (``solve_paths``).
    phc_result : witness.phc.SolveResult, optional
        PHCpack's blackbox output for F (points in ``F.variables`` order); None when it
        failed (``phc_error`` says how) or was not run.
    precision : str
        Precision of the PHCpack check ("d", "dd", "qd").
    certify_solutions : bool
        Run the Krawczyk certification (``witness.certify``) on the accepted points.
    parameters : dict, optional
        Parameter values used to build F (reported as given).
    seconds : float, optional
        Wall time so far (default: ``paths.seconds``); judgement and certification are added.

    Returns
    -------
    SolveReport
    """
    t0 = time.perf_counter()
    iso = paths.isolated
    J = judge(F, np.array([g.point for g in iso]).reshape(-1, F.n_vars))
    # a regular point is where Newton converges: one where it did not is no regular zero
    # ((x-1)^2 (x-1-1/1000): a path ended at 1.0005, backward error 1.6e-11 < the tolerance,
    # f(1.0005) = -1.25e-10, and was listed as a regular solution)
    bad = np.array([g.status == PathStatus.REGULAR and h == "not converged"
                    for g, h in zip(iso, J.refinement)], bool)
    J = replace(J, accepted=J.accepted & ~bad) if bad.any() else J
    # absolute error estimates: the endpoint's, or 10^-REFINE_DIGITS where Newton converged
    errs_abs = [min(_finite_or_one(g.accuracy), 1.0 if h != "converged" else
                    10.0 ** -REFINE_DIGITS) * max(1.0, float(np.abs(x).max(initial=0.0)))
                for g, h, x in zip(iso, J.refinement, J.points)]
    reals = real_mask(J.points, errors=errs_abs) if len(iso) else np.zeros(0, bool)
    if F.has_real_coefficients:
        reals = reals & ~conjugate_pairs(J.points, reals & J.accepted)
    sols = tuple(Solution(J.points[i], g.multiplicity, float(J.residuals[i]), bool(reals[i]),
                          str(J.refinement[i]), g.status, g.paths)
                 for i, g in enumerate(iso) if J.accepted[i])
    errs = [g.accuracy for g, ok in zip(iso, J.accepted) if ok]
    pos = tuple({"point": vector_to_json(g.point), "paths": list(g.paths), "reason": g.reason}
                for g in paths.positive_dimensional)
    und = tuple({"point": vector_to_json(g.point), "paths": list(g.paths), "reason": g.reason}
                for g in paths.undecided)
    check = phc_check(F, sols, errs, paths, phc_result, phc_error, precision)
    cert = certify(F, np.array([s.point for s in sols]).reshape(-1, F.n_vars)) \
        if certify_solutions else None
    total = (paths.seconds if seconds is None else seconds) + time.perf_counter() - t0
    return SolveReport(F.variables, sols, int((~J.accepted).sum()), paths, pos, und, check,
                       paths.seed, precision, total, parameters, cert)


def phc_check(F: PolynomialSystem, sols: tuple[Solution, ...], errs: list[float],
              paths: PathSolve, r: SolveResult | None, error: str, precision: str
              ) -> PhcCheck:
    """Compare PHCpack's accepted points with our solutions (module docstring, "The check")."""
    if r is None:
        return PhcCheck(False, precision, None, error=error or "not run")
    J = _judged_scaled(F, judge(F, r.points), paths)
    P, pm = J.points[J.accepted], r.multiplicities[J.accepted]
    # a point Newton refined to convergence is known to the error floor, not to PHCpack's err
    pe = np.where(J.refinement == "converged", 0.0,
                  np.where(np.isfinite(r.err), np.abs(r.err), np.inf))[J.accepted]
    ours = np.array([s.point for s in sols]).reshape(-1, F.n_vars)
    # compared where our paths were tracked (y = 2^-d x): our error estimates are y's, and
    # roots +-1e-6 are 2e-6 apart in x's mixed absolute/relative distance, 2 apart in y's
    w = 1.0 if paths.scaling is None else \
        np.exp2(-np.array(paths.scaling.variable_exponents, float))
    C = distinct.compare_points(ours * w, np.array(errs, float), P * w, pe) \
        if len(ours) and len(P) else np.zeros((len(ours), len(P)), np.int8)
    via = _deflated_onto_ours(F, sols, errs, P, pe, C, paths.seed)
    diffs: list[dict] = []
    for i, s in enumerate(sols):
        same = np.flatnonzero(C[i] == distinct.SAME)
        direct = np.array([j for j in same if j not in via], int)
        if len(direct) > 1 and np.any(distinct.compare_points(
                (P * w)[direct], pe[direct], (P * w)[direct], pe[direct]) != distinct.SAME):
            # PHCpack points within one point of ours that are not the same point as each other:
            # ours may be the centre of a cluster of simple roots, not one multiple root
            # (x^2 - 1e-12, roots +-1e-6, was reported as a double root at 0 and "agrees")
            diffs.append(_diff("PHCpack points not the same at one point of ours", s.point,
                               f"unresolved: PHCpack has {len(same)} points here that are not "
                               f"decided the same point, ours one point of multiplicity "
                               f"{s.multiplicity}: a cluster of nearby roots is not excluded",
                               False))
            continue
        if len(same):
            if int(pm[same].sum()) != s.multiplicity:
                why = ("the Jacobian has full rank there, so it is 1" if s.status == "regular"
                       else "isolated by the local dual space, whose dimension equals the "
                            "number of paths, and deflated to a regular point")
                diffs.append(_diff("multiplicity differs", s.point,
                                   f"ours {s.multiplicity} (paths), PHCpack "
                                   f"{int(pm[same].sum())}; ours is decided: {why}", False))
            continue
        if np.any(C[i] == distinct.UNDECIDED):
            verdict = "unresolved: a PHCpack point is neither the same nor different"
        elif paths.complete:
            verdict = "missed by PHCpack (ours passes the residual check; our paths add up)"
        else:
            verdict = "unresolved: our run is not complete"
        diffs.append(_diff("only ours", s.point, verdict, s.status == "regular"))
    for j in np.flatnonzero(~np.any(C == distinct.SAME, axis=0)) if len(P) else []:
        x = P[j]
        regular = full_rank(F, x, float(pe[j]), SOLVE_OPTIONS)
        if regular:
            verdict = "a regular isolated solution our run missed"
        elif paths.positive_dimensional:
            verdict = "singular, and our paths met a positive-dimensional set: on it"
        else:
            verdict = ("unresolved: a singular point not decided the same as any of ours (a "
                       "multiple root of ours resolved only to ~eps^(1/m) by PHCpack, or one "
                       "our run did not reach)")
        diffs.append(_diff("only PHCpack", x, verdict, bool(regular)))
    return PhcCheck(True, precision, r.seed, tuple(P), tuple(int(m) for m in pm),
                    int((~J.accepted).sum()), tuple(diffs), seconds=r.seconds)


def _deflated_onto_ours(F, sols, errs, P, pe, C, seed) -> set[int]:
    """PHCpack points (indices into P) that are the same point as one of our multiple roots
    though the point rule cannot say so: C (ours x PHCpack, ``witness.distinct``) is set to
    SAME in place for them. Why: PHCpack reports the triple root of (x - 1)^3 as 3 points at
    distance ~3e-5 from 1 (double precision resolves a root of multiplicity m only to ~eps^(1/m)),
    with error estimates that exclude 1: "unresolved", complete: False. A PHCpack point that is
    singular (not regular by ``full_rank``) and SAME as none of ours is deflated
    (``witness.deflation.deflate``, its accuracy PHCpack's error estimate, the deflation
    verified at 60 digits by ``witness.cluster``); when the deflated point is decided the same
    point as a singular solution of ours, it is that solution."""
    out: set[int] = set()
    sing = [i for i, s in enumerate(sols) if s.status == "singular"]
    if not sing or not len(P):
        return out
    rng = np.random.default_rng(seed)
    for j in np.flatnonzero(~np.any(C == distinct.SAME, axis=0)):
        if not np.isfinite(pe[j]) or full_rank(F, P[j], float(pe[j]), SOLVE_OPTIONS):
            continue
        d = deflate(F, P[j], accuracy=float(pe[j]), rng=rng, max_steps=MAX_DEFLATIONS)
        if not d.regular:
            continue
        ours = np.array([sols[i].point for i in sing])
        c = distinct.compare_points(d.x[None, :], np.array([d.accuracy]), ours,
                                    np.array([errs[i] for i in sing], float))[0]
        hit = [sing[k] for k in np.flatnonzero(c == distinct.SAME)]
        if len(hit) == 1:
            C[hit[0], j] = distinct.SAME
            out.add(int(j))
    return out


def _judged_scaled(F: PolynomialSystem, J: Judged, paths: PathSolve) -> Judged:
    """When our solve was scaled (``witness.scaling``), PHCpack's points are refined and judged
    on the scaled system as well, and must pass the residual check on both: F's mixed
    absolute/relative backward error counts coordinates below 1 as 1, so near 0 it is absolute.
    For x^20 - 1e-40 (roots of modulus 0.01) PHCpack's points of modulus 0.2 (x^20 ~ 1e-14)
    passed it, were 'singular points our run did not reach', and made the solve incomplete; for
    x^2 - 1e-12 PHCpack's points are 3e-9 off +-1e-6 with error estimates 1e-7, too coarse to
    be told the same as ours until refined where the roots have size 1."""
    if paths.scaling is None or not J.accepted.any():
        return J
    G = paths.scaling.apply(F)
    s = np.exp2(np.array(paths.scaling.variable_exponents, float))
    K = judge(G, J.points / s)
    X = K.points * s
    ok = K.accepted & np.all(np.isfinite(X), axis=1)
    ok[ok] = F.residual(X[ok]) < RESIDUAL_TOL
    return Judged(X, K.residuals, K.refinement, ok)


def _diff(kind: str, x: np.ndarray, verdict: str, regular: bool) -> dict:
    return {"kind": kind, "point": vector_to_json(x), "text_point": format_point(x),
            "verdict": verdict, "regular": regular}


def _refined(F: PolynomialSystem, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points, backward errors, refinement status) for points X (p, n); see the module
    docstring. A point whose Newton iteration did not converge keeps whichever of the two
    has the smaller backward error."""
    res = F.residual(X) if len(X) else np.zeros(0)
    how = np.array(["not needed"] * len(X), dtype=object)
    todo = np.flatnonzero(res >= REFINE_ABOVE)
    if len(todo) == 0:
        return X, res, how
    R = refine(F, X[todo], digits=REFINE_DIGITS, max_iterations=REFINE_STEPS)
    finite = np.all(np.isfinite(R.points), axis=1)
    new = np.full(len(todo), np.inf)
    new[finite] = F.residual(R.points[finite])
    scale = np.maximum(1.0, np.abs(X[todo]).max(axis=1))
    moved = np.full(len(todo), np.inf)
    moved[finite] = np.abs(R.points[finite] - X[todo][finite]).max(axis=1) / scale[finite]
    conv = R.converged & finite & (moved <= MOVE_TOL)
    take = conv | (~R.converged & (new <= res[todo]) & (moved <= MOVE_TOL))
    X = X.copy()
    X[todo[take]] = R.points[take]
    res = res.copy()
    res[todo[take]] = new[take]
    how[todo] = np.where(conv, "converged",
                         np.where(R.converged & finite, "moved too far", "not converged"))
    return X, res, how
