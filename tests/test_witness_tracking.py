"""Tracking: the compiled tracker vs exact answers and vs PHCpack; end states and reasons;
projective coordinates; the Cauchy endgame; programs; refine."""
import mpmath
import numpy as np
import pytest

from witness import PolynomialSystem, TrackerOptions, refine, track_slices
from witness import kernels, program
from witness.homotopy import Homotopy, straight_line_homotopy, total_degree_start
from witness.tracking import PathStatus, track


def cubic_on_slice(A: np.ndarray, b: complex) -> np.ndarray:
    """Exact witness points of the twisted cubic (t, t^2, t^3) on a x + b y + c z = b: roots."""
    a = A[0]
    t = np.roots([a[2], a[1], a[0], -b])
    return np.stack([t, t**2, t**3], axis=1)


def sort_rows(X):
    return X[np.lexsort((X[:, 0].imag, X[:, 0].real))]


def twisted_cubic_slices():
    """The twisted cubic, two random slices (seed 7) and its 3 exact points on the first."""
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    rng = np.random.default_rng(7)
    A0 = rng.standard_normal((1, 3)) + 1j * rng.standard_normal((1, 3))
    A1 = rng.standard_normal((1, 3)) + 1j * rng.standard_normal((1, 3))
    b0, b1 = np.array([0.3 + 0.2j]), np.array([-1.1 + 0.4j])
    return F, A0, b0, A1, b1, cubic_on_slice(A0, b0[0])


def solve_total_degree(F: PolynomialSystem, seed: int):
    """All paths of a total-degree homotopy to F, with the endgame."""
    S, X0 = total_degree_start(F)
    gamma = complex(np.exp(2j * np.pi * np.random.default_rng(seed).random()))
    H = Homotopy(straight_line_homotopy(F, S), np.array([[gamma]]), F.n_vars, F, gamma)
    return track(H, X0, endgame=True, rng=seed)


@pytest.mark.parametrize("method", ["numpy", "phc"])
def test_moving_the_slice_of_the_twisted_cubic_gives_the_exact_points(method):
    F, A0, b0, A1, b1, X0 = twisted_cubic_slices()
    tr = track_slices(F, A0, b0, A1, b1, X0, gamma=np.exp(0.7j), method=method)
    assert tr.ok.all() and tr.n_failed == 0 and tr.n_at_infinity == 0
    np.testing.assert_allclose(sort_rows(tr.endpoints), sort_rows(cubic_on_slice(A1, b1[0])),
                               atol=1e-10)
    assert np.all(tr.residuals < 1e-12)


def test_both_trackers_follow_the_same_paths():
    F = PolynomialSystem.from_strings(["x^2 + y^2 + z^2 - 1 + x*y", "x^3 - y*z + 2*x - 1"])
    rng = np.random.default_rng(1)
    A1 = rng.standard_normal((1, 3)) + 1j * rng.standard_normal((1, 3))
    b1 = np.array([1.0 + 0j])
    from witness import phc
    X0 = phc.polysys_solve(F, seed=3).dims[1]
    tr0 = track_slices(F, X0.slice_A, X0.slice_b, A1, b1, X0.points, gamma=0.6 + 0.8j,
                       reroute=False)
    tr1 = track_slices(F, X0.slice_A, X0.slice_b, A1, b1, X0.points, gamma=0.6 + 0.8j,
                       method="phc")
    assert tr0.ok.all() and tr1.ok.all() and tr0.n_paths == 6    # Bezout: 2 * 3
    np.testing.assert_allclose(tr0.endpoints, tr1.endpoints, atol=1e-9)   # path by path


def test_path_to_infinity_ends_at_infinity_not_failed():
    # start x^2 - 1 (2 roots) -> target x - 2 (1 root): one path goes to infinity, which on the
    # patch of P^1 is an ordinary regular endpoint [0 : 1]
    target = PolynomialSystem.from_strings(["x - 2"])
    start = PolynomialSystem.from_strings(["x^2 - 1"])
    H = Homotopy(straight_line_homotopy(target, start), np.array([[np.exp(1j)]]), 1, target)
    tr = track(H, np.array([[1.0 + 0j], [-1.0 + 0j]]))
    assert sorted(tr.status) == [PathStatus.AT_INFINITY, PathStatus.REGULAR]
    assert abs(tr.endpoints[tr.ok][0, 0] - 2) < 1e-12
    assert np.isnan(tr.endpoints[tr.status == PathStatus.AT_INFINITY]).all()


