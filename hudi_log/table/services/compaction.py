"""Compaction of MERGE_ON_READ tables: schedule a plan, then merge each planned file slice into a new
base Parquet file (Apache Hudi's ``ScheduleCompactionActionExecutor`` / ``HoodieCompactor``).

Schedule (``schedule_compaction``):

* Hudi's default plan: the latest file slice of every file group that has log files, except file
  groups already in a pending compaction. Nothing to compact → no instant (Hudi writes no empty plan).
* Refused while a write instant is pending (requested / inflight deltacommit or commit): Hudi requires
  the earliest inflight write to be later than the compaction instant, otherwise the blocks of that
  write, appended to a compacted log file, would be lost.
* ``{ts}.compaction.requested`` holds a ``HoodieCompactionPlan`` (Avro container, plan version 2: file
  *names*, not paths) listing per operation the base instant, base file, log files (Hudi's log file
  order), partition, file id and the strategy's metrics (sizes in whole MiB, as Java's long division).
* Option ``hoodie.compact.inline.max.delta.commits``: when given, schedule only once that many delta
  commits completed since the last compaction (Hudi's NUM_COMMITS trigger); without it an explicit
  schedule always plans.

Run (``run_compaction``):

* ``{ts}.compaction.inflight`` (empty, as Hudi 0.x and 1.x write it). A run of an already inflight
  compaction (a killed run) first rolls it back as Java's ``rollbackInflightCompaction`` does (the base
  files that run left deleted, a ``rollback`` instant recorded, the instant back to requested with its
  plan), then runs it again; where another writer may be live, only once its heartbeat expired (recovery.py).
* Each operation's slice is read with the table reader (``read.read_slice``), bounded by the latest
  completed write instant before the compaction — the same merge a snapshot query does — and written
  as ``{fileId}_{writeToken}_{compactionInstant}.parquet`` (GZIP): meta columns kept (records keep
  their ``_hoodie_commit_time`` / seqno), ``_hoodie_file_name`` set to the new file's name, footer keys
  the bloom filter, ``hoodie_min_record_key`` / ``hoodie_max_record_key`` (``base_file``), the filter
  sized by the run's options over the table's properties.
* Completes as ``commit`` (``{ts}.commit`` / ``{ts}_{completion}.commit``) with ``HoodieCommitMetadata``:
  ``compacted`` true, ``operationType`` COMPACT, one write stat per new file (``prevCommit`` = the
  slice's base instant, ``prevBaseFile``, log counts and sizes), ``extraMetadata.schema``.

File slices after a compaction (what the readers do with them, ``file_system_view``): table version 6
names log files after their slice's base instant, so logs appended while a compaction is pending are
named after the compaction instant; version 8 names logs after their own instant and slices them by
completion time, so a log completed after the compaction was requested belongs to the new slice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import pyarrow as pa

from ...paths import as_path, read_parquet
from ...format.content.bloom import BloomFilterError, BloomOptions
from ...format.reader import open_log
from ...format.content.meta_fields import COMMIT_SEQNO, FILE_NAME, RECORD_KEY, schema_json
from ...format.grammar import BlockType
from ...format.log_file_name import make_write_token
from ..concurrency.config import concurrency_config
from ..concurrency.heartbeat import Heartbeat, is_expired, reserve_instant
from ..concurrency.lock import TableLock
from ..metadata_table import guard_change
from ..metadata.writer import check_metadata_partitions, sync_metadata_table
from ..timeline import commit_metadata as cm
from ..timeline.commit_metadata import WriteResult
from ..view.base_file import base_file_name, bloom_options, write_base_file
from ..timeline.clustering_plan import file_groups_in_pending_clustering
from ..timeline.pending import contained_slice, incomplete_commits, pending_plans
from ..properties import TableError
from ..read.keys import row_keys
from ..read.query import HudiTable, SliceTask, read_slice
from ..schema import current_schema
from ..timeline.timeline import COMMIT, COMPACTION, DELTA_COMMIT, INFLIGHT, Timeline
from ..timeline.writer import TimelineWriter
from ..timeline.compaction_plan import (  # noqa: F401 (archive.py imports the schema here)
    COMPACTION_PLAN_SCHEMA, PLAN_VERSION, CompactionOperation)
from ..workers import ordered_map
from .recovery import claim_pending, known_rollbacks, still_ours
from .rollback import rollback_to_requested
from .options import resolve_service_options

_MB = 1024 * 1024
MAX_DELTA_COMMITS = "hoodie.compact.inline.max.delta.commits"


class CompactionError(TableError):
    """A compaction cannot be scheduled or run (wrong table type, pending writes, unknown instant)."""


@dataclass(frozen=True)
class CompactionPlan:
    """A ``HoodieCompactionPlan``: the operations of one compaction instant."""
    instant: str
    operations: tuple[CompactionOperation, ...]
    extra_metadata: Mapping[str, str] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        return cm.avro_container(COMPACTION_PLAN_SCHEMA, {
            "operations": [op.to_record() for op in self.operations],
            "extraMetadata": dict(self.extra_metadata), "version": PLAN_VERSION, "strategy": None,
            "preserveHoodieMetadata": False, "missingSchedulePartitions": []})

    def folders(self, table_path, source) -> list:
        """Each operation's partition folder, the plan's paths and names checked (:func:`contained_slice`)."""
        return [contained_slice(table_path, source, f"operations[{n}]", op.partition, op.file_id, op.base_file,
                                op.log_files) for n, op in enumerate(self.operations)]

    @classmethod
    def from_bytes(cls, instant: str, data: bytes, path=None) -> "CompactionPlan":
        r = cm.first_avro_record(data, CompactionError, path or instant, "compaction plan")
        if r is None:
            raise CompactionError(path or instant, "empty compaction plan")
        return cls(instant, tuple(CompactionOperation.from_record(o) for o in r.get("operations") or ()),
                   dict(r.get("extraMetadata") or {}))


# ---- planning ------------------------------------------------------------------------------------------
def pending_compactions(table) -> dict[str, CompactionPlan]:
    """{instant: plan} of the compactions requested or inflight on the timeline (``table``: a path or a
    HudiTable)."""
    if not isinstance(table, HudiTable):
        table = HudiTable(table)
    out = {}
    for inst, req, data in pending_plans(table.timeline, COMPACTION, CompactionError):
        out[inst.requested_time] = plan = CompactionPlan.from_bytes(inst.requested_time, data, req)
        plan.folders(table.path, req)  # a planted plan is refused before any service acts on it
    return out


def _metrics(base_size: int, log_sizes: list[int]) -> dict[str, float]:
    # Hudi's CompactionStrategy.captureMetrics: sizes as longs divided by 1 MiB (whole MiB)
    total_log = sum(log_sizes)
    io_read = (base_size + total_log) // _MB
    io_write = (base_size if base_size else total_log) // _MB
    return {"TOTAL_LOG_FILES": float(len(log_sizes)), "TOTAL_IO_MB": float(io_read + io_write),
            "TOTAL_IO_READ_MB": float(io_read), "TOTAL_LOG_FILES_SIZE": float(total_log),
            "TOTAL_IO_WRITE_MB": float(io_write)}


def plan_operations(table: HudiTable) -> list[CompactionOperation]:
    """Hudi's default plan: latest slices with log files, outside pending compactions."""
    pending_groups = {(op.partition, op.file_id)
                      for plan in pending_compactions(table).values() for op in plan.operations}
    # nor file groups a pending clustering rewrites (Java's compaction plan leaves them out)
    pending_groups |= set(file_groups_in_pending_clustering(table.timeline))
    ops = []
    for s in table.view().latest_file_slices():
        if not s.log_files or (s.partition, s.file_id) in pending_groups:
            continue
        ops.append(CompactionOperation(
            s.partition, s.file_id, s.base_instant, s.base_file.name if s.base_file else None,
            tuple(lf.name for lf in s.log_files),
            _metrics(s.base_file.size if s.base_file else 0, [lf.size for lf in s.log_files])))
    return ops


