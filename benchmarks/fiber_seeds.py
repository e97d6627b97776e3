"""Seed dependence and size reach of fiber computations (issue 11's goals), in one run.

  python benchmarks/fiber_seeds.py [--quick] [--deep SPEC [--seeds 0,1,2,3,4]] [--out FILE]

(--deep 2,2,2:1,1 runs only that deep fiber, on the given seeds.)

1. Generic fibers of the single-layer shapes of benchmarks/fibers.py, 10 seeds each: seconds
   per seed, median, and the slowest seed's ratio to the median (goal: no seed more than 3x the
   median); every result certified or not.
2. The deep fiber widths 2,2,2 ranks 1,1 on seeds 0-4: time to a certified witness set of the
   orbit component (goal: 5 of 5, each <= 60 s); the old tracker: seed 0 190 s, seed 2 27 min
   undecided.
3. Larger deep fibers, computed and reported: widths 3,2,3 ranks 1,1 and 2,2,2,2 ranks 1,1,1
   (dimension, degree, certified or not, seconds).

Each line is printed as it finishes; the load average is printed at the start (the machine has
2 shared cores: timings under load are noisy).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from numag.architecture import Architecture  # noqa: E402
from numag.fibers import fiber  # noqa: E402

sys.path.append(_here)      # benchmarks/report.py, after the packages (benchmarks/witness.py)
from report import Report  # noqa: E402

SHAPES = [(3, 2, 2), (3, 3, 2), (4, 4, 2)]
QUICK_SHAPES = [(3, 2, 2)]


def run(arch: Architecture, seed: int, timeout: float | None = None):
    """(seconds, [(dim, degree, trace verdict)], certified, verdict): certified means every
    component certified (trace test and, for monodromy sets, one orbit) and the comparison
    with the prediction decided True."""
    t0 = time.perf_counter()
    r = fiber(arch, seed=seed, blackbox=False, timeout=timeout)
    secs = time.perf_counter() - t0
    comps = [(c.dim, c.degree, c.trace_test["verdict"]) for c in r.components]
    ok = bool(r.components) and all(c.certified for c in r.components) and r.matches is True
    return secs, comps, ok, r.verdict


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="also write the lines to this file")
    ap.add_argument("--deep", help="only this deep fiber, e.g. 2,2,2:1,1")
    ap.add_argument("--seeds", default="0,1,2,3,4", help="seeds with --deep, e.g. 0,2")
    args = ap.parse_args(argv)
    rep = Report("benchmarks/fiber_seeds.py", argv)
    say = rep.say
    seeds = range(3) if args.quick else range(10)
    for shape in ([] if args.deep else QUICK_SHAPES if args.quick else SHAPES):
        arch = Architecture.single(*shape)
        times, cert = [], 0
        for s in seeds:
            secs, comps, ok, _ = run(arch, s)
            times.append(secs)
            cert += ok
            say(f"  generic {shape} seed {s}: {secs:6.2f} s, components {comps}")
        med = statistics.median(times)
        say(f"generic {shape}: median {med:.2f} s, slowest {max(times):.2f} s = "
            f"{max(times) / med:.1f}x the median (goal <= 3x), certified {cert}/{len(times)}")
    deep = [(args.deep, [int(x) for x in args.seeds.split(",")])] if args.deep else \
        [("2,1,2:1,1", range(3))] if args.quick else \
        [("2,2,2:1,1", range(5)), ("3,2,3:1,1", range(1)), ("2,2,2,2:1,1,1", range(1))]
    for spec, ss in deep:
        arch = Architecture.parse(spec)
        for s in ss:
            secs, comps, ok, verdict = run(arch, s, timeout=1800)
            say(f"deep {spec} seed {s}: {secs:7.1f} s, components (dim, degree, trace "
                f"verdict) {comps}, {'certified' if ok else 'NOT certified'} (load "
                f"{os.getloadavg()[0]:.1f}); verdict: {verdict}")
    rep.write(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
