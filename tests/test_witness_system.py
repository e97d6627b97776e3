"""PolynomialSystem: parsing, errors, numpy/mpmath evaluation, PHCpack strings, randomization."""
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from witness import PolynomialSyntaxError, PolynomialSystem


def test_caret_and_double_star_are_the_same():
    a = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    b = PolynomialSystem.from_strings(["x**2 - y", "x**3 - z"])
    assert a.polynomials == b.polynomials
    assert a.variables == ("x", "y", "z") and a.degrees == (2, 3)


def test_exact_and_complex_coefficients():
    F = PolynomialSystem.from_strings(["1/3*x + 2.5*y - 1.5e-3", "(1+2*i)*x*y + 3j"])
    p0, p1 = F.polynomials
    assert p0[(1, 0)] == Fraction(1, 3) and p0[(0, 1)] == Fraction(5, 2)
    assert p0[(0, 0)] == Fraction(-3, 2000)
    assert p1[(1, 1)] == 1 + 2j and p1[(0, 0)] == 3j


def test_from_dicts_and_explicit_variable_order():
    F = PolynomialSystem.from_dicts(["a", "b"], [{(2, 0): 1, (0, 1): -1}, {(1, 1): 0.5j}])
    G = PolynomialSystem.from_strings(["a^2 - b", "0.5*i*a*b"], variables=["a", "b"])
    X = np.array([[1 + 2j, 3 - 1j], [0.5, -2]])
    np.testing.assert_allclose(F.evaluate(X), G.evaluate(X), rtol=1e-15)
    H = PolynomialSystem.from_strings(["y - x"], variables=["y", "x"])
    assert H.variables == ("y", "x")
    assert H.evaluate(np.array([2.0, 5.0]))[0] == -3


@pytest.mark.parametrize("text, position, words", [
    ("x^2 - y +", 9, "term is missing"),
    ("x y", 2, "implicit multiplication"),
    ("x^2.5", 2, "nonnegative integer"),
    ("(x + 1", 6, "missing ')'"),
    ("x / y", 4, "division"),
    ("x # 2", 2, "unexpected character"),
    ("2*x*)", 4, "unexpected ')'"),
    ("x + nan", 4, "not a finite number"),     # was read as a third variable 'nan'
    ("x*Inf - 1", 2, "not a finite number"),
])
def test_malformed_polynomial_names_index_and_position(text, position, words):
    with pytest.raises(PolynomialSyntaxError) as info:
        PolynomialSystem.from_strings(["x - 1", text])
    err = info.value
    assert err.index == 1 and err.position == position
    assert words in str(err) and "polynomial 1" in str(err)


def test_unknown_variable_with_explicit_order():
    with pytest.raises(PolynomialSyntaxError, match="unknown variable 'z'"):
        PolynomialSystem.from_strings(["x + z"], variables=["x", "y"])


def test_bad_shapes_and_nan_are_rejected():
    F = PolynomialSystem.from_strings(["x^2 - y"])
    with pytest.raises(ValueError, match="shape"):
        F.evaluate(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        F.evaluate(np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="not finite"):
        PolynomialSystem.from_dicts(["x"], [{(1,): float("nan")}])
    with pytest.raises(ValueError, match="exponent"):
        PolynomialSystem.from_dicts(["x"], [{(1, 2): 1}])


def test_evaluation_and_jacobian_against_hand_formulas():
    F = PolynomialSystem.from_strings(["x^2*y - 3*z + 1", "x*y*z - 2"])
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))
    x, y, z = X.T
    np.testing.assert_allclose(F.evaluate(X), np.stack([x**2 * y - 3 * z + 1, x * y * z - 2], 1),
                               rtol=1e-14)
    J = np.zeros((5, 2, 3), complex)
    J[:, 0] = np.stack([2 * x * y, x**2, -3 + 0 * x], 1)
    J[:, 1] = np.stack([y * z, x * z, x * y], 1)
    np.testing.assert_allclose(F.jacobian(X), J, rtol=1e-14)


def test_mpmath_agrees_with_numpy_and_is_exact_for_rationals():
    F = PolynomialSystem.from_strings(["1/3*x^3 - y", "x*y - 1/7"])
    with mpmath.workdps(60):
        x = [mpmath.mpf(1) / 3, mpmath.mpf(2)]
        vals = F.evaluate_mp(x, dps=60)
        assert abs(vals[0] - (mpmath.mpf(1) / 81 - 2)) < mpmath.mpf(10) ** -58
    J = F.jacobian_mp([0.5, 2.0], dps=30)
    np.testing.assert_allclose(np.array(J.tolist(), dtype=complex),
                               F.jacobian(np.array([0.5, 2.0])), rtol=1e-15)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(-5, 5)),
                min_size=1, max_size=6))
def test_string_round_trip(terms):
    poly = {}
    for a, b, c in terms:
        poly[(a, b)] = poly.get((a, b), 0) + c
    poly = {e: c for e, c in poly.items() if c} or {(0, 0): 1}
    F = PolynomialSystem.from_dicts(["u", "v"], [poly])
    G = PolynomialSystem.from_strings(F.to_strings(), variables=["u", "v"])
    assert F.polynomials == G.polynomials


def test_phc_strings_end_with_semicolon_and_reject_bad_names():
    F = PolynomialSystem.from_strings(["x^2 - 1/3*y", "(1+2*i)*y"])
    s = F.to_phc_strings()
    assert all(p.endswith(";") for p in s) and "(-1/3)" in s[0] and "*i)" in s[1]
    with pytest.raises(ValueError, match="misread"):
        PolynomialSystem.from_strings(["e - zz1"]).to_phc_strings()


def test_randomize_keeps_original_and_combines():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z", "x*y - z"])
    G = F.randomize(2, np.random.default_rng(3))
    assert G.original is F and G.randomization.shape == (2, 3) and G.n_equations == 2
    X = np.random.default_rng(1).standard_normal((4, 3)) + 0j
    np.testing.assert_allclose(G.evaluate(X), F.evaluate(X) @ G.randomization.T, rtol=1e-12)
    # the expanded polynomials agree with the evaluation through the original
    expanded = PolynomialSystem(G.variables, G.polynomials)
    np.testing.assert_allclose(expanded.evaluate(X), G.evaluate(X), rtol=1e-12)
    with pytest.raises(ValueError):
        F.randomize(4)


def test_residual_is_zero_on_exact_solutions_and_large_off():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    t = 0.3 + 0.7j
    assert F.residual(np.array([t, t**2, t**3])) < 1e-15
    assert F.residual(np.array([t, t**2 + 0.1, t**3])) > 1e-3
