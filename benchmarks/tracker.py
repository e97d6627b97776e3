"""Tracker seconds per path: ours vs PHCpack's tracker vs Bertini 2, on the same problems.

  python benchmarks/tracker.py [--quick] [--out FILE]

1. Total-degree homotopies to cyclic-7 (5040 paths, 924 finite roots) and katsura-8 (256
   paths, 256 roots): ours (compiled tracker, projective patch, Cauchy endgame, the start
   system x_i^d_i - 1 and one gamma) vs PHCpack's tracker on the SAME homotopy (same start
   points, same gamma, phcpy.trackers.track in a worker process; it has no endgame, so paths to
   infinity or to singular points are not finished) vs Bertini 2's blackbox solve (its own
   total-degree start, double precision, power-series endgame; the ``bertini2`` wheel, extra
   ``numag[bench]``, skipped when absent). Reported: seconds, seconds per path, roots found
   (distinct regular endpoints that satisfy the system, backward error < 1e-9).
2. The deep fiber widths 2,2,2 ranks 1,1 (16 unknowns, 144 witness points): moving the witness
   points to a parallel slice. Ours on the forward pass at sample inputs (numag.fiber_program)
   vs PHCpack's tracker on the expanded square system (8 random combinations of the 60 exact
   coefficient equations, degree 12) vs the old affine numpy tracker's 0.7 s per path (measured
   on main before this rewrite, README of 2026-11-30).

--quick: cyclic-5, katsura-6 and the (2,1,2) fiber. Timings on a shared 2-core machine are
noisy; the script prints the load average with the results.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from witness import phc  # noqa: E402
from witness.distinct import compare_points  # noqa: E402
from witness.examples import cyclic, katsura  # noqa: E402
from witness.homotopy import Homotopy, straight_line_homotopy, total_degree_start  # noqa: E402
from witness.tracking import PathStatus, track, track_slices  # noqa: E402
from witness.witness_set import random_translation, square_part  # noqa: E402

sys.path.append(_here)      # benchmarks/report.py, after the packages (benchmarks/witness.py)
from report import Report  # noqa: E402

OLD_DEEP_SECONDS_PER_PATH = 0.7


def distinct_roots(F, X, acc=None) -> int:
    """Distinct points among the rows of X that satisfy F (backward error < 1e-9)."""
    X = X[np.all(np.isfinite(X), axis=1)]
    X = X[F.residual(X) < 1e-9] if len(X) else X
    if not len(X):
        return 0
    C = compare_points(X, acc, X, acc)
    keep = []
    for i in range(len(X)):
        if not any(C[i, j] != 0 for j in keep):
            keep.append(i)
    return len(keep)


def ours_total_degree(F, gamma):
    S, X0 = total_degree_start(F)
    H = Homotopy(straight_line_homotopy(F, S), np.array([[gamma]]), F.n_vars, F, gamma)
    t0 = time.perf_counter()
    tr = track(H, X0, endgame=True, rng=0)
    secs = time.perf_counter() - t0
    reg = tr.status == PathStatus.REGULAR
    return secs, len(X0), distinct_roots(F, tr.endpoints[reg], tr.accuracy[reg]), tr


def phc_total_degree(F, gamma):
    S, X0 = total_degree_start(F)
    t0 = time.perf_counter()
    E, t, _ = phc.track(F, S, X0, gamma=gamma, pwt=1, timeout=3600)
    secs = time.perf_counter() - t0
    return secs, len(X0), distinct_roots(F, E[np.abs(t - 1) < 1e-8])


def bertini_total_degree(F):
    try:
        import bertini
    except ImportError:
        return None
    import tempfile
    names = list(F.variables)
    text = f"variable_group {', '.join(names)};\nfunction " + \
        ", ".join(f"f{i}" for i in range(F.n_equations)) + ";\n" + \
        "".join(f"f{i} = {p};\n" for i, p in enumerate(F.to_strings()))
    S = bertini.parse.system(text)
    t0 = time.perf_counter()
    r = bertini.solve(S, seed=1, directory=tempfile.mkdtemp(), mptype="double",
                      show_progress=False)
    secs = time.perf_counter() - t0
    sols = np.array([[complex(z) for z in s] for s in r.solutions], dtype=complex) \
        if len(r.solutions) else np.zeros((0, F.n_vars), complex)
    return secs, int(np.prod(F.degrees)), distinct_roots(F, sols)


def deep_fiber(widths: str, seed: int = 0):
    """(witness set of the deep fiber's orbit component, the program system, the exact system)."""
    from numag.architecture import Architecture
    from numag.encode import fiber_system
    from numag.fiber_program import fiber_program
    from numag.fibers import exact_nullity
    from numag.points import sample_point
    from witness import monodromy
    arch = Architecture.parse(widths)
    fs = fiber_system(arch, sample_point(arch, "generic", seed))
    k = exact_nullity(fs, fs.base_point)
    S = fiber_program(fs, fs.system.n_vars - k, seed)
    x0 = np.array([complex(v) for v in fs.base_point])
    r = monodromy(S, k, x0, seed=seed)
    return r.witness_set, S, fs.system


def row(name, what, secs, paths, roots, base=None):
    ratio = f"{secs / paths / base:8.1f}x" if base else "        -"
    return f"  {name:<22} {what:<26} {secs:9.2f} s {1e3 * secs / paths:9.3f} ms/path " \
           f"{roots:>6} {ratio}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args(argv)
    rep = Report("benchmarks/tracker.py", argv)
    rep.say(f"  {'problem':<22} {'tracker':<26} {'seconds':>11} {'per path':>17} "
             f"{'roots':>6} {'vs ours':>9}")
    systems = [("cyclic-5", cyclic(5)), ("katsura-6", katsura(6))] if args.quick else \
        [("cyclic-7", cyclic(7)), ("katsura-8", katsura(8))]
    gamma = complex(np.exp(0.7j))
    for name, F in systems:
        secs, p, roots, tr = ours_total_degree(F, gamma)
        base = secs / p
        rep.say(row(name, "ours (total degree)", secs, p, roots))
        rep.say(f"  {'':<22} {'  end states':<26} {tr.status_counts()}")
        secs, p, roots = phc_total_degree(F, gamma)
        rep.say(row(name, "PHCpack tracker (same)", secs, p, roots, base))
        b = bertini_total_degree(F)
        rep.say(row(name, "Bertini 2 solve", *b, base) if b else
                     f"  {name:<22} Bertini 2: not installed (pip install bertini2)")
    widths = "2,1,2:1,1" if args.quick else "2,2,2:1,1"
    W, S, F = deep_fiber(widths)
    rng = np.random.default_rng(1)
    b1 = random_translation(rng, W.dim)
    t0 = time.perf_counter()
    tr = track_slices(W.square, W.slice_A, W.slice_b, W.slice_A, b1, W.points, gamma=gamma)
    secs = time.perf_counter() - t0
    base = secs / W.degree
    rep.say(row(f"fiber {widths}", "ours (program form)", secs, W.degree,
                     int(tr.ok.sum())))
    G = square_part(F, W.dim, np.random.default_rng(2))
    t0 = time.perf_counter()
    try:
        tp = track_slices(G, W.slice_A, W.slice_b, W.slice_A, b1, W.points, gamma=gamma,
                          method="phc")
        secs = time.perf_counter() - t0
        rep.say(row(f"fiber {widths}", "PHCpack tracker (expanded)", secs, W.degree,
                         int(tp.ok.sum()), base))
    except phc.PHCError as err:          # measured: STORAGE_ERROR on the (2,2,2) square system
        rep.say(f"  {'fiber ' + widths:<22} {'PHCpack tracker (expanded)':<26} failed "
                     f"after {time.perf_counter() - t0:.1f} s: {str(err)[-90:]!r}")
    if not args.quick:
        rep.say(f"  {'fiber ' + widths:<22} {'old affine tracker':<26} {'':>11} "
                     f"{1e3 * OLD_DEEP_SECONDS_PER_PATH:9.3f} ms/path {'':>6} "
                     f"{OLD_DEEP_SECONDS_PER_PATH / base:8.1f}x")
    rep.write(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
