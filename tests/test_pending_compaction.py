"""Pending compaction: log files written after a compaction was requested form a new file slice based on
the compaction instant; readers merge it with the slice before it (base file + older logs + newer logs),
as Hudi's ``getLatestMergedFileSlicesBeforeOrOn`` does. Synthetic tables (v6: layout 1, log files named
after their slice's base instant; v8: layout 2, log files named after their own delta commit), checked
against the expected rows and against hudi-rs."""

from __future__ import annotations

import io
import json
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log.log.append_handle import AppendHandle, schema_json, writer_schema
from hudi_log.format.content.avro_arrow import avro_to_arrow_schema
from hudi_log.table import HudiTable, read_table

from test_hudi_rs_interop import COMMIT_METADATA_AVRO, SCHEMA, add_partition, hudi_rs_rows, init_table, trip

hudi = pytest.importorskip("hudi")

I1, I2, I3, I4 = "20250701100000000", "20250701110000000", "20250701120000000", "20250701130000000"
PART, FID = "city=sf", "c0ffee00-0000-4000-8000-000000000001-0"
COMPACTION_PLAN_AVRO = {
    "type": "record", "name": "HoodieCompactionPlan", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "operations", "type": ["null", {"type": "array", "items": {
            "type": "record", "name": "HoodieCompactionOperation", "fields": [
                {"name": "baseInstantTime", "type": ["null", "string"], "default": None},
                {"name": "deltaFilePaths", "type": ["null", {"type": "array", "items": "string"}], "default": None},
                {"name": "dataFilePath", "type": ["null", "string"], "default": None},
                {"name": "fileId", "type": ["null", "string"], "default": None},
                {"name": "partitionPath", "type": ["null", "string"], "default": None},
            ]}}], "default": None},
        {"name": "version", "type": ["int", "null"], "default": 1},
    ],
}


def _timeline(base: Path, v: int) -> Path:
    return base / ".hoodie" if v < 8 else base / ".hoodie" / "timeline"


def _complete(base: Path, v: int, instant: str, stats: list[dict]) -> None:
    meta = {"partitionToWriteStats": {PART: stats}, "compacted": False,
            "extraMetadata": {"schema": schema_json(SCHEMA)}, "operationType": "UPSERT"}
    tl = _timeline(base, v)
    (tl / f"{instant}.deltacommit.requested").write_bytes(b"")
    (tl / f"{instant}.deltacommit.inflight").write_bytes(b"")
    if v < 8:
        (tl / f"{instant}.deltacommit").write_text(json.dumps(meta))
    else:
        with open(tl / f"{instant}_{int(instant) + 999}.deltacommit", "wb") as f:
            fastavro.writer(f, fastavro.parse_schema(COMMIT_METADATA_AVRO), [{**meta, "version": 1}])


def _base_file(base: Path, instant: str, rows: list[dict]) -> str:
    name = f"{FID}_0-1-0_{instant}.parquet"
    full = [{"_hoodie_commit_time": instant, "_hoodie_commit_seqno": f"{instant}_0_{n}",
             "_hoodie_record_key": r["uuid"], "_hoodie_partition_path": PART, "_hoodie_file_name": name, **r}
            for n, r in enumerate(rows)]
    pq.write_table(pa.Table.from_pylist(full, schema=avro_to_arrow_schema(writer_schema(SCHEMA))), base / PART / name)
    return name


def build(base: Path, v: int, plan: bool = True) -> dict:
    """I1 base file (6 rows), I2 log update, I3 compaction requested (never run), I4 log update + insert."""
    init_table(base, v)
    add_partition(base, PART, I1)
    rows = {r["uuid"]: r for r in (trip(i, "sf") for i in range(6))}
    name = _base_file(base, I1, list(rows.values()))
    _complete(base, v, I1, [{"fileId": FID, "path": f"{PART}/{name}", "prevCommit": "null", "numWrites": 6,
                             "partitionPath": PART, "baseFile": name}])
    h = AppendHandle(str(base), PART, FID, I2, SCHEMA, "uuid", table_version=v, base_instant=I1, seqno_start=1)
    for i in (1, 2):
        rows[f"uuid-{i:03d}"] = trip(i, "sf", ts=10, fare=50.0 + i)
        h.write(rows[f"uuid-{i:03d}"])
    _complete(base, v, I2, [h.close().hudi_write_stat(name)])
    tl = _timeline(base, v)
    content = b""
    if plan:
        buf = io.BytesIO()
        fastavro.writer(buf, fastavro.parse_schema(COMPACTION_PLAN_AVRO), [{"operations": [
            {"baseInstantTime": I1, "deltaFilePaths": [], "dataFilePath": name, "fileId": FID, "partitionPath": PART}],
            "version": 2}])
        content = buf.getvalue()
    (tl / f"{I3}.compaction.requested").write_bytes(content)
    h = AppendHandle(str(base), PART, FID, I4, SCHEMA, "uuid", table_version=v, base_instant=I3, seqno_start=1)
    rows["uuid-002"] = trip(2, "sf", ts=20, fare=70.0)
    rows["uuid-009"] = trip(9, "sf")
    h.write(rows["uuid-002"])
    h.write(rows["uuid-009"], is_update=False)
    _complete(base, v, I4, [h.close().hudi_write_stat()])
    return rows