def test_a_path_through_huge_coordinates_is_easy_in_projective_space():
    # (s - s*) x - 1 = 0: x(s) = 1 / (s - s*) passes |x| = 1e6 at s = 1/2 (a pole 1e-6 off the
    # real segment); on the patch it is a line through infinity. Exact end: 1 / (1 - s*).
    star = 0.5 + 1e-6j
    P = program.trace(lambda X, s, c: [(s - star) * X[1] - X[0]], 2, 0, with_path_parameter=True)
    check = PolynomialSystem.from_strings([f"({(1 - star).real!r} + {(1 - star).imag!r}*i)*x - 1"])
    H = Homotopy(P, np.zeros((1, 0)), 1, check)
    tr = track(H, np.array([[-1 / star]]), reroute=False)
    assert tr.status[0] == PathStatus.REGULAR
    assert abs(tr.endpoints[0, 0] - 1 / (1 - star)) < 1e-12 * abs(1 / (1 - star))
    assert tr.steps[0] < 200


def test_endpoints_are_checked_on_the_original_equations():
    # randomized overdetermined twisted cubic: V(R F) = twisted cubic + spurious curves; all
    # points of V(R F) on a slice are tracked, exactly 3 (the degree) satisfy F
    from witness import phc
    from witness.tracking import _slice_system
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z", "x*y - z"])
    G = F.randomize(2, np.random.default_rng(0))
    rng = np.random.default_rng(5)
    A0, A1 = (rng.standard_normal((1, 3)) + 1j * rng.standard_normal((1, 3)) for _ in range(2))
    b0, b1 = np.array([0.3 + 0.1j]), np.array([-0.7 + 0.2j])
    sol = phc.solve(_slice_system(G, A0, b0), seed=3)
    X0 = sol.points[sol.residuals < 1e-9]
    assert len(X0) > 3            # the cubic's 3 points and at least one spurious point
    tr = track_slices(G, A0, b0, A1, b1, X0, gamma=np.exp(2j))
    assert (tr.status == PathStatus.REGULAR).sum() == len(X0)
    assert tr.on_original.sum() == 3 and tr.ok.sum() == 3
    np.testing.assert_allclose(sort_rows(tr.endpoints[tr.ok]), sort_rows(cubic_on_slice(A1, b1[0])),
                               atol=1e-9)


def test_bad_input_shapes():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    A = np.ones((1, 3), complex)
    with pytest.raises(ValueError):
        track_slices(F, A, np.ones(1), np.ones((2, 3)), np.ones(2), np.zeros((1, 3)), gamma=1j)
    with pytest.raises(ValueError, match="finite"):
        track_slices(F, A, np.ones(1), A, np.ones(1), np.array([[np.nan, 0, 0]]), gamma=1j)
    with pytest.raises(ValueError, match="method"):
        track_slices(F, A, np.ones(1), A, np.ones(1), np.zeros((1, 3)), gamma=1j, method="x")
    with pytest.raises(ValueError, match="positive"):
        TrackerOptions(max_step=-1)


@pytest.mark.parametrize("seed", [0, 1])
def test_endgame_griewank_osborne_triple_root_and_paths_at_infinity(seed):
    # (29/16) x^3 - 2 x y, x^2 - y: the origin is the only root, multiplicity 3 (Griewank-
    # Osborne 1983); total degree 3 * 2 = 6, so 3 paths end at infinity (Bezout in P^2)
    F = PolynomialSystem.from_strings(["29/16*x^3 - 2*x*y", "x^2 - y"])
    tr = solve_total_degree(F, seed)
    assert sorted(tr.status) == ["at_infinity"] * 3 + ["singular"] * 3, tr
    sing = tr.status == PathStatus.SINGULAR
    assert np.abs(tr.endpoints[sing]).max() < 1e-8


