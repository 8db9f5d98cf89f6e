"""The SparkSession hudi-log runs on: embedded ``local[*]`` by default, or the user's master / session.

Python data sources run in Spark's Python workers, so on a local master the workers must use this
interpreter (the one that has hudi-log installed): ``PYSPARK_PYTHON`` is set to it unless the user
set it. On a cluster the user ships hudi-log to the executors (``--py-files`` / an environment).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

DEFAULT_MASTER = "local[*]"
#: errors-only JVM logging for local sessions (Spark's default prints INFO/WARN lines at start-up)
LOG4J_CONFIG = Path(__file__).with_name("log4j2.properties")


def spark_session(master: str | None = None, spark=None, app_name: str = "hudi-log",
                  conf: Mapping[str, str] | None = None):
    """A SparkSession with the hudi-log data sources registered.

    ``spark``: use this session as it is (only registering the sources). Otherwise the active session
    is reused when ``master`` is None; else one is built on ``master`` (default ``local[*]``).
    """
    from pyspark.sql import SparkSession

    from . import register

    if spark is None and master is None:
        spark = SparkSession.getActiveSession()
    if spark is None:
        master = master or _submitted_master() or DEFAULT_MASTER
        local = master.startswith("local")
        if local:
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            # a loopback host name makes Spark warn and pick another interface; local needs none
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = SparkSession.builder.master(master).appName(app_name)
        if local:
            builder = builder.config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
            builder = builder.config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG4J_CONFIG}")
        for k, v in (conf or {}).items():
            builder = builder.config(k, v)
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    return spark


def _submitted_master() -> str | None:
    """The master spark-submit (or spark-defaults) gave, if this driver was started that way."""
    if "PYSPARK_GATEWAY_PORT" not in os.environ:  # set by spark-submit for the Python driver
        return None
    from pyspark import SparkConf

    return SparkConf().get("spark.master", None)
