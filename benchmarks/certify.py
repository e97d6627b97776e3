"""Certification speed: Krawczyk certification (witness.certify) of all solutions of standard
systems, side by side with what a researcher would otherwise run.

  python benchmarks/certify.py [--quick] [--systems katsura-6,cyclic-7,...]

Per system: the solutions come from witness.phc.solve (PHCpack's blackbox solver; katsura-n for
n >= 6 in double-double, which double precision merges roots of: shared/known-answer-systems.md).
Columns:

* certify: seconds of ``certify`` over all solutions, solutions certified per second, and the
  counts certified / distinct / real;
* refine: seconds of mpmath Newton refinement to 30 digits (``witness.refine``) of the same
  points: the usual non-rigorous check, and the ratio refine / certify;
* solve: seconds PHCpack took to find the points, and the ratio solve / certify (what the
  proof costs relative to finding the solutions).

Goal (issue 13): cyclic-7's 924 solutions certified in under 30 s. HomotopyContinuation.jl's
``certify`` would be the natural comparison; Julia is not installed here, so it is not run.
Timings are wall-clock on a 2-core machine shared with other work: noisy.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# benchmarks/witness.py would shadow the package: keep this folder off the path
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from witness import phc, refine  # noqa: E402
from witness.certify import certify  # noqa: E402
from witness.examples import cyclic, katsura  # noqa: E402

SYSTEMS = {
    "katsura-6": (lambda: katsura(6), "dd"),
    "katsura-7": (lambda: katsura(7), "dd"),
    "katsura-8": (lambda: katsura(8), "dd"),
    "cyclic-5": (lambda: cyclic(5), "d"),
    "cyclic-7": (lambda: cyclic(7), "d"),
}
FULL = ["katsura-6", "katsura-7", "katsura-8", "cyclic-7"]
QUICK = ["katsura-6", "cyclic-5"]


def run(name: str, seed: int) -> dict:
    make, precision = SYSTEMS[name]
    F = make()
    t0 = time.perf_counter()
    sol = phc.solve(F, precision=precision, seed=seed)
    t_solve = time.perf_counter() - t0
    X = sol.points
    c = certify(F, X)
    t0 = time.perf_counter()
    refine(F, X, digits=30)
    t_refine = time.perf_counter() - t0
    return {"system": name, "solutions": len(X), "certified": c.certified,
            "distinct": c.distinct, "real": c.real, "certify_s": c.seconds,
            "per_s": len(X) / c.seconds, "refine_s": t_refine, "solve_s": t_solve}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    ap.add_argument("--systems", help=f"comma-separated from {', '.join(SYSTEMS)}")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    names = args.systems.split(",") if args.systems else (QUICK if args.quick else FULL)
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown:
        ap.error(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
    print(f"{'system':10s} {'sols':>5s} {'cert':>5s} {'dist':>5s} {'real':>5s} "
          f"{'certify s':>10s} {'sols/s':>8s} {'refine30 s':>11s} {'ratio':>6s} "
          f"{'solve s':>8s} {'ratio':>6s}")
    for name in names:
        r = run(name, args.seed)
        print(f"{r['system']:10s} {r['solutions']:5d} {r['certified']:5d} {r['distinct']:5d} "
              f"{r['real']:5d} {r['certify_s']:10.2f} {r['per_s']:8.0f} {r['refine_s']:11.2f} "
              f"{r['refine_s'] / r['certify_s']:6.1f} {r['solve_s']:8.1f} "
              f"{r['solve_s'] / r['certify_s']:6.1f}", flush=True)
    print("ratio = other / certify (> 1: certification is faster)")


if __name__ == "__main__":
    main()
