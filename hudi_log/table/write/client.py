"""Writing Hudi tables: ``write_table`` and its split form for distributed writers (Hudi's write client,
``BaseHoodieWriteClient``: begin an instant, hand the work to tasks, commit or roll back). The tasks' side is
:mod:`.task`, the state they share :mod:`.context`.

``write_table(path, data, operation, options)`` = :func:`begin_write` + :func:`write_batches` +
``WriteTransaction.commit`` (``abort`` on any exception); being the only task, it writes its file groups
one by one, or side by side on up to ``hoodie.upsert.shuffle.parallelism`` (and its siblings) threads, at most
the CPUs (:mod:`hudi_log.table.workers`; the commit's write stats keep the one-by-one order).
The split form lets a driver begin and commit while workers write:

* ``tx = begin_write(path, operation, options, schema=None)`` (driver): creates the table if absent
  (else checks type / version / name / keys agree), rolls back failed writes left on the timeline
  (Hudi's eager rollback), allocates the instant, writes ``requested`` + ``inflight``, resolves the
  write schema and snapshots the index into ``tx.context`` — a plain, picklable ``WriteContext``
  (``defer_index=True``: built in the background, the workers wait for it).
* ``write_batches(ctx, batches, task_id)`` (worker): precombines, routes and writes file groups and
  returns the write stats (plain dicts) of the files it wrote. ``write_task(..., digest=True)`` also
  returns the :func:`key_digest` of the keys written, for a driver that did not bring one key's rows
  into one worker: :func:`repeated_hashes` over the workers' digests finds a key two of them wrote.
* ``tx.commit(stats)`` (driver): the completed instant, written last and atomically; ``tx.abort()``
  rolls the instant back.

Operations (Hudi's semantics, ``WriteOperationType``):

* ``upsert``: records are precombined (same key and partition: the greatest ordering value wins, ties to
  the later row; without an ordering field the later row; not with ``hoodie.combine.before.upsert=false``,
  which writes duplicates as they come), looked up in the index, and written as
  updates of their file group or as inserts into new file groups. An input without the table's ordering
  column is refused where rows are combined (``OrderingFieldError``), as Java's writer fails on it;
* ``insert`` / ``bulk_insert``: no index lookup, every record goes to a new file group (a key that
  already exists is then duplicated, as in Hudi); no precombine unless ``hoodie.combine.before.insert``
  is true;
* ``delete``: keys (and partition columns, else the partition the index knows) are looked up; keys not
  in the table are ignored;
* ``insert_overwrite``: records go to new file groups and every file group of the partitions written
  is replaced (``replacecommit`` with ``partitionToReplaceFileIds``).

Layout: COPY_ON_WRITE writes ``commit`` instants: an updated file group gets a new base file (same file
id, new instant) holding its old rows with the updates and deletes applied (merge mode of the table:
event-time ordering keeps the stored row when its ordering value is greater); new keys go to new file
groups. MERGE_ON_READ writes ``deltacommit`` instants: inserts go to new base Parquet files, updates
and deletes are appended to the file group's log as an Avro data block and a delete block (through
:class:`~hudi_log.log.append_handle.AppendHandle`; ``hoodie.logfile.data.block.format=parquet`` writes
Parquet data blocks; ``hoodie.logfile.data.block.max.size`` and ``hoodie.logfile.max.size`` apply). Inserts (``insert``, ``upsert``) first fill the partition's small base
files and then go to new file groups ``{uuid}-0`` of ``hoodie.parquet.max.file.size / average record
size`` records each, as Java's ``UpsertPartitioner`` packs them (:mod:`.small_files`).

Several tasks: ``write_batches`` must see every record of one COW file group in a single task (two tasks
rewriting one base file would each drop the other's changes). Call :func:`route` on each batch and
repartition by its result (the file group id of a known key, ``""`` for a new key) before writing, and
spread ``""`` rows by record key so that duplicates of one new key meet in one task (else both copies are
inserted). For MOR, tasks writing the same file group are safe: each task has its own write token and
so its own log file (a local table is never appended to, as Hudi's ``file:`` scheme does not append),
and readers merge the files of a slice. Every task opens its own new file groups.

Several writers (docs/concurrency.md): every write keeps a heartbeat (``.hoodie/.heartbeat/{instant}``)
from before its instant is requested until after it is completed or rolled back. ``begin_write`` rolls
back failed writes by ``hoodie.cleaner.policy.failed.writes`` (EAGER, the single writer's default, stops
with ConcurrentWriterError at a live writer instead of rolling it back; LAZY, forced under
``hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL``, leaves live writers be). ``commit``
completes the instant only if its heartbeat never lapsed, no rollback targets it, and (the conflict check)
no instant completed or scheduled since it began changed the same file groups; all of it under the table
lock (``hoodie.write.lock.provider``) when one is configured.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Mapping

import pyarrow as pa

from ...containment import within_table
from ...paths import as_path, configure_storage
from ...format.content.bloom import BloomFilterError
from ...format.content.meta_fields import META_FIELDS, schema_json
from ...log.append_handle import avro_to_arrow_schema
from .. import markers
from ..concurrency.config import ConcurrencyConfig, concurrency_config
from ..concurrency.conflicts import TimelineSnapshot, check_conflicts
from ..concurrency.heartbeat import Heartbeat, is_expired, reserve_instant
from ..concurrency.lock import TableLock
from ..errors import (
    ClusteringUpdateError, ConcurrentWriterError, InstantLostError, InstantTakenError, RollbackError,
    WriteConflictError, WriteError, storage_errors,
)
from ..properties import TableProperties, has_properties, read_properties
from ..schema import batch_schema, check_writable, current_schema, evolve
from ..services.archive import ArchiveConfig, archive
from ..services.rollback import (
    failed_write_candidates, live_writer_error, rollback, rollback_failed_writes, rollbacks_of,
)
from ..timeline.commit_metadata import WriteResult
from ..timeline.clustering_plan import file_groups_in_pending_clustering
from ..timeline.timeline import REPLACE_COMMIT, Instant, Timeline
from ..timeline.writer import InstantCompletedError, TimelineWriter
from ..view.base_file import bloom_options, conform
from ..workers import write_threads
from .context import (
    PARTITIONS_TO_DELETE, WriteContext, action_for, check_ordering_columns,
    normalise_options, replaced_file_groups, resolve_operation,
)
from ..metadata_table import guard_metadata_table
from ..metadata.writer import prepare_metadata_table, run_metadata_services, sync_metadata_table
from .upgrade import write_version_change
from .create import check_table_matches, create_table, folder_before_create, option, remove_new_table
from .index import DeferredIndex, KeyIndex, build_index, index_built_ahead, latest_slices
from .record_index_lookup import RECORD_INDEX, RecordIndexLookup, check_usable
from .key_lookup import index_type, plan_index
from .options import OPERATION, operation_of, resolve
from .small_files import PACKING_OPERATIONS, average_record_size, max_file_size, small_files
from .keygen_config import key_generator, stored_record_keys
from .task import refuse_clustered_updates, to_table, write_batches


#: the file a deferred index is built into, in the instant's working folder (not Java's marker folder)
INDEX_FILE = "hudi_log.index.arrow"


class WriteTransaction:
    """One write instant between ``begin_write`` and ``commit`` / ``abort``."""

    def __init__(self, context: WriteContext, rolled_back: list[str], *, config: ConcurrencyConfig,
                 heartbeat: Heartbeat, start: TimelineSnapshot, new_table: tuple | None = None):
        self.context = context
        # (the folder's names before, or None): this write created the table, and an abort takes it away
        self.new_table = new_table
        self.table_removed = False
        self.rolled_back = rolled_back
        self.config = config
        self.heartbeat = heartbeat  # beats in the process that began the write; pickles as a file-age check
        self.start = start  # the timeline as the write saw it, for the conflict check at commit
        self.done = False
        self._index_build: threading.Thread | None = None  # the driver's, never pickled

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_index_build"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._index_build = None

    def finish_index(self) -> None:
        """Wait for a deferred index build started here and remove its file: call once the write is
        committed or aborted (tasks that needed the index have it by then)."""
        self._join_index_build()
        self._index_build = None
        index = self.context.index
        if isinstance(index, DeferredIndex):
            for p in index.files():
                as_path(p).unlink(missing_ok=True)
            folder = as_path(index.path).parent
            ctx = self.context
            if folder.exists() and not any(folder.iterdir()):
                # committed or rolled back: the folder was only ours
                if not Timeline(as_path(ctx.table_path), ctx.properties).is_pending(ctx.instant):
                    folder.rmdir()

    def _join_index_build(self) -> None:
        # a deferred build started in this process reads the table: let it finish first
        if self._index_build is not None:
            self._index_build.join()

    @property
    def instant(self) -> str:
        return self.context.instant

    def commit(self, stats: list[dict], extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
        """Complete the instant. ``extra_metadata``: more entries of the commit's ``extraMetadata`` (Hudi's
        streaming sink puts its checkpoint there, ``HoodieStreamingSink``). The storage refusing the completed
        file is a :class:`~hudi_log.table.errors.StorageWriteError`, and the instant is not completed."""
        with storage_errors(self.context.table_path):
            return self._commit(stats, extra_metadata)

    def _commit(self, stats: list[dict], extra_metadata: Mapping[str, str] | None) -> WriteResult:
        ctx = self.context
        if self.done:
            raise WriteError(ctx.table_path, f"instant {ctx.instant} is already committed or aborted")
        self._join_index_build()
        props = ctx.properties
        by_partition: dict[str, list[dict]] = {}
        for s in stats:
            by_partition.setdefault(s["partitionPath"], []).append(s)
        metadata: dict = {
            "partitionToWriteStats": by_partition,
            "compacted": False,
            "extraMetadata": {**dict(extra_metadata or {}), "schema": schema_json(ctx.schema)},
            "operationType": ctx.operation.upper(),
        }
        replaced: dict[str, list[str]] = {}
        if ctx.action == REPLACE_COMMIT:
            replaced = replaced_file_groups(ctx, by_partition, {s["fileId"] for s in stats})
            metadata["partitionToReplaceFileIds"] = replaced
            try:  # an overwrite does not replace file groups a pending clustering is rewriting
                refuse_clustered_updates(ctx, [f for fids in replaced.values() for f in fids])
            except ClusteringUpdateError:
                self.abort()
                raise
        table_path = as_path(ctx.table_path)
        with TableLock(table_path, self.config):
            timeline = self._check_still_mine(props, stats)
            mine = {(s.get("partitionPath") or "", s["fileId"]) for s in stats if s.get("fileId")}
            mine.update((part, f) for part, fids in replaced.items() for f in fids)
            try:
                check_conflicts(timeline, ctx.instant, mine, self.start)
            except WriteConflictError:
                self.abort()  # under the lock still: no one completes over the files it removes
                raise
            # the metadata table's own services where Java's writer runs them (before this instant reaches it),
            # then its deltacommit, under the lock (a crash between leaves it for the next rollback of this
            # instant to undo)
            run_metadata_services(ctx.table_path, ctx.options, ctx.instant)
            sync_metadata_table(ctx.table_path, ctx.instant, ctx.action, metadata, ctx.options)
            try:
                done = TimelineWriter(ctx.table_path, props).complete(ctx.action, ctx.instant, metadata)
            except InstantCompletedError:  # the store refused to replace another writer's completed file
                self._lost_to_another_writer(stats, props)
            self.done = True
            # and after: without a lock, a process that took this writer for dead may have begun a rollback
            # between the check and the completed file; then this is no success
            late = rollbacks_of(Timeline(table_path, props), ctx.instant)
        self.heartbeat.stop()
        if late:
            raise InstantLostError(ctx.table_path, f"instant {ctx.instant} was completed, but rollback "
                                   f"{late[0].requested_time} undoes it: its data may be gone; write it again")
        markers.delete_markers(ctx.table_path, ctx.instant)
        # Java's auto-archive (hoodie.archive.automatic) after the commit: v6 archive log or v8 LSM history
        archive(ctx.table_path, ctx.options, automatic=True)
        return WriteResult(
            ctx.instant, ctx.action, ctx.operation, done.completion_time, list(stats),
            num_inserts=sum(int(s.get("numInserts") or 0) for s in stats),
            num_updates=sum(int(s.get("numUpdateWrites") or 0) for s in stats),
            num_deletes=sum(int(s.get("numDeletes") or 0) for s in stats),
            replaced_file_ids=replaced, rolled_back=list(self.rolled_back))

    def _check_still_mine(self, props: TableProperties, stats: list[dict]) -> Timeline:
        """Before completing: this writer's heartbeat never lapsed and no rollback targets its instant
        (another process that saw it expired may be undoing it); else it is not completed. Returns the
        timeline it read."""
        ctx = self.context
        lapsed = self.heartbeat.expired
        if not lapsed:
            try:
                self.heartbeat.beat_now()  # others now see a full timeout of life from here
            except FileNotFoundError:
                lapsed = True
        timeline = Timeline(as_path(ctx.table_path), props)
        undoing = rollbacks_of(timeline, ctx.instant)
        inst = timeline.instant(ctx.instant)
        if not lapsed and not undoing and inst is not None and not inst.is_completed:
            return timeline
        if inst is not None and inst.is_completed and not undoing:
            self._lost_to_another_writer(stats, props)
        if undoing or inst is None:
            self.done = True
            self.heartbeat.stop(delete=False)
            why = f"rollback {undoing[0].requested_time} undoes it" if undoing else "it is gone from the timeline"
        else:
            self.abort()
            why = (f"its heartbeat lapsed (no beat for {self.config.heartbeat_timeout_s:g} s), so another writer "
                   "could have taken it for failed; it was rolled back")
        raise InstantLostError(ctx.table_path, f"instant {ctx.instant} was not completed: {why}; write it again")

    def _lost_to_another_writer(self, stats: list[dict], props: TableProperties) -> None:
        """Another writer completed this instant first: remove the files this write made (those its stats
        name that the completed instant does not), so the other's commit reads as it wrote it, and raise."""
        ctx = self.context
        self.done = True
        self.heartbeat.stop(delete=False)  # the instant is completed: its heartbeat is the winner's to end
        timeline = Timeline(as_path(ctx.table_path), props)
        inst = timeline.instant(ctx.instant)
        theirs: set[str] = set()
        if inst is not None and inst.is_completed:
            for their in (timeline.commit_metadata(inst).get("partitionToWriteStats") or {}).values():
                for s in their or ():
                    theirs.add(s.get("path") or "")
                    theirs.update((s.get("cdcStats") or {}).keys())
        mine = [s.get("path") for s in stats] + [p for s in stats for p in (s.get("cdcStats") or {})]
        for rel in mine:
            if rel and rel not in theirs:
                within_table(ctx.table_path, rel, source=f"write stats of instant {ctx.instant}", field="path",
                             timeline=False).unlink(missing_ok=True)
        raise InstantTakenError(inst.path if inst is not None and inst.path else ctx.table_path, ctx.instant,
                                f"instant {ctx.instant} was completed by another writer first; this write's "
                                f"{len([r for r in mine if r and r not in theirs])} file(s) were removed and "
                                "nothing of it is visible; write it again")

    def abort(self) -> Instant | None:
        """Roll the instant back; no pending instant is left (only the recorded rollback)."""
        if self.done:
            return None
        self._join_index_build()
        self.done = True
        try:
            done = rollback(self.context.table_path, self.context.instant, config=self.config, force=True)
        except RollbackError:
            if not Timeline(as_path(self.context.table_path), self.context.properties).is_pending(self.context.instant):
                done = None  # another process rolled it back already
            else:
                raise
        finally:
            self.heartbeat.stop()
        if self.new_table is not None:  # the first write failed: no half-created table is left
            self.table_removed = remove_new_table(self.context.table_path, self.new_table[0])
        return done


