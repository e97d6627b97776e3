"""The Cauchy endgame: endpoints of paths that end at singular points, with winding numbers.

Near s = 1 a path x(s) whose endpoint has winding number c is analytic in (1 - s)^(1/c); it
returns to its start after exactly c loops around s = 1, and by Cauchy's integral formula its
value at s = 1 is the mean of x over the c loops (sampled at equally spaced angles, the
trapezoid rule, which converges geometrically for analytic periodic functions).
Morgan–Sommese–Wampler 1992, "A power series method for computing singular solutions to
nonlinear analytic systems" / Bates–Hauenstein–Sommese–Wampler, *Numerically Solving Polynomial
Systems with Bertini*, §3.3.2; HomotopyContinuation.jl's endgame (Timme 2020).

Endpoints at infinity are recognized first, by the valuation of the homogenizing coordinate
(HomotopyContinuation.jl's valuation test, Timme 2020 §6): along radii r_k = r_0 / 4^k toward
s = 1 the ratio |x0| / |X| of a path to infinity behaves like r^v with v > 0 (v = a positive
rational with denominator the winding number), of a finite endpoint like a positive constant
(v -> 0). A path is at infinity when the last three estimates v_k = log(ratio_k /
ratio_{k-1}) / log(r_k / r_{k-1}) agree to ``VALUATION_AGREE`` and v >= 1 / (2 max_winding)
(half the smallest valuation a winding number up to max_winding allows), or when every
estimate is >= that bound and the ratio fell by ``VALUATION_FALL`` = 1e-4 or below
``VALUATION_TINY`` = 1e-6 (a finite endpoint's estimates decay to 0 geometrically, by
0.25^(1/c) per step); such paths need no
loops (for systems with a positive-dimensional solution set at infinity, e.g. cyclic-5, the
loops around their singular points at infinity do not close within max_winding: measured 41 of
50 paths; cyclic-7's total-degree homotopy: 924 regular, 4116 at infinity, with 6 radial
samples and only the agreement rule 744 paths failed, with 10 samples 129, with 14 samples and
the fall rules see benchmarks/tracker.py). A radial step counts when it reaches its s (also
when the endpoint Newton there stops short of ``endpoint_tol``: the ratio needs only a few
digits, and near a singular point at infinity Newton converges slowly), and a path's samples
stop once |x0| / |X| < ``RATIO_FLOOR`` = 1e-11. Measured on cyclic-7 (seed 0, 63 paths failed
before): the estimates stay at v = 1.857 (13/7) while the ratio falls from 1e-6 to 2e-13, and
below ~1e-13 they are noise (-2.2 .. 1.6), which broke the agreement of the last three; 9 of
12 failed paths examined never took a radial step because each step ended with the endpoint
Newton short of 1e-11 at ratio ~6e-8.
The radial samples go down to |1 - s| = ``VALUATION_RADIUS`` = 1e-12 (at most
``VALUATION_STEPS`` = 24), not a fixed 14 steps: from the fibers' endgame_start 0.1, 14 steps
stopped at 3.7e-10, before the valuation of slow paths settles. Measured on the deep fiber
(2,1,1)/(1,1), seed 0, dim-5 superset (``numag fiber --widths 2,1,1 --ranks 1,1
--complete-paths 1100``): 40 paths keep |x0|/|X| ~ 0.07 down to radius ~1e-5, then fall like
r^(1/3); their estimates rise 0.25 .. 0.31 at step 14 and agree (0.32-0.36, a few 0.15 still
rising) only at steps 14-17 (radius 9e-11 .. 1.5e-12, ratio 3e-3 .. 1.4e-2); with 14 steps they
went on to Cauchy loops that did not close within 40 loops (3 gammas, 40 failed paths, 544 s in
all, not complete); with the floor every one is at infinity in ~1 s and the fiber is complete
(34 s). From the solve's endgame_start 1e-3 the floor adds one step (15: 9.3e-13).

Algorithm (all active paths batched, each segment one compiled call): from the endgame-zone
point at s_eg (1 - s_eg ~ ``endgame_start``), go around the circle |s - 1| = |s_eg - 1| along
a polygon of ``endgame_samples`` vertices per loop until the path closes up (same point,
``witness.distinct``; at most ``max_winding`` loops): the number of loops is c; the mean of the
K c vertex values, in a fixed random affine chart of P^n (so that endpoints at infinity are
finite there), is the estimate. Then move radially to a 4x smaller radius and repeat; converged
when two successive estimates agree to ``endgame_tol`` (the difference is the accuracy
estimate). Rounds go on down to the radius ``CAUCHY_RADIUS`` = 1e-12 (the valuation test's
floor; at most ``MAX_ROUNDS`` = 24), not a fixed 12 rounds (radius 2.4e-8 from endgame_start
0.1): measured on the u ∥ w fiber of widths 3,2 ranks 1 (seed 0, dim-2 superset of its
completeness check, 4 paths to the one witness point, a point of multiplicity 4 of the sliced
randomized system), loops of radius 3.9e-4 .. 3.8e-7 close after 3 loops around s = 1 and a
branch point at |1 - s| ~ 1e-7 (residual 1.5e-3: not accepted), loops of radius 9.5e-8 and
2.4e-8 close after 2 (residuals 1.9e-9, 1.4e-13), and the 12th round ended there before two
estimates agreed: 2 of the 4 paths failed on every gamma and the check was not complete. A path that does not close
up within ``max_winding`` loops at a radius is not given up: it too moves to the smaller radius
and tries again. Why: paths that end on a positive-dimensional solution set (junk points of a
witness superset) wander along that set on wide circles; measured on the 11-component system of
``witness.examples.eleven_components`` (slice of dim 1), 11 of 64 paths did not close within 12
loops at radius 0.1, every one closed after one loop at radius 4e-4.

Operating zone. The Cauchy formula gives the endpoint only when the circle encloses no branch
point of the path other than s = 1. When other branch points cluster near s = 1 (a path to a
positive-dimensional solution set, or to a cluster of near-coincident roots), every circle
outside the cluster closes after the cluster's combined number of loops and its mean is the
constant term of a Laurent series: the same at every radius of the annulus, so two rounds
agree without being the endpoint. An agreed estimate is therefore accepted only when it is a
zero of the target system (backward error on ``H.check`` <= ``PointOptions.residual_tol``
1e-9, or at infinity); otherwise the radius keeps shrinking. An agreed estimate with backward
error in the undecided band (residual_tol, residual_reject] is kept as a fallback, returned
when no round gives a zero (a cluster of near-coincident roots that no radius down to ~1e-10
separates: issue 10 row 3 restated, seed 2, dim-6 superset, 4 paths whose clusters' centres
have backward errors in the band; the point rule downstream treats them as it treats every
point in the band); above residual_reject an estimate is never accepted. Measured (decompositions of 9
known-answer systems with non-reduced components, seeds 1-3, and
``witness.examples.eleven_components``, seeds 0-4: 395 agreed estimates): every right
estimate has backward error <= 5.9e-16 (1.7e6x below the bound); the 4 wrong ones (the
dim-1 superset of eleven_components, seeds 0 and 1: loops of radius 1e-3 .. 1.6e-5 close
after 2 loops around a branch point at |1 - s| ~ 1e-5, the true endpoint has winding
number 1) have 3.2e-5 and 7.2e-5 (3e4x above); those paths then converge at radius ~1e-6.
"""
from __future__ import annotations

