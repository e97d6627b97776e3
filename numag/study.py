"""The frame every study in studies/ runs in: resumable items, claims decided from numbers, output.

A study computes items (one architecture, one sample batch, ...) through `StudyContext.run`,
which stores each finished item at once in out/NAME.items.jsonl and skips it on a rerun, so an
interrupted run loses nothing already computed. At the end the study writes out/NAME.json
(inputs, seeds, package versions, timings, results, claims), out/NAME.md (tables, claims) and its
figures; `numag reproduce` collects every NAME.json into out/REPORT.md.

A Claim states a result of the paper and whether the numbers just computed support it (✓), refute
it (✗) or cannot decide it (?). The verdict is always computed from the results, never typed in.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from tqdm.auto import tqdm


@dataclass(frozen=True)
class Claim:
    """A claim of the paper checked against computed numbers.

    Attributes:
        text: the claim.
        source: where it is stated (HMK result, paper-notes section, [derived]).
        holds: True (✓), False (✗) or None (undecided, ?).
        evidence: the numbers that decided it.
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


def _version() -> str:
    from . import __version__
    return __version__


def item_key(params: dict) -> str:
    """Canonical key of an item's parameters (sorted JSON, hashed)."""
    text = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class StudyContext:
    """Where a study writes, whether it is quick, and its resumable item cache.

    Attributes:
        name: the study's name (file stem of its outputs).
        out: output directory (created).
        quick: the reduced grid of --quick.
        seed: base seed; items derive theirs from it and record them.
        progress: show progress bars (None: only on a terminal).
    """

    name: str
    out: Path
    quick: bool = False
    seed: int = 0
    progress: bool | None = None
    started: float = field(default_factory=time.time)
    computed: int = 0
    reused: int = 0

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self._cache = self._load_cache()

    @property
    def cache_path(self) -> Path:
        return self.out / f"{self.name}.items.jsonl"

    def _load_cache(self) -> dict[str, dict]:
        cache: dict[str, dict] = {}
        if self.cache_path.exists():
            for line in self.cache_path.read_text().splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue            # a line cut by an interruption: recompute that item
                cache[rec["key"]] = rec
        return cache

    def run(self, params_list: Iterable[dict], fn: Callable[..., dict],
            desc: str | None = None) -> list[dict]:
        """Compute fn(**params) for each params dict, reusing stored results.

        Each result is appended to the cache (flushed and fsynced) as soon as it exists.
        Returns the list of {"params", "result", "seconds"} records in input order.
        """
        params_list = list(params_list)
        records = []
        bar = tqdm(params_list, desc=desc or self.name, leave=False, delay=0.5,
                   disable=None if self.progress is None else not self.progress)
        for params in bar:
            key = item_key({"fn": fn.__name__, "version": _version(), **params})
            if key in self._cache:
                self.reused += 1
            else:
                t = time.perf_counter()
                result = fn(**params)
                rec = {"key": key, "params": params, "result": result,
                       "seconds": round(time.perf_counter() - t, 4)}
                self._append(rec)
                self._cache[key] = rec
                self.computed += 1
            records.append(self._cache[key])
        return records

    def _append(self, rec: dict) -> None:
        with open(self.cache_path, "a") as f:
            f.write(json.dumps(rec, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def finish(self, results: Any, claims: list[Claim], markdown: str,
               figures: list[str] = (), inputs: dict | None = None) -> dict:
        """Write out/NAME.json and out/NAME.md; return the JSON document."""
        doc = {
            "study": self.name,
            "quick": self.quick,
            "seed": self.seed,
            "inputs": inputs or {},
            "versions": versions(),
            "seconds": round(time.time() - self.started, 2),
            "items_computed": self.computed,
            "items_reused": self.reused,
            "claims": [c.to_json() for c in claims],
            "figures": list(figures),
            "results": results,
        }
        (self.out / f"{self.name}.json").write_text(json.dumps(doc, indent=1, default=str))
        md = [f"# {self.name}", "", markdown.strip(), "", "## Claims", "",
              claims_table(claims), "",
              *[f"![{Path(f).stem}]({Path(f).name})" for f in figures]]
        (self.out / f"{self.name}.md").write_text("\n".join(md) + "\n")
        return doc


def claims_table(claims: list[Claim]) -> str:
    rows = ["| | claim | source | evidence |", "|---|---|---|---|"]
    rows += [f"| {c.mark} | {c.text} | {c.source} | {c.evidence} |" for c in claims]
    return "\n".join(rows)


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(out)


def study_main(name: str, compute: Callable[[StudyContext], dict], argv=None) -> dict:
    """Command-line entry of a study script: `python studies/NAME.py [--quick] [--out DIR]`."""
    import argparse
    p = argparse.ArgumentParser(prog=f"studies/{name}.py", description=compute.__doc__)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the reduced grid")
    mode.add_argument("--full", action="store_true", help="the full grid (default)")
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "studies" / "out"))
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    ctx = StudyContext(name, Path(args.out), quick=args.quick, seed=args.seed)
    doc = compute(ctx)
    for c in doc["claims"]:
        print(f"{c['mark']} {c['text']}  [{c['evidence']}]")
    print(f"wrote {ctx.out / (name + '.json')} and .md ({doc['seconds']} s)", file=sys.stderr)
    return doc
