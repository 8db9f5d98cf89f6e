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
    _quiet_write_aborts(spark)

    spark.dataSource.register(BlocksDataSource)
    # Spark refuses a reader with pushFilters unless this is on; where a pushdown's plan would leak into the
    # DataFrame's later scans, the hudi_log reader's pushFilters narrows nothing (hudi_log.spark.source)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        from .source import HudiDataSource
    except ImportError:  # the table read/write layers this needs are not available
        return
    spark.dataSource.register(HudiDataSource)


#: the loggers of Spark's DataSource V2 write nodes and tasks, which log "ERROR AppendDataExec: Data source write
#: support ... is aborting" / "aborted" and "ERROR DataWritingSparkTask: Aborting commit for partition" (no reason)
#: for every failed write; the reason comes with the exception
WRITE_ABORT_LOGGERS = tuple("org.apache.spark.sql.execution.datasources.v2." + n
                            for n in ("AppendDataExec", "OverwriteByExpressionExec", "OverwritePartitionsDynamicExec",
                                      "DataWritingSparkTask"))


def _quiet_write_aborts(spark) -> None:
    """A refused ``df.write.format("hudi_log")`` says hudi-log's one line (:func:`.sink.say_refused`) and raises,
    instead of Spark's two ``ERROR ... aborting`` lines, which name no reason. The Python data source API gives a
    writer no hook on the driver around a plain ``df.write`` and a refusal at commit (two tasks wrote one file
    group) cannot be made before the job, so the V2 write nodes' loggers are turned off for the session's JVM
    when the sources are registered: the failure still reaches the caller as the write's exception. A refusal
    inside a task (a null record key) still shows Spark's own task-failure lines (Executor, TaskSetManager), which
    every job shares, beside hudi-log's line. A session without a JVM here (Spark Connect) keeps its logging."""
    try:
        jvm = spark.sparkContext._jvm
        configurator = jvm.org.apache.logging.log4j.core.config.Configurator
        off = jvm.org.apache.logging.log4j.Level.OFF
    except Exception:  # noqa: BLE001 - Spark Connect (no sparkContext) or no log4j 2: leave the logging be
        return
    for name in WRITE_ABORT_LOGGERS:
        configurator.setLevel(name, off)


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
