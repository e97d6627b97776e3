"""numag degree: the expanded coordinates vs the program form (forward pass at certified inputs).

For each architecture: the size of the tracked graph system (instructions of its program: the
monomial tree of the expanded polynomials, or the forward passes at the N inputs the
injectivity certificate needs, numag.degree_program), the cost of one evaluation with Jacobian
per point (compiled kernel, batch of 256 points), and with --degree the whole `numag degree`
in both forms (degree, certified, seconds). Ratios are program / expanded (> 1: the program
form is the slower one).

Run: .venv/bin/python benchmarks/degree_forms.py [--degree] [--out FILE]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# benchmarks/witness.py would shadow the witness package when this folder is sys.path[0]
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

import numpy as np  # noqa: E402

from numag import Architecture  # noqa: E402
from numag.degree import degree  # noqa: E402
from numag.degree_program import program_map  # noqa: E402
from numag.encode import parametrization  # noqa: E402
from witness.image import PolynomialMap, _projection, graph_system  # noqa: E402
from witness.program_system import as_program  # noqa: E402

sys.path.append(_here)      # benchmarks/report.py, after the packages (benchmarks/witness.py)
from report import Report  # noqa: E402

CASES = [Architecture.single(2, 2, 1), Architecture((1, 2, 1), (1, 1)),
         Architecture((1, 1, 1, 1), (1, 1, 1)), Architecture((2, 1, 1), (1, 1)),
         Architecture((2, 2, 1), (1, 1)), Architecture((2, 2, 2), (1, 1))]
DEGREE_CASES = 3          # --degree runs the first three (the others take minutes each)


def cost(f, rng, q: int = 6) -> tuple[int, float]:
    """(instructions, µs per point for values + Jacobian) of the graph system of f."""
    x0 = rng.standard_normal(f.n_source) + 1j * rng.standard_normal(f.n_source)
    P = _projection(rng, q, f.coordinates.evaluate(x0))
    prog = as_program(graph_system(f, P, [f"_w{j}" for j in range(q)]))
    X = np.hstack([np.tile(x0, (256, 1)), np.zeros((256, q))]).astype(complex)
    prog.evaluate(X, jacobian=True)                       # compile / warm up
    t = time.perf_counter()
    for _ in range(5):
        prog.evaluate(X, jacobian=True)
    return len(prog.code), (time.perf_counter() - t) / 5 / 256 * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--degree", action="store_true", help="also run numag degree both ways")
    ap.add_argument("--out", help="also write the report to this file")
    args = ap.parse_args()
    rep = Report("benchmarks/degree_forms.py")
    rng = np.random.default_rng(0)
    rep.say(f"{'architecture':<30} {'inputs':>6} {'instr expanded':>14} {'instr program':>13} "
            f"{'ratio':>6} {'µs/pt expanded':>14} {'µs/pt program':>13} {'ratio':>6}")
    for arch in CASES:
        fp, inputs = program_map(arch, seed=0)
        ie, te = cost(PolynomialMap(parametrization(arch)), rng)
        ip, tp = cost(fp, rng)
        rep.say(f"{str(arch):<30} {inputs.monomials:>6} {ie:>14} {ip:>13} {ip / ie:>6.1f} "
                f"{te:>14.1f} {tp:>13.1f} {tp / te:>6.1f}")
    if args.degree:
        rep.say("\nnumag degree, seed 0, both forms (degree, certified, seconds)")
        for arch in CASES[:DEGREE_CASES]:
            row = []
            for form in ("expanded", "program"):
                r = degree(arch, seed=0, form=form)
                row.append(f"{form}: {r.degree} {r.certified} {r.seconds:.1f} s")
            rep.say(f"{str(arch):<30} " + "; ".join(row))
    rep.write(args.out)


if __name__ == "__main__":
    main()
