"""Homotopy membership test (Sommese–Verschelde–Wampler 2001, "Numerical irreducible
decomposition using projections from points on the components").

A point x with F(x) = 0 lies on the pure-dimensional set Z of a witness set W iff x is one of
the points of Z on a generic slice through x: translate W's slice A y = b to A y = A x (W's
random A makes it a generic slice through x) and compare the endpoints with x. The paths run with the endgame on, so a query point at a singular
point of Z (where several witness paths converge) is reached as a singular endpoint, not lost.
Same / different / undecided is the engine's one point rule (``witness.distinct``); a point
whose backward error is between ``residual_tol`` and ``residual_reject`` is undecided.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import distinct
from .homotopy import slice_move
from .options import Options, resolve
from .tracking import PathStatus, random_gamma, track
from .witness_set import WitnessSet, _rng


@dataclass(frozen=True)
class MembershipResult:
    """Homotopy membership test of one point.

    verdict : True (member), False (not), None (undecided).
    residual : backward error of the point on the system.
    distance : smallest relative distance of an endpoint to the point.
    failed_paths : paths that did not end (finite or at infinity).
    reason : in words.
    tolerance : the same-point bound ``PointOptions.same_tol``; margin = log10(tolerance /
        distance) (> 0 for members).
    """
    verdict: bool | None
    residual: float
    distance: float
    failed_paths: int
    reason: str
    tolerance: float = 1e-6

    @property
    def margin(self) -> float:
        return math.log10(self.tolerance / max(self.distance, 1e-300))

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "residual": self.residual, "distance": self.distance,
                "failed_paths": self.failed_paths, "reason": self.reason,
                "tolerance": self.tolerance, "margin": self.margin}


def membership(point, W: WitnessSet, *, seed=None, accuracy: float | None = None,
               options: Options | None = None) -> MembershipResult:
    """Is ``point`` on the set of the witness set W?

    Parameters
    ----------
    point : complex (n,)
    W : WitnessSet
    seed : int or numpy Generator (the slice through the point, gamma)
    accuracy : relative error estimate of the point; default unknown, and then the point
        rule falls back to its fixed band (same below ``same_tol``, different above
        ``different_tol``): a point of unknown accuracy is never called different from an
        endpoint 1e-9 away (measured: PHCpack's dim-0 cascade points on the sphere of the SVW
        illustrative system are off by 2e-9 .. 5e-9)
    options : witness.Options

    Returns
    -------
    MembershipResult

    Raises
    ------
    ValueError
        Wrong shape or NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from witness import PolynomialSystem, monodromy, membership
    >>> F = PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"])     # twisted cubic
    >>> W = monodromy(F, 1, [1.0, 1.0, 1.0], seed=0).witness_set
    >>> membership([2.0, 4.0, 8.0], W, seed=1).verdict
    True
    >>> membership([2.0, 4.0, 9.0], W, seed=1).verdict                 # not a solution
    False
    """
    p = np.asarray(point, complex)
    if p.shape != (W.system.n_vars,) or not np.all(np.isfinite(p)):
        raise ValueError(f"point must be finite with shape ({W.system.n_vars},), got {p.shape}")
    acc = None if accuracy is None else [accuracy]
    return membership_many(p[None, :], W, seed=seed, accuracy=acc, options=options)[0]


def membership_many(points, W: WitnessSet, *, seed=None, accuracy=None,
                    options: Options | None = None) -> list[MembershipResult]:
    """Membership test of each row of ``points`` (q, n) against W, all q x degree paths (each
    point with its own random slice through it) tracked as one batch; accuracy: (q,) relative
    error estimates of the points or None (unknown: see ``membership``). Raises ValueError for
    a wrong shape or NaN."""
    opt = resolve(options)
    P = np.atleast_2d(np.asarray(points, complex))
    # a witness set on a deflated system (witness.deflation) answers for its projection to
    # the first info['project_to'] coordinates: points are judged on info['base_system']
    n = W.info.get("project_to") or W.system.n_vars
    base = W.info.get("base_system") or W.system
    if P.ndim != 2 or P.shape[1] != n or not np.all(np.isfinite(P)):
        raise ValueError(f"points must be finite with shape (q, {n}), got {P.shape}")
    res = base.residual(P) if len(P) else np.zeros(0)
    eq = distinct.error_estimates(np.full(len(P), np.nan) if accuracy is None else accuracy,
                                  len(P), opt.points)
    out: list[MembershipResult | None] = [None] * len(P)
    todo = []
    for i, r in enumerate(res):
        if r > opt.points.residual_reject:
            out[i] = _result(False, r, math.inf, 0, f"not a solution (backward error {r:.1e} "
                             f"> {opt.points.residual_reject:.0e})", opt)
        elif W.degree == 0:
            out[i] = _result(False, r, math.inf, 0, "empty witness set", opt)
        elif W.dim == 0:
            d = float(distinct.relative_distances(P[i:i + 1], W.points[:, :n]).min())
            C = distinct.compare_points(P[i:i + 1], eq[i:i + 1], W.points[:, :n], None,
                                        opt.points)
            out[i] = _verdict(float(r), d, C[0], 0, opt)
        else:
            todo.append(i)
    if todo:
        todo_a = np.array(todo)
        for i, m in zip(todo, _track(P[todo_a], res[todo_a], eq[todo_a], W, _rng(seed), opt)):
            out[i] = m
    return out


def _track(P, res, eq, W: WitnessSet, rng, opt: Options) -> list[MembershipResult]:
    q, deg, n = len(P), W.degree, P.shape[1]
    # the slice parallel to W's through each point: a translation (witness.monodromy says why);
    # W's A was drawn independently of the points, so it is a generic slice through each
    b = P @ W.slice_A[:, :n].T
    group = np.repeat(np.arange(q), deg)
    A1 = np.broadcast_to(W.slice_A, (q * deg,) + W.slice_A.shape)
    H = slice_move(W.square, W.slice_A, W.slice_b, A1, b[group], random_gamma(rng), q * deg)
    tr = track(H, np.tile(W.points, (q, 1)), opt, groups=group, endgame=True, rng=rng)
    finite = np.isin(tr.status, (PathStatus.REGULAR, PathStatus.SINGULAR)) & tr.on_original
    lost = ~finite & (tr.status != PathStatus.AT_INFINITY)
    out = []
    for i in range(q):
        g = np.flatnonzero((group == i) & finite)
        failed = int(((group == i) & lost).sum())
        if not len(g):
            out.append(_result(None if failed else False, float(res[i]), math.inf, failed,
                               "no endpoint" + (f" ({failed} failed paths)" if failed else ""),
                               opt))
            continue
        D = distinct.relative_distances(P[i:i + 1], tr.endpoints[g][:, :n])
        e_end = distinct.error_estimates(tr.accuracy[g], len(g), opt.points)
        C = distinct.compare(D, eq[i:i + 1], e_end, opt.points)[0]
        out.append(_verdict(float(res[i]), float(D.min()), C, failed, opt))
    return out


def _verdict(res: float, d: float, codes: np.ndarray, failed: int,
             opt: Options) -> MembershipResult:
    pts = opt.points
    if (codes == distinct.SAME).any():
        if res <= pts.residual_tol:
            return _result(True, res, d, failed, "an endpoint is the point", opt)
        return _result(None, res, d, failed, f"an endpoint is the point but its backward error "
                       f"{res:.1e} is between {pts.residual_tol:.0e} and "
                       f"{pts.residual_reject:.0e}", opt)
    if (codes == distinct.DIFFERENT).all() and failed == 0:
        return _result(False, res, d, failed, "no endpoint is the point", opt)
    return _result(None, res, d, failed, f"closest endpoint at relative distance {d:.1e}, not "
                   f"decided by the point rule; {failed} failed paths", opt)


def _result(verdict, res, d, failed, reason, opt: Options) -> MembershipResult:
    return MembershipResult(verdict, float(res), float(d), failed, reason, opt.points.same_tol)
