"""Witness supersets from our own tracker: all isolated solutions of a sliced, randomized system.

For a dimension d, the points of V(F) on a generic affine slice L = {A x = b} of codimension d
that are isolated in V(G) ∩ L, G = n - d generic combinations of F, are exactly the witness
points of the d-dimensional components of V(F) (Sommese–Wampler 2005, Theorem 13.5.1 for the
randomization, §13.6 for witness supersets); the other points of V(G) ∩ L lie on
higher-dimensional components of V(F) ("junk") or off V(F) (spurious, from the randomization).
``witness_superset`` solves the square system [G; A x - b] from a total-degree start with every
path accounted for (``witness.solve.solve_paths``): an independent witness superset, not taken
from PHCpack's cascade.

Randomization (``degree_ordered_randomization``): the equations are scaled to unit coefficient
norm, sorted by degree, and G_i = f_i + sum_j r_ij f_j over the m - k equations of lowest
degree (j), for the k equations of highest degree (i). Any k x m matrix R whose first k x k
block is invertible is row-equivalent to such an [I | R'] (same ideal R F), and a generic R has
an invertible block, so this is a generic randomization; its total degree is the product of
the k highest degrees (a full random combination has max-degree^k paths).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .options import Options
from .solve import PathSolve, solve_paths
from .system import PolynomialSystem
from .witness_set import random_complex, random_slice


def degree_ordered_randomization(F: PolynomialSystem, k: int, rng: np.random.Generator
                                 ) -> PolynomialSystem:
    """k generic combinations of F (module docstring): F itself when it has k equations."""
    m = F.n_equations
    if not 1 <= k <= m:
        raise ValueError(f"need 1 <= k <= {m} equations, got {k}")
    if k == m:
        return F
    norms = F.coefficient_norms()
    order = sorted(range(m), key=lambda i: -F.degrees[i])
    top, rest = order[:k], order[k:]
    R = np.zeros((k, m), complex)
    for row, i in enumerate(top):
        R[row, i] = 1.0
    R[:, rest] = random_complex(rng, k, len(rest))
    R = R / np.where(norms > 0, norms, 1.0)[None, :]
    return F.combined(R)


def sliced_system(G: PolynomialSystem, A: np.ndarray, b: np.ndarray) -> PolynomialSystem:
    """[G; A x - b] as one square PolynomialSystem (the slice rows appended)."""
    n = G.n_vars
    polys = [dict(p) for p in G.polynomials]
    for row, c in zip(np.atleast_2d(A), np.atleast_1d(b)):
        p = {tuple(int(j == i) for j in range(n)): complex(a) for i, a in enumerate(row)
             if a != 0}
        if c != 0:
            p[(0,) * n] = -complex(c)
        polys.append(p)
    return PolynomialSystem(G.variables, tuple(polys))


@dataclass(frozen=True)
class Superset:
    """A witness superset of dimension ``dim``: the square part G (n - dim combinations of F),
    the slice A x = b, and the PathSolve of [G; A x - b] (``solve``: every path's end state and
    the points reached, with their numbers of paths); ``bezout``: its number of paths."""
    dim: int
    G: PolynomialSystem
    A: np.ndarray
    b: np.ndarray
    solve: PathSolve
    seconds: float

    @property
    def bezout(self) -> int:
        return self.solve.n_paths


def total_degree(F: PolynomialSystem, dim: int) -> int:
    """Number of paths of the superset solve of dimension dim (product of the n - dim highest
    degrees of F)."""
    degs = sorted(F.degrees, reverse=True)[:F.n_vars - dim]
    return math.prod(degs)


def witness_superset(F: PolynomialSystem, dim: int, rng: np.random.Generator,
                     options: Options | None = None, attempts: int = 2) -> Superset:
    """The witness superset of dimension dim from a total-degree solve of [G; A x - b] (module
    docstring); singular points are left unexamined (``witness.decompose`` decides them).

    Raises ValueError unless 0 <= dim < n and F has at least n - dim equations."""
    t0 = time.perf_counter()
    n = F.n_vars
    if not 0 <= dim < n:
        raise ValueError(f"dim must be in 0..{n - 1}, got {dim}")
    if F.n_equations < n - dim:
        raise ValueError(f"{F.n_equations} equations cannot cut out dimension {dim}")
    G = degree_ordered_randomization(F, n - dim, rng)
    A, b = random_slice(rng, dim, n)
    S = sliced_system(G, A, b) if dim else G
    sol = solve_paths(S, seed=int(rng.integers(2**31)), options=options, attempts=attempts,
                      examine=False)
    return Superset(dim, G, A, b, sol, time.perf_counter() - t0)
