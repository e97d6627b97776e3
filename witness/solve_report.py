"""What ``solve`` reports: PHCpack's points refined and judged on the system as written, real or
not, optionally certified. One assembly function, ``solve_report``, so that further accounting
(e.g. of paths: regular / singular / at infinity / failed) is added in one place.

* **Refinement and judgement.** Every finite point is refined by Newton's method in mpmath on
  the exact system (``witness.refine``, ``REFINE_DIGITS`` digits, at most ``REFINE_STEPS``
  steps); a point is accepted when its backward error (``PolynomialSystem.residual``) is below
  ``RESIDUAL_TOL``, at the refined point or, when Newton does not converge (singular roots
  converge only linearly), at the better of the two. Rejected points are counted, not listed.
* **Real points.** A point is reported as real when max_j |Im x_j| <= ``REAL_TOL`` *
  max(1, max_j |x_j|) (a mixed relative/absolute tolerance, like the residual's); text output
  then shows real coordinates, and JSON marks it ``"real": true`` (the numbers are not
  altered). This is a numerical classification; ``--certify`` proves realness (``certify``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .certify import CertificationResult, certify
from .jsonio import vector_to_json
from .phc import SolveResult
from .refine import refine
from .system import PolynomialSystem
from .tracking import RESIDUAL_TOL

REAL_TOL = 1e-8         # relative to max(1, |x|_inf): imaginary parts below are rounding noise
REFINE_DIGITS = 20      # Newton in mpmath to this many digits before the residual check
REFINE_STEPS = 8        # at most; a regular root from double precision needs 2-3


def real_mask(X, tol: float = REAL_TOL) -> np.ndarray:
    """bool (p,): max_j |Im x_j| <= tol * max(1, max_j |x_j|) for points X (p, n)."""
    X = np.atleast_2d(np.asarray(X, dtype=complex))
    scale = np.maximum(1.0, np.abs(X).max(axis=1, initial=0.0))
    return np.abs(X.imag).max(axis=1, initial=0.0) <= tol * scale


def format_point(x, tol: float = REAL_TOL, digits: int = 6) -> str:
    """Coordinates as text; an imaginary part below ``tol`` * max(1, |x|_inf) is not shown."""
    x = np.asarray(x, dtype=complex)
    cut = tol * max(1.0, float(np.abs(x).max(initial=0.0)))
    return ", ".join(f"{z.real:.{digits}g}" if abs(z.imag) <= cut else f"{z:.{digits}g}"
                     for z in x)


@dataclass(frozen=True)
class Solution:
    """One accepted point: ``point`` complex128 (n,) (refined), ``multiplicity`` as PHCpack
    reports it, ``residual`` backward error, ``real`` (``REAL_TOL``), ``refined`` whether
    Newton converged to ``REFINE_DIGITS`` digits."""
    point: np.ndarray
    multiplicity: int
    residual: float
    real: bool
    refined: bool

    def to_json(self) -> dict:
        return {"point": vector_to_json(self.point), "real": bool(self.real),
                "multiplicity": int(self.multiplicity), "residual": float(self.residual),
                "refined": bool(self.refined)}


@dataclass(frozen=True)
class SolveReport:
    """The ``solve`` result: accepted solutions, the count rejected, tolerances, seed,
    precision, seconds (PHCpack + refinement + certification), parameters (values used, as
    strings, or None), certification (or None)."""
    variables: tuple[str, ...]
    solutions: tuple[Solution, ...]
    rejected: int
    seed: int
    precision: str
    seconds: float
    parameters: dict | None = None
    certification: CertificationResult | None = None

    @property
    def n_real(self) -> int:
        return sum(s.real for s in self.solutions)

    def to_json(self) -> dict:
        out = {"variables": list(self.variables),
               "solutions": [s.to_json() for s in self.solutions],
               "components": [{"dim": 0, "degree": 1, "multiplicity": s.multiplicity,
                               "points": [vector_to_json(s.point)]} for s in self.solutions],
               "real": self.n_real, "rejected": self.rejected, "residual_tol": RESIDUAL_TOL,
               "real_tol": REAL_TOL, "refine_digits": REFINE_DIGITS, "seed": self.seed,
               "precision": self.precision, "seconds": self.seconds}
        if self.parameters is not None:
            out["parameters"] = self.parameters
        if self.certification is not None:
            out["certification"] = self.certification.to_json()
        return out

    def text(self) -> list[str]:
        lines = [f"variables: {', '.join(self.variables)}",
                 f"{len(self.solutions)} solutions, {self.n_real} real ({self.rejected} "
                 f"rejected by the residual check), seed {self.seed}"]
        for s in self.solutions:
            tag = "real" if s.real else "    "
            lines.append(f"  m={s.multiplicity}  {tag}  ({format_point(s.point)})  residual "
                         f"{s.residual:.1e}")
        if self.certification is not None:
            lines.append(self.certification.summary())
        return lines


def solve_report(F: PolynomialSystem, r: SolveResult, *, certify_solutions: bool = False,
                 parameters: dict | None = None, seconds: float | None = None) -> SolveReport:
    """Refine, judge, classify (and optionally certify) PHCpack's points of F.

    Parameters
    ----------
    F : PolynomialSystem
        The system as written (exact coefficients), square.
    r : witness.phc.SolveResult
        PHCpack's output for F (points in ``F.variables`` order).
    certify_solutions : bool
        Run the Krawczyk certification (``witness.certify``) on the accepted points.
    parameters : dict, optional
        Parameter values used to build F (reported as given).
    seconds : float, optional
        Wall time so far (default: ``r.seconds``); refinement and certification are added.

    Returns
    -------
    SolveReport
    """
    import time
    t0 = time.perf_counter()
    finite = np.all(np.isfinite(r.points), axis=1)
    X, mult = r.points[finite], r.multiplicities[finite]
    pts, res, conv = _refined(F, X)
    ok = res < RESIDUAL_TOL
    reals = real_mask(pts) if len(pts) else np.zeros(0, bool)
    sols = tuple(Solution(x, int(m), float(e), bool(re_), bool(c))
                 for x, m, e, re_, c, keep in zip(pts, mult, res, reals, conv, ok) if keep)
    cert = certify(F, np.array([s.point for s in sols]).reshape(-1, F.n_vars)) \
        if certify_solutions else None
    total = (r.seconds if seconds is None else seconds) + time.perf_counter() - t0
    return SolveReport(F.variables, sols, int((~finite).sum() + (~ok).sum()), r.seed,
                       r.precision, total, parameters, cert)


def _refined(F: PolynomialSystem, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points, backward errors, Newton converged) after mpmath refinement; a point whose Newton
    iteration did not converge keeps whichever of the two has the smaller backward error."""
    if len(X) == 0:
        return X, np.zeros(0), np.zeros(0, bool)
    R = refine(F, X, digits=REFINE_DIGITS, max_iterations=REFINE_STEPS)
    finite = np.all(np.isfinite(R.points), axis=1)
    res_new = np.full(len(X), np.inf)
    res_new[finite] = F.residual(R.points[finite])
    res_old = F.residual(X)
    take_new = R.converged | (res_new <= res_old)
    pts = np.where(take_new[:, None], R.points, X)
    return pts, np.where(take_new, res_new, res_old), R.converged & finite
