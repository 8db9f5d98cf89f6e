"""A write hudi-log refuses through Spark says hudi-log's one line on stderr first, and at most Spark's one
summary line (``ERROR TaskSetManager: Task 1 in stage 2.0 failed 1 times; aborting job``), never Spark's
``ERROR AppendDataExec ... aborting`` lines nor a failed task's traceback (``ERROR Utils: Aborting task``,
``ERROR Executor: Exception in task``, ``WARN TaskSetManager: Lost task``), in a session the user built.

Each kind of refusal, through ``df.write.format("hudi_log")``, ``hudi_log.spark.write`` and the stream sink:
refused on the driver before any task runs (an unknown option value, an input without the record key column
or the ordering column an upsert combines by: nothing is written), at commit (two Spark tasks rewrote one copy-on-write file group), and in a task (a null
record key, a value the timestamp key generator cannot parse: values only a task sees). One Spark process runs
them all, each between markers on stderr."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")

SCRIPT = textwrap.dedent("""
    import json, os, sys, time
    from pyspark.sql import SparkSession
    import hudi_log.spark
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    hudi_log.spark.register(spark)
    root = sys.argv[1]
    base = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.table.type": "COPY_ON_WRITE"}
    ts = {"hoodie.datasource.write.partitionpath.field": "d",
          "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
          "hoodie.keygen.timebased.timestamp.type": "DATE_STRING",
          "hoodie.keygen.timebased.input.dateformat": "yyyy-MM-dd",
          "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"}
    rows = lambda: spark.createDataFrame([{"id": i, "v": "a", "d": "2024-01-01"} for i in range(10)])
    null_key = lambda: spark.createDataFrame([{"id": i if i != 3 else None, "v": "a"} for i in range(10)],
                                             "id int, v string")
    no_key = lambda: spark.createDataFrame([{"v": "a"}])
    ordered = {**base, "hoodie.datasource.write.precombine.field": "ts"}  # and the rows have no ts
    bad_date = lambda: spark.createDataFrame([{"id": i, "v": "a", "d": "soon" if i == 3 else "2024-01-01"}
                                              for i in range(10)])

    def df_write(df, opts, path):
        df.repartition(2).write.format("hudi_log").options(**opts).mode("append").save(path)

    def spark_write(df, opts, path):
        hudi_log.spark.write(df.repartition(2), path, opts)

    def stream(df, opts, path):
        src = path + "-in"
        df.write.json(src)
        q = (spark.readStream.schema(df.schema).json(src).writeStream.format("hudi_log").options(**opts)
             .option("checkpointLocation", path + "-cp").trigger(availableNow=True).start(path))
        q.awaitTermination()

    cases = {
        "df.write start": (df_write, rows, {**base, "hoodie.index.type": "BOGUS"}),
        "df.write schema": (df_write, no_key, base),
        "df.write commit": (df_write, rows, base),
        "df.write task": (df_write, null_key, base),
        "df.write task timestamp": (df_write, bad_date, {**base, **ts}),
        "spark.write start": (spark_write, rows, {**base, "hoodie.index.type": "BOGUS"}),
        "spark.write schema": (spark_write, no_key, base),
        "spark.write null key": (spark_write, null_key, base),
        "spark.write task timestamp": (spark_write, bad_date, {**base, **ts}),
        "stream schema": (stream, no_key, base),
        "df.write ordering schema": (df_write, rows, ordered),
        "spark.write ordering schema": (spark_write, rows, ordered),
        "stream ordering schema": (stream, rows, ordered),
        "stream commit": (stream, null_key, base),
    }
    for name, (how, data, opts) in cases.items():
        path = os.path.join(root, name.replace(" ", "_").replace(".", "_"))
        if name == "df.write commit":  # a table whose one file group two tasks then rewrite
            rows().coalesce(1).write.format("hudi_log").options(**opts).mode("append").save(path)
        print(f"===== {name}", file=sys.stderr, flush=True)
        started = time.monotonic()
        try:
            how(data(), opts, path)
            outcome = "written"
        except Exception as e:
            outcome = type(e).__name__
        print("===== end", file=sys.stderr, flush=True)
        print(json.dumps({"case": name, "outcome": outcome, "path": path,
                          "seconds": round(time.monotonic() - started, 1)}), flush=True)
