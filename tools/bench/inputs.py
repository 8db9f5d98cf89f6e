"""Inputs of the benchmark suite, all made by hudi-log's own writer.

* ``make_table``: a MERGE_ON_READ table (version 6, hive-style partitions by city) whose file groups
  are log-only: a first deltacommit inserts every record as Avro data blocks of ``block_records``
  records, a second one appends updates of a fraction of them (another Avro block) and deletes (a
  delete block), so a snapshot read merges. hudi-rs reads it (tests/test_bench.py checks the counts).
* ``trip_columns``: the quickstart-trips-like records (ts, uuid, rider, driver, fare, city) as Arrow
  columns, built without a Python dict per record.
* the ~1 GB log file of the framing scan comes from ``tools/bench/framing.py`` (``write_file``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from hudi_log.log.append_handle import AppendHandle, schema_json
from hudi_log.table.write.create import create_table, write_partition_metadata
from hudi_log.table.timeline.writer import TimelineWriter

TABLE_NAME = "bench_trips"
TABLE = {
    "type": "record", "name": f"{TABLE_NAME}_record", "namespace": f"hoodie.{TABLE_NAME}",
    "fields": [
        {"name": "ts", "type": ["null", "long"], "default": None},
        {"name": "uuid", "type": ["null", "string"], "default": None},
        {"name": "rider", "type": ["null", "string"], "default": None},
        {"name": "driver", "type": ["null", "string"], "default": None},
        {"name": "fare", "type": ["null", "double"], "default": None},
        {"name": "city", "type": ["null", "string"], "default": None},
    ],
}
CITIES = ("san_francisco", "sao_paulo", "chennai", "new_york")
DELTACOMMIT = "deltacommit"


def trip_columns(idx, ts_shift: int = 0) -> pa.Table:
    """The records numbered ``idx`` (a range or list); record i lives in city ``CITIES[i % 4]``."""
    return pa.table({
        "ts": pa.array([1695046462179 + i + ts_shift for i in idx], pa.int64()),
        "uuid": pa.array([f"{i:08d}-8f2c-4a4b-9d53-1c6f0e9b{i % 10000:04d}" for i in idx], pa.string()),
        "rider": pa.array([f"rider-{chr(65 + i % 26)}" for i in idx], pa.string()),
        "driver": pa.array([f"driver-{chr(75 + i % 13)}" for i in idx], pa.string()),
        "fare": pa.array([10.0 + (i % 1000) / 10 + ts_shift for i in idx], pa.float64()),
        "city": pa.array([CITIES[i % len(CITIES)] for i in idx], pa.string()),
    })


def _file_id(partition: int, group: int) -> str:
    return f"{partition:08x}-b3c5-4d2e-9f10-{group:012x}-0"


def make_table(base: Path, records: int, block_records: int = 10_000, groups_per_partition: int = 2,
               update_every: int = 10, delete_every: int = 100) -> dict:
    """Write the table; returns what a snapshot read must give (row count) and its layout."""
    base = Path(base)
    props = create_table(base, {
        "hoodie.table.name": TABLE_NAME, "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": "6",
        "hoodie.datasource.write.recordkey.field": "uuid", "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.hive_style_partitioning": "true",
    }, schema=TABLE)
    timeline = TimelineWriter(base, props)
    # record i -> partition i % 4, file group (i // 4) % groups_per_partition
    groups: dict[tuple[int, int], list[int]] = {}
    for i in range(records):
        groups.setdefault((i % len(CITIES), (i // len(CITIES)) % groups_per_partition), []).append(i)

    def commit(instant: str, stats: list) -> None:
        by_partition: dict = {}
        for s in stats:
            by_partition.setdefault(s.partition_path, []).append(s.hudi_write_stat())
        timeline.complete(DELTACOMMIT, instant, {
            "partitionToWriteStats": by_partition, "compacted": False,
            "extraMetadata": {"schema": schema_json(TABLE)}, "operationType": "UPSERT",
        })

    def handle(p: int, g: int, instant: str, base_instant: str) -> AppendHandle:
        partition = f"city={CITIES[p]}"
        write_partition_metadata(base, partition, base_instant)
        return AppendHandle(str(base), partition, _file_id(p, g), instant, TABLE, "uuid",
                            table_version=6, base_instant=base_instant)

    first = timeline.new_instant_time()
    timeline.requested(DELTACOMMIT, first)
    timeline.inflight(DELTACOMMIT, first)
    stats, blocks = [], 0
    for (p, g), rows in sorted(groups.items()):
        h = handle(p, g, first, first)
        taken = trip_columns(rows)
        for start in range(0, len(rows), block_records):
            h.write_all(taken.slice(start, block_records), is_update=False)
            h.flush()  # one Avro block per block_records records
            blocks += 1
        stats.append(h.close())
    commit(first, stats)

    second = timeline.new_instant_time()
    timeline.requested(DELTACOMMIT, second)
    timeline.inflight(DELTACOMMIT, second)
    stats, updated, deleted = [], 0, 0
    for (p, g), rows in sorted(groups.items()):
        ups = [i for i in rows if i % update_every == 0 and i % delete_every != 0]
        dels = [i for i in rows if i % delete_every == 0]
        if not ups and not dels:
            continue
        h = handle(p, g, second, first)
        if ups:
            h.write_all(trip_columns(ups, ts_shift=1))
        for key in trip_columns(dels).column("uuid").to_pylist():
            h.delete(key, ordering_value=0)
        updated += len(ups)
        deleted += len(dels)
        stats.append(h.close())
    commit(second, stats)
    info = {"records": records, "expected_rows": records - deleted, "updated": updated, "deleted": deleted,
            "file_groups": len(groups), "insert_blocks": blocks, "instants": [first, second]}
    (base / "bench-table.json").write_text(json.dumps(info))
    return info
