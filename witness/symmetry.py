"""Witness sets moved by an exact symmetry of the system: a permutation of the variables.

If σ(x) = x[perm] (σ(x)_k = x_{perm[k]}) leaves every polynomial of F unchanged, σ maps V(F)
onto itself and each irreducible component C onto an irreducible component σ(C) of the same
dimension and degree. A witness set (C ∩ {A x = b}) goes to σ(C) ∩ {A' y = b} with
A' = A[:, perm] (A x = Σ_k A[:, perm[k]] y_k for y = σ(x)), a generic slice for σ(C) because
{A x = b} is one for C. The moved points need no path tracking; what they are is still
checked: the linear trace test on the moved set (the same pencils and redraws as
``witness.monodromy``) decides that they are a complete witness set, and irreducibility is
inherited from C (a loop for σ(C) is the σ-image of a loop for C).

Why: the deep fibers of lightning self-attention have such symmetries (row 1 of Q_i and K_i
exchanged, paper-notes §3.3), one component per coset; a monodromy search for the second
component repeats the first one's loops (widths 2,2,2, ranks 1,1, seed 3: 47.9 s of search
loops for a component whose points are a permutation away).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import distinct
from .monodromy import MAX_PENCIL_REDRAWS
from .options import Options, resolve
from .system import PolynomialSystem
from . import trace
from .trace import Pencil, TraceTestResult, slice_tracker
from .tracking import TrackResult
from .witness_set import WitnessSet

def check_permutation(perm: Sequence[int], n: int) -> np.ndarray:
    """perm as an int array (n,); ValueError when it is not a permutation of 0..n-1."""
    p = np.asarray(perm)
    if p.shape != (n,) or not np.issubdtype(p.dtype, np.integer) or \
            sorted(p.tolist()) != list(range(n)):
        raise ValueError(f"not a permutation of the {n} variables: {list(perm)[:12]}")
    return p.astype(int)


def invariant_under(F: PolynomialSystem, perm: Sequence[int]) -> bool:
    """True when F(x[perm]) = F(x) for every equation, as polynomials (exact comparison of
    the coefficient dictionaries; for inexact coefficients too, which must then be equal as
    stored). ValueError for a non-permutation."""
    p = check_permutation(perm, F.n_vars)
    for poly in F.polynomials:
        moved: dict = {}
        for e, c in poly.items():
            f = [0] * F.n_vars
            for k, ek in enumerate(e):        # y_k = x_{perm[k]}: y_k^e_k = x_{perm[k]}^e_k
                f[p[k]] = ek
            moved[tuple(f)] = c
        if moved != poly:
            return False
    return True


def image_witness_set(W: WitnessSet, perm: Sequence[int]) -> WitnessSet:
    """σ(W) for σ(x) = x[perm]: points W.points[:, perm] (degree, n) complex128 on the slice
    A[:, perm] y = b; same systems (they must be σ-invariant: ``invariant_under``; not
    checked here). ValueError when perm is not a permutation of W's n variables."""
    p = check_permutation(perm, W.system.n_vars)
    return WitnessSet(W.system, W.square, W.dim, W.slice_A[:, p], W.slice_b.copy(),
                      W.points[:, p], W.seed, {**W.info, "image_under_permutation": True})


def image_trace_test(W: WitnessSet, rng: np.random.Generator, options: Options | None = None,
                     on_result: Callable[[TrackResult], None] | None = None
                     ) -> TraceTestResult:
    """The trace test of all of W's points as one group, on ``TraceOptions.pencils`` pencils
    (the next only when the previous passes), a pencil with failed paths redrawn up to
    MAX_PENCIL_REDRAWS times, as ``witness.monodromy`` tests a component. on_result receives
    every TrackResult (path accounting)."""
    opt = resolve(options)
    pencils = [Pencil(W, rng, base=(i == 0), options=opt) for i in range(opt.trace.pencils)]
    err = distinct.error_estimates(None, W.degree, opt.points)
    track = slice_tracker(W, "numpy", opt, on_result)
    return trace.test_groups(pencils, W.points, err, [list(range(W.degree))], track, opt,
                       MAX_PENCIL_REDRAWS)[0]
