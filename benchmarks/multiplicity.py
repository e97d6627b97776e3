"""Singular and non-reduced solution sets (issue 10): ours vs PHCpack's blackbox vs Macaulay2.

  python benchmarks/multiplicity.py [--seed S] [--m2-timeout SECONDS] [--out FILE]

Each case has an exact expected answer derived from the construction of its ideal (the
derivations are in tests/test_witness_issue10.py):

* decomposition cases: the multiset of (dim, degree, multiplicity) of the irreducible
  components. Ours: ``witness.decompose`` with ``runs=0`` (our engine alone; the CLI adds a
  PHCpack cascade run as its independent check). PHCpack: its blackbox decomposition
  (``phc.polysys_solve``: embedding, cascade, filter, monodromy factorization; one component per
  printed factor, of degree = its points and multiplicity = their largest ``m`` as PHCpack
  prints it (its witness points of positive dimension carry ``m : 0`` or 1 when the factor
  is not reduced: PHCpack does not report their multiplicity); at dim 0 every point a
  component; a single equation in one unknown goes to ``phc.solve``, since the cascade hangs
  on it, measured). Macaulay2: ``numericalIrreducibleDecomposition`` (NAG package) when ``M2``
  is on PATH; it reports dim and degree but no multiplicity, so it is judged on (dim, degree).
* solve cases (square systems): the sorted multiplicities of the isolated solutions. Ours:
  ``witness.solve.solve_paths`` (every path accounted; right only when also ``complete``).
  PHCpack: ``phc.solve`` (blackbox, points with residual < 1e-9 after nothing: as it reports
  them, with its ``m``) in the case's precision. Macaulay2: NID as above, dim-0 points counted.

Columns: right (✓) / wrong (✗) / failed or timed out (!), and wall seconds. Timings on a shared
2-core machine are noisy: the output records nproc and the load average before and after.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from witness import decompose, phc  # noqa: E402
from witness.inputfile import parse_system_text  # noqa: E402
from witness.solve import solve_paths  # noqa: E402

PHC_TIMEOUT = 60.0
RESIDUAL_TOL = 1e-9


def _pts(n):
    return [(0, 1, 1)] * n


# name, kind, text, expected, PHCpack precision
CASES = [
    ("a1^2-a2; a3^2 (double parabola)", "decompose", "a1^2 - a2; a3^2", [(1, 2, 2)], "d"),
    ("x^80 - 1", "decompose", "x^80 - 1", _pts(80), "d"),
    ("x+3; y+1 in C^4", "decompose", "variables: x, y, z, t\nx+3; y+1", [(2, 1, 1)], "d"),
    ("x^3; y (triple line)", "decompose", "variables: x, y, z\nx^3; y", [(1, 1, 3)], "d"),
    ("(x-y^2)^3 (triple parabola)", "decompose", "(x - y^2)^3", [(1, 2, 3)], "d"),
    ("x^2-y; (x^3-z)^2 (double twisted cubic)", "decompose", "x^2 - y; (x^3 - z)^2",
     [(1, 3, 2)], "d"),
    ("xy; xz^2 (plane + double line)", "decompose", "x*y; x*z^2", [(1, 1, 2), (2, 1, 1)],
     "d"),
    ("x^2y; x^2z (double plane + line)", "decompose", "x^2*y; x^2*z",
     [(1, 1, 1), (2, 1, 2)], "d"),
    ("(y,z^2)(x^2-1,y-1,z-1) (points + double line)", "decompose",
     "; ".join(f"{a}*({b})" for a in ("y", "z^2") for b in ("x^2 - 1", "y - 1", "z - 1")),
     [(0, 1, 1), (0, 1, 1), (1, 1, 2)], "d"),
    # issue 10 row 3 restated: 7 variables, three components of dim 4 and degree 4 (the
    # quartic hypersurfaces a, b, c inside the 5-plane of the two linear equations), c doubled
    ("7 variables, 3 x (dim 4, deg 4), one double", "decompose",
     "variables: x1, x2, x3, x4, x5, x6, x7\nx1 + x5 - x7; x2 - 2*x6 + x3; "
     "(x3^4 - x4)*(x5^4 - x6 + x1)*(x7^4 - x3 - 1)^2",
     [(4, 4, 1), (4, 4, 1), (4, 4, 2)], "d"),
    ("x^100 - 1", "solve", "x^100 - 1", [1] * 100, "d"),
    ("x^100 - 1; y^2 - x", "solve", "x^100 - 1; y^2 - x", [1] * 200, "d"),
    ("5 variables, --precision dd", "solve", "-4*x4^2+x0^2+x1^2+x2^2+x3^2; x0; x1; x2; x3-1",
     [1, 1], "dd"),
    ("Griewank-Osborne", "solve", "29/16*x^3 - 2*x*y; x^2 - y", [3], "d"),
    ("triple root", "solve", "x^2 + y - 3; x + y^2/8 - 3/2", [1, 3], "d"),
    ("(x-1)^3", "solve", "(x - 1)^3", [3], "d"),
    # close simple roots, not one multiple root (witness/cluster.py): ±1e-10; ±sqrt(2)e-12
    ("x^2 - 1e-20 (two simple roots)", "solve", "x^2 - 1e-20", [1, 1], "d"),
    ("x^2 - 2y^2; y - 1e-12 (two simple roots)", "solve", "x^2 - 2*y^2; y - 1e-12", [1, 1],
     "d"),
    ("x^2 - 1e-20 (two points)", "decompose", "variables: x\nx^2 - 1e-20", _pts(2), "d"),
    # roots 1 and 1 + 1e-9 (simple: f' = ∓1e-9 there)
    ("(x-1)(x-1-1e-9) (two simple roots)", "solve", "(x - 1)*(x - 1 - 1/1000000000)", [1, 1],
     "d"),
    # badly scaled (witness/scaling.py): roots ±(1e5, 1e5); 200 roots of modulus 10^(-1/2)
    ("xy - 1e10; x - y (roots ±1e5)", "decompose", "x*y - 1e10; x - y", _pts(2), "d"),
    ("x^200 - 1e-100", "solve", "x^200 - 1e-100", [1] * 200, "d"),
]


def ours(kind, F, seed):
    if kind == "decompose":
        D = decompose(F, seed=seed, runs=0)
        got = sorted((c.dim, c.degree, c.multiplicity) for c in D.components)
        return got, D.certified
    r = solve_paths(F, seed=seed)
    return sorted(g.multiplicity for g in r.isolated), r.complete


def phc_answer(kind, F, seed, precision):
    if kind == "solve":
        r = phc.solve(F, precision=precision, seed=seed, timeout=PHC_TIMEOUT)
        ok = np.isfinite(r.residuals) & (r.residuals < RESIDUAL_TOL)
        return sorted(int(m) for m in r.multiplicities[ok])
    if F.n_equations == 1 and F.n_vars == 1:      # the cascade needs >= 1 slack dimension
        r = phc.solve(F, precision=precision, seed=seed, timeout=PHC_TIMEOUT)
        ok = np.isfinite(r.residuals) & (r.residuals < RESIDUAL_TOL)
        return sorted((0, 1, int(m)) for m in r.multiplicities[ok])
    r = phc.polysys_solve(F, precision=precision, seed=seed, timeout=PHC_TIMEOUT)
    out = []
    for d in r.dims:
        if not len(d.points):
            continue
        if d.dim == 0:
            out += [(0, 1, int(m)) for m in d.multiplicities]
        elif d.factors:
            out += [(d.dim, len(f), int(max(d.multiplicities[i] for i in f)))
                    for f in d.factors]
        else:
            out.append((d.dim, len(d.points), -1))      # no factorization printed
    return sorted(out)


def m2_answer(text, timeout):
    """(dim, degree) multiset from Macaulay2's numericalIrreducibleDecomposition, or an error
    string."""
    sf = parse_system_text(text)
    polys = [p.strip() for line in text.splitlines() if not line.startswith("variables:")
             for p in line.split(";") if p.strip()]
    script = (f'needsPackage "NumericalAlgebraicGeometry";\nsetRandomSeed 1;\n'
              f'R = CC[{", ".join(sf.variables)}];\n'
              f'V = numericalIrreducibleDecomposition ideal({", ".join(polys)});\n'
              'print toString flatten apply(keys V, d -> apply(V#d, W -> (dim W, degree W)));\n')
    with tempfile.NamedTemporaryFile("w", suffix=".m2", delete=False) as f:
        f.write(script)
    try:
        out = subprocess.run(["M2", "--script", f.name], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timeout {timeout:.0f} s"
    finally:
        os.unlink(f.name)
    line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    if out.returncode or not line.startswith("{"):
        errs = [ln for ln in out.stderr.splitlines() if "error:" in ln] or ["?"]
        return "error: " + errs[0].split("error:", 1)[-1].strip()[:70]
    pairs = line.strip("{}").replace(" ", "")
    return sorted(tuple(int(v) for v in p.strip("()").split(","))
                  for p in pairs.split("),(") if p)


def judge_m2(kind, got, expected):
    if isinstance(got, str):
        return "!", got
    if kind == "solve":
        want = Counter({(0, 1): len(expected)})
        return ("✓" if Counter(got) == want else "✗"), f"{len(got)} points"
    return ("✓" if sorted(got) == sorted((d, g) for d, g, _ in expected) else "✗"), \
        f"{len(got)} comps (no mult.)"


def short(v) -> str:
    c = Counter(v)
    return ", ".join(f"{k}" + (f"x{n}" if n > 1 else "") for k, n in sorted(c.items()))


def timed(fn, *a):
    t0 = time.perf_counter()
    try:
        return fn(*a), time.perf_counter() - t0
    except Exception as exc:                       # a failure is a result here, reported
        return exc, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--m2-timeout", type=float, default=30.0)
    ap.add_argument("--out", default=os.path.join(_here, "results", "multiplicity.txt"))
    args = ap.parse_args()
    m2 = shutil.which("M2")
    load0 = os.getloadavg()
    lines = [f"# benchmarks/multiplicity.py, {datetime.datetime.now().isoformat(timespec='seconds')}",
             f"# {platform.platform()}, nproc {os.cpu_count()}, load average "
             f"{' '.join(f'{v:.2f}' for v in load0)} at the start; seed {args.seed}",
             f"# ours: witness.decompose(runs=0) / witness.solve.solve_paths; PHCpack: "
             f"phc.polysys_solve / phc.solve; M2: {'numericalIrreducibleDecomposition' if m2 else 'not on PATH: skipped'}",
             f"{'case':48s} {'expected':22s} | {'ours':>12s} | {'PHCpack':>12s} | "
             f"{'M2':>12s}"]
    score = Counter()
    for name, kind, text, expected, prec in CASES:
        F = parse_system_text(text).system
        (o, ts) = timed(ours, kind, F, args.seed)
        if isinstance(o, Exception):
            o_mark, o_note = "!", f"{type(o).__name__}"
        else:
            got, ok = o
            o_mark = "✓" if got == sorted(expected) and ok else "✗"
            o_note = "" if ok else " (not certified/complete)"
        p, tp = timed(phc_answer, kind, F, args.seed, prec)
        p_mark = "!" if isinstance(p, Exception) else ("✓" if p == sorted(expected) else "✗")
        if m2:
            g, tm = timed(m2_answer, text, args.m2_timeout)
            m_mark, m_note = judge_m2(kind, g, expected)
            m_col = f"{m_mark} {tm:7.2f}s"
        else:
            m_col, m_note = "skipped", ""
        score.update({"ours": o_mark == "✓", "phc": p_mark == "✓",
                      "m2": m2 is not None and m_mark == "✓"})
        lines.append(f"{name:48s} {short(expected)[:22]:22s} | {o_mark} {ts:7.2f}s   | "
                     f"{p_mark} {tp:7.2f}s   | {m_col}")
        detail = []
        if o_mark != "✓":
            detail.append(f"ours: {o if isinstance(o, Exception) else short(o[0])}{o_note}")
        if p_mark != "✓":
            detail.append(f"PHCpack: {str(p)[:80] if isinstance(p, Exception) else short(p)}")
        if m2 and m_mark != "✓":
            detail.append(f"M2: {m_note if isinstance(g, str) else short(g)}")
        lines += [f"    {d}" for d in detail]
        print("\n".join(lines[-1 - len(detail):]), flush=True)
    n = len(CASES)
    lines.append(f"right: ours {score['ours']}/{n}, PHCpack {score['phc']}/{n}"
                 + (f", M2 {score['m2']}/{n} (judged on dim and degree only)" if m2 else ""))
    lines.append(f"# load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    lines.append("# ✓ right, ✗ wrong, ! failed or timed out; seconds are wall time (noisy under "
                 "load). PHCpack multiplicity: the largest m of a factor's points.")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:4] + lines[-3:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
