"""Many writers on one table (issue 16), in one process: heartbeats, failed-write policies, the table lock,
the conflict check at commit, and instants that must not complete. A "Java writer" here is the files Java
Hudi leaves for the same state (its heartbeat file, instant files, its FileSystemBasedLockProvider lock
file with LockInfo JSON), written by hand as Java writes them. The multi-process runs are in
test_concurrency_stress.py."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import read_table
from hudi_log.table.concurrency.config import concurrency_config
from hudi_log.table.concurrency.heartbeat import Heartbeat, heartbeat_path, is_expired
from hudi_log.table.concurrency.lock import TableLock
from hudi_log.table.errors import (ConcurrencyConfigError, ConcurrentWriterError, InstantLostError, LockError,
                                   PendingServiceError, WriteConflictError)
from hudi_log.table.properties import read_properties
from hudi_log.table.services.clean import clean
from hudi_log.table.services.compaction import CompactionError, run_compaction, schedule_compaction
from hudi_log.table.services.rollback import rollback
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.client import begin_write, write_table
from hudi_log.table.write.task import write_batches
from writers import crash

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
FAST_BEATS = {"hoodie.client.heartbeat.interval_in_ms": "100", "hoodie.client.heartbeat.tolerable.misses": "3"}
OCC = {"hoodie.write.concurrency.mode": "optimistic_concurrency_control",
       "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
       "hoodie.write.lock.wait_time_ms": "300", "hoodie.write.lock.client.num_retries": "0"}


def opts(table_type="MERGE_ON_READ", version=6, **extra) -> dict:
    return {"hoodie.table.name": "many", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version),
            **FAST_BEATS, **extra}


def rows(ids, val, ts, part="p0") -> pa.Table:
    return pa.Table.from_pylist([{"id": f"k{i}", "val": val, "ts": ts, "part": part} for i in ids], schema=SCHEMA)


def table(path) -> dict:
    return {r["id"]: r["val"] for r in read_table(path).to_pylist()}


def timeline(path) -> Timeline:
    return Timeline(Path(path), read_properties(path))


def begun(path, data: pa.Table, o: dict):
    """A write begun and its files written, not committed: a live writer (its heartbeat beats)."""
    tx = begin_write(path, "upsert", o, schema=data.schema)
    return tx, write_batches(tx.context, data, 0)


# ---- options ----------------------------------------------------------------------------------------
def test_config_follows_java_defaults_and_refuses_what_is_not_supported(tmp_path):
    c = concurrency_config({})
    assert (c.mode, c.failed_writes, c.lock_provider, c.heartbeat_timeout_s) == ("SINGLE_WRITER", "EAGER", None, 120)
    c = concurrency_config({**OCC, "hoodie.cleaner.policy.failed.writes": "EAGER"})
    assert c.optimistic and c.failed_writes == "LAZY"  # Java forces LAZY under optimistic concurrency
    assert concurrency_config({"hoodie.write.lock.provider": "InProcessLockProvider"}).lock_provider.endswith(
        ".InProcessLockProvider")
    for bad, named in [({"hoodie.write.concurrency.mode": "optimistic_concurrency_control"}, "needs a lock"),
                       ({**OCC, "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock."
                         "ZookeeperBasedLockProvider"}, "ZookeeperBasedLockProvider"),
                       ({"hoodie.write.concurrency.mode": "NON_BLOCKING_CONCURRENCY_CONTROL"}, "NON_BLOCKING"),
                       ({"hoodie.cleaner.policy.failed.writes": "SOMETIMES"}, "SOMETIMES"),
                       ({"hoodie.client.heartbeat.interval_in_ms": "soon"}, "interval_in_ms")]:
        with pytest.raises(ConcurrencyConfigError, match=named):
            write_table(tmp_path / "t", rows([1], "a", 1), "insert", opts(**bad))
        assert not (tmp_path / "t").exists()  # refused before a byte is written


# ---- heartbeats --------------------------------------------------------------------------------------
def test_a_write_keeps_a_heartbeat_as_java_does(tmp_path):
    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    tx, stats = begun(path, rows([1], "b", 2), opts())
    beat = heartbeat_path(path, tx.instant)
    assert beat.parent == path / ".hoodie" / ".heartbeat" and beat.read_bytes() == b""
    first = beat.stat().st_mtime
    time.sleep(0.35)
    assert beat.stat().st_mtime > first  # refreshed every interval
    assert not is_expired(path, tx.instant, concurrency_config(opts()))
    tx.commit(stats)
    assert not beat.exists()  # deleted once the instant is completed
    assert table(path) == {"k1": "b"}
    assert not list((path / ".hoodie" / ".heartbeat").iterdir())


def test_expiry_is_java_rule(tmp_path):
    config = concurrency_config({"hoodie.client.heartbeat.interval_in_ms": "1000",
                                 "hoodie.client.heartbeat.tolerable.misses": "2"})
    assert is_expired(tmp_path, "20250101000000000", config)  # no file: its last beat counts as 0
    hb = Heartbeat(tmp_path, "20250101000000000", config)
    hb.path.parent.mkdir(parents=True)
    hb.path.touch()
    beat = hb.path.stat().st_mtime
    assert not is_expired(tmp_path, hb.instant, config, now=beat + 2.0)  # exactly interval x misses: alive
    assert is_expired(tmp_path, hb.instant, config, now=beat + 2.01)


# ---- single writer (EAGER) -----------------------------------------------------------------------------
@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_a_single_writer_stops_beside_a_live_one_and_never_rolls_it_back(tmp_path, table_type):
    path = tmp_path / "t"
    write_table(path, rows([1, 2], "a", 1), "insert", opts(table_type))
    a, stats = begun(path, rows([1], "A", 2), opts(table_type))
    with pytest.raises(ConcurrentWriterError, match=a.instant):
        write_table(path, rows([2], "B", 2), "upsert", opts(table_type))
    assert [i.requested_time for i in timeline(path).pending()] == [a.instant]  # untouched, still pending
    assert heartbeat_path(path, a.instant).exists()
    a.commit(stats)
    write_table(path, rows([2], "B", 3), "upsert", opts(table_type))
    assert table(path) == {"k1": "A", "k2": "B"}


def test_a_dead_writer_is_rolled_back_once_its_heartbeat_expired(tmp_path):
    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    a, _ = begun(path, rows([1], "DEAD", 2), opts())
    crash(a, seconds_ago=0)  # killed just now: for 0.3 s its heartbeat still looks alive
    with pytest.raises(ConcurrentWriterError):
        write_table(path, rows([2], "b", 2), "upsert", opts())
    time.sleep(0.4)
    r = write_table(path, rows([2], "b", 2), "upsert", opts())
    assert len(r.rolled_back) == 1 and table(path) == {"k1": "a", "k2": "b"}
    assert not heartbeat_path(path, a.instant).exists()


def test_a_java_writer_is_seen_alive_by_its_heartbeat_file(tmp_path):
    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    java = "29991231235959000"  # Java's requested and inflight files, and its heartbeat (LAZY policy)
    folder = path / ".hoodie"
    (folder / f"{java}.deltacommit.requested").write_bytes(b"")
    (folder / f"{java}.deltacommit.inflight").write_bytes(b"")
    (folder / ".heartbeat").mkdir(exist_ok=True)
    (folder / ".heartbeat" / java).write_bytes(b"")
    with pytest.raises(ConcurrentWriterError, match=java):
        write_table(path, rows([2], "b", 2), "upsert", opts())
    res = CliRunner().invoke(main, ["rollback", str(path), java])
    assert res.exit_code == 2 and "alive" in res.output and java in res.output
    assert (folder / f"{java}.deltacommit.inflight").exists()
    old = time.time() - 3600  # Java's writer died an hour ago
    os.utime(folder / ".heartbeat" / java, (old, old))
    r = write_table(path, rows([2], "b", 2), "upsert", opts())
    assert r.rolled_back and not (folder / f"{java}.deltacommit.inflight").exists()


def test_pending_clustering_is_not_a_failed_write(tmp_path):
    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    t = "29991231235959000"
    buf = io.BytesIO()  # Java's HoodieRequestedReplaceMetadata of a clustering, as far as the check reads it
    fastavro.writer(buf, {"type": "record", "name": "HoodieRequestedReplaceMetadata",
                          "fields": [{"name": "operationType", "type": ["null", "string"]}]},
                    [{"operationType": "CLUSTER"}])
    (path / ".hoodie" / f"{t}.replacecommit.requested").write_bytes(buf.getvalue())
    write_table(path, rows([2], "b", 2), "upsert", opts())  # no heartbeat, but clustering: left alone
    assert [i.requested_time for i in timeline(path).pending()] == [t]


# ---- optimistic concurrency ---------------------------------------------------------------------------
@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_occ_disjoint_file_groups_both_commit(tmp_path, table_type):
    path = tmp_path / "t"
    o = opts(table_type, **OCC)
    write_table(path, pa.concat_tables([rows([1], "a", 1, "p0"), rows([2], "a", 1, "p1")]), "insert", o)
    a, stats = begun(path, rows([1], "A", 2, "p0"), o)
    write_table(path, rows([2], "B", 2, "p1"), "upsert", o)  # beside a live writer: LAZY leaves it be
    a.commit(stats)
    assert table(path) == {"k1": "A", "k2": "B"}
    assert not (path / ".hoodie" / "lock").exists()


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_occ_overlapping_file_groups_the_later_commit_fails_and_is_rolled_back(tmp_path, table_type):
    path = tmp_path / "t"
    o = opts(table_type, **OCC)
    write_table(path, rows([1, 2], "a", 1), "insert", o)
    a, stats = begun(path, rows([1], "A", 2), o)
    b = write_table(path, rows([2], "B", 2), "upsert", o)  # same file group, completes first
    with pytest.raises(WriteConflictError, match=f"conflicts with .* {b.instant}"):
        a.commit(stats)
    tl = timeline(path)
    assert tl.instant(a.instant) is None and [i.action for i in tl.instants][-1] == "rollback"
    assert table(path) == {"k1": "a", "k2": "B"}  # the successful write is there, the failed one is not
    assert not heartbeat_path(path, a.instant).exists()


def test_a_compaction_scheduled_during_a_write_is_a_conflict(tmp_path):
    path = tmp_path / "t"
    o = opts(**OCC)
    write_table(path, rows([1, 2], "a", 1), "insert", o)
    write_table(path, rows([1], "b", 2), "upsert", o)
    a, stats = begun(path, rows([2], "A", 3), o)
    with pytest.raises(CompactionError, match="alive"):  # Java: not while a write is in flight
        schedule_compaction(path, o)
    a.commit(stats)
    c = schedule_compaction(path, o)
    run_compaction(path, c, o)
    assert table(path) == {"k1": "b", "k2": "A"}


def test_a_commit_whose_instant_was_rolled_back_fails(tmp_path):
    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    a, stats = begun(path, rows([1], "A", 2), opts())
    rollback(path, a.instant, options=opts(), force=True)  # another process took it for failed
    with pytest.raises(InstantLostError, match="rollback"):
        a.commit(stats)
    assert timeline(path).instant(a.instant) is None and table(path) == {"k1": "a"}


def test_a_writer_whose_heartbeat_lapsed_does_not_complete(tmp_path):
    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    a, stats = begun(path, rows([1], "A", 2), opts())
    a.heartbeat._last -= 10  # as if this process had been paused past the timeout
    with pytest.raises(InstantLostError, match="lapsed"):
        a.commit(stats)
    assert timeline(path).instant(a.instant) is None and table(path) == {"k1": "a"}
    assert not heartbeat_path(path, a.instant).exists()


# ---- the lock -------------------------------------------------------------------------------------------
def java_lock_file(path: Path, seconds_ago: float = 0.0) -> Path:
    """The lock file Java's FileSystemBasedLockProvider writes (LockInfo.toString())."""
    lock = path / ".hoodie" / "lock"
    lock.write_text(json.dumps({"lockCreateTime": "2026-11-24 10:00:00.000", "lockThreadName": "java-writer-1",
                                "lockStacksInfo": ["at org.apache.hudi.Foo"]}, indent=2))
    if seconds_ago:
        then = time.time() - seconds_ago
        os.utime(lock, (then, then))
    return lock


