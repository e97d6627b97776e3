"""Architectures of the networks numag studies, and the packing of their weights.

Three families, one concept (the `kind`):

* attention, 'lightning' or 'softmax' (paper-notes §1, HMK): layer i has Q_i, K_i ∈
  R^{a_i × d_{i-1}} and V_i ∈ R^{d_i × d_{i-1}}; the attention matrix is A_i = K_iᵀ Q_i. A single layer is l = 1
  with (d, d', a) = (d_0, d_1, a_1).
* 'multihead' lightning attention (paper-notes §8): layer i has H heads, head h with its own
  Q_{i,h}, K_{i,h} ∈ R^{a_i × d_{i-1}} and V_{i,h} ∈ R^{d_i × d_{i-1}}; the layer's output is the
  sum of its heads' outputs. H = 1 is lightning attention.
* 'pnn', a polynomial neural network (paper-notes §9; Kileel–Trager–Bruna 2019): widths
  d_0, ..., d_h, layer i a matrix W_i ∈ R^{d_i × d_{i-1}} (and a bias b_i ∈ R^{d_i} when `bias`),
  the activation x ↦ x^r entrywise after every layer but the last. It has no attention ranks
  (ranks = ()) and one "token": an input is a column vector, shape (d_0, 1).

A weight vector lists the layers in order; inside a layer the blocks of `layer_blocks` (Q, K, V
per head, or W then b), each flattened row-major.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

KINDS = ("lightning", "softmax", "multihead", "pnn")
ATTENTION_KINDS = ("lightning", "softmax", "multihead")


class LayerWeights(NamedTuple):
    """Weights of one attention layer (or head): Q (a, d_in), K (a, d_in), V (d_out, d_in)."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray


class PolynomialLayer(NamedTuple):
    """Weights of one layer of a polynomial network: W (d_out, d_in), b (d_out, 1) or None."""

    W: np.ndarray
    b: np.ndarray | None


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
    """A self-attention network (lightning, softmax, multi-head) or a polynomial network.

    Attributes:
        widths: (d_0, ..., d_l), l >= 1; d_0 is the input (token) dimension, d_l the output's.
        ranks: (a_1, ..., a_l), the attention ranks (head dimensions); () for 'pnn'.
        tokens: t >= 1, the number of tokens per input (default 2; always 1 for 'pnn'). For
            attention t = 1 is allowed but degenerate (paper-notes §1) and flagged by
            `degenerate`.
        kind: one of KINDS: 'lightning', 'softmax', 'multihead' (lightning heads summed) or
            'pnn'.
        heads: H >= 1, heads per layer ('multihead' only; 1 otherwise).
        activation_degree: r >= 2, the activation x ↦ x^r ('pnn' only; 2 otherwise unused).
        bias: 'pnn' with biases b_i (default False: homogeneous polynomials).

    Raises:
        ValueError: a non-integer or non-positive size, len(ranks) != len(widths) - 1 (attention)
            or ranks given for 'pnn', fewer than two widths, an unknown kind, heads or a bias or
            an activation degree given to a kind without them, r < 2, or tokens != 1 for 'pnn'.

    Examples:
        >>> Architecture((3, 2, 3), (2, 2)).n_params
        32
        >>> Architecture((2, 3, 1), (), kind="pnn", activation_degree=2).n_params
        9
        >>> Architecture((8, 8), (2,), kind="multihead", heads=4).n_params
        384
    """

    widths: tuple[int, ...]
    ranks: tuple[int, ...] = ()
    tokens: int | None = None
    kind: str = "lightning"
    heads: int = 1
    activation_degree: int = 2
    bias: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        widths = _positive_ints("widths", self.widths)
        ranks = _positive_ints("ranks", self.ranks)
        (heads,) = _positive_ints("heads", (self.heads,))
        (r,) = _positive_ints("activation degree", (self.activation_degree,))
        if len(widths) < 2:
            raise ValueError(f"widths must list at least d_0 and d_1, got {list(widths)}")
        pnn = self.kind == "pnn"
        tokens = self.tokens if self.tokens is not None else (1 if pnn else 2)
        (tokens,) = _positive_ints("tokens", (tokens,))
        if pnn:
            if ranks:
                raise ValueError(f"a polynomial network has no attention ranks, got {list(ranks)}")
            if tokens != 1:
                raise ValueError(f"a polynomial network takes one input vector (tokens = 1), "
                                 f"got tokens = {tokens}")
            if r < 2:
                raise ValueError(f"activation degree r must be at least 2 (r = 1 is a linear "
                                 f"network), got {r}")
        else:
            if len(ranks) != len(widths) - 1:
                raise ValueError(
                    f"{len(widths) - 1} layer(s) from widths {list(widths)} need as many ranks, "
                    f"got {len(ranks)}: {list(ranks)}")
            if self.bias or r != 2:
                raise ValueError("bias and activation degree are options of polynomial networks "
                                 f"(kind 'pnn'), not of {self.kind!r}")
        if not isinstance(self.bias, bool):
            raise ValueError(f"bias must be True or False, got {self.bias!r}")
        if heads != 1 and self.kind != "multihead":
            raise ValueError(f"heads = {heads} needs kind 'multihead', got {self.kind!r}")
        object.__setattr__(self, "widths", widths)
        object.__setattr__(self, "ranks", ranks)
        object.__setattr__(self, "tokens", tokens)
        object.__setattr__(self, "heads", heads)
        object.__setattr__(self, "activation_degree", r)

    @classmethod
    def single(cls, d: int, d_out: int, a: int, tokens: int = 2,
               kind: str = "lightning") -> "Architecture":
        """The single layer (d, d', a) of HMK."""
        return cls((d, d_out), (a,), tokens, kind)

    @classmethod
    def multihead(cls, widths: Sequence[int], ranks: Sequence[int], heads: int,
                  tokens: int = 2) -> "Architecture":
        """Multi-head lightning attention with `heads` heads in every layer."""
        return cls(tuple(widths), tuple(ranks), tokens, "multihead", heads=heads)

    @classmethod
    def pnn(cls, widths: Sequence[int], activation_degree: int = 2,
            bias: bool = False) -> "Architecture":
        """The polynomial network with widths (d_0, ..., d_h) and activation x ↦ x^r."""
        return cls(tuple(widths), (), None, "pnn", activation_degree=activation_degree, bias=bias)

    @classmethod
    def parse(cls, spec: str, tokens: int = 2, kind: str = "lightning") -> "Architecture":
        """Parse 'd_0,...,d_l:a_1,...,a_l', e.g. '3,2,3:2,2' (attention kinds).

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
        """Number of layers l (h for a polynomial network)."""
        return len(self.widths) - 1

    @property
    def is_attention(self) -> bool:
        return self.kind in ATTENTION_KINDS

    @property
    def polynomial(self) -> bool:
        """True when φ_W(X) is polynomial in (W, X): every kind but softmax."""
        return self.kind != "softmax"

    @property
    def degenerate(self) -> bool:
        """True for attention with t = 1 (paper-notes §1: the formulas for t >= 2 do not apply)."""
        return self.is_attention and self.tokens == 1

    @property
    def is_single_layer(self) -> bool:
        return self.depth == 1

    @property
    def output_size(self) -> int:
        """Numbers per input of φ_W(X): d_l · t."""
        return self.widths[-1] * self.tokens

    def layer_blocks(self) -> list[list[tuple[str, tuple[int, int]]]]:
        """Per layer, the (name, shape) of each weight block in packing order.

        Names: 'Q', 'K', 'V' (attention), 'Q2', 'K2', 'V2' for head 2 of a multi-head layer
        (heads counted from 1), 'W' and 'b' (polynomial network; b has shape (d_i, 1)).
        """
        out = []
        for i, (d_in, d_out) in enumerate(zip(self.widths[:-1], self.widths[1:])):
            if self.kind == "pnn":
                out.append([("W", (d_out, d_in))] + ([("b", (d_out, 1))] if self.bias else []))
                continue
            a = self.ranks[i]
            shapes = [("Q", (a, d_in)), ("K", (a, d_in)), ("V", (d_out, d_in))]
            if self.kind == "multihead":
                out.append([(f"{n}{h}", s) for h in range(1, self.heads + 1) for n, s in shapes])
            else:
                out.append(shapes)
        return out

    def layer_shapes(self) -> list[tuple[tuple[int, int], ...]]:
        """Shapes of each layer's blocks: (Q_i, K_i, V_i) for attention (see `layer_blocks`)."""
        return [tuple(s for _, s in blocks) for blocks in self.layer_blocks()]

    @property
    def n_params(self) -> int:
        """#params: Σ_i H(2 a_i d_{i-1} + d_i d_{i-1}) for attention (H = 1 unless multi-head;
        paper-notes §1), Σ_i d_i d_{i-1} (+ d_i with biases) for a polynomial network."""
        return sum(r * c for shapes in self.layer_shapes() for r, c in shapes)

    def layer_offsets(self) -> list[int]:
        """Start index of each layer's block in the packed weight vector (plus the total)."""
        offs = [0]
        for shapes in self.layer_shapes():
            offs.append(offs[-1] + sum(r * c for r, c in shapes))
        return offs

    def reduced(self) -> "Architecture":
        """The attention architecture with the same neuromanifold and no redundant sizes:
        hidden widths replaced by e_i = min(d_i, H·e_{i−1}) (e_0 = d_0; H = 1: the running
        minimum) and ranks by ã_i = min(a_i, e_{i−1}) (paper-notes §3.2: the tokens of layer i
        span at most Σ_h V_{i,h}(U_{i−1}), of dimension ≤ e_i). A polynomial network is returned
        unchanged (its coordinatewise activation does not allow the change of basis).
        """
        if self.kind == "pnn":
            return self
        e = [self.widths[0]]
        for w in self.widths[1:-1]:
            e.append(min(w, self.heads * e[-1]))
        ranks = tuple(min(a, d) for a, d in zip(self.ranks, e))
        return Architecture(tuple(e) + (self.widths[-1],), ranks, self.tokens, self.kind,
                            heads=self.heads)

    # --- packing ---------------------------------------------------------------------------
    def unpack(self, vector: np.ndarray) -> list:
        """Split a flat weight vector (n_params,) into layers; keeps the dtype.

        Returns:
            one entry per layer: LayerWeights (lightning, softmax), a tuple of H LayerWeights
            (multihead) or PolynomialLayer (pnn; b is None without biases).
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
            layers.append(self._layer(mats))
        return layers

    def _layer(self, mats: list[np.ndarray]):
        if self.kind == "pnn":
            return PolynomialLayer(mats[0], mats[1] if self.bias else None)
        if self.kind == "multihead":
            return tuple(LayerWeights(*mats[3 * h:3 * h + 3]) for h in range(self.heads))
        return LayerWeights(*mats)

    def layer_matrices(self, layer) -> list[np.ndarray]:
        """The blocks of one unpacked layer in packing order (inverse of the grouping of
        `unpack`)."""
        if self.kind == "pnn":
            return [layer[0]] + ([layer[1]] if self.bias else [])
        if self.kind == "multihead":
            return [m for head in layer for m in head]
        return list(layer)

    def pack(self, layers: Sequence) -> np.ndarray:
        """Inverse of `unpack`.

        Raises:
            ValueError: wrong number of layers or a matrix of the wrong shape (named).
        """
        if len(layers) != self.depth:
            raise ValueError(f"{self} has {self.depth} layer(s), got weights for {len(layers)}")
        parts = []
        for i, (layer, blocks) in enumerate(zip(layers, self.layer_blocks()), start=1):
            mats = self.layer_matrices(layer)
            if len(mats) != len(blocks):
                raise ValueError(f"layer {i}: expected {len(blocks)} blocks "
                                 f"{[n for n, _ in blocks]}, got {len(mats)}")
            for (name, shape), mat in zip(blocks, mats):
                mat = np.asarray(mat)
                if mat.shape != shape:
                    raise ValueError(f"layer {i}: {name} must have shape {shape}, got {mat.shape}")
                parts.append(mat.reshape(-1))
        return np.concatenate(parts)

    def spec(self) -> str:
        """'widths:ranks' for attention, e.g. '3,2,3:2,2'; the widths alone for a pnn."""
        w = ",".join(map(str, self.widths))
        return w if self.kind == "pnn" else w + ":" + ",".join(map(str, self.ranks))

    def to_json(self) -> dict:
        out = {"widths": list(self.widths), "ranks": list(self.ranks), "tokens": self.tokens,
               "kind": self.kind}
        if self.kind == "multihead":
            out["heads"] = self.heads
        if self.kind == "pnn":
            out.update(activation_degree=self.activation_degree, bias=self.bias)
        return out

    def __str__(self) -> str:
        if self.kind == "pnn":
            return (f"pnn {self.spec()} (r={self.activation_degree}"
                    f"{', with biases' if self.bias else ''})")
        heads = f"H={self.heads}, " if self.kind == "multihead" else ""
        return f"{self.kind} {self.spec()} ({heads}t={self.tokens})"


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
