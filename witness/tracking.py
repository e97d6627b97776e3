"""Path tracking between slices (gamma trick), vectorized in numpy, or through PHCpack.

Homotopies (all square, N = n unknowns):

* ``SliceHomotopy(G, A0, b0, A1, b1, gamma)``: H(x, s) = [G(x); (gamma (1-s) A0 + s A1) x -
  (gamma (1-s) b0 + s b1)], s from 0 to 1: moves the witness points of G on the slice A0 x = b0
  to the slice A1 x = b1. For random complex gamma the intermediate slices are generic for all s
  in [0, 1) with probability one (the "gamma trick", Sommese–Wampler 2005, Lemma 7.1.3).
* ``StraightLineHomotopy(target, start, gamma)``: H = gamma (1-s) start(x) + s target(x).

``track(H, X0)``: all paths tracked together as one batch: batched evaluation of H, H_x, H_s from
the systems' monomial tables, a fourth-order Runge–Kutta predictor on dx/ds = -H_x^{-1} H_s,
Newton corrector (at most 3 iterations; a step is accepted when the first correction, i.e. the
predictor's error, is below ``max_predictor_error`` = 1e-3 and a later one below
``corrector_tol`` = 1e-6, both relative to 1 + |x|, while contracting; the first bound is what
keeps paths from jumping: with 1e-2 measured 2 jumps in 1130 paths, with 1e-3 none), per-path
adaptive step size (halved on rejection, doubled after 3 accepted steps), and Newton refinement
at s = 1 to ``endpoint_tol`` = 1e-11. Path status:

* ``success``: reached s = 1 and the endpoint Newton correction is below ``endpoint_tol``;
* ``diverged``: |x| exceeded ``divergence_bound``;
* ``failed``: step size below ``min_step``, ``max_steps`` exceeded, singular Jacobian at the end,
  or a collision: two paths from distinct starts ending at the same point (a path jumped; the
  colliding paths are first re-tracked with 10x smaller steps).

Failed and diverged paths are counted and reported (``TrackResult.n_failed`` ...), never dropped:
their endpoints stay in the arrays, flagged. ``track_slices`` (both backends: ``method='numpy'``
or ``'phc'`` = PHCpack's tracker on the same homotopy with pwt = 1) also checks every endpoint on
the ORIGINAL equations (the unrandomized system) with the componentwise backward error
(``PolynomialSystem.residual``) against ``RESIDUAL_TOL``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import ddarith as dd
from . import distinct
from .system import PolynomialSystem

RESIDUAL_TOL = 1e-9     # backward error below which a point is accepted as a solution
RESIDUAL_REJECT = 1e-6  # above which it is rejected; in between: "undecided"


# ----------------------------------------------------------------------------- homotopies
class SliceHomotopy:
    """Move the slice A0 x = b0 to A1 x = b1 for the square part G (n - k equations).

    precise=True: G's values and Jacobian and the slice rows' values are evaluated in
    double-double (``PolynomialSystem.evaluate_precise``) and rounded to complex128 at the end
    (the slice rows' rounding errors are amplified by the same condition number); ~40x slower,
    used by the tracker only where double precision stalls (``TrackerOptions.precise``)."""

    def __init__(self, G: PolynomialSystem, A0, b0, A1, b1, gamma: complex,
                 precise: bool = False):
        self.G = G
        self.A0, self.b0 = np.asarray(A0, complex), np.asarray(b0, complex)
        self.A1, self.b1 = np.asarray(A1, complex), np.asarray(b1, complex)
        self.gamma = complex(gamma)
        self.precise = precise
        k, n = self.A0.shape
        if G.n_equations + k != n or G.n_vars != n or self.A1.shape[-2:] != (k, n) \
                or self.b1.shape[-1:] != (k,):
            raise ValueError(f"slice homotopy needs n - k = {n - k} equations and (k, n) slices; "
                             f"got {G.n_equations} equations, slices {self.A0.shape}, "
                             f"{self.A1.shape}")
        self.per_path = self.A1.ndim == 3    # one target slice per path: A1 (P, k, n), b1 (P, k)
        self.n = n

    def restrict(self, idx: np.ndarray) -> "SliceHomotopy":
        """The homotopy of the paths idx (only differs from self with per-path targets)."""
        if not self.per_path:
            return self
        return SliceHomotopy(self.G, self.A0, self.b0, self.A1[idx], self.b1[idx], self.gamma,
                             self.precise)

    def as_precise(self) -> "SliceHomotopy":
        """The same homotopy evaluated in double-double."""
        return SliceHomotopy(self.G, self.A0, self.b0, self.A1, self.b1, self.gamma, True)

    def __call__(self, X: np.ndarray, s: np.ndarray):
        if self.precise:
            gd, Jd = self.G.evaluate_precise(X, jacobian=True)
            g, Jg = dd.cdd_to_complex(gd), dd.cdd_to_complex(Jd)
        else:
            g, Jg = self.G.evaluate_and_jacobian(X)
        w0 = (self.gamma * (1 - s))[:, None, None]
        w1 = s[:, None, None]
        A = w0 * self.A0 + w1 * self.A1                       # (p, k, n)
        L0 = X @ self.A0.T - self.b0                          # (p, k)
        L1 = (np.einsum("pkn,pn->pk", self.A1, X) if self.per_path else X @ self.A1.T) - self.b1
        Lv = self._slice_values_precise(X, s) if self.precise else \
            w0[:, :, 0] * L0 + w1[:, :, 0] * L1
        H = np.concatenate([g, Lv], axis=1)
        Hx = np.concatenate([Jg, A], axis=1)
        Hs = np.concatenate([np.zeros_like(g), L1 - self.gamma * L0], axis=1)
        return H, Hx, Hs

    def _slice_values_precise(self, X: np.ndarray, s: np.ndarray) -> np.ndarray:
        """(gamma (1 - s) (A0 x - b0) + s (A1 x - b1)) (p, k) in dd, rounded at the end."""
        Xc = dd.cdd_from_complex(X[:, None, :])                         # (p, 1, n)
        A0 = dd.cdd_from_complex(self.A0[None])                          # (1, k, n)
        A1 = dd.cdd_from_complex(self.A1 if self.per_path else self.A1[None])
        L0 = dd.cdd_sum_rows(tuple(np.moveaxis(q, 2, 0) for q in dd.cdd_mul(A0, Xc)))
        L1 = dd.cdd_sum_rows(tuple(np.moveaxis(q, 2, 0) for q in dd.cdd_mul(A1, Xc)))
        L0 = dd.cdd_add(L0, dd.cdd_from_complex(np.broadcast_to(-self.b0, L0[0].shape)))
        L1 = dd.cdd_add(L1, dd.cdd_from_complex(np.broadcast_to(-self.b1, L1[0].shape)))
        w0 = dd.cdd_from_complex((self.gamma * (1 - s))[:, None])
        w1 = dd.cdd_from_complex(s[:, None].astype(complex))
        return dd.cdd_to_complex(dd.cdd_add(dd.cdd_mul(w0, L0), dd.cdd_mul(w1, L1)))


class StraightLineHomotopy:
    """H(x, s) = gamma (1 - s) start(x) + s target(x) for square systems."""

    def __init__(self, target: PolynomialSystem, start: PolynomialSystem, gamma: complex):
        if target.variables != start.variables or target.n_equations != target.n_vars \
                or start.n_equations != start.n_vars:
            raise ValueError("target and start must be square with the same variables")
        self.target, self.start, self.gamma, self.n = target, start, complex(gamma), target.n_vars

    def restrict(self, idx):
        return self

    def __call__(self, X, s):
        f, Jf = self.target.evaluate_and_jacobian(X)
        g, Jg = self.start.evaluate_and_jacobian(X)
        w0 = self.gamma * (1 - s)[:, None]
        return (w0 * g + s[:, None] * f, w0[:, :, None] * Jg + s[:, None, None] * Jf,
                f - self.gamma * g)


# ----------------------------------------------------------------------------- the tracker
@dataclass(frozen=True)
class TrackerOptions:
    """Tolerances of the numpy tracker (relative to 1 + |x|).

    precise: paths whose step size is below ``precise_below`` are evaluated in double-double
    (``SliceHomotopy.as_precise``: values and Jacobian; step control unchanged); used when
    re-tracking failed paths (``retry_options``)."""
    initial_step: float = 0.05
    max_step: float = 0.2
    min_step: float = 1e-12
    max_steps: int = 3000
    corrector_tol: float = 1e-6
    max_predictor_error: float = 1e-3   # first Newton correction larger than this: step rejected
    endpoint_tol: float = 1e-11
    divergence_bound: float = 1e8
    precise: bool = False
    precise_below: float = 1e-3


def retry_options(base: TrackerOptions | None) -> TrackerOptions:
    """Options for the second attempt at a failed path: steps 4x / 10x smaller, predictor error
    bound 10x tighter, 4x the step budget, double-double values in Newton's corrections
    (measured on the (2,2,2) fiber: in double, corrections stagnate at ~1e-6 where the
    evaluation's rounding error exceeds the values, which is what makes paths fail with
    min_step)."""
    b = base or TrackerOptions()
    return TrackerOptions(**{**b.__dict__, "initial_step": b.initial_step / 10,
                             "max_step": b.max_step / 4,
                             "max_predictor_error": b.max_predictor_error / 10,
                             "max_steps": 4 * b.max_steps, "precise": True})


def _solve(J: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Batched J^{-1} r; NaN rows for singular matrices (never raises)."""
    try:
        return np.linalg.solve(J, r[..., None])[..., 0]
    except np.linalg.LinAlgError:
        out = np.full(r.shape, np.nan, dtype=complex)
        for i in range(len(J)):
            try:
                out[i] = np.linalg.solve(J[i], r[i])
            except np.linalg.LinAlgError:
                pass
        return out


def _norm(V: np.ndarray) -> np.ndarray:
    return np.linalg.norm(V, axis=-1)


def _rk4(H, x, s, h):
    def tangent(xx, ss):
        _, Hx, Hs = H(xx, ss)
        return -_solve(Hx, Hs)
    hc = h[:, None]
    k1 = tangent(x, s)
    k2 = tangent(x + 0.5 * hc * k1, s + 0.5 * h)
    k3 = tangent(x + 0.5 * hc * k2, s + 0.5 * h)
    k4 = tangent(x + hc * k3, s + h)
    return x + hc / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def _correct(H, x, s, opts: TrackerOptions):
    """Newton at fixed s, at most 3 iterations. Returns (x, accepted mask)."""
    ok = np.zeros(len(x), bool)
    prev = np.full(len(x), np.inf)
    bad_pred = np.zeros(len(x), bool)
    for it in range(3):
        todo = ~ok
        if not todo.any():
            break
        Hv, Hx, _ = H.restrict(np.flatnonzero(todo))(x[todo], s[todo])
        dx = _solve(Hx, Hv)
        xn = x[todo] - dx
        rel = _norm(dx) / (1 + _norm(xn))
        x[todo] = xn
        if it == 0:         # the first correction measures the predictor's error
            bad_pred = ~(rel <= opts.max_predictor_error)
        conv = (rel < opts.corrector_tol) & ((rel <= 0.25 * prev[todo]) | (it == 0))
        idx = np.flatnonzero(todo)
        ok[idx[conv]] = True
        prev[idx] = rel
    ok &= ~bad_pred & np.all(np.isfinite(x), axis=1)
    return x, ok


def _step(H, X, s, act, ha, opts: TrackerOptions):
    """One predictor-corrector step of the active paths act with steps ha: (points, accepted).

    With opts.precise, paths whose step size fell below ``precise_below`` are evaluated in
    double-double (``SliceHomotopy.as_precise``): small steps are the sign of a stretch where
    double-precision corrections stall, and dd costs ~40x, so only those paths pay it."""
    xp = np.empty((len(act), X.shape[1]), complex)
    ok = np.zeros(len(act), bool)
    slow = (ha < opts.precise_below) if opts.precise and hasattr(H, "as_precise") else \
        np.zeros(len(act), bool)
    for sel, HH in ((~slow, H), (slow, H.as_precise() if slow.any() else None)):
        if not sel.any():
            continue
        idx = act[sel]
        Ha = HH.restrict(idx)
        with np.errstate(all="ignore"):
            p = _rk4(Ha, X[idx], s[idx], ha[sel])
            xp[sel], ok[sel] = _correct(Ha, p, s[idx] + ha[sel], opts)
    return xp, ok


def track(H, X0, options: TrackerOptions | None = None) -> dict:
    """Track the solutions X0 (p, n) of H(., 0) = 0 to s = 1, all paths as one batch.

    Returns a dict of arrays: endpoints (p, n) complex128, status (p,) str, s (p,) float (s
    reached), steps (p,) int, endpoint_correction (p,) float (last relative Newton correction
    at s = 1: the accuracy estimate of the endpoint), reason (p,) str ('' for success, else
    'min_step', 'max_steps', 'endpoint_tol' or 'divergence_bound'), h (p,) last step size.
    Raises ValueError for a bad shape or NaN start points."""
    opts = options or TrackerOptions()
    X = np.array(np.atleast_2d(X0), dtype=complex)
    if X.shape[1] != H.n or not np.all(np.isfinite(X)):
        raise ValueError(f"start points must be finite with shape (p, {H.n}), got {X.shape}")
    p = len(X)
    s = np.zeros(p)
    h = np.full(p, opts.initial_step)
    wins = np.zeros(p, int)
    steps = np.zeros(p, int)
    status = np.full(p, "running", dtype=object)
    reason = np.full(p, "", dtype=object)
    while True:
        act = np.flatnonzero(status == "running")
        if not len(act):
            break
        ha = np.minimum(h[act], 1 - s[act])
        xp, ok = _step(H, X, s, act, ha, opts)
        steps[act] += 1
        acc, rej = act[ok], act[~ok]
        X[acc] = xp[ok]
        s[acc] = np.where(1 - (s[acc] + ha[ok]) < 1e-14, 1.0, s[acc] + ha[ok])
        wins[acc] += 1
        grow = acc[wins[acc] >= 3]
        h[grow] = np.minimum(2 * h[grow], opts.max_step)
        wins[grow] = 0
        h[rej] *= 0.5
        wins[rej] = 0
        status[acc[s[acc] >= 1.0]] = "end"
        small = rej[h[rej] < opts.min_step]
        status[small], reason[small] = "failed", "min_step"
        many = act[(steps[act] >= opts.max_steps) & (status[act] == "running")]
        status[many], reason[many] = "failed", "max_steps"
        far = acc[_norm(X[acc]) > opts.divergence_bound]
        status[far], reason[far] = "diverged", "divergence_bound"
    corr = np.full(p, np.inf)
    end = np.flatnonzero(status == "end")
    if len(end):
        X[end], corr[end] = _endpoint_newton(H.restrict(end), X[end])
        X[end], corr[end] = _endpoint_newton_precise(H, X[end], corr[end], end, opts)
        good = corr[end] < opts.endpoint_tol
        status[end[good]] = "success"
        status[end[~good]] = "failed"
        reason[end[~good]] = "endpoint_tol"
    return {"endpoints": X, "status": status.astype("<U16"), "s": s, "steps": steps,
            "endpoint_correction": corr, "reason": reason.astype("<U16"), "h": h}


def _endpoint_newton_precise(H, X, corr, idx, opts: TrackerOptions):
    """Endpoints whose Newton correction is >= endpoint_tol get 6 more Newton iterations with
    double-double values: the endpoint_tol test itself is unchanged, only the rounding noise of
    the evaluation (which ill-conditioned endpoints cannot get below in double) is removed.
    Returns (points, corrections)."""
    redo = np.flatnonzero(np.isfinite(corr) & (corr >= opts.endpoint_tol))
    if not len(redo) or not hasattr(H, "as_precise"):
        return X, corr
    X, corr = X.copy(), corr.copy()
    X[redo], corr[redo] = _endpoint_newton(H.restrict(idx[redo]), X[redo], 6, precise=True)
    return X, corr


def _endpoint_newton(H, X, iterations: int = 4, precise: bool = False):
    """Newton at s = 1: (points, last relative correction (p,), inf where singular).

    precise: in double-double (``SliceHomotopy.as_precise``) when H supports it."""
    s = np.ones(len(X))
    rel = np.full(len(X), np.inf)
    if precise and hasattr(H, "as_precise"):
        H = H.as_precise()
    with np.errstate(all="ignore"):
        for _ in range(iterations):
            Hv, Hx, _ = H(X, s)
            dx = _solve(Hx, Hv)
            fin = np.all(np.isfinite(dx), axis=1)
            X = np.where(fin[:, None], X - np.nan_to_num(dx), X)
            rel = np.where(fin, _norm(dx) / (1 + _norm(X)), np.inf)
    return X, rel


# ----------------------------------------------------------------------------- slices
@dataclass(frozen=True)
class TrackResult:
    """Result of moving points between slices.

    start, endpoints: complex128 (p, n); status: str (p,) 'success' | 'failed' | 'diverged';
    residuals: float (p,) componentwise backward error of the endpoints on the ORIGINAL
    equations; on_original: bool (p,) residual < ``residual_tol``; steps (p,) (numpy tracker;
    zeros for PHCpack); method 'numpy' | 'phc'; gamma; seconds; s_reached (p,) the homotopy
    parameter each path reached (1 for finished paths); reasons (p,) why a path failed ('' if
    it did not; see ``reason_counts``); accuracy (p,) the last relative Newton correction at
    the endpoint (its error estimate; inf if none); retried / recovered: paths that failed on
    the first attempt and were re-tracked / that then succeeded (both counted in n_paths
    once; the first failures are not hidden: ``retried`` says how many there were)."""
    start: np.ndarray
    endpoints: np.ndarray
    status: np.ndarray
    residuals: np.ndarray
    on_original: np.ndarray
    steps: np.ndarray
    method: str
    gamma: complex
    seconds: float
    residual_tol: float = RESIDUAL_TOL
    s_reached: np.ndarray | None = None
    reasons: np.ndarray | None = None
    accuracy: np.ndarray | None = None
    retried: int = 0
    recovered: int = 0

    @property
    def n_paths(self) -> int:
        return len(self.status)

    def reason_counts(self) -> dict[str, int]:
        """Why paths are not ``ok``: counts of 'min_step', 'max_steps', 'endpoint_tol',
        'collision', 'divergence_bound', 'phc', 'off_original' (succeeded but the endpoint fails
        the residual check on the original equations)."""
        out: dict[str, int] = {}
        bad = np.flatnonzero(~self.ok)
        for i in bad:
            r = "off_original" if self.status[i] == "success" else (
                str(self.reasons[i]) if self.reasons is not None and self.reasons[i] else
                str(self.status[i]))
            out[r] = out.get(r, 0) + 1
        return out

    @property
    def ok(self) -> np.ndarray:
        """Paths that succeeded and whose endpoint satisfies the original equations."""
        return (self.status == "success") & self.on_original

    @property
    def n_failed(self) -> int:
        return int(np.sum(self.status == "failed"))

    @property
    def n_diverged(self) -> int:
        return int(np.sum(self.status == "diverged"))

    def __repr__(self) -> str:
        return (f"TrackResult({self.n_paths} paths by {self.method}: {int(self.ok.sum())} ok, "
                f"{self.n_failed} failed, {self.n_diverged} diverged, "
                f"{int(np.sum((self.status == 'success') & ~self.on_original))} off the original "
                f"equations; {self.retried} retried, {self.recovered} recovered; "
                f"{self.seconds:.3f} s)")

    def to_json(self) -> dict:
        return {"n_paths": self.n_paths, "status": self.status.tolist(),
                "residuals": self.residuals.tolist(), "residual_tol": self.residual_tol,
                "on_original": self.on_original.tolist(), "method": self.method,
                "gamma": [self.gamma.real, self.gamma.imag], "seconds": self.seconds,
                "n_failed": self.n_failed, "n_diverged": self.n_diverged,
                "reasons": self.reason_counts(), "retried": self.retried,
                "recovered": self.recovered}


def _slice_system(G: PolynomialSystem, A, b) -> PolynomialSystem:
    n = G.n_vars
    polys = list(G.polynomials)
    for row, c in zip(A, b):
        p = {tuple(int(j == k) for j in range(n)): complex(a) for k, a in enumerate(row) if a}
        if c:
            p[(0,) * n] = -complex(c)
        polys.append(p)
    return PolynomialSystem(G.variables, tuple(polys))


def track_slices(G: PolynomialSystem, A0, b0, A1, b1, X0, *, gamma: complex,
                 method: str = "numpy", options: TrackerOptions | None = None,
                 timeout: float = 600.0, groups=None, retry: bool = True) -> TrackResult:
    """Move points X0 (p, n) of G = 0 on the slice A0 x = b0 to the slice A1 x = b1.

    A1, b1 may also be given per path, (p, k, n) and (p, k) (numpy method only); ``groups`` (p,)
    then labels the paths that share a target slice (collisions are only looked for inside a
    group).

    G: square part (n - k equations; a randomized system keeps its ``original``, on which the
    endpoints are checked). method 'numpy' (own batched tracker) or 'phc' (PHCpack's tracker in
    a worker process, same homotopy with pwt = 1, endpoints then Newton-refined here).
    retry (numpy): paths that failed (min_step, max_steps, endpoint_tol, collision) are tracked
    once more on the SAME homotopy (same gamma: the same path, so point correspondences are
    kept) with ``retry_options`` (smaller steps, double-double values in the corrections); the counts
    are in ``TrackResult.retried`` / ``recovered`` and paths still failing keep their reason.
    Raises ValueError on bad shapes or method."""
    t0 = time.perf_counter()
    H = SliceHomotopy(G, A0, b0, A1, b1, gamma)
    X0 = np.atleast_2d(np.asarray(X0, complex))
    if len(X0) == 0:
        empty = np.zeros((0, G.n_vars), complex)
        return TrackResult(empty, empty, np.zeros(0, str), np.zeros(0), np.zeros(0, bool),
                           np.zeros(0, int), method, complex(gamma), 0.0,
                           reasons=np.zeros(0, str), accuracy=np.zeros(0))
    retried = recovered = 0
    if method == "numpy":
        out = track(H, X0, options)
        _mark_collisions(out, groups)
        if retry:
            retried, recovered = _retry_failed(H, X0, out, options, groups)
        else:
            _retrack_collisions(H, X0, out, options, groups)
        E, status, steps, sr = out["endpoints"], out["status"], out["steps"], out["s"]
        reasons, acc = out["reason"], out["endpoint_correction"]
    elif method == "phc":
        if H.per_path:
            raise ValueError("per-path target slices need method='numpy'")
        from . import phc
        target = _slice_system(G, H.A1, H.b1)
        start = _slice_system(G, H.A0, H.b0)
        E, t, _ = phc.track(target, start, X0, gamma=gamma, pwt=1, timeout=timeout)
        fin = np.all(np.isfinite(E), axis=1)
        E = np.where(fin[:, None], E, 0)
        E, acc = _endpoint_newton(H, E)
        E, acc = _endpoint_newton_precise(H, E, acc, np.arange(len(E)), TrackerOptions())
        ended = fin & (np.abs(t - 1) < 1e-8)
        status = np.where(ended & (acc < 1e-11), "success", "failed")
        reasons = np.where(status == "success", "",
                           np.where(ended, "endpoint_tol", "phc")).astype(str)
        status = np.where(_norm(E) > 1e8, "diverged", status)
        steps, sr = np.zeros(len(E), int), t
    else:
        raise ValueError(f"method must be 'numpy' or 'phc', got {method!r}")
    return _finish(G, X0, E, np.asarray(status), steps, method, gamma, t0, sr,
                   np.asarray(reasons), np.asarray(acc), retried, recovered)


def _collisions(E: np.ndarray, status: np.ndarray, accuracy=None, groups=None) -> np.ndarray:
    """Paths whose successful endpoint is the same point (``distinct.compare``, with the
    endpoints' error estimates; undecided pairs count as colliding) as another's of the same
    group (same target slice). Distinct start points between generic slices have distinct
    endpoints, so a collision means a path jumped."""
    good = np.flatnonzero(status == "success")
    bad = np.zeros(len(E), bool)
    if len(good) < 2:
        return bad
    e = distinct.error_estimates(None if accuracy is None else accuracy[good], len(good))
    C = distinct.compare(distinct.relative_distances(E[good], E[good]), e, e)
    np.fill_diagonal(C, distinct.DIFFERENT)
    if groups is not None:
        g = np.asarray(groups)[good]
        C[g[:, None] != g[None, :]] = distinct.DIFFERENT
    bad[good[(C != distinct.DIFFERENT).any(axis=1)]] = True
    return bad


def _mark_collisions(out: dict, groups=None) -> np.ndarray:
    """Flag colliding successful paths of a ``track`` result as failed ('collision')."""
    bad = _collisions(out["endpoints"], out["status"], out["endpoint_correction"], groups)
    out["status"][bad] = "failed"
    out["reason"][bad] = "collision"
    return bad


def _update(out: dict, idx: np.ndarray, new: dict) -> None:
    for key in ("endpoints", "status", "s", "steps", "endpoint_correction", "reason", "h"):
        if key == "steps":
            out[key][idx] += new[key]        # the work of both attempts
        else:
            out[key][idx] = new[key]


def _retrack_collisions(H, X0, out: dict, options, groups=None) -> None:
    """Re-track colliding paths with 10x smaller steps; paths still colliding stay 'failed'."""
    bad = np.flatnonzero(out["reason"] == "collision")
    if not len(bad):
        return
    base = options or TrackerOptions()
    tight = TrackerOptions(**{**base.__dict__, "max_step": base.max_step / 10,
                              "initial_step": base.initial_step / 10,
                              "max_predictor_error": base.max_predictor_error / 100})
    _update(out, bad, track(H.restrict(bad), X0[bad], tight))
    _mark_collisions(out, groups)


def _retry_failed(H, X0, out: dict, options, groups=None) -> tuple[int, int]:
    """Second attempt for every failed path (not diverged ones) with ``retry_options``;
    returns (retried, recovered). Collisions are then looked for again among all endpoints."""
    bad = np.flatnonzero(out["status"] == "failed")
    if not len(bad):
        return 0, 0
    _update(out, bad, track(H.restrict(bad), X0[bad], retry_options(options)))
    _mark_collisions(out, groups)
    return len(bad), int(np.sum(out["status"][bad] == "success"))


def _finish(G, X0, E, status, steps, method, gamma, t0, sr=None, reasons=None, acc=None,
            retried: int = 0, recovered: int = 0) -> TrackResult:
    orig = G.original if G.original is not None else G
    res = np.full(len(E), np.inf)
    fin = np.all(np.isfinite(E), axis=1)
    if fin.any():
        res[fin] = orig.residual(E[fin])
    return TrackResult(X0, E, status, res, res < RESIDUAL_TOL, steps, method, complex(gamma),
                       time.perf_counter() - t0, RESIDUAL_TOL, sr, reasons, acc, retried,
                       recovered)


def random_gamma(rng: np.random.Generator) -> complex:
    """A random point on the unit circle (the gamma of the gamma trick)."""
    return complex(np.exp(2j * np.pi * rng.random()))


def newton_on_slice(G: PolynomialSystem, A, b, X, iterations: int = 4):
    """Newton refinement of points X (p, n) on [G; A x - b] (square). Returns (points (p, n),
    last relative correction (p,)); points whose Jacobian is singular are left unchanged with an
    infinite correction."""
    X = np.atleast_2d(np.asarray(X, complex))
    if not len(X):
        return X, np.zeros(0)
    H = SliceHomotopy(G, A, b, A, b, 1.0)
    return _endpoint_newton(H, X.copy(), iterations)
