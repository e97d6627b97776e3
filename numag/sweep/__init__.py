"""Sweeps of many numag tasks: a resumable SQLite result store, a local pool or Dask.

    from numag.sweep import run_tasks
    records = run_tasks([{"task": "dim", "widths": [3, 2], "ranks": [1], "seed": s}
                         for s in range(3)], "dims.sqlite", workers=2)
    [r.result["dimension"] for r in records if r.status == "done"]
    run_tasks([callable_task(my_item, d=3, seed=0)], "study.sqlite")   # my_item(**opts) -> dict

A task names a job of numag.jobs.JOBS (its keys are the job's option fields, its result the
job result's to_json()) or a module-level function. Modules: spec (JSON/TOML specs and grids),
tasks (validation against the registry, keys, worker entry point),
store (SQLite), execute (run_tasks and the backends), export (CSV/JSON rows),
testing (tasks used by the fault tests).
"""
from .execute import PoolError, dask_client, run_tasks
from .export import export_rows, render
from .spec import expand, expand_grid, load_tasks, read_spec
from .store import Store, TaskRecord
from .tasks import Outcome, TaskSpec, TaskStatus, callable_task, normalize, run_task

__all__ = ["run_tasks", "dask_client", "PoolError", "load_tasks", "read_spec", "expand",
           "expand_grid", "normalize", "run_task", "callable_task", "TaskSpec", "TaskStatus",
           "TaskRecord", "Outcome", "Store", "export_rows", "render"]
