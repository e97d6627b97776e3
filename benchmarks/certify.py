"""Certification speed: Krawczyk certification (witness.certify) of all solutions of standard
systems, side by side with what a researcher would otherwise run.

  python benchmarks/certify.py [--quick] [--systems katsura-6,cyclic-7,...]
  python benchmarks/certify.py --monodromy [--quick] [--out]

Per system: the solutions come from witness.phc.solve (PHCpack's blackbox solver; katsura-n for
n >= 6 in double-double, which double precision merges roots of: shared/known-answer-systems.md).
Columns:

* certify: seconds of ``certify`` over all solutions, solutions certified per second, and the
  counts certified / distinct / real;
* refine: seconds of mpmath Newton refinement to 30 digits (``witness.refine``) of the same
  points: the usual non-rigorous check, and the ratio refine / certify;
* solve: seconds PHCpack took to find the points, and the ratio solve / certify (what the
  proof costs relative to finding the solutions).

``--monodromy``: monodromy solve vs PHCpack's blackbox on the same parametrized systems: the
families F(x) - p of katsura-5/6 and cyclic-5 (``witness.examples.with_offsets``), seeded at a
random point x* (p* = F(x*)), and the lines tangent to four spheres (12 of total degree 256,
``witness.examples.tangent_lines_to_spheres``), target: four spheres with integer centres
and squared radii (``SPHERES``). Columns: monodromy (``witness.monodromy_solve``) seconds, loops,
paths and its verdict; seconds of the parameter homotopy from p* to the target (p = 0, the
standard system, for F(x) - p; ``SPHERES`` for the spheres; ``witness.parameters.
track_parameters``) and how many solutions it reached; PHCpack's blackbox solve of the target
system (seconds, solutions); and both solution sets certified
(certified / distinct / real). The ratio blackbox / (monodromy + track) is what one solve
costs; the ratio blackbox / track is what every further parameter value costs once the
monodromy solve is done (the use case: one monodromy solve, then many parameter values).
``--out`` also writes the table to benchmarks/results/certify-monodromy-DATE-HOST.txt.

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
from witness.examples import (cyclic, katsura, tangent_lines_seed,  # noqa: E402
                              tangent_lines_to_spheres, with_offsets)
from witness.monodromy_solve import monodromy_solve  # noqa: E402
from witness.parameters import Family, track_parameters  # noqa: E402

import datetime  # noqa: E402
import platform  # noqa: E402

import numpy as np  # noqa: E402

sys.path.append(_here)      # benchmarks/report.py, after the packages (benchmarks/witness.py)
from report import Report  # noqa: E402

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


FAMILIES = {"katsura-5": lambda: katsura(5), "cyclic-5": lambda: cyclic(5),
            "katsura-6": lambda: katsura(6), "spheres": None}
MONO_QUICK = ["katsura-5", "cyclic-5"]
# target spheres of the tangent-lines family: centres and squared radii (a, b, c, s) per sphere
SPHERES = [0, 0, 0, 1, 3, 0, 0, 2, 0, 3, 1, 3, 1, 1, 3, 2]


def _family_and_seed(name: str, rng):
    """(family, seed parameters, seed point, target parameters, target system)."""
    if name == "spheres":
        S = tangent_lines_to_spheres()
        p, x = tangent_lines_seed(rng)
        F = S.substitute(dict(zip(S.variables[4:], SPHERES)))
        return Family(S, 4), p, x, np.array(SPHERES, complex), F
    F = FAMILIES[name]()
    n = F.n_vars
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    return Family(with_offsets(F), n), F.evaluate(x[None])[0], x, np.zeros(n), F


def run_monodromy(name: str, seed: int) -> dict:
    fam, p, x, target, F = _family_and_seed(name, np.random.default_rng(seed))
    r = monodromy_solve(fam, p, [x], seed=seed, timeout=240, progress=False)
    tr = track_parameters(fam, r.solutions, p, target, seed=seed)
    t0 = time.perf_counter()
    ph = phc.solve(F, seed=seed).points
    t_phc = time.perf_counter() - t0
    cm, cp = certify(F, tr.solutions), certify(F, ph)
    return {"system": name, "mono_s": r.seconds, "loops": r.loops, "paths": r.paths_tracked,
            "found": len(r.solutions), "complete": r.complete, "track_s": tr.seconds,
            "reached": tr.accounting.regular, "phc_s": t_phc, "phc": len(ph),
            "cert_m": (cm.certified, cm.distinct, cm.real),
            "cert_p": (cp.certified, cp.distinct, cp.real)}


def monodromy_table(names: list[str], seed: int, out: str | None) -> None:
    """Print the --monodromy table (``report.Report``: dated, load-stamped) and, with ``out``,
    write it there."""
    rep = Report("benchmarks/certify.py")
    rep.say(f"host {platform.node() or 'unknown'} ({platform.machine()}); shared machine: "
            f"timings noisy; seed {seed}")
    rep.say(f"{'system':10s} {'mono s':>7s} {'loops':>5s} {'paths':>6s} {'found':>5s} "
            f"{'complete':>8s} {'track s':>7s} {'reach':>5s} {'phc s':>6s} {'phc':>4s} "
            f"{'ratio1':>6s} {'ratio2':>6s}  certified/distinct/real mono | phc")
    for name in names:
        r = run_monodromy(name, seed)
        rep.say(f"{r['system']:10s} {r['mono_s']:7.2f} {r['loops']:5d} {r['paths']:6d} "
                f"{r['found']:5d} {str(r['complete']):>8s} {r['track_s']:7.2f} "
                f"{r['reached']:5d} {r['phc_s']:6.2f} {r['phc']:4d} "
                f"{r['phc_s'] / (r['mono_s'] + r['track_s']):6.2f} "
                f"{r['phc_s'] / r['track_s']:6.1f}  {'/'.join(map(str, r['cert_m']))} | "
                f"{'/'.join(map(str, r['cert_p']))}")
    rep.say("ratio1 = phc / (monodromy + track): one solve; ratio2 = phc / track: each further "
            "parameter value (> 1: ours is faster)")
    rep.write(out)
    if out:
        print("written:", out)


def result_path() -> str:
    """benchmarks/results/certify-monodromy-DATE-HOST.txt"""
    return os.path.join(_here, "results", f"certify-monodromy-{datetime.date.today()}-"
                                          f"{platform.node() or 'unknown'}.txt")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    ap.add_argument("--systems", help=f"comma-separated from {', '.join(SYSTEMS)}")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--monodromy", action="store_true",
                    help="monodromy solve vs PHCpack's blackbox on parametrized systems")
    ap.add_argument("--out", action="store_true",
                    help="with --monodromy: also write benchmarks/results/...-DATE-HOST.txt")
    args = ap.parse_args(argv)
    if args.monodromy:
        names = MONO_QUICK if args.quick else list(FAMILIES)
        monodromy_table(names, args.seed, result_path() if args.out else None)
        return
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
