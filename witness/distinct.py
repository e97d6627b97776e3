"""Are two computed points the same root, different roots, or undecided?

Distances are relative, d(x, y) = ||x - y|| / (1 + ||y||); every point carries an error
estimate e (relative, same scale): the size of the last Newton correction at it
(``TrackResult.accuracy``), at least ``accuracy_floor``. Rule (``PointOptions``), for
E = e_x + e_y:

* same       if d <= same_factor * E and d < same_tol;
* different  if d >= distinct_factor * E or d >= different_tol;
* undecided  otherwise (never guessed: the caller counts it).

Why: for Newton's method in its quadratic region the last correction bounds the distance to
the root up to a factor 2 (Kantorovich; Smale's alpha theory: an approximate zero x with
beta = ||J^{-1} F(x)|| has its root within 2 beta). Two points closer than 2 E (factor 50 of
margin in same_factor = 100) approximate the same root; two points farther apart than 4 E
(factor 2500 of margin in distinct_factor = 1e4) approximate different roots. A fixed band
(same < 1e-6, different > 1e-3) left genuine roots of a cluster undecided forever: on the
(2,1,2) deep fiber (seed 0) three witness points lie at relative distance 4.3e-5 of each other
(their Newton corrections are < 1e-11).

This is the engine's only same-point rule: monodromy, membership tests, collisions, the
endgame's loop closure and the grouping of isolated solutions all use it.
"""
from __future__ import annotations

import numpy as np

from .options import DEFAULT, PointOptions

SAME, DIFFERENT, UNDECIDED = 1, 0, -1
SAME_POINT_TOL = DEFAULT.points.same_tol             # aliases of the one definition (options)
DIFFERENT_POINT_TOL = DEFAULT.points.different_tol


def error_estimates(accuracy, count: int, options: PointOptions | None = None) -> np.ndarray:
    """Relative error estimates (count,): ``accuracy`` floored at ``accuracy_floor`` (None: the
    floor; NaN or inf: infinite, and the rule falls back to the fixed band: same only below
    same_tol, different only above different_tol)."""
    opts = options or DEFAULT.points
    if accuracy is None:
        return np.full(count, opts.accuracy_floor)
    e = np.asarray(accuracy, float).reshape(count)
    return np.where(np.isnan(e), np.inf, np.maximum(e, opts.accuracy_floor))


def relative_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """||a_i - b_j|| / (1 + ||b_j||) for rows of A (p, n) and B (q, n) -> (p, q)."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if not len(A) or not len(B):
        return np.zeros((len(A), len(B)))
    D = np.linalg.norm(A[:, None, :] - B[None, :, :], axis=2)
    return D / (1 + np.linalg.norm(B, axis=1))[None, :]


def compare(D: np.ndarray, ea: np.ndarray, eb: np.ndarray,
            options: PointOptions | None = None) -> np.ndarray:
    """Codes (p, q) int8: SAME, DIFFERENT or UNDECIDED for relative distances D (p, q) and
    error estimates ea (p,), eb (q,) (see the module docstring)."""
    opts = options or DEFAULT.points
    E = np.asarray(ea, float)[:, None] + np.asarray(eb, float)[None, :]
    with np.errstate(invalid="ignore"):
        same = (D <= opts.same_factor * E) & (D < opts.same_tol)
        diff = (D >= opts.distinct_factor * E) | (D >= opts.different_tol)
    out = np.full(D.shape, UNDECIDED, dtype=np.int8)
    out[diff] = DIFFERENT
    out[same] = SAME
    return out


def compare_points(A, ea, B, eb, options: PointOptions | None = None) -> np.ndarray:
    """``compare`` for points A (p, n), B (q, n) with error estimates (p,), (q,) (None: the
    floor)."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    return compare(relative_distances(A, B), error_estimates(ea, len(A), options),
                   error_estimates(eb, len(B), options), options)