@pytest.mark.parametrize("seed", [0, 1])
def test_endgame_triple_root_with_a_simple_root(seed):
    # x^2 + y - 3, x + y^2/8 - 3/2: (1, 2) has multiplicity 3, and one simple root
    # (PHCpack's deflation examples); total degree 4 = 3 + 1, no path at infinity
    F = PolynomialSystem.from_strings(["x^2 + y - 3", "x + y^2/8 - 3/2"])
    tr = solve_total_degree(F, seed)
    sing = tr.status == PathStatus.SINGULAR
    assert sing.sum() == 3 and (tr.status == PathStatus.REGULAR).sum() == 1, tr
    np.testing.assert_allclose(tr.endpoints[sing], [[1, 2]] * 3, atol=1e-7)
    x, y = tr.endpoints[tr.status == PathStatus.REGULAR][0]      # the simple root: exact check
    assert abs(x**2 + y - 3) < 1e-12 and abs(x + y**2 / 8 - 1.5) < 1e-12


def test_winding_numbers_of_a_cusp():
    # x^2 - y^3 = 0 sliced by y = (1 - s)... as a homotopy to x^2 = 0: paths x = +-s^(3/2)
    # type; here simply (x^3 - t) -> x^3 with t = 1 - s: one point of multiplicity 3 reached
    # by 3 paths forming one cycle of winding number 3
    F = PolynomialSystem.from_strings(["x^3"])
    tr = solve_total_degree(F, 0)
    assert list(tr.status) == ["singular"] * 3
    assert list(tr.winding) == [3, 3, 3]
    assert np.abs(tr.endpoints).max() < 1e-8


@pytest.mark.parametrize("angle", [0.7, 2.1])
def test_cauchy_loops_around_a_cluster_of_branch_points_are_not_the_endpoint(angle):
    """x^2 - 1e-8 from x^2 - 1 (gamma = e^(i angle)): the two paths collide at the branch
    point gamma (1 - s) + s 1e-8 = 0, |1 - s| ~ 1e-8 (derived: H = (gamma (1 - s) + s) x^2 -
    (gamma (1 - s) + s 1e-8)). Loops of radius 1e-3 .. 1e-7 around s = 1 enclose it: they close
    after 2 loops and their means agree (the constant term of the Laurent series, ~1e-9) but
    are no zero (backward error 1e-8 > residual_tol 1e-9). The endgame must go on inward and
    return the two simple roots +-1e-4 with winding number 1."""
    from witness import endgame
    from witness.homotopy import to_affine, to_projective
    from witness.options import Options
    F = PolynomialSystem.from_strings(["x^2 - 1/100000000"])
    S, X0 = total_degree_start(F)
    gamma = complex(np.exp(1j * angle))
    H = Homotopy(straight_line_homotopy(F, S), np.array([[gamma]]), 1, F, gamma)
    opt = Options(tracker=TrackerOptions(endgame_start=1e-3))
    s0 = np.full(2, 1 - 1e-3 + 0j)
    X1, _, info = kernels.track_batch(H.program.arrays(), to_projective(X0), np.zeros(2, complex),
                                      s0, H.rows(np.arange(2)), opt.tracker.vector())
    assert np.all(info[:, 0] == kernels.DONE)
    E, c, conv, acc = endgame.cauchy(H, X1, s0, np.arange(2), opt, np.random.default_rng(0))
    assert conv.all() and list(c) == [1, 1]
    np.testing.assert_allclose(sorted(to_affine(E).ravel().real), [-1e-4, 1e-4], rtol=1e-9)


def test_failure_reasons_are_counted():
    F, A0, b0, A1, b1, X0 = twisted_cubic_slices()
    # an endpoint tolerance nobody can meet: every path fails, also on every detour
    tr = track_slices(F, A0, b0, A1, b1, X0, gamma=np.exp(0.7j),
                      options=TrackerOptions(endpoint_tol=1e-30))
    assert tr.n_failed == 3 and tr.rerouted == 3 and tr.recovered == 0
    assert tr.reason_counts() == {"endpoint_tol": 3}
    # too few steps: failed paths are rerouted (max_steps counts per route); without
    # rerouting all three fail with their reason
    tr2 = track_slices(F, A0, b0, A1, b1, X0, gamma=np.exp(0.7j),
                       options=TrackerOptions(max_steps=4), reroute=False)
    assert tr2.rerouted == 0 and tr2.n_failed == 3
    assert tr2.reason_counts() == {"max_steps": 3}


