"""Path tracking: every path ends in exactly one state, with its reason.

``track(H, X0)`` tracks the start points X0 (p, n) (affine) of a homotopy ``H``
(``witness.homotopy.Homotopy``: a program on a patch of projective space) from s = 0 to s = 1,
all paths in one compiled call (``witness.kernels``), then:

1. **Endpoints.** A path that reaches s = 1 with its Newton correction below
   ``endpoint_tol`` ends there. It is ``AT_INFINITY`` when |x0| / |X| < ``at_infinity_tol``,
   else finite; a finite endpoint is ``REGULAR`` when the row-equilibrated Jacobian has full
   numerical rank (``witness.rank``), ``SINGULAR`` otherwise.
2. **Collisions.** Two paths from distinct start points ending at the same regular point (of
   the same group: same target slice) have jumped; both are failed ('collision'). (For a
   singular endpoint several paths arriving is its multiplicity, not a jump.)
3. **Rerouting.** A failed path is tracked again from its start along a detour through a random
   complex value of s (0 -> s_mid -> 1): a different path to the same target system, so its
   endpoint is a point of the same solution set (for a witness set, of the same irreducible
   component), though not necessarily the same point. It is kept only if it differs
   (``witness.distinct``) from every other endpoint of its group; up to ``reroutes`` attempts.
   Why: on the deep fiber (2,2,2) ranks 1,1, paths that fail along the real segment pass close
   to branch points; the same path needs thousands of steps even with double-double residuals,
   while a detour through 0.25 ± 0.05i .. 0.25 ± 0.2i took 44-97 steps (measured). Callers
   that need the path-to-path correspondence pass ``reroute=False``.
4. **Endgame** (``endgame=True``): paths whose endpoint is singular or that failed within the
   endgame zone (1 - s < ``endgame_start``) go to the Cauchy endgame (``witness.endgame``),
   which returns the endpoint, the winding number, and finite / at infinity.
5. **Checks.** Finite endpoints are checked on the system H.check (the original, unrandomized
   equations) with the componentwise backward error (``PointOptions.residual_tol``).

``track_slices`` is the slice-moving special case used by witness sets and monodromy (method
'numpy' = this tracker, 'phc' = PHCpack's tracker on the same homotopy, for comparison).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from . import distinct, kernels
from .homotopy import (Homotopy, homogeneous_slice, infinity_ratio, slice_move, to_affine,
                       to_projective)
from .options import DEFAULT, Options, TrackerOptions, resolve
from .rank import numerical_rank
from .system import PolynomialSystem

RESIDUAL_TOL = DEFAULT.points.residual_tol          # aliases of the one definition (options)
RESIDUAL_REJECT = DEFAULT.points.residual_reject


class PathStatus(StrEnum):
    """How a path ended."""
    REGULAR = "regular"
    SINGULAR = "singular"
    AT_INFINITY = "at_infinity"
    FAILED = "failed"

    @property
    def finite(self) -> bool:
        return self in (PathStatus.REGULAR, PathStatus.SINGULAR)


class FailureReason(StrEnum):
    """Why a path failed ('' for paths that did not)."""
    NONE = ""
    MIN_STEP = "min_step"
    MAX_STEPS = "max_steps"
    ENDPOINT_TOL = "endpoint_tol"
    SINGULAR_JACOBIAN = "singular_jacobian"
    COLLISION = "collision"
    ENDGAME = "endgame"
    NOT_A_ZERO = "not_a_zero"      # the endgame's estimate is not a zero of the system
    NOT_AT_INFINITY = "not_at_infinity"   # |x0| tiny, but no zero of the top-degree forms
    PHC = "phc"


_KERNEL_REASON = {kernels.MIN_STEP: FailureReason.MIN_STEP,
                  kernels.MAX_STEPS: FailureReason.MAX_STEPS,
                  kernels.ENDPOINT: FailureReason.ENDPOINT_TOL,
                  kernels.SINGULAR_STEP: FailureReason.SINGULAR_JACOBIAN}


@dataclass(frozen=True)
class TrackResult:
    """Result of tracking p paths.

    start, endpoints : complex128 (p, n) affine (endpoints at infinity are NaN; their
        homogeneous coordinates are in ``projective``, (p, n + 1), normalized).
    status : str (p,) ``PathStatus`` values; reasons : str (p,) ``FailureReason`` values.
    accuracy : float (p,) relative error estimate of each endpoint (last Newton correction, or
        the difference of the last two Cauchy endgame estimates; inf if none).
    winding : int (p,) winding number from the endgame (1 for paths that did not need it).
    residuals : float (p,) backward error on the check system (inf when not finite);
        on_original : bool (p,) residual < residual_tol.
    steps : int (p,) step attempts (all routes); s_reached : float (p,) of the first route.
    rerouted / recovered : paths that failed and were tracked along detours / that then
        ended; method 'numpy' | 'phc'; gamma; seconds.
    """
    start: np.ndarray
    endpoints: np.ndarray
    projective: np.ndarray
    status: np.ndarray
    reasons: np.ndarray
    accuracy: np.ndarray
    winding: np.ndarray
    residuals: np.ndarray
    on_original: np.ndarray
    steps: np.ndarray
    s_reached: np.ndarray
    method: str
    gamma: complex | None
    seconds: float
    residual_tol: float = RESIDUAL_TOL
    rerouted: int = 0
    recovered: int = 0
    info: dict = field(default_factory=dict, repr=False)

    @property
    def n_paths(self) -> int:
        return len(self.status)

    @property
    def ok(self) -> np.ndarray:
        """Paths that ended at a regular point that satisfies the check system."""
        return (self.status == PathStatus.REGULAR) & self.on_original

    @property
    def n_failed(self) -> int:
        return int(np.sum(self.status == PathStatus.FAILED))

    @property
    def n_at_infinity(self) -> int:
        return int(np.sum(self.status == PathStatus.AT_INFINITY))

    @property
    def n_singular(self) -> int:
        return int(np.sum(self.status == PathStatus.SINGULAR))

    # kept for the callers of the affine tracker: diverged = at infinity
    n_diverged = n_at_infinity
    retried = property(lambda self: self.rerouted)

    def status_counts(self) -> dict[str, int]:
        return {str(s): int(np.sum(self.status == s)) for s in PathStatus}

    def reason_counts(self) -> dict[str, int]:
        """Why paths are not ``ok``: failure reasons, 'at_infinity', 'singular', and
        'off_original' (ended regular but fails the residual check on the check system)."""
        out: dict[str, int] = {}
        for i in np.flatnonzero(~self.ok):
            st = self.status[i]
            r = ("off_original" if st == PathStatus.REGULAR else
                 str(self.reasons[i]) if st == PathStatus.FAILED and self.reasons[i] else str(st))
            out[r] = out.get(r, 0) + 1
        return out

    def __repr__(self) -> str:
        c = self.status_counts()
        return (f"TrackResult({self.n_paths} paths by {self.method}: {int(self.ok.sum())} ok, "
                f"{c['regular']} regular, {c['singular']} singular, {c['at_infinity']} at "
                f"infinity, {c['failed']} failed, "
                f"{int(np.sum((self.status == PathStatus.REGULAR) & ~self.on_original))} off "
                f"the check system; {self.rerouted} rerouted, {self.recovered} recovered; "
                f"{self.seconds:.3f} s)")

    def to_json(self) -> dict:
        g = None if self.gamma is None else [self.gamma.real, self.gamma.imag]
        return {"n_paths": self.n_paths, "status": self.status.tolist(),
                "counts": self.status_counts(), "reasons": self.reason_counts(),
                "residuals": self.residuals.tolist(), "residual_tol": self.residual_tol,
                "on_original": self.on_original.tolist(), "winding": self.winding.tolist(),
                "method": self.method, "gamma": g, "seconds": self.seconds,
                "n_failed": self.n_failed, "n_at_infinity": self.n_at_infinity,
                "rerouted": self.rerouted, "recovered": self.recovered}


# ----------------------------------------------------------------------------- tracking
@dataclass
class _Paths:
    """Mutable per-path arrays while tracking (homogeneous coordinates)."""
    Xh: np.ndarray
    code: np.ndarray
    acc: np.ndarray
    steps: np.ndarray
    tau: np.ndarray
    X_eg: np.ndarray        # point where 1 - tau first dropped below endgame_start (NaN: never)
    s_eg: np.ndarray        # the (complex) value of s there


def _run(H: Homotopy, Xh0: np.ndarray, idx: np.ndarray, S0, S1, opts: TrackerOptions):
    """Kernel call for the paths idx from S0 to S1 (complex, per path)."""
    C = H.rows(idx)
    return kernels.track_batch(H.program.arrays(), Xh0, S0, S1, C, opts.vector()), C


def track(H: Homotopy, X0, options: Options | TrackerOptions | None = None, *,
          groups=None, endgame: bool = False, reroute: bool = True,
          rng: np.random.Generator | int | None = None, method: str = "numpy") -> TrackResult:
    """Track the start points X0 (p, n) (affine, complex) of H from s = 0 to 1.

    Parameters
    ----------
    H : witness.homotopy.Homotopy
    X0 : complex (p, n) or (n,)
    options : Options or TrackerOptions or None (defaults)
    groups : int (p,) or None
        Paths with the same label share a target (collisions and rerouted duplicates are
        looked for only inside a group); None: all paths one group.
    endgame : bool
        Run the Cauchy endgame for singular endpoints (solving); off for slice moves.
    reroute : bool
        Track failed paths again along detours (module docstring, step 3).
    rng : seed or Generator for the detours (recorded by the caller).

    Returns
    -------
    TrackResult

    Raises
    ------
    ValueError
        X0 of the wrong shape or not finite.
    """
    t0 = time.perf_counter()
    opt = resolve(options)
    X0 = np.atleast_2d(np.asarray(X0, complex))
    n = H.n
    if X0.ndim != 2 or X0.shape[1] != n or not np.all(np.isfinite(X0)):
        raise ValueError(f"start points must be finite with shape (p, {n}), got {X0.shape}")
    p = len(X0)
    rng = np.random.default_rng(rng)
    groups = np.zeros(p, int) if groups is None else np.asarray(groups)
    if len(X0) == 0:
        return _empty(n, method, H.gamma)
    Xh0 = to_projective(X0)
    ones, zeros = np.ones(p, complex), np.zeros(p, complex)
    (E, X_eg, info), _ = _run(H, Xh0, np.arange(p), zeros, ones, opt.tracker)
    P = _Paths(E, info[:, 0].astype(int), info[:, 4].copy(), info[:, 2].astype(int),
               info[:, 1].copy(), X_eg, info[:, 5] + 0j)
    status, reasons, winding = _classify(H, P, opt)
    _mark_collisions(P, status, reasons, groups, opt)
    rerouted = recovered = 0
    if reroute and opt.tracker.reroutes:
        rerouted, recovered = _reroute(H, Xh0, P, status, reasons, groups, opt, rng,
                                       endgame)
    if endgame:
        from .endgame import run_endgame
        run_endgame(H, P, status, reasons, winding, opt)
    return _finish(H, X0, P, status, reasons, winding, opt, t0, method, rerouted, recovered)


def _empty(n, method, gamma) -> TrackResult:
    z = np.zeros((0, n), complex)
    e = np.zeros(0)
    return TrackResult(z, z, np.zeros((0, n + 1), complex), np.zeros(0, "<U12"),
                       np.zeros(0, "<U20"), e, np.zeros(0, int), e, np.zeros(0, bool),
                       np.zeros(0, int), e, method, gamma, 0.0)


def _classify(H: Homotopy, P: _Paths, opt: Options, idx=None):
    """Status of the paths idx (default all) from their kernel codes and endpoints: a path
    whose endpoint Newton correction reached endpoint_tol ends at an approximate zero
    (quadratic convergence: at a singular endpoint Newton converges only linearly and 4
    iterations from the corrector's 1e-6 cannot reach 1e-11), which is at infinity or regular;
    the others failed with the kernel's reason (the endgame may still finish them)."""
    p = len(P.code)
    idx = np.arange(p) if idx is None else idx
    status = np.full(p, PathStatus.FAILED.value, dtype="<U12")
    reasons = np.full(p, "", dtype="<U20")
    winding = np.ones(p, int)
    done = idx[P.code[idx] == kernels.DONE]
    for i in idx[P.code[idx] != kernels.DONE]:
        reasons[i] = _KERNEL_REASON.get(int(P.code[i]), FailureReason.MIN_STEP).value
    if len(done):
        inf = infinity_ratio(P.Xh[done]) < opt.tracker.at_infinity_tol
        status[done] = np.where(inf, PathStatus.AT_INFINITY.value, PathStatus.REGULAR.value)
    return status, reasons, winding


def endpoint_rank(H: Homotopy, Xh: np.ndarray, C: np.ndarray, opt: Options) -> list:
    """Numerical rank (``witness.rank``) of the row-equilibrated [H_x; patch] at s = 1 at
    homogeneous points Xh (p, n + 1) with constants C (p, q): a list of RankDecision."""
    _, Jx, _ = H.program.evaluate(Xh, 1.0, C, jacobian=True)
    M = np.concatenate([Jx, np.conj(Xh)[:, None, :]], axis=1)
    norms = np.linalg.norm(M, axis=2, keepdims=True)
    M = M / np.where(norms > 0, norms, 1)
    return [numerical_rank(sv, opt.rank) for sv in np.linalg.svd(M, compute_uv=False)]


def _mark_collisions(P: _Paths, status, reasons, groups, opt: Options) -> None:
    """Regular endpoints that are the same point (or undecided) as another regular endpoint of
    their group: both failed ('collision'). Compared group by group (a membership test of q
    points tracks q groups of paths)."""
    reg = np.flatnonzero(status == PathStatus.REGULAR)
    if len(reg) < 2:
        return
    order = reg[np.argsort(groups[reg], kind="stable")]
    g = groups[order]
    cuts = np.flatnonzero(np.diff(g)) + 1
    for block in np.split(order, cuts):
        if len(block) < 2:
            continue
        Xa = to_affine(P.Xh[block])
        e = distinct.error_estimates(_affine_accuracy(P.acc[block], Xa), len(block), opt.points)
        I, J, _, _ = distinct.compare_pairs(Xa, e, Xa, e, opt.points)
        bad = block[np.unique(I[I != J])]
        status[bad] = PathStatus.FAILED.value
        reasons[bad] = FailureReason.COLLISION.value


def _affine_accuracy(acc: np.ndarray, Xa: np.ndarray) -> np.ndarray:
    """Relative affine error from the relative projective correction: for |X| = 1 and x = X'/
    x0, |dx| / (1 + |x|) <= |dX| (1 + |x|^2) / (1 + |x|) <= |dX| (1 + |x|)."""
    with np.errstate(invalid="ignore"):
        return acc * (1 + np.linalg.norm(Xa, axis=1))


def _reroute(H, Xh0, P: _Paths, status, reasons, groups, opt: Options, rng, endgame):
    """Detours for failed paths (module docstring, step 3). With the endgame on, paths that
    failed inside the endgame zone are left to the endgame."""
    tr = opt.tracker
    bad = np.flatnonzero(status == PathStatus.FAILED)
    if endgame:
        bad = bad[~(np.isfinite(P.s_eg[bad].real) & (P.tau[bad] > 1 - tr.endgame_start))]
    todo, recovered = bad.copy(), 0
    for _ in range(tr.reroutes):
        if not len(todo):
            break
        mid = 0.5 * (rng.uniform(0.2, 0.8, len(todo))
                     + 1j * rng.choice([-1, 1], len(todo)) * rng.uniform(0.1, 0.5, len(todo)))
        (X1, _, i1), _ = _run(H, Xh0[todo], todo, np.zeros(len(todo), complex), mid, tr)
        leg1 = i1[:, 0] == kernels.DONE
        (X2, Xeg, i2), _ = _run(H, X1, todo, mid, np.ones(len(todo), complex), tr)
        ended = leg1 & (i2[:, 0] == kernels.DONE)
        P.steps[todo] += (i1[:, 2] + i2[:, 2]).astype(int)
        keep = []
        for j, i in enumerate(todo):
            if not ended[j]:
                keep.append(i)
                continue
            P.Xh[i], P.code[i], P.acc[i] = X2[j], kernels.DONE, i2[j, 4]
            P.X_eg[i], P.s_eg[i] = Xeg[j], mid[j] + i2[j, 5] * (1 - mid[j])
            st, rs, _ = _classify(H, P, opt, np.array([i]))
            if st[i] == PathStatus.REGULAR and _duplicate(P, status, groups, i, opt):
                P.code[i] = kernels.ENDPOINT
                keep.append(i)
                continue
            status[i], reasons[i] = st[i], rs[i]
            recovered += 1
        todo = np.array(keep, dtype=int)
    return len(bad), recovered


def _duplicate(P: _Paths, status, groups, i: int, opt: Options) -> bool:
    """Is the regular endpoint of path i the same as (or undecided against) another regular
    endpoint of its group?"""
    others = np.flatnonzero((status == PathStatus.REGULAR) & (groups == groups[i]))
    others = others[others != i]
    if not len(others):
        return False
    Xa, xi = to_affine(P.Xh[others]), to_affine(P.Xh[i:i + 1])
    e = distinct.error_estimates(_affine_accuracy(P.acc[others], Xa), len(others), opt.points)
    ei = distinct.error_estimates(_affine_accuracy(P.acc[i:i + 1], xi), 1, opt.points)
    C = distinct.compare(distinct.relative_distances(xi, Xa), ei, e, opt.points)
    return bool((C != distinct.DIFFERENT).any())


def _finish(H, X0, P: _Paths, status, reasons, winding, opt: Options, t0, method,
            rerouted, recovered) -> TrackResult:
    E = to_affine(P.Xh)
    fin = np.isin(status, (PathStatus.REGULAR.value, PathStatus.SINGULAR.value)) & \
        np.all(np.isfinite(E), axis=1)
    E[status == PathStatus.AT_INFINITY] = np.nan
    acc = np.where(fin, _affine_accuracy(P.acc, np.where(np.isfinite(E), E, 0)), np.inf)
    res = np.full(len(E), np.inf)
    if fin.any():
        res[fin] = H.check.residual(E[fin])
    tol = opt.points.residual_tol
    return TrackResult(X0, E, P.Xh, status, reasons, acc, winding, res, res < tol, P.steps,
                       P.tau, method, H.gamma, time.perf_counter() - t0, tol, rerouted,
                       recovered)


# ----------------------------------------------------------------------------- slices
def track_slices(G: PolynomialSystem, A0, b0, A1, b1, X0, *, gamma: complex,
                 method: str = "numpy", options: Options | TrackerOptions | None = None,
                 timeout: float = 600.0, groups=None, reroute: bool = True,
                 rng=None) -> TrackResult:
    """Move points X0 (p, n) of G = 0 on the slice A0 x = b0 to the slice A1 x = b1.

    Parameters
    ----------
    G : PolynomialSystem
        The square part (n - k equations); a randomized system is checked on its original.
    A0, b0 : complex (k, n), (k,)
    A1, b1 : complex (k, n), (k,), or per path (p, k, n), (p, k) (method 'numpy' only)
    X0 : complex (p, n)
    gamma : complex
        The gamma of the gamma trick (Sommese–Wampler 2005, Lemma 7.1.3).
    method : 'numpy' (the compiled tracker; the name is historical) or 'phc' (PHCpack's
        tracker on the same homotopy in a worker process, endpoints then refined here).
    groups : int (p,)
        Paths sharing a target slice (collisions are looked for inside a group).
    reroute : bool
        Detours for failed paths (``track``); off where the correspondence matters.
    rng : seed or Generator for the detours (default: derived from gamma).

    Returns
    -------
    TrackResult

    Raises
    ------
    ValueError
        Bad shapes or method.
    """
    t0 = time.perf_counter()
    X0 = np.atleast_2d(np.asarray(X0, complex))
    if method not in ("numpy", "phc"):
        raise ValueError(f"method must be 'numpy' or 'phc', got {method!r}")
    H = slice_move(G, A0, b0, A1, b1, gamma, max(len(X0), 1))
    if method == "phc":
        if np.ndim(A1) == 3:
            raise ValueError("per-path target slices need method='numpy'")
        return _track_slices_phc(G, H, A0, b0, A1, b1, X0, gamma, options, timeout, t0)
    if rng is None:
        rng = np.random.default_rng(int(abs(hash(complex(gamma)))) % 2**32)
    return track(H, X0, options, groups=groups, reroute=reroute, rng=rng)


def _slice_system(G: PolynomialSystem, A, b) -> PolynomialSystem:
    n = G.n_vars
    polys = list(G.polynomials)
    for row, c in zip(A, b):
        p = {tuple(int(j == k) for j in range(n)): complex(a) for k, a in enumerate(row) if a}
        if c:
            p[(0,) * n] = -complex(c)
        polys.append(p)
    return PolynomialSystem(G.variables, tuple(polys))


def _track_slices_phc(G, H, A0, b0, A1, b1, X0, gamma, options, timeout, t0) -> TrackResult:
    """PHCpack's tracker on the same homotopy (pwt = 1), endpoints refined by our Newton."""
    from . import phc
    opt = resolve(options)
    target, start = _slice_system(G, A1, b1), _slice_system(G, A0, b0)
    E, t, _ = phc.track(target, start, X0, gamma=gamma, pwt=1, timeout=timeout)
    fin = np.all(np.isfinite(E), axis=1)
    Xh = to_projective(np.where(fin[:, None], E, 0))
    Xh, acc = newton(H, Xh, opt)
    ended = fin & (np.abs(t - 1) < 1e-8)
    code = np.where(ended & (acc < opt.tracker.endpoint_tol), kernels.DONE, kernels.ENDPOINT)
    P = _Paths(Xh, code, acc, np.zeros(len(E), int), t, np.full(Xh.shape, np.nan + 0j),
               np.full(len(E), np.nan + 0j))
    status, reasons, winding = _classify(H, P, opt)
    reasons[(status == PathStatus.FAILED) & ~ended] = FailureReason.PHC.value
    return _finish(H, X0, P, status, reasons, winding, opt, t0, "phc", 0, 0)


def newton(H: Homotopy, Xh: np.ndarray, options=None, s: complex = 1.0,
           iterations: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Newton on H(., s) (homogeneous points (p, n + 1), per-path constants of H): (points,
    last relative correction (p,), inf where singular); values in double-double when the
    double correction does not reach endpoint_tol."""
    opt = resolve(options).tracker
    it = iterations or opt.endpoint_iterations
    C = H.rows(np.arange(len(Xh)))
    S = np.full(len(Xh), s, complex)
    X, acc = kernels.newton_batch(H.program.arrays(), Xh, S, C, it)
    redo = ~(acc < opt.endpoint_tol)
    if redo.any():
        X2, acc2 = kernels.newton_batch(H.program.arrays(), Xh[redo], S[redo], C[redo], it + 2,
                                        True)
        X[redo], acc[redo] = X2, acc2
    return X, acc


def newton_on_slice(G: PolynomialSystem, A, b, X, iterations: int = 4,
                    options=None) -> tuple[np.ndarray, np.ndarray]:
    """Newton refinement of points X (p, n) on [G; A x - b] (square): (affine points (p, n),
    last relative correction (p,) in affine terms); singular points keep an infinite
    correction."""
    X = np.atleast_2d(np.asarray(X, complex))
    if not len(X):
        return X, np.zeros(0)
    H = slice_move(G, A, b, A, b, 1.0, len(X))
    Xh, acc = newton(H, to_projective(X), options, iterations=iterations)
    Xa = to_affine(Xh)
    return Xa, _affine_accuracy(acc, Xa)


def random_gamma(rng: np.random.Generator) -> complex:
    """A random point on the unit circle (the gamma of the gamma trick)."""
    return complex(np.exp(2j * np.pi * rng.random()))
