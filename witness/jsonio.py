"""Complex numbers, vectors and point arrays as JSON: one format everywhere.

A complex number is written ``[re, im]`` (two JSON floats); a point (n,) is a list of n such
pairs; an array of points (p, n) a list of p points. Reading also accepts a JSON number, an
exact string (``"-3/7"``, ``"1.5e-3"``, ``"2+3i"`` is NOT accepted: write ``[2, 3]``) or
``[re, im]`` with either part a number or such a string.

Readers for inputs of the CLI (``certify``, and the lead's ``monodromy`` / ``track``):
``point_from_json`` / ``points_from_json`` (a point as a list of numbers, an object by
variable name, or a ``solve --json`` entry {"point": ...}), ``parameters_from_json`` (an object
{"p": value}; exact strings and ints stay exact: ``value_from_json``). Errors are ValueErrors
naming the entry at fault.
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
        return _in_double_range(Fraction(v), v, where)
    if isinstance(v, float):
        if not np.isfinite(v):
            raise ValueError(f"{where}: {v!r} is not finite")
        return v
    if isinstance(v, str):
        try:
            x = Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where}: {v!r} is not a number (use a JSON number, an exact "
                             f"string such as \"-3/7\" or \"1.5e-3\", or [re, im])") from None
        return _in_double_range(x, v, where)
    raise ValueError(f"{where}: {v!r} is not a number")


def _in_double_range(x: Fraction, given: Any, where: str) -> Fraction:
    """x, or ValueError when its modulus is outside [1e-300, 1e300] (0 allowed): the engine
    tracks in double precision, where 1e400 overflows and 1e-400 is 0."""
    if x and not Fraction(1, 10 ** 300) <= abs(x) <= 10 ** 300:
        raise ValueError(f"{where}: {given!r} is outside the double-precision range "
                         f"1e-300..1e300 (in modulus) the engine computes in")
    return x


def complex_from_json(v: Any, where: str = "value") -> complex:
    """Read one complex number (see the module docstring). Raises ValueError naming ``where``."""
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ValueError(f"{where}: a complex number is [re, im], got {len(v)} entries")
        return complex(float(_real_from_json(v[0], where)), float(_real_from_json(v[1], where)))
    return complex(float(_real_from_json(v, where)))


def value_from_json(v: Any, where: str = "value") -> Fraction | float | complex:
    """One number, kept exact where it is written exactly: an int or exact string gives a
    Fraction, a JSON float a float, ``[re, im]`` a complex (a Fraction when both parts are exact
    and ``im`` is 0). For parameter values, whose exactness carries into the coefficients."""
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ValueError(f"{where}: a complex number is [re, im], got {len(v)} entries")
        re_, im = (_real_from_json(u, where) for u in v)
        if isinstance(re_, Fraction) and isinstance(im, Fraction) and im == 0:
            return re_
        return complex(float(re_), float(im))
    return _real_from_json(v, where)


def parameters_from_json(obj: Any, names, where: str = "parameters") -> dict:
    """Parameter values ``{"p": value, ...}`` (``value_from_json``) for exactly the parameters
    ``names``. Raises ValueError naming a missing or unknown parameter or a bad value."""
    names = list(names)
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: expected an object {{\"name\": value, ...}}, got "
                         f"{type(obj).__name__}")
    _check_names(obj, names, "parameter", where)
    return {k: value_from_json(obj[k], f"{where}.{k}") for k in names}


def _check_names(obj: dict, names: list, kind: str, where: str) -> None:
    """Every key of ``obj`` is one of ``names`` and every name is a key."""
    unknown = [k for k in obj if k not in names]
    if unknown:
        raise ValueError(f"{where}: {unknown[0]!r} is not a {kind} of the system "
                         f"({kind}s: {', '.join(names) or 'none'})")
    missing = [k for k in names if k not in obj]
    if missing:
        raise ValueError(f"{where}: no value for the {kind}(s) {', '.join(missing)}")


def point_from_json(v: Any, variables, where: str = "point") -> np.ndarray:
    """One point as complex128 (n,) in the order of ``variables``, from a list of n numbers
    (``complex_from_json``), an object ``{"x": value, ...}`` naming every variable, or an object
    with key ``"point"`` holding either (the entries of ``solve --json``)."""
    variables = list(variables)
    n = len(variables)
    if isinstance(v, dict) and "point" in v:
        v = v["point"]
    if isinstance(v, dict):
        _check_names(v, variables, "variable", where)
        return np.array([complex_from_json(v[k], f"{where}.{k}") for k in variables])
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{where}: a point is a list of {n} numbers or an object by variable "
                         f"name, got {type(v).__name__}")
    if len(v) != n:
        raise ValueError(f"{where}: {len(v)} coordinates for {n} variables "
                         f"({', '.join(variables)})")
    return np.array([complex_from_json(z, f"{where}[{k}]") for k, z in enumerate(v)])


def points_from_json(items: Any, variables, where: str = "solutions",
                     order=None) -> np.ndarray:
    """Points (p, n) complex128 from a list of points (``point_from_json``). ``order``: the
    variable names the list-form points are written in (e.g. the ``"variables"`` of a
    ``solve --json`` output), when it differs from ``variables``; they must be the same names.
    Raises ValueError naming the entry at fault."""
    variables = list(variables)
    if not isinstance(items, list):
        raise ValueError(f"{where}: expected a list of points, got {type(items).__name__}")
    written = variables if order is None else list(order)
    if sorted(written) != sorted(variables):
        raise ValueError(f"{where}: the points are written in the variables "
                         f"{', '.join(written)}, the system has {', '.join(variables)}")
    perm = [written.index(v) for v in variables]
    X = np.zeros((len(items), len(variables)), dtype=complex)
    for k, v in enumerate(items):
        X[k] = point_from_json(v, written, f"{where}[{k}]")[perm]
    return X
