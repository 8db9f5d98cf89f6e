"""AppendHandle (records, deletes, meta fields, block sizing, Parquet and rollback blocks) and the
`write-block` command."""

from __future__ import annotations

import datetime
import decimal
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hudi_log import open_log
from hudi_log.log.append_handle import (
    DEFAULT_MAX_BLOCK_SIZE,
    META_FIELDS,
    AppendHandle,
    AppendHandleError,
    RecordError,
    arrow_to_avro_schema,
    avro_to_arrow_schema,
    schema_json,
    writer_schema,
)
from hudi_log.cli import main as cli
from hudi_log.format.content.deletes import OrderingKind
from hudi_log.format.grammar import BlockType
from hudi_log.format.log_file_name import LogFileName
from hudi_log.log.storage import Storage

INSTANT = "20250101120000000"
FILE_ID = "5d3a6f0e-1111-2222-3333-444455556666-0"
TABLE = {
    "type": "record", "name": "trips_record", "namespace": "hoodie.trips",
    "fields": [
        {"name": "ts", "type": ["null", "long"], "default": None},
        {"name": "uuid", "type": ["null", "string"], "default": None},
        {"name": "rider", "type": ["null", "string"], "default": None},
        {"name": "fare", "type": ["null", "double"], "default": None},
        {"name": "city", "type": ["null", "string"], "default": None},
    ],
}


def trip(i: int, **kw) -> dict:
    return {"ts": 1000 + i, "uuid": f"uuid-{i:05d}", "rider": f"rider-{i}", "fare": 10.0 + i, "city": "sf", **kw}


def handle(tmp_path, **kw) -> AppendHandle:
    args = dict(table_version=6, seqno_start=1)
    args.update(kw)
    return AppendHandle(str(tmp_path), args.pop("partition_path", "city=sf"), FILE_ID, INSTANT, args.pop("schema", TABLE),
                        args.pop("key", "uuid"), **args)


def blocks_of(tmp_path, stats, partition="city=sf"):
    out = []
    for name in stats.log_files:
        out += list(open_log(Path(tmp_path, partition, name)))
    return out


# ================================================================================================
# Meta fields, schema, headers


def test_writer_schema_is_hudis():
    s = writer_schema(TABLE)
    assert [f["name"] for f in s["fields"]] == list(META_FIELDS) + [f["name"] for f in TABLE["fields"]]
    assert s["fields"][0] == {"name": "_hoodie_commit_time", "type": ["null", "string"], "doc": "", "default": None}
    assert list(s)[:4] == ["type", "name", "namespace", "fields"]
    assert writer_schema(s) == s  # idempotent
    with pytest.raises(AppendHandleError):
        writer_schema({"type": "record", "name": "x", "fields": [{"name": "_hoodie_record_key", "type": "string"}]})


def test_meta_fields_and_headers(tmp_path):
    h = handle(tmp_path, task_partition_id=3, stage_id=7, attempt_id=9)
    for i in range(3):
        h.write(trip(i))
    stats = h.close()
    assert stats.log_files == [f".{FILE_ID}_{INSTANT}.log.1_3-7-9"]
    [block] = blocks_of(tmp_path, stats)
    assert block.block_type == BlockType.avro_data_block
    assert [k for k, _ in block.header_entries] == sorted(k for k, _ in block.header_entries)
    assert block.header == {"INSTANT_TIME": INSTANT, "SCHEMA": schema_json(writer_schema(TABLE))}
    recs = block.records()
    for i, r in enumerate(recs):
        assert r["_hoodie_commit_time"] == INSTANT
        assert r["_hoodie_commit_seqno"] == f"{INSTANT}_3_{i + 1}"
        assert r["_hoodie_record_key"] == f"uuid-{i:05d}"
        assert r["_hoodie_partition_path"] == "city=sf"
        assert r["_hoodie_file_name"] == FILE_ID
        assert {k: r[k] for k in trip(i)} == trip(i)


