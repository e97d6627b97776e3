"""The seam: library jobs return results, the CLI renders them, the sweep calls the library.

Each job of numag.jobs.JOBS is checked three ways against the same library call: the options
dataclass (one rule per option for the CLI and the sweep), the command's --json (the result's
to_json, nothing added), the sweep's stored result and, for fibers, the study's item."""
import ast
import json
from pathlib import Path

import pytest

import numag
from numag import Architecture
from numag.cli import main
from numag.jobs import (JOBS, DegreeOptions, DimOptions, FiberOptions, run_degree, run_dim,
                        run_fiber)
from numag.options import OptionError, from_mapping
from numag.sweep import normalize, run_tasks

MINIMAL = {"dim": {"widths": [3, 2], "ranks": [1]},
           "fiber": {"widths": [3, 2], "ranks": [1]},
           "classify": {"file": __file__},
           "degree": {"widths": [2, 1], "ranks": [1]}}
PACKAGE = Path(numag.__file__).parent


def without_seconds(d):
    """d without its timings, at every depth (wall-clock seconds differ between runs)."""
    if isinstance(d, dict):
        return {k: without_seconds(v) for k, v in d.items() if k != "seconds"}
    return [without_seconds(v) for v in d] if isinstance(d, list) else d


@pytest.mark.parametrize("name", sorted(JOBS))
def test_every_job_names_an_unknown_key(name):
    with pytest.raises(OptionError, match="unknown option 'bogus'"):
        from_mapping(JOBS[name].options, {**MINIMAL[name], "bogus": 1})
    with pytest.raises(ValueError) as info:
        normalize({"task": name, **MINIMAL[name], "bogus": 1}, "spec.json: tasks[2]")
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"spec.json: tasks[2] ({name}): ")
    assert "unknown option 'bogus'" in message


def test_sweep_keys_are_the_option_fields():
    for name, job in JOBS.items():
        spec = normalize({"task": name, **MINIMAL[name]})
        assert set(spec.options) == set(job.options.__dataclass_fields__), name


def test_one_rule_per_option_for_library_cli_and_sweep(capsys):
    with pytest.raises(OptionError, match=r"option 'seed': must be >= 0, got -1"):
        DimOptions(widths=(3, 2), ranks=(1,), seed=-1)
    with pytest.raises(SystemExit):
        main(["dim", "--widths", "3,2", "--ranks", "1", "--seed", "-1"])
    assert "argument --seed: must be >= 0, got -1" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"option 'seed': must be >= 0, got -1"):
        normalize({"task": "dim", "widths": [3, 2], "ranks": [1], "seed": -1})


def test_library_errors_name_options_not_flags(tmp_path, capsys):
    w = tmp_path / "w.json"
    w.write_text(json.dumps({"widths": [2, 1], "ranks": [1], "layers": [
        {"Q": [[1, 0]], "K": [[0, 1]], "V": [[1, 2]]}]}))
    with pytest.raises(OptionError) as info:
        FiberOptions(weights=str(w), point="swap")
    assert "option 'point'" in str(info.value) and "--" not in str(info.value)
    assert main(["fiber", "--weights", str(w), "--point", "swap"]) == 2
    assert "error: --point chooses a sample point; --weights gives W0" in capsys.readouterr().err
    with pytest.raises(ValueError) as info:
        numag.dimension(Architecture((3, 3), (1,), kind="softmax"), method="exact")
    assert "--" not in str(info.value)


