"""Clustering: rewrite small file groups into fewer, larger base files and replace them (Apache Hudi's
``ClusteringPlanActionExecutor`` to schedule, ``SparkExecuteClusteringCommitActionExecutor`` with
``SparkSortAndSizeExecutionStrategy`` to run), on COPY_ON_WRITE and MERGE_ON_READ tables, versions 6, 8 and 9.

Schedule (``schedule_clustering``), Java's default plan strategy for Spark
(``SparkSizeBasedClusteringPlanStrategy`` on ``PartitionAwareClusteringPlanStrategy``):

* Eligible: the latest slice of every file group, except file groups in a pending compaction or
  clustering (``ClusteringPlanStrategy.getFileSlicesEligibleForClustering``), whose base file is smaller
  than ``hoodie.clustering.plan.strategy.small.file.limit`` (300 MiB; a slice without a base file counts 0).
* Per partition, slices sorted by base file size, largest first (no base file: ``hoodie.parquet.max.file.size``);
  a group is closed when the next slice would take it past ``...max.bytes.per.group`` (2 GiB); it writes
  ceil(size / ``...target.file.max.bytes``) (1 GiB) output file groups. The last group of a partition is
  kept when it holds more than one slice, or with ``...single.group.clustering.enabled`` (default true) or
  sort columns. At most ``...max.num.groups`` (30) groups in all. No group → no instant.
* The plan (:mod:`hudi_log.table.timeline.clustering_plan`) goes to ``{ts}.replacecommit.requested``
  (version 6) or ``{ts}.clustering.requested`` (version 8), with ``...sort.columns`` in its strategy params.

Run (``run_clustering``):

* ``.inflight`` (empty, as Java writes it). A clustering already inflight was killed: it is rolled back
  first, as Java's ``rollbackInflightClustering`` does (its new files deleted, a ``rollback`` instant
  recorded, the instant back to requested with its plan), then run again; where another writer may be live,
  only once its heartbeat expired (recovery.py).
* Each group's slices are read merged (base + logs, the reader's merge rules), bounded by the latest write
  completed before the clustering instant; rows keep their meta fields (``preserveHoodieMetadata``) but
  ``_hoodie_file_name``; sorted by the sort columns when given (Java's linear sort), else in slice order;
  split evenly into the group's output file groups, new file ids ``{uuid}-0``, base files named with the
  clustering instant.
* Completes as ``replacecommit`` (``HoodieReplaceCommitMetadata``: operationType CLUSTER, one write stat per
  new file, ``partitionToReplaceFileIds`` the planned file groups), so readers drop the replaced file groups
  from then on and time travel before it still sees them; clean deletes them once past its retained commits.

Writers and a pending clustering (Java's default ``SparkRejectUpdateStrategy``): an upsert or delete into a
file group of a pending clustering is refused (:class:`ClusteringUpdateError` from the write), and a write
that began before the clustering was scheduled and changed one of its file groups fails at its commit
(the conflict check counts a clustering scheduled since as a candidate, as Java's OCC does).
Tables with a metadata table are refused, as every service here does.
"""

from __future__ import annotations

import math
import time
import uuid
from dataclasses import dataclass
from typing import Mapping

import pyarrow as pa

from ...containment import within_table
from ...format.content.bloom import BloomFilterError
from ...format.content.meta_fields import FILE_NAME, schema_json
from ...format.log_file_name import make_write_token
from ..concurrency.config import concurrency_config
from ..concurrency.heartbeat import Heartbeat, reserve_instant
from ..concurrency.lock import TableLock
from ..errors import InstantLostError
from ..metadata_table import guard_change
from ..metadata.writer import check_metadata_partitions, sync_metadata_table
from ..properties import TableError
from ..read.query import HudiTable, SliceTask, read_slice
from ..schema import current_schema
from ..timeline import commit_metadata as cm
from ..timeline.clustering_plan import (
    SORT_COLUMNS, ClusteringGroup, ClusteringPlan, SliceInfo, pending_action, pending_clusterings,
)
from ..timeline.commit_metadata import WriteResult
from ..timeline.pending import contained_slice
from ..timeline.timeline import INFLIGHT
from ..timeline.writer import TimelineWriter
from ..view.base_file import base_file_name, bloom_options, write_base_file
from ..view.file_system_view import FileSlice, parse_base_file_name, parse_log_file_name
from .compaction import pending_compactions, planned_files, read_before, run_pending_then_new
from .recovery import claim_pending, known_rollbacks, still_ours
from .rollback import rollback_to_requested
from .options import resolve_service_options

