"""The metadata table's ``files`` partition read as Java reads it: partition list and file listing.

Mirrors ``HoodieBackedTableMetadata`` (``getAllPartitionPaths``, ``getAllFilesInPartition``) over
``HoodieMetadataPayload``: the metadata table (``.hoodie/metadata``) is a MERGE_ON_READ table of its own whose
``files`` partition holds one record per data partition (key = partition path, ``.`` for a non-partitioned
table; type 2, ``filesystemMetadata``: file name -> {size, isDeleted}) and one ``__all_partitions__`` record
(type 1) listing the partitions. The latest file slice is read (base HFile, then its log files' HFILE data
and delete blocks in order, corrupt blocks skipped and rollback command blocks applied, as
``AbstractHoodieLogRecordScanner`` does)
and the records merged as ``HoodieMetadataPayload.combineAndGetUpdateValue`` merges them: a later record's
file map is laid over the earlier one's, an entry marked ``isDeleted`` removes the file, a file met twice
keeps the larger size (a log file appended to; Hudi's current rule, commutative; early 0.x releases summed
the sizes instead); a delete block drops the key's record.

Only blocks of valid instants count (:func:`valid_instants`, Java's
``HoodieTableMetadataUtil.getValidInstantTimestamps``) that are also committed on the metadata table's own
timeline: a metadata deltacommit whose data-table commit is still pending (the metadata table commits first)
is not read.

:func:`metadata_in_step` is the rule the file-system view uses before it trusts the listing (decided here,
since Java trusts a metadata table it has just synced): ``files`` is in ``hoodie.table.metadata.partitions``
and the data table's latest completed instant that writes to the metadata table has a completed metadata
deltacommit, else storage is listed (a safe fallback: only slower). Every path named by the metadata table goes
through :func:`hudi_log.containment.within_table`. Also here: the listing compared with storage
(``metadata validate-files``, ``validate --table``) and per-partition statistics (``metadata stats``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Mapping

from ..containment import within_table
from ..errors import ContentError
from ..format.grammar import BlockType
from ..format.reader import open_log
from ..paths import AnyPath, as_path
from .errors import TableError
from .properties import TableProperties, has_properties, read_properties
from .timeline.timeline import Timeline

METADATA_FOLDER = (".hoodie", "metadata")
FILES_PARTITION = "files"
ALL_PARTITIONS_KEY = "__all_partitions__"
NON_PARTITIONED_NAME = "."  # HoodieTableMetadata.NON_PARTITIONED_NAME
# HoodieMetadataPayload record types
TYPE_PARTITION_LIST, TYPE_FILE_LIST = 1, 2
ENABLE = "hoodie.metadata.enable"
# the metadata table's own first instants (HoodieTableMetadataUtil's SOLO_COMMIT_TIMESTAMP, and the
# per-partition initialising instants made of it with a suffix): no data-table instant stands for them
SOLO_COMMIT_PREFIX = "00000000000000"
# data-table actions that sync a metadata deltacommit at their own instant time
_SYNCED_ACTIONS = frozenset({"commit", "deltacommit", "replacecommit", "clean", "rollback", "restore"})


class MetadataFilesError(TableError):
    """The metadata table's ``files`` partition cannot be read (names the file and what is wrong)."""


def metadata_path(table_path) -> AnyPath:
    return as_path(table_path).joinpath(*METADATA_FOLDER)


def metadata_enabled(options: Mapping | None) -> bool:
    """``hoodie.metadata.enable`` on the read side: default true, as Java's."""
    return str((options or {}).get(ENABLE, "true")).strip().lower() != "false"


def _listed_partitions(props: TableProperties) -> set[str]:
    return {p for p in (props.get("hoodie.table.metadata.partitions") or "").split(",") if p}


@dataclass(frozen=True)
class MetadataFile:
    name: str
    size: int
    path: AnyPath
    """The file's path, as :func:`~hudi_log.containment.within_table` made it."""


@dataclass
class MetadataListing:
    """What the ``files`` partition says, as of the data table's ``as_of`` instant."""

    partitions: list[str]
    """Data partitions, relative paths ("" for a non-partitioned table's root)."""
    files: dict[str, list[MetadataFile]]
    """partition -> its files (sorted by name)."""
    latest_deltacommit: str | None
    valid_instants: set[str] = field(default_factory=set, repr=False)

    def to_dict(self) -> dict:
        return {"partitions": self.partitions, "latest_deltacommit": self.latest_deltacommit,
                "files": {p: [{"name": f.name, "size": f.size} for f in fs] for p, fs in self.files.items()}}


