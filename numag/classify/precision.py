"""Linear algebra at the precision of a RankOptions (numag.rank), for the classifier.

Decisions are made by numag.rank's one rule (threshold_rank / threshold_zero) at the precision
of `RankOptions`: mpmath at `digits` digits (default 50), where the input (read exactly) is taken
as exact, or float64, where the input is taken as known only to float64 rounding (so float64
never certifies a special class). This module adds what the classifier computes on top: full
SVDs, rank-1 factors, working precisions for preimage recovery and nearby points.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from ..rank import RankOptions
from ..tensor import norm  # noqa: F401  (the Euclidean norm of float64 or mpf arrays)


def work_digits(prec: RankOptions) -> int | None:
    """Digits for recovering preimages: 2·digits + 10 (None for float64)."""
    # A point at distance θ from the boundary has a contraction eigenvalue ~θ², whose square root
    # the recovery takes: twice the digits keep θ down to the tolerance resolvable.
    return None if prec.is_float else 2 * prec.digits + 10


def nearby_epsilon(prec: RankOptions) -> float:
    """Relative distance of the nearby points and probes: 10^(−digits/5) (1e-10 at 50 digits)."""
    return 1e-4 if prec.is_float else 10.0 ** (-prec.digits / 5)


def fmt(x: float) -> str:
    """A margin for messages: 3 significant digits, or "inf"."""
    return "inf" if x == math.inf else f"{x:.3g}"


def svd(M: np.ndarray, prec: RankOptions) -> tuple[np.ndarray, list, np.ndarray]:
    """Full SVD M = U diag(s) Vt (U (m, k), Vt (k, n), k = min(m, n)), mpmath or numpy."""
    if prec.is_float:
        U, s, Vt = np.linalg.svd(np.asarray(M, dtype=float), full_matrices=False)
        return U, list(s), Vt
    m, n = M.shape
    if m < n:
        Vt_T, s, U_T = svd(M.T, prec)
        return U_T.T, s, Vt_T.T
    U, S, Vt = mpmath.svd_r(mpmath.matrix(M.tolist()), full_matrices=False)
    k = min(m, n)
    return (np.array([[U[i, j] for j in range(k)] for i in range(m)], dtype=object),
            [S[i] for i in range(k)],
            np.array([[Vt[i, j] for j in range(n)] for i in range(k)], dtype=object))


def rank1_factors(M: np.ndarray, prec: RankOptions) -> tuple[np.ndarray, np.ndarray]:
    """M ≈ x yᵀ from the top singular triple (x carries the scale)."""
    U, s, Vt = svd(M, prec)
    return U[:, 0] * s[0], Vt[0]


def sqrt(x):
    """Square root of a float or an mpf, in its own number system."""
    return mpmath.sqrt(x) if isinstance(x, mpmath.mpf) else math.sqrt(x)
