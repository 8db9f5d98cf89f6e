"""The ``hudi_log`` streaming sink: ``df.writeStream.format("hudi_log")...start(path)``, one Hudi commit
per micro-batch, exactly once (Apache Hudi's ``HoodieStreamingSink`` with ``HoodieSparkSqlWriter``).

    (df.writeStream.format("hudi_log")
       .options(**hudi_write_options)              # hoodie.datasource.write.operation: upsert (default),
       .option("checkpointLocation", ckpt)         #   insert, bulk_insert, delete
       .start(path))

How a micro-batch is written. PySpark's Python stream writer is built once per query run, and its tasks
run before the driver hears of the batch (``commit(messages, batchId)`` comes after every task), so no
Hudi instant can be begun before the tasks write. So:

* each Spark task stages its rows as an Arrow file under the table's working folder
  (``.hoodie/.aux/.hudi_log/streaming/{queryId}/{batchId}/``; the query and batch ids are the task's local
  properties) and reports the file in its commit message;
* the driver's ``commit`` then does what Java's ``addBatch`` does: if the table's newest commit for this
  sink (below) already holds this batch id, the batch is a replay and nothing is written (Java's
  ``canSkipBatch``); else the staged rows are written as one instant (:func:`hudi_log.table.write.client.
  write_table`: precombined across the whole batch, index looked up, committed last and atomically, rolled
  back on any error) whose commit metadata carries the checkpoint; then compaction and cleaning run
  inline (below). The staged files are removed whatever happened. The commit worker's second core: a new
  base file's bloom filter is made beside its Parquet encoding, and after an upsert or delete commit the next
  micro-batch's index is built ahead on a thread while Spark's tasks hand that batch over (taken only if the
  table's latest file slices are still the ones it was built for: ``index_built_ahead``).

A failing task makes Spark call ``abort``: the staged files go, no instant was begun. A driver killed
inside the write leaves an inflight instant: the next write (the restarted query's first batch) rolls it
back once its heartbeat expired (``begin_write``'s eager rollback), then writes the batch again.

Checkpoint (Java's ``HoodieStreamingSink.SINK_CHECKPOINT_KEY`` and ``CommitUtils``): the commit's
``extraMetadata["_hudi_streaming_sink_checkpoint"]`` is the JSON object ``{identifier: "batchId"}``, the
identifier being ``hoodie.datasource.write.streaming.checkpoint.identifier`` (default
``default_single_writer``); the newest completed write instant holding the identifier gives the last
batch written (``getValidCheckpointForCurrentWriter``). We also record Spark's query id
(``hudi_log.streaming.queryId``): a batch id is skipped only when that newest checkpoint came from the
same query (or from a writer that recorded none, e.g. Java), since a new query (a new checkpoint folder)
counts its batches from 0 again and Java would silently drop them. ``delete`` batches are never skipped,
as in Java.

Services after each commit (Java's streaming sink schedules them from the write client): compaction of a
MERGE_ON_READ table once ``hoodie.compact.inline.max.delta.commits`` (default 5) delta commits completed
since the last one, unless ``hoodie.datasource.compaction.async.enable`` and ``hoodie.compact.inline`` are
both false or ``hoodie.datasource.write.streaming.disable.compaction`` is true. With
``hoodie.compact.inline=true`` it runs in the commit, after the batch's own instant completed; otherwise
(async, the default) it is scheduled there and run by a background thread while later micro-batches
write, as Java's async compaction service does (stream_services.py); cleaning
(``hoodie.clean.automatic``, default true; KEEP_LATEST_COMMITS, ``hoodie.cleaner.commits.retained``).
Refused: the ``complete`` / ``update`` output modes (Java overwrites the table every batch) and operations
other than upsert / insert / bulk_insert / delete.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from typing import Mapping

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamArrowWriter, WriterCommitMessage

from ..paths import AnyPath, as_path, configure_storage, remove_tree
from ..table.errors import WriteError
from .stream_services import compactor, join_services, wait_for_foreign_compaction, with_service_lock
from .sink import say_refused

SINK_CHECKPOINT_KEY = "_hudi_streaming_sink_checkpoint"
CHECKPOINT_IDENTIFIER = "hoodie.datasource.write.streaming.checkpoint.identifier"
DEFAULT_IDENTIFIER = "default_single_writer"
#: hudi-log's own entry beside Java's checkpoint: Spark's query id
QUERY_ID_KEY = "hudi_log.streaming.queryId"
OPERATION = "hoodie.datasource.write.operation"
#: Java's streaming sink hands each micro-batch to the batch writer, so every operation it has applies
STREAM_OPERATIONS = ("upsert", "insert", "bulk_insert", "delete", "insert_overwrite", "insert_overwrite_table",
                     "delete_partition")
COMPACT_INLINE = "hoodie.compact.inline"
COMPACT_ASYNC = "hoodie.datasource.compaction.async.enable"
DISABLE_COMPACTION = "hoodie.datasource.write.streaming.disable.compaction"
DEFAULT_MAX_DELTA_COMMITS = "5"
AUTO_CLEAN = "hoodie.clean.automatic"
CLEAN_RETAINED = "hoodie.cleaner.commits.retained"
#: Spark's task-local properties naming the streaming query and its micro-batch
QUERY_ID_PROPERTY = "sql.streaming.queryId"
BATCH_ID_PROPERTY = "streaming.sql.batchId"

log = logging.getLogger(__name__)


class StreamingSinkError(WriteError):
    """The streaming write cannot run as asked (output mode, operation, an unreadable checkpoint)."""


@dataclass(frozen=True)
class SinkCheckpoint:
    """The newest checkpoint of one sink identifier on a table's timeline."""
    instant: str
    batch_id: int
    query_id: str | None