def _delta_commits_since_last_compaction(timeline: Timeline) -> int:
    last = None
    for inst in timeline.completed_commits():
        if inst.action == COMMIT:
            last = inst.requested_time
    return sum(1 for i in timeline.completed_commits()
               if i.action == DELTA_COMMIT and (last is None or i.requested_time > last))


def schedule_compaction(path, options: Mapping | None = None) -> str | None:
    """Write a ``compaction.requested`` instant for the slices to compact; its time, or None when there is
    nothing to compact (or the delta-commit trigger is not reached). Under the table lock, if any: a
    compaction is scheduled only while no write is in flight (Java: the earliest inflight write must be
    later than the compaction), so no write appends to a slice that the plan already took."""
    options = resolve_service_options(path, options)
    options = dict(options or {})
    config = concurrency_config(options)
    table = HudiTable(path)
    if not table.properties.is_mor:
        raise CompactionError(table.path, f"only MERGE_ON_READ tables are compacted (this one is "
                                          f"{table.properties.get('hoodie.table.type')})")
    with TableLock(table.path, config):
        guard_change(table.path, table.properties, options, "the compaction", merges=True)
        check_metadata_partitions(table.path, table.properties, options)
        table = HudiTable(path)
        blocking = [i for i in incomplete_commits(table.timeline)]  # writes; a pending clustering is no write
        if blocking:
            i = blocking[0]
            alive = not is_expired(table.path, i.requested_time, config)
            raise CompactionError(i.path or table.path, f"write {i.requested_time} ({i.action}) is still "
                                  f"{i.state.lower()}" + (" and its writer is alive: schedule the compaction "
                                  "once it is done" if alive else ": roll it back before scheduling a compaction"))
        if options.get(MAX_DELTA_COMMITS) is not None:
            if _delta_commits_since_last_compaction(table.timeline) < int(options[MAX_DELTA_COMMITS]):
                return None
        ops = plan_operations(table)
        if not ops:
            return None
        tw = TimelineWriter(table.path, table.properties)
        instant, beat = reserve_instant(table.path, tw, config)
        try:
            plan = CompactionPlan(instant, tuple(ops))
            tw.requested(COMPACTION, instant, plan.to_bytes())
        finally:
            beat.stop()  # a scheduled compaction is not running: whoever runs it beats for it
        return instant


