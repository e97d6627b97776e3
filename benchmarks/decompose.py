"""Numerical irreducible decomposition of known-answer systems: ours vs PHCpack's blackbox.

  python benchmarks/decompose.py [--seeds 2] [--quick] [--out FILE]

For every system of docs/known-answer-systems.md used by the tests and the 11-component system
of issue 11 (``witness.examples.eleven_components``: a sphere, two quartic curves, 8 points;
297 s on the engine before the compiled core, per the issue), per seed:
* ours: ``witness.decompose(F, seed=s, runs=0)`` (witness supersets from our own total-degree
  solves, every point placed, trace tests), right = the degrees per dimension equal the known
  ones, and whether it says ``certified``;
* PHCpack: ``phcpy.factor.polysys_solve`` (cascade + filter + factor; ``witness.phc``), right =
  its factor sizes per dimension (or its distinct points to 6 decimals when it prints no
  factors) equal the known degrees; a crash or timeout is reported as such.
Seconds are wall clock including process start of PHCpack's worker; ours excludes numba
compilation (one warm-up decomposition first).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from witness import PolynomialSystem, phc  # noqa: E402
from witness.decompose import decompose  # noqa: E402
from witness.examples import eleven_components  # noqa: E402

sys.path.append(_here)      # benchmarks/report.py, after the packages (benchmarks/witness.py)
from report import Report  # noqa: E402

# name: (equations, variables or None, degrees per dimension); derivations in
# docs/known-answer-systems.md and witness.examples.eleven_components
KNOWN = {
    "twisted cubic": (["x^2 - y", "x^3 - z"], None, {1: [3]}),
    "cyclic-4": (["x1+x2+x3+x4", "x1*x2+x2*x3+x3*x4+x4*x1",
                  "x1*x2*x3+x2*x3*x4+x3*x4*x1+x4*x1*x2", "x1*x2*x3*x4-1"], None, {1: [2, 2]}),
    "three lines": (["x*z + y", "y*z + x"], ["x", "y", "z"], {1: [1, 1, 1]}),
    "SVW illustrative": (["(y-x^2)*(x^2+y^2+z^2-1)*(x-1/2)", "(z-x^3)*(x^2+y^2+z^2-1)*(y-1/2)",
                          "(y-x^2)*(z-x^3)*(x^2+y^2+z^2-1)*(z-1/2)"], None,
                         {2: [2], 1: [1, 1, 1, 3], 0: [1]}),
    "SVW 4-variable": (["(x1-1)*(x1-2)*(x1-3)*(x1-4)", "(x1-1)*(x2-1)*(x2-2)*(x2-3)",
                        "(x1-1)*(x1-2)*(x3-1)*(x3-2)", "(x1-1)*(x2-1)*(x3-1)*(x4-1)"], None,
                       {3: [1], 2: [1], 1: [1] * 12, 0: [1] * 4}),
    "Griewank-Osborne": (["29/16*x^3 - 2*x*y", "x^2 - y"], None, {0: [1]}),
    "triple root": (["x^2 + y - 3", "x + y^2/8 - 3/2"], None, {0: [1, 1]}),
}
QUICK = ("twisted cubic", "three lines", "triple root")


def systems(quick: bool):
    for name, (eqs, variables, degrees) in KNOWN.items():
        if not quick or name in QUICK:
            yield name, PolynomialSystem.from_strings(eqs, variables=variables), degrees
    if not quick:
        yield "eleven components", eleven_components(), {2: [2], 1: [4, 4], 0: [1] * 8}


def normal(degrees: dict) -> dict:
    return {d: sorted(v) for d, v in degrees.items() if v}


def ours(F, seed: int) -> tuple[dict, bool, float]:
    t = time.perf_counter()
    D = decompose(F, seed=seed, runs=0)
    return normal(D.degrees()), D.certified, time.perf_counter() - t


def distinct(X) -> int:
    """Points of X (p, n) different to 6 decimals: PHCpack lists a root of multiplicity m
    m times."""
    return len({tuple(np.round(x, 6)) for x in X})


def phcpack(F, seed: int) -> tuple[dict | str, float]:
    t = time.perf_counter()
    try:
        R = phc.polysys_solve(F, seed=seed, timeout=600)
    except Exception as e:                     # a crash or timeout is a result here
        return f"{type(e).__name__}", time.perf_counter() - t
    got = {d.dim: [len(f) for f in d.factors] if d.factors else [1] * distinct(d.points)
           for d in R.dims if len(d.points)}
    return normal(got), time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="three small systems, one seed")
    ap.add_argument("--out", help="also write the lines to this file")
    args = ap.parse_args(argv)
    rep = Report("benchmarks/decompose.py", argv)
    decompose(PolynomialSystem.from_strings(["x^2 - y", "x^3 - z"]), seed=0, runs=0)  # compile
    seeds = range(1, 2 if args.quick else args.seeds + 1)
    for name, F, truth in systems(args.quick):
        truth = normal(truth)
        mine, theirs = [], []
        for s in seeds:
            got, cert, secs = ours(F, s)
            mine.append((got == truth, cert, secs))
            pgot, psecs = phcpack(F, s)
            theirs.append((pgot == truth, psecs))
            rep.say(f"  {name} seed {s}: ours {'right' if got == truth else f'WRONG {got}'}"
                    f"{', certified' if cert else ', not certified'} {secs:.1f} s; PHCpack "
                    f"{'right' if pgot == truth else f'wrong {pgot}'} {psecs:.1f} s")
        m = statistics.median(x[-1] for x in mine)
        p = statistics.median(x[-1] for x in theirs)
        rep.say(f"{name}: ours {sum(x[0] for x in mine)}/{len(mine)} right "
                f"({sum(x[0] and x[1] for x in mine)} certified), median {m:.1f} s | PHCpack "
                f"{sum(x[0] for x in theirs)}/{len(theirs)} right, median {p:.1f} s | "
                f"time ratio PHCpack/ours {p / m:.2f}")
    rep.write(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