_P = "hoodie.clustering.plan.strategy."
SMALL_FILE_LIMIT, MAX_BYTES_PER_GROUP = _P + "small.file.limit", _P + "max.bytes.per.group"
TARGET_FILE_MAX_BYTES, MAX_NUM_GROUPS = _P + "target.file.max.bytes", _P + "max.num.groups"
SINGLE_GROUP = _P + "single.group.clustering.enabled"
#: HoodieClusteringConfig's defaults, and hoodie.parquet.max.file.size's
DEFAULTS = {SMALL_FILE_LIMIT: 300 * 1024 * 1024, MAX_BYTES_PER_GROUP: 2 * 1024 ** 3,
            TARGET_FILE_MAX_BYTES: 1024 ** 3, MAX_NUM_GROUPS: 30, "hoodie.parquet.max.file.size": 120 * 1024 * 1024}
_MB = 1024 * 1024


class ClusteringError(TableError):
    """A clustering cannot be scheduled or run (bad option, unknown instant, missing file)."""


@dataclass(frozen=True)
class ClusteringConfig:
    small_file_limit: int
    max_bytes_per_group: int
    target_file_max_bytes: int
    max_num_groups: int
    parquet_max_file_size: int
    single_group: bool
    sort_columns: str

    @classmethod
    def of(cls, table_path, options: Mapping | None) -> "ClusteringConfig":
        opts = dict(options or {})
        try:
            nums = [int(opts.get(k, d)) for k, d in DEFAULTS.items()]
        except ValueError as e:
            raise ClusteringError(table_path, f"a clustering size option is not a whole number: {e}") from None
        if min(nums) <= 0:
            raise ClusteringError(table_path, "clustering sizes and max.num.groups must be positive")
        single = str(opts.get(SINGLE_GROUP, "true")).lower()
        if single not in ("true", "false"):
            raise ClusteringError(table_path, f"{SINGLE_GROUP} must be true or false, not {single!r}")
        return cls(*nums, single == "true", str(opts.get(SORT_COLUMNS) or ""))


# ---- planning ------------------------------------------------------------------------------------------
def _metrics(slices: list[FileSlice], default_base: int) -> dict[str, float]:
    # FileSliceMetricUtils.addFileSliceCommonMetrics: whole MiB of reads and writes, log counts and bytes
    logs = sum(len(s.log_files) for s in slices)
    log_bytes = sum(lf.size for s in slices for lf in s.log_files)
    base = sum(s.base_file.size if s.base_file else 0 for s in slices)
    write = sum(s.base_file.size if s.base_file and s.base_file.size > 0 else default_base for s in slices)
    read_mb, write_mb = (base + log_bytes) // _MB, write // _MB
    return {"TOTAL_IO_READ_MB": float(read_mb), "TOTAL_IO_WRITE_MB": float(write_mb),
            "TOTAL_IO_MB": float(read_mb + write_mb), "TOTAL_LOG_FILES_SIZE": float(log_bytes),
            "TOTAL_LOG_FILES": float(logs)}


def _groups_for_partition(slices: list[FileSlice], cfg: ClusteringConfig) -> list[ClusteringGroup]:
    def size(s: FileSlice) -> int:
        return s.base_file.size if s.base_file else cfg.parquet_max_file_size

    out: list[tuple[list[FileSlice], int]] = []
    current: list[FileSlice] = []
    total = 0
    for s in sorted(slices, key=size, reverse=True):  # largest first: groups fill more evenly
        if current and total + size(s) > cfg.max_bytes_per_group:
            out.append((current, total))
            current, total = [], 0
            if len(out) >= cfg.max_num_groups:
                break
        current.append(s)
        total += size(s)
    if current and len(out) < cfg.max_num_groups and (len(current) > 1 or cfg.single_group or cfg.sort_columns):
        out.append((current, total))
    return [ClusteringGroup(tuple(SliceInfo(s.partition, s.file_id, s.base_file.name if s.base_file else None,
                                            tuple(lf.name for lf in s.log_files)) for s in group),
                            max(1, math.ceil(total / cfg.target_file_max_bytes)),
                            _metrics(group, cfg.parquet_max_file_size)) for group, total in out]


def plan_groups(table: HudiTable, cfg: ClusteringConfig) -> list[ClusteringGroup]:
    """The groups Java's size-based strategy plans for the table as it is now (see the module docstring)."""
    taken = {fg for _, plan in pending_clusterings(table.timeline) for fg in plan.file_groups()}
    taken |= {(op.partition, op.file_id) for p in pending_compactions(table).values() for op in p.operations}
    by_partition: dict[str, list[FileSlice]] = {}
    for s in table.view().latest_file_slices():
        if (s.partition, s.file_id) in taken:
            continue
        if (s.base_file.size if s.base_file else 0) < cfg.small_file_limit:
            by_partition.setdefault(s.partition, []).append(s)
    groups: list[ClusteringGroup] = []
    for part in sorted(by_partition):
        groups += _groups_for_partition(by_partition[part], cfg)
    return groups[:cfg.max_num_groups]


