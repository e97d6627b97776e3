"""The linear trace test (Sommese–Verschelde–Wampler 2002, "Symmetric functions applied to
decomposing solution sets of polynomial systems").

Along a pencil of parallel slices A x = b + t v, the sum of the witness points of a set is an
affine-linear function of t exactly when the set is a union of complete irreducible components.
Three values of t (0, t1, t2) decide linearity; the residual is the relative deviation

    |s(t2) - s(0) - (t2 / t1) (s(t1) - s(0))| / sum_{i, t} |x_i(t)|,    s(t) = sum_i x_i(t).

One pencil is not enough (a proper subset can be nearly affine on one pencil: measured down to
1.9e-16), so the test uses ``TraceOptions.pencils`` = 2 pencils, the second on an independent
random slice (``TraceOptions`` holds the tolerances and the measurements behind them). That
slice is reached by ROTATING the witness slice (a new A), although monodromy only translates:
on the (2,1,2) deep fiber, random base slices, 3 fiber seeds x 8 trials, the smallest two-pencil
residual of a proper subset was 2.3e-9 with the second slice a random translation, 1.8e-7 with a
10x larger translation, 7.4e-7 with three translated pencils, and 2.1e-4 with a rotated slice
(6.4e-5 with A + 0.3 R): a translated slice sees the same projection x -> A x and is far less
independent. Its reach leg may fail more often (0.35 % of the paths on the (2,2,2) fiber,
measured); failed paths there are rerouted, then tracked again with gamma turned a little
(``Pencil._retrack``: the verdict depends on the set of values on each slice, not on which point
went where), and a pencil with paths still failed is redrawn.

**Rounding noise.** A residual below the tolerance is not yet linearity: a proper subset of a
variety that is nearly reducible at the slice's scale has a trace that is affine up to the
size of the perturbation (x^3 y - 1e-12 z^4, irreducible, is within 1e-12 of the planes x = 0
and y = 0; its far witness point alone had residuals 1.8e-13 and 1.2e-13 and was certified a
component of degree 1). So each pencil's residual is compared with its rounding noise
(``trace_noise``: the error the values carry by their Newton accuracy estimates, there
~3e-16): a residual above ``TraceOptions.noise_factor`` times the noise is a nonlinearity the
values resolve, and the pencil is decided again at ``TraceOptions.refine_digits`` digits
(``Pencil.refined``: every value refined by Newton in mpmath on its slice, the residual
recomputed): linear there (residual within noise_factor of the 30-digit noise) passes, still
nonlinear fails, a value that does not refine (or a refinement above REFINE_MAX_WORK) leaves
the test undecided. A pencil whose noise is itself not below the tolerance is refined too, and
never passes unrefined: values that carry errors above the tolerance cannot show a deviation of
its size (the orbit map of widths 2,1,2, numag.orbit, seed 0: one of the 12 image points,
source coordinates ~5e3, residuals 5.0e-12 and 9.4e-14 < tol under noises 4.6e-9 and 4.3e-5,
was certified as a variety of degree 1).

``Pencil`` is the one implementation of a pencil: it caches the values of every point (by
index), so monodromy can test growing point sets without tracking a point twice; the paths of a
pencil use fixed gammas, so a point's values do not depend on when it is computed (except a
re-tracked failed path's, which is only required to be DIFFERENT from the others).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import distinct
from .options import DEFAULT, Options, resolve
from .tracking import TrackResult, newton_on_slice, random_gamma, track_slices

DOUBLE_DIGITS = 16   # digits of a residual computed from double-precision values
TRACE_TOL = DEFAULT.trace.tol                 # aliases of the one definition (options)
TRACE_FAIL = DEFAULT.trace.fail_above
TRACE_PENCILS = DEFAULT.trace.pencils
# refined_residual works only up to this cost: 3 p n size (p points, n unknowns, size = terms of
# a PolynomialSystem or instructions of a program). Measured: mpmath Newton (3 iterations at 40
# digits) takes ~1.2e-4 s per unit of n size and point: (2,1,2) fiber, n size 6450, 0.9 s per
# point; (2,2,2), 180352, 18 s. 3e5 is ~40 s; above it the pencil stays undecided.
REFINE_MAX_WORK = 3e5
REFINE_MOVE = 1e-8   # relative: a refined trace value farther from its double value is refused
RETRACK_TURN = 0.02  # radians: gamma of a re-tracked pencil path (``Pencil._retrack``)


@dataclass(frozen=True)
class TraceTestResult:
    """Linear trace test on several pencils.

    verdict : True (complete: a union of irreducible components) when no path failed and the
        residual on every pencil is below ``tolerance`` with all pencils done; False when some
        pencil's residual is above ``fail_above`` (with no failed path); None (undecided)
        otherwise.
    residual : the largest of ``residuals`` (one per pencil done); margin = log10(tolerance /
        residual) (> 0 passes); failed_paths; pencils_required.
    noises : per pencil, the rounding noise of its residual (``trace_noise``; empty when not
        known); digits : per pencil, the digits its residual was computed with (16: double;
        ``TraceOptions.refine_digits`` after refinement, module docstring).
    """
    verdict: bool | None
    residual: float
    failed_paths: int
    tolerance: float = TRACE_TOL
    fail_above: float = TRACE_FAIL
    residuals: tuple[float, ...] = ()
    pencils_required: int = TRACE_PENCILS
    noises: tuple[float, ...] = ()
    digits: tuple[int, ...] = ()

    @property
    def margin(self) -> float:
        return math.log10(self.tolerance / max(self.residual, 1e-300))

    @property
    def reason(self) -> str:
        """Why the verdict, in words (the rule of ``trace_verdict``)."""
        if self.failed_paths:
            return f"{self.failed_paths} failed paths"
        if not self.residuals:
            return "no pencil done"
        refined = [j for j, d in enumerate(self.digits) if d > DOUBLE_DIGITS]
        at = f" (pencil {', '.join(str(j + 1) for j in refined)} from values refined to " \
             f"{max(self.digits)} digits)" if refined else ""
        noisy = [(r, n) for r, n in zip(self.residuals, self.noises) if r > 0 and n > 0]
        worst = max(noisy, key=lambda rn: rn[0] / rn[1]) if noisy else None
        if self.verdict is True:
            return (f"residual {self.residual:.1e} < {self.tolerance:.0e} on "
                    f"{len(self.residuals)} pencils{at}")
        if self.residual > self.fail_above:
            return f"residual {self.residual:.1e} > {self.fail_above:.0e}"
        if worst is not None and worst[0] > worst[1] and self.residual < self.tolerance:
            kind = "nonlinear" if self.verdict is False else "undecided"
            return (f"{kind}: residual {worst[0]:.1e} is {worst[0] / worst[1]:.0e} times its "
                    f"rounding noise {worst[1]:.1e}{at}")
        return (f"residual {self.residual:.1e} on {len(self.residuals)} of "
                f"{self.pencils_required} pencils (tolerance {self.tolerance:.0e}, fails above "
                f"{self.fail_above:.0e})")

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "residual": self.residual, "tolerance": self.tolerance,
                "fail_above": self.fail_above, "margin": self.margin,
                "failed_paths": self.failed_paths, "residuals": list(self.residuals),
                "pencils_required": self.pencils_required, "noises": list(self.noises),
                "digits": list(self.digits)}


def trace_verdict(residuals, failed: int = 0, options: Options | None = None,
                  noises=None, digits=None) -> TraceTestResult:
    """Verdict from the residuals of the pencils done so far (a float counts as one pencil) and
    the number of failed paths (``TraceOptions``). With ``noises`` (one per pencil, from
    ``trace_noise``) a pencil whose residual exceeds ``noise_factor`` times its noise is
    nonlinear: the verdict is undecided, or False when that residual was computed with more
    than DOUBLE_DIGITS digits (``digits``, one per pencil; default 16: refined values resolve
    the nonlinearity, module docstring). A pencil whose noise is not below ``tol`` cannot
    certify: its values do not resolve a deviation of the tolerance's size (undecided)."""
    t = resolve(options).trace
    res = (float(residuals),) if np.isscalar(residuals) else tuple(float(r) for r in residuals)
    noise = tuple(float(v) for v in (noises or ()))
    digs = tuple(int(d) for d in (digits or ())) or (DOUBLE_DIGITS,) * len(noise)
    r = max(res) if res else math.nan
    kw = dict(tolerance=t.tol, fail_above=t.fail_above, residuals=res,
              pencils_required=t.pencils, noises=noise, digits=digs if noise else ())
    if failed:
        return TraceTestResult(None, r, failed, **kw)
    if r > t.fail_above:
        return TraceTestResult(False, r, 0, **kw)
    nonlinear = [d for rj, nj, d in zip(res, noise, digs) if rj > t.noise_factor * nj]
    if any(d > DOUBLE_DIGITS for d in nonlinear):
        return TraceTestResult(False, r, 0, **kw)
    unresolved = any(nj >= t.tol for nj in noise)     # values too noisy to see tol
    if len(res) >= t.pencils and r < t.tol and not nonlinear and not unresolved:
        return TraceTestResult(True, r, 0, **kw)
    return TraceTestResult(None, r, 0, **kw)