def _data_partition(key: str) -> str:
    return "" if key == NON_PARTITIONED_NAME else key


def _rolled_back(data: Timeline, inst) -> list[str]:
    """The commits a completed rollback or restore of the data table undid (its metadata, as Java reads it)."""
    md = data.commit_metadata(inst)
    if inst.action == "rollback":
        return list(md.get("commitsRollback") or [])
    return [c for rms in (md.get("hoodieRestoreMetadata") or {}).values() for rm in (rms or [])
            for c in (rm.get("commitsRollback") or [])]


def valid_instants(data: Timeline, meta: Timeline, as_of: str | None = None) -> set[str]:
    """Instants whose metadata-table blocks count (Java's ``getValidInstantTimestamps``): the data table's
    completed instants; the metadata table's completed deltacommits whose data instant is not pending
    (indexing writes some no data commit has); the commits undone by the data table's completed rollbacks
    and restores after the earliest of those (the metadata table records the undoing as a later
    deltacommit); the metadata table's own completed rollbacks and restores. ``as_of``: none later."""
    pending = {i.requested_time for i in data.pending()}
    valid = {i.requested_time for i in data.completed()}
    valid |= {i.requested_time for i in meta.completed()
              if i.action == "deltacommit" and i.requested_time not in pending}
    earliest = min(valid) if valid else SOLO_COMMIT_PREFIX + "0"
    for i in data.completed():
        if i.action in ("rollback", "restore") and i.requested_time > earliest:
            valid.update(_rolled_back(data, i))
    valid |= {i.requested_time for i in meta.completed() if i.action in ("rollback", "restore")}
    if as_of is not None:
        valid = {t for t in valid if t <= as_of or t.startswith(SOLO_COMMIT_PREFIX)}
    return valid


def _committed_in(meta: Timeline):
    """Whether a block's instant is committed on the metadata table's own timeline (its log scanner skips
    blocks of pending instants; an instant before its timeline's start was archived, so committed)."""
    done = {i.requested_time for i in meta.completed()}
    start = min(done) if done else None
    return lambda t: t in done or (start is not None and t < start)


def metadata_in_step(table_path, props: TableProperties, data: Timeline) -> tuple[bool, str]:
    """(True, "") when the file-system view may list from the metadata table; else (False, why)."""
    root = metadata_path(table_path)
    if FILES_PARTITION not in _listed_partitions(props):
        return False, "hoodie.table.metadata.partitions does not list 'files'"
    if not has_properties(root):
        return False, f"{root} holds no table"
    synced = [i for i in data.completed() if i.action in _SYNCED_ACTIONS]
    if not synced:
        return True, ""
    latest = synced[-1].requested_time
    meta = Timeline(root, read_properties(root))
    if not any(i.requested_time == latest and i.is_completed for i in meta.instants):
        return False, f"the metadata table has no completed deltacommit for the data table's instant {latest}"
    return True, ""


def _merge(old: dict | None, new: dict) -> dict:
    """``HoodieMetadataPayload.combineAndGetUpdateValue`` for the files partition's record types."""
    if old is None or old.get("type") != new.get("type"):
        return new
    merged = dict(old.get("filesystemMetadata") or {})
    for name, info in (new.get("filesystemMetadata") or {}).items():
        if info.get("isDeleted"):
            merged.pop(name, None)
        elif name in merged:
            merged[name] = {**info, "size": max(merged[name].get("size") or 0, info.get("size") or 0)}
        else:
            merged[name] = info
    return {**new, "filesystemMetadata": merged}


VALUE_TYPE_DECIMAL = 10  # org.apache.hudi.stats.ValueType.DECIMAL: unscaled two's-complement bytes


def java_order(v, decimal: bool = False):
    """A sort key ordering column-statistics values as Java's ``compareTo`` does: strings by UTF-16 code units,
    bytes as ``ByteBuffer`` (signed bytes, then length) or, for a decimal, by the unscaled number they hold,
    floats as ``Double.compare`` (-0.0 before 0.0, NaN last); other values as they are."""
    if isinstance(v, str):
        return v.encode("utf-16-be", "surrogatepass")
    if isinstance(v, (bytes, bytearray)):
        return int.from_bytes(v, "big", signed=True) if decimal else tuple(b - 256 if b > 127 else b for b in v)
    if isinstance(v, float):
        return (v != v, 0.0 if v != v else v, math.copysign(1.0, v) > 0)
    return v


