"""Classify a point of a single-layer lightning neuromanifold M_{d,d',a}: zero, singular, boundary,
smooth (or undecided), with evidence computed independently of the rules.

The labels follow the rules of paper-notes §2, read from ranks of A and V decided at a chosen
precision with an explicit tolerance and margin; the evidence (Jacobian ranks on the fiber,
nearby tangent spaces, outside points of the Zariski closure) is checked against them.

Modules:
    precision       RankOptions, Decision, threshold_rank / threshold_zero, SVD at a precision.
    labels          Label, SingularVerdict, BoundaryVerdict, Agreement (StrEnums).
    rules           rule_labels (paper-notes §2) and the rank / u ∥ w decisions.
    fiber           points of the fiber over φ on each branch.
    evidence        Evidence, FiberPoint: Jacobian ranks there, nearby tangent spaces, agreement.
    ambient         Membership, membership: is an ambient tensor in M (preimage recovery).
    boundary        probes: real points of the Zariski closure outside M near φ.
    classification  Classification, the result record.
    inputs          validation of the input matrices, tensors and shapes.
This module: the entry points classify_weights / classify_av / classify_tensor / classify_point.
"""
from __future__ import annotations

import math

import numpy as np

from ..io import PointFormat
from ..rank import Decision, RankOptions, singular_values, threshold_rank, threshold_zero
from ..tensor import check_tensor
from .ambient import Membership, membership
from .classification import Classification
from .evidence import NEARBY_POINTS, Evidence, FiberPoint, agreement, collect_evidence
from .inputs import check_a, check_array, check_matrix, check_shape, exact_rationals
from .precision import fmt, svd
from .labels import (LABELS, NOT_IN_M, UNDECIDED, Agreement, BoundaryVerdict, Label,
                     SingularVerdict, Source)
from .rules import rank_decisions, rule_labels, rule_outcome

__all__ = ["LABELS", "UNDECIDED", "Label", "Source", "SingularVerdict", "BoundaryVerdict",
           "Agreement", "NEARBY_POINTS", "Classification", "Decision", "Evidence", "FiberPoint",
           "Membership", "RankOptions", "classify_av", "classify_point", "classify_tensor",
           "classify_weights", "membership", "rule_labels", "singular_values", "svd",
           "threshold_rank", "threshold_zero"]


def classify_weights(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
                     precision: RankOptions | None = None, seed: int = 0,
                     evidence: bool = True) -> Classification:
    """Classify φ_W for single-layer weights W = (Q, K, V), A = Kᵀ Q (paper-notes §1).

    Parameters
    ----------
    Q, K : array_like (a, d)
        Fractions (exact, as read by numag.io), ints, floats or mpf; floats are taken at their
        exact binary value.
    V : array_like (d', d)
    precision : RankOptions, optional
        Where every decision is made: RankOptions() (50 digits, input taken as exact) by
        default; RankOptions(None) decides in float64 (never certifies a special class).
    seed : int
        Seeds the random inputs, fiber samples and probes of the evidence.
    evidence : bool
        Compute the Evidence (Jacobian ranks on the fiber, boundary probes); costly for large
        shapes.

    Returns
    -------
    Classification
        Labels (zero, singular, boundary, smooth, or undecided with the alternatives), the
        rank decisions with their margins, the evidence and its agreement with the rules.

    Raises
    ------
    ValueError
        Inconsistent shapes, d < 2, NaN or infinite entries.

    Examples
    --------
    >>> Q = np.array([[1, 0, 2], [0, 1, 1]])
    >>> K = np.array([[1, 1, 0], [2, 0, 1]])
    >>> V = np.array([[1, 0, 1], [0, 2, 1]])
    >>> classify_weights(Q, K, V, evidence=False)
    Classification((3, 2, 2): smooth; ranks A=2, V=2; margin 3.74e+11 at 50 digits)

    References
    ----------
    Henry, Marchetti, Kohn (arXiv 2408.17221): singular points via low rank of A and V,
    boundary via rank-1 matrices; the exact sets are derived in paper-notes §2.
    """
    Q, K, V = (check_matrix(m, n) for m, n in ((Q, "Q"), (K, "K"), (V, "V")))
    if Q.shape != K.shape or V.shape[1] != Q.shape[1]:
        raise ValueError(f"Q {Q.shape}, K {K.shape} must both be (a, d) and V {V.shape} (d', d)")
    a, d = Q.shape
    # exact (floats and mpf as the rationals they are): rk A ≤ a then holds exactly, which
    # rank_decisions relies on when it drops rank candidates above a for weights
    A = exact_rationals(K).T.dot(exact_rationals(Q))
    return _classify(A, V, (d, V.shape[0], a), precision or RankOptions(), seed, evidence,
                     Source.WEIGHTS, qkv=(Q, K, V))


