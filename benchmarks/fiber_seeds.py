"""Seed dependence and size reach of fiber computations (issue 11's goals), in one run.

  python benchmarks/fiber_seeds.py [--quick] [--deep SPEC [--seeds 0,1,2,3,4]] [--generic]
                                   [--out FILE]
  python benchmarks/fiber_seeds.py --big [--specs 3,2,3:1,1 ...] [--seeds 0] [--timeout 900]
                                   [--grace 120] [--memory-gb 8] [--out FILE]

(--deep 2,2,2:1,1 runs only that deep fiber, on the given seeds; --generic only part 1.
--big runs only part 3, each
fiber as its own `numag fiber ... --json` process under an address-space cap (RLIMIT_AS) and a
wall-clock limit, niced, and reports its peak resident memory: widths 3,2,3 ranks 1,1 was
killed by the OOM killer at 23.6 GB before its fiber system became a program, numag.encode.)

1. Generic fibers of the single-layer shapes of benchmarks/fibers.py, 10 seeds each: seconds
   per seed, median, and the slowest seed's ratio to the median (goal: no seed more than 3x the
   median); every result certified or not.
2. The deep fiber widths 2,2,2 ranks 1,1 on seeds 0-4: time to a certified witness set of the
   orbit component (goal: 5 of 5, each <= 60 s); the old tracker: seed 0 190 s, seed 2 27 min
   undecided.
3. Larger deep fibers, computed and reported: widths 3,2,3 ranks 1,1 and 2,2,2,2 ranks 1,1,1
   (dimension, degree, certified or not, seconds).

Each line is printed as it finishes; the load average is printed at the start (the machine has
2 shared cores: timings under load are noisy).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]

from numag.architecture import Architecture  # noqa: E402
from numag.fibers import fiber  # noqa: E402

sys.path.append(_here)      # benchmarks/report.py, after the packages (benchmarks/witness.py)
from report import Report  # noqa: E402

SHAPES = [(3, 2, 2), (3, 3, 2), (4, 4, 2)]
QUICK_SHAPES = [(3, 2, 2)]


def run(arch: Architecture, seed: int, timeout: float | None = None):
    """(seconds, [(dim, degree, trace verdict)], certified, verdict): certified means every
    component certified (trace test and, for monodromy sets, one orbit) and the comparison
    with the prediction decided True."""
    t0 = time.perf_counter()
    r = fiber(arch, seed=seed, blackbox=False, timeout=timeout)
    secs = time.perf_counter() - t0
    comps = [(c.dim, c.degree, c.trace_test["verdict"]) for c in r.components]
    ok = bool(r.components) and all(c.certified for c in r.components) and r.matches is True
    return secs, comps, ok, r.verdict


BIG = ["3,2,3:1,1", "2,2,2,2:1,1,1"]


def run_capped(spec: str, seed: int, timeout: float, memory_gb: float, grace: float) -> dict:
    """`numag fiber` on ``spec`` in a child process: address space capped at memory_gb
    (RLIMIT_AS), killed timeout + grace seconds after its start (numag checks its budget only
    between steps: a monodromy loop or trace test, once started, runs to its end), nice 10.
    Returns the command, its JSON result (or the error), wall seconds and the child's own peak
    resident memory."""
    widths, ranks = spec.split(":")
    cmd = [sys.executable, "-m", "numag", "fiber", "--widths", widths, "--ranks", ranks,
           "--seed", str(seed), "--complete-paths", "0", "--timeout", f"{timeout:g}", "--json"]
    cap = int(memory_gb * 1e9)

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.nice(10)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=limits)
    streams: dict = {}
    readers = [threading.Thread(target=lambda k=k, f=f: streams.__setitem__(k, f.read()))
               for k, f in (("out", proc.stdout), ("err", proc.stderr))]
    killed = []
    killer = threading.Timer(timeout + grace, lambda: (killed.append(True), proc.kill()))
    for t in readers + [killer]:
        t.start()
    _, status, usage = os.wait4(proc.pid, 0)        # this child's own rusage (peak RSS)
    proc.returncode = os.waitstatus_to_exitcode(status)
    killer.cancel()
    for t in readers:
        t.join()
    out, err = streams["out"], streams["err"]
    wall = time.perf_counter() - t0
    peak = usage.ru_maxrss / 1e6                    # kB -> GB
    rec = {"command": " ".join(["numag"] + cmd[3:]), "returncode": proc.returncode,
           "wall_seconds": wall, "peak_gb": peak}
    if proc.returncode == 0:
        rec["result"] = json.loads(out)
    else:
        rec["error"] = (f"killed at the wall limit {timeout + grace:g} s (numag's budget "
                        f"{timeout:g} s + {grace:g} s for the step running at its deadline)"
                        if killed else (err.strip().splitlines() or ["(no output)"])[-1])
    return rec


def big(rep: Report, specs, seeds, timeout: float, memory_gb: float, grace: float) -> None:
    """Part 3 of the module docstring, each fiber in a capped child process."""
    for spec in specs:
        for s in seeds:
            load0 = os.getloadavg()[0]
            rec = run_capped(spec, s, timeout, memory_gb, grace)
            rep.say(f"$ {rec['command']}  (address space <= {memory_gb:g} GB, nice 10)")
            head = (f"  deep {spec} seed {s}: {rec['wall_seconds']:.1f} s wall, peak resident "
                    f"memory {rec['peak_gb']:.2f} GB, load "
                    f"{load0:.1f} -> {os.getloadavg()[0]:.1f}")
            if "error" in rec:
                rep.say(f"{head}; FAILED (exit {rec['returncode']}): {rec['error']}")
                continue
            r = rec["result"]
            comps = [(c["dim"], c["degree"], c["trace_test"]["verdict"] is True
                      and c["trace_test"].get("one_orbit", True) is True)
                     for c in r["components"]]
            enc = r["encoding"]
            rep.say(f"{head}; fiber dimension {r['dimension']}; components (dim, degree, "
                    f"certified) {comps}; {r['paths_tracked']} paths ({r['failed_paths']} "
                    f"failed); numag's own time {r['seconds']:.1f} s; fiber system: "
                    f"{enc['encoding']}, {enc['equations']} equations"
                    + (f" at {enc['sample_inputs']} inputs ({enc['instructions']} "
                       f"instructions)" if "sample_inputs" in enc else ""))
            rep.say(f"  verdict: {r['expected']['verdict']}")
            for e in r["evidence"]:
                rep.say(f"  evidence: {e}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="also write the lines to this file")
    ap.add_argument("--deep", help="only this deep fiber, e.g. 2,2,2:1,1")
    ap.add_argument("--generic", action="store_true", help="only part 1 (generic fibers)")
    ap.add_argument("--seeds", help="seeds with --deep (default 0,1,2,3,4) or --big (default "
                    "0), e.g. 0,2")
    ap.add_argument("--big", action="store_true", help="only part 3, in capped processes")
    ap.add_argument("--specs", nargs="+", default=BIG, help="--big: these fibers")
    ap.add_argument("--timeout", type=float, default=900, help="--big: numag's time budget, s")
    ap.add_argument("--grace", type=float, default=120,
                    help="--big: seconds after numag's budget before the child is killed")
    ap.add_argument("--memory-gb", type=float, default=8, help="--big: address-space cap, GB")
    args = ap.parse_args(argv)
    rep = Report("benchmarks/fiber_seeds.py", argv)
    say = rep.say
    if args.big:
        big(rep, args.specs, [int(x) for x in (args.seeds or "0").split(",")], args.timeout,
            args.memory_gb, args.grace)
        rep.write(args.out)
        return 0
    seeds = range(3) if args.quick else range(10)
    for shape in ([] if args.deep else QUICK_SHAPES if args.quick else SHAPES):
        arch = Architecture.single(*shape)
        times, cert = [], 0
        for s in seeds:
            secs, comps, ok, _ = run(arch, s)
            times.append(secs)
            cert += ok
            say(f"  generic {shape} seed {s}: {secs:6.2f} s, components {comps}")
        med = statistics.median(times)
        say(f"generic {shape}: median {med:.2f} s, slowest {max(times):.2f} s = "
            f"{max(times) / med:.1f}x the median (goal <= 3x), certified {cert}/{len(times)}")
    deep = [] if args.generic else \
        [(args.deep, [int(x) for x in (args.seeds or "0,1,2,3,4").split(",")])] \
        if args.deep else \
        [("2,1,2:1,1", range(3))] if args.quick else \
        [("2,2,2:1,1", range(5)), ("3,2,3:1,1", range(1)), ("2,2,2,2:1,1,1", range(1))]
    for spec, ss in deep:
        arch = Architecture.parse(spec)
        for s in ss:
            secs, comps, ok, verdict = run(arch, s, timeout=1800)
            say(f"deep {spec} seed {s}: {secs:7.1f} s, components (dim, degree, trace "
                f"verdict) {comps}, {'certified' if ok else 'NOT certified'} (load "
                f"{os.getloadavg()[0]:.1f}); verdict: {verdict}")
    rep.write(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
