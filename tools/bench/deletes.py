"""Benchmark inputs and measurements of delete-heavy writes and reads (``python -m tools.bench --only deletes``).

The input (untimed, ``make_inputs``): a MERGE_ON_READ table of 2N trips written by ``write_table``
(insert: base Parquet files, partitioned by city), and two copies of it in which N keys, half of
each file slice's (keys 0-3 of every 8), are

* updated: ``write_table(..., "upsert")`` of those keys (an Avro data block per file group), or
* deleted: ``write_table(..., "delete")`` of the same keys (a delete block per file group).

Measurements, each in a fresh process (``tools/bench/measure.py``), the two sides alternating:

* ``deletes/upsert`` vs ``deletes/delete``: the write above into a fresh copy of the 2N-row table
  (the copy is made in setup, untimed); the goal is delete time <= 2 x upsert time;
* ``deletes/read-updated`` vs ``deletes/read-deleted``: a snapshot read (``read_table``) of the
  updated and of the deleted table: every slice's log replaces or deletes half its base rows; the
  goal is the delete-heavy read within 1.5 x the update-heavy one;
* ``deletes-spark/upsert`` vs ``deletes-spark/delete``: the same writes through
  ``hudi_log.spark.write`` (local[2]; the session is started and warmed by a small write in setup).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

OPTIONS = {
    "hoodie.table.name": "bench_deletes", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.datasource.write.recordkey.field": "uuid", "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "city",
}


def _keys(n: int) -> list[int]:
    # record i lives in city i % 4 (trip_columns): keys 0-3 of every 8 are half of each city's rows
    return [i for i in range(2 * n) if i % 8 < 4][:n]


def make_inputs(work: Path, n: int) -> dict:
    """The 2N-row table and its updated and deleted copies; returns their paths."""
    from hudi_log.table.write.client import write_table
    from tools.bench.inputs import trip_columns

    base, updated, deleted = work / "deletes-base", work / "deletes-updated", work / "deletes-deleted"
    write_table(base, trip_columns(range(2 * n)), "insert", OPTIONS)
    shutil.copytree(base, updated)
    shutil.copytree(base, deleted)
    res = write_table(updated, trip_columns(_keys(n), ts_shift=1), "upsert", OPTIONS)
    assert res.num_updates == n, res
    res = write_table(deleted, trip_columns(_keys(n)), "delete", OPTIONS)
    assert res.num_deletes == n, res
    return {"base": str(base), "updated": str(updated), "deleted": str(deleted)}


def _fresh_copy(args) -> str:
    dest = Path(tempfile.mkdtemp(prefix="hudi-log-bench-d-", dir=args.get("workdir"))) / "t"
    shutil.copytree(args["deletes"]["base"], dest)
    return str(dest)


def _write(args, operation: str):
    from hudi_log.table.write.client import write_table
    from tools.bench.inputs import trip_columns

    n = args["records"]
    data = trip_columns(_keys(n), ts_shift=1 if operation == "upsert" else 0)
    tables = [_fresh_copy(args) for _ in range(2 if args.get("profile") else 1)]  # a profiled run writes twice

    def op():
        res = write_table(tables.pop(0), data, operation, OPTIONS)
        return res.num_updates if operation == "upsert" else res.num_deletes
    return op


def write_upsert(args):
    return _write(args, "upsert")


def write_delete(args):
    return _write(args, "delete")


def _read(args, which: str):
    return snapshot_read(args["deletes"][which], args.get("profile"))


def snapshot_read(table: str, profile: bool = False):
    """A timed snapshot read of ``table`` (warmed once: page cache, imports); profiled, on one thread."""
    import hudi_log

    hudi_log.read_table(table)  # warm: page cache, imports

    if profile:
        from hudi_log.table.read.query import HudiTable, read_plan

        return lambda: read_plan(HudiTable(table).plan(), workers=1).num_rows

    def op():
        return hudi_log.read_table(table).num_rows
    return op


def read_updated(args):
    return _read(args, "updated")


def read_deleted(args):
    return _read(args, "deleted")


def _spark_write(args, operation: str):
    from pyspark.sql import functions as F

    from hudi_log.spark import spark_session, write

    spark = spark_session("local[2]", app_name="hudi-log bench deletes")
    n = args["records"]

    def frame(start: int, stop: int, shift: int = 0):
        # the rows of tools/bench/inputs.trip_columns for the keys _keys() picks, made by Spark
        i = F.col("id")
        cities = F.element_at(F.array(*[F.lit(c) for c in ("san_francisco", "sao_paulo", "chennai", "new_york")]),
                              (i % 4 + 1).cast("int"))
        return spark.range(start, stop).where(i % 8 < 4).select(
            (F.lit(1695046462179) + i + F.lit(shift)).alias("ts"),
            F.format_string("%08d-8f2c-4a4b-9d53-1c6f0e9b%04d", i, i % 10000).alias("uuid"),
            F.concat(F.lit("rider-"), F.expr("char(65 + id % 26)")).alias("rider"),
            F.concat(F.lit("driver-"), F.expr("char(75 + id % 13)")).alias("driver"),
            (F.lit(10.0) + (i % 1000) / 10 + F.lit(shift)).alias("fare"),
            cities.alias("city"),
        )

    # warm the JVM and the Python workers on the same kind of write, into a scratch copy
    scratch = _fresh_copy(args)
    write(frame(0, min(2 * n, 20_000)), scratch, {**OPTIONS, "hoodie.datasource.write.operation": operation})
    df = frame(0, _keys(n)[-1] + 1, 1 if operation == "upsert" else 0).cache()
    df.count()  # the input materialised once, outside the timing
    tables = [_fresh_copy(args) for _ in range(2 if args.get("profile") else 1)]

    def op():
        res = write(df, tables.pop(0), {**OPTIONS, "hoodie.datasource.write.operation": operation})
        return res.updates if operation == "upsert" else res.deletes
    return op


def spark_upsert(args):
    return _spark_write(args, "upsert")


def spark_delete(args):
    return _spark_write(args, "delete")


MEASUREMENTS = {
    "deletes/upsert": write_upsert,
    "deletes/delete": write_delete,
    "deletes/read-updated": read_updated,
    "deletes/read-deleted": read_deleted,
    "deletes-spark/upsert": spark_upsert,
    "deletes-spark/delete": spark_delete,
}
