"""Tables without meta fields (``hoodie.populate.meta.fields=false``, virtual keys; issue 37 item 3): writes,
compaction and clustering with keys computed from the data columns by the table's key generator, base and log
files holding the five ``_hoodie_*`` columns with every value null (as Java's create, merge and append handles
write them: the meta fields prepended with no values), no bloom filter or key range in the footers
(``HoodieFileWriterFactory.enableBloomFilter`` needs meta fields), rows right by hudi-log and hudi-rs; the key
generators Java refuses with virtual keys refused before anything is written.

The corpus holds no Java table with virtual keys (its ``*_nometa`` tables are tables without a *metadata
table*; their files carry populated meta fields), so the oracles are Java's rules as read, hudi-rs, and Java's
own Avro / Parquet libraries (tests/test_java_checks.py's program).
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hudi_log import open_log
from hudi_log.cli import main
from hudi_log.format.content.meta_fields import META_FIELDS
from hudi_log.format.grammar import BlockType
from hudi_log.table import read_table
from hudi_log.table.errors import TableMismatchError, UnsupportedKeyGeneratorError
from hudi_log.table.properties import read_properties
from hudi_log.table.services.clustering import cluster
from hudi_log.table.services.compaction import compact
from hudi_log.table.write.client import write_table
from hudi_rs_oracle import hudi_rs_rows

COMPACT_NOW = {"hoodie.compact.inline.max.delta.commits": "1"}


def options(table_type: str, version: int = 9, **extra) -> dict:
    return {"hoodie.table.name": "vk", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version),
            "hoodie.populate.meta.fields": "false", **extra}


def batch(rows) -> pa.Table:
    return pa.Table.from_pylist([{"id": k, "val": v, "ts": ts, "part": p} for k, v, ts, p in rows],
                                schema=pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()),
                                                  ("part", pa.string())]))


def snapshot(path) -> tuple[dict, dict]:
    ours = {r["id"]: r["val"] for r in read_table(path).to_pylist()}
    return ours, {r["id"]: r["val"] for r in hudi_rs_rows(path)}


def assert_files_without_meta_values(path) -> int:
    """Every base file and log data block of the table: the five meta columns there, every value null; no
    bloom filter or key range in base footers. Returns how many files were looked at."""
    seen = 0
    for f in path.rglob("*.parquet"):
        if ".hoodie" in f.parts:
            continue
        t = pq.read_table(f)
        assert t.column_names[:5] == list(META_FIELDS), f
        assert all(t.column(c).null_count == t.num_rows for c in META_FIELDS if c != "_hoodie_file_name"), f
        meta = pq.read_metadata(f).metadata
        assert not any(k.startswith(b"hoodie_") or k == b"org.apache.hudi.bloomfilter" for k in meta), f
        seen += 1
    for f in path.rglob(".*.log.*"):
        for block in open_log(f):
            if block.block_type == BlockType.avro_data_block:
                names = [x["name"] for x in json.loads(block.schema)["fields"]]
                assert names[:5] == list(META_FIELDS)
                assert all(r[c] is None for r in block.records() for c in META_FIELDS)
            elif block.block_type == BlockType.delete_block:
                assert all(d.record_key for d in block.deletes())
        seen += 1
    return seen


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
@pytest.mark.parametrize("version", [6, 8, 9])
def test_writes_compaction_and_clustering_key_rows_by_their_data_columns(tmp_path, table_type, version):
    path = tmp_path / "t"
    opts = options(table_type, version)
    write_table(path, batch([(f"k{i}", f"a{i}", 1, f"p{i % 2}") for i in range(6)]), "insert", opts)
    assert read_properties(path).to_dict()["hoodie.populate.meta.fields"] == "false"
    # an upsert of existing keys and a new one: the index finds the keys from the data columns
    write_table(path, batch([("k0", "b0", 2, "p0"), ("k3", "b3", 2, "p1"), ("k9", "b9", 2, "p1")]), "upsert", opts)
    write_table(path, batch([("k1", "x", 3, "p1"), ("k4", "x", 3, "p0")]), "delete", opts)
    expected = {"k0": "b0", "k2": "a2", "k3": "b3", "k5": "a5", "k9": "b9"}
    ours, theirs = snapshot(path)
    assert ours == expected == theirs
    # a later upsert of a key only a log holds (MOR) goes to the same file group, not a second one
    write_table(path, batch([("k9", "c9", 4, "p1")]), "upsert", opts)
    expected["k9"] = "c9"
    assert snapshot(path) == (expected, expected)
    assert len(read_table(path)) == len(expected)
    if table_type == "MERGE_ON_READ":
        assert compact(path, COMPACT_NOW) is not None
        assert snapshot(path) == (expected, expected)
    assert cluster(path) is not None
    assert snapshot(path) == (expected, expected)
    write_table(path, batch([("k2", "d2", 5, "p0")]), "upsert", opts)
    expected["k2"] = "d2"
    assert snapshot(path) == (expected, expected)
    assert assert_files_without_meta_values(path) > 3


def test_complex_keys_of_two_fields_and_the_cli(tmp_path):
    path = tmp_path / "t"
    opts = {**options("MERGE_ON_READ"), "hoodie.datasource.write.recordkey.field": "id,val",
            "hoodie.datasource.write.keygenerator.type": "COMPLEX"}
    write_table(path, batch([("a", "1", 1, "p"), ("a", "2", 1, "p"), ("b", "", 1, "q")]), "insert", opts)
    pq.write_table(batch([("a", "2", 2, "p")]), tmp_path / "gone.parquet")
    res = CliRunner().invoke(main, ["write", str(path), "--input", str(tmp_path / "gone.parquet"),
                                    "--operation", "delete"])
    assert res.exit_code == 0, res.output
    write_table(path, batch([("b", "", 3, "q")]), "upsert", {})
    rows = sorted((r["id"], r["val"], r["ts"]) for r in read_table(path).to_pylist())
    assert rows == [("a", "1", 1), ("b", "", 3)]
    # the compaction through the CLI: the log's keys (id:b,val:__empty__) meet the base file's rows
    res = CliRunner().invoke(main, ["compact", str(path)])
    assert res.exit_code == 0, res.output
    assert not any(f for f in read_table(path).column("_hoodie_record_key").to_pylist())
    assert sorted((r["id"], r["val"], r["ts"]) for r in read_table(path).to_pylist()) == rows
    assert assert_files_without_meta_values(path) >= 2


@pytest.mark.parametrize("extra, refused", [
    ({"hoodie.datasource.write.keygenerator.type": "TIMESTAMP",
      "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
      "hoodie.keygen.timebased.output.dateformat": "yyyy"}, "Simple, NonPartitioned or Complex"),
    ({"hoodie.datasource.write.keygenerator.type": "COMPLEX"}, "field:value"),
    ({"hoodie.table.cdc.enabled": "true"}, "cdc"),
])
def test_what_java_or_hudi_log_refuses_without_meta_fields(tmp_path, extra, refused):
    path = tmp_path / "t"
    with pytest.raises(UnsupportedKeyGeneratorError, match=refused):
        write_table(path, batch([("k", "v", 1, "1700000000000")]), "insert", options("COPY_ON_WRITE", **extra))
    assert not path.exists() or not any(path.rglob("*.parquet"))


def test_a_write_asking_for_the_other_setting_is_refused(tmp_path):
    path = tmp_path / "t"
    write_table(path, batch([("k", "v", 1, "p")]), "insert", options("COPY_ON_WRITE"))
    with pytest.raises(TableMismatchError, match="populate.meta.fields"):
        write_table(path, batch([("k", "w", 2, "p")]), "upsert", {"hoodie.populate.meta.fields": "true"})
    other = tmp_path / "u"
    write_table(other, batch([("k", "v", 1, "p")]), "insert", {**options("COPY_ON_WRITE"),
                                                                 "hoodie.populate.meta.fields": "true"})
    with pytest.raises(TableMismatchError, match="populate.meta.fields"):
        write_table(other, batch([("k", "w", 2, "p")]), "upsert", {"hoodie.populate.meta.fields": "false"})
    assert {r["val"] for r in read_table(path).to_pylist()} == {"v"}


def test_java_reads_the_files_of_a_table_without_meta_fields(tmp_path, java_program):
    """Java's Avro decodes every log data block (writer schema from its SCHEMA header, reader schema the
    table's with the meta fields: COMPATIBLE both ways, every key null) and parquet-mr reads every base file's
    footer (its Avro schema parses; no key range)."""
    from pathlib import Path

    from hudi_log.format.content.meta_fields import writer_schema
    from hudi_log.table import HudiTable
    from hudi_log.table.schema import current_schema

    java_check = java_program(Path(__file__).parent / "java" / "HudiLogJavaCheck.java")
    path = tmp_path / "t"
    opts = options("MERGE_ON_READ")
    write_table(path, batch([(f"k{i}", f"a{i}", 1, f"p{i % 2}") for i in range(8)]), "insert", opts)
    write_table(path, batch([(f"k{i}", f"b{i}", 2, f"p{i % 2}") for i in range(4)]), "upsert", opts)
    write_table(path, batch([("k1", "x", 3, "p1")]), "delete", opts)
    table = HudiTable(path)
    (tmp_path / "reader.avsc").write_text(json.dumps(writer_schema(current_schema(table.properties,
                                                                                  table.timeline))))
    lines, expected = [], []
    for n, log in enumerate(sorted(path.rglob(".*.log.*"))):
        for m, block in enumerate(open_log(log)):
            if block.block_type == BlockType.avro_data_block:
                (tmp_path / f"w{n}_{m}.avsc").write_text(block.schema)
                (tmp_path / f"c{n}_{m}.bin").write_bytes(block.content())
                lines.append(["avro-block", tmp_path / f"w{n}_{m}.avsc", tmp_path / f"c{n}_{m}.bin",
                              tmp_path / "reader.avsc"])
                expected.append(("avro", len(block.records())))
    for b in sorted(f for f in path.rglob("*.parquet") if ".hoodie" not in f.parts):
        lines.append(["parquet-footer", b])
        expected.append(("parquet", pq.read_metadata(b).num_rows))
    assert sum(k == "avro" for k, _ in expected) >= 2 and sum(k == "parquet" for k, _ in expected) >= 2
    for got, (kind, count) in zip(java_check(lines), expected):
        assert "error" not in got, got
        if kind == "avro":
            assert got["count"] == count and got["keys"] == [None] * count
            assert got["reader_reads_writer"] == "COMPATIBLE" and got["writer_reads_reader"] == "COMPATIBLE"
        else:
            assert got["rows"] == count and got["avro_schema_parses"] is True
            assert "hoodie_min_record_key" not in got["footer"] and "org.apache.hudi.bloomfilter" not in got["footer"]


@pytest.mark.slow
@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_spark_upserts_and_deletes_key_rows_by_their_data_columns(tmp_path, spark, index):
    """The Spark partitioner's key lookup (executors) reads the stored keys through the same seam."""
    from hudi_log.spark import write as spark_write

    path = tmp_path / "t"
    opts = options("MERGE_ON_READ")
    write_table(path, batch([(f"k{i}", f"a{i}", 1, f"p{i % 2}") for i in range(6)]), "insert", opts)
    write_table(path, batch([("k7", "a7", 1, "p1")]), "upsert", opts)  # a key only a log holds
    ddl = "id string, val string, ts bigint, part string"
    spark_opts = {"hoodie.index.type": index}
    df = spark.createDataFrame([("k0", "s0", 2, "p0"), ("k7", "s7", 2, "p1"), ("k8", "s8", 2, "p0")], ddl)
    spark_write(df, str(path), {**spark_opts, "hoodie.datasource.write.operation": "upsert"})
    spark_write(spark.createDataFrame([("k1", "x", 3, "p1")], ddl), str(path),
                {**spark_opts, "hoodie.datasource.write.operation": "delete"})
    expected = {"k0": "s0", "k2": "a2", "k3": "a3", "k4": "a4", "k5": "a5", "k7": "s7", "k8": "s8"}
    assert snapshot(path) == (expected, expected)
    assert len(read_table(path)) == len(expected)
    assert assert_files_without_meta_values(path) >= 4


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_bulk_insert_then_upsert(tmp_path, table_type):
    path = tmp_path / "t"
    opts = options(table_type)
    write_table(path, batch([(f"k{i}", "a", 1, "p") for i in range(5)]), "bulk_insert", opts)
    write_table(path, batch([("k1", "b", 2, "p"), ("k7", "b", 2, "p")]), "upsert", opts)
    expected = {"k0": "a", "k1": "b", "k2": "a", "k3": "a", "k4": "a", "k7": "b"}
    assert snapshot(path) == (expected, expected) and len(read_table(path)) == 6
    assert assert_files_without_meta_values(path) >= 2


