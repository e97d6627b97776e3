"""Speed of `numag classify`: points per second at 50 digits (mpmath) vs float64.

For (d, d', a) = (4, 4, 2) and (8, 8, 4) it classifies the same exact points (a mix of generic
points, rank drops of A and rank-1 points with u ∥ w and u ∦ w) at 50 digits and in float64,
rules only (ranks and u ∥ w) and, with --evidence, with the evidence (Jacobian ranks at the fiber
points, nearby tangent spaces, outside probes). Prints points/s and the float64/mpmath ratio.

    .venv/bin/python benchmarks/classify.py [--points 12] [--evidence] [--evidence-points 2]
"""
from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from numag.classify import UNDECIDED, RankOptions, classify_av


def points(d: int, d_out: int, a: int, n: int, seed: int = 0):
    """n exact (A, V) of M_{d,d',a}: generic, rank drop, rank-1 u ∥ w, rank-1 u ∦ w, in turn."""
    rng = np.random.default_rng(seed)

    def R(*s):
        return np.vectorize(lambda x: Fraction(int(x), 7), otypes=[object])(
            rng.integers(-20, 21, s))
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            A, V = R(a, d).T.dot(R(a, d)), R(d_out, d)
        elif kind == 1:
            A, V = R(1, d).T.dot(R(1, d)), R(d_out, d)
        else:
            u, v, c, w = R(d), R(d), R(d_out), R(d)
            w = 3 * u if kind == 2 else w
            A, V = np.outer(u, v), np.outer(c, w)
        out.append((A, V))
    return out


def rate(pts, a: int, prec: RankOptions, evidence: bool) -> tuple[float, float, list]:
    """(points/s, seconds, labels) for classifying pts."""
    conv = (lambda m: np.vectorize(float)(m).astype(float)) if prec.is_float else (lambda m: m)
    start = time.perf_counter()
    labels = [classify_av(conv(A), conv(V), a, prec, evidence=evidence).labels for A, V in pts]
    sec = time.perf_counter() - start
    return len(pts) / sec, sec, labels


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--points", type=int, default=12, help="points per shape, rules only")
    p.add_argument("--evidence", action="store_true", help="also time the full evidence")
    p.add_argument("--evidence-points", type=int, default=2,
                   help="points per shape with evidence (slow at 50 digits for (8, 8, 4))")
    p.add_argument("--digits", type=int, default=50)
    args = p.parse_args()
    modes = [("rules only", False, args.points)]
    if args.evidence:
        modes.append(("with evidence", True, args.evidence_points))
    print(f"{'shape':<10} {'mode':<14} {'n':>3} {'mp pts/s':>10} {'f64 pts/s':>10} "
          f"{'f64/mp':>8}  undecided in float64")
    for shape in ((4, 4, 2), (8, 8, 4)):
        for mode, ev, n in modes:
            pts = points(*shape, n)
            mp_rate, _, mp_labels = rate(pts, shape[2], RankOptions(args.digits), ev)
            f_rate, _, f_labels = rate(pts, shape[2], RankOptions(None), ev)
            und = sum(lab == UNDECIDED for lab in f_labels)
            und_mp = sum(lab == UNDECIDED for lab in mp_labels)
            print(f"{str(shape):<10} {mode:<14} {n:>3} {mp_rate:>10.3g} {f_rate:>10.3g} "
                  f"{f_rate / mp_rate:>8.3g}  {und}/{n} (mp: {und_mp}/{n})", flush=True)


if __name__ == "__main__":
    main()
