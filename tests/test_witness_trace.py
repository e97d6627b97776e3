"""Trace-test decision (two pencils) and the same/different point rule, against exact truth."""
import numpy as np
import pytest

from witness import PolynomialSystem, WitnessSet, monodromy, trace_test
from witness import distinct
from witness.tracking import newton_on_slice, random_gamma, track_slices
from witness.trace import (TRACE_FAIL, TRACE_TOL, refined_residual, trace_noise,
                           trace_residual, trace_verdict)
from witness.witness_set import random_complex

XYZ = PolynomialSystem.from_strings(["x*y*z - 1"])     # a cubic surface (degree 3, irreducible)


def xyz_slice_through_flat_point(eps: float, rng):
    """A slice of x y z = 1 through a point with |x| = eps, and its 3 points (exact: roots of
    the cubic along the slice's line p + tau d)."""
    p = np.array([eps, 1 / np.sqrt(eps), 0]) * np.exp(2j * np.pi * np.array([0.1, 0.3, 0]))
    p[2] = 1 / (p[0] * p[1])
    d = random_complex(rng, 3)
    A = random_complex(rng, 2, 3)
    A = A - np.outer(A @ d, d.conj()) / np.vdot(d, d)          # A d = 0: the line is in it
    cubic = (np.poly1d([d[0], p[0]]) * np.poly1d([d[1], p[1]]) * np.poly1d([d[2], p[2]])
             - 1)
    P = p[None, :] + np.roots(cubic.coeffs)[:, None] * d[None, :]
    return A, A @ p, P


def single_pencil_residual(W: WitnessSet, rng) -> float:
    v = random_complex(rng, W.dim)
    ts = (0j, complex(np.exp(2j * np.pi * rng.random())),
          complex(-np.exp(2j * np.pi * rng.random())))
    vals = [W.points] + [track_slices(W.square, W.slice_A, W.slice_b, W.slice_A,
                                      W.slice_b + t * v, W.points,
                                      gamma=random_gamma(rng)).endpoints for t in ts[1:]]
    return trace_residual(vals, ts)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_subset_missing_a_point_on_a_flat_sheet_is_not_certified(seed):
    """The missing point sits where x y z = 1 is nearly the plane x = 0: it moves almost
    affinely along a parallel pencil, so the 2 other points alone have a nearly linear trace on
    this slice (the old one-pencil rule with tolerance 1e-8 certified such a set). The second
    pencil on an independent slice must reject it; the full set must pass."""
    rng = np.random.default_rng(seed)
    A, b, P = xyz_slice_through_flat_point(1e-4, rng)
    assert np.all(XYZ.residual(P) < 1e-12)
    W = WitnessSet(XYZ, XYZ, 2, A, b, P)
    sub = W.with_points(np.delete(P, np.argmin(np.abs(P[:, 0])), axis=0))
    assert single_pencil_residual(sub, rng) < 1e-8            # the old rule would pass it
    t = trace_test(sub, seed=seed)
    assert t.verdict is False and len(t.residuals) == 2 and t.residual > TRACE_FAIL
    full = trace_test(W, seed=seed)
    assert full.verdict is True and full.residual < TRACE_TOL and len(full.residuals) == 2


def test_trace_verdict_rule():
    assert trace_verdict([1e-16]).verdict is None               # one pencil is never enough
    assert trace_verdict([1e-16, 1e-15]).verdict is True
    assert trace_verdict([1e-16, 1e-3]).verdict is False        # incomplete on one slice
    assert trace_verdict([1e-16, 1e-9]).verdict is None         # between the tolerances
    assert trace_verdict([1e-16, 1e-16], failed=1).verdict is None
    r = trace_verdict([1e-16, 1e-14])
    assert r.residual == 1e-14 and r.margin == pytest.approx(3) and r.residuals == (1e-16, 1e-14)


