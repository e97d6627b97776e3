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

Two forms of the same coordinates (``form``): 'expanded' (default) hands the tracker the
expanded polynomials (as a monomial-tree program); 'program' evaluates W ↦ (φ_W(X_n))_{n ≤ N}
at N inputs by the forward pass itself (numag.degree_program: no expansion; N = the dimension
of the space of output entries, and evaluation at the N inputs is proved injective on it by an
exact rank over F_p, so the image is M up to a linear isomorphism: same dimension and degree
[derived; paper-notes §10.1]). Why the expansion is the default: measured with
benchmarks/degree_forms.py, the expanded form is the smaller program in every architecture
numag degree reaches (widths 2,2,2 ranks 1,1: 19,615 instructions expanded vs 28,160 for the
220 forward passes the certificate needs; 2,1,1: 1,097 vs 14,960; 1,1,1,1: 50 vs 2,016), because
the certificate needs C(d_0·t + D − 1, D) inputs for outputs of degree D = 3^l in X.
"""
from __future__ import annotations

import enum
import time
from dataclasses import dataclass

import numpy as np

from witness.image import ImageResult, PolynomialMap, ProgramMap, image_degree

from .architecture import Architecture
from .dimension import dimension
from .degree_program import program_map
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
        encoding: 'tensor', 'coefficients' (expanded) or 'values at N inputs' (the program
            form; the same coordinates up to a linear isomorphism, see the module docstring).
        form: 'expanded' or 'program' (how the coordinates were evaluated).
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
    form: Form
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
                "form": str(self.form),
                "source_slice": self.source_slice,
                "closed_form": self.closed_form.value,
                "closed_form_source": self.closed_form.source, "agrees": self.agrees,
                "notes": self.notes, "image": self.image.to_json(), "seed": self.seed,
                "seconds": round(self.seconds, 4)}


class Form(enum.StrEnum):
    """How the coordinates of M are evaluated (module docstring)."""
    EXPANDED = "expanded"
    PROGRAM = "program"


def degree(arch: Architecture, seed: int = 0, timeout: float | None = None,
           max_loops: int = 100, progress: bool | None = None,
           form: Form | str = Form.EXPANDED) -> DegreeResult:
    """The degree of the Zariski closure of the neuromanifold of `arch` (any polynomial kind:
    lightning, multihead, pnn; the gauge slice only for lightning attention, a random source
    slice otherwise).

    Args:
        seed: seeds the dimension computation and the pseudo-witness set (recorded).
        timeout: seconds of monodromy before the result is left undecided (None: no limit).
        max_loops: monodromy loop budget.
        progress: progress bar (None: only on a terminal).
        form: 'expanded' or 'program' (module docstring).
    Returns:
        DegreeResult.
    Raises:
        ValueError: softmax attention (not polynomial), a bad architecture, an unknown form,
            or form 'program' where its certificate needs more than
            degree_program.MAX_MONOMIALS inputs.

    Examples:
        >>> r = degree(Architecture.single(2, 2, 1), seed=0)
        >>> (r.dimension, r.degree, r.certified, r.closed_form.value)
        (6, 20, True, 20)
    """
    if not arch.polynomial:
        raise ValueError("softmax attention is not polynomial, so its neuromanifold has no "
                         "degree; use lightning attention")
    if form not in set(Form):
        raise ValueError(f"form must be one of {[f.value for f in Form]}, got {form!r}")
    form = Form(form)
    t0 = time.perf_counter()
    dim = dimension(arch, method="exact", seed=seed, progress=False)
    f, encoding = _coordinates(arch, seed, form)
    gauge = gauge_slice(arch) if arch.kind == "lightning" else None
    if gauge is not None and len(gauge[0]) != arch.n_params - dim.dimension:
        gauge = None                   # the fiber is not the symmetry orbit: a random M
    img = image_degree(f, seed=seed, dimension=dim.dimension, timeout=timeout,
                       source_slice=gauge, max_loops=max_loops, progress=progress)
    pred = degree_prediction(arch)
    agrees = None if pred.value is None or img.degree is None else img.degree == pred.value
    return DegreeResult(arch, arch.n_params, dim.dimension, dim.certified,
                        arch.n_params - dim.dimension, img.degree, img.points_found,
                        img.certified, encoding, form,
                        "gauge" if gauge is not None else "random",
                        pred, agrees, img, seed, time.perf_counter() - t0)


def _coordinates(arch: Architecture, seed: int, form: Form
                 ) -> tuple[PolynomialMap | ProgramMap, str]:
    """(map, encoding) for `form` (module docstring)."""
    if form is Form.PROGRAM:
        f, inputs = program_map(arch, seed)
        return f, f"values at {inputs.monomials} inputs"
    F = parametrization(arch)
    encoding = ("tensor" if arch.kind == "lightning" and arch.is_single_layer
                and not arch.degenerate else "coefficients")
    return PolynomialMap(F), encoding


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
