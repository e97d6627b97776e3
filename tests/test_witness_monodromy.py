"""Monodromy from one point, witness sets, membership and trace tests on known answers."""
import importlib

import numpy as np
import pytest

from witness import (PolynomialSystem, WitnessSet, membership, monodromy, move_slice, sample,
                     trace_test)
from witness.examples import random_dense
from witness.witness_set import random_slice, square_part

TWISTED = ["x^2 - y", "x^3 - z"]
CYCLIC4 = ["x1+x2+x3+x4", "x1*x2+x2*x3+x3*x4+x4*x1", "x1*x2*x3+x2*x3*x4+x3*x4*x1+x4*x1*x2",
           "x1*x2*x3*x4-1"]


def cubic_point(t):
    return np.array([t, t**2, t**3])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_twisted_cubic_has_degree_3_from_one_point(seed):
    r = monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.7 + 0.2j), seed=seed)
    assert r.complete and r.degree == 3 and len(r.components) == 1
    assert r.trace_residual < 1e-8 and r.seed == seed and r.failed_paths == 0
    x = r.witness_set.points[:, 0]       # the points are exactly on the cubic and the slice
    np.testing.assert_allclose(r.witness_set.points, np.stack([x, x**2, x**3], 1), atol=1e-10)
    assert r.witness_set.slice_residual().max() < 1e-10
    assert sum(len(p) for p in r.permutations) > 0


@pytest.mark.parametrize("seed", [1, 2])
def test_cyclic4_conic_has_degree_2(seed):
    a = 0.3 + 1.1j
    F = PolynomialSystem.from_strings(CYCLIC4)
    for point in ([a, 1 / a, -a, -1 / a], [a, -1 / a, -a, 1 / a]):   # x1 x2 = +1 and = -1
        r = monodromy(F, 1, np.array(point), seed=seed)
        assert r.complete and r.degree == 2
        X = r.witness_set.points                # both points on the same conic
        np.testing.assert_allclose(X[:, 0] * X[:, 1], point[0] * point[1], atol=1e-10)
        np.testing.assert_allclose(X[:, 2], -X[:, 0], atol=1e-10)


def test_overdetermined_system_is_randomized_and_checked():
    F = PolynomialSystem.from_strings(TWISTED + ["x*y - z", "y^2 - x*z"])   # 4 eqs, dim 1
    for seed in (0, 1, 2, 3):
        r = monodromy(F, 1, cubic_point(0.5 - 0.4j), seed=seed)
        assert r.complete and r.degree == 3
        assert np.all(F.residual(r.witness_set.points) < 1e-12)


def test_complete_intersection_curve_has_degree_6():
    rng = np.random.default_rng(4)
    p = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    F = random_dense([2, 3], 3, rng, through=p)
    r = monodromy(F, 1, p, seed=5)
    assert r.complete and r.degree == 6


def test_generic_hypersurface_has_degree_5():
    rng = np.random.default_rng(6)
    p = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    F = random_dense([5], 4, rng, through=p)
    r = monodromy(F, 3, p, seed=7)
    assert r.complete and r.degree == 5 and r.witness_set.dim == 3


def test_budget_returns_a_partial_flagged_set():
    F = PolynomialSystem.from_strings(TWISTED)
    r = monodromy(F, 1, cubic_point(0.7 + 0.2j), seed=1, max_loops=0)
    assert not r.complete and r.degree == 1 and "loop budget" in r.stop_reason
    assert r.trace_tests[0].verdict is False


def test_bad_start_points_raise():
    F = PolynomialSystem.from_strings(TWISTED)
    with pytest.raises(ValueError, match="not a solution"):
        monodromy(F, 1, np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="dim"):
        monodromy(F, 3, cubic_point(0.5))
    with pytest.raises(ValueError, match="shape"):
        monodromy(F, 1, np.array([0.5, 0.25]))
    with pytest.raises(ValueError, match="rank > 2"):     # an isolated point, not on a curve
        monodromy(PolynomialSystem.from_strings(["x - 1", "y - 1", "z - 1"]), 1,
                  np.array([1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="rank < 2"):
        # the line x = y = 0 with multiplicity 4: every point is singular
        monodromy(PolynomialSystem.from_strings(["x^2", "y^2"], variables=["x", "y", "z"]), 1,
                  np.array([0, 0, 1.0]))


def test_json_and_repr():
    r = monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.3j + 1), seed=3)
    j = r.to_json()
    import json
    json.dumps(j)
    assert j["degree"] == 3 and j["complete"] and j["seed"] == 3
    assert "degree=3" in repr(r)


# ----------------------------------------------------------------------------- witness sets
def cubic_witness_set(seed=0) -> WitnessSet:
    return monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.6 + 0.1j),
                     seed=seed).witness_set


def test_membership_on_and_off_the_cubic():
    W = cubic_witness_set()
    yes = membership(cubic_point(-1.3 + 0.5j), W, seed=1)
    assert yes.verdict is True and yes.margin > 2
    no = membership(np.array([1.0, 1.0, 2.0]), W, seed=1)
    assert no.verdict is False


