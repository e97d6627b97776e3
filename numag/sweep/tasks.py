"""The task registry: what a sweep task is, its canonical key, and how a worker runs it.

A task is a JSON object {"task": NAME, OPTION: VALUE, ...}. Two kinds of NAME:

* a numag command: 'dim', 'fiber' or 'classify'. The options are that command's options under
  their argparse names (`numag dim --widths 3,2 --ranks 1 --seed 1` is
  {"task": "dim", "widths": [3, 2], "ranks": [1], "seed": 1}; 'no-evidence' = 'no_evidence';
  a positional argument by its name, e.g. classify's "file"). They are parsed by the command's
  own `add_arguments` parser, so names, defaults, choices and errors are the command's. The
  result is the dict that `numag NAME --json` prints, found at run time by name in
  `numag.commands.NAME`:
    1. `json_result(args: argparse.Namespace) -> dict` if the module defines it (the hook), else
    2. `run(args)` with `args.json = True`, its stdout parsed as one JSON object.
  A command whose module is missing from this numag is not an input
  error: the task is stored as failed with that reason, and runs once the module lands.
* 'package.module:function': a Python callable (studies' own tasks, tests), called as
  function(**options); it must return a JSON-serializable dict.

Input files (classify's "file", fiber's "weights"): a relative path is resolved against `base`
(the spec file's folder for `numag sweep SPEC`, the current folder otherwise) and stored as an
absolute path; the file must exist.

The key of a task is the SHA-256 of canonical JSON of (task, options with the command's defaults
filled in, numag.__version__, SHA-256 of every option that names an existing file), so the same
computation always finds its stored row, a new package version recomputes, and an edited input
file is a new task. The file hashes are stored with the inputs as NAME_sha256 (input.file_sha256
in an export), so rows of an edited file can be told apart.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import importlib
import io
import json
import os
import re
import socket
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

COMMAND_TASKS = {"dim": "numag dim", "fiber": "numag fiber",
                 "classify": "numag classify"}
FILE_OPTIONS = {"classify": ("file",), "fiber": ("weights",)}    # paths of input files
_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
_RESERVED = {"json", "command", "run"}     # set by the sweep itself, not by a task
# Tasks swap sys.stdout/sys.stderr (process-wide) while they run, so tasks sharing a process
# (Dask worker threads) take turns; numag's numerics hold the GIL, so little is lost.
_TASK_LOCK = threading.Lock()


def _version() -> str:
    from .. import __version__
    return __version__


@dataclass(frozen=True)
class TaskSpec:
    """One normalized task.

    Attributes:
        task: 'dim' | 'fiber' | 'classify' | 'module:function'.
        options: JSON-able dict of every option (command defaults filled in when the command
            exists; as given otherwise).
        version: numag.__version__ the key was made with.
        key: 64 hex digits, the canonical hash (see module docstring).
        unavailable: why the task cannot run in this numag (missing command module), else None.
        files: {option: SHA-256 of the file it names} (part of the key).
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

    Attributes:
        status: 'done' or 'failed'.
        result: the command's JSON dict as canonical JSON text (None when failed).
        error: one line 'ExceptionType: message' (None when done).
        traceback: the full traceback text of a failure.
        seconds: wall time of the task in the worker.
        worker: 'host:pid' of the process that ran it.
    """

    key: str
    status: str
    result: str | None = None
    error: str | None = None
    traceback: str | None = None
    seconds: float = 0.0
    worker: str = ""

    def to_json(self) -> dict:
        return dict(self.__dict__)


class TaskUnavailable(RuntimeError):
    """A known task whose command module does not exist in this numag."""


# --- parsing ---------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    """argparse that raises ValueError instead of printing and exiting."""

    def error(self, message: str):
        raise ValueError(message)


def command_module(name: str) -> ModuleType | None:
    """numag.commands.NAME, or None when it does not exist (not yet written)."""
    modname = f"numag.commands.{name}"
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as exc:
        if exc.name == modname:
            return None
        raise


@functools.lru_cache(maxsize=None)
def _command_parser(module: ModuleType) -> _Parser:
    # Built once per command: building it costs more than parsing (thousands of tasks).
    parser = _Parser(prog=f"numag {module.NAME}", add_help=False)
    module.add_arguments(parser)
    return parser


def _argv(parser: argparse.ArgumentParser, options: dict, where: str) -> list[str]:
    """Task options (JSON values) -> the command line the command's parser understands."""
    actions = {a.dest: a for a in parser._actions if a.dest not in ("help", *_RESERVED)}
    argv, positional = [], []
    for name, value in options.items():
        if name not in actions:
            raise ValueError(f"{where}: unknown option {name!r} (options: "
                             f"{', '.join(sorted(actions))})")
        action = actions[name]
        if value is None:
            continue
        if isinstance(value, dict):
            raise ValueError(f"{where}: option {name!r} must be a number, string or list, "
                             f"got an object")
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            if not isinstance(value, bool):
                raise ValueError(f"{where}: option {name!r} is a flag: true or false, "
                                 f"got {value!r}")
            if value != action.default:
                argv.append(action.option_strings[-1])
            continue
        if isinstance(value, bool):
            raise ValueError(f"{where}: option {name!r} takes a value, got {value!r}")
        if action.nargs in ("+", "*") or isinstance(action.nargs, int):
            items = [str(v) for v in (value if isinstance(value, list) else [value])]
        else:
            items = [",".join(map(str, value)) if isinstance(value, list) else str(value)]
        if not action.option_strings:
            positional += items
        elif action.nargs in ("+", "*") or isinstance(action.nargs, int):
            argv += [action.option_strings[-1], *items]
        else:
            # '--opt=VALUE' keeps values such as '-1' from being read as options.
            argv.append(f"{action.option_strings[-1]}={items[0]}")
    return argv + (["--", *positional] if positional else [])


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _parse_command_options(name: str, module: ModuleType, options: dict,
                           where: str) -> dict:
    parser = _command_parser(module)
    options = {k.replace("-", "_"): v for k, v in options.items()}   # 'min-margin' as on the CLI
    missing = [a.dest for a in parser._actions if a.required and options.get(a.dest) is None]
    if missing:
        raise ValueError(f"{where}: missing option(s) {', '.join(map(repr, missing))} "
                         f"for task {name!r}")
    argv = _argv(parser, options, where)
    try:
        args = parser.parse_args(argv)
        if getattr(args, "widths", None) is not None:
            # Architecture errors (ranks vs widths, sizes) are input errors: report them now,
            # not as a failed row after the run.
            from ..commands.common import architecture_from
            architecture_from(args)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return {k: _jsonable(v) for k, v in sorted(vars(args).items()) if k not in _RESERVED}