def trace_residual(values, ts) -> float:
    """Relative deviation from affine-linearity of s(t) = sum_i x_i(t) at three t's (module
    docstring); values: three (p, n) arrays, rows aligned; ts: (0, t1, t2)."""
    s = [np.sum(v, axis=0) for v in values]
    lam = (ts[2] - ts[0]) / (ts[1] - ts[0])
    dev = np.linalg.norm(s[2] - s[0] - lam * (s[1] - s[0]))
    scale = sum(np.linalg.norm(v, axis=1).sum() for v in values)
    return float(dev / scale) if scale > 0 else 0.0


def _combination(ts) -> tuple[complex, complex, complex]:
    """(c0, c1, c2): the residual's deviation is c0 s(0) + c1 s(t1) + c2 s(t2)."""
    lam = (ts[2] - ts[0]) / (ts[1] - ts[0])
    return lam - 1, -lam, 1.0


def trace_noise(values, ts, accuracies, floor: float = float(np.finfo(float).eps)) -> float:
    """Rounding noise of ``trace_residual(values, ts)``: a value x whose accuracy estimate is a
    (relative to 1 + |x|: the last Newton correction, at least ``floor``; NaN counts as inf) is
    within a (1 + |x|) of its point, so the deviation is off by at most
    sum_t |c_t| sum_i a_i(t) (1 + |x_i(t)|) (c_t the coefficients of s(t) in it), divided by
    the residual's scale [derived from its formula]. values: three (p, n) arrays; accuracies:
    three (p,) arrays."""
    err = 0.0
    with np.errstate(over="ignore", invalid="ignore"):    # huge values: the noise is inf
        for c, v, a in zip(_combination(ts), values, accuracies):
            a = np.maximum(np.nan_to_num(np.asarray(a, float), nan=np.inf), floor)
            err += abs(c) * float(np.sum(a * (1 + np.linalg.norm(v, axis=1))))
        scale = sum(np.linalg.norm(v, axis=1).sum() for v in values)
        return err / scale if scale > 0 else 0.0