import numpy as np

from . import distinct, kernels
from .options import Options

SHRINK = 0.25
MAX_ROUNDS = 24              # Cauchy rounds at most (radius / 0.25^23) ...
CAUCHY_RADIUS = 1e-12        # ... and none once the radius |1 - s| is below this
VALUATION_STEPS = 24         # radial samples of the valuation test at most (radius / 0.25^24)
VALUATION_RADIUS = 1e-12     # ... and none once |1 - s| is below this
VALUATION_AGREE = 0.1        # relative agreement of the last three valuation estimates
VALUATION_FALL = 1e-4        # or: |x0|/|X| fell by this factor with every estimate >= vmin,
VALUATION_TINY = 1e-6        # or fell below this (|x| > 1e6) with every estimate >= vmin
RATIO_FLOOR = 1e-11          # |x0|/|X| below this is rounding noise: the radial samples stop


def _chart(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    return X / (X @ w)[:, None]


def _segment(H, X, idx, S0, S1, opt: Options):
    """Track X (homogeneous, rows = paths idx) from S0 to S1: (points, ok, accuracy)."""
    X2, _, info = kernels.track_batch(H.program.arrays(), X, S0, S1, H.rows(idx),
                                      opt.tracker.vector())
    return X2, info[:, 0] == kernels.DONE, info[:, 4]


def cauchy(H, X0: np.ndarray, s0: np.ndarray, idx: np.ndarray, opt: Options,
           rng: np.random.Generator):
    """Cauchy endgame for the paths idx starting at homogeneous points X0 (p, n+1) at s0 (p,)
    complex (inside the endgame zone around s = 1).

    Returns (estimates (p, n+1) homogeneous normalized, winding (p,) int, converged (p,) bool,
    accuracy (p,) float)."""
    p, N = X0.shape
    K, tr = opt.tracker.endgame_samples, opt.tracker
    w = (rng.standard_normal(N) + 1j * rng.standard_normal(N)) / np.sqrt(2 * N)
    X, d = X0.copy(), s0 - 1.0
    est = np.full((p, N), np.nan + 0j)
    prev = np.full((p, N), np.nan + 0j)
    winding = np.zeros(p, int)
    conv = np.zeros(p, bool)
    acc = np.full(p, np.inf)
    alive = np.ones(p, bool)
    fallback = np.full(p, -1)                 # round of the last agreed estimate in the band
    fb_est, fb_c, fb_acc = est.copy(), winding.copy(), acc.copy()
    for rnd in range(MAX_ROUNDS):
        act = np.flatnonzero(alive & ~conv & (np.abs(d) >= CAUCHY_RADIUS))
        if not len(act):
            break
        y_hat, c, ok, tracked = _loops(H, X[act], d[act], idx[act], w, K, tr.max_winding, opt)
        alive[act[~tracked]] = False
        prev[act[tracked & ~ok]] = np.nan        # not closed here: retry at a smaller radius
        good = act[ok]
        est[good], winding[good] = y_hat[ok], c[ok]
        have = good[np.all(np.isfinite(prev[good]), axis=1)]
        if len(have):
            diff = np.linalg.norm(est[have] - prev[have], axis=1) / \
                (1 + np.linalg.norm(est[have], axis=1))
            agree = have[diff < tr.endgame_tol]
            r = _residuals(H, est[agree], opt)
            conv[agree[r <= opt.points.residual_tol]] = True    # else: not yet in the zone
            band = agree[(r > opt.points.residual_tol) & (r <= opt.points.residual_reject)]
            fallback[band] = rnd
            fb_est[band], fb_c[band] = est[band], winding[band]
            fb_acc[band] = diff[np.isin(have, band)]
            acc[have] = diff
        prev[good] = est[good]
        move = act[tracked & ~conv[act]]
        if len(move):                                     # radially inward
            X2, ok2, _ = _segment(H, X[move], idx[move], 1.0 + d[move], 1.0 + SHRINK * d[move],
                                  opt)
            X[move] = X2
            d[move] *= SHRINK
            alive[move[~ok2]] = False
    fb = np.flatnonzero(~conv & (fallback >= 0))
    est[fb], winding[fb], acc[fb], conv[fb] = fb_est[fb], fb_c[fb], fb_acc[fb], True
    nrm = np.linalg.norm(est, axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        out = est / np.where(nrm > 0, nrm, 1)
    return out, winding, conv, acc


def _residuals(H, E: np.ndarray, opt: Options) -> np.ndarray:
    """Backward error on the target system ``H.check`` of each agreed estimate E (p, n+1)
    (homogeneous); 0 at infinity (|x0| / |X| below ``at_infinity_tol``: the affine backward
    error means nothing there) or without a check system. Module docstring, "Operating
    zone"."""
    from .homotopy import infinity_ratio, to_affine
    out = np.zeros(len(E))
    check = getattr(H, "check", None)
    fin = np.flatnonzero(infinity_ratio(E) >= opt.tracker.at_infinity_tol) if len(E) else []
    if check is None or not len(fin):
        return out
    with np.errstate(all="ignore"):
        r = np.asarray(check.residual(to_affine(E[fin])), float)
    out[fin] = np.where(np.isfinite(r), r, np.inf)
    return out


def _loops(H, X, d, idx, w, K: int, max_loops: int, opt: Options):
    """Go around |s - 1| = |d| from X until each path closes: (chart estimate (p, n+1),
    winding (p,), ok (p,): tracked and closed, tracked (p,): every segment tracked)."""
    p = len(X)
    start = _chart(X, w)
    total = start.copy()                 # the vertex at angle 0, counted once
    count = np.ones(p)
    cur, c = X.copy(), np.zeros(p, int)
    open_, ok = np.ones(p, bool), np.ones(p, bool)
    rot = np.exp(2j * np.pi / K)
    start_acc = np.full(p, 0.0)
    for lap in range(max_loops):
        act = np.flatnonzero(open_ & ok)
        if not len(act):
            break
        for j in range(K):
            S0 = 1.0 + d[act] * rot ** j
            S1 = 1.0 + d[act] * rot ** (j + 1)
            X2, good, acc = _segment(H, cur[act], idx[act], S0, S1, opt)
            cur[act] = X2
            ok[act[~good]] = False
            if j < K - 1:
                total[act] += _chart(X2, w)
                count[act] += 1
            else:
                last_acc = acc
        c[act] += 1
        y = _chart(cur[act], w)
        C = distinct.compare_points(y, last_acc * (1 + np.linalg.norm(y, axis=1)),
                                    start[act], start_acc[act], opt.points)
        closed = np.diag(C) == distinct.SAME
        open_[act[closed]] = False
        total[act[~closed]] += y[~closed]           # the vertex at angle 0 of the next lap
        count[act[~closed]] += 1
    tracked = ok.copy()
    ok &= ~open_
    return total / count[:, None], c, ok, tracked


def valuation(H, X0: np.ndarray, s0: np.ndarray, idx: np.ndarray, opt: Options):
    """Radial valuation test (module docstring) for the paths idx from X0 at s0: returns
    (at_infinity (p,) bool, valuation (p,), points (p, n+1) and s values (p,) where each path
    was last tracked successfully)."""
    p = len(X0)
    X, s = X0.copy(), s0.copy()
    ratios = [np.abs(X[:, 0]) / np.linalg.norm(X, axis=1)]
    radii = [np.abs(s - 1.0)]
    alive = np.ones(p, bool)
    for _ in range(VALUATION_STEPS):
        act = np.flatnonzero(alive & (np.abs(s - 1.0) > VALUATION_RADIUS))
        if not len(act):
            break
        s1 = 1.0 + SHRINK * (s[act] - 1.0)
        X2, _, info = kernels.track_batch(H.program.arrays(), X[act], s[act], s1,
                                          H.rows(idx[act]), opt.tracker.vector())
        ok = np.isin(info[:, 0], (kernels.DONE, kernels.ENDPOINT)) & \
            np.all(np.isfinite(X2), axis=1) & (np.linalg.norm(X2, axis=1) > 0)  # reached s1
        alive[act[~ok]] = False
        good = act[ok]
        X[good], s[good] = X2[ok], s1[ok]
        r = np.abs(X[:, 0]) / np.linalg.norm(X, axis=1)
        alive &= ~(r < RATIO_FLOOR)                           # below it: rounding noise
        moved = np.zeros(p, bool)
        moved[good] = True
        ratios.append(np.where(alive & moved, r, np.nan))
        radii.append(np.where(alive & moved, np.abs(s - 1.0), np.nan))
    R, T = np.array(ratios), np.array(radii)                 # (steps + 1, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.log(R[1:] / R[:-1]) / np.log(T[1:] / T[:-1])
    at_inf = np.zeros(p, bool)
    vmin = 1.0 / (2 * opt.tracker.max_winding)
    last = np.full(p, np.nan)
    for i in range(p):
        vi = v[:, i][np.isfinite(v[:, i])]
        if len(vi) < 2:
            continue
        last[i] = c = vi[-1]
        agree = len(vi) >= 3 and \
            max(abs(vi[-3] - c), abs(vi[-2] - c)) <= VALUATION_AGREE * abs(c)
        ri = R[:, i][np.isfinite(R[:, i])]
        # a steady fall: every estimate >= vmin and the ratio down by VALUATION_FALL (paths to
        # positive-dimensional sets at infinity, e.g. cyclic-7, converge too slowly to agree,
        # and their radial tracking often fails near infinity)
        steady = bool(np.all(vi >= vmin)) and (ri[-1] <= VALUATION_FALL * ri[0]
                                               or ri[-1] <= VALUATION_TINY)
        at_inf[i] = bool((agree and c >= vmin) or steady)
    return at_inf, last, X, s


def run_endgame(H, P, status, reasons, winding, opt: Options) -> None:
    """Endgame for the paths of a ``tracking.track`` run that need it (failures inside the
    endgame zone: at a singular endpoint the steps shrink or the endpoint Newton stalls);
    updates the arrays in place. First the valuation test (paths to infinity); then the Cauchy
    loops. An estimate of winding number 1 from which Newton converges to endpoint_tol is a
    regular endpoint (a near-collision, not a singular point); otherwise the endpoint is
    singular (or at infinity)."""
    from .homotopy import infinity_ratio
    from .tracking import FailureReason, PathStatus, newton
    zone = np.isfinite(P.s_eg.real) & np.all(np.isfinite(P.X_eg), axis=1)
    idx = np.flatnonzero(zone & (status == PathStatus.FAILED))
    if not len(idx):
        return
    at_inf, _, Xv, sv = valuation(H, P.X_eg[idx], P.s_eg[idx], idx, opt)
    for j in np.flatnonzero(at_inf):
        i = idx[j]
        P.Xh[i], P.acc[i], reasons[i] = Xv[j], np.inf, ""
        status[i] = PathStatus.AT_INFINITY.value
    fin = np.flatnonzero(~at_inf)
    if not len(fin):
        return
    idx = idx[fin]      # the loops start at the endgame zone (the radial samples go too near)
    rng = np.random.default_rng(len(idx))
    E, c, conv, acc = cauchy(H, P.X_eg[idx], P.s_eg[idx], idx, opt, rng)
    ok = np.flatnonzero(conv)
    if len(ok):
        Xn, an = newton(_Rows(H, idx[ok]), E[ok], opt)
    for j, i in enumerate(idx):
        if not conv[j]:
            reasons[i] = FailureReason.ENDGAME.value
            continue
        k = int(np.searchsorted(ok, j))
        P.Xh[i], P.acc[i], winding[i], reasons[i] = E[j], acc[j], c[j], ""
        if infinity_ratio(E[j:j + 1])[0] < opt.tracker.at_infinity_tol:
            status[i] = PathStatus.AT_INFINITY.value
        elif c[j] == 1 and an[k] < opt.tracker.endpoint_tol:
            P.Xh[i], P.acc[i] = Xn[k], an[k]
            status[i] = PathStatus.REGULAR.value
        else:
            status[i] = PathStatus.SINGULAR.value


class _Rows:
    """H restricted to some paths (their constants), for ``tracking.newton``."""

    def __init__(self, H, idx):
        self.program, self._C = H.program, H.rows(idx)

    def rows(self, idx):
        return self._C[np.asarray(idx, dtype=int)]