def test_a_java_lock_holder_excludes_hudi_log_and_the_reverse(tmp_path):
    path = tmp_path / "t"
    o = opts(**OCC)
    write_table(path, rows([1], "a", 1), "insert", o)
    lock = java_lock_file(path)
    with pytest.raises(LockError, match="java-writer-1"):
        write_table(path, rows([1], "b", 2), "upsert", o)
    assert table(path) == {"k1": "a"} and lock.exists()
    # an abandoned Java lock past hoodie.write.lock.filesystem.expire (minutes) is taken over
    java_lock_file(path, seconds_ago=120)
    write_table(path, rows([1], "b", 2), "upsert", {**o, "hoodie.write.lock.filesystem.expire": "1"})
    assert table(path) == {"k1": "b"} and not lock.exists()
    # while hudi-log holds it, Java's create-if-absent fails, and the file says who holds it
    with TableLock(path, concurrency_config(o)):
        info = json.loads(lock.read_text())
        assert set(info) == {"lockCreateTime", "lockThreadName", "lockStacksInfo"}
        with pytest.raises(FileExistsError):
            os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    assert not lock.exists()


def test_the_lock_is_reentrant_in_a_thread_and_configurable_in_place(tmp_path):
    o = {**OCC, "hoodie.write.lock.filesystem.path": str(tmp_path / "locks")}
    lock = TableLock(tmp_path, concurrency_config(o))
    with lock:
        with TableLock(tmp_path, concurrency_config(o)):
            assert (tmp_path / "locks" / "lock").exists()
        assert (tmp_path / "locks" / "lock").exists()
    assert not (tmp_path / "locks" / "lock").exists()


