"""Issue 37's "Done when", through the package and the CLI: every corpus table that Java would take an upsert
into takes one of two of its own rows from hudi-log (then the same rows again through ``hudi-log write``) (a column changed, the ordering value raised), read back right by
hudi-log and equal by hudi-rs. Tables with a metadata table keep it, in step with storage, through the
package's write and the Spark write (the epoch-millis case still writes with ``hoodie.metadata.enable=false``).

What is not upserted, and why (the test holds this list):

* the two empty tables have no rows of their own to upsert;
* ``sample_table_cow_v9_timebasedkeygen_epochmillis``: its partition column ``ts_millis`` (declared LONG by its
  SQL, held as text in its later files and commit schema) reads back as text, and Java's
  ``TimestampBasedAvroKeyGenerator`` refuses text under ``EPOCHMILLISECONDS`` (no input formatter; its Spark row
  path hands it a ``UTF8String``, no ``CharSequence`` at all): refused by hudi-log as by Java, before anything
  changes. Given as numbers, as the SQL declared it and Java needs it, the same two rows are upserted.
"""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import read_table
from hudi_log.table.metadata_files import compare_with_storage
from hudi_log.table.metadata_table import has_metadata_table
from hudi_log.table.properties import read_properties
from hudi_log.table.write.client import write_table
from hudi_log.table.write.timestamp_keygen import TimestampKeyGenError
from hudi_rs_oracle import hudi_rs_rows

NO_ROWS = {"sample_table_cow_v6_empty", "sample_table_mor_parquet_v6_empty"}
TEXT_EPOCH = "sample_table_cow_v9_timebasedkeygen_epochmillis"


def _changed_column(table: pa.Table, props) -> str:
    """A string (else integer) column the upsert changes: not a key, partition or ordering field."""
    taken = set(props.record_key_fields) | set(props.partition_fields) | set(props.ordering_fields)
    free = [f for f in table.schema if f.name not in taken and not f.name.startswith("_hoodie_")]
    return next(f.name for f in free if pa.types.is_string(f.type)) if any(
        pa.types.is_string(f.type) for f in free) else next(f.name for f in free if pa.types.is_integer(f.type))


def _two_rows(path):
    """Two of the table's own rows (the first keys it holds once), a column changed, numeric ordering raised."""
    props = read_properties(path)
    t = read_table(path)
    data = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")])
    data = data.sort_by([(k, "ascending") for k in props.record_key_fields])
    keys = [tuple(r[k] for k in props.record_key_fields) for r in data.select(props.record_key_fields).to_pylist()]
    once = [i for i, k in enumerate(keys) if keys.count(k) == 1]  # a key Java inserted twice is left alone
    two = data.take(pa.array(once[:2], pa.int64()))
    col = _changed_column(two, props)
    new = ["upserted-a", "upserted-b"] if pa.types.is_string(two.schema.field(col).type) else [-7001, -7002]
    two = two.set_column(two.schema.get_field_index(col), col, pa.array(new, two.schema.field(col).type))
    for f in props.ordering_fields:
        if pa.types.is_integer(two.schema.field(f).type) or pa.types.is_floating(two.schema.field(f).type):
            two = two.set_column(two.schema.get_field_index(f), f,
                                 pc.add(two.column(f), pa.scalar(1000, two.schema.field(f).type)))
    return t, two, col


def _by_key(rows, keys, col) -> list:
    return sorted((tuple(str(r[k]) for k in keys), r[col]) for r in rows)


def _upsert_and_check(path, two, col, opts, cli: bool = False):
    """The upsert through the package, or (``cli``) through ``hudi-log write``, checked row by row."""
    props = read_properties(path)
    keys = props.record_key_fields
    before = read_table(path).to_pylist()
    if cli:
        src = path.parent / f"{path.name}.two.parquet"
        pq.write_table(two, src)
        args = ["write", str(path), "--input", str(src), "--operation", "upsert"]
        for k, v in opts.items():
            args += ["-o", f"{k}={v}"]
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0, (path.name, res.output)
    else:
        write_table(path, two, "upsert", opts)
    after = read_table(path).to_pylist()
    upserted = {tuple(str(r[k]) for k in keys): r[col] for r in two.to_pylist()}
    counts: dict = {}
    for r in before:
        counts[tuple(str(r[k]) for k in keys)] = counts.get(tuple(str(r[k]) for k in keys), 0) + 1
    expected = [(k, upserted.get(k, r[col])) for k, r in ((tuple(str(r[k]) for k in keys), r) for r in before)
                if counts[k] == 1]  # a key Java wrote twice (an insert of it again) is not held exactly
    got = [(k, v) for k, v in _by_key(after, keys, col) if counts.get(k) == 1]
    assert got == sorted(expected), path.name
    assert {k: v for k, v in _by_key(after, keys, col) if k in upserted} == upserted, path.name
    assert _by_key(after, keys, col) == _by_key(hudi_rs_rows(path), keys, col), path.name


def _delete_and_compact(path, two, col, kept: bool) -> None:
    """One of the two rows deleted, then (MERGE_ON_READ) a compaction: rows right by hudi-log and hudi-rs, the
    metadata table (where the table keeps one) still equal to storage."""
    from hudi_log.table.services.compaction import compact

    props = read_properties(path)
    keys = props.record_key_fields
    gone = tuple(str(two.column(k)[0].as_py()) for k in keys)
    before = _by_key(read_table(path).to_pylist(), keys, col)
    write_table(path, two.slice(0, 1), "delete", {})
    after = _by_key(read_table(path).to_pylist(), keys, col)
    assert after == [kv for kv in before if kv[0] != gone], path.name
    if props.is_mor:
        assert compact(path, {"hoodie.compact.inline.max.delta.commits": "1"}) is not None, path.name
        assert _by_key(read_table(path).to_pylist(), keys, col) == after, path.name
    assert _by_key(hudi_rs_rows(path), keys, col) == after, path.name
    assert not kept or compare_with_storage(path) == [], path.name


