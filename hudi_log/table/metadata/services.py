"""The metadata table's own table services: compaction, clean and the rollback of one of its deltacommits.

Mirrors ``HoodieBackedTableMetadataWriter.performTableServices`` and the metadata write config of
``HoodieMetadataWriteUtils.createMetadataWriteConfig``. Java runs these when a writer starts a data
instant (``initTable`` → ``performTableServices(inflightInstant)``), after the metadata table caught up
with every earlier data instant, in this order:

* a pending metadata compaction left by an earlier run is run first;
* clean (:mod:`.services_clean`), but not within 3 completed instants after the latest compaction (readers
  may still hold the compacted slices' logs open);
* compaction, when ``hoodie.metadata.compact.max.delta.commits`` (10) or more deltacommits (any state) were
  requested after the latest completed compaction, or since the timeline starts
  (``CompactionUtils.getDeltaCommitsSinceLatestCompaction``, ``NUM_COMMITS`` trigger, ``>=``). The
  compaction's instant time, per table version:

  - 6 (Hudi 0.14/0.15): the latest completed deltacommit's time with ``001`` appended
    (``HoodieTableMetadataUtil.createCompactionTimestamp``), and no compaction while a data instant at or
    before that deltacommit is pending (``validateTimelineBeforeSchedulingCompaction``): a base file at time
    T must hold every data action up to T;
  - 8 and 9 (Hudi 1.0/1.1): one millisecond before the earliest data instant that is pending on the data
    table but completed on the metadata table (so it can still be rolled back), else a new instant time.
    The plan then takes only log files completed before that time (``BaseHoodieCompactionPlanGenerator``);
    later ones belong to the new slice (the file-system view slices by completion time).

  The plan is ``UnBoundedCompactionStrategy``'s: the latest slice of every file group of every partition
  that has log files to merge. Each slice's records (base HFile, then its log blocks in order: HFILE data
  blocks merged by the partition's rule of :func:`~hudi_log.table.metadata_files.merge_rule`, delete blocks
  dropping keys, rollback command blocks applied) become one new base HFile
  ``{fileId}_{writeToken}_{instant}.hfile`` laid out by ``build_hfile`` as Hudi 1.1 writes it: cells in
  Java's key order, values the Avro record with its key blanked and ``_hoodie_file_name`` the new file's
  name, a ``files`` record's map in Java's ``HashMap`` order (:mod:`.listing_order`), file info ``schema``,
  ``bloomFilterTypeCode``, ``minRecordKey``, ``maxRecordKey``, and the record-key bloom filter as the
  ``bloomFilter`` meta block (DYNAMIC_V0, fpp 1e-9; 10,000 entries in Hudi 1.1's files, 60,000 in 1.0's).
  Java 1.1's own plans replayed give its base files byte for byte. Hudi 1.0 (version 8) writes no base
  file for a slice that never held a record; 1.1 writes an empty one. The timeline gets
  ``{t}.compaction.requested`` (the plan, Java's operations and metrics), an empty ``.inflight``, then a
  ``commit`` (``compacted`` true, ``operationType`` COMPACT, one write stat per new file, Java's counts).
  A pending compaction is run again from its plan, the base files its killed run left removed first;
* archival (:mod:`.services_archive`): which instants Java would archive, under its metadata-table guards;
  hudi-log reports them and leaves the timeline as it is (the archive writers sit in the services layer).

:func:`rollback_metadata_instant` (:mod:`.services_rollback`) undoes one metadata deltacommit, as Java does
when the data instant it mirrors is rolled back, and as the metadata writer does first for a failed
(pending) deltacommit (:func:`rollback_failed_deltacommits`).
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field
from typing import Mapping

import fastavro

from ...format.content.bloom import DYNAMIC_V0, BloomFilter, BloomOptions, java_min_max
from ...format.content.hfile_writer import build_hfile, java_hash_map_order
from ...format.content.hfile_grammar import layout_bytes
from ...format.content.hfile import HFileError, read_hfile
from ...format.grammar import BlockType
from ...format.log_file_name import make_write_token
from ...paths import create_new
from ...errors import ContentError
from ..errors import TableError
from ..metadata_files import (
    FILES_PARTITION, _queued_blocks, metadata_path, merge_rule, valid_instants,
)
from ..properties import has_properties, read_properties
from ..timeline import commit_metadata as cm
from ..timeline.compaction_plan import COMPACTION_PLAN_SCHEMA, PLAN_VERSION, CompactionOperation
from ..timeline.pending import contained_slice
from ..timeline.timeline import COMMIT, COMPACTION, DELTA_COMMIT, Instant, Timeline
from ..timeline.writer import TimelineWriter, format_instant
from ..view.file_system_view import FileSystemView
from .listing_order import listing_order

MAX_DELTA_COMMITS = "hoodie.metadata.compact.max.delta.commits"
DEFAULT_MAX_DELTA_COMMITS = 10  # HoodieMetadataConfig.COMPACT_NUM_DELTA_COMMITS
#: table version from which log files are named after their own instant and sliced by completion time
FIRST_V8_TABLE_VERSION = 8
# the bloom filter Java writes into metadata base files: Hudi 1.1 (table version 9) sizes it for 10,000
# keys, Hudi 1.0 (version 8) and 0.x for 60,000 (the corpus's base files, rebuilt bit for bit)
_BLOOM_ENTRIES = {9: 10_000}
_BLOOM_ENTRIES_DEFAULT = 60_000
# HoodieAvroHFileWriter's file info keys and meta block
KEY_SCHEMA = "schema"
KEY_BLOOM_TYPE = "bloomFilterTypeCode"
KEY_MIN_RECORD = "minRecordKey"
KEY_MAX_RECORD = "maxRecordKey"
BLOOM_META_BLOCK = "bloomFilter"
FILE_NAME_FIELD = "_hoodie_file_name"
_DEFAULT_MAX_FILE_MB = 120


class MetadataServiceError(TableError):
    """A service of the metadata table cannot run (names the file or instant and what is wrong)."""


# --- scheduling rules ---------------------------------------------------------------------------------------

def deltacommits_since_last_compaction(meta: Timeline) -> list[Instant]:
    """The metadata deltacommits (any state) requested after the latest completed compaction (a ``commit``),
    or all of them where none completed (``CompactionUtils.getDeltaCommitsSinceLatestCompaction``)."""
    done = [i for i in meta.completed() if i.action == COMMIT]
    deltas = [i for i in meta.instants if i.action == DELTA_COMMIT]
    if done:
        last = done[-1].requested_time
        deltas = [i for i in deltas if i.requested_time > last]
    return deltas


def max_delta_commits(options: Mapping | None) -> int:
    raw = (options or {}).get(MAX_DELTA_COMMITS, DEFAULT_MAX_DELTA_COMMITS)
    try:
        n = int(raw)
    except (TypeError, ValueError):
        raise MetadataServiceError(MAX_DELTA_COMMITS, f"{raw!r} is not a whole number") from None
    if n < 0:  # 0: compact at the next run whatever the count (hudi-log's way to force one)
        raise MetadataServiceError(MAX_DELTA_COMMITS, f"{n} is negative")
    return n


def compaction_due(meta: Timeline, max_commits: int = DEFAULT_MAX_DELTA_COMMITS) -> bool:
    """Java's ``NUM_COMMITS`` trigger on the metadata timeline: ``max_commits`` or more deltacommits since the
    latest compaction."""
    return len(deltacommits_since_last_compaction(meta)) >= max_commits


def _minus_one_milli(t: str) -> str:
    import datetime

    dt = datetime.datetime.strptime(t[:14], "%Y%m%d%H%M%S").replace(microsecond=int(t[14:17] or 0) * 1000)
    return format_instant(dt - datetime.timedelta(milliseconds=1))


def compaction_instant_time(table_path, data: Timeline, meta: Timeline, table_version: int,
                            inflight_instant: str | None = None) -> str | None:
    """The metadata compaction's instant time by the table version's rule (module docstring), or None where
    Java would not compact now (version 6 with a pending data instant not later than the latest deltacommit,
    or no completed deltacommit). ``inflight_instant``: the data instant whose start runs the services (Java's
    ``inFlightInstantTimestamp``), not counted as pending."""
    deltas = [i for i in meta.completed() if i.action == DELTA_COMMIT]
    if not deltas:
        return None
    latest = deltas[-1].requested_time
    data_pending = [i for i in data.pending() if i.requested_time != inflight_instant]
    if table_version < FIRST_V8_TABLE_VERSION:
        if any(i.requested_time <= latest for i in data_pending):
            return None
        return latest + "001"
    meta_done = {i.requested_time for i in meta.completed()}
    pending = [i.requested_time for i in data_pending if i.requested_time in meta_done]
    if pending:
        return _minus_one_milli(min(pending))
    root = metadata_path(table_path)
    return max(TimelineWriter(root, read_properties(root)).new_instant_time(),
               TimelineWriter(table_path, data.props).new_instant_time())


# --- the plan -----------------------------------------------------------------------------------------------

def plan_compaction(table_path, instant: str) -> list[CompactionOperation]:
    """The operations of a metadata compaction at ``instant``: each partition's latest slices with log files of
    deltacommits completed before ``instant`` (version 8+: by completion time; 6: by requested time)."""
    root = metadata_path(table_path)
    props = read_properties(root)
    meta = Timeline(root, props)
    done = {i.requested_time: (i.completion_time or i.requested_time) for i in meta.completed()}
    start = min(done) if done else None
    by_completion = props.version >= FIRST_V8_TABLE_VERSION
    pending_ids = {(p, f) for inst in meta.pending_compactions()
                   for p, fs in (meta.compaction_plan_file_ids(inst) or {}).items() for f in fs}

    def in_plan(log_instant: str) -> bool:
        if log_instant not in done:  # a pending instant's log, or one archived before the timeline starts
            return start is not None and log_instant < start
        return (done[log_instant] if by_completion else log_instant) < instant

    view = FileSystemView(root, props, meta)
    ops = []
    for part in sorted(view.partitions):
        for g in view.file_groups.get(part, []):
            s = g.latest_slice
            if s is None or (part, g.file_id) in pending_ids:
                continue
            logs = [lf for lf in s.log_files if in_plan(lf.instant)]
            if not logs:
                continue
            size = sum(lf.size for lf in logs)
            # the unbounded strategy's metrics: a slice without a base file is costed at the default
            # maximum file size (hoodie.parquet.max.file.size, 120 MB), in whole MB as Java divides
            read_mb = (s.base_file.size if s.base_file else 0) // (1024 * 1024)
            write_mb = read_mb if s.base_file else _DEFAULT_MAX_FILE_MB
            values = {"TOTAL_LOG_FILES": float(len(logs)), "TOTAL_IO_MB": float(read_mb + write_mb),
                      "TOTAL_IO_READ_MB": float(read_mb), "TOTAL_LOG_FILES_SIZE": float(size),
                      "TOTAL_IO_WRITE_MB": float(write_mb)}
            metrics = {k: values[k] for k in java_hash_map_order(list(values))}
            ops.append(CompactionOperation(part, g.file_id, s.base_instant,
                                           s.base_file.name if s.base_file else None,
                                           tuple(lf.name for lf in logs), metrics))
    return ops


def plan_bytes(ops: list[CompactionOperation]) -> bytes:
    return cm.avro_container(COMPACTION_PLAN_SCHEMA, {
        "operations": [op.to_record() for op in ops], "extraMetadata": {}, "version": PLAN_VERSION,
        "strategy": None, "preserveHoodieMetadata": False, "missingSchedulePartitions": []})


def read_plan(path) -> list[CompactionOperation]:
    r = cm.first_avro_record(path.read_bytes(), MetadataServiceError, path, "metadata compaction plan")
    return [CompactionOperation.from_record(op) for op in (r or {}).get("operations") or []]


# --- merging one slice --------------------------------------------------------------------------------------

def _reader(schema_json: str | None, where):
    try:
        return fastavro.parse_schema(json.loads(schema_json or ""))
    except Exception as e:  # bad JSON, or JSON that is no Avro schema
        raise MetadataServiceError(where, f"no usable Avro writer schema: {e}") from e


def _decode(value: bytes, parsed, where) -> dict:
    try:
        # union members keep their record names, so a column-stats wrapper is written back as the same type
        return fastavro.schemaless_reader(io.BytesIO(value), parsed, None, return_record_name=True,
                                          return_record_name_override=True)
    except Exception as e:  # fastavro raises many types on bad bytes
        raise MetadataServiceError(where, f"a metadata record does not decode: {e}") from e


@dataclass
class _Merged:
    records: dict[str, dict]
    schema: str
    log_records: int = 0
    log_blocks: int = 0
    log_keys: set = field(default_factory=set)
    deleted: set = field(default_factory=set)
    base_keys: tuple = ()
    histories: dict = field(default_factory=dict)
    """files partition: key -> (base record's (name, isDeleted) entries or None, each log record's)"""

    def listing_orders(self) -> dict[str, list[str]]:
        return {k: listing_order(b, logs) for k, (b, logs) in self.histories.items()}


def merge_slice(root, op: CompactionOperation, valid: set[str], committed) -> _Merged:
    """The records of one planned slice, merged by the partition's rule (base first, then log blocks)."""
    folder = root / op.partition
    merge = merge_rule(op.partition) or (lambda old, new: new)
    records: dict[str, dict] = {}
    schema = None
    if op.base_file:
        path = folder / op.base_file
        try:
            hf = read_hfile(path.read_bytes())
            schema = hf.file_info[KEY_SCHEMA].decode("utf-8")
        except (OSError, HFileError, KeyError, UnicodeDecodeError) as e:
            raise MetadataServiceError(path, f"metadata base file unreadable: {e}") from e
        parsed = _reader(schema, path)
        for cell in hf.records:
            rec = _decode(cell.value, parsed, path)
            rec["key"] = cell.key
            records[cell.key] = merge(records.get(cell.key), rec)
    out = _Merged(records, schema or "", base_keys=tuple(records))
    track = op.partition == FILES_PARTITION
    if track:
        out.histories = {k: (_entries(r), []) for k, r in records.items()}
    from ..view.file_system_view import parse_log_file_name

    logs = [parse_log_file_name(folder / n) for n in op.log_files]
    if any(lf is None for lf in logs):
        raise MetadataServiceError(folder, f"the plan names a file that is no log file: {op.log_files}")
    try:
        blocks = _queued_blocks(logs)
        out.log_blocks = len(blocks)
        for block in blocks:
            if block.instant_time not in valid or not committed(block.instant_time):
                continue
            if block.block_type == BlockType.delete_block:
                for d in block.deletes():
                    out.log_records += 1
                    out.log_keys.add(d.record_key)
                    records.pop(d.record_key, None)
                    out.deleted.add(d.record_key)
                    out.histories.pop(d.record_key, None)
                continue
            schema = block.schema or schema
            parsed = _reader(block.schema, block.path)
            for cell in block.hfile().records:
                rec = _decode(cell.value, parsed, block.path)
                rec["key"] = cell.key
                out.log_records += 1
                out.log_keys.add(cell.key)
                out.deleted.discard(cell.key)
                records[cell.key] = merge(records.get(cell.key), rec)
                if track:
                    out.histories.setdefault(cell.key, (None, []))[1].append(_entries(rec))
    except (ContentError, OSError) as e:
        raise MetadataServiceError(folder, f"metadata log unreadable: {e}") from e
    out.deleted -= set(records)
    out.schema = schema or out.schema
    return out


