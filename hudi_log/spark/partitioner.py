"""Records tagged with their file group and partitioned by it, in Spark: Java's ``tagLocation`` (the
SIMPLE and BLOOM indexes, :mod:`hudi_log.table.write.key_lookup`) and ``UpsertPartitioner`` for
:func:`hudi_log.spark.write`.

1. Each row gets its record key and partition path (a ``mapInArrow`` with the table's key generator).
2. Index (upsert, delete): the distinct partition paths are collected (one row per partition: Java's
   ``affectedPartitionPathList``) and the driver's :class:`FileGroupIndex` is pruned to their file groups.
   SIMPLE reads every pruned group's keys in executors (one task per group) and joins them with the
   incoming (partition, key) pairs; BLOOM first reads the groups' key ranges from their footers (a Spark
   job; the driver keeps a (min, max) per group), explodes each incoming key into the groups whose range
   holds it, shuffles those pairs by group and checks them there against the bloom filter and the keys.
   A key found in several groups of its partition keeps the one build_index would choose (live, last).
3. Partitioner: the workload profile (rows per (partition, file group), inserts per partition; one row
   per group, collected) gives one bucket per touched file group and, per partition, ``ceil(inserts /
   records per file)`` buckets for new file groups (``WriteContext.records_per_file``: Java's
   ``hoodie.parquet.max.file.size`` / average record size). A new key's bucket is a hash of the key, so
   its rows meet in one task and are combined there (Spark's ``xxhash64``, in the JVM). The rows are
   shuffled so that each bucket is in exactly one Spark partition: the bucket's partition number is hidden
   in a key column whose Murmur3 hash (Spark's hash partitioning) lands on it, as Java's partitioner maps
   buckets to partitions directly.
   Java gives each bucket a partition of its own; here buckets share partitions when there are more of
   them than :data:`SHUFFLE_PARTITIONS_OPTION` allows (default: 2 x Spark's default parallelism, or more
   so that no task gets over :data:`TASK_ROWS_OPTION` rows; the largest bucket first to the least loaded
   partition), because each Python task costs a fixed round trip (measured in docs/benchmarks.md: 377
   one-group tasks on 2 cores took 16x Spark's Parquet write of the same rows). The Python passes before
   the shuffle likewise run in at most that many tasks (:data:`PYTHON_TASKS_OPTION`; ``coalesce``, which
   merges partitions without a shuffle), not in one per input partition.

So each file group is written by exactly one task: one log file per file group per commit on
MERGE_ON_READ, one rewrite per file group on COPY_ON_WRITE, whatever the input's partitioning. No key
reaches the driver: what it collects is per partition and per file group.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ..memory import tune_allocator
from ..paths import configure_storage, storage_options
from ..table.write.key_lookup import (
    FileGroupIndex, check_candidates, group_keys, key_ranges, lookup_keys, range_candidates,
)
from ..table.write.small_files import plan_inserts
from ..table.write.task import TAG_FILE_ID, TAG_PARTITION
from .sink import said

KEY = "_hudi_log_key"
SLOT = "_hudi_log_slot"
H1, H2, ORDINAL = "_hudi_log_h1", "_hudi_log_h2", "_hudi_log_ordinal"
#: the most Spark partitions the write shuffles into (default: :data:`PYTHON_TASKS_OPTION`'s). Java's
#: UpsertPartitioner makes one per bucket; here a task may write several file groups, each still once
#: (one log file per file group per commit), so that 377 file groups on 2 cores are 4 Python tasks, not 377
#: (more when the rows would exceed :data:`TASK_ROWS_OPTION` per task)
SHUFFLE_PARTITIONS_OPTION = "hudi_log.write.shuffle.partitions"
#: the most Spark partitions a Python pass over the rows (keys, routing) runs in (default: 2 x Spark's
#: default parallelism). Each Python task costs a fixed round trip that a JVM task does not, so 200 input
#: partitions on 2 cores are merged (``coalesce``: no shuffle) into 4 tasks, as many as keep every core busy
PYTHON_TASKS_OPTION = "hudi_log.write.python.tasks"
#: the default of :data:`SHUFFLE_PARTITIONS_OPTION` grows past 2 x parallelism so that no writer task gets
#: more than about this many rows (a task holds its rows in memory while it encodes them)
TASK_ROWS_OPTION = "hudi_log.write.task.max.rows"
TASK_ROWS_DEFAULT = 1_000_000
#: Java's options for the partitions of the index lookup's shuffle, by ``hoodie.index.type``
INDEX_PARALLELISM = {"SIMPLE": "hoodie.simple.index.parallelism", "BLOOM": "hoodie.bloom.index.parallelism"}
#: the most existing keys one partition of the index join may hold in memory, as the hash table of Spark's
#: shuffled hash join (no sort of either side; Spark does not spill that table). Counted from the bytes of
#: the files the keys are read from at :data:`KEY_BYTES_FLOOR` bytes a key, which no Hudi file beats, so the
#: real number is lower. Where the join's partitions would hold more (Java's parallelism option given too
#: small, sizes unknown) it is a sort-merge join. 0: always sort-merge
HASH_JOIN_KEYS_OPTION = "hudi_log.write.index.hash.join.keys"
HASH_JOIN_KEYS = 2_000_000
KEY_BYTES_FLOOR = 8


def whole_option(ctx, key: str, default: int) -> int:
    """Option ``key`` of the write, a whole number of partitions, tasks or rows (``default`` where unset); any
    other value is refused with a :class:`WriteError` naming the option (the write is then rolled back)."""
    from ..table.errors import WriteError
    from ..table.write.create import option

    value = str(option(ctx.options or {}, key, default=str(default))).strip()
    if not value.isdigit():
        raise WriteError(ctx.table_path, f"{key}={value!r}: give a whole number")
    return int(value)


def release(held) -> None:
    """Unpersist the frames :func:`partition_by_file_group` persisted."""
    for frame in held:
        frame.unpersist()


def index_parallelism(ctx, kind: str) -> int:
    """Java's ``hoodie.simple.index.parallelism`` / ``hoodie.bloom.index.parallelism``: the Spark partitions of
    the index's shuffle; 0 (Java 1.x's default): chosen from the workload (:func:`python_tasks`)."""
    return whole_option(ctx, INDEX_PARALLELISM[kind], 0) if kind in INDEX_PARALLELISM else 0


def python_tasks(spark, ctx) -> int:
    """The :data:`PYTHON_TASKS_OPTION` in force (0 or unset: 2 x Spark's default parallelism)."""
    return max(1, whole_option(ctx, PYTHON_TASKS_OPTION, 0) or 2 * spark.sparkContext.defaultParallelism)


def join_partitions(ctx, index: FileGroupIndex, given: int, tasks: int) -> tuple[int, bool]:
    """(the index join's partitions, whether it is a shuffled hash join): Java's parallelism where given, else
    the Python tasks, or more so that no partition's hash table exceeds :data:`HASH_JOIN_KEYS_OPTION` keys
    (estimated from the files' bytes); a hash join only where each partition stays within that."""
    cap = whole_option(ctx, HASH_JOIN_KEYS_OPTION, HASH_JOIN_KEYS)
    unknown = any(g.key_bytes <= 0 and (g.base_file or g.key_logs) for g in index.groups)
    keys = sum(g.key_bytes for g in index.groups) // KEY_BYTES_FLOOR
    n = given or max(tasks, -(-keys // cap) if cap and not unknown else 0)
    return n, bool(cap) and not unknown and keys <= cap * n


@dataclass(frozen=True)
class Profile:
    """Java's ``WorkloadProfile`` and the buckets made of it: per-file-group and per-partition facts."""
    updates: dict[str, int]  # file id -> rows (with the inserts given to it as a small file)
    inserts: dict[str, int]  # partition -> rows of new keys
    insert_buckets: dict[str, int]  # partition -> buckets of new file groups
    tasks: int  # Spark partitions written
    # partition -> its new keys' buckets in order: (small file id, rows) then (None, rows) per new group
    insert_plan: dict[str, list] = field(default_factory=dict)
    # MERGE_ON_READ file groups rewritten as small files (Java's "small file corrections")
    merge_file_ids: frozenset = frozenset()

    @property
    def buckets(self) -> int:
        return len(self.updates) + sum(self.insert_buckets.values())


def _strings(a) -> pa.Array:
    a = a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a
    return a.cast(pa.string()) if a.type != pa.string() else a


def _spark_type(schema: pa.Schema):
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def _col(name: str):
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def jvm_keys(df, kg, operation: str):
    """(record key, partition path) as Spark expressions, where they are exactly what the key generator's
    vectorized path computes (:class:`hudi_log.table.write.keygen.KeyGenerator`): one record-key field, not
    prefixed, and partition fields (Simple / Complex / NonPartitioned), all of string, integer or boolean
    type, whose text Spark's cast prints as Java's ``toString`` does; no URL encoding, no timestamp fields.
    None otherwise, and for deletes (the Python pass refuses a null key there, where the tagging would drop
    it). A null or empty key and a ``..`` segment are not refused here: :func:`profile` counts them and
    refuses the write before anything is written (:func:`refuse_bad_keys`)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType, ByteType, IntegerType, LongType, ShortType, StringType

    from ..table.write.keygen import DEFAULT_PARTITION

    texts = (StringType, ByteType, ShortType, IntegerType, LongType, BooleanType)
    types = {f.name: type(f.dataType) for f in df.schema.fields}
    fields = list(kg.record_key_fields) + list(kg.partition_fields)
    if (operation == "delete" or len(kg.record_key_fields) != 1 or kg.prefixes_single_field or kg.url_encode
            or kg.timestamp_fields or kg.kind not in ("SIMPLE", "COMPLEX", "NON_PARTITION")
            or any(types.get(f) not in texts for f in fields)):
        return None
    key = _col(kg.record_key_fields[0]).cast("string")
    segs = []
    for f in kg.partition_fields:
        t = _col(f).cast("string")
        seg = F.when(t.isNull() | (t == ""), F.lit(DEFAULT_PARTITION)).otherwise(t)
        segs.append(F.concat(F.lit(f"{f}="), seg) if kg.hive_style else seg)
    part = F.concat_ws("/", *segs) if segs else F.lit("")
    return key, part


def _is_cached(df) -> bool:
    level = df.storageLevel
    return bool(level.useMemory or level.useDisk)


def tag(df, ctx, tasks: int | None = None):
    """(``df`` with columns :data:`TAG_PARTITION` and :data:`ORDINAL`, the ordinal of the key's file group in
    ``ctx.index``, null where the key is not in the table; the record key, a Spark column of that frame).
    The keys are Spark expressions over ``df``'s own columns where they can be (:func:`jvm_keys`), else a
    :data:`KEY` column made in at most ``tasks`` Python tasks. The group stays an ordinal until the rows are
    routed: the joined rows are cached, and an int a row caches faster than a copy of the key and a
    36-character file id (1M rows: 2.9 s against 3.5 s for the join and its cache, measured)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    kg = ctx.keygen
    index: FileGroupIndex = ctx.index
    keys_only = ctx.operation == "delete" and any(f not in df.columns for f in kg.partition_fields)
    schema = StructType(df.schema.fields + [StructField(KEY, StringType()), StructField(TAG_PARTITION, StringType())])

    @said
    def add_keys(batches):
        for b in batches:
            # a partition path leading out or hidden is refused on the driver, by the profile (refuse_bad_keys)
            parts = pa.nulls(b.num_rows, pa.string()) if keys_only else _strings(kg.partition_path_array(b, False))
            yield b.append_column(KEY, _strings(kg.record_key_array(b))).append_column(TAG_PARTITION, parts)

    # coalesce merges partitions without a shuffle (and never makes more): 200 input partitions would each
    # write a file per shuffle partition of the join (40,000 files; 19 s against 1 s for 4 tasks, measured)
    merged = df if tasks is None else df.coalesce(tasks)
    jvm = jvm_keys(df, kg, ctx.operation)
    if jvm is not None:  # no Python pass over the rows: the JVM computes both, as Java's Spark key generators do
        keyed, key = merged.select("*", jvm[1].alias(TAG_PARTITION)), jvm[0]
    else:
        keyed, key = merged.mapInArrow(add_keys, schema), F.col(KEY)
    if ctx.operation not in ("upsert", "delete") or not len(index):
        return keyed.withColumn(ORDINAL, F.lit(None).cast("int")), key, []
    # an unpartitioned table has nothing to prune, and SIMPLE reads the keys without the rows: then the rows
    # are read once, by the join, and caching them (a copy of every row) would buy nothing; nor where the
    # input is already cached and its keys are Spark expressions over it (a scan of Spark's cache)
    given = index_parallelism(ctx, index.index_type)  # refused before anything is persisted
    prune = not keys_only and bool(kg.partition_fields)
    held = []
    if (prune or index.index_type != "SIMPLE") and (jvm is None or not _is_cached(df)):
        from pyspark import StorageLevel

        keyed = keyed.persist(StorageLevel.MEMORY_AND_DISK)  # read by the pruning, the lookup and the join
        held.append(keyed)
    if prune:  # partition pruning: one row per partition the records go to
        index = index.pruned(r[0] for r in keyed.select(TAG_PARTITION).distinct().collect())
    existing = _existing_keys(keyed, key, index, keys_only, given)
    # Both sides meet on a 128-bit hash of (partition, key) that Spark computes (two xxhash64 of the texts in
    # different orders), not on the strings: the existing side shrinks to four numbers a key before its
    # shuffle, and the de-duplication and the join's sort compare longs (measured at 10M rows, the string
    # aggregate and join took 54 of the upsert's 68 s of executor time). Two different keys share both
    # halves with a chance of about 2^-128 per pair.
    def hashed(key, part):
        if keys_only:
            return F.xxhash64(key).alias(H1), F.xxhash64(F.lit("\u0001"), key).alias(H2)
        return F.xxhash64(key, part).alias(H1), F.xxhash64(part, F.lit("\u0001"), key).alias(H2)

    # each group's partition by its ordinal (the existing keys come without it: fewer bytes from Python)
    groups = F.broadcast(keyed.sparkSession.createDataFrame(
        [(g.ordinal, g.partition) for g in index.groups], f"{ORDINAL} int, _found string"))
    existing = existing.join(groups, existing["ordinal"] == groups[ORDINAL])
    existing = existing.select(*hashed(F.col("key"), F.col("_found")), "live", "ordinal")
    # of a key's groups, the one build_index picks: live first, then the last group. (live, ordinal) packed
    # in one long, so that the aggregate keeps fixed-width buffers (a struct's max is an object aggregate)
    rank = F.col("live").cast("long") * F.lit(1 << 32) + F.col("ordinal").cast("long")
    # Both sides are hash-partitioned into as many Spark partitions as the Python passes run in (or Java's
    # hoodie.{simple,bloom}.index.parallelism, where given), not into spark.sql.shuffle.partitions (200 by
    # default): the aggregate and the join keep that partitioning, so each side is shuffled once, and a map
    # task writes a few shuffle blocks instead of 200 (measured at 1M keys on 2 cores: the existing keys'
    # shuffle took 1.3 s more into 200 partitions than into 8); more where the hash join's bound needs them
    n, hash_join = join_partitions(ctx, index, given, tasks or keyed.sparkSession.sparkContext.defaultParallelism)
    best = existing.repartition(n, H1, H2).groupBy(H1, H2).agg(F.max(rank).alias("m"))
    best = best.select(H1, H2, (F.col("m") % F.lit(1 << 32)).cast("int").alias(ORDINAL))
    incoming = keyed.select("*", *hashed(key, F.col(TAG_PARTITION))).repartition(n, H1, H2)
    # a hash join on the existing keys' side sorts neither side (10M rows: the join's stage 16.2 -> 12.6 s)
    tagged = incoming.join(best.hint("shuffle_hash") if hash_join else best, on=[H1, H2], how="left").drop(H1, H2)
    if keys_only:  # a delete given keys only goes to the partition where the key was found
        tagged = tagged.join(groups, on=ORDINAL, how="left")
        tagged = tagged.withColumn(TAG_PARTITION, F.coalesce(F.col("_found"), F.lit(""))).drop("_found")
    return tagged, key, held


#: rows of incoming keys BLOOM's range step takes at once
EXPLODE_ROWS = 262_144


def _chunks(batches, rows: int):
    """Spark's Arrow batches gathered into tables of about ``rows`` rows (the last one smaller)."""
    held, n = [], 0
    for b in batches:
        held.append(b)
        n += b.num_rows
        if n >= rows:
            yield pa.Table.from_batches(held).combine_chunks()
            held, n = [], 0
    if held:
        yield pa.Table.from_batches(held).combine_chunks()


def _groups_frame(spark, ordinals: list[int]):
    """One row per file group, one Spark partition per group (reading a group's keys is the unit of work)."""
    n = max(1, min(len(ordinals), spark.sparkContext.defaultParallelism * 4))
    return spark.createDataFrame([(int(o),) for o in ordinals], "ordinal int").repartition(n, "ordinal")


def _existing_keys(keyed, key, index: FileGroupIndex, keys_only: bool, parallelism: int = 0):
    """(key, live, ordinal) of the table's keys that may match the incoming ones (the group's id and partition
    come from its ordinal, on the Spark side). ``parallelism``: BLOOM's candidate shuffle's partitions
    (Java's ``hoodie.bloom.index.parallelism``; 0: one per group, up to 4 x Spark's parallelism)."""
    from pyspark.sql import functions as F

    from ..table.write.key_lookup import KEY_COLUMNS

    spark = keyed.sparkSession
    names = ["key", "live", "ordinal"]
    out_type = _spark_type(pa.schema([KEY_COLUMNS.field(n) for n in names]))
    store = storage_options()  # executors read the table's files: an s3:// table needs its fs.s3a.* options

    if index.index_type == "SIMPLE":
        @said
        def read_keys(batches):
            configure_storage(store)
            tune_allocator()  # one slice's memory reused by the next (hudi_log.memory)
            for b in batches:
                for o in b.column(0).to_pylist():
                    yield from group_keys(index, [o]).select(names).to_batches()

        return _groups_frame(spark, [g.ordinal for g in index.groups]).mapInArrow(read_keys, out_type)
    if index.index_type == "RECORD_INDEX":  # the incoming keys looked up where they are: no data file read
        @said
        def look_up(batches):
            configure_storage(store)
            for chunk in _chunks(batches, EXPLODE_ROWS):
                parts = None if keys_only else _strings(chunk.column(1))
                yield from lookup_keys(index, _strings(chunk.column(0)), parts).select(names).to_batches()

        return keyed.select(key.alias(KEY), TAG_PARTITION).where(F.col(KEY).isNotNull()).mapInArrow(look_up, out_type)
    # BLOOM: ranges from the footers (per group, to the driver), then candidates checked per group
    prunable = [g.ordinal for g in index.groups if g.prunable]

    @said
    def read_ranges(batches):
        configure_storage(store)
        for b in batches:
            found = key_ranges(index, b.column(0).to_pylist())
            os_ = list(found)
            yield pa.record_batch([pa.array(os_, pa.int32()), pa.array([found[o] and found[o][0] for o in os_], pa.string()),
                                   pa.array([found[o] and found[o][1] for o in os_], pa.string())],
                                  names=["ordinal", "lo", "hi"])

    rows = _groups_frame(spark, prunable).mapInArrow(read_ranges, "ordinal int, lo string, hi string").collect() \
        if prunable else []
    index = index.with_ranges({r[0]: (r[1], r[2]) if r[1] is not None else None for r in rows})

    def explode(batches):
        # range_candidates makes a few Arrow calls per group: over Spark's 10,000-row batches that is most
        # of its time, so the batches are taken EXPLODE_ROWS at a time
        for chunk in _chunks(batches, EXPLODE_ROWS):
            keys = _strings(chunk.column(0))
            at, ords = range_candidates(index, keys, None if keys_only else _strings(chunk.column(1)))
            found = pa.table([keys.take(pa.array(at)), pa.array(ords, pa.int32())], names=[KEY, "ordinal"])
            yield from found.to_batches()

    @said
    def check(batches):
        configure_storage(store)
        tune_allocator()
        table = pa.Table.from_batches(list(batches), schema=pa.schema([(KEY, pa.string()), ("ordinal", pa.int32())]))
        if not table.num_rows:
            return
        ords = table.column("ordinal").to_numpy()
        for o in np.unique(ords):
            yield from check_candidates(index, int(o), table.column(KEY).filter(pa.array(ords == o))).select(names).to_batches()

    n = parallelism or max(1, min(len(index), spark.sparkContext.defaultParallelism * 4))
    # a null key (refused later, by the profile) is in no file group
    pairs = keyed.select(key.alias(KEY), TAG_PARTITION).where(F.col(KEY).isNotNull()).mapInArrow(
        explode, f"{KEY} string, ordinal int")
    return pairs.repartition(n, "ordinal").mapInArrow(check, out_type)


def profile(tagged, key, ctx, max_tasks: int | None = None, *, tasks: int | None = None,
            task_rows: int = TASK_ROWS_DEFAULT) -> Profile:
    """The workload profile (Java's ``WorkloadProfile``) of ``tagged`` (:func:`tag`'s frame and key): one
    collected row per (partition, file group); see :func:`make_profile`."""
    from pyspark.sql import functions as F

    from ..containment import BAD_PARTITION_PATH

    part = F.coalesce(F.col(TAG_PARTITION), F.lit(""))
    bad_key = (key.isNull() | (key == "")).cast("long")
    bad_path = part.rlike(BAD_PARTITION_PATH).cast("long")
    rows = tagged.groupBy(TAG_PARTITION, ORDINAL).agg(F.count(F.lit(1)), F.sum(bad_key), F.sum(bad_path)).collect()
    refuse_bad_keys(ctx, rows)
    counts = [(r[0], None if r[1] is None else ctx.index.group(r[1]).file_id, r[2]) for r in rows]
    return make_profile(counts, ctx.operation, ctx.records_per_file, max_tasks, tasks=tasks, task_rows=task_rows,
                        small=ctx.small_files, record_size=ctx.record_size, max_size=ctx.max_file_size,
                        is_mor=ctx.properties.is_mor)


def refuse_bad_keys(ctx, rows) -> None:
    """The key generator's refusals, for keys made by Spark expressions (:func:`jvm_keys`): from the profile's
    rows (partition, file id, rows, null or empty keys, rows whose partition path
    :data:`~hudi_log.containment.BAD_PARTITION_PATH` refuses)."""
    from ..table.errors import RecordKeyError
    from ..table.write.keygen import partition_path_error

    empty = sum(int(r[3] or 0) for r in rows)
    if empty:
        raise RecordKeyError(ctx.table_path, f"{empty} row(s): record key field {ctx.keygen.record_key_fields[0]!r} "
                             "is null or empty")
    bad = [r[0] for r in rows if r[4]]
    if bad:
        raise partition_path_error(ctx.table_path, sorted(bad)[0], ctx.keygen.partition_fields)


def make_profile(counts, operation: str, records_per_file: int, max_tasks: int | None = None, *,
                 tasks: int | None = None, task_rows: int = TASK_ROWS_DEFAULT, small: dict | None = None,
                 record_size: int = 1024, max_size: int = 0, is_mor: bool = False) -> Profile:
    """Rows per touched file group and new-key rows per partition, from (partition, file id or None, rows);
    each partition's new keys fill its ``small`` files first (Java's ``assignInserts``,
    :mod:`hudi_log.table.write.small_files`). Spark partitions: one per bucket, at most ``max_tasks`` when
    given; else at most ``tasks``, or more where a task would get over ``task_rows`` rows."""
    updates: dict[str, int] = {}
    inserts: dict[str, int] = {}
    for part, fid, count in counts:
        if fid is not None:
            updates[fid] = count
        elif operation != "delete":  # a delete of an unknown key writes nothing
            inserts[part or ""] = inserts.get(part or "", 0) + count
    plan, merges = plan_inserts(inserts, small or {}, record_size, max_size, records_per_file, is_mor)
    for buckets_of in plan.values():
        for fid, k in buckets_of:
            if fid is not None:
                updates[fid] = updates.get(fid, 0) + k
    buckets = {p: sum(1 for fid, _ in b if fid is None) for p, b in plan.items()}
    n = max(1, len(updates) + sum(buckets.values()))
    if max_tasks:
        n = min(n, max_tasks)
    elif tasks:
        rows = sum(updates.values()) + sum(inserts.values())
        n = min(n, max(tasks, -(-rows // max(task_rows, 1))))
    return Profile(updates, inserts, buckets, n, plan, frozenset(merges & set(updates)))


def bucket_slots(prof: Profile) -> np.ndarray:
    """The Spark partition of each bucket (the updated file groups in file id order, then each partition's
    new-file buckets in partition order): the largest first, each to the partition with the fewest rows so
    far, so that the writer tasks get about equal work."""
    rows = [prof.updates[f] for f in sorted(prof.updates)]
    for p in sorted(prof.insert_buckets):
        if p in prof.insert_plan:
            rows += [k for fid, k in prof.insert_plan[p] if fid is None]
        else:
            rows += [-(-prof.inserts[p] // prof.insert_buckets[p])] * prof.insert_buckets[p]
    out = np.zeros(len(rows), np.int64)
    load = [(0, t) for t in range(prof.tasks)]
    for b in sorted(range(len(rows)), key=lambda b: (-rows[b], b)):
        w, t = heapq.heappop(load)
        out[b] = t
        heapq.heappush(load, (w + rows[b], t))
    return out


def spark_hash_partition(values: np.ndarray, n: int) -> np.ndarray:
    """The Spark partition ``repartition(n, col)`` puts each long of ``values`` in: ``pmod(hash(v), n)``, where
    ``hash`` is Spark's Murmur3 of a long (``Murmur3_x86_32.hashLong``, seed 42), computed here in numpy
    with Java's 32-bit wrap-around."""
    def rotl(x, r):
        return (x << np.uint32(r)) | (x >> np.uint32(32 - r))

    def mix(h, k):
        k = rotl(k * np.uint32(0xCC9E2D51), 15) * np.uint32(0x1B873593)
        return rotl(h ^ k, 13) * np.uint32(5) + np.uint32(0xE6546B64)

    v = np.asarray(values, np.int64).view(np.uint64)
    with np.errstate(over="ignore"):
        h = mix(np.full(v.shape, 42, np.uint32), (v & np.uint64(0xFFFFFFFF)).astype(np.uint32))
        h = mix(h, (v >> np.uint64(32)).astype(np.uint32)) ^ np.uint32(8)
        h = (h ^ (h >> np.uint32(16))) * np.uint32(0x85EBCA6B)
        h = (h ^ (h >> np.uint32(13))) * np.uint32(0xC2B2AE35)
        h = h ^ (h >> np.uint32(16))
    return h.view(np.int32).astype(np.int64) % n  # Python's and numpy's % are Spark's pmod for n > 0


def _slot_keys(n: int) -> np.ndarray:
    """For each Spark partition 0..n-1, a long whose Spark hash partitioning (:func:`spark_hash_partition`,
    what ``repartition(n, col)`` computes) lands on it: the smallest, found on the driver without a Spark job."""
    found = np.full(n, -1, np.int64)
    span = 64 * n
    for lo in range(0, 1 << 40, span):  # 64 draws per partition: a miss is (1-1/n)^(64n) ~ e^-64
        ids = np.arange(lo, lo + span, dtype=np.int64)
        slots = spark_hash_partition(ids, n)
        hit, first = np.unique(slots, return_index=True)  # each slot's smallest id in this span
        new = found[hit] < 0
        found[hit[new]] = ids[first[new]]
        if (found >= 0).all():
            return found
    raise RuntimeError("no hash key for a Spark partition")  # unreachable in practice


def partition_by_file_group(df, ctx):
    """(the rows to write, the :class:`Profile`, the frames persisted on the way, to unpersist after the write):
    ``df`` tagged and shuffled so that each bucket (a touched file group, or a new one) is in exactly one
    Spark partition; its extra columns :data:`TAG_FILE_ID` and :data:`TAG_PARTITION` go to the writer tasks."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    spark = df.sparkSession
    tasks = python_tasks(spark, ctx)
    cap = whole_option(ctx, SHUFFLE_PARTITIONS_OPTION, 0) or None
    task_rows = whole_option(ctx, TASK_ROWS_OPTION, TASK_ROWS_DEFAULT) or TASK_ROWS_DEFAULT
    tagged, key, held = tag(df, ctx, tasks)
    if ctx.operation == "delete":
        tagged = tagged.filter(F.col(ORDINAL).isNotNull())
    # the join's output has spark.sql.shuffle.partitions partitions, and a cached plan keeps them (AQE does
    # not merge them): merged here, the join, the cache and the routing run in as few tasks as the keys did
    tagged = tagged.coalesce(tasks).persist(StorageLevel.MEMORY_AND_DISK)  # read by the profile, then by the write
    held = [tagged, *held]
    try:
        prof = profile(tagged, key, ctx, cap, tasks=tasks, task_rows=task_rows)
    except BaseException:  # refused (a null or empty key, a ".." partition): nothing is left persisted
        release(held)
        raise
    ctx.merge_file_ids = prof.merge_file_ids  # the writer tasks rewrite these MOR groups (small files)
    keys = _slot_keys(prof.tasks)
    to_task = keys[bucket_slots(prof)]  # bucket -> the hash key of its Spark partition
    # Each row's bucket in Spark expressions (no Python pass over the rows): an update's is its file
    # group's; a new key's is found from r = pmod(xxhash64(key), the partition's new rows) among the
    # partition's buckets by their shares of those rows, as Java's getPartition weighs insert buckets
    # (one key, one bucket, so its rows meet in one task): a small file's bucket tags the row with that
    # file group (its rows then go with the group's updates), a new group's leaves it untagged. The small
    # tables join by broadcast.
    u, i, p, total, lo, hi, fnew = (f"_hudi_log_{c}" for c in ("u", "i", "p", "n", "lo", "hi", "fid"))
    routed = tagged
    fids = sorted(prof.updates)
    if prof.insert_plan:
        at_fid = {f: n for n, f in enumerate(fids)}
        at_new = len(fids)
        ranges = []
        for part in sorted(prof.insert_plan):
            start = 0
            for fid, k in prof.insert_plan[part]:
                if fid is None:
                    slot, at_new = int(to_task[at_new]), at_new + 1
                else:
                    slot = int(to_task[at_fid[fid]])
                ranges.append((part, int(prof.inserts[part]), start, start + k, fid, slot))
                start += k
        ins = spark.createDataFrame(ranges, f"{p} string, {total} long, {lo} long, {hi} long, {fnew} string, {i} long")
        # one broadcast join: each range row carries its partition's new rows, the modulus of r
        r = F.pmod(F.xxhash64(key), F.col(total))
        hit = (F.col(ORDINAL).isNull() & (F.coalesce(F.col(TAG_PARTITION), F.lit("")) == F.col(p))
               & (r >= F.col(lo)) & (r < F.col(hi)))
        routed = routed.join(F.broadcast(ins), hit, "left").drop(p, total, lo, hi)
    else:
        routed = routed.withColumn(i, F.lit(None).cast("long")).withColumn(fnew, F.lit(None).cast("string"))
    # an updated group's id and Spark partition by its ordinal (a small file's inserts have theirs from `ins`)
    ordinals = {g.file_id: g.ordinal for g in ctx.index.groups}
    upd = [(ordinals[f], f, int(to_task[n])) for n, f in enumerate(fids) if f in ordinals]
    if upd:
        upd = spark.createDataFrame(upd, f"{ORDINAL} int, {TAG_FILE_ID} string, {u} long")
        routed = routed.join(F.broadcast(upd), on=ORDINAL, how="left")
    else:
        routed = routed.withColumn(TAG_FILE_ID, F.lit(None).cast("string")).withColumn(u, F.lit(None).cast("long"))
    routed = routed.withColumn(TAG_FILE_ID, F.coalesce(F.col(TAG_FILE_ID), F.col(fnew))).drop(fnew)
    routed = routed.withColumn(SLOT, F.coalesce(F.col(u), F.col(i)))
    out = [c for c in tagged.columns if c not in (KEY, ORDINAL)] + [TAG_FILE_ID]
    routed = routed.repartition(prof.tasks, F.col(SLOT)).select(*out)
    return routed, prof, held


__all__ = ["PYTHON_TASKS_OPTION", "Profile", "SHUFFLE_PARTITIONS_OPTION", "TASK_ROWS_OPTION", "bucket_slots",
           "make_profile", "partition_by_file_group", "profile", "release", "tag"]
