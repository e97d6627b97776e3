"""The coordinates of a neuromanifold as a straight-line program: the forward pass at N inputs.

numag.degree needs M = closure{φ_W} in some linear coordinates. The canonical ones are the
coefficients c(W) of φ_W in the entries of X (numag.encode.parametrization), expanded: for
widths 2,2,2 ranks 1,1 that is 440 polynomials with 31,424 terms of degree 12 in W. Here the
coordinates are instead the values e_N(W) = (φ_W(X_n))_{n ≤ N} at N fixed inputs, computed by
the forward pass itself (numag.model.forward traced into a witness.program.Program): no
expansion, a few hundred operations per input.

Why the degree is the same [derived; paper-notes §10.1]: e_N = E_N ∘ c with E_N linear (evaluate
each output entry at the X_n). If E_N is injective on the space of all possible output entries,
E_N is a linear isomorphism onto its image, so E_N(M) has the dimension and degree of M.
witness.image then composes with a random projection P (q × N·d_l·t); {P E_N : P} is every
q-row matrix on the coefficient space (E_N has a left inverse), so P E_N is as generic as the
projection of the expanded form.

Injectivity, certified exactly: every output entry of φ_W is a polynomial in the v = d_0·t
entries of X, homogeneous of degree D (attention: D = 3^l; a polynomial network without bias:
D = r^(l−1)), or of degree ≤ D (a polynomial network with biases). E_N is injective on that
space iff the N × #monomials matrix of the monomials at the inputs has full column rank. The
inputs are random real matrices of unit norm; their float64 entries are exact dyadic
rationals, the very numbers the program uses, and the rank of the monomial matrix at them is
computed over F_p (python-flint; p odd, so powers of 2 are invertible). Rank mod p ≤ rank over
Q, so full rank mod p proves injectivity. N = #monomials = C(v + D − 1, D) (homogeneous) or
C(v + D, D).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from witness.image import ProgramMap
from witness.program import trace
from witness.program_system import ProgramSystem
from witness.system import monomial_exponents

from .architecture import Architecture
from .encode import weight_names
from .fiber_program import _Traced
from .model import forward

MAX_MONOMIALS = 2000     # inputs; the N x N exact rank and N forward passes stay affordable
PRIME = 2_147_483_647    # 2^31 − 1


@dataclass(frozen=True)
class SampleInputs:
    """Inputs X (N, d_0, t) float64 (unit Frobenius norm), the output degree D in X, whether
    outputs are homogeneous, and the certificate: the rank of the monomial evaluation matrix at
    the exact values of X mod ``prime`` (= ``monomials`` proves E_N injective)."""
    X: np.ndarray
    degree: int
    homogeneous: bool
    monomials: int
    rank: int
    prime: int

    @property
    def injective(self) -> bool:
        return self.rank == self.monomials


def output_degree(arch: Architecture) -> tuple[int, bool]:
    """(D, homogeneous): every output entry of φ_W is a polynomial of degree D in the entries
    of X, homogeneous unless a polynomial network has biases. Attention (every kind): a layer
    is cubic in its input (V Y Yᵀ A Y), so D = 3^l; a polynomial network: r^(l−1) (the last
    layer is linear). [derived; paper-notes §10.1]"""
    if arch.kind == "pnn":
        return arch.activation_degree ** (arch.depth - 1), not arch.bias
    return 3 ** arch.depth, True


def weight_degree(arch: Architecture) -> int | None:
    """e with every coordinate of φ_W homogeneous of degree e in W, or None (biases). Attention:
    e_1 = 3 and e_l = 3 + 3 e_{l−1} (V, K, Q of layer l, and its input three times); a
    polynomial network without bias: e_1 = 1, e_l = 1 + r e_{l−1}. [derived; paper-notes §10.1]"""
    if arch.kind == "pnn":
        if arch.bias:
            return None
        e = 1
        for _ in range(arch.depth - 1):
            e = 1 + arch.activation_degree * e
        return e
    e = 3
    for _ in range(arch.depth - 1):
        e = 3 + 3 * e
    return e


def monomial_count(arch: Architecture) -> int:
    """How many inputs the certificate needs (the dimension of the output entries' space)."""
    D, hom = output_degree(arch)
    v = arch.widths[0] * arch.tokens
    return math.comb(v + D - 1, D) if hom else math.comb(v + D, D)


def sample_inputs(arch: Architecture, rng: np.random.Generator,
                  attempts: int = 3, max_monomials: int = MAX_MONOMIALS) -> SampleInputs:
    """N = monomial_count(arch) random unit-norm inputs whose evaluation map is proved
    injective (rank mod p of the monomial matrix at their exact values; module docstring).

    Raises
    ------
    ValueError
        More than ``max_monomials`` monomials.
        A draw that is not proved injective in ``attempts`` (probability 0 for real random
        inputs, up to the chance that p divides a nonzero minor) is returned with its rank.
    """
    D, hom = output_degree(arch)
    v = arch.widths[0] * arch.tokens
    N = monomial_count(arch)
    if N > max_monomials:
        raise ValueError(f"{N} inputs needed (> {max_monomials}) for outputs of degree {D} in "
                         f"{v} entries")
    exps = [e for k in ([D] if hom else range(D + 1)) for e in monomial_exponents(v, k)]
    for _ in range(attempts):
        X = rng.standard_normal((N, v))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        rank = _rank_mod_p(X, exps)
        if rank == N:
            break
    return SampleInputs(X.reshape(N, arch.widths[0], arch.tokens), D, hom, N, rank, PRIME)


def _rank_mod_p(X: np.ndarray, exps: list[tuple[int, ...]]) -> int:
    """Rank over F_p of [x_n^e]_{n, e} at the exact (dyadic rational) values of X."""
    def residue(x: float) -> int:
        q = Fraction(x)
        return q.numerator % PRIME * pow(q.denominator, -1, PRIME) % PRIME
    top = max(max(e) for e in exps)
    res = np.array([[residue(x) for x in row] for row in X], dtype=np.int64)   # (N, v)
    pw = np.ones(res.shape + (top + 1,), dtype=np.int64)                      # x^k mod p
    for k in range(1, top + 1):
        pw[..., k] = pw[..., k - 1] * res % PRIME          # < 2^62: exact in int64
    E = np.array(exps, dtype=np.int64)                                         # (K, v)
    M = np.ones((len(X), len(exps)), dtype=np.int64)
    for j in range(E.shape[1]):
        M = M * pw[:, j, :][:, E[:, j]] % PRIME
    entries = M.ravel().tolist()
    return flint.nmod_mat(len(X), len(exps), entries, PRIME).rank()


def program_map(arch: Architecture, seed: int = 0) -> tuple[ProgramMap, SampleInputs]:
    """The coordinates W ↦ (φ_W(X_n))_n as a ProgramMap (forward pass at the certified inputs
    of ``sample_inputs``), with its inputs and certificate.

    Raises
    ------
    ValueError
        From sample_inputs, or if the injectivity certificate failed (rank < N).
    """
    s = sample_inputs(arch, np.random.default_rng([seed, 3]))
    if not s.injective:
        raise ValueError(f"evaluation at the inputs not proved injective (rank {s.rank} < "
                         f"{s.monomials} mod {s.prime})")
    X = s.X.astype(complex).astype(object)

    def outputs(w, _c):
        return forward(arch, arch.unpack(np.array(w, dtype=object)), X, _Traced()).reshape(-1)
    names = weight_names(arch)
    P = trace(outputs, arch.n_params, names=names,
              info={"source": "forward pass at sample inputs", "samples": s.monomials})
    return ProgramMap(ProgramSystem(P, names), weight_degree(arch)), s
