"""Dimensions of polynomial networks (~100 parameters) and multi-head attention (8, 8, 2, H = 4):
numag's exact method vs naive float Jacobian-rank scripts, side by side.

(a) naive float64: the Jacobian of W ↦ (f_W(x_n))_n at one standard-normal point, computed
    exactly in float64 (forward mode, generous to the script), N = ⌈1.5·#params / outputs⌉
    inputs, numpy's matrix_rank with its default tolerance (σ_max · max(m, n) · eps);
(b) naive finite differences: the same with central differences (h = 1e-6) instead of forward
    mode (what a script without automatic differentiation does);
(c) numag exact: rank over F_p with the number of inputs grown until saturation, and the proved
    upper bounds (symmetries, ambient space, recursive / multi-head bounds).
"Truth" is (c) only where it is certified (the exact lower bound meets a proved upper bound),
which makes it a proof, not the method's own say-so; uncertified rows show '?'. (Reference
scripts in Sage / Macaulay2 are not installed here: (a) and (b) stand in for them.)
Run: .venv/bin/python benchmarks/architectures.py [--quick] [--out FILE]
(--out also writes the table with the date, the machine and its load average.)
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import time

import numpy as np

from numag import Architecture, dimension
from numag.arith import NumpyArithmetic
from numag.jacobian import jacobian, random_inputs, random_weights
from numag.model import forward

from dimension import timed     # benchmarks/dimension.py (this folder is sys.path[0])

ARCHS = [Architecture.pnn((4, 6, 6, 6, 1), 2),        # 102 parameters, octics in 4 variables
         Architecture.pnn((5, 8, 6, 1), 2),           # 94 parameters, quartics in 5 variables
         Architecture.pnn((3, 6, 6, 6, 1), 3),        # 96 parameters, degree 27
         Architecture.pnn((2, 6, 6, 6, 2), 2, bias=True),   # 116 parameters, with biases
         Architecture.pnn((4, 3, 6, 6, 2), 2),        # 78 parameters, narrow first layer
         Architecture.multihead((8, 8), (2,), 4)]     # 384 parameters
QUICK = (0, 5)


def n_inputs(arch: Architecture) -> int:
    return math.ceil(1.5 * arch.n_params / arch.output_size)


def naive_autodiff(arch: Architecture, seed: int = 0) -> int:
    ops, rng = NumpyArithmetic(np.float64), np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        J = jacobian(arch, random_weights(arch, ops, rng),
                     random_inputs(arch, ops, rng, n_inputs(arch)), ops)
        return int(np.linalg.matrix_rank(J)) if np.all(np.isfinite(J)) else -1


def naive_finite_differences(arch: Architecture, seed: int = 0, h: float = 1e-6) -> int:
    ops, rng = NumpyArithmetic(np.float64), np.random.default_rng(seed)
    w = ops.random(rng, (arch.n_params,))
    X = random_inputs(arch, ops, rng, n_inputs(arch))
    cols = []
    with np.errstate(all="ignore"):
        for k in range(arch.n_params):
            e = np.zeros(arch.n_params)
            e[k] = h
            cols.append(((forward(arch, arch.unpack(w + e), X, ops)
                          - forward(arch, arch.unpack(w - e), X, ops)) / (2 * h)).reshape(-1))
        J = np.array(cols).T
        return int(np.linalg.matrix_rank(J)) if np.all(np.isfinite(J)) else -1


def mark(value, truth) -> str:
    return "?" if truth is None else ("✓" if value == truth else "✗")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two architectures")
    parser.add_argument("--out", help="also write the table to this file (dated, machine)")
    args = parser.parse_args()
    archs = [a for i, a in enumerate(ARCHS) if not args.quick or i in QUICK]
    lines = [f"{'architecture':<34} {'#par':>5} {'truth':>5} | {'(a) f64 autodiff':>17} | "
             f"{'(b) f64 fin. diff.':>18} | {'(c) numag exact':>17} | {'c/a':>6} {'c/b':>6}"]
    print(lines[0])
    for arch in archs:
        a, ta = timed(lambda: naive_autodiff(arch))
        b, tb = timed(lambda: naive_finite_differences(arch))
        res, tc = timed(lambda: dimension(arch, method="exact", seed=0))
        truth = res.dimension if res.certified else None
        lines.append(f"{str(arch):<34} {arch.n_params:>5} {str(truth):>5} | {a:>5} "
                     f"{mark(a, truth)} {ta:7.3f}s | {b:>5} {mark(b, truth)} {tb:8.3f}s | "
                     f"{res.dimension:>5} {mark(res.dimension, truth)} {tc:7.3f}s | "
                     f"{tc / ta:6.2f} {tc / tb:6.2f}")
        print(lines[-1])
    lines.append("\n✓ right, ✗ wrong, ? no certified truth; -1: overflow. Times are best of 3 "
                 "below 1 s and depend on the machine's load.")
    print(lines[-1])
    if args.out:
        head = (f"# benchmarks/architectures.py{' --quick' if args.quick else ''}, "
                f"{datetime.datetime.now().isoformat(timespec='seconds')}\n# {platform.node()}: "
                f"{platform.platform()}, {os.cpu_count()} cores, load average "
                f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end\n")
        with open(args.out, "w") as fh:
            fh.write(head + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
