"""Issue 35, item 6: services after a crash. `hudi-log compact`, `cluster` and `clean` run in a subprocess and
are killed with SIGKILL in the middle; the command run again at once (the killed run's heartbeat still fresh):

* single writer (the default): exits 0, says what it recovered (never "nothing to ..."), the plan completes
  and the table reads the same rows (hudi-log and hudi-rs); no leftovers (files of the killed run, .tmp files,
  heartbeats);
* optimistic concurrency (a lock provider): exits 3 naming the pending instant and when its heartbeat
  expires, changing nothing; once the heartbeat has expired, a run recovers the plan.

The kill points are deterministic, not timed: the subprocess runs the CLI with one function wrapped to print
``holding`` and sleep at a chosen point (after the first base file is written or the first file deleted, or
just before the service's instant completes), and the test kills it once it has said so.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import HudiTable, read_table
from hudi_log.table.concurrency.heartbeat import heartbeat_path
from hudi_log.table.services.clean import CleanPlan
from hudi_log.table.write.client import write_table

hudi = pytest.importorskip("hudi")
from hudi_rs_oracle import hudi_rs_rows  # noqa: E402

import writers  # noqa: E402  (tests/writers.py: crash helpers)

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
#: another writer may be live; a lock its killed holder left is taken over once 0.6 s old
OCC = {"hoodie.write.concurrency.mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
       "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
       "hoodie.write.lock.filesystem.expire": "0.01"}
#: the services' actions (clustering completes as a replacecommit in both layouts)
ACTIONS = {"compact": ("compaction", "commit"), "cluster": ("replacecommit", "clustering"), "clean": ("clean",)}

HELD = r"""
import pathlib, sys, time
hold, argv = sys.argv[1], sys.argv[2:]

def stop_here():
    print("holding", flush=True)
    time.sleep(600)

if hold == "complete":  # every file written or deleted: stop just before the service's instant completes
    from hudi_log.table.timeline.writer import TimelineWriter
    real_complete = TimelineWriter.complete
    def complete(self, action, *a, **k):
        if action != "rollback":
            stop_here()
        return real_complete(self, action, *a, **k)
    TimelineWriter.complete = complete
elif argv[0] == "clean":  # "first-file": stop after the first data file is deleted
    real_unlink = pathlib.Path.unlink
    def unlink(self, *a, **k):
        real_unlink(self, *a, **k)
        if self.suffix == ".parquet" or ".log." in self.name:
            stop_here()
    pathlib.Path.unlink = unlink
else:  # "first-file": stop after the first new base file is written
    import hudi_log.table.services.clustering as clustering
    import hudi_log.table.services.compaction as compaction
    for module in (compaction, clustering):
        def write_base_file(*a, _real=module.write_base_file, **k):
            size = _real(*a, **k)
            stop_here()
            return size
        module.write_base_file = write_base_file
from hudi_log.cli import main
main(argv, prog_name="hudi-log")
"""


def options(version: int, table_type: str) -> dict:
    return {"hoodie.table.name": "crash", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version)}


def rows(pairs, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": k, "val": v, "ts": ts, "part": f"p{int(k[1:]) % 2}"} for k, v in pairs],
                                schema=SCHEMA)


def make_table(base: Path, service: str, version: int) -> None:
    """A table the service has work for in both partitions (two base files to write, or several to delete)."""
    if service == "compact":  # file groups with log files in p0 and p1
        o = options(version, "MERGE_ON_READ")
        write_table(base, rows([(f"k{i}", "a") for i in range(8)], 1), "insert", o)
        write_table(base, rows([("k0", "b"), ("k1", "b"), ("k5", "b")], 2), "upsert", o)
        write_table(base, rows([("k2", "c"), ("k3", "c")], 3), "upsert", o)
    elif service == "cluster":  # small file groups, several per partition
        o = options(version, "COPY_ON_WRITE")
        for n in range(4):
            write_table(base, rows([(f"k{n * 2 + j}", f"v{n}") for j in range(2)], n), "bulk_insert", o)
        write_table(base, rows([("k0", "u0"), ("k3", "u3")], 50), "upsert", o)
    else:  # old file slices in p0 and p1
        o = options(version, "COPY_ON_WRITE")
        write_table(base, rows([(f"k{i}", "a") for i in range(6)], 1), "insert", o)
        for n in range(2, 5):
            write_table(base, rows([("k0", f"v{n}"), ("k1", f"v{n}")], n), "upsert", o)


def snapshot(base: Path) -> dict:
    return {r["id"]: r["val"] for r in read_table(base).to_pylist()}


def hudi_rs(base: Path) -> dict:
    return {r["id"]: r["val"] for r in hudi_rs_rows(base)}


def command(service: str, base: Path, extra: dict) -> list[str]:
    args = [service, str(base)] + (["--retain-commits", "1"] if service == "clean" else [])
    return args + [a for k, v in extra.items() for a in ("--option", f"{k}={v}")]


def kill_midway(hold: str, args: list[str]) -> None:
    """Run ``hudi-log ARGS`` in a subprocess and SIGKILL it where ``hold`` stops it (:data:`HELD`)."""
    writers.kill_midway(HELD, hold, args)


def pending_of(base: Path, service: str):
    """The one pending instant of the service's kind the killed run left."""
    found = [i for i in HudiTable(base).timeline.pending() if i.action in ACTIONS[service]]
    assert len(found) == 1, found
    return found[0]