def test_trace_verdict_noise_rule():
    """A residual below TRACE_TOL passes only within noise_factor (10) of its rounding noise;
    above it is undecided in double precision and False when it was computed from values
    refined to 30 digits (a nonlinearity the values resolve)."""
    assert trace_verdict([1e-15, 2e-15], noises=[1e-15, 1e-15]).verdict is True
    assert trace_verdict([1e-13, 1e-15], noises=[1e-16, 1e-15]).verdict is None
    r = trace_verdict([1e-13, 1e-15], noises=[1e-31, 1e-15], digits=[30, 16])
    assert r.verdict is False and r.digits == (30, 16) and r.to_json()["noises"][0] == 1e-31
    assert trace_verdict([1e-30, 1e-15], noises=[1e-31, 1e-15], digits=[30, 16]).verdict


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trace_noise_bounds_the_rounding_error(seed):
    """Moving every value x by its accuracy estimate a (1 + |x|), in any direction, changes the
    residual's deviation by at most trace_noise times the scale (the bound's derivation)."""
    rng = np.random.default_rng(seed)
    ts = (0j, complex(np.exp(2j * np.pi * rng.random())),
          complex(-np.exp(2j * np.pi * rng.random())))
    vals = [random_complex(rng, 5, 3) * 10 ** rng.uniform(-2, 2) for _ in range(3)]
    accs = [10 ** rng.uniform(-16, -10, 5) for _ in range(3)]
    noise = trace_noise(vals, ts, accs)
    scale = sum(np.linalg.norm(v, axis=1).sum() for v in vals)
    lam = (ts[2] - ts[0]) / (ts[1] - ts[0])
    dev = lambda V: V[2].sum(0) - V[0].sum(0) - lam * (V[1].sum(0) - V[0].sum(0))  # noqa
    for _ in range(20):
        moved = []
        for v, a in zip(vals, accs):
            d = random_complex(rng, *v.shape)
            d *= (a * (1 + np.linalg.norm(v, axis=1)) / np.linalg.norm(d, axis=1))[:, None]
            moved.append(v + d)
        assert np.linalg.norm(dev(moved) - dev(vals)) / scale <= noise * (1 + 1e-9)


NEARLY_REDUCIBLE = PolynomialSystem.from_strings(["x^3*y - 1e-12*z^4"])


def test_a_proper_subset_of_a_nearly_reducible_surface_fails_at_30_digits():
    """x^3 y - 1e-12 z^4 is irreducible (linear in y, gcd(x^3, z^4) = 1) of degree 4, within
    1e-12 of the planes x = 0 (three times) and y = 0. Its witness point far from x = 0 alone
    has a trace that is affine to ~1e-13 (below TRACE_TOL), but 1000x above its rounding
    noise: refined at 30 digits the nonlinearity stays, so the subset fails; the whole set
    passes in double precision."""
    W = nearly_reducible_witness_set()
    far = int(np.argmax(np.abs(W.points[:, 0])))
    full, sub = trace_test(W, seed=3, groups=[list(range(4)), [far]])
    assert full.verdict is True and full.digits == (16, 16), full
    assert sub.verdict is False and 30 in sub.digits, sub
    assert min(sub.residuals) < TRACE_TOL                 # the old rule would have passed it


def nearly_reducible_witness_set() -> WitnessSet:
    """The 4 points of x^3 y - 1e-12 z^4 on a random line (roots of the quartic along it)."""
    rng = np.random.default_rng(7)
    A, b = random_complex(rng, 2, 3), random_complex(rng, 2)
    p0 = np.linalg.lstsq(A, b, rcond=None)[0]
    d = np.linalg.svd(A)[2][-1].conj()                     # the slice is the line p0 + s d
    quartic = (np.poly1d([d[0], p0[0]]) ** 3 * np.poly1d([d[1], p0[1]])
               - 1e-12 * np.poly1d([d[2], p0[2]]) ** 4)
    P = p0[None, :] + np.roots(quartic.coeffs)[:, None] * d[None, :]
    P = newton_on_slice(NEARLY_REDUCIBLE, A, b, P)[0]
    assert np.all(NEARLY_REDUCIBLE.residual(P) < 1e-12)
    return WitnessSet(NEARLY_REDUCIBLE, NEARLY_REDUCIBLE, 2, A, b, P)


def test_a_refinement_above_its_work_bound_leaves_the_test_undecided(monkeypatch):
    """The far point of the nearly reducible surface again, with REFINE_MAX_WORK below the
    cost of refining it: undecided (not passed, not failed)."""
    import witness.trace as T
    from witness.trace import system_size
    assert system_size(NEARLY_REDUCIBLE) == 2
    monkeypatch.setattr(T, "REFINE_MAX_WORK", 1)
    W = nearly_reducible_witness_set()
    far = int(np.argmax(np.abs(W.points[:, 0])))
    (sub,) = trace_test(W, seed=3, groups=[[far]])
    assert sub.verdict is None and sub.digits == (16, 16), sub


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearly_reducible_surface_is_never_certified_reducible(seed):
    """decompose of x^3 y - 1e-12 z^4: seed 0 was certified as two components of degree 1 and
    3 (residuals 1.8e-13 and 3.9e-14 below TRACE_TOL). Certified now means degree 4."""
    from witness.decompose import decompose
    D = decompose(NEARLY_REDUCIBLE, seed=seed)
    assert not D.certified or D.degrees() == {2: [4]}, D


