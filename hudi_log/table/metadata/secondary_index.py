"""The metadata table's secondary indexes (``secondary_index_<name>``): secondary key -> record keys, as Java keeps them.

Mirrors Hudi 1.1 (``SecondaryIndexer``, ``SecondaryIndexRecordGenerationUtils``, ``SecondaryIndexKeyUtils``,
``HoodieMetadataPayload.createSecondaryIndexRecord``), whose records the corpus's metadata tables hold:

* **Definition**: the table's index definitions (``hoodie.table.index.defs.path``) name the partition's one
  source field (``sourceFields``), its function (``identity``; an expression index is refused by name) and
  its version (``V1``, or ``V2`` from table version 9 on; absent: by the table's version).
* **Key**: ``escape(secondary key) + "$" + escape(record key)``, where ``\\``, ``$`` and NUL are escaped with
  ``\\`` and a null value is the one NUL character. The secondary key is the value as Java's engine record
  prints it: strings as they are, integers in decimal, booleans ``true``/``false``, a date as its day
  number since the epoch. A column of another type (floating point, decimal, timestamp, bytes, nested) is
  refused by name: Java's text for those is not reproduced here.
* **Record**: type 7, ``SecondaryIndexMetadata: {isDeleted: false}``; a removed entry is a delete-block
  entry (``MetadataRecord(key, None)``; Java's ``isDeleted`` record, which its writer turns into a delete).
* **Per commit**: for each file group a commit wrote, the record key -> secondary key map of its previous
  merged slice (as of the latest completed write before the commit) is compared with the slice after it
  (the new base file alone, or the previous slice with the commit's log files): new keys are inserted, a
  changed value deletes the old entry and inserts the new, a key gone deletes its entry. Compaction and
  clustering change nothing; clean, rollback and restore add nothing here (as for the record index); an
  insert overwrite or a partition delete is refused by name, as Java's ``SecondaryIndexer`` refuses it.
* **Mapping** (:func:`file_group_index`): V2 hashes the escaped secondary key with its ``$``
  (``getSecondaryKeyToFileGroupMappingFunction``), so one value's entries share a file group; V1 hashes the
  whole key. **Sizing**: the record index's (``SecondaryIndexer`` uses its estimate and options).

Every function takes ``partition=`` (the metadata partition, ``secondary_index_<name>``): one module builds
every secondary index. Where it is not given and the table lists exactly one secondary index, that one.
:func:`for_partition` binds one index (its partition and version) into an object with the functions of
:class:`~.change.PartitionBuilder`, for a writer that calls every builder alike.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Mapping

import pyarrow as pa

from ...parquet_io import read_parquet_schema
from ...paths import AnyPath, as_path
from ..properties import TableProperties
from ..timeline.timeline import Timeline
from .change import DataChange, MetadataRecord
from .data_files import (IndexBuildError, before, data_file, indexed_write_stats, is_log_path,
                         ordered_logs, pending_other_than, slice_state, storage_view)
from .record_index import file_group_count, index_definitions, map_key_to_file_group  # noqa: F401 (sizing is shared)

PREFIX = "secondary_index_"
#: operations Java's SecondaryIndexer refuses on a table with a secondary index
OVERWRITES = ("INSERT_OVERWRITE", "INSERT_OVERWRITE_TABLE", "DELETE_PARTITION")
TYPE_SECONDARY_INDEX = 7
SEPARATOR, ESCAPE, NULL_CHAR = "$", "\\", "\x00"
_EPOCH_DAY = datetime.date(1970, 1, 1)


class SecondaryIndexError(IndexBuildError):
    """A secondary index hudi-log cannot keep as Java does (names the index and why)."""


# ---- keys ----------------------------------------------------------------------------------------------
def escape(value: str | None) -> str:
    """``SecondaryIndexKeyUtils.escapeSpecialChars``: a null is the NUL character alone."""
    if value is None:
        return NULL_CHAR
    return "".join(ESCAPE + c if c in (ESCAPE, SEPARATOR, NULL_CHAR) else c for c in value)


def unescape(text: str) -> str | None:
    if text == NULL_CHAR:
        return None
    out, esc = [], False
    for c in text:
        if esc:
            out.append(c)
            esc = False
        elif c == ESCAPE:
            esc = True
        else:
            out.append(c)
    return "".join(out)


def _separator_at(key: str) -> int:
    esc = False
    for i, c in enumerate(key):
        if c == ESCAPE and not esc:
            esc = True
        elif c == SEPARATOR and not esc:
            return i
        else:
            esc = False
    raise SecondaryIndexError(key, "is not a secondary index key (no unescaped '$')")


def index_key(secondary: str | None, record_key: str) -> str:
    """``constructSecondaryIndexKey``."""
    return escape(secondary) + SEPARATOR + escape(record_key)


def split_key(key: str) -> tuple[str | None, str]:
    """(secondary key, record key) of an index key."""
    i = _separator_at(key)
    return unescape(key[:i]), unescape(key[i + 1:])


def file_group_index(key: str, count: int, version: str = "V2") -> int:
    """Which of ``count`` file groups holds ``key``: V2 by its escaped secondary key and ``$``, V1 by the key."""
    if str(version).upper() != "V1" and SEPARATOR in key:
        key = key[:_separator_at(key) + 1]
    return map_key_to_file_group(key, count)


# ---- the definition ------------------------------------------------------------------------------------
def listed(props: TableProperties) -> list[str]:
    return [p for p in (props.get("hoodie.table.metadata.partitions") or "").split(",") if p.startswith(PREFIX)]


def resolve_partition(props: TableProperties, partition: str | None) -> str:
    if partition:
        return partition
    names = listed(props)
    if len(names) != 1:
        raise SecondaryIndexError(props.get("hoodie.table.name") or "table", "which secondary index? give "
                                  f"partition= (the table lists {names or 'none'})")
    return names[0]


def definition(table_path, props: TableProperties, partition: str) -> tuple[str, str]:
    """(source field, index version) of a secondary index, checked to be one hudi-log keeps."""
    d = index_definitions(table_path, props).get(partition)
    if d is None:
        raise SecondaryIndexError(table_path, f"{partition}: no index definition in "
                                  f"{props.get('hoodie.table.index.defs.path') or 'the table'}")
    if str(d.get("indexType") or "").lower() != "secondary_index":
        raise SecondaryIndexError(table_path, f"{partition} is a {d.get('indexType')!r} index, not a secondary index")
    func = str(d.get("indexFunction") or "identity")
    fields = list(d.get("sourceFields") or [])
    if func != "identity":
        raise SecondaryIndexError(table_path, f"{partition}: the expression index function {func!r} is not "
                                  "maintained by hudi-log")
    if len(fields) != 1:
        raise SecondaryIndexError(table_path, f"{partition}: a secondary index over {fields} (one field expected)")
    if str(props.get("hoodie.populate.meta.fields", "true")).lower() == "false":
        raise SecondaryIndexError(table_path, f"{partition}: hoodie.populate.meta.fields=false: the index needs "
                                  "the _hoodie_record_key column in the data files")
    version = str(d.get("version") or ("V2" if props.version >= 9 else "V1")).upper()
    return fields[0], version


def index_version(table_path, props: TableProperties, partition: str | None = None) -> str:
    return definition(table_path, props, resolve_partition(props, partition))[1]


def _text(value, type_: pa.DataType, partition: str, field: str) -> str | None:
    """The secondary key Java prints for a value of ``type_``."""
    if value is None:
        return None
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return value
    if pa.types.is_boolean(type_):
        return "true" if value else "false"
    if pa.types.is_integer(type_):
        return str(int(value))
    if pa.types.is_date32(type_):
        return str((value - _EPOCH_DAY).days)
    raise SecondaryIndexError(partition, f"the secondary index's field {field!r} is of type {type_}: hudi-log "
                              "keeps secondary indexes on string, integer, boolean and date fields only")


def _texts(table_path, base_file, log_files, field: str, partition: str, *, upto=None, skip=lambda t: False):
    """record key -> secondary key of a slice."""
    state = slice_state(table_path, base_file, log_files, [field], upto=upto, skip=skip)
    if not state:
        return {}
    type_ = _field_type(base_file, log_files, field)
    return {k: _text(v[0], type_, partition, field) for k, v in state.items()}


def _field_type(base_file, log_files, field: str) -> pa.DataType:
    if base_file is not None:
        schema = read_parquet_schema(base_file)
        if schema.get_field_index(field) < 0:
            raise SecondaryIndexError(base_file, f"the base file has no column {field!r}")
        return schema.field(field).type
    from ...format.reader import open_log
    from ...format.grammar import RECORD_BLOCK_TYPES, BlockType

    for p in log_files:
        for b in open_log(p):
            if not b.corrupt and (b.block_type in RECORD_BLOCK_TYPES or b.block_type == BlockType.parquet_data_block):
                t = b.to_arrow(columns=[field])
                if field in t.column_names:
                    return t.schema.field(field).type
    return pa.string()


def _insert(secondary, record_key) -> MetadataRecord:
    return MetadataRecord(index_key(secondary, record_key),
                          {"type": TYPE_SECONDARY_INDEX, "SecondaryIndexMetadata": {"isDeleted": False}})


def _delete(secondary, record_key) -> MetadataRecord:
    return MetadataRecord(index_key(secondary, record_key), None)


# ---- per commit ----------------------------------------------------------------------------------------
def records(change: DataChange, partition: str | None = None) -> list[MetadataRecord]:
    """The secondary index records of one data action (see the module's rules)."""
    stats = indexed_write_stats(change, SecondaryIndexError, "a secondary index")
    op = str((change.metadata or {}).get("operationType") or "").upper()
    if stats is None or op == "CLUSTER":  # clustering moves records, their keys and values stay
        return []
    if op in OVERWRITES:
        raise SecondaryIndexError(change.table_path, f"{op} at {change.instant} cannot be applied to a secondary "
                                  "index (Java refuses it too); drop the index first")
    partition = resolve_partition(change.props, partition)
    field, _ = definition(change.table_path, change.props, partition)
    base = as_path(change.table_path)
    source = f"commit {change.instant}"
    timeline = Timeline(base, change.props)
    skip = pending_other_than(timeline, change.instant)
    as_of = before(timeline, change.instant)
    view = storage_view(base, change.props, timeline, as_of) if as_of is not None else None
    previous = {(sl.partition, sl.file_id): sl for sl in view.latest_file_slices()} if view is not None else {}
    by_fid: dict[tuple[str, str], list[dict]] = {}
    for s in stats:
        by_fid.setdefault((s.get("partitionPath") or "", s.get("fileId") or ""), []).append(s)
    out: list[MetadataRecord] = []
    for (part, fid), ss in by_fid.items():
        logs = [s for s in ss if is_log_path(s.get("path") or "")]
        if logs and len(logs) != len(ss):
            raise SecondaryIndexError(base, f"commit {change.instant} wrote both a base file and log files to file "
                                      f"group {fid}")
        if not logs and len(ss) != 1:
            raise SecondaryIndexError(base, f"commit {change.instant} wrote {len(ss)} base files to file group {fid}")
        sl = previous.get((part, fid))  # the merged slice before the commit; None: a new file group
        prev = (sl.base_file.path if sl.base_file else None, [lf.path for lf in sl.log_files]) if sl else None
        before_map = _texts(base, *prev, field, partition, upto=as_of, skip=skip) if prev else {}
        paths = [data_file(base, s["path"], source=source, field="partitionToWriteStats.path") for s in ss]
        if logs:
            prev_base, prev_logs = prev if prev else (None, [])
            after = _texts(base, prev_base, ordered_logs([*prev_logs, *paths]), field, partition,
                           upto=change.instant, skip=skip)
        else:
            after = _texts(base, paths[0], [], field, partition)
        for k, sec in after.items():
            if k not in before_map:
                out.append(_insert(sec, k))
            elif before_map[k] != sec:
                out.extend([_delete(before_map[k], k), _insert(sec, k)])
        out.extend(_delete(sec, k) for k, sec in before_map.items() if k not in after)
    # a record moved between file groups in one commit, its value unchanged: the entry stays (a delete and an
    # insert of one key in one deltacommit would read as deleted, the delete block coming last)
    inserted = {r.key for r in out if r.payload is not None}
    return [r for r in out if r.payload is not None or r.key not in inserted]


# ---- initialisation ----------------------------------------------------------------------------------
def bootstrap(table_path: AnyPath, props: TableProperties, options: Mapping, as_of: str | None = None,
              partition: str | None = None) -> list[MetadataRecord]:
    """Every live record of the latest slices (as of ``as_of``) as an entry of the index."""
    partition = resolve_partition(props, partition)
    field, _ = definition(table_path, props, partition)
    timeline = Timeline(as_path(table_path), props)
    view = storage_view(table_path, props, timeline, as_of)
    skip = pending_other_than(timeline, "")
    out: list[MetadataRecord] = []
    for s in view.latest_file_slices():
        texts = _texts(table_path, s.base_file.path if s.base_file else None, [lf.path for lf in s.log_files],
                       field, partition, upto=as_of, skip=skip)
        out.extend(_insert(sec, k) for k, sec in texts.items())
    return out


def lookup_secondary_index(table_path, partition: str, values) -> dict[str | None, set[str]]:
    """secondary key -> the record keys the index holds for it, reading the file groups the values map to (V2;
    V1 spreads one value's entries over every group, so all are read)."""
    from ..metadata_files import metadata_path, read_partition_records
    from ..properties import read_properties
    from .record_index import _sorted_file_ids

    props = read_properties(table_path)
    _, version = definition(table_path, props, partition)
    ids = _sorted_file_ids(table_path, partition)
    if not ids:
        raise SecondaryIndexError(metadata_path(table_path) / partition, "the index has no file groups")
    wanted = set(values)
    groups = None
    if version != "V1":
        groups = {ids[map_key_to_file_group(escape(v) + SEPARATOR, len(ids))] for v in wanted}
    recs, _ = read_partition_records(table_path, partition, file_ids=groups)
    out: dict[str | None, set[str]] = {}
    for key, rec in recs.items():
        if (rec.get("SecondaryIndexMetadata") or {}).get("isDeleted"):
            continue
        sec, rk = split_key(key)
        if sec in wanted:
            out.setdefault(sec, set()).add(rk)
    return out


@dataclass(frozen=True)
class SecondaryIndexBuilder:
    """One secondary index's builder: :class:`~.change.PartitionBuilder`'s functions bound to its partition
    and index version."""

    partition: str
    version: str

    def records(self, change: DataChange) -> list[MetadataRecord]:
        return records(change, partition=self.partition)

    def bootstrap(self, table_path, props: TableProperties, options: Mapping, as_of: str | None = None):
        return bootstrap(table_path, props, options, as_of=as_of, partition=self.partition)

    def file_group_count(self, record_count: int, options: Mapping) -> int:
        return file_group_count(record_count, options)

    def file_group_index(self, key: str, count: int) -> int:
        return file_group_index(key, count, self.version)


def for_partition(table_path, props: TableProperties, partition: str) -> SecondaryIndexBuilder:
    """The builder of the secondary index ``partition`` of the table (its definition checked)."""
    return SecondaryIndexBuilder(partition, definition(table_path, props, partition)[1])
