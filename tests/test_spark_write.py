"""Writing Hudi tables through the ``hudi_log`` Spark data source, read back by Spark and by hudi-rs.

* the seed walkthrough (insert 1-3, upsert 2 and 3, delete 3) on COW and MOR;
* random upsert / delete batches over several commits: at each instant, time travel and incremental
  queries through Spark equal hudi-rs's and a plain Python model of the operations;
* a failed job leaves no completed instant (rolled back), the plain ``df.write`` path refuses a COW
  write that two tasks would split, and ``mode("overwrite")`` replaces the table;
* a DataFrame of 1,000,000 rows (``HUDI_LOG_SPARK_ROWS``) upserted on local[2] reads back the same
  through the data source, ``hudi_log.read_table`` and hudi-rs.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log.format.content.bloom import read_footer_filter
from hudi_log.table import read_properties, read_table
from hudi_log.table.timeline.timeline import Timeline

hudi = pytest.importorskip("hudi")
pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark import write  # noqa: E402
from hudi_log.spark.sink import TaskConflictError  # noqa: E402
from hudi_log.spark.source import AS_OF, BEGIN, END, QUERY_TYPE  # noqa: E402
from test_table_write import theirs as via_hudi_rs, window_bound  # noqa: E402  (hudi-rs reads, window bounds)

pytestmark = pytest.mark.slow
SCHEMA = "id int, name string, ts long, region string"


def opts(table_type, version=6, partitioned=False, **extra):
    o = {
        "hoodie.table.name": "seed",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.write.table.version": str(version),
    }
    if partitioned:
        o["hoodie.datasource.write.partitionpath.field"] = "region"
    o.update(extra)
    return o


def via_spark(spark, path, **options) -> list[tuple]:
    r = spark.read.format("hudi_log")
    for k, v in options.items():
        r = r.option(k, v)
    return sorted((x["id"], x["name"]) for x in r.load(str(path)).select("id", "name").collect())


def completed(path) -> list[str]:
    return [i.requested_time for i in Timeline(path, read_properties(path)).completed_commits()]


def both(spark, path, as_of=None, begin=None, end=None) -> list[tuple]:
    if begin is not None:
        a = via_spark(spark, path, **{QUERY_TYPE: "incremental", BEGIN: begin, END: end})
    elif as_of is not None:
        a = via_spark(spark, path, **{AS_OF: as_of})
    else:
        a = via_spark(spark, path)
    b = via_hudi_rs(path, as_of=as_of, begin=begin, end=end)
    assert a == b, f"Spark {a} != hudi-rs {b} (as_of={as_of}, begin={begin}, end={end})"
    return a


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_seed_walkthrough_through_the_data_source(spark, tmp_path, table_type):
    path = str(tmp_path / "seed")
    o = opts(table_type, **{"hoodie.bloom.index.filter.type": "SIMPLE"})  # reaches the tasks' base files
    steps = [("insert", [(1, "a", 1, "eu"), (2, "b", 1, "us"), (3, "c", 1, "eu")]),
             ("upsert", [(2, "bb", 2, "us"), (3, "cc", 2, "eu")]),
             ("delete", [(3, "cc", 3, "eu")])]
    instants = []
    for op, rows in steps:
        # the plain df.write path, one partition per row: safe for inserts and MOR; COW goes through write()
        df = spark.createDataFrame(rows, SCHEMA)
        if table_type == "MERGE_ON_READ" or op == "insert":
            df.write.format("hudi_log").options(**o, **{"hoodie.datasource.write.operation": op}).mode("append").save(path)
            instants.append(completed(path)[-1])
        else:
            instants.append(write(df, path, {**o, "hoodie.datasource.write.operation": op}).instant)
    t1, t2, t3 = instants
    assert completed(path) == instants
    assert both(spark, path) == [(1, "a"), (2, "bb")]
    assert both(spark, path, as_of=t1) == [(1, "a"), (2, "b"), (3, "c")]
    assert both(spark, path, as_of=t2) == [(1, "a"), (2, "bb"), (3, "cc")]
    b1, b2, b3 = (window_bound(path, t) for t in instants)
    assert both(spark, path, begin=b1, end=b2) == [(2, "bb"), (3, "cc")]
    assert both(spark, path, begin=b1, end=b3) == [(2, "bb")]
    bases = [p for p in Path(path).rglob("*.parquet") if ".hoodie" not in p.parts]
    assert bases
    for base in bases:  # the Spark tasks' base files carry the filter the options asked for
        f = read_footer_filter(pq.ParquetFile(base).metadata.metadata)
        assert f.type_code == "SIMPLE" and f.might_contain(pq.read_table(base).column("_hoodie_record_key")).all()


@pytest.mark.parametrize("table_type,version,partitioned",
                         [("COPY_ON_WRITE", 6, True), ("MERGE_ON_READ", 6, False), ("MERGE_ON_READ", 8, True)])
def test_repeated_upserts_and_deletes(spark, tmp_path, table_type, version, partitioned):
    rng = random.Random(f"{table_type}{version}{partitioned}")
    path = str(tmp_path / "t")
    o = opts(table_type, version, partitioned)
    model: dict[int, str] = {}
    states, instants = [], []
    for step in range(5):
        if step == 0 or rng.random() < 0.7:
            ids = rng.sample(range(60), 25)
            rows = [(i, f"n{i}-{step}", step, "eu" if i % 2 else "us") for i in ids]
            op = "upsert"
            model.update({i: name for i, name, *_ in rows})
        else:
            ids = rng.sample(sorted(model), min(8, len(model)))
            rows = [(i, model[i], step, "eu" if i % 2 else "us") for i in ids]
            op = "delete"
            for i in ids:
                model.pop(i)
        df = spark.createDataFrame(rows, SCHEMA).repartition(3)
        instants.append(write(df, path, {**o, "hoodie.datasource.write.operation": op}).instant)
        states.append(sorted(model.items()))
    assert completed(path) == instants
    assert both(spark, path) == states[-1]
    bounds = [window_bound(path, t) for t in instants]
    for k, t in enumerate(instants):
        assert both(spark, path, as_of=t) == states[k], k
        if k:
            changed = sorted(set(states[k]) - set(states[k - 1]))
            assert both(spark, path, begin=bounds[k - 1], end=bounds[k]) == changed, k
    assert read_table(path).num_rows == len(model)


def _split_repeats(spark):
    """Key 5 in both of two input partitions: ts 9 ("late") in the first, ts 3 ("early") in the second.
    Uncombined, version 6 keeps the row of the later log file (the second task's): "early"."""
    rows = [(5, "late", 9, "eu"), (7, "x", 2, "eu"), (5, "early", 3, "eu"), (8, "y", 2, "us")]
    return spark.createDataFrame(spark.sparkContext.parallelize(rows, 2), SCHEMA)


def test_write_combines_repeats_and_plain_write_refuses_them(spark, tmp_path):
    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ", 6, True)
    write(spark.createDataFrame([(i, f"a{i}", 1, "eu" if i % 2 else "us") for i in range(10)], SCHEMA), path,
          {**o, "hoodie.datasource.write.operation": "insert"})
    before = completed(path)
    df2 = _split_repeats(spark)
    # the plain df.write path cannot run again: it refuses, and the table is as it was
    with pytest.raises(Exception, match=r"RepeatedKeyError.*more than one of the 2 Spark tasks.*combine.before.upsert.*hudi_log.spark.write"):
        df2.write.format("hudi_log").options(**o).mode("append").save(path)
    tl = Timeline(path, read_properties(path))
    assert completed(path) == before
    assert [i.action for i in tl.instants if i.requested_time > before[-1]] == ["rollback"]
    assert both(spark, path) == [(i, f"a{i}") for i in range(10)]
    # hudi_log.spark.write brings one key's rows into one task: combined, one instant, no rollback
    res = write(df2, path, o)
    assert completed(path) == before + [res.instant]
    assert both(spark, path) == sorted({**{i: f"a{i}" for i in range(10)}, 5: "late", 7: "x", 8: "y"}.items())


def test_failed_job_is_rolled_back(spark, tmp_path):
    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ")
    write(spark.createDataFrame([(1, "a", 1, "eu"), (2, "b", 1, "us")], SCHEMA), path, o)
    before = completed(path)
    bad = spark.createDataFrame([(None, "x", 2, "eu"), (2, "bb", 2, "us")], SCHEMA).repartition(2)
    with pytest.raises(Exception, match="record key"):
        bad.write.format("hudi_log").options(**o).mode("append").save(path)
    tl = Timeline(path, read_properties(path))
    assert completed(path) == before
    assert not [i for i in tl.instants if not i.is_completed]
    assert [i.action for i in tl.instants if i.requested_time > before[-1]] == ["rollback"]
    assert both(spark, path) == [(1, "a"), (2, "b")]


def test_spark_writes_keep_their_heartbeat_and_respect_other_writers(spark, tmp_path):
    from hudi_log.table.write.client import begin_write
    from hudi_log.table.write.task import write_batches

    path = str(tmp_path / "t")
    beats = {"hoodie.client.heartbeat.interval_in_ms": "100", "hoodie.client.heartbeat.tolerable.misses": "2"}
    o = opts("MERGE_ON_READ", partitioned=True, **beats)
    slow = spark.createDataFrame([(i, f"n{i}", 1, "eu" if i % 2 else "us") for i in range(40)], SCHEMA).repartition(4)
    # long enough for many heartbeats, on both paths: the instant stays alive until its commit
    slowed = slow.mapInPandas(lambda it: (time.sleep(0.5) or b for b in it), slow.schema)
    slowed.write.format("hudi_log").options(**o).mode("append").save(path)
    write(slowed, path, {**o, "hoodie.datasource.write.operation": "upsert"})
    assert len(completed(path)) == 2 and not list((tmp_path / "t" / ".hoodie" / ".heartbeat").iterdir())
    # a live writer elsewhere: a single Spark writer stops, naming it; under optimistic concurrency it writes
    live = begin_write(path, "upsert", o, schema=pa.schema([("id", pa.int32()), ("name", pa.string()),
                                                               ("ts", pa.int64()), ("region", pa.string())]))
    stats = write_batches(live.context, pa.table({"id": pa.array([1], pa.int32()), "name": ["live"], "ts": [5],
                                                  "region": ["eu"]}), 0)
    df = spark.createDataFrame([(2, "spark", 5, "us")], SCHEMA)
    with pytest.raises(Exception, match=f"ConcurrentWriterError.*{live.instant}"):
        df.write.format("hudi_log").options(**o).mode("append").save(path)
    occ = {"hoodie.write.concurrency.mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
           "hoodie.write.lock.provider": "FileSystemBasedLockProvider"}
    live.config = type(live.config)(**{**live.config.__dict__, "mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
                                       "failed_writes": "LAZY", "lock_provider": "org.apache.hudi.client."
                                       "transaction.lock.FileSystemBasedLockProvider"})
    df.write.format("hudi_log").options(**o, **occ).mode("append").save(path)
    live.commit(stats)  # another file group (partition eu): no conflict
    assert dict(both(spark, path))[1] == "live" and dict(both(spark, path))[2] == "spark"


def test_plain_write_refuses_split_cow_file_group(spark, tmp_path):
    path = str(tmp_path / "t")
    o = opts("COPY_ON_WRITE")
    spark.createDataFrame([(i, "a", 1, "eu") for i in range(4)], SCHEMA).coalesce(1) \
        .write.format("hudi_log").options(**o).mode("append").save(path)
    before = completed(path)
    upd = spark.createDataFrame([(i, "b", 2, "eu") for i in range(4)], SCHEMA).repartition(2)
    # the driver's commit raises TaskConflictError; Spark hands it back wrapped, with its message
    with pytest.raises(Exception, match=f"{TaskConflictError.__name__}.*hudi_log.spark.write"):
        upd.write.format("hudi_log").options(**o).mode("append").save(path)
    assert completed(path) == before and both(spark, path) == [(i, "a") for i in range(4)]
    write(upd, path, o)  # the routed path writes the same DataFrame
    assert both(spark, path) == [(i, "b") for i in range(4)]


def test_overwrite_mode_replaces_the_table(spark, tmp_path):
    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ")
    write(spark.createDataFrame([(1, "a", 1, "eu"), (2, "b", 1, "us")], SCHEMA), path, o)
    spark.createDataFrame([(7, "g", 1, "eu")], SCHEMA).write.format("hudi_log").options(**o) \
        .mode("overwrite").save(path)
    assert both(spark, path) == [(7, "g")]
    assert len(completed(path)) == 1
    assert not [p for p in os.listdir(tmp_path) if "overwrite" in p]  # the old table is gone after the commit


def test_million_rows_upserted(spark, tmp_path):
    from pyspark.sql import functions as F

    n = int(os.environ.get("HUDI_LOG_SPARK_ROWS", 1_000_000))
    path = str(tmp_path / "big")
    o = {"hoodie.table.name": "big", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
         "hoodie.datasource.write.recordkey.field": "key", "hoodie.datasource.write.precombine.field": "ts"}

    def frame(version: int, count: int):
        return spark.range(count).select(F.format_string("k%08d", "id").alias("key"),
                                         (F.col("id") + version).alias("ts"),
                                         (F.col("id") * 10 + version).alias("value"))

    t0 = time.perf_counter()
    write(frame(0, n), path, {**o, "hoodie.datasource.write.operation": "insert"})
    # upsert: every second key updated, and n/10 new keys
    upd = frame(1, n + n // 10).where((F.col("id") % 2 == 0) | (F.col("id") >= n))
    res = write(upd, path, {**o, "hoodie.datasource.write.operation": "upsert"})
    elapsed = time.perf_counter() - t0
    assert (res.updates, res.inserts) == (n // 2, n // 10)
    want = sorted((f"k{i:08d}", i * 10 + (1 if i % 2 == 0 or i >= n else 0)) for i in range(n + n // 10))
    got_spark = sorted(tuple(r) for r in spark.read.format("hudi_log").load(path).select("key", "value").collect())
    assert got_spark == want
    ours = read_table(path, columns=["key", "value"])
    assert sorted(zip(ours.column("key").to_pylist(), ours.column("value").to_pylist())) == want
    rs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(path).build().read(hudi.HudiReadOptions()))
    assert sorted(zip(rs.column("key").to_pylist(), rs.column("value").to_pylist())) == want
    print(f"{n:,} rows: insert + upsert through the data source in {elapsed:.1f}s")