def test_monodromy_result_reports_both_pencils():
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    t = 0.7 + 0.2j
    r = monodromy(F, 1, np.array([t, t**2, t**3]), seed=4)
    assert r.complete and r.degree == 3
    assert len(r.trace_tests[0].residuals) == 2 and r.trace_residual < TRACE_TOL
    j = r.to_json()
    assert j["components"][0]["trace"]["pencils_required"] == 2


def test_same_different_undecided_points():
    x = np.array([[1.0 + 1j, 2.0, -1.0]])
    near = x + 4e-5                                  # a cluster partner (measured: 4.3e-5)
    ee = np.array([1e-12])                           # both Newton-converged
    D = distinct.relative_distances(near, x)
    assert distinct.compare(D, ee, ee)[0, 0] == distinct.DIFFERENT
    # the old fixed band called this "ambiguous" (between 1e-6 and 1e-3)
    assert distinct.SAME_POINT_TOL < D[0, 0] < distinct.DIFFERENT_POINT_TOL
    same = x + 1e-14
    D = distinct.relative_distances(same, x)
    assert distinct.compare(D, ee, ee)[0, 0] == distinct.SAME
    # an ill-converged endpoint (error 1e-7) at relative distance 2.4e-6: undecided
    D = distinct.relative_distances(x + 5e-6, x)
    assert distinct.compare(D, np.array([1e-7]), ee)[0, 0] == distinct.UNDECIDED
    # unknown accuracy: the fixed band
    inf = distinct.error_estimates(np.array([np.nan]), 1)
    D = distinct.relative_distances(near, x)
    assert distinct.compare(D, inf, inf)[0, 0] == distinct.UNDECIDED



def _failing_first(track, row: int):
    """A Pencil tracker that reports path ``row`` failed on the first batch to each target
    slice (a re-track, with a fresh gamma, is a later batch and succeeds)."""
    import dataclasses
    seen = set()

    def tr(A0, b0, A1, b1, X, gamma):
        res = track(A0, b0, A1, b1, X, gamma)
        key = (A1.tobytes(), b1.tobytes())
        if key in seen or row >= len(X):
            return res
        seen.add(key)
        status = res.status.copy()
        status[row] = "failed"
        return dataclasses.replace(res, status=status)
    return tr


@pytest.mark.parametrize("seed", [0, 1])
def test_failed_pencil_paths_are_tracked_again_with_a_fresh_gamma(seed):
    """Twisted cubic (degree 3): one reach path and one path of each leg fail and are tracked
    again with a fresh gamma instead of redrawing the pencil: the full set passes (below
    TRACE_TOL on both pencils), a proper subset still fails (above TRACE_FAIL); with
    retracks = 0 the same failures leave both undecided (no redraws allowed here)."""
    import dataclasses
    from witness.options import DEFAULT, TraceOptions
    from witness.trace import Pencil, slice_tracker, test_groups
    F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])
    W = monodromy(F, 1, [1.0, 1.0, 1.0], seed=seed).witness_set
    err = distinct.error_estimates(None, W.degree)
    for retracks, want in ((2, (True, False)), (0, (None, None))):
        opt = dataclasses.replace(DEFAULT, trace=TraceOptions(retracks=retracks))
        rng = np.random.default_rng(seed)
        got = []
        for group in (list(range(3)), [0, 1]):
            pens = [Pencil(W, rng, base=(i == 0), options=opt) for i in range(2)]
            track = _failing_first(slice_tracker(W, options=opt), 0)
            t, = test_groups(pens, W.points, err, [group], track, opt, max_redraws=0)
            got.append(t.verdict)
            if t.verdict is True:
                assert t.residual < TRACE_TOL and pens[1].retracked == 3   # reach + 2 legs
            if t.verdict is False:
                assert t.residual > TRACE_FAIL
        assert tuple(got) == want


def _match_points_dense(known, known_err, E, err):
    """The dense rule match_points implemented before the k-d tree (reference)."""
    idx = np.full(len(E), -1)
    if len(known) and len(E):
        D = distinct.relative_distances(E, known)
        C = distinct.compare(D, err, known_err)
        for r in range(len(E)):
            same = np.flatnonzero(C[r] == distinct.SAME)
            if len(same):
                idx[r] = same[np.argmin(D[r, same])]
            elif (C[r] == distinct.UNDECIDED).any():
                idx[r] = -2
    new = []
    for r in np.flatnonzero(idx == -1):
        if new:
            Dn = distinct.relative_distances(E[r:r + 1], E[new])
            Cn = distinct.compare(Dn, err[r:r + 1], err[new])[0]
            same = np.flatnonzero(Cn == distinct.SAME)
            if len(same):
                idx[r] = len(known) + int(same[np.argmin(Dn[0, same])])
                continue
            if (Cn == distinct.UNDECIDED).any():
                idx[r] = -2
                continue
        idx[r] = len(known) + len(new)
        new.append(r)
    return idx, E[new].reshape(-1, E.shape[1]), err[new]