def test_every_corpus_table_java_takes_an_upsert_into_takes_one_from_hudi_log(tmp_path, corpus_tables):
    done, skipped = [], set()
    for name, root in sorted(corpus_tables.items()):
        path = tmp_path / name
        shutil.copytree(root, path)
        props = read_properties(path)
        if name in NO_ROWS or name == TEXT_EPOCH:
            skipped.add(name)
            continue
        kept = has_metadata_table(path, props)  # Java's metadata table, kept by the write
        _, two, col = _two_rows(path)
        _upsert_and_check(path, two, col, {})
        assert not kept or compare_with_storage(path) == [], name
        # and again through the CLI, the same two rows changed once more
        again = _two_rows(path)[1]
        if pa.types.is_string(again.schema.field(col).type):
            again = again.set_column(again.schema.get_field_index(col), col, pa.array(["cli-a", "cli-b"]))
        else:
            again = again.set_column(again.schema.get_field_index(col), col,
                                     pa.array([-8001, -8002], again.schema.field(col).type))
        _upsert_and_check(path, again, col, {}, cli=True)
        _delete_and_compact(path, again, col, kept)
        done.append(name)
    assert skipped == NO_ROWS | {TEXT_EPOCH}
    assert len(done) == len(corpus_tables) - 3 and len(done) >= 14
    for name in NO_ROWS:
        assert read_table(corpus_tables[name]).num_rows == 0


def test_epoch_millis_held_as_text_is_refused_as_java_refuses_it_and_taken_as_numbers(tmp_path, corpus_tables):
    path = tmp_path / TEXT_EPOCH
    shutil.copytree(corpus_tables[TEXT_EPOCH], path)
    _, two, col = _two_rows(path)
    assert pa.types.is_string(two.schema.field("ts_millis").type)
    # hoodie.metadata.enable=false drops the metadata table before the write starts (as Java does); the rest
    # stays as it was: no data file, no instant
    def files():
        return sorted(str(p.relative_to(path)) for p in path.rglob("*")
                      if ".hoodie/metadata" not in str(p) and "hoodie.properties" not in p.name)

    before = files()
    with pytest.raises(TimestampKeyGenError, match="ts_millis='17053[0-9]*' is text.*cast it to bigint"):
        write_table(path, two, "upsert", {"hoodie.metadata.enable": "false"})
    assert files() == before
    # the CLI says it in one line, exit 2 (nothing changed)
    pq.write_table(two, tmp_path / "two.parquet")
    res = CliRunner().invoke(main, ["write", str(path), "--input", str(tmp_path / "two.parquet"),
                                    "-o", "hoodie.metadata.enable=false"])
    assert res.exit_code == 2 and "is text" in res.output, res.output
    assert files() == before
    numbers = two.set_column(two.schema.get_field_index("ts_millis"), "ts_millis",
                             two.column("ts_millis").cast(pa.int64()))
    _upsert_and_check(path, numbers, col, {"hoodie.metadata.enable": "false"})
    # the partition the key generator computed: yyyy/MM/dd/HH of the millis in the process's zone (no output
    # zone: Java's JVM default; Java wrote these in UTC), the rows' own partitions where that is UTC
    import datetime as dt

    parts = {r["txn_id"]: r["_hoodie_partition_path"] for r in read_table(path).to_pylist()}
    for r in numbers.to_pylist():
        assert parts[r["txn_id"]] == dt.datetime.fromtimestamp(r["ts_millis"] / 1000).strftime("%Y/%m/%d/%H")
    assert {k: parts[k] for k in ("TXN-002", "TXN-003")} == {"TXN-002": "2024/01/15/10", "TXN-003": "2024/01/16/01"} \
        or dt.datetime.now().astimezone().utcoffset()


@pytest.mark.slow
def test_every_corpus_table_java_takes_an_upsert_into_takes_one_through_spark(tmp_path, corpus_tables, spark):
    """The same walk through the Spark data source (hudi_log.spark.write), the two rows read by Spark from
    Parquet so every column keeps its type."""
    from hudi_log.spark import write as spark_write

    done = []
    for name, root in sorted(corpus_tables.items()):
        if name in NO_ROWS or name == TEXT_EPOCH:
            continue
        path = tmp_path / name
        shutil.copytree(root, path)
        props = read_properties(path)
        opts = {}  # a metadata table is kept, in step with storage (checked below)
        kept = has_metadata_table(path, props)
        _, two, col = _two_rows(path)
        src = tmp_path / f"{name}.parquet"
        pq.write_table(two, src)
        keys = props.record_key_fields
        before = read_table(path).to_pylist()
        spark_write(spark.read.parquet(str(src)), str(path), {**opts, "hoodie.datasource.write.operation": "upsert"})
        after = read_table(path).to_pylist()
        upserted = {tuple(str(r[k]) for k in keys): r[col] for r in two.to_pylist()}
        assert {k: v for k, v in _by_key(after, keys, col) if k in upserted} == upserted, name
        assert len(after) == len(before), name
        assert _by_key(after, keys, col) == _by_key(hudi_rs_rows(path), keys, col), name
        assert not kept or compare_with_storage(path) == [], name
        done.append(name)
    assert len(done) == len(corpus_tables) - 3
