"""Multiple root or cluster of close simple roots: the decision in high precision.

A singular endpoint reached by m paths is either one root of multiplicity m or a cluster of
roots (m simple ones, or fewer of lower multiplicity) so close that the Cauchy endgame's loops
encircle all their branch points and converge to the cluster's centre (measured: x^2 - 1e-20,
roots +-1e-10, seeds 1-3: the loops at |1 - s| ~ separation^2 close at the centre 0, which
passes the double-precision backward-error check and the double-precision deflation).

The decision (``check_deflation``): LVZ deflation (``witness.deflation``) turns a true multiple
root into a REGULAR solution of the deflated system D = [F; J_F B lambda; h lambda - 1] (and
its later steps). D is rebuilt here in mpmath at ``DPS`` digits from F's coefficients as
written (Fractions are exact; a complex coefficient is its double value, B, h and the slice
are the doubles drawn, so D's coefficients are exact up to 10^-DPS), and Gauss-Newton runs on
[D; slice] from the deflated point:

* a true multiple root: D has an exact regular solution, Gauss-Newton converges quadratically,
  the backward error of D falls to the working precision's level: <= ``MULTIPLE_BELOW``;
* a cluster: D has no solution near the point (F = 0 and J_F B lambda = 0 are inconsistent
  there); Gauss-Newton stalls (a step reduces the backward error by less than
  ``STALL_RATIO``) at the least-squares point with backward error ~ the size of the
  perturbation that would merge the roots (x^2 - eps: ~ |eps|): >= ``CLUSTER_ABOVE``;
* otherwise undecided: stalled in between (a cluster of separation below ~1e-15 relative, or
  an ill-conditioned deflation), or still converging linearly (D's solution is singular:
  the double-precision rank decisions stopped the deflation a step early; measured on a
  PHCpack point at distance 3e-5 from the triple root of (x - 1)^3: one step, backward error
  falling by 1/4 per Gauss-Newton step, never stalling).

Why D is rebuilt rather than evaluated from ``Deflation.system``: that system's coefficients
c e_j B_jl are rounded to double, so D's equations no longer meet at the multiple root; the
previous attempt (Gauss-Newton at 30 digits on the double-coefficient D) stalled at ~5e-17 on
the true double roots of (x - 1)^2 and x^2, y^2 (measured, stop 20). Also, mpmath's
``qr_solve`` raised ZeroDivisionError on the full-rank complex 3 x 2 matrix
[[1+2i, 0], [0, i], [1, 1]] (measured; in its Householder step), so the least-squares step
here uses the normal equations (at DPS digits, squaring a condition
number of up to 1e10 still leaves 40 digits).

A cluster is resolved by ``resolve_cluster``: Newton at DPS digits on the system as written
(F, with its slice), from points around the centre at the radius the stalled backward error
implies; the cluster is resolved when m distinct roots are found, each simple (quadratic
convergence to backward error <= ``MULTIPLE_BELOW``, separated from the others by more than
``SEPARATION_FACTOR`` x their corrections); otherwise it stays undecided.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np

from .system import PolynomialSystem

DPS = 60                   # working precision (decimal digits) of the decision
MULTIPLE_BELOW = 1e-45     # backward error of D at most this: D has a regular solution
CLUSTER_ABOVE = 1e-30      # backward error of D stalled at least this: no solution, a cluster
ITERATIONS = 12            # Gauss-Newton steps at most (quadratic: 3-4 from a double point)
STALL_RATIO = 0.5          # a step reducing the backward error by less than this: stalled
PRECISION_STALL = 0.1      # a backward error that twice the digits reduce by less: stalled
STARTS_PER_ROOT = 4        # Newton starts per expected root when resolving a cluster
SEPARATION_FACTOR = 1e6    # two roots are distinct when |x - y| > this x their corrections
FALLBACK_RADII = (1e-10, 1e-8, 1e-6)   # further start radii (relative) when those fail

MPPoly = dict  # {exponent tuple: mpc}


@dataclass(frozen=True)
class ClusterCheck:
    """``check_deflation`` at one point: verdict 'multiple' / 'cluster' / 'undecided', the least
    relative backward error of [D; slice] reached (``residual``), the last relative Gauss-Newton
    correction, iterations, ``dps``, thresholds, reason in words."""
    verdict: str
    residual: float
    correction: float
    iterations: int
    reason: str
    dps: int = DPS
    x: np.ndarray | None = field(default=None, repr=False, compare=False)  # best point, x part

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "residual": self.residual,
                "correction": self.correction, "iterations": self.iterations, "dps": self.dps,
                "multiple_below": MULTIPLE_BELOW, "cluster_above": CLUSTER_ABOVE,
                "reason": self.reason}


# ----------------------------------------------------------------------------- mp polynomials
def _coeff(c) -> mpmath.mpc:
    if isinstance(c, Fraction):
        return mpmath.mpc(mpmath.mpf(c.numerator) / c.denominator)
    return mpmath.mpc(complex(c).real, complex(c).imag)


def mp_system(F: PolynomialSystem) -> list[MPPoly]:
    """F's polynomials with mpmath coefficients (call inside ``mpmath.workdps``)."""
    return [{e: _coeff(c) for e, c in p.items()} for p in F.polynomials]


