"""Real Spark Structured Streaming queries through the ``hudi_log`` source and sink (issue 18, items 1
and 2): small file streams, Trigger.AvailableNow, queries stopped and restarted from their checkpoints.
The driver-side logic is tested without Spark in test_stream_sink.py / test_stream_source.py."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log.spark.stream_sink import QUERY_ID_KEY, SINK_CHECKPOINT_KEY
from hudi_log.table import read_properties, read_table
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.client import write_table

pytestmark = pytest.mark.slow
TIMEOUT = 300  # seconds a query may take on a busy 2-core box

OPTS = {"hoodie.table.name": "events", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.datasource.compaction.async.enable": "false"}
SCHEMA = "id long, name string, ts long, _hoodie_is_deleted boolean"


def drop(folder, name, ids, ts, names, deleted=None):
    """A file arrives: Spark's file stream takes files in modification-time order, and two written in the
    same millisecond come in either order, so each is given a time a second after the one before."""
    folder.mkdir(exist_ok=True)
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "name": names, "ts": pa.array([ts] * len(ids), pa.int64()),
                             "_hoodie_is_deleted": deleted or [False] * len(ids)}), folder / name)
    stamp = 1_700_000_000 + len(list(folder.iterdir()))
    os.utime(folder / name, (stamp, stamp))


def run(query) -> None:
    assert query.awaitTermination(TIMEOUT), "the streaming query did not finish in time"
    assert query.exception() is None, query.exception()


def sink_commits(path) -> list[dict]:
    tl = Timeline(path, read_properties(path))
    return [tl.commit_metadata(i).get("extraMetadata", {}) for i in tl.completed_commits()]


def test_sink_one_commit_per_batch_and_replay_skipped(spark, tmp_path):
    src, table, ckpt = tmp_path / "in", tmp_path / "table", tmp_path / "ckpt"
    drop(src, "0.parquet", [1, 2, 3], 1, ["a", "b", "c"])
    drop(src, "1.parquet", [1, 2, 4], 2, ["x", "y", "z"], [True, False, False])  # 1 deleted by its flag

    def start():
        stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(src))
        return (stream.writeStream.format("hudi_log").options(**OPTS).option("checkpointLocation", str(ckpt))
                .trigger(availableNow=True).start(str(table)))

    q = start()
    run(q)
    rows = {r["id"]: r["name"] for r in read_table(table).to_pylist()}
    assert rows == {2: "y", 3: "c", 4: "z"}
    extra = sink_commits(table)
    assert [json.loads(e[SINK_CHECKPOINT_KEY]) for e in extra] == [{"default_single_writer": "0"},
                                                                     {"default_single_writer": "1"}]
    assert {e[QUERY_ID_KEY] for e in extra} == {str(q.id)}
    # a crash after the Hudi commit of batch 1 but before Spark recorded it: Spark runs batch 1 again
    for name in ("1", ".1.crc"):  # Spark's record of batch 1 and Hadoop's checksum of it
        (ckpt / "commits" / name).unlink(missing_ok=True)
    run(start())
    assert len(sink_commits(table)) == 2, "the replayed batch was written twice"
    assert {r["id"]: r["name"] for r in read_table(table).to_pylist()} == rows
    assert not (table / ".hoodie" / ".aux" / ".hudi_log" / "streaming").exists() or not any(
        (table / ".hoodie" / ".aux" / ".hudi_log" / "streaming").rglob("*.arrow")), "staged rows left behind"


def test_source_continues_from_its_checkpoint(spark, tmp_path):
    table, out, ckpt = tmp_path / "table", tmp_path / "out", tmp_path / "ckpt"
    o = {**OPTS, "hoodie.write.table.version": "8"}
    for i, (ids, name) in enumerate([([1, 2], "a"), ([3], "b")]):
        write_table(table, pa.table({"id": ids, "name": [name] * len(ids), "ts": [i] * len(ids)}), None, o)

    def start():
        return (spark.readStream.format("hudi_log").load(str(table))
                .select("id", "name", "_hoodie_commit_time")
                .writeStream.format("parquet").option("checkpointLocation", str(ckpt))
                .trigger(availableNow=True).start(str(out)))

    run(start())
    write_table(table, pa.table({"id": [1, 4], "name": ["c", "c"], "ts": [5, 5]}), None, o)
    run(start())
    seen = sorted((r["id"], r["name"]) for r in spark.read.parquet(str(out)).collect())
    # every change once: the first run's three rows, the second run's update of 1 and insert of 4
    assert seen == [(1, "a"), (1, "c"), (2, "a"), (3, "b"), (4, "c")]


def test_sink_async_compaction_beside_micro_batches(spark, tmp_path):
    """The default for MERGE_ON_READ: each compaction scheduled after a micro-batch's commit and run in the
    background while the next batches write; the table then equals a batch write of the same rows, every
    compaction completed, the metadata table in step, nothing left pending."""
    from hudi_log.spark.stream_services import wait_for_compactions
    from hudi_log.table.metadata_files import compare_with_storage

    src, table, ckpt = tmp_path / "in", tmp_path / "table", tmp_path / "ckpt"
    expect = {}
    for b in range(6):  # keys 0..199 updated every batch, 200 new keys a batch
        ids = list(range(200)) + list(range(200 * (b + 1), 200 * (b + 2)))
        drop(src, f"{b}.parquet", ids, b, [f"v{b}"] * len(ids))
        expect.update({i: f"v{b}" for i in ids})
    o = {**OPTS, "hoodie.datasource.compaction.async.enable": "true", "hoodie.parquet.small.file.limit": "0",
         "hoodie.compact.inline.max.delta.commits": "2"}
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(src))
    run(stream.writeStream.format("hudi_log").options(**o).option("checkpointLocation", str(ckpt))
        .trigger(availableNow=True).start(str(table)))
    # the query's end does not join the commit worker's compaction service (no stop hook): wait for it
    assert wait_for_compactions(table, TIMEOUT) == []
    tl = Timeline(table, read_properties(table))
    assert [i.action for i in tl.completed_commits()].count("commit") >= 2  # compactions completed
    assert not tl.pending(), [str(i) for i in tl.pending()]
    assert {r["id"]: r["name"] for r in read_table(table).to_pylist()} == expect
    batch_t = tmp_path / "batch"
    write_table(batch_t, pa.table({"id": list(expect), "name": list(expect.values()), "ts": [9] * len(expect)}),
                None, OPTS)
    assert {r["id"]: r["name"] for r in read_table(batch_t).to_pylist()} == expect
    assert compare_with_storage(table) == []
