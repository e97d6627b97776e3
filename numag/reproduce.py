"""`numag reproduce`: run every study in studies/ and collect out/REPORT.md.

Each study is a script studies/NAME.py with a function compute(ctx) (see numag.study); they run
in the order of STUDIES, each resuming from its own item cache, so an interrupted reproduction
loses nothing already computed. The report covers every study whose out/NAME.json exists (just
run or left by an earlier run, each with its mode and the time it was written) and marks each
claim ✓ / ✗ / ? from the numbers in those documents, never from typed-in verdicts.
"""
from __future__ import annotations

import importlib
import json
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType

from .study import StudyContext, StudyDocument, md_table

STUDIES = ("single_layer_dimension", "deep_dimension", "normalized_conjecture",
           "overparametrization", "figure1_slice", "fibers", "singular_boundary",
           "training_dynamics", "multihead_dimension", "polynomial_networks",
           "neuromanifold_degree")


@dataclass(frozen=True)
class Report:
    """What `reproduce` wrote to out/REPORT.md, as out/REPORT.json holds it (`to_json`).

    Attributes
    ----------
    quick
        the mode of this run (each study's own mode is in `studies`).
    seconds
        duration of this run.
    counts
        claims per mark (✓, ✗, ?) over every study included.
    studies
        per study its claims, mode, seconds, when written and whether this run
        computed it.
    unreadable
        NAME.json files in the folder that are not study documents, with why.
    """

    quick: bool
    seconds: float
    counts: dict
    studies: dict
    unreadable: dict

    def to_json(self) -> dict:
        return {"quick": self.quick, "seconds": self.seconds, "counts": self.counts,
                "studies": self.studies, "unreadable": self.unreadable}


def studies_dir() -> Path:
    """The repository's studies/ folder (numag is installed editable from the repository)."""
    return Path(__file__).resolve().parents[1] / "studies"


def load_study(name: str, directory: Path | None = None) -> ModuleType:
    """Import studies/NAME.py as the module NAME, with studies/ on sys.path so that worker
    processes can import its item functions by name (numag.sweep callable tasks).

    Raises
    ------
    ValueError
        no such study file.
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
              log=print) -> Report:
    """Run the studies (all available, or `only`) and write out/REPORT.md; return the Report.

    The report covers every study whose out/NAME.json exists, those just run and those left by
    earlier runs (e.g. a full `--quick` run, then `--only figure1_slice`), see write_report.

    Raises
    ------
    ValueError
        an unknown study name in `only`.
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
        doc: StudyDocument = load_study(name).compute(ctx)
        docs[name] = doc.to_json()
        marks = doc.marks
        log(f"{name:<26} {marks:<10} {time.time() - t:6.1f} s "
            f"({ctx.computed} computed, {ctx.reused} reused)")
    report = write_report(out, docs, quick, time.time() - start)
    return report


def stored_docs(out: Path) -> tuple[dict[str, dict], dict[str, str]]:
    """The study documents out/NAME.json present in `out`, in STUDIES order.

    Returns
    -------
    (docs, unreadable): docs by name; unreadable maps the name of a NAME.json that is not
        a study document (invalid JSON, or keys missing) to the reason.
    """
    docs, bad = {}, {}
    for name in STUDIES:
        path = Path(out) / f"{name}.json"
        if not path.exists():
            continue
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            bad[name] = f"{path.name} unreadable: {exc}"
            continue
        if not isinstance(doc, dict):
            bad[name] = f"{path.name} holds a {type(doc).__name__}, not a study document"
            continue
        missing = [k for k in ("study", "quick", "claims") if k not in doc]
        if missing or doc["study"] != name:
            why = f"keys {missing} missing" if missing else f"study {doc['study']!r}"
            bad[name] = f"{path.name} is not this study's document ({why})"
            continue
        docs[name] = doc
    return docs, bad