def compare_pairs(A: np.ndarray, ea: np.ndarray, B: np.ndarray, eb: np.ndarray,
                  options: PointOptions | None = None):
    """Pairs (i, j) of rows of A (p, q) and B (r, q) that are not DIFFERENT by ``compare``
    (relative distance against the error estimates ea (p,), eb (r,)), with their codes and
    distances: (I, J, codes, D). Only pairs closer than ``different_tol`` can be other than
    DIFFERENT, so candidates come from a k-d tree (scipy) with that radius: memory O(p + r +
    pairs) instead of the (p, r, q) array of ``relative_distances`` (3.6 GB for 3000 endpoints
    of 24 unknowns). Rows with inf/NaN (endpoints of diverged paths) are DIFFERENT from
    everything."""
    from scipy.spatial import cKDTree
    opts = options or DEFAULT.points
    empty = (np.zeros(0, int), np.zeros(0, int), np.zeros(0, np.int8), np.zeros(0))
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    fa, fb = np.flatnonzero(np.isfinite(A).all(axis=1)), np.flatnonzero(np.isfinite(B).all(axis=1))
    if not len(fa) or not len(fb):
        return empty
    real = lambda X: np.hstack([X.real, X.imag])  # noqa: E731
    radius = opts.different_tol * (1 + float(np.linalg.norm(B[fb], axis=1).max()))
    near = cKDTree(real(B[fb])).query_ball_point(real(A[fa]), radius)
    I = fa[np.array([i for i, js in enumerate(near) for _ in js], int)]
    J = fb[np.array([j for js in near for j in js], int)]
    if not len(I):
        return empty
    D = np.linalg.norm(A[I] - B[J], axis=1) / (1 + np.linalg.norm(B[J], axis=1))
    ea, eb = np.asarray(ea, float), np.asarray(eb, float)
    codes = compare(D[:, None], ea[I] + eb[J], np.zeros(1), opts)[:, 0]
    keep = codes != DIFFERENT
    return I[keep], J[keep], codes[keep], D[keep]


def match_points(known: np.ndarray, known_err: np.ndarray, E: np.ndarray, err: np.ndarray,
                 options: PointOptions | None = None):
    """Index of the known point (rows of ``known`` (p, n), error estimates ``known_err``) each
    endpoint E (k, n) (error estimates ``err``) is: ``compare`` SAME (the nearest such), -2
    undecided against some known point or not finite, else new (index len(known) + j among the
    new points, deduplicated among themselves by the same rule, undecided among them: -2). Returns (idx
    (k,) int, new points (j, n), their error estimates (j,)). Monodromy's bookkeeping."""
    idx = np.full(len(E), -1)
    idx[~np.isfinite(E).all(axis=1)] = -2          # an endpoint with inf/NaN: undecided
    if len(known) and len(E):
        I, J, codes, D = compare_pairs(E, err, known, known_err, options)
        for r in np.unique(I):
            sel = I == r
            same = sel & (codes == SAME)
            idx[r] = J[same][np.argmin(D[same])] if same.any() else -2
    # endpoints not matched: deduplicated among themselves in order, each compared with the
    # earlier ones that became new points (SAME: that point's index; undecided: -2; else new)
    cand = np.flatnonzero(idx == -1)
    I, J, codes, D = compare_pairs(E[cand], err[cand], E[cand], err[cand], options)
    earlier = J < I
    I, J, codes, D = I[earlier], J[earlier], codes[earlier], D[earlier]
    new: list[int] = []
    position = {}                          # candidate -> its position among the new points
    for a in range(len(cand)):
        sel = np.flatnonzero(I == a)
        hits = [k for k in sel if int(J[k]) in position]
        same = [k for k in hits if codes[k] == SAME]
        if same:
            idx[cand[a]] = len(known) + position[int(J[min(same, key=lambda k: D[k])])]
        elif hits:
            idx[cand[a]] = -2
        else:
            position[a] = len(new)
            idx[cand[a]] = len(known) + len(new)
            new.append(int(cand[a]))
    return idx, E[new].reshape(-1, E.shape[1]), err[new]
