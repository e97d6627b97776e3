"""Output of the benchmark scripts: printed as it comes, optionally also written to a file.

The first line names the script, its arguments, the date, the load average and the number of
cores, because every figure here is measured on a shared 2-core machine and is only
comparable within one run.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path


class Report:
    """Lines printed immediately and kept; ``write(path)`` stores them (with the header)."""

    def __init__(self, script: str, argv: list[str] | None = None):
        args = " ".join(sys.argv[1:] if argv is None else argv)
        self.lines: list[str] = []
        self.say(f"{script} {args}".rstrip() + f"  ({time.strftime('%Y-%m-%d %H:%M %Z')}, "
                 f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")

    def say(self, text: str = "") -> None:
        self.lines.append(text)
        print(text, flush=True)

    def write(self, path: str | None) -> None:
        if path:
            self.say(f"(load average at the end {os.getloadavg()[0]:.1f})")
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text("\n".join(self.lines) + "\n")
