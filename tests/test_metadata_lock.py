"""Processes that share a single-writer table (a writer beside a compaction process, which hudi-log allows
while heartbeats keep their writes apart) meet in the one metadata table every action ends by syncing. The
concurrency stress test found a writer's half-written metadata deltacommit rolled back as a failed one by a
compaction that synced at the same moment: the write completed, its files missing from the metadata table's
listing, and the next write's merge lost its rows. Every metadata-table change is now made under the metadata
lock (``hudi_log.table.concurrency.lock.metadata_lock``); here the two meet on purpose, in two threads."""

from __future__ import annotations

import threading
import time

import pyarrow as pa

from hudi_log.table import read_table
from hudi_log.table.concurrency.config import concurrency_config
from hudi_log.table.concurrency.lock import HOLDER_CHECK_EVERY_S, metadata_lock
from hudi_log.table.metadata import writer as mdt_writer
from hudi_log.table.metadata_files import compare_with_storage
from hudi_log.table.services.compaction import run_compaction, schedule_compaction
from hudi_log.table.write.client import write_table

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
OPTS = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


def rows(keys, val, ts, part):
    return pa.Table.from_pylist([{"id": k, "val": val, "ts": ts, "part": part} for k in keys], schema=SCHEMA)


def test_a_sync_beside_another_waits_and_rolls_nothing_back(tmp_path, monkeypatch):
    path = tmp_path / "t"
    write_table(path, rows(["a1", "a2"], "init", 1, "pa"), "insert", OPTS)
    write_table(path, rows(["b1", "b2"], "init", 1, "pb"), "insert", OPTS)
    write_table(path, rows(["b1"], "b:1", 2, "pb"), "upsert", OPTS)  # a log file for the compaction to take
    compaction = schedule_compaction(path, {"hoodie.compact.inline.max.delta.commits": "1"})
    assert compaction is not None

    # the writer of partition pa stops inside its metadata deltacommit (requested and inflight on the
    # metadata timeline, its log file written, not yet completed) until the compaction has had its chance to
    # sync
    paused, resume = threading.Event(), threading.Event()
    real = mdt_writer.LogWriter

    class PausingLogWriter(real):
        def append_blocks(self, blocks):
            appended = super().append_blocks(blocks)
            if threading.current_thread().name == "writer-a" and not paused.is_set():
                paused.set()
                resume.wait(10)
            return appended

    monkeypatch.setattr(mdt_writer, "LogWriter", PausingLogWriter)
    errors: list[BaseException] = []

    def write_a():
        try:
            write_table(path, rows(["a1"], "a:1", 2, "pa"), "upsert", OPTS)
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    a = threading.Thread(target=write_a, name="writer-a")
    a.start()
    assert paused.wait(30)
    threading.Timer(1.0, resume.set).start()  # the compaction below waits for the lock until writer a is done
    run_compaction(path, compaction)
    a.join(30)
    assert not errors, errors

    assert compare_with_storage(path) == []  # writer a's log file is listed: its deltacommit was not undone
    got = {r["id"]: r["val"] for r in read_table(path).to_pylist()}
    assert got == {"a1": "a:1", "a2": "init", "b1": "b:1", "b2": "init"}
    write_table(path, rows(["a2"], "a:2", 3, "pa"), "upsert", OPTS)
    got = {r["id"]: r["val"] for r in read_table(path).to_pylist()}
    assert got == {"a1": "a:1", "a2": "a:2", "b1": "b:1", "b2": "init"}


def test_the_metadata_lock_is_reentrant_and_released(tmp_path):
    path = tmp_path / "t"
    write_table(path, rows(["a1"], "init", 1, "pa"), "insert", OPTS)
    config = concurrency_config(OPTS)
    with metadata_lock(path, config):
        with metadata_lock(path, config):  # a sync inside the services' run: the same holder
            assert (path / ".hoodie" / ".aux" / "metadata_sync" / "lock").exists()
    assert not (path / ".hoodie" / ".aux" / "metadata_sync" / "lock").exists()


def test_a_killed_holders_metadata_lock_is_taken_over_at_once(tmp_path):
    """A process killed while it syncs leaves the lock file; on the same host its pid is gone, so the next
    sync takes the lock at once (within half a second) rather than after the expiry (the heartbeat timeout,
    2 minutes by default)."""
    import subprocess
    import sys

    path = tmp_path / "t"
    write_table(path, rows(["a1"], "init", 1, "pa"), "insert", OPTS)
    code = ("import sys, time; from hudi_log.table.concurrency.config import concurrency_config; "
            "from hudi_log.table.concurrency.lock import metadata_lock; "
            "metadata_lock(sys.argv[1], concurrency_config(None)).acquire(); print('held', flush=True); "
            "time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    lock_file = path / ".hoodie" / ".aux" / "metadata_sync" / "lock"
    assert lock_file.exists()
    lock = metadata_lock(path, concurrency_config(None))
    assert not lock.provider.try_lock()  # alive: held
    holder.kill()
    holder.wait()
    time.sleep(HOLDER_CHECK_EVERY_S)  # a waiter looks at the lock's holder that often
    assert lock.provider.try_lock()  # one attempt, long before the expiry: its holder is seen dead
    lock.provider.unlock()
    write_table(path, rows(["a1"], "a:1", 2, "pa"), "upsert", OPTS)
    assert {r["id"]: r["val"] for r in read_table(path).to_pylist()} == {"a1": "a:1"}
    assert not lock_file.exists()
