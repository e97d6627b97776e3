"""What ``solve`` reports: PHCpack's points refined and judged on the system as written, real or
not, optionally certified. One assembly function, ``solve_report``, so that further accounting
(e.g. of paths: regular / singular / at infinity / failed) is added in one place.

* **Refinement and judgement.** A point is accepted when its backward error on the system as
  written (``PolynomialSystem.residual``, exact coefficients) is below ``RESIDUAL_TOL`` = 1e-9.
  Every finite point whose backward error in double precision is not already below
  ``REFINE_ABOVE`` = 1e-13 (four orders of magnitude of margin) is first refined by Newton's
  method in mpmath on the exact system (``witness.refine``, ``REFINE_DIGITS`` digits, at most
  ``REFINE_STEPS`` steps) and judged at the refined point, provided Newton converged without
  moving it by more than ``MOVE_TOL`` * max(1, |x|_inf) (otherwise it is judged as PHCpack
  gave it: Newton from a bad point can land on another, already listed, root); when Newton
  does not converge (singular roots converge only linearly) at the better of the two. (Refining every point
  costs more than PHCpack's solve on cyclic-7: 924 points, ~11 s idle, measured.) Rejected
  points are counted, not listed.
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
REFINE_ABOVE = 1e-13    # points with a smaller double-precision backward error are not refined
MOVE_TOL = 1e-6         # relative distance Newton may move a point it refines
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
    """One accepted point: ``point`` complex128 (n,), ``multiplicity`` as PHCpack reports it,
    ``residual`` backward error, ``real`` (``REAL_TOL``), ``refinement``: "not needed" (backward
    error already < ``REFINE_ABOVE``), "converged" (Newton reached ``REFINE_DIGITS`` digits) or
    "not converged" (e.g. a singular root; judged at the better point) or "moved too far"
    (Newton converged farther than ``MOVE_TOL`` away: judged at PHCpack's point)."""
    point: np.ndarray
    multiplicity: int
    residual: float
    real: bool
    refinement: str

    def to_json(self) -> dict:
        return {"point": vector_to_json(self.point), "real": bool(self.real),
                "multiplicity": int(self.multiplicity), "residual": float(self.residual),
                "refinement": self.refinement}


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
               "real_tol": REAL_TOL, "refine_digits": REFINE_DIGITS,
               "refine_above": REFINE_ABOVE, "move_tol": MOVE_TOL, "seed": self.seed,
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
    pts, res, how = _refined(F, X)
    ok = res < RESIDUAL_TOL
    reals = real_mask(pts) if len(pts) else np.zeros(0, bool)
    sols = tuple(Solution(x, int(m), float(e), bool(re_), str(h))
                 for x, m, e, re_, h, keep in zip(pts, mult, res, reals, how, ok) if keep)
    cert = certify(F, np.array([s.point for s in sols]).reshape(-1, F.n_vars)) \
        if certify_solutions else None
    total = (r.seconds if seconds is None else seconds) + time.perf_counter() - t0
    return SolveReport(F.variables, sols, int((~finite).sum() + (~ok).sum()), r.seed,
                       r.precision, total, parameters, cert)


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
