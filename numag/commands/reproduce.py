"""`numag reproduce`: every study of studies/ and out/REPORT.md."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..reproduce import STUDIES, reproduce, studies_dir
from .common import nonnegative_int

NAME = "reproduce"
HELP = "recompute every result of the paper (studies/) and write out/REPORT.md"


def add_arguments(p: argparse.ArgumentParser) -> None:
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="reduced grids (a few minutes)")
    mode.add_argument("--full", action="store_true", help="full grids (default)")
    p.add_argument("--out", default=str(studies_dir() / "out"), help="output directory")
    p.add_argument("--only", nargs="+", choices=STUDIES, metavar="STUDY",
                   help=f"run only these studies ({', '.join(STUDIES)})")
    p.add_argument("--seed", type=nonnegative_int, default=0)
    p.add_argument("--workers", type=nonnegative_int, default=None,
                   help="local worker processes (default: one per core)")
    p.add_argument("--scheduler", default=None,
                   help="run the items on Dask: 'local' or tcp://HOST:PORT")


def run(args: argparse.Namespace) -> int:
    out = output_folder(args.out)
    report = reproduce(out, quick=args.quick, only=args.only, seed=args.seed,
                       workers=args.workers, scheduler=args.scheduler,
                       log=lambda s: print(s, flush=True))
    c = report.counts
    print(f"\nclaims: ✓ {c['✓']}  ✗ {c['✗']}  ? {c['?']}   report: {out / 'REPORT.md'}")
    return 0


def output_folder(text: str) -> Path:
    """--out as an existing folder (created if missing); a ValueError naming --out otherwise."""
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {text}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--out {text}: cannot create the folder ({exc.strerror})") from None
    return out
