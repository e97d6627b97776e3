"""Numerical irreducible decomposition with every witness point accounted for.

``decompose(F)`` works dimension by dimension, from the top down:

1. **Witness superset** (``witness.superset``): all isolated solutions of [G; A x - b] (G: n - d
   generic combinations of F, A x = b a random slice of codimension d) from a total-degree
   homotopy on our tracker, every path accounted for (regular / singular / at infinity /
   failed; points grouped, multiplicity = number of paths).
2. **Each point is placed**: off V(F) (backward error on F above ``residual_reject`` after
   Gauss–Newton refinement on [F; slice]: a spurious point of the randomization); a regular
   point of the sliced system (a witness point of a reduced d-dimensional component: a point on
   a higher-dimensional component makes [J_F; A] rank deficient); a singular point, which is
   junk when a homotopy membership test (``witness.membership``, all points in one batch per
   component) puts it on an accepted higher-dimensional component, and otherwise a witness
   point of a non-reduced d-dimensional component (reached by k >= 2 paths) or, with d = 0, an
   isolated singular solution. A singular point that no test places, or one reached by a
   single path (an isolated singular solution attracts as many paths as its multiplicity,
   >= 2), is *unexplained* and listed.
3. **Components**: regular witness points are grouped by monodromy and certified by the linear
   trace test (``witness.monodromy``, ``witness.trace``). A non-reduced component is deflated
   at one of its witness points (``witness.deflation``: F plus J_F(x) B lambda = 0,
   h lambda = 1, Leykin–Verschelde–Zhao), where the point becomes regular; monodromy and the
   trace test run on the deflated system (x-slices; the trace in the x coordinates) and the
   points are projected back. Its path multiplicity is the number of paths ending at each of
   its witness points (all equal, checked); its multiplicity is that of a witness point as a
   solution of [F; slice]: the path multiplicity when F is square at that dimension, and the
   dimension of the local dual space of [F; slice] (``witness.dualspace``) when F was
   randomized, where the paths count the random combinations' multiplicity, which can be
   larger (x^2, x*y, y^2: 4 paths, multiplicity 3; ``Component.multiplicity``). The
   deflation counts only
   when the deflated system, rebuilt at 60 digits, has a regular solution at the point
   (``witness.cluster``, as in ``solve``); when it has none the point is the centre of a
   cluster of close simple points of [F; slice], which are found by Newton at 60 digits and
   placed like regular points (isolated points for d = 0), or the point is unexplained.
4. **Accounting** per dimension: every path ended (no failed path), every point placed, each
   component's witness points reached by exactly ``path_multiplicity`` paths (so the degrees x
   path multiplicities add up to the paths that end on d-dimensional components).
5. **PHCpack's cascade** (``runs`` runs, seeds recorded; in worker processes, in parallel with
   our tracker) is an independent check: each of its witness points, after refinement, must be
   off V(F), or a member of a reported component of its dimension or of a higher one. A point it
   finds that we do not is unexplained (and the component through it is recovered by monodromy
   and reported as found by that run only). A run that crashed or timed out is listed as not
   finished and never counts as agreeing.

``certified`` is true only when every component passes its trace test, nothing is unresolved
or unexplained (from our supersets and from every finished PHCpack run), and the accounting adds
up at every dimension. A decomposition with no component is certified only when V(F) is empty
for an exact reason (the equation 1 = 0, or a Nullstellensatz certificate 1 = Σ g_i f_i found
by exact linear algebra, ``witness.nullstellensatz``): paths that all end at infinity do not prove
it, since double precision cannot tell |x| > ~1e8 from infinity (`x - 1e9` in C^3 was certified
empty; issue 10 item 3: zero components for a consistent system is never certified).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field, replace

import numpy as np

from . import distinct, phc
from .cluster import check_deflation, on_variety_check, resolve_cluster
from .nullstellensatz import empty_certificate
from .deflation import (EPS, Deflation, deflate, gauss_newton, regular_on,
                        square_part_by_degree)
from .dualspace import local_structure
from .jsonio import points_to_json, vector_to_json
from .membership import membership_many
from .monodromy import monodromy
from .options import Options, resolve
from .solve import SOLVE_OPTIONS, full_rank, simple_root_of_k_paths
from .superset import Superset, total_degree, witness_superset
from .system import PolynomialSystem
from .trace import TraceTestResult
from .tracking import PathStatus
from .witness_set import WitnessSet, move_slice, random_slice, square_part

TRACKER = "tracker"
MOVE_TOL = 1e-6          # refinement of a point may move it by at most this (relative)
REFINE_MOVE = 1e-3       # ... on a deflated system (a singular point is off by eps^(1/mult))
MAX_PATHS = 100_000      # our superset of a dimension is not computed beyond this many paths
MONODROMY_LOOPS = 30
CASCADE_MIN_WAIT = 10.0  # seconds an adaptive cascade check is waited for at least ...
CASCADE_FACTOR = 2.0     # ... or this times our own time (cascade_deadline)
CASCADE_HARD_CAP = 600.0  # per-run timeout of an adaptive cascade run


@dataclass(frozen=True)
class Component:
    """One irreducible component of V(F).

    dim; witness_set: its points on the slice of its superset (on F); trace: the trace test
    (on the deflated system for a non-reduced component); multiplicity: the number of superset
    paths ending at each witness point (1: reduced); found_by: 'tracker' and/or 'phc:<seed>';
    grouping: 'isolated', 'monodromy', 'deflation+monodromy'; lifted: the witness set on the
    deflated system (non-reduced components), deflation: its Deflation; paths: paths per witness
    point in our superset; dual_space: local dual-space multiplicity of [F; slice] at a witness
    point (None when not computed); one_orbit: the monodromy group was confirmed ONE orbit by
    loops whose map is known on all of its points (``witness.monodromy._full_loops``: True, or
    None = not confirmed, e.g. a loop budget; True for isolated points, which need no loop).
    The trace test alone cannot tell a component from a union of components merged by a path
    jump (the trace of a union is linear too), so ``certified`` needs both."""
    dim: int
    witness_set: WitnessSet
    trace: TraceTestResult
    path_multiplicity: int = 1
    found_by: tuple[str, ...] = ()
    grouping: str = ""
    lifted: WitnessSet | None = field(default=None, repr=False)
    deflation: Deflation | None = field(default=None, repr=False)
    paths: tuple[int, ...] = ()
    dual_space: int | None = None
    one_orbit: bool | None = True

    @property
    def degree(self) -> int:
        return self.witness_set.degree

    @property
    def points(self) -> np.ndarray:
        return self.witness_set.points

    @property
    def randomized(self) -> bool:
        """F has more equations than the codimension: the superset tracked n - dim random
        combinations of them."""
        F = self.witness_set.system
        return F.n_equations > F.n_vars - self.dim

    @property
    def multiplicity(self) -> int:
        """The multiplicity of the component: that of its witness points as solutions of
        [F; slice]. Without randomization it is the number of superset paths ending at each
        witness point (``path_multiplicity``); with it, the paths count the multiplicity for
        the random combinations, which can be larger (x^2, x*y, y^2: 4 paths end at the
        origin, whose multiplicity is 3 = dim C[x, y]/(x, y)^2), so the local dual space of
        [F; slice] at a witness point decides (``dual_space``; the path count when it was not
        decided)."""
        if self.randomized and self.dual_space is not None:
            return self.dual_space
        return self.path_multiplicity

    @property
    def reduced(self) -> bool:
        return self.path_multiplicity == 1

    def __repr__(self) -> str:
        mult = f", multiplicity={self.multiplicity}" if self.multiplicity != 1 else ""
        return (f"Component(dim={self.dim}, degree={self.degree}{mult}, trace="
                f"{self.trace.verdict} ({self.trace.residual:.1e}), found_by="
                f"{list(self.found_by)})")

    def to_json(self) -> dict:
        return {"dim": self.dim, "degree": self.degree, "multiplicity": self.multiplicity,
                "path_multiplicity": self.path_multiplicity,
                "points": points_to_json(self.points), "trace": self.trace.to_json(),
                "found_by": list(self.found_by), "grouping": self.grouping,
                "paths_per_point": list(self.paths), "dual_space_multiplicity":
                self.dual_space, "one_orbit": self.one_orbit,
                "deflation": self.deflation.to_json() if self.deflation else None}


@dataclass(frozen=True)
class NumericalIrreducibleDecomposition:
    """Components of V(F) by dimension, and the evidence.

    components (dims descending); unresolved: point groups whose trace test did not pass, with
    the reason; unexplained: points of a witness superset (ours or PHCpack's) that are on no
    reported component and not proven junk; accounting: per dimension, the paths of our
    superset by end state and by where their points were placed; runs: the PHCpack runs (seed,
    finished, error); checks: list of {name, passed (None: not checked), detail}; seeds: PHCpack seeds; seed: ours;
    precision (PHCpack's); seconds."""
    system: PolynomialSystem
    components: tuple[Component, ...]
    unresolved: tuple[dict, ...]
    unexplained: tuple[dict, ...]
    accounting: tuple[dict, ...]
    runs: tuple[dict, ...]
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

    def multiplicities(self) -> dict[int, list[tuple[int, int]]]:
        """{dim: sorted (degree, multiplicity)}."""
        return {d: sorted((c.degree, c.multiplicity) for c in cs)
                for d, cs in self.by_dim().items()}

    @property
    def certified(self) -> bool:
        """Every component passes its trace test and is confirmed one monodromy orbit
        (``Component.one_orbit``), the multiplicity of every non-reduced component of a
        randomized system was decided by its dual space, nothing is unresolved or unexplained,
        and at
        every dimension the paths add up: recomputed here from the reported components (the
        paths ending on components = sum of degree x multiplicity of the components found by
        our tracker at that dimension; every finite endpoint placed on a component, as junk or
        off V(F)), not only taken from the builder's flags (issue 10 item 3)."""
        empty_proved = any(a.get("inconsistent") is not None for a in self.accounting)
        return (not self.unresolved and not self.unexplained
                and (bool(self.components) or empty_proved)
                and all(c.trace.verdict is True for c in self.components)
                and all(c.one_orbit is True for c in self.components)
                # a randomized non-reduced component's multiplicity is the dual space's
                and all(c.dual_space is not None for c in self.components
                        if c.randomized and c.path_multiplicity > 1)
                and bool(self.accounting) and all(a["adds_up"] for a in self.accounting)
                and all(self._adds_up(a) for a in self.accounting))

    def _adds_up(self, a: dict) -> bool:
        if a.get("inconsistent") is not None:      # V(F) empty for a constant reason
            return not self.components
        if "placed" not in a:                      # a dimension without a superset of ours
            return False
        d, placed, c = a["dim"], a["placed"], a["counts"]
        deg_mult = sum(cc.degree * cc.path_multiplicity for cc in self.components
                       if cc.dim == d and TRACKER in cc.found_by)
        return (set(placed) <= {"component", "junk", "off F"}
                and sum(c.values()) == a["paths"]
                and sum(placed.values()) == c["regular"] + c["singular"]
                and placed.get("component", 0) == deg_mult
                and (placed.get("junk", 0) == 0 or any(cc.dim > d for cc in self.components)))

    def __repr__(self) -> str:
        parts = "; ".join(f"dim {d}: {v}" for d, v in sorted(self.multiplicities().items(),
                                                             reverse=True))
        return (f"NumericalIrreducibleDecomposition({parts or 'empty'} (degree, multiplicity); "
                f"unresolved {len(self.unresolved)}, unexplained {len(self.unexplained)}, "
                f"certified={self.certified}, seed={self.seed}, {self.seconds:.2f} s)")

    def to_json(self) -> dict:
        return {"variables": list(self.system.variables),
                "components": [c.to_json() for c in self.components],
                "unresolved": list(self.unresolved), "unexplained": list(self.unexplained),
                "accounting": list(self.accounting), "runs": list(self.runs),
                "checks": list(self.checks), "certified": self.certified,
                "seeds": list(self.seeds), "seed": self.seed, "precision": self.precision,
                "seconds": self.seconds}


# ----------------------------------------------------------------------------- placing points
@dataclass
class _Point:
    """A point of a witness superset while it is being placed."""
    x: np.ndarray
    acc: float
    k: int                      # paths ending there (0: from PHCpack)
    regular: bool
    source: str
    A: np.ndarray               # the slice of its superset, A x = b
    b: np.ndarray
    where: str = ""             # 'off F', 'component', 'junk', 'unexplained', 'unresolved'
    comp: tuple[int, int] | None = None
    on: str = "on"              # on F: 'on' or 'undecided' (backward error in between)


class _Builder:
    def __init__(self, F: PolynomialSystem, seed: int, options: Options):
        self.F, self.seed, self.opt = F, seed, options
        self.rng = np.random.default_rng(seed)
        self.accepted: dict[int, list[Component]] = {}
        self.unresolved: list[dict] = []
        self.unexplained: list[dict] = []
        self.accounting: list[dict] = []
        self.stats = {"off_F": 0, "junk": 0, "membership_tests": 0, "membership_undecided": 0,
                      "monodromy_added": 0, "max_residual": 0.0}

    # -- step 2a: on F or not
    def on_F(self, x: np.ndarray, acc: float, A, b) -> tuple[np.ndarray, float, str]:
        """(point, accuracy, 'on' | 'off' | 'undecided'): backward error on F, after
        Gauss-Newton on [F; slice] when it is above residual_tol (moves <= MOVE_TOL)."""
        pts = self.opt.points
        r = float(self.F.residual(x))
        if r > pts.residual_tol:
            y, a = gauss_newton(self.F, x, A, b)
            move = np.linalg.norm(y - x) / (1 + np.linalg.norm(x))
            r2 = float(self.F.residual(y)) if np.all(np.isfinite(y)) else math.inf
            if move <= MOVE_TOL and r2 < r:
                x, r, acc = y, r2, min(acc, a) if math.isfinite(acc) else a
        if ROUNDING_LEVEL < r <= pts.residual_tol and self._not_a_zero_at_60_digits(x, A, b):
            return x, acc, "off"
        if r <= pts.residual_tol:
            self.stats["max_residual"] = max(self.stats["max_residual"], r)
            return x, acc, "on"
        return x, acc, "off" if r > pts.residual_reject else "undecided"

    def _not_a_zero_at_60_digits(self, x: np.ndarray, A, b, on_slice: bool = True) -> bool:
        """For exact F with more equations than [F; slice] has unknowns: is x no zero of F at
        60 digits? on_slice: Gauss-Newton on [F; slice] from F's coefficients as written stalls
        at a backward error >= CLUSTER_ABOVE (``witness.cluster.check_deflation`` with no
        deflation step); else Gauss-Newton on F alone with minimum-norm steps does
        (``witness.cluster.on_variety_check``; for a component's witness point, which may be
        a point of a non-reduced component where the Jacobian of [F; slice] is singular: the
        normal equations of x^2 y, x^2 z at x = 5.6e-33 failed and the double plane was
        called no zero). Such an x is a least-squares point of an inconsistent system, not a
        zero of F, though its double backward error passed: x - 1; y - 1; x*y - 1.0000000001
        (1e-10) and x - 1/10; y - x; x*y - 1/100 - 1/10^20 (1e-20, below double rounding) were
        certified as points. A square [F; slice] needs no check: a zero of the superset's
        square system G = F is one of F. A singular point converges linearly and is not
        called a non-zero here."""
        k = 0 if A is None else np.atleast_2d(A).shape[0] if np.size(A) else 0
        if not self.F.is_exact or self.F.n_equations + k <= self.F.n_vars:
            return False
        if on_slice:
            bad = check_deflation(self.F, [], x, A if k else None,
                                  b if k else None).verdict == "cluster"
        else:
            bad = on_variety_check(self.F, x) == "not a zero"
        if bad:
            self.stats["not_zero_60"] = self.stats.get("not_zero_60", 0) + 1
        return bad

    def zero_of_superset_system(self, S: Superset, x: np.ndarray) -> bool:
        """Is x a zero of the superset's system [G; A x - b] (backward error <= residual_reject
        on G, slice residual likewise relative to |A||x| + |b|)? Only such a point can be a
        spurious point of the randomization."""
        if not np.all(np.isfinite(x)):
            return False
        rej = self.opt.points.residual_reject
        slice_ok = True
        if len(S.A):
            scale = np.abs(S.A) @ np.abs(x) + np.abs(S.b)
            slice_ok = bool(np.all(np.abs(S.A @ x - S.b) <= rej * np.maximum(scale, 1e-300)))
        return slice_ok and float(S.G.residual(x)) <= rej

    # -- step 2b: junk
    def member(self, c: Component, X: np.ndarray, acc: np.ndarray) -> list:
        self.stats["membership_tests"] += len(X)
        W = c.lifted if c.lifted is not None else c.witness_set
        return membership_many(X, W, seed=self.rng, accuracy=acc, options=self.opt)

    def place_in(self, pts: list[_Point], comps: list[tuple[tuple[int, int], Component]],
                 where: str) -> None:
        """Membership of the unplaced points in each component (one batch per component; an
        undecided test is repeated once on a fresh slice)."""
        for key, c in comps:
            todo = [p for p in pts if not p.where]
            if not todo:
                return
            X = np.array([p.x for p in todo])
            acc = np.array([p.acc for p in todo])
            if c.deflation is not None:          # singular points are inaccurate: refine
                for i, p in enumerate(todo):     # them on the deflated system first
                    X[i], acc[i] = self.refine_on(c.deflation, p)
            res = self.member(c, X, acc)
            again = [i for i, m in enumerate(res) if m.verdict is None]
            if again:
                res2 = self.member(c, X[again], acc[again])
                for i, m in zip(again, res2):
                    res[i] = m
            for p, m in zip(todo, res):
                if m.verdict is True:
                    p.where, p.comp = where, key
                elif m.verdict is None:
                    self.stats["membership_undecided"] += 1

    def refine_on(self, defl: Deflation, p: _Point) -> tuple[np.ndarray, float]:
        """p's point refined by Gauss-Newton on [D; p's slice] from its lift (a singular point
        of a non-reduced component is a regular point of the deflated system D there; a point
        that is not on the component does not converge to a zero of D, or moves too far): (x,
        accuracy), or p's own when that fails."""
        n = self.F.n_vars
        try:
            y = defl.lift(p.x[None, :])[0]
            A = np.hstack([p.A, np.zeros((len(p.A), defl.system.n_vars - n), complex)])
            y2, a = gauss_newton(defl.system, y, A, p.b)
        except np.linalg.LinAlgError:
            return p.x, p.acc
        move = np.linalg.norm(y2[:n] - p.x) / (1 + np.linalg.norm(p.x))
        if not (np.all(np.isfinite(y2)) and move <= REFINE_MOVE
                and defl.system.residual(y2) <= self.opt.points.residual_tol):
            return p.x, p.acc
        return y2[:n], a

    def higher(self, d: int) -> list[tuple[tuple[int, int], Component]]:
        return [((e, i), c) for e in sorted(self.accepted, reverse=True) if e > d
                for i, c in enumerate(self.accepted[e])]

    # -- steps 1-4 for our superset of one dimension
    def superset(self, S: Superset) -> None:
        d, sol = S.dim, S.solve
        pts: list[_Point] = []
        for g in sol.groups:
            x, acc, on = self.on_F(g.point, g.accuracy, S.A, S.b)
            regular = g.status == PathStatus.REGULAR
            p = _Point(x, acc, g.multiplicity, regular, TRACKER, S.A, S.b,
                       "off F" if on == "off" else "", on=on)
            if on == "off" and not self.zero_of_superset_system(S, g.point):
                # not a zero of [G; slice] either: the endgame did not converge there, so the
                # point proves nothing (with G = F it cannot be off F at all); measured on
                # issue 10 row 3 restated, seed 1: the 8 paths of the double component
                p.where = "unexplained"
                self.unexplained.append(self._why(d, p, "endpoint is not a zero of the sliced "
                                                  "superset system (endgame did not converge)"))
            pts.append(p)
        sing = [p for p in pts if not p.where and not p.regular]
        self.place_in(sing, self.higher(d), "junk")
        self.undecided_residuals(d, pts)
        reg = [p for p in pts if not p.where and p.regular]
        self.reduced(d, S, reg)
        self.on_reduced(d, [p for p in sing if not p.where and p.k == 1])
        split = self.nonreduced(d, S, [p for p in sing if not p.where])
        if split:            # simple witness points of a resolved cluster (d > 0)
            pts += split[1:]
            own = [((d, i), c) for i, c in enumerate(self.accepted.get(d, []))]
            self.place_in(split, own, "component")
            self.reduced(d, S, [p for p in split if not p.where])
        self.account(d, S, pts)

    def reduced(self, d: int, S: Superset, reg: list[_Point]) -> None:
        """Regular witness points: each its own component (d = 0) or grouped by monodromy."""
        if not reg:
            return
        X = np.array([p.x for p in reg])
        if d == 0:
            for p in reg:
                self.add(0, [p], self.isolated_set(p.x), _trivial_trace(), 1, "isolated")
            return
        W = WitnessSet(self.F, S.G, d, S.A, S.b, X, self.seed)
        res = monodromy(W, seed=int(self.rng.integers(2**31)), max_loops=MONODROMY_LOOPS,
                        options=self.opt, progress=False)
        extra = res.degree - len(reg)
        self.stats["monodromy_added"] += extra
        for c, t in zip(res.components, res.trace_tests):
            idx = list(c.info.get("indices", []))
            members = [reg[i] for i in idx if i < len(reg)]
            if t.verdict is not True and members and all(
                    self._not_a_zero_at_60_digits(p.x, S.A, S.b) for p in members):
                # least-squares points of an inconsistent [F; slice] (their double backward
                # error below ROUNDING_LEVEL: not checked by on_F), not a component
                for p in members:
                    p.where = "off F"
                continue
            if t.verdict is not True:
                self.unresolved.append({"dim": d, "points": int(c.degree), "trace": t.to_json(),
                                        "reason": "monodromy group not certified by the trace "
                                                  "test (" + res.stop_reason + ")"})
                for p in members:
                    p.where = "unresolved"
                continue
            ws = WitnessSet(self.F, S.G, d, S.A, S.b, c.points, self.seed)
            self.add(d, members, ws, t, 1, "monodromy",
                     paths=[reg[i].k if i < len(reg) else 0 for i in idx],
                     one_orbit=c.info.get("one_orbit"))

    def on_reduced(self, d: int, sing: list[_Point]) -> None:
        """Points reached by one path that the rank rule called singular, but that are witness
        points of a reduced d-dimensional component on the same slice (its witness set is
        complete: certified by the trace test): placed on it, with their path. The rank rule
        can say 'singular' at a regular point when the Jacobian is evaluated with heavy
        cancellation (an expanded product of degree 16 at |x| ~ 14: issue 10 row 3
        restated, seed 1), and a regular witness point is reached by exactly one path."""
        comps = [(i, c) for i, c in enumerate(self.accepted.get(d, []))
                 if c.grouping == "monodromy" and c.trace.verdict is True]
        if not sing or not comps:
            return
        Q = np.array([q.x for q in sing])
        eq = distinct.error_estimates([q.acc for q in sing], len(sing), self.opt.points)
        for i, c in comps:
            C = distinct.compare_points(c.points, None, Q, eq, self.opt.points)
            paths = list(c.paths) + [0] * (c.degree - len(c.paths))
            for j, row in enumerate(C):
                hit = np.flatnonzero(row == distinct.SAME)
                if paths[j] == 0 and len(hit) == 1 and not sing[hit[0]].where:
                    q = sing[hit[0]]
                    q.where, q.comp = "component", (d, i)
                    paths[j] = q.k
            self.accepted[d][i] = replace(c, paths=tuple(paths))

    def nonreduced(self, d: int, S: Superset, sing: list[_Point]) -> list[_Point]:
        """Singular points on no higher-dimensional component: non-reduced d-dimensional
        components (deflation + monodromy), isolated singular points (d = 0). A point that
        deflation does not make regular is unexplained only if no component found from
        another point of the superset contains it (``deflated_component`` matches the
        component's witness points on the same slice with every singular point not placed
        yet). Why: issue 10 row 3 restated, ``decompose --seed 1`` (runs=1), dim 4: the double
        quartic's 4 witness points lie at |x| ~ 40; deflation left the first two undecided
        (rank gap 1.8; not regular after 1 step), the third deflated, and its certified
        component's 4 points include the first two, which were reported unexplained because
        they had been marked before the component was found.

        Returns the regular witness points of resolved clusters of dimension d > 0
        (``split_witness_cluster``; the first of each is the cluster's point itself, now one
        path), for the caller to place on reduced components."""
        failed, split = [], []
        for p in sing:
            if p.where:
                continue
            if p.k < 2:
                p.where = "unexplained"
                self.unexplained.append(self._why(d, p, "a singular point reached by one path "
                                                  "that lies on no higher-dimensional "
                                                  "component found"))
                continue
            A = S.A if d else None
            b = S.b if d else None
            defl = deflate(self.F, p.x, A=A, b=b, accuracy=_finite(p.acc), rng=self.rng,
                           options=self.opt, max_steps=min(p.k - 1, 4))
            if defl.regular and defl.deflation is None:     # regular, yet k > 1 paths
                defl = simple_root_of_k_paths(self.F, p.x, p.k, defl, A, b)
            if not defl.regular:
                if d == 0 and self.split_cluster(p, defl):
                    continue
                new = self.split_witness_cluster(p, defl, S) if d else []
                if new:
                    split += new
                    continue
                failed.append((p, defl.reason))
                continue
            loc = local_structure(self.F, defl.x, p.k, A=A, b=b, accuracy=defl.accuracy,
                                  rank=self.opt.rank)
            p.x, p.acc = defl.x, defl.accuracy
            mu = loc.multiplicity if loc.isolated else None
            if d == 0:
                self.add(0, [p], self.isolated_set(p.x), _trivial_trace(), p.k, "isolated",
                         deflation=defl.deflation, dual=mu)
                continue
            self.deflated_component(d, S, p, defl, sing, mu)
        for p, reason in failed:
            if not p.where:
                p.where = "unexplained"
                self.unexplained.append(self._why(d, p, f"singular point reached by {p.k} "
                                                  f"paths that deflation did not make "
                                                  f"regular: {reason}"))
        return split

    def split_witness_cluster(self, p: _Point, defl, S: Superset) -> list[_Point]:
        """A singular witness point (d > 0) that the high-precision check of its deflation
        called the centre of a cluster (``witness.cluster``): the p.k simple points of
        [F; slice] there by Newton at 60 digits, as regular points of one path each (p itself
        becomes the first); [] when the check said otherwise or not all were found. Why:
        x^2 - 1e-20 in C^2 (two reduced lines x = ±1e-10): the 2 witness paths ended at the
        centre of the slice's two points."""
        chk = defl.precise
        if chk is None or chk.verdict != "cluster":
            return []
        res = resolve_cluster(self.F, p.x, p.k, self.rng, A=S.A, b=S.b, dps=chk.dps)
        if not res.resolved:
            return []
        p.x, p.acc, p.k, p.regular = res.roots[0], max(res.corrections[0], EPS), 1, True
        return [p] + [_Point(x, max(c, EPS), 1, True, p.source, p.A, p.b)
                      for x, c in zip(res.roots[1:], res.corrections[1:])]

    def split_cluster(self, p: _Point, defl) -> bool:
        """An isolated singular point whose deflation the high-precision check called the
        centre of a cluster (``witness.cluster``): its p.k roots by Newton at 60 digits, each
        simple, become p.k isolated components of multiplicity 1 (as ``solve``'s
        ``split_cluster``). False (nothing added) when the check said otherwise or the roots
        were not all found. Why: x^2 - 1e-20 was dim 0, degree 1, multiplicity 2, certified."""
        chk = defl.precise
        if chk is None or chk.verdict != "cluster":
            return False
        res = resolve_cluster(self.F, p.x, p.k, self.rng)
        if not res.resolved:
            return False
        for i, x in enumerate(res.roots):
            self.add(0, [p] if i == 0 else [], self.isolated_set(x), _trivial_trace(), 1,
                     "isolated", paths=(1,), dual=1)
        p.x = res.roots[0]
        return True

    def deflated_component(self, d, S: Superset, p: _Point, defl, sing, mu) -> None:
        D = defl.deflation.system if defl.deflation else self.F
        n = self.F.n_vars
        A0 = np.hstack([S.A, np.zeros((d, D.n_vars - n), complex)])
        G = square_part_by_degree(D, d, self.rng)
        if G is None or not regular_on(G, defl.point, A0, defl.accuracy, self.opt):
            G = square_part(D, d, self.rng)
        W0 = WitnessSet(D, G, d, A0, S.b, defl.point[None, :], self.seed,
                        {"project_to": n, "base_system": self.F})
        res = monodromy(W0, seed=int(self.rng.integers(2**31)), max_loops=MONODROMY_LOOPS,
                        options=self.opt, progress=False)
        lifted = res.witness_set
        t = res.trace_tests[0] if len(res.trace_tests) == 1 else None
        if t is None or t.verdict is not True:
            why = (f"the deflated witness set is not certified by the trace test "
                   f"({res.stop_reason}; {len(res.components)} monodromy groups)")
            self.unresolved.append({"dim": d, "points": lifted.degree, "reason": why,
                                    "trace": t.to_json() if t else None})
            p.where = "unresolved"
            return
        X = lifted.points[:, :n]
        # match the component's points with the singular points of the superset
        cand = [q for q in sing if not q.where]
        members, paths = [], []
        if cand:
            Q = np.array([q.x for q in cand])
            eq = distinct.error_estimates([q.acc for q in cand], len(cand), self.opt.points)
            C = distinct.compare_points(X, None, Q, eq, self.opt.points)
            for row in C:
                hit = np.flatnonzero(row == distinct.SAME)
                q = cand[hit[0]] if len(hit) == 1 else None
                members.append(q)
                paths.append(q.k if q is not None else 0)
        else:
            members, paths = [None] * len(X), [0] * len(X)
        ws = WitnessSet(self.F, S.G, d, S.A, S.b, X, self.seed)
        lifted = WitnessSet(lifted.system, lifted.square, d, lifted.slice_A, lifted.slice_b,
                            lifted.points, self.seed, {"project_to": n, "base_system": self.F})
        self.add(d, [q for q in members if q is not None], ws, t, p.k,
                 "deflation+monodromy", lifted=lifted, deflation=defl.deflation,
                 paths=paths, dual=mu, one_orbit=res.components[0].info.get("one_orbit"))

    def isolated_set(self, x: np.ndarray) -> WitnessSet:
        F = self.F
        return WitnessSet(F, F, 0, np.zeros((0, F.n_vars), complex), np.zeros(0, complex),
                          x[None, :], self.seed)

    def add(self, d, members, ws, trace, mult, grouping, *, lifted=None, deflation=None,
            paths=None, dual=None, found_by=(TRACKER,), one_orbit=True) -> None:
        """Accept a component, unless its first witness point is not a zero of F at 60
        digits (``_not_a_zero_at_60_digits``): then its member points are least-squares
        points of an inconsistent system, off F. One point decides for the component: F
        vanishes on a closed set, and a witness point is a generic point of the component.
        Why here and not for every superset point: that took 150 of 155 s of the 11-component
        system (witness.examples.eleven_components); ``on_F`` checks only the points whose
        double backward error is above ROUNDING_LEVEL (a zero refined in double lands at
        ~1e-16), and a point below it that is no zero either becomes no component (it stays
        unexplained: not certified) or is caught here."""
        A, b = (ws.slice_A, ws.slice_b) if d else (None, None)
        if len(ws.points) and self._not_a_zero_at_60_digits(ws.points[0], A, b,
                                                              on_slice=False):
            for q in members:
                q.where = "off F"
            return
        acc = self.accepted.setdefault(d, [])
        key = (d, len(acc))
        for q in members:
            q.where, q.comp = "component", key
        paths = tuple(paths) if paths is not None else tuple(q.k for q in members)
        acc.append(Component(d, ws, trace, mult, tuple(found_by), grouping, lifted, deflation,
                             paths, dual, one_orbit))

    def _why(self, d, p: _Point, reason: str) -> dict:
        return {"dim": d, "source": p.source, "point": vector_to_json(p.x), "paths": p.k,
                "reason": reason}

    def undecided_residuals(self, d: int, pts: list[_Point]) -> None:
        """Points still unplaced whose backward error on F is between residual_tol and
        residual_reject (not refined onto any component): unexplained."""
        for p in pts:
            if not p.where and p.on == "undecided":
                p.where = "unexplained"
                self.unexplained.append(self._why(d, p, "backward error on F between "
                                                  "residual_tol and residual_reject, on no "
                                                  "component"))

    # -- step 4
    def account(self, d: int, S: Superset, pts: list[_Point]) -> None:
        sol = S.solve
        c = sol.counts()
        by: dict[str, int] = {}
        for p in pts:
            by[p.where or "unplaced"] = by.get(p.where or "unplaced", 0) + p.k
        comps = self.accepted.get(d, [])
        expected = sum(cc.degree * cc.path_multiplicity for cc in comps
                       if TRACKER in cc.found_by)
        exact = all(k == cc.path_multiplicity for cc in comps if TRACKER in cc.found_by
                    for k in cc.paths)
        ok = (c[PathStatus.FAILED] == 0 and sol.adds_up and not sol.undecided_pairs and exact
              and by.get("component", 0) == expected
              and set(by) <= {"component", "junk", "off F"})
        self.accounting.append({
            "dim": d, "start_system": "total degree", "paths": sol.n_paths, "counts": c,
            "failure_reasons": sol.failure_reasons(), "placed": by,
            "component_paths_expected": expected, "every_point_reached_multiplicity_times":
            exact, "undecided_pairs": len(sol.undecided_pairs), "adds_up": ok,
            "attempts": len(sol.attempts), "draws": list(S.draws), "seconds": S.seconds})
        self.stats["off_F"] += by.get("off F", 0)
        self.stats["junk"] += by.get("junk", 0)

    # -- step 5: PHCpack's witness points
    def cascade(self, r: phc.PolysysResult) -> dict:
        """Place every witness point of a finished cascade run; returns a summary."""
        src = f"phc:{r.seed}"
        found, placed, unexplained = set(), 0, 0
        for pd in r.dims:
            d = pd.dim
            if not len(pd.points):
                continue
            n = self.F.n_vars
            A = pd.slice_A if d else np.zeros((0, n), complex)
            b = pd.slice_b if d else np.zeros(0, complex)
            pts = []
            for x in pd.points:
                if not np.all(np.isfinite(x)):
                    pts.append(_Point(x, math.inf, 0, False, src, A, b, "off F"))
                    continue
                y, acc, on = self.on_F(x, math.nan, A, b)
                pts.append(_Point(y, acc, 0, False, src, A, b, "off F" if on == "off" else "",
                                  on=on))
            own = [((d, i), c) for i, c in enumerate(self.accepted.get(d, []))]
            self.place_in(pts, own, "component")
            self.place_in(pts, self.higher(d), "junk")
            for p in pts:
                if not p.where and p.on == "undecided":
                    p.where = "undecided"
                if p.where == "component":
                    found.add(p.comp)
                if p.where in ("component", "junk", "off F"):
                    placed += 1
                    continue
                unexplained += 1
                if p.where == "undecided":
                    why = ("a PHCpack witness point whose backward error on F is between "
                           "residual_tol and residual_reject, on no reported component")
                else:
                    rec = self.recover(d, p, A, b, src)
                    why = "a PHCpack witness point on no reported component" + \
                        (f"; recovered as component {rec}" if rec else "")
                self.unexplained.append(self._why(d, p, why))
        for key in found:
            c = self.accepted[key[0]][key[1]]
            if src not in c.found_by:
                self.accepted[key[0]][key[1]] = _with_found(c, src)
        return {"source": src, "points": sum(len(pd.points) for pd in r.dims),
                "placed": placed, "unexplained": unexplained,
                "components_found": sorted(found)}

    def recover(self, d, p: _Point, A, b, src) -> str | None:
        """The component through a point our superset missed: monodromy from it (regular
        points of the sliced system only)."""
        if d == 0:
            if full_rank(self.F, p.x, _finite(p.acc), self.opt):
                self.add(0, [], self.isolated_set(p.x), _trivial_trace(), 1, "isolated",
                         found_by=(src,))
                return "dim 0"
            return None
        if not full_rank(self.F, p.x, _finite(p.acc), self.opt, A):
            return None
        G = square_part(self.F, d, self.rng)
        W = WitnessSet(self.F, G, d, A, b, p.x[None, :], self.seed)
        res = monodromy(W, seed=int(self.rng.integers(2**31)), max_loops=MONODROMY_LOOPS,
                        options=self.opt, progress=False)
        if len(res.components) != 1 or res.trace_tests[0].verdict is not True:
            return None
        self.add(d, [], res.components[0].with_points(res.components[0].points),
                 res.trace_tests[0], 1, "monodromy", found_by=(src,),
                 one_orbit=res.components[0].info.get("one_orbit"))
        return f"dim {d}, degree {res.degree}"


def _with_found(c: Component, src: str) -> Component:
    return replace(c, found_by=tuple(c.found_by) + (src,))


def _trivial_trace() -> TraceTestResult:
    return TraceTestResult(True, 0.0, 0)


ROUNDING_LEVEL = 1e-14     # backward errors up to this are double rounding (on_F, add)


def _finite(v: float) -> float:
    return float(v) if math.isfinite(v) else 1.0


# ----------------------------------------------------------------------------- entry points
def _clean(F: PolynomialSystem) -> tuple[PolynomialSystem | None, str | None]:
    """Drop identically zero equations; (None, reason) when V(F) is empty because an equation
    is a nonzero constant. Raises ValueError when every equation is zero."""
    polys = [p for p in F.polynomials if p]
    if not polys:
        raise ValueError("every equation is identically zero: the solution set is all of "
                         f"C^{F.n_vars}")
    for i, p in enumerate(F.polynomials):
        if p and set(p) == {(0,) * F.n_vars}:
            return None, f"equation {i} is the nonzero constant {p[(0,) * F.n_vars]}"
    if len(polys) == F.n_equations:
        return F, None
    return PolynomialSystem(F.variables, tuple(polys)), None


def decompose(F: PolynomialSystem, *, seed: int | None = 0, precision: str = "d",
              runs: int = 1, topdim: int | None = None, cascade_timeout: float | None = None,
              timeout: float = phc.DEFAULT_TIMEOUT, options: Options | None = None,
              max_paths: int = MAX_PATHS) -> NumericalIrreducibleDecomposition:
    """Numerical irreducible decomposition of V(F), every witness point accounted for (module
    docstring).

    Parameters
    ----------
    F : PolynomialSystem (any number of equations)
    seed : int or None (random; recorded): our slices, randomizations, gammas and the PHCpack
        seeds
    precision : 'd', 'dd' or 'qd': PHCpack's cascade (our tracker works in double precision
        with double-double residuals near ill-conditioned points)
    runs : PHCpack cascade runs used as independent checks (0: none)
    topdim : highest dimension searched (default n - 1)
    cascade_timeout : seconds per cascade run; None: adaptive (``cascade_deadline``); a run
        that times out or is cancelled is reported as not finished
    timeout : kept for compatibility (PHCpack jobs other than the cascade)
    options : witness.Options (tolerances)
    max_paths : our superset of a dimension is computed only up to this many paths; above it
        the decomposition of that dimension rests on PHCpack's cascade and is not certified

    Returns
    -------
    NumericalIrreducibleDecomposition

    Raises
    ------
    ValueError
        Bad arguments, every equation identically zero.

    Examples
    --------
    >>> from witness import PolynomialSystem
    >>> F = PolynomialSystem.from_strings(["a1^2 - a2", "a3^2"])   # a double parabola
    >>> D = decompose(F, seed=1, runs=0)
    >>> D.multiplicities(), D.certified
    ({1: [(2, 2)]}, True)
    """
    t0 = time.perf_counter()
    if runs < 0:
        raise ValueError(f"runs must be >= 0, got {runs}")
    if precision not in phc.PRECISIONS:
        raise ValueError(f"precision must be one of {phc.PRECISIONS}, got {precision!r}")
    opt = SOLVE_OPTIONS if options is None else resolve(options)
    seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
    n = F.n_vars
    top = n - 1 if topdim is None else int(topdim)
    if not 0 <= top < n:
        raise ValueError(f"topdim must be in 0..{n - 1}, got {topdim}")
    F0, empty_reason = _clean(F)
    if F0 is not None:
        empty_reason = empty_certificate(F0)
        F0 = None if empty_reason else F0
    B = _Builder(F, seed, opt)
    if F0 is None:
        return _empty(F, B, empty_reason, seed, precision, t0)
    m = F0.n_equations
    dims = [d for d in range(top, -1, -1) if d >= n - m]
    seeds = [int(s) for s in B.rng.integers(1, 2**31 - 1, size=runs)]
    cap = CASCADE_HARD_CAP if cascade_timeout is None else float(cascade_timeout)
    cascade = _start_cascades(F0, seeds if m > 1 else [], top, precision, cap)
    B.F = F0
    skipped = []
    for d in dims:
        if total_degree(F0, d) > max_paths:
            skipped.append(d)
            continue
        B.superset(witness_superset(F0, d, B.rng, opt))
    own = time.perf_counter() - t0
    results = cascade.result(cascade_deadline(own) if cascade_timeout is None else None)
    run_info = []
    for sd, r in zip(seeds if m > 1 else [], results):
        if isinstance(r, phc.PHCError):
            run_info.append({"source": f"phc:{sd}", "finished": False, "error": str(r)[:300]})
        else:
            run_info.append({"source": f"phc:{sd}", "finished": True} | B.cascade(r))
    if m <= 1 and runs:
        run_info.append({"source": "phc", "finished": False, "error": "not run: PHCpack's "
                         "cascade hangs on a single equation (measured); the superset is ours"})
    for d in skipped:
        B.accounting.append({"dim": d, "paths": total_degree(F0, d), "adds_up": False,
                             "skipped": f"total degree {total_degree(F0, d)} > max_paths "
                                        f"{max_paths}: no superset of ours"})
    comps = tuple(c for d in sorted(B.accepted, reverse=True) for c in B.accepted[d])
    checks = _checks(B, comps, run_info)
    return NumericalIrreducibleDecomposition(
        F, comps, tuple(B.unresolved), tuple(B.unexplained),
        tuple(sorted(B.accounting, key=lambda a: -a["dim"])), tuple(run_info), tuple(checks),
        tuple(seeds), seed, precision, time.perf_counter() - t0)


class _Background:
    """PHCpack cascade jobs in worker processes, waited for in a thread while we track; the
    jobs are killed (``PHCCancelled``) when the caller stops waiting."""

    def __init__(self, jobs):
        self._out: list = []
        self.t0 = time.perf_counter()
        self.cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(jobs,), daemon=True)
        self._thread.start()

    def _run(self, jobs):
        self._out = phc.run_jobs(jobs, cancel=self.cancel) if jobs else []

    def result(self, deadline: float | None = None) -> list:
        """Results; with a deadline (seconds after the start) the jobs still running then are
        cancelled."""
        if deadline is not None:
            self._thread.join(max(0.0, deadline - (time.perf_counter() - self.t0)))
            if self._thread.is_alive():
                self.cancel.set()
        self._thread.join()
        return self._out


def _start_cascades(F, seeds, top, precision, timeout) -> _Background:
    G = F.randomize(F.n_vars, np.random.default_rng(seeds[0])) \
        if seeds and F.n_equations > F.n_vars else F
    return _Background([phc.polysys_job(G, topdim=top, precision=precision, seed=sd,
                                        timeout=timeout) for sd in seeds])


def cascade_deadline(own_seconds: float) -> float:
    """How long (from its start) an adaptive cascade check is waited for: max(CASCADE_MIN_WAIT,
    CASCADE_FACTOR x the time of our own supersets). Why: the cascade is an independent check
    of an answer we already have; measured on the 11-component system of
    ``witness.examples.eleven_components``, one cascade run takes 58 s (its answer is wrong)
    while our supersets take a few seconds, and on the known-answer systems cascades finish in
    under 1 s."""
    return max(CASCADE_MIN_WAIT, CASCADE_FACTOR * own_seconds)


def _empty(F, B: _Builder, reason, seed, precision, t0) -> NumericalIrreducibleDecomposition:
    acc = ({"dim": None, "adds_up": True, "inconsistent": reason},)
    checks = ({"name": "inconsistent", "passed": True, "detail": f"V(F) is empty: {reason}"},)
    return NumericalIrreducibleDecomposition(F, (), (), (), acc, (), checks, (), seed,
                                             precision, time.perf_counter() - t0)


def _checks(B: _Builder, comps, run_info) -> list[dict]:
    s = B.stats
    acc = B.accounting
    finished = [r["source"] for r in run_info if r.get("finished")]
    failed = [r["source"] for r in run_info if not r.get("finished")]
    why_not = [f"{r['source']} ({str(r.get('error', ''))[:90]})" for r in run_info
               if not r.get("finished")]
    agree = (bool(run_info) and not failed
             and all(r.get("unexplained", 0) == 0 for r in run_info if r.get("finished"))
             and all(any(f in c.found_by for c in comps) or not comps for f in finished)
             and all(all(f in c.found_by for f in finished) for c in comps))
    return [
        {"name": "points_on_original_equations",
         "passed": bool(s["max_residual"] <= B.opt.points.residual_tol),
         "detail": f"every witness point has backward error <= "
                   f"{B.opt.points.residual_tol:.0e} on F (max {s['max_residual']:.1e}); "
                   f"{s['off_F']} superset paths ended off V(F) (spurious points of the "
                   f"randomization"
                   + (f"; {s['not_zero_60']} of them passed in double precision but are no "
                      f"zero of F as written: Gauss-Newton at 60 digits stalls"
                      if s.get("not_zero_60") else "") + ")"},
        # an undecided membership test matters only if it left its point unplaced (then the
        # point is unexplained); x^2 y, y z, z x seed 2: 6 undecided tests, every point placed
        # by another test, and the text said 'certified: True (junk_removed FAILED)'
        {"name": "junk_removed", "passed": s["membership_undecided"] == 0 or not B.unexplained,
         "detail": f"{s['junk']} superset paths ended on higher-dimensional components "
                   f"(membership tests: {s['membership_tests']}, undecided "
                   f"{s['membership_undecided']}"
                   + ("; every point was placed by a decided test"
                      if s["membership_undecided"] and not B.unexplained else "") + ")"},
        {"name": "trace_tests", "passed": all(c.trace.verdict is True for c in comps)
         and not B.unresolved,
         "detail": f"{len(comps)} components certified by the trace test (non-reduced ones on "
                   f"their deflated systems); {len(B.unresolved)} groups unresolved"},
        {"name": "one_orbit", "passed": all(c.one_orbit is True for c in comps),
         "detail": f"{sum(c.one_orbit is True for c in comps)} of {len(comps)} components "
                   f"confirmed one monodromy orbit (loops known on all of their points; a "
                   f"path jump can merge two components into a set whose trace is linear)"
                   + "".join(f"; NOT confirmed: dim {c.dim} degree {c.degree}"
                             for c in comps if c.one_orbit is not True)},
        {"name": "every_point_accounted", "passed": not B.unexplained,
         "detail": f"{len(B.unexplained)} witness superset points unexplained"},
        *([] if comps else [{"name": "components_found", "passed": False,
                            "detail": (f"no component certified: {len(B.unresolved)} groups "
                                       f"of witness points on V(F) unresolved (their trace "
                                       f"tests did not pass)" if B.unresolved else
                                       "no component found, and V(F) is not PROVEN empty "
                                       "(a constant equation such as 1 = 0 or a low-degree "
                                       "Nullstellensatz certificate would prove it; "
                                       "paths ending at infinity or off V(F) do not: a root of "
                                       "huge modulus looks infinite in double precision)")}]),
        {"name": "paths_add_up", "passed": bool(acc) and all(a["adds_up"] for a in acc),
         "detail": "; ".join(f"dim {a['dim']}: {a.get('paths')} paths, "
                             f"{'adds up' if a['adds_up'] else 'does NOT add up'}"
                             for a in acc)},
        {"name": "runs_agree", "passed": agree if finished else None,   # None: not checked
         "detail": (f"PHCpack runs finished: {finished or 'none'}; not finished: "
                    f"{why_not or 'none'}; " +
                    ("every finished run found every component and nothing else" if agree
                     else "no run finished, so there is no independent check (a run that "
                          "did not finish never counts as agreeing)" if not finished
                     else "runs differ from the reported components (see 'runs' in --json); a run "
                          "that did not finish never counts as agreeing"))},
    ]


def witness_set(F: PolynomialSystem, dim: int, *, seed: int | None = 0, precision: str = "d",
                runs: int = 1, timeout: float = phc.DEFAULT_TIMEOUT) -> WitnessSet:
    """Witness set of the dim-dimensional part of V(F) (all its irreducible components, on one
    common slice), from ``decompose``.

    An overdetermined system is randomized for tracking (the square part has n - dim
    equations) and points are checked on F. ``info['components']`` lists the components'
    degrees, multiplicities and trace residuals. Non-reduced components contribute their
    (singular) points once each. Raises ValueError for dim out of range."""
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
        if c.lifted is not None:            # move on the deflated system, project back
            W = c.lifted
            A1 = np.hstack([A, np.zeros((dim, W.system.n_vars - F.n_vars), complex)])
            moved, tr = move_slice(W, A1, b, seed=rng)
            pts.append(moved.points[:, :F.n_vars])
        else:
            W = WitnessSet(F, G, dim, c.witness_set.slice_A, c.witness_set.slice_b, c.points)
            moved, tr = move_slice(W, A, b, seed=rng)
            pts.append(moved.points)
        failed += int((~tr.ok).sum())
    X = np.concatenate(pts) if pts else np.zeros((0, F.n_vars), complex)
    return WitnessSet(F, G, dim, A, b, X, D.seed,
                      {"components": [{"degree": c.degree, "trace_residual": c.trace.residual,
                                       "multiplicity": c.multiplicity} for c in comps],
                       "failed_paths": failed, "certified": D.certified})
