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
def test_no_trace_test_is_started_past_the_timeout(seed):
    """A zero budget: no trace test runs (the last round's tests are reused, none is started
    after the deadline), so the set is undecided, never certified, and the stop reason says
    why. Before, the result recomputed every trace test after the budget (widths 2,2,2,2:
    600 s budget, killed after 1 800 s)."""
    r = monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.7 + 0.2j), seed=seed,
                  timeout=0.0)
    assert r.stop_reason.startswith("timeout") and not r.complete
    assert all(t.verdict is None and not t.residuals for t in r.trace_tests)


def test_a_loop_past_the_deadline_starts_no_path():
    """Loops go in batches when a deadline is set; past it no path is started (counted as
    unfinished, not as failed), before it every point goes around the loop."""
    import time
    from witness.monodromy import _LoopSizes, _State, _loop_endpoints
    from witness.options import resolve
    r = monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.7 + 0.2j), seed=1)
    W = r.witness_set
    st = _State(W, np.random.default_rng(0), "numpy", resolve(None))
    st.add_points(W.points, np.full(len(W.points), 1e-14))
    loop = _LoopSizes(W, np.random.default_rng(0)).new_loop(0)
    st.deadline = time.perf_counter() - 1.0
    src, E, _ = _loop_endpoints(st, loop, np.arange(3))
    assert len(src) == len(E) == 0 and st.unfinished == 3 and st.paths == st.failed == 0
    st.deadline = time.perf_counter() + 60.0
    src, E, _ = _loop_endpoints(st, loop, np.arange(3))
    assert sorted(src.tolist()) == [0, 1, 2] and st.unfinished == 3      # all three moved
    np.testing.assert_allclose(E[:, 1], E[:, 0] ** 2, atol=1e-9)        # on the cubic


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


def test_loop_sizes_leave_out_a_level_that_lost_paths():
    """witness.monodromy._LoopSizes: the level grows with fruitless loops (two per level) up
    to the largest of LOOP_FACTORS; a loop of level L >= 1 that lost more than LOOP_LOSS_MAX
    of its paths caps the level at L - 1 for the rest of the run, and new loops are then
    drawn no larger than that level's factor range (sizes checked against loop_scale)."""
    mono = importlib.import_module("witness.monodromy")
    W = monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.7), seed=1).witness_set
    sizes = mono._LoopSizes(W, np.random.default_rng(0))
    top = len(mono.LOOP_FACTORS) - 1
    assert [sizes.level(f) for f in (0, 1, 2, 3, 99)] == [0, 0, 1, 1, top]
    big = sizes.new_loop(top)
    sizes.record(big, 100, 5)                        # 5 % lost: not more than 5 %, kept
    assert sizes.level(99) == top
    sizes.record(big, 100, 6)
    assert sizes.level(99) == top - 1
    for _ in range(20):                              # drawn at level <= top - 1 now
        A, b1, _, _ = sizes.new_loop(top)
        ratio = np.linalg.norm(b1 - W.slice_b) / mono.loop_scale(W)
        assert ratio < mono.LOOP_FACTORS[top - 1][1] * 3   # |complex normal (1,)| < 3 here
    low = sizes.new_loop(0)
    sizes.record(low, 10, 10)                        # level 0 is never left out
    assert sizes.level(0) == 0 and sizes.level(99) == top - 1


@pytest.mark.parametrize("seed", [1, 2])
def test_a_stalled_search_that_loses_paths_moves_the_base_slice(seed, monkeypatch):
    """A stall with lost paths simulated: on the first base slice every loop path fails (as
    the paths into a cluster near a branch point do). After REBASE_AFTER fresh loops the
    search moves its points to a new random base slice (``_rebase``) and completes there:
    the twisted cubic has degree 3 (every point exactly (x, x^2, x^3), on the NEW slice, whose
    cubic a1 x + a2 x^2 + a3 x^3 = b has exactly these 3 roots), trace test and one-orbit
    confirmation pass, and the rebase is recorded."""
    mono = importlib.import_module("witness.monodromy")
    real, first = mono._loop_endpoints, []

    def failing_on_first_slice(st, loop, todo):
        if not first:
            first.append(st.W.slice_b.copy())
        if np.array_equal(st.W.slice_b, first[0]):
            st.failed += len(todo)               # every path of the loop lost
            n = st.W.system.n_vars
            return todo[:0], np.zeros((0, n), complex), np.zeros(0)
        return real(st, loop, todo)
    monkeypatch.setattr(mono, "_loop_endpoints", failing_on_first_slice)
    r = monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.7 + 0.2j), seed=seed)
    assert len(r.rebases) == 1 and r.rebases[0]["moved"] == 1, r.rebases
    assert r.rebases[0]["after_loops"] == mono.REBASE_AFTER
    assert r.complete and r.degree == 3 and len(r.components) == 1
    assert r.components[0].info["one_orbit"] is True
    W = r.witness_set
    assert not np.array_equal(W.slice_b, first[0])
    x = W.points[:, 0]
    np.testing.assert_allclose(W.points, np.stack([x, x**2, x**3], 1), atol=1e-10)
    (a1, a2, a3), = W.slice_A
    roots = np.roots([a3, a2, a1, -W.slice_b[0]])
    assert np.abs(np.sort_complex(roots) - np.sort_complex(x)).max() < 1e-8
    assert r.to_json()["rebases"] == [dict(d) for d in r.rebases]


def test_rebase_keeps_points_edges_and_path_counts():
    """``_rebase`` moves the known points of the twisted cubic (3 points, one edge) to a new
    parallel slice: all 3 arrive, each is (x, x^2, x^3) on the new slice, the edge between
    the two moved points is kept, and the 3 paths are counted."""
    mono = importlib.import_module("witness.monodromy")
    from witness.options import resolve
    W = monodromy(PolynomialSystem.from_strings(TWISTED), 1, cubic_point(0.7), seed=2).witness_set
    st = mono._State(W, np.random.default_rng(5), "numpy", resolve(None))
    st.add_points(W.points, np.full(3, 1e-14))
    st.graph.add_edge(0, 2)
    paths = st.paths
    W1, st1, info = mono._rebase(st, np.random.default_rng(6))
    assert info["moved"] == 3 and info["failed"] == 0 and st1.paths == paths + 3
    assert np.abs(W1.slice_b - W.slice_b).max() > 1e-3 and np.array_equal(W1.slice_A, W.slice_A)
    x = st1.X[:, 0]
    np.testing.assert_allclose(st1.X, np.stack([x, x**2, x**3], 1), atol=1e-10)
    assert np.abs(st1.X @ W1.slice_A.T - W1.slice_b).max() < 1e-10
    assert st1.graph.number_of_edges() == 1 and st1.W is W1
