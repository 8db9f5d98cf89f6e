"""Benchmark: the hudi_log Spark data source against plain Spark Parquet and hudi-rs.

    python tools/bench/spark.py [N] [--master local[2]] [--repeat 5] [--table-type MERGE_ON_READ] [--keep DIR]
                                [--partitions P] [--file-groups G] [--index SIMPLE|BLOOM] [--no-reads]
                                [--conf spark.driver.memory=6g ...]

A DataFrame of N rows (default 1,000,000; quickstart-trips-like: uuid key, ts, rider, driver, fare,
city) is made in Spark and cached. Then, in the same session:

* parquet: ``df.write.parquet`` of the DataFrame (mode overwrite) — the baseline;
* upsert: ``hudi_log.spark.write(df, table, upsert)`` into a table that already holds those N keys
  (inserted once, untimed), so every row is an update: the index lookup, routing, shuffle, the writes
  (MOR: Avro log blocks; COW: base files rewritten) and the commit;
* Spark alone, the same work (a peer: no Python, no Hudi files): the table's existing keys and file ids
  read from its latest base files by Spark's Parquet scan, joined with the input (the shuffled hash join
  the upsert uses), the rows shuffled by file id (each group's rows in one Spark partition; as many
  partitions as the upsert's Python tasks) and written as Parquet. It is the SIMPLE index's join and
  Java's routing of an all-update upsert in Spark's own code, the least any SIMPLE-index upsert on Spark
  (Java Hudi's included) can cost: the upsert is reported against it too;
* upsert, no combine: the same with ``hoodie.combine.before.upsert=false`` (the caller vouches the keys
  are distinct, as Hudi's option says);
* ``--partitions P``: the upsert's input DataFrame is first repartitioned to P Spark partitions (issue 17:
  200 is Spark's default shuffle width); each upsert reports its log files per commit (log files the
  commit metadata names, against the file groups it touched: one per group is Java's shape);
* ``--file-groups G``: the untimed insert sizes its file groups (``hoodie.parquet.max.file.size`` = N / G
  records x the 1 KB first-commit estimate), so the table has about G file groups (the count is printed);
* the driver, before vs after (issue 17, item 2): once after the upserts, the index the driver used to
  build (``build_index``: every record key) against the one it builds now (``plan_index``: per-file-group
  facts), as entries and pickled bytes (what it holds and ships to each task); and, in each upsert, the
  rows Spark jobs return to the driver (``DataFrame.collect`` counted: per partition and per file group);
* read: ``spark.read.format("hudi_log").load(table)`` of the snapshot, every row and column handed to
  Spark's ``noop`` sink — against hudi-rs (PyPI ``hudi``) reading the same snapshot into Arrow in this
  process, and against Spark reading the same rows from the Parquet baseline into the ``noop`` sink (a
  ``count()`` of Parquet would read footers only); and ``hudi_log.spark.read`` (base-only slices by Spark's
  Parquet scan, :mod:`hudi_log.spark.native`) of the snapshot and of the read-optimized view, and of the
  snapshot's data columns alone (``columns=``: the columns the Parquet baseline holds, the meta columns left
  in the files);
* the floor of the Python data source API: a trivial Python data source that reads the Parquet baseline's
  files with pyarrow and hands the rows to Spark (no merge, no Hudi), into the ``noop`` sink;
* the driver's peak memory during the upserts: the Python driver process's peak resident set, its
  ``VmHWM`` reset before each upsert (as ``tools.bench.measure`` does), against its resident set before
  the first (the bench's own index comparison and the hudi-rs reads run in this process too, so its
  lifetime peak is not the write's, and a peak is never below what the process already held: the growth
  over that is printed too; on ``local`` masters the JVM driver also runs the executors, so its
  heap is not the driver's alone).

Each is run ``--repeat`` times (upserts alternate with Parquet writes); medians are printed with

    upsert ratio = upsert time / parquet time      (goal <= 2.0; also for the no-combine upsert; each
                                                   round's own ratio is printed too: on a small machine
                                                   the Parquet write alone varies by half)
    upsert / Spark alone = upsert time / the peer's time   (how much over Spark's own cost of the work)
    read ratio   = our read time / hudi-rs time    (goal <= 1.0: at least as fast as hudi-rs)
    read / Parquet = our read time / Spark's Parquet read  (goal <= 2.0; also for hudi_log.spark.read)

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

from tools.bench.measure import _reset_peak, _status_kb  # noqa: E402


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


def files_per_group(table: str, instant: str) -> tuple[int, int]:
    """(files written, file groups touched) by one commit, from its metadata: log files on MOR, base
    files on COW (Java writes one per group)."""
    from hudi_log.table import read_properties
    from hudi_log.table.timeline.timeline import Timeline

    tl = Timeline(Path(table), read_properties(table))
    stats = [s for ss in tl.commit_metadata(tl.instant(instant))["partitionToWriteStats"].values() for s in ss]
    logs = {s["path"] for s in stats if ".log." in s["path"]}
    groups = {s["fileId"] for s in stats if ".log." in s["path"]} or {s["fileId"] for s in stats}
    return len(logs) or len({s["path"] for s in stats}), len(groups)


def driver_index_sizes(table: str, kind: str) -> dict[str, tuple[int, int, float]]:
    """name -> (entries, pickled bytes, seconds) of the driver's index of ``table``: ``before`` the key
    index build_index makes (one entry per record key), ``after`` the FileGroupIndex (one per file group)."""
    import pickle

    from hudi_log.table import read_properties
    from hudi_log.table.timeline.timeline import Timeline
    from hudi_log.table.write.index import build_index, latest_slices
    from hudi_log.table.write.key_lookup import plan_index

    props = read_properties(table)
    tl = Timeline(Path(table), props)
    groups = latest_slices(table, props, tl)
    out = {}
    for name, build in (("before", lambda: build_index(table, props, tl, groups)),
                        ("after", lambda: plan_index(table, props, tl, groups, kind))):
        t, idx = timed(build)
        out[name] = (len(idx), len(pickle.dumps(idx)), t)
    return out


class CollectCounter:
    """Counts the rows Spark jobs hand to the driver (``DataFrame.collect``) while installed."""

    def __init__(self, spark):
        self.rows = self.calls = 0
        self._cls = type(spark.range(0))  # the classic DataFrame class, whose collect the jobs call
        self._orig = self._cls.collect

        def collect(df):
            out = self._orig(df)
            self.rows += len(out)
            self.calls += 1
            return out

        self._cls.collect = collect

    def close(self):
        self._cls.collect = self._orig


def latest_base_files(table: str) -> list[str]:
    """Each file group's newest base file (the bench's tables: every key is in one)."""
    from hudi_log.table import read_properties
    from hudi_log.table.timeline.timeline import Timeline
    from hudi_log.table.write.index import latest_slices

    props = read_properties(table)
    return sorted(g.base_file for g in latest_slices(table, props, Timeline(Path(table), props)).values()
                  if g.base_file)


def spark_alone_upsert(spark, df, files: list[str], key: str, out: str) -> None:
    """The peer: the upsert's join and routing in Spark's own code, written as Parquet to ``out``, in as
    many partitions as the upsert's Python tasks (two per core; the input coalesced to them, as the upsert
    does): Spark's default 200 would shuffle 200 input partitions into 200 (40,000 shuffle files), which
    costs more than the work itself."""
    from pyspark.sql import functions as F

    from hudi_log.format.content.meta_fields import FILE_NAME, RECORD_KEY

    n = 2 * spark.sparkContext.defaultParallelism
    existing = spark.read.parquet(*files).select(F.col(RECORD_KEY).alias("_k"),
                                                 F.substring_index(FILE_NAME, "_", 1).alias("_fid"))
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", str(n))  # the join's partitions
    try:
        joined = df.coalesce(n).join(existing.hint("shuffle_hash"), F.col(key) == F.col("_k"), "left")
        joined.drop("_k").repartition(n, "_fid").write.mode("overwrite").parquet(out)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)


def register_floor(spark, parquet: str) -> str:
    """A Python data source that only reads the Parquet baseline's files with pyarrow and hands the rows to
    Spark: the floor of any read through PySpark's Python data source API (no merging, no Hudi), to tell
    what the API costs from what hudi-log costs. Defined here, so Spark pickles it to its workers by value."""
    import glob

    import pyarrow.parquet as pq
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    from hudi_log.spark.source import BATCH_ROWS, spark_arrow_schema

    files = sorted(glob.glob(f"{parquet}/*.parquet"))
    schema = pq.read_schema(files[0])
    # the files in one partition per core, as Spark packs small files into its own scan's partitions
    cores = spark.sparkContext.defaultParallelism
    parts = [files[i::cores] for i in range(min(cores, len(files)))]

    class FloorReader(DataSourceReader):
        def partitions(self):
            return [InputPartition(p) for p in parts]

        def read(self, partition):
            for f in partition.value:
                t = pq.read_table(f)
                yield from t.cast(spark_arrow_schema(t.schema)[1]).to_batches(max_chunksize=BATCH_ROWS)

    class Floor(DataSource):
        @classmethod
        def name(cls):
            return "hudi_log_bench_floor"

        def schema(self):
            return spark_arrow_schema(schema)[0]

        def reader(self, schema):
            return FloorReader()

    spark.dataSource.register(Floor)
    return Floor.name()


def full_read(df) -> None:
    """Every row and column of ``df`` through Spark, written nowhere (Spark's ``noop`` sink)."""
    df.write.format("noop").mode("overwrite").save()


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident set (``VmRSS``) or its peak since ``_reset_peak`` (``VmHWM``), in MB."""
    return _status_kb(field) / 1024


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
    ap.add_argument("--partitions", type=int, default=200, help="repartition the upsert input to P partitions "
                    "(0: as made)")
    ap.add_argument("--file-groups", type=int, default=256, help="about this many file groups (0: Hudi's sizing)")
    ap.add_argument("--index", default="SIMPLE", choices=["SIMPLE", "BLOOM"], help="hoodie.index.type")
    ap.add_argument("--no-reads", action="store_true", help="time the writes only")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="a Spark setting for the session (e.g. spark.driver.memory=6g for 10M rows on local)")
    args = ap.parse_args(argv)

    import hudi
    import pyarrow as pa

    from hudi_log.spark import read as spark_read, spark_session, write

    work = Path(args.keep or tempfile.mkdtemp(prefix="hudi-log-bench-spark-"))
    work.mkdir(parents=True, exist_ok=True)
    table, parquet, alone = str(work / "table"), str(work / "parquet"), str(work / "spark-alone")
    spark = spark_session(args.master, app_name="hudi-log bench", conf=dict(c.split("=", 1) for c in args.conf))
    opts = {**options(args.table_type), "hoodie.index.type": args.index}
    sizing = {"hoodie.parquet.max.file.size": str(-(-args.n // args.file_groups) * 1024)} if args.file_groups else {}
    try:
        base = make_df(spark, args.n, 0)
        t, _ = timed(lambda: write(base, table, {**opts, **sizing, "hoodie.datasource.write.operation": "insert"}))
        print(f"setup: inserted {args.n:,} rows in {t:.1f}s ({args.table_type})", flush=True)
        rss_before, rss_peak, rss_growth = rss_mb(), 0.0, 0.0
        ups, ups_nc, pqs, alones, reads, rs_reads, pq_reads, files, collected = ([] for _ in range(9))
        api_reads, ro_reads, floor_reads, col_reads = [], [], [], []
        for i in range(1, args.repeat + 1):
            df = make_df(spark, args.n, i)
            df = (df.repartition(args.partitions) if args.partitions else df).cache()
            df.count()  # materialise the input once, outside both timings
            partitions = df.rdd.getNumPartitions()
            t_pq, _ = timed(lambda: df.write.mode("overwrite").parquet(parquet))
            counter = CollectCounter(spark)
            try:
                _reset_peak()  # VmHWM starts over (where Linux refuses, the peak is the lifetime one)
                rss_at = rss_mb()  # what the process already holds (the previous round's hudi-rs read, say)
                t_up, res = timed(lambda: write(df, table, opts))
                rss_peak = max(rss_peak, rss_mb("VmHWM"))
                rss_growth = max(rss_growth, rss_mb("VmHWM") - rss_at)
            finally:
                counter.close()
            assert res.updates == args.n, res
            files.append(files_per_group(table, res.instant))
            collected.append((counter.rows, counter.calls))
            files_now = latest_base_files(table)  # listed untimed: the peer is timed on Spark's work alone
            t_alone, _ = timed(lambda: spark_alone_upsert(spark, df, files_now, "uuid", alone))
            t_nc, res_nc = timed(lambda: write(df, table, {**opts, "hoodie.combine.before.upsert": "false"}))
            assert res_nc.updates == args.n, res_nc
            pqs.append(t_pq)
            ups.append(t_up)
            ups_nc.append(t_nc)
            alones.append(t_alone)
            df.unpersist()
            t_rd = t_rs = t_prd = t_api = t_ro = t_floor = t_cols = float("nan")
            if not args.no_reads:
                t_rd, _ = timed(lambda: full_read(spark.read.format("hudi_log").load(table)))
                t_api, _ = timed(lambda: full_read(spark_read(spark, table)))
                t_ro, _ = timed(lambda: full_read(spark_read(spark, table,
                                                             {"hoodie.datasource.query.type": "read_optimized"})))
                t_cols, _ = timed(lambda: full_read(spark_read(spark, table, columns=df.columns)))
                t_prd, _ = timed(lambda: full_read(spark.read.parquet(parquet)))
                floor = register_floor(spark, parquet)
                t_floor, _ = timed(lambda: full_read(spark.read.format(floor).load()))
                t_rs, rs = timed(lambda: pa.Table.from_batches(
                    hudi.HudiTableBuilder.from_base_uri(table).build().read(hudi.HudiReadOptions())))
                assert rs.num_rows == args.n, rs.num_rows
            reads.append(t_rd)
            api_reads.append(t_api)
            ro_reads.append(t_ro)
            col_reads.append(t_cols)
            floor_reads.append(t_floor)
            rs_reads.append(t_rs)
            pq_reads.append(t_prd)
            print(f"round {i}: input partitions {partitions}, files written {files[-1][0]} for "
                  f"{files[-1][1]} file groups, {counter.rows} rows collected to the driver in "
                  f"{counter.calls} collects", flush=True)
            print(f"round {i}: parquet {t_pq:.2f}s, upsert {t_up:.2f}s ({res}), Spark alone {t_alone:.2f}s, "
                  f"no-combine upsert {t_nc:.2f}s, "
                  f"read {t_rd:.2f}s, hudi_log.spark.read {t_api:.2f}s (read-optimized {t_ro:.2f}s), "
                  f"hudi-rs read {t_rs:.2f}s, parquet read {t_prd:.2f}s (through a Python data source {t_floor:.2f}s)",
                  flush=True)
        # after the upserts, so that the key index it builds (in this process) does not count in their peak
        sizes = driver_index_sizes(table, args.index)
        for name, (entries, size, secs) in sizes.items():
            print(f"driver index {name}: {entries:,} entries, {size:,} bytes pickled, built in {secs:.2f}s", flush=True)
        if not args.no_reads:  # the rows themselves, once: Spark through the data source == hudi-rs
            ours = sorted(tuple(r) for r in spark.read.format("hudi_log").load(table)
                          .select("uuid", "ts", "fare").collect())
            theirs = sorted(zip(*(rs.column(c).to_pylist() for c in ("uuid", "ts", "fare"))))
            assert ours == theirs, "the data source and hudi-rs disagree"
        compacted = {}
        if not args.no_reads and args.table_type == "MERGE_ON_READ":
            # after a compaction every slice is a whole base file: hudi_log.spark.read is Spark's scan alone
            from hudi_log.table.services.compaction import compact_all

            t, _ = timed(lambda: compact_all(table, {"hoodie.compact.inline.max.delta.commits": "1"}))
            print(f"compacted in {t:.1f}s", flush=True)
            for name, fn in (("format", lambda: full_read(spark.read.format("hudi_log").load(table))),
                             ("api", lambda: full_read(spark_read(spark, table))),
                             ("parquet", lambda: full_read(spark.read.parquet(parquet)))):
                compacted[name] = statistics.median(timed(fn)[0] for _ in range(args.repeat))
        m = {k: statistics.median(v) for k, v in (("parquet", pqs), ("upsert", ups), ("no-combine", ups_nc),
                                                   ("alone", alones), ("read", reads),
                                                   ("hudi-rs", rs_reads), ("parquet-read", pq_reads),
                                                   ("api-read", api_reads), ("ro-read", ro_reads),
                                                   ("floor", floor_reads), ("cols-read", col_reads))}
        print(f"\n{args.n:,} rows, {args.table_type}, master {args.master}, {args.index} index, "
              f"input partitions {partitions}, median of {args.repeat}:")
        (b_n, b_size, b_t), (a_n, a_size, a_t) = sizes["before"], sizes["after"]
        print(f"  driver index          before {b_n:,} keys / {b_size:,} B ({b_t:.2f}s), after {a_n:,} file groups / "
              f"{a_size:,} B ({a_t:.2f}s): ratio {a_size / b_size:.4f}")
        print(f"  files per file group  {', '.join(f'{w}/{g} = {w / g:.2f}' for w, g in files)} (goal 1.00)")
        print(f"  rows collected        {', '.join(str(r) for r, _ in collected)} per upsert (keys in the table: {b_n:,})")
        print(f"  spark parquet write   {m['parquet']:8.2f}s")
        paired = lambda xs: ", ".join(f"{x / p:.2f}" for x, p in zip(xs, pqs))  # noqa: E731
        print(f"  hudi_log upsert       {m['upsert']:8.2f}s   ratio {m['upsert'] / m['parquet']:.2f} (goal <= 2.0;"
              f" per round: {paired(ups)})")
        print(f"  spark alone, same work{m['alone']:8.2f}s   ratio {m['alone'] / m['parquet']:.2f} (the join, "
              f"routing and a Parquet write in Spark's own code; upsert / it: {m['upsert'] / m['alone']:.2f}, "
              f"per round: {', '.join(f'{u / a:.2f}' for u, a in zip(ups, alones))})")
        print(f"  ... combine off       {m['no-combine']:8.2f}s   ratio {m['no-combine'] / m['parquet']:.2f}"
              f" (hoodie.combine.before.upsert=false; per round: {paired(ups_nc)})")
        print(f"  driver peak memory    {rss_peak:8.0f} MB resident during the upserts (Python driver; "
              f"{rss_before:.0f} MB before the first; at most {rss_growth:.0f} MB over what it held as one began)")
        if args.no_reads:
            return 0
        print(f"  hudi_log read (Spark) {m['read']:8.2f}s")
        print(f"  hudi-rs read          {m['hudi-rs']:8.2f}s   ratio {m['read'] / m['hudi-rs']:.2f} "
              "(ours / hudi-rs; goal <= 1.0)")
        print(f"  spark parquet read    {m['parquet-read']:8.2f}s   ratio {m['read'] / m['parquet-read']:.2f} "
              "(ours / Spark's Parquet read; goal <= 2.0)")
        print(f"  hudi_log.spark.read   {m['api-read']:8.2f}s   ratio {m['api-read'] / m['parquet-read']:.2f} "
              f"(/ Spark's Parquet read), {m['api-read'] / m['hudi-rs']:.2f} (/ hudi-rs)")
        print(f"  ... read_optimized    {m['ro-read']:8.2f}s   ratio {m['ro-read'] / m['parquet-read']:.2f} "
              "(/ Spark's Parquet read)")
        print(f"  ... data columns      {m['cols-read']:8.2f}s   ratio {m['cols-read'] / m['parquet-read']:.2f} "
              "(the snapshot's columns the Parquet baseline has, columns=; / Spark's Parquet read)")
        print(f"  Python data source    {m['floor']:8.2f}s   ratio {m['floor'] / m['parquet-read']:.2f} (the Parquet "
              "baseline's rows handed over by a Python data source that only reads them: the API's floor)")
        if compacted:
            print(f"  after compaction      format('hudi_log') {compacted['format']:.2f}s, hudi_log.spark.read "
                  f"{compacted['api']:.2f}s, Spark's Parquet read {compacted['parquet']:.2f}s: ratios "
                  f"{compacted['format'] / compacted['parquet']:.2f} and {compacted['api'] / compacted['parquet']:.2f}")
    finally:
        spark.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
