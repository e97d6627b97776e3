"""`numag reproduce`: run every study in studies/ and collect out/REPORT.md.

Each study is a script studies/NAME.py with a function compute(ctx) (see numag.study); they run
in the order of STUDIES, each resuming from its own item cache, so an interrupted reproduction
loses nothing already computed. The report marks each claim ✓ / ✗ / ? from the numbers the
studies just wrote, never from typed-in verdicts.
"""
from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path
from types import ModuleType

from .study import StudyContext, md_table

STUDIES = ("single_layer_dimension", "deep_dimension", "normalized_conjecture",
           "overparametrization", "figure1_slice", "fibers", "singular_boundary",
           "training_dynamics")


def studies_dir() -> Path:
    """The repository's studies/ folder (numag is installed editable from the repository)."""
    return Path(__file__).resolve().parents[1] / "studies"


def load_study(name: str, directory: Path | None = None) -> ModuleType:
    """Import studies/NAME.py as the module NAME, with studies/ on sys.path so that worker
    processes can import its item functions by name (numag.sweep callable tasks).

    Raises:
        ValueError: no such study file.
    """
    directory = directory or studies_dir()
    if not (directory / f"{name}.py").exists():
        raise ValueError(f"no study {name!r} at {directory / (name + '.py')}")
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    return importlib.import_module(name)


def available(directory: Path | None = None) -> list[str]:
    d = directory or studies_dir()
    return [s for s in STUDIES if (d / f"{s}.py").exists()]


def reproduce(out: Path, quick: bool = False, only: list[str] | None = None, seed: int = 0,
              progress: bool | None = None, workers: int | None = None, scheduler=None,
              log=print) -> dict:
    """Run the studies (all available, or `only`) and write out/REPORT.md; return its data.

    Raises:
        ValueError: an unknown study name in `only`.
    """
    out = Path(out)
    names = only or available()
    unknown = [n for n in names if n not in STUDIES]
    if unknown:
        raise ValueError(f"unknown studies {unknown}; known: {list(STUDIES)}")
    docs, start = {}, time.time()
    for name in names:
        t = time.time()
        ctx = StudyContext(name, out, quick=quick, seed=seed, progress=progress,
                           workers=workers, scheduler=scheduler)
        docs[name] = load_study(name).compute(ctx)
        marks = "".join(c["mark"] for c in docs[name]["claims"])
        log(f"{name:<26} {marks:<10} {time.time() - t:6.1f} s "
            f"({ctx.computed} computed, {ctx.reused} reused)")
    report = write_report(out, docs, quick, time.time() - start)
    return report


def write_report(out: Path, docs: dict[str, dict], quick: bool, seconds: float) -> dict:
    """out/REPORT.md from the studies' JSON documents (claims, figures, timings)."""
    claims = [(name, c) for name, doc in docs.items() for c in doc["claims"]]
    counts = {m: sum(c["mark"] == m for _, c in claims) for m in "✓✗?"}
    lines = ["# Reproduction of Henry–Marchetti–Kohn, *Geometry of Lightning Self-Attention*",
             "", f"Mode: {'quick' if quick else 'full'}; {len(docs)} studies; "
             f"{seconds:.0f} s; claims ✓ {counts['✓']}, ✗ {counts['✗']}, ? {counts['?']}.",
             "Every mark below is decided from the numbers computed in this run.", "",
             md_table(["", "study", "claim", "source", "evidence"],
                      [[c["mark"], f"[{n}]({n}.md)", c["text"], c["source"], c["evidence"]]
                       for n, c in claims]), ""]
    for name, doc in docs.items():
        lines += [f"## {name}", "", f"{doc['seconds']} s, {doc['items_computed']} items "
                  f"computed, {doc['items_reused']} reused. Details: [{name}.md]({name}.md)", ""]
        lines += [f"![{Path(f).stem}]({Path(f).name})" for f in doc["figures"]] + [""]
    (out / "REPORT.md").write_text("\n".join(lines))
    data = {"quick": quick, "seconds": round(seconds, 1), "counts": counts,
            "studies": {n: {"claims": d["claims"], "seconds": d["seconds"]}
                        for n, d in docs.items()}}
    (out / "REPORT.json").write_text(json.dumps(data, indent=1))
    return data