def refined_residual(system, pencil, values, ts, digits: int, coords: slice = slice(None)):
    """(residual, noise) of the trace of ``values`` recomputed at ``digits`` digits, or None
    when a value does not refine: each value (rows of values[j], (p, n)) refined by Newton in
    mpmath (``witness.refine``) on [system; A x = b + t_j v] (pencil = (A, b, v); the
    translates b + t_j v and the combination's coefficients computed in mpmath: in double
    precision they are affine in t only to ~1e-16, a deviation the refined residual would
    show); the residual from the refined values in mpmath, on the coordinates ``coords`` (the
    traced ones); the noise by ``trace_noise`` with the refinement's last corrections, floored
    at 10^-digits. A value that moves by more than REFINE_MOVE (relative) is not refined:
    Newton left the root the double-precision value approximated. Work above
    REFINE_MAX_WORK: None without refining."""
    import mpmath

    from .refine import refine
    if 3 * len(values[0]) * system.n_vars * system_size(system) > REFINE_MAX_WORK:
        return None
    A, b, v = pencil
    refined = []
    for t, V in zip(ts, values):
        with mpmath.workdps(digits + 10):
            bt = np.array([mpmath.mpc(bi) + mpmath.mpc(t) * mpmath.mpc(vi)
                           for bi, vi in zip(b, v)], dtype=object)
        R = refine(system, V, digits, slice_A=A, slice_b=bt)
        moved = np.linalg.norm(R.points - V, axis=1) / (1 + np.linalg.norm(V, axis=1))
        if not R.converged.all() or not np.all(moved <= REFINE_MOVE):
            return None
        refined.append(R)
    cols = range(values[0].shape[1])[coords]
    with mpmath.workdps(digits + 10):
        sums = [[mpmath.fsum(x[c] for x in R.points_mp) for c in cols] for R in refined]
        t0, t1, t2 = (mpmath.mpc(t) for t in ts)
        lam = (t2 - t0) / (t1 - t0)
        c = (lam - 1, -lam, mpmath.mpf(1))              # _combination, in mpmath
        dev = mpmath.sqrt(mpmath.fsum(abs(c[0] * a + c[1] * b + c[2] * d) ** 2
                                      for a, b, d in zip(*sums)))
        scale = mpmath.fsum(mpmath.sqrt(mpmath.fsum(abs(x[j]) ** 2 for j in cols))
                            for R in refined for x in R.points_mp)
        residual = float(dev / scale) if scale > 0 else 0.0
    noise = trace_noise([R.points[:, coords] for R in refined], ts,
                        [R.corrections for R in refined], floor=10.0 ** -digits)
    return residual, noise


