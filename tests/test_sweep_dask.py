"""Sweeps on a Dask LocalCluster on loopback (processes=True): results, a worker killed mid-task,
a raising task, Ctrl-C of a sweep driven through the scheduler address, resume."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from numag.cli import main
from numag.formulas import single_layer
from numag.sweep import Store, run_tasks
from numag.sweep.testing import interrupt_when_done

distributed = pytest.importorskip("distributed")

COUNT = "numag.sweep.testing:count"


def markers(folder, prefix):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(prefix + "."))


def count_tasks(folder, values, sleep=0.0):
    return [{"task": COUNT, "marker_dir": str(folder), "value": v, "sleep": sleep}
            for v in values]


@pytest.fixture(scope="module")
def cluster():
    import dask
    with dask.config.set({"distributed.worker.daemon": False}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address="127.0.0.1:0") as c:
        yield c


@pytest.fixture
def client(cluster):
    with distributed.Client(cluster) as c:
        c.wait_for_workers(2, timeout=60)      # a previous test may have killed one
        yield c


def test_dim_sweep_on_cluster_via_cli(cluster, tmp_path, capsys):
    shapes = [(d, dp, a) for d in (2, 3, 4) for dp in (1, 3) for a in (1, 2)]
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"grids": [{"task": "dim", "cases": [
        {"widths": [d, dp], "ranks": [a]} for d, dp, a in shapes], "seed": [5]}]}))
    store = tmp_path / "s.db"
    args = ["sweep", str(spec), "--store", str(store), "--scheduler", cluster.scheduler_address]
    assert main(args) == 0
    assert f"{len(shapes)} tasks: {len(shapes)} done, 0 failed" in capsys.readouterr().out
    with Store(store) as db:
        records = db.records()
    assert len(records) == len(shapes)
    for (d, dp, a), rec in zip(shapes, records):
        assert rec.status == "done" and rec.result["dimension"] == single_layer(d, dp, a)
        assert rec.result["seed"] == 5
    # every task ran in one of the cluster's worker processes (recorded as host:pid), not here
    with distributed.Client(cluster) as c:
        worker_pids = set(c.run(os.getpid).values())
    ran_in = {int(r.worker.rsplit(":", 1)[1]) for r in records}
    assert ran_in and ran_in <= worker_pids and os.getpid() not in ran_in, (ran_in, worker_pids)
    assert main(args) == 0
    assert f"(0 run now, {len(shapes)} already in" in capsys.readouterr().out


def test_worker_killed_mid_task_is_retried_elsewhere(client, tmp_path):
    tasks = count_tasks(tmp_path, range(6), sleep=0.1)
    tasks.insert(1, {"task": "numag.sweep.testing:kill_once", "marker_dir": str(tmp_path),
                     "value": 42, "sleep": 0.2})
    records = run_tasks(tasks, tmp_path / "s.db", scheduler=client)
    assert [r.status for r in records] == ["done"] * 7
    killed = records[1].result
    assert killed["value"] == 42 and killed["pid"] != killed["killed_pid"]
    assert len(markers(tmp_path, "survived")) == 1
    assert [r.result["square"] for r in records if r.task == COUNT] == [v * v for v in range(6)]


def test_raising_task_is_stored_failed_and_others_continue(client, tmp_path):
    tasks = count_tasks(tmp_path, range(4))
    tasks.append({"task": "numag.sweep.testing:fail", "marker_dir": str(tmp_path)})
    tasks.append({"task": "dim", "widths": [3, 3], "ranks": [1]})
    records = run_tasks(tasks, tmp_path / "s.db", scheduler=client)
    assert [r.status for r in records] == ["done"] * 4 + ["failed", "done"]
    assert records[4].error == "ValueError: boom" and records[5].result["dimension"] == \
        single_layer(3, 3, 1)
    again = run_tasks(tasks, tmp_path / "s.db", scheduler=client)
    assert not any(r.ran for r in again) and len(markers(tmp_path, "fail")) == 1


def test_sigint_of_a_dask_sweep_is_resumable(cluster, tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tasks": count_tasks(tmp_path, range(12), sleep=0.4)}))
    store = tmp_path / "s.db"
    cmd = [sys.executable, "-m", "numag", "sweep", str(spec), "--store", str(store),
           "--scheduler", cluster.scheduler_address]
    done, err, code = interrupt_when_done(cmd, store)
    assert done >= 3 and code is not None, "the sweep did not get going"
    assert code == 130 and "rerun the same command to resume" in err
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finished = {json.loads(i)["value"] for (i,) in
                    db.execute("SELECT inputs FROM tasks WHERE status = 'done'")}
    assert 3 <= len(finished) < 12
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    with Store(store) as db:
        assert db.counts() == {"pending": 0, "done": 12, "failed": 0}
    for v in finished:
        assert len(markers(tmp_path, f"count-{v}")) == 1


def test_scheduler_local_starts_and_closes_its_own_cluster(tmp_path):
    tasks = [{"task": "dim", "widths": [4, 2], "ranks": [2], "seed": s} for s in range(3)]
    # tasks may start processes of their own (witness.phc does): workers must not be daemons
    tasks.append({"task": "numag.sweep.testing:child_process", "exit_code": 7})
    records = run_tasks(tasks, tmp_path / "s.db", scheduler="local", workers=2)
    assert [r.status for r in records] == ["done"] * 4, records[-1].error
    assert [r.result["dimension"] for r in records[:3]] == [single_layer(4, 2, 2)] * 3
    assert records[3].result == {"exitcode": 7}


@pytest.mark.slow
def test_task_that_always_kills_its_worker_ends_as_killed_worker(tmp_path):
    """Dask counts a worker's death against every task processing on it, so the culprit runs
    alone here; allowed-failures 1 = two deaths, then KilledWorker, stored as failed."""
    import dask
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address="127.0.0.1:0") as cl, \
            distributed.Client(cl) as c:
        killer = {"task": "numag.sweep.testing:kill_always", "marker_dir": str(tmp_path)}
        records = run_tasks([killer], tmp_path / "s.db", scheduler=c)
        assert records[0].status == "failed" and "KilledWorker" in records[0].error
        assert len(markers(tmp_path, "kill")) == 2
        c.wait_for_workers(2, timeout=60)
        after = run_tasks([killer, *count_tasks(tmp_path, range(3))], tmp_path / "s.db",
                          scheduler=c)
    assert [r.status for r in after] == ["failed", "done", "done", "done"]
    assert not after[0].ran and len(markers(tmp_path, "kill")) == 2
