"""Sweep specs (JSON or TOML): explicit tasks and grids that expand to tasks.

    {"tasks": [{"task": "dim", "widths": [3, 2], "ranks": [1], "seed": 1}, ...],
     "grids": [{"task": "dim", "widths": [[3, 2], [4, 2]], "ranks": [[1], [2]],
                "seed": {"range": [0, 3]}, "method": "exact"}]}

A grid is the Cartesian product of its axes, in the order written (the last axis varies
fastest). In a grid every option other than "task" is
* a list: the axis of alternatives. An option that itself takes a list (widths, ranks) needs a
  list of lists, e.g. "widths": [[3, 2], [4, 2]];
* {"range": [start, stop]} or {"range": [start, stop, step]}: integers as Python's range;
* "cases": a list of objects, each a group of options taken together (e.g. widths with matching
  ranks for deep nets): one axis whose alternatives are merged into the task;
* anything else (a number, a string, true/false): a fixed value.
The same in TOML: [[tasks]] and [[grids]] tables, [[grids.cases]] for cases.
"""
from __future__ import annotations

import itertools
import json
import tomllib
from pathlib import Path
from typing import Any

from ..jobs import JOBS
from ..options import list_options
from .tasks import TaskSpec, normalize

TOP_KEYS = ("tasks", "grids")


def read_spec(path: str | Path) -> dict:
    """Read a JSON or TOML spec file ('.toml' is TOML, anything else JSON).

    Raises
    ------
    ValueError
        missing or unreadable file, malformed JSON/TOML, not an object.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such spec file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the spec ({exc})") from None
    try:
        obj = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise ValueError(f"{path}: a spec must be an object with \"tasks\" and/or \"grids\"")
    return obj


def expand(spec: dict, source: str = "spec") -> list[tuple[str, dict]]:
    """Explicit tasks then expanded grids, each with a name for error messages.

    Returns
    -------
    [(where, task dict)], e.g. ('spec.json: grids[0] point 4', {"task": "dim", ...}): JSON
    indices from 0 (as in every other message), points of a grid counted from 1.

    Raises
    ------
    ValueError
        unknown top-level key, no tasks at all, a malformed grid.
    """
    if unknown := sorted(set(spec) - set(TOP_KEYS)):
        raise ValueError(f"{source}: unknown key(s) {unknown} (a spec has \"tasks\" and/or "
                         f"\"grids\")")
    out: list[tuple[str, dict]] = []
    tasks = spec.get("tasks", [])
    if not isinstance(tasks, list):
        raise ValueError(f"{source}: \"tasks\" must be a list of task objects")
    out += [(f"{source}: tasks[{i}]", t) for i, t in enumerate(tasks)]   # JSON index, from 0
    grids = spec.get("grids", [])
    if not isinstance(grids, list):
        raise ValueError(f"{source}: \"grids\" must be a list of grid objects")
    for g, grid in enumerate(grids):
        where = f"{source}: grids[{g}]"
        out += [(f"{where} point {i}", t) for i, t in enumerate(expand_grid(grid, where), 1)]
    if not out:
        raise ValueError(f"{source}: the spec lists no tasks (give \"tasks\" or \"grids\")")
    return out


def expand_grid(grid: Any, where: str = "grid") -> list[dict]:
    """One grid object -> its task dicts (see the module docstring).

    Raises
    ------
    ValueError
        not an object, no task name, an empty axis, a malformed range or cases,
        a flat list for an option that takes a list.
    """
    if not isinstance(grid, dict):
        raise ValueError(f"{where}: a grid must be an object like "
                         f'{{"task": "dim", "widths": [[3, 2]], "ranks": [[1], [2]]}}')
    name = grid.get("task")
    if not isinstance(name, str):
        raise ValueError(f"{where}: a grid needs \"task\" (a single task name)")
    listy = _list_options(name)
    axes: list[list[dict]] = []
    for opt, value in grid.items():
        if opt == "task":
            continue
        if opt == "cases":
            if not isinstance(value, list) or not value or \
                    not all(isinstance(c, dict) for c in value):
                raise ValueError(f"{where}: \"cases\" must be a non-empty list of objects, "
                                 f"each a group of options")
            axes.append([dict(c) for c in value])
        elif isinstance(value, dict):
            axes.append([{opt: v} for v in _range(value, opt, where)])
        elif isinstance(value, list):
            if not value:
                raise ValueError(f"{where}: {opt!r} has no values")
            if opt in listy and not all(isinstance(v, list) for v in value):
                raise ValueError(f"{where}: {opt!r} takes a list per task, so its grid axis must "
                                 f"be a list of lists such as [[3, 2], [4, 2]]; got {value!r}")
            axes.append([{opt: v} for v in value])
        else:
            axes.append([{opt: value}])
    tasks = []
    for combo in itertools.product(*axes):
        task = {"task": name}
        for part in combo:
            task.update(part)
        tasks.append(task)
    return tasks


def _range(value: dict, opt: str, where: str) -> list[int]:
    args = value.get("range")
    if set(value) != {"range"} or not isinstance(args, list) or not 2 <= len(args) <= 3 or \
            not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        raise ValueError(f"{where}: {opt!r}: an object in a grid must be "
                         f"{{\"range\": [start, stop]}} or {{\"range\": [start, stop, step]}} "
                         f"with integers; got {value!r}")
    if args[-1] == 0 and len(args) == 3:
        raise ValueError(f"{where}: {opt!r}: range step must not be 0")
    values = list(range(*args))
    if not values:
        raise ValueError(f"{where}: {opt!r}: range {args} is empty")
    return values


def _list_options(task: str) -> set[str]:
    """Options of a job that take a list per task (such as widths)."""
    return set(list_options(JOBS[task].options)) if task in JOBS else set()


def load_tasks(path: str | Path) -> list[TaskSpec]:
    """Read a spec file and return its normalized tasks (duplicates kept, in order); relative
    input-file paths in tasks are resolved against the spec file's folder.

    Raises
    ------
    ValueError
        see read_spec, expand and tasks.normalize; messages name the file and the
        task or grid point.
    """
    base = Path(path).parent
    return [normalize(t, where, base) for where, t in expand(read_spec(path), str(path))]