def test_the_reader_keys_rows_as_the_key_generator_does():
    """Rows without ``_hoodie_record_key`` are keyed by the reader (vectorized and record by record) as the
    writer's key generator keys them, so deletes and updates meet: Java's ``RecordContext.virtualKeyExtractor``
    (one field: its text; several: ``KeyGenerator.constructRecordKey``)."""
    from hudi_log.table.read.merge import record_keys
    from hudi_log.table.read.scanner import virtual_key
    from hudi_log.table.write.keygen import KeyGenerator

    t = pa.table({"id": pa.array(["a", "", None, "d"]), "n": pa.array([None, 2, 3, 0], pa.int64()),
                  "ok": pa.array([True, False, True, None]), "x": pa.array([1e20, 0.5, 2.0, 3.25])})
    for fields in (["id", "n"], ["n", "id"], ["ok", "x"]):
        made = KeyGenerator("t", tuple(fields), kind="COMPLEX").record_keys(t)
        assert [virtual_key([r[f] for f in fields], fields) for r in t.to_pylist()] == made
        if all(pa.types.is_string(t.schema.field(f).type) or pa.types.is_integer(t.schema.field(f).type)
               for f in fields):
            assert record_keys(t, fields).to_pylist() == made
    single = t.filter(pc.is_valid(t.column("x")))
    for f in ("n", "x"):
        rows = single.filter(pc.is_valid(single.column(f)))
        assert [virtual_key([r[f]], [f]) for r in rows.to_pylist()] == KeyGenerator("t", (f,)).record_keys(rows)


def test_upgrade_and_downgrade_keep_the_table_without_meta_fields(tmp_path):
    from hudi_log.table.write.upgrade import change_table_version

    path = tmp_path / "t"
    # no metadata table: the upgrade and downgrade refuse to carry one across versions
    opts = {**options("MERGE_ON_READ", version=6), "hoodie.metadata.enable": "false"}
    plain = {"hoodie.metadata.enable": "false"}
    write_table(path, batch([(f"k{i}", "a", 1, f"p{i % 2}") for i in range(4)]), "insert", opts)
    write_table(path, batch([("k1", "b", 2, "p1")]), "upsert", opts)
    change_table_version(path, 9)
    assert read_properties(path).populate_meta_fields is False
    write_table(path, batch([("k2", "c", 3, "p0")]), "upsert", plain)
    change_table_version(path, 6)
    write_table(path, batch([("k3", "d", 4, "p1")]), "upsert", plain)
    expected = {"k0": "a", "k1": "b", "k2": "c", "k3": "d"}
    assert snapshot(path) == (expected, expected) and len(read_table(path)) == 4
    assert read_properties(path).to_dict()["hoodie.populate.meta.fields"] == "false"
    assert assert_files_without_meta_values(path) >= 2