def _stat_value(wrapper, decimal: bool = False):
    """The order key (:func:`java_order`) of the value inside a column-stats wrapper (``IntWrapper`` ...): a
    dict, or ``(name, dict)`` where union members were read with their record names; None for none or an
    ``ArrayWrapper``."""
    if isinstance(wrapper, tuple):
        wrapper = wrapper[1]
    if not isinstance(wrapper, dict) or "value" not in wrapper:
        return None
    return java_order(wrapper["value"], decimal)


def _sum(a, b):
    return None if a is None and b is None else (a or 0) + (b or 0)


def merge_column_stats(old: dict | None, new: dict) -> dict:
    """``HoodieMetadataPayload``'s merge of two column-statistics records of one key (``column_stats`` and
    ``partition_stats``, ``mergeColumnStatsRecords``): a tombstone on either side or a tight-bound new record
    wins whole; otherwise min of the minimums, max of the maximums (nulls ignored), counts and sizes summed,
    the rest from the new record."""
    field = "ColumnStatsMetadata"
    o, n = (old or {}).get(field), new.get(field)
    if old is None or o is None or n is None or old.get("type") != new.get("type"):
        return new
    if n.get("isDeleted") or o.get("isDeleted") or n.get("isTightBound"):
        return new

    decimal = (n.get("valueType") or {}).get("typeOrdinal") == VALUE_TYPE_DECIMAL

    def pick(a, b, smaller: bool):
        va, vb = _stat_value(a, decimal), _stat_value(b, decimal)
        if va is None:
            return b
        if vb is None:
            return a
        try:
            return (a if va <= vb else b) if smaller else (a if va >= vb else b)
        except TypeError:  # values of two types: Java's compareTo would throw; keep the new one
            return b

    merged = dict(n)
    merged["minValue"] = pick(o.get("minValue"), n.get("minValue"), True)
    merged["maxValue"] = pick(o.get("maxValue"), n.get("maxValue"), False)
    for k in ("valueCount", "nullCount", "totalSize", "totalUncompressedSize"):
        merged[k] = _sum(o.get(k), n.get(k))
    return {**new, field: merged}


def merge_rule(partition: str):
    """How two records of one key of a metadata ``partition`` combine (``HoodieMetadataPayload``): the files
    partition's listing merge, the column-statistics merge, or None where the later record wins
    (record_index, secondary indexes, bloom_filters, expression indexes)."""
    if partition == FILES_PARTITION:
        return _merge
    if partition in ("column_stats", "partition_stats"):
        return merge_column_stats
    return None


def _decode_cells(cells, schema: dict, where, offset: int, wanted=None) -> list[dict]:
    """HFile cells as records; ``wanted``: only the cells of these keys are decoded (a lookup)."""
    from ..format.content.avro import decode_datums

    if wanted is not None:
        cells = [c for c in cells if c.key in wanted]
    out = decode_datums([c.value for c in cells], schema, None, str(where), offset)
    for cell, rec in zip(cells, out):
        if rec.get("key") in ("", None):  # Hudi blanks the key field in HFile values
            rec["key"] = cell.key
    return out


def _base_records(path, wanted=None) -> list[dict]:
    from ..format.content.hfile import HFileError, read_hfile
    import json

    try:
        hf = read_hfile(path.read_bytes())
        schema = json.loads(hf.file_info["schema"].decode("utf-8"))
    except (HFileError, KeyError, ValueError) as e:
        raise MetadataFilesError(path, f"metadata base file unreadable: {e}") from e
    return _decode_cells(hf.records, schema, path, 0, wanted)


def _queued_blocks(log_files) -> list:
    """The data and delete blocks of a slice's logs in order, corrupt blocks skipped and a rollback command
    block dropping the blocks of its target instant read before it (``AbstractHoodieLogRecordScanner``; the
    read layer's scanner does the same for data tables, and sits above this module)."""
    queue: list = []
    for lf in log_files:
        for block in open_log(lf.path):
            if block.corrupt or block.block_type == BlockType.corrupt_block:
                continue
            if block.block_type == BlockType.command_block:
                if block.is_rollback:
                    queue = [b for b in queue if b.instant_time != block.target_instant_time]
                continue
            if block.block_type in (BlockType.hfile_data_block, BlockType.delete_block):
                queue.append(block)
    return queue


