"""Compiled hot loops (numba): program evaluation in forward mode, Newton, and path tracking,
batched over paths (one compiled call tracks all paths; paths run in parallel threads).

Programs (``witness.program.Program.arrays()``) are interpreted instruction by instruction;
each slot carries its value and its tangent entries (derivatives with respect to the variables
and the path parameter s) within its static range [lo, hi) (entries outside stay zero).

Tracking (``track_batch``) is on a patch of projective space when the program has one output
fewer than variables (the homogenized homotopies of ``witness.tracking``): the patch is the
orthogonal patch of HomotopyContinuation.jl (Timme 2020, "Mixed precision path tracking for
polynomial homotopy continuation", §3): before each step v = conj(x) / |x|², the equation
v·x = 1 completes the system, and accepted points are rescaled to |x| = 1. With as many
outputs as variables it is ordinary affine tracking. Path parameter: s(τ) = s0 + τ (s1 − s0),
τ from 0 to 1, s0 and s1 complex per path (straight segments; circles for the Cauchy endgame
are polygons of such segments).

Step: fourth-order Runge–Kutta predictor on dx/dτ = −[H_x; v]⁻¹ [H_s (s1 − s0); 0], Newton
corrector (at most 3 iterations; accepted when the first correction, the predictor's error, is
at most ``max_predictor_error`` and a later one below ``corrector_tol`` while contracting by
4x, all relative to |x|), step halved on rejection, doubled after 3 accepted steps. At τ = 1,
``endpoint_iterations`` Newton iterations, then (unless the correction is already below
endpoint_tol / 1000) two more with double-double residuals; the last relative correction is
the endpoint's accuracy estimate.

Linear systems are solved by LU with partial pivoting written here: the matrices are tiny
(n ≤ ~40), solved millions of times, and a singular pivot must be a status, not an exception.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

# numba's own workqueue threading layer first (we launch parallel kernels from one thread of a
# process only, which is all it supports). Measured: TBB (numba's first choice when libtbb is
# installed, as it is next to Macaulay2) spun 15-80 s in its finalization at interpreter exit
# after `numag fiber --timeout` returned (gdb: tbb::finalize from numba's unload_tbb); OpenMP
# spin-waits between the many small kernel launches of the endgame: the 11-component
# decomposition took 10.1 s of CPU with OpenMP, 4.7 s with workqueue or TBB (seed 1, load 7.6).
numba.config.THREADING_LAYER_PRIORITY = ["workqueue", "tbb", "omp"]

CONST, ADD, SUB, MUL, SCALE = 0, 1, 2, 3, 4

# path codes returned by track_batch
RUNNING, DONE, MIN_STEP, MAX_STEPS, ENDPOINT, SINGULAR_STEP = 0, 1, 2, 3, 4, 5
CODE_NAMES = ("running", "done", "min_step", "max_steps", "endpoint_tol", "singular_jacobian")

# option vector layout (float64): see tracking.TrackerOptions.vector()
O_H0, O_HMAX, O_HMIN, O_MAXSTEPS, O_CTOL, O_PRED, O_ETOL, O_EG, O_EITER, O_PREC = range(10)


@njit(cache=True)
def _init_scratch(n_slots, nv, tan_rows=-1):
    """Value slots and tangent rows (tan_rows < 0: one per slot; _run touches tangents only
    with jac)."""
    val = np.zeros(n_slots, np.complex128)
    tan = np.zeros((n_slots if tan_rows < 0 else tan_rows, nv + 1), np.complex128)
    for j in range(nv + 1):
        tan[j, j] = 1.0
    return val, tan


@njit(cache=True)
def _run(code, consts, lo, hi, nv, nc, x, s, c, val, tan, jac):
    """Evaluate all slots at (x, s, c); tangents too if jac."""
    for j in range(nv):
        val[j] = x[j]
    val[nv] = s
    for j in range(nc):
        val[nv + 1 + j] = c[j]
    base = nv + 1 + nc
    for k in range(code.shape[0]):
        o = base + k
        op = code[k, 0]
        a = code[k, 1]
        b = code[k, 2]
        if op == CONST:
            val[o] = consts[a]
        elif op == ADD:
            val[o] = val[a] + val[b]
            if jac:
                for t in range(lo[o], hi[o]):
                    tan[o, t] = tan[a, t] + tan[b, t]
        elif op == SUB:
            val[o] = val[a] - val[b]
            if jac:
                for t in range(lo[o], hi[o]):
                    tan[o, t] = tan[a, t] - tan[b, t]
        elif op == MUL:
            va = val[a]
            vb = val[b]
            val[o] = va * vb
            if jac:
                for t in range(lo[o], hi[o]):
                    tan[o, t] = va * tan[b, t] + vb * tan[a, t]
        else:
            cb = consts[b]
            val[o] = cb * val[a]
            if jac:
                for t in range(lo[o], hi[o]):
                    tan[o, t] = cb * tan[a, t]


@njit(cache=True)
def _outputs(outputs, val, tan, f, J, jac):
    for i in range(outputs.shape[0]):
        f[i] = val[outputs[i]]
        if jac:
            for t in range(J.shape[1]):
                J[i, t] = tan[outputs[i], t]


@njit(parallel=True, cache=True)
def _eval_batch(code, consts, outputs, lo, hi, nv, nc, X, S, C, jac):
    p = X.shape[0]
    m = outputs.shape[0]
    F = np.zeros((p, m), np.complex128)
    # values only: no tangent table (zeroing slots x (n + 1) complex per point cost more than
    # the evaluation itself on large check programs: 216k slots x 23, 80 MB per point)
    J = np.zeros((p, m if jac else 1, nv + 1), np.complex128)
    n_slots = nv + 1 + nc + code.shape[0]
    for i in prange(p):
        val, tan = _init_scratch(n_slots, nv, n_slots if jac else nv + 1)
        _run(code, consts, lo, hi, nv, nc, X[i], S[i], C[i], val, tan, jac)
        _outputs(outputs, val, tan, F[i], J[i], jac)
    return F, J


def evaluate_batch(arrays: tuple, X, S, C, jacobian: bool):
    """Values (p, m) and derivatives (p, m, n + 1) (x, then s) of a program at points X (p, n),
    path parameters S (p,), constants C (p, q); all complex128."""
    code, consts, outputs, lo, hi, nv, nc = arrays
    return _eval_batch(code, consts, outputs, lo, hi, nv, nc, np.ascontiguousarray(X),
                       np.ascontiguousarray(S), np.ascontiguousarray(C), jacobian)


# ----------------------------------------------------------------------------- double-double
# A dd real is hi + lo with |lo| <= ulp(hi)/2 (Dekker 1971; Hida–Li–Bailey 2001); error-free
# transformations two_sum (Knuth) and two_prod (Dekker's splitting). Used for the VALUES of a
# program in Newton's corrections where double precision stalls (mixed precision, as in
# Bertini's adaptive precision and Timme 2020): near ill-conditioned points the rounding error
# of a double evaluation exceeds the value itself.
@njit(cache=True, inline="always")
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True, inline="always")
def _split(a):
    t = 134217729.0 * a
    hi = t - (t - a)
    return hi, a - hi


@njit(cache=True, inline="always")
def _two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@njit(cache=True, inline="always")
def _dd_add(ah, al, bh, bl):
    s, e = _two_sum(ah, bh)
    t, f = _two_sum(al, bl)
    e += t
    s2 = s + e
    e = e - (s2 - s)
    e += f
    s3 = s2 + e
    return s3, e - (s3 - s2)


@njit(cache=True, inline="always")
def _dd_mul(ah, al, bh, bl):
    p, e = _two_prod(ah, bh)
    e += ah * bl + al * bh
    s = p + e
    return s, e - (s - p)


@njit(cache=True)
def _run_dd(code, consts, nv, nc, x, s, c, V):
    """Values of all slots in complex double-double: V (4, S) rows re_hi, re_lo, im_hi, im_lo
    (inputs and constants are taken exactly as doubles)."""
    for j in range(nv):
        V[0, j], V[1, j], V[2, j], V[3, j] = x[j].real, 0.0, x[j].imag, 0.0
    V[0, nv], V[1, nv], V[2, nv], V[3, nv] = s.real, 0.0, s.imag, 0.0
    for j in range(nc):
        V[0, nv + 1 + j], V[1, nv + 1 + j] = c[j].real, 0.0
        V[2, nv + 1 + j], V[3, nv + 1 + j] = c[j].imag, 0.0
    base = nv + 1 + nc
    for k in range(code.shape[0]):
        o = base + k
        op = code[k, 0]
        a = code[k, 1]
        b = code[k, 2]
        if op == CONST:
            V[0, o], V[1, o], V[2, o], V[3, o] = consts[a].real, 0.0, consts[a].imag, 0.0
        elif op == ADD or op == SUB:
            sg = 1.0 if op == ADD else -1.0
            V[0, o], V[1, o] = _dd_add(V[0, a], V[1, a], sg * V[0, b], sg * V[1, b])
            V[2, o], V[3, o] = _dd_add(V[2, a], V[3, a], sg * V[2, b], sg * V[3, b])
        else:
            if op == MUL:
                br, brl, bi, bil = V[0, b], V[1, b], V[2, b], V[3, b]
            else:
                br, brl, bi, bil = consts[b].real, 0.0, consts[b].imag, 0.0
            p1, p1l = _dd_mul(V[0, a], V[1, a], br, brl)
            p2, p2l = _dd_mul(V[2, a], V[3, a], bi, bil)
            p3, p3l = _dd_mul(V[0, a], V[1, a], bi, bil)
            p4, p4l = _dd_mul(V[2, a], V[3, a], br, brl)
            V[0, o], V[1, o] = _dd_add(p1, p1l, -p2, -p2l)
            V[2, o], V[3, o] = _dd_add(p3, p3l, p4, p4l)


# ----------------------------------------------------------------------------- linear algebra
@njit(cache=True)
def _lu_solve(M, r, out):
    """Solve M out = r by Gaussian elimination with partial pivoting (M, r overwritten).
    Returns False if a pivot is zero or not finite."""
    n = M.shape[0]
    for k in range(n):
        piv = k
        best = abs(M[k, k])
        for i in range(k + 1, n):
            v = abs(M[i, k])
            if v > best:
                best = v
                piv = i
        if not (best > 0.0) or not np.isfinite(best):
            return False
        if piv != k:
            for j in range(k, n):
                tmp = M[k, j]
                M[k, j] = M[piv, j]
                M[piv, j] = tmp
            tmp = r[k]
            r[k] = r[piv]
            r[piv] = tmp
        inv = 1.0 / M[k, k]
        for i in range(k + 1, n):
            f = M[i, k] * inv
            if f != 0:
                for j in range(k + 1, n):
                    M[i, j] -= f * M[k, j]
                r[i] -= f * r[k]
    for k in range(n - 1, -1, -1):
        acc = r[k]
        for j in range(k + 1, n):
            acc -= M[k, j] * out[j]
        out[k] = acc / M[k, k]
    for k in range(n):
        if not np.isfinite(out[k].real) or not np.isfinite(out[k].imag):
            return False
    return True


@njit(cache=True)
def _norm(x):
    acc = 0.0
    for k in range(x.shape[0]):
        acc += x[k].real * x[k].real + x[k].imag * x[k].imag
    return np.sqrt(acc)


@njit(cache=True)
def _system(P, scratch, x, s, c, v, ds, newton, precise):
    """Fill M (n x n) and r (n,) for a Newton step (newton=True: r = [H; v.x - 1]) or a
    tangent (r = -[H_s ds; 0]) at (x, s); projective when there is one output fewer than
    variables (v = patch row). precise: the values H in double-double (Jacobian in double)."""
    code, consts, outputs, lo, hi, nv, nc = P
    val, tan, f, J, M, r, V = scratch
    _run(code, consts, lo, hi, nv, nc, x, s, c, val, tan, True)
    _outputs(outputs, val, tan, f, J, True)
    if precise and newton:
        _run_dd(code, consts, nv, nc, x, s, c, V)
        for i in range(outputs.shape[0]):
            o = outputs[i]
            f[i] = complex(V[0, o] + V[1, o], V[2, o] + V[3, o])
    m = outputs.shape[0]
    for i in range(m):
        for j in range(nv):
            M[i, j] = J[i, j]
        r[i] = f[i] if newton else -J[i, nv] * ds
    if m < nv:
        acc = 0.0 + 0.0j
        for j in range(nv):
            M[m, j] = v[j]
            acc += v[j] * x[j]
        r[m] = (acc - 1.0) if newton else 0.0
    _equilibrate_rows(M, r)


# rows scaled only below this fraction of the largest row (see _equilibrate_rows); inf: all
EQUILIBRATE_BELOW = np.inf


@njit(cache=True)
def _equilibrate_rows(M, r):
    """Scale each row of [M | r] by 1 / max_j |M_ij| (same solution). Why: elimination's
    backward error is normwise, so a row far smaller than the others is lost to rounding;
    homogenized equations of high degree have such rows (the degree-60 rational normal curve on
    the projective patch: graph rows ~1e-36 against slice rows ~1, paths failed with min_step
    at s ~ 0.01).
    Every row is scaled (EQUILIBRATE_BELOW = inf). A trade-off, measured 2026-12-01: scaling
    a row whose entries are small because its x-derivatives cancel (near cyclic-7's solutions
    at infinity) turns it into noise: cyclic-7 `solve` seed 0 fails 47 of 5040 paths (16 on
    seed 1) against 1 without scaling (complete false either way). Scaling only rows below
    1e-8 of the largest: cyclic-7 2 failed, but the deep fiber 2,1,1/1,1 lost its completeness
    (8 endgame failures); below 1e-3: cyclic-7 1 failed, 2,1,1 complete, rnc60 certified, but
    the triple parabola (x - y^2)^3 of benchmarks/multiplicity.py was no longer certified
    (seed 1). Scaling every row keeps all of those but cyclic-7's count; a row scale from the
    size of the equation's terms (not its derivatives) is the likely cure, not done."""
    n = M.shape[0]
    rows = np.zeros(n)
    for i in range(n):
        for j in range(M.shape[1]):
            a = abs(M[i, j])
            if a > rows[i]:
                rows[i] = a
    top = rows.max()
    for i in range(n):
        big = rows[i]
        if big > 0.0 and np.isfinite(big) and big < EQUILIBRATE_BELOW * top:
            inv = 1.0 / big
            for j in range(M.shape[1]):
                M[i, j] *= inv
            r[i] *= inv


