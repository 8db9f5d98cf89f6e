"""Partition pruning on the installed PySpark (4.3), where a pushed filter cannot be kept with its own scan: the
``hudi_log.read.filters`` option and ``hudi_log.spark.read(..., filters=)`` prune file slices when the read is
planned (counted by the plan's slices) and hold for every row returned."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")

from hudi_log.spark.source import FILTERS, HudiReadError, _plan  # noqa: E402
from hudi_log.table.write.client import write_table  # noqa: E402

OPTS = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


@pytest.fixture
def table(tmp_path):
    path = str(tmp_path / "t")
    write_table(path, pa.table({"id": list(range(9)), "p": ["a", "b", "c"] * 3, "ts": [1] * 9}), "insert", OPTS)
    write_table(path, pa.table({"id": [0, 1], "p": ["a", "b"], "ts": [2, 2]}), "upsert", {})  # logs in a and b
    return path


def test_option_prunes_slices_and_filters_rows(table):
    every = _plan({"path": table})
    only_a = _plan({"path": table, FILTERS: json.dumps([["p", "=", "a"]])})
    assert {t.partition for t in every.tasks} == {"a", "b", "c"}
    assert {t.partition for t in only_a.tasks} == {"a"}
    both = _plan({"path": table, FILTERS: json.dumps([["p", "in", ["a", "c"]], ["id", ">=", 3]])})
    assert {t.partition for t in both.tasks} == {"a", "c"}


@pytest.mark.parametrize("bad", ["{", '{"p": 1}', '[["p", "~", 1]]', '[["p", "in", "a"]]', '[["p", "="]]'])
def test_bad_option_is_refused_naming_it(table, bad):
    with pytest.raises(HudiReadError, match="hudi_log.read.filters"):
        _plan({"path": table, FILTERS: bad})


@pytest.mark.slow
def test_spark_reads_prune_and_filter(spark, table):
    from hudi_log.spark import read

    df = spark.read.format("hudi_log").option(FILTERS, json.dumps([["p", "=", "a"]])).load(table)
    assert sorted(r["id"] for r in df.collect()) == [0, 3, 6]
    assert df.rdd.getNumPartitions() >= 1
    rows = read(spark, table, filters=[("p", "in", ["a", "c"]), ("id", ">=", 3)]).collect()
    assert sorted(r["id"] for r in rows) == [3, 5, 6, 8]
    rows = read(spark, table, filters=[("p", "=", "c")]).collect()  # base-only slices: Spark's Parquet scan
    assert sorted(r["id"] for r in rows) == [2, 5, 8]