def test_non_partitioned_and_meta_fields_in_input(tmp_path):
    h = handle(tmp_path, partition_path="")
    h.write({**trip(1), "_hoodie_commit_time": "bogus", "_hoodie_record_key": "bogus"})
    stats = h.close()
    [block] = list(open_log(Path(tmp_path, stats.log_files[0])))
    r = block.records()[0]
    assert r["_hoodie_partition_path"] == "" and r["_hoodie_commit_time"] == INSTANT
    assert r["_hoodie_record_key"] == "uuid-00001"
    assert stats.path == stats.log_files[0]


def test_process_wide_seqno_counter(tmp_path):
    a = handle(tmp_path / "a", seqno_start=None)
    a.write(trip(0))
    b = handle(tmp_path / "b", seqno_start=None)
    b.write(trip(1))
    a.write(trip(2))
    sa, sb = a.close(), b.close()
    seq = lambda p, s: [int(r["_hoodie_commit_seqno"].rsplit("_", 1)[1]) for r in blocks_of(p, s)[0].records()]  # noqa: E731
    first_a, second_a = seq(tmp_path / "a", sa)
    [only_b] = seq(tmp_path / "b", sb)
    assert first_a < only_b < second_a  # one counter, like Hudi's JVM-wide one


def test_complex_and_callable_keys(tmp_path):
    h = handle(tmp_path / "c", key=["uuid", "rider"])
    h.write(trip(1))
    h.write(trip(2, ts=None))
    stats = h.close()
    keys = [r["_hoodie_record_key"] for r in blocks_of(tmp_path / "c", stats)[0].records()]
    assert keys == ["uuid:uuid-00001,rider:rider-1", "uuid:uuid-00002,rider:rider-2"]
    h = handle(tmp_path / "f", key=lambda r: r["ts"] * 2)
    h.write(trip(1))
    stats = h.close()
    assert blocks_of(tmp_path / "f", stats)[0].records()[0]["_hoodie_record_key"] == "2002"
    with pytest.raises(AppendHandleError):
        handle(tmp_path / "x", key="nope")


def test_reproduces_hudis_corpus_log_files(corpus_log_files, tmp_path):
    """Every data-table log file of the corpus, rewritten from its records and deletes by the append
    handle: same name, same content bytes, same headers; the same file bytes where Hudi happened
    to write the header in ascending key order (Java's order is a HashMap's)."""
    checked = {"avro": 0, "delete": 0, "rollback": 0, "parquet": 0, "byte_identical_files": 0}
    for n, path in enumerate(p for p in corpus_log_files if "metadata" not in p.parts):
        blocks = list(open_log(path))
        lf = LogFileName.parse(path.name)
        instant = blocks[0].instant_time
        out_dir = tmp_path / f"f{n}"
        schema_text = next((b.schema for b in blocks if b.schema), None)
        table = json.loads(schema_text) if schema_text else TABLE
        table = {**table, "fields": [f for f in table["fields"] if f["name"] not in META_FIELDS]}
        first = next((b.records()[0] for b in blocks if b.block_type in (BlockType.avro_data_block, BlockType.parquet_data_block)), None)
        partition = first["_hoodie_partition_path"] if first else ""
        fmt = "parquet" if any(b.block_type == BlockType.parquet_data_block for b in blocks) else "avro"
        current = {}
        h = AppendHandle(
            str(tmp_path), partition, lf.file_id, instant, table, lambda r: current["key"],
            table_version=6 if lf.instant != instant else 8, base_instant=lf.instant, log_dir=str(out_dir),
            write_token=lf.write_token, log_version=lf.version, block_format=fmt,
            task_partition_id=lf.task_partition_id,
            seqno_start=int(first["_hoodie_commit_seqno"].rsplit("_", 1)[1]) if first else 1,
        )
        for b in blocks:
            if b.block_type == BlockType.command_block:
                h.rollback(b.target_instant_time, b.instant_time)
                checked["rollback"] += 1
            elif b.block_type in (BlockType.avro_data_block, BlockType.parquet_data_block):
                rows = b.records() if fmt == "avro" else b.table().to_pylist(maps_as_pydicts="strict")
                for r in rows:
                    assert r["_hoodie_commit_seqno"].startswith(f"{instant}_{lf.task_partition_id}_")
                    current["key"] = r["_hoodie_record_key"]
                    h.write({k: v for k, v in r.items() if k not in META_FIELDS})
                checked[fmt] += 1
            elif b.block_type == BlockType.delete_block:
                for d in b.deletes():
                    assert d.ordering_kind == OrderingKind.INT
                    h.delete(d.record_key, d.partition_path, d.ordering_value)
                checked["delete"] += 1
        stats = h.close()
        assert stats.log_files == [path.name]
        ours = list(open_log(out_dir / path.name))
        assert len(ours) == len(blocks)
        for a, b in zip(ours, blocks):
            assert a.block_type == b.block_type and a.header == b.header, path
            if b.block_type == BlockType.parquet_data_block:
                assert a.records() == b.records()
                meta = pq.ParquetFile(pa.BufferReader(a.content())).metadata
                assert meta.row_group(0).column(0).compression == "GZIP"
                assert meta.schema.names[:5] == list(META_FIELDS)
            else:
                assert a.content() == b.content(), path
        if fmt == "avro" and all([k for k, _ in b.header_entries] == sorted(k for k, _ in b.header_entries) for b in blocks):
            assert (out_dir / path.name).read_bytes() == path.read_bytes()
            checked["byte_identical_files"] += 1
    assert checked["avro"] and checked["delete"] and checked["rollback"] and checked["parquet"], checked
    assert checked["byte_identical_files"] >= 1, checked


