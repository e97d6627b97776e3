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
    """No point; the empty answer is certified only by a proof of V(F) = ∅ (here a
    Nullstellensatz certificate of degree 2: x*y - c = y (x - 1) + (y - 1) + 1 - c)."""
    r = decompose(PolynomialSystem.from_strings(system), seed=seed)
    assert not r.components
    assert r.certified and "Nullstellensatz" in r.checks[0]["detail"]


@pytest.mark.parametrize("seed", SEEDS)
def test_consistent_overdetermined_system_keeps_its_points(seed):
    r = decompose(PolynomialSystem.from_strings(["x^2 - 1", "y^2 - 1", "x - y"]), seed=seed)
    assert r.certified
    assert sorted((c.dim, c.degree) for c in r.components) == [(0, 1), (0, 1)]


@pytest.mark.parametrize("seed", SEEDS)
def test_solve_does_not_invent_a_positive_dimensional_set(seed):
    """x*y - 1, x*y - 1 - 1/10^10 is empty (the equations differ by a nonzero constant): its
    paths ended near x*y = 1 and were called a positive-dimensional set met, complete: True.
    They are not zeros of F at 60 digits: failed ('not_a_zero'), not complete. The consistent
    x*y - 1, 2*x*y - 2 (the curve x*y = 1) is still reported as a positive-dimensional set."""
    from witness.solve import solve_paths
    r = solve_paths(PolynomialSystem.from_strings(["x*y - 1", "x*y - 1 - 1/10000000000"]),
                    seed=seed)
    assert not r.complete and not r.positive_dimensional and not r.isolated
    assert r.failure_reasons() == {"not_a_zero": 4}
    c = solve_paths(PolynomialSystem.from_strings(["x*y - 1", "2*x*y - 2"]), seed=seed)
    assert c.positive_dimensional and c.counts()["failed"] == 0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("system", [
    ["x - 1", "y - 1", "x*y - 1.0000000001"],
    ["x - 1/10", "y - x", "x*y - 1/100 - 1/100000000000000000000"],
])
def test_without_a_certificate_the_60_digit_check_rejects_the_point(system, seed,
                                                                   monkeypatch):
    """The same systems with the Nullstellensatz search switched off: the least-squares point
    (backward error 1e-10 and 1e-20 in double) must still not become a component (the
    60-digit Gauss-Newton check of a component's witness point, witness.decompose)."""
    import sys
    # (the package's attribute `decompose` is the function: patch the module itself)
    monkeypatch.setattr(sys.modules["witness.decompose"], "empty_certificate", lambda F: None)
    r = decompose(PolynomialSystem.from_strings(system), seed=seed)
    assert not r.components and not r.certified
