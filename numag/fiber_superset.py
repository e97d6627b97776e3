"""Witness supersets of a whole fiber system, dimension by dimension, by a linear-product solve.

For a system F in n unknowns and a dimension k, a *witness superset* is a finite set of points
of V(F) that contains L ∩ Z for every k-dimensional irreducible component Z of V(F), L a
generic affine slice of codimension k (plus "junk": points on components of dimension > k).
It is computed without any known point of V(F): the randomized, sliced system [R F; L] (n − k
random complex combinations of the equations, row-equilibrated) is square, and every isolated
solution of it is the end of a path of a homotopy from a start system of the same structure
(Sommese–Wampler 2005, Thm. 13.3.1 and §13.5; gamma trick, Lemma 7.1.3).

**Torus gauge** (derived; paper-notes §3.3). The exponents of F's monomials define the largest
diagonal torus T = {λ : λ^e = 1 for every exponent e} that leaves every equation, hence V(F),
invariant (computed exactly: the integer null space of the exponent matrix). Its orbits in the
fiber of a point φ ≠ 0 of a lightning network are free on every component, and each gauge class
(variables with the same weights under T: a row of Q_i or K_i, a row or column of V_i, ...) is
not identically zero on any component (a zero class forces a zero block, hence φ = 0). So with
one generic gauge equation ℓ_c(x_c) = 1 for each of t = dim T classes whose weights are
independent, every k-dimensional component Z meets {ℓ = 1} in a nonempty set of dimension
k − t, each T-orbit in finitely many points, and Z ↦ Z ∩ {ℓ = 1} is a bijection of components.
The witness superset at dimension k is then computed with t gauge rows and k − t slice rows:
far fewer paths, e.g. 56 instead of 868 for the generic fiber of (2, 3, 1).

**Start system.** With the unknowns split into groups (the weight blocks) and D_g the largest
degree of an equation of F in group g, every combination of the equations lies in the span of
products Π_g Π_{j < D_g} ℓ_{gj}, ℓ_{gj} affine in group g: the linear-product start system
(Sommese–Wampler 2005, §8.4.3, Thm. 8.4.7) takes one random such product per randomized equation
and the gauge and slice rows as they are. Its solutions are enumerated (one linear solve per
choice of a factor in each equation; a choice is solvable iff no group gets more rows than it
has unknowns), their number is the linear-product root count.

**Paths.** All paths are tracked by the engine (witness.tracking.track) without detours
(``reroute=False``: the solve needs the path-to-path correspondence) and first without the
endgame. A path that reaches s = 1 within the engine's at_infinity_tol of the hyperplane at
infinity (|x0|/|X| < 1e-8, the engine's own "at infinity" rule) but whose endpoint Newton does not
converge (a singular point at infinity) is counted at infinity; every other failed path is
tracked again with the Cauchy endgame (finite singular endpoints: non-reduced components or
junk), with tight steps if it failed before the endgame zone, and once more with up to
ENDGAME_MAX_WINDING loops if the endgame failed. Two regular endpoints that are the
same point (a path jumped; witness.distinct, found with a KD-tree instead of all pairs) are
tracked again with tight steps; a path still failed or colliding is counted as failed, and with
any failed path the superset may miss a point: the whole solve is then repeated with a fresh
gamma (up to ATTEMPTS runs).

**Points on F.** A finite endpoint is a point of V(F) when its backward error on F
(``PolynomialSystem.residual``: |f(x)| over the sum of the terms' sizes with every coordinate
counted as at least 1) is below ``PointOptions.residual_tol``; with a torus gauge it is taken at
the representative of the point's torus orbit whose gauge classes have norms closest to 1
(``Torus.balance``). V(F) and |F| are invariant under the torus, the measure is not: a point
with one class tiny and the others large has moderate monomials, but the measure counts the
tiny coordinates as 1 and so divides by terms inflated by 1/(their size). Measured (widths
2,1,2 ranks 1,1, seed 0, dim-6 superset: ``numag fiber --widths 2,1,2 --ranks 1,1
--complete-paths 3100``): the Cauchy estimate of two paths (winding 7) was x with V_2 ~ 4e-10
and |Q_1|, |V_1| ~ 250, 700, where |F(x)| = 2e6 (every monomial of F contains an entry of V_2:
F(x) is nearly -φ_W0) yet the backward error was 1.8e-10 < 1e-9: the point was reported on the
fiber and on no component (complete False). (Tracked radially, the two paths settle only below
|1 - s| ~ 1e-13, at |x| ~ 110 with V_2 ~ 4e-10: off F as well; the endgame accepted the estimate
by the same unbalanced measure.) At the balanced representative it is 1.0 (off F); at the fiber's
true witness points 3e-16 (unbalanced 1e-17). Without a torus gauge (φ_W0 = 0) no class is
bounded away from 0 on the fiber, and nothing is balanced.

**Time budget.** With a deadline, paths are tracked in batches of about BATCH_SECONDS and no
batch, attempt or re-track is started after it; the result is then ``interrupted`` and proves
nothing.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import flint
import numpy as np
from scipy.spatial import cKDTree

from witness import distinct
from witness.homotopy import Homotopy, infinity_ratio, straight_line_homotopy
from witness.options import Options, resolve
from witness.program import emit_program, trace
from witness.program_system import ProgramSystem, as_program
from witness.tracking import FailureReason, PathStatus, random_gamma, track
from witness.witness_set import random_complex, random_slice, square_part

TIGHT = dict(max_step=0.05, max_predictor_error=1e-4)    # re-tracking collided paths
# endgame loops for the paths whose endgame failed with the default max_winding (measured:
# winding numbers up to 30 at infinity, (2, 1, 1)). Not for every endgame path: paths ending on
# positive-dimensional junk do not close at wide radii and each radius then costs max_winding
# loops (2,1 zero fiber, seed 0, 152 endgame paths: 254 s with 40 for all, 5.7 s with 12)
ENDGAME_MAX_WINDING = 40


@dataclass(frozen=True)
class VariableGroup:
    """A block of unknowns (indices into the system's variables), named for messages."""

    name: str
    indices: tuple[int, ...]


# ----------------------------------------------------------------------------- structure
def multidegree(F, groups) -> np.ndarray:
    """Largest degree of any equation of F (expanded) in each group: int (G,).

    Raises
    ------
    ValueError
        the groups do not partition F's variables.
    """
    cover = sorted(i for g in groups for i in g.indices)
    if cover != list(range(F.n_vars)):
        raise ValueError("the variable groups must partition the system's variables")
    D = np.zeros(len(groups), int)
    for p in F.polynomials:
        for e in p:
            D = np.maximum(D, [sum(e[i] for i in g.indices) for g in groups])
    return D


@dataclass(frozen=True)
class Torus:
    """The diagonal torus leaving every equation of F invariant (module docstring).

    weights : int (n, t), the cocharacters (a basis of the integer null space of the exponent
        matrix): λ(s) = s^weights acts on the unknowns. classes : the gauge classes, unknowns
        with equal weight rows. gauge : indices of t classes with independent weights.
    """

    weights: np.ndarray = field(repr=False)
    classes: tuple[tuple[int, ...], ...]
    gauge: tuple[int, ...]

    @property
    def dim(self) -> int:
        return self.weights.shape[1]

    @property
    def rows(self) -> int:
        """Gauge rows used (one per class in ``gauge``)."""
        return len(self.gauge)

    def balance(self, X: np.ndarray) -> np.ndarray:
        """The representative of each point's orbit under the positive real part of the torus
        whose gauge-class norms are closest to 1 (least squares in log |x_c|; classes of norm 0
        or not finite are left out): complex (p, n) -> (p, n). F(λ·x) = F(x) for λ in the
        torus, so the point is on V(F) iff its representative is (module docstring, "Points on
        F")."""
        X = np.atleast_2d(np.asarray(X, complex))
        out = X.copy()
        if not self.dim:
            return out
        W = np.array([self.weights[c[0]] for c in self.classes], float)     # (classes, t)
        cols = [list(c) for c in self.classes]
        with np.errstate(divide="ignore", invalid="ignore"):
            for i, x in enumerate(X):
                norms = np.array([np.linalg.norm(x[c]) for c in cols])
                ok = np.isfinite(norms) & (norms > 0)
                if not ok.any():
                    continue
                mu = np.linalg.lstsq(W[ok], -np.log(norms[ok]), rcond=None)[0]
                out[i] = x * np.exp(self.weights.astype(float) @ mu)
        return out


# full runs with fresh gammas while paths fail (measured: the dim-3 superset of the 2,1 a = 1
# fiber, seed 0, had 1 failed path of 34 on its first gamma, which left completeness unproven)
ATTEMPTS = 3

def diagonal_torus(F, groups=None) -> Torus:
    """The torus of ``Torus`` from F's exponents (exact: python-flint null space over Z).

    With ``groups``, gauge classes are chosen only among classes inside one group (the
    linear-product root count takes a gauge row off its group's unknowns); ``gauge`` may then
    have fewer than ``dim`` classes."""
    exps = sorted({e for p in F.polynomials for e in p if any(e)})
    n = F.n_vars
    if not exps:
        return Torus(np.zeros((n, 0), int), tuple((i,) for i in range(n)), ())
    N, t = flint.fmpz_mat([[int(x) for x in e] for e in exps]).nullspace()
    W = np.array([[int(N[i, j]) for j in range(t)] for i in range(n)], dtype=np.int64)
    classes: dict[tuple, list[int]] = {}
    for i, row in enumerate(W):
        classes.setdefault(tuple(row), []).append(i)
    cls = tuple(tuple(v) for v in classes.values())
    gauge, rows = [], []
    owner = {}
    for g, grp in enumerate(groups or ()):
        owner.update({i: g for i in grp.indices})
    for c, idx in enumerate(cls):           # greedily, classes with independent weights
        if groups is not None and len({owner[i] for i in idx}) > 1:
            continue
        cand = rows + [[int(v) for v in W[idx[0]]]]
        if flint.fmpz_mat(cand).rank() == len(cand):
            rows, gauge = cand, gauge + [c]
        if len(gauge) == t:
            break
    return Torus(W, cls, tuple(gauge))


def linear_product_count(sizes, degrees, m: int) -> int:
    """Solutions of the linear-product start system: m equations, each a product of
    degrees[g] affine forms in group g, group g with sizes[g] free unknowns (its unknowns minus
    its gauge rows), the rest general affine rows. Sum over choices of one factor per equation
    with at most sizes[g] choices in group g (module docstring)."""
    total = 0

    def rec(g: int, left: int, weight: int) -> None:
        nonlocal total
        if g == len(sizes):
            total += weight if left == 0 else 0
            return
        top = min(int(sizes[g]), left) if degrees[g] else 0
        for c in range(0, max(top, -1) + 1):
            rec(g + 1, left - c, weight * math.comb(left, c) * int(degrees[g]) ** c)
    rec(0, m, 1)
    return total


# ----------------------------------------------------------------------------- result
@dataclass(frozen=True)
class Superset:
    """A witness superset of V(F) at one dimension (module docstring).

    Attributes
    ----------
    dim : int
    square : the n − dim randomized equations R F (original F)
    slice_A, slice_b : complex (dim, n), (dim,): all linear rows (gauge rows first)
    gauge_rows : how many of them are gauge rows
    points : complex (p, n): distinct finite endpoints on F (backward error below
        residual_tol, torus-balanced: ``on_system_residual``), regular ones first
    regular : bool (p,); multiplicity : int (p,), paths that ended there; accuracy (p,)
    counts : paths, regular (on F), singular (on F), at_infinity, failed, off_system (finite
        endpoints not on F: solutions of the randomization only), collisions, ...
    root_count : linear-product root count (= paths); seconds; seed
    """

    dim: int
    square: object = field(repr=False)
    slice_A: np.ndarray = field(repr=False)
    slice_b: np.ndarray = field(repr=False)
    gauge_rows: int
    points: np.ndarray = field(repr=False)
    regular: np.ndarray = field(repr=False)
    multiplicity: np.ndarray = field(repr=False)
    accuracy: np.ndarray = field(repr=False)
    counts: dict
    root_count: int
    seconds: float
    seed: int

    @property
    def failed(self) -> int:
        return self.counts["failed"]

    @property
    def interrupted(self) -> bool:
        """The deadline stopped the solve (paths not tracked, or no further gamma tried)."""
        return bool(self.counts.get("interrupted"))

    def to_json(self) -> dict:
        return {"dim": self.dim, "gauge_rows": self.gauge_rows, "points": len(self.points),
                "regular_points": int(self.regular.sum()), "counts": self.counts,
                "start": "linear product", "root_count": self.root_count,
                "seconds": round(self.seconds, 2), "seed": self.seed}


# ----------------------------------------------------------------------------- start system
def _factors(groups, D, m, rng):
    """factors[i][g] = (coefficients (D_g, |g|), constants (D_g,)) of equation i."""
    return [[(random_complex(rng, int(D[g]), len(grp.indices)), random_complex(rng, int(D[g])))
             for g, grp in enumerate(groups)] for _ in range(m)]


def _affine(b, row, rhs, x):
    nz = np.flatnonzero(row)
    return b.sub(b.linear_combination([complex(row[j]) for j in nz], [x[j] for j in nz]),
                 complex(rhs))


def _start_program(groups, D, factors, L, r_L, names) -> ProgramSystem:
    n = len(names)

    def equations(x, _c):
        b = x[0].builder
        out = []
        for fi in factors:
            prod = None
            for g, grp in enumerate(groups):
                C, c0 = fi[g]
                xs = [x[v] for v in grp.indices]
                for j in range(int(D[g])):
                    f = b.add(b.linear_combination([complex(v) for v in C[j]], xs),
                              complex(c0[j]))
                    prod = f if prod is None else b.mul(prod, f)
            out.append(prod)
        return out + [_affine(b, row, rhs, x) for row, rhs in zip(L, r_L)]
    return ProgramSystem(trace(equations, n, names=names), names)


def _compositions(caps, m):
    """Count vectors c (c_g ≤ caps[g], Σ c = m)."""
    if not len(caps):
        if m == 0:
            yield ()
        return
    for c in range(min(int(caps[0]), m), -1, -1):
        for rest in _compositions(caps[1:], m - c):
            yield (c,) + rest


def _arrangements(counts):
    """Every sequence with counts[g] copies of g (multiset permutations), as rows."""
    m = sum(counts)
    seqs = [np.full(m, -1)]
    for g, c in enumerate(counts):
        if not c:
            continue
        nxt = []
        for s in seqs:
            free = np.flatnonzero(s < 0)
            for pos in itertools.combinations(free, c):
                t = s.copy()
                t[list(pos)] = g
                nxt.append(t)
        seqs = nxt
    return np.array(seqs, int).reshape(-1, m)


def start_points(groups, D, caps, factors, L, r_L, chunk: int = 20000) -> np.ndarray:
    """All solutions of the start system (root_count, n)."""
    n = L.shape[1]
    m = len(factors)
    out = []
    usable = np.where(D > 0, caps, 0)
    for counts in _compositions(usable, m):
        for assign in _arrangements(counts):
            choices = [range(int(D[g])) for g in assign]
            combos = np.array(list(itertools.product(*choices)), int).reshape(-1, m)
            for lo in range(0, len(combos), chunk):
                cb = combos[lo:lo + chunk]
                M = np.zeros((len(cb), n, n), complex)
                r = np.zeros((len(cb), n), complex)
                for i, g in enumerate(assign):
                    C, c0 = factors[i][g]
                    M[:, i, list(groups[g].indices)] = C[cb[:, i]]
                    r[:, i] = -c0[cb[:, i]]
                M[:, m:, :] = L
                r[:, m:] = r_L
                out.append(np.linalg.solve(M, r[..., None])[..., 0])
    return np.concatenate(out) if out else np.zeros((0, n), complex)


def root_count(F, groups, dim: int, torus: Torus | None) -> int:
    """The linear-product root count of ``witness_superset(F, groups, dim, torus)``."""
    D = multidegree(F, groups)
    return linear_product_count(_caps(groups, torus, F.n_vars), D, F.n_vars - dim)


def _caps(groups, torus: Torus | None, n: int) -> np.ndarray:
    caps = np.array([len(g.indices) for g in groups])
    owner = np.empty(n, int)
    for g, grp in enumerate(groups):
        owner[list(grp.indices)] = g
    for c in (torus.gauge if torus else ()):
        caps[owner[torus.classes[c][0]]] -= 1
    return caps


# ----------------------------------------------------------------------------- the solve
def witness_superset(F, groups, dim: int, seed: int = 0, torus: Torus | None = None,
                     options: Options | None = None, deadline: float | None = None
                     ) -> Superset:
    """Witness superset of V(F) at dimension ``dim`` (module docstring).

    Parameters
    ----------
    F : PolynomialSystem
        Expanded, at least n − dim equations; endpoints are judged on it.
    groups : sequence of VariableGroup
        A partition of F's unknowns (the weight blocks); each gauge class lies in one group.
    dim : int, torus.dim ≤ dim < n
    seed : int
        Slices, gauge rows, randomization, start system, gamma (recorded).
    torus : Torus or None
        Gauge rows for its classes ``torus.gauge`` (valid where the module docstring says:
        the fiber of φ ≠ 0); None: slices only.
    deadline : float or None
        time.perf_counter() time after which no further batch of paths (and no further
        attempt) is started; an interrupted solve has ``interrupted`` True and
        counts["tracked"] < counts["paths"], and proves nothing.

    Returns
    -------
    Superset

    Raises
    ------
    ValueError
        dim out of range, too few equations, groups not a partition.
    """
    t0 = time.perf_counter()
    opt = resolve(options)
    n = F.n_vars
    t = torus.rows if torus else 0
    if not t <= dim < n:
        raise ValueError(f"dim must be in {t}..{n - 1} (torus of dimension {t}), got {dim}")
    rng = np.random.default_rng(seed)
    G = square_part(F, dim, rng)
    m = n - dim
    D = multidegree(F, groups)
    rows = []
    for c in (torus.gauge if torus else ()):
        row = np.zeros(n, complex)
        idx = list(torus.classes[c])
        row[idx] = random_complex(rng, len(idx))
        rows.append(row)
    A, b = random_slice(rng, dim - t, n)
    L = np.vstack(rows + [A]) if rows else A
    r_L = np.concatenate([np.ones(t, complex), b])
    factors = _factors(groups, D, m, rng)
    X0 = start_points(groups, D, _caps(groups, torus, n), factors, L, r_L)
    S = _start_program(groups, D, factors, L, r_L, F.variables)
    target = _sliced(G, L, r_L)
    prog, best = straight_line_homotopy(target, S), None
    for attempt in range(1, ATTEMPTS + 1):     # a fresh gamma while paths fail: each run is a
        gamma = random_gamma(rng)              # complete homotopy of its own (gamma trick)
        H = Homotopy(prog, [[gamma]], n, F, gamma, "linear product")
        E, status, acc, counts = _track_all(H, X0, opt, rng, deadline)
        counts["attempts"] = attempt
        if counts.get("interrupted"):
            best = (E, status, acc, counts) if best is None else best
            best[3].update(interrupted=True, interrupted_attempt=attempt,
                           interrupted_tracked=counts["tracked"])
            break
        if best is None or counts["failed"] < best[3]["failed"]:
            best = (E, status, acc, counts)
        if best[3]["failed"] == 0:
            break
        if deadline is not None and time.perf_counter() >= deadline:
            best[3]["interrupted"] = True        # failed paths and no time for a fresh gamma
            best[3]["interrupted_attempt"] = attempt + 1
            break
    E, status, acc, counts = best
    counts["attempts_run"] = attempt          # counts["attempts"]: the run kept (fewest failed)
    on = np.isin(status, (PathStatus.REGULAR, PathStatus.SINGULAR)) & \
        (on_system_residual(F, np.where(np.isfinite(E), E, 0), torus)
         < opt.points.residual_tol)
    fin = np.isin(status, (PathStatus.REGULAR, PathStatus.SINGULAR))
    counts.update(off_system=int((fin & ~on).sum()),
                  regular=int((on & (status == PathStatus.REGULAR)).sum()),
                  singular=int((on & (status == PathStatus.SINGULAR)).sum()))
    pts, reg, mult, pacc = _distinct_points(E[on], status[on] == PathStatus.REGULAR, acc[on],
                                            opt)
    counts["distinct_points"] = len(pts)
    return Superset(dim, G, L, r_L, t, pts, reg, mult, pacc, counts, len(X0),
                    time.perf_counter() - t0, seed)


def on_system_residual(F, X: np.ndarray, torus: Torus | None) -> np.ndarray:
    """Backward error on F (``PolynomialSystem.residual``) of the points X (p, n), at their
    torus-balanced representatives (``Torus.balance``) when a torus gauge is used (module
    docstring, "Points on F"): float (p,)."""
    if torus is None or not len(X):
        return F.residual(X) if len(X) else np.zeros(0)
    return F.residual(torus.balance(X))


def _sliced(G, L, r_L) -> ProgramSystem:
    """[G; L x − r_L] as one program (G's randomization evaluated through its original)."""
    P = as_program(G)

    def equations(x, _c):
        b = x[0].builder
        return emit_program(b, P, x) + [_affine(b, row, rhs, x) for row, rhs in zip(L, r_L)]
    return ProgramSystem(trace(equations, G.n_vars, names=G.variables), G.variables)


def _track_all(H, X0, opt: Options, rng, deadline: float | None = None):
    """Endpoints (affine, NaN at infinity), statuses and accuracies of all paths (module
    docstring: endgame only where needed, collisions re-tracked), and the counts.

    No detours (``track(reroute=False)``): a path along a detour in s is a path of a different
    homotopy route, whose endpoints are the same solution set in another order (monodromy), so
    one detoured path among straight ones can land on another path's endpoint and leave its own
    solution unreached. Measured (2,1 u ∥ w fiber, seed 0, dim-2 superset): every failure was at
    s = 1 (endpoint_tol at |x| ~ 1e8, or min_step at a singular endpoint), their detours ended
    on other paths' regular endpoints, and those collisions were the failed paths. A failed path
    goes to the endgame instead, with tight steps if it failed before the endgame zone.

    With a ``deadline`` (perf_counter time), paths are tracked in batches and no batch is
    started after it: counts["interrupted"] then says the solve was cut short (the endpoints of
    untracked paths are NaN with status FAILED)."""
    p = len(X0)
    tight = Options(opt.tracker.with_(**TIGHT), opt.points, opt.trace, opt.rank)
    tr = _batches(H, X0, opt, rng, deadline, endgame=False)
    E, Xh = tr["endpoints"].copy(), tr["projective"]
    status, acc = tr["status"].copy(), tr["accuracy"].copy()
    why = {"reasons": tr["reasons"].copy(), "s_reached": tr["s_reached"].copy(),
           "infinity_ratio": infinity_ratio(np.nan_to_num(Xh))}
    counts = {"paths": p, "tracked": tr["done"]}
    if tr["done"] < p:
        counts.update(interrupted=True, failed=p - tr["done"])
        return E, status, acc, counts
    failed = status == PathStatus.FAILED
    near_inf = failed & (tr["s_reached"] >= 1) & \
        (infinity_ratio(Xh) < opt.tracker.at_infinity_tol)
    status[near_inf] = PathStatus.AT_INFINITY
    E[near_inf] = np.nan
    counts["at_infinity_unconverged"] = int(near_inf.sum())
    redo = status == PathStatus.FAILED
    early = redo & (tr["s_reached"] < 1 - opt.tracker.endgame_start)
    counts.update(endgame_paths=int(redo.sum()), failed_before_endgame_zone=int(early.sum()))
    wide = Options(opt.tracker.with_(max_winding=max(opt.tracker.max_winding,
                                                     ENDGAME_MAX_WINDING)),
                   opt.points, opt.trace, opt.rank)
    for which, o in ((redo & ~early, opt), (early, tight), (None, wide)):
        idx = np.flatnonzero(status == PathStatus.FAILED if which is None else which)
        if len(idx) and not _redo(E, status, acc, why, idx, H, X0, o, rng, deadline, counts):
            return E, status, acc, counts
    counts["endgame_wide_paths"] = len(idx)
    jumped = _collisions(E, status, acc, opt)
    counts["collisions"] = int(jumped.sum())
    others = np.flatnonzero(jumped)
    if len(others):
        if not _redo(E, status, acc, why, others, H, X0, tight, rng, deadline, counts):
            return E, status, acc, counts
        still = _collisions(E, status, acc, opt)
        status[still] = PathStatus.FAILED
        why["reasons"][still] = FailureReason.COLLISION.value
    counts.update(at_infinity=int((status == PathStatus.AT_INFINITY).sum()),
                  failed=int((status == PathStatus.FAILED).sum()))
    counts.update(_failure_report(status, why))
    E[status == PathStatus.FAILED] = np.nan
    return E, status, acc, counts


def _redo(E, status, acc, why, idx, H, X0, opt, rng, deadline, counts) -> bool:
    """Track the paths idx again with the endgame; False when the deadline cut it short."""
    r = _batches(H, X0[idx], opt, rng, deadline, endgame=True)
    _update(E, status, acc, idx, r)
    why["reasons"][idx], why["s_reached"][idx] = r["reasons"], r["s_reached"]
    why["infinity_ratio"][idx] = infinity_ratio(np.nan_to_num(r["projective"]))
    if r["done"] < len(idx):
        counts.update(interrupted=True, failed=int((status == PathStatus.FAILED).sum()))
        return False
    return True


# with a deadline, a batch of paths is sized to take about this long (from the time per path
# of the batches before it), so that the deadline is overrun by about this much at most: a
# batch, once started, runs to its end. Endgame paths are slower and more variable than
# first routes, so their batches start from one path.
BATCH_SECONDS = 1.0


def _batches(H, X0, opt: Options, rng, deadline: float | None, endgame: bool) -> dict:
    """track(reroute=False) on X0 (all at once without a deadline, else in batches; no batch is
    started after the deadline). Returns endpoints, projective, status, accuracy, s_reached
    (rows of paths not tracked: NaN / FAILED / inf / 0), done (paths tracked)."""
    p, n = X0.shape
    out = {"endpoints": np.full((p, n), np.nan + 0j),
           "projective": np.full((p, n + 1), np.nan + 0j),
           "status": np.full(p, PathStatus.FAILED.value, dtype="<U12"),
           "accuracy": np.full(p, np.inf), "s_reached": np.zeros(p),
           "reasons": np.full(p, "", dtype="<U20"), "done": 0}
    lo, size, spent = 0, (p if deadline is None else 1 if endgame else 8), 0.0
    while lo < p and (deadline is None or time.perf_counter() < deadline):
        idx = np.arange(lo, min(p, lo + size))
        t = time.perf_counter()
        tr = track(H, X0[idx], opt, endgame=endgame, reroute=False,
                   groups=np.arange(len(idx)), rng=rng)    # own groups: no O(p²) search
        out["endpoints"][idx], out["projective"][idx] = tr.endpoints, tr.projective
        out["status"][idx], out["accuracy"][idx] = tr.status, tr.accuracy
        out["s_reached"][idx], out["reasons"][idx] = tr.s_reached, tr.reasons
        spent += time.perf_counter() - t
        lo = out["done"] = int(idx[-1]) + 1
        size = max(1, min(2 * size, int(BATCH_SECONDS * lo / max(spent, 1e-3))))
    return out


def _failure_report(status, why: dict, show: int = 8) -> dict:
    """Why and where the failed paths failed (FailureReason counts; for the first ``show``:
    the s reached on the last tracking and |x0|/|X| there, to tell endgame failures near
    infinity from finite ones)."""
    bad = np.flatnonzero(status == PathStatus.FAILED)
    if not len(bad):
        return {}
    reasons: dict[str, int] = {}
    for r in why["reasons"][bad]:
        reasons[str(r) or "unknown"] = reasons.get(str(r) or "unknown", 0) + 1
    return {"failed_reasons": reasons,
            "failed_where": [{"reason": str(why["reasons"][i]),
                              "s_reached": round(float(why["s_reached"][i]), 6),
                              "infinity_ratio": float(f"{why['infinity_ratio'][i]:.2e}")}
                             for i in bad[:show]]}


def _update(E, status, acc, idx, tr: dict) -> None:
    E[idx], status[idx], acc[idx] = tr["endpoints"], tr["status"], tr["accuracy"]


def _collisions(E, status, acc, opt: Options) -> np.ndarray:
    """Regular endpoints that are the same point as (or undecided against) another regular
    endpoint (witness.distinct), candidate pairs from a KD-tree on the normalized homogeneous
    coordinates (1, x)/|(1, x)| (relative distance d < different_tol = 1e-3 implies a distance
    below 4e-3 there, searched with radius 1e-2)."""
    reg = np.flatnonzero((status == PathStatus.REGULAR) & np.all(np.isfinite(E), axis=1))
    out = np.zeros(len(E), bool)
    if len(reg) < 2:
        return out
    X = E[reg]
    Xh = np.hstack([np.ones((len(X), 1)), X]) / np.sqrt(1 + np.sum(np.abs(X) ** 2, axis=1))[:, None]
    pairs = cKDTree(np.hstack([Xh.real, Xh.imag])).query_pairs(1e-2, output_type="ndarray")
    if not len(pairs):
        return out
    e = distinct.error_estimates(acc[reg], len(reg), opt.points)
    i, j = pairs[:, 0], pairs[:, 1]
    d = np.linalg.norm(X[i] - X[j], axis=1) / (1 + np.linalg.norm(X[j], axis=1))
    codes = np.array([distinct.compare(np.array([[dd]]), e[a:a + 1], e[b:b + 1], opt.points)[0, 0]
                      for dd, a, b in zip(d, i, j)])
    bad = codes != distinct.DIFFERENT
    out[reg[i[bad]]] = True
    out[reg[j[bad]]] = True
    return out


def _distinct_points(E, regular, acc, opt):
    """Merge endpoints that are the same point (singular endpoints reached by several paths):
    (points, regular, multiplicity, accuracy), regular points first."""
    if not len(E):
        z = np.zeros(0)
        return E, z.astype(bool), z.astype(int), z
    order = np.argsort(~regular, kind="stable")
    E, regular, acc = E[order], regular[order], acc[order]
    err = distinct.error_estimates(acc, len(E), opt.points)
    keep: list[int] = []
    mult: list[int] = []
    for i in range(len(E)):
        if keep:
            C = distinct.compare(distinct.relative_distances(E[i:i + 1], E[keep]),
                                 err[i:i + 1], err[keep], opt.points)[0]
            same = np.flatnonzero(C != distinct.DIFFERENT)
            if len(same):
                mult[same[0]] += 1
                continue
        keep.append(i)
        mult.append(1)
    return E[keep], regular[keep], np.array(mult), acc[keep]


__all__ = ["VariableGroup", "Torus", "Superset", "diagonal_torus", "multidegree",
           "linear_product_count", "root_count", "witness_superset", "on_system_residual",
           "FailureReason"]
