"""The metadata table's ``column_stats`` partition: one record (type 3, ``ColumnStatsMetadata``) per indexed
column of every data file written, and the merge rule its readers and compaction share.

Mirrors ``HoodieTableMetadataUtil.convertMetadataToColumnStatsRecords`` (a commit: each write stat's file, a
base file's footer statistics or, for a log file, the stats of the records the commit wrote to it, never tight
bound), its clean counterpart (a tombstone per indexed column of each file the clean names, ``deletePathPatterns``:
``isDeleted``, counts -1) and ``HoodieMetadataPayload.mergeColumnStatsRecords`` (a tombstone on either side:
the newer record; a tight-bound newer record replaces; else the wider range and the counts summed; a deleted
record is dropped when read). Keys: column id + partition id + file id (:mod:`.stats_keys`), spread over
``hoodie.metadata.index.column.stats.file.group.count`` (2) file groups by Java's ``String.hashCode``.
A rollback or restore adds no record here: Java rolls back the metadata deltacommit of the undone commit
instead (the metadata table's own rollback).
"""

from __future__ import annotations

from collections import OrderedDict
import json
from typing import Mapping

from ...paths import AnyPath
from ..metadata_files import merge_column_stats
from ..properties import TableProperties
from .change import DataChange, MetadataRecord
from .column_ranges import ColumnRange, ValueKind, columns_to_index, file_ranges, index_version, stub, to_payload
from .stats_keys import column_stats_key, key_file_group

PARTITION = "column_stats"
TYPE_COLUMN_STATS = 3
FIELD = "ColumnStatsMetadata"
FILE_GROUP_COUNT = "hoodie.metadata.index.column.stats.file.group.count"
DEFAULT_FILE_GROUP_COUNT = 2
_WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")


def writer_schema(change_metadata: Mapping, props: TableProperties) -> dict | None:
    """The data fields' Avro schema of a commit (``extraMetadata.schema``; the table's create schema when the
    commit has none, as Java falls back)."""
    text = (change_metadata.get("extraMetadata") or {}).get("schema") or props.get("hoodie.table.create.schema")
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def record(r: ColumnRange, partition: str, *, deleted: bool = False, version: int = 2) -> MetadataRecord:
    return MetadataRecord(column_stats_key(r.column, partition, r.file_name),
                          {"type": TYPE_COLUMN_STATS, FIELD: to_payload(r, deleted=deleted, version=version)})


def write_stat_files(metadata: Mapping) -> list[tuple[str, str]]:
    """(partition, file name) of every file a commit's write stats name."""
    out = []
    for partition, stats in (metadata.get("partitionToWriteStats") or {}).items():
        for ws in stats or []:
            path = ws.get("path")
            if path and path != "null":
                out.append((ws.get("partitionPath") if ws.get("partitionPath") is not None else partition,
                            path.rsplit("/", 1)[-1]))
    return out


_RANGES: OrderedDict = OrderedDict()  # the last commits' file ranges: column_stats and partition_stats both need them


def commit_ranges(change: DataChange, columns: Mapping[str, ValueKind]) -> dict[tuple[str, str], list[ColumnRange]]:
    """(partition, file name) -> the ranges of each file a commit wrote (a file's ranges for an instant do not
    change: kept for the other builder of the same commit)."""
    version = index_version(change.props, change.table_path)
    out = {}
    for p, f in write_stat_files(change.metadata):
        key = (str(change.table_path), p, f, change.instant, tuple(columns.items()), version)
        if key not in _RANGES:
            _RANGES[key] = file_ranges(change.table_path, p, f, change.instant, columns, version)
            while len(_RANGES) > 4096:
                _RANGES.popitem(last=False)
        out[(p, f)] = _RANGES[key]
    return out


def records(change: DataChange) -> list[MetadataRecord]:
    version = index_version(change.props, change.table_path)
    if change.action in _WRITE_ACTIONS:
        schema = writer_schema(change.metadata, change.props)
        columns = columns_to_index(change.props, schema, change.options, version)
        return [record(r, p, version=version) for (p, _), rs in commit_ranges(change, columns).items() for r in rs]
    if change.action == "clean":
        return clean_records(change)
    return []


def clean_records(change: DataChange) -> list[MetadataRecord]:
    """A tombstone per indexed column of each file the clean deleted."""
    from ..schema import current_schema
    from ..timeline.timeline import Timeline

    version = index_version(change.props, change.table_path)
    schema = current_schema(change.props, Timeline(change.table_path, change.props))
    columns = columns_to_index(change.props, schema, change.options, version)
    out = []
    for partition, name in cleaned_files(change.metadata):
        out += [record(stub(name, c, version), partition, deleted=True, version=version) for c in columns]
    return out


def cleaned_files(metadata: Mapping) -> list[tuple[str, str]]:
    """(partition, file name) of each file a clean names: its ``deletePathPatterns``, as Java's indexes read
    them (``successDeleteFiles`` where a clean has no patterns)."""
    out = []
    for partition, pm in (metadata.get("partitionMetadata") or {}).items():
        pm = pm or {}
        paths = pm.get("deletePathPatterns")
        for path in (paths if paths is not None else pm.get("successDeleteFiles")) or []:
            out.append((partition, path.rsplit("/", 1)[-1]))
    return out


def latest_file_ranges(table_path: AnyPath, props: TableProperties, options: Mapping):
    """(index version, columns, [(partition, ranges of one file)]) over every file of the table's latest slices,
    listed from storage: what a partition's initialisation indexes (``initializeColumnStats`` and the partition
    stats made of it)."""
    from ..schema import current_schema
    from ..timeline.timeline import Timeline
    from ..view.file_system_view import FileSystemView

    timeline = Timeline(table_path, props)
    version = index_version(props, table_path)
    columns = columns_to_index(props, current_schema(props, timeline), options, version)
    view = FileSystemView(table_path, props, timeline, options={"hoodie.metadata.enable": "false"})
    out = []
    for s in view.latest_file_slices():
        for name in ([s.base_file.name] if s.base_file else []) + [lf.name for lf in s.log_files]:
            out.append((s.partition, file_ranges(table_path, s.partition, name, None, columns, version)))
    return version, columns, out


def bootstrap(table_path: AnyPath, props: TableProperties, options: Mapping) -> list[MetadataRecord]:
    """Every file of the latest slices, as ``initializeColumnStats`` indexes an existing table."""
    version, _, files = latest_file_ranges(table_path, props, options)
    return [record(r, p, version=version) for p, ranges in files for r in ranges]


def file_group_count(record_count: int, options: Mapping) -> int:
    return int((options or {}).get(FILE_GROUP_COUNT) or DEFAULT_FILE_GROUP_COUNT)


def file_group_index(key: str, count: int) -> int:
    return key_file_group(key, count)


# --- HoodieMetadataPayload's rule for types 3 and 6: one function, metadata_files.merge_column_stats ---------

merge_stats = merge_column_stats
merge = merge_stats  # each stats builder module's ``merge``: the rule readers and the metadata compaction apply


def live(records: Mapping[str, dict]) -> dict[str, dict]:
    """The records a reader sees: tombstones dropped (``getInsertValue`` of a deleted entry is empty)."""
    return {k: r for k, r in records.items() if not (r.get(FIELD) or {}).get("isDeleted")}


def read_column_stats(table_path, partition: str = PARTITION, keys=None) -> dict[str, dict]:
    """The live records of the data table's ``column_stats`` (or ``partition_stats``) partition, merged as
    Java merges them."""
    from ..metadata_files import read_partition_records

    recs, _ = read_partition_records(table_path, partition, merge=merge_stats, keys=keys)
    return live(recs)