def _entries(rec: dict) -> list[tuple[str, bool]]:
    return [(n, bool((i or {}).get("isDeleted"))) for n, i in (rec.get("filesystemMetadata") or {}).items()]


def base_hfile_bytes(records: Mapping[str, dict], schema: str, table_version: int, file_name: str | None = None,
                     orders: Mapping[str, list[str]] | None = None, create_time_ms: int | None = None) -> bytes:
    """A metadata base HFile of ``records`` as Java's ``HoodieAvroHFileWriter`` writes it (module docstring).
    Where the schema has Hudi's meta fields, Java's compaction fills ``_hoodie_file_name`` with the new file's
    name and leaves the others null. ``orders``: each ``files`` record's file names in Java's order
    (:mod:`.listing_order`; else a ``HashMap``'s order of the names as merged)."""
    schema_dict = json.loads(schema)
    parsed = fastavro.parse_schema(schema_dict)
    meta = {f["name"]: None for f in schema_dict.get("fields", []) if f["name"].startswith("_hoodie_")}
    if FILE_NAME_FIELD in meta:
        meta[FILE_NAME_FIELD] = file_name
    keys = sorted(records, key=lambda k: k.encode("utf-16-be", "surrogatepass"))  # Java's String order
    cells = []
    buf = io.BytesIO()
    for k in keys:
        rec = records[k]
        listing = rec.get("filesystemMetadata")
        if isinstance(listing, dict):  # Java serializes its HashMap in the map's own iteration order
            known = (orders or {}).get(k)
            names = [n for n in known if n in listing] + [n for n in listing if n not in set(known)] if known \
                else java_hash_map_order(list(listing))
            rec = {**rec, "filesystemMetadata": {n: listing[n] for n in names}}
        buf.seek(0)
        buf.truncate()
        try:
            fastavro.schemaless_writer(buf, parsed, {**rec, **meta, "key": ""})  # Hudi blanks the key
        except Exception as e:
            raise MetadataServiceError(k, f"a merged metadata record does not fit its schema: {e}") from e
        cells.append((k, buf.getvalue()))
    opts = BloomOptions(num_entries=_BLOOM_ENTRIES.get(table_version, _BLOOM_ENTRIES_DEFAULT), fpp=1e-9,
                        filter_type=DYNAMIC_V0)
    bloom = BloomFilter.create(opts)
    bloom.add(keys)
    mm = java_min_max(keys) or ("", "")
    info = [(KEY_SCHEMA, schema.encode("utf-8")), (KEY_BLOOM_TYPE, DYNAMIC_V0.encode()),
            (KEY_MIN_RECORD, mm[0].encode("utf-8")), (KEY_MAX_RECORD, mm[1].encode("utf-8"))]
    layout = build_hfile(cells, file_info=info, meta_blocks={BLOOM_META_BLOCK: bloom.serialize().encode()},
                         create_time_ms=create_time_ms if create_time_ms is not None else int(time.time() * 1000))
    return layout_bytes(layout)