@njit(cache=True)
def _tangent(P, scratch, x, s, c, v, ds, out):
    _system(P, scratch, x, s, c, v, ds, False, False)
    return _lu_solve(scratch[4], scratch[5], out)


@njit(cache=True)
def _newton_step(P, scratch, x, s, c, v, dx, precise):
    _system(P, scratch, x, s, c, v, 0.0j, True, precise)
    return _lu_solve(scratch[4], scratch[5], dx)


@njit(cache=True)
def _scratch(P):
    code, consts, outputs, lo, hi, nv, nc = P
    n_slots = nv + 1 + nc + code.shape[0]
    m = outputs.shape[0]
    val, tan = _init_scratch(n_slots, nv)
    return (val, tan, np.zeros(m, np.complex128), np.zeros((m, nv + 1), np.complex128),
            np.zeros((nv, nv), np.complex128), np.zeros(nv, np.complex128),
            np.zeros((4, n_slots)))


@njit(cache=True)
def _patch(x, v, projective):
    if projective:
        nrm2 = 0.0
        for j in range(x.shape[0]):
            nrm2 += x[j].real * x[j].real + x[j].imag * x[j].imag
        for j in range(x.shape[0]):
            v[j] = np.conj(x[j]) / nrm2
    else:
        v[:] = 0.0


