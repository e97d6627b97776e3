"""Are two computed points the same root, different roots, or undecided?

Distances are relative, d(x, y) = ||x - y|| / (1 + ||y||); every point carries an error
estimate e (relative, same scale): the size of the last Newton correction at it (``TrackResult.
accuracy``), at least ``ACCURACY_FLOOR``. Rule, for E = e_x + e_y:

* same       if d <= SAME_FACTOR * E and d < SAME_POINT_TOL;
* different  if d >= DISTINCT_FACTOR * E or d >= DIFFERENT_POINT_TOL;
* undecided  otherwise (never guessed: the caller counts it).

Why: for Newton's method in its quadratic region the last correction bounds the distance to
the root up to a factor 2 (Kantorovich; Smale's alpha theory: an approximate zero x with
beta = ||J^{-1} F(x)|| has its root within 2 beta). Two points closer than 2 E (factor 100 of
margin above) approximate the same root; two points farther apart than 4 E (factor 2500 of
margin above) approximate different roots. The old fixed band (same < 1e-6, different > 1e-3)
left genuine roots of a cluster undecided forever: on the (2,1,2) deep fiber (seed 0) three
witness points lie at relative distance 4.3e-5 of each other (their Newton corrections are
< 1e-11), so monodromy found 10 of the 12 points and counted 30 endpoints as ambiguous.

ACCURACY_FLOOR = 1e-13: measured, two arrivals at the same root by different paths agree to
2e-16 .. 6e-15 on the fiber systems (well-conditioned points), so 1e-13 keeps a factor >= 16
above that before the factor SAME_FACTOR.
"""
from __future__ import annotations

import numpy as np

SAME_POINT_TOL = 1e-6
DIFFERENT_POINT_TOL = 1e-3
ACCURACY_FLOOR = 1e-13
SAME_FACTOR = 100.0
DISTINCT_FACTOR = 1e4

SAME, DIFFERENT, UNDECIDED = 1, 0, -1


def error_estimates(accuracy, count: int) -> np.ndarray:
    """Relative error estimates (count,): ``accuracy`` floored at ACCURACY_FLOOR (None: the
    floor; NaN or inf: infinite, and the rule falls back to the fixed band: same only below
    SAME_POINT_TOL, different only above DIFFERENT_POINT_TOL)."""
    if accuracy is None:
        return np.full(count, ACCURACY_FLOOR)
    e = np.asarray(accuracy, float).reshape(count)
    return np.where(np.isnan(e), np.inf, np.maximum(e, ACCURACY_FLOOR))


def relative_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """||a_i - b_j|| / (1 + ||b_j||) for rows of A (p, n) and B (q, n) -> (p, q)."""
    A, B = np.atleast_2d(A), np.atleast_2d(B)
    if not len(A) or not len(B):
        return np.zeros((len(A), len(B)))
    D = np.linalg.norm(A[:, None, :] - B[None, :, :], axis=2)
    return D / (1 + np.linalg.norm(B, axis=1))[None, :]


def compare(D: np.ndarray, ea: np.ndarray, eb: np.ndarray) -> np.ndarray:
    """Codes (p, q) int8: SAME, DIFFERENT or UNDECIDED for relative distances D (p, q) and
    error estimates ea (p,), eb (q,) (see the module docstring)."""
    E = np.asarray(ea, float)[:, None] + np.asarray(eb, float)[None, :]
    with np.errstate(invalid="ignore"):
        same = (D <= SAME_FACTOR * E) & (D < SAME_POINT_TOL)
        diff = (D >= DISTINCT_FACTOR * E) | (D >= DIFFERENT_POINT_TOL)
    out = np.full(D.shape, UNDECIDED, dtype=np.int8)
    out[diff] = DIFFERENT
    out[same] = SAME
    return out
