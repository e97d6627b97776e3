"""The result of classifying one point: labels, decisions, evidence and their agreement."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..rank import Decision, json_num, RankOptions
from .evidence import Evidence
from .labels import Label, Source
from .ambient import Membership
from .precision import fmt


@dataclass(frozen=True)
class Classification:
    """The class of one point of M_{d,d',a}, with its decisions, evidence and agreement.

    Attributes
    ----------
    shape
        (d, d', a).
    labels
        Labels (a subset of LABELS); (UNDECIDED,) when the margins do not settle the class;
        () for an ambient point that is not in M (see membership).
    kinds
        kinds of singularity (rule-based).
    ranks
        {"A": rank, "V": rank} read at the tolerance (see decisions for margins).
    decisions
        rank A, rank V and, for rank-1 points, u ∥ w.
    margin
        smallest margin among the decisions (an undecided decision that cannot change
        the labels is left out and noted).
    alternatives
        the label sets still possible when undecided; ("not in M",) among them
        when a candidate rk A exceeds a (the input would then not be a point of M).
    evidence
        Evidence, or None when not computed.
    agreement
        {"singular": Agreement, "boundary": Agreement}: agree / DISAGREE /
        inconclusive / not probed / rule undecided.
    membership
        for ambient input, the recovery result.
    source
        Source: 'weights (Q, K, V)', '(A, V)' or 'ambient tensor'.
    """

    shape: tuple[int, int, int]
    labels: tuple[Label, ...]
    kinds: tuple[str, ...]
    ranks: dict
    decisions: tuple[Decision, ...]
    margin: float
    precision: RankOptions
    source: Source
    alternatives: tuple[tuple[str, ...], ...] = ()
    evidence: Evidence | None = None
    agreement: dict = field(default_factory=dict)
    membership: Membership | None = None
    notes: tuple[str, ...] = ()
    seed: int = 0

    @property
    def digits(self) -> int | None:
        return self.precision.digits

    def to_json(self) -> dict:
        return {"labels": list(self.labels), "ranks": dict(self.ranks),
                "margin": json_num(self.margin), "evidence": (self.evidence.to_json()
                                                              if self.evidence else None),
                "digits": self.digits, "precision": self.precision.to_json(),
                "shape": {"d": self.shape[0], "d_out": self.shape[1], "a": self.shape[2]},
                "kinds": list(self.kinds), "decisions": [x.to_json() for x in self.decisions],
                "alternatives": [list(x) for x in self.alternatives],
                "agreement": dict(self.agreement),
                "membership": self.membership.to_json() if self.membership else None,
                "source": self.source, "notes": list(self.notes), "seed": self.seed}

    def __repr__(self) -> str:
        d, dp, a = self.shape
        lab = ", ".join(self.labels) or "not in M"
        return (f"Classification(({d}, {dp}, {a}): {lab}; ranks A={self.ranks.get('A')}, "
                f"V={self.ranks.get('V')}; margin {fmt(self.margin)} at {self.precision.name})")
