"""`numag sweep`: many dim / fiber / classify tasks through a resumable SQLite store.

    numag sweep SPEC --store FILE [--workers N] [--scheduler ADDRESS|local] [--retry-failed]
    numag sweep export --store FILE [--format csv|json] [--output FILE]

SPEC is JSON or TOML (numag.sweep.spec); relative input-file paths in its tasks are resolved
against SPEC's folder. Exit codes: 0 all tasks done, 1 some failed (their
errors are stored and exported), 2 bad input, 130 interrupted (finished tasks stay stored; rerun
the same command to resume).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..sweep import load_tasks, run_tasks
from ..sweep.execute import PoolError
from ..sweep.export import FORMATS, export_rows, render
from ..sweep.store import Store
from ..sweep.tasks import TaskStatus

NAME = "sweep"
HELP = "run a sweep of tasks into a resumable result store, or export the store"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC|export",
                   help="JSON or TOML spec of tasks and grids, or 'export' to write the store. "
                        "Relative input-file paths in tasks (classify 'file', fiber 'weights') "
                        "are resolved against the spec file's folder; a task is keyed by the "
                        "file's content too (exported as input.file_sha256 / "
                        "input.weights_sha256), so an edited file is a new task")
    p.add_argument("--store", required=True, metavar="FILE", help="SQLite result store")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="local worker processes (default: all cores; 0 = in this process); "
                        "with --scheduler local, the LocalCluster's workers")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (tcp://HOST:PORT), or 'local' for a LocalCluster "
                        "on this machine; needs numag[dask]")
    p.add_argument("--retry-failed", action="store_true",
                   help="rerun tasks stored as failed (default: keep their stored error)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--format", choices=FORMATS, default=None, help="export: csv (default) or json")
    p.add_argument("--output", "-o", default=None, metavar="FILE",
                   help="export: write here instead of stdout")


def run(args: argparse.Namespace) -> int:
    if args.spec == "export":
        return _export(args)
    if args.format or args.output:
        raise ValueError("--format and --output belong to `numag sweep export`")
    if args.workers is not None and args.workers < 0:
        raise ValueError(f"--workers must be 0 or more, got {args.workers}")
    specs = load_tasks(args.spec)
    try:
        records = run_tasks(specs, args.store, workers=args.workers, scheduler=args.scheduler,
                            progress=False if args.no_progress else None,
                            retry_failed=args.retry_failed)
    except PoolError as exc:
        print(f"numag sweep: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        with Store(args.store) as db:
            counts = db.counts()
        print(f"numag sweep: interrupted; {counts['done']} done, {counts['failed']} failed and "
              f"{counts['pending']} pending tasks in {args.store}; rerun the same command to "
              f"resume", file=sys.stderr)
        return 130
    unique = list({r.key: r for r in records}.values())
    done = [r for r in unique if r.status is TaskStatus.DONE]
    failed = [r for r in unique if r.status is TaskStatus.FAILED]
    now = sum(r.ran for r in unique)
    print(f"{len(unique)} tasks: {len(done)} done, {len(failed)} failed "
          f"({now} run now, {len(unique) - now} already in {args.store})")
    for r in failed[:10]:
        print(f"  failed {r.task} {_brief(r.inputs)}: {r.error}")
    if len(failed) > 10:
        print(f"  ... {len(failed) - 10} more (numag sweep export --store {args.store})")
    return 1 if failed else 0


def _brief(inputs: dict) -> str:
    keys = [k for k in ("widths", "ranks", "seed") if k in inputs] or list(inputs)[:3]
    return " ".join(f"{k}={inputs[k]}" for k in keys)


def _export(args: argparse.Namespace) -> int:
    text = render(export_rows(args.store), args.format or "csv")
    if args.output:
        try:
            Path(args.output).write_text(text)
        except OSError as exc:
            raise ValueError(f"cannot write {args.output}: {exc}") from None
    else:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:      # `... | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