@dataclass(frozen=True)
class MicroBatchResult:
    batch_id: int
    instant: str | None  # the commit written; None when skipped (a replay) or empty
    skipped: bool = False
    compaction: str | None = None  # inline: the compaction completed; async: the one scheduled
    clean: str | None = None
    warnings: tuple[str, ...] = ()  # a background compaction that failed since the last micro-batch


def _get(options: Mapping, key: str, default=None):
    """An option by Hudi's name; Spark hands data sources their options with lower-cased keys."""
    for k in (key, key.lower()):
        if k in options:
            return options[k]
    return default


def _true(options: Mapping, key: str, default: str) -> bool:
    return str(_get(options, key, default)).strip().lower() == "true"


def sink_checkpoint(path, identifier: str = DEFAULT_IDENTIFIER) -> SinkCheckpoint | None:
    """The newest completed write instant whose checkpoint names ``identifier`` (Java's
    ``CommitUtils.getValidCheckpointForCurrentWriter``), None when there is none (or no table yet)."""
    from ..table.properties import has_properties, read_properties
    from ..table.timeline.timeline import Timeline

    if not has_properties(path):
        return None
    timeline = Timeline(as_path(path), read_properties(path))
    for inst in reversed(timeline.completed_commits()):
        extra = timeline.commit_metadata(inst).get("extraMetadata") or {}
        value = extra.get(SINK_CHECKPOINT_KEY)
        if not value:
            continue
        try:
            by_writer = json.loads(value)
            batch = by_writer.get(identifier) if isinstance(by_writer, dict) else None
            if batch is None:
                continue
            return SinkCheckpoint(inst.requested_time, int(batch), extra.get(QUERY_ID_KEY))
        except (ValueError, TypeError) as e:
            raise StreamingSinkError(inst.path or path, f"commit {inst.requested_time} holds an unreadable "
                                     f"{SINK_CHECKPOINT_KEY}: {value!r} ({e})") from None
    return None