def mp_step(P: list[MPPoly], N: int, B: np.ndarray, h: np.ndarray) -> list[MPPoly]:
    """One LVZ step in mpmath: [P; J_P B lambda; h lambda - 1] in N + k variables (as
    ``witness.deflation._step_system``, with products formed at the working precision)."""
    from .deflation import lvz_step_polynomials
    return lvz_step_polynomials(P, N, B, h, lambda c: c,
                                lambda z: mpmath.mpc(complex(z).real, complex(z).imag))


def _eval(P: list[MPPoly], y: list, A, b):
    """Values (list), Jacobian (mpmath.matrix) and term sizes (list: sum |c| prod max(1,|y|)^e,
    the scale of the backward error) of [P; A y[:n] - b] at y."""
    N = len(y)
    big = [max(mpmath.mpf(1), abs(v)) for v in y]
    rows = len(P) + len(A)
    J = mpmath.matrix(rows, N)
    vals, sizes = [], []
    for i, p in enumerate(P):
        s, size = mpmath.mpc(0), mpmath.mpf(0)
        for e, c in p.items():
            t, mag = c, abs(c)
            for v, a, g in zip(y, e, big):
                if a:
                    t *= v ** a
                    mag *= g ** a
            s += t
            size += mag
            for j in range(N):
                if e[j]:
                    dt = c * e[j]
                    for l, (v, a) in enumerate(zip(y, e)):
                        a = a - 1 if l == j else a
                        if a:
                            dt *= v ** a
                    J[i, j] += dt
        vals.append(s)
        sizes.append(size)
    for r, (row, bi) in enumerate(zip(A, b)):
        s = -bi
        size = abs(bi)
        for j, a in enumerate(row):
            s += a * y[j]
            size += abs(a) * big[j]
            J[len(P) + r, j] = a
        vals.append(s)
        sizes.append(size)
    return vals, J, sizes


def _backward_error(vals, sizes) -> mpmath.mpf:
    return max((abs(v) / s if s else abs(v)) for v, s in zip(vals, sizes))


def _newton_step(vals, J):
    """Gauss-Newton correction by the normal equations (complex; see module docstring)."""
    f = mpmath.matrix(vals)
    if J.rows == J.cols:
        return mpmath.lu_solve(J, f)
    JH = J.transpose_conj()
    return mpmath.lu_solve(JH * J, JH * f)


def _mp_slice(A, b) -> tuple[list, list]:
    """The slice A x = b as mpc rows and values ([] and [] for none)."""
    A = [] if A is None else [[mpmath.mpc(complex(a).real, complex(a).imag) for a in row]
                              for row in np.atleast_2d(A)]
    b = [] if b is None else [mpmath.mpc(complex(v).real, complex(v).imag)
                              for v in np.atleast_1d(b)]
    return A, b


def multiple_below(dps: int) -> float:
    """MULTIPLE_BELOW for ``dps`` digits: 10^(-0.75 dps), 1e-45 at DPS = 60."""
    return MULTIPLE_BELOW ** (dps / DPS)


