"""Tracking: own batched tracker vs exact answers and vs PHCpack; failure accounting; refine."""
import mpmath
import numpy as np
import pytest

from witness import PolynomialSystem, refine, track_slices
from witness.tracking import StraightLineHomotopy, track


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


@pytest.mark.parametrize("method", ["numpy", "phc"])
def test_moving_the_slice_of_the_twisted_cubic_gives_the_exact_points(method):
    F, A0, b0, A1, b1, X0 = twisted_cubic_slices()
    tr = track_slices(F, A0, b0, A1, b1, X0, gamma=np.exp(0.7j), method=method)
    assert tr.ok.all() and tr.n_failed == 0 and tr.n_diverged == 0
    np.testing.assert_allclose(sort_rows(tr.endpoints), sort_rows(cubic_on_slice(A1, b1[0])),
                               atol=1e-10)
    assert np.all(tr.residuals < 1e-12)


def test_both_trackers_follow_the_same_paths():
    F = PolynomialSystem.from_strings(["x^2 + y^2 + z^2 - 1 + x*y", "x^3 - y*z + 2*x - 1"])
    rng = np.random.default_rng(1)
    A0 = rng.standard_normal((1, 3)) + 1j * rng.standard_normal((1, 3))
    A1 = rng.standard_normal((1, 3)) + 1j * rng.standard_normal((1, 3))
    b0, b1 = np.array([0.5j]), np.array([1.0 + 0j])
    from witness import phc
    X0 = phc.polysys_solve(F, seed=3).dims[1]
    tr0 = track_slices(F, X0.slice_A, X0.slice_b, A1, b1, X0.points, gamma=0.6 + 0.8j)
    tr1 = track_slices(F, X0.slice_A, X0.slice_b, A1, b1, X0.points, gamma=0.6 + 0.8j,
                       method="phc")
    assert tr0.ok.all() and tr1.ok.all() and tr0.n_paths == 6    # Bezout: 2 * 3
    np.testing.assert_allclose(tr0.endpoints, tr1.endpoints, atol=1e-9)   # path by path


def test_diverging_path_is_counted_not_dropped():
    # start x^2 - 1 (2 roots) -> target x - 2 (1 root): one path must go to infinity
    target = PolynomialSystem.from_strings(["x - 2"])
    start = PolynomialSystem.from_strings(["x^2 - 1"])
    H = StraightLineHomotopy(target, start, gamma=np.exp(1j))
    out = track(H, np.array([[1.0 + 0j], [-1.0 + 0j]]))
    assert len(out["status"]) == 2
    assert sorted(out["status"]) in (["diverged", "success"], ["failed", "success"])
    ok = out["status"] == "success"
    assert abs(out["endpoints"][ok][0, 0] - 2) < 1e-12


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
    assert (tr.status == "success").sum() == len(X0)
    assert tr.on_original.sum() == 3 and tr.ok.sum() == 3
    np.testing.assert_allclose(sort_rows(tr.endpoints[tr.ok]), sort_rows(cubic_on_slice(A1, b1[0])),
                               atol=1e-9)


def test_bad_input_shapes():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    A = np.ones((1, 3), complex)
    with pytest.raises(ValueError):
        track_slices(F, A, np.ones(1), np.ones((2, 3)), np.ones(2), np.zeros((1, 3)), gamma=1j)
    H = StraightLineHomotopy(PolynomialSystem.from_strings(["x - 2"]),
                             PolynomialSystem.from_strings(["x - 1"]), 1j)
    with pytest.raises(ValueError, match="finite"):
        track(H, np.array([[np.nan]]))
    with pytest.raises(ValueError, match="method"):
        track_slices(F, A, np.ones(1), A, np.ones(1), np.zeros((1, 3)), gamma=1j, method="x")


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


def test_monomial_tree_evaluation_matches_mpmath_on_a_sparse_high_degree_system():
    rng = np.random.default_rng(3)
    n, polys = 5, []
    for _ in range(4):
        p = {}
        for _ in range(12):
            e = tuple(int(k) for k in rng.multinomial(int(rng.integers(0, 11)), [1 / n] * n))
            p[e] = complex(rng.standard_normal(), rng.standard_normal())
        polys.append(p)
    F = PolynomialSystem.from_dicts([f"x{i}" for i in range(n)], polys)
    X = rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))
    for x, f, J in zip(X, F.evaluate(X), F.jacobian(X)):
        fm = np.array([complex(v) for v in F.evaluate_mp(x, 40)])
        Jm = np.array(F.jacobian_mp(x, 40).tolist(), dtype=complex)
        np.testing.assert_allclose(f, fm, rtol=1e-12, atol=1e-12 * np.abs(fm).max())
        np.testing.assert_allclose(J, Jm, rtol=1e-12, atol=1e-12 * np.abs(Jm).max())


def test_double_double_evaluation_removes_cancellation_error():
    # (x - 1)^12 expanded: at x = 1 + 1e-3 the terms are ~2^12 and cancel to ~1e-36
    from witness import ddarith
    F = PolynomialSystem.from_strings(["(x - 1)^12", "x^3 - 1/3"])
    x = np.array([[1 + 1e-3 + 0j]])
    exact = np.array([complex(v) for v in F.evaluate_mp([x[0, 0]], 60)])
    terms = sum(abs(complex(c)) * abs(x[0, 0]) ** e[0] for e, c in F.polynomials[0].items())
    err_d = abs(F.evaluate(x)[0, 0] - exact[0])
    err_dd = np.abs(ddarith.cdd_to_complex(F.evaluate_precise(x))[0] - exact)
    assert err_d > 1e-3 * np.finfo(float).eps * terms            # double: rounding dominates
    assert err_dd[0] < 1e-30 * terms                             # dd: unit roundoff 2^-104
    assert err_dd[1] < 1e-30                                     # 1/3 kept to ~32 digits
    G = F.randomize(1, np.random.default_rng(0))
    np.testing.assert_allclose(ddarith.cdd_to_complex(G.evaluate_precise(x)), G.evaluate(x),
                               atol=1e-12)


def test_failed_paths_are_retried_and_reasons_counted():
    F, A0, b0, A1, b1, X0 = twisted_cubic_slices()
    from witness import TrackerOptions
    # an endpoint tolerance nobody can meet: every path fails twice, with its reason
    tr = track_slices(F, A0, b0, A1, b1, X0, gamma=np.exp(0.7j),
                      options=TrackerOptions(endpoint_tol=1e-30))
    assert tr.n_failed == 3 and tr.retried == 3 and tr.recovered == 0
    assert tr.reason_counts() == {"endpoint_tol": 3}
    assert np.all(tr.accuracy < 1e-12)          # the endpoints themselves are fine
    # too few steps (8) for the first attempt; the retry has 4x the budget: 2 of 3 recover,
    # on the SAME paths (the exact endpoints), the third is still counted with its reason
    tr = track_slices(F, A0, b0, A1, b1, X0, gamma=np.exp(0.7j),
                      options=TrackerOptions(max_steps=8))
    assert tr.retried == 3 and tr.recovered == 2 and tr.n_failed == 1
    assert tr.reason_counts() == {"max_steps": 1} and tr.n_paths == 3
    exact = cubic_on_slice(A1, b1[0])
    for e in tr.endpoints[tr.ok]:
        assert np.abs(exact - e).sum(axis=1).min() < 1e-10
    tr2 = track_slices(F, A0, b0, A1, b1, X0, gamma=np.exp(0.7j),
                       options=TrackerOptions(max_steps=8), retry=False)
    assert tr2.retried == 0 and tr2.n_failed == 3
