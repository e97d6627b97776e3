"""Fibers of single lightning layers: monodromy from W0 vs PHCpack's blackbox vs Macaulay2.

For each (d, d', a), the fiber through a generic rational W0 (numag.points.sample_point) is
encoded exactly (numag.encode) and decomposed three ways on the same system:
  (m) numag.fiber: monodromy from W0 with our vectorized tracker, certified by the trace test;
  (b) witness.decompose: PHCpack's cascade + factorization, checked and repaired (capped);
  (M) Macaulay2's numericalIrreducibleDecomposition, where `M2` is installed (capped).
Then the largest shapes whose generic fiber witness set completes within the time limit.
Run: .venv/bin/python benchmarks/fibers.py [--quick] [--cap SECONDS]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# benchmarks/witness.py would shadow the witness package when this folder is sys.path[0]
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(
    os.path.abspath(__file__))]

from numag import Architecture  # noqa: E402
from numag.encode import fiber_system  # noqa: E402
from numag.fibers import fiber  # noqa: E402
from numag.points import sample_point  # noqa: E402
from witness import PHCError, PolynomialSystem, decompose  # noqa: E402

COMPARE = [(2, 1, 1), (2, 2, 1), (3, 1, 1), (2, 1, 2), (2, 2, 2), (3, 2, 2), (3, 3, 2)]
QUICK = [(2, 1, 1), (2, 2, 1), (3, 1, 1), (3, 3, 2)]
SCALE = [(3, 3, 2), (4, 2, 2), (4, 3, 2), (4, 4, 2), (3, 3, 3), (4, 4, 3), (5, 5, 2), (4, 4, 4)]


def monodromy_run(shape, seed: int, cap: float) -> dict:
    t = time.perf_counter()
    r = fiber(Architecture.single(*shape), kind="generic", seed=seed, blackbox=False,
              timeout=cap)
    comps = [(c.dim, c.degree) for c in r.components]
    ok = all(c.trace_test["verdict"] is True for c in r.components)
    return {"seconds": time.perf_counter() - t, "components": comps, "certified": ok,
            "paths": r.paths_tracked, "failed": r.failed_paths}


def blackbox_run(F: PolynomialSystem, seed: int, cap: float) -> dict:
    t = time.perf_counter()
    try:
        nid = decompose(F, seed=seed, cascade_timeout=cap, timeout=cap)
    except PHCError as exc:
        return {"seconds": time.perf_counter() - t, "error": str(exc)[:80]}
    secs = time.perf_counter() - t
    timed_out = any(not c["passed"] and "Timeout" in c["detail"] for c in nid.checks)
    return {"seconds": secs, "components": [(c.dim, c.degree) for c in nid.components],
            "certified": nid.certified, "timed_out": timed_out}


def macaulay2_run(F: PolynomialSystem, cap: float) -> dict:
    """numericalIrreducibleDecomposition in Macaulay2 (NumericalAlgebraicGeometry package)."""
    names = [f"x_{i}" for i in range(F.n_vars)]
    polys = ",\n  ".join(PolynomialSystem._poly_str(p, names, phc=False) for p in F.polynomials)
    script = (f'needsPackage "NumericalAlgebraicGeometry";\nR = CC[x_0..x_{F.n_vars - 1}];\n'
              f"F = {{{polys}}};\nW = numericalIrreducibleDecomposition ideal F;\n"
              'for c in components W do print("COMPONENT " | toString(dim c) | " " | '
              "toString(degree c));\nexit 0\n")
    with tempfile.NamedTemporaryFile("w", suffix=".m2", delete=False) as f:
        f.write(script)
    t = time.perf_counter()
    try:
        out = subprocess.run(["M2", "--script", f.name], capture_output=True, text=True,
                             timeout=cap)
    except subprocess.TimeoutExpired:
        return {"seconds": cap, "error": f"timeout {cap:g} s"}
    secs = time.perf_counter() - t
    comps = [(int(a), int(b)) for a, b in re.findall(r"COMPONENT (\d+) (\d+)", out.stdout)]
    if out.returncode != 0 or not comps:
        err = (out.stderr.strip().splitlines() or ["no output"])[-1][:80]
        return {"seconds": secs, "error": err}
    return {"seconds": secs, "components": comps}


def fmt(r: dict | None) -> str:
    if r is None:
        return "-"
    if "error" in r:
        return f"FAILED {r['seconds']:.1f}s ({r['error']})"
    mark = "" if r.get("certified", True) else " (uncertified)"
    mark += " (timed out)" if r.get("timed_out") else ""
    return f"{r['components']} {r['seconds']:.1f}s{mark}"


def compare(shapes, cap: float, seed: int, m2: bool) -> None:
    print(f"{'(d, dp, a)':<11} | {'(m) monodromy from W0':<34} | {'(b) PHCpack blackbox':<34} | "
          f"{'(M) Macaulay2':<26} | b/m   M/m")
    for shape in shapes:
        arch = Architecture.single(*shape)
        F = fiber_system(arch, sample_point(arch, "generic", seed)).system
        m = monodromy_run(shape, seed, cap)
        b = blackbox_run(F, seed, cap) if F.n_vars <= 12 else None
        M = macaulay2_run(F, cap) if m2 and F.n_vars <= 12 else None
        ratio = lambda r: f"{r['seconds'] / m['seconds']:5.1f}" if r and "error" not in r \
            else "  -  "
        mono = f"{fmt(m)} {m['paths']} paths"
        print(f"{str(shape):<11} | {mono:<34} | {fmt(b):<34} | "
              f"{fmt(M):<26} | {ratio(b)} {ratio(M)}", flush=True)


def scale(shapes, cap: float, seed: int) -> None:
    print(f"\nLargest generic fibers within {cap:g} s (monodromy from W0, trace-certified):")
    for shape in shapes:
        m = monodromy_run(shape, seed, cap)
        print(f"  {str(shape):<11} unknowns {Architecture.single(*shape).n_params:>3}: "
              f"{fmt(m)}, {m['paths']} paths, {m['failed']} failed", flush=True)
        if not m["certified"]:
            break


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small shapes, 60 s caps")
    p.add_argument("--cap", type=float, default=None, help="seconds per run (default 300)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    cap = args.cap or (60.0 if args.quick else 300.0)
    m2 = shutil.which("M2") is not None
    if not m2:
        print("Macaulay2 (M2) not installed: column (M) skipped (apt-get install macaulay2)")
    compare(QUICK if args.quick else COMPARE, cap, args.seed, m2)
    if not args.quick:
        scale(SCALE, cap, args.seed)


if __name__ == "__main__":
    main()
