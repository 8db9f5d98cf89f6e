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

import os
import shutil
import subprocess
import sys

from ..errors import HudiLogError
from .session import spark_session

__all__ = ["read", "register", "spark_session", "write"]


class WorkerPythonError(HudiLogError):
    """Spark's Python workers would run an interpreter that cannot import hudi-log."""


def register(spark) -> None:
    """Register the ``hudi_log`` and ``hudi_log_blocks`` data sources with ``spark`` (see :func:`_worker_python`)."""
    from .blocks import BlocksDataSource

    _worker_python(spark)

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


def _worker_python(spark) -> None:
    """On a local master, make sure the Python workers, which run the data sources, can import hudi-log.

    A session the user built without ``PYSPARK_PYTHON`` runs its workers on ``python3`` from the PATH, which
    may not be this environment's: every read then failed with ``No module named 'kaitaistruct'`` inside a
    Java stack trace. Where ``PYSPARK_PYTHON`` is unset, the sources are registered for this interpreter (the
    session's ``pythonExec``, which a source is bound to when it is registered); where the user set one that
    cannot import hudi-log, this is an error naming it. On a cluster the executors' Python is the user's to
    provide (README: a packed venv)."""
    sc = spark.sparkContext
    exe = getattr(sc, "pythonExec", None)
    if not exe or not str(sc.master).startswith("local"):
        return
    if os.path.realpath(shutil.which(exe) or exe) == os.path.realpath(sys.executable):
        return
    probe = subprocess.run([exe, "-c", "import hudi_log.spark.source"], capture_output=True, text=True)
    if probe.returncode == 0:
        return
    if "PYSPARK_PYTHON" not in os.environ:
        sc.pythonExec = sys.executable
        return
    raise WorkerPythonError(f"PYSPARK_PYTHON={exe}: Spark's Python workers cannot import hudi-log there "
                            f"({(probe.stderr.strip().splitlines() or ['it failed'])[-1]}); set "
                            f"PYSPARK_PYTHON={sys.executable} before the SparkSession starts")
