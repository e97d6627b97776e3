"""witness.symmetry: witness sets moved by a permutation of the variables that fixes F.

Known answer: F = (x - y^2)(y - x^2) in C^2 is the union of two parabolas, each of degree 2,
exchanged by (x, y) -> (y, x), which fixes F (expand: xy - x^3 - y^3 + x^2 y^2, symmetric).
"""
import numpy as np
import pytest

from witness import PolynomialSystem, membership, monodromy
from witness.symmetry import image_trace_test, image_witness_set, invariant_under

F = PolynomialSystem.from_strings(["(x - y^2)*(y - x^2)"])


def test_invariant_under_is_exact():
    assert invariant_under(F, (1, 0))
    assert invariant_under(F, (0, 1))
    assert not invariant_under(PolynomialSystem.from_strings(["x - y^2"]), (1, 0))
    # the coefficient 1/3 vs 0.333...: not the same polynomial
    G = PolynomialSystem.from_strings(["x/3 + y/3 - 1", "x*y - 1/3 - 1/10^20"])
    assert invariant_under(G, (1, 0))
    assert not invariant_under(PolynomialSystem.from_strings(["x/3 + 0.3333*y"]), (1, 0))
    with pytest.raises(ValueError, match="permutation"):
        invariant_under(F, (0, 0))
    with pytest.raises(ValueError, match="permutation"):
        invariant_under(F, (0, 1, 2))


@pytest.mark.parametrize("seed", [0, 1])
def test_image_of_a_parabola_is_the_other_parabola(seed):
    W = monodromy(F, 1, [4.0, 2.0], seed=seed).witness_set        # x = y^2 through (4, 2)
    assert W.degree == 2
    V = image_witness_set(W, (1, 0))
    assert np.allclose(V.points[:, 1], V.points[:, 0] ** 2)       # on y = x^2
    assert np.allclose(V.points @ V.slice_A.T, V.slice_b)
    assert image_trace_test(V, np.random.default_rng(seed)).verdict is True
    # it is the other component: (2, 4) is on y = x^2, not on x = y^2
    assert membership([2.0, 4.0], V, seed=seed).verdict is True
    assert membership([2.0, 4.0], W, seed=seed).verdict is False
    # one point of the two is not a complete witness set: the trace test can fail
    part = V.with_points(V.points[:1])
    assert image_trace_test(part, np.random.default_rng(seed)).verdict is False
