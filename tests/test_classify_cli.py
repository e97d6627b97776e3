"""`numag classify`: single file, --json keys, batch mode with a summary table, bad input."""
import json

import pytest

from numag.cli import main
from numag.io import SingleLayerPoint, load_points, single_layer_point_from_json, \
    single_layer_point_to_json

SELF_INT = {"widths": [3, 2], "ranks": [1],
            "layers": [{"Q": [[1, 0, "3/7"]], "K": [[1, "1/3", -1]], "V": [[2, -1, 1], [4, -2, 2]]}]}
U_PAR_W = {"widths": [3, 2], "ranks": [1], "A": [[1, 0, "3/7"], ["1/3", 0, "1/7"], [-1, 0, "-3/7"]],
           "V": [[2, "2/3", -2], [4, "4/3", -4]]}
PSD = {"widths": [2, 1], "ranks": [1], "tensor": [[[[2, 4], [1, 2]], [[1, 2], [1, 2]]]]}
INDEF = {"widths": [2, 1], "ranks": [1], "tensor": [[[[2, 4], [1, 2]], [[1, 2], [-1, -2]]]]}


def write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(json.dumps(obj))
    return str(p)


def test_json_output_keys(tmp_path, capsys):
    assert main(["classify", write(tmp_path, "p.json", U_PAR_W), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"labels", "ranks", "margin", "evidence", "digits"} <= set(out)
    assert out["labels"] == ["singular", "boundary"] and out["ranks"] == {"A": 1, "V": 1}
    assert out["digits"] == 50 and out["margin"] > 1e5
    assert out["evidence"]["singular"] == "singular" and out["evidence"]["boundary"] == "boundary"


def test_text_output_and_digits(tmp_path, capsys):
    assert main(["classify", write(tmp_path, "p.json", SELF_INT), "--digits", "30"]) == 0
    out = capsys.readouterr().out
    assert "self-intersection" in out and "30 digits" in out and "joint rank" in out


def test_ambient_points(tmp_path, capsys):
    assert main(["classify", write(tmp_path, "psd.json", PSD), "--json", "--no-evidence"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["labels"] == [] and out["membership"]["in_M"] is False
    assert out["membership"]["residual"] > 0.01
    assert main(["classify", write(tmp_path, "psd.json", PSD), "--no-evidence"]) == 0
    assert "no factors A, V" in capsys.readouterr().out     # was "A = None, V = None"
    assert main(["classify", write(tmp_path, "ind.json", INDEF), "--json", "--no-evidence"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["labels"] == ["smooth"] and out["membership"]["in_M"] is True


def test_batch_summary_table(tmp_path, capsys):
    p = tmp_path / "pts.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in (SELF_INT, U_PAR_W, PSD, INDEF)) + "\n")
    assert main(["classify", str(p), "--no-evidence"]) == 0
    out = capsys.readouterr().out
    assert "4 point(s) at 50 digits" in out
    assert "not in M: 1" in out and "singular, boundary: 1" in out and "smooth: 1" in out
    zero = {"widths": [2, 2], "ranks": [1], "A": [[0, 0], [0, 0]], "V": [[0, 0], [0, 0]]}
    z = tmp_path / "zero.jsonl"
    z.write_text(json.dumps(zero) + "\n")
    assert main(["classify", str(z), "--no-evidence"]) == 0
    row = capsys.readouterr().out.splitlines()[2]
    # the zero point's ranks are exact zeros: margin inf, whole (was cut to "inf (exac")
    assert " inf " in row, row
    assert "(exac" not in row
    assert main(["classify", str(p), "--no-evidence", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["labels"] for x in lines] == [["singular"], ["singular", "boundary"], [], ["smooth"]]


def test_batch_with_a_bad_line_reports_it_and_fails(tmp_path, capsys):
    p = tmp_path / "pts.jsonl"
    p.write_text(json.dumps(SELF_INT) + "\n" + json.dumps({**U_PAR_W, "V": [[1, 2]]}) + "\n")
    assert main(["classify", str(p), "--no-evidence"]) == 2     # bad input, README
    out = capsys.readouterr().out
    assert "ERROR" in out and "pts.jsonl:2" in out and "singular" in out


def test_float64_path(tmp_path, capsys):
    assert main(["classify", write(tmp_path, "p.json", U_PAR_W), "--float64", "--json",
                 "--no-evidence"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["labels"] == ["undecided"] and out["digits"] is None


@pytest.mark.parametrize("obj, msg", [
    ({**U_PAR_W, "A": [[1, 2, "x"], [1, 2, 3], [1, 1, 1]]}, "is not a number"),
    ({**U_PAR_W, "tokens": 1}, "t = 1"),
    ({"widths": [3, 2, 2], "ranks": [1, 1], "A": [[1]]}, "single layer"),
    ({"widths": [3, 2], "ranks": [1]}, "exactly one of"),
    ({**PSD, "tensor": [[[[2, 4], [1, 2]], [[2, 2], [1, 2]]]]}, "not symmetric"),
    ({**PSD, "tensor": [[[[2, 4], [1, 2]]]]}, "length 2"),
    ({**U_PAR_W, "A": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "not a point of M"),
])
def test_bad_input_is_one_line_error(tmp_path, capsys, obj, msg):
    assert main(["classify", write(tmp_path, "bad.json", obj)]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and err.startswith("numag classify: error:")


def test_missing_and_malformed_files(tmp_path, capsys):
    assert main(["classify", str(tmp_path / "nope.json")]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["classify", str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_point_json_round_trip(tmp_path):
    for obj in (SELF_INT, U_PAR_W, PSD):
        pt = single_layer_point_from_json(obj)
        back = single_layer_point_from_json(single_layer_point_to_json(pt))
        assert isinstance(back, SingleLayerPoint) and back.kind == pt.kind
        assert all((back.arrays[k] == pt.arrays[k]).all() for k in pt.arrays)
    p = tmp_path / "two.json"
    p.write_text(json.dumps(PSD) + "\n" + json.dumps(INDEF))
    assert len(load_points(p)) == 2
