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


def single_layer_degree(d: int, d_out: int, a: int) -> Prediction:
    """deg M_{d,d',a} (degree of the Zariski closure of the single-layer lightning
    neuromanifold, t ≥ 2, as an affine cone in the T coordinates) where a closed form is known
    [derived; paper-notes §8]:

    * a ≥ d: C(dd' + d² − 2, dd' − 1), the degree of the Segre variety P^{dd'−1} × P^{d²−1}
      of the pairs (V, A), mapped to T by a linear projection that is finite on it and
      birational (HMK: the generic fiber is the scaling line);
    * a = 1, d' ≥ 2: C(dd' + 2d − 3, d − 1)·C(dd' + d − 2, d − 1): T = sym(V ⊗ u) ⊗ w is the
      Segre product of Y = {sym(V ⊗ u)} (degree C(dd' + d − 2, d − 1), birational image of
      P^{dd'−1} × P^{d−1}) with P^{d−1};
    * a = 1, d' = 1: C(3d − 3, d − 1)·C(2d − 2, d − 1)/2: the same with Y = the symmetric
      d×d matrices of rank ≤ 2, the image of P^{d−1} × P^{d−1} under (v, u) ↦ sym(v ⊗ u),
      which is 2:1 (the swap).
    Otherwise (1 < a < d) no closed form is known: value None."""
    from math import comb
    if a >= d:
        return Prediction(comb(d * d_out + d * d - 2, d * d_out - 1),
                          "Segre P^{dd'-1} x P^{d²-1}, a ≥ d [derived; paper-notes §8]")
    if a == 1 and d_out >= 2:
        return Prediction(comb(d * d_out + 2 * d - 3, d - 1) * comb(d * d_out + d - 2, d - 1),
                          "Segre product sym(V ⊗ u) ⊗ w, a = 1 [derived; paper-notes §8]")
    if a == 1:
        return Prediction(comb(3 * d - 3, d - 1) * comb(2 * d - 2, d - 1) // 2,
                          "Segre product of Sym²_{rank ≤ 2} and P^{d-1}, a = d' = 1 "
                          "[derived; paper-notes §8]")
    return Prediction(None, "no closed form known for 1 < a < d")


def degree_prediction(arch: Architecture) -> Prediction:
    """The closed-form degree of the lightning neuromanifold that applies to `arch` (single
    layers with t ≥ 2 only; see single_layer_degree)."""
    if arch.kind != "lightning" or arch.degenerate or not arch.is_single_layer:
        return Prediction(None, "no closed form known (deep, softmax or t = 1)")
    return single_layer_degree(arch.widths[0], arch.widths[1], arch.ranks[0])