def _arrow_schema_of(data) -> pa.Schema | None:
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return data.schema
    return None


def _check_bloom(table_path: Path, props: Mapping, opts: Mapping) -> None:
    """Bloom filter options Java refuses are refused before the write starts (the tasks use them)."""
    try:
        bloom_options(props, opts)
    except BloomFilterError as e:
        raise WriteError(table_path, str(e)) from None


def begin_write(path, operation: str | None = None, options: Mapping | None = None, *,
                schema: pa.Schema | Mapping | None = None, defer_index: bool = False,
                distributed_index: bool = False, data: pa.Table | None = None) -> WriteTransaction:
    """Start a write instant (see the module docstring). ``schema``: the incoming data's Arrow schema
    (or an Avro record schema); required for a new table, else the table's schema is used.

    ``defer_index`` (MOR upsert / delete; a distributed writer whose tasks start while the driver
    works): the index is built in a background thread of this process into a file in the instant's
    working folder (``.hoodie/.aux/.hudi_log/{instant}``, not Java's marker folder), and ``ctx.index`` is a
    :class:`~hudi_log.table.write.index.DeferredIndex` that waits for it on first use. The build reads the
    file slices the write saw when it began, so files the tasks write meanwhile do not change it. Call
    ``tx.finish_index()`` when the write is over.

    ``distributed_index`` (a writer that looks keys up in its executors, :mod:`.key_lookup`): ``ctx.index``
    is a :class:`~hudi_log.table.write.key_lookup.FileGroupIndex`, per-file-group facts only, no key read.

    ``data`` (the whole batch, where the caller holds it): its columns are cast to the write schema before the
    instant is requested, so values the table's types cannot hold stop the write before anything is written;
    its partition paths are checked then too (one leading out or hidden, :mod:`hudi_log.containment`)."""
    with storage_errors(as_path(path)):
        return _begin_write(path, operation, options, schema, defer_index, distributed_index, data)


