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

The slice is random in the coordinates where the paths are tracked (``witness.scaling``:
x = 2^d y with d from G; ``slice_column_scales``), so that witness points of components far
from the origin, or very close to it, have sizes near 1 there.

Redraws. Paths that fail are tried again with a fresh randomization, slice AND gamma (not a
fresh gamma alone), because a draw can make the sliced system itself ill-conditioned, which no
gamma repairs. Measured on issue 10 row 3 restated (tests/test_witness_issue10.py
``THREE_QUARTICS``, f = (x3^4 - x4)(x5^4 - x6 + x1)(x7^4 - x3 - 1)^2), seed 1, dim 5: G1 = f +
r l2 on the line cut by G2 and the slice; its 16 roots, computed at 60 digits, are 10 isolated
roots at |x| = 3..8 and 3 pairs at |x| = 18, 31, 43 near the double factor's zeros, split only
by r l2, which homogenized carries x0^15 ~ |x|^-15 (relative separations 6e-4, 1.4e-5, 4e-6).
There the total-degree homotopy's tangent |dX/ds| on the patch is 4.7e14 (7.9 at an isolated
root): its branch points lie within ~1e-11 of s = 1. Cauchy loops from radius 1e-3 down to
3.6e-15 closed after 13, then 6, then 2 loops, never 1; tracking from the exact roots toward
s = 1 - 1e-9 stopped at min_step at once; a second gamma failed on the same 6 paths (and so
did evaluating f as written instead of expanded, which lowers the Newton noise at these roots
from 1e-12 to 6e-15 but not the branch points). A second draw: no failed path, and the
decomposition certified (seeds 0-7 now all certified). The superset used is still one whose
every path is accounted for: a draw with failed paths is never certified, only replaced; every
draw is recorded (``Superset.draws``, "draws" in the decomposition's accounting).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .options import Options
from .scaling import morgan_scaling
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
    the points reached, with their numbers of paths); ``bezout``: its number of paths;
    ``draws``: per draw of (G, slice, gamma), its solve seed and failed paths (the last or the
    best one is this superset)."""
    dim: int
    G: PolynomialSystem
    A: np.ndarray
    b: np.ndarray
    solve: PathSolve
    seconds: float
    draws: tuple[dict, ...] = ()

    @property
    def bezout(self) -> int:
        return self.solve.n_paths


def total_degree(F: PolynomialSystem, dim: int) -> int:
    """Number of paths of the superset solve of dimension dim (product of the n - dim highest
    degrees of F)."""
    degs = sorted(F.degrees, reverse=True)[:F.n_vars - dim]
    return math.prod(degs)


def slice_column_scales(G: PolynomialSystem) -> np.ndarray:
    """2^-d_j for the variable scaling x = 2^d y of G (``witness.scaling.morgan_scaling``): a
    slice A x = b with these column factors is A' y = b with A' random in the scaled
    coordinates, where ``solve_paths`` tracks. Why: a slice random in x makes the witness
    points of a component far from the origin as large as the component's distance in every
    coordinate: on x = 10^6 of (x - 10^6) y, y ~ 10^6, and G's scaling (y by 2^-10, from G
    alone: the slice rows take no part) made it ~10^9 in y, a path 'at infinity', and the
    decomposition certified with one of its two lines."""
    sc = morgan_scaling(G)
    return np.exp2(-np.array(sc.variable_exponents, float))


def witness_superset(F: PolynomialSystem, dim: int, rng: np.random.Generator,
                     options: Options | None = None, attempts: int = 2) -> Superset:
    """The witness superset of dimension dim from a total-degree solve of [G; A x - b] (module
    docstring); singular points are left unexamined (``witness.decompose`` decides them).

    attempts : draws of (randomization, slice, gamma) while paths fail (>= 1); the draw with
        the fewest failed paths is returned, every draw's counts in ``draws``. Why a fresh
        randomization and slice and not only a fresh gamma: module docstring, "Redraws".

    Raises ValueError unless 0 <= dim < n, F has at least n - dim equations, attempts >= 1."""
    t0 = time.perf_counter()
    n = F.n_vars
    if not 0 <= dim < n:
        raise ValueError(f"dim must be in 0..{n - 1}, got {dim}")
    if F.n_equations < n - dim:
        raise ValueError(f"{F.n_equations} equations cannot cut out dimension {dim}")
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, got {attempts}")
    best, draws = None, []
    for _ in range(attempts):
        G = degree_ordered_randomization(F, n - dim, rng)
        A, b = random_slice(rng, dim, n)
        A = A * slice_column_scales(G)          # random in the scaled coordinates
        S = sliced_system(G, A, b) if dim else G
        sol = solve_paths(S, seed=int(rng.integers(2**31)), options=options, attempts=1,
                          examine=False, slice_rows=dim)
        failed = sol.counts()["failed"]
        draws.append({"seed": sol.seed, "failed": failed,
                      "failure_reasons": sol.failure_reasons()})
        if best is None or failed < best[3].counts()["failed"]:
            best = (G, A, b, sol)
        if failed == 0:
            break
    G, A, b, sol = best
    return Superset(dim, G, A, b, sol, time.perf_counter() - t0, tuple(draws))
