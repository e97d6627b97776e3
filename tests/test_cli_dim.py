"""`numag dim` from the command line: JSON keys, table, one-line errors with non-zero exit."""
import json
import subprocess
import sys

import pytest

from numag.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "numag", *args], capture_output=True, text=True)


def test_json_has_required_keys_and_values(capsys):
    assert main(["dim", "--widths", "3,2,3", "--ranks", "2,2", "--json", "--seed", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("dimension", "params", "predicted", "certified", "method", "seed"):
        assert key in out
    assert out["params"] == 32 and out["seed"] == 4 and out["method"] == "exact"
    assert out["dimension"] == out["upper_bound"] and out["certified"] is True


def test_table_rank_one_theorem(capsys):
    """3,3,3 / 1,2: 18 (paper-notes §3.1; by hand there), certified."""
    assert main(["dim", "--widths", "3,3,3", "--ranks", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "18" in out and "✓ agrees" in out and "§3.1" in out
    assert "certified                yes" in out


def test_pnn_defect_is_a_finding(capsys):
    """(3,2,1), r = 2: ternary quadrics of rank ≤ 2, 5 < expected 6 (paper-notes §9.3)."""
    assert main(["dim", "--arch", "pnn", "--widths", "3,2,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["dimension"], out["predicted"], out["defect"]) == (5, 6, 1)
    assert out["architecture"]["kind"] == "pnn" and out["certified"] is True
    assert main(["dim", "--arch", "pnn", "--widths", "3,2,1"]) == 0
    assert "DEFECTIVE by 1" in capsys.readouterr().out


def test_multihead_and_pnn_options(capsys):
    assert main(["dim", "--arch", "multihead", "--widths", "3,2", "--ranks", "1", "--heads",
                 "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["architecture"]["heads"] == 3 and out["dimension"] == 3 * 10   # 3 · dim M_3,2,1
    assert main(["dim", "--arch", "pnn", "--widths", "2,2,1", "--activation-degree", "3",
                 "--bias", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["architecture"]["activation_degree"] == 3 and out["architecture"]["bias"]
    assert out["params"] == 4 + 2 + 2 + 1


def test_softmax_defaults_to_mp(capsys):
    assert main(["dim", "--widths", "2,2", "--ranks", "1", "--softmax", "--tokens", "3",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "mp" and out["dimension"] == 2 * 2 + 4 - 1 and out["decided"]


@pytest.mark.parametrize("args, needle", [
    (["--widths", "3,0", "--ranks", "1"], "positive"),
    (["--widths", "3,2", "--ranks", "1,1"], "ranks"),
    (["--widths", "3,x", "--ranks", "1"], "integers"),
    (["--widths", "3,3", "--ranks", "1", "--softmax", "--method", "exact"], "not polynomial"),
    (["--widths", "3,3", "--ranks", "1", "--tokens", "0"], "tokens"),
    (["--arch", "pnn", "--widths", "3,2,1", "--ranks", "1,1"], "no attention ranks"),
    (["--arch", "pnn", "--widths", "3,2,1", "--activation-degree", "1"], "at least 2"),
    (["--arch", "multihead", "--widths", "3,2", "--ranks", "1"], "--heads"),
    (["--widths", "3,2", "--ranks", "1", "--heads", "2"], "--arch multihead"),
    (["--widths", "3,2", "--ranks", "1", "--bias"], "--arch pnn"),
    (["--widths", "3,2"], "--ranks"),
    (["--arch", "relu", "--widths", "3,2"], "invalid choice"),
])
def test_bad_input_gives_one_line_error(args, needle):
    proc = run("dim", *args)
    assert proc.returncode != 0
    lines = [l for l in proc.stderr.strip().splitlines() if "error" in l]
    assert len(lines) == 1 and needle in lines[0]
    assert "Traceback" not in proc.stderr


def test_fiber_refuses_new_kinds_in_one_line():
    proc = run("fiber", "--arch", "pnn", "--widths", "2,2,1")
    assert proc.returncode == 2 and "lightning attention only" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
