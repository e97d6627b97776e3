"""Sweep tasks: what a task is, its canonical key, and how a worker runs it.

A task is a JSON object {"task": NAME, OPTION: VALUE, ...}. Two kinds of NAME:

* a numag job of the registry numag.jobs.JOBS ('dim', 'fiber', 'classify'): the options are the
  fields of the job's options dataclass, under the names of the command's flags
  (`numag dim --widths 3,2 --ranks 1 --seed 1` is
  {"task": "dim", "widths": [3, 2], "ranks": [1], "seed": 1}; 'no-evidence' = 'no_evidence';
  classify's positional FILE is "file"). The dataclass checks them (numag.options): an unknown
  key, a missing option or a bad value is a one-line error naming it. The result is the job's
  result.to_json(), the JSON `numag NAME --json` prints. A name in PLANNED (announced, not in
  this numag yet) is not an input error: the task is stored as failed with the reason, and runs
  once the job lands.
* 'package.module:function': a Python callable (studies' own tasks, tests), called as
  function(**options); it must return a JSON-serializable dict.

Input files (options declared with `file=True`: classify's "file", fiber's "weights"): a
relative path is resolved against `base` (the spec file's folder for `numag sweep SPEC`, the
current folder otherwise) and stored as an absolute path; the file must exist.

The key of a task is the SHA-256 of canonical JSON of (task, options with the job's defaults
filled in, numag.__version__, SHA-256 of every option that names an existing file), so the same
computation always finds its stored row, a new package version recomputes, and an edited input
file is a new task. The file hashes are stored with the inputs as NAME_sha256 (input.file_sha256
in an export), so rows of an edited file can be told apart.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import importlib
import json
import os
import re
import socket
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import options as opts
from ..io import strict_json
from ..jobs import JOBS

# Tasks announced for a later numag: {name: what it will be}. A task of this name is stored as
# failed ("not available in this numag") instead of being refused, so a spec written for the
# next version runs what it can now.
PLANNED: dict[str, str] = {}
_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class TaskStatus(enum.StrEnum):
    """State of a task in the store."""

    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"

    @property
    def finished(self) -> bool:
        return self is not TaskStatus.PENDING


def _version() -> str:
    from .. import __version__
    return __version__


@dataclass(frozen=True)
class TaskSpec:
    """One normalized task.

    Attributes
    ----------
    task
        a job name of numag.jobs.JOBS, or 'module:function'.
    options
        JSON-able dict of every option (the job's defaults filled in; as given for a
        callable or a planned task).
    version
        numag.__version__ the key was made with.
    key
        64 hex digits, the canonical hash (see module docstring).
    unavailable
        why the task cannot run in this numag (a PLANNED job), else None.
    files
        {option: SHA-256 of the file it names} (part of the key).
    """

    task: str
    options: dict = field(hash=False)
    version: str
    key: str
    unavailable: str | None = None
    files: dict = field(default_factory=dict, hash=False)

    @property
    def seed(self) -> int | None:
        seed = self.options.get("seed")
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None

    def payload(self) -> dict:
        """What a worker needs (small, picklable)."""
        return {"task": self.task, "options": self.options, "key": self.key,
                "version": self.version}

    def inputs(self) -> dict:
        """What the store keeps as the task's inputs: the options and NAME_sha256 per file."""
        return {**self.options, **{f"{k}_sha256": v for k, v in self.files.items()}}

    def to_json(self) -> dict:
        return {"task": self.task, **self.options}


@dataclass(frozen=True)
class Outcome:
    """What a worker sends back for one task.

    Attributes
    ----------
    status
        TaskStatus DONE or FAILED.
    result
        the job's JSON dict as canonical JSON text (None when failed, except a batch with
        bad lines: failed, the good lines' results kept).
    error
        one line 'ExceptionType: message' (None when done).
    traceback
        the full traceback text of a failure.
    seconds
        wall time of the task in the worker.
    worker
        'host:pid' of the process that ran it.
    """

    key: str
    status: TaskStatus
    result: str | None = None
    error: str | None = None
    traceback: str | None = None
    seconds: float = 0.0
    worker: str = ""

    def to_json(self) -> dict:
        return dict(self.__dict__)


