"""Queries on a Hudi table: snapshot (with time travel), read-optimized and incremental.

* snapshot: latest file slice of every visible file group, base rows merged with the merged log scanner
  (MOR), bounded by ``as_of`` (a completed instant; None = the latest completed write instant).
* read_optimized: base files of those slices only (log files ignored).
* incremental: the records changed by the instants in a range, at their merged state as of the range's
  last instant (Hudi's MOR incremental relations merge, then filter on ``_hoodie_commit_time``):
  * table version ≥ 8 (Hudi 1.x Spark ``MergeOnReadIncrementalRelationV2``: ``IncrementalQueryAnalyzer``
    with ``RangeType.OPEN_CLOSED``): ``begin`` and ``end`` are *completion* times — the write instants
    that completed in (begin, end]; the snapshot is taken as of the last of them (by requested time).
    hudi-rs 0.5.0 does the same. Passing an instant's *requested* time as ``begin`` therefore includes
    that instant (it completed after it was requested).
  * table version < 8 (Hudi's V1 relation): requested times, ``begin`` exclusive, ``end`` inclusive —
    ``begin < _hoodie_commit_time <= end``, snapshot as of ``end``.
  * over commits whose files the cleaner removed (or archived ones that cannot be checked): an
    ``IncrementalCommitsGoneError`` naming them, or with ``fallback_full_table_scan`` Java's scan of the latest
    snapshot filtered by commit time (:mod:`.incremental`); never fewer rows without a word.

Reading is planned, then done one file slice at a time (the unit a parallel reader or Spark hands out)::

    plan = HudiTable(path).plan(query="snapshot", as_of=None, begin=None, end=None,
                                columns=None, filters=None)          # -> ReadPlan
    plan.schema        # pa.Schema of the result, known before any slice is read
    plan.tasks         # list[SliceTask]: picklable, paths as str, one per file slice
    read_slice(plan, task)          # -> pa.Table conforming to plan.schema
    read_slice(plan.context, task)  # the same in another process (ReadContext is picklable)
    read_plan(plan)                 # every slice, concatenated (= read_table); iter_plan(plan) streams
                                    # them in order, read in parallel with bounded look-ahead

The schema is fixed at planning time, without reading any slice's data: the newest visible base file's
Parquet schema (its footer), then the columns only older base files have (their footers — Hudi reads with
the latest table schema, and the v9 epochmillis table changes a partition column's type between files),
then the fields of the latest completed commit's Avro schema (``extraMetadata.schema``, or
``hoodie.table.create.schema``) that no base file has (log-only columns, schema evolution), all nullable,
``_hoodie_*`` meta columns first. A column that schema promoted (``int`` to ``long``, a number to
``string``...: :func:`~hudi_log.table.schema.read_type`) takes its promoted type, so base files and log
blocks of the older type read as the newer, on the Arrow and record paths alike. Rows from older files
are null-filled for columns they lack.

``columns`` projects after the merge; ``filters`` is a list of ``(column, op, value)`` with op in
``= == != < <= > >= in not in`` applied after the merge (per slice: filters are row-wise). Filters on
partition columns also prune slices at planning time when the partition path states the value
(simple/complex key generators; never for timestamp-based or custom ones, whose paths are formatted), and
column statistics skip slices no row of which can match where the metadata table keeps them
(:mod:`.stats_pruning`; ``plan.pruning`` says how many slices are read).
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections import deque
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from functools import partial
from dataclasses import dataclass, field, replace
from typing import Iterator, Mapping
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc

from ...paths import as_path, listing_scope, open_parquet, read_parquet, read_parquet_columns, read_parquet_schema
from ...format.content import avro_columnar  # noqa: F401  (loads polars with the reader, not inside the first read)
from ...format.content.avro_arrow import UnsupportedAvroType, avro_to_arrow_schema
from ..view.file_system_view import FileSlice, FileSystemView
from ..metadata_files import ENABLE
from ..view.base_file import conform
from .filters import check_columns, check_filter, filter_mask
from .incremental import incremental_scope
from .instants import query_arguments, validate_as_of
from .integrity import check_corrupt_block, committed_log_extents, missing_or_short_files, report
from .merge import NotVectorizable, TwoStepBase, merge_slice
from ..errors import QueryError
from ..properties import read_properties
from ..schema import coerce_value, read_type
from .scanner import KEY_FIELD, Entry, MergedLogScanner, combine_with_base
from .stats_pruning import StatsPruning, prune as prune_by_column_stats
from ..timeline.timeline import WRITE_ACTIONS, Timeline

QUERY_TYPES = ("snapshot", "read_optimized", "incremental")
META_COLUMNS = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
                "_hoodie_file_name")
MERGE_COLUMNS = (KEY_FIELD, "_hoodie_is_deleted", "_hoodie_operation")
_DEFAULT_PARTITIONS = {"__HIVE_DEFAULT_PARTITION__", "default"}


@dataclass(frozen=True)
class SliceTask:
    """One file slice to read: plain data (paths as str) so it pickles to a worker process."""
    partition: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]
    size: int  # bytes on disk (base + logs), for scheduling
    #: the base file's columns have exactly the plan's types (none cast on read): a Parquet reader of
    #: its own (Spark's, :mod:`hudi_log.spark.read`) may take the file as it is
    base_exact: bool = False

    @classmethod
    def of(cls, s: FileSlice, merge_logs: bool) -> "SliceTask":
        logs = tuple(str(lf.path) for lf in s.log_files) if merge_logs else ()
        size = (s.base_file.size if s.base_file else 0) + (sum(lf.size for lf in s.log_files) if merge_logs else 0)
        return cls(s.partition, s.file_id, s.base_instant, str(s.base_file.path) if s.base_file else None, logs, size)


@dataclass(frozen=True)
class ReadContext:
    """Everything a worker needs to read a slice, fixed at planning time (picklable)."""
    table_path: str
    query: str
    bound: str | None  # as_of / end (requested time); None = no completed commit
    begin: str | None  # incremental, table version < 8: exclusive lower bound on commit time
    table_version: int
    ordering_fields: tuple[str, ...]
    merge_mode: str
    key_fields: tuple[str, ...]
    completed: frozenset[str]
    timeline_start: str | None
    table_schema: pa.Schema  # the merged rows' schema (before projection)
    columns: tuple[str, ...] | None = None
    filters: tuple[tuple, ...] = ()
    commit_times: frozenset[str] | None = None  # incremental, table version ≥ 8: the instants in range
    strict: bool = False  # damage to committed files raises IntegrityError instead of a warning (.integrity)
    log_extents: tuple[tuple[str, int, str], ...] = ()  # (log file name, committed extent, commit)
    reported: frozenset[str] = frozenset()  # files the plan already reported
    ordered: bool = True  # False: a slice's rows in any order (a Spark DataFrame has none), the merge's reorder skipped
    #: incremental: the latest snapshot filtered by commit time (the fallback of .incremental), and, below table
    #: version 8, the window's upper end when it is not ``bound``
    full_table_scan: bool = False
    window_end: str | None = None

    @property
    def schema(self) -> pa.Schema:
        """The output schema: ``table_schema`` projected on ``columns``."""
        if not self.columns:
            return self.table_schema
        return pa.schema([self.table_schema.field(c) for c in self.columns])


@dataclass
class ReadPlan:
    context: ReadContext
    tasks: list[SliceTask] = field(default_factory=list)
    pruning: StatsPruning | None = None  # what column statistics skipped (.stats_pruning)

    @property
    def schema(self) -> pa.Schema:
        return self.context.schema


class HudiTable:
    """A Hudi table opened for reading: properties, timeline and file-system views."""

    def __init__(self, path, options: Mapping | None = None):
        self.path = as_path(path)
        self.properties = read_properties(self.path)
        self.timeline = Timeline(self.path, self.properties)
        # read options the file-system view takes (hoodie.metadata.enable=false: list storage)
        self.options = dict(options or {})

    def view(self, as_of: str | None = None) -> FileSystemView:
        return FileSystemView(self.path, self.properties, self.timeline, as_of, self.options)

    def _bound(self, as_of: str | None) -> str | None:
        if as_of is None:
            latest = self.timeline.latest_completed_commit()
            return latest.requested_time if latest else None
        return as_of

    def plan(self, query: str = "snapshot", as_of=None, begin=None, end=None, columns=None,
             filters=None, *, validate: bool = True, strict: bool = False,
             fallback_full_table_scan: bool = False) -> ReadPlan:
        """The slices to read for a query, and the result's schema (no slice data is read).

        Instant arguments are checked first (:mod:`.instants`): a malformed time, an option the query
        does not take and a time travel Hudi refuses raise :class:`~hudi_log.table.errors.QueryError`.
        ``validate=False`` is for the table services, which plan as of a completed instant of their own.
        A committed file found missing or damaged (:mod:`.integrity`) is a warning, or with ``strict`` an
        :class:`~hudi_log.table.errors.IntegrityError`. An incremental range whose commits' files the cleaner
        removed raises :class:`~hudi_log.table.errors.IncrementalCommitsGoneError`, or, with
        ``fallback_full_table_scan`` (Java's ``hoodie.datasource.read.incr.fallback.fulltablescan.enable``), is
        read from the latest snapshot filtered by commit time (:mod:`.incremental`).
        """
        if query not in QUERY_TYPES:
            raise QueryError(self.path, f"unknown query type {query!r} (use {', '.join(QUERY_TYPES)})")
        props = self.properties
        args = query_arguments(self.path, query, as_of, begin, end, check=validate)
        as_of, begin, end = args["as_of"], args["begin"], args["end"]
        if validate and as_of is not None:
            validate_as_of(self.timeline, as_of)
        commit_times, scope = None, None
        if query == "incremental":
            if begin is None:
                raise QueryError(self.path, "an incremental query needs begin")
            scope = incremental_scope(self.path, props, self.timeline, begin, end, self._bound(None),
                                      fallback_full_table_scan)
            commit_times, bound = scope.commit_times, scope.bound
        else:
            bound = self._bound(as_of)
        cols = tuple(columns) if columns else None
        flts = tuple(tuple(f) for f in filters or ())
        for f in flts:
            check_filter(f)
        base_ctx = dict(table_path=str(self.path), query=query, bound=bound,
                        begin=begin,
                        table_version=props.version, ordering_fields=tuple(props.ordering_fields),
                        merge_mode=props.merge_mode, key_fields=tuple(props.record_key_fields),
                        completed=frozenset(self.timeline.completed_commit_times()),
                        timeline_start=self._scan_start(),
                        columns=cols, filters=flts, commit_times=commit_times, strict=strict,
                        full_table_scan=bool(scope and scope.full_table_scan),
                        window_end=scope.window_end if scope else None)
        if bound is None:  # no completed commit yet: an empty table
            ctx = ReadContext(table_schema=_empty_schema(props), **base_ctx)
            check_columns(ctx, cols, flts)
            return ReadPlan(ctx, [])
        for inst in self.timeline.completed_commits():  # a corrupt commit file is an error naming it
            if inst.requested_time <= bound:
                self.timeline.commit_metadata(inst)
        merge_logs = query != "read_optimized" and props.is_mor
        # every read, the services' too (a compaction of damaged slices would make the loss permanent)
        with listing_scope():  # on an object store both list the partition folders: one LIST each serves
            findings = missing_or_short_files(self.path, self.timeline, bound)
            report(findings, strict)
            base_ctx.update(reported=frozenset(f.path for f in findings),
                            log_extents=committed_log_extents(self.timeline) if merge_logs else ())
            fs = self.view(bound)
            if findings and fs.listing_source == "metadata":  # it lists what storage lacks: plan from storage
                fs = FileSystemView(self.path, self.properties, self.timeline, bound, {**self.options, ENABLE: "false"})
        slices = fs.latest_file_slices()
        file_types: dict[str, dict] = {}
        ctx = ReadContext(table_schema=self._table_schema(slices, bound, merge_logs, file_types), **base_ctx)
        check_columns(ctx, cols, flts)
        table_types = {f.name: f.type for f in ctx.table_schema}
        tasks = [SliceTask.of(s, merge_logs) for s in slices]
        tasks = [replace(t, base_exact=all(table_types.get(n) == typ for n, typ in file_types[t.base_file].items()))
                 if t.base_file in file_types else t for t in tasks]
        tasks = [t for t in tasks if t.base_file or t.log_files]
        tasks = [t for t in tasks if not self._pruned(t.partition, ctx)]
        tasks, pruning = prune_by_column_stats(self.path, props, self.timeline, tasks, flts, self.options)
        return ReadPlan(ctx, tasks, pruning)

    def _scan_start(self) -> str | None:
        """Where the scanner's "archived" range ends: the first completed write instant (Java's
        ``containsOrBeforeTimelineStarts`` on the completed commits timeline), or an older pending write
        (Java also skips blocks of inflight instants). Not the oldest instant of any action: a clean or
        rollback older than archived commits would otherwise hide their blocks."""
        starts = [self.timeline.timeline_start()]
        starts += [i.requested_time for i in self.timeline.pending() if i.action in WRITE_ACTIONS][:1]
        starts = [t for t in starts if t is not None]
        return min(starts) if starts else None

    def _commit_schema(self, bound: str) -> dict | None:
        """The Avro schema of the latest completed commit ≤ bound that records one."""
        for inst in reversed(self.timeline.completed_commits()):
            if inst.requested_time > bound:
                continue
            s = (self.timeline.commit_metadata(inst).get("extraMetadata") or {}).get("schema")
            if s:
                try:
                    return json.loads(s)
                except ValueError:
                    continue
        s = self.properties.get("hoodie.table.create.schema")
        try:
            return json.loads(s) if s else None
        except ValueError:
            return None

    def _table_schema(self, slices: list[FileSlice], bound: str, merge_logs: bool,
                      file_types: dict[str, dict] | None = None) -> pa.Schema:
        """The plan's schema (see the module's docstring); ``file_types`` gets each base file's column
        types by its path, from the footers read here."""
        order = sorted((s.base_file for s in slices if s.base_file is not None), key=lambda b: b.instant)
        target: pa.Schema | None = None
        for bf in reversed(order):
            sch = read_parquet_schema(bf.path)
            sch = pa.schema([sch.field(i) for i in range(len(sch))])  # drop file metadata
            if file_types is not None:
                file_types[str(bf.path)] = {f.name: f.type for f in sch}
            target = sch if target is None else pa.schema(
                list(target) + [f for f in sch if f.name not in target.names])
        fields = list(target) if target is not None else [pa.field(n, pa.string()) for n in META_COLUMNS]
        avro = self._commit_schema(bound)
        if avro is not None:
            try:
                latest = avro_to_arrow_schema(avro)
            except (UnsupportedAvroType, KeyError, TypeError):  # e.g. a multi-branch union: no columns from it
                latest = pa.schema([])
            by_name = {f.name: f for f in latest}
            # every file reads with the latest schema (Hudi's readers): promoted columns take its type
            fields = [f.with_type(read_type(f.type, by_name[f.name].type)) if f.name in by_name else f
                      for f in fields]
            if merge_logs or target is None:
                names = {f.name for f in fields}
                fields += [f for f in latest if f.name not in names]
        return _meta_first_schema(pa.schema([f.with_nullable(True) for f in fields]))

    def _pruned(self, partition: str, ctx: ReadContext) -> bool:
        """True when a filter on a partition column excludes every row of this partition path."""
        pfields = self.properties.partition_fields
        if not ctx.filters or not pfields or not partition or not _plain_partition_paths(self.properties):
            return False
        parts = partition.split("/")
        if len(parts) != len(pfields):
            return False
        values = {}
        for name, seg in zip(pfields, parts):
            if "=" in seg and seg.split("=", 1)[0] == name:
                seg = seg.split("=", 1)[1]
            elif self.properties.hive_style_partitioning:
                return False
            values[name] = unquote(seg)
        for col, op, val in ctx.filters:
            if col not in values or col not in ctx.table_schema.names or values[col] in _DEFAULT_PARTITIONS:
                continue
            typ = ctx.table_schema.field(col).type
            try:
                arr = pa.array([values[col]]).cast(typ)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                continue
            try:
                keep = filter_mask(arr, op, val)[0].as_py()
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, TypeError):
                continue
            if keep is False:
                return True
        return False

    def read(self, query: str = "snapshot", as_of=None, begin=None, end=None, columns=None, filters=None,
             strict: bool = False, fallback_full_table_scan: bool = False) -> pa.Table:
        """Plan (instant arguments checked) and read every slice."""
        return read_plan(self.plan(query=query, as_of=as_of, begin=begin, end=end, columns=columns, filters=filters,
                                   strict=strict, fallback_full_table_scan=fallback_full_table_scan))


def _plain_partition_paths(props) -> bool:
    """Partition paths hold the column values as written (simple / complex key generators only)."""
    kg = (props.get("hoodie.table.keygenerator.class") or props.get("hoodie.table.keygenerator.type") or "").lower()
    if props.get("hoodie.datasource.write.partitionpath.urlencode", "false").lower() == "true":
        return False
    return not kg or any(k in kg for k in ("simple", "complex"))


def iter_plan(plan: ReadPlan, workers: int | None = None, processes: bool = False) -> Iterator[pa.Table]:
    """The slices of a plan, read ``workers`` at a time (default: one per CPU), yielded in plan order.

    At most ``2 * workers`` slices are in flight, so memory stays bounded by the largest slices rather
    than the table. Threads by default: polars, Arrow and Parquet release the GIL for the heavy work
    (measured faster than processes here, whose results must be pickled back); ``processes=True`` runs
    each slice in a worker process (the context and tasks are picklable).
    """
    tasks = list(plan.tasks)
    n = min(workers or os.cpu_count() or 1, len(tasks))
    if n <= 1:
        for t in tasks:
            yield read_slice(plan.context, t)
        return
    # worker processes are spawned: forking a process whose Arrow / polars thread pools are running
    # can deadlock the child
    pool = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) if processes \
        else ThreadPoolExecutor(n)
    with pool:
        pending: deque = deque()
        it = iter(tasks)
        for t in it:
            pending.append(pool.submit(read_slice, plan.context, t))
            if len(pending) >= 2 * n:
                break
        while pending:
            yield pending.popleft().result()
            nxt = next(it, None)
            if nxt is not None:
                pending.append(pool.submit(read_slice, plan.context, nxt))


def read_plan(plan: ReadPlan, workers: int | None = None, processes: bool = False) -> pa.Table:
    """Every slice of a plan, concatenated in plan order (slices read in parallel: :func:`iter_plan`)."""
    parts = list(iter_plan(plan, workers, processes))
    if not parts:
        return plan.schema.empty_table()
    return pa.concat_tables(parts)


def read_slice(plan_or_context: ReadPlan | ReadContext, task: SliceTask, vectorized: bool = True) -> pa.Table:
    """One file slice merged, windowed (incremental), filtered and projected; conforms to the plan's schema.

    ``vectorized`` merges on Arrow (merge.py) where that is exact, else (and with False) record by record.
    """
    ctx = plan_or_context.context if isinstance(plan_or_context, ReadPlan) else plan_or_context
    schema = ctx.table_schema
    if vectorized:  # with a projection, only its columns and the merge's are read and decoded
        table = _merge_projected(ctx, task, _read_schema(ctx) or schema, _out_columns(ctx))
        if table is not None:
            return _finish(ctx, table)
    # a column Arrow cannot cast is kept, as Hudi's readers tolerate it
    base = conform(read_parquet(task.base_file), schema, strict=False) if task.base_file is not None else None
    return _finish(ctx, _rows_table(ctx, _slice_rows(ctx, task, base), schema))


def _read_schema(ctx: ReadContext) -> pa.Schema | None:
    """The columns a projected read of a slice needs (the projection's, the filters', the merge's: record keys,
    ordering values, delete markers; an incremental query's commit time), in the table's order; None without
    a projection, or where it needs every column. The merge picks whole records (event-time or commit-time
    ordering), so which record wins never depends on the columns left out."""
    if not ctx.columns:
        return None
    schema = _merge_schema(ctx, _out_columns(ctx))
    return None if len(schema) == len(ctx.table_schema) else schema


def _out_columns(ctx: ReadContext) -> list[str] | None:
    """The columns a projected read hands on past the merge (the projection's, the filters', an incremental
    query's commit time), in the table's order; None without a projection."""
    if not ctx.columns:
        return None
    wanted = set(ctx.columns) | {f[0] for f in ctx.filters} | ({"_hoodie_commit_time"} if ctx.query == "incremental"
                                                                 else set())
    return [n for n in ctx.table_schema.names if n in wanted]


def _merge_schema(ctx: ReadContext, extra) -> pa.Schema:
    """The table's columns in ``extra`` and those every merge reads (:data:`MERGE_COLUMNS`, the record-key and
    ordering fields), in the table's order."""
    wanted = set(extra) | set(MERGE_COLUMNS) | set(ctx.key_fields) | set(ctx.ordering_fields)
    return pa.schema([f for f in ctx.table_schema if f.name in wanted])


def _merge_projected(ctx: ReadContext, task: SliceTask, schema: pa.Schema, out=None) -> pa.Table | None:
    """The slice merged on ``schema``'s columns alone (the table's, or a projection): only those read from the
    base file (a column the file lacks is null-filled) and decoded from the log blocks; None where the
    vectorized merge declines it. With logs to merge, the base file is read in two steps
    (:class:`~hudi_log.table.read.merge.TwoStepBase`): its columns beyond the merge's only where a base row
    survives. ``out``: the columns handed on (:func:`_out_columns`), by default all of ``schema``'s."""
    if task.base_file is None:
        return _merge_vectorized(ctx, task, None, schema, out)
    if not task.log_files:
        return _read_base(task.base_file, schema)
    with open_parquet(task.base_file) as f:  # one footer read for both steps
        return _merge_vectorized(ctx, task, TwoStepBase(partial(_read_base, task.base_file, f=f), schema), schema, out)


def _read_base(path, schema: pa.Schema, f=None) -> pa.Table:
    """The base file's columns of ``schema``, conformed (a column the file lacks null-filled); from ``f``, the
    file already open, where given."""
    t = read_parquet_columns(f, path, schema.names, present_only=True) if f is not None else \
        read_parquet(path, columns=schema.names, present_only=True)
    return conform(t, schema, strict=False)


def _rows_table(ctx: ReadContext, rows: list[dict], schema: pa.Schema) -> pa.Table:
    """The merged records as a table of ``schema``. Records decoded with an older writer schema hold the
    older type of a promoted column (an int where the table now says string): they are converted as the
    vectorized path casts them (:func:`~hudi_log.table.schema.coerce_value`)."""
    try:
        return pa.Table.from_pylist([{k: r.get(k) for k in schema.names} for r in rows], schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    cols = []
    for f in schema:
        vals = [r.get(f.name) for r in rows]
        try:
            cols.append(pa.array(vals, f.type))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            try:
                cols.append(pa.array([coerce_value(v, f.type) for v in vals], f.type))
            except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError) as e:
                raise QueryError(ctx.table_path, f"column {f.name!r} holds values that cannot be read as "
                                 f"{f.type}: {e}") from e
    return pa.Table.from_arrays(cols, schema=schema)


def _merge_vectorized(ctx: ReadContext, task: SliceTask, base: pa.Table | TwoStepBase | None,
                      schema: pa.Schema, out=None) -> pa.Table | None:
    """The slice merged on Arrow (``schema``: the table's or a projection of it), None where it needs
    the record-by-record merge."""
    if not task.log_files:
        return base if base is not None else schema.empty_table()
    try:
        return merge_slice(base, _scanner(ctx, task), schema, out, ordered=ctx.ordered)
    except NotVectorizable:
        return None


#: the columns a merge reads besides the record-key and ordering fields
def _scanner(ctx: ReadContext, task: SliceTask) -> MergedLogScanner:
    return MergedLogScanner(
        task.log_files, table_version=ctx.table_version, ordering_fields=list(ctx.ordering_fields),
        merge_mode=ctx.merge_mode, latest_instant=ctx.bound, completed_instants=set(ctx.completed),
        timeline_start=ctx.timeline_start, key_fields=list(ctx.key_fields),
        on_corrupt=_corrupt_check(ctx) if ctx.log_extents else None)


def _corrupt_check(ctx: ReadContext):
    extents = {name: (size, inst) for name, size, inst in ctx.log_extents}
    return lambda path, block: check_corrupt_block(path, block.offset, block.length, extents, ctx.strict,
                                                   ctx.reported)


def _slice_rows(ctx: ReadContext, task: SliceTask, base: pa.Table | None) -> list[dict]:
    """The record-by-record merge of one slice (``base``: its base file conformed to the table schema,
    then keys only the logs hold)."""
    base_rows = base.to_pylist() if base is not None else []
    if not task.log_files:
        return base_rows
    sc = _scanner(ctx, task)
    merged = sc.scan()
    rows = []
    seen = set()
    for r in base_rows:
        key = r.get(KEY_FIELD) or sc._key_of(r)
        seen.add(key)
        log_entry = merged.get(key)
        if log_entry is None:
            rows.append(r)
            continue
        win = combine_with_base(Entry(key, r, sc._ordering_of(r)), log_entry, sc.merge_mode, sc.table_version)
        if win.record is not None:
            rows.append(win.record)
    for key, e in merged.items():
        if key not in seen and e.record is not None:
            rows.append(e.record)
    return rows


def _finish(ctx: ReadContext, table: pa.Table) -> pa.Table:
    if ctx.query == "incremental":
        ct = table.column("_hoodie_commit_time")
        if ctx.commit_times is not None:
            mask = pc.is_in(ct, value_set=pa.array(sorted(ctx.commit_times), pa.string()))
        else:
            mask = pc.and_(pc.greater(ct, ctx.begin), pc.less_equal(ct, ctx.window_end or ctx.bound))
        table = table.filter(pc.fill_null(mask, False))
    for col, op, val in ctx.filters:
        table = table.filter(pc.fill_null(filter_mask(table.column(col), op, val), False))
    if ctx.columns:
        table = table.select(list(ctx.columns))
    return table


def _meta_first_schema(s: pa.Schema) -> pa.Schema:
    meta = [f for f in s if f.name.startswith("_hoodie_")]
    return pa.schema(meta + [f for f in s if not f.name.startswith("_hoodie_")])


def _empty_schema(props) -> pa.Schema:
    fields = [pa.field(n, pa.string()) for n in META_COLUMNS]
    schema_json = props.get("hoodie.table.create.schema")
    if schema_json:
        try:
            fields += [f for f in avro_to_arrow_schema(json.loads(schema_json)) if f.name not in META_COLUMNS]
        except (ValueError, KeyError, TypeError):  # the empty table still has the meta columns
            pass
    return pa.schema(fields)


def read_table(path, query: str = "snapshot", as_of=None, begin=None, end=None, columns=None,
               filters=None, strict: bool = False, fallback_full_table_scan: bool = False,
               options: Mapping | None = None) -> pa.Table:
    """Read a Hudi table as a pyarrow Table (``_hoodie_*`` columns first). A committed file found missing or
    damaged is an ``IntegrityWarning``, with ``strict`` an ``IntegrityError`` (:mod:`.integrity`); an incremental
    range over cleaned commits an ``IncrementalCommitsGoneError`` or the fallback's scan (:mod:`.incremental`);
    ``options``: ``hoodie.metadata.enable``."""
    return HudiTable(path, options).read(query=query, as_of=as_of, begin=begin, end=end, columns=columns,
                                         filters=filters, strict=strict,
                                         fallback_full_table_scan=fallback_full_table_scan)