@pytest.mark.parametrize("seed", range(5))
def test_match_points_agrees_with_the_dense_rule(seed):
    """Known points and endpoints with exact repeats, repeats within 1e-12 (SAME), 1e-5
    (undecided) and 1e-2 (different), with mixed error estimates and an inf/NaN endpoint."""
    rng = np.random.default_rng(seed)
    known = random_complex(rng, 30, 4) * 10 ** rng.uniform(-2, 2, (30, 1))
    picks = known[rng.integers(0, 30, 40)]
    E = np.vstack([picks + random_complex(rng, 40, 4) * np.abs(picks).max(axis=1, keepdims=True)
                   * rng.choice([0, 1e-12, 1e-5, 1e-2], (40, 1)),
                   random_complex(rng, 10, 4)])
    E = np.vstack([E, E[:5] * (1 + 1e-13)])                      # repeats among new points
    E[3] = np.nan
    kerr = 10.0 ** rng.uniform(-16, -9, 30)
    err = 10.0 ** rng.uniform(-16, -9, len(E))
    got = distinct.match_points(known, kerr, E, err)
    ref = _match_points_dense(known, kerr, E, err)
    assert np.array_equal(got[0], ref[0])
    assert np.array_equal(got[1], ref[1], equal_nan=True) and np.array_equal(got[2], ref[2])


def test_the_verdict_says_why():
    """TraceTestResult.reason names the rule that decided (the image's certificate text
    printed 'FAILED (residual 3.3e-12 > 1e-05)' for a pencil that failed at 30 digits)."""
    assert "< 1e-11 on 2 pencils" in trace_verdict([1e-16, 2e-16]).reason
    assert "> 1e-05" in trace_verdict([1e-16, 1e-3]).reason
    assert "3 failed paths" in trace_verdict([1e-16, 1e-16], failed=3).reason
    r = trace_verdict([3.3e-12, 1e-15], noises=[1.5e-30, 1e-15], digits=[30, 16])
    assert r.verdict is False and r.reason.startswith("nonlinear") and "30 digits" in r.reason
    r = trace_verdict([3.3e-12, 1e-15], noises=[1e-16, 1e-15])
    assert r.verdict is None and r.reason.startswith("undecided") and "rounding noise" in r.reason


CIRCLE = PolynomialSystem.from_strings(["x^2 + y^2 - 1"])


def circle_pencil_values(rng):
    """A pencil of lines A z = b + t v (t in ts) and the circle's 2 points on each (roots of
    the quadratic along the line, polished by Newton)."""
    A, b, v = random_complex(rng, 1, 2), random_complex(rng, 1), random_complex(rng, 1)
    ts = (0j, complex(np.exp(2j * np.pi * rng.random())),
          complex(-np.exp(2j * np.pi * rng.random())))
    d = np.array([-A[0, 1], A[0, 0]])                          # A d = 0
    values = []
    for t in ts:
        p0 = np.linalg.lstsq(A, b + t * v, rcond=None)[0]
        s = np.roots([d @ d, 2 * p0 @ d, p0 @ p0 - 1])
        values.append(newton_on_slice(CIRCLE, A, b + t * v, p0 + s[:, None] * d)[0])
    return (A, b, v), values, ts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_refined_residual_of_a_complete_witness_set_is_linear(seed):
    """At 30 digits the trace of both points of a conic is affine to ~1e-40: the translates
    b + t v are formed in mpmath (formed in double precision they are affine in t only to
    ~1e-16, and a complete witness set read as nonlinear, 1e13 × its noise: the orbit map of
    widths 2,1,2, seeds 1 and 3). One point alone is not affine (False-worthy)."""
    pencil, values, ts = circle_pencil_values(np.random.default_rng(seed))
    res, noise = refined_residual(CIRCLE, pencil, values, ts, 30)
    assert res <= 10 * noise and noise < 1e-28, (res, noise)
    res, noise = refined_residual(CIRCLE, pencil, [v[:1] for v in values], ts, 30)
    assert res > 1e-6 > 1e6 * noise, (res, noise)


def test_noisy_values_never_certify():
    """Residuals below TRACE_TOL whose noise is not below it (values with errors ~1e-9 cannot
    show a deviation of 1e-11): undecided, not True (the orbit map of widths 2,1,2 seed 0 was
    certified degree 1 at residuals 5.0e-12, 9.4e-14 under noises 4.6e-9, 4.3e-5)."""
    assert trace_verdict([5.0e-12, 9.4e-14], noises=[4.6e-9, 4.3e-5]).verdict is None
    assert trace_verdict([5.0e-12, 9.4e-14], noises=[1e-12, 1e-14]).verdict is True
