"""Points of exact overdetermined systems are zeros of F as written (decided at 60 digits).

x - 1, y - 1, x*y - 1.0000000001 and x - 1/10, y - x, x*y - 1/100 - 1/10^20 have no solution
(the first two equations force x*y = 1, resp. 1/100); their least-squares points have backward
errors 1e-10 and 1e-20, which passed the double-precision check (1e-9), and both were certified
as a point. x^2 - 1, y^2 - 1, x - y is consistent: the two points (1, 1), (-1, -1).
"""
import pytest

from witness import PolynomialSystem, decompose

SEEDS = (1, 2)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("system", [
    ["x - 1", "y - 1", "x*y - 1.0000000001"],
    ["x - 1/10", "y - x", "x*y - 1/100 - 1/100000000000000000000"],
])
def test_inconsistent_exact_system_has_no_certified_point(system, seed):
    r = decompose(PolynomialSystem.from_strings(system), seed=seed)
    assert not r.components and not r.certified


@pytest.mark.parametrize("seed", SEEDS)
def test_consistent_overdetermined_system_keeps_its_points(seed):
    r = decompose(PolynomialSystem.from_strings(["x^2 - 1", "y^2 - 1", "x - y"]), seed=seed)
    assert r.certified
    assert sorted((c.dim, c.degree) for c in r.components) == [(0, 1), (0, 1)]
