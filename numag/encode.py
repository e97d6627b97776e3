"""The parametrization's fibers {W : φ_W = φ_{W0}} as exact polynomial systems in all weights.

Variables: every weight in Architecture.pack order, named after its block: q{i}_{r}_{c},
k{i}_{r}_{c}, v{i}_{r}_{c} (layer i from 1); head h of a multi-head layer adds h after the letter
(q{i}h{h}_{r}_{c}); a polynomial network has w{i}_{r}_{c} and b{i}_{r}_0. Two encodings, both
exact (rational coefficients when W0 is rational), both cutting out exactly the fiber:

* 'coefficients' (every polynomial kind: lightning and multi-head attention with any t,
  polynomial networks): φ_W(X) is a polynomial map in the entries of X
  whose coefficients are polynomials in W, and two polynomial maps are equal iff all their
  coefficients are. The model (numag.model) is run over Q[W, X] (python-flint), every coefficient
  c_α(W) of every output entry gives the equation c_α(W) − c_α(W0) = 0, and the span of these
  equations is reduced to a basis by an exact row reduction over Q (same zero set). Degrees are
  at most the degree of φ in W (3 for one layer, 12 for two layers, ...).
* 'tensor' (single layer, t ≥ 2): the d'·d·d(d+1)/2 equations 2T(W) − 2T(W0) = 0 with
  T[r,{b,c},e] = ½(V[r,b] A[c,e] + V[r,c] A[b,e]), A = Kᵀ Q, each cubic (one entry of V, K, Q
  per term, 2a or a terms). φ is determined by T for t ≥ 2 and conversely [derived; paper-notes
  §1]: the coefficients of φ in X are linear in T and that linear map is injective for t ≥ 2
  (checked in tests/test_encode.py by an exact rank), so {T(W) = T(W0)} is the fiber.
* 'program' (every polynomial kind; the default when the coefficient system would have more
  than EXPAND_MAX_EQUATIONS equations): φ_W(X_n) − φ_W0(X_n) = 0 at the N inputs of
  numag.degree_program.sample_inputs, evaluated as the forward pass (witness.ProgramSystem),
  never expanded. Evaluation at those inputs, E_N, is PROVED injective on the space of output
  entries (exact rank over F_p of the monomial matrix), and these equations are E_N (c(W) −
  c(W0)) = 0 for the coefficients c: the same zero set as 'coefficients', and Jacobian E_N J_c
  of the same rank at every point. Only the constants φ_W0(X_n) are rounded to complex128
  (the system judges points by their residual; it is not used for exact work). Why: widths
  3,2,3 ranks 1,1 have 6006 coefficient equations with 1.4 million terms in 38,401 monomials of
  W, and the exact row reduction of that dense 6006 x 38,401 matrix over Q needs > 23 GB (the
  OOM kill of stop 19); widths 2,2,2,2 cannot even be expanded (degree 39 in W, 27 in X).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import flint
import numpy as np

from witness import PolynomialSystem

from .architecture import Architecture
from .arith import PolynomialArithmetic
from .model import forward
from .tensor import coordinates, tensor



class Encoding(enum.StrEnum):
    """How the fiber's equations are written (module docstring)."""

    TENSOR = "tensor"                  # single layer, t >= 2: cubic equations T(W) = T(W0)
    COEFFICIENTS = "coefficients"      # every polynomial kind: coefficients of φ in X
    PROGRAM = "program"                # every polynomial kind: φ at certified sample inputs


ENCODINGS = tuple(e.value for e in Encoding)
EXPAND_MAX_EQUATIONS = 5000     # bound d_l·t·(monomials of φ's degree in X) on the coefficient
                                # equations: above it the fiber system is a program (2,2,2/1,1:
                                # 880, expanded in 0.2 s; 3,2,3/1,1: 12,012, module docstring)
MAX_SAMPLE_INPUTS = 5000        # inputs of the 'program' encoding (2,2,2,2/1,1,1: 4060)
SAMPLE_SEED = 0                 # its inputs are fixed: the system depends on W0 only