# ================================================================================================
# Validation before any byte


@pytest.mark.parametrize(
    "record, field, words",
    [
        (trip(1, uuid=None), "", "record key is missing"),
        ({k: v for k, v in trip(1).items() if k != "uuid"}, "", "record key is missing"),
        (trip(1, uuid=""), "", "record key is missing"),
        (trip(1, ts="soon"), "ts", "expected long, got str"),
        (trip(1, ts=1.5), "ts", "expected long, got float"),
        (trip(1, ts=2**63), "ts", "out of range for Avro long"),
        (trip(1, fare="12.5"), "fare", "expected double"),
        (trip(1, extra=1), "", "not in the schema"),
        ("not a dict", "", "must be a dict"),
    ],
)
def test_bad_records_are_refused_before_any_byte(tmp_path, record, field, words):
    h = handle(tmp_path)
    h.write(trip(0))
    with pytest.raises(RecordError) as e:
        h.write(record)
    assert e.value.field == field and words in str(e.value)
    assert e.value.index == 1 and "record 1" in str(e.value)
    assert not (tmp_path / "city=sf").exists() or not os.listdir(tmp_path / "city=sf")
    h.write(trip(2))  # the handle goes on; the refused record is not in any block
    stats = h.close()
    assert [r["uuid"] for r in blocks_of(tmp_path, stats)[0].records()] == ["uuid-00000", "uuid-00002"]


