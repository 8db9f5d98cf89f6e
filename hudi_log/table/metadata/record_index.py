"""The metadata table's ``record_index`` partition: record key -> (partition, file id), as Java keeps it.

Mirrors Hudi 1.1 (``BaseRecordIndexer``, ``HoodieTableMetadataUtil.convertMetadataToRecordIndexRecords``,
``BaseFileRecordParsingUtils``, ``HoodieMetadataPayload.createRecordIndexUpdate``), whose records the corpus's
metadata tables hold (table versions 8 and 9 alike):

* **Records** (type 5, ``recordIndexMetadata``): the data partition, the file id as a UUID's two signed 64-bit
  halves and the ``-N`` file index (``fileIdEncoding`` 0, Java's default ``hoodie.write.record.index.fileid.encoding``;
  ``fileId`` empty), ``instantTime`` the instant parsed as milliseconds since the epoch in the table's timeline
  timezone (``hoodie.table.timeline.timezone``: UTC, or LOCAL, Java's default: this process's zone), and
  ``position`` null (Java 1.x writes none). A delete is a delete-block entry (``MetadataRecord(key, None)``:
  Java's ``EmptyHoodieRecordPayload``).
* **Per commit** (commit, deltacommit, replacecommit; compaction and log compaction add nothing): for each
  file group the commit wrote, a new base file's keys not in its previous base file (``prevBaseFile``) are
  inserts at the new location, the previous file's keys not in the new one deletes; an update in place writes
  nothing. Log files: a key live in the file group's merged slice before the commit and not after is
  deleted, one not live before (a log had deleted it) and live after is revived at the file group; a log
  write stat counting inserts is refused, as Java refuses it. (Java computes the same from the stat's
  log files alone, which for a key deleted in a log and written back into the same file group by a SIMPLE
  or BLOOM write, where the base file still holds it, revives nothing and leaves the key out of the
  index; hudi-log reads the slice, so the key is found where it lives.) Insert overwrite: the keys of the partitions' latest base files that the commit
  did not write again are deleted (insert_overwrite_table: by key alone; delete_partition: all). A key both
  deleted and inserted keeps the insert (``reduceByKeys``). Clustering writes new base files: every key moves.
* **Clean, rollback, restore**: nothing here (Java undoes a rolled-back commit by rolling back its metadata
  deltacommit).
* **Initialisation** (:func:`bootstrap`): every live key of the latest slices, at its slice's base instant
  (a key in several slices: the newest slice's).
* **Sizing** (:func:`file_group_count`): ``HoodieTableMetadataUtil.estimateFileGroupCount`` with 48 bytes a
  record and ``hoodie.metadata.record.index.{min,max}.filegroup.count`` (10, 10000),
  ``...max.filegroup.size`` (1 GiB), ``...growth.factor`` (2.0).
* **Mapping** (:func:`file_group_index`): ``mapRecordKeyToFileGroupIndex``, Java's ``String.hashCode`` over
  UTF-16 code units, ``abs(abs(h) % n)``, into the file groups sorted by file id.

The partitioned record index of Hudi 1.1 (``hoodie.metadata.record.level.index.enable``, default false; an
index definition with ``isPartitioned`` true) is refused by name, as is a table without meta fields.
:func:`lookup_record_index` reads only the file groups the keys map to.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import uuid
from typing import Iterable, Mapping

from ...paths import AnyPath, as_path
from ..metadata_files import metadata_path, read_partition_records
from ..properties import TableProperties, read_properties
from ..timeline.timeline import Timeline
from .change import DataChange, MetadataRecord
from .data_files import (IndexBuildError, base_keys, before, data_file, indexed_write_stats, is_log_path, option,
                         ordered_logs, pending_other_than, slice_state, storage_view)

PARTITION = "record_index"
TYPE_RECORD_INDEX = 5
#: Java's per-record size estimate for sizing the partition (bytes)
AVERAGE_RECORD_SIZE = 48
MIN_COUNT = ("hoodie.metadata.record.index.min.filegroup.count", "hoodie.metadata.global.record.level.index.min.filegroup.count")
MAX_COUNT = ("hoodie.metadata.record.index.max.filegroup.count", "hoodie.metadata.global.record.level.index.max.filegroup.count")
MAX_SIZE = ("hoodie.metadata.record.index.max.filegroup.size",)
GROWTH = ("hoodie.metadata.record.index.growth.factor",)
#: the partitioned record index's switch (Hudi 1.1's name, and the one it had before its release)
PARTITIONED = ("hoodie.metadata.record.level.index.enable", "hoodie.metadata.partitioned.record.index.enable")
INDEX_DEFS = "hoodie.table.index.defs.path"
#: a file id without a ``-N`` index (HoodieMetadataPayload's RECORD_INDEX_MISSING_FILEINDEX_FALLBACK)
MISSING_FILE_INDEX = -1
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


class RecordIndexError(IndexBuildError):
    """The record index cannot be kept or read as Java keeps it (names the table, file or key and why)."""


# ---- Java's mapping and sizing ---------------------------------------------------------------------------
def java_string_hash(s: str) -> int:
    """``String.hashCode``: 31-polynomial over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def map_key_to_file_group(key: str, count: int) -> int:
    """``HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex``: ``abs(abs(h) % count)`` (Java's abs of
    Integer.MIN_VALUE stays negative, and its remainder keeps the sign: the same as Python's on ``abs``)."""
    if count <= 0:
        raise ValueError(f"a metadata partition has {count} file groups")
    return abs(java_string_hash(key)) % count