@njit(cache=True)
def _rescale(x, projective):
    if projective:
        nrm = _norm(x)
        if nrm > 0:
            for j in range(x.shape[0]):
                x[j] /= nrm


@njit(cache=True)
def _rel_affine(dx, x, projective):
    """Relative size of a correction: |dx| / |x| on the projective patch (|x| ~ 1), |dx| /
    (1 + |x|) in affine coordinates."""
    if projective:
        return _norm(dx) / max(_norm(x), 1e-300)
    return _norm(dx) / (1.0 + _norm(x))


@njit(cache=True)
def _correct(P, scratch, xp, s, c, v, opts, dx, projective, precise):
    """Newton at fixed s from xp (in place); returns True when accepted (module docstring)."""
    prev = np.inf
    for it in range(3):
        if not _newton_step(P, scratch, xp, s, c, v, dx, precise):
            return False
        for j in range(xp.shape[0]):
            xp[j] -= dx[j]
        rel = _rel_affine(dx, xp, projective)
        if not np.isfinite(rel):
            return False
        if it == 0 and rel > opts[O_PRED]:
            return False
        if rel < opts[O_CTOL] and (it == 0 or rel <= 0.25 * prev):
            return True
        prev = rel
    return False


@njit(cache=True)
def _endpoint(P, scratch, x, s, c, v, dx, iterations, projective, precise):
    """Newton at s (x in place, rescaled): the last relative correction (inf if singular)."""
    acc = np.inf
    _patch(x, v, projective)
    for it in range(iterations):
        if not _newton_step(P, scratch, x, s, c, v, dx, precise):
            acc = np.inf
            break
        for j in range(x.shape[0]):
            x[j] -= dx[j]
        acc = _rel_affine(dx, x, projective)
        if acc < 1e-15:
            break
    _rescale(x, projective)
    return acc


