"""hudi_log.spark.write partitions records by file group, with the index in the executors (issue 17,
items 1 and 2): at 200 input partitions a MOR upsert writes one log file per touched file group, a COW
upsert rewrites each once; the tables equal the non-Spark path's; SIMPLE and BLOOM give no duplicates
for keys across partitions; the driver holds per-file-group facts only, never a key list."""

from __future__ import annotations

import collections
import pickle
import re
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_log.table import HudiTable, read_properties, read_table
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.client import write_table

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark import write  # noqa: E402

pytestmark = pytest.mark.slow
SCHEMA = "id int, name string, ts long, region string"
ARROW = pa.schema([("id", pa.int32()), ("name", pa.string()), ("ts", pa.int64()), ("region", pa.string())])


def opts(table_type, index="SIMPLE"):
    return {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.partitionpath.field": "region", "hoodie.index.type": index,
            # 500 records per new file group: the insert makes several file groups per partition
            "hoodie.parquet.max.file.size": str(500 * 1024), "hoodie.copyonwrite.record.size.estimate": "1024"}


def rows(ids, name, ts):
    return [(i, f"{name}{i}", ts, "eu" if i % 2 else "us") for i in ids]


def snapshot(path) -> dict:
    t = read_table(path).sort_by("id")
    return {(r["region"], r["id"]): r["name"] for r in t.select(["id", "name", "region"]).to_pylist()}


def commit_stats(path, instant) -> list[dict]:
    tl = Timeline(path, read_properties(path))
    md = tl.commit_metadata(tl.instant(instant))
    return [s for ss in md["partitionToWriteStats"].values() for s in ss]


def _task_id(name: str) -> int:
    """The task partition id in a base or log file name's write token (``fileId_token_instant.parquet``,
    ``.fileId_instant.log.version_token``)."""
    token = name.rsplit("_", 1)[1] if ".log." in name else name.split("_")[1]
    return int(token.split("-")[0])