def test_strict_types_where_fastavro_is_lenient(tmp_path):
    schema = {
        "type": "record", "name": "strict", "fields": [
            {"name": "id", "type": "string"},
            {"name": "i", "type": "int", "default": 0},
            {"name": "l", "type": "long", "default": 0},
            {"name": "f", "type": "float", "default": 0},
            {"name": "b", "type": "boolean", "default": False},
            {"name": "n", "type": "null", "default": None},
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}, "default": "A"},
            {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}, "default": "\u0000\u0000\u0000\u0000"},
            {"name": "arr", "type": {"type": "array", "items": "int"}, "default": []},
            {"name": "m", "type": {"type": "map", "values": "long"}, "default": {}},
            {"name": "rec", "type": ["null", {"type": "record", "name": "Inner", "fields": [{"name": "x", "type": "int"}]}], "default": None},
            {"name": "req", "type": "string"},
        ],
    }
    h = AppendHandle(str(tmp_path), "", "f", INSTANT, schema, "id", seqno_start=1)
    good = {"id": "k", "req": "r"}
    h.write(good)
    bad = [
        ({"i": 2**31}, "i", "out of range"),
        ({"i": 1.5}, "i", "expected int"),
        ({"i": True}, "i", "expected int"),
        ({"l": "7"}, "l", "expected long"),
        ({"f": 1e39}, "f", "does not fit a float"),
        ({"f": "1.0"}, "f", "expected float"),
        ({"b": 1}, "b", "expected a boolean"),
        ({"n": 0}, "n", "expected null"),
        ({"e": "C"}, "e", "enum"),
        ({"fx": b"123"}, "fx", "4 bytes"),
        ({"arr": [1, "2"]}, "arr[1]", "expected int"),
        ({"arr": "12"}, "arr", "array"),
        ({"m": {"a": 1.0}}, "m['a']", "expected long"),
        ({"m": {1: 1}}, "m", "map keys"),
        ({"rec": {"x": "1"}}, "rec.x", "expected int"),
        ({"rec": {"x": 1, "y": 2}}, "rec", "not in the schema"),
    ]
    for patch, field, words in bad:
        with pytest.raises(RecordError) as e:
            h.write({**good, **patch})
        assert e.value.field == field, patch
        assert words in e.value.message, (patch, e.value.message)
    with pytest.raises(RecordError) as e:
        h.write({"id": "k"})
    assert e.value.field == "req" and "missing" in e.value.message
    h.write({**good, "i": -(2**31), "f": 3, "arr": (1, 2), "rec": {"x": 5}, "fx": b"abcd", "e": "B"})
    stats = h.close()
    recs = list(open_log(Path(tmp_path, stats.log_files[0])))[0].records()
    assert len(recs) == 2 and recs[1]["rec"] == {"x": 5} and recs[1]["i"] == -(2**31)


def test_logical_types(tmp_path):
    schema = {
        "type": "record", "name": "lt", "fields": [
            {"name": "id", "type": "string"},
            {"name": "d", "type": {"type": "int", "logicalType": "date"}},
            {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}},
            {"name": "u", "type": {"type": "string", "logicalType": "uuid"}},
        ],
    }
    h = AppendHandle(str(tmp_path), "", "f", INSTANT, schema, "id", seqno_start=1)
    row = {
        "id": "a", "d": datetime.date(2024, 1, 2),
        "ts": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
        "dec": decimal.Decimal("1234.50"), "u": "6b1d2e1c-0000-4000-8000-000000000000",
    }
    h.write(row)
    for patch, field in (({"dec": decimal.Decimal("1.234")}, "dec"), ({"dec": decimal.Decimal("123456")}, "dec"),
                         ({"d": datetime.datetime(2024, 1, 1)}, "d"), ({"ts": "2024"}, "ts")):
        with pytest.raises(RecordError) as e:
            h.write({**row, **patch})
        assert e.value.field == field
    stats = h.close()
    rec = list(open_log(Path(tmp_path, stats.log_files[0])))[0].records()[0]
    assert rec["d"] == row["d"] and rec["ts"] == row["ts"] and rec["dec"] == row["dec"]


# ================================================================================================
# Block sizing, delete block, batches


def _hudi_block_sizes(sizes: list[int], max_block: int) -> list[int]:
    """Hudi's flushToDiskIfRequired, written out independently, for records of the given sizes."""
    out, avg, n = [], None, 0
    for s in sizes:
        if avg is None:
            avg = s
        if n >= max_block // avg or n % 100 == 0:
            avg = int(avg * 0.8 + s * 0.2)
        if n >= max_block // avg:
            out.append(n)
            n = 0
        n += 1
    if n:
        out.append(n)
    return out


