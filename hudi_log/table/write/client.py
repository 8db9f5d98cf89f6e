"""Writing Hudi tables: ``write_table`` and its split form for distributed writers.

``write_table(path, data, operation, options)`` = :func:`begin_write` + :func:`write_batches` +
``WriteTransaction.commit`` (``abort`` on any exception). The split form lets a driver begin and commit
while workers write:

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
  updates of their file group or as inserts into new file groups;
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
Parquet data blocks; ``hoodie.logfile.data.block.max.size`` and ``hoodie.logfile.max.size`` apply). New file groups are ``{uuid}-0`` and hold at most
``hoodie.parquet.max.file.size / record size estimate`` records (the estimate from the last commit's
bytes per record, else ``hoodie.copyonwrite.record.size.estimate``, 1024). Hudi would also pack inserts
into small existing files; we always open new file groups.

Several tasks: ``write_batches`` must see every record of one COW file group in a single task (two tasks
rewriting one base file would each drop the other's changes). Call :func:`route` on each batch and
repartition by its result (the file group id of a known key, ``""`` for a new key) before writing, and
spread ``""`` rows by record key so that duplicates of one new key meet in one task (else both copies are
inserted). For MOR, tasks writing the same file group are safe: each task has its own write token and
so its own log file (a local table is never appended to, as Hudi's ``file:`` scheme does not append),
and readers merge the files of a slice. Every task opens its own new file groups.

One writer at a time (Hudi's default single-writer mode with eager rollback of failed writes):
``begin_write`` rolls back every pending write instant it finds, so a write still running elsewhere
would be rolled back under it.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...format.content.deletes import DeleteRecord, OrderingKind
from ...format.content.meta_fields import META_FIELDS, RECORD_KEY, schema_json
from ...log.append_handle import AppendHandle, avro_to_arrow_schema
from ...format.log_file_name import make_write_token
from ...log.storage import BackgroundSyncs
from .. import markers
from ..view.base_file import base_file_name, conform, with_meta_columns, write_base_file, arrow_schema_for
from ..timeline.commit_metadata import empty_write_stat, write_stats
from .create import (
    check_table_matches, create_table, drop_metadata_table_if_asked, option, write_partition_metadata,
)
from .index import DeferredIndex, FileGroupInfo, KeyIndex, build_index, latest_slices, repeats
from .keygen import KeyGenerator
from ..properties import TableProperties, read_properties
from ..services.rollback import rollback, rollback_pending, table_storage
from ..read.scanner import EVENT_TIME, ordering_ge
from ..schema import batch_schema, current_schema, evolve
from ..timeline.timeline import COMMIT, DELTA_COMMIT, REPLACE_COMMIT, Instant, Timeline
from ..timeline.writer import TimelineWriter
from ..errors import WriteError

OPERATIONS = ("insert", "upsert", "delete", "bulk_insert", "insert_overwrite")
DEFAULT_MAX_FILE_SIZE = 120 * 1024 * 1024  # hoodie.parquet.max.file.size
DEFAULT_RECORD_SIZE_ESTIMATE = 1024  # hoodie.copyonwrite.record.size.estimate


@dataclass
class WriteContext:
    """What a worker needs to write its share of one instant (plain data; pickles)."""
    table_path: str
    props: dict[str, str]
    instant: str
    action: str
    schema: dict  # the Avro table schema (no meta fields) this instant writes
    operation: str
    index: KeyIndex | DeferredIndex  # record key -> (partition, file id)
    options: dict[str, str]
    file_groups: dict[str, FileGroupInfo] = field(default_factory=dict)  # file id -> latest slice
    records_per_file: int = DEFAULT_MAX_FILE_SIZE // DEFAULT_RECORD_SIZE_ESTIMATE

    @property
    def properties(self) -> TableProperties:
        return TableProperties(self.props, Path(self.table_path) / ".hoodie" / "hoodie.properties")

    @property
    def keygen(self) -> KeyGenerator:
        p = self.properties
        return KeyGenerator(self.table_path, tuple(p.record_key_fields), tuple(p.partition_fields),
                            p.hive_style_partitioning)


@dataclass
class WriteResult:
    instant: str
    action: str
    operation: str
    completion_time: str | None
    write_stats: list[dict]
    num_inserts: int = 0
    num_updates: int = 0
    num_deletes: int = 0
    replaced_file_ids: dict[str, list[str]] = field(default_factory=dict)
    rolled_back: list[str] = field(default_factory=list)  # rollback instants run first (eager rollback)


def _normalise_options(options: Mapping | None) -> dict[str, str]:
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in (options or {}).items()}


def _operation(operation: str | None, options: Mapping) -> str:
    op = (operation or option(options, "hoodie.datasource.write.operation", default="upsert")).lower()
    if op not in OPERATIONS:
        raise WriteError("<options>", f"unknown operation {op!r} (one of {', '.join(OPERATIONS)})")
    return op


def _action(props: TableProperties, operation: str) -> str:
    if operation == "insert_overwrite":
        return REPLACE_COMMIT
    return DELTA_COMMIT if props.is_mor else COMMIT


def _records_per_file(props: TableProperties, timeline: Timeline, options: Mapping) -> int:
    max_size = int(option(options, "hoodie.parquet.max.file.size", default=DEFAULT_MAX_FILE_SIZE))
    estimate = int(option(options, "hoodie.copyonwrite.record.size.estimate", default=DEFAULT_RECORD_SIZE_ESTIMATE))
    # Hudi: bytes per record of the latest commit that wrote some (averageBytesPerRecord)
    for inst in reversed(timeline.completed_commits()):
        try:
            md = timeline.commit_metadata(inst)
        except Exception:  # noqa: BLE001
            continue
        stats = write_stats(md)
        n = sum(int(s.get("numWrites") or 0) for s in stats)
        b = sum(int(s.get("totalWriteBytes") or 0) for s in stats)
        if n > 0 and b > 0:
            estimate = max(b // n, 1)
            break
    return max(max_size // estimate, 1)


#: the file a deferred index is built into, in the instant's marker folder (markers are ``*.marker.*``)
INDEX_FILE = "hudi_log.index.arrow"


class WriteTransaction:
    """One write instant between ``begin_write`` and ``commit`` / ``abort``."""

    def __init__(self, context: WriteContext, rolled_back: list[str]):
        self.context = context
        self.rolled_back = rolled_back
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
                if os.path.exists(p):
                    os.unlink(p)
            folder = Path(index.path).parent
            ctx = self.context
            if folder.exists() and not any(folder.iterdir()):
                inst = Timeline(Path(ctx.table_path), ctx.properties).instant(ctx.instant)
                if inst is None or inst.is_completed:  # committed or rolled back: the folder was only ours
                    folder.rmdir()

    def _join_index_build(self) -> None:
        # a deferred build started in this process reads the table: let it finish first
        if self._index_build is not None:
            self._index_build.join()

    @property
    def instant(self) -> str:
        return self.context.instant

    def commit(self, stats: list[dict]) -> WriteResult:
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
            "extraMetadata": {"schema": schema_json(ctx.schema)},
            "operationType": ctx.operation.upper(),
        }
        replaced: dict[str, list[str]] = {}
        if ctx.action == REPLACE_COMMIT:
            written = {s["fileId"] for s in stats}
            for g in ctx.file_groups.values():
                if g.partition in by_partition and g.file_id not in written:
                    replaced.setdefault(g.partition, []).append(g.file_id)
            metadata["partitionToReplaceFileIds"] = {p: sorted(v) for p, v in replaced.items()}
        tw = TimelineWriter(ctx.table_path, props)
        done = tw.complete(ctx.action, ctx.instant, metadata)
        markers.delete_markers(ctx.table_path, ctx.instant)
        self.done = True
        return WriteResult(
            ctx.instant, ctx.action, ctx.operation, done.completion_time, list(stats),
            num_inserts=sum(int(s.get("numInserts") or 0) for s in stats),
            num_updates=sum(int(s.get("numUpdateWrites") or 0) for s in stats),
            num_deletes=sum(int(s.get("numDeletes") or 0) for s in stats),
            replaced_file_ids=replaced, rolled_back=list(self.rolled_back))

    def abort(self) -> Instant | None:
        """Roll the instant back; no pending instant is left (only the recorded rollback)."""
        if self.done:
            return None
        self._join_index_build()
        self.done = True
        return rollback(self.context.table_path, self.context.instant)


def _arrow_schema_of(data) -> pa.Schema | None:
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return data.schema
    return None


def begin_write(path, operation: str | None = None, options: Mapping | None = None, *,
                schema: pa.Schema | Mapping | None = None, defer_index: bool = False) -> WriteTransaction:
    """Start a write instant (see the module docstring). ``schema``: the incoming data's Arrow schema
    (or an Avro record schema); required for a new table, else the table's schema is used.

    ``defer_index`` (MOR upsert / delete; a distributed writer whose tasks start while the driver
    works): the index is built in a background thread of this process into a file in the instant's
    marker folder, and ``ctx.index`` is a :class:`~hudi_log.table.write.index.DeferredIndex` that waits for
    it on first use. No file of the instant is written before then, so the build reads the table as it
    was. Call ``tx.finish_index()`` when the write is over."""
    opts = _normalise_options(options)
    op = _operation(operation, opts)
    table_path = Path(path)
    name = option(opts, "hoodie.table.name", default=None)
    avro_in = None
    if schema is not None:
        if isinstance(schema, pa.Schema):
            avro_in = batch_schema(schema, name or _existing_name(table_path) or table_path.name)
        else:
            avro_in = {k: v for k, v in dict(schema).items()}
            avro_in["fields"] = [f for f in avro_in["fields"] if f["name"] not in META_FIELDS]
    if not (table_path / ".hoodie" / "hoodie.properties").exists():
        if avro_in is None:
            raise WriteError(table_path, "a new table needs the data's schema")
        if op == "delete":
            raise WriteError(table_path, "cannot delete from a table that does not exist")
        create_table(table_path, opts, schema=avro_in)
    props = read_properties(table_path)
    check_table_matches(props, opts)
    props = drop_metadata_table_if_asked(table_path, props, opts)
    rolled = [i.requested_time for i in rollback_pending(table_path)]
    timeline = Timeline(table_path, props)
    for inst in timeline.completed():  # markers a writer killed right after its commit left behind
        if markers.marker_dir(table_path, inst.requested_time).exists():
            markers.delete_markers(table_path, inst.requested_time)
    table_schema = current_schema(props, timeline)
    if op == "delete" or avro_in is None:
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
    groups = latest_slices(table_path, props, timeline)
    looks_up = op in ("upsert", "delete")
    defer = defer_index and looks_up and props.is_mor
    index = build_index(table_path, props, timeline, groups) if looks_up and not defer else KeyIndex.empty()
    tw = TimelineWriter(table_path, props)
    instant = tw.new_instant_time()
    action = _action(props, op)
    tw.requested(action, instant)
    tw.inflight(action, instant)
    thread = None
    if defer:
        folder = markers.marker_dir(table_path, instant)
        folder.mkdir(parents=True, exist_ok=True)
        index = DeferredIndex(str(folder / INDEX_FILE))
        thread = threading.Thread(target=_build_index_file, args=(table_path, props, timeline, groups, index),
                                  name=f"hudi_log index {instant}", daemon=True)
    ctx = WriteContext(str(table_path), props.to_dict(), instant, action, write_schema, op, index, opts, groups,
                       _records_per_file(props, timeline, opts))
    tx = WriteTransaction(ctx, rolled)
    if thread is not None:
        tx._index_build = thread
        thread.start()
    return tx


def _build_index_file(table_path, props, timeline, groups, target: DeferredIndex) -> None:
    """The deferred build: the index file, else an error file the waiting tasks report."""
    try:
        build_index(table_path, props, timeline, groups).save(target.path)
    except BaseException as e:  # noqa: BLE001 - reported to the tasks through the file
        try:
            with open(target.error_path, "w") as f:
                f.write(f"{type(e).__name__}: {e}")
        except OSError:
            pass  # the write was rolled back meanwhile: nobody waits


def _existing_name(table_path: Path) -> str | None:
    try:
        return read_properties(table_path).name
    except Exception:  # noqa: BLE001 - no table yet
        return None


# ---- routing --------------------------------------------------------------------------------------
def route(ctx: WriteContext, batch) -> pa.Array:
    """The file group id each row goes to: its current file group for a known key (upsert, delete),
    ``""`` for a new key (see the module docstring on repartitioning)."""
    if ctx.operation not in ("upsert", "delete") or batch.num_rows == 0:
        return pa.array([""] * batch.num_rows, pa.string())
    keys = _strings(ctx.keygen.record_key_array(batch))
    fids = _index_locations(ctx, keys, _partitions_for(ctx, batch, keys))
    return pc.fill_null(fids, "")


def _strings(values) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    return values if isinstance(values, pa.Array) else pa.array(values, pa.string())


def _index_locations(ctx: WriteContext, keys, parts) -> pa.Array:
    """The file id holding each key in the same partition (null where none)."""
    if not len(ctx.index):
        return pa.nulls(len(keys), pa.string())
    return ctx.index.locate(_strings(keys), _strings(parts))[0]


def _partitions_for(ctx: WriteContext, batch, keys: pa.Array) -> pa.Array:
    kg = ctx.keygen
    if ctx.operation == "delete" and any(f not in batch.schema.names for f in kg.partition_fields):
        # a delete given keys only: the partition the index knows
        return pc.fill_null(ctx.index.locate(keys)[1], "")
    return kg.partition_path_array(batch)


def _distinct(keys: pa.Array, digest: np.ndarray | None = None) -> bool:
    """No (partition, key) pair repeats: known from a digest without repeated hashes, else counted."""
    import polars as pl

    if digest is not None and not repeats(digest):
        return True
    return pl.Series(keys).n_unique() == len(keys)


def _ordering(ctx: WriteContext, table: pa.Table) -> list[tuple] | None:
    fields = [f for f in ctx.properties.ordering_fields if f in table.column_names]
    if not fields or len(fields) != len(ctx.properties.ordering_fields):
        return None
    cols = [table.column(f).to_pylist() for f in fields]
    return [tuple(v) for v in zip(*cols)]


def _precombine(keys, parts, ordering) -> list[int]:
    """Row indices that survive: per (partition, key) the greatest ordering value, ties to the later row."""
    best: dict[tuple[str, str], int] = {}
    for i, kp in enumerate(zip(parts, keys)):
        j = best.get(kp)
        if j is None or ordering is None or ordering_ge(ordering[i], ordering[j]):
            best[kp] = i
    return sorted(best.values())


def _precombine_columns(ctx: WriteContext, table: pa.Table, keys, parts) -> list[int] | None:
    """``_precombine`` as one sort: per (partition, key) the last row by (ordering value, nulls first;
    row number) is the row ``ordering_ge``'s fold keeps. None where the fold's comparison is not Arrow's
    (several or no ordering fields, types other than integers / strings, floats with NaN)."""
    fields = ctx.properties.ordering_fields
    if len(fields) != 1 or fields[0] not in table.column_names:
        return None
    col = table.column(fields[0])
    t = col.type
    if pa.types.is_floating(t):
        if pc.any(pc.is_nan(col)).as_py():
            return None
    elif not (pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_large_string(t)):
        return None
    n = table.num_rows
    cols = pa.table({"p": _strings(parts), "k": _strings(keys), "o": col,
                     "i": pa.array(np.arange(n, dtype=np.int64))})
    order = pc.sort_indices(cols, sort_keys=[("p", "ascending"), ("k", "ascending"),
                                             ("o", "ascending", "at_start"), ("i", "ascending")])
    sp, sk = cols.column("p").take(order), cols.column("k").take(order)
    if n > 1:
        changes = pc.or_(pc.not_equal(sp.slice(1), sp.slice(0, n - 1)), pc.not_equal(sk.slice(1), sk.slice(0, n - 1)))
        last = np.append(changes.to_numpy(zero_copy_only=False), True)
    else:
        last = np.ones(n, dtype=bool)
    return np.sort(order.to_numpy()[last]).tolist()


def _route_rows(ctx: WriteContext, keys, parts) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Rows by destination: {file id: rows} for keys the index holds in the same partition (updates,
    deletes), {partition: rows} for the others (inserts; dropped for a delete); rows ascending. Vectorized:
    one hash lookup of every key in the index's keys, then a group-by."""
    n = len(keys)
    parts_arr = _strings(parts)
    fids = _index_locations(ctx, keys, parts) if ctx.operation in ("upsert", "delete") else pa.nulls(n, pa.string())
    rows = np.arange(n, dtype=np.int64)
    is_update = pc.is_valid(fids).to_numpy(zero_copy_only=False)
    updates = _group_rows(fids.filter(pa.array(is_update)), rows[is_update])
    inserts = {} if ctx.operation == "delete" else _group_rows(parts_arr.filter(pa.array(~is_update)), rows[~is_update])
    return updates, inserts


