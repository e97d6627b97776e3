"""The ambient coordinates T of a single lightning layer and the recovery of (A, V) from T.

T ∈ R^{d'} ⊗ Sym²(R^d) ⊗ R^d, stored as a full array (d', d, d, d) symmetric in axes 1, 2:
    T[r, b, c, e] = ½ (V[r, b] A[c, e] + V[r, c] A[b, e])            [derived; paper-notes §1]
so that φ(X)[:, j] = Σ_{b,c,e} T[:, b, c, e] G[b, c] x_j[e] with G = Σ_k x_k x_kᵀ (t ≥ 2).

Everything works on numpy arrays of float64, of fractions.Fraction (exact) or of mpmath numbers
(callers run inside mpmath.workdps). This module computes; the decisions (which residual is zero,
which eigenvalue vanishes) are made with tolerances and margins in numag.classify.
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np


def tensor(A: np.ndarray, V: np.ndarray) -> np.ndarray:
    """T(A, V) as a (d', d, d, d) array, symmetric in axes 1, 2 (formula in the module docstring).

    Parameters
    ----------
    A
        (d, d) attention matrix Kᵀ Q; V: (d', d). Any dtype (Fraction, mpf, float64).

    Raises
    ------
    ValueError
        A is not square or V does not have d columns.
    """
    A, V = np.asarray(A), np.asarray(V)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square (d, d) matrix, got shape {A.shape}")
    if V.ndim != 2 or V.shape[1] != A.shape[0]:
        raise ValueError(f"V must have shape (d', {A.shape[0]}), got {V.shape}")
    P = V[:, :, None, None] * A[None, None, :, :]          # P[r, b, c, e] = V[r, b] A[c, e]
    return (P + P.transpose(0, 2, 1, 3)) / 2


def coordinates(T: np.ndarray) -> np.ndarray:
    """The d'·d·d(d+1)/2 independent entries T[r, b, c, e] with b ≤ c, as a flat vector."""
    d = T.shape[1]
    b, c = np.triu_indices(d)
    return T[:, b, c, :].reshape(-1)


def check_tensor(T: np.ndarray, d: int, d_out: int) -> np.ndarray:
    """Validate an ambient point: shape (d', d, d, d) and symmetry in (b, c).

    Raises
    ------
    ValueError
        wrong shape, or T[r, b, c, e] != T[r, c, b, e] somewhere (named).
    """
    T = np.asarray(T)
    if T.shape != (d_out, d, d, d):
        raise ValueError(f"an ambient point of (d, d', a) = ({d}, {d_out}, ·) is a tensor of shape "
                         f"(d', d, d, d) = {(d_out, d, d, d)}, got {T.shape}")
    bad = np.argwhere(T != T.transpose(0, 2, 1, 3))
    if bad.size:
        r, b, c, e = bad[0]
        raise ValueError(f"tensor is not symmetric in its middle indices: T[{r}][{b}][{c}][{e}] = "
                         f"{T[r, b, c, e]} but T[{r}][{c}][{b}][{e}] = {T[r, c, b, e]}")
    return T


def apply(T: np.ndarray, X: np.ndarray) -> np.ndarray:
    """φ(X) from T for inputs X (N, d, t) -> (N, d', t) (formula in the module docstring)."""
    G = np.matmul(X, np.swapaxes(X, 1, 2))                    # (N, d, d), Σ_k x_k x_kᵀ
    TG = np.einsum("rbce,nbc->nre", T, G) if T.dtype != object else \
        (T[None] * G[:, None, :, :, None]).sum(axis=(2, 3))  # (N, d', d)
    return np.matmul(TG, X)


def tensor_jacobian(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Jacobian (d'·d·d(d+1)/2, 2ad + d'd) of W = (Q, K, V) ↦ coordinates(T(KᵀQ, V)).

    Columns follow Architecture.pack (Q, K, V row-major). Exact for Fraction inputs. Built from
    bilinearity: ∂A/∂Q[i,j] = K[i,:] ⊗ e_j, ∂A/∂K[i,j] = e_j ⊗ Q[i,:]; T is bilinear in (A, V).
    Meant for checks on small shapes (it loops over the parameters).
    """
    a, d = Q.shape
    A = K.T.dot(Q)
    zero, one = A * 0, A[0, 0] * 0 + 1                       # zeros and 1 of the input's dtype
    cols = []
    for i in range(a):
        for j in range(d):
            dA = zero.copy()
            dA[:, j] = K[i, :]
            cols.append(coordinates(tensor(dA, V)))
    for i in range(a):
        for j in range(d):
            dA = zero.copy()
            dA[j, :] = Q[i, :]
            cols.append(coordinates(tensor(dA, V)))
    for i in range(V.shape[0]):
        for j in range(d):
            dV = V * 0
            dV[i, j] = one
            cols.append(coordinates(tensor(A, dV)))
    return np.stack(cols, axis=1)


# --- ambient point -> preimage ---------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """A real (A, V) tried as a preimage of T, with its relative residual ‖T(A, V) − T‖ / ‖T‖."""

    A: np.ndarray
    V: np.ndarray
    residual: object
    how: str


@dataclass(frozen=True)
class PreimageData:
    """Raw material of a preimage recovery (decisions are made by numag.classify).

    Attributes
    ----------
    eigenvalues
        eigenvalues of the contraction S = Σ_{r,e} α_r y_e T[r, :, :, e], sorted by
        decreasing absolute value and divided by the largest absolute value.
    candidates
        the preimages tried, best (smallest residual) first.
    alpha, y
        the random contraction vectors (exact float64 values).
    """

    eigenvalues: tuple
    candidates: tuple[Candidate, ...]
    alpha: np.ndarray
    y: np.ndarray


def norm(x: np.ndarray):
    """Euclidean norm of a float64 array (float) or of an object array of mpmath reals (mpf)."""
    x = np.asarray(x).reshape(-1)
    if x.dtype == object:
        return mpmath.sqrt(mpmath.fsum(v * v for v in x))
    return float(np.linalg.norm(x))


def eigh(S: np.ndarray):
    """Eigenvalues (list) and eigenvectors (columns) of a symmetric matrix: mpmath.eigsy or numpy."""
    if S.dtype == object:
        E, Qm = mpmath.eigsy(mpmath.matrix(S.tolist()))
        n = S.shape[0]
        vals = [E[i] for i in range(n)]
        vecs = np.array([[Qm[i, j] for j in range(n)] for i in range(n)], dtype=object)
        return vals, vecs
    vals, vecs = np.linalg.eigh(S.astype(float))
    return list(vals), vecs


def _solve(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    if M.dtype == object:
        x = mpmath.lu_solve(mpmath.matrix(M.tolist()), mpmath.matrix(list(b)))
        return np.array([x[i] for i in range(M.shape[0])], dtype=object)
    return np.linalg.solve(M, b)


def v_from_slice(Ty: np.ndarray, z: np.ndarray) -> np.ndarray:
    """V with sym(V_r ⊗ z) = Ty[r] for every r, assuming such V exists (z ≠ 0).

    Derived: S_r = ½(V_r zᵀ + z V_rᵀ) gives zᵀ S_r z = (V_r·z)|z|² and
    V_r = (2 S_r z − z (V_r·z)) / |z|² (paper-notes §2 notation; derived).
    """
    zz = z.dot(z)
    Sz = np.einsum("rbc,c->rb", Ty, z) if Ty.dtype != object else (Ty * z[None, None, :]).sum(axis=2)
    vz = Sz.dot(z) / zz                                              # (d',)
    return (2 * Sz - vz[:, None] * z[None, :]) / zz


def a_from_v(T: np.ndarray, V: np.ndarray) -> np.ndarray:
    """A with T = T(A, V), assuming such A exists (V ≠ 0).

    Derived: for each column a_e, Σ_r T[r, :, :, e] V_r = ½ (VᵀV + tr(VᵀV) I) a_e, and
    VᵀV + tr(VᵀV) I is positive definite when V ≠ 0.
    """
    d = V.shape[1]
    G = V.T.dot(V)
    M = G.copy()
    for i in range(d):
        M[i, i] = M[i, i] + np.trace(G)
    rhs = np.einsum("rbce,rb->ce", T, V) if T.dtype != object else \
        (T * V[:, :, None, None]).sum(axis=(0, 1))                  # (d, d): column e is Σ_r S V_r
    cols = [2 * _solve(M, rhs[:, e]) for e in range(d)]
    return np.stack(cols, axis=1)


def preimage_candidates(T: np.ndarray, rng: np.random.Generator) -> PreimageData:
    """Real candidates (A, V) for a nonzero ambient point T, with their residuals.

    Method [derived; paper-notes §2]: the contraction S = sym(Vᵀα ⊗ A y) with random α, y is a
    symmetric matrix of rank ≤ 2; a real rank-2 S = sym(p ⊗ q) is indefinite, with
    {p, q} = {√λ₁ e₁ ± √(−λ₂) e₂} up to scale, and A y is proportional to p or to q (two branches
    when rk A = rk V = 1). A semidefinite rank-2 S has only complex-conjugate p, q: no real
    preimage. For each choice z of A y, V then A follow linearly (v_from_slice, a_from_v).

    Parameters
    ----------
    T
        (d', d, d, d) nonzero, symmetric in axes 1, 2; float64 or mpmath (inside workdps).

    Raises
    ------
    ValueError
        T is zero (its preimage is {A = 0} ∪ {V = 0}, no recovery needed).
    """
    d_out, d = T.shape[0], T.shape[1]
    normT = norm(T)
    if normT == 0:
        raise ValueError("the zero tensor has the preimage {A = 0} ∪ {V = 0}; nothing to recover")
    mp = T.dtype == object
    conv = (lambda x: np.array([mpmath.mpf(v) for v in x], dtype=object)) if mp else (lambda x: x)
    alpha = rng.standard_normal(d_out)
    y = rng.standard_normal(d)
    a_, y_ = conv(alpha), conv(y)
    Ty = (T * y_[None, None, None, :]).sum(axis=3)                   # (d', d, d) = sym(V ⊗ A y)
    S = (Ty * a_[:, None, None]).sum(axis=0)
    vals, vecs = eigh(S)
    order = sorted(range(d), key=lambda i: -abs(vals[i]))
    top = abs(vals[order[0]])
    eig = tuple((vals[i] / top) if top != 0 else vals[i] * 0 for i in order)
    zs = [(vecs[:, order[0]], "z = top eigenvector of the contraction (rank-1 reading)")]
    if d >= 2 and vals[order[0]] * vals[order[1]] < 0:
        l1, l2 = abs(vals[order[0]]), abs(vals[order[1]])
        s1 = mpmath.sqrt(l1) if mp else np.sqrt(l1)
        s2 = mpmath.sqrt(l2) if mp else np.sqrt(l2)
        for sign, name in ((1, "+"), (-1, "−")):
            zs.append((s1 * vecs[:, order[0]] + sign * s2 * vecs[:, order[1]],
                       f"z = √λ₁e₁ {name} √(−λ₂)e₂ (indefinite contraction)"))
    cands = []
    for z, how in zs:
        V = v_from_slice(Ty, z)
        if norm(V) == 0:
            continue
        A = a_from_v(T, V)
        cands.append(Candidate(A, V, norm(tensor(A, V) - T) / normT, how))
    cands.sort(key=lambda c: c.residual)
    return PreimageData(eig, tuple(cands), alpha, y)