def system_size(system) -> int:
    """Terms of a PolynomialSystem, instructions of a ProgramSystem (the cost of one
    evaluation)."""
    if hasattr(system, "program"):
        return len(system.program.code)
    return sum(len(p) for p in system.polynomials)


def decide(residual: float, noise: float, failed: bool, refined: Callable,
           options: Options | None = None) -> tuple[float, float, int]:
    """(residual, noise, digits) of one pencil: as computed in double precision, or
    ``refined()`` (a (residual, noise) pair at ``TraceOptions.refine_digits`` digits, or None)
    when the residual is below the tolerance but above noise_factor times its noise, or the
    noise itself is not below the tolerance (module docstring); with failed paths, or when
    refining fails, the double-precision values."""
    t = resolve(options).trace
    if failed or not residual < t.tol or not (t.noise_factor * noise < residual
                                              or noise >= t.tol):
        return residual, noise, DOUBLE_DIGITS
    hp = refined()
    return (residual, noise, DOUBLE_DIGITS) if hp is None else (*hp, t.refine_digits)


def random_pencil(rng: np.random.Generator, dim: int):
    """Direction v (dim,) and t = (0, e^{i a}, -e^{i b}) of a random pencil A x = b + t v."""
    v = (rng.standard_normal(dim) + 1j * rng.standard_normal(dim)) / math.sqrt(2)
    ts = (0j, complex(np.exp(2j * np.pi * rng.random())),
          complex(-np.exp(2j * np.pi * rng.random())))
    return v, ts


Tracker = Callable[..., TrackResult]


