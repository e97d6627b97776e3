"""Degrees of images: witness.image (pseudo-witness set, trace-certified) vs Macaulay2's
NumericalImplicitization (`pseudoWitnessSet` / `numericalImageDegree`, Chen–Kileel 2019).

Cases (the same polynomials are given to both):
  rnc60  (s, t) ↦ (s^60, s^59 t, ..., t^60), the cone over the rational normal curve: degree 60
         (classical);
  (2,2,1) the single lightning layer W = (Q, K, V) ↦ 2T(W) (numag.encode.parametrization):
         degree 20 (closed form derived in docs/paper-notes.md §10; also the exact checks below).
For each seed: our answer (`degree`, or "undecided" when the trace test did not certify), its
time (ours: witness.image with a random fiber slice M, the same input as Macaulay2's; numag:
numag.degree, the slice M fixing the gauge of the symmetries), and Macaulay2's answer (its `degree`, and whether its own trace test called the set
complete) and time (elapsedTiming inside M2, process start and package loading excluded); the
two alternate seed by seed so that both see the same machine load.
Right = the true degree. With --exact, the degree of (2,2,1) and (3,1,1) is also computed
exactly over F_32003 in Macaulay2: `degree ker` of the ring map (implicitization) and the number
of points of {gauge slice, T(W) ∈ random L} (numag.degree.gauge_slice; for a = d' = 1 every image
point has two such points, the swap); --exact-all adds (3,1,2) (degree 108, no closed form; the
point count took 17 minutes).

Timing: this machine has 2 cores shared with other jobs; seconds are wall-clock and noisy (both
columns suffer alike). Run: .venv/bin/python benchmarks/image.py [--seeds 20] [--quick]
[--exact] [--m2-timeout SECONDS]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# benchmarks/witness.py would shadow the witness package when this folder is sys.path[0]
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(
    os.path.abspath(__file__))]

import numpy as np  # noqa: E402

from numag import Architecture, dimension  # noqa: E402
from numag.degree import degree, gauge_slice  # noqa: E402
from numag.encode import parametrization  # noqa: E402
from witness.image import PolynomialMap, image_degree  # noqa: E402
from witness.system import PolynomialSystem  # noqa: E402


def cases() -> dict[str, tuple[PolynomialMap, int, Architecture | None]]:
    rnc = PolynomialMap.from_strings([f"s^{60 - i}*t^{i}" for i in range(61)], ["s", "t"])
    arch = Architecture.single(2, 2, 1)
    return {"rnc60": (rnc, 60, None),
            "(2,2,1)": (PolynomialMap(parametrization(arch)), 20, arch)}


def m2_polys(f: PolynomialMap) -> tuple[list[str], str]:
    names = [f"x_{i}" for i in range(f.n_source)]
    return names, ", ".join(PolynomialSystem._poly_str(p, names)
                            for p in f.coordinates.polynomials)


def macaulay2(f: PolynomialMap, seed: int, timeout: float) -> dict | None:
    """pseudoWitnessSet in one M2 process for one seed (time measured inside M2 by
    elapsedTiming: process start and package loading excluded); None on timeout."""
    names, polys = m2_polys(f)
    script = (f'needsPackage "NumericalImplicitization";\nR = CC[{names[0]}..{names[-1]}];\n'
              f"F = {{{polys}}};\nsetRandomSeed {seed};\n"
              "r = elapsedTiming pseudoWitnessSet(F, ideal 0_R, Verbose => false);\n"
              'print("DEGREE " | toString((r#1).degree) | " COMPLETE " | '
              'toString((r#1).isCompletePseudoWitnessSet) | " SECONDS " | toString(r#0));\n'
              "exit 0\n")
    with tempfile.NamedTemporaryFile("w", suffix=".m2", delete=False) as fh:
        fh.write(script)
    try:
        out = subprocess.run(["M2", "--script", fh.name], capture_output=True, text=True,
                             timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"DEGREE (\d+) COMPLETE (\w+) SECONDS ([\d.e-]+)", out)
    return m and {"degree": int(m[1]), "complete": m[2] == "true", "seconds": float(m[3])}


def ours(f: PolynomialMap, seed: int) -> dict:
    t = time.perf_counter()
    r = image_degree(f, seed=seed, timeout=600)
    return {"degree": r.degree, "certified": r.certified, "found": r.points_found,
            "seconds": time.perf_counter() - t, "paths": r.paths_tracked}


def gauge(arch: Architecture, seed: int) -> dict:
    """numag.degree: the same map with the gauge slice of the symmetries as M."""
    t = time.perf_counter()
    r = degree(arch, seed=seed, timeout=600)
    return {"degree": r.degree, "seconds": time.perf_counter() - t}


def line(label: str, truth: int, runs: list[dict]) -> list[float]:
    right = sum(r["degree"] == truth for r in runs)
    undecided = sum(r["degree"] is None for r in runs)
    wrong = [r["degree"] for r in runs if r["degree"] is not None and r["degree"] != truth]
    secs = [r["seconds"] for r in runs]
    print(f"  {label:<9} {right}/{len(runs)} right, {undecided} undecided, wrong {wrong}; "
          f"median {statistics.median(secs):.1f} s, max {max(secs):.1f} s")
    return secs


def summary(name: str, truth: int, mine: list[dict], m2: dict[int, dict] | None,
            seeds: list[int], numag_runs: list[dict]) -> None:
    secs = line("ours", truth, mine)
    if numag_runs:
        line("numag", truth, numag_runs)
    if m2 is None:
        return
    got = [m2[s] for s in seeds if s in m2]
    m2_right = sum(r["degree"] == truth for r in got)
    m2_wrong = [(s, m2[s]["degree"], "complete" if m2[s]["complete"] else "incomplete")
                for s in seeds if s in m2 and m2[s]["degree"] != truth]
    if got:
        ms = [r["seconds"] for r in got]
        print(f"  Macaulay2 {m2_right}/{len(seeds)} right ({len(seeds) - len(got)} not finished "
              f"in the time limit); wrong: {m2_wrong}; median {statistics.median(ms):.1f} s, "
              f"max {max(ms):.1f} s; median ratio M2/ours "
              f"{statistics.median(ms) / statistics.median(secs):.1f}x")
    else:
        print("  Macaulay2 no seed finished in the time limit")


def exact_checks(shapes) -> None:
    """Exact degrees over F_32003 with Macaulay2: implicitization (`degree ker`, skipped for
    d = 3, a = 2, where it did not finish in 5 minutes) and point counts."""
    print("\nExact checks over F_32003 (Macaulay2):")
    rng = np.random.default_rng(1)
    for arch in (Architecture.single(*s) for s in shapes):
        F = parametrization(arch)
        names, polys = m2_polys(PolynomialMap(F))
        k = dimension(arch, seed=0).dimension
        A, b = gauge_slice(arch)
        eqs = [f"x_{int(np.flatnonzero(row)[0])} - {int(c.real)}" for row, c in zip(A.real, b)]
        T = polys.split(", ")
        for _ in range(k):
            coef = rng.integers(1, 32003, len(T))
            eqs.append(" + ".join(f"{int(a)}*({t})" for a, t in zip(coef, T))
                       + f" - {int(rng.integers(1, 32003))}")
        implicit = (f"S = ZZ/32003[t_0..t_{F.n_equations - 1}];\n"
                    f"I = ker map(R, S, {{{polys}}});\n"
                    f'print("IMPLICIT " | toString(dim I) | " " | toString(degree I));\n')
        script = (f"R = ZZ/32003[{names[0]}..{names[-1]}];\n"
                  + ("" if 1 < arch.ranks[0] < arch.widths[0] else implicit) +
                  f"J = ideal({', '.join(eqs)});\n"
                  f'print("COUNT " | toString(dim J) | " " | toString(degree J));\nexit 0\n')
        with tempfile.NamedTemporaryFile("w", suffix=".m2", delete=False) as fh:
            fh.write(script)
        t = time.perf_counter()
        out = subprocess.run(["M2", "--script", fh.name], capture_output=True, text=True,
                             timeout=7200).stdout
        imp = re.search(r"IMPLICIT (\d+) (\d+)", out)
        cnt = re.search(r"COUNT (\d+) (\d+)", out)
        r = degree(arch, seed=0)
        ker = f"dim {imp[1]}, degree {imp[2]}" if imp else "skipped"
        print(f"  {arch.spec()}: ker: {ker}; points on "
              f"gauge slice ∩ T^-1(L): {cnt and cnt[2]} (dim {cnt and cnt[1]}); numag degree "
              f"{r.degree} (certified {r.certified}); {time.perf_counter() - t:.1f} s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--quick", action="store_true", help="3 seeds")
    p.add_argument("--case", action="append", choices=list(cases()),
                   help="run only this case (repeatable)")
    p.add_argument("--exact", action="store_true",
                   help="exact F_p checks in Macaulay2 of (2,2,1) and (3,1,1) (seconds)")
    p.add_argument("--exact-all", action="store_true",
                   help="also (3,1,2), degree 108, no closed form (about 17 min in Macaulay2)")
    p.add_argument("--m2-timeout", type=float, default=1200.0,
                   help="seconds per Macaulay2 run (one process per case and seed)")
    args = p.parse_args()
    seeds = list(range(3 if args.quick else args.seeds))
    m2 = shutil.which("M2") is not None
    if not m2:
        print("Macaulay2 (M2) not installed: its column is skipped (apt-get install macaulay2)")
    print(f"{len(seeds)} seeds per case; wall-clock seconds on a shared 2-core machine (noisy)")
    for name, (f, truth, arch) in cases().items():
        if args.case and name not in args.case:
            continue
        print(f"\n{name}: C^{f.n_source} -> C^{f.n_target}, true degree {truth}", flush=True)
        mine, theirs, gauged = [], {}, []
        for s in seeds:                 # alternate, so that all see the same machine load
            mine.append(ours(f, s))
            if arch is not None:
                gauged.append(gauge(arch, s))
            if m2 and (r := macaulay2(f, s, args.m2_timeout)) is not None:
                theirs[s] = r
            print(f"  seed {s}: ours {mine[-1]['degree']} in {mine[-1]['seconds']:.1f} s"
                  + (f"; numag {gauged[-1]['degree']} in {gauged[-1]['seconds']:.1f} s"
                     if gauged else "")
                  + (f"; M2 {theirs[s]['degree']} in {theirs[s]['seconds']:.1f} s"
                     if s in theirs else ""), flush=True)
        summary(name, truth, mine, theirs if m2 else None, seeds, gauged)
    if (args.exact or args.exact_all) and m2:
        exact_checks([(2, 2, 1), (3, 1, 1)] + ([(3, 1, 2)] if args.exact_all else []))


if __name__ == "__main__":
    main()
