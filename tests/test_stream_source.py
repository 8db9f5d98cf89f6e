"""The streaming source's offsets and micro-batches without a Spark query (issue 18, item 2): the reader's
methods are what Spark calls on the driver and in the tasks. Real streams: tests/test_spark_streaming.py."""

from __future__ import annotations

import pyarrow as pa
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")

from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows  # noqa: E402

from hudi_log.spark.source import HudiDataSource, HudiReadError  # noqa: E402
from hudi_log.spark.stream_source import INIT_INSTANT_TS, OFFSET_KEY  # noqa: E402
from hudi_log.table import read_properties  # noqa: E402
from hudi_log.table.timeline.timeline import Timeline  # noqa: E402
from hudi_log.table.write.client import begin_write, write_table  # noqa: E402


def opts(version):
    return {"hoodie.table.name": "src", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
            "hoodie.write.table.version": str(version)}


def write(t, version, ids, ts, name):
    return write_table(t, pa.table({"id": ids, "name": [name] * len(ids), "ts": [ts] * len(ids)}), None, opts(version))


def reader(t, **options):
    o = {"path": str(t), **options}
    ds = HudiDataSource(o)
    return ds.streamReader(ds.schema())


def batch_rows(r, start, end) -> list[tuple]:
    out = []
    for p in r.partitions(start, end):
        for b in r.read(p):
            out += [(x["id"], x["name"]) for x in b.to_pylist()]
    return sorted(out)


@pytest.mark.parametrize("version", [6, 8])
def test_batches_read_each_change_once(tmp_path, version):
    t = tmp_path / "t"
    write(t, version, [1, 2], 1, "a")
    r = reader(t)
    start = r.initialOffset()
    assert start == {OFFSET_KEY: INIT_INSTANT_TS}  # earliest, Java's HoodieSourceOffset.INIT_OFFSET
    end1 = r.latestOffset(start, ReadAllAvailable())
    assert batch_rows(r, start, end1) == [(1, "a"), (2, "a")]
    assert r.latestOffset(end1, ReadAllAvailable()) == end1  # nothing new
    write(t, version, [2, 3], 2, "b")
    end2 = r.latestOffset(end1, ReadAllAvailable())
    assert end2 != end1 and batch_rows(r, end1, end2) == [(2, "b"), (3, "b")]
    # a restarted query gets its committed offset back from Spark and continues from there
    again = reader(t)
    write(t, version, [4], 3, "c")
    end3 = again.latestOffset(end2, ReadAllAvailable())
    assert batch_rows(again, end2, end3) == [(4, "c")]


def test_offsets_are_completion_times_on_version_8(tmp_path):
    t = tmp_path / "t"
    done = write(t, 8, [1], 1, "a")
    r = reader(t)
    assert r.latestOffset(r.initialOffset(), ReadAllAvailable()) == {OFFSET_KEY: done.completion_time}


def test_start_offset_latest_and_instant(tmp_path):
    t = tmp_path / "t"
    first = write(t, 8, [1], 1, "a")
    latest = reader(t, **{"hoodie.datasource.streaming.startOffset": "latest"})
    start = latest.initialOffset()
    assert latest.latestOffset(start, ReadAllAvailable()) == start  # nothing before it is read
    write(t, 8, [2], 2, "b")
    assert batch_rows(latest, start, latest.latestOffset(start, ReadAllAvailable())) == [(2, "b")]
    at = reader(t, **{"hoodie.datasource.streaming.startOffset": first.completion_time})
    s = at.initialOffset()
    assert batch_rows(at, s, at.latestOffset(s, ReadAllAvailable())) == [(2, "b")]
    with pytest.raises(HudiReadError, match="startOffset"):
        reader(t, **{"hoodie.datasource.streaming.startOffset": "yesterday"})


def test_rate_limit_in_whole_commits(tmp_path):
    t = tmp_path / "t"
    for i in range(3):
        write(t, 8, [10 * i + 1, 10 * i + 2], i, f"c{i}")
    r = reader(t, **{"hudi_log.streaming.maxRowsPerTrigger": "3"})
    assert r.getDefaultReadLimit() == ReadMaxRows(3)
    start, seen = r.initialOffset(), []
    while True:  # 2 rows a commit, 3 rows a batch: one commit a batch
        end = r.latestOffset(start, r.getDefaultReadLimit())
        if end == start:
            break
        seen.append(batch_rows(r, start, end))
        start = end
    assert [len(b) for b in seen] == [2, 2, 2]
    # Trigger.AvailableNow: the offset at its start is the last one read
    r.prepareForTriggerAvailableNow()
    write(t, 8, [99], 9, "late")
    assert r.latestOffset(start, ReadAllAvailable()) == start
    with pytest.raises(HudiReadError, match="maxRowsPerTrigger"):
        reader(t, **{"hudi_log.streaming.maxRowsPerTrigger": "0"})


