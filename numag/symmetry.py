"""The known symmetries (S1)–(S3) of self-attention parametrizations and their orbit dimension.

(S1) (Q_i, K_i) ↦ (G Q_i, G^{-T} K_i), G ∈ GL(a_i);
(S2) V_i ↦ C V_i and (Q_{i+1}, K_{i+1}, V_{i+1}) ↦ (·) C^{-1}, C ∈ GL(d_i), 0 < i < l;
(S3) (A_i, V_i) ↦ (λ A_i, V_i / λ) — lightning only: normalization breaks it.
Source: HMK (single layer and deep symmetries; paper-notes §2–3). The tangent space of the orbit
at W is spanned by the infinitesimal generators below; its rank at a point is at most its generic
rank, and the generic fiber contains the orbit, so #params − rank is an upper bound on dim M
(paper-notes §6). The rank is computed, not taken from the count Σ a_i² + Σ d_i² + l, because the
actions are not free when a_i > d_{i-1}.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .architecture import Architecture, LayerWeights
from .arith import Arithmetic


def orbit_tangents(arch: Architecture, layers: Sequence[LayerWeights],
                   ops: Arithmetic) -> np.ndarray:
    """Infinitesimal generators of (S1)–(S3) at W, one per row: (n_generators, n_params).

    (S3) is included for lightning only.
    """
    rows: list[np.ndarray] = []
    zero = [LayerWeights(*(ops.zeros(m.shape) for m in layer)) for layer in layers]

    def emit(changes: dict[tuple[int, str], np.ndarray]) -> None:
        tangent = [list(layer) for layer in zero]
        for (i, name), value in changes.items():
            tangent[i]["QKV".index(name)] = value
        rows.append(arch.pack(tangent))

    for i, (Q, K, V) in enumerate(layers):
        a = Q.shape[0]
        for r in range(a):
            for s in range(a):          # E = e_r e_sᵀ: δQ = E Q, δK = -Eᵀ K
                dQ, dK = ops.zeros(Q.shape), ops.zeros(K.shape)
                dQ[r] = Q[s]
                dK[s] = ops.red(-K[r])
                emit({(i, "Q"): dQ, (i, "K"): dK})
        if arch.kind == "lightning":
            emit({(i, "Q"): Q, (i, "V"): ops.red(-V)})
    for i in range(arch.depth - 1):
        V_i = layers[i].V
        Q1, K1, V1 = layers[i + 1]
        d = V_i.shape[0]
        for r in range(d):
            for s in range(d):          # C = e_r e_sᵀ: δV_i = C V_i, δ(·)_{i+1} = -(·) C
                dV = ops.zeros(V_i.shape)
                dV[r] = V_i[s]
                change = {(i, "V"): dV}
                for name, M in zip("QKV", (Q1, K1, V1)):
                    dM = ops.zeros(M.shape)
                    dM[:, s] = ops.red(-M[:, r])
                    change[(i + 1, name)] = dM
                emit(change)
    return np.array(rows) if rows else ops.zeros((0, arch.n_params))


def naive_orbit_count(arch: Architecture) -> int:
    """Σ a_i² + Σ_{0<i<l} d_i² (+ l for lightning): the orbit dimension when every action is free."""
    n = sum(a * a for a in arch.ranks) + sum(d * d for d in arch.widths[1:-1])
    return n + (arch.depth if arch.kind == "lightning" else 0)
