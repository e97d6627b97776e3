"""Sweep specs, grids, task normalization and keys: fast, no worker processes."""
import json

import pytest

import numag
from numag.sweep import expand, expand_grid, load_tasks, normalize, read_spec
from numag.sweep import tasks as tasks_mod


def test_grid_is_cartesian_product_in_written_order():
    grid = {"task": "dim", "widths": [[3, 2], [4, 2]], "ranks": [[1], [2]],
            "seed": {"range": [0, 3]}, "method": "exact"}
    out = expand_grid(grid)
    assert len(out) == 2 * 2 * 3
    assert out[0] == {"task": "dim", "widths": [3, 2], "ranks": [1], "seed": 0, "method": "exact"}
    assert out[1]["seed"] == 1 and out[3]["ranks"] == [2] and out[6]["widths"] == [4, 2]
    assert len({json.dumps(t, sort_keys=True) for t in out}) == 12


def test_grid_cases_pair_options():
    grid = {"task": "dim", "cases": [{"widths": [3, 3, 3], "ranks": [2, 2]},
                                     {"widths": [2, 2], "ranks": [1], "softmax": True}],
            "seed": [0, 1]}
    out = expand_grid(grid)
    assert [(t["widths"], t["ranks"], t["seed"]) for t in out] == [
        ([3, 3, 3], [2, 2], 0), ([3, 3, 3], [2, 2], 1), ([2, 2], [1], 0), ([2, 2], [1], 1)]
    assert out[2]["softmax"] is True and "softmax" not in out[0]


@pytest.mark.parametrize("grid, needle", [
    ({"task": "dim", "widths": [3, 2], "ranks": [[1]]}, "list of lists"),
    ({"task": "dim", "widths": [[3, 2]], "ranks": []}, "'ranks' has no values"),
    ({"task": "dim", "widths": [[3, 2]], "ranks": [[1]], "seed": {"range": [3]}}, "range"),
    ({"task": "dim", "widths": [[3, 2]], "ranks": [[1]], "seed": {"from": 1}}, "range"),
    ({"task": "dim", "widths": [[3, 2]], "ranks": [[1]], "seed": {"range": [5, 2]}}, "empty"),
    ({"task": "dim", "cases": [1, 2]}, "cases"),
    ({"widths": [[3, 2]], "ranks": [[1]]}, "needs \"task\""),
    ([1, 2], "must be an object"),
])
def test_malformed_grid_is_a_clear_value_error(grid, needle):
    with pytest.raises(ValueError, match="grid") as info:
        expand_grid(grid, "my grid")
    assert needle in str(info.value)


@pytest.mark.parametrize("entry, needle", [
    ({"task": "dimension", "widths": [3, 2], "ranks": [1]}, "unknown task 'dimension'"),
    ({"widths": [3, 2], "ranks": [1]}, "missing \"task\""),
    ({"task": "dim", "ranks": [1]}, "missing option(s) 'widths'"),
    ({"task": "dim", "widths": [3, 2]}, "needs option 'ranks'"),   # optional for arch pnn
    ({"task": "dim", "widths": [3, 2], "ranks": [1], "widht": 3}, "unknown option 'widht'"),
    ({"task": "dim", "widths": [3, 2], "ranks": [1, 1]}, "ranks"),
    ({"task": "dim", "widths": [3, 0], "ranks": [1]}, "positive"),
    ({"task": "dim", "widths": [3, "x"], "ranks": [1]}, "integers"),
    ({"task": "dim", "widths": [3, 2], "ranks": [1], "method": "magic"}, "invalid choice"),
    ({"task": "dim", "widths": [3, 2], "ranks": [1], "softmax": "yes"}, "flag"),
    ({"task": "dim", "widths": [3, 2], "ranks": [1], "json": True}, "unknown option 'json'"),
    ({"task": "numag.nosuchmodule:f"}, "cannot import"),
    ({"task": "numag.sweep.testing:nosuchfunction"}, "no function"),
    ("dim 3,2 1", "must be an object"),
])
def test_bad_task_is_a_value_error_naming_the_problem(entry, needle):
    with pytest.raises(ValueError) as info:
        normalize(entry, "spec.json: tasks[4]")
    assert "spec.json: tasks[4]" in str(info.value) and needle in str(info.value)


