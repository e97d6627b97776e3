"""The words of a classification: labels, evidence verdicts and their agreement (StrEnums whose
values are the JSON strings)."""
from __future__ import annotations

import enum


class Source(enum.StrEnum):
    """What the classified point was given as."""

    WEIGHTS = "weights (Q, K, V)"     # rk A = rk KᵀQ ≤ a holds exactly
    AV = "(A, V)"                     # rk A may exceed a: then not a point of M
    TENSOR = "ambient tensor"         # membership in M is decided first

    @property
    def rank_bounded(self) -> bool:
        """rk A ≤ a holds by construction (A = KᵀQ with Q, K of a rows)."""
        return self is Source.WEIGHTS


class Label(enum.StrEnum):
    """A class of a point of M_{d,d',a} (paper-notes §2), or an outcome of an undecided one."""

    ZERO = "zero"
    SINGULAR = "singular"
    BOUNDARY = "boundary"
    SMOOTH = "smooth"
    UNDECIDED = "undecided"
    NOT_IN_M = "not in M"        # rk A > a: T(A, V) is no point of M (an alternative, no label)
    IN_M = "in M"                # an ambient point whose membership is undecided (alternative)

    @property
    def is_class(self) -> bool:
        """One of the four classes (not undecided, not a membership outcome)."""
        return self in (Label.ZERO, Label.SINGULAR, Label.BOUNDARY, Label.SMOOTH)


LABELS = (Label.ZERO, Label.SINGULAR, Label.BOUNDARY, Label.SMOOTH, Label.UNDECIDED)
UNDECIDED = (Label.UNDECIDED,)
NOT_IN_M = (Label.NOT_IN_M,)     # the outcome of a rank candidate rk A > a


class SingularVerdict(enum.StrEnum):
    """What the evidence (Jacobian ranks, nearby tangent spaces) says of singularity."""

    SINGULAR = "singular"
    SMOOTH = "smooth"                # consistent with smooth
    INCONCLUSIVE = "inconclusive"
    CRITICAL = "critical"            # every fiber point critical: nearby tangents decide (internal)

    @property
    def decided(self) -> bool:
        return self in (SingularVerdict.SINGULAR, SingularVerdict.SMOOTH)


class BoundaryVerdict(enum.StrEnum):
    """What the boundary probes (outside points of the Zariski closure) say."""

    BOUNDARY = "boundary"
    NOT_BOUNDARY = "not boundary"
    NOT_PROBED = "not probed"
    INCONCLUSIVE = "inconclusive"

    @property
    def decided(self) -> bool:
        return self in (BoundaryVerdict.BOUNDARY, BoundaryVerdict.NOT_BOUNDARY)


class Agreement(enum.StrEnum):
    """Rule labels vs evidence, per question (singular, boundary)."""

    AGREE = "agree"
    DISAGREE = "DISAGREE"
    RULE_UNDECIDED = "rule undecided"
    INCONCLUSIVE = "inconclusive"     # the evidence's own verdict
    NOT_PROBED = "not probed"

    @property
    def conflict(self) -> bool:
        return self is Agreement.DISAGREE

    @property
    def consistent(self) -> bool:
        """The evidence decided and agrees. "not probed" and "inconclusive" are unchecked (?),
        not agreement."""
        return self is Agreement.AGREE

    @property
    def unchecked(self) -> bool:
        """No decided evidence either way (not probed, inconclusive, rule undecided)."""
        return self not in (Agreement.AGREE, Agreement.DISAGREE)