def _group_rows(labels: pa.Array, rows: np.ndarray) -> dict[str, np.ndarray]:
    """{label: its rows, in their order}: a dictionary encoding and a stable sort of the codes."""
    if len(labels) == 0:
        return {}
    enc = pc.dictionary_encode(labels, null_encoding="encode")
    codes = enc.indices.to_numpy(zero_copy_only=False)
    bounds = np.cumsum(np.bincount(codes, minlength=len(enc.dictionary)))[:-1]
    return dict(zip(enc.dictionary.to_pylist(), np.split(rows[np.argsort(codes, kind="stable")], bounds)))


def _take(data, idx: np.ndarray):
    """Rows ``idx`` (ascending) of a table or array: a slice, not a copy, when they are one run (an
    upsert in the order the file groups were written)."""
    if len(idx) and int(idx[-1]) - int(idx[0]) + 1 == len(idx):
        return data.slice(int(idx[0]), len(idx))
    return data.take(pa.array(idx, pa.int64()))


# ---- the worker -----------------------------------------------------------------------------------
def combine_option(ctx: WriteContext) -> str:
    """The Hudi option that says whether this operation combines rows of one key: ``hoodie.combine.
    before.upsert`` / ``.delete``, and ``.insert`` for insert, bulk_insert and insert_overwrite."""
    return f"hoodie.combine.before.{ctx.operation if ctx.operation in ('upsert', 'delete') else 'insert'}"


