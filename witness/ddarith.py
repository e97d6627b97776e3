"""Vectorized double-double ("dd", ~32 significant digits) complex arithmetic in numpy.

A dd real is an unevaluated sum hi + lo of two float64 with |lo| <= ulp(hi) / 2 (Dekker 1971;
Hida, Li and Bailey, "Library for double-double and quad-double arithmetic", 2001). A dd complex
is a tuple (re_hi, re_lo, im_hi, im_lo) of float64 arrays of one shape. The error-free
transformations are ``two_sum`` (Knuth) and ``two_prod`` (Dekker's splitting; numpy has no fused
multiply-add), so every operation here has relative error about 2^-104 ~ 5e-32 (unit roundoff
of the format), barring overflow of the splitting for |x| > 1e300.

Used by ``PolynomialSystem.evaluate_precise``: near ill-conditioned roots of the deep fiber
systems the rounding error of a double (or even 80-bit extended) evaluation of the expanded
degree-12 polynomials exceeds the value itself (measured: error 7e-4 in double, 3.5e-7 in
extended, for |G| = 1.4e-7), so Newton's corrections cannot converge; in dd they can.
"""
from __future__ import annotations

import numpy as np

_SPLIT = 134217729.0            # 2^27 + 1 (Dekker's splitter for 53-bit doubles)

CDD = tuple  # (re_hi, re_lo, im_hi, im_lo)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + e = a + b exactly, s = fl(a + b)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fast_two_sum(a, b):
    """s + e = a + b exactly when |a| >= |b|."""
    s = a + b
    return s, b - (s - a)


def _split(a):
    t = _SPLIT * a
    hi = t - (t - a)
    return hi, a - hi


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p + e = a * b exactly, p = fl(a * b) (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def dd_add(ah, al, bh, bl):
    """(ah + al) + (bh + bl) in dd (the accurate 'IEEE' variant of Hida-Li-Bailey)."""
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    e = e + t
    s, e = _fast_two_sum(s, e)
    e = e + f
    return _fast_two_sum(s, e)


def dd_mul(ah, al, bh, bl):
    """(ah + al) * (bh + bl) in dd."""
    p, e = two_prod(ah, bh)
    e = e + (ah * bl + al * bh)
    return _fast_two_sum(p, e)


def cdd_from_complex(z: np.ndarray) -> CDD:
    z = np.asarray(z, complex)
    zero = np.zeros(z.shape)
    return (np.ascontiguousarray(z.real), zero, np.ascontiguousarray(z.imag), zero.copy())


def cdd_to_complex(z: CDD) -> np.ndarray:
    return (z[0] + z[1]) + 1j * (z[2] + z[3])


def cdd_mul(x: CDD, y: CDD) -> CDD:
    """Complex dd product (x_re y_re - x_im y_im, x_re y_im + x_im y_re)."""
    a = dd_mul(x[0], x[1], y[0], y[1])
    b = dd_mul(x[2], x[3], y[2], y[3])
    c = dd_mul(x[0], x[1], y[2], y[3])
    d = dd_mul(x[2], x[3], y[0], y[1])
    re = dd_add(a[0], a[1], -b[0], -b[1])
    im = dd_add(c[0], c[1], d[0], d[1])
    return re[0], re[1], im[0], im[1]


def cdd_add(x: CDD, y: CDD) -> CDD:
    re = dd_add(x[0], x[1], y[0], y[1])
    im = dd_add(x[2], x[3], y[2], y[3])
    return re[0], re[1], im[0], im[1]


def cdd_take(x: CDD, idx) -> CDD:
    return tuple(part[idx] for part in x)


def cdd_sum_rows(x: CDD) -> CDD:
    """Sum over axis 0 (pairwise, in dd): parts (L, ...) -> parts (...)."""
    parts = list(x)
    while parts[0].shape[0] > 1:
        L = parts[0].shape[0]
        half = L // 2
        a = tuple(p[:half] for p in parts)
        b = tuple(p[half:2 * half] for p in parts)
        s = cdd_add(a, b)
        if L % 2:
            s = tuple(np.concatenate([si, p[2 * half:]]) for si, p in zip(s, parts))
        parts = list(s)
    return tuple(p[0] for p in parts)