class Pencil:
    """A trace pencil of a witness set W, with values cached per point index.

    base=True: on W's slice (the points are the t = 0 values); else on a random slice reached
    from W's slice by one fixed homotopy. ``compute(X, err, idx, track)`` tracks the points idx
    (rows of X, error estimates err) that are not done yet; ``track`` is
    ``track_slices``-like (A0, b0, A1, b1, X, gamma) -> TrackResult, so the caller can count
    paths. A new value that is not DIFFERENT from a value computed before on the same slice
    (a path jumped, or undecided) makes that point's trace unusable (``ok`` False). ``draw``
    discards the values and draws a new pencil (after failed paths)."""

    def __init__(self, W, rng: np.random.Generator, base: bool, options: Options | None = None):
        self.W, self.rng, self.base = W, rng, base
        self.options = resolve(options)
        self.draws = self.retracked = 0
        self.draw(0)

    def draw(self, count: int) -> None:
        W, rng, n = self.W, self.rng, self.W.system.n_vars
        if self.base:
            self.A, self.b, self.reach_gamma = W.slice_A, W.slice_b, None
        else:                      # an independent random slice (see the module docstring)
            from .witness_set import random_slice
            # on a deflated system the slice acts on x only (info['project_to'] coordinates):
            # a slice through the multipliers meets the lifted component in other points
            # than deg Z, and their x-trace is not linear (issue 10, row a1^2 - a2; a3^2)
            k = W.info.get("project_to") or n
            A, self.b = random_slice(rng, W.dim, k)
            self.A = np.hstack([A, np.zeros((W.dim, n - k), complex)])
            self.reach_gamma = random_gamma(rng)
        self.v, self.ts = random_pencil(rng, W.dim)
        self.gammas = (random_gamma(rng), random_gamma(rng))
        self.values = [np.zeros((count, n), complex) for _ in range(3)]
        self.err = [np.zeros(count) for _ in range(3)]
        self.acc = [np.zeros(count) for _ in range(3)]     # raw accuracies (trace_noise)
        self.ok = np.zeros(count, bool)
        self.done = np.zeros(count, bool)
        self.draws += 1

    def grow(self, count: int) -> None:
        extra = count - len(self.ok)
        if extra > 0:
            n = self.W.system.n_vars
            self.values = [np.vstack([v, np.zeros((extra, n), complex)]) for v in self.values]
            self.err = [np.concatenate([e, np.zeros(extra)]) for e in self.err]
            self.acc = [np.concatenate([a, np.zeros(extra)]) for a in self.acc]
            self.ok = np.concatenate([self.ok, np.zeros(extra, bool)])
            self.done = np.concatenate([self.done, np.zeros(extra, bool)])

    def compute(self, X: np.ndarray, err: np.ndarray, idx: np.ndarray, track: Tracker) -> None:
        """Values of the points idx (rows of X) not done yet, one batch per pencil slice."""
        self.grow(len(X))
        todo = idx[~self.done[idx]]
        if not len(todo):
            return
        W, P = self.W, X[todo]
        ok = np.ones(len(todo), bool)
        err0 = err[todo]
        pts = self.options.points
        if not self.base:
            moved = track(W.slice_A, W.slice_b, self.A, self.b, P, self.reach_gamma)
            P0, P, ok = P, moved.endpoints.copy(), moved.ok.copy()
            err0 = distinct.error_estimates(moved.accuracy, len(todo), pts)
            acc0 = np.array(moved.accuracy, float)
            self._retrack(track, (W.slice_A, W.slice_b, self.A, self.b), self.reach_gamma, P0,
                          P, err0, ok, acc=acc0)
        else:          # the points' own accuracy: one Newton step on the slice (no tracking)
            P, acc0 = newton_on_slice(W.square, self.A, self.b, P, iterations=2,
                                      options=self.options)
        vals, errs, accs = [P], [err0], [acc0]
        # only points that reached the pencil's slice start its legs: the endpoint of a failed
        # reach path is not a solution, and its leg path collided with good ones (measured on
        # the (2,2,2) fiber, seed 2: 5-10 failed reach paths per draw of 288 made 8-14 leg
        # paths fail as 'collision')
        start = np.flatnonzero(ok)
        for t, g in zip(self.ts[1:], self.gammas):
            tr = track(self.A, self.b, self.A, self.b + t * self.v, P[start], g)
            V = np.full(P.shape, np.nan, complex)
            V[start] = tr.endpoints
            acc = np.full(len(todo), np.inf)
            acc[start] = tr.accuracy
            e, leg_ok = distinct.error_estimates(acc, len(todo), pts), np.zeros(len(todo), bool)
            leg_ok[start] = tr.ok
            self._retrack(track, (self.A, self.b, self.A, self.b + t * self.v), g, P, V, e,
                          leg_ok, start, acc=acc)
            vals.append(V)
            errs.append(e)
            accs.append(acc)
            ok &= leg_ok
        vals = [np.where(np.isfinite(v), v, 0) for v in vals]
        ok &= ~self._collides(vals, errs)
        for j in range(3):
            self.values[j][todo] = vals[j]
            self.err[j][todo] = errs[j]
            self.acc[j][todo] = accs[j]
        self.ok[todo] = ok
        self.done[todo] = True

    def _retrack(self, track: Tracker, slices, gamma: complex, P0: np.ndarray, E: np.ndarray,
                 err: np.ndarray, ok: np.ndarray, among: np.ndarray | None = None,
                 acc: np.ndarray | None = None) -> None:
        """Track the failed paths of one batch again with gamma turned by +RETRACK_TURN,
        then -RETRACK_TURN radians (``TraceOptions.retracks`` attempts in all), from P0's rows
        to the slices' target; a new endpoint is kept (E, err, ok, acc: the raw accuracies,
        updated in place) only if it
        is DIFFERENT from every other endpoint of the batch that is kept. ``among``: the rows
        that were tracked (default all).

        Why a slightly turned gamma: a path that fails mid-path passed close to a branch point
        of the homotopy, where it meets the path of another sheet; turning gamma a little
        moves the homotopy's branch points off the path, to one side or the other, so one of
        the two turns ends at the failed path's own endpoint, the other possibly at the other
        sheet's (already taken: not DIFFERENT, refused). A fresh random gamma would be a
        different path altogether, whose endpoint is usually some other path's (measured on
        the (2,2,2)/(1,1) deep fiber, seed 2: 2 of 2 re-tracked reach paths refused).

        Why this keeps the test sound: the verdict is about the SET of values on each slice,
        not about which point went where. A path that ends at a regular point stays on the
        irreducible component it started on, so the endpoints of a group are, on each slice,
        as many distinct points of the same components as the group has: a union of complete
        witness sets exactly when the group is one. (Path jumps across components are the
        test's residual risk with one gamma too.) Why at all: on the (2,2,2)/(1,1) deep fiber,
        seed 2, the confirmation pencil of 288 points was redrawn 10 times (153 of 273 s)
        because 1-8 of its 288 reach paths failed each time (min_step mid-path, or two paths
        colliding), each redraw re-tracking all 864 paths."""
        rows = np.arange(len(ok)) if among is None else np.asarray(among)
        for k in range(self.options.trace.retracks):
            bad = rows[~ok[rows]]
            if not len(bad):
                return
            turn = RETRACK_TURN * (k // 2 + 1) * (1 if k % 2 == 0 else -1)
            tr = track(*slices, P0[bad], gamma * complex(np.exp(1j * turn)))
            e_new = distinct.error_estimates(tr.accuracy, len(bad), self.options.points)
            for j in np.flatnonzero(tr.ok):
                i = bad[j]
                kept = rows[ok[rows]]
                if len(kept):
                    C = distinct.compare_points(tr.endpoints[j], e_new[j:j + 1], E[kept],
                                                err[kept], self.options.points)
                    if (C != distinct.DIFFERENT).any():
                        continue
                E[i], err[i], ok[i] = tr.endpoints[j], e_new[j], True
                if acc is not None:
                    acc[i] = tr.accuracy[j]
            self.retracked += len(bad)

    def _collides(self, vals, errs) -> np.ndarray:
        bad = np.zeros(len(vals[0]), bool)
        old = np.flatnonzero(self.done)
        if not len(old):
            return bad
        for j in (range(3) if not self.base else (1, 2)):   # base t = 0 values: the points
            I, _, _, _ = distinct.compare_pairs(vals[j], errs[j], self.values[j][old],
                                                self.err[j][old], self.options.points)
            bad[I] = True
        return bad

    def failed(self, idx: np.ndarray) -> int:
        return int((~self.ok[idx]).sum())

    def residual(self, idx: np.ndarray) -> float:
        # a witness set on a deflated system (witness.deflation) is traced in its first
        # info['project_to'] coordinates: the multipliers are rational functions on it
        k = self.W.info.get("project_to")
        return trace_residual([v[idx][:, :k] for v in self.values], self.ts)

    def noise(self, idx: np.ndarray) -> float:
        """``trace_noise`` of ``residual(idx)``."""
        k = self.W.info.get("project_to")
        return trace_noise([v[idx][:, :k] for v in self.values], self.ts,
                           [a[idx] for a in self.acc])

    def refined(self, idx: np.ndarray) -> tuple[float, float] | None:
        """``refined_residual`` of the points idx (their values refined on this pencil's
        slices at ``TraceOptions.refine_digits`` digits), or None if one does not refine."""
        return refined_residual(self.W.square, (self.A, self.b, self.v),
                                [v[idx] for v in self.values], self.ts,
                                self.options.trace.refine_digits,
                                slice(self.W.info.get("project_to")))

    def decided(self, idx: np.ndarray) -> tuple[float, float, int]:
        """``decide`` for the points idx."""
        return decide(self.residual(idx), self.noise(idx), self.failed(idx) > 0,
                      lambda: self.refined(idx), self.options)


def slice_tracker(W, method: str = "numpy", options: Options | None = None,
                  on_result: Callable[[TrackResult], None] | None = None) -> Tracker:
    """A ``Pencil`` tracker for W: track_slices on W's square system (optionally reporting
    each TrackResult to ``on_result``, for path accounting)."""
    def track(A0, b0, A1, b1, X, gamma) -> TrackResult:
        tr = track_slices(W.square, A0, b0, A1, b1, X, gamma=gamma, method=method,
                          options=options)
        if on_result is not None:
            on_result(tr)
        return tr
    return track


def test_groups(pencils, X, err, groups, track: Tracker, options: Options | None = None,
                max_redraws: int = 2) -> list[TraceTestResult]:
    """Trace test of each group (list of point indices) on the pencils in order: the next
    pencil only when the previous passes; a pencil with failed paths on a group is redrawn (at
    most max_redraws times in this call; a later call may redraw again); failed paths leave the
    verdict undecided."""
    out = []
    for g in groups:
        c = np.asarray(g, int)
        parts, failed = [], 0
        for pen in pencils:
            pen.compute(X, err, c, track)
            for _ in range(max_redraws):
                if not pen.failed(c):
                    break
                pen.draw(len(X))
                pen.compute(X, err, c, track)
            parts.append(pen.decided(c))
            failed += pen.failed(c)
            if failed or not pencil_linear(parts[-1], options):
                break
        out.append(verdict_of(parts, failed, options))
    return out


def pencil_linear(part: tuple[float, float, int], options: Options | None) -> bool:
    """Does one pencil's (residual, noise, digits) pass (trace_verdict's rule)?"""
    t = resolve(options).trace
    return part[0] < t.tol and part[0] <= t.noise_factor * part[1]


def verdict_of(parts: list[tuple[float, float, int]], failed: int,
               options: Options | None = None) -> TraceTestResult:
    """``trace_verdict`` of the (residual, noise, digits) of the pencils done (``decide``)."""
    return trace_verdict([p[0] for p in parts], failed, options, [p[1] for p in parts],
                         [p[2] for p in parts])


def trace_test(W, *, seed=None, groups=None, options: Options | None = None,
               method: str = "numpy"):
    """Linear trace test of W's points on ``TraceOptions.pencils`` pencils: one on W's slice,
    the others on fresh random slices (see ``TraceTestResult``). For dim 0 (or no points) the
    verdict is True: isolated points are their own components.

    Parameters
    ----------
    W : WitnessSet
    seed : int or numpy Generator (slices, pencils, gammas)
    groups : list of index lists, optional
        Then a list of TraceTestResults, one per group (all groups share the same paths).
    options : witness.Options

    Returns
    -------
    TraceTestResult or list of them

    Examples
    --------
    >>> from witness import PolynomialSystem, monodromy, trace_test
    >>> F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])     # twisted cubic
    >>> W = monodromy(F, 1, [1.0, 1.0, 1.0], seed=0).witness_set
    >>> W.degree, trace_test(W, seed=1).verdict
    (3, True)
    >>> trace_test(W, seed=1, groups=[[0, 1]])[0].verdict            # a proper subset
    False
    """
    opt = resolve(options)
    if W.dim == 0 or W.degree == 0:
        res = TraceTestResult(True, 0.0, 0)
        return res if groups is None else [res for _ in groups]
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    pencils = [Pencil(W, rng, base=(i == 0), options=opt) for i in range(opt.trace.pencils)]
    gs = [list(range(W.degree))] if groups is None else groups
    track = slice_tracker(W, method, opt)
    err = distinct.error_estimates(None, W.degree, opt.points)
    out = []
    for g in gs:                         # every group on every pencil (no early stop here)
        c = np.asarray(g, int)
        parts, failed = [], 0
        for pen in pencils:
            pen.compute(W.points, err, c, track)
            parts.append(pen.decided(c))
            failed += pen.failed(c)
        out.append(verdict_of(parts, failed, opt))
    return out[0] if groups is None else out