# --- running a compaction -----------------------------------------------------------------------------------

def run_compaction(table_path, instant: str, ops: list[CompactionOperation] | None = None, source=None) -> Instant:
    """Run (and, without ``ops``, first plan and request) the metadata compaction at ``instant``. Every slice
    is merged and its base file laid out before anything is written, so bad input leaves the table as it was.
    ``ops`` read from a plan (``source``: its file) name their files through the containment rule."""
    root = metadata_path(table_path)
    props = read_properties(root)
    data_props = read_properties(table_path)
    tw = TimelineWriter(root, props)
    new_plan = ops is None
    if new_plan:
        ops = plan_compaction(table_path, instant)
        if not ops:
            raise MetadataServiceError(root, f"nothing to compact at {instant}: no slice has log files")
    where = source or f"metadata compaction plan {instant}"
    for n, op in enumerate(ops):  # a planted plan is refused before anything is read or written
        contained_slice(root, where, f"operations[{n}]", op.partition, op.file_id, op.base_file, op.log_files)
    meta = Timeline(root, props)
    valid = valid_instants(Timeline(table_path, data_props), meta)
    done = {i.requested_time for i in meta.completed()}
    start = min(done) if done else None

    def committed(t: str) -> bool:
        return t in done or (start is not None and t < start)

    merged = [merge_slice(root, op, valid, committed) for op in ops]
    planned = list(ops)
    if data_props.version < 9:  # Hudi 1.0 and 0.x write no base file for a slice that never held a record
        kept = [(op, m) for op, m in zip(ops, merged) if op.base_file or m.log_records]
        ops, merged = [op for op, _ in kept], [m for _, m in kept]
    # a slice holding only the empty delete block of its creation has no schema of its own: the table's
    schema = next((m.schema for m in reversed(merged) if m.schema), "")
    if merged and not schema:
        raise MetadataServiceError(root, f"no writer schema in any planned slice at {instant} (no base file and no "
                                   "HFILE data block): nothing to write the records with")
    names = [f"{op.file_id}_{make_write_token(n, 0, n)}_{instant}.hfile" for n, op in enumerate(ops)]
    files = [base_hfile_bytes(m.records, m.schema or schema, data_props.version, name, m.listing_orders())
             for m, name in zip(merged, names)]
    if new_plan:
        tw.requested(COMPACTION, instant, plan_bytes(planned))
    else:  # a killed run's base files of this instant, never committed (Java rolls the inflight back first)
        for op in planned:
            for left in (root / op.partition).glob(f"{op.file_id}_*_{instant}.hfile"):
                left.unlink()
    tw.inflight(COMPACTION, instant, b"")
    stats: dict[str, list[dict]] = {}
    for op, m, data, name in zip(ops, merged, files, names):
        path = root / op.partition / name
        try:
            create_new(path, data)
        except FileExistsError:
            raise MetadataServiceError(path, "exists already: another run of this compaction wrote it meanwhile "
                                       "(run the table services again)") from None
        stats.setdefault(op.partition, []).append(_write_stat(root, op, m, name, len(data)))
    metadata = {"partitionToWriteStats": stats, "compacted": True, "extraMetadata": {"schema": schema},
                "operationType": "COMPACT"}
    return tw.complete(COMPACTION, instant, metadata)


