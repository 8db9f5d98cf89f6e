"""hudi-log's files as Java reads them (issue 15, item 9): tests/java/HudiLogJavaCheck.java, compiled with javac
against the Avro, Parquet and Hadoop jars in the installed PySpark, decodes every Avro data block of tables
hudi-log wrote (as Java's HoodieAvroDataBlock reads them, writer schema from the SCHEMA header, reader schema
the table's) and reads every base file's footer. Skipped, with the reason, where Java or the jars are absent.
"""

from __future__ import annotations

import datetime
import decimal
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log import open_log
from hudi_log.format.content.meta_fields import writer_schema
from hudi_log.format.grammar import BlockType
from hudi_log.table import HudiTable
from hudi_log.table.schema import current_schema
from hudi_log.table.write.client import write_table

SOURCE = Path(__file__).parent / "java" / "HudiLogJavaCheck.java"


@pytest.fixture(scope="session")
def java_check(java_program):
    """A function running the Java checks of a manifest: one JSON result per line."""
    return java_program(SOURCE)


def typed_rows(ids, tag: str, ts: int) -> pa.Table:
    """Every type hudi-log writes from Arrow, with nulls."""
    n = len(ids)
    return pa.table({
        "id": pa.array([f"k{i:03d}" for i in ids]),
        "part": pa.array([f"p{i % 3}" for i in ids]),
        "ts": pa.array([ts] * n, pa.int64()),
        "name": pa.array([f"{tag}{i}" if i % 5 else None for i in ids]),
        "small": pa.array([i for i in ids], pa.int32()),
        "ratio": pa.array([i / 7 for i in ids], pa.float64()),
        "ok": pa.array([i % 2 == 0 for i in ids]),
        "day": pa.array([datetime.date(2025, 1, 1 + i % 28) for i in ids], pa.date32()),
        "at": pa.array([datetime.datetime(2025, 1, 1, 12, i % 60, tzinfo=datetime.timezone.utc) for i in ids],
                       pa.timestamp("us", tz="UTC")),
        "amount": pa.array([decimal.Decimal(f"{i}.25") for i in ids], pa.decimal128(10, 2)),
        "raw": pa.array([bytes([i % 256]) * 3 for i in ids], pa.binary()),
        "tags": pa.array([[f"t{i}", "x"] for i in ids], pa.list_(pa.string())),
        "where": pa.array([{"city": f"c{i}", "zip": i} for i in ids],
                          pa.struct([("city", pa.string()), ("zip", pa.int64())])),
    })


