"""Closed-form predictions of dim M, each with its source (HMK = Henry, Marchetti, Kohn 2025).

These are predictions to compare with computations, never substitutes for them: where a formula
is [derived] (paper-notes) a test checks it against the computed dimension, and a disagreement is
reported by numag.dimension, not hidden.
"""
from __future__ import annotations

from dataclasses import dataclass

from .architecture import Architecture


@dataclass(frozen=True)
class Prediction:
    """A predicted dimension (None when no formula applies), its source and caveats."""

    value: int | None
    source: str
    caveats: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"value": self.value, "source": self.source, "caveats": list(self.caveats)}


def single_layer(d: int, d_out: int, a: int) -> int:
    """dim M_{d,d',a} = 2ad + dd' − a² − 1 (a ≤ d), d² + dd' − 1 (a ≥ d); HMK single-layer
    dimension theorem (paper-notes §2). Lightning, t ≥ 2."""
    a = min(a, d)
    return 2 * a * d + d * d_out - a * a - 1


def single_layer_one_token(d: int, d_out: int, a: int) -> int:
    """t = 1: r·d − r(r−1)/2 + dd' − 1 with r = min(2a, d) [derived; paper-notes §1]: only the
    symmetric part of A (rank ≤ 2a) is seen."""
    r = min(2 * a, d)
    return r * d - r * (r - 1) // 2 + d * d_out - 1


def deep_equal_width(d: int, a: int, depth: int) -> int:
    """d² + l(2ad − a² − 1), equal widths d, all ranks a ≤ d; HMK deep dimension theorem
    (paper-notes §3)."""
    return d * d + depth * (2 * a * d - a * a - 1)


def deep_general(widths: tuple[int, ...], ranks: tuple[int, ...]) -> int:
    """Running-minimum form [derived; paper-notes §3]: e_0 = d_0, e_i = min(e_{i−1}, d_i) for
    0 < i < l, e_l = d_l, ã_i = min(a_i, e_{i−1});
    dim = Σ_i (2 ã_i e_{i−1} + e_i e_{i−1} − ã_i²) − Σ_{0<i<l} e_i² − l."""
    l = len(ranks)
    e = [widths[0]]
    for i in range(1, l):
        e.append(min(e[-1], widths[i]))
    e.append(widths[-1])
    total = 0
    for i in range(1, l + 1):
        at = min(ranks[i - 1], e[i - 1])
        total += 2 * at * e[i - 1] + e[i] * e[i - 1] - at * at
    return total - sum(x * x for x in e[1:l]) - l


def predict(arch: Architecture) -> Prediction:
    """The closed-form dimension that applies to `arch`, with its source and caveats."""
    w, r, l = arch.widths, arch.ranks, arch.depth
    softmax = arch.kind == "softmax"
    if arch.degenerate:
        if softmax:
            # softmax over a single token is 1, so φ(x) = V x: all of Hom(R^d, R^d') for l = 1
            return (Prediction(w[0] * w[1], "t = 1 softmax: φ(x) = V x [derived]")
                    if l == 1 else Prediction(None, "no formula for deep networks with t = 1"))
        if l == 1:
            return Prediction(single_layer_one_token(w[0], w[1], r[0]),
                              "t = 1 single layer [derived; paper-notes §1]")
        return Prediction(None, "no formula for deep networks with t = 1")
    caveats = []
    if any(a == 1 for a in r[:-1]):
        caveats.append("a non-final layer has rank 1: later layers see only symmetric "
                       "information and the true dimension can fall below the formula "
                       "(widths 3,3,3, ranks 1,2: 18 < 20) [derived; paper-notes §3]")
    if l == 1:
        value, source = single_layer(w[0], w[1], r[0]), "HMK single-layer theorem"
    elif len(set(w)) == 1 and len(set(r)) == 1 and r[0] <= w[0]:
        value, source = deep_equal_width(w[0], r[0], l), "HMK deep theorem (equal widths)"
    else:
        value = deep_general(w, r)
        source = "running-minimum form for general widths [derived; paper-notes §3]"
        if any(b > a for a, b in zip(w[:-1], w[1:-1])) or any(
                a > d for a, d in zip(r, w[:-1])):
            caveats.append("outside the paper's bottleneck assumption (widths grow or a_i > d_{i-1})")
    if softmax:
        value += l
        source += (" + l for softmax (HMK: single layer proven; deep conjectured, "
                   "checked numerically in HMK Fig. 3)")
    return Prediction(value, source, tuple(caveats))