""")

#: what hudi-log's line says for each case
SAID = {
    "df.write start": "unknown index type 'BOGUS': hoodie.index.type=BOGUS is not supported",
    "df.write schema": "the input has no record key column(s) ['id']",
    "df.write commit": "copy-on-write file group(s) were rewritten by several Spark tasks",
    "df.write task": "record key field 'id' is null or empty",
    "df.write task timestamp": "d='soon' does not match hoodie.keygen.timebased.input.dateformat",
    "spark.write task timestamp": "d='soon' does not match hoodie.keygen.timebased.input.dateformat",
    "stream schema": "the input has no record key column(s) ['id']",
    "stream commit": "record key field 'id' is null or empty",
    "df.write ordering schema": "the input has no ordering (precombine) column(s) ['ts']",
    "stream ordering schema": "the input has no ordering (precombine) column(s) ['ts']",
}
#: refused by hudi_log.spark.write on the driver as a Python exception, before or between Spark jobs: no line
RAISED_ON_DRIVER = {"spark.write start": "IndexTypeError", "spark.write schema": "RecordKeyError",
                    "spark.write null key": "RecordKeyError", "spark.write ordering schema": "OrderingFieldError"}
#: Spark's one summary line of a failed job, the only Spark line a refusal may leave
SUMMARY = re.compile(r"ERROR TaskSetManager: Task \d+ in stage [\d.]+ failed \d+ times?; aborting job$")
#: a line of the loggers a failed task or write logs to
TASK_LOGGER = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (ERROR|WARN) (Executor|TaskSetManager|Utils|BlockManager|"
                         r"AppendDataExec|DataWritingSparkTask|WriteToDataSourceV2Exec): ")


def _segments(stderr: str) -> dict[str, list[str]]:
    out, name = {}, None
    for line in stderr.splitlines():
        if line.startswith("===== "):
            name = None if line == "===== end" else line[6:]
            if name:
                out[name] = []
        elif name:
            out[name].append(line)
    return out


def _completed(path: Path) -> list[str]:
    hoodie = path / ".hoodie"
    if not hoodie.is_dir():
        return []
    return sorted(p.name for p in hoodie.iterdir() if re.fullmatch(r"\d+(_\d+)?\.(commit|deltacommit)", p.name))


@pytest.mark.slow
def test_every_refused_spark_write_says_one_line_first_and_at_most_sparks_summary(tmp_path):
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=600)
    print(r.stdout)  # each case's seconds, for pytest -s
    results = {d["case"]: d for d in map(json.loads, r.stdout.splitlines()) if d.get("case")}
    assert len(results) == 14, r.stderr[-3000:]
    segments = _segments(r.stderr)
    for name, res in results.items():
        # Spark's warning at every streaming query's start (adaptive execution off for streams) is no refusal's
        lines = [ln for ln in segments[name] if ln.strip() and "WARN ResolveWriteToStream: " not in ln]
        where = f"{name}:\n" + "\n".join(lines)[-3000:]
        assert res["outcome"] != "written", where
        if name in RAISED_ON_DRIVER:  # the caller's own exception, nothing on stderr
            assert res["outcome"] == RAISED_ON_DRIVER[name] and not lines, where
        else:
            assert lines and lines[0].startswith("hudi-log: ") and SAID[name] in lines[0], where
            assert sum(ln.startswith("hudi-log: ") for ln in lines) == 1, where
            spark_lines = lines[1:]
            if name.startswith("stream"):
                # a streaming query's end is logged by MicroBatchExecution (its trace included), the only place a
                # query running in the background says it stopped: only the task loggers must be quiet
                assert not any(TASK_LOGGER.search(ln) for ln in spark_lines), where
            else:
                assert len(spark_lines) <= 1 and all(SUMMARY.search(ln) for ln in spark_lines), where
        path = Path(res["path"])
        # nothing written: no table left by a first write, and the one earlier commit of "df.write commit" alone
        assert _completed(path) == ([] if name != "df.write commit" else _completed(path)[:1]), where
        if name.endswith(("start", "schema")):  # refused before any instant was requested
            assert not (path / ".hoodie").exists(), where