def options(version: int) -> dict:
    return {"hoodie.table.name": "java_check", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": str(version)}


@pytest.mark.parametrize("version", [6, 8])
def test_java_reads_the_log_blocks_and_base_files_hudi_log_writes(tmp_path, java_check, version):
    path = tmp_path / "t"
    write_table(path, typed_rows(range(30), "a", 1), "insert", options(version))
    write_table(path, typed_rows(range(0, 30, 2), "b", 2), "upsert", options(version))
    write_table(path, typed_rows(range(1, 30, 3), "c", 3), "upsert", options(version))
    table = HudiTable(path)
    reader = writer_schema(current_schema(table.properties, table.timeline))
    (tmp_path / "reader.avsc").write_text(json.dumps(reader))
    lines, expected = [], []
    for n, log in enumerate(sorted(path.rglob(".*.log.*"))):
        for m, block in enumerate(open_log(log)):
            if block.block_type != BlockType.avro_data_block:
                continue
            (tmp_path / f"w{n}_{m}.avsc").write_text(block.schema)
            (tmp_path / f"c{n}_{m}.bin").write_bytes(block.content())
            lines.append(["avro-block", tmp_path / f"w{n}_{m}.avsc", tmp_path / f"c{n}_{m}.bin",
                          tmp_path / "reader.avsc"])
            expected.append(("avro", [r["_hoodie_record_key"] for r in block.records()]))
    bases = sorted(path.rglob("*.parquet"))
    for b in bases:
        lines.append(["parquet-footer", b])
        keys = pq.read_table(b, columns=["_hoodie_record_key"]).column(0).to_pylist()
        expected.append(("parquet", keys))
    assert len(expected) > len(bases) >= 3  # log blocks and base files both checked
    for got, (kind, keys) in zip(java_check(lines), expected):
        assert "error" not in got, got
        if kind == "avro":
            assert got["count"] == len(keys) and got["keys"] == keys
            assert got["reader_reads_writer"] == "COMPATIBLE" and got["writer_reads_reader"] == "COMPATIBLE"
        else:
            assert got["rows"] == len(keys) and got["avro_schema_parses"] is True
            assert got["footer"]["hoodie_min_record_key"] == min(keys)
            assert got["footer"]["hoodie_max_record_key"] == max(keys)


def _java_reader_schema(root, java_commit: str) -> str:
    """Java's reader schema for the corpus table's records: its commit schema with the meta fields, which
    is what Java wrote as parquet.avro.schema into its newest base file (checked where it has one)."""
    from hudi_log.format.content.meta_fields import schema_json

    reader = schema_json(writer_schema(json.loads(java_commit)))
    files = sorted((p for p in Path(root).rglob("*.parquet") if ".hoodie" not in p.parts),
                   key=lambda p: p.name.rsplit("_", 1)[-1])
    footer = pq.read_metadata(files[-1]).metadata or {} if files else {}
    if b"parquet.avro.schema" in footer:
        assert footer[b"parquet.avro.schema"].decode() == reader
    return reader


def test_java_reads_what_hudi_log_writes_for_java_written_data(tmp_path, java_check, corpus_tables):
    """Item 3 against Java's own schemas: every non-empty corpus table's rows, written again by hudi-log into a
    new MERGE_ON_READ table of the same name (an insert, then an upsert of every row, so every row is in a log
    block too). Java's Avro finds hudi-log's commit schema and the corpus's commit schema COMPATIBLE both
    ways and equal, Java prints hudi-log's schema as hudi-log wrote it, and decodes every record of
    hudi-log's log blocks from their SCHEMA header to Java's reader schema (the corpus's parquet.avro.schema)."""
    from hudi_log.format.content.meta_fields import META_FIELDS, schema_json
    from hudi_log.table.properties import read_properties
    from hudi_log.table.timeline.timeline import Timeline
    from hudi_log.table.read.query import read_table

    lines, expected = [], []
    for name, root in sorted(corpus_tables.items()):
        if "empty" in name:
            continue
        props = read_properties(root)
        tl = Timeline(root, props)
        java_commit = [s for s in ((tl.commit_metadata(i).get("extraMetadata") or {}).get("schema")
                                   for i in tl.completed_commits()) if s][-1]
        data = read_table(root)
        data = data.drop_columns([c for c in META_FIELDS if c in data.column_names])
        ordering = props.ordering_fields
        o = {"hoodie.table.name": json.loads(java_commit)["name"][: -len("_record")],
             "hoodie.datasource.write.recordkey.field": props.record_key_fields[0],
             "hoodie.datasource.write.table.type": "MERGE_ON_READ",
             "hoodie.write.table.version": "6" if props.version == 6 else "8"}
        if ordering:
            o["hoodie.datasource.write.precombine.field"] = ordering[0]
        path = tmp_path / name
        write_table(path, data, "insert", o)
        write_table(path, data, "upsert", o)
        table = HudiTable(path)
        ours = schema_json(current_schema(table.properties, table.timeline))
        (tmp_path / f"{name}.ours.avsc").write_text(ours)
        (tmp_path / f"{name}.java.avsc").write_text(java_commit)
        (tmp_path / f"{name}.reader.avsc").write_text(_java_reader_schema(root, java_commit))
        lines.append(["schema-pair", tmp_path / f"{name}.ours.avsc", tmp_path / f"{name}.java.avsc"])
        expected.append(("pair", name, ours == java_commit))
        blocks = 0
        for n, log in enumerate(sorted(path.rglob(".*.log.*"))):
            for m, block in enumerate(open_log(log)):
                if block.block_type != BlockType.avro_data_block:
                    continue
                w, c = tmp_path / f"{name}.w{n}_{m}.avsc", tmp_path / f"{name}.c{n}_{m}.bin"
                w.write_text(block.schema)
                c.write_bytes(block.content())
                lines.append(["avro-block", w, c, tmp_path / f"{name}.reader.avsc"])
                expected.append(("block", name, [r["_hoodie_record_key"] for r in block.records()]))
                blocks += 1
        assert blocks, name
    assert len({e[1] for e in expected}) >= 13 and sum(e[0] == "block" for e in expected) >= 13
    for got, (kind, name, want) in zip(java_check(lines), expected):
        assert "error" not in got, (name, got)
        if kind == "pair":
            assert want, f"{name}: hudi-log's schema JSON differs from Java's"
            assert got == {"java_reads_ours": "COMPATIBLE", "ours_reads_java": "COMPATIBLE", "equal": True,
                           "to_string_same": True}, (name, got)
        else:
            assert got["count"] == len(want) and got["keys"] == want, name
            assert got["reader_reads_writer"] == "COMPATIBLE" and got["writer_reads_reader"] == "COMPATIBLE", name


def test_java_decodes_log_blocks_of_an_older_type_with_the_evolved_schema(tmp_path, java_check):
    """After hudi-log widens a column (numbers, inside a struct, a new nested field), Java's
    HoodieAvroDataBlock decodes the older blocks with the evolved table schema as its reader schema: Avro's
    own resolution covers these promotions (Hudi rewrites records for those it does not, to string)."""
    from test_schema_evolution import evolved_table

    cases = [((pa.int32(), 10), (pa.int64(), 2**40)), ((pa.int32(), 10), (pa.float64(), 2.5)),
             ((pa.int64(), 7), (pa.float32(), 1.5)), ((pa.float32(), 1.5), (pa.float64(), 2.25)),
             ((pa.struct([("a", pa.int32())]), {"a": 1}),
              (pa.struct([("a", pa.int64()), ("b", pa.string())]), {"a": 2, "b": "x"}))]
    lines, expected = [], []
    for n, (first, later) in enumerate(cases):
        path = tmp_path / f"t{n}"
        evolved_table(path, "MERGE_ON_READ", first, later)
        table = HudiTable(path)
        reader = tmp_path / f"reader{n}.avsc"
        reader.write_text(json.dumps(writer_schema(current_schema(table.properties, table.timeline))))
        for m, log in enumerate(sorted(path.rglob(".*.log.*"))):
            for k, block in enumerate(open_log(log)):
                if block.block_type == BlockType.avro_data_block:
                    w, c = tmp_path / f"w{n}_{m}_{k}.avsc", tmp_path / f"c{n}_{m}_{k}.bin"
                    w.write_text(block.schema)
                    c.write_bytes(block.content())
                    lines.append(["avro-block", w, c, reader])
                    expected.append([r["_hoodie_record_key"] for r in block.records()])
    assert len(lines) == 2 * len(cases)  # per table: a block of the older type, one of the newer
    for got, keys in zip(java_check(lines), expected):
        assert "error" not in got, got
        assert got["count"] == len(keys) and got["keys"] == keys and got["reader_reads_writer"] == "COMPATIBLE"
