"""``hudi_log.spark.read``: base-only file slices through Spark's Parquet scan, merged ones through the data source.

Every read returns exactly the rows ``hudi_log.read_table`` returns (itself held equal to hudi-rs), and the
physical plan shows which half did what: a read-optimized or COPY_ON_WRITE read is Spark's Parquet scan
alone, a MERGE_ON_READ snapshot unions the scan of its compacted slices with the data source's merge of
the rest, and a table that changed between the two plans fails the read instead of mixing two snapshots.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import pyarrow as pa
import pytest

from hudi_log import write_table
from hudi_log.table import HudiTable, read_table

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark import read  # noqa: E402
from hudi_log.spark.native import NATIVE_FILES, ReadPlanChanged, narrowed, native_tasks  # noqa: E402
from hudi_log.spark.source import AS_OF, PLANNED_AT, QUERY_TYPE  # noqa: E402
from test_spark_source import same_rows  # noqa: E402

pytestmark = pytest.mark.slow


def opts(table_type, **extra):
    return {"hoodie.table.name": "native", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.parquet.small.file.limit": "0", **extra}


def rows(ids, ts, region="eu", extra=None):
    cols = {"id": [f"k{i}" for i in ids], "ts": pa.array([ts] * len(ids), pa.int64()),
            "name": [f"n{i}@{ts}" for i in ids], "region": [region] * len(ids)}
    cols.update(extra or {})
    return pa.table(cols)


def scans(df) -> tuple[bool, bool]:
    """(Spark's Parquet scan in the plan, the Python data source in the plan)."""
    plan = df._jdf.queryExecution().executedPlan().toString()
    return "FileScan parquet" in plan, "PythonScan" in plan or "BatchScan" in plan


def test_every_corpus_table_as_the_data_source_reads_it(spark, corpus_tables):
    native_seen = 0
    for name, root in sorted(corpus_tables.items()):
        for query in ("snapshot", "read_optimized"):
            plan = HudiTable(root).plan(query=query)
            native_seen += len(native_tasks(plan))
            same_rows(read(spark, str(root), {QUERY_TYPE: query}).toArrow(), read_table(root, query=query))
        for inst in HudiTable(root).timeline.completed_commits():
            t = inst.requested_time
            same_rows(read(spark, str(root), {AS_OF: t}).toArrow(), read_table(root, as_of=t))
    assert native_seen > 0  # Java's base files are read by Spark's scan (not every slice falls back)


def test_copy_on_write_is_a_parquet_scan_alone(spark, tmp_path, monkeypatch):
    path = str(tmp_path / "cow")
    write_table(path, rows(range(10), 1), "insert", opts("COPY_ON_WRITE"))
    write_table(path, rows(range(5, 15), 2), "upsert", opts("COPY_ON_WRITE"))
    df = read(spark, path)
    assert scans(df) == (True, False)
    same_rows(df.toArrow(), read_table(path))
    got = read(spark, path).where("id = 'k7'").select("name").collect()
    assert [r.name for r in got] == ["n7@2"]
    # a relative path is the caller's, not the JVM's working directory's
    monkeypatch.chdir(tmp_path)
    same_rows(read(spark, "cow").toArrow(), read_table(path))
    # time travel: the first commit's base files, still by Spark's scan
    first = HudiTable(path).timeline.completed_commits()[0].requested_time
    old = read(spark, path, {AS_OF: first})
    assert scans(old) == (True, False)
    same_rows(old.toArrow(), read_table(path, as_of=first))


def test_merge_on_read_unions_compacted_slices_with_merged_ones(spark, tmp_path):
    from hudi_log.table.services.compaction import compact

    path = str(tmp_path / "mor")
    o = opts("MERGE_ON_READ")
    write_table(path, rows(range(10), 1, "eu"), "insert", o)
    write_table(path, rows(range(100, 110), 1, "us"), "insert", o)
    write_table(path, rows(range(5), 2, "eu"), "upsert", o)  # eu gets a log file
    df = read(spark, path)
    assert scans(df) == (True, True)  # us by Spark's scan, eu merged by the data source
    same_rows(df.toArrow(), read_table(path))
    ro = read(spark, path, {QUERY_TYPE: "read_optimized"})
    assert scans(ro) == (True, False)
    same_rows(ro.toArrow(), read_table(path, query="read_optimized"))
    assert read(spark, path).where("region = 'eu' and id = 'k1'").select("name").collect()[0].name == "n1@2"
    compact(path, {"hoodie.compact.inline.max.delta.commits": "1"})
    after = read(spark, path)
    assert scans(after) == (True, False)  # every slice compacted: Parquet alone
    same_rows(after.toArrow(), read_table(path))


def test_columns_reach_both_halves_of_a_read(spark, tmp_path):
    """``read(..., columns=)`` / option hudi_log.read.columns: both Spark's Parquet scan and the data source's
    merged slices hand over only those columns (a select after a Python data source cannot narrow what it
    reads), in the order given, each once; the rows are the whole read's, projected. An unknown column, or
    columns on a CDC query, is an error naming the option."""
    from hudi_log.spark.source import COLUMNS, HudiReadError

    path = str(tmp_path / "mor")
    o = opts("MERGE_ON_READ")
    write_table(path, rows(range(10), 1, "eu"), "insert", o)
    write_table(path, rows(range(100, 110), 1, "us"), "insert", o)
    write_table(path, rows(range(5), 2, "eu"), "upsert", o)  # eu gets a log file
    cols = ["name", "_hoodie_commit_time", "id"]
    want = read_table(path).select(cols)
    for df in (read(spark, path, columns=cols), read(spark, path, {COLUMNS: " name,_hoodie_commit_time , id,name"}),
               spark.read.format("hudi_log").option(COLUMNS, ",".join(cols)).load(path)):
        assert df.columns == cols
        same_rows(df.toArrow(), want)
    df = read(spark, path, columns=cols)
    assert scans(df) == (True, True)
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "ReadSchema: struct<name:string,_hoodie_commit_time:string,id:string>" in plan, plan
    assert {r.name for r in df.where("id = 'k1'").collect()} == {"n1@2"}
    with pytest.raises(HudiReadError, match="option hudi_log.read.columns: the table has no column 'nope'"):
        read(spark, path, columns=["id", "nope"])
    with pytest.raises(Exception, match="option hudi_log.read.columns: a CDC query"):
        (spark.read.format("hudi_log").option(QUERY_TYPE, "incremental").option("hoodie.datasource.read.begin.instanttime", "0")
         .option("hoodie.datasource.query.incremental.format", "cdc").option(COLUMNS, "id").load(path).collect())


def test_an_older_file_without_a_newer_column_reads_it_as_null(spark, tmp_path):
    path = str(tmp_path / "evolved")
    o = opts("COPY_ON_WRITE")
    write_table(path, rows(range(4), 1, "eu"), "insert", o)
    write_table(path, rows(range(10, 14), 2, "us", {"score": pa.array([1.5] * 4)}), "insert", o)
    df = read(spark, path)
    assert scans(df) == (True, False)
    got = {r.id: r.score for r in df.select("id", "score").collect()}
    assert got == {**{f"k{i}": None for i in range(4)}, **{f"k{i}": 1.5 for i in range(10, 14)}}
    same_rows(df.toArrow(), read_table(path))


def test_a_base_file_of_another_type_goes_to_the_data_source(tmp_path):
    path = str(tmp_path / "promoted")
    o = opts("COPY_ON_WRITE")
    write_table(path, rows(range(4), 1, "eu", {"v": pa.array([1] * 4, pa.int32())}), "insert", o)
    write_table(path, rows(range(10, 14), 2, "us", {"v": pa.array([2] * 4, pa.int64())}), "insert", o)
    plan = HudiTable(path).plan()
    assert plan.schema.field("v").type == pa.int64()
    exact = {t.partition: t.base_exact for t in plan.tasks}
    assert exact == {"eu": False, "us": True}
    assert [t.partition for t in native_tasks(plan)] == ["us"]


def test_a_table_that_changed_between_the_plans_fails_the_read(tmp_path):
    path = str(tmp_path / "moving")
    o = opts("MERGE_ON_READ")
    write_table(path, rows(range(10), 1, "eu"), "insert", o)
    write_table(path, rows(range(100, 110), 1, "us"), "insert", o)
    driver = HudiTable(path).plan()
    native = native_tasks(driver)
    assert {t.partition for t in native} == {"eu", "us"}
    told = {"path": path, NATIVE_FILES: json.dumps([PurePosixPath(t.base_file).name for t in native]),
            PLANNED_AT: driver.context.bound}
    assert narrowed(HudiTable(path).plan(), told).tasks == []  # nothing left for the data source
    write_table(path, rows(range(3), 2, "eu"), "upsert", o)  # eu's base file now has a log file
    with pytest.raises(ReadPlanChanged, match="read again"):
        narrowed(HudiTable(path).plan(), told)
    with pytest.raises(ReadPlanChanged, match="base file .* is no longer a whole file slice"):
        narrowed(HudiTable(path).plan(as_of=driver.context.bound), told)
