"""Spark reads that hand Parquet to Spark: ``hudi_log.spark.read(spark, path, options)``.

A Python data source can only hand Spark rows it made itself, so through ``spark.read.format("hudi_log")``
every base file passes through a Python worker and Arrow. Java Hudi's relations do not do that where
nothing needs merging: ``BaseFileOnlyRelation`` (read-optimized queries, COPY_ON_WRITE snapshots) and the
base-only slices of ``MergeOnReadSnapshotRelation`` go to Spark's own Parquet file format. This is the same
split: the read is planned once on the driver (:meth:`hudi_log.table.read.query.HudiTable.plan`), then

* every file slice without log files whose base file Spark can take as it is (its columns already of the
  plan's types, ``SliceTask.base_exact``; primitive types only; a local file system) is read by
  ``spark.read.schema(...).parquet(files)``: the JVM's vectorized reader, Spark's own filter and column
  pushdown, no Python;
* the rest (slices with log files to merge, files whose columns an older schema typed otherwise, nested
  columns, object stores, whose ``s3://`` paths Spark's Hadoop cannot open without hadoop-aws) go through
  the ``hudi_log`` data source, told which base files the Parquet scan has
  (:data:`NATIVE_FILES`) and the instant the driver planned at (:data:`PLANNED_AT`), so that both halves
  are one snapshot: a half that plans anything else fails the read (:class:`ReadPlanChanged`) instead of
  returning rows twice or not at all.

The two are one DataFrame (``unionByName``), in the plan's schema. Incremental and CDC queries read
through the data source alone (their rows are a window of each slice, not whole files).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import replace
from pathlib import PurePosixPath

import pyarrow as pa

from .source import COLUMNS, FILTERS, PARALLELISM, PLANNED_AT, QUERY_TYPE, HudiReadError, _plan, spark_arrow_schema

#: (internal) JSON list of the base file names the Parquet scan reads; the data source skips them
NATIVE_FILES = "hudi_log.read.native.files"


class ReadPlanChanged(HudiReadError):
    """The table changed between the driver's plan and the data source's: the two halves of a read would
    not be one snapshot."""


def _spark_takes(t: pa.DataType) -> bool:
    """Types Spark's Parquet reader gives exactly as the data source hands them over (nested and zone-less
    timestamp columns stay with the data source)."""
    return (pa.types.is_integer(t) and not pa.types.is_unsigned_integer(t)) or pa.types.is_floating(t) \
        or pa.types.is_boolean(t) or pa.types.is_string(t) or pa.types.is_binary(t) \
        or pa.types.is_date32(t) or pa.types.is_decimal128(t) \
        or (pa.types.is_timestamp(t) and t.unit in ("ms", "us") and t.tz in ("UTC", "+00:00"))


def _local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def native_tasks(plan) -> list:
    """The plan's slices Spark's Parquet scan reads as they are."""
    if plan.context.query not in ("snapshot", "read_optimized"):
        return []
    if not all(_spark_takes(f.type) for f in plan.context.table_schema):
        return []
    return [t for t in plan.tasks if t.base_file and not t.log_files and t.base_exact and _local(t.base_file)
            and t.base_file not in plan.context.reported]


def _parallelism(spark) -> dict:
    """The data source's partition-sizing option, where the session has a SparkContext (Spark Connect has none)."""
    try:
        return {PARALLELISM: str(spark.sparkContext.defaultParallelism)}
    except Exception:  # Spark Connect: no SparkContext on the client
        return {}