def gauss_newton_mp(P: list[MPPoly], y0, A=None, b=None, iterations: int = ITERATIONS,
                    dps: int = DPS, stop_on_error: bool = True):
    """Gauss-Newton at the working precision (``dps`` digits, which the caller set with
    ``mpmath.workdps``) on [P; A y - b] from y0 (the least backward error reached is kept).
    Returns (y (list of mpc), backward error, last relative correction, iterations, Jacobian at
    y, stalled): ``stalled`` when the iteration ended because a step failed to reduce the
    backward error by a factor ``STALL_RATIO`` (no longer converging; Newton converging
    linearly to a singular solution reduces it by 1/4 .. 1/e per step). ``stop_on_error``
    False: only a correction below 10^(5 - dps) stops early (a root of a tight cluster has a
    small backward error well before it is accurate to its separation)."""
    below = multiple_below(dps)
    y = [mpmath.mpc(complex(v).real, complex(v).imag) if not isinstance(v, mpmath.mpc) else v
         for v in y0]
    A, b = _mp_slice(A, b)
    vals, J, sizes = _eval(P, y, A, b)
    best = [y, _backward_error(vals, sizes), mpmath.inf, 0, J]
    stalled, it = False, 0
    for it in range(1, iterations + 1):
        try:
            dy = _newton_step(vals, J)
        except ZeroDivisionError:      # exactly singular normal equations
            stalled = True
            break
        y = [v - d for v, d in zip(y, dy)]
        corr = mpmath.norm(dy) / (1 + mpmath.sqrt(sum(abs(v) ** 2 for v in y)))
        vals, J, sizes = _eval(P, y, A, b)
        err = _backward_error(vals, sizes)
        if (stop_on_error and err < below * 1e-5) or corr < mpmath.mpf(10) ** (-dps + 5):
            best = [y, err, corr, it, J] if err < best[1] else best
            stalled = best[1] > below             # a least-squares point, not a solution
            break
        if not err < STALL_RATIO * best[1]:
            stalled = True
            break
        best = [y, err, corr, it, J]
    return (*best, stalled)


# ----------------------------------------------------------------------------- decision
def check_deflation(F: PolynomialSystem, steps, y, A=None, b=None) -> ClusterCheck:
    """Does the deflated system built by ``steps`` (``witness.deflation.DeflationStep``: B, h)
    from F have a regular solution near y (n + sum k_s coordinates), on the slice A x = b when
    given? (module docstring). Verdict 'multiple' (it does), 'cluster' (it does not: the point
    is the centre of a cluster of roots of F) or 'undecided'.

    Examples
    --------
    >>> import numpy as np
    >>> from witness import PolynomialSystem
    >>> from witness.deflation import deflate
    >>> for eq in ["x^2 - 2*x + 1", "x^2 - 1/10^20"]:
    ...     F = PolynomialSystem.from_strings([eq])
    ...     d = deflate(F, np.array([1.0 if "2*x" in eq else 0.0]), rng=0, verify=False)
    ...     print(check_deflation(F, d.deflation.steps, d.point).verdict)
    multiple
    cluster
    """
    yb, err, corr, it, stalled = _deflated_gauss_newton(F, steps, y, A, b, DPS)
    xb = np.array([complex(v) for v in yb[:F.n_vars]])
    if err <= MULTIPLE_BELOW:
        # confirmed at more digits than the coefficients carry: a regular solution's backward
        # error falls with the precision, a least-squares point's stays ((x - 1)^2 - 1e-50:
        # 2.5e-51 at 60 digits, below MULTIPLE_BELOW; its roots 1 +- 1e-25 were one double root)
        high = high_precision(F)
        _, err2, _, _, stalled2 = _deflated_gauss_newton(F, steps, yb, A, b, high)
        if err2 <= multiple_below(high):
            return ClusterCheck("multiple", err, corr, it,
                                f"the deflated system has a regular solution here: backward "
                                f"error {err:.1e} <= {MULTIPLE_BELOW:.0e} at {DPS} digits, "
                                f"{err2:.1e} at {high}")
        if stalled2:
            return ClusterCheck("cluster", err, corr, it,
                                f"the deflated system has no solution here: backward error "
                                f"{err:.1e} at {DPS} digits, but Gauss-Newton at {high} "
                                f"digits stalls at {err2:.1e} (a cluster of roots, not one "
                                f"multiple root)", dps=high)
        return ClusterCheck("undecided", err, corr, it,
                            f"multiple root or cluster undecided: backward error of the "
                            f"deflated system {err:.1e} at {DPS} digits, {err2:.1e} at {high} "
                            f"and still falling slowly", x=xb)
    if not stalled:
        return ClusterCheck("undecided", err, corr, it,
                            f"Gauss-Newton on the deflated system still converging linearly "
                            f"after {it} steps at {DPS} digits (backward error {err:.1e}): "
                            f"its solution is singular, the deflation incomplete", x=xb)
    if err >= CLUSTER_ABOVE:
        return ClusterCheck("cluster", err, corr, it,
                            f"the deflated system has no solution here: Gauss-Newton at {DPS} "
                            f"digits stalls at backward error {err:.1e} >= {CLUSTER_ABOVE:.0e} "
                            f"(a cluster of roots, not one multiple root)")
    return ClusterCheck("undecided", err, corr, it,
                        f"multiple root or cluster undecided: backward error of the deflated "
                        f"system {err:.1e} at {DPS} digits, between {MULTIPLE_BELOW:.0e} and "
                        f"{CLUSTER_ABOVE:.0e}")


