"""Writes other readers can read (issue 35, item 7): a column name Avro cannot carry, a column given twice and a
decimal over precision 38 are refused before anything is written (no table created, an existing one unchanged),
naming the table and the column; values the table's column type cannot hold (timestamps out of range,
nanoseconds a microsecond column would lose) are a ColumnCastError naming both, also before anything is written.
Through write_table, begin_write with an Avro schema, `hudi-log write` and the Spark writer."""

from __future__ import annotations

import decimal
import json

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import read_table
from hudi_log.table.errors import ColumnCastError, WriteSchemaError
from hudi_log.table.write.client import begin_write, write_table

OPTIONS = {"hoodie.table.name": "checked", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


def batch(**columns) -> pa.Table:
    n = len(next(iter(columns.values())))
    return pa.table({"id": [f"k{i}" for i in range(n)], "ts": list(range(n)), **columns})


def tree(path) -> dict[str, bytes]:
    """Every file under ``path`` with its bytes (empty when there is no such folder)."""
    return {str(f.relative_to(path)): f.read_bytes() for f in sorted(path.rglob("*")) if f.is_file()}


@pytest.fixture
def existing(tmp_path):
    path = tmp_path / "existing"
    write_table(path, batch(v=[1, 2], t=pa.array([0, 1], pa.timestamp("us"))), "upsert", OPTIONS)
    return path


def refused(path, data, error, *fragments):
    """Writing ``data`` raises ``error`` naming the table and ``fragments``; nothing under ``path`` changed."""
    before = tree(path)
    with pytest.raises(error) as e:
        write_table(path, data, "upsert", OPTIONS)
    for f in (path, *fragments):
        assert str(f) in str(e.value), (f, str(e.value))
    assert tree(path) == before
    return e.value


def _struct(name):
    return pa.array([{name: 1}, {name: 2}])


def _list_of_struct(name):
    return pa.array([[{name: 1}], []], pa.list_(pa.struct([(name, pa.int64())])))


BAD_NAMES = [("a.b", None, "'a.b'"), ("", None, "column ''"), ("1abc-x", None, "'1abc-x'"),
             ("has space", None, "'has space'"), ("naïve", None, "'naïve'"), ("s", _struct("x-y"), "'s.x-y'"),
             ("l", _list_of_struct("1st"), "'l.element.1st'")]


@pytest.mark.parametrize("name, column, where", BAD_NAMES, ids=[repr(b[0]) for b in BAD_NAMES])
def test_a_column_name_avro_cannot_carry_is_refused_before_anything_is_written(tmp_path, existing, name, column,
                                                                               where):
    data = batch(**{name: column if column is not None else [1, 2]})
    new = tmp_path / "new"
    refused(new, data, WriteSchemaError, where, "not an Avro name")
    assert not new.exists()  # no table was created
    refused(existing, data, WriteSchemaError, where, "not an Avro name")


@pytest.mark.parametrize("precision, scale", [(50, 2), (39, 0), (76, 10)])
def test_a_decimal_over_precision_38_is_refused(tmp_path, existing, precision, scale):
    data = batch(d=pa.array([decimal.Decimal("1"), None], pa.decimal256(precision, scale)))
    refused(tmp_path / "new", data, WriteSchemaError, "'d'", f"decimal precision {precision}")
    refused(existing, data, WriteSchemaError, "'d'", f"decimal precision {precision}")


def test_a_decimal256_within_38_digits_is_written_and_read_back(tmp_path):
    path = tmp_path / "t"
    write_table(path, batch(d=pa.array([decimal.Decimal("1.25"), None], pa.decimal256(38, 2))), "upsert", OPTIONS)
    got = read_table(path, columns=["d"]).column("d")
    assert got.type == pa.decimal128(38, 2) and sorted(map(str, got.to_pylist())) == ["1.25", "None"]


def test_a_column_given_twice_is_refused(tmp_path, existing):
    data = pa.Table.from_arrays([pa.array(["a", "b"]), pa.array([1, 2]), pa.array([1, 2]), pa.array([3, 4])],
                                names=["id", "ts", "v", "v"])
    refused(tmp_path / "new", data, WriteSchemaError, "column 'v' is given twice")
    refused(existing, data, WriteSchemaError, "column 'v' is given twice")
    nested = batch(s=pa.StructArray.from_arrays([pa.array([1, 2]), pa.array([3, 4])], names=["x", "x"]))
    refused(existing, nested, WriteSchemaError, "column 's.x' is given twice")


def test_an_avro_schema_with_such_a_name_is_refused_by_begin_write(tmp_path):
    schema = {"type": "record", "name": "r", "fields": [{"name": "id", "type": "string"},
                                                         {"name": "ts", "type": "long"},
                                                         {"name": "bad-name", "type": "int"}]}
    with pytest.raises(WriteSchemaError, match=r"column 'bad-name'.*not an Avro name"):
        begin_write(tmp_path / "t", "upsert", OPTIONS, schema=schema)
    assert not (tmp_path / "t").exists()


CASTS = [("nanoseconds a microsecond column would lose", pa.array([1, 1001], pa.timestamp("ns")), "timestamp[us]"),
         ("seconds out of a millisecond column's range", pa.array([2 ** 62, 1], pa.timestamp("s")), "timestamp[ms]")]


@pytest.mark.parametrize("what, values, target", CASTS, ids=[c[0] for c in CASTS])
def test_values_the_column_type_cannot_hold_name_the_table_and_column(tmp_path, what, values, target):
    new = tmp_path / "new"
    e = refused(new, batch(t=values), ColumnCastError, "column 't'", target)
    assert not new.exists()
    assert e.path == str(new)


def test_a_cast_error_into_an_existing_table_leaves_it_unchanged(existing):
    """The table's column is timestamp (microseconds): a batch of nanoseconds that are not whole microseconds
    stops before its instant is requested (no rollback to record, no file written)."""
    refused(existing, batch(v=[3, 4], t=pa.array([1001, 5], pa.timestamp("ns"))), ColumnCastError,
            "column 't'", "would lose data")
    # whole microseconds are cast and written
    write_table(existing, batch(v=[3, 4], t=pa.array([1000, 5000], pa.timestamp("ns"))), "upsert", OPTIONS)
    assert sorted(read_table(existing, columns=["v"]).column("v").to_pylist()) == [3, 4]


def test_the_cli_says_it_in_one_line(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "ts": 1, "a.b": 1}) + "\n")
    path = tmp_path / "t"
    r = CliRunner().invoke(main, ["write", str(path), "--input", str(rows), "--record-key", "id", "--precombine", "ts"])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "'a.b'" in lines[0] and "not an Avro name" in lines[0], lines
    assert not path.exists()


