"""Fiber systems as straight-line programs: the network evaluated at sample inputs.

For a fiber {W : φ_W = φ_W0}, the equations φ_W(X_n) − φ_W0(X_n) = 0 at sample inputs X_n are
evaluated as the forward pass itself (``numag.model.forward`` traced into a
``witness.program.Program``): degree 3 per layer, a few hundred operations per sample, no
expansion (the expanded coefficient equations of widths 2,2,2 ranks 1,1 have 2356 terms of
degree 12).

How many samples make the equations equivalent to the coefficient equations? Each output entry
e of φ_W(X) − φ_W0(X) is a polynomial in the entries of X with support S_e; evaluation at N
generic points is injective on polynomials with a fixed support of size |S_e| ≤ N
(unisolvence of generic points), so N = max_e |S_e| samples give exactly the fiber (for widths
2,2,2 and t = 2: outputs homogeneous of degree 9 in 4 entries, |S_e| ≤ C(12, 3) = 220). Tracking
does not need that many: a component Z of the fiber through a point W0 is a component of the
zero set of any set of equations that vanish on the fiber and whose Jacobian at a generic
point of Z has rank n − dim Z (then Z is the local zero set there). So the program uses the
fewest samples whose Jacobian at W0 has the exact rank of the coefficient system's Jacobian
(decided by the witness rank rule and, when the point is rational, also exactly over F_p:
``exact_rank_mod_p``), and every point is judged on the fiber system ``fs.system``
(``check``), never on the samples: the exact coefficient system, or, where it is too large to
expand, the forward pass at inputs whose evaluation map is proved injective (numag.encode,
'program' encoding: the same zero set).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from witness.program import trace
from witness.program_system import ProgramSystem
from witness.rank import numerical_rank

from .arith import Arithmetic, NumpyArithmetic
from .encode import FiberSystem
from .model import forward


class _Traced(Arithmetic):
    """Object arrays of program nodes (numpy runs the model's matmuls with their + and *)."""
    name = "program"

    def zeros(self, shape):
        return np.zeros(shape, dtype=object)


def fiber_program(fs: FiberSystem, rank: int, seed: int = 0, max_samples: int = 400,
                  at=None) -> ProgramSystem:
    """The fiber of ``fs`` as a program at the fewest sample inputs whose Jacobian at W0 has
    rank ``rank`` (the exact rank of the coefficient system's Jacobian there); checked on
    fs.system. The rank must be decided numerically (witness.rank: the tracker and
    monodromy's start check need it) and, at a rational point, also exactly
    (``exact_rank_mod_p``, recorded in ``program.info['rank_at_point']``). Why exact too: on
    widths 2,2,2,2 ranks 1,1,1 the numerical rank at W0 rested on sigma_10 / sigma_1 ~ 5e-8
    against sigma_11 / sigma_1 ~ 5e-17; why numerical too: with 3 samples there the exact
    rank was 10 but sigma_10 / sigma_1 = 5.7e-9 (monodromy refused the start point).

    Parameters
    ----------
    fs : FiberSystem (numag.encode)
    rank : int, n_params − the local fiber dimension at the point ``at``
    seed : sample inputs (complex normal, each scaled to unit Frobenius norm)
    max_samples : give up above this many samples
    at : the point (n_params,) where the rank is checked (default W0)

    Raises
    ------
    ValueError
        No sample set up to max_samples reaches the rank.
    """
    arch = fs.architecture
    w0 = np.array([complex(v) for v in fs.base_point])
    layers0 = arch.unpack(w0)
    where = w0 if at is None else np.array([complex(v) for v in at])
    per_sample = arch.widths[-1] * arch.tokens
    rng = np.random.default_rng(seed)
    N = max(1, math.ceil(rank / per_sample))
    while N <= max_samples:
        X = (rng.standard_normal((N, arch.widths[0], arch.tokens))
             + 1j * rng.standard_normal((N, arch.widths[0], arch.tokens)))
        X /= np.linalg.norm(X, axis=(1, 2), keepdims=True)
        phi0 = forward(arch, layers0, X, NumpyArithmetic(complex))

        def equations(w, _c, X=X, phi0=phi0):
            out = forward(arch, arch.unpack(np.array(w, dtype=object)), X.astype(object),
                          _Traced())
            return (out - phi0).reshape(-1)
        P = trace(equations, arch.n_params, names=fs.system.variables,
                  info={"source": "forward pass at sample inputs", "samples": N,
                        "sample_inputs": X})
        S = ProgramSystem(P, fs.system.variables, check=fs.system)
        # the numerical rank too: monodromy's start check and the tracker need it (with 3
        # samples on widths 2,2,2,2 the exact rank was 10 but sigma_10 / sigma_1 = 5.7e-9)
        dec = numerical_rank(np.linalg.svd(S.jacobian(where), compute_uv=False))
        exact = exact_rank_mod_p(arch, at if at is not None else fs.base_point, X)
        if dec.decided and dec.rank == rank and (exact is None or exact[0] == rank):
            S.program.info["rank_at_point"] = {"rank": rank, "how": "numerical"} \
                if exact is None else {"rank": rank, "prime": exact[1],
                                       "how": "exact, mod p (i -> sqrt(-1) mod p), and "
                                              "numerical"}
            return S
        N += max(1, N // 2)
    raise ValueError(f"no set of up to {max_samples} sample inputs reaches Jacobian rank "
                     f"{rank} at the start point")


RANK_PRIME_SEED = 11     # the prime of exact_rank_mod_p (fixed: the decision is reproducible)


def exact_rank_mod_p(arch, point, X: np.ndarray) -> tuple[int, int] | None:
    """(rank of the Jacobian of W ↦ (φ_W(X_n))_n at ``point`` over F_p, p) or None when
    ``point`` is not exact (entries not all ``numbers.Rational``: a float point near the fiber
    has the exact rank of a point off it).

    The sample inputs X (N, d_0, t) complex128 are exact Gaussian dyadic rationals and the
    point's entries rationals; the Jacobian's entries are integer polynomials in both, so
    their images under the ring map Z[1/2][i] -> F_p, i -> a square root of -1 mod p (p = 1
    mod 4, p not dividing the point's denominators), are the Jacobian over F_p. Its rank
    there is at most the rank over Q(i) [derived: minors map to minors], so rank mod p = the
    target proves the program's rank at the point is at least the target (and at most, since
    the fiber's tangent space at the point is in the kernel). docs/deep-fiber-rank.md.
    """
    from fractions import Fraction
    import flint
    from .arith import ModularArithmetic, random_prime
    from .jacobian import jacobian
    if not all(isinstance(v, numbers.Rational) for v in point):   # e.g. a numerical point
        return None
    w = [Fraction(v) for v in point]
    rng = np.random.default_rng(RANK_PRIME_SEED)
    while True:
        p = random_prime(rng)
        if p % 4 == 1 and all(v.denominator % p for v in w):
            break
    i_p = next(pow(a, (p - 1) // 4, p) for a in range(2, p) if pow(a, (p - 1) // 2, p) == p - 1)
    ops = ModularArithmetic(p)

    def modp(z):
        a, b = Fraction(float(z.real)), Fraction(float(z.imag))
        return (a.numerator * pow(a.denominator, -1, p)
                + i_p * b.numerator * pow(b.denominator, -1, p)) % p
    Xp = np.vectorize(modp, otypes=[np.int64])(np.asarray(X, complex))
    J = jacobian(arch, arch.unpack(ops.convert(np.array(w, dtype=object))), Xp, ops)
    M = flint.nmod_mat(J.shape[0], J.shape[1], [int(v) for v in J.ravel()], p)
    return M.rank(), p


IDENTITY_TRIALS = 4      # random points (each with its own prime) of the identity test


def phi_invariant(arch, perm, seed: int) -> tuple[bool, str]:
    """Is φ_{W[perm]}(X) = φ_W(X) identically in (W, X)? Then the permutation fixes every
    fiber system of ``arch``, in any encoding. Decided by the Schwartz–Zippel identity test:
    both sides at IDENTITY_TRIALS random points (W, X) over F_p, a fresh random prime
    p >= 2^24 each time. A difference that is not the zero polynomial has total degree
    <= D (D = 3 + 3 D_prev per lightning layer, from D_0 = 1: φ = V Y (Yᵀ Kᵀ Q Y)), so it
    vanishes at a random point with probability <= D / p; 'True' is wrong with probability
    <= (D / 2^24)^IDENTITY_TRIALS, stated in the returned sentence. Lightning and multihead
    only (ValueError otherwise)."""
    from .arith import ModularArithmetic, random_prime
    if arch.kind not in ("lightning", "multihead"):
        raise ValueError(f"phi_invariant: lightning or multihead, got {arch.kind}")
    perm = np.asarray(perm, int)
    D = 1
    for _ in arch.ranks:
        D = 3 + 3 * D
    rng = np.random.default_rng(seed)
    for _ in range(IDENTITY_TRIALS):
        p = random_prime(rng)
        ops = ModularArithmetic(p)
        w = rng.integers(0, p, size=arch.n_params).astype(np.int64)
        X = rng.integers(0, p, size=(2, arch.widths[0], arch.tokens)).astype(np.int64)
        a = forward(arch, arch.unpack(w), X, ops)
        b = forward(arch, arch.unpack(w[perm]), X, ops)
        if not np.array_equal(a, b):
            return False, f"φ_W[perm] ≠ φ_W at a random point mod {p}"
    bound = (D / 2 ** 24) ** IDENTITY_TRIALS
    return True, (f"φ_W[perm] = φ_W at {IDENTITY_TRIALS} random points over F_p (p >= 2^24; "
                  f"identity test, error probability <= {bound:.0e})")
