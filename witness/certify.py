"""Rigorous certification of approximate zeros of square polynomial systems (Krawczyk test in
ball arithmetic).

For a candidate x̃ of F: C^n -> C^n, an approximate inverse C of the Jacobian J(x̃) and a box X
(a product of complex rectangles, python-flint ``acb`` balls) around x̃, the Krawczyk operator is

    K(X) = x̃ - C F(x̃) + (I - C J(X)) (X - x̃)        (Krawczyk 1969; Moore 1977)

evaluated in ball arithmetic, so that K(X) encloses every value it stands for. If
||I - C J(X)||_inf < 1 and K(X) ⊂ interior(X), then X holds exactly one zero of F, and that
zero is regular (the proof, adapted to complex rectangles: docs/certification.md §1; Rump 1983,
Neumaier 1990 Thm 5.1.7 for the real case). The box is chosen to contain the candidate, so a
certified candidate is proved to approximate that zero to within the box radius.

* **Distinct**: two certified zeros are different when their enclosures K(X) are disjoint; the
  same when one enclosure lies in the other's box X (uniqueness in X). Overlaps that are neither
  are reported as undecided pairs, never silently merged or split.
* **Real** (systems with real coefficients): when conj(K(X)) ⊂ X the zero equals its conjugate
  (also a zero, unique in X), so it is real; when some coordinate of K(X) has an imaginary part
  excluding 0 it is proved non-real; otherwise undecided.
* **Precision**: first 53-bit balls; candidates that fail are refined by Newton's method in
  ball arithmetic at 128, 192, ... bits up to ``max_precision`` and tested again
  (HomotopyContinuation.jl's src/certification.jl does the same: Breiding–Rose–Timme 2020).

References: R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit
Fehlerschranken", Computing 4 (1969) 187–201; R. E. Moore, "A test for existence of solutions
to nonlinear systems", SIAM J. Numer. Anal. 14 (1977) 611–615; S. M. Rump, "Solving algebraic
problems with high accuracy", in Kulisch–Miranker (eds.), A New Approach to Scientific
Computation (1983); A. Neumaier, Interval Methods for Systems of Equations (1990), §5.1;
P. Breiding, K. Rose, S. Timme, "Certifying zeros of polynomial systems using interval
arithmetic", ACM TOMS 49 (2023), arXiv:2011.05000.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from flint import acb, acb_mat, arb, ctx, fmpq
from scipy.sparse.csgraph import connected_components
from scipy.sparse import coo_matrix

from .jsonio import vector_to_json
from .system import PolynomialSystem

NORM_BOUND = 1.0            # ||I - C J(X)||_inf must be below this (docs/certification.md §1)
FIRST_PRECISION = 53        # bits of the first attempt
PRECISION_STEP = 64         # later attempts: 128, 192, ... bits
NEWTON_STEPS = 8            # at most, per precision, before the box is built


# ----------------------------------------------------------------------------- evaluation
class BallSystem:
    """F and its Jacobian evaluated in acb ball arithmetic through F's monomial tree (one
    multiplication per monomial, shared by values and derivatives). Coefficients enter as balls
    at the working precision (a Fraction 1/3 as a ball containing 1/3), so values are rigorous
    enclosures of the exact system's values."""

    def __init__(self, F: PolynomialSystem):
        order, self.levels = F.monomial_tree
        index = {e: r for r, e in enumerate(order)}
        self.u, self.m, self.n = len(order), F.n_equations, F.n_vars
        self.f_terms = [[(index[e], c) for e, c in p.items()] for p in F.polynomials]
        self.j_terms = [[[] for _ in range(self.n)] for _ in range(self.m)]
        for i, p in enumerate(F.polynomials):
            for e, c in p.items():
                for k in range(self.n):
                    if e[k]:
                        d = e[:k] + (e[k] - 1,) + e[k + 1:]
                        self.j_terms[i][k].append((index[d], c * e[k]))
        self._coeffs: dict[int, tuple] = {}

    def _ball_coeffs(self) -> tuple[list, list]:
        """The coefficients as acb at the current precision (cached per precision)."""
        prec = ctx.prec
        if prec not in self._coeffs:
            f = [[(r, _ball(c)) for r, c in row] for row in self.f_terms]
            j = [[[(r, _ball(c)) for r, c in entry] for entry in row] for row in self.j_terms]
            self._coeffs[prec] = (f, j)
        return self._coeffs[prec]

    def _monomials(self, x: list) -> list:
        mon = [acb(1)] * self.u
        for start, stop, g, h in self.levels:
            if g is None:
                for r, k in zip(range(start, stop), h):
                    mon[r] = x[k]
            else:
                for r, a, b in zip(range(start, stop), g, h):
                    mon[r] = mon[a] * mon[b]
        return mon

    def values(self, x: list) -> acb_mat:
        """F(x) as an (m, 1) acb_mat; x: list of n acb (points or boxes)."""
        mon = self._monomials(x)
        f, _ = self._ball_coeffs()
        return acb_mat(self.m, 1, [_dot(row, mon) for row in f])

    def jacobian(self, x: list) -> acb_mat:
        """J(x) as an (m, n) acb_mat."""
        mon = self._monomials(x)
        _, j = self._ball_coeffs()
        return acb_mat(self.m, self.n, [_dot(entry, mon) for row in j for entry in row])


