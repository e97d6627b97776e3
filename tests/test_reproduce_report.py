"""out/REPORT.md covers every study whose out/NAME.json exists, not only the studies just run."""
import json
import re

from numag.reproduce import STUDIES, reproduce, write_report

# the two cheapest studies (a few seconds each in quick mode)
FIRST, SECOND = "single_layer_dimension", "deep_dimension"


def test_report_collects_studies_run_separately(tmp_path):
    one = reproduce(tmp_path, quick=True, only=[FIRST], log=lambda s: None).to_json()
    assert list(one["studies"]) == [FIRST]
    n_first = len(one["studies"][FIRST]["claims"])
    data = reproduce(tmp_path, quick=True, only=[SECOND], log=lambda s: None).to_json()

    text = (tmp_path / "REPORT.md").read_text()
    # both studies, in STUDIES order (FIRST comes before SECOND there), each with its mode
    assert STUDIES.index(FIRST) < STUDIES.index(SECOND)
    assert list(data["studies"]) == [FIRST, SECOND]
    assert text.index(f"## {FIRST}") < text.index(f"## {SECOND}")
    assert f"[{FIRST}]({FIRST}.md)" in text and f"[{SECOND}]({SECOND}.md)" in text
    assert "2 studies, mode quick;" in text
    assert f"This run: 1 study ({SECOND}), quick" in text and "earlier runs" in text
    row = {n: next(x for x in text.splitlines() if x.startswith(f"| [{n}]"))
           for n in (FIRST, SECOND)}
    assert "| quick |" in row[FIRST] and "| earlier |" in row[FIRST]
    assert "| quick |" in row[SECOND] and "| this run |" in row[SECOND]
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC")
    assert stamp.search(row[FIRST]) and stamp.search(row[SECOND])
    assert "Quick mode, computed" in text and "(an earlier run)" in text

    # the counts are over both studies: 3 claims of FIRST and 9 of SECOND (all ✓ since the
    # rank-1 theorem replaced the caveat, paper-notes §3.1)
    info = data["studies"]
    assert info[FIRST]["this_run"] is False and info[SECOND]["this_run"] is True
    assert info[FIRST]["quick"] is info[SECOND]["quick"] is True
    assert sum(data["counts"].values()) == n_first + len(info[SECOND]["claims"])
    assert data["counts"]["✗"] == 0
    assert f"claims ✓ {data['counts']['✓']}, ✗ 0, ? {data['counts']['?']}" in text
    assert json.loads((tmp_path / "REPORT.json").read_text())["counts"] == data["counts"]


def test_report_marks_mixed_modes_and_skips_unreadable_documents(tmp_path):
    """Documents as left by earlier runs (written by hand here, no computation): a full one,
    a quick one, and a NAME.json that is not a study document."""
    def doc(name, quick, mark):
        return {"study": name, "quick": quick, "seed": 0, "seconds": 1.0, "items_computed": 1,
                "items_reused": 0, "figures": [], "versions": {"numag": "0.1.0"},
                "claims": [{"text": f"claim of {name}", "source": "test", "evidence": "none",
                            "holds": mark == "✓", "mark": mark}]}
    (tmp_path / f"{SECOND}.json").write_text(json.dumps(doc(SECOND, True, "✓")))
    (tmp_path / f"{FIRST}.json").write_text(json.dumps(doc(FIRST, False, "✗")))
    (tmp_path / "fibers.json").write_text("{not json")
    (tmp_path / "unrelated.json").write_text("{}")          # not a study name: ignored
    data = write_report(tmp_path, {}, True, 0.0).to_json()
    text = (tmp_path / "REPORT.md").read_text()
    assert list(data["studies"]) == [FIRST, SECOND]
    assert data["studies"][FIRST]["quick"] is False and data["studies"][SECOND]["quick"] is True
    assert "mode full and quick (mixed: see each study)" in text
    assert "Full mode, computed" in text and "Quick mode, computed" in text
    assert data["counts"] == {"✓": 1, "✗": 1, "?": 0}
    assert "fibers" in data["unreadable"] and "fibers.json unreadable" in text
    assert "unrelated" not in text
