"""Run a sweep: skip what the store has, execute the rest, store each outcome as it arrives.

Backends (no scheduler of our own: each backend's engine schedules; we only feed it and store):
* in this process (workers=0): for debugging and tiny sweeps;
* a local process pool (default): concurrent.futures.ProcessPoolExecutor, 'spawn' start
  method, workers ignore SIGINT so the driving process decides what an interrupt does;
* a Dask distributed cluster (scheduler = 'tcp://HOST:PORT', 'local' for a LocalCluster on
  loopback, or a distributed.Client): client.map + as_completed.

Faults:
* a task that raises -> stored 'failed' with its error (tasks.execute never raises); the rest go
  on; rerun with retry_failed=True to try it again.
* a worker process that dies mid-task -> Dask: the scheduler reruns the task on another worker,
  up to its `distributed.scheduler.allowed-failures` (default 3; Dask counts a death against
  every task the worker held), then it is stored failed with KilledWorker.
  Local pool: the pool breaks (every task in flight is lost), a fresh pool reruns those tasks one
  at a time, so a task that kills its worker while running alone is identified; it is stored
  failed after `allowed_failures` such deaths. Workers that cannot run anything -> PoolError.
* KeyboardInterrupt -> futures cancelled, worker processes ended, the store closed; finished
  rows are committed, unfinished ones stay 'pending' for the next run. The interrupt is re-raised.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence


from .. import progress as _progress
from .store import Store, TaskRecord
from .tasks import Outcome, TaskSpec, TaskStatus, execute, normalize

ALLOWED_FAILURES = 3

Emit = Callable[[Outcome], None]


def run_tasks(tasks: Sequence[dict | TaskSpec], store: str | Path, workers: int | None = None,
              scheduler: Any = None, progress: bool | None = None, retry_failed: bool = False,
              allowed_failures: int = ALLOWED_FAILURES) -> list[TaskRecord]:
    """Run tasks through the store: the Python API of `numag sweep` (used by the studies).

    Parameters
    ----------
    tasks
        task dicts such as {"task": "dim", "widths": [3, 2], "ranks": [1], "seed": 1}
        (see numag.sweep.tasks) or TaskSpecs (numag.sweep.load_tasks).
    store
        SQLite file; created if missing.
    workers
        local processes (default os.cpu_count(); 0 = in this process), or the number
        of workers of scheduler='local'. Ignored for a given Dask scheduler address/client.
    scheduler
        None (local pool), 'local' (a LocalCluster on 127.0.0.1, closed afterwards),
        a Dask scheduler address 'tcp://HOST:PORT', or a distributed.Client.
    progress
        tqdm bar on stderr; default only on a terminal.
    retry_failed
        rerun tasks stored as failed (default: keep their stored failure).
    allowed_failures
        local pool: deaths of a worker running the task alone before the task
        is stored failed. (Dask uses its own distributed.scheduler.allowed-failures.)

    Returns
    -------
    One TaskRecord per given task, in order (a duplicate task gets the same record);
        record.ran tells whether it was computed by this call; record.result is the job's
        result JSON (what `numag NAME --json` prints) when record.status is DONE.

    Raises
    ------
    ValueError
        a bad task (see tasks.normalize; named by its index), bad workers, an
        unusable store, dask missing or its scheduler unreachable.
    PoolError
        local worker processes cannot run any task (see run_pool).
    KeyboardInterrupt
        after leaving the store consistent (see module docstring).
    """
    specs = [normalize(t, f"task {i}") for i, t in enumerate(tasks, start=1)]
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 0):
        raise ValueError(f"workers must be a non-negative integer, got {workers!r}")
    if allowed_failures < 1:
        raise ValueError(f"allowed_failures must be at least 1, got {allowed_failures}")
    ran: set[str] = set()
    with Store(store) as db:
        db.add(specs)
        stored = db.get(s.key for s in specs)
        todo = _unique(s for s in specs if stored[s.key].status is TaskStatus.PENDING
                       or (retry_failed and stored[s.key].status is TaskStatus.FAILED))
        bar = _progress.bar(total=len(todo), progress=progress, desc="sweep", unit="task",
                            file=sys.stderr, dynamic_ncols=True)
        failed = 0

        def emit(outcome: Outcome) -> None:
            nonlocal failed
            db.record(outcome)
            ran.add(outcome.key)
            failed += outcome.status is TaskStatus.FAILED
            if failed:
                bar.set_postfix_str(f"{failed} failed", refresh=False)
            bar.update()

        try:
            for s in todo:
                if s.unavailable is not None:       # a planned job, not in this numag yet
                    emit(Outcome(s.key, TaskStatus.FAILED,
                                 error=f"TaskUnavailable: {s.unavailable}"))
            _dispatch([s for s in todo if s.unavailable is None], workers, scheduler, emit,
                      allowed_failures)
        finally:
            bar.close()
        final = db.get(s.key for s in specs)
    return [replace(final[s.key], ran=s.key in ran) for s in specs]


def _unique(specs: Iterable[TaskSpec]) -> list[TaskSpec]:
    return list({s.key: s for s in specs}.values())


def _dispatch(specs: list[TaskSpec], workers: int | None, scheduler: Any, emit: Emit,
              allowed_failures: int) -> None:
    if not specs:
        return
    payloads = [s.payload() for s in specs]
    if scheduler is not None:
        run_dask(payloads, scheduler, emit, workers)
    elif workers == 0:
        with _progress.quiet():             # the tasks' bars would garble the sweep's own
            for p in payloads:
                emit(execute(p))
    else:
        run_pool(payloads, workers or os.cpu_count() or 1, emit, allowed_failures)


# --- local process pool ----------------------------------------------------------------------

def _worker_init() -> None:
    # The driving process handles Ctrl-C (it ends the workers); a worker that also got SIGINT
    # from the terminal would die mid-task with noise. Its stderr is the driver's terminal:
    # no progress bars of the tasks there.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _progress.quiet_process()


class PoolError(RuntimeError):
    """The local worker processes cannot run even an empty task."""


def run_pool(payloads: list[dict], workers: int, emit: Emit,
             allowed_failures: int = ALLOWED_FAILURES) -> None:
    """Execute payloads on a ProcessPoolExecutor, emitting each Outcome as it completes.

    A broken pool (a worker died) loses the tasks in flight; they are rerun one at a time in a
    fresh pool ('suspects'), so a task that kills its worker alone is certainly the culprit.

    Raises
    ------
    PoolError
        a worker died running a task alone and a fresh worker cannot run even an
        empty call: the workers cannot work at all (e.g. a script without an
        `if __name__ == "__main__":` guard re-runs itself in every spawned worker).
    """
    queue = deque(payloads)
    suspects: deque[dict] = deque()
    deaths: dict[str, int] = {}
    pool_works = False
    while queue or suspects:
        lost, alone = _drive_pool(queue, suspects, workers, emit)
        if not lost:
            continue
        if not alone:
            suspects.extend(lost)
            continue
        (p,) = lost
        pool_works = pool_works or _pool_works()
        if not pool_works:
            raise PoolError("local worker processes die before running anything (a script "
                            "needs an `if __name__ == \"__main__\":` guard; see the workers' "
                            "errors above); unfinished tasks stay pending in the store")
        deaths[p["key"]] = deaths.get(p["key"], 0) + 1
        if deaths[p["key"]] >= allowed_failures:
            emit(Outcome(p["key"], TaskStatus.FAILED, error=(
                f"WorkerDied: the worker process died {deaths[p['key']]} times while "
                f"running this task alone (killed, out of memory or a crash)")))
        else:
            suspects.appendleft(p)


def _pool_works() -> bool:
    """Can a fresh worker process run an empty call? (Tells a task's fault from the pool's.)"""
    with ProcessPoolExecutor(max_workers=1, initializer=_worker_init,
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            pool.submit(os.getpid).result()
            return True
        except BrokenProcessPool:
            return False


def _drive_pool(queue: deque, suspects: deque, workers: int,
                emit: Emit) -> tuple[list[dict], bool]:
    """One pool's life: the suspects one at a time if there are any, else the queue.

    Returns (payloads lost when the pool broke, whether they ran alone). The suspects get a
    pool of their own: ProcessPoolExecutor grows its processes only while none is idle, so a
    pool that ran tasks one by one would stay small for the rest.
    """
    alone = bool(suspects)
    source, window = (suspects, 1) if alone else (queue, 2 * workers)   # 2x: workers stay busy
    pool = ProcessPoolExecutor(max_workers=1 if alone else workers, initializer=_worker_init,
                               mp_context=multiprocessing.get_context("spawn"))
    inflight: dict = {}
    try:
        while True:
            while source and len(inflight) < window:
                p = source.popleft()
                inflight[pool.submit(execute, p)] = p
            if not inflight:
                return [], alone
            done, _ = wait(inflight, return_when=FIRST_COMPLETED)
            lost = []
            for fut in done:
                p = inflight.pop(fut)
                try:
                    outcome = fut.result()
                except BrokenProcessPool:
                    lost.append(p)
                    continue
                emit(outcome)
            if lost:
                lost += inflight.values()       # the whole pool is gone
                return lost, alone
    except BaseException:       # KeyboardInterrupt above all: do not wait for running tasks
        _end_pool(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _end_pool(pool: ProcessPoolExecutor) -> None:
    """Kill the worker processes now (running tasks included), so an interrupt is prompt."""
    terminate = getattr(pool, "terminate_workers", None)       # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()


# --- Dask ------------------------------------------------------------------------------------

@contextlib.contextmanager
def dask_client(scheduler: Any, workers: int | None = None) -> Iterator:
    """A distributed.Client for `scheduler`, closing on exit only what it opened.

    Parameters
    ----------
    scheduler
        a distributed.Client (used as it is), 'local' (a LocalCluster of `workers`
        processes, one thread each, on 127.0.0.1) or an address 'tcp://HOST:PORT'.

    Raises
    ------
    ValueError
        dask.distributed not installed, a malformed or unreachable address.
    """
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("a Dask scheduler needs dask.distributed: "
                         "pip install 'numag[dask]'") from None
    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler == "local":
        # Non-daemonic workers may start child processes (witness.phc runs PHCpack in one);
        # nannies read this whenever they (re)start a worker, so it holds for the whole sweep.
        # The statistical profiler samples the task thread every 10 ms: pure overhead here.
        with dask.config.set({"distributed.worker.daemon": False,
                              "distributed.worker.profile.enabled": False}), \
                LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                             processes=True, host="127.0.0.1",
                             dashboard_address="127.0.0.1:0") as cluster, \
                Client(cluster) as client:           # dashboard on any free port: no clash
            yield client
        return
    if not isinstance(scheduler, str) or not scheduler:
        raise ValueError(f"scheduler must be 'local', an address such as tcp://127.0.0.1:8786 "
                         f"or a distributed.Client, got {scheduler!r}")
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None
    with client:
        yield client


def execute_quietly(payload: dict) -> Outcome:
    """tasks.execute in a Dask worker: its process belongs to the sweep, bars off."""
    _progress.quiet_process()
    return execute(payload)


def run_dask(payloads: list[dict], scheduler: Any, emit: Emit, workers: int | None = None) -> None:
    """Execute payloads on a Dask cluster, emitting each Outcome as it completes.

    The scheduler balances the tasks and reruns a task whose worker died (allowed-failures);
    a task it gives up on (KilledWorker) or cannot run is emitted as failed.
    """
    from distributed import as_completed

    with dask_client(scheduler, workers) as client:
        futures = []
        try:
            keys = [f"numag-sweep-{p['task']}-{p['key'][:16]}-{os.urandom(4).hex()}"
                    for p in payloads]
            futures = client.map(execute_quietly, payloads, key=keys, pure=False)
            by_key = {f.key: p for f, p in zip(futures, payloads)}
            # with_results: results are gathered in the background, not one round trip each
            for fut, value in as_completed(futures, with_results=True, raise_errors=False):
                p = by_key[fut.key]
                if not isinstance(value, Outcome):   # KilledWorker, lost connection, cancelled
                    exc = value if isinstance(value, BaseException) else RuntimeError(repr(value))
                    value = Outcome(p["key"], TaskStatus.FAILED,
                                    error=" ".join(f"{type(exc).__name__}: {exc}".split()))
                emit(value)
                fut.release()
        except BaseException:
            if futures:
                try:
                    client.cancel(futures)
                except Exception:       # the client may be the thing that broke
                    pass
            raise
