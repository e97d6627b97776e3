"""Exact rational weights of each kind the paper distinguishes (paper-notes §2).

Kinds (single layer (d, d', a); 'generic' also for deep networks):
* 'generic': random rationals with rk A = min(a, d), rk V = min(d, d') and no zero entry.
* 'swap': rk A = rk V = 1 with A = u vᵀ, V = c wᵀ and u ∦ w: Q = α vᵀ, K = β uᵀ, V = c wᵀ
  (so A = Kᵀ Q = (βᵀα) u vᵀ); its fiber has the swapped branch through (w vᵀ, c uᵀ).
* 'parallel': the same with w = μ u (u ∥ w): the two branches coincide.
* 'zero': φ = 0 through A = 0: Q = 0 with K, V random.
All entries are fractions.Fraction with small numerators and denominators, drawn from a seeded
numpy Generator (the same seed gives the same point).
"""
from __future__ import annotations

import enum
from fractions import Fraction

import numpy as np

from .architecture import Architecture, LayerWeights
from .arith import ModularArithmetic, random_prime
from .dimension import ROWS_PER_INPUT, dimension
from .jacobian import saturated_rank
from .rank import rank_mod_p



class PointKind(enum.StrEnum):
    """Kinds of sample weights (module docstring)."""

    GENERIC = "generic"
    SWAP = "swap"              # rank one, u ∦ w
    PARALLEL = "parallel"      # rank one, u ∥ w
    ZERO = "zero"              # φ = 0 through A = 0

    @property
    def is_special(self) -> bool:
        return self is not PointKind.GENERIC


KINDS = tuple(k.value for k in PointKind)


def _rationals(rng: np.random.Generator, shape, nonzero: bool = True) -> np.ndarray:
    num = rng.integers(1, 10, size=shape) * rng.choice([-1, 1], size=shape)
    if not nonzero:
        num = rng.integers(-9, 10, size=shape)
    den = rng.integers(1, 6, size=shape)
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        out[idx] = Fraction(int(num[idx]), int(den[idx]))
    return out


def exact_rank(M: np.ndarray) -> int:
    """Rank over Q of a Fraction matrix (python-flint)."""
    import flint
    rows = [[flint.fmpq(x.numerator, x.denominator) for x in row] for row in M]
    return flint.fmpq_mat(rows).rank() if M.size else 0


def _parallel(x: np.ndarray, y: np.ndarray) -> bool:
    return exact_rank(np.array([x, y], dtype=object)) < 2


def sample_point(arch: Architecture, kind: PointKind | str = PointKind.GENERIC,
                 seed: int = 0) -> list[LayerWeights]:
    """Rational weights of the given kind (module docstring).

    Raises
    ------
    ValueError
        unknown kind, or a special kind for a deep network.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    kind = PointKind(kind)
    rng = np.random.default_rng(seed)
    if kind is PointKind.GENERIC:
        return _generic(arch, rng)
    if not arch.is_single_layer:
        raise ValueError(f"point kind {kind.value!r} is defined for single layers; got {arch}")
    (a, d), _, (d_out, _) = arch.layer_shapes()[0]
    if kind is PointKind.ZERO:
        return [LayerWeights(np.full((a, d), Fraction(0), dtype=object),
                             _rationals(rng, (a, d)), _rationals(rng, (d_out, d)))]
    u, v = _rationals(rng, (d,)), _rationals(rng, (d,))
    w = u * Fraction(int(rng.integers(2, 5)), int(rng.integers(1, 4)))
    while kind is PointKind.SWAP and _parallel(u, w):
        if d == 1:
            raise ValueError("u ∦ w needs d ≥ 2")
        w = _rationals(rng, (d,))
    alpha, beta, c = _rationals(rng, (a,)), _rationals(rng, (a,)), _rationals(rng, (d_out,))
    while sum(alpha * beta) == 0:
        beta = _rationals(rng, (a,))
    return [LayerWeights(np.outer(alpha, v), np.outer(beta, u), np.outer(c, w))]


def _generic(arch: Architecture, rng: np.random.Generator) -> list[LayerWeights]:
    """Redraw until every A_i and V_i has full rank and the Jacobian of the parametrization
    at the point has the generic rank dim M (exact, mod a prime; small rationals can be special:
    widths 2,2,2 with ranks 1,1 gave rank 7 < 8 at one draw)."""
    target = dimension(arch, method="exact", seed=int(rng.integers(2 ** 31))).dimension
    while True:
        layers = arch.unpack(_rationals(rng, (arch.n_params,)))
        if all(exact_rank(K.T.dot(Q)) == min(Q.shape) and exact_rank(V) == min(V.shape)
               for Q, K, V in layers) and _jacobian_rank(arch, layers, rng) == target:
            return layers


def _jacobian_rank(arch: Architecture, layers, rng: np.random.Generator) -> int:
    ops = ModularArithmetic(random_prime(rng))
    point = [LayerWeights(*(ops.convert(m) for m in layer)) for layer in layers]
    cap = dimension(arch, method="exact", seed=0).upper_bound
    return saturated_rank(arch, ops, lambda J: rank_mod_p(J, ops.p), rng, cap=cap,
                          layers=point, rows_per_input=ROWS_PER_INPUT).rank.rank


def swap(layer: LayerWeights) -> LayerWeights:
    """The swapped weights of a rank-1 point: (Q, K, V) = (α vᵀ, β uᵀ, c wᵀ) ↦ (α vᵀ, β wᵀ, c uᵀ).

    φ is unchanged (paper-notes §2: φ(X)_j = (vᵀx_j) c Σ_k (uᵀx_k)(wᵀx_k) is symmetric in u, w).

    Raises
    ------
    ValueError
        K or V is not of rank 1.
    """
    Q, K, V = layer
    if exact_rank(K) != 1 or exact_rank(V) != 1:
        raise ValueError("swap needs rk K = rk V = 1 (a rank-1 point A = u vᵀ, V = c wᵀ)")
    beta, u = _rank_one_factors(K)              # K = β uᵀ, so A = Kᵀ Q = u (Qᵀβ)ᵀ
    c, w = _rank_one_factors(V)                 # V = c wᵀ
    return LayerWeights(Q, np.outer(beta, w), np.outer(c, u))


def _rank_one_factors(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """M = x yᵀ for a rank-1 Fraction matrix: y a nonzero row, x the ratios in one column."""
    i = next(i for i in range(M.shape[0]) if any(v != 0 for v in M[i]))
    y = M[i]
    k = next(k for k, v in enumerate(y) if v != 0)
    return np.array([M[r, k] / y[k] for r in range(M.shape[0])], dtype=object), y