def test_blocks_flush_by_hudis_size_estimate(tmp_path):
    h = handle(tmp_path, max_block_size=20_000)
    recs = [trip(i, rider="r" * (i % 37 * 5)) for i in range(1000)]
    for r in recs:
        h.write(r)
    stats = h.close()
    blocks = blocks_of(tmp_path, stats)
    from hudi_log.format.content.avro import encode_records

    w = writer_schema(TABLE)
    sizes = [4 + len(d) for d in encode_records([{**r, **{
        "_hoodie_commit_time": INSTANT, "_hoodie_commit_seqno": f"{INSTANT}_0_{i + 1}",
        "_hoodie_record_key": r["uuid"], "_hoodie_partition_path": "city=sf", "_hoodie_file_name": FILE_ID}}
        for i, r in enumerate(recs)], w)]
    assert [b.record_count for b in blocks] == _hudi_block_sizes(sizes, 20_000)
    assert len(blocks) > 5 and all(b.content_length < 20_000 * 1.5 for b in blocks)
    assert [r["uuid"] for b in blocks for r in b.records()] == [r["uuid"] for r in recs]
    assert stats.data_blocks == len(blocks) and stats.num_writes == 1000


def test_default_sizes():
    assert DEFAULT_MAX_BLOCK_SIZE == 256 * 1024 * 1024


def test_delete_block_last_in_the_same_batch(tmp_path):
    h = handle(tmp_path, max_block_size=2_000)
    for i in range(50):
        h.write(trip(i))
        if i % 10 == 0:
            h.delete(f"uuid-{i:05d}", ordering_value=i)
    h.delete("gone", "city=other")
    stats = h.close()
    blocks = blocks_of(tmp_path, stats)
    types = [b.block_type for b in blocks]
    assert types[-1] == BlockType.delete_block and types.count(BlockType.delete_block) == 1
    assert all(t == BlockType.avro_data_block for t in types[:-1])
    last = stats.appends[-1]
    assert last.bytes_written == blocks[-1].length + blocks[-2].length  # one append: data + delete
    assert last.start_offset == blocks[-2].offset
    assert blocks[-1].header == blocks[-2].header
    dels = blocks[-1].deletes()
    assert [(d.record_key, d.partition_path, d.ordering_value) for d in dels] == [
        ("uuid-00000", "city=sf", 0), ("uuid-00010", "city=sf", 10), ("uuid-00020", "city=sf", 20),
        ("uuid-00030", "city=sf", 30), ("uuid-00040", "city=sf", 40), ("gone", "city=other", 0)]
    assert dels[0].ordering_kind == OrderingKind.INT
    assert stats.num_deletes == 6 and stats.delete_blocks == 1


def test_deletes_only_and_nothing(tmp_path):
    h = handle(tmp_path / "d")
    h.delete("k1")
    stats = h.close()
    [b] = blocks_of(tmp_path / "d", stats)
    assert b.block_type == BlockType.delete_block and b.header["INSTANT_TIME"] == INSTANT and "SCHEMA" in b.header
    h = handle(tmp_path / "n")
    stats = h.close()
    assert stats.log_files == [] and not (tmp_path / "n").exists()
    with pytest.raises(AppendHandleError):
        h.write(trip(1))
    assert h.close() is stats


def test_exception_inside_with_writes_no_half_batch(tmp_path):
    with pytest.raises(RuntimeError):
        with handle(tmp_path) as h:
            h.write(trip(1))
            raise RuntimeError("caller failed")
    assert not (tmp_path / "city=sf").exists()


def test_rollover_between_blocks(tmp_path):
    h = handle(tmp_path, max_block_size=3_000, log_file_max_size=5_000)
    for i in range(200):
        h.write(trip(i))
    stats = h.close()
    versions = [LogFileName.parse(n).version for n in stats.log_files]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) > 2
    assert sum(len(b.records()) for b in blocks_of(tmp_path, stats)) == 200


@pytest.mark.parametrize("table_version, can_append", [(6, True), (6, False), (8, True)])
def test_second_instant_appends_or_rolls(tmp_path, table_version, can_append):
    storage = Storage(supports_append=can_append)
    first = handle(tmp_path, table_version=table_version, storage=storage)
    first.write(trip(1))
    s1 = first.close()
    second = AppendHandle(str(tmp_path), "city=sf", FILE_ID, "20250101130000000", TABLE, "uuid",
                          table_version=table_version, base_instant=INSTANT, seqno_start=1, storage=storage,
                          task_partition_id=4)
    second.write(trip(1, fare=99.0))
    s2 = second.close()
    if table_version == 6 and can_append:
        assert s2.log_files == s1.log_files and s2.log_offset > 0  # v6: same file, appended
    elif table_version == 6:
        assert s2.log_files == [f".{FILE_ID}_{INSTANT}.log.2_4-0-0"]  # no append: next version, own token
    else:
        assert s2.log_files == [f".{FILE_ID}_20250101130000000.log.1_4-0-0"]  # v8: the new instant's file


