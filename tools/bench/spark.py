"""Benchmark: the hudi_log Spark data source against plain Spark Parquet and hudi-rs.

    python tools/bench/spark.py [N] [--master local[2]] [--repeat 5] [--table-type MERGE_ON_READ] [--keep DIR]

A DataFrame of N rows (default 1,000,000; quickstart-trips-like: uuid key, ts, rider, driver, fare,
city) is made in Spark and cached. Then, in the same session:

* parquet: ``df.write.parquet`` of the DataFrame (mode overwrite) — the baseline;
* upsert: ``hudi_log.spark.write(df, table, upsert)`` into a table that already holds those N keys
  (inserted once, untimed), so every row is an update: the index lookup, routing, shuffle, the writes
  (MOR: Avro log blocks; COW: base files rewritten) and the commit;
* upsert, no combine: the same with ``hoodie.combine.before.upsert=false`` (the caller vouches the keys
  are distinct, as Hudi's option says): MOR skips the key shuffle;
* read: ``spark.read.format("hudi_log").load(table)`` of the snapshot, counted (all rows through Arrow
  into Spark) — against hudi-rs (PyPI ``hudi``) reading the same snapshot into Arrow in this process.

Each is run ``--repeat`` times (upserts alternate with Parquet writes); medians are printed with

    upsert ratio = upsert time / parquet time      (goal <= 2.0; also for the no-combine upsert; each
                                                   round's own ratio is printed too: on a small machine
                                                   the Parquet write alone varies by half)
    read ratio   = our read time / hudi-rs time    (below 1.0: faster than hudi-rs)

The numbers are reported, not asserted; the row sets are checked equal once (Spark == hudi-rs).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def make_df(spark, n: int, version: int = 0):
    """N trips; ``version`` changes fares and ts (an update of every key)."""
    from pyspark.sql import functions as F

    cities = F.element_at(F.array(*[F.lit(c) for c in ("san_francisco", "sao_paulo", "chennai")]),
                          (F.col("id") % 3 + 1).cast("int"))
    return spark.range(n).select(
        F.format_string("trip-%010d", "id").alias("uuid"),
        (F.lit(1_700_000_000_000) + F.col("id") + F.lit(version) * 10_000_000).alias("ts"),
        F.format_string("rider-%d", F.col("id") % 1000).alias("rider"),
        F.format_string("driver-%d", F.col("id") % 997).alias("driver"),
        ((F.col("id") % 10_000) / 100.0 + version).alias("fare"),
        cities.alias("city"),
    )


def options(table_type: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "bench_trips",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "uuid",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": "upsert",
    }


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=1_000_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--table-type", default="MERGE_ON_READ", choices=["MERGE_ON_READ", "COPY_ON_WRITE"])
    ap.add_argument("--keep", default=None, help="work in this folder and keep it")
    args = ap.parse_args(argv)

    import hudi
    import pyarrow as pa

    from hudi_log.spark import spark_session, write

    work = Path(args.keep or tempfile.mkdtemp(prefix="hudi-log-bench-spark-"))
    work.mkdir(parents=True, exist_ok=True)
    table, parquet = str(work / "table"), str(work / "parquet")
    spark = spark_session(args.master, app_name="hudi-log bench")
    opts = options(args.table_type)
    try:
        base = make_df(spark, args.n, 0)
        t, _ = timed(lambda: write(base, table, {**opts, "hoodie.datasource.write.operation": "insert"}))
        print(f"setup: inserted {args.n:,} rows in {t:.1f}s ({args.table_type})", flush=True)
        ups, ups_nc, pqs, reads, rs_reads = [], [], [], [], []
        for i in range(1, args.repeat + 1):
            df = make_df(spark, args.n, i).cache()
            df.count()  # materialise the input once, outside both timings
            t_pq, _ = timed(lambda: df.write.mode("overwrite").parquet(parquet))
            t_up, res = timed(lambda: write(df, table, opts))
            assert res.updates == args.n, res
            t_nc, res_nc = timed(lambda: write(df, table, {**opts, "hoodie.combine.before.upsert": "false"}))
            assert res_nc.updates == args.n, res_nc
            pqs.append(t_pq)
            ups.append(t_up)
            ups_nc.append(t_nc)
            df.unpersist()
            t_rd, count = timed(lambda: spark.read.format("hudi_log").load(table).count())
            assert count == args.n, count
            t_rs, rs = timed(lambda: pa.Table.from_batches(
                hudi.HudiTableBuilder.from_base_uri(table).build().read(hudi.HudiReadOptions())))
            assert rs.num_rows == args.n, rs.num_rows
            reads.append(t_rd)
            rs_reads.append(t_rs)
            print(f"round {i}: parquet {t_pq:.2f}s, upsert {t_up:.2f}s ({res}), no-combine upsert {t_nc:.2f}s, "
                  f"read {t_rd:.2f}s, hudi-rs read {t_rs:.2f}s", flush=True)
        # the rows themselves, once: Spark through the data source == hudi-rs
        ours = sorted(tuple(r) for r in spark.read.format("hudi_log").load(table)
                      .select("uuid", "ts", "fare").collect())
        theirs = sorted(zip(*(rs.column(c).to_pylist() for c in ("uuid", "ts", "fare"))))
        assert ours == theirs, "the data source and hudi-rs disagree"
        m = {k: statistics.median(v) for k, v in (("parquet", pqs), ("upsert", ups), ("no-combine", ups_nc), ("read", reads),
                                                   ("hudi-rs", rs_reads))}
        print(f"\n{args.n:,} rows, {args.table_type}, master {args.master}, median of {args.repeat}:")
        print(f"  spark parquet write   {m['parquet']:8.2f}s")
        paired = lambda xs: ", ".join(f"{x / p:.2f}" for x, p in zip(xs, pqs))  # noqa: E731
        print(f"  hudi_log upsert       {m['upsert']:8.2f}s   ratio {m['upsert'] / m['parquet']:.2f} (goal <= 2.0;"
              f" per round: {paired(ups)})")
        print(f"  ... combine off       {m['no-combine']:8.2f}s   ratio {m['no-combine'] / m['parquet']:.2f}"
              f" (hoodie.combine.before.upsert=false; per round: {paired(ups_nc)})")
        print(f"  hudi_log read (Spark) {m['read']:8.2f}s")
        print(f"  hudi-rs read          {m['hudi-rs']:8.2f}s   ratio {m['read'] / m['hudi-rs']:.2f} (ours / hudi-rs)")
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
