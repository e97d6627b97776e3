"""The frame every study in studies/ runs in: resumable items, claims decided from numbers, output.

A study computes items (one architecture, one sample batch, ...) through `StudyContext.run`,
which runs them as tasks of the sweep machinery (numag.sweep.run_tasks: a local process pool,
or a Dask cluster) and stores each finished item at once in out/NAME.sqlite; a rerun skips it,
so an interrupted run loses nothing already computed. At the end the study writes out/NAME.json
(inputs, seeds, package versions, timings, results, claims), out/NAME.md (tables, claims) and its
figures; `numag reproduce` collects every NAME.json into out/REPORT.md.

A Claim states a result of the paper and whether the numbers just computed support it (✓), refute
it (✗) or cannot decide it (?). The verdict is always computed from the results, never typed in.
"""
from __future__ import annotations

import json
import platform
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable



@dataclass(frozen=True)
class Claim:
    """A claim of the paper checked against computed numbers.

    Attributes
    ----------
    text
        the claim.
    source
        where it is stated (HMK result, paper-notes section, [derived]).
    holds
        True (✓), False (✗) or None (undecided, ?).
    evidence
        the numbers that decided it.
    """

    text: str
    source: str
    holds: bool | None
    evidence: str

    @property
    def mark(self) -> str:
        return {True: "✓", False: "✗", None: "?"}[self.holds]

    def to_json(self) -> dict:
        return {**asdict(self), "mark": self.mark}


@dataclass(frozen=True)
class StudyDocument:
    """The result of a study: what out/NAME.json holds (`to_json`).

    Attributes
    ----------
    study, quick, seed
        which study, in which mode, from which base seed.
    inputs
        the study's own inputs (grids, constants).
    versions
        Python and package versions (numag.study.versions).
    seconds
        wall time; items_computed / items_reused: items run now / taken from the store.
    claims
        the paper's claims with their computed verdicts.
    figures
        paths of the figures written.
    results
        the study's numbers (JSON values).
    """

    study: str
    quick: bool
    seed: int
    inputs: dict
    versions: dict
    seconds: float
    items_computed: int
    items_reused: int
    claims: tuple[Claim, ...]
    figures: tuple[str, ...]
    results: Any

    @property
    def marks(self) -> str:
        return "".join(c.mark for c in self.claims)

    def to_json(self) -> dict:
        return {"study": self.study, "quick": self.quick, "seed": self.seed,
                "inputs": self.inputs, "versions": self.versions, "seconds": self.seconds,
                "items_computed": self.items_computed, "items_reused": self.items_reused,
                "claims": [c.to_json() for c in self.claims], "figures": list(self.figures),
                "results": self.results}


def versions() -> dict[str, str]:
    """Versions of Python and the packages results depend on."""
    import flint
    import mpmath
    import numpy

    from . import __version__
    out = {"python": platform.python_version(), "numag": __version__, "numpy": numpy.__version__,
           "mpmath": mpmath.__version__, "python-flint": flint.__version__}
    try:
        import scipy
        out["scipy"] = scipy.__version__
    except ImportError:
        pass
    return out


