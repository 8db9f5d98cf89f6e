"""Schema evolution reads as Java's does (issue 15, item 3): every evolution Hudi allows on write
(``int → long, float, double, string``, ``long → float, double, string``, ``float → double, string``,
``double → string``, a batch narrower than the table, ``string``/``bytes`` either way, a new column, the
same inside structs, lists and maps, a field added to a struct) reads back with the latest table schema's types on MERGE_ON_READ (log blocks of both types in one slice, the base
file of the older) and COPY_ON_WRITE, on the Arrow path and the record path alike."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log import read_table, write_table
from hudi_log.cli.tables import read_cmd
from hudi_log.table import HudiTable
from hudi_log.table.errors import SchemaEvolutionError
from hudi_log.table.read.query import read_slice
from hudi_log.table.services.compaction import run_compaction, schedule_compaction

KINDS = ["MERGE_ON_READ", "COPY_ON_WRITE"]

# (first type, value), (later type, value), the column's type after both, and how each value reads back
CASES = [
    ((pa.int32(), 10), (pa.int64(), 2**40), pa.int64(), (10, 2**40)),
    ((pa.int32(), 10), (pa.float32(), 1.5), pa.float32(), (10.0, 1.5)),
    ((pa.int32(), 10), (pa.float64(), 2.5), pa.float64(), (10.0, 2.5)),
    ((pa.int32(), 10), (pa.string(), "x"), pa.string(), ("10", "x")),
    ((pa.int64(), 2**40), (pa.float64(), 2.5), pa.float64(), (float(2**40), 2.5)),
    ((pa.int64(), 2**40), (pa.string(), "y"), pa.string(), (str(2**40), "y")),
    ((pa.float32(), 1.5), (pa.float64(), 2.25), pa.float64(), (1.5, 2.25)),
    ((pa.float32(), 0.1), (pa.string(), "z"), pa.string(), ("0.1", "z")),  # Java's Float.toString
    ((pa.float64(), 1e20), (pa.string(), "z"), pa.string(), ("1.0E20", "z")),  # Java's Double.toString
    ((pa.float64(), 3.0), (pa.string(), "z"), pa.string(), ("3.0", "z")),
    ((pa.int64(), 2**40), (pa.int32(), 5), pa.int64(), (2**40, 5)),  # narrower batch: cast on write
    ((pa.string(), "s"), (pa.int64(), 5), pa.string(), ("s", "5")),
    ((pa.string(), "s"), (pa.binary(), b"b"), pa.string(), ("s", "b")),
    ((pa.binary(), b"b"), (pa.string(), "s"), pa.binary(), (b"b", b"s")),
    # inside structs, lists and maps; a field added at the end of a struct
    ((pa.struct([("a", pa.int32())]), {"a": 1}), (pa.struct([("a", pa.int64())]), {"a": 2**40}),
     pa.struct([("a", pa.int64())]), ({"a": 1}, {"a": 2**40})),
    ((pa.struct([("a", pa.int32())]), {"a": 1}), (pa.struct([("a", pa.int32()), ("b", pa.string())]), {"a": 2, "b": "x"}),
     pa.struct([("a", pa.int32()), ("b", pa.string())]), ({"a": 1, "b": None}, {"a": 2, "b": "x"})),
    ((pa.list_(pa.int32()), [1, 2]), (pa.list_(pa.int64()), [2**40]), pa.list_(pa.field("element", pa.int64())),
     ([1, 2], [2**40])),
    ((pa.map_(pa.string(), pa.int32()), [("k", 1)]), (pa.map_(pa.string(), pa.string()), [("k", "s")]), None,
     ([("k", "1")], [("k", "s")])),
    ((pa.list_(pa.struct([("a", pa.float32())])), [{"a": 2.5}]), (pa.list_(pa.struct([("a", pa.float64())])), [{"a": 0.25}]),
     pa.list_(pa.field("element", pa.struct([("a", pa.float64())]))), ([{"a": 2.5}], [{"a": 0.25}])),
]


def opts(kind: str) -> dict:
    return {"hoodie.table.name": "evo", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": kind}


def batch(ids, ts, typ, value, extra=None) -> pa.Table:
    d = {"id": pa.array([str(i) for i in ids]), "ts": pa.array([ts] * len(ids), pa.int64()),
         "v": pa.array([value] * len(ids), typ)}
    if extra is not None:
        d["extra"] = pa.array([extra] * len(ids), pa.int32())
    return pa.table(d)


def evolved_table(path, kind, first, later):
    """Keys 1-3 written with the first type (key 1 updated again, so a MOR slice has a log block of the
    first type), then key 2 with the later type and a new column: the MOR slice's base file and first log
    block hold the first type, its last log block the later."""
    write_table(path, batch([1, 2, 3], 1, *first), "upsert", opts(kind))
    write_table(path, batch([1], 2, *first), "upsert", opts(kind))
    write_table(path, batch([2], 2, *later, extra=7), "upsert", opts(kind))


def both_paths(path) -> pa.Table:
    """The snapshot through read_table (Arrow merge) after checking the record-by-record merge agrees."""
    plan = HudiTable(path).plan()
    slow = pa.concat_tables([read_slice(plan, t, vectorized=False) for t in plan.tasks]).sort_by("id")
    fast = read_table(path).sort_by("id")
    assert fast.equals(slow), (fast.to_pylist(), slow.to_pylist())
    return fast


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("first,later,typ,values", CASES, ids=lambda c: str(c) if isinstance(c, pa.DataType) else None)
def test_every_allowed_evolution_reads_back(tmp_path, kind, first, later, typ, values):
    path = tmp_path / "t"
    evolved_table(path, kind, first, later)
    got = both_paths(path)
    if typ is not None:
        assert got.schema.field("v").type == typ
    assert got.column("v").to_pylist() == [values[0], values[1], values[0]]
    assert got.column("extra").to_pylist() == [None, 7, None]


def test_mor_int_then_long_through_the_cli_and_compaction(tmp_path):
    """The issue's case: a MERGE_ON_READ slice whose log blocks hold a column as int, then as long."""
    path = tmp_path / "t"
    evolved_table(path, "MERGE_ON_READ", (pa.int32(), 10), (pa.int64(), 2**40))
    tasks = HudiTable(path).plan().tasks  # one slice: the base file (int), a log of int, a log of long
    assert len(tasks) == 1 and len(tasks[0].log_files) == 2
    r = CliRunner().invoke(read_cmd, [str(path), "--format", "jsonl", "--columns", "id,v"])
    assert r.exit_code == 0, r.output
    assert sorted((x["id"], x["v"]) for x in map(json.loads, r.output.splitlines())) == \
        [("1", 10), ("2", 2**40), ("3", 10)]
    instant = schedule_compaction(path, {"hoodie.compact.inline.max.delta.commits": "1"})
    assert instant is not None
    run_compaction(path, instant)
    got = both_paths(path)
    assert got.schema.field("v").type == pa.int64() and got.column("v").to_pylist() == [10, 2**40, 10]


