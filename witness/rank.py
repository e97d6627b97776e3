"""Numerical rank from singular values: one rule for the whole engine (``RankOptions``).

r = #{i : s_i / s_1 > zero_below}; decided when s_r / s_{r+1} >= min_gap (no s_{r+1}, or
s_{r+1} = 0, is an infinite gap). Used for the start point of monodromy, the singularity of
endpoints and of isolated solutions, and the local dimension of a point.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .options import DEFAULT, RankOptions


@dataclass(frozen=True)
class RankDecision:
    """rank: the numerical rank; decided: the gap is large enough; gap: s_r / s_{r+1} (inf
    when there is no s_{r+1}); relative: the singular values divided by s_1."""
    rank: int
    decided: bool
    gap: float
    relative: tuple[float, ...]

    def to_json(self) -> dict:
        return {"rank": self.rank, "decided": self.decided,
                "gap": self.gap if math.isfinite(self.gap) else None,
                "relative_singular_values": list(self.relative)}


def numerical_rank(singular_values, options: RankOptions | None = None) -> RankDecision:
    """Numerical rank of singular values (any order, float (k,)). Raises ValueError for NaN."""
    opts = options or DEFAULT.rank
    s = np.sort(np.abs(np.asarray(singular_values, float)))[::-1]
    if not np.all(np.isfinite(s)):
        raise ValueError("singular values must be finite")
    if not len(s) or s[0] == 0:
        return RankDecision(0, True, math.inf, tuple(float(v) for v in s))
    rel = s / s[0]
    r = int(np.sum(rel > opts.zero_below))
    nxt = rel[r] if r < len(rel) else 0.0
    gap = math.inf if nxt == 0 else float(rel[r - 1] / nxt)
    return RankDecision(r, gap >= opts.min_gap, gap, tuple(float(v) for v in rel))
