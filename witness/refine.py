"""Newton refinement in mpmath to a requested number of correct digits.

``refine(F, X, digits)`` runs Newton's method (Gauss–Newton by least squares when the system has
more equations than unknowns, e.g. a witness point: F plus its slice) in mpmath at
``digits + 10`` decimal digits. A point counts as refined when the last Newton correction is
below ``10**-digits`` relative to ``1 + |x|`` (the stated tolerance); for a regular root
quadratic convergence makes the error of the result far smaller than that correction. Singular
roots (multiplicity > 1) converge only linearly and are reported as not converged with the
correction size reached, never as refined.
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from .system import PolynomialSystem


@dataclass(frozen=True)
class RefineResult:
    """Per point: ``points`` (p, n) complex128 rounding of the refined values, ``points_mp``
    (list of p lists of mpmath.mpc at ``dps`` digits), ``converged`` bool (p,), ``corrections``
    float (p,) last Newton correction (relative), ``residuals`` float (p,) max |f_i| in mpmath,
    ``iterations`` int (p,); ``digits`` requested, tolerance = 10**-digits."""
    points: np.ndarray
    points_mp: list
    converged: np.ndarray
    corrections: np.ndarray
    residuals: np.ndarray
    iterations: np.ndarray
    digits: int

    @property
    def tolerance(self) -> float:
        return 10.0 ** (-self.digits)

    def __repr__(self) -> str:
        return (f"RefineResult({len(self.points)} points, {int(self.converged.sum())} converged "
                f"to {self.digits} digits, max correction {self.corrections.max(initial=0):.1e})")

    def to_json(self) -> dict:
        return {"points": [[str(z) for z in x] for x in self.points_mp],
                "converged": self.converged.tolist(), "corrections": self.corrections.tolist(),
                "residuals": self.residuals.tolist(), "iterations": self.iterations.tolist(),
                "digits": self.digits, "tolerance": self.tolerance}


def _slice_values(A, b, x):
    return [sum((a * xi for a, xi in zip(row, x)), mpmath.mpc(0)) - bi for row, bi in zip(A, b)]


def refine(F: PolynomialSystem, X, digits: int = 30, *, slice_A=None, slice_b=None,
           max_iterations: int = 60) -> RefineResult:
    """Refine points X (p, n) or (n,) of F (with optional slice equations A x = b, A: (k, n)).

    Raises ValueError on wrong shapes, NaN input, digits < 1, or an underdetermined system
    (fewer equations, slice included, than unknowns: Newton's correction would not be unique)."""
    if digits < 1:
        raise ValueError(f"digits must be >= 1, got {digits}")
    X = np.atleast_2d(np.asarray(X, dtype=complex))
    if X.shape[1] != F.n_vars or not np.all(np.isfinite(X)):
        raise ValueError(f"points must be finite with {F.n_vars} coordinates, got {X.shape}")
    A = np.zeros((0, F.n_vars)) if slice_A is None else np.atleast_2d(np.asarray(slice_A))
    b = np.zeros(0) if slice_b is None else np.atleast_1d(np.asarray(slice_b))
    if A.shape[1] != F.n_vars or A.shape[0] != b.shape[0]:
        raise ValueError(f"slice shapes {A.shape}, {b.shape} do not fit {F.n_vars} variables")
    if F.n_equations + A.shape[0] < F.n_vars:
        raise ValueError(f"{F.n_equations} equations + {A.shape[0]} slice equations < "
                         f"{F.n_vars} unknowns: add a slice")
    dps = digits + 10
    out = [_refine_one(F, x, A, b, digits, dps, max_iterations) for x in X]
    with mpmath.workdps(dps):
        pts = np.array([[complex(z) for z in o[0]] for o in out], dtype=complex)
    return RefineResult(pts, [o[0] for o in out], np.array([o[1] for o in out]),
                        np.array([o[2] for o in out]), np.array([o[3] for o in out]),
                        np.array([o[4] for o in out]), digits)


def _refine_one(F, x0, A, b, digits, dps, max_iterations):
    with mpmath.workdps(dps):
        Am = [[mpmath.mpc(a) for a in row] for row in A]
        bm = [mpmath.mpc(v) for v in b]
        x = [mpmath.mpc(v) for v in x0]
        tol = mpmath.mpf(10) ** (-digits)
        corr, it, converged = mpmath.inf, 0, False
        for it in range(1, max_iterations + 1):
            f = F.evaluate_mp(x, dps) + _slice_values(Am, bm, x)
            J = F.jacobian_mp(x, dps)
            if Am:
                J = mpmath.matrix([[J[i, j] for j in range(J.cols)] for i in range(J.rows)]
                                  + Am)
            rhs = mpmath.matrix(f)
            try:
                dx = (mpmath.lu_solve(J, rhs) if J.rows == J.cols
                      else mpmath.qr_solve(J, rhs)[0])
            except ZeroDivisionError:
                break   # exactly singular Jacobian: cannot refine, reported as not converged
            x = [xi - di for xi, di in zip(x, dx)]
            scale = 1 + mpmath.sqrt(sum(abs(v) ** 2 for v in x))
            corr = mpmath.sqrt(sum(abs(d) ** 2 for d in dx)) / scale
            if corr < tol:
                converged = True
                break
        res = max(abs(v) for v in F.evaluate_mp(x, dps))
        return x, converged, float(corr), float(res), it