def _ball(c) -> acb:
    if isinstance(c, Fraction):
        if c.denominator == 1:
            return acb(int(c.numerator))
        return acb(arb(fmpq(c.numerator, c.denominator)))
    return acb(complex(c))


def _dot(terms: list, mon: list) -> acb:
    s = acb(0)
    for r, c in terms:
        s += c * mon[r]
    return s


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class SolutionCertificate:
    """The verdict on one candidate.

    index: position among the candidates; certified: a box holding the candidate contains
    exactly one zero of F, a regular one; real: True proved real, False proved non-real, None
    undecided (always None for a system with non-real coefficients unless proved non-real);
    duplicate_of: index of an earlier candidate proved to approximate the same zero (else
    None); radius: largest radius (real or imaginary part, upper bound) of the box X where the
    zero is unique; enclosure_radius: same for the enclosure K(X) of the zero; precision: bits
    of the deciding attempt; center: midpoint of K(X), complex128 (n,); reason: why not
    certified ('' when certified)."""
    index: int
    certified: bool
    real: bool | None
    duplicate_of: int | None
    radius: float
    enclosure_radius: float
    precision: int
    center: np.ndarray
    reason: str
    box: acb_mat | None = field(default=None, repr=False)
    enclosure: acb_mat | None = field(default=None, repr=False)

    @property
    def status(self) -> str:
        if not self.certified:
            return "not certified"
        return "duplicate" if self.duplicate_of is not None else "certified"

    def to_json(self) -> dict:
        return {"index": self.index, "status": self.status, "certified": self.certified,
                "real": self.real, "duplicate_of": self.duplicate_of,
                "radius": _finite_or_none(self.radius),
                "enclosure_radius": _finite_or_none(self.enclosure_radius),
                "precision": self.precision, "center": vector_to_json(self.center)
                if np.all(np.isfinite(self.center)) else None, "reason": self.reason}


def _finite_or_none(v: float):
    return float(v) if math.isfinite(v) else None


@dataclass(frozen=True)
class CertificationResult:
    """Krawczyk certification of candidate zeros.

    certificates: one SolutionCertificate per candidate (input order); certified: number of
    candidates certified; distinct: number of distinct zeros among them, proved pairwise
    distinct (a lower bound when ``undecided_pairs`` is not empty: candidates joined by an
    undecided pair are counted once); real / nonreal: distinct zeros proved real / non-real;
    duplicates: groups of candidate indices proved to approximate one zero; undecided_pairs:
    certified candidates whose boxes overlap without proving them equal; real_system: all
    coefficients real (required to prove realness); max_precision: bits; seconds: wall time."""
    variables: tuple[str, ...]
    certificates: tuple[SolutionCertificate, ...]
    distinct: int
    real: int
    nonreal: int
    duplicates: tuple[tuple[int, ...], ...]
    undecided_pairs: tuple[tuple[int, int], ...]
    real_system: bool
    max_precision: int
    seconds: float

    @property
    def candidates(self) -> int:
        return len(self.certificates)

    @property
    def certified(self) -> int:
        return sum(c.certified for c in self.certificates)

    @property
    def real_undecided(self) -> int:
        return self.distinct - self.real - self.nonreal

    def __repr__(self) -> str:
        return (f"CertificationResult({self.candidates} candidates, {self.certified} certified, "
                f"{self.distinct} distinct ({self.real} real, {self.nonreal} non-real), "
                f"{self.seconds:.2f} s)")

    def summary(self) -> str:
        """One line: counts and method."""
        und = f", {len(self.undecided_pairs)} undecided pairs" if self.undecided_pairs else ""
        ru = f", {self.real_undecided} undecided" if self.real_undecided else ""
        return (f"certified {self.certified} of {self.candidates} (Krawczyk, ball arithmetic "
                f"up to {self.max_precision} bits); distinct {self.distinct}{und}; real "
                f"{self.real}, non-real {self.nonreal}{ru}")

    def to_json(self) -> dict:
        return {"method": "Krawczyk test in ball arithmetic (python-flint acb)",
                "variables": list(self.variables), "candidates": self.candidates,
                "certified": self.certified, "distinct": self.distinct, "real": self.real,
                "nonreal": self.nonreal, "real_undecided": self.real_undecided,
                "real_system": self.real_system,
                "duplicates": [list(g) for g in self.duplicates],
                "undecided_pairs": [list(p) for p in self.undecided_pairs],
                "max_precision": self.max_precision, "seconds": self.seconds,
                "solutions": [c.to_json() for c in self.certificates]}