# ---- running -------------------------------------------------------------------------------------------
def _log_stats(paths: list[Path]) -> dict[str, int]:
    out = {"totalLogRecords": 0, "totalLogBlocks": 0, "totalCorruptLogBlock": 0, "totalRollbackBlocks": 0}
    for p in paths:
        for b in open_log(p):
            out["totalLogBlocks"] += 1
            if b.corrupt or b.block_type == BlockType.corrupt_block:
                out["totalCorruptLogBlock"] += 1
            elif b.block_type == BlockType.command_block:
                out["totalRollbackBlocks"] += 1
            elif b.block_type == BlockType.delete_block:
                out["totalLogRecords"] += len(b.deletes())
            elif b.block_type != BlockType.cdc_data_block:
                out["totalLogRecords"] += b.record_count or 0
    return out


def planned_files(folder: Path, base_file: str | None, log_files, what: str, error: type[TableError]):
    """(base file path or None, log file paths) of a slice a plan names, each one there (else ``error``)."""
    base = folder / base_file if base_file else None
    logs = [folder / name for name in log_files]
    missing = [p for p in ([base] if base else []) + logs if not p.exists()]
    if missing:
        raise error(missing[0], f"file of {what} is missing")
    return base, logs


def _compact_slice(table: HudiTable, ctx, schema: dict, instant: str, n: int, op: CompactionOperation,
                   bloom: BloomOptions) -> dict:
    """Merge one planned slice into its new base file; the write stat."""
    folder = contained_slice(table.path, f"compaction plan {instant}", "operation", op.partition, op.file_id,
                             op.base_file, op.log_files)
    base_path, log_paths = planned_files(folder, op.base_file, op.log_files, f"compaction {instant}", CompactionError)
    t0 = time.monotonic()
    task = SliceTask(op.partition, op.file_id, op.base_instant, str(base_path) if base_path else None,
                     tuple(str(p) for p in log_paths), 0)
    merged = read_slice(ctx, task)
    scan_ms = int((time.monotonic() - t0) * 1000)
    name = base_file_name(op.file_id, make_write_token(n, 0, 0), instant)
    merged = merged.set_column(merged.schema.get_field_index(FILE_NAME), FILE_NAME,
                               pa.array([name] * merged.num_rows, pa.string()))
    # a table without meta fields: keys from the record-key columns, as the merge made them (its sequence
    # numbers are null, so no row counts as updated)
    key_fields = table.properties.record_key_fields
    keys = row_keys(merged, key_fields).to_pylist()
    size = write_base_file(folder / name, merged, schema, bloom)
    base_seq: dict = {}
    if base_path is not None:
        bt = read_parquet(base_path, columns=list(dict.fromkeys([RECORD_KEY, COMMIT_SEQNO, *key_fields])))
        base_seq = dict(zip(row_keys(bt, key_fields).to_pylist(), bt.column(COMMIT_SEQNO).to_pylist()))
    out_seq = dict(zip(keys, merged.column(COMMIT_SEQNO).to_pylist()))
    updated = sum(1 for k, s in out_seq.items() if k in base_seq and base_seq[k] != s)
    stat = cm.empty_write_stat()
    stat.update({
        "fileId": op.file_id, "path": f"{op.partition}/{name}" if op.partition else name,
        "prevCommit": op.base_instant, "numWrites": merged.num_rows,
        "numDeletes": len(set(base_seq) - set(out_seq)), "numUpdateWrites": updated,
        "numInserts": merged.num_rows - updated, "totalWriteBytes": size, "fileSizeInBytes": size,
        "partitionPath": op.partition, "totalUpdatedRecordsCompacted": updated,
        "totalLogFilesCompacted": len(log_paths),
        "totalLogSizeCompacted": sum(p.stat().st_size for p in log_paths),
        "totalLogReadTimeMs": scan_ms, "prevBaseFile": op.base_file,
        "runtimeStats": {"totalScanTime": scan_ms, "totalCreateTime": 0, "totalUpsertTime": 0},
        **_log_stats(log_paths),
    })
    return stat