@njit(cache=True)
def _track_one(P, x, s0, s1, c, opts, x_eg, res):
    """Track one path from s0 to s1 (x in place). res (6,) float: code, tau, steps, h,
    accuracy, tau at the endgame point (x_eg is filled when 1 - tau first drops to
    opts[O_EG], else stays NaN)."""
    code, consts, outputs, lo, hi, nv, nc = P
    n = nv
    m = outputs.shape[0]
    projective = m < nv
    scratch = _scratch(P)
    v = np.zeros(n, np.complex128)
    k1 = np.zeros(n, np.complex128)
    k2 = np.zeros(n, np.complex128)
    k3 = np.zeros(n, np.complex128)
    k4 = np.zeros(n, np.complex128)
    xt = np.zeros(n, np.complex128)
    xp = np.zeros(n, np.complex128)
    dx = np.zeros(n, np.complex128)
    _rescale(x, projective)
    ds = s1 - s0
    tau = 0.0
    h = opts[O_H0]
    wins = 0
    steps = 0
    eg_set = False
    status = RUNNING
    while tau < 1.0:
        if steps >= opts[O_MAXSTEPS]:
            status = MAX_STEPS
            break
        hh = min(h, 1.0 - tau)
        if not eg_set and tau < 1.0 - opts[O_EG]:       # stop exactly at the endgame zone
            hh = min(hh, 1.0 - opts[O_EG] - tau)
        _patch(x, v, projective)
        s = s0 + tau * ds
        ok = _tangent(P, scratch, x, s, c, v, ds, k1)
        if ok:
            for j in range(n):
                xt[j] = x[j] + 0.5 * hh * k1[j]
            ok = _tangent(P, scratch, xt, s + 0.5 * hh * ds, c, v, ds, k2)
        if ok:
            for j in range(n):
                xt[j] = x[j] + 0.5 * hh * k2[j]
            ok = _tangent(P, scratch, xt, s + 0.5 * hh * ds, c, v, ds, k3)
        if ok:
            for j in range(n):
                xt[j] = x[j] + hh * k3[j]
            ok = _tangent(P, scratch, xt, s + hh * ds, c, v, ds, k4)
        if ok:
            for j in range(n):
                xp[j] = x[j] + hh / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j])
            ok = _correct(P, scratch, xp, s + hh * ds, c, v, opts, dx, projective,
                          hh < opts[O_PREC])
        steps += 1
        if ok:
            for j in range(n):
                x[j] = xp[j]
            _rescale(x, projective)
            tau = 1.0 if 1.0 - (tau + hh) < 1e-14 else tau + hh
            wins += 1
            if wins >= 3:
                h = min(2.0 * h, opts[O_HMAX])
                wins = 0
            if not eg_set and 1.0 - tau <= opts[O_EG] * (1 + 1e-12) and tau < 1.0:
                for j in range(n):
                    x_eg[j] = x[j]
                res[5] = tau
                eg_set = True
        else:
            h *= 0.5
            wins = 0
            if h < opts[O_HMIN]:
                status = MIN_STEP
                break
    acc = np.inf
    if status == RUNNING:
        status = ENDPOINT
        acc = _endpoint(P, scratch, x, s1, c, v, dx, int(opts[O_EITER]), projective, False)
        # not yet near the rounding level: continue with double-double residuals (an endpoint
        # with |x| ~ 100 and a projective correction of 1e-12 is only ~1e-10 accurate in affine
        # terms; measured: trace residuals of complete (2,2,2) fiber sets up to 5.5e-12 without)
        if not acc < opts[O_ETOL] * 1e-3:
            acc = _endpoint(P, scratch, x, s1, c, v, dx, int(opts[O_EITER]) + 2, projective,
                            True)
        if acc < opts[O_ETOL]:
            status = DONE
    res[0] = status
    res[1] = tau
    res[2] = steps
    res[3] = h
    res[4] = acc