def _begin_write(path, operation, options, schema, defer_index: bool, distributed_index: bool,
                 data) -> WriteTransaction:
    opts = resolve(options, {OPERATION: operation}, {OPERATION: "the operation"})  # every entry point's one gate
    op = operation_of(opts)
    kind = index_type(path, opts)  # refused by name before anything is written
    if op == "delete_partition" and not option(opts, PARTITIONS_TO_DELETE):
        raise WriteError(path, f"delete_partition needs {PARTITIONS_TO_DELETE} (comma-separated partition paths, "
                               f"'*' a wildcard), or records whose partitions are to go")
    config = concurrency_config(opts)  # refused before anything is written
    configure_storage(opts)  # fs.s3a.* options reach an s3:// table (hudi_log.paths)
    table_path = as_path(path)
    ArchiveConfig.of(opts, table_path)  # so is a bad archival option: the auto-archive runs after the commit
    _check_bloom(table_path, {}, opts)
    name = option(opts, "hoodie.table.name", default=None)
    avro_in = None
    if schema is not None:
        if isinstance(schema, pa.Schema):
            avro_in = batch_schema(schema, name or _existing_name(table_path) or table_path.name)
        else:
            avro_in = {k: v for k, v in dict(schema).items()}
            avro_in["fields"] = [f for f in avro_in["fields"] if f["name"] not in META_FIELDS]
        check_writable(table_path, avro_in)  # names and decimals every reader takes, before anything is written
    new_table = None
    if not has_properties(table_path):
        if avro_in is None:
            raise WriteError(table_path, "a new table needs the data's schema")
        if op in ("delete", "delete_partition"):
            raise WriteError(table_path, "cannot delete from a table that does not exist")
        new_table = (folder_before_create(table_path),)
        create_table(table_path, opts, schema=avro_in)
    try:
        tx = _begin(table_path, opts, op, config, avro_in, defer_index, distributed_index, kind, data)
    except BaseException:
        if new_table is not None:
            remove_new_table(table_path, new_table[0])
        raise
    tx.new_table = new_table
    if tx._index_build is not None:
        tx._index_build.start()
    return tx


