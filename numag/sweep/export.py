"""Export a sweep store as one flat row per task (CSV or JSON).

Columns, in order:
    key, task, version, status, error     the row's identity and state
    input.NAME                            every normalized option of the task (input.widths, ...)
    NAME                                  every field of the command's --json output, under the
                                          same name (dimension, params, ...); a field that would
                                          clash with the five columns above is named result.NAME
Inputs carry a prefix because commands echo some of them in their output under the same name
with a resolved value (dim: input.method null = default, method "exact").
In CSV, lists and objects are JSON text and missing values are empty; JSON keeps native values.
"""
from __future__ import annotations

import csv
import enum
import io
import json
from pathlib import Path
from typing import Any

from .store import Store, TaskRecord

META = ("key", "task", "version", "status", "error")


class ExportFormat(enum.StrEnum):
    CSV = "csv"            # one row per task; lists and objects as JSON text
    JSON = "json"          # a JSON list of the rows, native values


FORMATS = tuple(f.value for f in ExportFormat)


def row(rec: TaskRecord) -> dict[str, Any]:
    """The flat export row of one record."""
    out: dict[str, Any] = {"key": rec.key, "task": rec.task, "version": rec.version,
                           "status": rec.status, "error": rec.error}
    out.update({f"input.{k}": v for k, v in rec.inputs.items()})
    for k, v in (rec.result or {}).items():
        out[f"result.{k}" if k in META or k.startswith("input.") else k] = v
    return out


def export_rows(store: str | Path) -> list[dict[str, Any]]:
    """All rows of an existing store, in the order tasks were added.

    Raises
    ------
    ValueError
        no such store, or not a sweep store.
    """
    with Store(store, create=False) as db:
        return [row(r) for r in db.records()]


def render(rows: list[dict[str, Any]], fmt: str) -> str:
    """Rows as CSV (union of all columns, first-seen order) or a JSON list.

    Raises
    ------
    ValueError
        unknown format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    if ExportFormat(fmt) is ExportFormat.JSON:
        return json.dumps(rows, indent=1, default=str) + "\n"
    columns = list(dict.fromkeys(k for r in rows for k in r)) or list(META)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: _cell(r.get(k)) for k in columns})
    return buf.getvalue()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"), default=str)
    return value