@pytest.mark.slow
def test_the_spark_writer_refuses_such_a_name_on_the_driver(spark, tmp_path):
    from hudi_log.spark import write as spark_write

    df = spark.createDataFrame([("a", 1, 1)], "id string, ts long, `a.b` long")
    path = tmp_path / "t"
    with pytest.raises(WriteSchemaError, match=r"column 'a\.b'.*not an Avro name"):
        spark_write(df, str(path), OPTIONS)
    assert not path.exists()
    with pytest.raises(Exception, match=r"WriteSchemaError.*column 'a\.b'"):
        df.write.format("hudi_log").options(**OPTIONS).mode("append").save(str(path))
    assert not (path / ".hoodie").exists()


@pytest.mark.parametrize("version", ["6", "8", "9"])
def test_an_upsert_without_its_ordering_column_is_refused_as_javas_writer_refuses_it(tmp_path, version):
    """Java's Spark writer reads each record's ordering value where the operation combines rows of one key (an
    upsert by default, an insert with hoodie.combine.before.insert) and fails on a missing field; hudi-log
    refuses it before anything is written, naming the table and the column. Java's insert and delete build no
    ordering value and are taken, and so is an upsert told not to combine; the table then merges rows that
    have no ordering value (the later one wins) when read and compacted."""
    from hudi_log.table.errors import OrderingFieldError
    from hudi_log.table.services.compaction import compact

    opts = {**OPTIONS, "hoodie.write.table.version": version}
    no_ts = lambda ids, v: pa.table({"id": ids, "v": v})  # noqa: E731
    path = tmp_path / "t"
    with pytest.raises(OrderingFieldError, match=r"no ordering \(precombine\) column\(s\) \['ts'\]") as e:
        write_table(path, no_ts(["a"], ["x"]), "upsert", opts)
    assert str(path) in str(e.value) and not path.exists()  # the new table is not left half made
    with pytest.raises(OrderingFieldError, match="hoodie.combine.before.insert=false"):
        write_table(path, no_ts(["a"], ["x"]), "insert", {**opts, "hoodie.combine.before.insert": "true"})
    assert not path.exists()

    write_table(path, no_ts(["a", "b"], ["x", "y"]), "insert", opts)  # Java takes it, and records ts
    before = tree(path)
    with pytest.raises(OrderingFieldError):
        write_table(path, no_ts(["a"], ["z"]), "upsert", opts)
    assert tree(path) == before
    unordered = {**opts, "hoodie.combine.before.upsert": "false"}
    write_table(path, no_ts(["a", "a"], ["z", "w"]), "upsert", unordered)
    write_table(path, no_ts(["b"], ["q"]), "upsert", unordered)
    rows = lambda: sorted(read_table(str(path)).select(["id", "v"]).to_pylist(), key=str)  # noqa: E731
    assert rows() == [{"id": "a", "v": "w"}, {"id": "b", "v": "q"}]
    assert compact(path, {"hoodie.compact.inline.max.delta.commits": "1"}) is not None
    assert rows() == [{"id": "a", "v": "w"}, {"id": "b", "v": "q"}]
    write_table(path, pa.table({"id": ["b"]}), "delete", opts)  # a delete needs keys only
    assert rows() == [{"id": "a", "v": "w"}]


def test_the_cli_refuses_an_upsert_without_its_ordering_column_in_one_line(tmp_path):
    path, rows = tmp_path / "t", tmp_path / "rows.json"
    rows.write_text(json.dumps({"id": "a", "v": 1}) + "\n")
    r = CliRunner().invoke(main, ["write", str(path), "--input", str(rows), "--record-key", "id", "--precombine", "ts"])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "no ordering (precombine) column(s) ['ts']" in lines[0], lines
    assert not path.exists()
