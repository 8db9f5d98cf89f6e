"""Benchmark: the hudi_log streaming sink against Spark's own file sink writing Parquet (issue 18, item 6).

    python tools/bench/stream.py [--batch-rows 10000,100000] [--batches 6] [--master local[2]]

For each micro-batch size B, ``--batches`` Parquet files of B rows (trips: key, ts, rider, fare, city)
are put in an input folder, and two streaming queries read it with ``maxFilesPerTrigger=1`` (one file,
one micro-batch) and ``Trigger.AvailableNow``:

* parquet: ``writeStream.format("parquet")`` — Spark's file sink, the baseline;
* hudi_log: ``writeStream.format("hudi_log")`` upserting into a MERGE_ON_READ table (one delta commit per
  micro-batch; every second batch updates the keys of the one before, so updates and inserts mix), with
  the sink's defaults: compaction every 5 delta commits, async (``--inline-compaction``: in the commit).
  An async compaction still running when the query ends is waited for before the next query starts (so
  it takes no CPU from the floor's run) and its time after the query's end is reported as ``tail``;
* floor: the floor of any sink written with PySpark's Python data source API: a Python stream writer whose
  tasks take the rows Spark hands them as Arrow batches and count them, and whose commit does nothing (no
  file written, no Hudi) -- what the API's hand-over costs, as tools/bench/spark.py measures it for reads.

Reported per sink: sustained rows per second (all rows / wall time of the query, start-up included), the
steady rate (the rows of every batch but the first / their ``triggerExecution`` times: the first batch pays
for the session's, the JVM's and the Python workers' start, in whichever query comes first) and
the micro-batch latency (Spark's ``triggerExecution`` time of each batch: median and max, the first
batch, which pays for the JVM's and the Python workers' warm-up, left out of the median; the micro-batch's
end-to-end time: its rows read, handed over, written and committed), and the ratios hudi_log / Parquet and
hudi_log / floor of both, and how busy the machine's cores were while each query ran (``/proc/stat``:
the whole machine's, so read it on a quiet one): where every sink keeps the cores nearly busy, a sink's
rate is set by its CPU work per row, and work moved off the micro-batch's path (a commit begun a batch
ahead) has no idle core to run on. Numbers are reported, not asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SCHEMA = "uuid string, ts long, rider string, fare double, city string"
OPTIONS = {"hoodie.table.name": "bench_stream", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
           "hoodie.datasource.write.recordkey.field": "uuid", "hoodie.datasource.write.precombine.field": "ts",
           "hoodie.datasource.write.operation": "upsert"}


def make_input(folder: Path, batch_rows: int, batches: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True)
    for b in range(batches):
        first = (b // 2) * batch_rows  # batches 2k and 2k+1 share keys: the second updates the first
        ids = range(first, first + batch_rows)
        pq.write_table(pa.table({
            "uuid": [f"trip-{i:010d}" for i in ids], "ts": pa.array([b] * batch_rows, pa.int64()),
            "rider": [f"rider-{i % 1000}" for i in ids], "fare": [float(i % 10_000) / 100 + b for i in ids],
            "city": [("sf", "sp", "ch")[i % 3] for i in ids]}), folder / f"{b:05d}.parquet")
        os.utime(folder / f"{b:05d}.parquet", (1_700_000_000 + b, 1_700_000_000 + b))  # the stream's order


def register_floor_sink(spark) -> str:
    """The floor sink (see the module doc). Defined here, so Spark pickles it to its workers by value."""
    from pyspark.sql.datasource import DataSource, DataSourceStreamArrowWriter, WriterCommitMessage

    class Counted(WriterCommitMessage):
        def __init__(self, rows: int):
            self.rows = rows

    class FloorWriter(DataSourceStreamArrowWriter):
        def write(self, iterator):
            return Counted(sum(batch.num_rows for batch in iterator))

        def commit(self, messages, batchId):
            pass

        def abort(self, messages, batchId):
            pass

    class FloorSink(DataSource):
        @classmethod
        def name(cls):
            return "hudi_log_bench_floor_sink"

        def streamWriter(self, schema, overwrite):
            return FloorWriter()

    spark.dataSource.register(FloorSink)
    return FloorSink.name()


def _cpu_ticks() -> tuple[int, int] | None:
    """(all, idle) CPU ticks of the whole machine so far, from ``/proc/stat``; None where it is absent."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return sum(ticks), ticks[3] + ticks[4]  # idle and iowait


def _busy_cores(before, after) -> float | None:
    """How many of the machine's cores were busy, on average, between two :func:`_cpu_ticks`."""

    if before is None or after is None or after[0] == before[0]:
        return None
    busy = (after[0] - before[0]) - (after[1] - before[1])
    return busy / (after[0] - before[0]) * (os.cpu_count() or 1)


