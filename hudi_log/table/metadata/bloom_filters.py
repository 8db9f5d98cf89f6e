"""The metadata table's ``bloom_filters`` partition: one record (type 4, ``BloomFilterMetadata``) per base file,
holding the record-key bloom filter of the file's footer.

Mirrors ``HoodieTableMetadataUtil.convertMetadataToBloomFilterRecords`` and
``HoodieMetadataPayload.createBloomFilterMetadataRecord``: for each base file a commit writes, the footer's
``org.apache.hudi.bloomfilter`` string (``serializeToString``, Base64) as UTF-8 bytes, the type of
``hoodie.bloom.index.filter.type`` (``DYNAMIC_V0``), the commit's instant as ``timestamp``, ``isDeleted``
false; a file without a footer filter gets no record (Java logs and goes on). A clean writes a tombstone per
deleted base file (type "", empty bytes, ``isDeleted``). Log files get none. Key: partition id + file id
(:mod:`.stats_keys`); ``hoodie.metadata.index.bloom.filter.file.group.count`` (4) file groups by Java's
``String.hashCode``. Records merge as the newer wins (a tombstone drops the entry when read).
"""

from __future__ import annotations

from typing import Mapping

from ...containment import within_table
from ...format.content.bloom import FOOTER_KEY, OLD_FOOTER_KEY, OPT_TYPE, DYNAMIC_V0
from ...parquet_io import read_parquet_metadata
from ...paths import AnyPath
from ..properties import TableProperties
from .change import DataChange, MetadataRecord
from .column_ranges import ColumnStatsError
from .column_stats import cleaned_files, write_stat_files
from .stats_keys import bloom_filter_key, key_file_group

PARTITION = "bloom_filters"
TYPE_BLOOM_FILTER = 4
FIELD = "BloomFilterMetadata"
FILE_GROUP_COUNT = "hoodie.metadata.index.bloom.filter.file.group.count"
DEFAULT_FILE_GROUP_COUNT = 4
_WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")
_BASE_SUFFIXES = (".parquet", ".orc", ".hfile")


def footer_filter(path) -> bytes | None:
    """The footer's serialized filter (its UTF-8 bytes), or None when the file has none."""
    try:
        md = read_parquet_metadata(path).metadata or {}
    except Exception as e:  # the Parquet library's errors, named once here
        raise ColumnStatsError(path, f"base file footer unreadable: {type(e).__name__}: {e}") from e
    value = md.get(FOOTER_KEY.encode()) or md.get(OLD_FOOTER_KEY.encode())
    return bytes(value) if value else None


def record(partition: str, file_name: str, instant: str, filter_type: str, data: bytes,
           deleted: bool = False) -> MetadataRecord:
    return MetadataRecord(bloom_filter_key(partition, file_name),
                          {"type": TYPE_BLOOM_FILTER,
                           FIELD: {"type": filter_type, "timestamp": instant, "bloomFilter": data,
                                   "isDeleted": deleted}})


def _file_record(table_path, partition: str, name: str, instant: str, options: Mapping) -> MetadataRecord | None:
    if not name.endswith(".parquet"):
        return None
    path = within_table(table_path, f"{partition}/{name}" if partition else name, source=table_path,
                        field="partitionToWriteStats.path", timeline=False)
    data = footer_filter(path)
    if data is None:
        return None
    return record(partition, name, instant, str((options or {}).get(OPT_TYPE) or DYNAMIC_V0), data)


def records(change: DataChange) -> list[MetadataRecord]:
    if change.action in _WRITE_ACTIONS:
        out = [_file_record(change.table_path, p, f, change.instant, change.options)
               for p, f in write_stat_files(change.metadata)]
        return [r for r in out if r is not None]
    if change.action == "clean":
        return [record(p, name, change.instant, "", b"", deleted=True)
                for p, name in cleaned_files(change.metadata) if name.endswith(_BASE_SUFFIXES)]
    return []


def bootstrap(table_path: AnyPath, props: TableProperties, options: Mapping) -> list[MetadataRecord]:
    """The latest base file of every file group (``initializeBloomFiltersPartition``), stamped with its instant."""
    from ..timeline.timeline import Timeline
    from ..view.file_system_view import FileSystemView

    view = FileSystemView(table_path, props, Timeline(table_path, props), options={"hoodie.metadata.enable": "false"})
    out = [_file_record(table_path, s.partition, s.base_file.name, s.base_file.instant, options)
           for s in view.latest_file_slices() if s.base_file is not None]
    return [r for r in out if r is not None]


def file_group_count(record_count: int, options: Mapping) -> int:
    return int((options or {}).get(FILE_GROUP_COUNT) or DEFAULT_FILE_GROUP_COUNT)


def file_group_index(key: str, count: int) -> int:
    return key_file_group(key, count)


def merge(old: dict | None, new: dict) -> dict:
    """``HoodieMetadataPayload`` for bloom filter records: the newer one (a tombstone included) wins."""
    return new


def live(records_by_key: Mapping[str, dict]) -> dict[str, dict]:
    """The records a reader sees (the later record of a key wins, the reader's default; tombstones dropped)."""
    return {k: r for k, r in records_by_key.items() if not (r.get(FIELD) or {}).get("isDeleted")}
