"""Fiber systems: exact equations that vanish on the known fiber and nowhere else nearby."""
from fractions import Fraction

import flint
import numpy as np
import pytest

from numag import Architecture
from numag.encode import exact_point, fiber_system, weight_names


def rational_point(arch, seed):
    rng = np.random.default_rng(seed)
    vals = [Fraction(int(a), int(b)) for a, b in zip(rng.integers(-9, 10, arch.n_params),
                                                     rng.integers(1, 6, arch.n_params))]
    return arch.unpack(np.array(vals, dtype=object))


def evaluate_exact(system, point):
    out = []
    for p in system.polynomials:
        total = Fraction(0)
        for e, c in p.items():
            term = Fraction(c)
            for x, k in zip(point, e):
                term *= Fraction(x) ** k
            total += term
        out.append(total)
    return out


def span_rank(*systems):
    polys = [p for s in systems for p in s.polynomials]
    monos = sorted({e for p in polys for e in p})
    M = flint.fmpq_mat(len(polys), len(monos))
    for i, p in enumerate(polys):
        for j, e in enumerate(monos):
            c = Fraction(p.get(e, 0))
            M[i, j] = flint.fmpq(c.numerator, c.denominator)
    return M.rank()


def orbit_point(layers, seed):
    """(G Q, G^{-T} K, V) then (λ A, V / λ): a point of the (S1)+(S3) orbit, exactly."""
    (Q, K, V), = layers
    a = Q.shape[0]
    rng = np.random.default_rng(seed)
    G_int = rng.integers(-3, 4, (a, a)) + 5 * np.eye(a, dtype=int)
    Ginv = flint.fmpq_mat(flint.fmpz_mat(G_int.tolist())).inv()
    G = np.array([[Fraction(int(x)) for x in row] for row in G_int], dtype=object)
    Ginv_T = np.array([[Fraction(int(Ginv[j, i].p), int(Ginv[j, i].q)) for j in range(a)]
                       for i in range(a)], dtype=object)
    lam = Fraction(3, 7)
    return [(G.dot(Q) * lam, Ginv_T.dot(K), V / lam)]


@pytest.mark.parametrize("shape", [(2, 1, 1), (3, 2, 1), (3, 3, 2), (2, 2, 3)])
def test_tensor_equations_vanish_on_the_symmetry_orbit_only(shape):
    d, d_out, a = shape
    arch = Architecture.single(d, d_out, a)
    layers = rational_point(arch, 1)
    fs = fiber_system(arch, layers)
    assert fs.encoding == "tensor" and set(fs.system.degrees) == {3}
    assert fs.n_equations == d_out * d * d * (d + 1) // 2
    assert all(v == 0 for v in evaluate_exact(fs.system, fs.base_point))
    moved = exact_point(arch, orbit_point(layers, 2))
    assert all(v == 0 for v in evaluate_exact(fs.system, moved))
    other = exact_point(arch, rational_point(arch, 3))
    assert any(v != 0 for v in evaluate_exact(fs.system, other))


def test_rank_one_swap_lies_on_the_fiber():
    """A = u vᵀ, V = c wᵀ and the swap (w vᵀ, c uᵀ) have the same φ (paper-notes §2)."""
    arch = Architecture.single(3, 2, 1)
    F = lambda *xs: np.array([Fraction(x) for x in xs], dtype=object)
    u, v, w, c = F(1, -2, 3), F(2, 1, -1), F(-1, 4, 2), F(3, -5)
    point = [(v[None, :], u[None, :], np.outer(c, w))]          # A = Kᵀ Q = u vᵀ
    swap = [(v[None, :], w[None, :], np.outer(c, u))]
    fs = fiber_system(arch, point)
    assert all(x == 0 for x in evaluate_exact(fs.system, exact_point(arch, swap)))


@pytest.mark.parametrize("shape, tokens", [((2, 1, 1), 2), ((3, 2, 1), 2), ((2, 2, 2), 3),
                                           ((3, 1, 2), 2)])
def test_tensor_and_coefficient_encodings_have_the_same_span(shape, tokens):
    """The coefficients of φ in X are linear in T; equal ranks and a joint rank equal to both
    show the two systems span the same space, hence have the same zero set (t ≥ 2)."""
    d, d_out, a = shape
    arch = Architecture.single(d, d_out, a, tokens=tokens)
    layers = rational_point(arch, 4)
    T = fiber_system(arch, layers, "tensor").system
    C = fiber_system(arch, layers, "coefficients").system
    assert span_rank(T) == span_rank(C) == span_rank(T, C) == T.n_equations


def test_one_token_sees_less_than_the_tensor():
    """t = 1: the coefficient equations span less than T's (only the symmetric part of A)."""
    arch = Architecture.single(3, 1, 2, tokens=1)
    layers = rational_point(arch, 5)
    C = fiber_system(arch, layers).system
    T = fiber_system(Architecture.single(3, 1, 2, tokens=2), layers).system
    assert span_rank(C) < span_rank(T)
    assert span_rank(C, T) == span_rank(T)       # still implied by T


