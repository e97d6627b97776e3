"""Closed-form predictions of dim M, each with its source.

Sources: HMK = Henry, Marchetti, Kohn, arXiv 2408.17221 (lightning attention); KTB = Kileel,
Trager, Bruna, arXiv 1905.12207 (polynomial networks); FRWY = Finkel, Rodriguez, Wu, Yahl,
arXiv 2408.04569 (activation degree thresholds).

These are predictions to compare with computations, never substitutes for them: where a formula
is [derived] (paper-notes) a test checks it against the computed dimension, and a disagreement is
reported by numag.dimension, not hidden. A prediction is one of three strengths (`status`):
'theorem' (proved in the source), 'derived' (proved in paper-notes, checked by computation) or
'expected' (an upper bound, #params minus the known symmetries capped by the ambient dimension;
computed < expected is a *defective* architecture, a finding, not an error).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from math import comb

from .architecture import Architecture


class PredictionStatus(enum.StrEnum):
    """The strength of a prediction (module docstring)."""

    THEOREM = "theorem"          # proved in the source
    DERIVED = "derived"          # proved in paper-notes, checked by computation
    EXPECTED = "expected"        # an upper bound; computed < expected: a defective architecture


STATUSES = tuple(s.value for s in PredictionStatus)


@dataclass(frozen=True)
class Prediction:
    """A predicted dimension (None when no formula applies), its source, strength
    (PredictionStatus) and caveats."""

    value: int | None
    source: str
    caveats: tuple[str, ...] = ()
    status: PredictionStatus = PredictionStatus.THEOREM

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", PredictionStatus(self.status))

    def to_json(self) -> dict:
        return {"value": self.value, "source": self.source, "status": self.status,
                "caveats": list(self.caveats)}


# --- attention -------------------------------------------------------------------------------

def single_layer(d: int, d_out: int, a: int) -> int:
    """dim M_{d,d',a} = 2ad + dd' − a² − 1 (a ≤ d), d² + dd' − 1 (a ≥ d); HMK single-layer
    dimension theorem (paper-notes §2). Lightning, t ≥ 2."""
    a = min(a, d)
    return 2 * a * d + d * d_out - a * a - 1


def symmetric_rank_variety(r: int, n: int) -> int:
    """dim of the symmetric n × n matrices of rank ≤ r: r·n − r(r−1)/2 (r ≤ n)."""
    r = min(r, n)
    return r * n - r * (r - 1) // 2


def single_layer_one_token(d: int, d_out: int, a: int) -> int:
    """t = 1: r·d − r(r−1)/2 + dd' − 1 with r = min(2a, d) [derived; paper-notes §1]: only the
    symmetric part of A (rank ≤ 2a) is seen."""
    return symmetric_rank_variety(min(2 * a, d), d) + d * d_out - 1


def deep_equal_width(d: int, a: int, depth: int) -> int:
    """d² + l(2ad − a² − 1), equal widths d, all ranks a ≤ d; HMK deep dimension theorem
    (paper-notes §3). (Equal ranks a = 1 agree with the rank-1 theorem of `deep_general`:
    2d − 1 = r d − r(r−1)/2 for r = 2.)"""
    return d * d + depth * (2 * a * d - a * a - 1)


def running_minimum(widths: tuple[int, ...]) -> list[int]:
    """e_0 = d_0, e_i = min(e_{i−1}, d_i) for 0 < i < l, e_l = d_l (paper-notes §3)."""
    e = [widths[0]]
    for w in widths[1:-1]:
        e.append(min(e[-1], w))
    return e + [widths[-1]]


def symmetric_layers(widths: tuple[int, ...], ranks: tuple[int, ...], tokens: int = 2,
                     heads: int = 1) -> list[bool]:
    """Which layers see only the symmetric part of their A_i (lightning attention): every layer
    when t = 1, else every layer after the first one whose output has rank 1, i.e. with
    H·ã_i = 1 (ã_i = min(a_i, e_{i−1})) or input width e_{i−1} = 1 (paper-notes §3.1)."""
    e = running_minimum(widths)
    out, seen = [], tokens == 1
    for i, a in enumerate(ranks, start=1):
        out.append(seen)
        seen = seen or heads * min(a, e[i - 1]) == 1 or e[i - 1] == 1
    return out


def deep_general(widths: tuple[int, ...], ranks: tuple[int, ...], tokens: int = 2) -> int:
    """Running-minimum form with the rank-1 theorem [derived; paper-notes §3, §3.1]:
    e as in `running_minimum`, ã_i = min(a_i, e_{i−1});
    dim = Σ_i c_i − Σ_{0<i<l} e_i² − l, where c_i = 2ã_i e_{i−1} + e_i e_{i−1} − ã_i², except
    for the layers of `symmetric_layers` (after a layer with ã = 1, or all when t = 1):
    c_i = r_i e_{i−1} − r_i(r_i−1)/2 + e_i e_{i−1} with r_i = min(2ã_i, e_{i−1})."""
    return _running_sum(widths, ranks, symmetric_layers(widths, ranks, tokens))


def deep_general_uncorrected(widths: tuple[int, ...], ranks: tuple[int, ...]) -> int:
    """The running-minimum form without the rank-1 theorem (paper-notes §3 before §3.1): every
    c_i = 2ã_i e_{i−1} + e_i e_{i−1} − ã_i². Wrong after a layer with ã_i = 1 (3,3,3 / 1,2:
    20, true 18); kept to show where the correction matters."""
    return _running_sum(widths, ranks, [False] * len(ranks))


def _running_sum(widths, ranks, symmetric: list[bool]) -> int:
    e, l = running_minimum(widths), len(ranks)
    total = 0
    for i in range(1, l + 1):
        at = min(ranks[i - 1], e[i - 1])
        if symmetric[i - 1]:
            total += symmetric_rank_variety(min(2 * at, e[i - 1]), e[i - 1]) + e[i] * e[i - 1]
        else:
            total += 2 * at * e[i - 1] + e[i] * e[i - 1] - at * at
    return total - sum(x * x for x in e[1:l]) - l


def attention_ambient(arch: Architecture) -> int | None:
    """Dimension of a linear space containing M (None for softmax, which is not polynomial).

    Single layer, t ≥ 2: the tensors R^{d'} ⊗ Sym²(R^d) ⊗ R^d, d'·d·d(d+1)/2 (paper-notes §1;
    the span of M is all of it). t = 1: cubic maps R^d → R^{d'}, d'·C(d+2, 3). Deep: all
    homogeneous maps of degree 3^l from R^{d_0×t} to R^{d_l×t} (a weak bound).
    """
    if arch.kind == "softmax":
        return None
    d, t, d_out = arch.widths[0], arch.tokens, arch.widths[-1]
    if arch.depth == 1:
        return d_out * d * d * (d + 1) // 2 if t >= 2 else d_out * comb(d + 2, 3)
    deg = 3 ** arch.depth
    return d_out * t * comb(d * t + deg - 1, deg)


def multihead_expected(d: int, d_out: int, a: int, heads: int) -> int:
    """min(H · dim M_{d,d',a}, d'·d·d(d+1)/2): H independent heads, capped by the ambient space
    of single-layer lightning attention (paper-notes §8) [expected]."""
    return min(heads * single_layer(d, d_out, a), d_out * d * d * (d + 1) // 2)


# --- polynomial networks ---------------------------------------------------------------------

def pnn_ambient(widths: tuple[int, ...], r: int, bias: bool = False) -> int:
    """d_h · dim of the forms of degree r^{h−1} in d_0 variables, C(d_0 + r^{h−1} − 1, r^{h−1})
    (KTB); with biases all polynomials of degree ≤ r^{h−1}, C(d_0 + r^{h−1}, r^{h−1})."""
    deg = r ** (len(widths) - 2)
    d0, dh = widths[0], widths[-1]
    return dh * (comb(d0 + deg, deg) if bias else comb(d0 + deg - 1, deg))


def pnn_parameter_count(widths: tuple[int, ...], bias: bool = False) -> int:
    """Σ_i d_i d_{i−1} (+ Σ_i d_i with biases)."""
    return sum(a * b for a, b in zip(widths[:-1], widths[1:])) + (sum(widths[1:]) if bias else 0)


def pnn_expected(widths: tuple[int, ...], r: int, bias: bool = False) -> int:
    """Expected dimension min(#params − Σ_{0<i<h} d_i, ambient) [KTB, FRWY]: the parameters
    minus the scaling of each hidden neuron, capped by the ambient space. Equivalently (no
    biases) min(d_h + Σ_{i<h} (d_i − 1) d_{i+1}, d_h · C(d_0 + r^{h−1} − 1, r^{h−1})). An upper
    bound; below it the architecture is defective."""
    return min(pnn_parameter_count(widths, bias) - sum(widths[1:-1]),
               pnn_ambient(widths, r, bias))


def pnn_recursive_bound(widths: tuple[int, ...], r: int, bias: bool = False) -> int:
    """An upper bound on dim V of a polynomial network by splitting off a layer [derived;
    paper-notes §9.2]. B(d_0, d_1) = d_0 d_1 (+ d_1 with biases); for h ≥ 2, B is the least of

    * the ambient dimension d_h·A, A = forms of degree r^{h−1} in d_0 variables (all
      polynomials of degree ≤ r^{h−1} with biases);
    * input side: B(d_1, ..., d_h) + d_0 d_1 − d_1 (+ d_1): f = g ∘ σ ∘ W_1, the scaling of each
      row of W_1 absorbed by g;
    * output side: B(d_0, ..., d_{h−1}) + k(d_h − 1) (+ d_h), k = d_{h−1}: f = W_h σ(F), the
      scaling of each F_j absorbed by W_h;
    * span: the components of f lie in the span S of σ(F_1), ..., σ(F_k) (and the constant 1
      with biases): k(A − k) + d_h k for k ≤ A (Grassmannian of S, then coordinates), or
      k(A − 1 − k) + d_h(k + 1) with biases (S contains 1), k ≤ A − 1;
    * sums of squares (r = 2, h = 2, d_2 = 1): f = Σ_j c_j (w_jᵀx + b_j)² (+ b) is a
      quadratic form of rank ≤ k in x (in (x, 1) with biases): the symmetric matrices of rank
      ≤ k, k·n − k(k−1)/2 for k ≤ n = d_0 (+ 1), plus 1 for the output bias. The
      Alexander–Hirschowitz exception of quadrics (the orthogonal group O(k) acting on the
      k linear forms).
    Never above `pnn_expected` (the first three items without the inner ambient caps).
    """
    return _pnn_bound(tuple(widths), r, bias)


def _single_ambient(d0: int, deg: int, bias: bool) -> int:
    return comb(d0 + deg, deg) if bias else comb(d0 + deg - 1, deg)


def _pnn_bound(w: tuple[int, ...], r: int, bias: bool, _memo: dict = {}) -> int:
    key = (w, r, bias)
    if key in _memo:
        return _memo[key]
    if len(w) == 2:
        _memo[key] = w[0] * w[1] + (w[1] if bias else 0)
        return _memo[key]
    h, k, dh = len(w) - 1, w[-2], w[-1]
    A = _single_ambient(w[0], r ** (h - 1), bias)
    inner = _pnn_bound(w[:-1], r, bias)
    bounds = [dh * A,
              _pnn_bound(w[1:], r, bias) + w[0] * w[1] - (0 if bias else w[1]),
              inner + k * (dh - 1) + (dh if bias else 0)]
    if not bias and k <= A:
        bounds.append(k * (A - k) + dh * k)
    if bias and k <= A - 1:
        bounds.append(k * (A - 1 - k) + dh * (k + 1))
    n = w[0] + (1 if bias else 0)
    if r == 2 and h == 2 and dh == 1 and k <= n:
        bounds.append(symmetric_rank_variety(k, n) + (1 if bias else 0))
    _memo[key] = min(bounds)
    return _memo[key]


# --- dispatch ---------------------------------------------------------------------------------

def predict(arch: Architecture) -> Prediction:
    """The closed-form dimension that applies to `arch`, with its source, status and caveats."""
    if arch.kind == "pnn":
        return Prediction(pnn_expected(arch.widths, arch.activation_degree, arch.bias),
                          "expected: min(#params − Σ hidden widths, ambient) (KTB; FRWY)",
                          status="expected")
    if arch.kind == "multihead":
        return _predict_multihead(arch)
    return _predict_attention(arch)


def _predict_multihead(arch: Architecture) -> Prediction:
    w, r, H = arch.widths, arch.ranks, arch.heads
    if arch.degenerate:
        return Prediction(None, "no formula for multi-head attention with t = 1")
    if arch.depth == 1:
        return Prediction(multihead_expected(w[0], w[1], r[0], H),
                          "expected: min(H · dim M_single, ambient) [paper-notes §8]",
                          status="expected")
    from .symmetry import naive_orbit_count
    red = arch.reduced()            # same M (paper-notes §3.2), and the actions are free on it
    return Prediction(min(red.n_params - naive_orbit_count(red), attention_ambient(arch)),
                      "expected: #params − (H Σ a_i² + Σ d_i² + H l) of the reduced "
                      "architecture, capped by the ambient space [paper-notes §8]",
                      status="expected")


def _predict_attention(arch: Architecture) -> Prediction:
    w, r, l = arch.widths, arch.ranks, arch.depth
    softmax = arch.kind == "softmax"
    if arch.degenerate:
        if softmax:
            # softmax over a single token is 1, so φ(x) = V x: all of Hom(R^d, R^d') for l = 1
            return (Prediction(w[0] * w[1], "t = 1 softmax: φ(x) = V x [derived]",
                               status="derived")
                    if l == 1 else Prediction(None, "no formula for deep softmax with t = 1"))
        if l == 1:
            return Prediction(single_layer_one_token(w[0], w[1], r[0]),
                              "t = 1 single layer [derived; paper-notes §1]", status="derived")
        return Prediction(deep_general(w, r, tokens=1),
                          "t = 1: every layer sees only symmetric parts [derived; paper-notes "
                          "§3.1]", status="derived")
    caveats = []
    status = "theorem"
    symmetric = any(symmetric_layers(w, r)) and not softmax
    if l == 1:
        value, source = single_layer(w[0], w[1], r[0]), "HMK single-layer theorem"
    elif len(set(w)) == 1 and len(set(r)) == 1 and r[0] <= w[0]:
        value, source = deep_equal_width(w[0], r[0], l), "HMK deep theorem (equal widths)"
    elif softmax:
        value, status = deep_general_uncorrected(w, r), "derived"
        source = "running-minimum form for general widths [derived; paper-notes §3]"
    else:
        value, status = deep_general(w, r), "derived"
        source = "running-minimum form for general widths [derived; paper-notes §3]"
        if symmetric:
            source = ("running-minimum form, layers after a rank-1 layer see only symmetric "
                      "parts [derived; paper-notes §3.1]")
    if softmax:
        value += l
        source += (" + l for softmax (HMK: single layer proven; deep conjectured, "
                   "checked numerically in HMK Fig. 3)")
        if any(min(a, e) == 1 for a, e in zip(r[:-1], running_minimum(w))):
            caveats.append("a non-final layer of rank 1: the lightning rank-1 theorem "
                           "(paper-notes §3.1) does not apply to softmax, whose outputs keep "
                           "full rank; the uncorrected form is used")
    return Prediction(value, source, tuple(caveats), status)


def multihead_rank_bound(d: int, d_out: int, heads: int) -> int | None:
    """Single-layer multi-head attention: Σ_h V_h ⊗ A_h is a (d'd) × d² matrix of rank ≤ H and
    φ is a linear image of it, so dim M ≤ H(dd' + d² − H) (the rank-≤H matrices) when
    H < min(dd', d²) [derived; paper-notes §8]. Binding when (d − a)² < H − 1: the heads mix."""
    return heads * (d * d_out + d * d - heads) if heads < min(d * d_out, d * d) else None


def multihead_isotropic_bound(d: int, d_out: int, heads: int) -> int | None:
    """Single-layer multi-head attention with H < d: for each output row r the symmetric
    matrices T_r(z) = Σ_h sym(V_h[r]ᵀ (A_h z)ᵀ) vanish on U_r × U_r for every z, U_r = the
    orthogonal complement of the rows V_h[r] (dim d − H), so dim M ≤ d'·(H(d − H) + d·(d(d+1)/2
    − (d−H)(d−H+1)/2)) (choice of U_r, then the entries left free) [derived; paper-notes §8].
    Binding near the ambient space, e.g. (d, d', H) = (3, 1, 2): 17 < 18."""
    if heads >= d:
        return None
    m = d - heads
    return d_out * (heads * m + d * (d * (d + 1) // 2 - m * (m + 1) // 2))


def known_upper_bound(arch: Architecture) -> int | None:
    """A closed-form upper bound beyond symmetries and the ambient space, or None:
    `pnn_recursive_bound` for polynomial networks, the rank and isotropic bounds for a
    single multi-head layer with t ≥ 2."""
    if arch.kind == "pnn":
        return pnn_recursive_bound(arch.widths, arch.activation_degree, arch.bias)
    if arch.kind == "multihead" and arch.depth == 1 and not arch.degenerate:
        d, d_out = arch.widths
        bounds = [b for b in (multihead_rank_bound(d, d_out, arch.heads),
                              multihead_isotropic_bound(d, d_out, arch.heads)) if b is not None]
        return min(bounds) if bounds else None
    return None


def ambient_dimension(arch: Architecture) -> int | None:
    """Dimension of a linear space known to contain M (None if none is known: softmax)."""
    if arch.kind == "pnn":
        return pnn_ambient(arch.widths, arch.activation_degree, arch.bias)
    return attention_ambient(arch)


def single_layer_degree(d: int, d_out: int, a: int) -> Prediction:
    """deg M_{d,d',a} (degree of the Zariski closure of the single-layer lightning
    neuromanifold, t ≥ 2, as an affine cone in the T coordinates) where a closed form is known
    [derived; paper-notes §10]:

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
                          "Segre P^{dd'-1} x P^{d²-1}, a ≥ d [derived; paper-notes §10]",
                          status=PredictionStatus.DERIVED)
    if a == 1 and d_out >= 2:
        return Prediction(comb(d * d_out + 2 * d - 3, d - 1) * comb(d * d_out + d - 2, d - 1),
                          "Segre product sym(V ⊗ u) ⊗ w, a = 1 [derived; paper-notes §10]",
                          status=PredictionStatus.DERIVED)
    if a == 1:
        return Prediction(comb(3 * d - 3, d - 1) * comb(2 * d - 2, d - 1) // 2,
                          "Segre product of Sym²_{rank ≤ 2} and P^{d-1}, a = d' = 1 "
                          "[derived; paper-notes §10]",
                          status=PredictionStatus.DERIVED)
    return Prediction(None, "no closed form known for 1 < a < d")


def degree_prediction(arch: Architecture) -> Prediction:
    """The closed-form degree of the lightning neuromanifold that applies to `arch` (single
    layers with t ≥ 2 only; see single_layer_degree)."""
    if arch.kind != "lightning":
        return Prediction(None, f"no closed form known here for {arch.kind}")
    if arch.degenerate or not arch.is_single_layer:
        return Prediction(None, "no closed form known (deep or t = 1)")
    return single_layer_degree(arch.widths[0], arch.widths[1], arch.ranks[0])
