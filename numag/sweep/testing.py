"""Test-only tasks for fault and resume tests (run as 'numag.sweep.testing:NAME').

They live in the package (not under tests/) so that every worker process, local or Dask, can
import them by name. Each leaves a marker file per execution so tests can count executions
independently of the store.
"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path


def _mark(marker_dir: str, tag: str) -> None:
    Path(marker_dir, f"{tag}.{os.getpid()}.{uuid.uuid4().hex[:8]}").touch()


def count(marker_dir: str, value: int, sleep: float = 0.0) -> dict:
    """Sleep, leave a marker 'count-VALUE.*', return {'value': value, 'square': value**2}."""
    time.sleep(sleep)
    _mark(marker_dir, f"count-{value}")
    return {"value": value, "square": value * value, "pid": os.getpid()}


def fail(marker_dir: str, message: str = "boom") -> dict:
    """Leave a marker 'fail.*' and raise ValueError(message)."""
    _mark(marker_dir, "fail")
    raise ValueError(message)


def kill_once(marker_dir: str, value: int = 0, sleep: float = 0.0) -> dict:
    """The first execution (no 'killed' marker yet) SIGKILLs its own worker process mid-task;
    later executions return {'value': value, 'pid': ..., 'killed_pid': pid of the first}."""
    time.sleep(sleep)
    killed = Path(marker_dir, "killed")
    if not killed.exists():
        killed.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    _mark(marker_dir, "survived")
    return {"value": value, "pid": os.getpid(), "killed_pid": int(killed.read_text())}


def kill_always(marker_dir: str) -> dict:
    """SIGKILL its own worker process every time (leaves a marker 'kill.*' first)."""
    _mark(marker_dir, "kill")
    os.kill(os.getpid(), signal.SIGKILL)
    return {}


def child_process(exit_code: int = 7) -> dict:
    """Start a multiprocessing child (as witness.phc does for PHCpack) and return its exit code:
    fails in a daemonic worker process ('daemonic processes are not allowed to have children')."""
    import multiprocessing
    proc = multiprocessing.get_context("spawn").Process(target=_exit_with, args=(exit_code,))
    proc.start()
    proc.join(60)
    return {"exitcode": proc.exitcode}


def _exit_with(code: int) -> None:
    raise SystemExit(code)


def interrupt_when_done(cmd: list[str], store: Path, done: int = 3,
                        timeout: float = 120) -> tuple[int, str, int]:
    """Start the sweep `cmd`, send SIGINT once `done` tasks are stored as done, and wait.

    Returns (tasks done before the signal, stderr, return code); (n, '', None) if the sweep
    finished or never got going before the signal could be sent."""
    # SIGINT back to its default in the child: a test run started in the background of a
    # non-interactive shell inherits SIGINT ignored, and Python then keeps it ignored
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline, n = time.monotonic() + timeout, 0
    while n < done and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if store.exists():
            try:
                with sqlite3.connect(store) as db:
                    n = db.execute("SELECT count(*) FROM tasks WHERE status = 'done'"
                                   ).fetchone()[0]
            except sqlite3.OperationalError:      # schema not created yet
                pass
    if n < done or proc.poll() is not None:
        proc.kill()
        proc.communicate()
        return n, "", None
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=timeout)
    return n, err, proc.returncode
