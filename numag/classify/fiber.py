"""Points W = (Q, K, V) of the fiber over φ = T(A, V), on every branch the evidence examines."""
from __future__ import annotations

import mpmath
import numpy as np

from ..rank import RankOptions
from .precision import norm, rank1_factors, sqrt, svd

# (name, (Q, K, V), whether its tangent image enters the joint rank)
FiberSample = tuple[str, tuple[np.ndarray, np.ndarray, np.ndarray], bool]


def fiber_points(A: np.ndarray, V: np.ndarray, shape: tuple[int, int, int], prec: RankOptions,
                 rng: np.random.Generator, ranks: tuple[int, int], qkv) -> list[FiberSample]:
    """Points W of the fiber over T(A, V) (A, V converted to prec, inside its context);
    ranks = (rk A, rk V) as the evidence determined them (numag.classify.evidence).

    φ = 0: random points of {A = 0} and {V = 0}. Otherwise the balanced factorizations of
    (A, V) (several when rk A < a), those of the swap (w vᵀ, c uᵀ) when rk A = rk V = 1, and
    the given weights `qkv` (rescaled) when there are any.
    """
    a = shape[2]
    rA, rV = ranks
    if rA == 0 or rV == 0:
        return _zero_fiber(shape, prec, rng)
    pts = _factorizations("the point", *_balance(A, V), min(rA, a), a, prec, rng)
    if rA == 1 and rV == 1:
        (u, v), (c, w) = rank1_factors(A, prec), rank1_factors(V, prec)
        A2, V2 = np.outer(w, v), np.outer(c, u)
        pts += _factorizations("the swap (w vᵀ, c uᵀ)", *_balance(A2, V2), 1, a, prec, rng)
    if qkv is not None:
        Q, K, Vq = (prec.convert(m) for m in qkv)
        pts.append(("the given weights (rescaled)", _rescale(Q, K, Vq), rA < a))
    return pts


def _zero_fiber(shape, prec: RankOptions, rng) -> list[FiberSample]:
    """Two random points on each of the components {A = 0} (K = 0 or Q = 0) and {V = 0}."""
    d, d_out, a = shape
    ops = prec.ops()

    def R(*s):
        return ops.random(rng, s)
    Z = ops.zeros
    return [("{A = 0}: K = 0, Q and V random", (R(a, d), Z((a, d)), R(d_out, d)), True),
            ("{A = 0}: Q = 0, K and V random", (Z((a, d)), R(a, d), R(d_out, d)), True),
            ("{V = 0}: Q, K random", (R(a, d), R(a, d), Z((d_out, d))), True),
            ("{V = 0}: Q, K random (2)", (R(a, d), R(a, d), Z((d_out, d))), True)]


def _balance(A, V):
    """(λA, V/λ) with ‖λA‖ = ‖V/λ‖: the same φ, better conditioned Jacobians."""
    nA, nV = norm(A), norm(V)
    lam = (nV / nA) ** 0.5 if A.dtype != object else mpmath.sqrt(nV / nA)
    return A * lam, V / lam


def _rescale(Q, K, V):
    """Scale (Q, K) ↦ (sQ, K/s) and (A, V) ↦ (λA, V/λ) (symmetries) to balance the norms."""
    sq = sqrt(norm(K) / norm(Q)) if norm(Q) != 0 and norm(K) != 0 else 1
    Q, K = Q * sq, K / sq
    nA, nV = norm(K.T.dot(Q)), norm(V)
    lam = sqrt(nV / nA) if nA != 0 and nV != 0 else 1
    return Q * sqrt(lam), K * sqrt(lam), V / lam


def _factorizations(name: str, A, V, r: int, a: int, prec: RankOptions, rng) -> list[FiberSample]:
    """A = Kᵀ Q with Q, K (a, d): the balanced SVD factorization, and when r < a three random
    ones (extra rows in Q or in K: Nᵀ P = 0), which differ in their tangent images."""
    d = A.shape[0]
    U, s, Vt = svd(A, prec)
    sq = np.array([sqrt(x) for x in s[:r]], dtype=A.dtype)
    Q, K = prec.ops().zeros((a, d)), prec.ops().zeros((a, d))
    Q[:r], K[:r] = sq[:, None] * Vt[:r], (U[:, :r] * sq[None, :]).T
    out = [(name, (Q, K, V), True)]
    if r < a:
        scale = norm(Q) / sqrt(r) if r else 1
        for i, which in enumerate(("Q", "K", "Q")):
            Q2, K2 = Q.copy(), K.copy()
            extra = prec.ops().random(rng, (a - r, d)) * scale
            if which == "Q":
                Q2[r:] = extra
            else:
                K2[r:] = extra
            out.append((f"{name}, factorization {i + 1} (random extra rows of {which})",
                        (Q2, K2, V), True))
    return out
