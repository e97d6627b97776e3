"""Deflation: a new system on which the points of a singular solution set are regular.

Leykin–Verschelde–Zhao 2006 ("Newton's method with deflation for isolated singularities of
polynomial systems", §3): at a solution y of G (N variables) where the Jacobian J_G has rank
r < N, append r + 1 new variables lambda and the equations

    J_G(y) B lambda = 0,    h . lambda = 1          (B: N x (r + 1), h: (r + 1,) random),

i.e. the system D(y, lambda) = [G; J_G B lambda; h lambda - 1]. At y, B lambda must lie in the
null space of J_G (dimension N - r) intersected with the range of B (dimension r + 1): a line for
random B, so lambda is unique (h fixes the scale), and each step lowers the multiplicity (LVZ,
Theorem 3.1); steps are repeated until the point is regular.

For a d-dimensional non-reduced component Z of V(F) the same construction is applied to F itself
(not to the slice), with r the rank of J_F at a generic point of Z (a witness point): the lifted
set Z' = {(x, lambda(x)) : x in Z} is a d-dimensional component of V(D) that projects
birationally onto Z, so a slice A x = b in the x coordinates alone meets Z' in deg Z points,
regular once the deflation is complete. Monodromy and the trace test then run on D (tracking
regular points), and their results are projected back to x: the trace test sums only the x
coordinates (lambda is a rational function on Z, so its trace is not linear; the witness set
says so with ``info['project_to'] = n``, see ``witness.trace``).

Ranks are decided by the engine's rank rule on Jacobians with rows scaled by the size of their
terms (``witness.dualspace.scaled_rank``), with the zero threshold raised to ``ERROR_FACTOR``
times the point's relative error estimate; regularity is full column rank of [J_D; A 0],
decided.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .cluster import ClusterCheck, check_deflation
from .options import Options, resolve
from .dualspace import row_scales, scaled_rank
from .system import PolynomialSystem

ERROR_FACTOR = 1e3        # zero threshold >= this x the point's relative error estimate
NEWTON_STEPS = 30         # Gauss-Newton iterations on the deflated system, at most
NEWTON_TOL = 1e-14        # relative correction at which Gauss-Newton stops
DRAWS = 3                 # deflations with fresh random B, h while not regular
PRECISE_DPS = 40          # digits of the exact Jacobian of a rank decision (``_full_rank``)
EPS = 2.2e-16             # double-precision unit roundoff: the least error of a point


@dataclass(frozen=True)
class DeflationStep:
    """One LVZ step: rank r of the Jacobian, B (N, r + 1), h (r + 1,)."""
    rank: int
    B: np.ndarray
    h: np.ndarray


@dataclass(frozen=True, eq=False)
class Deflation:
    """A deflation of ``base`` (n variables): ``system`` in n + sum(r_s + 1) variables (the
    original ones first), built by ``steps``."""
    base: PolynomialSystem
    system: PolynomialSystem
    steps: tuple[DeflationStep, ...]

    @property
    def n(self) -> int:
        return self.base.n_vars

    def project(self, Y) -> np.ndarray:
        """Points (p, N) of the deflated system -> their x coordinates (p, n)."""
        return np.atleast_2d(Y)[:, :self.n]

    def lift(self, X) -> np.ndarray:
        """Points x (p, n) -> (x, lambda) (p, N): each step's lambda by least squares from
        J(y) B lambda = 0, h lambda = 1 (exact at points of the component where the rank
        is the step's rank)."""
        Y = np.atleast_2d(np.asarray(X, complex))
        G = self.base
        for i, st in enumerate(self.steps):
            lam = np.array([_multiplier(J, st.B, st.h) for J in G.jacobian(Y)])
            Y = np.hstack([Y, lam.reshape(len(Y), -1)])
            G = _step_system(G, st, i + 1)
        return Y

    def to_json(self) -> dict:
        return {"steps": len(self.steps), "ranks": [s.rank for s in self.steps],
                "variables": self.system.n_vars, "equations": self.system.n_equations}


@dataclass(frozen=True)
class DeflationResult:
    """``deflate`` at one point: the deflation (None if the point was regular already), the
    lifted point (N,) refined on [D; slice], its x part (n,), whether it is regular there,
    the last relative Gauss-Newton correction (its error estimate), the ranks seen, reason."""
    deflation: Deflation | None
    point: np.ndarray
    x: np.ndarray
    regular: bool
    accuracy: float
    ranks: tuple[int, ...]
    reason: str
    precise: ClusterCheck | None = None

    @property
    def system(self) -> PolynomialSystem:
        return self.deflation.system

    def to_json(self) -> dict:
        return {"regular": self.regular, "accuracy": self.accuracy, "ranks": list(self.ranks),
                "reason": self.reason,
                "deflation": self.deflation.to_json() if self.deflation else None,
                "precise": self.precise.to_json() if self.precise else None}


def _multiplier(J: np.ndarray, B: np.ndarray, h: np.ndarray) -> np.ndarray:
    M = np.vstack([J @ B, h[None, :]])
    rhs = np.zeros(len(M), complex)
    rhs[-1] = 1
    return np.linalg.lstsq(M, rhs, rcond=None)[0]


def _names(G: PolynomialSystem, k: int, step: int) -> list[str]:
    taken = set(G.variables)
    stem = f"lam{step}_"
    while any(v.startswith(stem) for v in taken):
        stem = "_" + stem
    return [f"{stem}{j}" for j in range(k)]


def _step_system(G: PolynomialSystem, st: DeflationStep, index: int) -> PolynomialSystem:
    """[G; J_G B lambda; h lambda - 1] in the variables of G followed by lambda (named
    lam<index>_<j>)."""
    names = list(G.variables) + _names(G, st.B.shape[1], index)
    return PolynomialSystem.from_dicts(
        names, lvz_step_polynomials(G.polynomials, G.n_vars, st.B, st.h, complex, complex))


def lvz_step_polynomials(polys, N: int, B: np.ndarray, h: np.ndarray, coef, num) -> list[dict]:
    """The dictionaries of one LVZ step [P; J_P B lambda; h lambda - 1] in N + k variables
    (k = B.shape[1]), from P's dictionaries ``polys`` in N variables. ``coef`` converts P's
    coefficients where they are multiplied (complex here; the identity for mpmath ones), ``num``
    the entries of B and h (complex; mpmath.mpc in ``witness.cluster.mp_step``, so that the
    products are formed at the working precision)."""
    k = B.shape[1]
    Bc = [[num(B[j, l]) for l in range(k)] for j in range(N)]
    pad = (0,) * k
    unit = [tuple(int(i == l) for i in range(k)) for l in range(k)]
    out = [{e + pad: c for e, c in p.items()} for p in polys]
    for p in polys:
        q: dict = {}
        for e, c in p.items():
            c = coef(c)
            for j in range(N):
                if not e[j]:
                    continue
                d = e[:j] + (e[j] - 1,) + e[j + 1:]
                cj = c * e[j]
                for l in range(k):
                    key = d + unit[l]
                    q[key] = q.get(key, 0) + cj * Bc[j][l]
        out.append(q)
    lin = {(0,) * N + unit[l]: num(h[l]) for l in range(k)}
    lin[(0,) * (N + k)] = -1
    out.append(lin)
    return out


def _jac_sliced(G: PolynomialSystem, y: np.ndarray, A: np.ndarray,
                scaled: bool = False) -> np.ndarray:
    """[J_G(y); A 0]; with ``scaled``, rows divided by the size of their terms at y
    (``witness.dualspace.row_scales``) for ``scaled_rank``."""
    J = G.jacobian(y[None, :])[0]
    if scaled:
        J = J / row_scales(G.polynomials, y)[:, None]
    if len(A):
        As = A / np.maximum(np.abs(A).sum(axis=1, keepdims=True), 1e-300) if scaled else A
        J = np.vstack([J, np.hstack([As, np.zeros((len(A), G.n_vars - A.shape[1]))])])
    return J


def _full_rank(G: PolynomialSystem, y: np.ndarray, A: np.ndarray, opt, acc: float):
    """Rank decision of the term-scaled [J_G(y); A 0] (``scaled_rank`` with opt). When the
    double-precision Jacobian leaves the point rank deficient, the decision is taken again on
    the Jacobian evaluated exactly at y (mpmath, ``PRECISE_DPS`` digits), whose only error is
    then the point's own: relative to the term sizes about deg x acc (derivatives of terms of
    degree <= deg), so the zero threshold is ERROR_FACTOR x deg x max(acc, EPS) instead of the
    engine's floor ``RankOptions.zero_below`` (which covers double-precision rounding in
    expanded polynomials). Why: issue 10 row 3 restated (seed 3), the deflation row J_f B lambda
    of f = (x3^4 - x4)(x5^4 - x6 + x1)(x7^4 - x3 - 1)^2 expanded has terms of size 9.1e9 at the
    witness point and a Jacobian row of norm 78 (accurate: the double row differs from the
    mpmath one by 1.1e-13), so the term-scaled sigma_min is 1.0e-9, below the 1e-8 floor:
    "not regular"; the point's error acc = 1.5e-15 gives noise ~16 x 1.5e-15 = 2.4e-14, the
    threshold 2.4e-11, so sigma_min 1.0e-9 is decided nonzero with a margin of 42 over the
    threshold (4e4 over the noise estimate)."""
    full = scaled_rank(_jac_sliced(G, y, A, scaled=True), opt)
    if full.decided and full.rank == G.n_vars:
        return full
    deg = max(max(G.degrees), 1)
    tau = ERROR_FACTOR * deg * max(acc, EPS)
    if not tau < opt.zero_below:
        return full
    Jmp = G.jacobian_mp(list(y), dps=PRECISE_DPS)
    J = np.array([[complex(Jmp[i, j]) for j in range(G.n_vars)] for i in range(G.n_equations)])
    J = J / row_scales(G.polynomials, y)[:, None]
    if len(A):
        As = A / np.maximum(np.abs(A).sum(axis=1, keepdims=True), 1e-300)
        J = np.vstack([J, np.hstack([As, np.zeros((len(A), G.n_vars - A.shape[1]))])])
    return scaled_rank(J, replace(opt, zero_below=tau))


def square_part_by_degree(D: PolynomialSystem, dim: int, rng: np.random.Generator
                          ) -> PolynomialSystem | None:
    """n - dim equations of D that keep its equations of lower degree as they are and
    randomize only among the equations of the highest degree (row-equilibrated): the
    n - dim - (m - g) random combinations of those g equations, the other m - g equations
    unchanged. None when the highest degree has too few equations (g <= m - (n - dim)).

    Why: a deflated system D = [F; J_F B lambda; h lambda - 1] has linear equations next to the
    degree-16 ones on issue 10 row 3 restated; a full random combination (``square_part``)
    adds linear forms to degree-16 polynomials, where they are below rounding at |x| ~ 3 (in
    homogeneous coordinates they carry x0^15), so the combinations are numerically the
    degree-16 ones alone, whose zero set is doubled there: on seeds 1 and 3, 26 of 36 and 74 of
    110 monodromy paths on the deflated system hit max_steps. The caller must check that its
    start point is a regular point of the result (a structured combination is not generic:
    Bertini's theorem does not cover it; regularity at the start point does, since then the
    component of V(result) through it is the component of V(D) through it)."""
    k, m = D.n_vars - dim, D.n_equations
    if m <= k:
        return None
    top = max(D.degrees)
    group = [i for i, d in enumerate(D.degrees) if d == top]
    keep = [i for i, d in enumerate(D.degrees) if d != top]
    r = k - len(keep)
    if r < 1 or r >= len(group):
        return None
    norms = D.coefficient_norms()
    R = np.zeros((k, m), complex)
    for row, i in enumerate(keep):
        R[row, i] = 1.0
    R[len(keep):, group] = _cn(rng, r, len(group)) / np.where(norms[group] > 0,
                                                             norms[group], 1.0)[None, :]
    return D.combined(R)


def regular_on(G: PolynomialSystem, y: np.ndarray, A: np.ndarray, accuracy: float,
               options: Options | None = None) -> bool:
    """Is y a regular point of [G; A x - b] (full column rank decided by ``_full_rank``, zero
    threshold max(zero_below, ERROR_FACTOR x accuracy) as in ``deflate``)?"""
    ropt = resolve(options).rank
    tau = max(ropt.zero_below, ERROR_FACTOR * accuracy)
    if not tau < 1:
        return False
    d = _full_rank(G, np.asarray(y, complex), A, replace(ropt, zero_below=tau), accuracy)
    return d.decided and d.rank == G.n_vars


def gauss_newton(G: PolynomialSystem, y: np.ndarray, A: np.ndarray, b: np.ndarray,
                 steps: int = NEWTON_STEPS) -> tuple[np.ndarray, float]:
    """Gauss-Newton on [G; A x - b] (A acts on the first A.shape[1] coordinates) from y:
    (point, last relative correction). Stops at NEWTON_TOL or when the correction grows."""
    y = np.asarray(y, complex).copy()
    last = np.inf
    n = A.shape[1] if len(A) else 0
    for _ in range(steps):
        f = G.evaluate(y[None, :])[0]
        if len(A):
            f = np.concatenate([f, A @ y[:n] - b])
        dy = np.linalg.lstsq(_jac_sliced(G, y, A), f, rcond=None)[0]
        corr = float(np.linalg.norm(dy) / (1 + np.linalg.norm(y)))
        if not np.isfinite(corr) or corr > 2 * last and last < 1e-8:
            break
        y = y - dy
        last = corr
        if corr < NEWTON_TOL:
            break
    return y, last


def deflate(F: PolynomialSystem, x, *, A=None, b=None, accuracy: float = 0.0,
            rng: np.random.Generator | int | None = None, max_steps: int = 4,
            options: Options | None = None, attempts: int = DRAWS,
            verify: bool = True) -> DeflationResult:
    """Deflate F at x (``_deflate_once``), up to ``attempts`` times with fresh random B, h
    while the result is not regular (measured: on Griewank–Osborne, 1 draw in 12 left the
    twice deflated Jacobian with sigma_min / sigma_1 ~ 1e-8, too close to the rank threshold).
    Returns the first regular result, else the last. Same parameters as ``_deflate_once``.

    With ``verify`` (default) a deflation that made the point regular in double precision is
    checked in high precision (``witness.cluster.check_deflation``, result in ``precise``):
    the point is a multiple root only when the deflated system, rebuilt at 60 digits from F's
    coefficients as written, has a regular solution there; at the centre of a cluster of close
    simple roots (x^2 - 1e-20) it has none, and the result is not regular (reason: the
    cluster; or undecided when the margin is too small)."""
    rng = np.random.default_rng(rng)
    for _ in range(attempts):
        r = _deflate_once(F, x, A=A, b=b, accuracy=accuracy, rng=rng, max_steps=max_steps,
                          options=options)
        if r.regular and r.deflation is not None and verify:
            chk = check_deflation(F, r.deflation.steps, r.point, A, b)
            if chk.verdict == "multiple":
                return replace(r, precise=chk)
            r = replace(r, regular=False, precise=chk, reason=chk.reason)
            if chk.verdict == "cluster":
                return r
            if chk.x is not None:
                # still converging linearly: the double-precision rank decisions stopped a
                # step early; again from the closer point, where the next rank drop shows
                x = chk.x
            continue
        if r.regular or not r.ranks:
            return r
    return r


def _deflate_once(F: PolynomialSystem, x, *, A=None, b=None, accuracy: float = 0.0,
                  rng: np.random.Generator | int | None = None, max_steps: int = 4,
                  options: Options | None = None) -> DeflationResult:
    """Deflate F at x (a point of V(F), on the slice A x = b when given) until the point is a
    regular solution of [D; A x = b]; refine it there by Gauss–Newton.

    Parameters
    ----------
    F : PolynomialSystem (n variables)
    x : complex (n,)
    A, b : complex (d, n), (d,), optional: the slice of a d-dimensional witness set
    accuracy : relative error estimate of x (raises the rank threshold; ``ERROR_FACTOR``)
    rng : seed or Generator for B and h (complex normal)
    max_steps : LVZ steps at most
    options : witness.Options (its RankOptions)

    Returns
    -------
    DeflationResult (``regular`` False when max_steps did not suffice or a rank was undecided:
    e.g. x is not isolated in V(F) on the slice)

    Raises
    ------
    ValueError
        x of the wrong shape or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from witness import PolynomialSystem
    >>> F = PolynomialSystem.from_strings(["x^2 + y - 3", "x + y^2/8 - 3/2"])
    >>> r = deflate(F, np.array([1 + 1e-6, 2 - 1e-6]), accuracy=1e-6, rng=0)  # triple root
    >>> r.regular, np.allclose(r.x, [1, 2], atol=1e-12), r.ranks
    (True, True, (1, 3))
    """
    x = np.asarray(x, complex)
    n = F.n_vars
    if x.shape != (n,) or not np.all(np.isfinite(x)):
        raise ValueError(f"point must be finite with shape ({n},), got {x.shape}")
    rng = np.random.default_rng(rng)
    A = np.zeros((0, n), complex) if A is None else np.atleast_2d(np.asarray(A, complex))
    b = np.zeros(0, complex) if b is None else np.atleast_1d(np.asarray(b, complex))
    ropt, tol = resolve(options).rank, resolve(options).points.residual_tol
    G, y, acc, steps, ranks = F, x.copy(), float(accuracy), [], []
    for it in range(max_steps + 1):
        tau = max(ropt.zero_below, ERROR_FACTOR * acc)
        if not tau < 1:
            return _result(F, G, steps, y, False, acc, ranks, f"accuracy {acc:.1e} too poor")
        opt = replace(ropt, zero_below=tau)
        full = _full_rank(G, y, A, opt, acc)
        if full.decided and full.rank == G.n_vars:
            y, acc = gauss_newton(G, y, A, b)
            res = float(G.residual(y))
            if res > tol:        # the step's rank was wrong: the point is not a zero of D
                return _result(F, G, steps, y, False, acc, ranks, f"the deflated system is "
                               f"not satisfied (backward error {res:.1e} > {tol:.0e})")
            return _result(F, G, steps, y, True, acc, ranks,
                           f"regular after {len(steps)} deflation step(s)")
        if not full.decided:
            return _result(F, G, steps, y, False, acc, ranks,
                           f"rank undecided (gap {full.gap:.1e}) after {len(steps)} step(s)")
        if it == max_steps:
            break
        Jg = G.jacobian(y[None, :])[0]
        r = scaled_rank(Jg / row_scales(G.polynomials, y)[:, None], opt)
        if not r.decided:
            return _result(F, G, steps, y, False, acc, ranks,
                           f"rank of the Jacobian undecided (gap {r.gap:.1e})")
        k = r.rank + 1
        st = DeflationStep(r.rank, _cn(rng, G.n_vars, k), _cn(rng, k))
        lam = _multiplier(Jg, st.B, st.h)
        G, y = _step_system(G, st, len(steps) + 1), np.concatenate([y, lam])
        steps.append(st)
        ranks.append(r.rank)
        y, acc = gauss_newton(G, y, A, b)
    return _result(F, G, steps, y, False, acc, ranks, f"not regular after {max_steps} steps")


def _cn(rng, *shape) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / np.sqrt(2)


def _result(F, G, steps, y, regular, acc, ranks, reason) -> DeflationResult:
    D = Deflation(F, G, tuple(steps)) if steps else None
    return DeflationResult(D, y, y[:F.n_vars].copy(), regular, float(acc), tuple(ranks),
                           reason)