@pytest.mark.parametrize("kind", KINDS)
def test_evolution_java_refuses_is_refused_before_anything_is_written(tmp_path, kind):
    path = tmp_path / "t"
    write_table(path, batch([1], 1, pa.int64(), 5), "upsert", opts(kind))
    before = sorted(p.name for p in (path / ".hoodie").iterdir())
    for typ, value in [(pa.bool_(), True), (pa.date32(), 1), (pa.struct([("a", pa.int32())]), {"a": 1})]:
        with pytest.raises(SchemaEvolutionError, match="'v' changes type"):
            write_table(path, batch([2], 2, typ, value), "upsert", opts(kind))
    assert sorted(p.name for p in (path / ".hoodie").iterdir()) == before


@pytest.mark.slow
def test_spark_dataframe_schema_and_mor_evolution_through_the_data_source(spark, tmp_path):
    """A Spark DataFrame's StructType becomes the schema Hudi's Spark writer derives (a non-null key, a
    decimal as fixed, a struct, Spark's timestamp); a later DataFrame widens ``v`` from int to long in the
    slice's log, and the data source reads it back as long."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
    from pyspark.sql.types import (DecimalType, IntegerType, LongType, StringType, StructField, StructType,
                                   TimestampType)

    from hudi_log.format.content.avro_arrow import arrow_to_avro_schema
    from hudi_log.format.content.meta_fields import schema_json
    from hudi_log.spark.sink import _arrow_schema
    from hudi_log.table.schema import current_schema

    path = str(tmp_path / "t")
    o = {**opts("MERGE_ON_READ"), "hoodie.datasource.write.operation": "upsert"}

    def spark_df(rows, vtype):
        st = StructType([StructField("id", StringType(), False), StructField("ts", LongType()),
                         StructField("v", vtype), StructField("amount", DecimalType(12, 3)),
                         StructField("at", TimestampType()),
                         StructField("where", StructType([StructField("city", StringType())]))])
        return spark.createDataFrame(rows, st)

    import datetime
    import decimal
    at = datetime.datetime(2025, 1, 2, 3, 4, 5)
    first = spark_df([(str(i), 1, 10, decimal.Decimal("1.500"), at, ("c",)) for i in (1, 2, 3)], IntegerType())
    first.write.format("hudi_log").options(**o).mode("append").save(path)
    spark_df([("1", 2, 11, decimal.Decimal("2.500"), at, ("d",))], IntegerType()) \
        .write.format("hudi_log").options(**o).mode("append").save(path)
    spark_df([("2", 2, 2**40, decimal.Decimal("3.500"), at, ("e",))], LongType()) \
        .write.format("hudi_log").options(**o).mode("append").save(path)
    table = HudiTable(path)
    expected = arrow_to_avro_schema(_arrow_schema(first.schema), "evo")
    expected["fields"][2]["type"] = ["null", "long"]  # widened by the last DataFrame
    assert schema_json(current_schema(table.properties, table.timeline)) == schema_json(expected)
    assert expected["fields"][0] == {"name": "id", "type": "string"}
    got = sorted((r["id"], r["v"], r["where"]["city"]) for r in
                 spark.read.format("hudi_log").load(path).select("id", "v", "where").collect())
    assert got == [("1", 11, "d"), ("2", 2**40, "e"), ("3", 10, "c")]


def test_nested_evolution_java_refuses_names_the_nested_field(tmp_path):
    path = tmp_path / "t"
    typ = pa.struct([("a", pa.int64()), ("b", pa.string())])
    write_table(path, batch([1], 1, typ, {"a": 1, "b": "x"}), "upsert", opts("MERGE_ON_READ"))
    with pytest.raises(SchemaEvolutionError, match="'v.a' changes type"):
        write_table(path, batch([2], 2, pa.struct([("a", pa.bool_()), ("b", pa.string())]), {"a": True, "b": "y"}),
                    "upsert", opts("MERGE_ON_READ"))
    with pytest.raises(SchemaEvolutionError, match="lacks column 'v.b'"):
        write_table(path, batch([2], 2, pa.struct([("a", pa.int64())]), {"a": 2}), "upsert", opts("MERGE_ON_READ"))
    assert read_table(path).column("v").to_pylist() == [{"a": 1, "b": "x"}]