def run_compaction(path, instant: str | None = None, options: Mapping | None = None, *,
                   threads: int | None = None) -> WriteResult:
    """Execute a pending compaction (the earliest one when ``instant`` is None) and complete it; an inflight
    one (a killed run) is rolled back first (``rolled_back`` of the result). One that another process may be
    running (another writer may be live and its heartbeat is fresh) is refused (recovery.py). ``threads``: the
    slices merged side by side (default 1: two threads were slower, hudi_log.table.workers)."""
    options = resolve_service_options(path, options)
    config = concurrency_config(options)
    with TableLock(path, config):
        table = HudiTable(path)
        check_metadata_partitions(table.path, table.properties, options)
        if guard_change(table.path, table.properties, options, "the compaction", merges=True) is not table.properties:
            table = HudiTable(path)
        bloom = _bloom_options(table, options)
        pending = pending_compactions(table)
        if instant is None:
            if not pending:
                raise CompactionError(table.path, "no pending compaction to run")
            instant = min(pending)
        beat, rolled = None, []
        if instant in pending:
            inst = table.timeline.instant(instant)
            claim_pending(table.path, instant, inst.state, "compaction", config, inst.path)
            if inst.state == INFLIGHT:  # its run died: undo what it wrote (Java's rollbackInflightCompaction)
                rolled.append(rollback_to_requested(table.path, table.properties, inst, config).requested_time)
            beat = Heartbeat(table.path, instant, config).start()
        known = known_rollbacks(table.path, table.properties, instant)
    try:
        result = _run_compaction(path, instant, config, bloom, known, 1 if threads is None else threads)
        result.rolled_back = rolled
        return result
    finally:
        if beat is not None:
            beat.stop()


def _bloom_options(table: HudiTable, options: Mapping | None) -> BloomOptions:
    """The bloom filter of the new base files; options Java refuses are refused before anything starts."""
    try:
        return bloom_options(table.properties.to_dict(), options)
    except BloomFilterError as e:
        raise CompactionError(table.path, str(e)) from None


def read_before(table: HudiTable, instant: str, what: str, error: type[TableError]):
    """(schema, read context) a table service rewrites slices with: the table's schema, and snapshot reads
    bounded by the latest write completed before its instant (Java's maxInstantTime), strict about damage."""
    bound = max((i.requested_time for i in table.timeline.completed_commits() if i.requested_time < instant),
                default=None)
    if bound is None:
        raise error(table.path, f"{what} {instant} has no completed write before it")
    schema = current_schema(table.properties, table.timeline)
    if schema is None:
        raise error(table.path, "the table has no schema to write base files with")
    return schema, table.plan(query="snapshot", as_of=bound, validate=False, strict=True).context