@njit(parallel=True, cache=True)
def _track_batch(code, consts, outputs, lo, hi, nv, nc, X, S0, S1, C, opts):
    p = X.shape[0]
    out = X.copy()
    X_eg = np.full(X.shape, np.nan + 0j)
    res = np.zeros((p, 6))
    res[:, 5] = np.nan
    P = (code, consts, outputs, lo, hi, nv, nc)
    for i in prange(p):
        _track_one(P, out[i], S0[i], S1[i], C[i], opts, X_eg[i], res[i])
    return out, X_eg, res


def track_batch(arrays: tuple, X, S0, S1, C, opts: np.ndarray):
    """Track every row of X (p, n) from s = S0[i] to S1[i] (complex) with constants C (p, q).

    Returns (endpoints (p, n), endgame-zone points (p, n) (NaN where not reached), info (p, 6):
    code (``CODE_NAMES``), tau reached, steps, last step size, endpoint accuracy, tau at the
    endgame point)."""
    code, consts, outputs, lo, hi, nv, nc = arrays
    return _track_batch(code, consts, outputs, lo, hi, nv, nc,
                        np.ascontiguousarray(X, np.complex128),
                        np.ascontiguousarray(S0, np.complex128),
                        np.ascontiguousarray(S1, np.complex128),
                        np.ascontiguousarray(C, np.complex128), np.asarray(opts, np.float64))


