"""The rule-based labels of paper-notes §2, and the thresholded decisions they are read from.

Rules (HMK singular points "characterized via low rank of A and V", boundary "given by rank-1
matrices"; the exact sets are [derived]), d ≥ 2, t ≥ 2, A = u vᵀ and V = c wᵀ when
rk A = rk V = 1:
* zero: A = 0 or V = 0 (singular and boundary).
* (a, d') ≠ (1, 1): singular iff (a < d and rk A < a) or (rk A ≤ 1 and rk V ≤ 1).
* a = d' = 1: singular iff zero, or d ≥ 3 and u ∥ w.
* boundary iff zero, or rk A = rk V = 1 and u ∥ w. "smooth" means "not singular"; a smooth
  boundary point gets both labels.
* rk A > a: T(A, V) is not a point of M_{d,d',a} at all ("not in M"); a rank of A undecided
  between a and more is therefore undecided between a label set and "not in M".
"""
from __future__ import annotations

import itertools

import numpy as np

from ..rank import Decision, RankOptions, singular_values, threshold_rank
from .labels import LABELS, NOT_IN_M, Label, Source
from .precision import fmt

__all__ = ["LABELS", "NOT_IN_M", "rule_labels", "rule_outcome", "rank_decisions"]


def rule_labels(d: int, d_out: int, a: int, rank_A: int, rank_V: int,
                parallel: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Labels and singular kinds of a point with these ranks (paper-notes §2; rules in the module
    docstring). `parallel` (u ∥ w) matters only when rank_A = rank_V = 1.

    Returns
    -------
    (labels, kinds): labels ⊂ LABELS in a fixed order; kinds explain 'singular'.
    """
    if rank_A == 0 or rank_V == 0:
        return (Label.ZERO, Label.SINGULAR, Label.BOUNDARY), ("zero (fiber {A = 0} ∪ {V = 0})",)
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
    labels = (Label.SINGULAR,) if kinds else (Label.SMOOTH,)
    if rank1 and parallel:
        labels += (Label.BOUNDARY,)
    return labels, tuple(kinds)


def rank_decisions(A: np.ndarray, V: np.ndarray, shape: tuple[int, int, int], prec: RankOptions,
                   source: Source, rank_A: Decision | None = None
                   ) -> tuple[tuple[Decision, ...], dict, list]:
    """Decide rk A, rk V and, when both may be 1, u ∥ w (A, V converted to prec, in its context).

    Candidates of rk A above min(a, d) are kept for sources "(A, V)" and "ambient tensor": such
    a rank means the input is not a point of M_{d,d',a}, an outcome of its own (rule_outcome).
    For "weights (Q, K, V)" they are dropped: A = KᵀQ has rank ≤ a exactly, so they are
    rounding artefacts of the product.

    Parameters
    ----------
    rank_A
        a rank decision for A made elsewhere (the ambient membership test decides it on
        the recovered preimage at its working precision), used instead of deciding again.

    Returns
    -------
    (decisions, {"A": rank, "V": rank} read at the tolerance, every (rk A, rk V, u ∥ w)
        consistent with the margins).

    Raises
    ------
    ValueError
        source "(A, V)", rk A > a for every candidate (decided, or undecided among
        ranks that all exceed a) and V ≠ 0 possible: T(A, V) is not a point of M_{d,d',a}.
    """
    d, d_out, a = shape
    limit = min(a, d)
    sA, sV = singular_values(A, prec), singular_values(V, prec)
    dA = rank_A if rank_A is not None else threshold_rank("rank A", sA, prec)
    dV = threshold_rank("rank V", sV, prec)
    if source is Source.AV and min(dA.candidates) > limit and 0 not in dV.candidates:
        raise ValueError(_above_a_message(dA, shape, prec))
    if source.rank_bounded:
        # rk A ≤ a holds exactly for A = KᵀQ; candidates above it are rounding artefacts
        cand_A = tuple(r for r in dA.candidates if r <= limit) or (limit,)
    else:
        cand_A = dA.candidates
    decs = [dA, dV]
    pars: tuple[bool, ...] = (False,)
    if 1 in cand_A and 1 in dV.candidates:
        dP, pars = _parallel(A, V, max(sA), max(sV), prec)
        if dP is not None:
            decs.append(dP)
    combos = list(itertools.product(cand_A, dV.candidates, pars))
    return tuple(decs), {"A": dA.value, "V": dV.value}, combos


def rule_outcome(d: int, d_out: int, a: int, rank_A: int, rank_V: int,
                 parallel: bool, rules=None) -> tuple[tuple[Label, ...], tuple[str, ...]]:
    """rule_labels, or (NOT_IN_M, (why,)) when rank_A > min(a, d) and rank_V > 0: then T(A, V)
    is not a point of M_{d,d',a} (it lies in M_{d,d',rank_A}) and no label of paper-notes §2
    applies. (With V = 0, T(A, 0) = 0 = T(0, V') is the zero point of M whatever rk A is.)

    Parameters
    ----------
    rules
        the rule_labels to call (default this module's; the package passes its own
        namespace's so that a replaced rule takes effect).
    """
    if rank_A > min(a, d) and rank_V != 0:
        return NOT_IN_M, (f"rk A = {rank_A} > a = {a}: not a point of M_{{{d},{d_out},{a}}}",)
    return (rules or rule_labels)(d, d_out, a, rank_A, rank_V, parallel)


def _above_a_message(dA: Decision, shape: tuple[int, int, int], prec: RankOptions) -> str:
    """Why A (every rank candidate above min(a, d)) makes (A, V) no point of M_{d,d',a}."""
    d, d_out, a = shape
    limit = min(a, d)
    tail = f": (A, V) is not a point of M_{{{d},{d_out},{a}}}"
    if dA.decided:
        return (f"A has rank {dA.value} > a = {a} (tolerance {prec.tolerance:.1e}, "
                f"margin {fmt(dA.margin)}){tail}")
    # rk A > a iff σ_{a+1}/σ_1 > tolerance: that value's margin decides it, even though the
    # rank itself is undecided among the candidates
    return (f"A has rank > a = {a}: its rank is undecided among {list(dA.candidates)}, all "
            f"above a (σ_{limit + 1}/σ_1 clears the tolerance {prec.tolerance:.1e} by the "
            f"margin {fmt(dA.values[limit] / prec.tolerance)}){tail}")


def _parallel(A, V, nA, nV, prec: RankOptions) -> tuple[Decision | None, tuple[bool, ...]]:
    """u ∥ w for A = u vᵀ, V = c wᵀ iff [A/|A|, Vᵀ/|V|] (columns spanning u, w) has rank 1."""
    if nA == 0 or nV == 0:
        return None, (False, True)               # float64 zero matrix: direction unknown
    M = np.concatenate([A / nA, V.T / nV], axis=1)
    dP = threshold_rank("rank [A/|A|, Vᵀ/|V|] (u ∥ w iff 1)", singular_values(M, prec), prec)
    return dP, tuple(sorted({c <= 1 for c in dP.candidates}))