def test_membership_distinguishes_the_two_cyclic4_conics():
    a = 0.3 + 1.1j
    F = PolynomialSystem.from_strings(CYCLIC4)
    W = monodromy(F, 1, np.array([a, 1 / a, -a, -1 / a]), seed=2).witness_set
    b = -0.8 + 0.5j
    assert membership(np.array([b, 1 / b, -b, -1 / b]), W, seed=3).verdict is True
    other = membership(np.array([b, -1 / b, -b, 1 / b]), W, seed=3)   # on the other conic
    assert other.verdict is False and other.residual < 1e-12


def test_trace_test_full_partial_and_union():
    a = 0.3 + 1.1j
    F = PolynomialSystem.from_strings(CYCLIC4)
    W = monodromy(F, 1, np.array([a, 1 / a, -a, -1 / a]), seed=2).witness_set
    assert trace_test(W, seed=1).verdict is True
    partial = W.with_points(W.points[:1])
    t = trace_test(partial, seed=1)
    assert t.verdict is False and t.margin < 0
    # the union of both conics, on one slice, is also a union of full components
    W2 = monodromy(F, 1, np.array([a, -1 / a, -a, 1 / a]), seed=4).witness_set
    moved, tr = move_slice(W2, W.slice_A, W.slice_b, seed=5)
    assert tr.ok.all()
    union = W.with_points(np.vstack([W.points, moved.points]))
    assert trace_test(union, seed=1).verdict is True
    assert trace_test(union.with_points(union.points[:3]), seed=1).verdict is False


def test_move_slice_and_sample_stay_on_the_cubic():
    W = cubic_witness_set(1)
    A, b = random_slice(np.random.default_rng(0), 1, 3)
    moved, tr = move_slice(W, A, b, seed=2)
    assert moved.degree == 3 and tr.n_failed == 0
    S = sample(W, 4, seed=3)
    assert S.shape == (12, 3)
    np.testing.assert_allclose(S[:, 1:], np.stack([S[:, 0]**2, S[:, 0]**3], 1), atol=1e-9)


def test_witness_set_rejects_bad_slices():
    F = PolynomialSystem.from_strings(TWISTED)
    with pytest.raises(ValueError, match="slice shapes"):
        WitnessSet(F, F, 1, np.zeros((2, 3)), np.zeros(2), np.zeros((0, 3)))
    with pytest.raises(ValueError, match="dim"):
        square_part(F, 5, np.random.default_rng(0))


def test_monodromy_with_phcpack_tracker_agrees():
    F = PolynomialSystem.from_strings(TWISTED)
    r = monodromy(F, 1, cubic_point(0.7 + 0.2j), seed=2, method="phc")
    assert r.complete and r.degree == 3


def test_refine_witness_set_to_40_digits():
    import mpmath
    from witness import refine_witness_set
    W = cubic_witness_set(2)
    R = refine_witness_set(W, digits=40)
    assert R.converged.all()
    with mpmath.workdps(50):
        for x, y, z in R.points_mp:     # exact relations of the twisted cubic
            assert abs(y - x**2) < mpmath.mpf(10) ** -40 and abs(z - x**3) < mpmath.mpf(10) ** -40


@pytest.mark.parametrize("seed", [1, 2])
def test_a_path_jump_between_components_is_split_off(seed, monkeypatch):
    """A path jump simulated in the first loop: the start point on the parabola y = x^2 is
    sent to a point of the other component y = x^2 + 1 of F = (y - x^2)(y - x^2 - 1). The
    search then grows one set of degree 4 whose trace test passes (a union of components);
    the full loops must see the jump (its target is also reached by the true preimage on the
    second parabola) and report the two components of degree 2 (each parabola meets a
    generic line twice), each confirmed as one orbit."""
    mono = importlib.import_module("witness.monodromy")   # the module, not the function
    real, calls = mono._run_loop, []

    def jumping_loop(st, loop, todo, perm):
        real(st, loop, todo, perm)
        if calls:
            return
        calls.append(1)
        (a, c), = st.W.slice_A           # a x + c y = b meets y = x^2 + 1: c x^2 + a x + c - b
        x = np.roots([c, a, c - st.W.slice_b[0]])[0]
        st.add_points(np.array([[x, x**2 + 1]]), np.array([1e-13]))
        st.graph.add_edge(int(todo[0]), len(st.X) - 1)
        perm.append((int(todo[0]), len(st.X) - 1))
    monkeypatch.setattr(mono, "_run_loop", jumping_loop)
    F = PolynomialSystem.from_strings(["(y - x^2)*(y - x^2 - 1)"])
    r = monodromy(F, 1, np.array([0.3 + 0.4j, (0.3 + 0.4j) ** 2]), seed=seed)
    assert calls and r.complete and sorted(c.degree for c in r.components) == [2, 2], r
    for c in r.components:              # each set lies on one parabola
        X = c.points
        shift = X[:, 1] - X[:, 0] ** 2
        np.testing.assert_allclose(shift, np.round(shift[0].real), atol=1e-8)
        assert c.info["one_orbit"] is True
    assert r.split_sets == 1 and r.to_json()["split_sets"] == 1