def combines(ctx: WriteContext) -> bool:
    """Whether rows of one key are combined before writing (:func:`combine_option`; default true for
    upsert and delete, false for the inserts). Turned off, duplicates are written as they come, as
    Hudi does."""
    name = combine_option(ctx)
    default = "false" if name.endswith(".insert") else "true"
    return option(ctx.options, name, default=default).lower() == "true"


def _to_table(batches) -> pa.Table | None:
    if isinstance(batches, pa.Table):
        return batches
    if isinstance(batches, pa.RecordBatch):
        return pa.Table.from_batches([batches])
    items = [b for b in batches]
    if not items:
        return None
    tables = [b if isinstance(b, pa.Table) else pa.Table.from_batches([b]) for b in items]
    return pa.concat_tables(tables, promote_options="default") if len(tables) > 1 else tables[0]


def _write_token(ctx: WriteContext, task_id: int) -> str:
    # stage id from the instant's milliseconds: a new token (so a new log file) for every instant
    return make_write_token(task_id, int(ctx.instant[-5:]), 0)


@dataclass
class TaskWrite:
    """What one worker wrote: a write stat per file, and (when asked) the digest of its keys."""
    stats: list[dict]
    #: sorted, distinct 64-bit hashes of the (partition, record key) pairs written (:func:`key_digest`)
    key_digest: np.ndarray | None = None