def clean_plan_files(base: Path, instant: str) -> list[Path]:
    req = HudiTable(base).timeline.folder / f"{instant}.clean.requested"
    plan = CleanPlan.from_bytes(instant, req.read_bytes(), base, req)
    return [base / rel for rels in plan.files.values() for rel in rels]


def assert_recovered(base: Path, service: str, instant: str, expected: dict, planned: list[Path]) -> None:
    table = HudiTable(base)
    assert table.timeline.pending() == []
    done = table.timeline.instant(instant)
    assert done is not None and done.is_completed
    assert snapshot(base) == expected == hudi_rs(base)
    data = [p for p in base.rglob("*") if p.is_file() and ".hoodie" not in p.relative_to(base).parts]
    assert not [p for p in data if p.name.endswith(".tmp")]
    assert not list(heartbeat_path(base, instant).parent.iterdir())  # the dead run's heartbeat went too
    if service == "clean":
        assert planned and not [p for p in planned if p.exists()]
        return
    # the files named with the instant are exactly those its completed metadata lists: none of the killed run's
    stats = [s for ss in table.timeline.commit_metadata(done)["partitionToWriteStats"].values() for s in ss]
    assert sorted(s["path"] for s in stats) == sorted(
        str(p.relative_to(base)) for p in data if p.name.endswith(f"_{instant}.parquet"))
    assert len(stats) >= 2


@pytest.mark.parametrize("service", ["compact", "cluster", "clean"])
@pytest.mark.parametrize("hold,version", [("first-file", 6), ("complete", 8)])
def test_single_writer_rerun_recovers_the_killed_plan(tmp_path, service, hold, version):
    base = tmp_path / "t"
    make_table(base, service, version)
    expected = snapshot(base)
    kill_midway(hold, command(service, base, {}))
    pending = pending_of(base, service)
    assert pending.state == "INFLIGHT"
    assert heartbeat_path(base, pending.requested_time).exists()  # fresh: the kill was a moment ago
    planned = clean_plan_files(base, pending.requested_time) if service == "clean" else []
    assert snapshot(base) == expected  # nothing of the killed run is visible

    res = CliRunner().invoke(main, command(service, base, {}))
    assert res.exit_code == 0, res.output
    assert "nothing to" not in res.output
    what = {"compact": "compaction", "cluster": "clustering", "clean": "clean"}[service]
    first = res.output.splitlines()[0]
    assert first.startswith(f"{what} {pending.requested_time}: "), res.output
    if service == "clean":
        assert first.endswith(f"{len(planned)} file(s) deleted (the pending plan of a killed run)"), res.output
    else:
        rb = [i for i in HudiTable(base).timeline.completed() if i.action == "rollback"]
        assert len(rb) == 1 and f"its killed run rolled back by rollback {rb[0].requested_time}, then run again" \
            in first, res.output
        assert HudiTable(base).timeline.commit_metadata(rb[0])["commitsRollback"] == [pending.requested_time]
    assert_recovered(base, service, pending.requested_time, expected, planned)


@pytest.mark.parametrize("service", ["compact", "cluster", "clean"])
def test_rerun_where_another_writer_may_be_live_names_the_instant_and_its_heartbeat_expiry(tmp_path, service):
    base = tmp_path / "t"
    make_table(base, service, 8)
    expected = snapshot(base)
    kill_midway("complete", command(service, base, OCC))  # killed holding the table lock, too
    pending = pending_of(base, service)
    instant = pending.requested_time
    planned = clean_plan_files(base, instant) if service == "clean" else []
    timeline_before = sorted(p.name for p in HudiTable(base).timeline.folder.iterdir() if p.is_file())

    res = CliRunner().invoke(main, command(service, base, OCC))
    assert res.exit_code == 3, res.output
    beat = heartbeat_path(base, instant).stat().st_mtime  # the dead run's last beat: nothing beats it since
    at = datetime.datetime.fromtimestamp(beat + 120, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
    what = {"compact": "compaction", "cluster": "clustering", "clean": "clean"}[service]
    assert f"{what} {instant} is inflight and its heartbeat is fresh: it expires at {at}Z" in res.output, res.output
    assert "hoodie.client.heartbeat.interval_in_ms=60000 x hoodie.client.heartbeat.tolerable.misses=2" in res.output
    assert "OPTIMISTIC_CONCURRENCY_CONTROL" in res.output
    # nothing changed: the plan still pending, the same timeline files, the same rows
    assert pending_of(base, service) == pending
    assert sorted(p.name for p in HudiTable(base).timeline.folder.iterdir() if p.is_file()) == timeline_before
    assert snapshot(base) == expected

    # once its heartbeat has expired (aged here rather than waited for), the run recovers the plan
    old = time.time() - 1000
    os.utime(heartbeat_path(base, instant), (old, old))
    res = CliRunner().invoke(main, command(service, base, OCC))
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"{what} {instant}: ") and "nothing to" not in res.output, res.output
    assert_recovered(base, service, instant, expected, planned)
    assert not (base / ".hoodie" / "lock").exists()  # the dead holder's lock was taken over and let go