def weight_names(arch: Architecture) -> list[str]:
    """Variable names of all weights in Architecture.pack order (see the module docstring)."""
    names = []
    for i, blocks in enumerate(arch.layer_blocks(), start=1):
        for block, (rows, cols) in blocks:
            letter = block[0].lower() if arch.kind != "pnn" else block.lower()
            head = f"h{block[1:]}" if arch.kind == "multihead" else ""
            names += [f"{letter}{i}{head}_{r}_{c}" for r in range(rows) for c in range(cols)]
    return names


@dataclass(frozen=True)
class FiberSystem:
    """The fiber through W0 as a polynomial system.

    Attributes
    ----------
    system
        equations in all weights: a PolynomialSystem (exact rational coefficients) or, for
        the 'program' encoding, a witness ProgramSystem.
    architecture
        the network.
    base_point
        W0 packed, object array of Fractions (n_params,).
    encoding
        Encoding: 'tensor' or 'coefficients'.
    rank_one_conditions
        The 2×2 minors of [A | Vᵀ] were added (with_rank_one_conditions).
    """

    system: PolynomialSystem
    architecture: Architecture
    base_point: np.ndarray
    encoding: Encoding
    rank_one_conditions: bool = False

    @property
    def n_equations(self) -> int:
        return self.system.n_equations

    def to_json(self) -> dict:
        encoding = self.encoding + (" + rank [A | Vᵀ] ≤ 1" if self.rank_one_conditions else "")
        out = {"encoding": encoding, "equations": self.n_equations,
               "variables": self.system.n_vars, "degrees": sorted(set(self.system.degrees))}
        if self.encoding is Encoding.PROGRAM:
            info = self.system.program.info
            out |= {"sample_inputs": info["samples"], "injective": info["injective"],
                    "instructions": len(self.system.program.code)}
        return out


def exact_point(arch: Architecture, layers: Sequence) -> np.ndarray:
    """Pack weights into an object array of Fractions (floats are taken at their exact value).

    Raises
    ------
    ValueError
        wrong shapes (from Architecture.pack) or non-finite entries.
    """
    packed = arch.pack(layers)
    try:
        return np.array([Fraction(x) for x in packed], dtype=object)
    except (ValueError, OverflowError, TypeError) as exc:
        raise ValueError(f"weights must be finite rational or real numbers: {exc}") from None


def fiber_system(arch: Architecture, layers: Sequence[Sequence],
                 encoding: Encoding | str | None = None) -> FiberSystem:
    """The fiber {W : φ_W = φ_{W0}} through W0 = `layers` (see the module docstring).

    Parameters
    ----------
    arch : Architecture
        A polynomial kind (lightning, multihead, pnn).
    layers : sequence
        W0 as returned by Architecture.unpack (any numbers; taken exactly).
    encoding : {'tensor', 'coefficients', 'program'}, optional
        'tensor' (single lightning layer, t ≥ 2; the default there), 'coefficients' (every
        polynomial kind; the default otherwise, up to EXPAND_MAX_EQUATIONS equations) or
        'program' (every polynomial kind; the default above that).

    Returns
    -------
    FiberSystem

    Raises
    ------
    ValueError
        softmax (not polynomial), 'tensor' for another network, bad weights, 'program' with
        more than MAX_SAMPLE_INPUTS inputs needed.
    """
    if not arch.polynomial:
        raise ValueError("fibers are polynomial systems only for polynomial kinds "
                         "(lightning, multihead, pnn), not for softmax attention")
    tensor_ok = arch.kind == "lightning" and arch.is_single_layer and not arch.degenerate
    encoding = encoding or (Encoding.TENSOR if tensor_ok else Encoding.COEFFICIENTS
                            if coefficient_equations(arch) <= EXPAND_MAX_EQUATIONS
                            else Encoding.PROGRAM)
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
    encoding = Encoding(encoding)
    if encoding is Encoding.TENSOR and not tensor_ok:
        raise ValueError("the tensor encoding needs a single layer of lightning attention "
                         "with t >= 2")
    w0 = exact_point(arch, layers)
    if encoding is Encoding.PROGRAM:
        return FiberSystem(_program_system(arch, w0), arch, w0, encoding)
    polys = (_tensor_polys if encoding is Encoding.TENSOR else _coefficient_polys)(arch, w0)
    system = PolynomialSystem.from_dicts(weight_names(arch), polys)
    return FiberSystem(system, arch, w0, encoding)