def commit_micro_batch(path, options: Mapping, data: pa.Table | None, batch_id: int,
                       query_id: str | None) -> MicroBatchResult:
    """Write one micro-batch as one commit unless the table already holds it (see the module docstring);
    then the inline services. ``data`` None or empty: nothing is committed."""
    from ..table.write.client import write_table

    from ..table.write.index import build_index_ahead
    from ..table.write.key_lookup import index_type
    from ..table.write.options import operation_of, resolve
    from ..table.write.record_index_lookup import RECORD_INDEX

    opts = resolve({k: v for k, v in options.items() if k.lower() not in ("path", "checkpointlocation")})
    if _async_compaction(path, opts):
        opts = with_service_lock(opts)  # the writer's and the service's commits serialize under it
    identifier = str(_get(opts, CHECKPOINT_IDENTIFIER, DEFAULT_IDENTIFIER))
    op = operation_of(opts)
    if op != "delete":
        last = sink_checkpoint(path, identifier)
        if last is not None and last.batch_id >= batch_id and last.query_id in (None, query_id):
            log.warning("hudi_log: %s: batch %d of query %s is already in commit %s (batch %d): skipped",
                        path, batch_id, query_id, last.instant, last.batch_id)
            return MicroBatchResult(batch_id, None, skipped=True)
    if data is None or data.num_rows == 0:
        return MicroBatchResult(batch_id, None)
    extra = {SINK_CHECKPOINT_KEY: json.dumps({identifier: str(batch_id)})}
    if query_id:
        extra[QUERY_ID_KEY] = query_id
    if _async_compaction(path, opts):
        wait_for_foreign_compaction(path, opts)
    result = write_table(path, data, None, opts, extra_metadata=extra)
    compaction, cleaned, warnings = _services(path, opts)
    if op in ("upsert", "delete") and index_type(path, opts) != RECORD_INDEX:
        # the next micro-batch's index, built while Spark's tasks hand its rows over (this process waits
        # then); its write takes it only if the table's latest slices are still the ones it was built for
        build_index_ahead(path)
    return MicroBatchResult(batch_id, result.instant, compaction=compaction, clean=cleaned, warnings=warnings)


def _wants_compaction(path, opts: Mapping) -> bool:
    from ..table.properties import has_properties, read_properties

    wants = _true(opts, COMPACT_INLINE, "false") or _true(opts, COMPACT_ASYNC, "true")
    return (wants and not _true(opts, DISABLE_COMPACTION, "false")
            and has_properties(path) and read_properties(path).is_mor)


def _compaction_due(path, max_delta_commits: int) -> tuple[bool, list[str]]:
    """(due, the pending compactions) by Java's NUM_COMMITS trigger as its async path counts: the delta
    commits completed since the latest compaction, completed or pending (one running in the background
    counts), reach the number."""
    from ..table.properties import read_properties
    from ..table.timeline.timeline import COMMIT, DELTA_COMMIT, Timeline

    timeline = Timeline(as_path(path), read_properties(path))
    done = timeline.completed_commits()
    pending = [c.requested_time for c in timeline.pending_compactions()]
    last = max([i.requested_time for i in done if i.action == COMMIT] + pending, default="")
    due = sum(1 for i in done if i.action == DELTA_COMMIT and i.requested_time > last) >= max_delta_commits
    return due, pending


def _async_compaction(path, opts: Mapping) -> bool:
    """Java's rule: async when ``hoodie.datasource.compaction.async.enable`` (default true) and not inline.
    A table the first micro-batch creates is judged by the table type it is given."""
    from ..table.properties import has_properties

    if _true(opts, COMPACT_INLINE, "false") or not _true(opts, COMPACT_ASYNC, "true"):
        return False
    if _true(opts, DISABLE_COMPACTION, "false"):
        return False
    if has_properties(path):
        return _wants_compaction(path, opts)
    kind = _get(opts, "hoodie.datasource.write.table.type", _get(opts, "hoodie.table.type", "COPY_ON_WRITE"))
    return str(kind).upper() == "MERGE_ON_READ"


