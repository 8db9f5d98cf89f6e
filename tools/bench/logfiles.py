"""What many log files per file group cost a read (``python -m tools.bench --only logfiles``; issue 39.3).

A plain ``df.write.format("hudi_log")`` upsert writes where Spark holds the rows: every Spark task that holds
rows of a file group writes its own log file of it, so a DataFrame of 200 partitions leaves up to 200 log files
per group in one commit (the sink warns, naming ``hudi_log.spark.write``); ``hudi_log.spark.write`` routes each
group's rows to one task and writes one, as Java does. Every later read opens them all.

The input (untimed, made in a child process with Spark, ``local[2]``): a MERGE_ON_READ table of N trips in
base files (``write_table`` insert, 4 city partitions), and two copies of it in which every key is updated

* ``plain``: through ``df.repartition(200).write.format("hudi_log")`` (up to 200 log files per group);
* ``routed``: through ``hudi_log.spark.write`` of the same 200-partition DataFrame (one log file per group).

Measurements, each in a fresh process (``tools/bench/measure.py``), the two sides alternating:
``logfiles/read-routed`` vs ``logfiles/read-plain``, a snapshot read (``hudi_log.read_table``) of each copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

OPTIONS = {
    "hoodie.table.name": "bench_logfiles", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.datasource.write.recordkey.field": "uuid", "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.partitionpath.field": "city",
}
SPARK_PARTITIONS = 200  # Spark's default shuffle partitions: the shape users have
# the test of the bench itself (tests/test_bench.py) runs it at fewer, which shows the same effect sooner
PARTITIONS_ENV = "HUDI_LOG_BENCH_LOGFILES_PARTITIONS"


def log_files_per_group(table: Path) -> dict[str, int]:
    """file id -> log files of the table (the latest slice's, every log file being of one commit here)."""
    from hudi_log.format.log_file_name import LogFileName

    out: dict[str, int] = {}
    for p in table.rglob(".*.log.*"):
        if LogFileName.is_log_file_name(p.name):
            fid = LogFileName.parse(p.name).file_id
            out[fid] = out.get(fid, 0) + 1
    return out


def make_inputs(work: Path, n: int) -> dict:
    """The two updated copies, made by :func:`_make` in a child process (Spark stays out of the runner)."""
    proc = subprocess.run([sys.executable, "-m", "tools.bench.logfiles", str(work), str(n)],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"logfiles inputs failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _make(work: Path, n: int) -> dict:
    from hudi_log.spark import spark_session, write
    from hudi_log.table.write.client import write_table
    from tools.bench.inputs import trip_columns

    base, plain, routed = work / "logfiles-base", work / "logfiles-plain", work / "logfiles-routed"
    write_table(base, trip_columns(range(n)), "insert", OPTIONS)
    shutil.copytree(base, plain)
    shutil.copytree(base, routed)
    spark = spark_session("local[2]", app_name="hudi-log bench logfiles")
    updates = trip_columns(range(n), ts_shift=1)
    partitions = int(os.environ.get(PARTITIONS_ENV) or SPARK_PARTITIONS)
    df = spark.createDataFrame(updates.to_pandas()).repartition(partitions).cache()
    df.count()
    df.write.format("hudi_log").options(**OPTIONS).mode("append").save(str(plain))
    write(df, str(routed), OPTIONS)
    spark.stop()
    per = {k: log_files_per_group(p) for k, p in (("plain", plain), ("routed", routed))}
    return {"plain": str(plain), "routed": str(routed), "records": n, "partitions": partitions,
            "file_groups": len(per["plain"]),
            "log_files": {k: sum(v.values()) for k, v in per.items()},
            "max_per_group": {k: max(v.values()) for k, v in per.items()}}


def _read(args, which: str):
    from tools.bench.deletes import snapshot_read

    return snapshot_read(args["logfiles"][which], args.get("profile"))


def read_plain(args):
    return _read(args, "plain")


def read_routed(args):
    return _read(args, "routed")


MEASUREMENTS = {"logfiles/read-routed": read_routed, "logfiles/read-plain": read_plain}

if __name__ == "__main__":
    print(json.dumps(_make(Path(sys.argv[1]), int(sys.argv[2]))))
