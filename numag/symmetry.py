"""The known symmetries of each parametrization and the dimension of their orbits.

Attention (HMK; paper-notes §2–3, §8 for heads):
(S1) (Q_i, K_i) ↦ (G Q_i, G^{-T} K_i), G ∈ GL(a_i) (per head for multi-head attention);
(S2) V_i ↦ C V_i and (Q_{i+1}, K_{i+1}, V_{i+1}) ↦ (·) C^{-1}, C ∈ GL(d_i), 0 < i < l (every
     head of layers i and i+1 alike);
(S3) (A_i, V_i) ↦ (λ A_i, V_i / λ) — lightning and per head of multi-head; normalization breaks
     it for softmax.
(S1') in a layer that sees only the symmetric part S_i = ½(A_i + A_iᵀ) of A_i (every layer after
     one whose output has rank 1, and every layer when t = 1; numag.formulas.symmetric_layers),
     (S1) extends to the orthogonal group O(a_i, a_i) of the split form J = [[0, I], [I, 0]]
     acting on Z = [Q_i; K_i], since S_i = ½ Zᵀ J Z (paper-notes §3.1). Its Lie algebra adds to
     gl(a_i) the directions δQ = B K, δK = C Q with B, C antisymmetric.
Head permutations are discrete and do not change the orbit's dimension.
Polynomial networks (Kileel–Trager–Bruna 2019; paper-notes §9): every hidden neuron j of layer
i < h scales, row j of (W_i, b_i) by λ and column j of W_{i+1} by λ^{-r}.

The tangent space of the orbit at W is spanned by the infinitesimal generators below; its rank
at a point is at most its generic rank, and the generic fiber contains the orbit, so #params −
rank is an upper bound on dim M (paper-notes §6). The rank is computed, not taken from the count
of `naive_orbit_count`, because the actions are not free when a_i > d_{i-1}.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .architecture import Architecture
from .arith import Arithmetic
from .formulas import symmetric_layers


def _block_slices(arch: Architecture) -> list[dict[str, tuple[int, tuple[int, int]]]]:
    """Per layer: block name -> (offset in the packed vector, shape)."""
    out, pos = [], 0
    for blocks in arch.layer_blocks():
        layer = {}
        for name, (r, c) in blocks:
            layer[name] = (pos, (r, c))
            pos += r * c
        out.append(layer)
    return out


class _Tangents:
    """Collects generator rows as flat vectors written block by block."""

    def __init__(self, arch: Architecture, ops: Arithmetic):
        self.slices, self.ops, self.n = _block_slices(arch), ops, arch.n_params
        self.rows: list[np.ndarray] = []

    def emit(self, changes: dict[tuple[int, str], np.ndarray]) -> None:
        row = self.ops.zeros((self.n,))
        for (i, name), value in changes.items():
            start, (r, c) = self.slices[i][name]
            row[start:start + r * c] = np.asarray(value).reshape(-1)
        self.rows.append(row)

    def matrix(self) -> np.ndarray:
        return np.array(self.rows) if self.rows else self.ops.zeros((0, self.n))


def _heads(arch: Architecture, layer) -> list[tuple[str, tuple]]:
    """(suffix, (Q, K, V)) of each head of an attention layer ('' for single-head kinds)."""
    if arch.kind == "multihead":
        return [(str(h), head) for h, head in enumerate(layer, start=1)]
    return [("", layer)]


def orbit_tangents(arch: Architecture, layers: Sequence, ops: Arithmetic) -> np.ndarray:
    """Infinitesimal generators of the known symmetries at W, one per row: (n_gen, n_params).

    Args:
        layers: the point W, as returned by Architecture.unpack.
    """
    t = _Tangents(arch, ops)
    if arch.kind == "pnn":
        _pnn_tangents(arch, layers, ops, t)
    else:
        _attention_tangents(arch, layers, ops, t)
    return t.matrix()


def _attention_tangents(arch: Architecture, layers: Sequence, ops: Arithmetic,
                        t: _Tangents) -> None:
    symmetric = (symmetric_layers(arch.widths, arch.ranks, arch.tokens, arch.heads)
                 if arch.kind != "softmax" else [False] * arch.depth)
    for i, layer in enumerate(layers):
        for sfx, (Q, K, V) in _heads(arch, layer):
            if symmetric[i]:
                _split_orthogonal(i, sfx, Q, K, ops, t)
            a = Q.shape[0]
            for r in range(a):
                for s in range(a):          # E = e_r e_sᵀ: δQ = E Q, δK = -Eᵀ K
                    dQ, dK = ops.zeros(Q.shape), ops.zeros(K.shape)
                    dQ[r] = Q[s]
                    dK[s] = ops.red(-K[r])
                    t.emit({(i, "Q" + sfx): dQ, (i, "K" + sfx): dK})
            if arch.kind != "softmax":
                t.emit({(i, "Q" + sfx): Q, (i, "V" + sfx): ops.red(-V)})
    for i in range(arch.depth - 1):
        d = arch.widths[i + 1]
        for r in range(d):
            for s in range(d):              # C = e_r e_sᵀ: δV_i = C V_i, δ(·)_{i+1} = -(·) C
                change = {}
                for sfx, (_, _, V_i) in _heads(arch, layers[i]):
                    dV = ops.zeros(V_i.shape)
                    dV[r] = V_i[s]
                    change[(i, "V" + sfx)] = dV
                for sfx, head in _heads(arch, layers[i + 1]):
                    for name, M in zip("QKV", head):
                        dM = ops.zeros(M.shape)
                        dM[:, s] = ops.red(-M[:, r])
                        change[(i + 1, name + sfx)] = dM
                t.emit(change)


def _split_orthogonal(i: int, sfx: str, Q: np.ndarray, K: np.ndarray, ops: Arithmetic,
                      t: _Tangents) -> None:
    """The directions of o(a, a) beyond gl(a): δQ = B K and δK = C Q, B, C = e_r e_sᵀ − e_s e_rᵀ;
    both leave ½(KᵀQ + QᵀK) unchanged to first order (δA = Kᵀ B K + Qᵀ Cᵀ Q is antisymmetric)."""
    a = Q.shape[0]
    for r in range(a):
        for s in range(r + 1, a):
            for src, dst in ((K, "Q"), (Q, "K")):
                dM = ops.zeros(Q.shape)
                dM[r] = src[s]
                dM[s] = ops.red(-src[r])
                t.emit({(i, dst + sfx): dM})


def _pnn_tangents(arch: Architecture, layers: Sequence, ops: Arithmetic, t: _Tangents) -> None:
    r = ops.convert(arch.activation_degree)
    for i in range(arch.depth - 1):
        W, b = layers[i]
        W1 = layers[i + 1].W
        for j in range(W.shape[0]):         # neuron j of hidden layer i+1
            dW, dW1 = ops.zeros(W.shape), ops.zeros(W1.shape)
            dW[j] = W[j]
            dW1[:, j] = ops.red(-ops.mul(r, W1[:, j]))
            change = {(i, "W"): dW, (i + 1, "W"): dW1}
            if b is not None:
                db = ops.zeros(b.shape)
                db[j] = b[j]
                change[(i, "b")] = db
            t.emit(change)


def naive_orbit_count(arch: Architecture) -> int:
    """The orbit dimension when every action is free: Σ H a_i² + Σ_{0<i<l} d_i² (+ H l for
    lightning and multi-head) for attention; Σ_{0<i<h} d_i for a polynomial network."""
    hidden = arch.widths[1:-1]
    if arch.kind == "pnn":
        return sum(hidden)
    n = arch.heads * sum(a * a for a in arch.ranks) + sum(d * d for d in hidden)
    return n + (arch.heads * arch.depth if arch.kind != "softmax" else 0)
