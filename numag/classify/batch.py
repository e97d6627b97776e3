"""Classify the points of a file: one point, or a batch (JSON lines) with per-line errors."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import progress as _progress
from ..io import BadLine, load_points, single_layer_point_from_json
from ..rank import RankOptions
from .classification import Classification


@dataclass(frozen=True)
class BatchEntry:
    """One line of a batch: where it is (FILE:LINE), and its Classification or its error."""

    where: str
    result: Classification | None
    error: str | None = None

    def to_json(self) -> dict:
        if self.result is None:
            return {"where": self.where, "error": self.error}
        return {"where": self.where, **self.result.to_json()}


@dataclass(frozen=True)
class ClassificationBatch:
    """The classifications of a batch file, one entry per non-empty line, in order.

    Attributes
    ----------
    entries : tuple of BatchEntry
        A bad line (not JSON, not a point, a point the classifier refuses) is an entry with its
        error: it does not hide the other lines.
    precision : RankOptions
        Where the decisions were made.
    """

    entries: tuple[BatchEntry, ...]
    precision: RankOptions

    @property
    def failed(self) -> int:
        return sum(e.error is not None for e in self.entries)

    def counts(self) -> dict[str, int]:
        """Points per label set ('not in M' for an ambient point outside M), and 'error'."""
        c: Counter = Counter(label_text(e.result) if e.result else "error" for e in self.entries)
        return dict(sorted(c.items()))

    def to_json(self) -> dict:
        return {"points": [e.to_json() for e in self.entries], "counts": self.counts(),
                "failed": self.failed, "precision": self.precision.to_json()}


def label_text(r: Classification) -> str:
    """The labels as text: 'singular, boundary', or 'not in M' for no label."""
    return ", ".join(r.labels) if r.labels else "not in M"


def classify_file(path: str | Path, precision: RankOptions | None = None, seed: int = 0,
                  evidence: bool = True, batch: bool | None = None,
                  progress: bool | None = None) -> Classification | ClassificationBatch:
    """Classify the point of a JSON file, or each point of a batch file.

    Parameters
    ----------
    path : str or Path
        One JSON point (formats: numag.io.single_layer_point_from_json), or JSON lines.
    precision : RankOptions, optional
        Default RankOptions() (50 digits).
    seed, evidence :
        As in numag.classify.classify_point.
    batch : bool, optional
        True: one point per line. Default: when the file ends in .jsonl or holds several JSON
        documents.
    progress : bool, optional
        Progress bar over a batch (numag.progress).

    Returns
    -------
    Classification for a single point, ClassificationBatch for a batch.

    Raises
    ------
    ValueError
        Missing or non-UTF-8 file, malformed JSON (single point), an empty file, or a single
        point the classifier refuses.
    """
    from . import classify_point                     # the package's entry point
    precision = precision or RankOptions()
    points = load_points(path, batch=True if batch else None, keep_bad_lines=True)
    if not (len(points) > 1 or batch or str(path).endswith(".jsonl")):
        where, obj = points[0]
        return classify_point(_point(obj, where), precision, seed, evidence)
    entries = []
    for where, obj in _progress.bar(points, progress, desc="classify", leave=False):
        try:
            entries.append(BatchEntry(where, classify_point(_point(obj, where), precision,
                                                            seed, evidence)))
        except ValueError as exc:                    # one bad line must not hide the others
            entries.append(BatchEntry(where, None, str(exc)))
    return ClassificationBatch(tuple(entries), precision)


def _point(obj: Any, where: str):
    if isinstance(obj, BadLine):
        raise ValueError(f"{where}: {obj.message}")
    return single_layer_point_from_json(obj, where)