def key_digest(keys: pa.Array, parts: pa.Array) -> np.ndarray:
    """Sorted 64-bit hashes of the (partition, record key) pairs: what a driver compares across tasks to
    find a key that two tasks both wrote. Equal hashes of different pairs (about 1 in 10^7 for a billion
    keys) only raise a false alarm; different hashes are always different pairs."""
    import polars as pl

    return np.sort(pl.DataFrame({"p": parts, "k": keys}).hash_rows(seed=0).to_numpy())


def repeated_hashes(digests: Iterable[np.ndarray]) -> int:
    """How many hashes occur in more than one of ``digests`` (each sorted and distinct)."""
    parts = [d for d in digests if d is not None and len(d)]
    if len(parts) < 2:
        return 0
    h = np.concatenate(parts)
    h.sort(kind="stable")  # sorted runs: a merge
    return repeats(h)


def write_batches(ctx: WriteContext, batches: Iterable[pa.RecordBatch] | pa.Table | pa.RecordBatch,
                  task_id: int = 0) -> list[dict]:
    """Write this task's records for ``ctx.instant``; returns one write stat per file written."""
    return write_task(ctx, batches, task_id).stats


def write_task(ctx: WriteContext, batches: Iterable[pa.RecordBatch] | pa.Table | pa.RecordBatch,
               task_id: int = 0, *, digest: bool = False) -> TaskWrite:
    """:func:`write_batches`, and with ``digest`` the :func:`key_digest` of the pairs written, so that
    a driver can check that no two tasks wrote one key (which neither could combine)."""
    table = _to_table(batches)
    if table is None or table.num_rows == 0:
        return TaskWrite([], np.zeros(0, np.uint64) if digest else None)
    props = ctx.properties
    keys = _strings(ctx.keygen.record_key_array(table))
    parts = _strings(_partitions_for(ctx, table, keys))
    rows = None
    hashes = key_digest(keys, parts) if digest else None
    # distinct keys (the usual batch) have nothing to combine: one hash pass instead of the sort
    if combines(ctx) and not _distinct(keys, hashes):
        rows = _precombine_columns(ctx, table, keys, parts)
        if rows is None:
            rows = _precombine(keys.to_pylist(), parts.to_pylist(), _ordering(ctx, table))
    if rows is not None and len(rows) != table.num_rows:
        taken = pa.array(rows, pa.int64())
        table, keys, parts = table.take(taken), keys.take(taken), parts.take(taken)
    # the surviving rows' ordering values, where they are used: deletes carry them, a COW merge compares
    ordering = _ordering(ctx, table) if ctx.operation == "delete" or not props.is_mor else None
    if ctx.operation != "delete":
        table = conform(table.drop_columns([c for c in META_FIELDS if c in table.column_names]),
                        avro_to_arrow_schema(ctx.schema))
    # route: existing file group (updates / deletes) or new (inserts)
    updates, inserts = _route_rows(ctx, keys, parts)
    token = _write_token(ctx, task_id)
    stats: list[dict] = []
    key_list: list[str] | None = None  # as Python strings only where a path takes them one by one
    # the log files are durable before this task reports them, not each before the next is encoded
    with BackgroundSyncs() as syncs:
        storage = table_storage(syncs)
        for fid, idx in updates.items():
            g = ctx.file_groups[fid]
            if props.is_mor:
                stats.append(_append_to_log(ctx, g, table, keys, ordering, idx, task_id, token, storage))
            else:
                key_list = keys.to_pylist() if key_list is None else key_list
                stats.append(_merge_base_file(ctx, g, table, key_list, ordering, idx, task_id, token))
        for part, idx in inserts.items():
            for start in range(0, len(idx), ctx.records_per_file):
                chunk = idx[start:start + ctx.records_per_file]
                stats.append(_create_base_file(ctx, part, table, keys, chunk, task_id, token))
    if hashes is not None and repeats(hashes):
        hashes = np.unique(hashes)  # the pairs that survived the precombine
    return TaskWrite(stats, hashes)