# ---- services ----------------------------------------------------------------------------------------------
def test_services_respect_live_instants(tmp_path):
    path = tmp_path / "t"
    o = opts()
    write_table(path, rows([1, 2], "a", 1), "insert", o)
    write_table(path, rows([1], "b", 2), "upsert", o)
    c = schedule_compaction(path, o)
    hb = Heartbeat(path, c, concurrency_config(o)).start()  # another process runs it
    try:  # where another writer may be live, a fresh heartbeat is respected (services/recovery.py)
        with pytest.raises(PendingServiceError, match=f"compaction {c} is requested and its heartbeat is fresh"):
            run_compaction(path, c, {**o, **OCC})
    finally:
        hb.stop()
    run_compaction(path, c, o)
    write_table(path, rows([2], "c", 3), "upsert", o)
    assert clean(path, retain_commits=1, options=o) is not None
    assert table(path) == {"k1": "b", "k2": "c"}
    assert not list((path / ".hoodie" / ".heartbeat").iterdir())


def test_a_held_lock_stays_fresh_so_only_a_dead_holders_lock_expires(tmp_path):
    o = concurrency_config({**OCC, "hoodie.write.lock.filesystem.expire": "0.01"})  # 0.6 s
    lock = tmp_path / ".hoodie" / "lock"
    with TableLock(tmp_path, o):
        time.sleep(1.0)
        assert time.time() - lock.stat().st_mtime < 0.6  # kept fresh by its live holder
        other = TableLock(tmp_path, o)
        assert not other.provider.try_lock()  # so nobody takes it over
    java_lock_file(tmp_path, seconds_ago=5)  # a holder that died: not refreshed, expired
    with TableLock(tmp_path, o):
        assert "hudi-log" in json.loads(lock.read_text())["lockThreadName"]


