"""Rank of a matrix three ways: float64 SVD, mpmath SVD, exact over a prime field.

Numerical rank uses the largest-gap rule: singular values are normalized by the largest, clipped
from below at a noise floor (eps · max(m, n) for float64, 10^(-dps) · max(m, n) for mpmath), and
the rank is the position of the largest ratio σ_i / σ_{i+1} (with σ_{n+1} = floor, so a matrix
of full rank has its gap at the end). The decision is stated with its margin: `gap` is that
largest ratio, and the rank is `decided` only when gap ≥ `min_gap` and no other ratio reaches
`min_gap` (two large gaps, e.g. σ = (1, 1e-30) over a 1e-50 floor, mean the rank depends on where
the cut is made); otherwise it is reported as undecided, never guessed. Before the SVD the matrix is equilibrated (rows, then columns, scaled to
unit norm), which leaves the rank unchanged but removes the spread of scales that deep networks
produce (|φ(X)| grows like |X|^(3^l)): without it float64 under-counts at depth 3 (paper-notes §6).
The exact rank over F_p of an integer matrix is a certified lower bound
of its rank over Q (paper-notes §6).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import flint
import mpmath
import numpy as np

FLOAT_MIN_GAP = 1e4


def mp_min_gap(dps: int) -> float:
    """Default decision threshold at `dps` digits: a gap of 10^(dps/5) (1e10 at 50 digits)."""
    return 10.0 ** (dps / 5)


@dataclass(frozen=True)
class RankResult:
    """A rank with the evidence behind it.

    Attributes:
        rank: the rank (for numerical methods: position of the largest singular-value gap).
        method: 'float64', 'mp' or 'exact'.
        decided: False when the margin is too small to trust the numerical rank.
        gap: σ_rank / σ_{rank+1} after clipping at the noise floor (None for exact).
        second_gap: the next-largest ratio, to show the largest one stands out.
        min_gap: the threshold `gap` had to reach.
        log10_singular_values: normalized singular values (log10, descending), or None.
        prime: the prime of an exact rank.
        dps: decimal digits of an mp rank.
        shape: (rows, cols) of the matrix.
    """

    rank: int
    method: str
    decided: bool
    shape: tuple[int, int]
    gap: float | None = None
    second_gap: float | None = None
    min_gap: float | None = None
    log10_singular_values: tuple[float, ...] | None = field(default=None, repr=False)
    prime: int | None = None
    dps: int | None = None

    def to_json(self) -> dict:
        d = {k: getattr(self, k) for k in ("rank", "method", "decided", "gap", "second_gap",
                                            "min_gap", "prime", "dps")}
        d["shape"] = list(self.shape)
        return d


def gap_rank(sigma: list, floor: float, min_gap: float, method: str, shape, dps=None) -> RankResult:
    """Largest-gap rule on descending singular values `sigma` (floats or mpf)."""
    n = len(sigma)
    if n == 0 or sigma[0] == 0:
        return RankResult(0, method, n == 0 or all(s == 0 for s in sigma), tuple(shape),
                          min_gap=min_gap, dps=dps)
    s = [max(mpmath.mpf(x) / sigma[0], floor) for x in sigma] + [mpmath.mpf(floor)]
    ratios = [s[i] / s[i + 1] for i in range(n)]
    order = sorted(range(n), key=lambda i: ratios[i], reverse=True)
    best = order[0]
    gap = float(ratios[best])
    second = float(ratios[order[1]]) if n > 1 else 1.0
    logs = tuple(float(mpmath.log10(x)) for x in s[:n])
    decided = gap >= min_gap and second < min_gap
    return RankResult(best + 1, method, decided, tuple(shape), gap, second, min_gap, logs, dps=dps)


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


def rank_float(J: np.ndarray, min_gap: float = FLOAT_MIN_GAP,
               equilibrated: bool = True) -> RankResult:
    """float64 SVD rank of J (m, n) by the largest-gap rule (see module docstring).

    Args:
        equilibrated: scale rows and columns first (rank-preserving; see module docstring).
    Raises:
        ValueError: J is not 2-D or contains NaN/inf.
    """
    J = _check_matrix(J)
    J = J.astype(np.complex128 if np.iscomplexobj(J) else np.float64)
    sigma = np.linalg.svd(equilibrate(J) if equilibrated else J, compute_uv=False)
    floor = np.finfo(np.float64).eps * max(J.shape)
    return gap_rank([float(x) for x in sigma], floor, min_gap, "float64", J.shape)


def rank_mp(J: np.ndarray, dps: int, min_gap: float | None = None) -> RankResult:
    """mpmath SVD rank of J (m, n; object array of mp numbers) at `dps` digits, largest-gap rule.

    Cost grows as m·n² in pure Python: use it for Jacobians up to a few hundred columns.
    """
    J = _check_matrix(J)
    min_gap = mp_min_gap(dps) if min_gap is None else min_gap
    with mpmath.workdps(dps):
        M = mpmath.matrix(equilibrate(J).tolist())
        if J.shape[0] < J.shape[1]:
            M = M.T
        sigma = sorted(mpmath.svd(M, compute_uv=False), reverse=True)
        floor = mpmath.mpf(10) ** (-dps) * max(J.shape)
        return gap_rank(list(sigma), floor, min_gap, "mp", J.shape, dps=dps)


def rank_mod_p(J: np.ndarray, p: int) -> RankResult:
    """Exact rank over F_p of an integer matrix J (m, n) (entries reduced mod p), python-flint.

    It never exceeds the rank over Q of any integer lift of J: a certified lower bound.
    """
    J = np.asarray(J)
    if J.ndim != 2 or not np.issubdtype(J.dtype, np.integer):
        raise ValueError(f"exact rank needs a 2-D integer matrix, got {J.dtype} {J.shape}")
    m, n = J.shape
    if m == 0 or n == 0:
        return RankResult(0, "exact", True, (m, n), prime=p)
    M = flint.nmod_mat(m, n, np.remainder(J, p).ravel().tolist(), p)
    return RankResult(M.rank(), "exact", True, (m, n), prime=p)


def _check_matrix(J: np.ndarray) -> np.ndarray:
    J = np.asarray(J)
    if J.ndim != 2:
        raise ValueError(f"rank needs a 2-D matrix, got shape {J.shape}")
    if J.dtype != object and not np.all(np.isfinite(J)):
        raise ValueError("matrix contains NaN or infinite entries")
    return J
