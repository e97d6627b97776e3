"""The SQLite result store of a sweep: one row per task, written as each task finishes.

Table `tasks` (rowid order = the order tasks were first added):
    key TEXT PRIMARY KEY  canonical hash of task + options + numag version (+ input files)
    task, inputs (JSON of the normalized options, NAME_sha256 per input file), seed, version
    status                'pending' | 'done' | 'failed'
    result                the job's result JSON as text (status 'done'; also 'failed' for a
                          batch with bad lines: the good lines' results)
    error, traceback      one-line error and full traceback (status 'failed')
    attempts              how many times an outcome was recorded for this row
    seconds, worker, finished   wall time in the worker, 'host:pid', UTC timestamp
Only the process driving the sweep writes (workers return outcomes to it), in autocommit mode
with WAL journaling: every outcome is one committed UPDATE, so an interrupt at any moment leaves
each row either as it was or fully updated, and readers (export, progress checks) never block.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from .tasks import Outcome, TaskSpec, TaskStatus

FORMAT = "numag-sweep-1"
STATUSES = tuple(s.value for s in TaskStatus)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    key TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    inputs TEXT NOT NULL,
    seed INTEGER,
    version TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
    result TEXT,
    error TEXT,
    traceback TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    seconds REAL,
    worker TEXT,
    finished TEXT
);
CREATE INDEX IF NOT EXISTS tasks_status ON tasks (status);
"""
_COLUMNS = ("key", "task", "inputs", "seed", "version", "status", "result", "error",
            "traceback", "attempts", "seconds", "worker", "finished")


@dataclass(frozen=True)
class TaskRecord:
    """One row of the store.

    Attributes
    ----------
    key
        the canonical task hash (64 hex digits).
    task
        task name; inputs: its normalized options (dict); seed: options['seed'] if an int.
    version
        numag version the key was made with.
    status
        TaskStatus: 'pending', 'done' or 'failed'.
    result
        the job's result JSON (None unless done, or a failed batch's good lines).
    error, traceback
        of a failure (None otherwise).
    attempts
        outcomes recorded so far; seconds, worker, finished: of the latest outcome.
    ran
        True if this row was computed by the call that returned it (not by an earlier run).
    """

    key: str
    task: str
    inputs: dict = field(hash=False)
    seed: int | None
    version: str
    status: TaskStatus
    result: dict | None = field(default=None, hash=False)
    error: str | None = None
    traceback: str | None = None
    attempts: int = 0
    seconds: float | None = None
    worker: str | None = None
    finished: str | None = None
    ran: bool = False

    def to_json(self) -> dict:
        return {"key": self.key, "task": self.task, "inputs": self.inputs, "seed": self.seed,
                "version": self.version, "status": self.status, "result": self.result,
                "error": self.error, "attempts": self.attempts, "seconds": self.seconds,
                "worker": self.worker, "finished": self.finished}


class Store:
    """An open sweep store (a context manager; closes the connection on exit).

    Raises
    ------
    ValueError
        the file is not an SQLite database or not a numag sweep store, cannot be
        opened (a folder, no permission), must exist (create=False) and does not, or its
        folder does not exist.
    """

    def __init__(self, path: str | Path, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise ValueError(f"{self.path}: no such sweep store")
        if not self.path.parent.is_dir():
            raise ValueError(f"{self.path}: folder {self.path.parent} does not exist")
        if self.path.is_dir():
            raise ValueError(f"{self.path}: a folder, not a sweep store file")
        try:
            # timeout: wait for another connection's write instead of failing at once
            self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        except sqlite3.Error as exc:
            raise ValueError(f"{self.path}: cannot open the store ({exc})") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a commit survives the process being killed (not a power cut)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._check_format()
        except sqlite3.OperationalError as exc:     # no permission, read-only, locked, ...
            self._db.close()
            raise ValueError(f"{self.path}: cannot open the store ({exc})") from None
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise ValueError(f"{self.path}: not a numag sweep store ({exc})") from None
        except BaseException:
            self._db.close()
            raise

    def _check_format(self) -> None:
        tables = {r[0] for r in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "meta" not in tables:
            raise ValueError(f"{self.path}: an SQLite file but not a numag sweep store "
                             f"(tables {sorted(tables)})")
        self._db.executescript(f"BEGIN; {_SCHEMA} "
                               f"INSERT OR IGNORE INTO meta VALUES ('format', '{FORMAT}'); COMMIT;")
        fmt = self._db.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
        if fmt is None or fmt[0] != FORMAT:
            raise ValueError(f"{self.path}: store format {fmt and fmt[0]!r}, expected {FORMAT!r}")

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # --- writing ---------------------------------------------------------------------------
    def add(self, specs: Iterable[TaskSpec]) -> None:
        """Insert a 'pending' row for every task not yet in the store (one transaction)."""
        rows = [(s.key, s.task, json.dumps(s.inputs(), sort_keys=True), s.seed, s.version)
                for s in specs]
        self._db.execute("BEGIN")
        try:
            self._db.executemany("INSERT OR IGNORE INTO tasks (key, task, inputs, seed, version, "
                                 "status) VALUES (?, ?, ?, ?, ?, 'pending')", rows)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def record(self, outcome: Outcome) -> None:
        """Store one outcome: a single committed UPDATE (atomic under interrupts)."""
        if outcome.status not in (TaskStatus.DONE, TaskStatus.FAILED):
            raise ValueError(f"outcome status must be 'done' or 'failed', got {outcome.status!r}")
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._db.execute(
            "UPDATE tasks SET status = ?, result = ?, error = ?, traceback = ?, "
            "attempts = attempts + 1, seconds = ?, worker = ?, finished = ? WHERE key = ?",
            (outcome.status, outcome.result, outcome.error, outcome.traceback,
             round(outcome.seconds, 6), outcome.worker, now, outcome.key))

    # --- reading ---------------------------------------------------------------------------
    def get(self, keys: Iterable[str]) -> dict[str, TaskRecord]:
        """Records of the given keys that are in the store."""
        keys = list(dict.fromkeys(keys))
        out: dict[str, TaskRecord] = {}
        for i in range(0, len(keys), 500):     # SQLite limits bound parameters per statement
            chunk = keys[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM tasks "
                                        f"WHERE key IN ({marks})", chunk):
                rec = _record(row)
                out[rec.key] = rec
        return out

    def records(self, status: str | None = None) -> list[TaskRecord]:
        """All rows (optionally of one status) in the order they were first added."""
        if status is not None and status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        sql = f"SELECT {', '.join(_COLUMNS)} FROM tasks"
        rows = self._db.execute(sql + " WHERE status = ? ORDER BY rowid", (status,)) \
            if status else self._db.execute(sql + " ORDER BY rowid")
        return [_record(r) for r in rows]

    def counts(self) -> dict[str, int]:
        """{'pending': n, 'done': n, 'failed': n}."""
        out = dict.fromkeys(STATUSES, 0)
        out.update(self._db.execute("SELECT status, count(*) FROM tasks GROUP BY status"))
        return out


def _record(row: tuple) -> TaskRecord:
    d = dict(zip(_COLUMNS, row))
    d["inputs"] = json.loads(d["inputs"])
    d["result"] = None if d["result"] is None else json.loads(d["result"])
    d["status"] = TaskStatus(d["status"])
    return TaskRecord(**d)
