"""deg M: the degree of the Zariski closure of a neuromanifold, by a pseudo-witness set.

Every polynomial kind: lightning attention (single layer and deep), multi-head lightning
attention and polynomial networks (the coefficient map, numag.encode.parametrization); softmax
attention is not polynomial and is refused.

M is the image of the parametrization W ↦ φ_W in the space of polynomial maps. Its coordinates
(numag.encode.parametrization): for a single layer with t ≥ 2 the tensor T (cubic in W; a
linear isomorphism of the span of M [derived; paper-notes §1]), otherwise every coefficient of
φ_W in the entries of X (the canonical coordinates; degree 12 in W for two layers). Both give
M up to a linear isomorphism, so the same dimension and degree. M is a cone (scaling V_l by λ
scales φ_W by λ), so its degree is that of the projective variety P(M).

* dimension: numag.dimension (exact Jacobian rank over F_p, a certified lower bound; certified
  when it meets the symmetry upper bound), passed to witness.image, which cross-checks it with
  the numerical Jacobian rank of the coordinates at a random point;
* degree: witness.image.image_degree (pseudo-witness set, monodromy on the image points, linear
  trace test on two pencils in the image); certified or undecided, never guessed.
* closed form where one is known (numag.formulas.degree_prediction; derived in paper-notes §10),
  compared with the computed value and the disagreement reported, never hidden.

The map is handed to the tracker as expanded polynomials (witness.image.graph_system); a
straight-line program of the forward pass can replace them there without changing this module.
It would evaluate W ↦ (φ_W(X_n))_{n ≤ N} at N fixed generic inputs instead of the coefficients.
That map is E_N ∘ c with E_N linear (evaluation), and its image is isomorphic to M (same
dimension and degree) as soon as E_N is injective on the span of M. Sufficient [derived]: every
output entry of φ_W is a form of degree D = 3^l in the d_0·t entries of X, and evaluation at
N ≥ C(d_0·t + D − 1, D) generic points is injective on the space of such forms (the monomials
are linearly independent functions, so some N points give a nonsingular evaluation matrix, and
then almost all do); e.g. N = 20 for one layer with d = t = 2, 220 for two layers with d_0 = 2,
t = 2. Fewer inputs suffice when the exact rank over F_p of [E_N(c(W_j))]_j equals that of
[c(W_j)]_j at enough random W_j (both then equal dim span M).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from witness.image import ImageResult, PolynomialMap, image_degree

from .architecture import Architecture
from .dimension import dimension
from .encode import parametrization
from .formulas import Prediction, degree_prediction


@dataclass(frozen=True)
class DegreeResult:
    """Result of `degree`.

    Attributes:
        architecture, params: the network and #params.
        dimension: dim M (exact, numag.dimension); dimension_certified: it met the symmetry
            upper bound.
        fiber_dimension: params − dimension.
        degree: deg M when certified by the trace test, else None; points_found: image points
            found (a lower bound for deg M); certified: True / False (trace test failed) / None
            (undecided: budget, failed paths, or the numerical cross-check of the dimension
            disagreed).
        encoding: 'tensor' or 'coefficients' (the ambient coordinates used).
        source_slice: 'gauge' (gauge_slice) or 'random' (the slice M of the fibers).
        closed_form: the prediction (value None where none is known); agrees: degree ==
            closed form (None when either is missing).
        image: the witness.image result (paths, loops, trace test, seeds).
    """
    architecture: Architecture
    params: int
    dimension: int
    dimension_certified: bool
    fiber_dimension: int
    degree: int | None
    points_found: int
    certified: bool | None
    encoding: str
    source_slice: str
    closed_form: Prediction
    agrees: bool | None
    image: ImageResult
    seed: int
    seconds: float

    @property
    def notes(self) -> list[str]:
        out = []
        if not self.dimension_certified:
            out.append("dimension not certified by the symmetry bound (exact lower bound only)")
        if self.agrees is False:
            out.append(f"DISAGREEMENT: computed degree {self.degree} vs closed form "
                       f"{self.closed_form.value} ({self.closed_form.source})")
        if self.image.dimension is None:
            out.append("the numerical Jacobian rank disagrees with the exact dimension: "
                       "undecided")
        return out

    def to_json(self) -> dict:
        return {"architecture": self.architecture.to_json(), "params": self.params,
                "dimension": self.dimension, "dimension_certified": self.dimension_certified,
                "fiber_dimension": self.fiber_dimension, "degree": self.degree,
                "certified": self.certified, "points_found": self.points_found,
                "degree_meaning": "degree of the affine cone M (= of the projective variety "
                                  "P(M)) in the " + self.encoding + " coordinates",
                "certificate": self.image.certificate, "encoding": self.encoding,
                "source_slice": self.source_slice,
                "closed_form": self.closed_form.value,
                "closed_form_source": self.closed_form.source, "agrees": self.agrees,
                "notes": self.notes, "image": self.image.to_json(), "seed": self.seed,
                "seconds": round(self.seconds, 4)}


def degree(arch: Architecture, seed: int = 0, timeout: float | None = None,
           max_loops: int = 100, progress: bool | None = None) -> DegreeResult:
    """The degree of the Zariski closure of the neuromanifold of `arch` (any polynomial kind:
    lightning, multihead, pnn; the gauge slice only for lightning attention, a random source
    slice otherwise).

    Args:
        seed: seeds the dimension computation and the pseudo-witness set (recorded).
        timeout: seconds of monodromy before the result is left undecided (None: no limit).
        max_loops: monodromy loop budget.
        progress: progress bar (None: only on a terminal).
    Returns:
        DegreeResult.
    Raises:
        ValueError: softmax attention (not polynomial), or a bad architecture.

    Examples:
        >>> r = degree(Architecture.single(2, 2, 1), seed=0)
        >>> (r.dimension, r.degree, r.certified, r.closed_form.value)
        (6, 20, True, 20)
    """
    if not arch.polynomial:
        raise ValueError("softmax attention is not polynomial, so its neuromanifold has no "
                         "degree; use lightning attention")
    t0 = time.perf_counter()
    dim = dimension(arch, method="exact", seed=seed, progress=False)
    F = parametrization(arch)
    encoding = ("tensor" if arch.kind == "lightning" and arch.is_single_layer
                and not arch.degenerate else "coefficients")
    gauge = gauge_slice(arch) if arch.kind == "lightning" else None
    if gauge is not None and len(gauge[0]) != arch.n_params - dim.dimension:
        gauge = None                   # the fiber is not the symmetry orbit: a random M
    img = image_degree(PolynomialMap(F), seed=seed, dimension=dim.dimension, timeout=timeout,
                       source_slice=gauge, max_loops=max_loops, progress=progress)
    pred = degree_prediction(arch)
    agrees = None if pred.value is None or img.degree is None else img.degree == pred.value
    return DegreeResult(arch, arch.n_params, dim.dimension, dim.certified,
                        arch.n_params - dim.dimension, img.degree, img.points_found,
                        img.certified, encoding, "gauge" if gauge is not None else "random",
                        pred, agrees, img, seed, time.perf_counter() - t0)


def gauge_slice(arch: Architecture) -> tuple[np.ndarray, np.ndarray] | None:
    """A source slice M that fixes the gauge of the symmetries (S1)–(S3) (HMK; paper-notes §2,
    §3), as (A (rows, #params), b) over the packed weights, or None for t = 1.

    Per layer i (Q_i, K_i ∈ C^{a_i×d_{i−1}}, V_i ∈ C^{d_i×d_{i−1}}):
    * (S1) GL_{a_i}: Q_i[:, :a_i] = I (a_i ≤ d_{i−1}), or Q_i = [I; 0] and K_i[d_{i−1}:, :] = 0
      (a_i > d_{i−1}: then A_i = K_i[:d]ᵀ and the other rows of K_i do not enter);
    * (S3) scaling (A_i, V_i) ↦ (λA_i, V_i/λ): K_i[0, 0] = 1;
    * (S2) GL_{d_i} between layers i < l: V_i[:, :d_i] = I (when d_i ≤ d_{i−1}).
    A generic element of a fiber that is one orbit of these groups is moved into M by exactly
    one group element, so M meets such a fiber in one point. The caller uses M only when its
    number of rows equals the computed fiber dimension, and witness.image checks that Df
    restricted to M has full rank k (transversality); otherwise a random M is used.

    Why: a random M meets the non-compact orbit in many points, some far out: measured on
    (3,1,3), representatives at |W| ~ 1e3 failed with min_step and their double-double
    retries took 55 of 69 s; with this M, 8 s."""
    if arch.degenerate:
        return None
    rows, b = [], []
    offsets = arch.layer_offsets()
    for i, ((a, d), _, (d_out, _)) in enumerate(arch.layer_shapes()):
        q0, k0, v0 = offsets[i], offsets[i] + a * d, offsets[i] + 2 * a * d
        for r in range(a):                   # Q_i[:, :min(a, d)] = the first columns of I_a
            for c in range(min(a, d)):
                rows.append(q0 + r * d + c)
                b.append(1.0 if r == c else 0.0)
        if a > d:
            rows += [k0 + r * d + c for r in range(d, a) for c in range(d)]
            b += [0.0] * ((a - d) * d)
        rows.append(k0)
        b.append(1.0)
        if i < arch.depth - 1 and d_out <= d:
            for r in range(d_out):
                for c in range(d_out):
                    rows.append(v0 + r * d + c)
                    b.append(1.0 if r == c else 0.0)
    A = np.zeros((len(rows), arch.n_params), complex)
    A[np.arange(len(rows)), rows] = 1
    return A, np.array(b, complex)
