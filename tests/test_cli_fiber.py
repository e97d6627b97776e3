"""`numag fiber` from the command line and as a sweep task: keys, weights files, errors."""
import json
import subprocess
import sys

from numag.cli import main
from numag.sweep import run_tasks


def run(*args):
    return subprocess.run([sys.executable, "-m", "numag", *args], capture_output=True, text=True)


def test_json_keys_and_values(capsys):
    assert main(["fiber", "--widths", "3,2", "--ranks", "1", "--point", "swap", "--seed", "3",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("dimension", "components", "paths_tracked", "seconds", "seed", "expected"):
        assert key in out
    assert out["seed"] == 3 and out["dimension"] == 2
    assert [(c["dim"], c["degree"]) for c in out["components"]] == [(2, 3), (2, 3)]
    assert all(c["trace_test"]["verdict"] is True for c in out["components"])
    assert out["expected"]["matches"] is True


def test_weights_file_with_exact_strings(tmp_path, capsys):
    f = tmp_path / "w.json"
    f.write_text(json.dumps({"widths": [2, 1], "ranks": [1], "layers": [
        {"Q": [["1", "-3/7"]], "K": [[2, "5/2"]], "V": [[1, -1]]}]}))
    assert main(["fiber", "--weights", str(f), "--json", "--blackbox", "no"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["point_type"] == "rank one (u ∦ w)"           # a = d' = 1: two branches
    assert len(out["components"]) == 2 and out["weights"]["layers"][0]["Q"] == [[1, "-3/7"]]


def test_inconsistent_weights_file_is_a_one_line_error(tmp_path):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({"widths": [2, 1], "ranks": [1], "layers": [
        {"Q": [[1, 2, 3]], "K": [[1, 2]], "V": [[1, 1]]}]}))
    proc = run("fiber", "--weights", str(f))
    assert proc.returncode == 2 and "layer 1 Q" in proc.stderr and "Traceback" not in proc.stderr
    proc = run("fiber", "--widths", "3,2")
    assert proc.returncode == 2 and "--ranks" in proc.stderr


def test_fiber_task_in_a_sweep_matches_the_command(tmp_path, capsys):
    recs = run_tasks([{"task": "fiber", "widths": [3, 2], "ranks": [1], "seed": 4,
                       "blackbox": "no"}], tmp_path / "s.sqlite", workers=0)
    assert recs[0].status == "done", recs[0].error
    main(["fiber", "--widths", "3,2", "--ranks", "1", "--seed", "4", "--blackbox", "no",
          "--json"])
    cli = json.loads(capsys.readouterr().out)
    stored = recs[0].result
    assert stored["dimension"] == cli["dimension"]
    assert [(c["dim"], c["degree"]) for c in stored["components"]] == \
        [(c["dim"], c["degree"]) for c in cli["components"]]


def test_certify_flag(capsys):
    assert main(["fiber", "--widths", "3,2", "--ranks", "1", "--point", "swap", "--seed", "2",
                 "--certify"]) == 0
    out = capsys.readouterr().out
    assert "witness points certified; completeness by trace test" in out
    assert out.count("witness points  certified 3 of 3") == 2