def read(spark, path: str, options: dict | None = None, columns=None, filters=None):
    """The Hudi table at ``path`` as a DataFrame, with the ``hudi_log`` data source's options
    (:mod:`hudi_log.spark.source`): base-only slices through Spark's Parquet scan, merged ones through the
    data source. ``columns``: only these (the data source's ``hudi_log.read.columns``), read from the files
    and handed to Spark; a ``select`` after the read cannot tell the data source. ``filters``: a list of
    ``(column, op, value)`` (the data source's ``hudi_log.read.filters``): partition-column filters prune file
    slices before anything is read, and every filter holds for the rows returned."""
    from .cdc import is_cdc_query

    if _local(path) and not path.startswith("file://"):
        # Spark's JVM and its Python workers resolve a relative path against their own working directory
        path = os.path.abspath(path)
    opts = {k: str(v) for k, v in (options or {}).items() if k != "path"}
    if columns is not None:
        opts[COLUMNS] = ",".join(columns)
    if filters:
        opts[FILTERS] = json.dumps([[c, op, v] for c, op, v in filters])
    query = (opts.get(QUERY_TYPE) or "snapshot").lower()
    source = spark.read.format("hudi_log").options(**opts)
    if query == "incremental" or is_cdc_query(opts):
        return source.load(path)
    plan = _plan({**opts, "path": path})  # the driver's plan: instants and options checked, errors named, as the data source does
    native = native_tasks(plan)
    if not native:
        return source.options(**_parallelism(spark)).load(path)
    files = [_spark_path(t.base_file) for t in native]
    df = _parquet(spark, spark_arrow_schema(plan.context.schema)[0], files)
    if plan.context.filters:  # the data source applies them to its slices' rows; Spark's scan to these
        df = df.where(_spark_condition(plan.context.filters))
    if len(native) == len(plan.tasks):
        return df
    rest = source.options(**{NATIVE_FILES: json.dumps(sorted(PurePosixPath(t.base_file).name for t in native)),
                             PLANNED_AT: plan.context.bound or "", **_parallelism(spark)}).load(path)
    return df.unionByName(rest)


def _spark_condition(filters):
    """The plan's ``(column, op, value)`` filters as one Spark condition."""
    from pyspark.sql import functions as F

    ops = {"=": "__eq__", "==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__"}
    cond = None
    for col, op, val in filters:
        c = F.col(f"`{col}`")
        one = c.isin(list(val)) if op == "in" else ~c.isin(list(val)) if op == "not in" else getattr(c, ops[op])(val)
        cond = one if cond is None else cond & one
    return cond


_LISTING = "spark.sql.sources.parallelPartitionDiscovery.threshold"
_listing_lock = threading.Lock()


def _parquet(spark, schema, files: list[str]):
    """Spark's Parquet scan of these files. Spark looks up every path it is given when the DataFrame is made,
    and over 32 paths it does so in a Spark job (0.8 s for 259 files here, against 0.07 s in the driver):
    the files are local and the plan has just listed them, so the driver does it."""
    with _listing_lock:
        before = spark.conf.get(_LISTING, None)
        spark.conf.set(_LISTING, str(max(len(files) + 1, 32)))
        try:
            return spark.read.schema(schema).parquet(*files)
        finally:
            if before is None:
                spark.conf.unset(_LISTING)
            else:
                spark.conf.set(_LISTING, before)


def _spark_path(p: str) -> str:
    return p if "://" in p else "file://" + p  # read() made a local table's path absolute


def narrowed(plan, options):
    """The data source's side of :func:`read`: ``plan`` without the slices the Parquet scan reads, after
    checking that it planned what the driver planned (else :class:`ReadPlanChanged`)."""
    names = options.get(NATIVE_FILES)
    if not names:
        return plan
    want = set(json.loads(names))
    planned_at = options.get(PLANNED_AT) or None
    where = options.get("path") or "<options>"
    if plan.context.bound != planned_at:
        raise ReadPlanChanged(where, f"the table's latest commit moved from {planned_at} to {plan.context.bound} "
                              "while the read was planned; read again")
    found = {PurePosixPath(t.base_file).name: t for t in plan.tasks if t.base_file}
    gone = sorted(n for n in want if n not in found or found[n].log_files)
    if gone:
        raise ReadPlanChanged(where, f"base file {gone[0]} is no longer a whole file slice of the plan at "
                              f"{planned_at}; read again")
    return replace(plan, tasks=[t for t in plan.tasks if not (t.base_file and PurePosixPath(t.base_file).name in want)])


__all__ = ["read", "native_tasks", "narrowed", "ReadPlanChanged", "NATIVE_FILES", "PLANNED_AT", "PARALLELISM"]
