"""Thresholded decisions at a chosen precision, and the linear algebra they are made on.

Decisions are made at a configurable precision (`Precision`): mpmath at `digits` digits (default
50), where the input (read exactly) is taken as exact, or float64, where the input is taken as
known only to float64 rounding. A singular value σ_i/σ_1 counts as nonzero above `tolerance`
(default 10^(−0.8·digits)) and as zero below it; each decision reports its `margin`, the factor
by which the closest singular value clears the tolerance, and is "undecided" when that factor is
below `min_margin` (default 10^(digits/10)). In float64, a value below tolerance cannot be told
from input rounding, so it is always undecided: float64 never certifies a special class.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import mpmath
import numpy as np

from ..arith import MpArithmetic, NumpyArithmetic
from ..tensor import norm  # noqa: F401  (the Euclidean norm of float64 or mpf arrays)


@dataclass(frozen=True)
class Precision:
    """Where decisions are made: mpmath at `digits` digits, or float64 (digits=None).

    Attributes:
        digits: mpmath decimal digits (>= 15), or None for the float64 path.
        tolerance: relative size below which a singular value counts as zero (default
            10^(−0.8·digits), 1e-40 at 50 digits; float64: 1e-10).
        min_margin: factor by which every deciding value must clear the tolerance (default
            10^(digits/10), 1e5 at 50 digits; float64: 100).
    Raises:
        ValueError: digits < 15, tolerance not in (0, 1), min_margin < 1.
    """

    digits: int | None = 50
    tolerance: float | None = None
    min_margin: float | None = None

    def __post_init__(self) -> None:
        if self.digits is not None and (not isinstance(self.digits, int) or self.digits < 15):
            raise ValueError(f"digits must be an integer >= 15 (or None for float64), "
                             f"got {self.digits!r}")
        tol = self.tolerance if self.tolerance is not None else (
            1e-10 if self.digits is None else 10.0 ** (-0.8 * self.digits))
        margin = self.min_margin if self.min_margin is not None else (
            100.0 if self.digits is None else 10.0 ** (self.digits / 10))
        if not 0 < tol < 1:
            raise ValueError(f"tolerance must lie in (0, 1), got {tol}")
        if margin < 1:
            raise ValueError(f"min_margin must be >= 1, got {margin}")
        object.__setattr__(self, "tolerance", tol)
        object.__setattr__(self, "min_margin", margin)

    @property
    def is_float(self) -> bool:
        return self.digits is None

    @property
    def name(self) -> str:
        return "float64" if self.is_float else f"{self.digits} digits"

    def ops(self):
        return NumpyArithmetic(np.float64) if self.is_float else MpArithmetic(self.digits)

    def context(self):
        return contextlib.nullcontext() if self.is_float else mpmath.workdps(self.digits)

    def convert(self, x: Any) -> np.ndarray:
        return self.ops().convert(x)

    def to_json(self) -> dict:
        return {"digits": self.digits, "tolerance": self.tolerance, "min_margin": self.min_margin}


def work_digits(prec: Precision) -> int | None:
    """Digits for recovering preimages: 2·digits + 10 (None for float64)."""
    # A point at distance θ from the boundary has a contraction eigenvalue ~θ², whose square root
    # the recovery takes: twice the digits keep θ down to the tolerance resolvable.
    return None if prec.is_float else 2 * prec.digits + 10


def nearby_epsilon(prec: Precision) -> float:
    """Relative distance of the nearby points and probes: 10^(−digits/5) (1e-10 at 50 digits)."""
    return 1e-4 if prec.is_float else 10.0 ** (-prec.digits / 5)


@dataclass(frozen=True)
class Decision:
    """One thresholded decision (a rank, or whether u ∥ w).

    Attributes:
        quantity: what was decided, e.g. "rank A".
        value: the value read at the tolerance (number of normalized values above it).
        candidates: every value consistent with the margins (one value iff decided).
        decided: len(candidates) == 1.
        margin: min over values of value/tolerance or tolerance/value (inf for exact zeros;
            1.0 for float64 values below tolerance, which rounding could have produced).
        tolerance: the tolerance used.
        values: the normalized values (σ_i / σ_1) the decision was made on, as floats.
    """

    quantity: str
    value: int
    candidates: tuple[int, ...]
    margin: float
    tolerance: float
    values: tuple[float, ...] = field(repr=False, default=())

    @property
    def decided(self) -> bool:
        return len(self.candidates) == 1

    def to_json(self) -> dict:
        return {"quantity": self.quantity, "value": self.value, "decided": self.decided,
                "candidates": list(self.candidates), "margin": json_num(self.margin),
                "tolerance": self.tolerance,
                "normalized_values": [json_num(v) for v in self.values]}


def json_num(x: float) -> float | str:
    """JSON-safe float: inf -> "inf"."""
    return "inf" if x == math.inf else float(x)


def fmt(x: float) -> str:
    """A margin for messages: 3 significant digits, or "inf"."""
    return "inf" if x == math.inf else f"{x:.3g}"


def threshold_rank(quantity: str, sigma: Sequence, prec: Precision) -> Decision:
    """Rank from singular values `sigma` (any order) with an explicit tolerance and a margin.

    Normalized values s_i = σ_i/σ_1 count as nonzero above prec.tolerance. Not the largest-gap
    rule of numag.rank: that rule reads σ = (1, 1e-30, 1e-50 noise) as rank 1 (gap 1e30 beats
    1e20), while exact input at 50 digits has rank 2 (a 1e-30 perturbation must change the
    label at 50 digits).
    """
    sig = sorted((abs(s) for s in sigma), reverse=True)
    n = len(sig)
    if n == 0 or sig[0] == 0:
        if prec.is_float:
            return Decision(quantity, 0, tuple(range(n + 1)), 1.0, prec.tolerance, (0.0,) * n)
        return Decision(quantity, 0, (0,), math.inf, prec.tolerance, (0.0,) * n)
    s_exact = [x / sig[0] for x in sig]                 # mpf stays mpf: no underflow at 1e-300
    tol, m = prec.tolerance, prec.min_margin
    value = sum(1 for x in s_exact if x > tol)
    sure = sum(1 for x in s_exact if x >= tol * m)
    maybe = n if prec.is_float and value < n else sum(1 for x in s_exact if x > tol / m)
    margin = min(_margin(x, prec) for x in s_exact)
    return Decision(quantity, value, tuple(range(sure, maybe + 1)), margin, tol,
                    tuple(float(x) for x in s_exact))


def _margin(x, prec: Precision) -> float:
    """Factor by which one normalized value x clears the tolerance, on its side of it."""
    if x > prec.tolerance:
        return float(x / prec.tolerance)
    if prec.is_float:
        return 1.0                               # below float64 resolution: no margin at all
    return math.inf if x == 0 else float(prec.tolerance / x)


def threshold_zero(quantity: str, x, prec: Precision) -> Decision:
    """Is the relative quantity x (>= 0) zero at this precision? value 0 = zero, 1 = nonzero."""
    dec = threshold_rank(quantity, [1, x], prec)
    return Decision(quantity, dec.value - 1, tuple(c - 1 for c in dec.candidates), dec.margin,
                    dec.tolerance, dec.values[1:])


def singular_values(M: np.ndarray, prec: Precision) -> list:
    """Singular values of a 2-D array by mpmath.svd (inside prec.context()) or numpy."""
    M = np.asarray(M)
    if M.size == 0:
        return []
    if prec.is_float:
        return list(np.linalg.svd(M.astype(float), compute_uv=False))
    mat = mpmath.matrix(M.tolist())
    if M.shape[0] < M.shape[1]:
        mat = mat.T
    return list(mpmath.svd_r(mat, compute_uv=False))


def svd(M: np.ndarray, prec: Precision) -> tuple[np.ndarray, list, np.ndarray]:
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


def rank1_factors(M: np.ndarray, prec: Precision) -> tuple[np.ndarray, np.ndarray]:
    """M ≈ x yᵀ from the top singular triple (x carries the scale)."""
    U, s, Vt = svd(M, prec)
    return U[:, 0] * s[0], Vt[0]


def sqrt(x):
    """Square root of a float or an mpf, in its own number system."""
    return mpmath.sqrt(x) if isinstance(x, mpmath.mpf) else math.sqrt(x)
