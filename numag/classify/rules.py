"""The rule-based labels of paper-notes §2, and the thresholded decisions they are read from.

Rules (HMK singular points "characterized via low rank of A and V", boundary "given by rank-1
matrices"; the exact sets are [derived]), d ≥ 2, t ≥ 2, A = u vᵀ and V = c wᵀ when
rk A = rk V = 1:
* zero: A = 0 or V = 0 (singular and boundary).
* (a, d') ≠ (1, 1): singular iff (a < d and rk A < a) or (rk A ≤ 1 and rk V ≤ 1).
* a = d' = 1: singular iff zero, or d ≥ 3 and u ∥ w.
* boundary iff zero, or rk A = rk V = 1 and u ∥ w. "smooth" means "not singular"; a smooth
  boundary point gets both labels.
"""
from __future__ import annotations

import itertools

import numpy as np

from .precision import Decision, Precision, fmt, singular_values, threshold_rank

LABELS = ("zero", "singular", "boundary", "smooth", "undecided")


def rule_labels(d: int, d_out: int, a: int, rank_A: int, rank_V: int,
                parallel: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Labels and singular kinds of a point with these ranks (paper-notes §2; rules in the module
    docstring). `parallel` (u ∥ w) matters only when rank_A = rank_V = 1.

    Returns:
        (labels, kinds): labels ⊂ LABELS in a fixed order; kinds explain 'singular'.
    """
    if rank_A == 0 or rank_V == 0:
        return ("zero", "singular", "boundary"), ("zero (fiber {A = 0} ∪ {V = 0})",)
    rank1 = rank_A == 1 and rank_V == 1
    kinds = []
    if (a, d_out) == (1, 1):
        if d >= 3 and parallel:
            kinds.append("u ∥ w with a = d' = 1, d ≥ 3")
    else:
        if a < d and rank_A < a:
            kinds.append(f"rank drop of A below a (rk A = {rank_A} < a = {a} < d = {d})")
        if rank1:
            kinds.append("rk A = rk V = 1 with u ∥ w (the two branches meet)" if parallel else
                         "self-intersection of two branches (rk A = rk V = 1, u ∦ w)")
    labels = ("singular",) if kinds else ("smooth",)
    if rank1 and parallel:
        labels += ("boundary",)
    return labels, tuple(kinds)


def rank_decisions(A: np.ndarray, V: np.ndarray, shape: tuple[int, int, int], prec: Precision,
                   source: str) -> tuple[tuple[Decision, ...], dict, list]:
    """Decide rk A, rk V and, when both may be 1, u ∥ w (A, V converted to prec, in its context).

    Returns:
        (decisions, {"A": rank, "V": rank} read at the tolerance, every (rk A, rk V, u ∥ w)
        consistent with the margins).
    Raises:
        ValueError: source "(A, V)" and rk A > a decided (not a point of M_{d,d',a}).
    """
    d, d_out, a = shape
    sA, sV = singular_values(A, prec), singular_values(V, prec)
    dA, dV = threshold_rank("rank A", sA, prec), threshold_rank("rank V", sV, prec)
    if source == "(A, V)" and dA.decided and dA.value > min(a, d):
        raise ValueError(f"A has rank {dA.value} > a = {a} (tolerance {prec.tolerance:.1e}, "
                         f"margin {fmt(dA.margin)}): (A, V) is not a point of "
                         f"M_{{{d},{d_out},{a}}}")
    # rk A ≤ a holds exactly for A = KᵀQ; candidates above it are rounding artefacts
    cand_A = tuple(r for r in dA.candidates if r <= min(a, d)) or (min(a, d),)
    decs = [dA, dV]
    pars: tuple[bool, ...] = (False,)
    if 1 in cand_A and 1 in dV.candidates:
        dP, pars = _parallel(A, V, max(sA), max(sV), prec)
        if dP is not None:
            decs.append(dP)
    combos = list(itertools.product(cand_A, dV.candidates, pars))
    return tuple(decs), {"A": dA.value, "V": dV.value}, combos


def _parallel(A, V, nA, nV, prec: Precision) -> tuple[Decision | None, tuple[bool, ...]]:
    """u ∥ w for A = u vᵀ, V = c wᵀ iff [A/|A|, Vᵀ/|V|] (columns spanning u, w) has rank 1."""
    if nA == 0 or nV == 0:
        return None, (False, True)               # float64 zero matrix: direction unknown
    M = np.concatenate([A / nA, V.T / nV], axis=1)
    dP = threshold_rank("rank [A/|A|, Vᵀ/|V|] (u ∥ w iff 1)", singular_values(M, prec), prec)
    return dP, tuple(sorted({c <= 1 for c in dP.candidates}))