def _services(path, opts: Mapping) -> tuple[str | None, str | None, tuple[str, ...]]:
    """Compaction (MOR, every N delta commits: inline, or scheduled here and run in the background) and
    cleaning after a micro-batch's commit; (compaction, clean, warnings). A service whose plan another
    process may be running (fresh heartbeat: PendingServiceError) is left for a later micro-batch with a
    warning: the batch's commit stands."""
    from ..table.errors import PendingServiceError
    from ..table.services.clean import DEFAULT_RETAIN_COMMITS, clean
    from ..table.services.compaction import MAX_DELTA_COMMITS, compact, schedule_compaction

    compaction, warnings = None, []
    if _wants_compaction(path, opts):
        copts = dict(opts)
        copts[MAX_DELTA_COMMITS] = str(_get(opts, MAX_DELTA_COMMITS, DEFAULT_MAX_DELTA_COMMITS))
        try:
            if _async_compaction(path, opts):
                service = compactor(path)
                due, pending = _compaction_due(path, int(copts[MAX_DELTA_COMMITS]))
                if due or service.running is None:
                    failure = service.join()  # one run at a time: the next schedule waits for it
                    if failure is not None:
                        warnings.append(f"async compaction {failure.instant} failed: {failure.error} (its plan "
                                        "stays pending and is run again now)")
                        log.warning("hudi_log: %s: %s", path, warnings[-1])
                    # the plans pending now that no run of ours is in progress: the run the list above saw may
                    # have completed its plan since (it would be run again, and fail as no longer pending)
                    pending = _compaction_due(path, int(copts[MAX_DELTA_COMMITS]))[1]
                    if due:
                        compaction = schedule_compaction(path, copts)
                    # a failed run's plan first (its run checks the plan as pending_compactions does)
                    service.submit(sorted({*pending, *([compaction] if compaction else [])}), copts)
            else:
                done = compact(path, copts)
                compaction = done.instant if done is not None else None
        except PendingServiceError as e:
            log.warning("hudi_log: compaction after the micro-batch left for later: %s", e)
    cleaned = None
    if _true(opts, AUTO_CLEAN, "true"):
        try:
            cleaned = clean(path, int(_get(opts, CLEAN_RETAINED, DEFAULT_RETAIN_COMMITS)), opts)
        except PendingServiceError as e:
            log.warning("hudi_log: clean after the micro-batch left for later: %s", e)
    return compaction, cleaned, tuple(warnings)


# ---- the Spark side --------------------------------------------------------------------------------
def staging_dir(path, query_id: str, batch_id: int) -> AnyPath:
    """Where the tasks of one micro-batch stage their rows (the table's hudi-log working folder; on an
    object store a key prefix, each task's rows one object)."""
    return as_path(path) / ".hoodie" / ".aux" / ".hudi_log" / "streaming" / query_id / str(batch_id)


@dataclass
class StagedRows(WriterCommitMessage):
    query_id: str
    batch_id: int
    file: str | None  # None: the task had no rows
    rows: int = 0