def schedule_clustering(path, options: Mapping | None = None) -> str | None:
    """Write a clustering plan (requested instant); its time, or None when nothing is worth clustering."""
    options = resolve_service_options(path, options)
    cfg = ClusteringConfig.of(path, options)
    config = concurrency_config(options)
    with TableLock(path, config):
        table = HudiTable(path)
        check_metadata_partitions(table.path, table.properties, options)
        if guard_change(table.path, table.properties, options, "the clustering", merges=True) is not table.properties:
            table = HudiTable(path)  # the metadata table was dropped (hoodie.metadata.enable=false)
        schema = current_schema(table.properties, table.timeline)
        fields = {f["name"] for f in (schema or {}).get("fields", [])}
        unknown = [c for c in cfg.sort_columns.split(",") if c.strip() and c.strip() not in fields]
        if unknown:  # refused before a plan is written that no run could finish
            raise ClusteringError(table.path, f"{SORT_COLUMNS}: column(s) {', '.join(unknown)} not in the table schema")
        groups = plan_groups(table, cfg)
        if not groups:
            return None
        tw = TimelineWriter(table.path, table.properties)
        instant, beat = reserve_instant(table.path, tw, config)
        try:
            plan = ClusteringPlan(instant, tuple(groups), {SORT_COLUMNS: cfg.sort_columns} if cfg.sort_columns else {})
            tw.requested(pending_action(table.properties.timeline_layout_version), instant, plan.to_bytes(table.path))
        finally:
            beat.stop()  # scheduled, not running: whoever runs it beats for it
        return instant


# ---- running -------------------------------------------------------------------------------------------
def _slice_task(table: HudiTable, s: SliceInfo, instant: str) -> SliceTask:
    folder = contained_slice(table.path, f"clustering plan {instant}", "slice", s.partition, s.file_id, s.base_file,
                             s.log_files)
    base, logs = planned_files(folder, s.base_file, s.log_files, f"clustering {instant}", ClusteringError)
    parsed = parse_base_file_name(base) if base else parse_log_file_name(logs[0]) if logs else None
    if parsed is None:
        raise ClusteringError(table.path, f"clustering {instant}: file group {s.file_id} has no files in the plan")
    base_instant = parsed.instant
    return SliceTask(s.partition, s.file_id, base_instant, str(base) if base else None, tuple(map(str, logs)), 0)


def _sorted(rows: pa.Table, columns: list[str], table_path, instant: str) -> pa.Table:
    unknown = [c for c in columns if c not in rows.column_names]
    if unknown:
        raise ClusteringError(table_path, f"clustering {instant}: sort column(s) {', '.join(unknown)} not in the table")
    return rows.sort_by([(c, "ascending") for c in columns]) if columns else rows


def _write_group(table: HudiTable, ctx, schema: dict, instant: str, n: int, group: ClusteringGroup, sort: list[str],
                 bloom) -> list[dict]:
    parts = {s.partition for s in group.slices}
    if len(parts) != 1:
        raise ClusteringError(table.path, f"clustering {instant}: a group spans partitions {sorted(parts)}")
    partition = parts.pop()
    tables = [read_slice(ctx, _slice_task(table, s, instant)) for s in group.slices]
    rows = _sorted(pa.concat_tables(tables, promote_options="default"), sort, table.path, instant)
    outputs = max(1, min(group.num_output_file_groups, rows.num_rows))
    per_file = math.ceil(rows.num_rows / outputs) if rows.num_rows else 0
    folder = within_table(table.path, partition, source=f"clustering plan {instant}", field="partitionPath",
                          timeline=False)
    stats = []
    for k in range(outputs if rows.num_rows else 0):
        chunk = rows.slice(k * per_file, per_file)
        if chunk.num_rows == 0:
            continue
        fid = f"{uuid.uuid4()}-0"
        name = base_file_name(fid, make_write_token(n, k, 0), instant)
        chunk = chunk.set_column(chunk.schema.get_field_index(FILE_NAME), FILE_NAME,
                                 pa.array([name] * chunk.num_rows, pa.string()))
        size = write_base_file(folder / name, chunk, schema, bloom)
        stat = cm.empty_write_stat()
        stat.update({"fileId": fid, "path": f"{partition}/{name}" if partition else name, "prevCommit": "null",
                     "numWrites": chunk.num_rows, "numInserts": chunk.num_rows, "totalWriteBytes": size,
                     "fileSizeInBytes": size, "partitionPath": partition})
        stats.append(stat)
    return stats


