"""Run a command and store its output as a dated, machine-described result file.

Every measured figure the README quotes (times, claim counts) comes from a file this script
wrote under benchmarks/results/: the command, the date (UTC), the machine (CPU model, cores,
memory, kernel), the load average before and after (other jobs on the cores slow everything),
the git commit (with "+dirty" for uncommitted changes), the wall time and exit status, then
the command's output and, with --attach, files the command wrote (e.g. the REPORT.md of
`numag reproduce`).

Run: .venv/bin/python benchmarks/record.py NAME [--attach FILE ...] -- COMMAND [ARGS ...]
     writes benchmarks/results/NAME.txt (`make record` runs the README's commands).
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def machine() -> str:
    """CPU model, cores, memory and kernel, from /proc where available."""
    cpu = next((line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo").splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    mem = next((line.split()[1] for line in _read("/proc/meminfo").splitlines()
                if line.startswith("MemTotal")), None)
    mem_txt = f", {int(mem) / 2 ** 20:.1f} GiB" if mem else ""
    return f"{cpu}, {os.cpu_count()} cores{mem_txt}, {platform.platform()}"


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def commit() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout
    head = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no").strip() else "")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def record(name: str, cmd: list[str], attach: list[str]) -> int:
    """Run cmd (output streamed), then write RESULTS/name.txt; returns cmd's exit status."""
    if not cmd:
        raise SystemExit("record.py: no command given (NAME -- COMMAND ...)")
    start, load0 = dt.datetime.now(dt.timezone.utc), load()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line)
    status = proc.wait()
    wall = time.perf_counter() - t0
    head = [f"# command: {' '.join(cmd)}",
            f"# date: {start:%Y-%m-%d %H:%M:%S} UTC",
            f"# machine: {machine()}",
            f"# load average (1, 5, 15 min): {load0} before, {load()} after",
            f"# commit: {commit()}",
            f"# wall time: {wall:.1f} s; exit status {status}", ""]
    body = "".join(lines)
    for path in attach:
        p = ROOT / path
        body += f"\n# ---- attached: {path}\n" + (p.read_text() if p.exists() else "(missing)\n")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{name}.txt"
    out.write_text("\n".join(head) + body)
    print(f"wrote {out.relative_to(ROOT)} ({wall:.1f} s, exit {status})")
    return status


def main() -> int:
    argv = sys.argv[1:]
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="result file name (benchmarks/results/NAME.txt)")
    parser.add_argument("--attach", nargs="*", default=[], help="files the command writes")
    args = parser.parse_args(own)
    if not args.name.replace("-", "").replace("_", "").replace(".", "").isalnum():
        parser.error(f"NAME must be letters, digits, '-', '_' or '.', got {args.name!r}")
    return record(args.name, cmd, args.attach)


if __name__ == "__main__":
    sys.exit(main())
