"""hudi-log on Spark: PySpark data sources (Spark 4's Python Data Source API) for Hudi tables.

* ``hudi_log``: read (snapshot / read_optimized / incremental / time travel) and write Hudi tables
  with Hudi's option names — ``spark.read.format("hudi_log")``, ``df.write.format("hudi_log")``.
* ``read(spark, path, options)``: the same reads as ``spark.read.format("hudi_log")``, with the file slices that
  need no merging handed to Spark's own Parquet scan (:mod:`hudi_log.spark.native`): the faster way in.
* ``hudi_log_blocks``: one row per block of any set of log files (globs over many tables), for a
  lake-wide check (``hudi-log validate --spark``).

The short name is ``hudi_log``, not ``hudi``, so that Apache Hudi's JVM bundle, where present, keeps its
own name. ``register(spark)`` makes both available in a session; ``spark_session()`` builds one.
"""

from __future__ import annotations

from .session import spark_session

__all__ = ["read", "register", "spark_session", "write"]


def register(spark) -> None:
    """Register the ``hudi_log`` and ``hudi_log_blocks`` data sources with ``spark``."""
    from .blocks import BlocksDataSource

    spark.dataSource.register(BlocksDataSource)
    # Spark refuses a reader with pushFilters unless this is on; where a pushdown's plan would leak into the
    # DataFrame's later scans, the hudi_log reader's pushFilters narrows nothing (hudi_log.spark.source)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        from .source import HudiDataSource
    except ImportError:  # the table read/write layers this needs are not available
        return
    spark.dataSource.register(HudiDataSource)


def read(spark, path: str, options: dict | None = None, columns=None, filters=None):
    """The Hudi table at ``path`` as a DataFrame (Hudi's read option names); base-only slices are read by
    Spark's Parquet scan, merged ones by the ``hudi_log`` data source. ``columns``: only these are read and
    handed to Spark (a later ``select`` cannot tell a Python data source). ``filters``: ``(column, op,
    value)`` tuples; those on partition columns prune file slices before anything is read."""
    from .native import read as _read

    register(spark)
    return _read(spark, path, options, columns, filters)


def write(df, path: str, options: dict | None = None, mode: str = "append"):
    """Write ``df`` to the Hudi table at ``path``, records of one file group routed to one task first."""
    from .sink import write as _write

    return _write(df, path, options or {}, mode)