def file_group_index(key: str, count: int) -> int:
    return map_key_to_file_group(key, count)


def file_group_indexes(keys, count: int):
    """:func:`map_key_to_file_group` of many keys at once: the hash runs over all keys' UTF-16 code units one
    position at a time (numpy, wrapping uint32 arithmetic as Java's int)."""
    import numpy as np

    if count <= 0:
        raise ValueError(f"a metadata partition has {count} file groups")
    enc = [k.encode("utf-16-be", "surrogatepass") for k in keys]
    lens = np.fromiter((len(e) // 2 for e in enc), np.int64, len(enc))
    units = np.frombuffer(b"".join(enc), ">u2").astype(np.uint32)
    starts = np.cumsum(lens) - lens
    h = np.zeros(len(enc), np.uint32)
    for j in range(int(lens.max(initial=0))):
        m = lens > j
        h[m] = h[m] * np.uint32(31) + units[starts[m] + j]
    signed = h.astype(np.int64)
    signed[signed >= 1 << 31] -= 1 << 32
    return np.abs(signed) % count


def estimate_file_group_count(record_count: int, average_record_size: int, min_count: int, max_count: int,
                              growth: float, max_size: int) -> int:
    """``HoodieTableMetadataUtil.estimateFileGroupCount`` (Java float arithmetic for the growth)."""
    if min_count == max_count and min_count != 0:
        return min_count
    import numpy as np

    expected = math.ceil(float(np.float32(np.float32(record_count) * np.float32(growth))))
    per_group = max_size // max(average_record_size, 1)
    estimated = expected // per_group if per_group else max_count
    if estimated >= max_count:
        return max_count
    if estimated <= min_count:
        return min_count
    return max(1, int(estimated))


def file_group_count(record_count: int, options: Mapping) -> int:
    return estimate_file_group_count(
        record_count, AVERAGE_RECORD_SIZE, int(option(options, *MIN_COUNT[:1], 10, *MIN_COUNT[1:])),
        int(option(options, *MAX_COUNT[:1], 10000, *MAX_COUNT[1:])), float(option(options, GROWTH[0], 2.0)),
        int(option(options, MAX_SIZE[0], 1 << 30)))


# ---- the record ----------------------------------------------------------------------------------------
def instant_millis(instant: str, props: TableProperties | Mapping | None = None) -> int:
    """``HoodieMetadataPayload.parseRecordIndexInstantTime``: yyyyMMddHHmmss[SSS] (no millis: 999) in the
    table's timeline timezone, as milliseconds since the epoch."""
    text = str(instant)
    if len(text) == 14 and text.isdigit():
        text += "999"
    if len(text) != 17 or not text.isdigit():
        raise RecordIndexError(instant, "is not an instant time (yyyyMMddHHmmssSSS)")
    get = props.get if props is not None else (lambda k, d=None: d)
    utc = str(get("hoodie.table.timeline.timezone", "LOCAL") or "LOCAL").upper() == "UTC"
    try:
        t = datetime.datetime.strptime(text, "%Y%m%d%H%M%S%f")
    except ValueError as e:
        raise RecordIndexError(instant, f"is not an instant time: {e}") from e
    t = t.replace(tzinfo=datetime.timezone.utc) if utc else t.astimezone()  # naive: this process's zone
    return (t - _EPOCH) // datetime.timedelta(milliseconds=1)


def _signed64(v: int) -> int:
    return v - (1 << 64) if v & (1 << 63) else v


def location_payload(partition: str, file_id: str, instant_ms: int) -> dict:
    """A ``HoodieRecordIndexInfo`` with Java's file-id encoding 0 (``{uuid}`` or ``{uuid}-{index}``)."""
    try:
        head, tail = (file_id, None) if len(file_id) == 36 else file_id.rpartition("-")[::2]
        if not _UUID.match(head):
            raise ValueError(file_id)
        u, index = uuid.UUID(head), MISSING_FILE_INDEX if tail is None else int(tail)
        if not -(1 << 31) <= index < (1 << 31):
            raise ValueError(file_id)
    except ValueError as e:
        raise RecordIndexError(file_id, f"is not a UUID-based file id (partition {partition!r}): Java's record "
                               "index encodes only those by default") from e
    return {"type": TYPE_RECORD_INDEX, "recordIndexMetadata": {
        "partitionName": partition, "fileIdHighBits": _signed64(u.int >> 64),
        "fileIdLowBits": _signed64(u.int & ((1 << 64) - 1)), "fileIndex": index, "fileId": "",
        "instantTime": int(instant_ms), "fileIdEncoding": 0, "position": None}}


def decode_location(payload: Mapping) -> tuple[str, str]:
    """(partition, file id) of a record index payload (``getLocationFromRecordIndexInfo``)."""
    info = payload.get("recordIndexMetadata") or {}
    if info.get("fileIdEncoding") == 1:
        return info.get("partitionName") or "", info.get("fileId") or ""
    u = uuid.UUID(int=((info["fileIdHighBits"] & ((1 << 64) - 1)) << 64) | (info["fileIdLowBits"] & ((1 << 64) - 1)))
    fid = str(u) if info.get("fileIndex") == MISSING_FILE_INDEX else f"{u}-{info['fileIndex']}"
    return info.get("partitionName") or "", fid


def _updates(keys, partition: str, file_id: str, instant_ms: int) -> list[MetadataRecord]:
    """Entries of ``keys`` at one location: one payload shared by all (read, never changed, by the writer)."""
    payload = location_payload(partition, file_id, instant_ms)
    return [MetadataRecord(k, payload) for k in keys]


# ---- what the table allows ---------------------------------------------------------------------------
def index_definitions(table_path, props: TableProperties | Mapping) -> dict:
    """The table's index definitions (``hoodie.table.index.defs.path``, ``.hoodie/.index_defs/index.json``):
    index name -> definition; {} where the table has none."""
    rel = props.get(INDEX_DEFS) if props is not None else None
    if not rel:
        return {}
    path = data_file_defs(table_path, rel)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    try:
        defs = json.loads(text).get("indexDefinitions") or {}
    except (ValueError, AttributeError) as e:
        raise RecordIndexError(path, f"index definitions unreadable: {e}") from e
    if not isinstance(defs, dict):
        raise RecordIndexError(path, "indexDefinitions is not an object")
    return defs


def data_file_defs(table_path, rel: str):
    from ...containment import within_table

    return within_table(table_path, rel, source=as_path(table_path) / ".hoodie" / "hoodie.properties", field=INDEX_DEFS)


def check_supported(table_path, props: TableProperties, options: Mapping | None = None) -> None:
    """Refuses, by name, a record index hudi-log cannot keep as Java does: the partitioned record index, and a
    table without meta fields (its keys are not in the files)."""
    d = index_definitions(table_path, props).get(PARTITION) or {}
    partitioned = str((d.get("indexOptions") or {}).get("isPartitioned", "false")).lower() == "true"
    if partitioned or any(str(option(options, k, "false")).lower() == "true" for k in PARTITIONED):
        raise RecordIndexError(table_path, "the partitioned record index (Hudi 1.1's hoodie.metadata.record.level."
                               "index.enable) is not maintained by hudi-log; use the global record index")
    if str(props.get("hoodie.populate.meta.fields", "true")).lower() == "false":
        raise RecordIndexError(table_path, "hoodie.populate.meta.fields=false: the record index needs the "
                               "_hoodie_record_key column in the data files")


# ---- per commit ----------------------------------------------------------------------------------------
def _partitions_base_keys(change: DataChange, timeline: Timeline, partitions) -> dict[tuple[str, str], str]:
    """(partition, key) -> file id over the latest base files of ``partitions`` before the commit."""
    as_of = before(timeline, change.instant)
    if as_of is None:
        return {}
    view = storage_view(change.table_path, change.props, timeline, as_of)
    out = {}
    for p in partitions:
        for g in view.file_groups.get(p or "", []):
            s = g.latest_slice
            if s is not None and s.base_file is not None:
                for k in base_keys(s.base_file.path):
                    out[(p or "", k)] = g.file_id
    return out


def _reduce(records: list[MetadataRecord]) -> list[MetadataRecord]:
    """``reduceByKeys``: of a key's records, an update beats a delete; two updates are an error."""
    if len({r.key for r in records}) == len(records):
        return records
    out: dict[str, MetadataRecord] = {}
    for r in records:
        old = out.get(r.key)
        if old is None or old.payload is None:
            out[r.key] = r if old is None or r.payload is not None else old
        elif r.payload is not None:
            raise RecordIndexError(r.key, "two record index updates for one key in one commit "
                                   f"({decode_location(old.payload)} and {decode_location(r.payload)})")
    return list(out.values())


def records(change: DataChange) -> list[MetadataRecord]:
    """The record index records of one data action (see the module's rules)."""
    stats = indexed_write_stats(change, RecordIndexError, "the record index")
    if stats is None:
        return []
    md = change.metadata
    op = str(md.get("operationType") or "").upper()
    check_supported(change.table_path, change.props, change.options)
    base = as_path(change.table_path)
    source = f"commit {change.instant}"
    timeline = Timeline(base, change.props)
    skip = pending_other_than(timeline, change.instant)
    ms = instant_millis(change.instant, change.props)
    as_of = before(timeline, change.instant)
    slices: dict = {}

    def previous() -> dict:  # the file groups' merged slices before the commit (read once, when a log asks)
        if not slices and as_of is not None:
            view = storage_view(base, change.props, timeline, as_of)
            slices.update({(sl.partition, sl.file_id): sl for sl in view.latest_file_slices()})
            slices.setdefault(None, None)
        return slices
    by_fid: dict[str, list[dict]] = {}
    for s in stats:
        by_fid.setdefault(s.get("fileId") or "", []).append(s)
    out: list[MetadataRecord] = []
    written: set[tuple[str, str]] = set()  # (partition, key) an overwrite wrote again
    overwrite = op in ("INSERT_OVERWRITE", "INSERT_OVERWRITE_TABLE", "DELETE_PARTITION")
    for fid, ss in by_fid.items():
        bases = [s for s in ss if not is_log_path(s.get("path") or "")]
        logs = [s for s in ss if is_log_path(s.get("path") or "")]
        if bases and logs:
            raise RecordIndexError(base, f"commit {change.instant} wrote both a base file and log files to file "
                                   f"group {fid}")
        for s in bases:
            part = s.get("partitionPath") or ""
            new = base_keys(data_file(base, s["path"], source=source, field="partitionToWriteStats.path"))
            if overwrite:
                written.update((part, k) for k in new)
            prev = set()
            if s.get("prevBaseFile"):
                rel = f"{part}/{s['prevBaseFile']}" if part else s["prevBaseFile"]
                prev = base_keys(data_file(base, rel, source=source, field="partitionToWriteStats.prevBaseFile"))
            out.extend(_updates(new - prev, part, fid, ms))
            out.extend(MetadataRecord(k, None) for k in prev - new)
        if logs:
            part = logs[0].get("partitionPath") or ""
            current = [data_file(base, s["path"], source=source, field="partitionToWriteStats.path") for s in logs]
            sl = previous().get((part, fid))
            prev_base = sl.base_file.path if sl is not None and sl.base_file is not None else None
            prev_logs = [lf.path for lf in sl.log_files] if sl is not None else []
            was = slice_state(base, prev_base, prev_logs, upto=as_of, skip=skip) if sl is not None else {}
            now = slice_state(base, prev_base, ordered_logs([*prev_logs, *current]), upto=change.instant, skip=skip)
            out.extend(_updates(now.keys() - was.keys(), part, fid, ms))  # revived
            out.extend(MetadataRecord(k, None) for k in was.keys() - now.keys())
    out = _reduce(out)
    replaced = md.get("partitionToReplaceFileIds") or {}
    if overwrite and replaced:
        old = _partitions_base_keys(change, timeline, replaced)
        if op == "INSERT_OVERWRITE":
            gone = {k for (p, k) in old if (p, k) not in written}
        elif op == "INSERT_OVERWRITE_TABLE":
            kept = {k for (_, k) in written}
            gone = {k for (_, k) in old if k not in kept}
        else:
            gone = {k for (_, k) in old}
        out.extend(MetadataRecord(k, None) for k in sorted(gone))
    return out


# ---- initialisation ----------------------------------------------------------------------------------
def bootstrap(table_path: AnyPath, props: TableProperties, options: Mapping, as_of: str | None = None
              ) -> list[MetadataRecord]:
    """Every live key of the latest file slices (as of the data instant ``as_of``, None: now) at its slice's
    location and base instant (``readRecordKeysFromFileSliceSnapshot``)."""
    check_supported(table_path, props, options)
    timeline = Timeline(as_path(table_path), props)
    view = storage_view(table_path, props, timeline, as_of)
    skip = pending_other_than(timeline, "")
    newest: dict[str, dict] = {}
    # a key in several slices (Java's insert operation wrote it twice): the newest slice's, as the index Java
    # keeps by commits names the last insert
    for s in sorted(view.latest_file_slices(), key=lambda s: (s.base_instant, s.partition, s.file_id)):
        keys = slice_state(table_path, s.base_file.path if s.base_file else None,
                           [lf.path for lf in s.log_files], upto=as_of, skip=skip)
        payload = location_payload(s.partition, s.file_id, instant_millis(s.base_instant, props))
        newest.update(dict.fromkeys(keys, payload))
    return [MetadataRecord(k, p) for k, p in newest.items()]


# ---- lookup --------------------------------------------------------------------------------------------
def _sorted_file_ids(table_path, partition: str) -> list[str]:
    """A metadata partition's file group ids, sorted: the order Java maps keys into."""
    from ..view.file_system_view import FileSystemView

    root = metadata_path(table_path)
    props = read_properties(root)
    view = FileSystemView(root, props, Timeline(root, props))
    return sorted(g.file_id for g in view.file_groups.get(partition, []) if g.latest_slice is not None)


def lookup_record_index(table_path, keys: Iterable[str]) -> dict[str, tuple[str, str]]:
    """key -> (partition, file id) for the ``keys`` the record index holds, reading only the record index's
    file groups the keys map to (Java's ``HoodieBackedTableMetadata.readRecordIndexLocations``)."""
    wanted = {k for k in keys if k is not None}
    if not wanted:
        return {}
    props = read_properties(table_path)
    if PARTITION not in (props.get("hoodie.table.metadata.partitions") or "").split(","):
        raise RecordIndexError(table_path, "the table has no record index (hoodie.table.metadata.partitions "
                               "does not list record_index)")
    ids = _sorted_file_ids(table_path, PARTITION)
    if not ids:
        raise RecordIndexError(metadata_path(table_path) / PARTITION, "the record index has no file groups")
    groups = {ids[int(i)] for i in set(file_group_indexes(sorted(wanted), len(ids)).tolist())}
    recs, _ = read_partition_records(table_path, PARTITION, keys=wanted, file_ids=groups)
    out = {}
    for k, rec in recs.items():
        if rec.get("type") != TYPE_RECORD_INDEX:
            raise RecordIndexError(metadata_path(table_path) / PARTITION, f"key {k!r} holds a record of type "
                                   f"{rec.get('type')}, not a record index entry")
        out[k] = decode_location(rec)
    return out
