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


def test_table_reports_disagreement(capsys):
    assert main(["dim", "--widths", "3,3,3", "--ranks", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "DISAGREES" in out and "18" in out and "20" in out


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
])
def test_bad_input_gives_one_line_error(args, needle):
    proc = run("dim", *args)
    assert proc.returncode != 0
    lines = [l for l in proc.stderr.strip().splitlines() if "error" in l]
    assert len(lines) == 1 and needle in lines[0]
    assert "Traceback" not in proc.stderr
