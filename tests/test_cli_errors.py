"""Bad input at the command line: one-line errors naming the option or path, exit code 2, no
traceback; quiet exits on a closed pipe; notes and per-line errors instead of silent answers."""
import hashlib
import json
import sqlite3
import subprocess
import sys

import pytest

from numag.cli import main
from numag.commands import sweep as sweep_cmd
from numag.formulas import single_layer
from numag.sweep import export_rows, load_tasks

PSD = {"widths": [2, 1], "ranks": [1], "tensor": [[[[2, 4], [1, 2]], [[1, 2], [1, 2]]]]}
INDEF = {"widths": [2, 1], "ranks": [1], "tensor": [[[[2, 4], [1, 2]], [[1, 2], [-1, -2]]]]}
WEIGHTS = {"widths": [2, 1], "ranks": [1], "layers": [{"Q": [[1, 0]], "K": [[0, 1]],
                                                       "V": [[1, 2]]}]}


def one_error(capsys, command: str) -> str:
    """The single stderr line of a failed command (checked to be `numag CMD: error: ...`)."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"numag {command}: error: "), err
    assert "Traceback" not in err
    return lines[0]


def dim_spec(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tasks": [{"task": "dim", "widths": [3, 2], "ranks": [1]}]}))
    return spec


# --- 1. paths that cannot be read or written -----------------------------------------------

@pytest.mark.parametrize("argv", [["classify", "{dir}"], ["fiber", "--weights", "{dir}"]])
def test_a_folder_given_as_input_file(tmp_path, capsys, argv):
    argv = [a.format(dir=tmp_path) for a in argv]
    assert main(argv) == 2
    assert f"{tmp_path}: Is a directory" in one_error(capsys, argv[0])


def test_a_folder_given_as_store(tmp_path, capsys):
    assert main(["sweep", str(dim_spec(tmp_path)), "--store", str(tmp_path)]) == 2
    assert f"{tmp_path}: a folder" in one_error(capsys, "sweep")


def test_sqlite_errors_during_a_sweep_name_the_store(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(sweep_cmd, "run_tasks", broken)
    assert main(["sweep", str(dim_spec(tmp_path)), "--store", str(tmp_path / "s.db")]) == 2
    line = one_error(capsys, "sweep")
    assert str(tmp_path / "s.db") in line and "disk I/O error" in line


@pytest.mark.parametrize("out, needle", [("file.json", "exists and is not a folder"),
                                         ("file.json/sub", "cannot create the folder")])
def test_reproduce_out_that_cannot_be_a_folder(tmp_path, capsys, out, needle):
    (tmp_path / "file.json").write_text("{}")
    assert main(["reproduce", "--quick", "--only", "figure1_slice",
                 "--out", str(tmp_path / out)]) == 2
    line = one_error(capsys, "reproduce")
    assert f"--out {tmp_path / out}" in line and needle in line


@pytest.mark.parametrize("argv", [["classify", "{f}"], ["fiber", "--weights", "{f}"]])
def test_non_utf8_file_is_named(tmp_path, capsys, argv):
    f = tmp_path / "latin1.json"
    f.write_bytes(b'{"widths": [2, 1], "ranks": [1], "name": "\xe9"}')
    argv = [a.format(f=f) for a in argv]
    assert main(argv) == 2
    line = one_error(capsys, argv[0])
    assert f"{f}: not UTF-8 text" in line


# --- 2. a closed pipe ----------------------------------------------------------------------

@pytest.mark.parametrize("argv, stdin", [
    (["-m", "witness", "decompose", "-"], b"x^2 - 1\n"),
    (["-m", "numag", "dim", "--widths", "3,2", "--ranks", "1", "--json"], b""),
])
def test_closed_stdout_exits_quietly(argv, stdin):
    proc = subprocess.Popen([sys.executable, *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()                       # the reader is gone before anything is written
    _, err = proc.communicate(stdin, timeout=300)
    assert proc.returncode == 0 and err == b"", err.decode()


# --- 3, 4. comma lists and bounded numbers name the option ---------------------------------

@pytest.mark.parametrize("widths", ["3,,2", "3,2,", ",3,2", "3, ,2"])
def test_empty_entry_in_a_comma_list(capsys, widths):
    with pytest.raises(SystemExit) as exc:
        main(["dim", "--widths", widths, "--ranks", "1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --widths: empty entry in '{widths}'" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, option, rule", [
    (["dim", "--widths", "3,2", "--ranks", "1", "--seed", "-1"], "--seed", ">= 0"),
    (["dim", "--widths", "3,2", "--ranks", "1", "--trials", "0"], "--trials", ">= 1"),
    (["classify", "p.json", "--seed", "-1"], "--seed", ">= 0"),
    (["classify", "p.json", "--min-margin", "0"], "--min-margin", ">= 1"),
    (["classify", "p.json", "--tolerance", "1"], "--tolerance", "in (0, 1)"),
    (["classify", "p.json", "--digits", "10"], "--digits", "in [15, 301)"),
    (["reproduce", "--seed", "-1"], "--seed", ">= 0"),
])
def test_out_of_range_values_name_the_option(capsys, argv, option, rule):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert f"argument {option}: must be {rule}" in capsys.readouterr().err


def test_sweep_task_with_a_negative_seed_names_seed(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tasks": [{"task": "dim", "widths": [3, 2], "ranks": [1],
                                           "seed": -1}]}))
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.db")]) == 2
    assert "option 'seed': must be >= 0" in one_error(capsys, "sweep")


# --- 5. attention rank above the width -----------------------------------------------------

def test_rank_above_width_is_kept_with_a_note(capsys):
    assert main(["dim", "--widths", "3,2", "--ranks", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dimension"] == single_layer(3, 2, 3)      # as a = 3: unchanged
    assert any("rank at most 3" in n and "a = 3" in n for n in out["notes"]), out["notes"]
    assert main(["dim", "--widths", "3,2", "--ranks", "4"]) == 0
    notes = [ln for ln in capsys.readouterr().out.splitlines() if "rank at most" in ln]
    assert len(notes) == 1 and notes[0].strip().startswith("note: attention rank a = 4")
    assert main(["dim", "--widths", "3,2", "--ranks", "3", "--json"]) == 0
    assert not any("rank at most" in n for n in json.loads(capsys.readouterr().out)["notes"])


def test_deep_layer_rank_above_its_input_width_is_named():
    from numag.architecture import Architecture
    from numag.dimension import rank_notes
    notes = rank_notes(Architecture((3, 2, 3), (2, 4)))
    assert len(notes) == 1 and notes[0].startswith("layer 2: attention rank a = 4 exceeds d = 2")


# --- 6. a batch line that is not JSON ------------------------------------------------------

def test_non_json_batch_line_is_a_per_line_error(tmp_path, capsys):
    p = tmp_path / "pts.jsonl"
    p.write_text(json.dumps(PSD) + "\n{not json\n" + json.dumps(INDEF) + "\n")
    assert main(["classify", str(p), "--no-evidence"]) == 2
    out = capsys.readouterr().out
    assert f"{p}:2: not valid JSON" in out and "error: 1" in out and "not in M: 1" in out
    assert main(["classify", str(p), "--no-evidence", "--json"]) == 2
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["where"] for r in rows] == [f"{p}:1", f"{p}:2", f"{p}:3"]
    assert "not valid JSON" in rows[1]["error"] and "labels" in rows[2]


# --- 7. sweep input files: relative to the spec, keyed by content --------------------------

def test_sweep_file_paths_are_relative_to_the_spec(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "project"
    (folder / "points").mkdir(parents=True)
    point = folder / "points" / "p.json"
    point.write_text(json.dumps(PSD))
    spec = folder / "spec.json"
    spec.write_text(json.dumps({"tasks": [{"task": "classify", "file": "points/p.json",
                                           "no-evidence": True}]}))
    store = tmp_path / "s.db"
    monkeypatch.chdir(tmp_path)                     # not the spec's folder
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "0"]) == 0
    point.write_text(json.dumps(INDEF))             # edited: a new task, a new row
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "0"]) == 0
    capsys.readouterr()
    rows = export_rows(store)
    assert [r["status"] for r in rows] == ["done", "done"]
    assert {r["input.file"] for r in rows} == {str(point)}
    assert rows[1]["input.file_sha256"] == hashlib.sha256(point.read_bytes()).hexdigest()
    assert rows[0]["input.file_sha256"] != rows[1]["input.file_sha256"]
    assert rows[0]["labels"] != rows[1]["labels"]


def test_fiber_weights_resolved_against_the_spec_folder(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "w.json").write_text(json.dumps(WEIGHTS))
    spec = tmp_path / "sub" / "spec.json"
    spec.write_text(json.dumps({"tasks": [{"task": "fiber", "weights": "w.json"}]}))
    monkeypatch.chdir(tmp_path)
    task, = load_tasks("sub/spec.json")
    assert task.options["weights"] == str(tmp_path / "sub" / "w.json")
    assert set(task.files) == {"weights"} and "weights_sha256" in task.inputs()


def test_missing_sweep_input_file_is_an_input_error(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tasks": [{"task": "classify", "file": "nope.json"}]}))
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.db")]) == 2
    line = one_error(capsys, "sweep")
    assert "'nope.json': no such file" in line and str(tmp_path / "nope.json") in line



@pytest.mark.parametrize("flag, value, message", [
    ("--seed", "-1", "argument --seed: must be >= 0"),
    ("--timeout", "0", "argument --timeout: must be > 0")])
def test_fiber_options_are_range_checked(flag, value, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fiber", "--widths", "3,2", "--ranks", "1", flag, value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["nan", "-inf", "-1"])
def test_timeout_range_names_inf_as_no_limit(value, capsys):
    """`--timeout` takes a positive number or inf (no limit); anything else is one line."""
    with pytest.raises(SystemExit) as exc:
        main(["fiber", "--widths", "3,2", "--ranks", "1", f"--timeout={value}"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "must be > 0 (or inf: no limit)" in err and "Traceback" not in err


def test_timeout_inf_means_no_budget():
    """`--timeout inf` was refused ("must be > 0, got inf"); it is the default, no budget
    (None), on the command line and in the options dataclasses (sweep specs)."""
    import math
    from numag.jobs.degree import DegreeOptions
    from numag.jobs.fiber import FiberOptions
    from numag.options import cli_type
    for cls in (FiberOptions, DegreeOptions):
        assert cli_type(cls, "timeout")("inf") is None
        assert cli_type(cls, "timeout")("2.5") == 2.5
    assert FiberOptions(widths=(3, 2), ranks=(1,), timeout=math.inf).timeout is None


def test_weights_file_with_an_unknown_key_is_refused(tmp_path):
    """A misspelt key ('token' for 'tokens', an extra 'note') was silently ignored."""
    from numag.io import weights_from_json
    base = {"widths": [2, 1], "ranks": [1],
            "layers": [{"Q": [[1, 2]], "K": [[3, 4]], "V": [[1, 1]]}]}
    weights_from_json(base)
    with pytest.raises(ValueError, match="unknown key"):
        weights_from_json({**base, "token": 1})
    with pytest.raises(ValueError, match="exactly the keys Q, K, V"):
        weights_from_json({**base, "layers": [{**base["layers"][0], "W": [[1]]}]})
