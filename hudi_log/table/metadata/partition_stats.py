"""The metadata table's ``partition_stats`` partition: per data partition and indexed column, one record (type 6,
``ColumnStatsMetadata`` named by the partition path) aggregating the column's range over the partition.
As Hudi 1.1 writes it (the corpus's tables): Java's later ``PartitionStatsIndexer`` leaves out the file groups
the commit itself replaces, 1.1 counts them while the replacecommit is inflight.

Mirrors ``HoodieTableMetadataUtil.convertMetadataToPartitionStatRecords``: for each partition a commit writes,
the ranges of the commit's own files (as :mod:`.column_stats` computes them) and, when the table has a
``column_stats`` partition (``isShouldScanColStatsForTightBound``), the column_stats records of every other
file of the partition's latest file slices including the one being written (a file group the commit gives a
new base file starts a new slice: its older files no longer count; groups replaced by completed
replacecommits are gone), aggregated per column (``getColumnRangeInPartition``: widest range, counts and sizes
summed) into a tight-bound record that replaces the previous one. Without column_stats the record holds the
commit's files only, not tight bound, and readers widen the stored one with it (the merge rule is
:func:`.column_stats.merge_stats`). A ``DELETE_PARTITION`` replacecommit writes a tombstone per column of each
partition it drops. Key: column id + partition id; ``hoodie.metadata.index.partition.stats.file.group.count``
(1) file groups.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ...paths import AnyPath
from ..properties import TableProperties
from .change import DataChange, MetadataRecord
from .column_ranges import (ColumnRange, columns_to_index, from_payload, index_version, partition_range, stub,
                            to_payload)
from .column_stats import (PARTITION as COLUMN_STATS, commit_ranges, latest_file_ranges, merge_stats,
                           read_column_stats, writer_schema)
from .stats_keys import key_file_group, partition_stats_key

PARTITION = "partition_stats"
TYPE_PARTITION_STATS = 6
FIELD = "ColumnStatsMetadata"
FILE_GROUP_COUNT = "hoodie.metadata.index.partition.stats.file.group.count"
DEFAULT_FILE_GROUP_COUNT = 1
_WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")

merge = merge_stats  # the reader's and the metadata compaction's rule for this partition's records


def tight_bound(props: TableProperties) -> bool:
    """Java scans column_stats for a tight bound when the table lists that partition."""
    return COLUMN_STATS in {p for p in (props.get("hoodie.table.metadata.partitions") or "").split(",") if p}


def record(partition: str, r: ColumnRange, *, tight: bool, deleted: bool = False, version: int = 2) -> MetadataRecord:
    return MetadataRecord(partition_stats_key(r.column, partition),
                          {"type": TYPE_PARTITION_STATS,
                           FIELD: to_payload(r, deleted=deleted, tight=tight, version=version)})


def _slice_files(change: DataChange, partitions: set[str], written: dict[str, set[str]]) -> dict[str, set[str]]:
    """partition -> names of the files of its latest slices before this commit, less the slices of the file
    groups the commit gives a new base file (their latest slice is the new one)."""
    from ..timeline.timeline import Timeline
    from ..view.file_system_view import FileSystemView, parse_base_file_name

    timeline = Timeline(change.table_path, change.props)
    before = [i.requested_time for i in timeline.completed_commits() if i.requested_time < change.instant]
    out: dict[str, set[str]] = {p: set() for p in partitions}
    if not before:
        return out
    view = FileSystemView(change.table_path, change.props, timeline, as_of=before[-1],
                          options={"hoodie.metadata.enable": "false"})
    from pathlib import PurePosixPath
    for p in partitions:
        new_base_groups = {bf.file_id for n in written.get(p, ())
                           if (bf := parse_base_file_name(PurePosixPath(n), 0)) is not None}
        for g in view.file_groups.get(p, []):
            s = g.latest_slice
            if s is None or g.file_id in new_base_groups:
                continue
            out[p].update(([s.base_file.name] if s.base_file else []) + [lf.name for lf in s.log_files])
    return out


def records(change: DataChange) -> list[MetadataRecord]:
    version = index_version(change.props, change.table_path)
    if change.action not in _WRITE_ACTIONS:
        return []
    schema = writer_schema(change.metadata, change.props)
    columns = columns_to_index(change.props, schema, change.options, version)
    if not columns:
        return []
    if str(change.metadata.get("operationType") or "").upper() == "DELETE_PARTITION":
        return [record(p, stub("", c, version), tight=True, deleted=True, version=version)
                for p in (change.metadata.get("partitionToReplaceFileIds") or {}) for c in columns]
    new = commit_ranges(change, columns)
    if not new:
        return []
    written: dict[str, set[str]] = {}
    for p, f in new:
        written.setdefault(p, set()).add(f)
    per_partition: dict[str, list[ColumnRange]] = {p: [] for p in written}
    for (p, _), rs in new.items():
        per_partition[p] += rs
    tight = tight_bound(change.props)
    if tight:
        others = _slice_files(change, set(written), written)
        wanted = {f for p in others for f in others[p] - written[p]}
        if wanted:
            for rec in read_column_stats(change.table_path).values():
                r = from_payload(rec.get(FIELD) or {})
                if r.file_name in wanted and r.column in columns:
                    if r.kind.ordinal is None:
                        r = replace(r, kind=columns[r.column])
                    for p in others:
                        if r.file_name in others[p]:
                            per_partition[p].append(r)
    out = []
    for p, rs in sorted(per_partition.items()):
        agg = partition_range(p, rs, columns)
        out += [record(p, agg[c], tight=tight, version=version) for c in columns if c in agg]
    return out


def bootstrap(table_path: AnyPath, props: TableProperties, options: Mapping) -> list[MetadataRecord]:
    """Every partition's range over the files of its latest slices (``convertFilesToPartitionStatsRecords``); a
    non-partitioned table has none (Java does not initialise the partition for it)."""
    if not props.partition_fields:
        return []
    version, columns, files = latest_file_ranges(table_path, props, options)
    per_partition: dict[str, list[ColumnRange]] = {}
    for p, ranges in files:
        per_partition.setdefault(p, []).extend(ranges)
    out = []
    for p, rs in sorted(per_partition.items()):
        agg = partition_range(p, rs, columns)
        out += [record(p, agg[c], tight=True, version=version) for c in columns if c in agg]
    return out


def file_group_count(record_count: int, options: Mapping) -> int:
    return int((options or {}).get(FILE_GROUP_COUNT) or DEFAULT_FILE_GROUP_COUNT)


def file_group_index(key: str, count: int) -> int:
    return key_file_group(key, count)