# ---- the metadata table (issue 15, item 7): every action that changes files refuses alike, or drops it ----------
def with_metadata_table(path: Path) -> None:
    """The table's metadata table (made at its first write) lists a partition hudi-log has no builder for."""
    from hudi_log.table.properties import write_properties

    p = read_properties(path).to_dict()
    p["hoodie.table.metadata.partitions"] = "files,expr_index_fare"  # an expression index
    write_properties(path, p)
    assert (path / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").exists()


def test_no_action_leaves_a_metadata_table_stale(tmp_path, caplog):
    from hudi_log.table.metadata_table import MetadataTableError
    from hudi_log.table.services.clustering import schedule_clustering

    path = tmp_path / "t"
    o = opts()
    write_table(path, rows([1, 2], "a", 1), "insert", o)
    write_table(path, rows([1], "b", 2), "upsert", o)
    a, _ = begun(path, rows([2], "DEAD", 3), o)
    crash(a)
    with_metadata_table(path)
    before = sorted(p.name for p in path.rglob("*") if p.is_file())
    actions = {"the write": lambda extra: write_table(path, rows([2], "c", 4), "upsert", {**o, **extra}),
               "the compaction": lambda extra: schedule_compaction(path, {**o, **extra}),
               "the clean": lambda extra: clean(path, retain_commits=1, options={**o, **extra}),
               "the rollback": lambda extra: rollback(path, a.instant, options={**o, **extra}),
               "the clustering": lambda extra: schedule_clustering(path, {**o, **extra})}
    for action, run in actions.items():
        with pytest.raises(MetadataTableError, match="'expr_index_fare'.*hoodie.metadata.enable=false"):
            run({})  # a metadata partition it cannot maintain: refused before anything changes
    assert sorted(p.name for p in path.rglob("*") if p.is_file()) == before  # nothing changed
    res = CliRunner().invoke(main, ["clean", str(path), "--retain-commits", "1"])
    assert res.exit_code == 2 and "metadata table" in res.output
    with caplog.at_level("WARNING", logger="hudi_log"):
        rollback(path, a.instant, options={**o, "hoodie.metadata.enable": "false"})
    assert "deleted the metadata table" in caplog.text and "expr_index_fare, files" in caplog.text
    assert not (path / ".hoodie" / "metadata").exists()
    assert read_properties(path).get("hoodie.table.metadata.partitions") == ""
    write_table(path, rows([2], "c", 4), "upsert", o)  # no metadata table any more: writes go ahead
    assert table(path) == {"k1": "b", "k2": "c"}


# ---- a table version hudi-log reads but does not write (issue 15, item 8; version 9 until issue 37): every
# action that would change it refuses alike, before it changes anything
def test_unwritable_table_versions_are_read_and_refused_for_changes_with_what_to_do(tmp_path, corpus_tables,
                                                                                   monkeypatch):
    import shutil

    from hudi_log.table import properties
    from hudi_log.table.properties import UnwritableTableVersionError

    monkeypatch.setattr(properties, "WRITABLE_TABLE_VERSIONS", (6, 8))  # as before version 9 was written

    for name in ("sample_table_mor_avro_v9_txns_simple_meta", "sample_table_cow_v9_txns_simple_nometa"):
        path = tmp_path / name
        shutil.copytree(corpus_tables[name], path)
        before = sorted(str(p.relative_to(path)) for p in path.rglob("*"))
        rows_before = read_table(path)
        assert rows_before.num_rows > 0
        data = rows_before.slice(0, 1).drop_columns([c for c in rows_before.column_names if c.startswith("_hoodie")])
        off = {"hoodie.metadata.enable": "false"}
        actions = {"the write": lambda: write_table(path, data, "upsert", off),
                   "the clean": lambda: clean(path, retain_commits=1, options=off),
                   "the rollback": lambda: rollback(path, "20990101000000000", options=off)}
        if "mor" in name:
            actions["the compaction"] = lambda: schedule_compaction(path, off)
        for action, run in actions.items():
            with pytest.raises(UnwritableTableVersionError, match=f"{action} would change a table of version 9.*"
                                                                 "reads but does not write .it writes versions 6, 8"):
                run()
        res = CliRunner().invoke(main, ["clean", str(path), "--retain-commits", "1", "-o", "hoodie.metadata.enable=false"])
        assert res.exit_code == 2 and "version 9" in res.output
        assert sorted(str(p.relative_to(path)) for p in path.rglob("*")) == before  # nothing changed


def test_a_rollback_that_slips_in_before_the_completed_file_makes_the_commit_fail(tmp_path, monkeypatch):
    from hudi_log.table.timeline.writer import TimelineWriter

    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    a, stats = begun(path, rows([1], "A", 2), opts())
    real = TimelineWriter.complete

    def racing(self, action, instant, metadata):  # no lock: another process's rollback lands right here
        if instant == a.instant and ".hoodie/metadata" not in str(self.folder):  # the data table's completion
            rollback(path, instant, options=opts(), force=True)
        return real(self, action, instant, metadata)

    monkeypatch.setattr(TimelineWriter, "complete", racing)
    with pytest.raises(InstantLostError, match="was completed, but rollback"):
        a.commit(stats)


# ---- key generators (issue 15, item 2, the refusing half) --------------------------------------------------------
@pytest.mark.parametrize("setting", [
    {"hoodie.table.keygenerator.class": "org.apache.hudi.keygen.GlobalDeleteKeyGenerator"},
    {"hoodie.table.keygenerator.class": "com.example.MyKeyGenerator"},
    {"hoodie.table.keygenerator.type": "USER_PROVIDED"},
])
def test_key_generation_hudi_log_does_not_do_as_java_is_refused_before_a_byte(tmp_path, setting):
    from hudi_log.table.properties import write_properties
    from hudi_log.table.write.create import UnsupportedKeyGeneratorError

    (key, value), = setting.items()
    asked = key.replace("hoodie.table.", "hoodie.datasource.write.") if "keygenerator" in key else key
    with pytest.raises(UnsupportedKeyGeneratorError, match=f"{asked}={value}"):  # creating a table with it
        write_table(tmp_path / "new", rows([1], "a", 1), "insert", opts(**{asked: value}))
    assert not (tmp_path / "new").exists()
    path = tmp_path / "t"
    write_table(path, rows([1], "a", 1), "insert", opts())
    write_properties(path, {**read_properties(path).to_dict(), **setting})  # as a Java writer left the table
    before = sorted(str(p.relative_to(path)) for p in path.rglob("*"))
    with pytest.raises(UnsupportedKeyGeneratorError, match=f"{key}={value}.*Apache Hudi"):
        write_table(path, rows([1], "b", 2), "upsert", opts())
    assert sorted(str(p.relative_to(path)) for p in path.rglob("*")) == before


def test_the_corpus_complex_key_table_is_written_without_a_second_copy_of_a_key(tmp_path, corpus_tables):
    import shutil

    name = "sample_table_cow_v6_complexkeygen_hivestyle"
    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    t = read_table(path)
    n, keys = t.num_rows, t.column("_hoodie_record_key").to_pylist()
    data = t.slice(0, 1).drop_columns([c for c in t.column_names if c.startswith("_hoodie")])
    write_table(path, data, "upsert", {"hoodie.metadata.enable": "false"})
    after = read_table(path)
    assert after.num_rows == n and sorted(after.column("_hoodie_record_key").to_pylist()) == sorted(keys)


@pytest.mark.parametrize("version", [6, 8])
def test_a_write_under_a_compaction_scheduled_after_it_began_stops(tmp_path, monkeypatch, version):
    """The race a compaction process without a lock leaves: it checks that no write is in flight, a write
    requests its instant, then the compaction is scheduled with a later time. Appended under that compaction,
    the write's blocks would sit in a slice named after a later instant, invisible as of the write. The write
    stops instead (typed, rolled back), and the next one writes under the compaction."""
    import hudi_log.table.services.compaction as compaction_mod
    import hudi_log.table.write.client as client_mod

    path = tmp_path / "t"
    o = opts(version=version, **{"hoodie.parquet.small.file.limit": "0"})
    write_table(path, rows(range(4), "a", 1), "insert", o)
    write_table(path, rows([1], "b", 2), "upsert", o)  # a log to compact
    real_start = client_mod._start_instant

    def start_then_compaction_sneaks_in(*args, **kw):
        got = real_start(*args, **kw)
        with monkeypatch.context() as m:
            m.setattr(compaction_mod, "incomplete_commits", lambda tl: [])  # its check ran before this instant
            assert schedule_compaction(path, o) is not None
        return got

    monkeypatch.setattr(client_mod, "_start_instant", start_then_compaction_sneaks_in)
    with pytest.raises(ConcurrentWriterError, match="scheduled after this write"):
        write_table(path, rows([2], "c", 3), "upsert", o)
    monkeypatch.setattr(client_mod, "_start_instant", real_start)
    r = write_table(path, rows([2], "c", 3), "upsert", o)
    assert table(path) == {"k0": "a", "k1": "b", "k2": "c", "k3": "a"}
    assert {r["id"]: r["val"] for r in read_table(path, as_of=r.instant).to_pylist()}["k2"] == "c"