def classify_av(A: np.ndarray, V: np.ndarray, a: int, precision: RankOptions | None = None,
                seed: int = 0, evidence: bool = True) -> Classification:
    """Classify the point T(A, V) of M_{d,d',a} given by A (d, d) and V (d', d).

    Parameters
    ----------
    A : array_like (d, d)
    V : array_like (d', d)
        Entries as in classify_weights.
    a : int
        The attention rank of the neuromanifold M_{d,d',a}.
    precision, seed, evidence :
        As in classify_weights.

    Returns
    -------
    Classification

    Raises
    ------
    ValueError
        Wrong shapes, d < 2, NaN/infinite entries, or rk A > a for every rank candidate of A
        and V ≠ 0 (then (A, V) is not a point of M_{d,d',a}). When rk A is undecided between a
        value ≤ a and one > a, the result is undecided with ("not in M",) among its
        alternatives, never definite labels.

    Examples
    --------
    A rank-one point with u ∥ w (A = u vᵀ, V = c wᵀ, w = 2u) of M_{3,2,1}: singular and on the
    boundary (paper-notes §2):

    >>> u, v, c = np.array([1, 2, 0]), np.array([0, 1, 1]), np.array([1, -1])
    >>> r = classify_av(np.outer(u, v), np.outer(c, 2 * u), a=1, evidence=False)
    >>> [str(label) for label in r.labels], r.ranks
    (['singular', 'boundary'], {'A': 1, 'V': 1})

    References
    ----------
    paper-notes §2 (rules derived from HMK, arXiv 2408.17221).
    """
    A, V = check_matrix(A, "A"), check_matrix(V, "V")
    if A.shape[0] != A.shape[1] or V.shape[1] != A.shape[0]:
        raise ValueError(f"A must be (d, d) and V (d', d), got A {A.shape}, V {V.shape}")
    check_a(a)
    return _classify(A, V, (A.shape[0], V.shape[0], int(a)), precision or RankOptions(), seed,
                     evidence, Source.AV)


def classify_tensor(T: np.ndarray, a: int, precision: RankOptions | None = None, seed: int = 0,
                    evidence: bool = True) -> Classification:
    """Classify an ambient point T (d', d, d, d) (paper-notes §1): recover a real preimage, or
    report "not in M" (labels ()) with the residual.

    A preimage that fits T but whose rk A is undecided between a value ≤ a and one > a gives
    "undecided" with ("not in M",) among the alternatives (membership undecided).

    Parameters
    ----------
    T : array_like (d', d, d, d)
        T[r][b][c][e], symmetric in b, c.
    a : int
    precision, seed, evidence :
        As in classify_weights.

    Returns
    -------
    Classification
        With `membership` (the recovery's residual and reason).

    Raises
    ------
    ValueError
        T not of shape (d', d, d, d), not symmetric in its middle indices, NaN/inf.

    Examples
    --------
    >>> T = np.array([[[[2, 4], [1, 2]], [[1, 2], [1, 2]]]])       # c ⊗ S ⊗ v, S definite
    >>> r = classify_tensor(T, a=1, evidence=False)
    >>> r.labels, r.membership.in_M
    ((), False)

    References
    ----------
    paper-notes §1 (the ambient tensor), §2 (real points of the Zariski closure outside M).
    """
    T = np.asarray(T)
    check_a(a)
    if T.ndim != 4:
        raise ValueError(f"an ambient point is a 4-index tensor (d', d, d, d), got shape {T.shape}")
    T = check_tensor(check_array(T, "tensor"), T.shape[1], T.shape[0])
    prec = precision or RankOptions()
    d_out, d = T.shape[0], T.shape[1]
    shape = (d, d_out, int(a))
    check_shape(shape)
    if all(x == 0 for x in T.flat):
        zA, zV = np.zeros((d, d), dtype=int), np.zeros((d_out, d), dtype=int)
        mem = Membership(True, 0.0, "T = 0 = T(0, V) for every V")
        return _classify(zA, zV, shape, prec, seed, evidence, Source.TENSOR, member=mem)
    mem, av = membership(T, a, prec, seed)
    if mem.in_M or (mem.in_M is None and mem.preimage_fits):
        # in M, or a fitting preimage whose rk A may exceed a: the rank decision of the
        # membership test (mem.rank_A) then leaves "not in M" among the alternatives
        return _classify(av[0], av[1], shape, prec, seed, evidence, Source.TENSOR,
                         member=mem)
    labels = UNDECIDED if mem.in_M is None else ()
    alts = (NOT_IN_M, (Label.IN_M,)) if mem.in_M is None else ()
    margin = mem.residual_decision.margin if mem.residual_decision else math.inf
    return Classification(shape, labels, (), {"A": None, "V": None}, (), margin, prec,
                          Source.TENSOR, alts, membership=mem, seed=seed,
                          notes=(mem.reason,))