# ================================================================================================
# Arrow input, Parquet blocks, rollback blocks


def test_arrow_input(tmp_path):
    table = pa.Table.from_pylist([trip(i) for i in range(5)], schema=avro_to_arrow_schema(TABLE))
    h = handle(tmp_path)
    assert h.write_all(table) == 5
    assert h.write_all(table.to_batches()[0].slice(0, 2)) == 2
    stats = h.close()
    assert [r["uuid"] for r in blocks_of(tmp_path, stats)[0].records()] == [f"uuid-{i:05d}" for i in (0, 1, 2, 3, 4, 0, 1)]


def test_schema_conversions_round_trip():
    arrow = avro_to_arrow_schema(writer_schema(TABLE))
    assert arrow.names == list(META_FIELDS) + [f["name"] for f in TABLE["fields"]]
    assert arrow.field("ts").type == pa.int64() and arrow.field("fare").type == pa.float64()
    back = arrow_to_avro_schema(arrow, "trips")
    assert back == {**TABLE, "fields": [{**f} for f in TABLE["fields"]]}


def test_parquet_blocks(tmp_path):
    h = handle(tmp_path, block_format="parquet", max_block_size=4_000)
    for i in range(100):
        h.write(trip(i))
    h.delete("uuid-00003")
    stats = h.close()
    blocks = blocks_of(tmp_path, stats)
    assert {b.block_type for b in blocks[:-1]} == {BlockType.parquet_data_block}
    assert blocks[-1].block_type == BlockType.delete_block and len(blocks) > 2
    rows = [r for b in blocks[:-1] for r in b.records()]
    assert [r["uuid"] for r in rows] == [f"uuid-{i:05d}" for i in range(100)]
    assert rows[5]["_hoodie_commit_seqno"] == f"{INSTANT}_0_6" and rows[5]["_hoodie_file_name"] == FILE_ID
    pf = pq.ParquetFile(pa.BufferReader(blocks[0].content()))
    assert pf.schema_arrow.names[:5] == list(META_FIELDS)
    assert pf.metadata.row_group(0).column(7).compression == "GZIP"
    assert blocks[0].header["SCHEMA"] == schema_json(writer_schema(TABLE))


def test_rollback_block(tmp_path):
    h = handle(tmp_path)
    r = h.rollback("20250101110000000", "20250101123000000")
    h.close()
    [b] = list(open_log(r.path))
    assert b.block_type == BlockType.command_block and b.is_rollback and b.content_length == 0
    assert b.header == {"INSTANT_TIME": "20250101123000000", "TARGET_INSTANT_TIME": "20250101110000000",
                        "COMMAND_BLOCK_TYPE": "0"}
    with pytest.raises(AppendHandleError):
        handle(tmp_path, table_version=8).rollback("20250101110000000")


def test_write_stats_for_commit_metadata(tmp_path):
    h = handle(tmp_path)
    h.write(trip(1), is_update=False)
    h.write(trip(2))
    h.delete("x")
    s = h.close()
    ws = s.hudi_write_stat()
    size = os.path.getsize(tmp_path / "city=sf" / s.log_files[0])
    assert ws["fileId"] == FILE_ID and ws["path"] == f"city=sf/{s.log_files[0]}"
    assert (ws["numWrites"], ws["numInserts"], ws["numUpdateWrites"], ws["numDeletes"]) == (2, 1, 1, 1)
    assert ws["totalWriteBytes"] == ws["fileSizeInBytes"] == size
    assert ws["logVersion"] == 1 and ws["logOffset"] == 0 and ws["logFiles"] == s.log_files
    assert ws["prevCommit"] == INSTANT and ws["partitionPath"] == "city=sf"


