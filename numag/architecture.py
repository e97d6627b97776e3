"""Architectures of (deep) self-attention networks and the packing of their weights.

Conventions (paper-notes §1, HMK): layer i has Q_i, K_i ∈ R^{a_i × d_{i-1}} and
V_i ∈ R^{d_i × d_{i-1}}; the attention matrix is A_i = K_iᵀ Q_i. A single layer is l = 1 with
(d, d', a) = (d_0, d_1, a_1). A weight vector lists the layers in order, each as Q, K, V flattened
row-major.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

KINDS = ("lightning", "softmax")


class LayerWeights(NamedTuple):
    """Weights of one layer: Q (a, d_in), K (a, d_in), V (d_out, d_in); any numpy dtype."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray


def _positive_ints(name: str, values: Sequence) -> tuple[int, ...]:
    try:
        values = tuple(values)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of positive integers, got {values!r}") from None
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise ValueError(f"{name} must be positive integers, got {v!r} in {list(values)}")
        if v <= 0:
            raise ValueError(f"{name} must be positive integers, got {int(v)} in {list(values)}")
        out.append(int(v))
    return tuple(out)


@dataclass(frozen=True)
class Architecture:
    """A lightning or softmax self-attention network.

    Attributes:
        widths: (d_0, ..., d_l), l >= 1; d_0 is the token dimension, d_l the output dimension.
        ranks: (a_1, ..., a_l), the attention ranks (head dimensions).
        tokens: t >= 1, the number of tokens per input. t = 1 is allowed but degenerate (only the
            symmetric part of A is seen; paper-notes §1) and flagged by `degenerate`.
        kind: 'lightning' (no normalization) or 'softmax'.

    Raises:
        ValueError: a non-integer or non-positive size, len(ranks) != len(widths) - 1, fewer than
            two widths, or an unknown kind.
    """

    widths: tuple[int, ...]
    ranks: tuple[int, ...]
    tokens: int = 2
    kind: str = "lightning"

    def __post_init__(self) -> None:
        widths = _positive_ints("widths", self.widths)
        ranks = _positive_ints("ranks", self.ranks)
        (tokens,) = _positive_ints("tokens", (self.tokens,))
        if len(widths) < 2:
            raise ValueError(f"widths must list at least d_0 and d_1, got {list(widths)}")
        if len(ranks) != len(widths) - 1:
            raise ValueError(
                f"{len(widths) - 1} layer(s) from widths {list(widths)} need as many ranks, "
                f"got {len(ranks)}: {list(ranks)}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        object.__setattr__(self, "widths", widths)
        object.__setattr__(self, "ranks", ranks)
        object.__setattr__(self, "tokens", tokens)

    @classmethod
    def single(cls, d: int, d_out: int, a: int, tokens: int = 2,
               kind: str = "lightning") -> "Architecture":
        """The single layer (d, d', a) of HMK."""
        return cls((d, d_out), (a,), tokens, kind)

    @classmethod
    def parse(cls, spec: str, tokens: int = 2, kind: str = "lightning") -> "Architecture":
        """Parse 'd_0,...,d_l:a_1,...,a_l', e.g. '3,2,3:2,2'.

        Raises:
            ValueError: malformed spec (names the offending part).
        """
        if not isinstance(spec, str) or spec.count(":") != 1:
            raise ValueError(f"architecture spec must look like '3,2,3:2,2' (widths:ranks), "
                             f"got {spec!r}")
        w, r = spec.split(":")
        return cls(_parse_int_list(w, "widths"), _parse_int_list(r, "ranks"), tokens, kind)

    # --- sizes -----------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """Number of layers l."""
        return len(self.ranks)

    @property
    def degenerate(self) -> bool:
        """True for t = 1 (paper-notes §1: the formulas for t >= 2 do not apply)."""
        return self.tokens == 1

    @property
    def is_single_layer(self) -> bool:
        return self.depth == 1

    def layer_shapes(self) -> list[tuple[tuple[int, int], tuple[int, int], tuple[int, int]]]:
        """Shapes of (Q_i, K_i, V_i) for each layer."""
        return [((a, d_in), (a, d_in), (d_out, d_in))
                for a, d_in, d_out in zip(self.ranks, self.widths[:-1], self.widths[1:])]

    @property
    def n_params(self) -> int:
        """#params = Σ_i (2 a_i d_{i-1} + d_i d_{i-1}) (paper-notes §1)."""
        return sum(2 * a * d_in + d_out * d_in
                   for a, d_in, d_out in zip(self.ranks, self.widths[:-1], self.widths[1:]))

    def layer_offsets(self) -> list[int]:
        """Start index of each layer's block in the packed weight vector (plus the total)."""
        offs = [0]
        for (q, k, v) in self.layer_shapes():
            offs.append(offs[-1] + q[0] * q[1] + k[0] * k[1] + v[0] * v[1])
        return offs

    # --- packing ---------------------------------------------------------------------------
    def unpack(self, vector: np.ndarray) -> list[LayerWeights]:
        """Split a flat weight vector (n_params,) into per-layer (Q, K, V); keeps the dtype.

        Raises:
            ValueError: wrong length.
        """
        vector = np.asarray(vector)
        if vector.shape != (self.n_params,):
            raise ValueError(f"weight vector must have shape ({self.n_params},) for {self}, "
                             f"got {vector.shape}")
        layers, pos = [], 0
        for shapes in self.layer_shapes():
            mats = []
            for (r, c) in shapes:
                mats.append(vector[pos:pos + r * c].reshape(r, c))
                pos += r * c
            layers.append(LayerWeights(*mats))
        return layers

    def pack(self, layers: Sequence[Sequence[np.ndarray]]) -> np.ndarray:
        """Inverse of `unpack`.

        Raises:
            ValueError: wrong number of layers or a matrix of the wrong shape (named).
        """
        if len(layers) != self.depth:
            raise ValueError(f"{self} has {self.depth} layer(s), got weights for {len(layers)}")
        parts = []
        for i, (layer, shapes) in enumerate(zip(layers, self.layer_shapes()), start=1):
            for name, mat, shape in zip("QKV", layer, shapes):
                mat = np.asarray(mat)
                if mat.shape != shape:
                    raise ValueError(f"layer {i}: {name} must have shape {shape}, got {mat.shape}")
                parts.append(mat.reshape(-1))
        return np.concatenate(parts)

    def spec(self) -> str:
        """The 'widths:ranks' string, e.g. '3,2,3:2,2'."""
        return ",".join(map(str, self.widths)) + ":" + ",".join(map(str, self.ranks))

    def to_json(self) -> dict:
        return {"widths": list(self.widths), "ranks": list(self.ranks), "tokens": self.tokens,
                "kind": self.kind}

    def __str__(self) -> str:
        return f"{self.kind} {self.spec()} (t={self.tokens})"


def _parse_int_list(text: str, name: str) -> list[int]:
    parts = [p.strip() for p in text.split(",")]
    out = []
    for p in parts:
        if not p:
            raise ValueError(f"{name}: empty entry in {text!r}")
        try:
            out.append(int(p))
        except ValueError:
            raise ValueError(f"{name}: {p!r} is not an integer (in {text!r})") from None
    return out