# ----------------------------------------------------------------------------- one candidate
@dataclass
class _Attempt:
    certified: bool
    reason: str
    x: list | None = None           # refined center (acb points) for the next precision
    box: acb_mat | None = None
    enclosure: acb_mat | None = None


def _approx_inverse(J: acb_mat, n: int) -> acb_mat | None:
    """Floating-point inverse of mid(J) (no error bounds needed: any C works in K(X))."""
    eye = acb_mat(n, n, [acb(int(i == j)) for i in range(n) for j in range(n)])
    try:
        C = J.mid().solve(eye, algorithm="approx").mid()
    except ZeroDivisionError:
        return None
    if not all(c.is_finite() for c in C.entries()):
        return None
    return C


def _newton(B: BallSystem, x: list, prec: int) -> tuple[list, acb_mat | None]:
    """Newton steps x <- mid(x - C F(x)) while they shrink (at most NEWTON_STEPS); returns the
    point and the approximate inverse C at it (None: Jacobian numerically singular)."""
    last = math.inf
    C = None
    for _ in range(NEWTON_STEPS):
        C = _approx_inverse(B.jacobian(x), B.n)
        if C is None:
            return x, None
        dx = (C * B.values(x)).mid()
        size = max(float(d.abs_upper()) for d in dx.entries())
        scale = max(1.0, max(float(v.abs_upper()) for v in x))
        if not size < last:          # no longer improving (or NaN): keep the previous point
            break
        x = [(v - d).mid() for v, d in zip(x, dx.entries())]
        last = size
        if size <= 2.0 ** (-prec) * scale:
            C2 = _approx_inverse(B.jacobian(x), B.n)
            C = C if C2 is None else C2
            break
    return x, C