def _stat(ctx, partition: str, fid: str, path: str, prev: str, **counts) -> dict:
    s = empty_write_stat()
    s.update({"fileId": fid, "path": path, "prevCommit": prev, "partitionPath": partition})
    s.update(counts)
    return s


def _rel(partition: str, name: str) -> str:
    return f"{partition}/{name}" if partition else name


def _create_base_file(ctx, partition, table, keys, idx, task_id, token) -> dict:
    fid = f"{uuid.uuid4()}-0"
    name = base_file_name(fid, token, ctx.instant)
    write_partition_metadata(ctx.table_path, partition, ctx.instant)
    markers.create_marker(ctx.table_path, ctx.instant, partition, name, markers.CREATE)
    data = _take(table, idx)
    ks = _take(keys, idx).to_pylist()
    rows = with_meta_columns(data, instant=ctx.instant, keys=ks, partition=partition, file_name=name,
                             task_partition_id=task_id)
    path = Path(ctx.table_path) / _rel(partition, name)
    size = write_base_file(path, rows, ctx.schema, ks)
    return _stat(ctx, partition, fid, _rel(partition, name), "null", numWrites=len(idx), numInserts=len(idx),
                 totalWriteBytes=size, fileSizeInBytes=size)


_WRAPPER_KINDS = {"int": "INT", "long": "LONG", "float": "FLOAT", "double": "DOUBLE", "string": "STRING",
                  "boolean": "BOOLEAN"}


