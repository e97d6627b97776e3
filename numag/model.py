"""The one definition of every network numag studies, and its forward-mode JVP.

Attention (HMK §2; paper-notes §1), with tokens as columns of Y ∈ R^{d×t} and A = Kᵀ Q:
    S = Yᵀ A Y = (K Y)ᵀ (Q Y)                     (t × t, S[k, j] = y_kᵀ A y_j)
    P = S (lightning)  or  softmax of each column of S over k (softmax)
    φ(Y) = V Y P                                  (d' × t)
Multi-head lightning attention (paper-notes §8): φ(Y) = Σ_h V_h Y (Yᵀ A_h Y), A_h = K_hᵀ Q_h.
Polynomial network (paper-notes §9): Z = W Y (+ b), then Z^r entrywise after every layer but the
last; the input is one column (t = 1).
A deep network composes layers: φ_W = φ_{W_l} ∘ … ∘ φ_{W_1}.

Every function is written against numag.arith.Arithmetic, so the same code runs over float64,
complex128, mpmath and F_p. Batched shapes: inputs Y (N, d, t); tangents dY (D, N, d, t), D the
number of tangent directions.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .architecture import Architecture, LayerWeights, PolynomialLayer
from .arith import Arithmetic


def _T(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def attention_scores(ops: Arithmetic, kind: str, layer: LayerWeights, Y: np.ndarray):
    """Return (KY, QY, P) for inputs Y (N, d, t); P (N, t, t) is S or its column softmax."""
    Q, K, _ = layer
    KY, QY = ops.mm(K, Y), ops.mm(Q, Y)
    S = ops.mm(_T(KY), QY)
    P = ops.softmax(S, axis=-2) if kind == "softmax" else S
    return KY, QY, P


def layer_forward(ops: Arithmetic, kind: str, layer: LayerWeights, Y: np.ndarray) -> np.ndarray:
    """φ_W(Y) = V Y P for a batch Y (N, d, t) -> (N, d', t)."""
    _, _, P = attention_scores(ops, kind, layer, Y)
    return ops.mm(ops.mm(layer[2], Y), P)


def multihead_forward(ops: Arithmetic, heads: Sequence[LayerWeights], Y: np.ndarray) -> np.ndarray:
    """Σ_h V_h Y (Yᵀ A_h Y) for a batch Y (N, d, t) -> (N, d', t)."""
    out = layer_forward(ops, "lightning", heads[0], Y)
    for head in heads[1:]:
        out = ops.red(out + layer_forward(ops, "lightning", head, Y))
    return out


def power(ops: Arithmetic, Z: np.ndarray, r: int) -> np.ndarray:
    """Z^r entrywise by repeated products (works in every number system, polynomials too)."""
    out = Z
    for _ in range(r - 1):
        out = ops.mul(out, Z)
    return out


def pnn_layer_forward(ops: Arithmetic, layer: PolynomialLayer, Y: np.ndarray, r: int | None
                      ) -> np.ndarray:
    """W Y (+ b), then ^r entrywise unless r is None (the last layer), for Y (N, d, 1)."""
    Z = ops.mm(layer.W, Y)
    if layer.b is not None:
        Z = ops.red(Z + layer.b)
    return Z if r is None else power(ops, Z, r)


def forward(arch: Architecture, layers: Sequence, X: np.ndarray, ops: Arithmetic) -> np.ndarray:
    """φ_W(X) for inputs X (N, d_0, t) -> (N, d_l, t) (t = 1 for a polynomial network).

    Args:
        layers: as returned by Architecture.unpack for `arch`.
    Raises:
        ValueError: X has the wrong shape for `arch`.
    """
    Y = check_inputs(arch, X)
    for i, layer in enumerate(layers):
        if arch.kind == "pnn":
            last = i == len(layers) - 1
            Y = pnn_layer_forward(ops, layer, Y, None if last else arch.activation_degree)
        elif arch.kind == "multihead":
            Y = multihead_forward(ops, layer, Y)
        else:
            Y = layer_forward(ops, arch.kind, layer, Y)
    return Y


def check_inputs(arch: Architecture, X: np.ndarray) -> np.ndarray:
    X = np.asarray(X)
    if X.ndim == 2:
        X = X[None]
    expected = (arch.widths[0], arch.tokens)
    if X.ndim != 3 or X.shape[1:] != expected:
        raise ValueError(f"inputs must have shape (N, {expected[0]}, {expected[1]}) for {arch}, "
                         f"got {X.shape}")
    return X


def layer_jvp(ops: Arithmetic, kind: str, layer: LayerWeights, Y: np.ndarray,
              dY: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Forward-mode derivative of one layer in all directions at once.

    Args:
        Y: layer input (N, d, t).
        dY: tangents of the input (D, N, d, t) in D directions of earlier parameters, or None.
    Returns:
        Z (N, d', t) and dZ (D + 2ad + d'd, N, d', t): first the D given directions pushed
        forward, then the unit directions of this layer's Q, K, V entries (row-major, in this
        order, matching Architecture.pack).
    """
    Q, K, V = layer
    a, d = Q.shape
    KY, QY, P = attention_scores(ops, kind, layer, Y)
    VY = ops.mm(V, Y)
    Z = ops.mm(VY, P)
    N, t = Y.shape[0], Y.shape[-1]
    Yc = np.moveaxis(Y, 1, 0)                                     # (d, N, t)
    # dS for unit directions: ∂S/∂Q[r,c] = (KY)[r,:]ᵀ ⊗ Y[c,:];  ∂S/∂K[r,c] = Y[c,:]ᵀ ⊗ (QY)[r,:]
    KYr, QYr = np.moveaxis(KY, 1, 0), np.moveaxis(QY, 1, 0)       # (a, N, t)
    dS_Q = ops.mul(KYr[:, None, :, :, None], Yc[None, :, :, None, :]).reshape(a * d, N, t, t)
    dS_K = ops.mul(Yc[None, :, :, :, None], QYr[:, None, :, None, :]).reshape(a * d, N, t, t)
    parts = [dS_Q, dS_K]
    if dY is not None:
        dS_prev = ops.red(ops.mm(_T(ops.mm(K, dY)), QY) + ops.mm(_T(KY), ops.mm(Q, dY)))
        parts.insert(0, dS_prev)
    dS = np.concatenate(parts, axis=0)
    dP = ops.red(ops.softmax_jvp(P, dS)) if kind == "softmax" else dS
    dZ_S = ops.mm(VY, dP)                                         # (D + 2ad, N, d', t)
    if dY is not None:
        D = dY.shape[0]
        dZ_S[:D] = ops.red(dZ_S[:D] + ops.mm(ops.mm(V, dY), P))
    # ∂Z/∂V[r,c] = e_r ⊗ (Y P)[c,:]
    YP = np.moveaxis(ops.mm(Y, P), 1, 0)                          # (d, N, t)
    d_out = V.shape[0]
    dZ_V = ops.zeros((d_out, d, N, d_out, t))
    for r in range(d_out):
        dZ_V[r, :, :, r, :] = YP
    return Z, np.concatenate([dZ_S, dZ_V.reshape(d_out * d, N, d_out, t)], axis=0)


def multihead_jvp(ops: Arithmetic, heads: Sequence[LayerWeights], Y: np.ndarray,
                  dY: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Forward-mode derivative of a multi-head layer: the heads' outputs and the pushed-forward
    input tangents are summed; each head's own directions follow in packing order."""
    D = 0 if dY is None else dY.shape[0]
    Z, dZ_prev, own = None, None, []
    for head in heads:
        Zh, dZh = layer_jvp(ops, "lightning", head, Y, dY)
        Z = Zh if Z is None else ops.red(Z + Zh)
        if D:
            dZ_prev = dZh[:D] if dZ_prev is None else ops.red(dZ_prev + dZh[:D])
        own.append(dZh[D:])
    return Z, np.concatenate(([dZ_prev] if D else []) + own, axis=0)


def pnn_layer_jvp(ops: Arithmetic, layer: PolynomialLayer, Y: np.ndarray, dY: np.ndarray | None,
                  r: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Forward-mode derivative of one polynomial-network layer (Y (N, d, 1), dY (D, N, d, 1)).

    Returns Z (N, d', 1) and dZ (D + d'd [+ d'], N, d', 1): the D given directions pushed
    forward, then the unit directions of W (row-major), then of b.
    """
    W, b = layer
    d_out, d_in = W.shape
    N = Y.shape[0]
    U = ops.mm(W, Y)
    if b is not None:
        U = ops.red(U + b)
    parts = [] if dY is None else [ops.mm(W, dY)]
    dU_W = ops.zeros((d_out, d_in, N, d_out, 1))       # ∂U/∂W[o, c] = e_o · Y[c]
    Yc = np.moveaxis(Y[:, :, 0], 1, 0)                  # (d_in, N)
    for o in range(d_out):
        dU_W[o, :, :, o, 0] = Yc
    parts.append(dU_W.reshape(d_out * d_in, N, d_out, 1))
    if b is not None:
        dU_b = ops.zeros((d_out, N, d_out, 1))
        for o in range(d_out):
            dU_b[o, :, o, 0] = ops.convert(1)
        parts.append(dU_b)
    dU = np.concatenate(parts, axis=0)
    if r is None:
        return U, dU
    Ur1 = power(ops, U, r - 1)                          # d(U^r) = r U^(r-1) dU
    return ops.mul(Ur1, U), ops.mul(ops.mul(ops.convert(r), Ur1)[None], dU)


def jvp_all(arch: Architecture, layers: Sequence, X: np.ndarray,
            ops: Arithmetic) -> tuple[np.ndarray, np.ndarray]:
    """φ_W(X) and its derivatives with respect to every weight, by forward-mode differentiation.

    Args:
        layers: as returned by Architecture.unpack for `arch`.
        X: inputs (N, d_0, t).
    Returns:
        Z (N, d_l, t) and dZ (n_params, N, d_l, t), directions in Architecture.pack order.
    """
    Y = check_inputs(arch, X)
    dY = None
    for i, layer in enumerate(layers):
        if arch.kind == "pnn":
            last = i == len(layers) - 1
            Y, dY = pnn_layer_jvp(ops, layer, Y, dY, None if last else arch.activation_degree)
        elif arch.kind == "multihead":
            Y, dY = multihead_jvp(ops, layer, Y, dY)
        else:
            Y, dY = layer_jvp(ops, arch.kind, layer, Y, dY)
    return Y, dY