def coefficient_equations(arch: Architecture) -> int:
    """An upper bound on the equations of the 'coefficients' encoding: one per output entry
    (d_l·t) and monomial of φ's degree in X (numag.degree_program.monomial_count)."""
    from .degree_program import monomial_count
    return arch.widths[-1] * arch.tokens * monomial_count(arch)


def _program_system(arch: Architecture, w0: np.ndarray):
    """φ_W(X_n) − φ_W0(X_n) at inputs with E_N proved injective (module docstring), as a
    witness ProgramSystem; program.info records the inputs and the certificate."""
    from witness.program import trace
    from witness.program_system import ProgramSystem

    from .arith import NumpyArithmetic
    from .degree_program import sample_inputs
    from .fiber_program import _Traced
    s = sample_inputs(arch, np.random.default_rng(SAMPLE_SEED),
                      max_monomials=MAX_SAMPLE_INPUTS)
    if not s.injective:
        raise ValueError(f"evaluation at the sample inputs not proved injective (rank {s.rank} "
                         f"< {s.monomials} mod {s.prime}): no program form of the fiber")
    X = s.X.astype(complex)
    phi0 = forward(arch, arch.unpack(np.array([complex(v) for v in w0])), X,
                   NumpyArithmetic(complex))
    Xo = X.astype(object)

    def equations(w, _c):
        out = forward(arch, arch.unpack(np.array(w, dtype=object)), Xo, _Traced())
        return (out - phi0).reshape(-1)
    P = trace(equations, arch.n_params, names=weight_names(arch),
              info={"source": "forward pass at certified sample inputs", "samples": s.monomials,
                    "injective": f"exact rank {s.rank} of the monomial matrix mod {s.prime}"})
    return ProgramSystem(P, weight_names(arch))


def with_rank_one_conditions(fs: FiberSystem) -> FiberSystem:
    """Add the 2×2 minors of [A | Vᵀ] (d × (d + d'), A = Kᵀ Q) to a single-layer fiber system.

    They vanish exactly where A = u ṽᵀ and V = c wᵀ with u ∥ w (or A or V is 0). On the fiber of
    such a point every point has this form (HMK: the fiber is the scaling line (λA, V/λ)), so
    the zero set is unchanged, while the fiber system alone is non-reduced there: its Jacobian
    drops rank by d − 1 (paper-notes §2). Adding equations that vanish on the component is a
    deflation: it restores a regular point for monodromy. Degrees 2–4.
    """
    arch = fs.architecture
    if not arch.is_single_layer:
        raise ValueError("the rank-one conditions are defined for single layers")
    ring, ((Q, K, V),) = _symbolic_weights(arch)
    M = np.concatenate([ring.mm(K.T, Q), V.T], axis=1)          # [A | Vᵀ], d × (d + d')
    rows, cols = M.shape
    minors = [M[i, j] * M[k, l] - M[i, l] * M[k, j] for i in range(rows)
              for k in range(i + 1, rows) for j in range(cols) for l in range(j + 1, cols)]
    extra = [_as_fractions(p.to_dict()) for p in minors]
    extra = [p for p in extra if p]
    system = PolynomialSystem.from_dicts(fs.system.variables,
                                         list(fs.system.polynomials) + extra)
    return FiberSystem(system, arch, fs.base_point, fs.encoding, rank_one_conditions=True)


def _symbolic_weights(arch: Architecture, extra: Sequence[str] = ()):
    ring = PolynomialArithmetic(tuple(weight_names(arch)) + tuple(extra))
    return ring, arch.unpack(ring.variables(0, (arch.n_params,)))


def _monomial(w: np.ndarray, e: tuple[int, ...]) -> Fraction:
    out = Fraction(1)
    for x, k in zip(w, e):
        if k:
            out *= x ** k
    return out