class TaskUnavailable(RuntimeError):
    """A planned task whose job does not exist in this numag."""


# --- normalizing -----------------------------------------------------------------------------

def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def job_options(name: str, options: dict, base: Path, where: str) -> dict:
    """The options of job `name` checked by its dataclass, input files resolved against `base`,
    as sorted JSON values.

    Raises
    ------
    ValueError
        unknown or missing option, a bad value, an inconsistent architecture, a
        missing input file (named with `where`).
    """
    cls = JOBS[name].options
    try:
        values = dataclasses.asdict(opts.from_mapping(cls, options))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    for opt in opts.file_options(cls):
        value = values.get(opt)
        if not isinstance(value, str):
            continue
        path = os.path.abspath(base / Path(value).expanduser())
        if not os.path.isfile(path):
            raise ValueError(f"{where}: {opt} {value!r}: no such file {path} (relative paths "
                             f"are resolved against the spec's folder)")
        values[opt] = path
    return {k: _jsonable(v) for k, v in sorted(values.items())}


def _file_digests(options: dict) -> dict:
    """SHA-256 of every string option naming an existing file: its content is an input too."""
    out = {}
    for name, value in sorted(options.items()):
        if isinstance(value, str) and value and os.path.isfile(value):
            with open(value, "rb") as fh:
                out[name] = hashlib.file_digest(fh, "sha256").hexdigest()
    return out


def task_key(task: str, options: dict, version: str, files: dict | None = None) -> str:
    """Canonical SHA-256 of (task, options, version, file contents: `files` or computed)."""
    material = {"task": task, "options": options, "version": version,
                "files": _file_digests(options) if files is None else files}
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def normalize(entry: Any, where: str = "task", base: str | Path | None = None) -> TaskSpec:
    """Validate one task object and fill in its job's defaults.

    Parameters
    ----------
    entry
        {"task": NAME, OPTION: VALUE, ...} (a TaskSpec is returned as it is).
    where
        how error messages name this task, e.g. 'spec.json: task 3'.
    base
        folder that relative input-file paths are resolved against (default: the
        current folder).

    Returns
    -------
    TaskSpec with its canonical key.

    Raises
    ------
    ValueError
        not an object, no or unknown task name, unknown or missing option, a value
        the job's options reject (e.g. ranks not matching widths), a missing input file, an
        unimportable callable.
    """
    if isinstance(entry, TaskSpec):
        return entry
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: a task must be an object like "
                         f'{{"task": "dim", "widths": [3, 2], "ranks": [1]}}, got {entry!r}')
    name = entry.get("task")
    options = {k: v for k, v in entry.items() if k != "task"}
    version = _version()
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: missing \"task\" (one of {', '.join(JOBS)} or "
                         f"'module:function')")
    if name in JOBS:
        options = job_options(name, options, Path(base or os.curdir), f"{where} ({name})")
    elif name in PLANNED:
        options = {k: _jsonable(v) for k, v in sorted(options.items())}
        reason = (f"task {name!r} is not available in numag {version}: it is not in the job "
                  f"registry numag.jobs.JOBS yet ({PLANNED[name]})")
        return TaskSpec(name, options, version, task_key(name, options, version), reason)
    elif _CALLABLE.match(name):
        _resolve_callable(name, where)
        options = {k: _jsonable(v) for k, v in sorted(options.items())}
    else:
        raise ValueError(f"{where}: unknown task {name!r} (known: "
                         f"{', '.join(JOBS)}, or a Python callable 'module:function')")
    files = _file_digests(options)
    return TaskSpec(name, options, version, task_key(name, options, version, files), files=files)


