"""Right and certified on every seed? The systems where the endgame decided it (issues 10, 11).

* ``witness.examples.eleven_components`` (issue 11: right in <= 15 s and certified on every
  seed; expected degrees derived in its docstring), ``decompose(F, seed=s, runs=0)``, seeds 0-4;
* issue 10 row 3 restated (tests/test_witness_issue10.py ``THREE_QUARTICS``: three components of
  dim 4, degree 4, one of multiplicity 2), seeds 0-5;
* ``--cyclic``: cyclic-7 ``solve_paths`` (5040 total-degree paths; 924 isolated roots,
  Björck–Fröberg), seeds 0, 1: end states, failure reasons, complete.

One line per run: right/wrong, certified, seconds, the load average, failed superset paths by
reason (of the superset used; a superset redrawn after failed paths, witness/superset.py
"Redraws", is listed with the failed paths of each draw). Timings on a shared machine are noisy (the load is printed)."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from witness import PolynomialSystem, decompose  # noqa: E402
from witness.examples import cyclic, eleven_components  # noqa: E402
from witness.solve import solve_paths  # noqa: E402

THREE_QUARTICS = ["x1 + x5 - x7", "x2 - 2*x6 + x3",
                  "(x3^4 - x4)*(x5^4 - x6 + x1)*(x7^4 - x3 - 1)^2"]


def load() -> str:
    return "load %.1f" % os.getloadavg()[0]


def run_decompose(name, F, expected, seeds):
    for seed in seeds:
        t = time.perf_counter()
        D = decompose(F, seed=seed, runs=0)
        sec = time.perf_counter() - t
        got = D.multiplicities()
        fails = {a["dim"]: a["failure_reasons"] for a in D.accounting if a["failure_reasons"]}
        redrawn = {a["dim"]: [d["failed"] for d in a["draws"]] for a in D.accounting
                   if len(a.get("draws", ())) > 1}
        print(f"  {name} seed {seed}: {'right' if got == expected else f'WRONG {got}'}, "
              f"{'certified' if D.certified else 'NOT certified'}, {sec:.1f} s ({load()}); "
              f"failed superset paths {fails or 'none'}"
              + (f"; redrawn supersets (failed paths per draw) {redrawn}" if redrawn else ""),
              flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cyclic", action="store_true", help="also cyclic-7 solve, seeds 0, 1")
    args = ap.parse_args(argv)
    print(f"benchmarks/endgame_seeds.py ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{load()}, {os.cpu_count()} cores)")
    run_decompose("eleven components", eleven_components(),
                  {2: [(2, 1)], 1: [(4, 1), (4, 1)], 0: [(1, 1)] * 8}, range(5))
    F = PolynomialSystem.from_strings(THREE_QUARTICS, variables=[f"x{i}" for i in range(1, 8)])
    run_decompose("three quartics (issue 10 row 3)", F, {4: [(4, 1), (4, 1), (4, 2)]}, range(6))
    if args.cyclic:
        for seed in (0, 1):
            t = time.perf_counter()
            r = solve_paths(cyclic(7), seed=seed)
            print(f"  cyclic-7 solve seed {seed}: {r.counts()}, failed by reason "
                  f"{r.failure_reasons()}, {len(r.isolated)} isolated, complete {r.complete}, "
                  f"failed per attempt {[a['failed'] for a in r.attempts]}, "
                  f"{time.perf_counter() - t:.1f} s ({load()})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
