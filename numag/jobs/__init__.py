"""numag's jobs: the registry {name: Job(function, options)} that the CLI and the sweep share.

A job is a library function `function(options, progress=None) -> result`, where `options` is a
frozen dataclass of numag.options fields and `result` a frozen dataclass with `to_json()` (the
JSON that `numag NAME --json` prints and that a sweep stores). The command line parses its flags
into the options and renders the result; the sweep builds the options from a task's JSON keys
(numag.options.from_mapping) and stores result.to_json(). Adding a job is one module here and
one entry in JOBS (and a module in numag/commands/ for its command line).
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from .classify import ClassifyOptions, run_classify
from .degree import DegreeOptions, run_degree
from .dim import DimOptions, run_dim
from .fiber import FiberOptions, run_fiber


class Job(NamedTuple):
    """A registry entry: the library function and its options dataclass."""

    function: Callable[..., Any]
    options: type


JOBS: dict[str, Job] = {
    "dim": Job(run_dim, DimOptions),
    "fiber": Job(run_fiber, FiberOptions),
    "classify": Job(run_classify, ClassifyOptions),
    "degree": Job(run_degree, DegreeOptions),
}

__all__ = ["JOBS", "Job", "DimOptions", "FiberOptions", "ClassifyOptions", "DegreeOptions",
           "run_dim", "run_fiber", "run_classify", "run_degree"]