def _data_logs(path) -> set[str]:
    """The data table's log files (not its metadata table's, under .hoodie)."""
    return {p.name for p in Path(path).rglob(".*.log.*") if ".hoodie" not in p.relative_to(path).parts}


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_200_partitions_one_file_per_file_group(spark, tmp_path, table_type):
    path, plain = str(tmp_path / "spark"), str(tmp_path / "plain")
    o = opts(table_type)
    insert = rows(range(3000), "a", 1)
    res = write(spark.createDataFrame(insert, SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    write_table(plain, pa.Table.from_pylist([dict(zip(ARROW.names, r)) for r in insert], ARROW), "insert", o)
    groups = {s["fileId"] for s in commit_stats(path, res.instant)}
    assert len(groups) >= 6  # 1500 rows per partition, 500 per file group
    upsert = rows(range(0, 3300, 3), "b", 2)  # updates in every file group, and new keys
    df = spark.createDataFrame(upsert, SCHEMA).repartition(200)
    assert df.rdd.getNumPartitions() == 200
    before = _data_logs(path)
    res = write(df, path, o)
    write_table(plain, pa.Table.from_pylist([dict(zip(ARROW.names, r)) for r in upsert], ARROW), "upsert", o)
    stats = commit_stats(path, res.instant)
    per_group = collections.Counter(s["fileId"] for s in stats)
    assert set(per_group) >= groups and max(per_group.values()) == 1  # each file group once in the commit
    assert (res.updates, res.inserts) == (1000, 100)
    # the write ran in at most 2 x default parallelism Python tasks (hudi_log.write.shuffle.partitions'
    # default), not one per file group: the task id leads each file name's write token
    tasks = {_task_id(Path(s["path"]).name) for s in stats}
    assert 1 <= len(tasks) <= 2 * spark.sparkContext.defaultParallelism < len(per_group)
    if table_type == "MERGE_ON_READ":
        # (a version-6 log file is named by its slice's base instant, so the new ones are told apart by listing)
        on_disk = _data_logs(path) - before
        named = {Path(s["path"]).name for s in stats if ".log." in s["path"]}
        # one log file per touched file group, but the partitions' small base-only groups, which take the new
        # keys and are rewritten with their updates (Java's small file corrections)
        merged = {s["fileId"] for s in stats if s["path"].endswith(".parquet") and s["fileId"] in groups}
        assert on_disk == named and len(named) + len(merged) == len(groups) and len(merged) <= 2
    else:
        rewritten = [p for p in Path(path).rglob(f"*_{res.instant}.parquet")]
        assert len(rewritten) == len(stats) == len(per_group)
    assert snapshot(path) == snapshot(plain)


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_keys_across_partitions_no_duplicates(spark, tmp_path, index):
    """Key i lives in eu or us; the upsert sends some keys to their own partition (updates) and some to
    the other one (a non-global index: new records there), and repeats keys within the input (combined)."""
    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ", index)
    write(spark.createDataFrame(rows(range(400), "a", 1), SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    up = [(i, f"b{i}", 2, "eu" if i % 2 else "us") for i in range(0, 400, 4)]
    moved = [(i, f"m{i}", 2, "us" if i % 2 else "eu") for i in range(1, 400, 8)]
    again = [(i, f"c{i}", 3, "eu" if i % 2 else "us") for i in range(0, 400, 8)]
    res = write(spark.createDataFrame(up + moved + again, SCHEMA).repartition(17), path, o)
    assert (res.updates, res.inserts) == (100, len(moved))
    t = read_table(path)
    pairs = list(zip(t.column("region").to_pylist(), t.column("id").to_pylist()))
    assert len(pairs) == len(set(pairs)) == 400 + len(moved)
    got = snapshot(path)
    assert got[("us", 0)] == "c0" and got[("us", 4)] == "b4" and got[("eu", 1)] == "a1" and got[("us", 1)] == "m1"


def test_driver_holds_no_keys(spark, tmp_path, monkeypatch):
    """The driver's index is per-file-group data (FileGroupIndex: GroupFacts, no key), its pickle does not
    grow with the rows, the driver-side key index is never built, and what the driver collects is per
    partition or per file group, never per key."""
    import hudi_log.table.write.client as client
    from hudi_log.table.write.key_lookup import FileGroupIndex, GroupFacts

    DataFrame = type(spark.range(0))  # Spark's classic DataFrame, whose collect the write calls
    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ")
    write(spark.createDataFrame(rows(range(3000), "a", 1), SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    seen, collected = [], []
    begin = client.begin_write

    def spy(*a, **k):
        tx = begin(*a, **k)
        seen.append(tx.context.index)
        return tx

    def no_driver_index(*a, **k):
        raise AssertionError("the driver built a key index")

    real_collect = DataFrame.collect

    def counting(self):
        out = real_collect(self)
        collected.append(len(out))
        return out

    monkeypatch.setattr(client, "begin_write", spy)
    monkeypatch.setattr(client, "build_index", no_driver_index)
    monkeypatch.setattr(DataFrame, "collect", counting)
    res = write(spark.createDataFrame(rows(range(0, 3000, 2), "b", 2), SCHEMA).repartition(8), path, o)
    assert res.updates == 1500
    (index,) = seen
    assert isinstance(index, FileGroupIndex) and all(type(g) is GroupFacts for g in index.groups)
    assert all(not isinstance(v, (list, tuple, pa.Array)) or len(v) <= len(index.groups) for v in vars(index).values())
    assert len(pickle.dumps(index)) < 400 * len(index.groups) + 4096  # ~a path per group, not 3000 keys
    groups = len(index.groups)
    assert collected and max(collected) <= max(groups * 2, 64)  # partitions, (partition, group) counts, slot keys


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_custom_timestamp_keys_tagged_in_executors_as_on_the_driver(spark, tmp_path, index):
    """A Custom key generator (a plain and a TimestampBased partition field) keys the rows in the executors'
    tagging exactly as write_table's driver-side index does: the same partition paths, no key twice."""
    schema = "id int, name string, ts long, day long, region string"
    arrow = pa.schema([("id", pa.int32()), ("name", pa.string()), ("ts", pa.int64()), ("day", pa.int64()),
                       ("region", pa.string())])
    tb = "hoodie.keygen.timebased."
    o = {**opts("MERGE_ON_READ", index), "hoodie.datasource.write.partitionpath.field": "region:simple,day:timestamp",
         "hoodie.datasource.write.keygenerator.type": "CUSTOM", tb + "timestamp.type": "EPOCHMILLISECONDS",
         tb + "output.dateformat": "yyyy/MM/dd", tb + "output.timezone": "UTC"}

    def data(ids, name, ts):
        return [(i, f"{name}{i}", ts, 1_705_000_000_000 + (i % 3) * 86_400_000, "eu" if i % 2 else "us") for i in ids]

    path, plain = str(tmp_path / "spark"), str(tmp_path / "plain")
    for batch, op in ((data(range(1200), "a", 1), "insert"), (data(range(0, 1500, 3), "b", 2), "upsert")):
        write(spark.createDataFrame(batch, schema).repartition(200), path, {**o, "hoodie.datasource.write.operation": op})
        write_table(plain, pa.Table.from_pylist([dict(zip(arrow.names, r)) for r in batch], arrow), op, o)

    def keyed(p):
        t = read_table(p)
        return collections.Counter(zip(t.column("_hoodie_partition_path").to_pylist(), t.column("id").to_pylist(),
                                       t.column("name").to_pylist()))

    got = keyed(path)
    assert got == keyed(plain) and max(got.values()) == 1 and len(got) == 1300
    assert got[("us/2024/01/11", 0, "b0")] == 1 and got[("eu/2024/01/12", 1, "a1")] == 1


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_new_keys_fill_the_small_files(spark, tmp_path, table_type):
    """Issue 17 item 3: an upsert's new keys go into the partitions' small file groups (room for all of
    them here), each group still written once, from a DataFrame of 200 partitions; the table then holds
    what the package's own write makes of the same input."""
    path, plain = str(tmp_path / "spark"), str(tmp_path / "plain")
    o = opts(table_type)
    first = rows(range(200), "a", 1)
    write(spark.createDataFrame(first, SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    write_table(plain, pa.Table.from_pylist([dict(zip(ARROW.names, r)) for r in first], ARROW), "insert", o)
    before = {s.file_id for s in HudiTable(path).view().latest_file_slices()}
    new = rows(range(1000, 1100), "n", 2)
    res = write(spark.createDataFrame(new, SCHEMA).repartition(200), path, o)
    write_table(plain, pa.Table.from_pylist([dict(zip(ARROW.names, r)) for r in new], ARROW), "upsert", o)
    stats = commit_stats(path, res.instant)
    assert res.inserts == 100 and {s["fileId"] for s in stats} <= before  # no new file group
    assert max(collections.Counter(s["fileId"] for s in stats).values()) == 1
    assert all(s["path"].endswith(".parquet") for s in stats)  # merged into the base files, MOR too
    assert snapshot(path) == snapshot(plain)


def test_keys_made_by_spark_expressions_are_the_key_generators(spark):
    """jvm_keys prints keys and partition paths exactly as the key generator's vectorized path does, for the
    generators and types it takes; it declines the others (they keep the Python pass)."""
    from hudi_log.spark.partitioner import jvm_keys
    from hudi_log.table.errors import RecordKeyError
    from hudi_log.table.write.keygen import KeyGenerator

    data = pa.table({"s": ["a", "ü/é", "", None, "x y", "..", "a=b"], "i": pa.array([1, -2, None, 0, 2**31 - 1, 5, 6], pa.int32()),
                     "l": pa.array([2**62, -1, 0, None, 7, 8, 9], pa.int64()), "b": [True, False, None, True, False, True, None],
                     "k": ["k0", "k1", "k2", "k3", "k4", "k5", "k6"], "d": [1.5, 2.0, 0.1, None, 1e20, 3.0, 4.0]})
    df = spark.createDataFrame(data.to_pandas().astype({"i": "Int32", "l": "Int64", "b": "boolean"}),
                               "s string, i int, l long, b boolean, k string, d double")
    arrow = df.toArrow()
    cases = [KeyGenerator("t", ("k",)), KeyGenerator("t", ("k",), ("s",)), KeyGenerator("t", ("i",), ("s",), hive_style=True),
             KeyGenerator("t", ("k",), ("s", "i", "b"), kind="COMPLEX"), KeyGenerator("t", ("l",), ("b", "l"), True, kind="COMPLEX"),
             KeyGenerator("t", ("b",), (), kind="NON_PARTITION")]
    for kg in cases:
        key, part = jvm_keys(df, kg, "upsert")
        got = df.select(key.alias("key"), part.alias("part")).toArrow()
        try:
            assert got.column("part").to_pylist() == kg.partition_path_array(arrow).to_pylist(), kg
        except RecordKeyError:  # a '..' segment: the profile refuses it from the Spark path's count
            assert ".." in got.column("part").to_pylist()[5].split("/")
        col = arrow.column(kg.record_key_fields[0])
        if col.null_count == 0 and "" not in col.cast(pa.string()).to_pylist():
            assert got.column("key").to_pylist() == kg.record_key_array(arrow).to_pylist(), kg
        else:  # the Python path refuses these rows; the profile refuses them from the Spark path's count
            assert any(v in (None, "") for v in got.column("key").to_pylist())
    declined = [KeyGenerator("t", ("d",)), KeyGenerator("t", ("k",), ("d",)), KeyGenerator("t", ("k", "s"), kind="COMPLEX"),
                KeyGenerator("t", ("k",), ("s",), url_encode=True), KeyGenerator("t", ("k",), kind="COMPLEX", field_prefixed=True),
                KeyGenerator("t", ("k",), ("l",), kind="TIMESTAMP", timestamp_fields=("l",))]
    assert [jvm_keys(df, kg, "upsert") for kg in declined] == [None] * len(declined)
    assert jvm_keys(df, KeyGenerator("t", ("k",)), "delete") is None


@pytest.mark.parametrize("bad, message", [((None, "eu"), "record key field 'id' is null or empty"),
                                          ((7, ".."), "partition path '..' .* has a segment '..' starting with '.'")])
def test_a_bad_key_made_by_spark_is_refused_before_anything_is_written(spark, tmp_path, bad, message):
    from hudi_log.table.errors import RecordKeyError

    path = str(tmp_path / "t")
    write(spark.createDataFrame(rows(range(10), "a", 1), SCHEMA), path, opts("MERGE_ON_READ"))
    before = snapshot(path)
    files = sorted(p.name for p in Path(path).rglob("*") if p.is_file() and ".hoodie" not in p.parts)
    df = spark.createDataFrame(rows(range(3), "b", 2) + [(bad[0], "x", 2, bad[1])], SCHEMA)
    cached = spark.sparkContext._jsc.getPersistentRDDs().size()
    with pytest.raises(RecordKeyError, match=message):
        write(df, path, opts("MERGE_ON_READ"))
    assert spark.sparkContext._jsc.getPersistentRDDs().size() == cached  # what the write persisted, released
    assert snapshot(path) == before
    assert sorted(p.name for p in Path(path).rglob("*") if p.is_file() and ".hoodie" not in p.parts) == files
    tl = Timeline(Path(path), read_properties(path))
    assert [i for i in tl.pending() if i.action == "deltacommit"] == []


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_a_key_in_two_groups_goes_to_the_one_it_lives_in(spark, tmp_path, index):
    """Key 1 is deleted from its first file group (a delete block over its base row) and inserted again into a
    new one: the Spark upsert's index (the join on hashes) must pick the group where it lives, as build_index
    does, else the update would land beside a deleted row and be lost."""
    path = str(tmp_path / "t")
    o = {**opts("MERGE_ON_READ", index), "hoodie.parquet.small.file.limit": "0"}
    as_table = lambda rs: pa.Table.from_pylist([dict(zip(ARROW.names, r)) for r in rs], ARROW)  # noqa: E731
    write_table(path, as_table([(i, f"a{i}", 1, "eu") for i in (1, 3, 5)]), "insert", o)
    write_table(path, as_table([(1, "a1", 2, "eu")]), "delete", o)
    write_table(path, as_table([(1, "again", 3, "eu")]), "insert", o)
    first, second = sorted({t.file_id for t in HudiTable(path).plan().tasks}, key=lambda f: f != _group_of(path, 3))
    assert _group_of(path, 1) == second != first
    res = write(spark.createDataFrame([(1, "updated", 4, "eu"), (3, "b3", 4, "eu")], SCHEMA).repartition(3), path, o)
    assert (res.updates, res.inserts) == (2, 0)
    got = snapshot(path)
    assert got[("eu", 1)] == "updated" and got[("eu", 3)] == "b3"
    assert sorted(read_table(path).column("id").to_pylist()) == [1, 3, 5]
    assert {s["fileId"] for s in commit_stats(path, res.instant)} == {first, second}


def _group_of(path, key: int) -> str:
    t = read_table(path)
    ids, files = t.column("id").to_pylist(), t.column("_hoodie_file_name").to_pylist()
    return files[ids.index(key)].split("_")[0]


JOIN_EXCHANGE = re.compile(r"hashpartitioning\(_hudi_log_h1#\d+L, _hudi_log_h2#\d+L, (\d+)\)")


def _upsert_plan(spark, tmp_path, monkeypatch, index: str, options: dict) -> str:
    """The physical plan of the tagged rows of a 134-row upsert (``options`` added) into a 400-row table."""
    import hudi_log.spark.partitioner as part

    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ", index)
    write(spark.createDataFrame(rows(range(400), "a", 1), SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    plans, real = [], part.tag

    def spy(df, ctx, tasks=None):
        out, key, held = real(df, ctx, tasks)
        plans.append(out._jdf.queryExecution().executedPlan().toString())
        return out, key, held

    monkeypatch.setattr(part, "tag", spy)
    res = write(spark.createDataFrame(rows(range(0, 400, 3), "b", 2), SCHEMA).repartition(7), path, {**o, **options})
    assert res.updates == 134
    assert snapshot(path)[("eu", 3)] == "b3"
    (plan,) = plans
    return plan


@pytest.mark.parametrize("given, parts", [({}, "3"), ({"hoodie.simple.index.parallelism": "5"}, "5")])
def test_the_index_join_shuffles_into_the_python_tasks_not_200(spark, tmp_path, monkeypatch, given, parts):
    """Both sides of SIMPLE's join (and its de-duplication of existing keys) are hash-partitioned once, into
    hudi_log.write.python.tasks partitions (or Java's hoodie.simple.index.parallelism): a map task then
    writes a few shuffle blocks, not spark.sql.shuffle.partitions (200 by default) of them, which cost more
    than the join itself."""
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "200")
    try:
        plan = _upsert_plan(spark, tmp_path, monkeypatch, "SIMPLE", {"hudi_log.write.python.tasks": "3", **given})
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
    # the incoming rows and the existing keys, each shuffled once
    assert JOIN_EXCHANGE.findall(plan) == [parts, parts], plan
    assert ", 200)" not in plan


def test_the_slot_keys_land_where_spark_hash_partitions_them(spark):
    """The routing hides each bucket's Spark partition in a long that repartition(n, col) sends there: found on
    the driver with Spark's Murmur3 of a long (seed 42) and pmod, checked against Spark itself."""
    import numpy as np
    from pyspark.sql import functions as F

    from hudi_log.spark.partitioner import _slot_keys, spark_hash_partition

    edge = [0, 1, -1, 2**31, -2**31, 2**32 + 5, 2**63 - 1, -2**63, 123456789012345]
    df = spark.createDataFrame([(v,) for v in edge], "v long").union(spark.range(3000).select(F.col("id").alias("v")))
    for n in (1, 3, 7, 200, 1000):
        got = df.select("v", F.pmod(F.hash("v"), F.lit(n)).alias("s")).collect()
        assert spark_hash_partition(np.array([r.v for r in got], np.int64), n).tolist() == [r.s for r in got], n
        keys = _slot_keys(n)
        placed = (spark.createDataFrame([(int(k),) for k in keys], "v long").repartition(n, "v")
                  .select(F.spark_partition_id().alias("p"), "v").collect())
        assert sorted((r.p, r.v) for r in placed) == [(i, int(keys[i])) for i in range(n)], n


@pytest.mark.parametrize("cached", [True, False])
def test_a_cached_input_is_not_persisted_again(spark, tmp_path, monkeypatch, cached):
    """A partitioned table's upsert reads its input three times (the partitions for pruning, the join, then the
    profile and the write from the joined rows, which are persisted): the input with its keys is persisted
    too, unless the user cached it and the keys are Spark expressions over it, when it would be a second
    copy of what Spark's cache holds. Everything persisted is released after the write."""
    DataFrame = type(spark.range(0))
    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ")
    write(spark.createDataFrame(rows(range(400), "a", 1), SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    df = spark.createDataFrame(rows(range(0, 600, 3), "b", 2), SCHEMA).repartition(7)
    if cached:
        df = df.cache()
        df.count()
    persisted, real = [], DataFrame.persist

    def spy(self, *a, **k):
        persisted.append(self)
        return real(self, *a, **k)

    monkeypatch.setattr(DataFrame, "persist", spy)
    held = spark.sparkContext._jsc.getPersistentRDDs().size()
    res = write(df, path, o)
    assert spark.sparkContext._jsc.getPersistentRDDs().size() == held
    assert (res.updates, res.inserts) == (134, 66)
    got = snapshot(path)
    assert got[("eu", 3)] == "b3" and got[("us", 2)] == "a2" and got[("us", 594)] == "b594" and len(got) == 466
    from hudi_log.spark.partitioner import ORDINAL, TAG_PARTITION

    keyed = df.columns + [TAG_PARTITION]
    want = [sorted(keyed + [ORDINAL])] + ([] if cached else [sorted(keyed)])
    assert sorted(sorted(f.columns) for f in persisted) == sorted(want)
    assert all(not f.is_cached for f in persisted)
    assert df.is_cached == cached


def test_the_index_join_hashes_within_a_memory_bound_else_sorts(spark, tmp_path, monkeypatch):
    """The index join is a shuffled hash join (no sort), its partitions sized so that none holds more existing
    keys than hudi_log.write.index.hash.join.keys, counted from the table's file bytes at 8 bytes a key (more
    partitions than the Python tasks where the table needs them); where Java's parallelism option pins fewer
    partitions than that bound needs, it is a sort-merge join, which spills instead."""
    import math

    tasks = {"hudi_log.write.python.tasks": "3"}
    plan = _upsert_plan(spark, tmp_path / "a", monkeypatch, "SIMPLE", tasks)
    assert "ShuffledHashJoin" in plan and "SortMergeJoin" not in plan, plan
    assert JOIN_EXCHANGE.findall(plan) == ["3", "3"]
    # the bound below what the table's files may hold: more partitions, still a hash join
    plan = _upsert_plan(spark, tmp_path / "b", monkeypatch, "SIMPLE", {**tasks, "hudi_log.write.index.hash.join.keys": "10000"})
    base = list((tmp_path / "b").rglob("*.parquet"))
    assert len({f.stem.rsplit("_", 1)[1] for f in base}) == 1  # the insert's files, as the upsert found them
    keys = sum(f.stat().st_size for f in base) // 8
    n = str(math.ceil(keys / 10000))
    assert int(n) > 3 and JOIN_EXCHANGE.findall(plan) == [n, n], (keys, plan)
    assert "ShuffledHashJoin" in plan
    plan = _upsert_plan(spark, tmp_path / "c", monkeypatch, "SIMPLE",
                        {**tasks, "hudi_log.write.index.hash.join.keys": "10000", "hoodie.simple.index.parallelism": "5"})
    assert "SortMergeJoin" in plan and "ShuffledHashJoin" not in plan and JOIN_EXCHANGE.findall(plan) == ["5", "5"]
    plan = _upsert_plan(spark, tmp_path / "d", monkeypatch, "SIMPLE", {**tasks, "hudi_log.write.index.hash.join.keys": "0"})
    assert "SortMergeJoin" in plan and JOIN_EXCHANGE.findall(plan) == ["3", "3"]


def test_bloom_index_parallelism_sets_its_shuffles(spark, tmp_path, monkeypatch):
    """Java's hoodie.bloom.index.parallelism: the candidates' shuffle by file group and the join's, both."""
    plan = _upsert_plan(spark, tmp_path, monkeypatch, "BLOOM", {"hoodie.bloom.index.parallelism": "5"})
    assert re.findall(r"hashpartitioning\(ordinal#\d+, (\d+)\)", plan) == ["5"], plan
    assert JOIN_EXCHANGE.findall(plan) == ["5", "5"], plan


@pytest.mark.parametrize("key", ["hoodie.simple.index.parallelism", "hudi_log.write.python.tasks",
                                 "hudi_log.write.shuffle.partitions", "hudi_log.write.task.max.rows"])
def test_a_bad_partitions_option_is_refused_and_rolled_back(spark, tmp_path, key):
    from hudi_log.table.errors import WriteError

    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ")
    write(spark.createDataFrame(rows(range(10), "a", 1), SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    before = snapshot(path)
    with pytest.raises(WriteError, match=re.escape(f"{key}='many'")):
        write(spark.createDataFrame(rows(range(5), "b", 2), SCHEMA), path, {**o, key: "many"})
    assert snapshot(path) == before
    assert not Timeline(path, read_properties(path)).pending()  # the aborted upsert is rolled back


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_a_delete_given_keys_only_finds_their_partitions(spark, tmp_path, index):
    """A delete DataFrame without the partition field: each key's partition is the one its group was found in
    (the index joins on the key alone), and an unknown key deletes nothing."""
    path = str(tmp_path / "t")
    o = opts("MERGE_ON_READ", index)
    write(spark.createDataFrame(rows(range(40), "a", 1), SCHEMA), path, {**o, "hoodie.datasource.write.operation": "insert"})
    gone = spark.createDataFrame([(i,) for i in (3, 4, 17, 1000)], "id int").repartition(3)
    res = write(gone, path, {**o, "hoodie.datasource.write.operation": "delete"})
    assert res.deletes == 3
    got = snapshot(path)
    assert len(got) == 37 and not {("eu", 3), ("us", 4), ("eu", 17)} & set(got)