def written_at(out: Path, name: str) -> str:
    """When out/NAME.json was written (its modification time, UTC): the end of that study's
    computation, since StudyContext.finish writes it last. (The document itself records the
    duration, "seconds", not the date.)"""
    t = (Path(out) / f"{name}.json").stat().st_mtime
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def write_report(out: Path, docs: dict[str, dict], quick: bool, seconds: float) -> Report:
    """out/REPORT.md (and REPORT.json) over every study document in `out`.

    Parameters
    ----------
    docs
        the documents of the studies just run (their NAME.json are in `out` too); every
        other out/NAME.json of a study in STUDIES is included as left by an earlier run.
    quick
        the mode of this run; each study's own mode is read from its document.
    seconds
        duration of this run.

    Returns
    -------
    the Report (REPORT.json): counts over every study included, per study its claims,
        mode, seconds, when written and whether this run computed it.
    """
    out = Path(out)
    stored, unreadable = stored_docs(out)
    all_docs = {n: docs.get(n, stored.get(n)) for n in STUDIES if n in docs or n in stored}
    info = {n: {"quick": bool(d["quick"]), "written": written_at(out, n),
                "this_run": n in docs, "seconds": d.get("seconds"),
                "numag": d.get("versions", {}).get("numag"), "seed": d.get("seed")}
            for n, d in all_docs.items()}
    claims = [(name, c) for name, doc in all_docs.items() for c in doc["claims"]]
    counts = {m: sum(c["mark"] == m for _, c in claims) for m in "✓✗?"}
    modes = {"quick" if i["quick"] else "full" for i in info.values()}
    mode = " and ".join(sorted(modes)) + (" (mixed: see each study)" if len(modes) > 1 else "")
    earlier = [n for n in all_docs if n not in docs]
    lines = ["# Reproduction of Henry–Marchetti–Kohn, *Geometry of Lightning Self-Attention*",
             "", f"{_n(len(all_docs))}, mode {mode or '-'}; claims ✓ {counts['✓']}, "
             f"✗ {counts['✗']}, ? {counts['?']} (over every study listed).",
             f"This run: {_n(len(docs))} ({', '.join(docs) or 'none'}), "
             f"{'quick' if quick else 'full'}, {seconds:.0f} s."
             + (f" From earlier runs, as stored in this directory: {', '.join(earlier)}."
                if earlier else ""),
             "Every mark below is decided from the numbers in that study's NAME.json, computed "
             "when and in the mode listed for it.", "",
             md_table(["study", "mode", "computed (NAME.json written)", "run", "seconds",
                       "numag", "seed", "claims"],
                      [[f"[{n}]({n}.md)", "quick" if i["quick"] else "full", i["written"],
                        "this run" if i["this_run"] else "earlier", i["seconds"], i["numag"],
                        i["seed"], "".join(c["mark"] for c in all_docs[n]["claims"])]
                       for n, i in info.items()]), ""]
    if unreadable:
        lines += ["Not included (not a study document):", ""]
        lines += [f"* {n}: {why}" for n, why in unreadable.items()] + [""]
    lines += [md_table(["", "study", "claim", "source", "evidence"],
                       [[c["mark"], f"[{n}]({n}.md)", c["text"], c["source"], c["evidence"]]
                        for n, c in claims]), ""]
    for name, doc in all_docs.items():
        i = info[name]
        lines += [f"## {name}", "",
                  f"{'Quick' if i['quick'] else 'Full'} mode, computed {i['written']} "
                  f"({'this run' if i['this_run'] else 'an earlier run'}); "
                  f"{doc.get('seconds')} s, {doc.get('items_computed')} items computed, "
                  f"{doc.get('items_reused')} reused. Details: [{name}.md]({name}.md)", ""]
        lines += [f"![{Path(f).stem}]({Path(f).name})" for f in doc.get("figures", [])] + [""]
    (out / "REPORT.md").write_text("\n".join(lines))
    report = Report(quick, round(seconds, 1), counts,
                    {n: {"claims": d["claims"], **info[n]} for n, d in all_docs.items()},
                    unreadable)
    (out / "REPORT.json").write_text(json.dumps(report.to_json(), indent=1))
    return report


def _n(k: int) -> str:
    return f"{k} {'study' if k == 1 else 'studies'}"