def callable_task(fn: Callable[..., dict], **options: Any) -> dict:
    """The task dict {"task": "module:function", **options} that runs fn(**options).

    fn must be a module-level function importable by its module name in every worker process
    (local pool workers share this process's sys.path; Dask workers need the module installed).
    A function of a script run as __main__ is named by the script's file stem: its folder is
    sys.path[0], so workers import it under that name.

    Raises
    ------
    ValueError
        fn is not a module-level function, or comes from an interactive session.
    """
    name, module = getattr(fn, "__name__", None), getattr(fn, "__module__", None)
    if not name or not module or getattr(fn, "__qualname__", name) != name:
        raise ValueError(f"{fn!r} is not a module-level function: workers import tasks by name")
    if module == "__main__":
        path = getattr(sys.modules["__main__"], "__file__", None)
        if not path:
            raise ValueError(f"{name} is defined interactively: put it in a module")
        module = os.path.splitext(os.path.basename(path))[0]
    return {"task": f"{module}:{name}", **options}


def _resolve_callable(name: str, where: str = "task") -> Callable[..., dict]:
    modname, func = name.split(":")
    try:
        module = importlib.import_module(modname)
    except ImportError as exc:
        raise ValueError(f"{where}: cannot import {modname!r} for task {name!r} ({exc})") from None
    fn = getattr(module, func, None)
    if not callable(fn):
        raise ValueError(f"{where}: {modname!r} has no function {func!r}")
    return fn


# --- running (in a worker) -------------------------------------------------------------------

def run_task(task: str, options: dict) -> dict:
    """Compute one task in this process and return its result dict (strict JSON values).

    Raises
    ------
    whatever the task raises; TaskUnavailable for a planned job; TypeError when a callable
        returns something other than a dict.
    """
    if task in JOBS:
        job = JOBS[task]
        return strict_json(job.function(opts.from_mapping(job.options, options),
                                        progress=False).to_json())
    if task in PLANNED:
        raise TaskUnavailable(f"task {task!r} is not available in numag {_version()}: it is not "
                              f"in the job registry yet ({PLANNED[task]})")
    result = _resolve_callable(task)(**options)
    if not isinstance(result, dict):
        raise TypeError(f"task {task!r} returned {type(result).__name__}, expected a dict")
    return result


def _bad_lines(result: dict) -> str | None:
    """The error of a batch result with bad lines (a classify batch's "failed" count), else None.

    Such a task is stored 'failed' (as `numag classify` exits 2 on it) with the good lines'
    results kept: it was stored 'done' before, hiding the bad input."""
    n = result.get("failed") if isinstance(result.get("points"), list) else None
    if not n:
        return None
    first = next(p for p in result["points"] if p.get("error"))
    where, error = str(first.get("where")), str(first["error"])
    error = error if error.startswith(where) else f"{where}: {error}"   # not named twice
    return (f"BadInput: {n} of {len(result['points'])} batch lines are bad input (first: "
            f"{error}); the other lines' results are stored")


def execute(payload: dict) -> Outcome:
    """Worker entry point: run one task payload (TaskSpec.payload()) and never raise.

    A raising task becomes a 'failed' Outcome with its error and traceback, so the sweep goes
    on. Jobs run without progress bars; callables follow numag.progress (worker processes turn
    bars off, numag.progress.quiet_process).
    """
    start = time.perf_counter()
    where = f"{socket.gethostname()}:{os.getpid()}"
    try:
        if payload["version"] != _version():
            raise RuntimeError(f"this worker runs numag {_version()} but the task is keyed "
                               f"for numag {payload['version']}: install the same version")
        result = run_task(payload["task"], payload["options"])
        text = json.dumps(result, sort_keys=False, default=str, allow_nan=True)
        bad = _bad_lines(result)
        return Outcome(payload["key"], TaskStatus.FAILED if bad else TaskStatus.DONE,
                       result=text, error=bad, seconds=time.perf_counter() - start,
                       worker=where)
    except Exception as exc:
        message = " ".join(f"{type(exc).__name__}: {exc}".split())
        if "daemonic processes are not allowed" in message:
            message += (" (this Dask worker is a daemon process; start the workers with "
                        "DASK_DISTRIBUTED__WORKER__DAEMON=False)")
        return Outcome(payload["key"], TaskStatus.FAILED, error=message,
                       traceback=traceback.format_exc(),
                       seconds=time.perf_counter() - start, worker=where)