def test_deep_coefficient_system_vanishes_on_layer_symmetry():
    """(S2): V_1 ↦ C V_1 and layer 2 weights ↦ (·) C^{-1} leave φ unchanged."""
    arch = Architecture((2, 2, 2), (1, 1))
    layers = rational_point(arch, 6)
    fs = fiber_system(arch, layers)
    assert fs.encoding == "coefficients" and max(fs.system.degrees) == 12
    C = np.array([[Fraction(2), Fraction(1)], [Fraction(-1), Fraction(3)]], dtype=object)
    Cinv = np.array([[Fraction(3, 7), Fraction(-1, 7)], [Fraction(1, 7), Fraction(2, 7)]],
                    dtype=object)
    (Q1, K1, V1), (Q2, K2, V2) = layers
    moved = [(Q1, K1, C.dot(V1)), (Q2.dot(Cinv), K2.dot(Cinv), V2.dot(Cinv))]
    assert all(v == 0 for v in evaluate_exact(fs.system, exact_point(arch, moved)))
    other = exact_point(arch, rational_point(arch, 7))
    assert any(v != 0 for v in evaluate_exact(fs.system, other))


def test_program_encoding_vanishes_on_the_fiber_and_only_there():
    """The 'program' encoding (forward pass at inputs whose evaluation is proved injective)
    judged against the exact coefficient system: both vanish at a point moved by the (S2)
    symmetry (exactly for the coefficients, to rounding for the program), neither at another
    point; the program's Jacobian rank at W0 equals the coefficient system's (E_N injective)."""
    arch = Architecture((2, 2, 2), (1, 1))
    for seed in (6, 8):
        layers = rational_point(arch, seed)
        fs = fiber_system(arch, layers, "program")
        coeff = fiber_system(arch, layers).system
        assert fs.encoding == "program" and fs.to_json()["sample_inputs"] == 220
        C = np.array([[Fraction(2), Fraction(1)], [Fraction(-1), Fraction(3)]], dtype=object)
        Cinv = np.array([[Fraction(3, 7), Fraction(-1, 7)], [Fraction(1, 7), Fraction(2, 7)]],
                        dtype=object)
        (Q1, K1, V1), (Q2, K2, V2) = layers
        moved = exact_point(arch, [(Q1, K1, C.dot(V1)),
                                   (Q2.dot(Cinv), K2.dot(Cinv), V2.dot(Cinv))])
        assert all(v == 0 for v in evaluate_exact(coeff, moved))
        x = np.array([complex(v) for v in moved])
        assert fs.system.residual(x) < 1e-13
        other = np.array([complex(v) for v in exact_point(arch, rational_point(arch, 7))])
        assert fs.system.residual(other) > 1e-3 and coeff.residual(other) > 1e-3
        w0 = np.array([complex(v) for v in fs.base_point])
        sv_p = np.linalg.svd(fs.system.jacobian(w0), compute_uv=False)
        sv_c = np.linalg.svd(coeff.jacobian(w0), compute_uv=False)
        rank = lambda sv: int((sv > 1e-9 * sv[0]).sum())
        assert rank(sv_p) == rank(sv_c)


def test_program_encoding_is_the_default_only_above_the_expansion_budget():
    """The bound on the coefficient equations is an upper bound (compared with the expansion
    itself) and chooses 'coefficients' for the deep shapes expanded so far."""
    from numag.encode import EXPAND_MAX_EQUATIONS, _coefficient_map, coefficient_equations
    for arch in (Architecture((2, 2, 2), (1, 1)), Architecture((2, 1, 2), (1, 1))):
        assert len(_coefficient_map(arch)) <= coefficient_equations(arch) <= EXPAND_MAX_EQUATIONS
    assert coefficient_equations(Architecture((3, 2, 3), (1, 1))) > EXPAND_MAX_EQUATIONS
    assert coefficient_equations(Architecture((2, 2, 2, 2), (1, 1, 1))) > EXPAND_MAX_EQUATIONS


def test_names_and_errors():
    arch = Architecture((2, 3, 1), (1, 2))
    names = weight_names(arch)
    assert len(names) == arch.n_params and names[0] == "q1_0_0" and names[-1] == "v2_0_2"
    with pytest.raises(ValueError, match="lightning"):
        fiber_system(Architecture((2, 2), (1,), kind="softmax"), rational_point(arch, 0))
    with pytest.raises(ValueError, match="single layer"):
        fiber_system(arch, rational_point(arch, 0), encoding="tensor")
    with pytest.raises(ValueError, match="shape"):
        fiber_system(Architecture((2, 2), (1,)), [(np.zeros((1, 3)), np.zeros((1, 2)),
                                                     np.zeros((2, 2)))])


@pytest.mark.parametrize("arch", [Architecture.pnn((2, 2, 1)), Architecture.pnn((3, 2, 1)),
                                  Architecture.pnn((2, 2, 2), 2, bias=True),
                                  Architecture.multihead((2, 2), (1,), 2)])
def test_coefficient_encoding_of_new_kinds(arch):
    """Same model definition over Q[W, X]: W0 lies on its fiber system, and at a generic W0 the
    exact Jacobian nullity is the generic fiber dimension #params − dim M, dim M computed
    independently by numag.dimension (sampled Jacobian mod p)."""
    from numag import dimension
    from numag.fibers import exact_nullity
    rng = np.random.default_rng(1)
    w = np.array([Fraction(int(a), int(b)) for a, b in
                  zip(rng.integers(-10**4, 10**4, arch.n_params),
                      rng.integers(1, 100, arch.n_params))], dtype=object)
    fs = fiber_system(arch, arch.unpack(w))
    assert fs.encoding == "coefficients"
    assert all(v == 0 for v in evaluate_exact(fs.system, fs.base_point))
    assert exact_nullity(fs, fs.base_point) == arch.n_params - dimension(arch).dimension
    assert len(set(weight_names(arch))) == arch.n_params