def test_program_evaluation_matches_mpmath_on_a_sparse_high_degree_system():
    rng = np.random.default_rng(3)
    n, polys = 5, []
    for _ in range(4):
        p = {}
        for _ in range(12):
            e = tuple(int(k) for k in rng.multinomial(int(rng.integers(0, 11)), [1 / n] * n))
            p[e] = complex(rng.standard_normal(), rng.standard_normal())
        polys.append(p)
    F = PolynomialSystem.from_dicts([f"x{i}" for i in range(n)], polys)
    P = program.from_system(F)
    X = rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))
    f, J, _ = P.evaluate(X, jacobian=True)
    for x, fx, Jx in zip(X, f, J):
        fm = np.array([complex(v) for v in F.evaluate_mp(x, 40)])
        Jm = np.array(F.jacobian_mp(x, 40).tolist(), dtype=complex)
        np.testing.assert_allclose(fx, fm, rtol=1e-12, atol=1e-12 * np.abs(fm).max())
        np.testing.assert_allclose(Jx, Jm, rtol=1e-12, atol=1e-12 * np.abs(Jm).max())
    Ph = program.homogenize(P)                    # x0^D f(x / x0) at x0 = 2
    fh = Ph.evaluate(np.hstack([[2.0], X[0]]))
    np.testing.assert_allclose(fh, 2.0 ** np.array(F.degrees) * P.evaluate(X[0] / 2),
                               rtol=1e-11)


def test_double_double_evaluation_removes_cancellation_error():
    # (x - 1)^12 expanded: at x = 1 + 1e-3 the terms are ~2^12 and cancel to ~1e-36
    F = PolynomialSystem.from_strings(["(x - 1)^12", "x^3 - 1/4"])
    x = np.array([[1 + 1e-3 + 0j]])
    exact = np.array([complex(v) for v in F.evaluate_mp([x[0, 0]], 60)])
    terms = sum(abs(complex(c)) * abs(x[0, 0]) ** e[0] for e, c in F.polynomials[0].items())
    P = program.from_system(F)
    err_d = abs(P.evaluate(x)[0, 0] - exact[0])
    err_dd = np.abs(kernels.evaluate_dd(P.arrays(), x, np.zeros(1, complex),
                                        np.zeros((1, 0), complex))[0] - exact)
    assert err_d > 1e-3 * np.finfo(float).eps * terms            # double: rounding dominates
    assert err_dd[0] < 1e-30 * terms                             # dd: unit roundoff 2^-104
    assert err_dd[1] < 1e-30


def test_refine_to_50_digits_against_the_exact_root():
    F = PolynomialSystem.from_strings(["x^2 - 2", "y - x^3"])
    r = refine(F, np.array([[1.414, 2.83]]), digits=50)
    assert r.converged.all()
    with mpmath.workdps(60):
        s2 = mpmath.sqrt(2)
        assert abs(r.points_mp[0][0] - s2) < mpmath.mpf(10) ** -50
        assert abs(r.points_mp[0][1] - 2 * s2) < mpmath.mpf(10) ** -50


def test_refine_reports_a_singular_root_as_not_converged():
    # Griewank-Osborne: multiplicity 3 at the origin, Newton converges only linearly
    F = PolynomialSystem.from_strings(["29/16*x^3 - 2*x*y", "x^2 - y"])
    r = refine(F, np.array([[1e-3, 1e-6]]), digits=30, max_iterations=20)
    assert not r.converged[0] and r.corrections[0] > 1e-30


def test_refine_with_slice_is_gauss_newton():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z", "x*y - z"])   # 3 eqs, dim 1
    A, b = np.array([[1.0, 2.0, 3.0]]), np.array([6.0])
    # exact point: t + 2 t^2 + 3 t^3 = 6 has the root t = 1
    r = refine(F, np.array([[1.01, 0.99, 1.02]]), digits=40, slice_A=A, slice_b=b)
    assert r.converged[0]
    np.testing.assert_allclose(r.points[0], [1, 1, 1], atol=1e-15)
