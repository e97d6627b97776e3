"""The one definition of (deep) lightning and softmax self-attention, and its forward-mode JVP.

Formulas (HMK §2; paper-notes §1), with tokens as columns of Y ∈ R^{d×t} and A = Kᵀ Q:
    S = Yᵀ A Y = (K Y)ᵀ (Q Y)                     (t × t, S[k, j] = y_kᵀ A y_j)
    P = S (lightning)  or  softmax of each column of S over k (softmax)
    φ(Y) = V Y P                                  (d' × t)
A deep network composes layers: φ_W = φ_{W_l} ∘ … ∘ φ_{W_1}.

Every function is written against numag.arith.Arithmetic, so the same code runs over float64,
complex128, mpmath and F_p. Batched shapes: inputs Y (N, d, t); tangents dY (D, N, d, t), D the
number of tangent directions.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .architecture import Architecture, LayerWeights
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


def forward(arch: Architecture, layers: Sequence[LayerWeights], X: np.ndarray,
            ops: Arithmetic) -> np.ndarray:
    """φ_W(X) for inputs X (N, d_0, t) -> (N, d_l, t).

    Raises:
        ValueError: X has the wrong shape for `arch`.
    """
    X = check_inputs(arch, X)
    Y = X
    for layer in layers:
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


def jvp_all(arch: Architecture, layers: Sequence[LayerWeights], X: np.ndarray,
            ops: Arithmetic) -> tuple[np.ndarray, np.ndarray]:
    """φ_W(X) and its derivatives with respect to every weight, by forward-mode differentiation.

    Args:
        X: inputs (N, d_0, t).
    Returns:
        Z (N, d_l, t) and dZ (n_params, N, d_l, t), directions in Architecture.pack order.
    """
    Y = check_inputs(arch, X)
    dY = None
    for layer in layers:
        Y, dY = layer_jvp(ops, arch.kind, layer, Y, dY)
    return Y, dY