def read_partition_records(table_path, partition: str, as_of: str | None = None, merge=None,
                           keys=None, file_ids=None) -> tuple[dict[str, dict], dict]:
    """The merged records of the metadata table's ``partition`` (key -> ``HoodieMetadataRecord`` as a dict)
    and facts about the slices read (``valid_instants``, ``slices``). ``merge(old, new)`` combines two records
    of one key (``HoodieMetadataPayload``'s rule for the partition's record type; default: the later one
    wins). ``keys``: only these keys are kept (a lookup). Every partition is read the same way: the latest
    slice of each file group, base HFile then log blocks of valid, committed instants. ``file_ids``: only these
    file groups (a lookup reads the groups its keys map to)."""
    from .view.file_system_view import FileSystemView

    merge = merge or (lambda old, new: new)
    wanted = None if keys is None else set(keys)
    root = metadata_path(table_path)
    data_props = read_properties(table_path)
    data = Timeline(table_path, data_props)
    mprops = read_properties(root)
    meta = Timeline(root, mprops)
    valid = valid_instants(data, meta, as_of)
    committed = _committed_in(meta)
    view = FileSystemView(root, mprops, meta)
    groups = [g for g in view.file_groups.get(partition, []) if file_ids is None or g.file_id in file_ids]
    records: dict[str, dict] = {}
    facts = {"valid_instants": valid, "slices": []}
    for g in groups:
        s = g.latest_slice
        if s is None:
            continue
        facts["slices"].append(s)
        if as_of is not None and s.base_file is not None and s.base_instant > as_of \
                and not s.base_instant.startswith(SOLO_COMMIT_PREFIX):
            # the base file holds every record merged up to its compaction: no earlier state can be had from it
            raise MetadataFilesError(s.base_file.path, f"the metadata table was compacted at {s.base_instant}, after "
                                     f"{as_of}: its state as of {as_of} is gone (list storage instead)")
        if s.base_file is not None:
            for rec in _base_records(s.base_file.path, wanted):
                records[rec["key"]] = merge(records.get(rec["key"]), rec)
        try:
            for block in _queued_blocks(s.log_files):
                if block.instant_time not in valid or not committed(block.instant_time):
                    continue
                if block.block_type == BlockType.delete_block:
                    for d in block.deletes():
                        records.pop(d.record_key, None)
                    continue
                recs = block.records() if wanted is None else \
                    _decode_cells(block.hfile().records, block.writer_schema(), block.path, block.content_offset, wanted)
                for rec in recs:
                    records[rec["key"]] = merge(records.get(rec["key"]), rec)
        except ContentError as e:
            raise MetadataFilesError(root / partition, f"metadata log unreadable: {e}") from e
    return records, facts


def read_files_partition(table_path, as_of: str | None = None) -> tuple[dict[str, dict], dict]:
    """The merged records of the ``files`` partition (key -> record) and facts about the slice read."""
    return read_partition_records(table_path, FILES_PARTITION, as_of, merge=_merge)


def _live(rec: dict) -> dict[str, int]:
    return {n: int(i.get("size") or 0) for n, i in (rec.get("filesystemMetadata") or {}).items()
            if not i.get("isDeleted")}


def read_listing(table_path, as_of: str | None = None) -> MetadataListing:
    """The data table's partitions and files as the ``files`` partition lists them: as of the latest state, or
    as of the data instant ``as_of`` (blocks of later instants left out) where the metadata table has not been
    compacted since (:class:`MetadataFilesError` otherwise)."""
    base = as_path(table_path)
    records, facts = read_files_partition(base, as_of)
    source = metadata_path(base) / FILES_PARTITION
    parts_rec = records.get(ALL_PARTITIONS_KEY)
    partitions = sorted(_data_partition(k) for k in (_live(parts_rec) if parts_rec else {}))
    files: dict[str, list[MetadataFile]] = {}
    seen: dict = {}  # each folder checked for links once
    for p in partitions:
        key = p or NON_PARTITIONED_NAME
        if p:  # a partition named by the metadata table must be a folder inside the table
            within_table(base, p, source=source, field=f"{ALL_PARTITIONS_KEY}.filesystemMetadata", timeline=False,
                         seen=seen)
        rec = records.get(key)
        entries = _live(rec) if rec and rec.get("type") == TYPE_FILE_LIST else {}
        out = []
        for name, size in sorted(entries.items()):
            # every path the metadata table names goes through the one containment rule
            path = within_table(base, f"{p}/{name}" if p else name, source=source,
                                field=f"{key}.filesystemMetadata", timeline=False, seen=seen)
            if "/" in name or name in (".", ".."):
                raise MetadataFilesError(source, f"record {key!r} names {name!r}, not a file name")
            out.append(MetadataFile(name, size, path))
        files[p] = out
    valid = facts["valid_instants"]
    return MetadataListing(partitions, files, max((t for t in valid if not t.startswith(SOLO_COMMIT_PREFIX)),
                                                  default=None), valid)