def run_query(spark, src: Path, fmt: str, target: Path, ckpt: Path,
              options: dict | None = None) -> tuple[float, list[float], int, float, float | None]:
    """(wall seconds, each batch's triggerExecution seconds, rows, steady rows/s, busy cores)."""
    stream = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(src))
    w = stream.writeStream.format(fmt).option("checkpointLocation", str(ckpt)).trigger(availableNow=True)
    if fmt == "hudi_log":
        w = w.options(**(options or OPTIONS))
    ticks, t = _cpu_ticks(), time.perf_counter()
    q = w.start(str(target))
    q.awaitTermination()
    wall = time.perf_counter() - t
    busy = _busy_cores(ticks, _cpu_ticks())
    if q.exception() is not None:
        raise RuntimeError(f"{fmt} stream failed: {q.exception()}")
    batches = [p for p in q.recentProgress if p["numInputRows"]]
    lat = [p["durationMs"]["triggerExecution"] / 1000 for p in batches]
    rows = [p["numInputRows"] for p in batches]
    steady = sum(rows[1:]) / sum(lat[1:]) if len(rows) > 1 else rows[0] / lat[0]
    return wall, lat, sum(rows), steady, busy


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch-rows", default="10000,100000")
    ap.add_argument("--batches", type=int, default=6)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--inline-compaction", action="store_true", help="hoodie.compact.inline=true (not async)")
    args = ap.parse_args(argv)
    options = {**OPTIONS, "hoodie.compact.inline": str(args.inline_compaction).lower()}

    from hudi_log.spark import spark_session
    from hudi_log.spark.stream_services import wait_for_compactions
    from hudi_log.table import read_properties, read_table
    from hudi_log.table.timeline.timeline import Timeline

    spark = spark_session(args.master, app_name="hudi-log bench stream")
    floor = register_floor_sink(spark)
    work = Path(tempfile.mkdtemp(prefix="hudi-log-bench-stream-"))
    try:
        for rows in (int(r) for r in args.batch_rows.split(",")):
            src = work / f"in-{rows}"
            make_input(src, rows, args.batches)
            out = {}
            tail = 0.0
            for fmt in ("parquet", "hudi_log", floor):
                out[fmt] = run_query(spark, src, fmt, work / f"{fmt}-{rows}", work / f"ckpt-{fmt}-{rows}", options)
                if fmt == "hudi_log":  # the async compaction the query's end left running
                    t = time.perf_counter()
                    left = wait_for_compactions(work / f"hudi_log-{rows}", 600)
                    tail = time.perf_counter() - t
                    assert not left, f"compactions still pending: {left}"
            compactions = sum(1 for i in Timeline(work / f"hudi_log-{rows}",
                                                  read_properties(work / f"hudi_log-{rows}")).completed_commits()
                              if i.action == "commit")
            out["floor"] = out.pop(floor)
            keys = read_table(str(work / f"hudi_log-{rows}")).num_rows
            assert keys == rows * ((args.batches + 1) // 2), keys  # every key once
            print(f"\n{args.batches} micro-batches of {rows:,} rows, {args.master} ({compactions} compaction(s), "
                  f"{'inline' if args.inline_compaction else 'async'}; tail after the query's end {tail:.1f}s):")
            for fmt, (wall, lat, n, steady_rate, busy) in out.items():
                steady = lat[1:] or lat
                cores = f", {busy:.2f} of {os.cpu_count()} cores busy" if busy is not None else ""
                print(f"  {fmt:8}  {n / wall:10,.0f} rows/s  (steady {steady_rate:10,.0f} rows/s)   latency median "
                      f"{statistics.median(steady):6.2f}s  max {max(lat):6.2f}s  (first batch {lat[0]:.2f}s, wall "
                      f"{wall:.1f}s{cores})")
            rate = {fmt: r[2] / r[0] for fmt, r in out.items()}
            steady_rate = {fmt: r[3] for fmt, r in out.items()}
            median = {fmt: statistics.median(r[1][1:] or r[1]) for fmt, r in out.items()}
            for peer in ("parquet", "floor"):
                print(f"  hudi_log / {peer}: throughput {rate['hudi_log'] / rate[peer]:.2f}, steady throughput "
                      f"{steady_rate['hudi_log'] / steady_rate[peer]:.2f}, median latency "
                      f"{median['hudi_log'] / median[peer]:.2f}", flush=True)
            print(f"  parquet / floor: throughput {rate['parquet'] / rate['floor']:.2f}", flush=True)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
