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

import enum
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .architecture import Architecture, LayerWeights


def parse_number(value: Any, where: str) -> Fraction:
    """A JSON number or exact string -> Fraction.

    Raises
    ------
    ValueError
        not a number, NaN or infinite (names `where`).
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

    Raises
    ------
    ValueError
        ragged or empty rows, non-numbers, or a shape other than `shape`.
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


WEIGHTS_KEYS = {"widths", "ranks", "tokens", "kind", "layers"}


def weights_from_json(obj: dict, where: str = "weights") -> tuple[Architecture, list[LayerWeights]]:
    """Parse a weights object (format in the module docstring).

    Returns
    -------
    (architecture, layers) with Fraction object arrays Q (a, d), K (a, d), V (d', d).

    Raises
    ------
    ValueError
        a missing key, a wrong number of layers, or a matrix whose shape does not
        match the widths and ranks (named by layer and letter).
    """
    arch = architecture_from_json(obj, where)
    unknown = sorted(set(obj) - WEIGHTS_KEYS)
    if unknown:              # a misspelt key ("token", "layer") would be silently ignored
        raise ValueError(f"{where}: unknown key(s) {unknown}; a weights file has "
                         f"{sorted(WEIGHTS_KEYS)}")
    layers = obj.get("layers")
    if not isinstance(layers, list) or len(layers) != arch.depth:
        raise ValueError(f"{where}: 'layers' must list {arch.depth} layer(s) for widths "
                         f"{list(arch.widths)}, got {len(layers) if isinstance(layers, list) else layers!r}")
    out = []
    for i, (layer, shapes) in enumerate(zip(layers, arch.layer_shapes()), start=1):
        if not isinstance(layer, dict) or set(layer) != set("QKV"):
            raise ValueError(f"{where}: layer {i} must have exactly the keys Q, K, V"
                             + (f" (got {sorted(layer)})" if isinstance(layer, dict) else ""))
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


def strict_json(obj: Any) -> Any:
    """obj with non-finite floats (not valid JSON) replaced by the strings "inf", "-inf",
    "nan", recursively through dicts, lists and tuples: the JSON every result is printed and
    stored as."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if obj != obj else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict_json(v) for v in obj]
    return obj


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


# --- single-layer points for `numag classify`: (Q, K, V), (A, V) or an ambient tensor T ----------
#   {"widths": [d, d'], "ranks": [a], "layers": [{"Q": .., "K": .., "V": ..}]}   (weights format)
#   {"widths": [d, d'], "ranks": [a], "A": [[..]] (d×d), "V": [[..]] (d'×d)}
#   {"widths": [d, d'], "ranks": [a], "tensor": T}  with T[r][b][c][e] (d'×d×d×d), symmetric in b, c
# Numbers as in the weights format (exact strings allowed). "tokens" must be >= 2 if given.

class PointFormat(enum.StrEnum):
    """How a single-layer point is given."""

    WEIGHTS = "weights"        # (Q, K, V)
    AV = "AV"                  # (A, V)
    TENSOR = "tensor"          # the ambient tensor T


class SingleLayerPoint(NamedTuple):
    """A parsed point: kind WEIGHTS (Q, K, V), AV (A, V) or TENSOR (T); Fraction arrays."""

    kind: PointFormat
    shape: tuple[int, int, int]
    arrays: dict


def parse_tensor(value: Any, where: str, shape: tuple[int, ...]) -> np.ndarray:
    """Nested lists of the given shape -> object array of Fractions.

    Raises
    ------
    ValueError
        wrong nesting depth or length (names the index path), non-numbers.
    """
    out = np.empty(shape, dtype=object)

    def fill(v, idx):
        depth = len(idx)
        if depth == len(shape):
            out[idx] = parse_number(v, f"{where}{''.join(f'[{i}]' for i in idx)}")
            return
        if not isinstance(v, list) or len(v) != shape[depth]:
            got = f"a list of length {len(v)}" if isinstance(v, list) else type(v).__name__
            raise ValueError(f"{where}{''.join(f'[{i}]' for i in idx)}: expected a list of length "
                             f"{shape[depth]} (tensor shape {tuple(shape)}), got {got}")
        for i, x in enumerate(v):
            fill(x, idx + (i,))
    fill(value, ())
    return out


def single_layer_point_from_json(obj: Any, where: str = "point") -> SingleLayerPoint:
    """Parse one point for classification (formats above).

    Raises
    ------
    ValueError
        not an object, not a single lightning layer, t = 1, none or several of
        'layers' / 'A' / 'tensor', or any shape/number problem (named).
    """
    arch = architecture_from_json(obj, where)
    if arch.depth != 1:
        raise ValueError(f"{where}: classification is for a single layer, got widths "
                         f"{list(arch.widths)}")
    if arch.kind != "lightning":
        raise ValueError(f"{where}: classification is for lightning attention, got {arch.kind!r}")
    if arch.tokens < 2:
        raise ValueError(f"{where}: t = 1 is degenerate (only the symmetric part of A is seen); "
                         "the classes of paper-notes §2 need t >= 2")
    d, d_out, a = arch.widths[0], arch.widths[1], arch.ranks[0]
    kinds = [k for k in ("layers", "A", "tensor") if k in obj]
    if len(kinds) != 1:
        raise ValueError(f"{where}: give exactly one of 'layers' (Q, K, V), 'A' with 'V', or "
                         f"'tensor'; got {kinds or 'none'}")
    if kinds[0] == "layers":
        _, (layer,) = weights_from_json(obj, where)
        return SingleLayerPoint(PointFormat.WEIGHTS, (d, d_out, a), dict(zip("QKV", layer)))
    if kinds[0] == "A":
        if "V" not in obj:
            raise ValueError(f"{where}: 'A' needs 'V' beside it")
        return SingleLayerPoint(PointFormat.AV, (d, d_out, a), {
            "A": parse_matrix(obj["A"], f"{where} A", (d, d)),
            "V": parse_matrix(obj["V"], f"{where} V", (d_out, d))})
    return SingleLayerPoint(PointFormat.TENSOR, (d, d_out, a),
                            {"T": parse_tensor(obj["tensor"], f"{where} tensor", (d_out, d, d, d))})


@dataclass(frozen=True)
class BadLine:
    """A batch line that is not JSON (``load_points(..., keep_bad_lines=True)``): the caller
    reports it as a per-line error, like a bad point, and goes on."""

    message: str


def load_points(path: str | Path, batch: bool | None = None,
                keep_bad_lines: bool = False) -> list[tuple[str, Any]]:
    """Read one JSON object, or JSON lines (one object per non-empty line) when `batch` is True,
    the file ends in .jsonl, or the text holds several JSON documents.

    Returns
    -------
    [(where, object)], where = "FILE" or "FILE:LINE"; with keep_bad_lines, a line that is
        not JSON gives (where, BadLine) instead of an error.

    Raises
    ------
    ValueError
        missing or non-UTF-8 file, malformed JSON (with the line number), an empty
        file.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if batch is None:
        batch = path.suffix == ".jsonl"
        if not batch:
            try:
                return [(str(path), json.loads(text))]
            except json.JSONDecodeError as exc:
                if "Extra data" not in str(exc):
                    raise ValueError(f"{path}: not valid JSON ({exc})") from None
                batch = True
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append((f"{path}:{n}", json.loads(line)))
            except json.JSONDecodeError as exc:
                if not keep_bad_lines:
                    raise ValueError(f"{path}:{n}: not valid JSON ({exc})") from None
                out.append((f"{path}:{n}", BadLine(f"not valid JSON ({exc})")))
    if not out:
        raise ValueError(f"{path}: no points (empty file)")
    return out


def single_layer_point_to_json(point: SingleLayerPoint, tokens: int = 2) -> dict:
    """Inverse of single_layer_point_from_json (exact values as strings)."""
    d, d_out, a = point.shape

    def conv(x):
        return [conv(y) for y in x] if isinstance(x, (list, np.ndarray)) else number_to_json(x)
    head = {"widths": [d, d_out], "ranks": [a], "tokens": tokens}
    if point.kind is PointFormat.WEIGHTS:
        return {**head, "layers": [{k: conv(np.asarray(point.arrays[k], dtype=object))
                                    for k in "QKV"}]}
    return {**head, **{("tensor" if k == "T" else k): conv(np.asarray(v, dtype=object))
                       for k, v in point.arrays.items()}}
