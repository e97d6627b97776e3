"""Exact Jacobian of the parametrization W ↦ (φ_W(X_n))_{n ≤ N} and its saturated rank.

The Jacobian is assembled by forward-mode differentiation (numag.model.jvp_all), never by finite
differences, in whatever arithmetic is given. Its generic rank is dim M (paper-notes §1) once the
number N of inputs is large enough: too few inputs under-count (widths [6, 6], rank 6, t = 2
gives 66 with 10 inputs and 71 with 20). `saturated_rank` therefore grows N until the rank stops
growing (or reaches a known upper bound).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .architecture import Architecture, LayerWeights
from .arith import Arithmetic
from .model import jvp_all
from .rank import Decision


def jacobian(arch: Architecture, layers: Sequence[LayerWeights], X: np.ndarray,
             ops: Arithmetic) -> np.ndarray:
    """Jacobian matrix (N·d_l·t, n_params) of W ↦ (φ_W(X_n))_n at W = layers.

    Rows are ordered (input n, output row o, token j); columns follow Architecture.pack.
    The dtype is that of `ops` (float64, complex128, object for mpmath, int64 residues mod p).
    """
    _, dZ = jvp_all(arch, layers, X, ops)
    return dZ.reshape(arch.n_params, -1).T


def entry_degree(arch: Architecture) -> int:
    """A bound D on the total degree of an entry of the compressed Jacobian as a polynomial in
    (W, X, compression coefficients): deg_W φ − 1 + deg_X φ + 1.

    deg_X φ = 3^l (attention), r^{h−1} (polynomial network); deg_W φ = Σ_{j=1}^{l} 3^j
    (each attention layer is trilinear in its weights and cubic in its input) or Σ_{j<h} r^j.
    """
    l = arch.depth
    if arch.kind == "pnn":
        r = arch.activation_degree
        return r ** (l - 1) + sum(r ** j for j in range(l))
    return 3 ** l + sum(3 ** j for j in range(1, l + 1))


def random_weights(arch: Architecture, ops: Arithmetic,
                   rng: np.random.Generator) -> list:
    """Generic weights: standard normal (float/complex/mp) or uniform residues (F_p)."""
    return arch.unpack(ops.random(rng, (arch.n_params,)))


def random_inputs(arch: Architecture, ops: Arithmetic, rng: np.random.Generator,
                  n: int) -> np.ndarray:
    """n generic inputs, shape (n, d_0, t)."""
    return ops.random(rng, (n, arch.widths[0], arch.tokens))


def compressed_jacobian(arch: Architecture, layers: Sequence[LayerWeights], X: np.ndarray,
                        ops: Arithmetic, rng: np.random.Generator, k: int,
                        max_entries: int = 4_000_000) -> np.ndarray:
    """Random combinations R_n J_n of each input's rows: (N·k, n_params), computed in chunks.

    The rows of one input are highly dependent (a single lightning layer with t = 2 sees only 4
    numbers of δA per input), so k random combinations per input carry the same information with
    far fewer rows. rank(R J) ≤ rank(J) for every R, so over F_p the result stays a certified
    lower bound; for random R it equals rank(J) generically once N·k ≥ rank.
    """
    rows = arch.output_size
    if k >= rows:
        return jacobian(arch, layers, X, ops)
    chunk = max(1, max_entries // (arch.n_params * rows))
    out = []
    for start in range(0, X.shape[0], chunk):
        Xc = X[start:start + chunk]
        _, dZ = jvp_all(arch, layers, Xc, ops)                  # (P, n, d_l, t)
        Jn = np.moveaxis(dZ.reshape(arch.n_params, Xc.shape[0], rows), 0, -1)   # (n, rows, P)
        R = ops.random(rng, (Xc.shape[0], k, rows))
        out.append(ops.mm(R, Jn).reshape(-1, arch.n_params))
    return np.concatenate(out)


@dataclass(frozen=True)
class SaturatedRank:
    """Rank of the Jacobian at one point, with N grown until saturation.

    Attributes:
        rank: the final rank Decision.
        n_inputs: the number N of inputs used at the end.
        history: (N, rank) pairs in the order tried.
        saturated: True when the rank stopped growing when N was doubled, or hit `cap`; False
            when N was fixed by the caller (not checked) or max_doublings was reached.
    """

    rank: Decision
    n_inputs: int
    history: tuple[tuple[int, int], ...]
    saturated: bool


def saturated_rank(arch: Architecture, ops: Arithmetic, rank_fn: Callable[[np.ndarray], Decision],
                   rng: np.random.Generator, n_inputs: int | None = None, cap: int | None = None,
                   layers: Sequence[LayerWeights] | None = None, rows_per_input: int | None = None,
                   max_doublings: int = 6) -> SaturatedRank:
    """Rank of the Jacobian at a random point (or `layers`), doubling N until the rank saturates.

    Args:
        rank_fn: maps a Jacobian matrix to a rank Decision (float, mp or exact backend).
        n_inputs: a fixed N chosen by the user (no saturation loop).
        cap: a known upper bound on the rank (e.g. from the symmetries); reaching it stops early.
        max_doublings: give up growing N after this many doublings (then saturated=False).
        rows_per_input: compress each input's d_l·t rows to this many random combinations
            (see compressed_jacobian); None keeps every row.
    Raises:
        ValueError: n_inputs < 1.
    """
    if n_inputs is not None and n_inputs < 1:
        raise ValueError(f"the number of inputs must be positive, got {n_inputs}")
    layers = random_weights(arch, ops, rng) if layers is None else layers
    cap = arch.n_params if cap is None else min(cap, arch.n_params)
    k = min(rows_per_input or arch.output_size, arch.output_size)

    def rows_for(n: int) -> np.ndarray:
        X = random_inputs(arch, ops, rng, n)
        return compressed_jacobian(arch, layers, X, ops, rng, k)

    N = n_inputs or max(2, math.ceil((cap + 4) / k))
    J = rows_for(N)
    result = rank_fn(J)
    history = [(N, result.rank)]
    # An undecided numerical rank never counts as saturated: more rows improve its conditioning.
    saturated = n_inputs is None and result.decided and result.rank >= cap
    while n_inputs is None and not saturated and len(history) <= max_doublings:
        J = np.concatenate([J, rows_for(N)])
        N *= 2
        new = rank_fn(J)
        history.append((N, new.rank))
        saturated = new.decided and (new.rank >= cap or (result.decided and new.rank <= result.rank))
        result = new
    return SaturatedRank(result, N, tuple(history), saturated)
