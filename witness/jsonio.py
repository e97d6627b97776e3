"""Complex numbers, vectors and point arrays as JSON: one format everywhere.

A complex number is written ``[re, im]`` (two JSON floats); a point (n,) is a list of n such
pairs; an array of points (p, n) a list of p points. Reading also accepts a JSON number, an
exact string (``"-3/7"``, ``"1.5e-3"``, ``"2+3i"`` is NOT accepted: write ``[2, 3]``) or
``[re, im]`` with either part a number or such a string.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np


def complex_to_json(z: complex) -> list[float]:
    """``[re, im]`` of one complex number (floats)."""
    z = complex(z)
    return [float(z.real), float(z.imag)]


def vector_to_json(x) -> list[list[float]]:
    """A complex vector (n,) as a list of ``[re, im]`` pairs."""
    return [complex_to_json(z) for z in np.asarray(x, complex).reshape(-1)]


def points_to_json(X) -> list[list[list[float]]]:
    """Points (p, n) (or one point (n,)) as a list of p lists of ``[re, im]`` pairs."""
    X = np.asarray(X, complex)
    if X.ndim == 1:
        X = X[None, :]
    return [vector_to_json(x) for x in X]


def _real_from_json(v: Any, where: str) -> Fraction | float:
    if isinstance(v, bool) or v is None:
        raise ValueError(f"{where}: {v!r} is not a number")
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, float):
        if not np.isfinite(v):
            raise ValueError(f"{where}: {v!r} is not finite")
        return v
    if isinstance(v, str):
        try:
            return Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where}: {v!r} is not a number (use a JSON number, an exact "
                             f"string such as \"-3/7\" or \"1.5e-3\", or [re, im])") from None
    raise ValueError(f"{where}: {v!r} is not a number")


def complex_from_json(v: Any, where: str = "value") -> complex:
    """Read one complex number (see the module docstring). Raises ValueError naming ``where``."""
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ValueError(f"{where}: a complex number is [re, im], got {len(v)} entries")
        return complex(float(_real_from_json(v[0], where)), float(_real_from_json(v[1], where)))
    return complex(float(_real_from_json(v, where)))
