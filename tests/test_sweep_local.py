"""Sweeps on the local process pool: results vs independent truth, the store, resume, faults,
Ctrl-C in a subprocess, export, and the command line."""
import csv
import importlib.util
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from numag.cli import main
from numag.formulas import single_layer
from numag.sweep import Store, export_rows, render, run_tasks
from numag.sweep.testing import interrupt_when_done

SHAPES = [(2, 1, 1), (3, 2, 1), (3, 3, 2), (4, 2, 2), (4, 4, 3), (5, 3, 2)]
COUNT = "numag.sweep.testing:count"


def markers(folder: Path, prefix: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(prefix + "."))


def count_tasks(folder, values, sleep=0.0):
    return [{"task": COUNT, "marker_dir": str(folder), "value": v, "sleep": sleep}
            for v in values]


def test_dim_sweep_stores_the_formula_dimension(tmp_path):
    tasks = [{"task": "dim", "widths": [d, dp], "ranks": [a], "seed": 3} for d, dp, a in SHAPES]
    records = run_tasks(tasks, tmp_path / "s.db", workers=2, progress=False)
    assert [r.status for r in records] == ["done"] * len(SHAPES) and all(r.ran for r in records)
    for (d, dp, a), rec in zip(SHAPES, records):
        assert rec.result["dimension"] == single_layer(d, dp, a)     # HMK, independent of numag
        assert rec.result["params"] == 2 * a * d + dp * d and rec.seed == 3
    with Store(tmp_path / "s.db") as db:
        assert db.counts() == {"pending": 0, "done": len(SHAPES), "failed": 0}
        assert len(db.records()) == len(SHAPES)