def run_clustering(path, instant: str | None = None, options: Mapping | None = None) -> WriteResult:
    """Execute a pending clustering (the earliest when ``instant`` is None) and complete its replacecommit.
    One whose run died is rolled back first; one that another process may be running (another writer may be
    live and its heartbeat is fresh) is refused (recovery.py)."""
    options = resolve_service_options(path, options)
    config = concurrency_config(options)
    with TableLock(path, config):
        table = HudiTable(path)
        check_metadata_partitions(table.path, table.properties, options)
        if guard_change(table.path, table.properties, options, "the clustering", merges=True) is not table.properties:
            table = HudiTable(path)
        try:
            bloom = bloom_options(table.properties.to_dict(), options)
        except BloomFilterError as e:
            raise ClusteringError(table.path, str(e)) from None
        pending = {inst.requested_time: (inst, plan) for inst, plan in pending_clusterings(table.timeline)}
        if instant is None:
            if not pending:
                raise ClusteringError(table.path, "no pending clustering to run")
            instant = min(pending)
        if instant not in pending:
            inst = table.timeline.instant(instant)
            state = f"{inst.action} {inst.state.lower()}" if inst else "not on the timeline"
            raise ClusteringError(table.path, f"{instant} is not a pending clustering ({state})")
        inst, plan = pending[instant]
        claim_pending(table.path, instant, inst.state, "clustering", config, inst.path)
        rolled = []
        if inst.state == INFLIGHT:  # its run died: undo what it wrote, then run it again
            rolled.append(rollback_to_requested(table.path, table.properties, inst, config).requested_time)
        beat = Heartbeat(table.path, instant, config).start()
        known = known_rollbacks(table.path, table.properties, instant)
    try:
        result = _run(path, inst.action, plan, config, bloom, known)
        result.rolled_back = rolled
        return result
    finally:
        beat.stop()


def _run(path, action: str, plan: ClusteringPlan, config, bloom, known: set[str]) -> WriteResult:
    table = HudiTable(path)
    instant = plan.instant
    tw = TimelineWriter(table.path, table.properties)
    tw.inflight(action, instant)
    # what the planned slices held: the writes completed before the clustering
    schema, ctx = read_before(table, instant, "clustering", ClusteringError)
    started = time.monotonic()
    stats = [s for n, g in enumerate(plan.groups)
             for s in _write_group(table, ctx, schema, instant, n, g, plan.sort_columns, bloom)]
    for s in stats:
        s["runtimeStats"] = {"totalScanTime": 0, "totalCreateTime": int((time.monotonic() - started) * 1000),
                             "totalUpsertTime": 0}
    by_partition: dict[str, list] = {}
    for s in stats:
        by_partition.setdefault(s["partitionPath"], []).append(s)
    replaced: dict[str, list[str]] = {}
    for p, fid in sorted(plan.file_groups()):
        replaced.setdefault(p, []).append(fid)
    metadata = {"partitionToWriteStats": by_partition, "compacted": False, "operationType": "CLUSTER",
                "extraMetadata": {"schema": schema_json(schema)}, "partitionToReplaceFileIds": replaced}
    with TableLock(table.path, config):
        try:
            still_ours(table.path, table.properties, instant, "clustering", known)
        except InstantLostError:
            for s in stats:  # new file groups of this run alone (their ids are new): the other run wrote its own
                (table.path / s["path"]).unlink(missing_ok=True)
            raise
        sync_metadata_table(table.path, instant, action, metadata, None)  # the metadata table commits first
        done = tw.complete(action, instant, metadata)
    return WriteResult(instant, done.action, "cluster", done.completion_time, stats,
                       num_inserts=sum(s["numInserts"] for s in stats), replaced_file_ids=replaced)


def cluster(path, options: Mapping | None = None) -> list[WriteResult]:
    """Run every pending clustering, oldest first (recovery.py), then schedule one and run it (Java's inline
    clustering); every clustering completed, in order (empty: nothing to cluster)."""
    options = resolve_service_options(path, options)
    ClusteringConfig.of(path, options)  # a bad option is refused before anything runs
    pending = [inst.requested_time for inst, _ in pending_clusterings(HudiTable(path).timeline)]
    return run_pending_then_new(path, pending, run_clustering, schedule_clustering, options)


__all__ = ["ClusteringConfig", "ClusteringError", "cluster", "plan_groups", "run_clustering", "schedule_clustering"]
