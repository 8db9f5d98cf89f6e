"""The write's workload profile and bucket placement (issue 17; hudi_log.spark.partitioner, no Spark):
every bucket goes to exactly one writer task; the tasks are few (2 x parallelism) unless the rows would
overload them; the largest buckets spread first, so the tasks get about equal rows."""

from __future__ import annotations

import collections

import numpy as np

from hudi_log.spark.partitioner import bucket_slots, make_profile


def counts(updates: dict[str, int], inserts: dict[str, int]):
    return [(f"p{i % 3}", fid, n) for i, (fid, n) in enumerate(updates.items())] + \
        [(p, None, n) for p, n in inserts.items()]


def test_one_bucket_per_touched_group_and_new_buckets_by_file_size():
    prof = make_profile(counts({"a": 10, "b": 5}, {"p1": 2500, "": 10}), "upsert", 1000)
    assert prof.updates == {"a": 10, "b": 5} and prof.inserts == {"p1": 2500, "": 10}
    assert prof.insert_buckets == {"p1": 3, "": 1} and prof.buckets == 6
    assert prof.tasks == 6  # no limit given: one Spark partition per bucket, as Java's UpsertPartitioner


def test_a_delete_of_unknown_keys_makes_no_bucket():
    prof = make_profile(counts({"a": 3}, {"p1": 7}), "delete", 1000)
    assert prof.inserts == {} and prof.buckets == 1


def test_tasks_are_few_unless_the_rows_would_overload_them():
    updates = {f"g{i:03d}": 1000 for i in range(377)}
    assert make_profile(counts(updates, {}), "upsert", 10**6, tasks=4).tasks == 4
    # 377,000 rows at most 50,000 a task: 8 tasks, not 4
    assert make_profile(counts(updates, {}), "upsert", 10**6, tasks=4, task_rows=50_000).tasks == 8
    # never more tasks than buckets; an explicit hudi_log.write.shuffle.partitions is the limit as given
    assert make_profile(counts({"a": 10**7}, {}), "upsert", 10**6, tasks=4, task_rows=10).tasks == 1
    assert make_profile(counts(updates, {}), "upsert", 10**6, 16, tasks=4, task_rows=10).tasks == 16


def test_buckets_spread_by_rows_each_to_one_task():
    rng = np.random.default_rng(7)
    updates = {f"g{i:03d}": int(n) for i, n in enumerate(rng.integers(1, 10_000, 300))}
    prof = make_profile(counts(updates, {"p0": 25_000}), "upsert", 10_000, tasks=8)
    slots = bucket_slots(prof)
    assert len(slots) == prof.buckets == 303 and set(slots.tolist()) == set(range(8))
    load = collections.Counter()
    for fid, t in zip(sorted(prof.updates), slots):
        load[int(t)] += prof.updates[fid]
    for t in slots[len(prof.updates):]:
        load[int(t)] += -(-25_000 // 3)
    assert max(load.values()) - min(load.values()) <= max(updates.values())  # greedy: within one bucket


def test_new_keys_fill_small_files_first():
    """Java's assignInserts in the profile: a partition's new keys go to its small files (joining the file
    group's bucket when it has updates) up to their room, then to new groups; MOR candidates are merged."""
    small = {"p1": [("a", 0), ("s", 900)]}
    prof = make_profile(counts({"a": 10}, {"p1": 25}), "upsert", 4, small=small, record_size=100, max_size=1000)
    assert prof.insert_plan == {"p1": [("a", 10), ("s", 1), (None, 4), (None, 4), (None, 4), (None, 2)]}
    assert prof.updates == {"a": 20, "s": 1} and prof.insert_buckets == {"p1": 4} and prof.buckets == 6
    assert prof.merge_file_ids == frozenset()
    mor = make_profile(counts({"a": 10}, {"p1": 25}), "upsert", 4, small=small, record_size=100, max_size=1000,
                       is_mor=True)
    assert mor.merge_file_ids == {"a", "s"}
    # the placement still puts every bucket (small-file ones are their group's) in one task
    assert len(bucket_slots(prof)) == prof.buckets


def test_bloom_range_step_takes_batches_in_chunks():
    """BLOOM's range step gathers Spark's Arrow batches into chunks of about EXPLODE_ROWS rows: same rows, order
    kept, each chunk one contiguous table."""
    import pyarrow as pa

    from hudi_log.spark.partitioner import _chunks

    batches = [pa.record_batch([pa.array([f"k{i}-{j}" for j in range(3)])], names=["k"]) for i in range(5)]
    chunks = list(_chunks(iter(batches), 7))
    assert [c.num_rows for c in chunks] == [9, 6]
    assert all(c.column(0).num_chunks == 1 for c in chunks)
    assert sum((c.column(0).to_pylist() for c in chunks), []) == [f"k{i}-{j}" for i in range(5) for j in range(3)]
    assert list(_chunks(iter([]), 7)) == []