@pytest.mark.parametrize("v,plan", [(6, True), (6, False), (8, True), (8, False)])
def test_logs_after_a_requested_compaction_merge_with_the_previous_slice(tmp_path, v, plan):
    base = tmp_path / "t"
    expected = build(base, v, plan)
    table = HudiTable(base)
    fs = table.view()
    group = fs.file_groups[PART][0]
    if plan or v < 8:  # the plan (or, v6, a log file named after I3) makes the pending slice
        assert [s.base_instant for s in group.slices] == [I1, I3]
        assert group.slices[-1].base_file is None and group.slices[-1].log_files
    (merged,) = fs.latest_file_slices()
    assert merged.base_file is not None and merged.base_file.instant == I1
    # the previous slice's log, then the one written after the request (v6 names it after I3)
    assert [lf.instant for lf in merged.log_files] == ([I1, I3] if v < 8 else [I2, I4])
    got = {r["uuid"]: r for r in read_table(base).to_pylist()}
    assert {k: {f: r[f] for f in expected[k]} for k, r in got.items()} == expected
    assert got["uuid-002"]["_hoodie_commit_time"] == I4 and got["uuid-001"]["_hoodie_commit_time"] == I2
    # read-optimized: the previous slice's base file only
    ro = read_table(base, query="read_optimized")
    assert sorted(ro.column("uuid").to_pylist()) == [f"uuid-{i:03d}" for i in range(6)]
    # time travel to before the compaction request: no I4 rows
    assert "uuid-009" not in read_table(base, as_of=I2).column("uuid").to_pylist()


def _cols(r):
    return {c: r[c] for c in ("fare", "ts", "_hoodie_commit_time")}


def test_pending_compaction_v8_matches_hudi_rs(tmp_path):
    base = tmp_path / "t"
    build(base, 8)
    ours = {r["uuid"]: _cols(r) for r in read_table(base).to_pylist()}
    assert ours == {r["uuid"]: _cols(r) for r in hudi_rs_rows(base)}


def test_pending_compaction_v6_differs_from_hudi_rs(tmp_path):
    # hudi-rs 0.5.0 reads a v6 group's latest slice only by the base instant in log names, so it drops the
    # log written after the compaction request (named after I3). Java's file index merges the two slices;
    # we follow Java. The rows hudi-rs does return equal ours as of I2.
    base = tmp_path / "t"
    build(base, 6)
    theirs = {r["uuid"]: _cols(r) for r in hudi_rs_rows(base)}
    assert theirs == {r["uuid"]: _cols(r) for r in read_table(base, as_of=I2).to_pylist()}
    ours = {r["uuid"]: _cols(r) for r in read_table(base).to_pylist()}
    assert set(ours) - set(theirs) == {"uuid-009"} and ours["uuid-002"]["_hoodie_commit_time"] == I4


def test_a_version_1_plan_with_full_paths_is_taken_by_file_names():
    """Plan version 1 held full paths; Java's CompactionV2MigrationHandler keeps their names, for data and
    metadata tables alike (one CompactionOperation, timeline/compaction_plan.py); a name is then looked up in
    the operation's partition folder only, so a path pointing elsewhere cannot lead outside it."""
    from hudi_log.table.timeline.compaction_plan import CompactionOperation

    op = CompactionOperation.from_record({
        "baseInstantTime": "001", "fileId": "f1", "partitionPath": "p",
        "dataFilePath": "s3://bucket/elsewhere/p/f1_0-1-0_001.parquet",
        "deltaFilePaths": ["/tmp/../etc/.f1_001.log.1_0-1-0", "hdfs://nn/t/p/.f1_001.log.2_0-1-0"]})
    assert op.base_file == "f1_0-1-0_001.parquet"
    assert op.log_files == (".f1_001.log.1_0-1-0", ".f1_001.log.2_0-1-0")
    assert CompactionOperation.from_record(op.to_record()) == op