def _krawczyk(B: BallSystem, cand: list, x: list, prec: int) -> _Attempt:
    """One Krawczyk attempt at ``prec`` bits around a Newton refinement of x."""
    n = B.n
    x, C = _newton(B, x, prec)
    if C is None:
        return _Attempt(False, f"Jacobian numerically singular at the candidate ({prec} bits)", x)
    delta = C * B.values(x)                                   # C F(x̃), a ball vector
    inflate = 2.0 ** (9 if prec <= 64 else prec // 4)         # as HomotopyContinuation.jl
    floor = 2.0 ** (-prec) * inflate
    radii = []
    for k in range(n):
        step = float(delta[k, 0].abs_upper())
        gap = float((cand[k] - x[k]).abs_upper())             # the box must hold the candidate
        scale = max(1.0, float(x[k].abs_upper()))
        radii.append(max(inflate * step, 2.0 * gap, floor * scale))
    if not all(math.isfinite(r) for r in radii):
        return _Attempt(False, "non-finite values at the candidate", x)
    X = [acb(arb(v.real.mid(), r), arb(v.imag.mid(), r)) for v, r in zip(x, radii)]
    M = C * B.jacobian(X)
    for k in range(n):
        M[k, k] -= 1
    rows = [sum((M[i, j].abs_upper() for j in range(n)), arb(0)) for i in range(n)]
    if not all(r < NORM_BOUND for r in rows):
        bound = max(float(r.mid() + r.rad()) for r in rows)
        return _Attempt(False, f"||I - C J(X)|| >= 1 (bound {bound:.3g}) at {prec} "
                               f"bits: singular or ill-conditioned zero, or no zero near the "
                               f"candidate", x)
    dX = acb_mat(n, 1, [Xk - xk for Xk, xk in zip(X, x)])
    K = M * dX
    enclosure = [x[k] - delta[k, 0] - K[k, 0] for k in range(n)]
    box = acb_mat(n, 1, X)
    encl = acb_mat(n, 1, enclosure)
    if all(Xk.contains_interior(Kk) for Xk, Kk in zip(X, enclosure)):
        return _Attempt(True, "", x, box, encl)
    return _Attempt(False, f"K(X) not inside X at {prec} bits", x)


def _certify_one(B: BallSystem, point: np.ndarray, max_precision: int) -> tuple[_Attempt, int]:
    if not np.all(np.isfinite(point)):
        return _Attempt(False, "invalid candidate: non-finite coordinates"), 0
    x = None
    for prec in precisions(max_precision):
        with ctx.workprec(prec):
            cand = [acb(complex(z)) for z in point]
            attempt = _krawczyk(B, cand, x if x is not None else cand, prec)
        if attempt.certified:
            break
        x = attempt.x
    return attempt, prec


def precisions(max_precision: int) -> list[int]:
    """The precisions tried, in bits: 53, then 128, 192, ... up to ``max_precision``."""
    return [FIRST_PRECISION] + list(range(2 * PRECISION_STEP, max_precision + 1, PRECISION_STEP))


# ----------------------------------------------------------------------------- all candidates
def certify(F: PolynomialSystem, X, *, max_precision: int = 256) -> CertificationResult:
    """Prove that candidate points are approximate zeros of F, distinct, and real.

    Parameters
    ----------
    F : PolynomialSystem
        A square system (n equations in n variables); its coefficients are used exactly (a
        Fraction enters as a ball containing it).
    X : array_like, complex, shape (p, n) or (n,)
        The candidates, in the order of ``F.variables``.
    max_precision : int
        Highest precision in bits (>= 53) tried for a candidate that fails at 53 bits.

    Returns
    -------
    CertificationResult
        Per candidate a SolutionCertificate; counts certified, distinct, real, non-real.

    Raises
    ------
    ValueError
        F not square; X of the wrong shape; max_precision < 53.

    Examples
    --------
    >>> F = PolynomialSystem.from_strings(["x^3 - 8"])
    >>> r = certify(F, [[2], [-1 + 1.7320508075688772j], [-1 - 1.7320508075688772j]])
    >>> (r.certified, r.distinct, r.real)
    (3, 3, 1)

    References
    ----------
    Krawczyk 1969; Moore 1977; Rump 1983; Breiding–Rose–Timme 2020 (module docstring);
    the argument for complex boxes: docs/certification.md §1.
    """
    t0 = time.perf_counter()
    if F.n_equations != F.n_vars:
        raise ValueError(f"certify needs a square system, got {F.n_equations} equations in "
                         f"{F.n_vars} variables")
    if max_precision < FIRST_PRECISION:
        raise ValueError(f"max_precision must be >= {FIRST_PRECISION} bits, got {max_precision}")
    P = np.asarray(X, dtype=complex)
    if P.ndim == 1 and P.size == F.n_vars:
        P = P[None, :]
    if P.ndim != 2 or P.shape[1] != F.n_vars:
        raise ValueError(f"candidates must have shape (p, {F.n_vars}), got {np.shape(X)}")
    B = BallSystem(F)
    real_system = F.has_real_coefficients
    raw = [_certify_one(B, x, max_precision) for x in P]
    dup_of, groups, undecided = _distinct(raw)
    certs = []
    for k, ((a, prec), x) in enumerate(zip(raw, P)):
        certs.append(_certificate(k, a, prec, x, dup_of.get(k), real_system))
    certs = _share_realness(certs, groups)
    distinct, real, nonreal = _count(certs, groups, undecided)
    return CertificationResult(F.variables, tuple(certs), distinct, real, nonreal,
                               tuple(tuple(g) for g in groups if len(g) > 1),
                               tuple(undecided), real_system, max_precision,
                               time.perf_counter() - t0)


def _certificate(k, a: _Attempt, prec, x, dup, real_system) -> SolutionCertificate:
    if not a.certified:
        return SolutionCertificate(k, False, None, None, math.inf, math.inf, prec,
                                   np.full(len(x), np.nan + 0j), a.reason)
    with ctx.workprec(prec):
        enc = a.enclosure.entries()
        box = a.box.entries()
        real = None
        if any(not e.imag.contains(0) for e in enc):
            real = False
        elif real_system and all(b.contains(e.conjugate()) for b, e in zip(box, enc)):
            real = True
        center = np.array([complex(e.mid()) for e in enc])
        return SolutionCertificate(k, True, real, dup, _radius(box), _radius(enc), prec,
                                   center, "", a.box, a.enclosure)


def _radius(balls: list) -> float:
    return max(max(float(b.real.rad()), float(b.imag.rad())) for b in balls)


def _float_bounds(raw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices of certified candidates and outward-rounded float bounds (c, 2n) of their
    enclosures (real and imaginary parts), widened by 4 ulps so that float rounding of the
    midpoints and radii can only make them overlap more."""
    idx = [k for k, (a, _) in enumerate(raw) if a.certified]
    n2 = 2 * (raw[idx[0]][0].enclosure.nrows() if idx else 0)
    lo, hi = np.zeros((len(idx), n2)), np.zeros((len(idx), n2))
    for r, k in enumerate(idx):
        for j, e in enumerate(raw[k][0].enclosure.entries()):
            for part, b in ((0, e.real), (1, e.imag)):
                m, rad = float(b.mid()), float(b.rad())
                slack = 4 * np.finfo(float).eps * (abs(m) + rad) + 1e-300
                lo[r, 2 * j + part], hi[r, 2 * j + part] = m - rad - slack, m + rad + slack
    return np.array(idx, dtype=int), lo, hi


def _overlapping_pairs(lo: np.ndarray, hi: np.ndarray, block: int = 512) -> list:
    """Pairs (a < b) of rows whose float boxes overlap in every coordinate (blocked, O(c^2))."""
    pairs = []
    c = len(lo)
    for s in range(0, c, block):
        ov = np.ones((min(block, c - s), c), dtype=bool)
        for j in range(lo.shape[1]):
            ov &= (lo[s:s + block, j][:, None] <= hi[None, :, j]) & \
                  (lo[None, :, j] <= hi[s:s + block, j][:, None])
        a, b = np.nonzero(ov)
        a = a + s
        keep = a < b
        pairs += list(zip(a[keep].tolist(), b[keep].tolist()))
    return pairs


def _distinct(raw):
    """Proved duplicates and undecided pairs among certified candidates.

    Returns (duplicate_of {k: first index of its group}, groups (lists of candidate indices,
    one per proved-same zero), undecided pairs (k, l))."""
    idx, lo, hi = _float_bounds(raw)
    same, undecided = [], []
    for a, b in _overlapping_pairs(lo, hi):
        ka, kb = int(idx[a]), int(idx[b])
        A, Bb = raw[ka][0], raw[kb][0]
        prec = max(raw[ka][1], raw[kb][1])
        with ctx.workprec(prec):
            if not A.enclosure.overlaps(Bb.enclosure):
                continue
            if A.box.contains(Bb.enclosure) or Bb.box.contains(A.enclosure):
                same.append((ka, kb))
            else:
                undecided.append((ka, kb))
    groups = _components(idx, same)
    dup_of = {k: g[0] for g in groups for k in g[1:]}
    return dup_of, groups, undecided


def _components(idx: np.ndarray, edges: list) -> list[list[int]]:
    """Connected components (sorted lists of candidate indices) of the graph on ``idx``."""
    if len(idx) == 0:
        return []
    pos = {int(k): r for r, k in enumerate(idx)}
    rows = [pos[a] for a, _ in edges]
    cols = [pos[b] for _, b in edges]
    G = coo_matrix((np.ones(len(edges)), (rows, cols)), shape=(len(idx), len(idx)))
    _, label = connected_components(G, directed=False)
    out: dict[int, list[int]] = {}
    for r, lab in enumerate(label):
        out.setdefault(int(lab), []).append(int(idx[r]))
    return sorted((sorted(g) for g in out.values()), key=lambda g: g[0])


def _share_realness(certs: list, groups: list) -> list:
    """Candidates proved to approximate one zero share a proved realness verdict."""
    from dataclasses import replace
    for g in groups:
        verdicts = {certs[k].real for k in g} - {None}
        if len(verdicts) == 1:
            v = verdicts.pop()
            for k in g:
                certs[k] = replace(certs[k], real=v)
    return certs


def _count(certs, groups, undecided) -> tuple[int, int, int]:
    """Distinct zeros (groups joined by undecided pairs count once) and how many of them are
    proved real / non-real (a merged class counts only when all its groups agree)."""
    if not groups:
        return 0, 0, 0
    first = {k: g[0] for g in groups for k in g}
    heads = np.array(sorted(set(first.values())), dtype=int)
    classes = _components(heads, [(first[a], first[b]) for a, b in undecided])
    real = nonreal = 0
    for cl in classes:
        v = {certs[k].real for k in cl}
        real += v == {True}
        nonreal += v == {False}
    return len(classes), real, nonreal