def test_dim_task_result_is_the_commands_json(tmp_path, capsys):
    rec, = run_tasks([{"task": "dim", "widths": [3, 3, 3], "ranks": [1, 2], "seed": 4,
                       "method": "float"}], tmp_path / "s.db", workers=0)
    assert main(["dim", "--widths", "3,3,3", "--ranks", "1,2", "--seed", "4",
                 "--method", "float", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert set(rec.result) == set(expected)
    strip = lambda d: {k: v for k, v in d.items() if k != "seconds"}   # noqa: E731
    assert strip(rec.result) == strip(expected)
    assert rec.result["dimension"] == 18          # the rank-1 caveat (paper-notes §3)


def test_rerun_skips_finished_tasks(tmp_path):
    store = tmp_path / "s.db"
    first = run_tasks(count_tasks(tmp_path, range(0, 6, 2)), store, workers=2)
    assert all(r.ran for r in first)
    second = run_tasks(count_tasks(tmp_path, range(6)), store, workers=2)
    assert [r.ran for r in second] == [v % 2 == 1 for v in range(6)]
    assert [r.result["square"] for r in second] == [v * v for v in range(6)]
    third = run_tasks(count_tasks(tmp_path, range(6)), store, workers=2)
    assert not any(r.ran for r in third)
    for v in range(6):                     # executions counted outside the store: once each
        assert len(markers(tmp_path, f"count-{v}")) == 1
    with Store(store) as db:
        assert [r.attempts for r in db.records()] == [1] * 6


def test_duplicate_tasks_run_once(tmp_path):
    records = run_tasks(count_tasks(tmp_path, [7, 7, 7]), tmp_path / "s.db", workers=0)
    assert len({r.key for r in records}) == 1 and len(markers(tmp_path, "count-7")) == 1


def test_raising_task_is_stored_failed_and_others_continue(tmp_path):
    store = tmp_path / "s.db"
    tasks = count_tasks(tmp_path, range(4))
    tasks.insert(1, {"task": "numag.sweep.testing:fail", "marker_dir": str(tmp_path),
                     "message": "no luck"})
    records = run_tasks(tasks, store, workers=2)
    assert [r.status for r in records] == ["done", "failed", "done", "done", "done"]
    assert records[1].error == "ValueError: no luck" and records[1].result is None
    with Store(store) as db:
        assert "raise ValueError(message)" in db.records("failed")[0].traceback
    run_tasks(tasks, store, workers=2)                        # failures are kept by default
    assert len(markers(tmp_path, "fail")) == 1
    again = run_tasks(tasks, store, workers=2, retry_failed=True)
    assert len(markers(tmp_path, "fail")) == 2 and again[1].attempts == 2
    assert [r.ran for r in again] == [False, True, False, False, False]


def test_unavailable_command_is_stored_failed(tmp_path, monkeypatch):
    from numag.sweep import tasks as tasks_mod
    monkeypatch.setitem(tasks_mod.PLANNED, "nosuch", "numag nosuch (issue 99)")
    records = run_tasks([{"task": "nosuch", "widths": [2, 2]},
                         {"task": "dim", "widths": [2, 2], "ranks": [1]}], tmp_path / "s.db",
                        workers=0)
    assert [r.status for r in records] == ["failed", "done"]
    assert records[0].error.startswith("TaskUnavailable: task 'nosuch' is not available")


def test_killed_local_worker_task_is_retried(tmp_path):
    tasks = count_tasks(tmp_path, range(5), sleep=0.05)
    tasks.insert(2, {"task": "numag.sweep.testing:kill_once", "marker_dir": str(tmp_path),
                     "value": 42})
    records = run_tasks(tasks, tmp_path / "s.db", workers=2)
    assert all(r.status == "done" for r in records)
    killed = records[2].result
    assert killed["value"] == 42 and killed["pid"] != killed["killed_pid"]
    assert int((tmp_path / "killed").read_text()) == killed["killed_pid"]
    assert len(markers(tmp_path, "survived")) == 1


def test_pool_workers_may_start_processes(tmp_path):
    """witness.phc runs PHCpack in child processes: a pool worker must be allowed children."""
    rec, = run_tasks([{"task": "numag.sweep.testing:child_process", "exit_code": 7}],
                     tmp_path / "s.db", workers=1)
    assert rec.status == "done" and rec.result == {"exitcode": 7}


def test_task_that_always_kills_its_worker_fails_after_allowed_failures(tmp_path):
    tasks = count_tasks(tmp_path, range(3))
    tasks.append({"task": "numag.sweep.testing:kill_always", "marker_dir": str(tmp_path)})
    records = run_tasks(tasks, tmp_path / "s.db", workers=2, allowed_failures=2)
    assert [r.status for r in records] == ["done", "done", "done", "failed"]
    assert records[3].error.startswith("WorkerDied")
    # one run among others, then two runs alone: the third death is never attempted
    assert len(markers(tmp_path, "kill")) == 3


def test_sigint_mid_sweep_leaves_a_consistent_resumable_store(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tasks": count_tasks(tmp_path, range(12), sleep=0.4)}))
    store = tmp_path / "s.db"
    cmd = [sys.executable, "-m", "numag", "sweep", str(spec), "--store", str(store),
           "--workers", "2"]
    done, err, code = interrupt_when_done(cmd, store)
    assert done >= 3 and code is not None, "the sweep did not get going"
    assert code == 130 and "rerun the same command to resume" in err
    assert "Traceback" not in err
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = dict(db.execute("SELECT status, count(*) FROM tasks GROUP BY status").fetchall())
        finished = {json.loads(i)["value"] for (i,) in
                    db.execute("SELECT inputs FROM tasks WHERE status = 'done'")}
    assert set(rows) <= {"done", "pending"} and 3 <= rows["done"] < 12
    assert sum(rows.values()) == 12
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    with Store(store) as db:
        assert db.counts() == {"pending": 0, "done": 12, "failed": 0}
    for v in finished:                     # finished before the interrupt: never recomputed
        assert len(markers(tmp_path, f"count-{v}")) == 1
    for v in set(range(12)) - finished:    # the rest ran once more at most (if in flight)
        assert 1 <= len(markers(tmp_path, f"count-{v}")) <= 2


def test_export_csv_and_json(tmp_path):
    store = tmp_path / "s.db"
    tasks = [{"task": "dim", "widths": [d, dp], "ranks": [a]} for d, dp, a in SHAPES[:3]]
    tasks.append({"task": "numag.sweep.testing:fail", "marker_dir": str(tmp_path)})
    run_tasks(tasks, store, workers=0)
    out = tmp_path / "out.csv"
    assert main(["sweep", "export", "--store", str(store), "--format", "csv",
                 "--output", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 4
    for (d, dp, a), row in zip(SHAPES[:3], rows):
        assert row["status"] == "done" and row["task"] == "dim"
        assert int(row["dimension"]) == single_layer(d, dp, a)
        assert json.loads(row["input.widths"]) == [d, dp] and row["input.seed"] == "0"
    assert rows[3]["status"] == "failed" and rows[3]["error"] == "ValueError: boom"
    assert rows[3]["dimension"] == ""
    as_json = json.loads(render(export_rows(store), "json"))
    assert [r["dimension"] for r in as_json[:3]] == [single_layer(*s) for s in SHAPES[:3]]
    assert as_json[0]["input.ranks"] == [SHAPES[0][2]] and as_json[0]["method"] == "exact"


def test_cli_sweep_then_export(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text('[[grids]]\ntask = "dim"\nwidths = [[3, 2], [4, 3]]\nranks = [[1], [2]]\n')
    store = tmp_path / "s.db"
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "1"]) == 0
    assert "4 tasks: 4 done, 0 failed (4 run now" in capsys.readouterr().out
    assert main(["sweep", str(spec), "--store", str(store), "--workers", "1"]) == 0
    assert "(0 run now, 4 already in" in capsys.readouterr().out
    assert main(["sweep", "export", "--store", str(store), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    got = {(tuple(r["input.widths"]), r["input.ranks"][0]): r["dimension"] for r in rows}
    assert got == {((d, dp), a): single_layer(d, dp, a)
                   for d, dp in [(3, 2), (4, 3)] for a in (1, 2)}


def test_cli_exit_code_1_when_a_task_failed(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tasks": [{"task": "numag.sweep.testing:fail",
                                           "marker_dir": str(tmp_path)}]}))
    assert main(["sweep", str(spec), "--store", str(tmp_path / "s.db"), "--workers", "0"]) == 1
    assert "failed numag.sweep.testing:fail" in capsys.readouterr().out


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "numag", "sweep", *args], capture_output=True,
                          text=True)