def test_dim_cli_json_is_the_library_result(capsys):
    options = DimOptions(widths=(3, 2), ranks=(4,), seed=2)
    assert main(["dim", "--widths", "3,2", "--ranks", "4", "--seed", "2", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    library = run_dim(options).to_json()
    assert without_seconds(cli) == without_seconds(library)
    # the note on a > d is the library's (formerly added by the command line only)
    assert any("rank at most 3" in n for n in library["notes"])


def test_one_fiber_json_for_cli_sweep_and_study(tmp_path, capsys):
    """(3, 2, 1) with u ∦ w: two components of dim 2, degree 3 (HMK; tests/test_fibers.py)."""
    from numag.reproduce import load_study
    opts = FiberOptions(widths=(3, 2), ranks=(1,), point="swap", seed=1, blackbox="no")
    library = run_fiber(opts).to_json()
    assert [(c["dim"], c["degree"]) for c in library["components"]] == [(2, 3), (2, 3)]
    assert main(["fiber", "--widths", "3,2", "--ranks", "1", "--point", "swap", "--seed", "1",
                 "--blackbox", "no", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    rec, = run_tasks([{"task": "fiber", "widths": [3, 2], "ranks": [1], "point": "swap",
                       "seed": 1, "blackbox": "no"}], tmp_path / "s.db", workers=0)
    study = load_study("fibers").fiber_item([3, 2], [1], "swap", 1, False, opts.complete_paths)
    for other in (cli, rec.result, json.loads(json.dumps(study))):
        assert list(other) == list(library)                       # same keys, same order
        assert without_seconds(other) == without_seconds(json.loads(json.dumps(library)))
    assert "matches" not in library and library["expected"]["matches"] is True


def test_one_degree_json_for_cli_sweep_and_library(tmp_path, capsys):
    """(2, 1, 1): the symmetric 2×2 matrices of rank ≤ 2 times P^1, degree 3 (closed form
    C(3, 1)·C(2, 1)/2, paper-notes §10). Same seed: the same answer and the same paths."""
    library = run_degree(DegreeOptions(widths=(2, 1), ranks=(1,), seed=4)).to_json()
    assert (library["degree"], library["certified"], library["closed_form"]) == (3, True, 3)
    assert main(["degree", "--widths", "2,1", "--ranks", "1", "--seed", "4", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    rec, = run_tasks([{"task": "degree", "widths": [2, 1], "ranks": [1], "seed": 4}],
                     tmp_path / "s.db", workers=0)
    keys = ("degree", "certified", "dimension", "points_found", "closed_form", "seed")
    for other in (cli, rec.result):
        assert list(other) == list(library)
        assert {k: other[k] for k in keys} == {k: library[k] for k in keys}
        assert other["image"]["paths_tracked"] == library["image"]["paths_tracked"]
    with pytest.raises(ValueError, match="softmax attention is not polynomial"):
        DegreeOptions(widths=(2, 1), ranks=(1,), softmax=True)
    assert main(["degree", "--widths", "2,1", "--ranks", "1", "--softmax"]) == 2
    assert "not polynomial" in capsys.readouterr().err


def test_classify_batch_is_a_sweep_result(tmp_path):
    """A batch file was an error in a sweep (its --json printed JSON lines); now one result."""
    p = tmp_path / "pts.jsonl"
    zero = {"widths": [2, 1], "ranks": [1], "A": [[1, 0], [0, 0]], "V": [[0, 0]]}
    p.write_text(json.dumps(zero) + "\n{not json\n")
    rec, = run_tasks([{"task": "classify", "file": str(p), "no_evidence": True}],
                     tmp_path / "s.db", workers=0)
    points = rec.result["points"]
    assert [x["where"] for x in points] == [f"{p}:1", f"{p}:2"]
    assert points[0]["labels"] == ["zero", "singular", "boundary"]   # V = 0: zero (§2)
    assert "not valid JSON" in points[1]["error"]
    assert rec.result["counts"] == {"error": 1, "zero, singular, boundary": 1}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
    return out


@pytest.mark.parametrize("folder", ["sweep", "jobs"])
def test_sweep_and_jobs_do_not_import_the_command_line(folder):
    for path in (PACKAGE / folder).glob("*.py"):
        mods = imported_modules(path)
        assert "argparse" not in mods, path
        assert not any("commands" in m or m.endswith("cli") for m in mods), (path, mods)


def test_architecture_options_are_one_declaration_for_dim_fiber_cli_and_sweep(tmp_path,
                                                                             capsys):
    """arch, heads, activation_degree, bias (issue 14) go through the seam like every option:
    the same field declaration in DimOptions and FiberOptions, the same result from the library,
    the CLI and the sweep. (3, 2, 1) with r = 2: ternary quadrics of rank ≤ 2, a hypersurface in
    the 6-dimensional space of quadrics, so dim 5 (paper-notes §9.3)."""
    names = ("arch", "heads", "activation_degree", "bias")
    dim_fields, fiber_fields = DimOptions.__dataclass_fields__, FiberOptions.__dataclass_fields__
    for n in names:
        assert dim_fields[n].default == fiber_fields[n].default
        assert dim_fields[n].metadata == fiber_fields[n].metadata
    library = run_dim(DimOptions(widths=(3, 2, 1), arch="pnn")).to_json()
    assert (library["dimension"], library["defect"], library["certified"]) == (5, 1, True)
    assert main(["dim", "--arch", "pnn", "--widths", "3,2,1", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    rec, = run_tasks([{"task": "dim", "arch": "pnn", "widths": [3, 2, 1]}], tmp_path / "s.db",
                     workers=0)
    for other in (cli, rec.result):
        assert without_seconds(other) == without_seconds(library)
    # misplaced or refused architecture options: named by option, in the library and the sweep
    with pytest.raises(OptionError, match=r"option 'heads' is an option of option 'arch' "
                                          r"multihead"):
        DimOptions(widths=(3, 2), ranks=(1,), heads=2)
    with pytest.raises(ValueError, match="lightning attention only"):
        normalize({"task": "fiber", "arch": "multihead", "widths": [2, 2], "ranks": [1],
                   "heads": 2})