def _run_compaction(path, instant: str, config, bloom: BloomOptions, known: set[str], threads: int) -> WriteResult:
    table = HudiTable(path)
    pending = pending_compactions(table)
    if instant not in pending:
        inst = table.timeline.instant(instant)
        state = f"{inst.action} {inst.state.lower()}" if inst else "not on the timeline"
        raise CompactionError(table.path, f"{instant} is not a pending compaction ({state})")
    plan = pending[instant]
    tw = TimelineWriter(table.path, table.properties)
    tw.inflight(COMPACTION, instant)
    schema, ctx = read_before(table, instant, "compaction", CompactionError)
    # the slices, side by side where asked, their stats in the plan's order (Java's Spark compactor runs one
    # task per operation; workers.py bounds the threads by the CPUs)
    stats = ordered_map(lambda n_op: _compact_slice(table, ctx, schema, instant, *n_op, bloom),
                        list(enumerate(plan.operations)), threads)
    by_partition: dict[str, list] = {}
    for s in stats:
        by_partition.setdefault(s["partitionPath"], []).append(s)
    metadata = {"partitionToWriteStats": by_partition, "compacted": True,
                "extraMetadata": {"schema": schema_json(schema)}, "operationType": "COMPACT"}
    with TableLock(table.path, config):
        still_ours(table.path, table.properties, instant, "compaction", known)
        sync_metadata_table(table.path, instant, COMPACTION, metadata, None)  # the metadata table commits first
        done = tw.complete(COMPACTION, instant, metadata)
    return WriteResult(instant, done.action, "compact", done.completion_time, stats,
                       num_inserts=sum(s["numInserts"] for s in stats),
                       num_updates=sum(s["numUpdateWrites"] for s in stats),
                       num_deletes=sum(s["numDeletes"] for s in stats))


def compact_all(path, options: Mapping | None = None) -> list[WriteResult]:
    """Run every pending compaction, oldest first (Hudi's ``compaction run`` takes the earliest pending
    plan), then schedule a new one and run it: every compaction completed, in order (empty: nothing to
    compact). A pending compaction is a killed run's and is recovered, unless another writer may be live and
    its heartbeat is fresh (then :class:`~hudi_log.table.errors.PendingServiceError`: recovery.py)."""
    options = resolve_service_options(path, options)
    _bloom_options(HudiTable(path), options)  # refused before a plan is written or run
    return run_pending_then_new(path, sorted(pending_compactions(path)), run_compaction, schedule_compaction,
                                options)


def run_pending_then_new(path, pending: list[str], run, schedule, options: Mapping | None) -> list[WriteResult]:
    """Run each pending instant of a table service, oldest first (a killed run's rolled back first; one that
    may be live elsewhere stops it: recovery.py), then schedule a new one and run it; the runs completed,
    in order."""
    done = [run(path, instant, options) for instant in pending]  # each checks its heartbeat (recovery.py)
    instant = schedule(path, options)
    if instant is not None:
        done.append(run(path, instant, options))
    return done


def compact(path, options: Mapping | None = None) -> WriteResult | None:
    """:func:`compact_all`, answering with the last compaction it completed (None: nothing to compact)."""
    done = compact_all(path, options)
    return done[-1] if done else None


@dataclass(frozen=True)
class CompactionInfo:
    """A compaction on the active timeline, for listing: its plan and state (REQUESTED, INFLIGHT or
    COMPLETED; a completed one keeps its ``.compaction.requested`` plan until archival)."""
    instant: str
    state: str
    plan: CompactionPlan | None  # None: the plan file cannot be read
    completion_time: str | None = None
    error: str | None = None

    def to_dict(self) -> dict:
        ops = self.plan.operations if self.plan else ()
        return {"instant": self.instant, "state": self.state, "completion_time": self.completion_time,
                "file_groups": len(ops), "log_files": sum(len(o.log_files) for o in ops), "error": self.error,
                "operations": [{"partition": o.partition, "file_id": o.file_id, "base_instant": o.base_instant,
                                "base_file": o.base_file, "log_files": list(o.log_files)} for o in ops]}


def list_compactions(path) -> list[CompactionInfo]:
    """Every compaction whose plan is on the active timeline, oldest first."""
    table = path if isinstance(path, HudiTable) else HudiTable(path)
    out = []
    for inst in table.timeline.instants:
        req = table.timeline.folder / f"{inst.requested_time}.{COMPACTION}.requested"
        if inst.action not in (COMPACTION, COMMIT) or not req.is_file():
            continue
        try:
            plan, error = read_compaction_plan(req), None
        except (CompactionError, OSError) as e:
            plan, error = None, str(e)
        out.append(CompactionInfo(inst.requested_time, inst.state, plan, inst.completion_time, error))
    return out


def read_compaction_plan(path) -> CompactionPlan:
    """The plan in a ``{ts}.compaction.requested`` file."""
    p = as_path(path)
    return CompactionPlan.from_bytes(p.name.split(".", 1)[0], p.read_bytes(), p)


__all__ = ["CompactionError", "CompactionInfo", "CompactionOperation", "CompactionPlan", "compact", "compact_all",
           "list_compactions", "pending_compactions",
           "plan_operations", "read_compaction_plan", "run_compaction", "schedule_compaction"]
