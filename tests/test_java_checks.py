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
