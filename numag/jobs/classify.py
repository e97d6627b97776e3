"""The `classify` job: the points of a file, classified at a precision, with evidence."""
from __future__ import annotations

from dataclasses import dataclass

from ..classify import Classification, RankOptions
from ..classify.batch import ClassificationBatch, classify_file
from ..options import Bound, option, validate
from ..rank import MAX_DIGITS, MIN_DIGITS


@dataclass(frozen=True)
class ClassifyOptions:
    """Options of the `classify` job (the arguments of `numag classify`, the keys of a sweep's
    classify task).

    Examples
    --------
    >>> ClassifyOptions(file="p.json", float64=True).precision().name
    'float64'
    """

    file: str = option(file=True, help="a JSON point, or JSON lines (batch)")
    digits: int = option(50, bound=Bound(MIN_DIGITS, MAX_DIGITS + 1),
                         help="mpmath digits of every decision")
    float64: bool = option(False, help="decide in float64 instead (never certifies a special "
                                       "class)")
    tolerance: float | None = option(None, bound=Bound(0, 1, strict=True),
                                     help="relative zero tolerance (default numag.rank)")
    min_margin: float | None = option(None, bound=Bound(1), help="margin needed to decide")
    seed: int = option(0, bound=Bound(0), help="seed of the evidence's random choices")
    no_evidence: bool = option(False, help="rules only (no Jacobian ranks, no probes)")
    batch: bool = option(False, help="one JSON point per line")

    def __post_init__(self) -> None:
        validate(self)

    def precision(self) -> RankOptions:
        return RankOptions(None if self.float64 else self.digits, self.tolerance,
                           self.min_margin)


def run_classify(options: ClassifyOptions, progress: bool | None = None
                 ) -> Classification | ClassificationBatch:
    """numag.classify.batch.classify_file for `options`."""
    return classify_file(options.file, options.precision(), options.seed,
                         not options.no_evidence, options.batch or None, progress)
