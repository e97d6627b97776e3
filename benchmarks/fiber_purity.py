"""Does monodromy from W0 stay on W0's fiber component? Tracked on the exact coefficient system
vs on the program form numag fiber uses for deep fibers, each witness point checked against the
orbit G°·W0 (numag.orbit.orbit_residual; layer coordinates: rank-one chains with
d_0 = ... = d_{l-1}).

  python benchmarks/fiber_purity.py [--spec 2,2,1:1,1] [--seeds 5,6] [--loops 3]

Measured 2026-12-08 (benchmarks/results/fiber-purity.txt): on widths 2,2,1 ranks 1,1 the
coefficient system keeps every point on G°·W0, the program form does not (its sets join Z with
its images under the layer-2 symmetries): the cause of the certified degree 576 (exact 96).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

import numpy as np  # noqa: E402

from numag.architecture import Architecture  # noqa: E402
from numag.encode import fiber_system  # noqa: E402
from numag.fiber_program import fiber_program  # noqa: E402
from numag.fibers import ORBIT_RESIDUAL_TOL, balanced_point, orbit_dimension  # noqa: E402
from numag.orbit import orbit_residual  # noqa: E402
from numag.points import sample_point  # noqa: E402
from witness import monodromy  # noqa: E402

def run(arch: Architecture, seeds: list[int], loops: int) -> None:
    layers, _ = balanced_point(arch, sample_point(arch, "generic", 0))
    k = orbit_dimension(arch, layers)
    fs = fiber_system(arch, layers, "coefficients")
    x = np.array([complex(v) for v in fs.base_point])
    program = fiber_program(fs, fs.system.n_vars - k, 1, at=fs.base_point)
    systems = [("coefficients", fs.system, f"{fs.system.n_equations} equations"),
               ("program", program, f"{program.program.info['samples']} sample inputs, "
                                    f"{program.n_equations} equations")]
    print(f"{arch.widths} ranks {arch.ranks}: monodromy from W0, dim {k}, {loops} loops")
    for seed in seeds:
        for name, F, what in systems:
            t0 = time.perf_counter()
            res = monodromy(F, k, x, seed=seed, max_loops=loops, progress=False)
            pts = np.concatenate([c.points for c in res.components]) if res.components else \
                np.zeros((0, arch.n_params))
            on = int((orbit_residual(arch, layers, pts) < ORBIT_RESIDUAL_TOL).sum())
            print(f"  seed {seed} {name:12s} ({what}): {len(pts)} points, {on} on G°·W0, "
                  f"{len(pts) - on} off  ({time.perf_counter() - t0:.1f} s)", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", default="2,2,1:1,1")
    ap.add_argument("--seeds", default="5,6")
    ap.add_argument("--loops", type=int, default=3)
    args = ap.parse_args()
    widths, ranks = args.spec.split(":")
    arch = Architecture(tuple(map(int, widths.split(","))), tuple(map(int, ranks.split(","))))
    run(arch, [int(s) for s in args.seeds.split(",")], args.loops)
    return 0


if __name__ == "__main__":
    sys.exit(main())