def _delete_record(ctx, key: str, partition: str, ordering, i) -> DeleteRecord:
    """The delete of ``key``: its ordering value from the batch, wrapped as the field's Avro type (Hudi
    wraps the record's value); without one, Hudi's default (IntWrapper 0: the delete always wins)."""
    if ordering is None or len(ordering[i]) != 1 or ordering[i][0] is None:
        return DeleteRecord.of(key, partition, 0)
    value = ordering[i][0]
    field_type = next((f["type"] for f in ctx.schema["fields"] if f["name"] == ctx.properties.ordering_fields[0]), None)
    base = [t for t in field_type if t != "null"] if isinstance(field_type, list) else [field_type]
    kind = _WRAPPER_KINDS.get(base[0]) if len(base) == 1 and isinstance(base[0], str) else None
    if kind is None:
        return DeleteRecord.of(key, partition, value)
    return DeleteRecord(key, partition, value, OrderingKind[kind])


def _append_to_log(ctx, g: FileGroupInfo, table, keys, ordering, idx, task_id, token, storage) -> dict:
    props = ctx.properties
    sizes = {}
    for opt, arg in (("hoodie.logfile.data.block.max.size", "max_block_size"),
                     ("hoodie.logfile.max.size", "log_file_max_size")):
        if option(ctx.options, opt) is not None:
            sizes[arg] = int(option(ctx.options, opt))
    key_spec = _arrow_key_field(ctx, table)
    handle = AppendHandle(ctx.table_path, g.partition, g.file_id, ctx.instant, ctx.schema,
                          key_spec or (lambda r: r[RECORD_KEY]), table_version=props.version, base_instant=g.base_instant,
                          task_partition_id=task_id, write_token=token, storage=storage,
                          block_format=option(ctx.options, "hoodie.logfile.data.block.format", default="avro").lower(),
                          **sizes)
    markers.create_marker(ctx.table_path, ctx.instant, g.partition, str(handle.writer.log_file), markers.APPEND)
    if ctx.operation == "delete":
        for i, key in zip(idx.tolist(), _take(keys, idx).to_pylist()):
            handle.delete(key, g.partition, _delete_record(ctx, key, g.partition, ordering, i))
    else:
        sub = _take(table, idx)
        if key_spec is not None:  # the whole batch as columns (the handle checks and encodes them at once)
            handle.write_all(sub, is_update=True)
        else:
            for key, rec in zip(_take(keys, idx).to_pylist(), sub.to_pylist(maps_as_pydicts="strict")):
                rec[RECORD_KEY] = key
                handle.write(rec, is_update=True)
    ws = handle.close()
    for name in ws.log_files:
        markers.create_marker(ctx.table_path, ctx.instant, g.partition, name, markers.APPEND)
    base = Path(g.base_file).name if g.base_file else ""
    s = ws.hudi_write_stat(base_file=base)
    s["prevCommit"] = g.base_instant
    return s


