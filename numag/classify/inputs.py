"""Validation of the matrices, tensors and shapes given to the classifier."""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

_REAL_TYPES = (int, float, np.integer, np.floating, Fraction, mpmath.mpf)


def check_matrix(m: Any, name: str) -> np.ndarray:
    """m as a non-empty 2-D array of finite reals (see check_array).

    Raises
    ------
    ValueError
        not 2-D, empty, or an entry that is not a finite real number.
    """
    m = np.asarray(m)
    if m.ndim != 2 or 0 in m.shape:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {m.shape}")
    return check_array(m, name)


def check_array(m: np.ndarray, name: str) -> np.ndarray:
    """m unchanged if every entry is a finite real: a real numpy dtype, or an object array of
    ints, floats, Fractions or mpf (bools and complex numbers refused).

    Raises
    ------
    ValueError
        naming the first offending entry or the dtype.
    """
    if m.dtype == object:
        for v in m.flat:
            if isinstance(v, bool) or not isinstance(v, _REAL_TYPES):
                raise ValueError(f"{name}: {v!r} is not a real number")
            if isinstance(v, (float, mpmath.mpf)) and not mpmath.isfinite(v):
                raise ValueError(f"{name}: {v} is not a finite number")
        return m
    if not np.issubdtype(m.dtype, np.number) or np.iscomplexobj(m):
        raise ValueError(f"{name}: expected real numbers, got dtype {m.dtype}")
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    return m


def exact_rationals(m: np.ndarray) -> np.ndarray:
    """m with every float and mpf entry replaced by the Fraction it represents exactly (ints and
    Fractions kept), so that products of such arrays are exact: a float64 product K.T @ Q is
    rounded, and its rounding can raise the rank of A = KᵀQ (rank 1 read as rank 3).
    """
    m = np.asarray(m)
    if m.dtype != object and not np.issubdtype(m.dtype, np.floating):
        return m

    def exact(v):
        if isinstance(v, (float, np.floating)):
            return Fraction(float(v))
        if isinstance(v, mpmath.mpf):
            return Fraction(*v.as_integer_ratio())
        return v
    return np.vectorize(exact, otypes=[object])(m)


def check_a(a: Any) -> None:
    """Raises ValueError unless a is a positive integer (bools refused)."""
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or a < 1:
        raise ValueError(f"a must be a positive integer, got {a!r}")


def check_shape(shape: tuple[int, int, int]) -> None:
    """Raises ValueError for d < 2, where the rules of paper-notes §2 do not apply."""
    if shape[0] < 2:
        raise ValueError(f"d = {shape[0]}: the classification of paper-notes §2 needs d >= 2")
