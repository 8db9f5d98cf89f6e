"""The ``files`` partition's builder: the records Java's ``HoodieTableMetadataUtil`` makes of each data action.

* commit, deltacommit, replacecommit (``convertMetadataToFilesPartitionRecords``): one ``__all_partitions__``
  record (type 1) naming every partition the commit wrote to, and per partition one record (type 2) mapping
  each file written to its size (``fileSizeInBytes``; a file met twice keeps the larger, CDC files too). Files
  of replaced file groups stay listed until a clean deletes them, as in Java.
* clean (``convertMetadataToFilesPartitionRecords(HoodieCleanMetadata)``): per partition the deleted files
  (``deletePathPatterns``) marked ``isDeleted``; partitions the clean deleted whole, marked deleted in
  ``__all_partitions__``.
* rollback: on table version 6 (Hudi 0.14/0.15 and 1.x's version-six writer) the log files the rollback
  appended to and the failed commit's log files, with sizes (``processRollbackMetadata``); the failed commit's
  own metadata deltacommit is rolled back by the writer. From version 8 on a rollback adds no record: the
  writer rolls the metadata deltacommit back instead (``HoodieBackedTableMetadataWriter.update(rollback)``).
* restore (any version): the files its rollbacks deleted, marked ``isDeleted``, and the log files they appended
  to (the listing stays right even where the restored instants' metadata deltacommits were compacted; from
  version 8 on the writer also rolls those deltacommits back, for the other partitions).

A non-partitioned table's partition is named ``.`` (``getPartitionIdentifier``). The partition has one file
group (Java's ``files`` partition always has one).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from ...paths import AnyPath
from ..metadata_files import ALL_PARTITIONS_KEY, NON_PARTITIONED_NAME, TYPE_FILE_LIST, TYPE_PARTITION_LIST
from ..properties import TableProperties
from .change import DataChange, MetadataRecord

PARTITION = "files"
_COMMIT_ACTIONS = frozenset({"commit", "deltacommit", "replacecommit"})


def partition_identifier(partition: str) -> str:
    """``HoodieTableMetadataUtil.getPartitionIdentifier``: the root partition is ``.``."""
    return partition or NON_PARTITIONED_NAME


def _name(path: str) -> str:
    return str(path).rstrip("/").rsplit("/", 1)[-1]


def partition_list_record(partitions: Iterable[str], deleted: bool = False) -> MetadataRecord:
    """``HoodieMetadataPayload.createPartitionListRecord``."""
    return MetadataRecord(ALL_PARTITIONS_KEY, {"type": TYPE_PARTITION_LIST, "filesystemMetadata": {
        partition_identifier(p): {"size": 0, "isDeleted": deleted} for p in partitions}})


def partition_files_record(partition: str, added: Mapping[str, int], deleted: Iterable[str] = ()) -> MetadataRecord:
    """``HoodieMetadataPayload.createPartitionFilesRecord``: added files with sizes, deleted ones flagged."""
    files = {name: {"size": int(size), "isDeleted": False} for name, size in added.items()}
    files.update({name: {"size": 0, "isDeleted": True} for name in deleted})
    return MetadataRecord(partition_identifier(partition), {"type": TYPE_FILE_LIST, "filesystemMetadata": files})


def _commit_records(md: Mapping) -> list[MetadataRecord]:
    by_partition = md.get("partitionToWriteStats") or {}
    out = [partition_list_record(by_partition)]
    for part, stats in by_partition.items():
        sizes: dict[str, int] = {}
        for s in stats or []:
            if not s.get("path"):  # an empty partition's stat (Java logs and skips it)
                continue
            name = _name(s["path"])
            sizes[name] = max(sizes.get(name, 0), int(s.get("fileSizeInBytes") or 0))
            for cdc, size in (s.get("cdcStats") or {}).items():
                sizes[_name(cdc)] = int(size)
        out.append(partition_files_record(part, sizes))
    return out


def _clean_records(md: Mapping) -> list[MetadataRecord]:
    out, gone = [], []
    for part, pm in (md.get("partitionMetadata") or {}).items():
        files = pm.get("deletePathPatterns")
        if files is None:
            files = pm.get("successDeleteFiles") or []
        out.append(partition_files_record(part, {}, [_name(f) for f in files]))
        if pm.get("isPartitionDeleted"):
            gone.append(part)
    if gone:
        out.append(partition_list_record(gone, deleted=True))
    return out


def _rollback_appended(md: Mapping, into: dict[str, dict[str, int]]) -> None:
    for pm in (md.get("partitionMetadata") or {}).values():
        logs = pm.get("rollbackLogFiles") or {}
        if not logs:
            continue
        sizes = into.setdefault(pm.get("partitionPath") or "", {})
        for path, size in list(logs.items()) + list((pm.get("logFilesFromFailedCommit") or {}).items()):
            sizes[_name(path)] = max(sizes.get(_name(path), 0), int(size or 0))


def _rollback_records(md_list: Iterable[Mapping], deletes: bool = False) -> list[MetadataRecord]:
    appended: dict[str, dict[str, int]] = {}
    deleted: dict[str, set[str]] = {}
    for md in md_list:
        _rollback_appended(md, appended)
        if deletes:
            for pm in (md.get("partitionMetadata") or {}).values():
                deleted.setdefault(pm.get("partitionPath") or "", set()).update(
                    _name(f) for f in pm.get("successDeleteFiles") or [])
    out = []
    for p in sorted(set(appended) | set(deleted)):
        gone = deleted.get(p, set()) - set(appended.get(p, {}))
        out.append(partition_files_record(p, appended.get(p, {}), sorted(gone)))
    return out


def records(change: DataChange) -> list[MetadataRecord]:
    md = change.metadata
    if change.action in _COMMIT_ACTIONS:
        return _commit_records(md)
    if change.action == "clean":
        return _clean_records(md)
    if change.action == "restore":
        return _rollback_records((rm for rms in (md.get("hoodieRestoreMetadata") or {}).values() for rm in rms or []),
                                 deletes=True)
    if change.action == "rollback" and change.props.version < 8:  # from 8 on: the writer's instant rollback alone
        return _rollback_records([md])
    return []


def bootstrap(table_path: AnyPath, props: TableProperties, options: Mapping) -> list[MetadataRecord]:
    """Every partition and committed file as storage holds them (``initializeFromFilesystem``): files of
    instants not completed on the data timeline are left out (a log file from version 8 on is named by its
    own instant; a version-6 log file by its base instant, and is kept)."""
    from ..metadata_files import storage_listing
    from ..timeline.timeline import Timeline
    from ..view.file_system_view import BASE_FILE_RE, LOG_FILE_RE

    done = {i.requested_time for i in Timeline(table_path, props).completed()}
    listing = storage_listing(table_path)
    out = [partition_list_record(listing)]
    for part, files in sorted(listing.items()):
        kept = {}
        for name, size in files.items():
            b, lg = BASE_FILE_RE.match(name), LOG_FILE_RE.match(name)
            instant = b.group(3) if b else (lg.group(2) if lg and props.version >= 8 else None)
            if instant is None or instant in done:
                kept[name] = size
        out.append(partition_files_record(part, kept))
    return out


def file_group_count(record_count: int, options: Mapping) -> int:
    return 1


def file_group_index(key: str, count: int) -> int:
    return 0
