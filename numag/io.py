"""JSON formats for architectures and weights.

Weights file:
    {"widths": [d_0, ..., d_l], "ranks": [a_1, ..., a_l], "tokens": t (optional, default 2),
     "kind": "lightning"|"softmax" (optional),
     "layers": [{"Q": [[...]], "K": [[...]], "V": [[...]]}, ...]}
Numbers are JSON numbers or exact strings: "-3/7", "2", or decimals with any number of digits
("0.12345678901234567890123"). Everything is read EXACTLY into fractions.Fraction (a JSON float
becomes the exact value of that binary double), so no precision is lost before the arithmetic
chosen by the caller (float64, mpmath, F_p) sees it.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from .architecture import Architecture, LayerWeights


def parse_number(value: Any, where: str) -> Fraction:
    """A JSON number or exact string -> Fraction.

    Raises:
        ValueError: not a number, NaN or infinite (names `where`).
    """
    if isinstance(value, bool):
        raise ValueError(f"{where}: expected a number, got {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value} is not a finite number")
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where}: {value!r} is not a number (use e.g. 3, -2.5, \"-3/7\")") \
                from None
    raise ValueError(f"{where}: expected a number, got {type(value).__name__} {value!r}")


def parse_matrix(value: Any, where: str, shape: tuple[int, int] | None = None) -> np.ndarray:
    """A list of equal-length rows -> object array of Fractions (checked against `shape`).

    Raises:
        ValueError: ragged or empty rows, non-numbers, or a shape other than `shape`.
    """
    if not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
        raise ValueError(f"{where}: expected a non-empty list of rows (a matrix)")
    lengths = {len(r) for r in value}
    if len(lengths) != 1 or 0 in lengths:
        raise ValueError(f"{where}: rows have different or zero lengths {sorted(lengths)}")
    m = np.empty((len(value), len(value[0])), dtype=object)
    for i, row in enumerate(value):
        for j, x in enumerate(row):
            m[i, j] = parse_number(x, f"{where}[{i}][{j}]")
    if shape is not None and m.shape != tuple(shape):
        raise ValueError(f"{where}: shape {m.shape} does not match the architecture, "
                         f"which needs {tuple(shape)}")
    return m


def architecture_from_json(obj: dict, where: str = "weights") -> Architecture:
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: expected a JSON object")
    missing = [k for k in ("widths", "ranks") if k not in obj]
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")
    return Architecture(tuple(obj["widths"]), tuple(obj["ranks"]), obj.get("tokens", 2),
                        obj.get("kind", "lightning"))


def weights_from_json(obj: dict, where: str = "weights") -> tuple[Architecture, list[LayerWeights]]:
    """Parse a weights object (format in the module docstring).

    Returns:
        (architecture, layers) with Fraction object arrays Q (a, d), K (a, d), V (d', d).
    Raises:
        ValueError: a missing key, a wrong number of layers, or a matrix whose shape does not
            match the widths and ranks (named by layer and letter).
    """
    arch = architecture_from_json(obj, where)
    layers = obj.get("layers")
    if not isinstance(layers, list) or len(layers) != arch.depth:
        raise ValueError(f"{where}: 'layers' must list {arch.depth} layer(s) for widths "
                         f"{list(arch.widths)}, got {len(layers) if isinstance(layers, list) else layers!r}")
    out = []
    for i, (layer, shapes) in enumerate(zip(layers, arch.layer_shapes()), start=1):
        if not isinstance(layer, dict) or set("QKV") - set(layer):
            raise ValueError(f"{where}: layer {i} must have keys Q, K, V")
        out.append(LayerWeights(*(parse_matrix(layer[n], f"layer {i} {n}", s)
                                  for n, s in zip("QKV", shapes))))
    return arch, out


def load_json(path: str | Path) -> Any:
    """Read a JSON file with a clear error for a missing file or malformed JSON."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None


def load_weights(path: str | Path) -> tuple[Architecture, list[LayerWeights]]:
    """Read a weights file (see module docstring)."""
    return weights_from_json(load_json(path), str(path))


def number_to_json(x: Any) -> Any:
    """Fraction -> exact string ("-3/7"), integers stay integers, floats stay floats."""
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else str(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return x


def weights_to_json(arch: Architecture, layers: list[LayerWeights]) -> dict:
    """Inverse of weights_from_json (exact values as strings)."""
    def mat(m):
        return [[number_to_json(x) for x in row] for row in np.asarray(m, dtype=object)]
    return {**arch.to_json(),
            "layers": [{n: mat(m) for n, m in zip("QKV", layer)} for layer in layers]}