@pytest.mark.parametrize("spec_text, extra, needle", [
    ('{"tasks": [{"task": "dimm", "widths": [3, 2], "ranks": [1]}]}', [], "unknown task 'dimm'"),
    ('{"tasks": [{"task": "dim", "ranks": [1]}]}', [], "missing option(s) 'widths'"),
    ('{"grids": [{"task": "dim", "widths": [3, 2], "ranks": [[1]]}]}', [], "list of lists"),
    ('{"tasks": [', [], "not valid JSON"),
    ('{"tasks": [{"task": "dim", "widths": [3, 2], "ranks": [1]}]}', ["--format", "csv"],
     "belong to `numag sweep export`"),
    ('{"tasks": [{"task": "dim", "widths": [3, 2], "ranks": [1]}]}', ["--workers", "-1"],
     "--workers"),
    ('{"tasks": [{"task": "dim", "widths": [3, 2], "ranks": [1]}]}', ["--scheduler", "nohost"],
     "Dask scheduler"),
])
def test_bad_input_is_a_one_line_error(tmp_path, spec_text, extra, needle):
    spec = tmp_path / "spec.json"
    spec.write_text(spec_text)
    proc = run_cli(str(spec), "--store", str(tmp_path / "s.db"), *extra)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and needle in lines[0], proc.stderr


def test_bad_stores_are_one_line_errors(tmp_path):
    not_db = tmp_path / "x.db"
    not_db.write_text("hello, I am not SQLite" * 100)
    for args, needle in [(["export", "--store", str(tmp_path / "none.db")], "no such"),
                         (["export", "--store", str(not_db)], "not a numag sweep store"),
                         (["export", "--store", str(not_db), "--format", "xml"], "invalid choice")]:
        proc = run_cli(*args)
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(ValueError, match="not a numag sweep store"):
        Store(other)


def test_readers_see_rows_while_a_sweep_writes(tmp_path):
    """WAL: a second connection reads the store between the writer's commits."""
    store = tmp_path / "s.db"
    run_tasks(count_tasks(tmp_path, [1]), store, workers=0)
    with Store(store) as writer, Store(store, create=False) as reader:
        assert reader.counts()["done"] == 1
        writer.add([])
        assert os.path.exists(str(store) + "-wal")


