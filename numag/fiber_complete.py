"""Completeness of a fiber's decomposition: every point of an independent witness superset of
the whole fiber system, at every dimension, is accounted for by the reported components.

For each dimension k from n − 1 down to the lowest possible one, a witness superset of the fiber
system F is computed without any known point of the fiber (numag.fiber_superset: a
linear-product homotopy on our tracker, every path accounted for). Each of its points on F is
placed by homotopy membership tests (witness.membership) in the components already reported:
a member of a k-dimensional component is one of its witness points, a member of a larger one is
junk. A regular point on no reported component is a witness point of a component nobody
predicted: monodromy from it gives that component (found by the superset), which is then
compared with the others like any component. A singular point on no component, an undecided
membership test, a failed path or a start-point count that differs from the root count leaves
the decomposition not proven complete.

Gauges (each removes dimensions from every component alike, so components correspond one to one;
derived, paper-notes §3.3):

* the diagonal torus of F (numag.fiber_superset), when φ_W0 ≠ 0 (F has a nonzero constant
  term: W = 0 is not on the fiber);
* for a deep network with a square first value matrix V_1 (d_1 = d_0): V_1 = I, when the output
  tokens of φ_W0 at a few rational inputs span C^{d_1} (exact rank). Every output token of φ_W
  lies in im(V_l ⋯ V_1), of dimension ≤ rk V_1, so V_1 is invertible on the whole fiber, and
  (S2) with C_1 ∈ GL(d_1) acts freely on it (V_1 ↦ C_1 V_1): the fiber is GL(d_1) × (fiber ∩
  {V_1 = I}), and a component of dimension k meets {V_1 = I} in a component of dimension
  k − d_1².

Result: ``complete`` True (every point of every superset accounted for), False (something is
not), None (not checked: too many paths for the budget, or no time left).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from witness import PolynomialSystem, membership, monodromy

from .arith import RationalArithmetic
from .fiber_superset import (VariableGroup, diagonal_torus, root_count, witness_superset)
from .model import forward
from .points import _rationals, exact_rank

MAX_PATHS = 60_000       # total linear-product paths over all dimensions we are willing to track


@dataclass(frozen=True)
class Gauge:
    """How the superset system is reduced: F_red in the kept unknowns, ``fixed`` values of the
    others (index -> value), ``shift`` dimensions removed by the fixed unknowns, the torus."""
    system: PolynomialSystem
    keep: tuple[int, ...]
    fixed: dict
    shift: int
    torus: object
    groups: tuple
    notes: tuple[str, ...]

    def lift(self, x: np.ndarray, n: int) -> np.ndarray:
        """A point of F_red as a point of F (the fixed unknowns inserted)."""
        out = np.zeros(n, complex)
        out[list(self.keep)] = x
        for i, v in self.fixed.items():
            out[i] = v
        return out


def specialize(F: PolynomialSystem, values: dict) -> tuple[PolynomialSystem, tuple[int, ...]]:
    """F with the unknowns ``values`` (index -> number) substituted: (system, kept indices)."""
    keep = tuple(i for i in range(F.n_vars) if i not in values)
    polys = []
    for p in F.polynomials:
        q: dict = {}
        for e, c in p.items():
            cc = Fraction(c) if not isinstance(c, complex) else c
            for i, v in values.items():
                cc = cc * v ** e[i]
            if cc == 0:
                continue
            k = tuple(e[i] for i in keep)
            q[k] = q.get(k, 0) + cc
        q = {k: v for k, v in q.items() if v != 0}
        if q:
            polys.append(q)
    return PolynomialSystem.from_dicts([F.variables[i] for i in keep], polys), keep


def _groups(names) -> tuple[VariableGroup, ...]:
    blocks: dict[str, list[int]] = {}
    for i, v in enumerate(names):
        blocks.setdefault(v.split("_")[0], []).append(i)
    return tuple(VariableGroup(k, tuple(v)) for k, v in blocks.items())


def _outputs_span(fs, seed: int) -> int:
    """Exact rank of the output tokens of φ_W0 at 4 rational inputs."""
    arch = fs.architecture
    layers = arch.unpack(list(fs.base_point))
    rng = np.random.default_rng(seed)
    X = _rationals(rng, (4, arch.widths[0], arch.tokens))
    Y = forward(arch, layers, X, RationalArithmetic())
    M = np.concatenate([Y[i] for i in range(len(Y))], axis=1)
    return exact_rank(M)


def gauge(fs, seed: int) -> Gauge:
    """The gauge of the module docstring for the fiber system ``fs``."""
    F = fs.system
    notes, fixed, shift = [], {}, 0
    arch = fs.architecture
    if not arch.is_single_layer and arch.widths[1] == arch.widths[0]:
        d1 = arch.widths[1]
        r = _outputs_span(fs, seed)
        if r == d1:
            names = list(F.variables)
            fixed = {names.index(f"v1_{i}_{j}"): Fraction(int(i == j))
                     for i in range(d1) for j in range(d1)}
            shift = d1 * d1
            notes.append(f"V_1 = I (outputs of φ_W0 span C^{d1}: exact rank {r}; dims shift by "
                         f"{shift})")
        else:
            notes.append(f"no V_1 gauge: outputs of φ_W0 span only rank {r} < {d1}")
    Fr, keep = specialize(F, fixed) if fixed else (F, tuple(range(F.n_vars)))
    groups = _groups(Fr.variables)
    zero_phi = all(any(e) for p in F.polynomials for e in p)   # no constant term: φ_W0 = 0
    torus = None
    if zero_phi:
        notes.append("no torus gauge: φ_W0 = 0")
    else:
        torus = diagonal_torus(Fr, groups)
        notes.append(f"torus of dimension {torus.dim}, {torus.rows} gauge rows")
    return Gauge(Fr, keep, fixed, shift, torus, groups, tuple(notes))


def check_completeness(fs, comps, new_component, rng, deadline: float | None,
                       max_paths: int = MAX_PATHS):
    """Witness supersets at every dimension of the fiber system, every point placed.

    Parameters
    ----------
    fs : numag.encode.FiberSystem
    comps : list of numag.fibers.FiberComponent (with witness sets); extended in place by the
        components found through superset points
    new_component : callable (point (n,) complex, dim) -> list of FiberComponent (certified
        components by monodromy from a superset point on no reported component), or None when
        it could not run (no time left)
    rng : numpy Generator (seeds of every superset; recorded)
    deadline : perf_counter time after which no further batch of superset paths, superset or
        membership test is started (None: none); the check then stops with ``complete`` None
        and says how far it got
    max_paths : total root count over all dimensions above which nothing is computed

    Returns
    -------
    dict with keys complete (True / False / None), reason, gauge, dims (per dimension: dim,
    root_count, counts, points, placed, seconds), paths, seconds.
    """
    t0 = time.perf_counter()
    F = fs.system
    n = F.n_vars
    g = gauge(fs, int(rng.integers(2**31)))
    Fr = g.system
    low = max(g.torus.rows if g.torus is not None else 0, Fr.n_vars - Fr.n_equations)
    dims = list(range(Fr.n_vars - 1, low - 1, -1))
    counts = {d: root_count(Fr, g.groups, d, g.torus) for d in dims}
    total = sum(counts.values())
    out = {"complete": None, "gauge": list(g.notes), "root_counts": counts, "paths": total,
           "dims": []}
    if total > max_paths:
        out["reason"] = (f"not checked: the supersets need {total} paths in all (> {max_paths}; "
                         f"largest {max(counts.values())} at dim "
                         f"{max(counts, key=counts.get) + g.shift})")
        return _done(out, t0)
    problems: list[str] = []
    done_paths = 0
    for d in dims:
        full_dim = d + g.shift
        if _late(deadline):
            return _interrupted(out, t0, f"before the superset of dim {full_dim}", done_paths,
                                total)
        S = witness_superset(Fr, g.groups, d, seed=int(rng.integers(2**31)), torus=g.torus,
                             deadline=deadline)
        rec = {"dim": full_dim, "root_count": counts[d], "start_points": S.root_count,
               "counts": S.counts, "points": len(S.points), "seed": S.seed,
               "seconds": round(S.seconds, 2), "paths_tracked": _tracked(S)}
        out["dims"].append(rec)
        if S.interrupted:
            tracked = S.counts.get("interrupted_tracked", S.counts["tracked"])
            return _interrupted(out, t0, f"in the superset of dim {full_dim} (attempt "
                                f"{S.counts['interrupted_attempt']}: {tracked} of "
                                f"{S.root_count} paths tracked)", done_paths + tracked, total)
        done_paths += S.root_count
        if S.root_count != counts[d]:
            problems.append(f"dim {full_dim}: {S.root_count} start points, root count "
                            f"{counts[d]}")
        if S.failed:
            problems.append(f"dim {full_dim}: {S.failed} failed paths after "
                            f"{S.counts['attempts_run']} gammas (a point may be missed; why: "
                            f"{S.counts.get('failed_reasons')})")
        placed = {"component": 0, "junk": 0, "new component": 0, "unexplained": 0,
                  "undecided": 0}
        rec["placed"] = placed
        for i, (x, regular, acc) in enumerate(zip(S.points, S.regular, S.accuracy)):
            if _late(deadline):
                return _interrupted(out, t0, f"placing the points of the dim {full_dim} "
                                    f"superset ({i} of {len(S.points)} placed)", done_paths,
                                    total)
            X = g.lift(x, n)
            where = _place(X, full_dim, comps, rng, acc)
            if where is None and regular:
                found = new_component(X, full_dim)
                comps.extend(found or [])
                where = "new component" if found else \
                    ("undecided" if found is None else "unexplained")
            elif where is None:
                where = "unexplained"
            placed[where] += 1
        if placed["unexplained"] or placed["undecided"]:
            problems.append(f"dim {full_dim}: {placed['unexplained']} points on no component, "
                            f"{placed['undecided']} undecided")
    out["complete"] = not problems
    out["reason"] = "; ".join(problems) if problems else (
        "every point of every superset is on a reported component (its witness point or junk)"
        " or off the fiber")
    return _done(out, t0)


def _tracked(S) -> int:
    """Paths S's solve tracked over all its gammas (each attempt tracks every start path; an
    interrupted attempt only part of them)."""
    c = S.counts
    if c.get("interrupted_tracked") is not None:
        return S.root_count * (c["interrupted_attempt"] - 1) + c["interrupted_tracked"]
    return S.root_count * c["attempts_run"]


def _late(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def _interrupted(out: dict, t0: float, where: str, done: int, total: int) -> dict:
    """``complete`` None: the time budget stopped the check (nothing is proven by a part)."""
    out["complete"] = None
    out["interrupted"] = True
    out["reason"] = (f"not checked: time budget reached {where}; {done} of {total} superset "
                     f"paths tracked")
    return _done(out, t0)


def _place(x, dim, comps, rng, acc) -> str | None:
    """'component' / 'junk' (decided member of a component of dimension dim / larger),
    'undecided', or None (decided a member of none)."""
    undecided = False
    for c in sorted(comps, key=lambda c: -c.dim):
        if c.dim < dim or c.witness_set is None:
            continue
        a = float(acc) if math.isfinite(acc) else None
        v = membership(x, c.witness_set, seed=rng, accuracy=a).verdict
        if v is True:
            return "component" if c.dim == dim else "junk"
        undecided |= v is None
    return "undecided" if undecided else None


def _done(out: dict, t0: float) -> dict:
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out
