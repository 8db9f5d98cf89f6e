"""Java's replacecommit operations beside insert_overwrite: ``insert_overwrite_table`` (every file group of the
table replaced) and ``delete_partition`` (``hoodie.datasource.write.partitions.to.delete``, or the partitions of
the records given), through the package and the CLI, read back by hudi-log and hudi-rs."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pytest

from hudi_log.table import HudiTable, read_table
from hudi_rs_oracle import hudi_rs_rows
from hudi_log.table.write.client import write_table
from hudi_log.table.errors import WriteError

OPTS = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts"}


def _table(tmp_path, table_type):
    path = str(tmp_path / "t")
    data = pa.table({"id": [1, 2, 3, 4], "p": ["a", "b", "c", "c"], "ts": [1, 1, 1, 1]})
    write_table(path, data, "insert", {**OPTS, "hoodie.datasource.write.table.type": table_type})
    write_table(path, pa.table({"id": [2], "p": ["b"], "ts": [2]}), "upsert", {})
    return path


def _keys(path):
    return sorted(read_table(path).column("id").to_pylist())


def _last_commit(path):
    t = HudiTable(path).timeline
    inst = t.completed()[-1]
    return inst, t.commit_metadata(inst)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_insert_overwrite_table_replaces_every_file_group(tmp_path, table_type):
    path = _table(tmp_path, table_type)
    r = write_table(path, pa.table({"id": [9], "p": ["z"], "ts": [1]}), "insert_overwrite_table", {})
    assert r.action == "replacecommit" and sorted(r.replaced_file_ids) == ["a", "b", "c"]
    assert _keys(path) == [9]
    inst, meta = _last_commit(path)
    assert meta["operationType"] == "INSERT_OVERWRITE_TABLE"


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_delete_partition_by_option_and_wildcard(tmp_path, table_type):
    path = _table(tmp_path, table_type)
    empty = pa.table({"id": pa.array([], pa.int64()), "p": pa.array([], pa.string()), "ts": pa.array([], pa.int64())})
    r = write_table(path, empty, "delete_partition", {"hoodie.datasource.write.partitions.to.delete": "b"})
    assert r.action == "replacecommit" and list(r.replaced_file_ids) == ["b"]
    assert _keys(path) == [1, 3, 4]
    _, meta = _last_commit(path)
    assert meta["operationType"] == "DELETE_PARTITION" and meta["partitionToWriteStats"] == {}
    assert sorted(r["id"] for r in hudi_rs_rows(path)) == [1, 3, 4]
    write_table(path, empty, "delete_partition", {"hoodie.datasource.write.partitions.to.delete": "*"})
    assert _keys(path) == []


def test_delete_partition_from_the_records_partitions(tmp_path):
    path = _table(tmp_path, "MERGE_ON_READ")
    write_table(path, pa.table({"id": [3], "p": ["c"], "ts": [0]}), "delete_partition", {})
    assert _keys(path) == [1, 2]


def test_delete_partition_without_partitions_is_refused_before_anything(tmp_path):
    path = _table(tmp_path, "MERGE_ON_READ")
    before = sorted(p.name for p in (tmp_path / "t" / ".hoodie").iterdir())
    empty = pa.table({"id": pa.array([], pa.int64()), "p": pa.array([], pa.string()), "ts": pa.array([], pa.int64())})
    with pytest.raises(WriteError, match="partitions.to.delete"):
        write_table(path, empty, "delete_partition", {})
    assert sorted(p.name for p in (tmp_path / "t" / ".hoodie").iterdir()) == before


def test_cli_operations_and_hudi_rs_reads_the_result(tmp_path):
    path = _table(tmp_path, "MERGE_ON_READ")
    inp = tmp_path / "x.jsonl"
    inp.write_text(json.dumps({"id": 7, "p": "a", "ts": 5}) + "\n")
    cli = [sys.executable, "-m", "hudi_log.cli", "write", path, "--input", str(inp)]
    r = subprocess.run(cli + ["-o", "hoodie.datasource.write.operation=delete_partition",
                              "-o", "hoodie.datasource.write.partitions.to.delete=c"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _keys(path) == [1, 2]
    r = subprocess.run(cli + ["--operation", "insert_overwrite_table"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _keys(path) == [7]
    r = subprocess.run(cli + ["--operation", "bogus"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown operation 'bogus'" in r.stderr
    assert sorted(r["id"] for r in hudi_rs_rows(path)) == [7]


@pytest.mark.slow
def test_spark_writes_take_both_operations(spark, tmp_path):
    from hudi_log.spark import write

    path = _table(tmp_path, "MERGE_ON_READ")
    empty = spark.createDataFrame([], "id long, p string, ts long")
    empty.write.format("hudi_log").option("hoodie.datasource.write.operation", "delete_partition") \
        .option("hoodie.datasource.write.partitions.to.delete", "a").mode("append").save(path)
    assert _keys(path) == [2, 3, 4]
    write(spark.createDataFrame([(8, "y", 1)], "id long, p string, ts long").repartition(3), path,
          {"hoodie.datasource.write.operation": "insert_overwrite_table"})
    assert _keys(path) == [8]
    assert sorted(r["id"] for r in hudi_rs_rows(path)) == [8]