def _begin(table_path: Path, opts: dict, op: str, config: ConcurrencyConfig, avro_in, defer_index: bool,
           distributed_index: bool, kind: str, data: pa.Table | None = None):
    """begin_write once the table exists; the index build thread is made, not started; ``kind`` is the
    checked ``hoodie.index.type`` of a distributed index."""
    props = read_properties(table_path)
    # hoodie.write.table.version other than the table's: Java's write client upgrades or downgrades first
    props, opts = write_version_change(table_path, props, opts)
    check_table_matches(props, opts)
    _check_bloom(table_path, props.to_dict(), opts)
    props = guard_metadata_table(table_path, props, opts, "the write")
    props = prepare_metadata_table(table_path, props, opts)  # created at the first write, as Java's writer does
    # the key generator, refused or resolved before anything is written (its encoding may read stored keys)
    keygen = key_generator(table_path, props.to_dict(), opts,
                           stored_keys=lambda: stored_record_keys(table_path, props, Timeline(table_path, props)))
    if data is not None and not (op == "delete" and any(f not in data.schema.names for f in keygen.partition_fields)):
        keygen.partition_path_array(data)  # refused here, before a rollback or the instant changes anything
    if avro_in is not None and op != "delete_partition":  # the input's columns, before any task starts
        names = [f["name"] for f in avro_in["fields"]]
        keygen.check_columns(names, op)
        check_ordering_columns(table_path, props.ordering_fields, opts, names, op)
    rolled = [i.requested_time for i in rollback_failed_writes(table_path, config)]
    timeline = Timeline(table_path, props)
    for inst in timeline.completed():  # what a writer killed right after its commit left behind
        if markers.marker_dir(table_path, inst.requested_time).exists():
            markers.delete_markers(table_path, inst.requested_time)
        if markers.work_dir(table_path, inst.requested_time).exists():
            markers.delete_work_dir(table_path, inst.requested_time)
    table_schema = current_schema(props, timeline)
    if op in ("delete", "delete_partition") or avro_in is None:
        if table_schema is None:
            raise WriteError(table_path, "the table has no schema yet and none was given")
        write_schema = table_schema
    else:
        allow_missing = option(opts, "hoodie.write.set.null.for.missing.columns",
                               "hoodie.datasource.write.reconcile.schema", default="false").lower() == "true"
        write_schema = evolve(table_path, table_schema, avro_in, allow_missing=allow_missing)
        # the table's record name stays, whatever the batch called it
        if table_schema is not None:
            write_schema["name"], write_schema["namespace"] = table_schema["name"], table_schema.get("namespace")
    if data is not None and op != "delete":  # a ColumnCastError naming the column, before the instant
        conform(data.drop_columns([c for c in META_FIELDS if c in data.column_names]),
                avro_to_arrow_schema(write_schema), where=table_path)
    if kind == RECORD_INDEX and op in ("upsert", "delete"):
        check_usable(table_path, props, timeline, opts)  # refused by name before the instant is requested
    instant, action, beat = _start_instant(table_path, props, op, config)
    try:
        # what the write reads (file groups, index, file sizes) is the timeline as of now, after its own
        # instant is on it: a writer that starts later sees this one; one that completes later is a candidate
        # of the conflict check at commit
        timeline = Timeline(table_path, props)
        if not config.optimistic:
            _refuse_beside_live_writers(timeline, table_path, instant, config)
        _refuse_under_a_later_compaction(timeline, table_path, instant)
        start = TimelineSnapshot.of(timeline)
        groups = latest_slices(table_path, props, timeline)
        looks_up = op in ("upsert", "delete")
        defer = defer_index and looks_up and props.is_mor and not distributed_index and kind != RECORD_INDEX
        if distributed_index:
            index = plan_index(table_path, props, timeline, groups if looks_up else {}, kind)
        elif kind == RECORD_INDEX:
            index = RecordIndexLookup(table_path) if looks_up else KeyIndex.empty()
        else:
            # an index this process built ahead for these very slices (the streaming sink's, between batches)
            ahead = index_built_ahead(table_path, props, groups) if looks_up and not defer else None
            index = ahead if ahead is not None else \
                build_index(table_path, props, timeline, groups) if looks_up and not defer else KeyIndex.empty()
        thread = None
        if defer:
            folder = markers.work_dir(table_path, instant)
            folder.mkdir(parents=True, exist_ok=True)
            index = DeferredIndex(str(folder / INDEX_FILE))
            thread = threading.Thread(target=_build_index_file, args=(table_path, props, timeline, groups, index),
                                      name=f"hudi_log index {instant}", daemon=True)
        clustering = {fid: (part, c) for (part, fid), c in file_groups_in_pending_clustering(timeline).items()}
        record_size, max_size = average_record_size(timeline, opts), max_file_size(opts)
        packing = small_files(props.is_mor, groups, opts, clustering) if op in PACKING_OPERATIONS else {}
        ctx = WriteContext(str(table_path), props.to_dict(), instant, action, write_schema, op, index, opts, groups,
                           max(max_size // record_size, 1), keygen, clustering, packing, record_size, max_size)
    except BaseException:
        try:
            rollback(table_path, instant, config=config, force=True)
        finally:
            beat.stop()
        raise
    tx = WriteTransaction(ctx, rolled, config=config, heartbeat=beat, start=start)
    tx._index_build = thread
    return tx


def _start_instant(table_path: Path, props: TableProperties, op: str, config: ConcurrencyConfig):
    """A new instant, requested and inflight, its heartbeat beating first (under the lock, if any, so that
    instant times are handed out in order)."""
    with TableLock(table_path, config):
        tw = TimelineWriter(table_path, props)
        instant, beat = reserve_instant(table_path, tw, config)
        action = action_for(props, op)
        try:
            tw.requested(action, instant)
            tw.inflight(action, instant)
        except BaseException:
            beat.stop()
            raise
    return instant, action, beat


def _refuse_beside_live_writers(timeline: Timeline, table_path: Path, instant: str,
                                config: ConcurrencyConfig) -> None:
    """A single writer checks again once its instant is on the timeline (``timeline`` is read after it): of
    two writers that start together, at least one sees the other here, and it stops (both may), so two never
    write at once unnoticed."""
    for other in failed_write_candidates(timeline):
        if other.requested_time != instant and not is_expired(table_path, other.requested_time, config):
            raise live_writer_error(timeline, table_path, other, "it started beside this write, and a single writer "
                                    "stops; concurrent writers need hoodie.write.concurrency.mode="
                                    "OPTIMISTIC_CONCURRENCY_CONTROL with a lock provider")


def _refuse_under_a_later_compaction(timeline: Timeline, table_path: Path, instant: str) -> None:
    """A compaction scheduled after this write's instant (it checked for writes in flight just before this one
    was requested): Java never schedules one later than an inflight write. Appending under it would put this
    write's blocks in the compaction's slice, named after an instant later than this one, where a read as of
    this write does not look, and the compaction did not take them either. The write stops (and is rolled
    back); the next one appends under the compaction as usual."""
    later = [c for c in timeline.pending_compactions() if c.requested_time > instant]
    if later:
        raise ConcurrentWriterError(later[0].path or table_path, (
            f"compaction {later[0].requested_time} was scheduled after this write's instant {instant} had "
            "begun; write again"))


def _build_index_file(table_path, props, timeline, groups, target: DeferredIndex) -> None:
    """The deferred build: the index file, else an error file the waiting tasks report."""
    try:
        build_index(table_path, props, timeline, groups).save(target.path)
    except BaseException as e:  # noqa: BLE001 - reported to the tasks through the file
        try:
            as_path(target.error_path).write_text(f"{type(e).__name__}: {e}")
        except OSError:
            pass  # the write was rolled back meanwhile: nobody waits


def _existing_name(table_path: Path) -> str | None:
    try:
        return read_properties(table_path).name
    except Exception:  # noqa: BLE001 - no table yet
        return None


# ---- the whole write ------------------------------------------------------------------------------
def write_table(path, data, operation: str | None = None, options: Mapping | None = None, *,
                extra_metadata: Mapping[str, str] | None = None) -> WriteResult:
    """Write ``data`` (a pyarrow Table, RecordBatch or iterable of RecordBatches) to the Hudi table at
    ``path`` (created when absent) with ``operation`` (default: ``hoodie.datasource.write.operation``, else
    upsert); ``extra_metadata`` goes into the commit's ``extraMetadata``. Any failure rolls the instant
    back and re-raises."""
    if not isinstance(data, (pa.Table, pa.RecordBatch)):
        data = to_table(list(data))
        if data is None:
            raise WriteError(path, "no data given (an empty iterable of batches has no schema)")
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    options = _partitions_to_delete(path, data, operation, options)
    tx = begin_write(path, operation, options, schema=_arrow_schema_of(data), data=data)
    try:
        # the one task: inserts fill small files; its file groups side by side only where asked (workers.py)
        threads = write_threads(tx.context.options, tx.context.operation)
        stats = write_batches(tx.context, data, 0, pack=True, threads=threads)
        return tx.commit(stats, extra_metadata)
    except BaseException as e:
        try:
            tx.abort()
        except Exception as undone:  # noqa: BLE001 - the write's own error is the one to report
            if hasattr(e, "add_note"):  # Python 3.11+
                e.add_note(f"its instant {tx.instant} could not be rolled back ({undone}); it is left pending, and "
                           "the next write rolls it back")
        raise


def _partitions_to_delete(path, data: pa.Table, operation: str | None, options: Mapping | None) -> Mapping | None:
    """A ``delete_partition`` without :data:`PARTITIONS_TO_DELETE` deletes the partitions of the records given,
    as Java's Spark writer does (their partition paths by the table's key generator)."""
    opts = normalise_options(options)
    if resolve_operation(operation, opts) != "delete_partition" or option(opts, PARTITIONS_TO_DELETE) \
            or data.num_rows == 0 or not has_properties(path):
        return options
    from .keygen_config import key_generator

    props = read_properties(as_path(path))
    keygen = key_generator(as_path(path), props.to_dict(), opts)
    parts = sorted(set(keygen.partition_path_array(data).to_pylist()))
    return {**opts, PARTITIONS_TO_DELETE: ",".join(parts)}
