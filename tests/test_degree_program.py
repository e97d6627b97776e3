"""The program form of numag.degree (numag.degree_program): the forward pass at inputs whose
evaluation map is proved injective gives the same degree as the expanded coordinates, and the
certificate can fail."""
import numpy as np
import pytest

from numag import Architecture
from numag.degree import degree
from numag.degree_program import (_rank_mod_p, output_degree, program_map,
                                  weight_degree)
from numag.encode import parametrization
from witness.image import PolynomialMap
from witness.system import monomial_exponents


@pytest.mark.parametrize("seed", [0, 1])
def test_program_form_of_221_has_degree_20(seed):
    # the same truth as the expanded form's test (Macaulay2 and exact implicitization: 20;
    # closed form paper-notes §10), through 20 forward passes instead of the tensor T
    r = degree(Architecture.single(2, 2, 1), seed=seed, form="program")
    assert (r.degree, r.certified, r.form, r.encoding) == (20, True, "program",
                                                          "values at 20 inputs")


@pytest.mark.parametrize("arch,truth", [
    (Architecture.single(2, 1, 1), 3),                       # closed form, paper-notes §10
    (Architecture.pnn((3, 2, 1), 2, False), 3),              # the determinant cubic, §9.3
])
def test_program_form_agrees_with_independent_degrees(arch, truth):
    r = degree(arch, seed=2, form="program")
    assert (r.degree, r.certified) == (truth, True)


def test_degrees_match_the_expanded_polynomials():
    # e is derived by hand (module docstring); the expansion's homogeneous degree says the same
    # (D is checked by the injectivity certificate itself: a wrong D fails it or the degree)
    for arch in (Architecture.single(2, 2, 1), Architecture((2, 1, 2), (1, 1)),
                 Architecture((1, 1, 1, 1), (1, 1, 1)), Architecture.pnn((2, 2, 1), 3, False)):
        f = PolynomialMap(parametrization(arch, "coefficients"))
        assert f.homogeneous_degree() == weight_degree(arch)
        assert output_degree(arch)[1]          # no biases: every output entry homogeneous in X


def test_program_values_are_the_network():
    # the program evaluates phi_W at its inputs: compare with the expanded coefficients
    # contracted with the monomials of the same inputs (independent code path)
    arch = Architecture((2, 1, 2), (1, 1))
    f, inputs = program_map(arch, seed=0)
    assert inputs.injective and inputs.monomials == 220
    rng = np.random.default_rng(5)
    w = rng.standard_normal(arch.n_params) + 1j * rng.standard_normal(arch.n_params)
    from numag.model import forward
    from numag.arith import NumpyArithmetic
    direct = forward(arch, arch.unpack(w), inputs.X.astype(complex), NumpyArithmetic(complex))
    assert np.allclose(f.coordinates.evaluate(w), direct.reshape(-1), rtol=1e-12, atol=1e-12)


def test_injectivity_certificate_fails_on_proportional_inputs():
    # binary forms of degree 3: evaluation at 4 points is injective iff the points are
    # projectively distinct (Vandermonde); two proportional points give rank 3
    exps = monomial_exponents(2, 3)
    good = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]])
    assert _rank_mod_p(good, exps) == 4
    bad = good.copy()
    bad[3] = 0.5 * bad[2]
    assert _rank_mod_p(bad, exps) == 3
