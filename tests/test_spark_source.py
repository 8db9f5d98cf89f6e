"""Reading Hudi tables through the ``hudi_log`` Spark data source.

Every corpus table, at every completed instant (time travel), between consecutive instants
(incremental) and as a snapshot, returns through Spark exactly the rows ``hudi_log.read_table`` returns
(itself held equal to hudi-rs by tests/test_table_read.py). Rows are compared sorted, column by column,
after casting our Arrow column to the type Spark hands back (e.g. a timestamp's unit and zone).
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.table import HudiTable, read_table

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark.source import AS_OF, BEGIN, END, QUERY_TYPE, HudiReader, partition_filters  # noqa: E402

pytestmark = pytest.mark.slow


def spark_rows(spark, path, **options) -> pa.Table:
    r = spark.read.format("hudi_log")
    for k, v in options.items():
        r = r.option(k, v)
    return r.load(str(path)).toArrow()


def same_rows(theirs: pa.Table, ours: pa.Table) -> None:
    assert theirs.column_names == ours.column_names
    cols = []
    for name in ours.column_names:
        a, b = ours.column(name), theirs.column(name)
        if a.type != b.type:
            a = a.cast(b.type)
        cols.append((a, b))
    rows_a = sorted(zip(*(c[0].to_pylist() for c in cols)), key=repr)
    rows_b = sorted(zip(*(c[1].to_pylist() for c in cols)), key=repr)
    assert rows_b == rows_a


def test_every_corpus_table_every_instant(spark, corpus_tables):
    checked = 0
    for name, root in sorted(corpus_tables.items()):
        same_rows(spark_rows(spark, root), read_table(root))
        instants = [i.requested_time for i in HudiTable(root).timeline.completed_commits()]
        for t in instants:
            same_rows(spark_rows(spark, root, **{AS_OF: t}), read_table(root, as_of=t))
            checked += 1
        for begin, end in zip(instants, instants[1:]):
            got = spark_rows(spark, root, **{QUERY_TYPE: "incremental", BEGIN: begin, END: end})
            same_rows(got, read_table(root, query="incremental", begin=begin, end=end))
        same_rows(spark_rows(spark, root, **{QUERY_TYPE: "read_optimized"}), read_table(root, query="read_optimized"))
    assert checked >= 20


def test_partition_filters_prune_slices(spark, corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    opts = {"path": str(root), "hudi_log.read.targetPartitionBytes": "1"}  # one input partition per slice
    plan = HudiTable(root).plan()
    cities = sorted({t.partition for t in plan.tasks})
    assert len(cities) == 3
    from pyspark.sql.datasource import EqualTo, GreaterThan

    reader = HudiReader(opts, HudiTable(root).plan())
    pushed = [EqualTo(("city",), "chennai"), GreaterThan(("fare",), 1.0)]
    assert reader.pushFilters(pushed) == pushed  # Spark keeps applying every filter to the rows
    reader.narrow(pushed)  # what pushFilters does on a Spark whose pushdown is scoped to its scan
    assert {t.partition for p in reader.partitions() for t in p.tasks} == {"city=chennai"}
    assert partition_filters(pushed, {"city"}) == [("city", "=", "chennai")]
    df = spark.read.format("hudi_log").option("hudi_log.read.targetPartitionBytes", "1").load(str(root))
    got = df.where("city = 'chennai'").toArrow()
    want = read_table(root, filters=[("city", "=", "chennai")])
    same_rows(got, want)
    assert got.num_rows > 0


def test_bad_options_name_the_problem(spark, corpus_tables, tmp_path):
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    with pytest.raises(Exception, match="needs option hoodie.datasource.read.begin.instanttime"):
        spark.read.format("hudi_log").option(QUERY_TYPE, "incremental").load(str(root)).collect()
    with pytest.raises(Exception, match="hoodie"):
        spark.read.format("hudi_log").load(str(tmp_path)).collect()  # not a Hudi table


def test_row_filters_are_applied_after_the_merge_in_the_slices(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    from pyspark.sql.datasource import EqualTo, GreaterThan, In, IsNotNull, LessThan

    full = read_table(root)
    riders = full.column("rider").to_pylist()
    rider = sorted(riders)[len(riders) // 2]
    reader = HudiReader({"path": str(root)}, HudiTable(root).plan())
    reader.narrow([EqualTo(("rider",), rider), GreaterThan(("fare",), 1.0), IsNotNull(("driver",)),
                   LessThan(("rider",), 5)])
    # only the string comparison of a string column reaches the slices: a float comparison, a null check and
    # a value of another type stay with Spark
    assert reader.plan.context.filters == (("rider", "=", rider),)
    got = pa.Table.from_batches([b for p in reader.partitions() for b in reader.read(p)])
    assert got.num_rows == riders.count(rider) > 0 and set(got.column("rider").to_pylist()) == {rider}
    reader = HudiReader({"path": str(root)}, HudiTable(root).plan())
    reader.narrow([In(("rider",), [rider, "nobody"])])
    assert reader.plan.context.filters == (("rider", "in", [rider, "nobody"]),)
    assert sum(b.num_rows for p in reader.partitions() for b in reader.read(p)) == riders.count(rider)


def test_a_dataframe_queried_again_sees_every_row(spark, corpus_tables):
    """Spark up to 4.3 reuses a pushdown's plan for the DataFrame's later scans: after a filtered count, a plain
    count read only the filtered partition's slices (2 rows of 8), silently."""
    from hudi_log.spark.source import jvm_scan_scoped_pushdown, scan_scoped_pushdown

    assert scan_scoped_pushdown() == jvm_scan_scoped_pushdown(spark)  # the Python side tells the JVM's apart
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    full = read_table(root)
    df = spark.read.format("hudi_log").option("hudi_log.read.targetPartitionBytes", "1").load(str(root))
    for col, value in (("city", "chennai"), ("rider", full.column("rider")[0].as_py())):
        same_rows(df.where(f"{col} = '{value}'").toArrow(), read_table(root, filters=[(col, "=", value)]))
        assert df.count() == full.num_rows
    same_rows(df.toArrow(), full)


def test_the_data_source_reads_slices_in_any_order(corpus_tables):
    """A DataFrame's rows have no order, so the data source's plan lets the merge skip putting a slice's rows
    in its base file's order (the rows themselves are checked against read_table above)."""
    from hudi_log.spark.source import _plan

    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    assert _plan({"path": str(root)}).context.ordered is False
    assert HudiTable(root).plan().context.ordered is True