def _command_json(capsys, *argv):
    assert main(list(argv)) in (0, None)
    return json.loads(capsys.readouterr().out)


@pytest.mark.skipif(importlib.util.find_spec("numag.commands.classify") is None,
                    reason="numag classify (issue 5) not in this tree yet")
def test_classify_task_gives_the_commands_json(tmp_path, capsys):
    point = tmp_path / "p.json"
    point.write_text(json.dumps({"widths": [2, 1], "ranks": [1], "layers": [
        {"Q": [[1, 0]], "K": [[0, 1]], "V": [[1, 2]]}]}))
    rec, = run_tasks([{"task": "classify", "file": str(point), "digits": 30,
                       "no-evidence": True}], tmp_path / "s.db", workers=0)
    assert rec.status == "done", rec.error
    expected = _command_json(capsys, "classify", str(point), "--digits", "30", "--no-evidence",
                             "--json")
    assert set(rec.result) == set(expected)
    assert (rec.result["labels"], rec.result["ranks"]) == (expected["labels"], expected["ranks"])


def test_classify_batch_with_a_bad_line_is_stored_failed_with_the_good_lines(tmp_path):
    """`numag classify` exits 2 on a batch with a bad line; the sweep stored it as 'done'."""
    good = {"widths": [2, 1], "ranks": [1], "layers": [{"Q": [[1, 0]], "K": [[0, 1]],
                                                         "V": [[1, 2]]}]}
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps(good) + "\n{not json\n")
    rec, = run_tasks([{"task": "classify", "file": str(batch), "digits": 30,
                       "no-evidence": True}], tmp_path / "s.db", workers=0)
    assert rec.status == "failed" and "1 of 2 batch lines are bad input" in rec.error, rec
    assert rec.error.count(":2") == 1                          # names the bad line, once
    assert rec.result["points"][0]["labels"] and "error" in rec.result["points"][1]


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("numag.commands.fiber") is None,
                    reason="numag fiber (issue 4) not in this tree yet")
def test_fiber_task_gives_the_commands_json(tmp_path, capsys):
    rec, = run_tasks([{"task": "fiber", "widths": [2, 1], "ranks": [1], "seed": 1}],
                     tmp_path / "s.db", workers=1)
    assert rec.status == "done", rec.error
    expected = _command_json(capsys, "fiber", "--widths", "2,1", "--ranks", "1", "--seed", "1",
                             "--json")
    assert set(rec.result) == set(expected)
    assert rec.result["dimension"] == expected["dimension"]


def study_item(d: int, seed: int) -> dict:
    """A study-style item function (module level, imported by name in the workers)."""
    return {"square": d * d, "seed": seed, "pid": os.getpid()}


def test_callable_task_runs_a_module_function_in_the_workers(tmp_path):
    from numag.sweep import callable_task
    tasks = [callable_task(study_item, d=d, seed=1) for d in range(4)]
    assert tasks[0] == {"task": f"{__name__}:study_item", "d": 0, "seed": 1}
    records = run_tasks(tasks, tmp_path / "s.db", workers=2)
    assert [r.result["square"] for r in records] == [0, 1, 4, 9]
    assert all(r.result["pid"] != os.getpid() for r in records)
    with pytest.raises(ValueError, match="module-level"):
        callable_task(lambda: {})


def test_workers_that_cannot_start_stop_the_sweep_with_a_clear_error(tmp_path):
    """A script without a __main__ guard re-runs itself in every spawned worker, which dies:
    the sweep stops with PoolError instead of blaming (and failing) each task in turn."""
    script = tmp_path / "unguarded.py"
    store = tmp_path / "s.db"
    script.write_text("from numag.sweep import run_tasks\n"
                      f"run_tasks([{{'task': 'dim', 'widths': [3, 2], 'ranks': [1], 'seed': s}}"
                      f" for s in range(4)], {str(store)!r}, workers=2)\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode != 0 and "PoolError" in proc.stderr and "guard" in proc.stderr
    with Store(store) as db:
        assert db.counts() == {"pending": 4, "done": 0, "failed": 0}
