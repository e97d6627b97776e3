"""Certification of witness points of positive-dimensional components
(witness.certify_witness): counts against components of known degree, and points that must not
certify."""
import numpy as np
import pytest

from witness import PolynomialSystem, witness_set
from witness.certify_witness import certify_witness_points, witness_square_system

TWISTED = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z", "x*y - z"])   # m = 3 > n - 1


@pytest.mark.parametrize("seed", [1, 2])
def test_twisted_cubic_witness_points(seed):
    """The twisted cubic (x, x^2, x^3) has degree 3: a slice a.x = b meets it in the 3 roots of
    a0 t + a1 t^2 + a2 t^3 = b, computed here by numpy.roots, not by a homotopy."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    b = complex(rng.standard_normal(), rng.standard_normal())
    t = np.roots([a[2], a[1], a[0], -b])
    X = np.stack([t, t ** 2, t ** 3], axis=1)
    r = certify_witness_points(TWISTED, a[None, :], [b], X, seed=seed)
    assert (r.certified, r.distinct) == (3, 3)
    far = rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))   # not near any
    assert certify_witness_points(TWISTED, a[None, :], [b], far, seed=seed).certified == 0
    moved = X + 1e-3       # near: may certify, but its box holds the candidate and the zero
    for c in certify_witness_points(TWISTED, a[None, :], [b], moved, seed=seed).certificates:
        assert not c.certified or c.radius >= 0.49e-3      # box diameter >= their distance
    twice = np.vstack([X, X[:1] * (1 + 1e-15)])   # the same zero twice counts once
    r2 = certify_witness_points(TWISTED, a[None, :], [b], twice, seed=seed)
    assert (r2.certified, r2.distinct) == (4, 3)


def test_square_system_is_exact_and_square():
    G = witness_square_system(TWISTED, [[1, 2, 3]], [0.5], np.random.default_rng(0))
    assert G.n_equations == G.n_vars == 3
    from fractions import Fraction
    assert all(isinstance(c, Fraction) for p in G.polynomials[:2] for c in p.values())
    with pytest.raises(ValueError, match="slice must be"):
        witness_square_system(TWISTED, [[1, 2]], [0.5], np.random.default_rng(0))


@pytest.mark.parametrize("seed", [1, 2])
def test_witness_set_from_the_engine(seed):
    """A witness set computed by witness_set (PHCpack cascade) of the sphere ∪ twisted-cubic-
    free example: the unit sphere in C^3 has degree 2."""
    F = PolynomialSystem.from_strings(["x^2 + y^2 + z^2 - 1"])
    W = witness_set(F, 2, seed=seed)
    assert W.degree == 2
    r = certify_witness_points(F, W.slice_A, W.slice_b, W.points, seed=seed)
    assert (r.certified, r.distinct) == (2, 2)