def high_precision(F: PolynomialSystem) -> int:
    """Digits of the confirming run: 2 DPS, or DPS more than the longest exact coefficient
    (numerator or denominator) has digits, so that a perturbation written into the
    coefficients is resolved (1 - 1/10^80 needs 80)."""
    longest = max((max(abs(c.numerator), c.denominator).bit_length() for p in F.polynomials
                   for c in p.values() if isinstance(c, Fraction)), default=0)
    return max(2 * DPS, int(longest * 0.30103) + 1 + DPS)


def _deflated_gauss_newton(F: PolynomialSystem, steps, y, A, b, dps: int):
    """(y (list of mpc), backward error, correction, iterations, stalled) of Gauss-Newton at
    ``dps`` digits on the deflated system of ``steps`` rebuilt from F (module docstring)."""
    with mpmath.workdps(dps):
        P, N = mp_system(F), F.n_vars
        for st in steps:
            P = mp_step(P, N, st.B, st.h)
            N += st.B.shape[1]
        yb, err, corr, it, _, stalled = gauss_newton_mp(P, y, A, b, dps=dps)
    return yb, float(err), float(corr), it, stalled


@dataclass(frozen=True)
class ClusterResolution:
    """``resolve_cluster``: the simple roots found (complex (r, n)) with their backward errors
    and Newton corrections at DPS digits; ``resolved`` when r == m (the paths into the cluster);
    ``reason`` in words; ``seed``-driven starts (``starts`` tried)."""
    roots: np.ndarray
    residuals: tuple[float, ...]
    corrections: tuple[float, ...]
    resolved: bool
    starts: int
    reason: str

    def to_json(self) -> dict:
        return {"roots": [[[z.real, z.imag] for z in r] for r in self.roots],
                "residuals": list(self.residuals), "corrections": list(self.corrections),
                "resolved": self.resolved, "starts": self.starts, "dps": DPS,
                "reason": self.reason}


def resolve_cluster(F: PolynomialSystem, centre, m: int, rng: np.random.Generator, A=None,
                    b=None, dps: int = DPS) -> ClusterResolution:
    """The roots of [F; A x - b] near ``centre`` (n,), m paths ended there (module docstring).
    Starts: centre + rho u, u random complex unit vectors, rho = r^(1/m) x (1 + |centre|) x
    {1, 1/10, 10}, r the backward error of F at the centre at ``dps`` digits (a root of a
    cluster of m roots whose polynomial is ~ r at the centre lies at a distance ~ r^(1/m) when
    the m-th derivative is of the order of the coefficients); ``dps``: that of the check that
    called it a cluster (``ClusterCheck.dps``)."""
    n = F.n_vars
    c = np.asarray(centre, complex)
    below = multiple_below(dps)
    with mpmath.workdps(dps):
        P = mp_system(F)
        Am = [] if A is None else [[mpmath.mpc(complex(a).real, complex(a).imag)
                                    for a in row] for row in np.atleast_2d(A)]
        bm = [] if b is None else [mpmath.mpc(complex(v).real, complex(v).imag)
                                   for v in np.atleast_1d(b)]
        vals, _, sizes = _eval(P, [mpmath.mpc(z.real, z.imag) for z in c], Am, bm)
        r0 = float(_backward_error(vals, sizes))
        rho = max(r0, 1e-300) ** (1.0 / m) * (1 + float(np.linalg.norm(c)))
        found: list = []        # (y mp, err, corr)
        tries = 0
        # fallback radii when the centre is (nearly) a root itself: paths of a cluster may end
        # on one of its roots ((x - 1)(x - 1 - 1e-9): both at 1, r0 ~ 1e-61)
        for scale in (1.0, 0.1, 10.0) + tuple(f / rho for f in FALLBACK_RADII if f > rho):
            for _ in range(STARTS_PER_ROOT * m):
                tries += 1
                u = rng.standard_normal(n) + 1j * rng.standard_normal(n)
                step = rho * scale * u / np.linalg.norm(u)     # in mpmath: 1 + 1e-25 is 1
                y0 = [mpmath.mpc(z.real, z.imag) + mpmath.mpc(d.real, d.imag)
                      for z, d in zip(c, step)]
                y, err, corr, _, J, _ = gauss_newton_mp(P, y0, A, b, iterations=40, dps=dps,
                                                        stop_on_error=False)
                if not err <= below or not _full_rank_mp(J, dps):
                    continue
                floor = 10.0 ** (10 - dps)
                if all(_distance(y, z[0]) > SEPARATION_FACTOR * max(float(corr), z[2], floor)
                       for z in found):
                    found.append((y, float(err), float(corr)))
            if len(found) >= m:
                break
        roots = np.array([[complex(v) for v in y] for y, _, _ in found]).reshape(-1, n)
    res = tuple(z[1] for z in found)
    cors = tuple(z[2] for z in found)
    ok = len(found) == m
    why = (f"{len(found)} distinct simple roots found near the centre by Newton at {dps} digits "
           f"({tries} starts at radius ~{rho:.1e}), {m} paths ended there"
           + ("" if ok else ": not resolved"))
    return ClusterResolution(roots, res, cors, ok, tries, why)


