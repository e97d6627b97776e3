"""Benchmarks of the witness package, side by side with the alternatives.

  python benchmarks/witness.py [--quick]

1. tracker: our batched numpy tracker vs PHCpack's tracker on the SAME paths (same start points,
   same slices, same gamma, pwt = 1): paths per second and the ratio; endpoints compared.
2. monodromy from one known point vs PHCpack's blackbox decomposition (polysys_solve) on
   positive-dimensional systems: paths tracked, wall time, ratio.
3. wrapper overhead: cyclic-7 and katsura-8 through witness.phc.solve (worker process, fd
   silencing, parsing, residual checks) vs the time of phcpy's solve alone, measured inside the
   worker (goal: overhead <= 10 %).

Systems of single-layer lightning-attention fibers are built here from their coordinates
T[r,{b,c},e] = (V[r,b] A[c,e] + V[r,c] A[b,e]) / 2, A = K^T Q (docs/paper-notes.md §1),
through a random integer point w0 (equations T(W) = T(w0)).
"""
from __future__ import annotations

import argparse
import itertools
import os
import re
import sys
import time
from fractions import Fraction

import numpy as np

# this file is named witness.py: keep its folder off the path so that `witness` is the package
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from witness import PolynomialSystem, monodromy, phc  # noqa: E402
from witness.examples import cyclic, katsura, random_dense  # noqa: E402
from witness.tracking import random_gamma, track_slices  # noqa: E402
from witness.witness_set import random_slice  # noqa: E402


def fiber_system(d: int, dp: int, a: int, seed: int = 0):
    """Fiber of (Q, K, V) -> T through a random integer point; returns (F, w0, fiber dim)."""
    rng = np.random.default_rng(seed)
    names = ([f"q{i}_{j}" for i in range(a) for j in range(d)]
             + [f"k{i}_{j}" for i in range(a) for j in range(d)]
             + [f"v{i}_{j}" for i in range(dp) for j in range(d)])
    n = len(names)
    pos = {nm: i for i, nm in enumerate(names)}
    w0 = rng.choice([-3, -2, -1, 1, 2, 3], size=n)

    def mono(*vs):
        e = [0] * n
        for v in vs:
            e[pos[v]] += 1
        return tuple(e)
    polys = []
    for r, b, e in itertools.product(range(dp), range(d), range(d)):
        for c in range(b, d):
            p: dict = {}
            for i in range(a):
                for bb, cc in ((b, c), (c, b)):
                    m = mono(f"v{r}_{bb}", f"k{i}_{cc}", f"q{i}_{e}")
                    p[m] = p.get(m, 0) + Fraction(1, 2)
            value = sum(c_ * int(np.prod(w0 ** np.array(m))) for m, c_ in p.items())
            p[(0,) * n] = -value
            polys.append(p)
    return PolynomialSystem.from_dicts(names, polys), w0.astype(complex), a * a + 1


def twisted_cubic():
    t = 0.7 + 0.2j
    return PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"]), np.array([t, t**2, t**3]), 1


def cyclic4_conic():
    a = 0.3 + 1.1j
    F = PolynomialSystem.from_strings(["x1+x2+x3+x4", "x1*x2+x2*x3+x3*x4+x4*x1",
                                       "x1*x2*x3+x2*x3*x4+x3*x4*x1+x4*x1*x2", "x1*x2*x3*x4-1"])
    return F, np.array([a, 1 / a, -a, -1 / a]), 1


def complete_intersection():
    rng = np.random.default_rng(4)
    p = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    return random_dense([2, 3], 3, rng, through=p), p, 1


def table(rows: list[list], header: list[str]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths))
    print(line)
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(str(x).ljust(w) for x, w in zip(r, widths)))
    print()


