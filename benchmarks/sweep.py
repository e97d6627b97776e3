"""A 200-architecture dimension sweep through `numag.sweep`: in-process, 1 and 2 local worker
processes, and a 2-worker Dask LocalCluster on loopback; times and speed-ups printed.

Every run starts from an empty store and must store the same 200 dimensions (checked against
the in-process run); a last run over the full store measures the cost of resuming (everything
skipped). "tasks' own time" sums the wall time of each task inside its worker: when it grows
with the number of workers, the cores are shared (with each other or with other programs).
Run: .venv/bin/python benchmarks/sweep.py [--quick]
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# benchmarks/witness.py would shadow the witness package when this folder is sys.path[0]
# (numag.sweep imports the job registry, hence numag.fibers and witness)
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(
    os.path.abspath(__file__))]

from numag.sweep import run_tasks  # noqa: E402


def architectures(n: int = 200) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """n distinct lightning architectures: single layers (d, d', a) and deep equal-width and
    bottleneck nets, from small to (16, 16, 12)."""
    out: list = []
    for d in range(3, 17):
        for d_out in sorted({2, d // 2 + 1, d}):
            for a in sorted({1, 2, d // 2, d - 1, d}):
                out.append(((d, d_out), (a,)))
    for d in range(3, 9):
        for depth in (2, 3):
            for a in sorted({1, 2, d // 2, d - 1}):
                out.append(((d,) * (depth + 1), (a,) * depth))
                out.append(((d + 2,) + (d,) * depth, (a,) * depth))     # bottleneck
    out = list(dict.fromkeys(out))
    if len(out) < n:
        raise ValueError(f"only {len(out)} architectures defined, asked for {n}")
    step = len(out) / n                       # spread the sizes instead of taking the smallest
    return [out[int(i * step)] for i in range(n)]


def sweep(tasks: list[dict], folder: Path, name: str, **kw) -> tuple[float, dict, float]:
    """(wall seconds, {key: dimension}, sum of the tasks' own wall times in the workers)."""
    store = folder / f"{name}.sqlite"
    start = time.perf_counter()
    records = run_tasks(tasks, store, progress=False, **kw)
    seconds = time.perf_counter() - start
    bad = [r for r in records if r.status != "done" or not r.ran]
    if bad:
        raise RuntimeError(f"{name}: {len(bad)} tasks not computed: {bad[0].error}")
    return seconds, {r.key: r.result["dimension"] for r in records}, sum(r.seconds for r in records)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="40 architectures instead of 200")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    n = 40 if args.quick else 200
    tasks = [{"task": "dim", "widths": list(w), "ranks": list(r), "seed": args.seed}
             for w, r in architectures(n)]
    print(f"dimension sweep: {n} lightning architectures (exact rank mod p + symmetry bound), "
          f"{os.cpu_count()} cores")
    print(f"load average before: {_load()} (other processes on the machine skew the times)")
    serial, parallel = _control()
    print(f"control, 2 pure-Python loops: serial {serial:.2f} s, in 2 processes {parallel:.2f} s "
          f"-> the machine offers {serial / parallel:.2f}x right now")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = [("in-process (workers=0)", "inline", {"workers": 0}),
                ("local pool, 1 worker", "pool1", {"workers": 1}),
                ("local pool, 2 workers", "pool2", {"workers": 2})]
        times, truth = {}, None
        for label, name, kw in runs:
            times[name], dims, work = sweep(tasks, folder, name, **kw)
            truth = truth or dims
            if dims != truth:
                raise RuntimeError(f"{label}: stored dimensions differ from the in-process run")
            print(f"  {label:<34} {times[name]:7.2f} s   {n / times[name]:6.1f} tasks/s"
                  f"   (tasks' own time {work:6.2f} s)")
        times["dask2"], cluster_up, work = _dask(tasks, folder, truth)
        label = "Dask LocalCluster, 2 workers"
        runs.append((label, "dask2", {}))
        print(f"  {label:<34} {times['dask2']:7.2f} s   {n / times['dask2']:6.1f} tasks/s"
              f"   (tasks' own time {work:6.2f} s; + {cluster_up:.2f} s to start and stop the "
              f"cluster, not included)")
        start = time.perf_counter()
        again = run_tasks(tasks, folder / "pool2.sqlite", workers=2, progress=False)
        resume = time.perf_counter() - start
        assert not any(r.ran for r in again)
        print(f"  {'rerun: all ' + str(n) + ' found in the store':<34} {resume:7.2f} s")
    base = times["pool1"]
    print("speed-ups over the 1-worker local pool:")
    for label, name, _ in runs[2:]:
        print(f"  {label:<34} {base / times[name]:5.2f}x")
    print(f"1-worker pool vs in-process (process start, transport): "
          f"{times['pool1'] - times['inline']:+.2f} s")
    print(f"load average after: {_load()}")


def _dask(tasks: list[dict], folder: Path, truth: dict) -> tuple[float, float, float]:
    """Sweep on the 2-worker LocalCluster of `--scheduler local`, started beforehand (as a real
    cluster would be); returns (sweep seconds, cluster start + stop seconds, tasks' own
    seconds)."""
    from numag.sweep.execute import dask_client

    start = time.perf_counter()
    with dask_client("local", workers=2) as client:
        client.wait_for_workers(2)
        up = time.perf_counter() - start
        seconds, dims, work = sweep(tasks, folder, "dask2", scheduler=client)
        start = time.perf_counter()
    up += time.perf_counter() - start
    if dims != truth:
        raise RuntimeError("Dask: stored dimensions differ from the in-process run")
    return seconds, up, work


def _burn(n: int) -> float:
    start, total = time.perf_counter(), 0
    for i in range(n):
        total += i * i
    return time.perf_counter() - start


def _control(n: int = 10_000_000) -> tuple[float, float]:
    """(seconds for two CPU loops one after the other, seconds for both in 2 processes): the
    speed-up the machine can give at this moment, to read the sweep's speed-ups against."""
    start = time.perf_counter()
    _burn(n), _burn(n)
    serial = time.perf_counter() - start
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_burn, [1000, 1000]))        # start both processes before timing
        start = time.perf_counter()
        list(pool.map(_burn, [n, n]))
        parallel = time.perf_counter() - start
    return serial, parallel


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
