"""Numerical irreducible decomposition: PHCpack's cascade, checked and repaired.

``decompose(F)`` runs PHCpack's ``polysys_solve`` (embedding + cascade + filter + monodromy
factorization, Sommese–Verschelde 2000, Sommese–Verschelde–Wampler 2001) for several seeds in
parallel, and does not pass its output through: measured on this build, it keeps junk points on
higher-dimensional components, drops true isolated points and misses whole curves, differently
for each seed. Per dimension, from the top down, for every run:

1. every witness point is Newton-refined on [F (squared); slice] and checked on the ORIGINAL
   equations (componentwise backward error < ``RESIDUAL_TOL``); failures are dropped and counted
   (this also removes the spurious points of a randomization and the fake solutions PHCpack
   reports for inconsistent systems);
2. junk is removed: points that the homotopy membership test puts on an accepted component of
   higher dimension;
3. PHCpack's factors (parsed from its printed output) are checked by our linear trace test; when
   one fails or is missing, the points are regrouped by our own monodromy (``monodromy.py``),
   which also adds witness points PHCpack missed;
4. components from different seeds are merged by membership tests (same dimension and degree,
   and a witness point of one is a member of the other); a component found by only some runs is
   kept (it is certified by its own trace test);
5. missed components are recovered from a fresh random slice per dimension d: the isolated
   solutions of [n - d random combinations of F; d random linear equations] (PHCpack's blackbox
   solver, run in parallel with the cascades) form an independent witness superset; its points
   that pass the residual check, are not junk, and lie on no accepted component are grouped by
   monodromy (or clustered, for d = 0) into new certified components. The check
   ``direct_slice_dim_<d>`` reports whether the accepted degrees account for every such point.

Isolated points (dim 0) of a square system are first refined by PHCpack's Newton with deflation
(which merges the inaccurate copies of a singular root and counts them in ``m``), then
deduplicated by distance (< ``SAME_POINT_TOL``, or < ``SINGULAR_CLUSTER_TOL`` = 1e-4 between
points with numerically singular Jacobians); the multiplicity is the number of cascade paths
ending at the point (the sum of the merged ``m``). Every check and its outcome is
reported in ``NumericalIrreducibleDecomposition.checks``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import phc
from .monodromy import monodromy
from .system import PolynomialSystem
from .tracking import RESIDUAL_TOL, _slice_system, newton_on_slice
from .distinct import SAME_POINT_TOL
from .membership import membership, membership_many
from .trace import TraceTestResult, trace_test
from .witness_set import (WitnessSet, move_slice, random_slice, relative_distance,
                          square_part)


SINGULAR_TOL = 1e-6            # sigma_n / sigma_1 below this: numerically singular Jacobian
SINGULAR_CLUSTER_TOL = 1e-4    # clustering distance for numerically singular isolated points


@dataclass(frozen=True)
class Component:
    """One irreducible component: dim, degree, witness set (its points on its slice), trace test
    verdict, multiplicity (isolated points; 1 otherwise unless known), seeds of the runs that
    found it, how it was grouped ('phc-factor', 'monodromy', 'isolated')."""
    dim: int
    witness_set: WitnessSet
    trace: TraceTestResult
    multiplicity: int = 1
    found_by: tuple[int, ...] = ()
    grouping: str = ""

    @property
    def degree(self) -> int:
        return self.witness_set.degree

    @property
    def points(self) -> np.ndarray:
        return self.witness_set.points

    def __repr__(self) -> str:
        mult = f", multiplicity={self.multiplicity}" if self.multiplicity != 1 else ""
        return (f"Component(dim={self.dim}, degree={self.degree}{mult}, trace="
                f"{self.trace.verdict} ({self.trace.residual:.1e}), found_by={list(self.found_by)})")

    def to_json(self) -> dict:
        return {"dim": self.dim, "degree": self.degree, "multiplicity": self.multiplicity,
                "points": [[[z.real, z.imag] for z in x] for x in self.points],
                "trace": self.trace.to_json(), "found_by": list(self.found_by),
                "grouping": self.grouping}


@dataclass(frozen=True)
class NumericalIrreducibleDecomposition:
    """Components of V(F) by dimension, with the checks passed.

    components: tuple of Component (dims descending); unresolved: point groups that could not be
    certified (trace test not passed) with the reason; checks: list of {name, passed, detail};
    seeds: the PHCpack seeds used; seed: the seed of our own random choices; seconds."""
    system: PolynomialSystem
    components: tuple[Component, ...]
    unresolved: tuple[dict, ...]
    checks: tuple[dict, ...]
    seeds: tuple[int, ...]
    seed: int
    precision: str
    seconds: float

    def by_dim(self) -> dict[int, list[Component]]:
        out: dict[int, list[Component]] = {}
        for c in self.components:
            out.setdefault(c.dim, []).append(c)
        return out

    def degrees(self) -> dict[int, list[int]]:
        """{dim: sorted degrees}."""
        return {d: sorted(c.degree for c in cs) for d, cs in self.by_dim().items()}

    @property
    def certified(self) -> bool:
        return not self.unresolved and all(c.trace.verdict is True for c in self.components)

    def __repr__(self) -> str:
        parts = "; ".join(f"dim {d}: degrees {v}" for d, v in sorted(self.degrees().items(),
                                                                     reverse=True))
        return (f"NumericalIrreducibleDecomposition({parts or 'empty'}; unresolved "
                f"{len(self.unresolved)}, certified={self.certified}, seeds={list(self.seeds)}, "
                f"{self.seconds:.2f} s)")

    def to_json(self) -> dict:
        return {"variables": list(self.system.variables),
                "components": [c.to_json() for c in self.components],
                "unresolved": list(self.unresolved), "checks": list(self.checks),
                "certified": self.certified, "seeds": list(self.seeds), "seed": self.seed,
                "precision": self.precision, "seconds": self.seconds}


# ----------------------------------------------------------------------------- one dimension
class _Builder:
    def __init__(self, F, seed, precision, timeout):
        self.F, self.seed, self.precision, self.timeout = F, seed, precision, timeout
        self.rng = np.random.default_rng(seed)
        self.squares: dict[int, PolynomialSystem] = {}
        self.accepted: dict[int, list[Component]] = {}
        self.unresolved: list[dict] = []
        self.stats = {"dropped_not_on_F": 0, "junk_removed": 0, "junk_undecided": 0,
                      "phc_factors_confirmed": 0, "phc_factors_rejected": 0,
                      "regrouped_by_monodromy": 0, "points_added_by_monodromy": 0,
                      "recovered_by_direct_slices": 0,
                      "max_residual": 0.0}

    def square(self, d: int) -> PolynomialSystem:
        if d not in self.squares:
            self.squares[d] = square_part(self.F, d, self.rng)
        return self.squares[d]

    # -- step 1: refine and check on F
    def validate(self, d: int, pd: phc.PolysysDimension):
        X = pd.points
        keep = np.all(np.isfinite(X), axis=1)
        mult = pd.multiplicities
        if d == 0 and len(X) and self.G.n_equations == self.G.n_vars:
            # singular roots come as several inaccurate copies: deflation (PHCpack) restores
            # quadratic convergence and merges the copies, m = number of copies merged
            X, mult, _ = phc.deflate(self.G, X[keep], seed=int(self.rng.integers(1, 2**31 - 1)),
                                     timeout=self.timeout)
            keep = np.all(np.isfinite(X), axis=1)
        if d > 0:
            A, b = pd.slice_A, pd.slice_b
            Xr, _ = newton_on_slice(self.square(d), A, b, X[keep])
            X = X.copy()
            X[keep] = Xr
        res = np.full(len(X), np.inf)
        res[keep] = self.F.residual(X[keep])
        ok = res < RESIDUAL_TOL
        self.stats["dropped_not_on_F"] += int((~ok).sum())
        if ok.any():
            self.stats["max_residual"] = max(self.stats["max_residual"], float(res[ok].max()))
        return X[ok], mult[ok], np.flatnonzero(ok)

    # -- step 2: junk
    def not_junk(self, X: np.ndarray, d: int) -> np.ndarray:
        """Points that no membership test puts on an accepted higher-dimensional component.

        A point that is singular for F (sigma_n / sigma_1 of its Jacobian < SINGULAR_TOL) is an
        endpoint where Newton converges slowly: it counts as a member when the closest moved
        witness point is within SINGULAR_CLUSTER_TOL."""
        keep = np.ones(len(X), bool)
        higher = [c for e, cs in self.accepted.items() if e > d for c in cs]
        if not higher or not len(X):
            return keep
        sing = self.singular(X)
        undecided = np.zeros(len(X), bool)

        def judge(idx, c):
            """Membership of X[idx] in c; returns the indices left undecided."""
            left = []
            for i, m in zip(idx, membership_many(X[idx], c.witness_set, seed=self.rng)):
                if m.verdict is True or (sing[i] and m.verdict is None
                                         and m.distance < SINGULAR_CLUSTER_TOL):
                    keep[i] = False
                elif m.verdict is None:
                    left.append(i)
            return np.array(left, dtype=int)
        for c in higher:
            idx = np.flatnonzero(keep)
            if not len(idx):
                break
            left = judge(idx, c)
            if len(left):                  # an undecided test is repeated on fresh slices
                undecided[judge(left, c)] = True
        self.stats["junk_removed"] += int((~keep).sum())
        self.stats["junk_undecided"] += int((undecided & keep).sum())
        return keep

    # -- step 3: grouping with trace tests
    def components_at(self, d: int, pd: phc.PolysysDimension, run_seed: int) -> list[Component]:
        X, mult, orig_idx = self.validate(d, pd)
        keep = self.not_junk(X, d)
        X, mult, orig_idx = X[keep], mult[keep], orig_idx[keep]
        if not len(X):
            return []
        if d == 0:
            return self.isolated(X, mult, run_seed)
        W = WitnessSet(self.F, self.square(d), d, pd.slice_A, pd.slice_b, X, self.seed)
        groups = self.phc_groups(pd, orig_idx)
        if groups is not None:
            comps = self.trace_groups(W, groups, run_seed)
            if comps is not None:
                return comps
        return self.monodromy_groups(W, run_seed)

    def phc_groups(self, pd, orig_idx):
        if not pd.factors:
            return None
        where = {int(o): i for i, o in enumerate(orig_idx)}
        groups = [[where[i] for i in f if i in where] for f in pd.factors]
        covered = sorted(i for g in groups for i in g)
        if covered != list(range(len(orig_idx))):
            return None    # a factor refers to dropped points or points are missing
        return [g for g in groups if g]

    def trace_groups(self, W: WitnessSet, groups, run_seed):
        """Trace test of PHCpack's factors: two pencils on independent slices shared by all
        points (fixed gammas; ``witness_set.trace_test``)."""
        comps = []
        for g, test in zip(groups, trace_test(W, seed=self.rng, groups=groups)):
            if test.verdict is not True:
                self.stats["phc_factors_rejected"] += 1
                return None
            comps.append(Component(W.dim, W.with_points(W.points[np.array(g)]), test, 1,
                                   (run_seed,), "phc-factor"))
        self.stats["phc_factors_confirmed"] += len(comps)
        return comps

    def monodromy_groups(self, W: WitnessSet, run_seed):
        self.stats["regrouped_by_monodromy"] += 1
        res = monodromy(W, seed=int(self.rng.integers(2**31)), max_loops=30, progress=False)
        self.stats["points_added_by_monodromy"] += res.degree - W.degree
        comps = []
        for c, t in zip(res.components, res.trace_tests):
            if t.verdict is True:
                comps.append(Component(W.dim, c, t, 1, (run_seed,), "monodromy"))
            else:
                self.unresolved.append({"dim": W.dim, "points": int(c.degree), "seed": run_seed,
                                        "trace": t.to_json(),
                                        "reason": "monodromy group not certified by the trace "
                                                  "test (" + res.stop_reason + ")"})
        return comps

    def isolated(self, X, mult, run_seed):
        """Cluster isolated points: same point if the relative distance is < SAME_POINT_TOL, or
        < SINGULAR_CLUSTER_TOL when both Jacobians are numerically singular (a root of
        multiplicity m is accurate only to about eps^(1/m) in double precision)."""
        sing = self.singular(X)
        comps: list[Component] = []
        used = np.zeros(len(X), bool)
        for i in range(len(X)):
            if used[i]:
                continue
            dist = relative_distance(X, X[i])
            near = (dist < SAME_POINT_TOL) | (sing & sing[i] & (dist < SINGULAR_CLUSTER_TOL))
            near &= ~used
            used |= near
            m = int(np.maximum(mult[near], 1).sum())
            rep = np.flatnonzero(near)[np.argmax(mult[near])]
            W = WitnessSet(self.F, self.F, 0, np.zeros((0, self.F.n_vars), complex),
                           np.zeros(0, complex), X[rep:rep + 1], self.seed)
            comps.append(Component(0, W, TraceTestResult(True, 0.0, 0), m, (run_seed,),
                                   "isolated"))
        return comps

    def singular(self, X) -> np.ndarray:
        """Jacobian of F numerically rank deficient: sigma_n / sigma_1 < SINGULAR_TOL."""
        if not len(X):
            return np.zeros(0, bool)
        sv = np.linalg.svd(self.F.jacobian(X), compute_uv=False)
        return sv[:, -1] < SINGULAR_TOL * np.maximum(sv[:, 0], 1e-300) \
            if sv.shape[1] >= self.F.n_vars else np.ones(len(X), bool)

    # -- step 5: direct slices recover what the cascades missed
    def repair_with_direct_slice(self, d: int, sl, res) -> dict:
        """Isolated solutions of [F squared; fresh random slice] (PHCpack blackbox solve) form a
        witness superset for dimension d: after the residual check and junk removal, every point
        must lie on an accepted d-dimensional component; the others are grouped (monodromy /
        clustering) into the components the cascades missed."""
        name = f"direct_slice_dim_{d}"
        if isinstance(res, phc.PHCError):
            return {"name": name, "passed": False, "detail": f"solve failed: {res}"}
        G, A, b = sl
        X, mult = res.points, res.multiplicities
        fin = np.all(np.isfinite(X), axis=1)
        X, mult = X[fin], mult[fin]
        singular = 0
        if d > 0 and len(X):
            X, _ = newton_on_slice(G, A, b, X)
            # witness points of reduced d-dimensional components are regular solutions of the
            # sliced system; singular ones lie on higher-dimensional or non-reduced components
            J = np.concatenate([G.jacobian(X), np.broadcast_to(A, (len(X), *A.shape))], 1)
            sv = np.linalg.svd(J, compute_uv=False)
            regular = sv[:, -1] >= SINGULAR_TOL * sv[:, 0]
            singular = int((~regular).sum())
            X, mult = X[regular], mult[regular]
        ok = self.F.residual(X) < RESIDUAL_TOL if len(X) else np.zeros(0, bool)
        X, mult = X[ok], mult[ok]
        keep = self.not_junk(X, d)
        X, mult = X[keep], mult[keep]
        known = self.accepted.get(d, [])
        if d == 0:
            comps = self.isolated(X, mult, res.seed)
            before = len(known)
            for c in comps:
                c = Component(0, c.witness_set, c.trace, c.multiplicity, (), "direct-slice")
                self.merge_direct(c)
            new = len(self.accepted.get(0, [])) - before
            total = len(comps)
        else:
            covered = np.array([any(membership(x, c.witness_set, seed=self.rng).verdict
                                    is True for c in known) for x in X], dtype=bool)
            rest = X[~covered]
            new = 0
            if len(rest):
                W = WitnessSet(self.F, G, d, A, b, rest, self.seed)
                for c in self.monodromy_groups(W, res.seed):
                    c = Component(d, c.witness_set, c.trace, 1, (), "direct-slice")
                    new += self.merge_direct(c)
            total = len(X)
        if new:
            self.stats["recovered_by_direct_slices"] += new
        degs = sum(c.degree for c in self.accepted.get(d, [])) if d > 0 else \
            len(self.accepted.get(0, []))
        passed = new == 0 and degs == total
        return {"name": name, "passed": passed,
                "detail": f"{total} points of a fresh slice on F (not junk; {singular} singular "
                          f"solutions of the sliced system set aside); accepted degree sum "
                          f"{degs}; {new} components recovered that the cascades missed"}

    def merge_direct(self, c: Component) -> int:
        return self.merge(c.dim, [c])

    # -- step 4: merge runs
    def same(self, a: Component, b: Component) -> bool | None:
        if a.dim != b.dim or a.degree != b.degree:
            return False
        if a.dim == 0:
            dist = float(relative_distance(a.points, b.points[0]).min())
            both_singular = bool(self.singular(np.vstack([a.points, b.points])).all())
            return dist < (SINGULAR_CLUSTER_TOL if both_singular else SAME_POINT_TOL)
        # a random membership test can be undecided (a failed path): try up to 3 points
        for x in b.points[:3]:
            verdict = membership(x, a.witness_set, seed=self.rng).verdict
            if verdict is not None:
                return verdict
        return None

    def merge(self, d: int, comps: list[Component]) -> int:
        """Add components not yet accepted at dim d; returns how many were new."""
        acc = self.accepted.setdefault(d, [])
        new = 0
        for c in comps:
            hit = next((k for k, a in enumerate(acc) if self.same(a, c)), None)
            if hit is None:
                acc.append(c)
                new += 1
            else:
                a = acc[hit]
                # a singular root: keep the copy from the run where more paths reached it
                ws = c.witness_set if c.multiplicity > a.multiplicity else a.witness_set
                acc[hit] = Component(a.dim, ws, a.trace,
                                     max(a.multiplicity, c.multiplicity),
                                     tuple(sorted(set(a.found_by) | set(c.found_by))),
                                     a.grouping)
        return new


# ----------------------------------------------------------------------------- entry points
def decompose(F: PolynomialSystem, *, seed: int | None = 0, precision: str = "d",
              runs: int = 2, topdim: int | None = None, cascade_timeout: float = 60.0,
              timeout: float = phc.DEFAULT_TIMEOUT) -> NumericalIrreducibleDecomposition:
    """Numerical irreducible decomposition of V(F), checked and repaired (see module docstring).

    seed: seeds our random choices and the PHCpack seeds (all recorded). runs: PHCpack cascade
    runs with different seeds (>= 2 recommended), run in parallel with the direct-slice solves.
    topdim: highest dimension searched (default n - 1). cascade_timeout: seconds per cascade run
    (measured: polysys_solve can hang, e.g. on a single hypersurface equation; a run that times
    out is reported in ``checks`` and the direct slices still give the answer). A system with
    more equations than unknowns is first randomized to n equations for the cascade (its
    spurious points are removed by the residual check on F).

    Raises ValueError for bad arguments; PHCError only if every PHCpack job fails."""
    t0 = time.perf_counter()
    if runs < 0:
        raise ValueError(f"runs must be >= 0, got {runs}")
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
    B = _Builder(F, seed, precision, timeout)
    n, m = F.n_vars, F.n_equations
    B.G = F.randomize(n, B.rng) if m > n else F
    top = n - 1 if topdim is None else int(topdim)
    if not 0 <= top < n:
        raise ValueError(f"topdim must be in 0..{n - 1}, got {topdim}")
    dims = [d for d in range(top, -1, -1) if d >= n - m]   # components have dim >= n - m
    seeds = [int(s) for s in B.rng.integers(1, 2**31 - 1, size=runs + len(dims))]
    # measured: PHCpack's cascade hangs on a single equation; its witness set is a direct slice
    cascade = runs if m > 1 else 0
    slices = {d: (B.square(d), *random_slice(B.rng, d, n)) for d in dims}
    jobs = [phc.polysys_job(B.G, topdim=top, precision=precision, seed=sd,
                            timeout=cascade_timeout) for sd in seeds[:cascade]]
    jobs += [phc.solve_job(_slice_system(G, A, b), precision=precision, seed=sd,
                           timeout=timeout) for (G, A, b), sd in zip(slices.values(),
                                                                      seeds[runs:])]
    out = phc.run_jobs(jobs)
    cascades, directs = out[:cascade], dict(zip(dims, out[cascade:]))
    if all(isinstance(r, phc.PHCError) for r in out):
        raise phc.PHCError("every PHCpack job failed: " + "; ".join(map(str, out)))
    checks: list[dict] = []
    for d in dims:
        for r in cascades:
            if not isinstance(r, phc.PHCError) and d < len(r.dims):
                B.merge(d, B.components_at(d, r.dims[d], r.seed))
        checks.append(B.repair_with_direct_slice(d, slices[d], directs[d]))
    for r in cascades:
        checks.append({"name": "phc_cascade_run", "passed": not isinstance(r, phc.PHCError),
                       "detail": str(r) if isinstance(r, phc.PHCError) else repr(r)})
    comps = tuple(c for d in sorted(B.accepted, reverse=True) for c in B.accepted[d])
    checks += _summary_checks(B, comps, cascades)
    return NumericalIrreducibleDecomposition(F, comps, tuple(B.unresolved), tuple(checks),
                                             tuple(seeds[:cascade] + seeds[runs:]), seed,
                                             precision, time.perf_counter() - t0)


def _summary_checks(B: _Builder, comps, results) -> list[dict]:
    s = B.stats
    found = [set(c.found_by) for c in comps]
    seeds_ok = {r.seed for r in results if not isinstance(r, phc.PHCError)}
    agree = all(f == seeds_ok for f in found)
    return [
        {"name": "points_on_original_equations", "passed": True,
         "detail": f"every witness point has backward error < {RESIDUAL_TOL:.0e} on F (max "
                   f"{s['max_residual']:.1e}); {s['dropped_not_on_F']} PHCpack points dropped"},
        {"name": "junk_removed", "passed": s["junk_undecided"] == 0,
         "detail": f"{s['junk_removed']} points on higher-dimensional components removed by "
                   f"membership tests; {s['junk_undecided']} tests undecided"},
        {"name": "trace_tests", "passed": all(c.trace.verdict is True for c in comps)
         and not B.unresolved,
         "detail": f"{len(comps)} components pass the linear trace test; "
                   f"{len(B.unresolved)} groups unresolved"},
        {"name": "phc_factors", "passed": s["phc_factors_rejected"] == 0,
         "detail": f"{s['phc_factors_confirmed']} PHCpack factors confirmed, "
                   f"{s['phc_factors_rejected']} dimension(s) regrouped; "
                   f"{s['regrouped_by_monodromy']} monodromy regroupings added "
                   f"{s['points_added_by_monodromy']} witness points"},
        {"name": "runs_agree", "passed": agree,
         "detail": "every component was found by every run" if agree else
                   "some components were found only by some runs (kept: each is certified by "
                   "its own trace test)"},
    ]


def witness_set(F: PolynomialSystem, dim: int, *, seed: int | None = 0, precision: str = "d",
                runs: int = 2, timeout: float = phc.DEFAULT_TIMEOUT) -> WitnessSet:
    """Witness set of the dim-dimensional part of V(F) (all its irreducible components, on one
    common slice), from PHCpack's embedding + cascade, checked and repaired by ``decompose``.

    An overdetermined system is first randomized (to n equations for the cascade; the tracked
    square part has n - dim equations) and the spurious points this adds are removed by
    checking F. ``info['components']`` lists the components' degrees and trace residuals.
    Raises ValueError for dim out of range."""
    if not 0 <= dim < F.n_vars:
        raise ValueError(f"dim must be in 0..{F.n_vars - 1}, got {dim}")
    D = decompose(F, seed=seed, precision=precision, runs=runs, timeout=timeout)
    comps = [c for c in D.components if c.dim == dim]
    rng = np.random.default_rng(D.seed + dim)
    G = square_part(F, dim, rng) if dim > 0 else F
    A, b = random_slice(rng, dim, F.n_vars)
    pts, failed = [], 0
    for c in comps:
        if dim == 0:
            pts.append(c.points)
            continue
        W = WitnessSet(F, G, dim, c.witness_set.slice_A, c.witness_set.slice_b, c.points)
        moved, tr = move_slice(W, A, b, seed=rng)
        failed += int((~tr.ok).sum())
        pts.append(moved.points)
    X = np.concatenate(pts) if pts else np.zeros((0, F.n_vars), complex)
    return WitnessSet(F, G, dim, A, b, X, D.seed,
                      {"components": [{"degree": c.degree, "trace_residual": c.trace.residual,
                                       "multiplicity": c.multiplicity} for c in comps],
                       "failed_paths": failed, "certified": D.certified})