def test_dim_options_are_the_commands_with_its_defaults():
    spec = normalize({"task": "dim", "widths": [3, 2], "ranks": [1]})
    assert spec.options == {"widths": [3, 2], "ranks": [1], "tokens": 2, "softmax": False,
                            "method": None, "seed": 0, "trials": None, "inputs": None,
                            "digits": 50, "arch": "attention", "heads": None,
                            "activation_degree": None, "bias": False}
    assert spec.seed == 0 and spec.version == numag.__version__ and spec.unavailable is None


def test_key_is_canonical():
    a = normalize({"task": "dim", "widths": [3, 2], "ranks": [1]})
    b = normalize({"ranks": [1], "seed": 0, "task": "dim", "widths": "3,2", "tokens": 2})
    c = normalize({"task": "dim", "widths": [3, 2], "ranks": [1], "seed": 1})
    d = normalize({"task": "dim", "widths": [3, 2], "ranks": [1], "softmax": True})
    assert a.key == b.key
    assert len({a.key, c.key, d.key}) == 3 and len(a.key) == 64


def test_key_includes_package_version(monkeypatch):
    before = normalize({"task": "dim", "widths": [3, 2], "ranks": [1]})
    monkeypatch.setattr(numag, "__version__", "999.0")
    after = normalize({"task": "dim", "widths": [3, 2], "ranks": [1]})
    assert after.version == "999.0" and after.key != before.key


def test_key_includes_contents_of_input_files(tmp_path):
    f = tmp_path / "w.json"
    f.write_text("1")
    task = {"task": "numag.sweep.testing:count", "marker_dir": str(f), "value": 1}
    k1 = normalize(task).key
    f.write_text("2")
    assert normalize(task).key != k1


def test_unavailable_command_is_not_an_input_error(monkeypatch):
    monkeypatch.setitem(tasks_mod.PLANNED, "nosuch", "numag nosuch (issue 99)")
    spec = normalize({"task": "nosuch", "widths": [2, 2]})
    assert "not in the job registry numag.jobs.JOBS yet" in spec.unavailable
    assert "issue 99" in spec.unavailable


def test_json_and_toml_specs_give_the_same_tasks(tmp_path):
    js = tmp_path / "s.json"
    js.write_text(json.dumps({
        "tasks": [{"task": "dim", "widths": [3, 2], "ranks": [1], "seed": 1}],
        "grids": [{"task": "dim", "widths": [[4, 4], [5, 3]], "ranks": [[1], [2]],
                   "seed": {"range": [0, 2]}},
                  {"task": "dim", "cases": [{"widths": [3, 3, 3], "ranks": [2, 2]}]}]}))
    tm = tmp_path / "s.toml"
    tm.write_text("""
[[tasks]]
task = "dim"
widths = [3, 2]
ranks = [1]
seed = 1

[[grids]]
task = "dim"
widths = [[4, 4], [5, 3]]
ranks = [[1], [2]]
seed = {range = [0, 2]}

[[grids]]
task = "dim"
[[grids.cases]]
widths = [3, 3, 3]
ranks = [2, 2]
""")
    a, b = load_tasks(js), load_tasks(tm)
    assert len(a) == 1 + 8 + 1
    assert [s.key for s in a] == [s.key for s in b]


@pytest.mark.parametrize("name, text, needle", [
    ("s.json", "{\"tasks\": [", "not valid JSON"),
    ("s.toml", "tasks = [", "not valid TOML"),
    ("s.json", "[1, 2]", "must be an object"),
    ("s.json", "{}", "lists no tasks"),
    ("s.json", "{\"task\": []}", "unknown key"),
    ("s.json", "{\"tasks\": {\"task\": \"dim\"}}", "must be a list"),
])
def test_unreadable_spec_is_a_value_error(tmp_path, name, text, needle):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        load_tasks(path)
    assert str(path) in str(info.value) and needle in str(info.value)


def test_missing_spec_file(tmp_path):
    with pytest.raises(ValueError, match="no such spec file"):
        read_spec(tmp_path / "nope.json")


def test_errors_name_the_grid_point(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"grids": [{"task": "dim", "widths": [[3, 2], [3, 3, 3]],
                                           "ranks": [[1]]}]}))
    with pytest.raises(ValueError, match=r"grids\[0\] point 2 \(dim\)"):
        load_tasks(path)
    assert len(expand(read_spec(path), "x")) == 2
