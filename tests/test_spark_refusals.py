"""A write hudi-log refuses through ``df.write.format("hudi_log")`` says hudi-log's one line on stderr, not Spark's
``ERROR AppendDataExec ... aborting`` lines: refused at the writer's start (an unknown option value), at commit
(two Spark tasks rewrote one copy-on-write file group) and in a task (a null record key), in a session the user
built."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")

SCRIPT = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    import hudi_log.spark
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    hudi_log.spark.register(spark)
    path, kind = sys.argv[1], sys.argv[2]
    opts = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.table.type": "COPY_ON_WRITE"}
    df = spark.createDataFrame([{"id": i, "v": "a"} for i in range(10)])
    if kind == "commit":
        df.coalesce(1).write.format("hudi_log").options(**opts).mode("append").save(path)
    elif kind == "task":
        df = spark.createDataFrame([{"id": i if i != 3 else None, "v": "a"} for i in range(10)], "id int, v string")
    else:
        opts["hoodie.index.type"] = "BOGUS"
    try:
        df.repartition(2).write.format("hudi_log").options(**opts).mode("append").save(path)
    except Exception as e:
        print("REFUSED", type(e).__name__)
""")


@pytest.mark.slow
@pytest.mark.parametrize("kind,said", [
    ("start", "hudi-log: <options>: unknown index type 'BOGUS': hoodie.index.type=BOGUS is not supported"),
    ("commit", "copy-on-write file group(s) were rewritten by several Spark tasks"),
    ("task", "record key field 'id' is null or empty"),
])
def test_refused_plain_write_says_one_line_without_spark_abort_noise(tmp_path, kind, said):
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "t"), kind], capture_output=True, text=True)
    assert "REFUSED" in r.stdout, r.stderr[-3000:]
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("hudi-log: ")]
    assert len(lines) == 1 and said in lines[0], r.stderr[-3000:]
    assert not re.search(r" (ERROR|WARN) (AppendDataExec|DataWritingSparkTask): ", r.stderr), r.stderr[-3000:]
    if kind != "task":  # a task's failure is also Spark's (Executor, TaskSetManager: every job's loggers)
        assert " ERROR " not in r.stderr, r.stderr[-3000:]