@dataclass(frozen=True)
class ListingDifference:
    """One way the metadata table's listing and storage differ (hudi-cli's ``metadata validate-files``)."""

    partition: str
    file: str | None
    """None: the partition itself is listed on one side only."""
    problem: str
    metadata_size: int | None = None
    storage_size: int | None = None

    def to_dict(self) -> dict:
        return {"partition": self.partition, "file": self.file, "problem": self.problem,
                "metadata_size": self.metadata_size, "storage_size": self.storage_size}

    def line(self) -> str:
        where = f"{self.partition or '.'}/{self.file}" if self.file else f"partition {self.partition or '.'!r}"
        sizes = f" (metadata {self.metadata_size} bytes, storage {self.storage_size})" \
            if self.metadata_size is not None and self.storage_size is not None else ""
        return f"{where}: {self.problem}{sizes}"


def storage_listing(table_path) -> dict[str, dict[str, int]]:
    """partition -> {data file name: size} as storage lists them (base and log files; Java's
    ``FileSystemBackedTableMetadata``)."""
    from .view.file_system_view import BASE_FILE_RE, LOG_FILE_RE, list_partitions

    base = as_path(table_path)
    out = {}
    for p in list_partitions(base):
        folder = base / p if p else base
        out[p] = {f.name: f.stat().st_size for f in sorted(folder.iterdir())
                  if f.is_file() and (BASE_FILE_RE.match(f.name) or LOG_FILE_RE.match(f.name))}
    return out


def compare_with_storage(table_path) -> list[ListingDifference]:
    """Every difference between the ``files`` partition's listing and storage: partitions and files on one
    side only, and sizes that differ. Empty when they agree."""
    listing = read_listing(table_path)
    stored = storage_listing(table_path)
    out = []
    for p in sorted(set(listing.partitions) | set(stored)):
        if p not in stored:
            out.append(ListingDifference(p, None, "listed by the metadata table, not in storage"))
            continue
        if p not in listing.files:
            out.append(ListingDifference(p, None, "in storage, not listed by the metadata table"))
            continue
        meta = {f.name: f.size for f in listing.files[p]}
        for name in sorted(set(meta) | set(stored[p])):
            if name not in stored[p]:
                out.append(ListingDifference(p, name, "listed by the metadata table, not in storage", meta[name]))
            elif name not in meta:
                out.append(ListingDifference(p, name, "in storage, not listed by the metadata table", None,
                                             stored[p][name]))
            elif meta[name] != stored[p][name]:
                out.append(ListingDifference(p, name, "sizes differ", meta[name], stored[p][name]))
    return out


@dataclass(frozen=True)
class MetadataPartitionStats:
    """One metadata-table partition's latest file slices (hudi-cli's ``metadata stats``)."""

    partition: str
    file_slices: int
    base_files: int
    log_files: int
    base_bytes: int
    log_bytes: int
    records: int
    """Cells in the slices' base HFiles and HFILE data blocks (before merging)."""

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def metadata_stats(table_path) -> list[MetadataPartitionStats]:
    """Per metadata-table partition: its latest file slices, their files, sizes and records."""
    from ..format.content.hfile import HFileError, read_hfile
    from .view.file_system_view import FileSystemView

    root = metadata_path(table_path)
    props = read_properties(root)
    view = FileSystemView(root, props, Timeline(root, props))
    out = []
    for part in view.partitions:
        slices = [g.latest_slice for g in view.file_groups[part] if g.latest_slice is not None]
        records = 0
        for s in slices:
            if s.base_file is not None:
                try:
                    records += read_hfile(s.base_file.path.read_bytes()).entry_count
                except HFileError as e:
                    raise MetadataFilesError(s.base_file.path, f"metadata base file unreadable: {e}") from e
            for lf in s.log_files:
                try:
                    records += sum(len(b.hfile().records) for b in open_log(lf.path)
                                   if not b.corrupt and b.block_type == BlockType.hfile_data_block)
                except ContentError as e:
                    raise MetadataFilesError(lf.path, f"metadata log unreadable: {e}") from e
        out.append(MetadataPartitionStats(
            part, len(slices), sum(1 for s in slices if s.base_file), sum(len(s.log_files) for s in slices),
            sum(s.base_file.size for s in slices if s.base_file), sum(lf.size for s in slices for lf in s.log_files),
            records))
    return out