def test_version_6_waits_for_an_earlier_pending_write(tmp_path):
    """Offsets are requested times below version 8: a write requested before a completed one must not be
    passed over while it is still pending (it will complete with an older commit time)."""
    t = tmp_path / "t"
    occ = {**opts(6), "hoodie.write.concurrency.mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
           "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.InProcessLockProvider"}
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("ts", pa.int64())])
    write_table(t, pa.table({"id": [1], "name": ["a"], "ts": [1]}), None, occ)
    r = reader(t)
    end1 = r.latestOffset(r.initialOffset(), ReadAllAvailable())
    slow = begin_write(t, None, occ, schema=schema)
    try:
        write_table(t, pa.table({"id": [2], "name": ["b"], "ts": [1]}), None, occ)  # completes first
        assert r.latestOffset(end1, ReadAllAvailable()) == end1
    finally:
        slow.abort()
    end2 = r.latestOffset(end1, ReadAllAvailable())
    assert batch_rows(r, end1, end2) == [(2, "b")]
    assert Timeline(t, read_properties(t)).pending() == []


CDC = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.query.incremental.format": "cdc"}


def cdc_rows(r, start, end) -> list[tuple]:
    out = []
    for p in r.partitions(start, end):
        out += [(x["op"], x["ts_ms"]) for b in r.read(p) for x in b.to_pylist()]
    return out


@pytest.mark.parametrize("version", [6, 8])
def test_cdc_batches_carry_each_change_once_deletes_included(tmp_path, version):
    """With the cdc format the stream's rows are Hudi's CDC rows (op, ts_ms, before, after): a delete reaches
    the consumer as ``d``, and a restarted query continues after its offset."""
    t = tmp_path / "t"
    o = {**opts(version), "hoodie.table.cdc.enabled": "true"}
    c1 = write_table(t, pa.table({"id": [1, 2], "name": ["a", "a"], "ts": [1, 1]}), None, o).instant
    r = reader(t, **CDC)
    assert [f.name for f in HudiDataSource({"path": str(t), **CDC}).schema().fields] == ["op", "ts_ms", "before", "after"]
    start = r.initialOffset()
    end1 = r.latestOffset(start, ReadAllAvailable())
    assert cdc_rows(r, start, end1) == [("i", c1), ("i", c1)]
    c2 = write_table(t, pa.table({"id": [1], "name": ["b"], "ts": [2]}), None, o).instant
    c3 = write_table(t, pa.table({"id": [2], "name": ["x"], "ts": [3]}), "delete", o).instant
    again = reader(t, **CDC)
    end2 = again.latestOffset(end1, ReadAllAvailable())
    assert cdc_rows(again, end1, end2) == [("u", c2), ("d", c3)]
    assert again.latestOffset(end2, ReadAllAvailable()) == end2


def test_cdc_stream_of_a_table_without_cdc_is_refused(tmp_path):
    t = tmp_path / "t"
    write(t, 8, [1], 1, "a")
    with pytest.raises(HudiReadError, match="hoodie.table.cdc.enabled=true"):
        reader(t, **CDC)


def test_cdc_batch_reader_needs_begin_and_reads_by_instant(tmp_path):
    t = tmp_path / "t"
    o = {**opts(6), "hoodie.table.cdc.enabled": "true"}
    c1 = write_table(t, pa.table({"id": [1], "name": ["a"], "ts": [1]}), None, o).instant
    c2 = write_table(t, pa.table({"id": [1], "name": ["b"], "ts": [2]}), None, o).instant
    ds = HudiDataSource({"path": str(t), **CDC})
    with pytest.raises(HudiReadError, match="hoodie.datasource.read.begin.instanttime"):
        ds.reader(ds.schema())
    ds = HudiDataSource({"path": str(t), **CDC, "hoodie.datasource.read.begin.instanttime": c1})
    r = ds.reader(ds.schema())
    assert [p.requested_time for p in r.partitions()] == [c2]
    assert [(x["op"], x["ts_ms"]) for p in r.partitions() for b in r.read(p) for x in b.to_pylist()] == [("u", c2)]