@dataclass
class StudyContext:
    """Where a study writes, whether it is quick, and its resumable item cache.

    Attributes
    ----------
    name
        the study's name (file stem of its outputs).
    out
        output directory (created).
    quick
        the reduced grid of --quick.
    seed
        base seed; items derive theirs from it and record them.
    progress
        show progress bars (None: only on a terminal).
    workers, scheduler
        where items run (numag.sweep.run_tasks: default a local process
        pool with one worker per core; scheduler 'local' or 'tcp://...' for Dask).
    """

    name: str
    out: Path
    quick: bool = False
    seed: int = 0
    progress: bool | None = None
    workers: int | None = None
    scheduler: Any = None
    started: float = field(default_factory=time.time)
    computed: int = 0
    reused: int = 0

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        self.out.mkdir(parents=True, exist_ok=True)

    @property
    def store(self) -> Path:
        return self.out / f"{self.name}.sqlite"

    def run(self, params_list: Iterable[dict], fn: Callable[..., dict],
            desc: str | None = None) -> list[dict]:
        """Compute fn(**params) for each params dict through the sweep store.

        fn must be a module-level function of the study script (workers import it by name).
        Returns the list of {"params", "result", "seconds"} records in input order.

        Raises
        ------
        RuntimeError
            an item failed (its stored error is quoted; it is retried next run).
        """
        from .sweep import callable_task, run_tasks
        from .sweep.tasks import TaskStatus
        params_list = list(params_list)
        tasks = [callable_task(fn, **p) for p in params_list]
        records = run_tasks(tasks, self.store, workers=self.workers, scheduler=self.scheduler,
                            progress=self.progress, retry_failed=True)
        failed = [(p, r) for p, r in zip(params_list, records) if r.status is not TaskStatus.DONE]
        if failed:
            p, r = failed[0]
            raise RuntimeError(f"{self.name}: {len(failed)} item(s) failed, first {p}: {r.error}")
        self.computed += sum(r.ran for r in records)
        self.reused += sum(not r.ran for r in records)
        return [{"params": p, "result": r.result, "seconds": r.seconds}
                for p, r in zip(params_list, records)]

    def finish(self, results: Any, claims: list[Claim], markdown: str,
               figures: list[str] = (), inputs: dict | None = None) -> StudyDocument:
        """Write out/NAME.json and out/NAME.md; return the StudyDocument."""
        doc = StudyDocument(self.name, self.quick, self.seed, inputs or {}, versions(),
                            round(time.time() - self.started, 2), self.computed, self.reused,
                            tuple(claims), tuple(figures), results)
        (self.out / f"{self.name}.json").write_text(json.dumps(doc.to_json(), indent=1,
                                                               default=str))
        md = [f"# {self.name}", "", markdown.strip(), "", "## Claims", "",
              claims_table(claims), "",
              *[f"![{Path(f).stem}]({Path(f).name})" for f in figures]]
        (self.out / f"{self.name}.md").write_text("\n".join(md) + "\n")
        return doc


@contextmanager
def figure(path: Path | str, figsize: tuple[float, float] = (6.5, 4), projection: str | None = None):
    """A matplotlib figure and axes (Agg backend, no screen needed), saved to `path` and closed
    when the block ends: `with figure(path) as ax: ax.plot(...)`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=figsize)
    ax = fig.add_subplot(projection=projection)
    try:
        yield ax
        fig.tight_layout()
        fig.savefig(path, dpi=120)
    finally:
        plt.close(fig)


def all_of(values: Iterable[bool | None]) -> bool | None:
    """Three-valued AND of a claim's cases: False if any case is False, else None (undecided,
    "?") if any is None, else True."""
    vals = list(values)
    if any(v is False for v in vals):
        return False
    return None if any(v is None for v in vals) else True


def claims_table(claims: list[Claim]) -> str:
    return md_table(["", "claim", "source", "evidence"],
                    [[c.mark, c.text, c.source, c.evidence] for c in claims])


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table (a '|' inside a cell, as in |x|, is escaped)."""
    cell = lambda x: str(x).replace("|", "\\|")
    out = ["| " + " | ".join(map(cell, header)) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    return "\n".join(out)


def study_main(name: str, compute: Callable[[StudyContext], StudyDocument],
               argv=None) -> StudyDocument:
    """Command-line entry of a study script: `python studies/NAME.py [--quick] [--out DIR]`."""
    import argparse
    p = argparse.ArgumentParser(prog=f"studies/{name}.py", description=compute.__doc__)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the reduced grid")
    mode.add_argument("--full", action="store_true", help="the full grid (default)")
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "studies" / "out"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None, help="local worker processes")
    p.add_argument("--scheduler", default=None, help="Dask scheduler: 'local' or tcp://HOST:PORT")
    args = p.parse_args(argv)
    ctx = StudyContext(name, Path(args.out), quick=args.quick, seed=args.seed,
                       workers=args.workers, scheduler=args.scheduler)
    doc = compute(ctx)
    for c in doc.claims:
        print(f"{c.mark} {c.text}  [{c.evidence}]")
    print(f"wrote {ctx.out / (name + '.json')} and .md ({doc.seconds} s)", file=sys.stderr)
    return doc