def parametrization(arch: Architecture, encoding: str | None = None) -> PolynomialSystem:
    """W ↦ the ambient coordinates of φ_W, as polynomials in all weights (exact rationals).

    'tensor' (single layer, t ≥ 2; the default there): the d'·d·d(d+1)/2 independent entries
    2T[r, b ≤ c, e] (cubic); φ ↦ T is a linear isomorphism onto the span of the
    neuromanifold [derived; paper-notes §1], so this map has the neuromanifold's dimension and
    degree. 'coefficients' (every polynomial kind: lightning and multi-head attention, polynomial
    networks; the default except for a single lightning layer): every coefficient
    c_α(W) of every output entry of φ_W(X) in the entries of X, the canonical coordinates of the
    space of polynomial maps (degree 3 in W for one layer, 12 for two, ...).

    Raises:
        ValueError: softmax, or 'tensor' for a deep or t = 1 network, or an unknown encoding.
    """
    if not arch.polynomial:
        raise ValueError("softmax attention is not polynomial: no polynomial parametrization")
    tensor_ok = arch.kind == "lightning" and arch.is_single_layer and not arch.degenerate
    encoding = encoding or ("tensor" if tensor_ok else "coefficients")
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}")
    if encoding == "tensor" and not tensor_ok:
        raise ValueError("the tensor encoding needs a single layer with t >= 2")
    polys = _tensor_map(arch) if encoding == "tensor" else _coefficient_map(arch)
    return PolynomialSystem.from_dicts(weight_names(arch), polys)


def _tensor_map(arch: Architecture) -> list[dict]:
    """2T(W) for every (r, b ≤ c, e), T = numag.tensor.tensor(Kᵀ Q, V)."""
    ring, ((Q, K, V),) = _symbolic_weights(arch)
    polys = coordinates(tensor(ring.mm(K.T, Q), V)) * 2
    return [_as_fractions(p.to_dict()) for p in polys]


def _coefficient_map(arch: Architecture) -> list[dict]:
    """The coefficients c_α(W) of φ_W(X) in X (nonzero ones), one per (output entry, α)."""
    d0, t = arch.widths[0], arch.tokens
    xnames = [f"x_{b}_{k}" for b in range(d0) for k in range(t)]
    ring, layers = _symbolic_weights(arch, xnames)
    X = ring.variables(arch.n_params, (1, d0, t))
    phi = forward(arch, layers, X, ring)[0]
    P = arch.n_params
    coeffs: dict[tuple, dict] = {}
    for idx, entry in np.ndenumerate(phi):
        for e, c in entry.to_dict().items():
            e = tuple(int(k) for k in e)
            coeffs.setdefault((idx, e[P:]), {})[e[:P]] = c
    return [_as_fractions(c) for c in coeffs.values()]


def _tensor_polys(arch: Architecture, w0: np.ndarray) -> list[dict]:
    """2T(W) − 2T(W0) for every (r, b ≤ c, e), T = numag.tensor.tensor(Kᵀ Q, V)."""
    return _minus_base(_tensor_map(arch), w0)


def _coefficient_polys(arch: Architecture, w0: np.ndarray) -> list[dict]:
    """Coefficients of φ_W(X) in X minus their values at W0, reduced to a basis over Q."""
    return _row_reduce(_minus_base(_coefficient_map(arch), w0), arch.n_params)


def _as_fractions(d: dict) -> dict:
    """{exponent: fmpq} -> {exponent: Fraction}."""
    return {tuple(int(k) for k in e): Fraction(int(c.p), int(c.q)) for e, c in d.items()}


def _minus_base(polys: list[dict], w0: np.ndarray) -> list[dict]:
    """p(W) − p(W0) for each {exponent: Fraction} polynomial p in W (zero ones dropped)."""
    out = []
    zero = (0,) * len(w0)
    for d in polys:
        d = dict(d)
        value = sum((c * _monomial(w0, e) for e, c in d.items()), Fraction(0))
        d[zero] = d.get(zero, Fraction(0)) - value
        out.append({e: c for e, c in d.items() if c != 0})
    return [p for p in out if p]


def _row_reduce(polys: list[dict], n: int) -> list[dict]:
    """A basis of the Q-span of `polys` (exact reduced row echelon form, python-flint)."""
    monos = sorted({e for p in polys for e in p}, reverse=True)
    col = {e: j for j, e in enumerate(monos)}
    M = flint.fmpq_mat(len(polys), len(monos))
    for i, p in enumerate(polys):
        for e, c in p.items():
            M[i, col[e]] = flint.fmpq(c.numerator, c.denominator)
    R, rank = M.rref()
    out = []
    for i in range(rank):
        row = {monos[j]: Fraction(int(R[i, j].p), int(R[i, j].q))
               for j in range(len(monos)) if R[i, j] != 0}
        out.append(row)
    return out
