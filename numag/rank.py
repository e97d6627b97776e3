"""The rank of a matrix: one numerical rule (float64 or mpmath), and the exact rank over F_p.

The numerical rule (`threshold_rank`, options in `RankOptions`; every numerical rank in numag
uses it: `numag dim --method mp|float`, and every rank and zero test of `numag classify`):

    The singular values are normalized by the largest, s_i = σ_i / σ_1. A value counts as zero
    at or below tolerance / min_margin and as nonzero at or above tolerance · min_margin; the
    rank is *decided* when no value lies strictly between (the undecided band), and then equals
    the number of nonzero values. Otherwise every rank between the number of values certainly
    nonzero and the number of values not certainly zero stays a candidate, and the result says
    "undecided", never guesses.

Each decision reports its `margin`: the factor by which the closest value clears the tolerance.
With `rounded_input` (numag classify in float64: the input itself is known only to float64
rounding) a value below the tolerance cannot be told from a rounded nonzero, so a rank below
full is never decided.

Why a threshold and not the largest singular-value gap: the gap rule reads σ = (1, 1e-30) over
a noise floor 1e-50 as rank 1 or undecided (two gaps of 1e30 and 1e20), while the exact input at
50 digits has rank 2 and a 1e-30 perturbation must change the rank (paper-notes §2; test
tests/test_rank.py). A threshold is sound where the noise level is known: it is the unit
roundoff of the arithmetic times the error growth of the computation, and the defaults of
`RankOptions` are set from both (below). Before numag dim's SVD the matrix is equilibrated
(rows, then columns, scaled to unit norm), which leaves the rank unchanged but removes the
spread of scales that deep networks produce (|φ(X)| grows like |X|^(3^l)): without it float64
under-counts at depth 3 (paper-notes §6).

The exact rank over F_p of an integer matrix is a certified lower bound of its rank over Q
(paper-notes §6).
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import flint
import mpmath
import numpy as np

from .arith import MpArithmetic, NumpyArithmetic

# --- default tolerances (each defined here only) -------------------------------------------------
# Measured by benchmarks/rank_margins.py on the equilibrated Jacobians that numag dim ranks, whose
# true rank is known independently (exact rank over F_p; softmax: + l), seeds 0-4 (2026-11-30):
# * float64 (deep_dimension grid, benchmarks/dimension.py, HMK Fig. 3 with N = 250; lightning and
#   softmax, depth <= 4): zero values up to 1.2e-12 (softmax 4,4,4,4:2,2,2: the unit roundoff
#   1.1e-16 grown 1e4-fold with depth), nonzero values down to 4.3e-10 (lightning
#   5,5,5,5:5,5,5). The band (6e-12, 1.5e-10) lies between them, 5× above the largest zero and
#   2.9× below the smallest nonzero; a wrong rank would take a zero value 125× above the largest
#   measured or a nonzero one 70× below the smallest.
# * mpmath at d digits: zero values up to 360 × 10^(-d) (softmax 3,3,3,3:2,2,2, at 30 and at 50
#   digits), nonzero values down to 2e-6. The band (10^(-0.9·d), 10^(-0.7·d)) clears the zeros by
#   10^(0.1·d)/360: 280× at the default 50 digits (2.8× only at 30). Its top is set by numag
#   classify's exact input: a perturbation of 1e-30 is nonzero at 50 digits (1e-35 top), one of
#   1e-42 is undecided at 50 digits and resolved at 80 (tests/test_classify.py).
FLOAT64_TOLERANCE = 3e-11
FLOAT64_MIN_MARGIN = 5.0


def mp_tolerance(digits: int) -> float:
    """Default tolerance at `digits` mpmath digits: 10^(−0.8·digits) (1e-40 at 50 digits)."""
    return 10.0 ** (-0.8 * digits)


def mp_min_margin(digits: int) -> float:
    """Default margin at `digits` mpmath digits: 10^(digits/10) (1e5 at 50 digits)."""
    return 10.0 ** (digits / 10)


MIN_DIGITS = 15          # below, mpmath resolves no more than float64 does
MAX_DIGITS = 300         # the tolerance 10^(-0.8 digits) is a double: above ~380 it underflows


@dataclass(frozen=True)
class RankOptions:
    """Where and how a numerical rank is decided: the arithmetic, the tolerance, the margin.

    Parameters
    ----------
    digits : int or None
        mpmath decimal digits (>= 15), or None for float64. Default 50.
    tolerance : float, optional
        Normalized singular values σ_i/σ_1 count as nonzero above it and as zero below it.
        Default: `mp_tolerance(digits)`, or `FLOAT64_TOLERANCE` (3e-11) for float64.
    min_margin : float, optional
        Factor by which every value must clear the tolerance for the rank to be decided.
        Default: `mp_min_margin(digits)`, or `FLOAT64_MIN_MARGIN` (5) for float64.
    rounded_input : bool, optional
        The matrix carries the rounding of its input to this arithmetic, so a value below the
        tolerance may be a rounded nonzero: a rank below full is never decided. Default: True
        for float64 (numag classify's float64 mode), False for mpmath (the input is read
        exactly). numag dim's float64 ranks use False (its points are random: their rounding
        changes nothing generic).

    Raises
    ------
    ValueError
        digits < 15 or not an integer, tolerance not in (0, 1), min_margin < 1.

    Examples
    --------
    >>> RankOptions(50).tolerance, RankOptions(50).min_margin
    (1e-40, 100000.0)
    >>> RankOptions(None).name
    'float64'
    """

    digits: int | None = 50
    tolerance: float | None = None
    min_margin: float | None = None
    rounded_input: bool | None = None

    def __post_init__(self) -> None:
        d = self.digits
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or d < MIN_DIGITS):
            raise ValueError(f"digits must be an integer >= {MIN_DIGITS} (or None for float64), "
                             f"got {d!r}")
        tol = self.tolerance if self.tolerance is not None else (
            FLOAT64_TOLERANCE if d is None else mp_tolerance(d))
        margin = self.min_margin if self.min_margin is not None else (
            FLOAT64_MIN_MARGIN if d is None else mp_min_margin(d))
        if not 0 < tol < 1:
            raise ValueError(f"tolerance must lie in (0, 1), got {tol}")
        if not margin >= 1:
            raise ValueError(f"min_margin must be >= 1, got {margin}")
        object.__setattr__(self, "tolerance", float(tol))
        object.__setattr__(self, "min_margin", float(margin))
        if self.rounded_input is None:
            object.__setattr__(self, "rounded_input", d is None)

    @property
    def is_float(self) -> bool:
        return self.digits is None

    @property
    def name(self) -> str:
        return "float64" if self.is_float else f"{self.digits} digits"

    def ops(self):
        """The arithmetic (numag.arith) of this precision."""
        return NumpyArithmetic(np.float64) if self.is_float else MpArithmetic(self.digits)

    def context(self):
        """mpmath.workdps(digits), or a null context for float64."""
        return contextlib.nullcontext() if self.is_float else mpmath.workdps(self.digits)

    def convert(self, x: Any) -> np.ndarray:
        return self.ops().convert(x)

    def to_json(self) -> dict:
        return {"digits": self.digits, "tolerance": self.tolerance,
                "min_margin": self.min_margin, "rounded_input": self.rounded_input}


@dataclass(frozen=True)
class Decision:
    """One thresholded decision: a rank, or whether a quantity is zero.

    Attributes
    ----------
    quantity : str
        What was decided, e.g. "rank A".
    value : int
        The value read at the tolerance (number of normalized values above it).
    candidates : tuple of int
        Every value consistent with the margins (one value iff decided).
    margin : float
        min over the values of value/tolerance or tolerance/value (inf for exact zeros; 1.0 for
        a value below the tolerance under `rounded_input`).
    tolerance : float or None
        The tolerance used (None for an exact rank).
    values : tuple of float
        The normalized values σ_i/σ_1 the decision was made on.
    method : str
        'float64', 'mp' or 'exact'.
    prime : int or None
        The prime of an exact rank.
    shape : tuple of int
        (rows, cols) of the matrix, when the decision is the rank of one.
    """

    quantity: str
    value: int
    candidates: tuple[int, ...]
    margin: float
    tolerance: float | None
    values: tuple[float, ...] = field(repr=False, default=())
    method: str = "mp"
    prime: int | None = None
    shape: tuple[int, ...] = ()

    @property
    def decided(self) -> bool:
        return len(self.candidates) == 1

    @property
    def rank(self) -> int:
        """The rank read at the tolerance (= value)."""
        return self.value

    def to_json(self) -> dict:
        out = {"quantity": self.quantity, "value": self.value, "decided": self.decided,
               "candidates": list(self.candidates), "margin": json_num(self.margin),
               "tolerance": self.tolerance,
               "normalized_values": [json_num(v) for v in self.values]}
        if self.prime is not None:
            out["prime"] = self.prime
        return out


def json_num(x: float) -> float | str:
    """JSON-safe float: inf -> "inf"."""
    return "inf" if x == math.inf else float(x)


def threshold_rank(quantity: str, sigma: Sequence, options: RankOptions,
                   shape: tuple[int, ...] = ()) -> Decision:
    """The numerical rank rule (module docstring) on singular values `sigma` (any order).

    Parameters
    ----------
    quantity : str
        Name of what is decided, for messages and JSON.
    sigma : sequence of float or mpf
        Singular values (absolute values are taken).
    options : RankOptions
        Tolerance, margin and input model.
    shape : tuple of int, optional
        Shape of the matrix, recorded in the decision.

    Returns
    -------
    Decision

    Examples
    --------
    >>> d = threshold_rank("x", [1, 1e-30, 0], RankOptions(50))
    >>> d.value, d.decided, round(d.margin)
    (2, True, 10000000000)
    >>> threshold_rank("x", [1, 1e-41], RankOptions(50)).candidates     # in the band
    (1, 2)
    """
    sig = sorted((abs(s) for s in sigma), reverse=True)
    n = len(sig)
    method = "float64" if options.is_float else "mp"
    if n == 0 or sig[0] == 0:
        if options.rounded_input:
            return Decision(quantity, 0, tuple(range(n + 1)), 1.0, options.tolerance,
                            (0.0,) * n, method, shape=shape)
        return Decision(quantity, 0, (0,), math.inf, options.tolerance, (0.0,) * n, method,
                        shape=shape)
    s = [x / sig[0] for x in sig]                  # mpf stays mpf: no underflow at 1e-300
    tol, m = options.tolerance, options.min_margin
    value = sum(1 for x in s if x > tol)
    sure = sum(1 for x in s if x >= tol * m)
    maybe = n if options.rounded_input and value < n else sum(1 for x in s if x > tol / m)
    margin = min(_margin(x, options) for x in s)
    return Decision(quantity, value, tuple(range(sure, maybe + 1)), margin, tol,
                    tuple(float(x) for x in s), method, shape=shape)


def _margin(x, options: RankOptions) -> float:
    """Factor by which one normalized value x clears the tolerance, on its side of it."""
    if x > options.tolerance:
        return float(x / options.tolerance)
    if options.rounded_input:
        return 1.0                               # below the input's resolution: no margin
    return math.inf if x == 0 else float(options.tolerance / x)


def threshold_zero(quantity: str, x, options: RankOptions) -> Decision:
    """Is the relative quantity x (>= 0) zero? value 0 = zero, 1 = nonzero (the rank rule on
    the singular values (1, x))."""
    dec = threshold_rank(quantity, [1, x], options)
    return Decision(quantity, dec.value - 1, tuple(c - 1 for c in dec.candidates), dec.margin,
                    dec.tolerance, dec.values[1:], dec.method)


def singular_values(M: np.ndarray, options: RankOptions) -> list:
    """Singular values of a 2-D array by numpy (float64) or mpmath.svd_r (call inside
    options.context())."""
    M = np.asarray(M)
    if M.size == 0:
        return []
    if options.is_float:
        return list(np.linalg.svd(M.astype(np.complex128 if np.iscomplexobj(M) else np.float64),
                                  compute_uv=False))
    mat = mpmath.matrix(M.tolist())
    if M.shape[0] < M.shape[1]:
        mat = mat.T
    return list(mpmath.svd(mat, compute_uv=False))


def equilibrate(J: np.ndarray) -> np.ndarray:
    """Scale rows, then columns, to unit 2-norm (zero rows/columns untouched); rank-preserving.

    Works on float/complex arrays and on object arrays of mpmath numbers.
    """
    def scale(M: np.ndarray, axis: int) -> np.ndarray:
        if M.dtype == object:
            sq = np.frompyfunc(lambda x: abs(x) ** 2, 1, 1)(M).sum(axis=axis, keepdims=True)
            norms = np.frompyfunc(lambda x: mpmath.sqrt(x) if x != 0 else mpmath.mpf(1), 1, 1)(sq)
        else:
            norms = np.linalg.norm(M, axis=axis, keepdims=True)
            norms[norms == 0] = 1
        return M / norms
    return scale(scale(J, 1), 0)


def numerical_rank(J: np.ndarray, options: RankOptions, equilibrated: bool = True,
                   quantity: str = "rank") -> Decision:
    """Rank of J (m, n) by the rule of this module, in float64 or mpmath (options.digits).

    Parameters
    ----------
    J : ndarray (m, n)
        float/complex, or an object array of mpmath numbers for mpmath digits. mpmath costs
        m·n² in pure Python: use it for up to a few hundred columns.
    options : RankOptions
    equilibrated : bool
        Scale rows and columns to unit norm first (rank-preserving; module docstring).

    Returns
    -------
    Decision

    Raises
    ------
    ValueError
        J is not 2-D or contains NaN or infinite entries.

    Examples
    --------
    >>> J = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 1e-6]])
    >>> numerical_rank(J, RankOptions(None, rounded_input=False)).candidates
    (2,)
    """
    J = _check_matrix(J)
    with options.context():
        if options.is_float:
            J = J.astype(np.complex128 if np.iscomplexobj(J) else np.float64)
        return threshold_rank(quantity, singular_values(equilibrate(J) if equilibrated else J,
                                                        options), options, J.shape)


def rank_mod_p(J: np.ndarray, p: int) -> Decision:
    """Exact rank over F_p of an integer matrix J (m, n) (entries reduced mod p), python-flint.

    It never exceeds the rank over Q of any integer lift of J: a certified lower bound.

    Examples
    --------
    >>> rank_mod_p(np.array([[1, 0], [0, 7]]), 7).rank     # rank 2 over Q: never over-counts
    1
    """
    J = np.asarray(J)
    if J.ndim != 2 or not np.issubdtype(J.dtype, np.integer):
        raise ValueError(f"exact rank needs a 2-D integer matrix, got {J.dtype} {J.shape}")
    m, n = J.shape
    r = 0 if m == 0 or n == 0 else flint.nmod_mat(m, n, np.remainder(J, p).ravel().tolist(),
                                                   p).rank()
    return Decision("rank", r, (r,), math.inf, None, (), "exact", p, (m, n))


def _check_matrix(J: np.ndarray) -> np.ndarray:
    J = np.asarray(J)
    if J.ndim != 2:
        raise ValueError(f"rank needs a 2-D matrix, got shape {J.shape}")
    if J.dtype != object and not np.all(np.isfinite(J)):
        raise ValueError("matrix contains NaN or infinite entries")
    return J