def _write_stat(root, op: CompactionOperation, m: _Merged, name: str, size: int) -> dict:
    """The compaction commit's ``HoodieWriteStat`` of one new base file."""
    base_keys = set(m.base_keys)
    stat = cm.empty_write_stat()
    stat.update({
        "fileId": op.file_id, "path": f"{op.partition}/{name}", "partitionPath": op.partition,
        "prevCommit": op.base_instant if op.base_file else "null", "prevBaseFile": op.base_file,
        "numWrites": len(m.records), "numDeletes": len(m.deleted), "numInserts": len(set(m.records) - base_keys),
        "numUpdateWrites": len(set(m.records) & base_keys & m.log_keys), "totalWriteBytes": size,
        "fileSizeInBytes": size, "totalLogRecords": m.log_records, "totalLogFilesCompacted": len(op.log_files),
        "totalLogSizeCompacted": sum((root / op.partition / lf).stat().st_size for lf in op.log_files),
        "totalUpdatedRecordsCompacted": len(m.log_keys), "totalLogBlocks": m.log_blocks,
    })
    return stat


def run_table_services(table_path, options: Mapping | None = None, inflight_instant: str | None = None) -> list[str]:
    """What Java's metadata writer does when a data instant starts (``performTableServices``): a pending
    compaction run, clean, compaction when due (``options``: ``hoodie.metadata.compact.max.delta.commits``),
    archival's check. ``inflight_instant``: the data instant being started (not yet on the metadata table).
    Returns one line per action taken."""
    from .services_archive import metadata_instants_to_archive
    from .services_clean import clean_if_necessary

    root = metadata_path(table_path)
    if not has_properties(root):
        return []
    props = read_properties(root)
    data_props = read_properties(table_path)
    out: list[str] = []
    meta = Timeline(root, props)
    for inst in meta.pending_compactions():
        req = props.timeline_folder(root) / f"{inst.requested_time}.{COMPACTION}.requested"
        run_compaction(table_path, inst.requested_time, read_plan(req), source=req)
        out.append(f"ran the pending metadata compaction {inst.requested_time}")
        meta = Timeline(root, props)
    if not [i for i in meta.completed() if i.action == DELTA_COMMIT]:
        return out
    out += clean_if_necessary(table_path, options)
    meta = Timeline(root, props)
    if compaction_due(meta, max_delta_commits(options)):
        data = Timeline(table_path, data_props)
        instant = compaction_instant_time(table_path, data, meta, data_props.version, inflight_instant)
        if instant is None:
            out.append("metadata compaction due, not scheduled: a data instant before the latest metadata "
                       "deltacommit is pending")
        elif any(i.requested_time == instant for i in meta.completed()):
            out.append(f"metadata compaction at {instant} already done")
        else:
            ops = plan_compaction(table_path, instant)
            if ops:
                run_compaction(table_path, instant)
                out.append(f"compacted the metadata table at {instant} ({len(ops)} file slices)")
    due = metadata_instants_to_archive(table_path, options)
    if due:
        out.append(f"metadata archival due for {len(due)} instants up to {due[-1].requested_time}: not written by "
                   "hudi-log (the timeline is left as it is)")
    return out


__all__ = ["CompactionOperation", "MetadataServiceError", "compaction_due", "compaction_instant_time",
           "deltacommits_since_last_compaction", "plan_compaction", "rollback_failed_deltacommits",
           "rollback_metadata_instant", "run_compaction", "run_table_services"]

from .services_rollback import rollback_failed_deltacommits, rollback_metadata_instant  # noqa: E402 (re-exported)