@njit(parallel=True, cache=True)
def _newton_batch(code, consts, outputs, lo, hi, nv, nc, X, S, C, iterations, precise):
    p, n = X.shape
    projective = outputs.shape[0] < nv
    out = X.copy()
    acc = np.full(p, np.inf)
    P = (code, consts, outputs, lo, hi, nv, nc)
    for i in prange(p):
        scratch = _scratch(P)
        v = np.zeros(n, np.complex128)
        dx = np.zeros(n, np.complex128)
        acc[i] = _endpoint(P, scratch, out[i], S[i], C[i], v, dx, iterations, projective,
                           precise)
    return out, acc


def newton_batch(arrays: tuple, X, S, C, iterations: int, precise: bool = False):
    """Newton at fixed s for every row of X (p, n): (points, last relative correction (p,),
    inf where the Jacobian is singular); precise: values in double-double."""
    code, consts, outputs, lo, hi, nv, nc = arrays
    return _newton_batch(code, consts, outputs, lo, hi, nv, nc,
                         np.ascontiguousarray(X, np.complex128),
                         np.ascontiguousarray(S, np.complex128),
                         np.ascontiguousarray(C, np.complex128), int(iterations), precise)


@njit(parallel=True, cache=True)
def _eval_dd_batch(code, consts, outputs, nv, nc, X, S, C):
    p = X.shape[0]
    m = outputs.shape[0]
    F = np.zeros((p, m), np.complex128)
    n_slots = nv + 1 + nc + code.shape[0]
    for i in prange(p):
        V = np.zeros((4, n_slots))
        _run_dd(code, consts, nv, nc, X[i], S[i], C[i], V)
        for j in range(m):
            o = outputs[j]
            F[i, j] = complex(V[0, o] + V[1, o], V[2, o] + V[3, o])
    return F


def evaluate_dd(arrays: tuple, X, S, C):
    """Values (p, m) of a program evaluated in double-double and rounded to complex128 (inputs
    and constants taken exactly as doubles)."""
    code, consts, outputs, lo, hi, nv, nc = arrays
    return _eval_dd_batch(code, consts, outputs, nv, nc, np.ascontiguousarray(X, np.complex128),
                          np.ascontiguousarray(S, np.complex128),
                          np.ascontiguousarray(C, np.complex128))


def warm_up() -> None:
    """Compile every kernel once (numba caches the machine code on disk next to this file, so
    later processes start at once); called by scripts/setup-env.sh."""
    from .homotopy import Homotopy, straight_line_homotopy, total_degree_start
    from .system import PolynomialSystem
    from .tracking import track
    F = PolynomialSystem.from_strings(["x^2 - 1", "x*y - 2"])
    S, X0 = total_degree_start(F)
    H = Homotopy(straight_line_homotopy(F, S), np.array([[np.exp(0.5j)]]), 2, F)
    track(H, X0, endgame=True)
    P = H.program
    X = np.ones((1, 3), complex)
    evaluate_batch(P.arrays(), X, np.zeros(1, complex), H.rows([0]), True)
    evaluate_dd(P.arrays(), X, np.zeros(1, complex), H.rows([0]))
    newton_batch(P.arrays(), X, np.ones(1, complex), H.rows([0]), 2, True)