def _file_digests(options: dict) -> dict:
    """SHA-256 of every string option naming an existing file: its content is an input too."""
    out = {}
    for name, value in sorted(options.items()):
        if isinstance(value, str) and value and os.path.isfile(value):
            with open(value, "rb") as fh:
                out[name] = hashlib.file_digest(fh, "sha256").hexdigest()
    return out


def _resolve_files(name: str, options: dict, base: Path, where: str) -> dict:
    """Input-file options of a command task as absolute paths, relative ones taken from `base`.

    Raises:
        ValueError: a named file does not exist (the message shows where it was looked for).
    """
    out = dict(options)
    for opt in FILE_OPTIONS.get(name, ()):
        value = out.get(opt)
        if not isinstance(value, str):
            continue
        path = os.path.abspath(base / Path(value).expanduser())
        if not os.path.isfile(path):
            raise ValueError(f"{where}: {opt} {value!r}: no such file {path} (relative paths "
                             f"are resolved against the spec's folder)")
        out[opt] = path
    return out


def task_key(task: str, options: dict, version: str, files: dict | None = None) -> str:
    """Canonical SHA-256 of (task, options, version, file contents: `files` or computed)."""
    material = {"task": task, "options": options, "version": version,
                "files": _file_digests(options) if files is None else files}
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def normalize(entry: Any, where: str = "task", base: str | Path | None = None) -> TaskSpec:
    """Validate one task object and fill in its command's defaults.

    Args:
        entry: {"task": NAME, OPTION: VALUE, ...} (a TaskSpec is returned as it is).
        where: how error messages name this task, e.g. 'spec.json: task 3'.
        base: folder that relative input-file paths are resolved against (default: the
            current folder).
    Returns:
        TaskSpec with its canonical key.
    Raises:
        ValueError: not an object, no or unknown task name, unknown or missing option, a value
            the command rejects (e.g. ranks not matching widths), a missing input file, an
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
        raise ValueError(f"{where}: missing \"task\" (one of {', '.join(COMMAND_TASKS)} or "
                         f"'module:function')")
    if bad := sorted(set(options) & _RESERVED):
        raise ValueError(f"{where}: option(s) {bad} are set by the sweep, not by a task")
    if name in COMMAND_TASKS:
        where = f"{where} ({name})"
        module = command_module(name)
        if module is None:
            options = {k: _jsonable(v) for k, v in sorted(options.items())}
            reason = (f"task {name!r} is not available in numag {version}: module "
                      f"numag.commands.{name} does not exist yet ({COMMAND_TASKS[name]})")
            return TaskSpec(name, options, version, task_key(name, options, version), reason)
        options = _parse_command_options(name, module, options, where)
        options = _resolve_files(name, options, Path(base or os.curdir), where)
    elif _CALLABLE.match(name):
        _resolve_callable(name, where)
        options = {k: _jsonable(v) for k, v in sorted(options.items())}
    else:
        raise ValueError(f"{where}: unknown task {name!r} (known: "
                         f"{', '.join(COMMAND_TASKS)}, or a Python callable 'module:function')")
    files = _file_digests(options)
    return TaskSpec(name, options, version, task_key(name, options, version, files), files=files)


def callable_task(fn: Callable[..., dict], **options: Any) -> dict:
    """The task dict {"task": "module:function", **options} that runs fn(**options).

    fn must be a module-level function importable by its module name in every worker process
    (local pool workers share this process's sys.path; Dask workers need the module installed).
    A function of a script run as __main__ is named by the script's file stem: its folder is
    sys.path[0], so workers import it under that name.
    Raises:
        ValueError: fn is not a module-level function, or comes from an interactive session.
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

def _run_command(name: str, options: dict) -> dict:
    module = command_module(name)
    if module is None:
        raise TaskUnavailable(f"task {name!r} is not available in numag {_version()}: module "
                              f"numag.commands.{name} does not exist ({COMMAND_TASKS[name]})")
    args = argparse.Namespace(**options, json=True, command=name)
    hook = getattr(module, "json_result", None)
    if hook is not None:
        result = hook(args)
    else:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = module.run(args)
        if code:
            raise RuntimeError(f"numag {name} exited with code {code}")
        try:
            result = json.loads(out.getvalue())
        except json.JSONDecodeError as exc:
            raise RuntimeError(f"numag {name} --json printed no single JSON object ({exc}); "
                               f"output starts {out.getvalue()[:120]!r}") from None
    if not isinstance(result, dict):
        raise TypeError(f"numag {name} gave {type(result).__name__}, expected a JSON object")
    return result


def run_task(task: str, options: dict) -> dict:
    """Compute one task in this process and return its result dict.

    Raises:
        whatever the task raises; TaskUnavailable for a command module that does not exist;
        TypeError when a callable returns something other than a dict.
    """
    if task in COMMAND_TASKS:
        return _run_command(task, options)
    result = _resolve_callable(task)(**options)
    if not isinstance(result, dict):
        raise TypeError(f"task {task!r} returned {type(result).__name__}, expected a dict")
    return result


def execute(payload: dict) -> Outcome:
    """Worker entry point: run one task payload (TaskSpec.payload()) and never raise.

    A raising task becomes a 'failed' Outcome with its error, so the sweep goes on. The task's
    own stdout/stderr (progress bars of inner computations) are captured and dropped; the tail
    of stderr is kept with a failure.
    """
    start = time.perf_counter()
    where = f"{socket.gethostname()}:{os.getpid()}"
    err = io.StringIO()
    with _TASK_LOCK:
        try:
            if payload["version"] != _version():
                raise RuntimeError(f"this worker runs numag {_version()} but the task is keyed "
                                   f"for numag {payload['version']}: install the same version")
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                result = run_task(payload["task"], payload["options"])
            text = json.dumps(result, sort_keys=False, default=str, allow_nan=True)
            return Outcome(payload["key"], "done", result=text,
                           seconds=time.perf_counter() - start, worker=where)
        except Exception as exc:
            tb = traceback.format_exc()
            tail = err.getvalue().strip()[-2000:]
            message = " ".join(f"{type(exc).__name__}: {exc}".split())
            if "daemonic processes are not allowed" in message:
                message += (" (this Dask worker is a daemon process; start the workers with "
                            "DASK_DISTRIBUTED__WORKER__DAEMON=False)")
            return Outcome(payload["key"], "failed", error=message,
                           traceback=tb + (f"\n--- stderr ---\n{tail}" if tail else ""),
                           seconds=time.perf_counter() - start, worker=where)
