"""Dimension of neuromanifolds: the paper's script vs float64 with numag's rank rule vs exact
mod p, side by side.

(a) the method of HMK's public script, reimplemented: float32 Jacobian, numpy's default relative
    tolerance (matrix_rank), N = 10 inputs, maximum over 5 random draws;
(b) numag float64: equilibrated Jacobian, numag.rank's threshold rule (tolerance and margin),
    N grown until saturation;
(c) numag exact: rank over F_p (certified lower bound) + symmetry upper bound.
"Right" means equal to the HMK dimension theorem (numag.formulas, evaluated here: single layer
2ad + dd' − a² − 1, equal widths d² + l(2ad − a² − 1); softmax: + l, HMK's conjecture, proven
for l = 1), a truth independent of all three methods; (c)'s certificate (exact lower bound =
symmetry upper bound) is shown separately (*), and a certified value that differed from the
theorem would be marked ✗ like any other.
Run: .venv/bin/python benchmarks/dimension.py [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from numag import Architecture, dimension
from numag.arith import NumpyArithmetic
from numag.formulas import deep_equal_width, single_layer
from numag.jacobian import jacobian, random_inputs, random_weights

LIGHTNING = [((4, 4), (2,)), ((8, 8), (4,)), ((16, 16), (4,)), ((32, 32), (8,)),
             ((4, 4, 4), (2, 2)), ((8, 8, 8), (2, 2)), ((16, 16, 16), (4, 4)),
             ((3,) * 4, (2,) * 3), ((4,) * 4, (2,) * 3), ((8,) * 4, (2,) * 3),
             ((8,) * 5, (4,) * 4)]
SOFTMAX = [((4, 4, 4), (2, 2)), ((6, 6, 6), (2, 2)), ((8, 8, 8), (2, 2))]
QUICK = {((4, 4), (2,)), ((8, 8), (4,)), ((32, 32), (8,)), ((8,) * 4, (2,) * 3),
         ((8,) * 5, (4,) * 4), ((4, 4, 4), (2, 2))}


def paper_script(arch: Architecture, seed: int = 0, n_inputs: int = 10,
                 draws: int = 5) -> int | str:
    """float32 Jacobian, numpy matrix_rank default tolerance, N = 10, max over 5 draws.

    Returns "ovfl" when float32 overflows (deep nets: |φ| grows like |X|^(3^l)).
    """
    ops, rng = NumpyArithmetic(np.float32), np.random.default_rng(seed)
    best = 0
    with np.errstate(all="ignore"):
        for _ in range(draws):
            J = jacobian(arch, random_weights(arch, ops, rng),
                         random_inputs(arch, ops, rng, n_inputs), ops)
            if not np.all(np.isfinite(J)):
                return "ovfl"
            best = max(best, int(np.linalg.matrix_rank(J)))
    return best


def timed(f, repeat_below: float = 1.0):
    """Run f; repeat (best of 3) when it takes less than `repeat_below` seconds (timer noise)."""
    t = time.perf_counter()
    out = f()
    best = time.perf_counter() - t
    if best < repeat_below:
        for _ in range(2):
            t = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - t)
    return out, best


def theorem(arch: Architecture) -> int:
    """HMK's dimension theorem for these (equal-width) architectures, + l for softmax."""
    w, r = arch.widths, arch.ranks
    if len(set(w)) != 1 or len(set(r)) != 1:
        raise ValueError(f"{arch}: the benchmark's truth needs equal widths and ranks")
    lightning = (single_layer(w[0], w[1], r[0]) if len(r) == 1
                 else deep_equal_width(w[0], r[0], len(r)))
    return lightning + (len(r) if arch.kind == "softmax" else 0)


def row(arch: Architecture) -> tuple:
    truth = theorem(arch)
    a, ta = timed(lambda: paper_script(arch))
    b, tb = timed(lambda: dimension(arch, method="float", seed=0))
    if arch.kind == "lightning":
        c, tc = timed(lambda: dimension(arch, method="exact", seed=0))
        cdim, cert = c.dimension, c.certified
    else:
        c, tc, cdim, cert = None, float("nan"), None, False
    return arch, truth, (a, ta), (b.dimension, tb, b.decided), (cdim, tc, cert)


def mark(value, truth) -> str:
    return "?" if truth is None else ("✓" if value == truth else "✗")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a subset of the architectures")
    args = parser.parse_args()
    archs = [Architecture(w, r) for w, r in LIGHTNING if not args.quick or (w, r) in QUICK]
    archs += [Architecture(w, r, 3, "softmax") for w, r in SOFTMAX if not args.quick]
    print(f"{'architecture':<32} {'truth':>5} | {'(a) paper f32':>16} | {'(b) f64 rule':>16} | "
          f"{'(c) exact':>18} | {'c/a time':>8}")
    worst = 0.0
    for arch in archs:
        arch_, truth, (a, ta), (b, tb, bd), (c, tc, cert) = row(arch)
        ratio = tc / ta if c is not None and a != "ovfl" else float("nan")
        if ratio == ratio:
            worst = max(worst, ratio)
        cs = "-" if c is None else f"{c} {mark(c, truth)}{'*' if cert else ''} {tc:6.2f}s"
        print(f"{str(arch):<32} {str(truth):>5} | {a:>5} {mark(a, truth)} {ta:6.2f}s | "
              f"{b:>5} {mark(b, truth)}{'' if bd else 'u'} {tb:6.2f}s | {cs:>18} | {ratio:8.2f}")
    print("\n✓ right, ✗ wrong, * certified (exact lower bound = symmetry upper bound), "
          "u undecided (a singular value within the margin of the tolerance);")
    print(f"largest exact/paper-script time ratio: {worst:.2f} (goal ≤ 2; 'ovfl' rows, where "
          "the paper's method gives no answer, are left out)")


if __name__ == "__main__":
    main()