def _arrow_key_field(ctx, table) -> str | None:
    """The record-key field when the handle can take keys from it as a column: one key field of string
    or integer type, whose text is the key the key generator makes (Java's toString)."""
    fields = ctx.properties.record_key_fields
    if len(fields) != 1 or fields[0] not in table.column_names:
        return None
    t = table.schema.field(fields[0]).type
    return fields[0] if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t) else None


def _merge_base_file(ctx, g: FileGroupInfo, table, keys, ordering, idx, task_id, token) -> dict:
    """COW: the file group's next base file = its rows with this batch's updates / deletes applied."""
    import pyarrow.parquet as pq

    props = ctx.properties
    name = base_file_name(g.file_id, token, ctx.instant)
    markers.create_marker(ctx.table_path, ctx.instant, g.partition, name, markers.MERGE)
    old = pq.read_table(g.base_file) if g.base_file else None
    incoming = {keys[i]: i for i in idx.tolist()}
    event_time = props.merge_mode == EVENT_TIME and ordering is not None
    fields = props.ordering_fields
    keep_old: list[int] = []
    take_new: list[int] = []
    deletes = updates = 0
    if old is not None:
        old_keys = old.column(RECORD_KEY).to_pylist()
        old_ord = [tuple(v) for v in zip(*[old.column(f).to_pylist() for f in fields])] \
            if event_time and all(f in old.column_names for f in fields) else None
        for j, k in enumerate(old_keys):
            i = incoming.pop(k, None)
            if i is None:
                keep_old.append(j)
            elif ctx.operation == "delete":
                # as the MOR readers merge a delete: it loses only to a greater stored ordering value
                if old_ord is not None and not ordering_ge(ordering[i], old_ord[j]):
                    keep_old.append(j)
                else:
                    deletes += 1
            elif old_ord is not None and not ordering_ge(ordering[i], old_ord[j]):
                keep_old.append(j)  # the stored row has the greater ordering value
            else:
                take_new.append(i)
                updates += 1
    if ctx.operation != "delete":
        take_new.extend(incoming.values())  # keys the index saw in logs only; none for COW
    schema = arrow_schema_for(ctx.schema)
    parts = []
    if old is not None and keep_old:
        parts.append(conform(old.take(pa.array(keep_old, pa.int64())), schema))
    if take_new:
        data = table.take(pa.array(take_new, pa.int64()))
        rows = with_meta_columns(data, instant=ctx.instant, keys=[keys[i] for i in take_new], partition=g.partition,
                                 file_name=name, task_partition_id=task_id)
        parts.append(conform(rows, schema))
    merged = pa.concat_tables(parts) if parts else schema.empty_table()
    path = Path(ctx.table_path) / _rel(g.partition, name)
    all_keys = merged.column(RECORD_KEY).to_pylist()
    size = write_base_file(path, merged, ctx.schema, all_keys)
    s = _stat(ctx, g.partition, g.file_id, _rel(g.partition, name), g.base_instant,
              numWrites=merged.num_rows, numUpdateWrites=updates, numDeletes=deletes,
              numInserts=len(take_new) - updates, totalWriteBytes=size, fileSizeInBytes=size)
    if g.base_file:
        s["prevBaseFile"] = Path(g.base_file).name
    return s


# ---- the whole write ------------------------------------------------------------------------------
def write_table(path, data, operation: str | None = None, options: Mapping | None = None) -> WriteResult:
    """Write ``data`` (a pyarrow Table, RecordBatch or iterable of RecordBatches) to the Hudi table at
    ``path`` (created when absent) with ``operation`` (default: ``hoodie.datasource.write.operation``, else
    upsert). Any failure rolls the instant back and re-raises."""
    if not isinstance(data, (pa.Table, pa.RecordBatch)):
        data = _to_table(list(data))
        if data is None:
            raise WriteError(path, "no data given (an empty iterable of batches has no schema)")
    tx = begin_write(path, operation, options, schema=_arrow_schema_of(data))
    try:
        stats = write_batches(tx.context, data, 0)
        return tx.commit(stats)
    except BaseException:
        tx.abort()
        raise
