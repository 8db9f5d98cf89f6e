"""Column statistics prune file slices on reads (issue 36, item 4): the result always equals the unpruned
read's, on every corpus table with a metadata table; fewer slices are read where the ranges prove it; pruning
is off, saying why, where the metadata table cannot be trusted."""

from __future__ import annotations

import shutil
from datetime import date
from decimal import Decimal

import pytest

from hudi_log.table.metadata.column_ranges import DATE, DECIMAL, INT, STRING, ColumnRange, kind_of
from hudi_log.table.read.query import HudiTable, read_plan
from hudi_log.table.read.stats_pruning import may_match

MDT_TABLES = ["quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "sample_table_cow_v9_timebasedkeygen_epochmillis",
              "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle", "sample_table_mor_avro_v9_txns_simple_meta"]
OFF = {"hoodie.metadata.enable": "false"}


def _rows(table):
    return sorted(map(str, table.sort_by("_hoodie_record_key").to_pylist()))


def _filters_of(table):
    """Per column: =, <, >= on values the table holds, and not in (which nulls pass); in, > and != on the
    first columns (the same code paths: kept few, each plan reads the metadata table)."""
    out = []
    for col in table.column_names:
        vals = sorted({v for v in table.column(col).to_pylist() if v is not None}, key=repr)
        if not vals:
            continue
        out += [(col, "=", vals[0]), (col, "<", min(vals)), (col, ">=", vals[len(vals) // 2]), (col, "not in", vals[:1])]
        if len(out) <= 24:
            out += [(col, "in", vals[:2]), (col, ">", max(vals)), (col, "!=", vals[-1])]
    return out


@pytest.mark.parametrize("name", MDT_TABLES)
def test_pruned_reads_equal_unpruned_reads(corpus_tables, name):
    root = corpus_tables[name]
    table, plain = HudiTable(root), HudiTable(root, OFF)
    everything = read_plan(table.plan())
    pruned_somewhere = 0
    for f in _filters_of(everything):
        try:
            unpruned = plain.plan(filters=[f])
            expected = read_plan(unpruned)
        except Exception:  # a filter value the read itself refuses for this column: not pruning's concern
            continue
        plan = table.plan(filters=[f])
        assert plan.pruning.used and plan.pruning.slices_before == len(unpruned.tasks), plan.pruning
        assert _rows(read_plan(plan)) == _rows(expected), f
        pruned_somewhere += plan.pruning.slices_after < plan.pruning.slices_before
    assert pruned_somewhere >= 10


def test_slices_read_are_counted_and_logged(corpus_tables, caplog):
    root = corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    with caplog.at_level("INFO", logger="hudi_log.read"):
        plan = HudiTable(root).plan(filters=[("txn_id", "=", "TXN-015")])
    assert (plan.pruning.slices_before, plan.pruning.slices_after, len(plan.tasks)) == (5, 1, 1)
    assert "1 of 5 file slices read" in caplog.text
    assert read_plan(plan).column("txn_id").to_pylist() == ["TXN-015"]
    # decimals, dates and timestamps are compared in the index's own terms
    assert len(HudiTable(root).plan(filters=[("amount", ">", Decimal("8900.00"))]).tasks) == 0
    assert len(HudiTable(root).plan(filters=[("txn_date", "<", date(2024, 1, 15))]).tasks) == 0
    # two filters: ANDed
    assert len(HudiTable(root).plan(filters=[("txn_id", ">=", "TXN-001"), ("currency", "=", "JPY")]).tasks) == 0


def test_pruning_is_off_where_the_metadata_table_cannot_be_trusted(corpus_tables, tmp_path):
    root = corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    f = [("txn_id", "=", "TXN-015")]
    off = HudiTable(root, OFF).plan(filters=f).pruning
    assert (off.used, off.reason, off.slices_after) == (False, "hoodie.metadata.enable=false", 5)
    assert HudiTable(root).plan().pruning.reason == "no filters"
    # not in step: the metadata table lacks the data table's latest commit
    copy = tmp_path / "t"
    shutil.copytree(root, copy)
    timeline = copy / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    for p in timeline.glob("20260307162620509_*.deltacommit"):
        p.unlink()
    stale = HudiTable(copy).plan(filters=f).pruning
    assert not stale.used and "20260307162620509" in stale.reason and len(HudiTable(copy).plan(filters=f).tasks) == 5
    # no column_stats index listed
    props = copy / ".hoodie" / "hoodie.properties"
    props.write_text(props.read_text().replace("column_stats,", ""))
    assert HudiTable(copy).plan(filters=f).pruning.reason == "the table has no column_stats index"


def _r(lo, hi, nulls=0, values=3, kind=kind_of(INT, None, 2)):
    return ColumnRange("f", "c", lo, hi, nulls, values, 0, 0, kind)


def test_a_range_proves_only_what_it_can():
    r = _r(5, 9)
    assert may_match(r, "=", 5) and may_match(r, "=", 9) and not may_match(r, "=", 10) and not may_match(r, "=", 4)
    assert may_match(r, "<", 6) and not may_match(r, "<", 5) and may_match(r, "<=", 5) and not may_match(r, "<=", 4)
    assert may_match(r, ">", 8) and not may_match(r, ">", 9) and may_match(r, ">=", 9) and not may_match(r, ">=", 10)
    assert may_match(r, "in", [1, 7]) and not may_match(r, "in", [1, 10])
    assert not may_match(_r(4, 4), "!=", 4) and may_match(_r(4, 5), "!=", 4)
    assert not may_match(_r(4, 4), "not in", [4, 8]) and may_match(r, "not in", [5])
    assert not may_match(_r(None, None, 3, 3), "!=", 1)  # only nulls: nothing passes...
    assert may_match(_r(None, None, 3, 3), "not in", [1]) and not may_match(_r(None, None, 3, 3), "not in", [1, None])
    assert may_match(_r(None, None, 3, 3), "in", [1, None]) and not may_match(_r(5, 5, 0), "not in", [5, None])
    assert not may_match(_r(None, None, 0, 0), "=", 1)  # a log file of deletes only
    assert may_match(_r(None, None, 0, 2), "=", 1)  # values but no bounds: no proof
    assert may_match(_r(float("nan"), 1.0), "=", 7.0)  # a NaN bound: no proof
    assert may_match(_r(5, 9), "=", "x")  # values that do not compare: no proof
    strs = kind_of(STRING, None, 2)
    assert not may_match(_r("b", "d", kind=strs), ">", "e") and may_match(_r("b", "d", kind=strs), ">", "\uff5e")
    assert may_match(_r(-5, 5, kind=kind_of(STRING, None, 2)), "=", date(2020, 1, 1))
    dec = kind_of(DECIMAL, "15,2", 2)
    assert may_match(_r(1000, 2000, kind=dec), "=", Decimal("15.5")) and not may_match(_r(1000, 2000, kind=dec), "=", 21)
    assert not may_match(_r(1000, 2000, kind=dec), ">", 20.0)
    days = kind_of(DATE, None, 2)
    assert may_match(_r(19737, 19740, kind=days), "=", date(2024, 1, 16))
    assert not may_match(_r(19737, 19740, kind=days), ">", date(2024, 1, 18))


@pytest.mark.slow
def test_spark_reads_prune_by_column_stats(spark, corpus_tables):
    """``hudi_log.read.filters`` and ``hudi_log.spark.read(filters=)`` plan through the same pruning: one
    input partition per slice left, the rows of the unpruned read."""
    import json

    from hudi_log.spark import read as spark_read
    from hudi_log.spark.source import FILTERS

    root = corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    f = [("txn_id", ">=", "TXN-013")]
    plan = HudiTable(root).plan(filters=f)
    assert (plan.pruning.slices_before, plan.pruning.slices_after) == (5, 4)
    want = _rows(read_plan(HudiTable(root, OFF).plan(filters=f)))
    df = (spark.read.format("hudi_log").option(FILTERS, json.dumps([list(x) for x in f]))
          .option("hudi_log.read.targetPartitionBytes", "1").load(str(root)))
    assert df.rdd.getNumPartitions() == 4
    got = df.toArrow()
    assert sorted(got.column("_hoodie_record_key").to_pylist()) == \
        sorted(read_plan(plan).column("_hoodie_record_key").to_pylist())
    assert len(want) == got.num_rows == 6
    native = spark_read(spark, str(root), filters=f).toArrow()
    assert sorted(native.column("txn_id").to_pylist()) == sorted(got.column("txn_id").to_pylist())