@pytest.mark.parametrize("service", ["compact", "cluster"])
def test_a_run_whose_plan_another_run_took_over_does_not_complete(tmp_path, monkeypatch, service):
    """Against the single-writer promise, a second run starts while the first is still writing: it takes the
    first for a dead run (fresh heartbeats look alike), rolls its files back and completes the plan; the
    first then stops before completing (InstantLostError) instead of completing over files that are gone."""
    from hudi_log.table.errors import InstantLostError
    from hudi_log.table.services import clustering, compaction

    base = tmp_path / "t"
    make_table(base, service, 8)
    expected = snapshot(base)
    module, run, schedule = ((compaction, compaction.run_compaction, compaction.schedule_compaction)
                             if service == "compact" else
                             (clustering, clustering.run_clustering, clustering.schedule_clustering))
    instant = schedule(base)
    real, second = module.write_base_file, []

    def write_base_file(*a, **k):
        size = real(*a, **k)
        if not second:  # after the first run's first file: the second run, start to end
            second.append(True)
            with monkeypatch.context() as m:
                m.setattr(module, "write_base_file", real)
                second.append(run(base, instant))
        return size
    monkeypatch.setattr(module, "write_base_file", write_base_file)
    with pytest.raises(InstantLostError, match=f"{instant} was not completed: rollback"):
        run(base, instant)
    done = second[1]
    assert len(done.rolled_back) == 1 and done.instant == instant
    assert_recovered(base, service, instant, expected, [])


def test_a_stream_micro_batch_commits_and_leaves_a_live_plan_for_later(tmp_path, caplog):
    """The streaming sink's inline services after a micro-batch (no Spark needed): under optimistic
    concurrency, a compaction another process is running (fresh heartbeat) is left for a later micro-batch
    with a warning naming it; the micro-batch's commit stands."""
    pytest.importorskip("pyspark")
    from hudi_log.spark.stream_sink import commit_micro_batch
    from hudi_log.table.concurrency.config import concurrency_config
    from hudi_log.table.concurrency.heartbeat import Heartbeat
    from hudi_log.table.services.compaction import schedule_compaction

    base = tmp_path / "t"
    o = {**options(8, "MERGE_ON_READ"), **OCC, "hoodie.compact.inline": "true",
         "hoodie.compact.inline.max.delta.commits": "1"}
    write_table(base, rows([(f"k{i}", "a") for i in range(4)], 1), "insert", o)
    write_table(base, rows([("k0", "b")], 2), "upsert", o)
    instant = schedule_compaction(base, o)
    live = Heartbeat(base, instant, concurrency_config(o)).start()  # another process runs it
    try:
        with caplog.at_level("WARNING"):
            done = commit_micro_batch(base, o, rows([("k1", "c")], 3), 0, "q")
    finally:
        live.stop()
    assert done.instant is not None and done.compaction is None
    assert f"compaction {instant} is requested and its heartbeat is fresh" in caplog.text
    assert HudiTable(base).timeline.instant(done.instant).is_completed
    assert [i.requested_time for i in HudiTable(base).timeline.pending()] == [instant]
    assert snapshot(base) == {"k0": "b", "k1": "c", "k2": "a", "k3": "a"}


@pytest.mark.parametrize("service", ["compact", "cluster"])
def test_a_recovery_killed_inside_its_rollback_is_finished_by_the_next_run(tmp_path, monkeypatch, service):
    """A rerun that dies inside the rollback of the killed run leaves that rollback pending; the next rerun
    finishes that rollback (Java's getPendingRollbackInfo) rather than leaving it pending beside a new one."""
    from hudi_log.table.services import rollback

    base = tmp_path / "t"
    make_table(base, service, 6)
    expected = snapshot(base)
    kill_midway("first-file", command(service, base, {}))
    instant = pending_of(base, service).requested_time

    def dies(*a, **k):
        raise KeyboardInterrupt  # the first rerun's process dies inside the rollback (planned, inflight)
    with monkeypatch.context() as m:
        m.setattr(rollback, "_execute", dies)
        assert CliRunner().invoke(main, command(service, base, {})).exit_code == 130  # click: Abort
    [stale] = [i for i in HudiTable(base).timeline.pending() if i.action == "rollback"]

    res = CliRunner().invoke(main, command(service, base, {}))
    assert res.exit_code == 0, res.output
    assert f"its killed run rolled back by rollback {stale.requested_time}, then run again" in res.output
    assert [i.requested_time for i in HudiTable(base).timeline.completed() if i.action == "rollback"] == \
        [stale.requested_time]
    assert_recovered(base, service, instant, expected, [])