def _distance(y, z) -> float:
    d = mpmath.sqrt(sum(abs(a - c) ** 2 for a, c in zip(y, z)))
    return float(d / (1 + mpmath.sqrt(sum(abs(a) ** 2 for a in y))))


def _full_rank_mp(J, dps: int = DPS) -> bool:
    """Full column rank of J at ``dps`` digits: smallest singular value above 10^(-dps/2) of
    the largest (a simple root's Jacobian; relative)."""
    s = mpmath.svd_c(J, compute_uv=False)
    s = sorted((abs(v) for v in s), reverse=True)
    return len(s) == J.cols and s[0] > 0 and s[-1] / s[0] > mpmath.mpf(10) ** (-dps // 2)


# ----------------------------------------------------------------------------- regular zero?
REGULAR_BELOW = 1e-50      # backward error a simple zero reaches at DPS digits (quadratic)
RANK_MARGIN = 1e10         # a simple zero: sigma_min(scaled J)^2 >= this x backward error


def regular_zero_check(F: PolynomialSystem, x, A=None, b=None) -> tuple[bool, str, np.ndarray]:
    """Is x (n,) near a regular zero of F as written (on the slice A x = b when given)?
    Gauss-Newton at DPS digits from F's exact coefficients; regular when the backward error
    falls to <= REGULAR_BELOW and sigma^2 >= RANK_MARGIN x that error, sigma the smallest
    singular value of the Jacobian with rows scaled by the equations' term sizes and columns by
    max(1, |x_j|). Why this test: at distance d from a zero of multiplicity >= 2 the backward
    error is ~ d^2 and sigma ~ d, so sigma^2 / error stays bounded (by ~4 deg^2); at a simple
    zero sigma stays put while the error falls quadratically. Double precision cannot make
    this decision for ill-conditioned simple zeros: the roots 5..13 of (x - 1)...(x - 14) have
    sigma ~ 1e-9..1e-12, were called singular with a dual space larger than their one path,
    and the solve said complete: True with 4 of 14 roots ('positive-dimensional set met').
    Returns (regular, reason, refined x (n,) complex)."""
    with mpmath.workdps(DPS):
        P = mp_system(F)
        y, err, _, it, _, _ = gauss_newton_mp(P, x, A, b)
        n = F.n_vars
        _, J, sizes = _eval(P, y, *_mp_slice(A, b))      # the term sizes scale the rows
        S = mpmath.matrix(J.rows, J.cols)
        for i in range(J.rows):
            for j in range(J.cols):
                S[i, j] = J[i, j] / (sizes[i] or 1) * max(mpmath.mpf(1), abs(y[j]))
        sv = sorted((abs(v) for v in mpmath.svd_c(S, compute_uv=False)), reverse=True)
        sigma = sv[-1] if len(sv) == n else mpmath.mpf(0)
        err = float(err)
        xb = np.array([complex(v) for v in y[:n]])
        ok = err <= REGULAR_BELOW and sigma ** 2 >= RANK_MARGIN * max(err, 10.0 ** (5 - DPS))
        why = (f"Gauss-Newton at {DPS} digits: backward error {err:.1e} after {it} steps, "
               f"smallest scaled singular value {float(sigma):.1e}"
               + (f" (sigma^2 >= {RANK_MARGIN:.0e} x error: a regular zero)" if ok else
                  " (not shown regular)"))
    return bool(ok), why, xb


# ----------------------------------------------------------------------------- at infinity?
def homogenized_system(F: PolynomialSystem) -> PolynomialSystem:
    """F homogenized with x0 FIRST: f_i(x) -> x0^deg f_i(x / x0) (n + 1 variables)."""
    polys = []
    for p in F.polynomials:
        d = max((sum(e) for e in p), default=0)
        polys.append({(d - sum(e),) + tuple(e): c for e, c in p.items()})
    return PolynomialSystem(("x0_h",) + tuple(F.variables), tuple(polys))


def finite_after_all(F: PolynomialSystem, z) -> tuple[np.ndarray | None, str]:
    """Is the projective endpoint z = (x0, x) (n + 1,), called at infinity because |x0| / |z|
    is tiny, a finite root of large modulus? Newton at DPS digits on [F^h; conj(z)·w = 1]
    (F homogenized, the orthogonal patch) from z: when it converges quadratically to a point
    with x0 != 0 (|x0| / |w| > 10^(10 - DPS)), x / x0 is the affine root, returned when it is
    within the double range and a regular zero of F at DPS digits (``regular_zero_check``).
    Returns (root (n,) complex or None, reason). Why: 1e-20 y^2 + y - 1, x - 1 has the regular
    root (1, -1e20); the tracker's |x0| / |z| < 1e-8 rule called it at infinity and the solve
    was complete: True with one root."""
    from .refine import refine
    z = np.asarray(z, complex)
    H = homogenized_system(F)
    R = refine(H, z, DPS - 10, slice_A=np.conj(z)[None, :], slice_b=np.ones(1))
    if not R.converged[0]:
        return None, (f"Newton on the homogenized system at {DPS} digits did not converge "
                      f"(correction {R.corrections[0]:.1e})")
    with mpmath.workdps(DPS):
        w = R.points_mp[0]
        size = mpmath.sqrt(sum(abs(v) ** 2 for v in w))
        if abs(w[0]) <= size * mpmath.mpf(10) ** (10 - DPS):
            return None, f"at infinity: x0 = {mpmath.nstr(abs(w[0]), 3)} at {DPS} digits"
        x = [v / w[0] for v in w[1:]]
        if max(abs(v) for v in x) > mpmath.mpf(10) ** 300:
            return None, "a finite root beyond the double range (|x| > 1e300)"
        xb = np.array([complex(v) for v in x])
    ok, why, xr = regular_zero_check(F, xb)
    return (xr, why) if ok else (None, f"x / x0 is not shown a regular zero: {why}")


# ----------------------------------------------------------------------------- on F at all?
def on_variety_check(F: PolynomialSystem, x, iterations: int = ITERATIONS) -> str:
    """Is x near a zero of F as written, possibly on a positive-dimensional solution set?
    Gauss-Newton at DPS digits with minimum-norm steps (mpmath.svd_c; singular values below
    10^(-DPS/2) of the largest dropped), from F's exact coefficients. Returns 'zero' (backward
    error <= MULTIPLE_BELOW: on V(F), e.g. a reduced curve, where the Jacobian's rank is
    constant and the iteration converges quadratically), 'not a zero' (stalled at >=
    CLUSTER_ABOVE: a least-squares point of an inconsistent system, e.g. x*y - 1,
    x*y - 1 - 1/10^10, whose double-precision paths end near the curve x*y = 1 with backward
    error 1e-10), or 'undecided' (still converging linearly: a non-reduced set)."""
    with mpmath.workdps(DPS):
        P = mp_system(F)
        y = [mpmath.mpc(complex(v).real, complex(v).imag) for v in np.asarray(x).ravel()]
        vals, J, sizes = _eval(P, y, [], [])
        best = _backward_error(vals, sizes)
        for _ in range(iterations):
            y = [v - d for v, d in zip(y, _min_norm_step(vals, J))]
            vals, J, sizes = _eval(P, y, [], [])
            err = _backward_error(vals, sizes)
            if err <= MULTIPLE_BELOW:
                return "zero"
            if not err < STALL_RATIO * best:
                return "not a zero" if best >= CLUSTER_ABOVE else "undecided"
            best = err
    return "undecided"


def _min_norm_step(vals, J):
    U, S, V = mpmath.svd_c(J)
    cut = (max(S) if len(S) else 0) * mpmath.mpf(10) ** (-DPS // 2)
    f = mpmath.matrix(vals)
    UHf = U.transpose_conj() * f
    w = mpmath.matrix([UHf[i] / S[i] if S[i] > cut else 0 for i in range(len(S))])
    return V.transpose_conj() * w
