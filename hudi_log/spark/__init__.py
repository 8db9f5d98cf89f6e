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
                                      "DataWritingSparkTask", "WriteToDataSourceV2Exec"))
#: the loggers of a failed task, which log its Python traceback inside a Java stack trace two or three times
#: ("ERROR Utils: Aborting task", "ERROR Executor: Exception in task", "WARN TaskSetManager: Lost task"), and
#: their level in a session hudi-log registers its sources with: TaskSetManager keeps its one ERROR line
#: ("Task 1 in stage 2.0 failed 1 times; aborting job"); Python execution's warnings go too ("Incomplete task
#: interrupted: Attempting to kill Python Worker", when a job hudi-log runs on the driver stops early), and the
#: block manager's ("Putting block rdd_96_1 failed due to exception", the task's traceback again, where the
#: input hudi_log.spark.write persists failed in a task)
TASK_FAILURE_LOGGERS = (("org.apache.spark.util.Utils", "OFF"), ("org.apache.spark.executor.Executor", "OFF"),
                        ("org.apache.spark.scheduler.TaskSetManager", "ERROR"),
                        ("org.apache.spark.sql.execution.python", "ERROR"), ("org.apache.spark.storage.BlockManager", "ERROR"))


def _quiet_write_aborts(spark) -> None:
    """A refused ``df.write.format("hudi_log")`` says hudi-log's one line (:func:`.sink.say_refused`) and raises,
    instead of Spark's ``ERROR ... aborting`` lines, which name no reason, and its task-failure lines, which
    repeat the Python traceback inside Java stack traces. The Python data source API gives a writer no hook on
    the driver around a plain ``df.write``; the refusals it can make from the input's schema and the options are
    made on the driver before any task starts (:func:`hudi_log.table.write.client.begin_write`), but those of
    values (a null record key, a partition value leading out of the table) and at commit (two tasks wrote one
    file group) cannot be: so the V2 write nodes' loggers are turned off, and the task-failure loggers down to
    TaskSetManager's one summary line, for the session's JVM when the sources are registered. The failure still
    reaches the caller as the write's exception, with its traceback. A session without a JVM here (Spark
    Connect) keeps its logging; on a cluster the executors' own logs keep theirs."""
    try:
        jvm = spark.sparkContext._jvm
        configurator = jvm.org.apache.logging.log4j.core.config.Configurator
        level = jvm.org.apache.logging.log4j.Level
    except Exception:  # noqa: BLE001 - Spark Connect (no sparkContext) or no log4j 2: leave the logging be
        return
    for name in WRITE_ABORT_LOGGERS:
        configurator.setLevel(name, level.OFF)
    for name, to in TASK_FAILURE_LOGGERS:
        configurator.setLevel(name, level.toLevel(to))


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