def classify_point(point, precision: RankOptions | None = None, seed: int = 0,
                   evidence: bool = True) -> Classification:
    """Classify a numag.io.SingleLayerPoint (weights, (A, V) or tensor; numag.io).

    Parameters
    ----------
    point : numag.io.SingleLayerPoint
    precision, seed, evidence :
        As in classify_weights.

    Returns
    -------
    Classification

    Examples
    --------
    >>> from numag.io import single_layer_point_from_json
    >>> p = single_layer_point_from_json({"widths": [2, 1], "ranks": [1],
    ...                                   "A": [[1, 0], [0, 0]], "V": [[0, 0]]})
    >>> [str(label) for label in classify_point(p, evidence=False).labels]
    ['zero', 'singular', 'boundary']
    """
    d, d_out, a = point.shape
    if point.kind is PointFormat.WEIGHTS:
        return classify_weights(*(point.arrays[k] for k in "QKV"), precision, seed, evidence)
    if point.kind is PointFormat.AV:
        return classify_av(point.arrays["A"], point.arrays["V"], a, precision, seed, evidence)
    if point.kind is PointFormat.TENSOR:
        return classify_tensor(point.arrays["T"], a, precision, seed, evidence)
    raise ValueError(f"unknown point kind {point.kind!r}")


def _classify(A_in, V_in, shape, prec: RankOptions, seed: int, want_evidence: bool,
              source: Source,
              qkv=None, member: Membership | None = None) -> Classification:
    check_shape(shape)
    with prec.context():
        A, V = prec.convert(A_in), prec.convert(V_in)
        decs, ranks, combos = rank_decisions(A, V, shape, prec, source,
                                             member.rank_A if member else None)
        labels, kinds, alts, notes = _labels(combos, shape, prec, decs)
        margin, margin_notes = _margin(decs, alts)
        ev = (collect_evidence(A, V, shape, prec, seed, decs, qkv, (A_in, V_in),
                               exact_input=source is not Source.TENSOR)
              if want_evidence else None)
    agree = agreement(labels, ev)
    notes += margin_notes + [f"{k}: rule and evidence DISAGREE"
                             for k, v in agree.items() if v.conflict]
    return Classification(shape, labels, kinds, ranks, decs, margin, prec, source, alts, ev,
                          agree, member, tuple(notes), seed)


def _labels(combos: list, shape, prec: RankOptions, decs: tuple[Decision, ...] = ()):
    """(labels, kinds, alternatives, notes) over every (rk A, rk V, u ∥ w) still possible:
    one label set, or ("undecided",) with the alternatives. A candidate rk A > a is the outcome
    NOT_IN_M ("not in M"), which differs from every label set."""
    # rule_labels is looked up here, in the package namespace, so a replaced rule takes effect
    label_sets: dict = {}
    for rA, rV, par in combos:
        labels, kinds = rule_outcome(*shape, rA, rV, par, rules=rule_labels)
        label_sets.setdefault(labels, kinds)
    if len(label_sets) == 1:
        (labels, kinds), = label_sets.items()
        if labels == NOT_IN_M:       # only reachable through a rank decision passed in
            return (), kinds, (), list(kinds)
        return labels, kinds, (), []
    alts = tuple(sorted(label_sets))
    notes = ["undecided: the margins at this precision leave " +
             " or ".join("{" + ", ".join(x) + "}" for x in alts)]
    if NOT_IN_M in label_sets:
        d, d_out, a = shape
        dA = decs[0] if decs else None
        cands = f" {list(dA.candidates)}" if dA else ""
        margin = (f" (margin {fmt(dA.margin)}, which does not clear the min margin "
                  f"{fmt(prec.min_margin)})" if dA else "")
        notes.append(f"rank A undecided among{cands}{margin}: a rank above a = {a} would mean "
                     f"the input is not a point of M_{{{d},{d_out},{a}}} (not in M), so no "
                     "label is certain")
    if prec.is_float:
        notes.append("float64 cannot tell a special class from a neighbour within rounding "
                     "(≈1e-16 relative): use mpmath digits on exact input")
    else:
        notes.append(f"more digits than {prec.digits} (option 'digits') can decide it when the "
                     "input is exact")
    return UNDECIDED, (), alts, notes


def _margin(decs: tuple[Decision, ...], alts: tuple) -> tuple[float, list[str]]:
    """Smallest margin of the decisions that matter, and notes on those that do not."""
    if alts:
        return min((x.margin for x in decs), default=math.inf), []
    # an undecided rank that cannot change the labels (e.g. rk V in {3, 4}) does not count
    margin = min((x.margin for x in decs if x.decided), default=math.inf)
    return margin, [f"{x.quantity} undecided ({list(x.candidates)}) but the labels are the same "
                    "for every candidate" for x in decs if not x.decided]