# ----------------------------------------------------------------------------- 1. tracker
def bench_tracker(cases, repeats: int) -> None:
    rows = []
    for name, (F, w0, dim) in cases:
        W = monodromy(F, dim, w0, seed=1, progress=False).witness_set
        rng = np.random.default_rng(2)
        times = {"numpy": 0.0, "phc": 0.0}
        paths, worst, fails = 0, 0.0, {"numpy": 0, "phc": 0}
        for _ in range(repeats):
            A1, b1 = random_slice(rng, dim, F.n_vars)
            g = random_gamma(rng)
            res = {}
            for method in ("numpy", "phc"):
                t0 = time.perf_counter()
                res[method] = track_slices(W.square, W.slice_A, W.slice_b, A1, b1, W.points,
                                           gamma=g, method=method)
                times[method] += time.perf_counter() - t0
                fails[method] += int((~res[method].ok).sum())
            both = res["numpy"].ok & res["phc"].ok
            if both.any():
                worst = max(worst, float(np.abs(res["numpy"].endpoints[both]
                                                - res["phc"].endpoints[both]).max()))
            paths += W.degree
        rows.append([name, F.n_vars, W.degree, paths, f"{paths / times['numpy']:.1f}",
                     f"{paths / times['phc']:.1f}", f"{times['phc'] / times['numpy']:.1f}x",
                     f"{worst:.1e}", f"{fails['numpy']}/{fails['phc']}"])
    print("1. Same paths, own batched tracker vs PHCpack's tracker (wall time incl. worker)")
    table(rows, ["system", "vars", "degree", "paths", "paths/s numpy", "paths/s phc",
                 "phc / numpy time", "max |diff|", "failed numpy/phc"])


# ----------------------------------------------------------------------------- 2. monodromy
def phc_paths(log: str) -> int:
    """Sum of the '#paths' column of PHCpack's cascade table."""
    block = log.split("#paths")[1].split("dim | solutions")[0] if "#paths" in log else ""
    return sum(int(m.group(1)) for m in re.finditer(r"^\s*\d+\s*\|\s*(\d+)\s*\|", block, re.M))


def bench_monodromy(cases, timeout: float) -> None:
    rows = []
    for name, (F, w0, dim) in cases:
        r = monodromy(F, dim, w0, seed=1, progress=False)
        G = F.randomize(F.n_vars, np.random.default_rng(0)) if F.n_equations > F.n_vars else F
        t0 = time.perf_counter()
        try:
            ps = phc.polysys_solve(G, seed=7, timeout=timeout, keep_log=True)
            t_phc = time.perf_counter() - t0
            degs = [len(f) for f in (ps.dims[dim].factors or [])]
            phc_desc, npaths = f"{t_phc:.2f} s, factors {degs}", phc_paths(ps.log or "")
            ratio = f"{t_phc / r.seconds:.1f}x"
        except phc.PHCError as err:
            phc_desc, npaths, ratio = f"failed: {type(err).__name__}", "?", \
                f"> {timeout / r.seconds:.0f}x"
        rows.append([name, F.n_vars, dim, r.degree, r.complete, r.paths_tracked,
                     f"{r.seconds:.2f} s", npaths, phc_desc, ratio])
    print("2. Monodromy from one point vs PHCpack's blackbox decomposition (polysys_solve)")
    table(rows, ["system", "vars", "dim", "degree", "certified", "paths", "monodromy",
                 "phc paths", "phc blackbox", "phc / monodromy"])


# ----------------------------------------------------------------------------- 3. overhead
def bench_overhead(cases) -> None:
    rows = []
    for name, F, expected in cases:
        t0 = time.perf_counter()
        r = phc.solve(F, seed=3)
        wall = time.perf_counter() - t0
        found = int((r.residuals < 1e-9).sum())
        rows.append([name, f"{found} (expected {expected})", f"{r.phc_seconds:.2f} s",
                     f"{wall:.2f} s", f"{100 * (wall / r.phc_seconds - 1):.1f} %"])
    print("3. Wrapper overhead: witness.phc.solve vs phcpy's solve alone (inside the worker)")
    table(rows, ["system", "solutions", "phcpy solve", "wrapper total", "overhead"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the largest cases")
    args = ap.parse_args()
    small = [("twisted cubic", twisted_cubic()), ("cyclic-4 conic", cyclic4_conic()),
             ("complete intersection 2x3", complete_intersection()),
             ("fiber (2,1,1)", fiber_system(2, 1, 1)), ("fiber (2,1,2)", fiber_system(2, 1, 2))]
    big = [("fiber (3,2,2)", fiber_system(3, 2, 2)), ("fiber (3,3,2)", fiber_system(3, 3, 2))]
    bench_tracker(small[2:] + ([] if args.quick else big), repeats=2 if args.quick else 5)
    bench_monodromy(small + ([] if args.quick else big), timeout=30 if args.quick else 120)
    over = [("katsura-6", katsura(6), 64)] if args.quick else \
        [("cyclic-7", cyclic(7), 924), ("katsura-8", katsura(8), 256)]
    bench_overhead(over)


if __name__ == "__main__":
    main()