class HudiStreamWriter(DataSourceStreamArrowWriter):
    """Built on the driver once per query run; pickled to the tasks, and again (a fresh one) to each
    commit / abort."""

    def __init__(self, options, schema, overwrite: bool):
        from ..table.write.options import operation_of, resolve

        opts = dict(options)
        path = opts.get("path")
        if not path:
            raise StreamingSinkError("<options>", "give the table path: df.writeStream.format('hudi_log')"
                                     ".start(path)")
        if overwrite:
            raise StreamingSinkError(path, "the complete and update output modes would overwrite the table "
                                     "every micro-batch (Java's sink does); use outputMode('append')")
        configure_storage(opts)  # fs.s3a.* options reach an s3:// table (hudi_log.paths), also the check below
        with say_refused():
            # every option checked as the batch writer checks it, and the input's columns, before the query starts
            resolved = resolve({k: v for k, v in opts.items() if k.lower() != "path"})
            op = operation_of(resolved)
            if op not in STREAM_OPERATIONS:
                raise StreamingSinkError(path, f"{OPERATION}={op} is not offered by the streaming sink (use one of "
                                         f"{', '.join(STREAM_OPERATIONS)})")
            if schema is not None:
                _check_columns(path, resolved, schema.fieldNames(), op)
        self.path = path
        self.options = opts

    def write(self, iterator) -> StagedRows:
        from pyspark import TaskContext

        configure_storage(self.options)  # tasks, commit and abort run in Python workers of their own
        tc = TaskContext.get()
        query_id = tc.getLocalProperty(QUERY_ID_PROPERTY) or "no-query"
        batch_id = int(tc.getLocalProperty(BATCH_ID_PROPERTY) or -1)
        folder = staging_dir(self.path, query_id, batch_id)
        target = folder / f"{tc.partitionId()}-{tc.attemptNumber()}-{uuid.uuid4().hex[:8]}.arrow"
        rows = 0
        writer = sink = None
        try:
            for batch in iterator:
                if batch.num_rows == 0:
                    continue
                if writer is None:
                    folder.mkdir(parents=True, exist_ok=True)
                    sink = target.open("wb")
                    writer = pa.ipc.new_file(sink, batch.schema)
                writer.write_batch(batch)
                rows += batch.num_rows
        finally:
            if writer is not None:
                writer.close()
            if sink is not None:
                sink.close()
        return StagedRows(query_id, batch_id, str(target) if writer is not None else None, rows)

    def commit(self, messages, batchId: int) -> None:
        configure_storage(self.options)
        staged = [m for m in messages if m is not None]
        query_id = next((m.query_id for m in staged), None)
        try:
            data = _read_staged([m.file for m in staged if m.file])
            with say_refused():
                self.result = commit_micro_batch(self.path, self.options, data, batchId, query_id)
        finally:
            _remove_staged(self.path, staged, query_id, batchId)

    def abort(self, messages, batchId: int) -> None:
        configure_storage(self.options)
        join_services(self.path)  # the query stops: its background compaction finishes first
        staged = [m for m in messages if m is not None]
        _remove_staged(self.path, staged, next((m.query_id for m in staged), None), batchId)


def _check_columns(path, options: Mapping, names, op: str) -> None:
    """The refusal of a query whose rows lack a record key, partition or ordering column, made when it starts
    (each micro-batch's commit would refuse it, after the query ran)."""
    from ..table.properties import has_properties, read_properties
    from ..table.write.context import check_ordering_columns
    from ..table.write.create import ORDERING_FIELDS_VERSION, ordering_field
    from ..table.write.keygen_config import key_generator
    from ..table.services.options import split_fields

    props = read_properties(path) if has_properties(path) else None
    key_generator(path, props.to_dict() if props else {}, options).check_columns(names, op)
    # a new table's ordering fields as its creation will record them (their count is checked there)
    ordering = props.ordering_fields if props else split_fields(ordering_field(options, path, ORDERING_FIELDS_VERSION))
    check_ordering_columns(path, ordering, options, names, op)


def _read_staged(files: list[str]) -> pa.Table | None:
    tables = []
    for f in files:
        with as_path(f).open("rb") as source:  # read into memory: the file is removed after the commit
            tables.append(pa.ipc.open_file(source).read_all())
    if not tables:
        return None
    return pa.concat_tables(tables, promote_options="default") if len(tables) > 1 else tables[0]


def _remove_staged(path, staged: list[StagedRows], query_id: str | None, batch_id: int) -> None:
    for m in staged:
        if m.file:
            as_path(m.file).unlink(missing_ok=True)
    if query_id:  # and what failed task attempts left
        folder = staging_dir(path, query_id, batch_id)
        remove_tree(folder)
        try:
            folder.parent.rmdir()  # the query's folder, once no batch is staged
        except OSError:
            pass