# ================================================================================================
# CLI


def _cli(args):
    return CliRunner().invoke(cli, ["write-block", *args], catch_exceptions=False)


def test_cli_json_lines_and_deletes(tmp_path):
    (tmp_path / "schema.avsc").write_text(json.dumps(TABLE))
    (tmp_path / "in.jsonl").write_text("\n".join(json.dumps(trip(i)) for i in range(4)) + "\n\n")
    (tmp_path / "del.txt").write_text('uuid-00001\n{"key": "uuid-00002", "ordering_value": 7}\n')
    res = _cli([str(tmp_path / "in.jsonl"), "--schema", str(tmp_path / "schema.avsc"), "--instant", INSTANT,
                "--record-key", "uuid", "--partition-path", "city=sf", "--table", str(tmp_path / "t"),
                "--force", "--file-id", FILE_ID, "--deletes", str(tmp_path / "del.txt"), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["records"] == 4 and out["deletes"] == 2 and out["data_blocks"] == 1 and out["delete_blocks"] == 1
    [path] = out["files"]
    assert path.endswith(f"city=sf/.{FILE_ID}_{INSTANT}.log.1_0-0-0")
    blocks = list(open_log(path))
    assert [b.block_type for b in blocks] == [BlockType.avro_data_block, BlockType.delete_block]
    assert [d.ordering_value for d in blocks[1].deletes()] == [0, 7]


def test_cli_parquet_input_inferred_schema_parquet_blocks(tmp_path):
    table = pa.Table.from_pylist([trip(i) for i in range(6)])
    pq.write_table(table, tmp_path / "in.parquet")
    log = tmp_path / "out" / f".{FILE_ID}_{INSTANT}.log.1_2-0-1"
    log.parent.mkdir()
    res = _cli([str(tmp_path / "in.parquet"), "--instant", INSTANT, "--record-key", "uuid", "--format", "parquet",
                "--log-file", str(log), "--table-name", "trips"])
    assert res.exit_code == 0, res.output
    assert "6 record(s) in 1 data block(s)" in res.output
    [b] = list(open_log(log))
    assert b.block_type == BlockType.parquet_data_block
    assert json.loads(b.schema)["name"] == "trips_record"
    assert [r["uuid"] for r in b.records()] == [f"uuid-{i:05d}" for i in range(6)]
    # v6: the same log file again appends to it
    res = _cli([str(tmp_path / "in.parquet"), "--instant", INSTANT, "--record-key", "uuid", "--log-file", str(log)])
    assert res.exit_code == 0, res.output
    assert len(list(open_log(log))) == 2


def test_cli_errors(tmp_path):
    (tmp_path / "schema.avsc").write_text(json.dumps(TABLE))
    (tmp_path / "in.jsonl").write_text(json.dumps(trip(0)) + "\n" + json.dumps(trip(1, fare="x")) + "\n")
    base = ["--schema", str(tmp_path / "schema.avsc"), "--instant", INSTANT, "--record-key", "uuid",
            "--table", str(tmp_path / "t"), "--force", "--file-id", FILE_ID]
    res = _cli([str(tmp_path / "in.jsonl"), *base])
    assert res.exit_code == 2 and "record 1 (key 'uuid-00001'): field 'fare'" in res.output
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").rglob(".*.log.*"))
    res = _cli(["--instant", INSTANT, "--table", str(tmp_path / "t")])
    assert res.exit_code == 2 and "nothing to write" in res.output
    res = _cli([str(tmp_path / "in.jsonl"), "--instant", INSTANT, "--record-key", "uuid",
                "--table", str(tmp_path / "t"), "--force", "--file-id", "x"])
    assert res.exit_code == 2 and "--schema is needed" in res.output
    res = _cli([str(tmp_path / "in.jsonl"), *base[:-5], "--log-file", str(tmp_path / "bad.log")])
    assert res.exit_code == 2 and "not a log file name" in res.output
