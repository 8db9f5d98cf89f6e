"""The task side of a write (Java's ``BaseSparkCommitActionExecutor`` partitions and the write handles
they open): precombine a task's records (``hoodie.combine.before.*``), tag each with its file group
through the index, and write each file group's share: new base files for inserts
(``HoodieCreateHandle``), log appends on MERGE_ON_READ (``HoodieAppendHandle``, through the log layer),
rewritten base files on COPY_ON_WRITE (``HoodieMergeHandle``). Each task returns the write stats of
what it wrote, and optionally a digest of its keys for the driver's cross-task check.

:func:`route` is the same tagging for a driver that repartitions rows by file group before the tasks.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...containment import within_table
from ...paths import as_path, read_parquet
from ...format.content.meta_fields import META_FIELDS, RECORD_KEY
from ...format.log_file_name import make_write_token
from ...log.append_handle import AppendHandle, avro_to_arrow_schema
from ...log.storage import BackgroundSyncs
from .. import markers
from ..errors import ClusteringUpdateError, storage_errors
from ..read.scanner import EVENT_TIME, ordering_ge
from ..services.rollback import table_storage
from ..timeline.commit_metadata import empty_write_stat
from ..workers import ordered_map
from ..view.base_file import arrow_schema_for, base_file_name, conform, with_meta_columns, write_base_file
from .cdc_log import MergeChanges, write_merge_changes
from .context import WriteContext, combines
from .create import option, write_partition_metadata
from .index import FileGroupInfo, base_file_keys, repeats, virtual_key_generator
from .small_files import plan_inserts

#: Hudi's delete-flag column (``HoodieRecord.HOODIE_IS_DELETED_FIELD``): a record with it true deletes its key
DELETE_FLAG = "_hoodie_is_deleted"


# ---- routing --------------------------------------------------------------------------------------
#: columns of records tagged before the tasks (a distributed index): the file id, null for an insert, and
#: the partition path (for a delete given keys only, the partition the key was found in)
TAG_FILE_ID = "_hudi_log_file_id"
TAG_PARTITION = "_hudi_log_partition"


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


def _delete_flags(ctx: WriteContext, table: pa.Table) -> np.ndarray | None:
    """Rows whose boolean ``_hoodie_is_deleted`` is true (Hudi's delete-flag column: the payload of such a
    record is empty, so it deletes its key), None when no row is flagged."""
    if ctx.operation == "delete" or DELETE_FLAG not in table.column_names:
        return None
    col = table.column(DELETE_FLAG)
    if not pa.types.is_boolean(col.type):
        return None
    flags = pc.fill_null(col, False).to_numpy(zero_copy_only=False)
    return flags if flags.any() else None


def _route_rows(ctx: WriteContext, keys, parts, flagged: np.ndarray | None = None, fids: pa.Array | None = None
                ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Rows by destination: {file id: rows} for keys the index holds in the same partition (updates,
    deletes), {partition: rows} for the others (inserts; dropped for a delete, and a flagged row of a new
    key, which Hudi's create handle skips); rows ascending. Vectorized: one hash lookup of every key in the
    index's keys (unless ``fids`` gives each row's file id, null for an insert: records tagged before the
    task), then a group-by."""
    n = len(keys)
    parts_arr = _strings(parts)
    if fids is None:
        fids = _index_locations(ctx, keys, parts) if ctx.operation in ("upsert", "delete") else pa.nulls(n, pa.string())
    rows = np.arange(n, dtype=np.int64)
    is_update = pc.is_valid(fids).to_numpy(zero_copy_only=False)
    updates = _group_rows(*_subset(fids, rows, is_update))
    is_insert = ~is_update if flagged is None else ~is_update & ~flagged
    inserts = {} if ctx.operation == "delete" else _group_rows(*_subset(parts_arr, rows, is_insert))
    return updates, inserts


def _subset(labels: pa.Array, rows: np.ndarray, mask: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """The labels and rows where ``mask`` holds; no copy where it holds everywhere (an all-update batch)
    or nowhere."""
    if mask.all():
        return labels, rows
    if not mask.any():
        return labels.slice(0, 0), rows[:0]
    return labels.filter(pa.array(mask)), rows[mask]


def _group_rows(labels: pa.Array, rows: np.ndarray) -> dict[str, np.ndarray]:
    """{label: its rows, in their order}: a dictionary encoding and a stable sort of the codes."""
    if len(labels) == 0:
        return {}
    enc = pc.dictionary_encode(labels, null_encoding="encode")
    codes = enc.indices.to_numpy(zero_copy_only=False)
    if len(enc.dictionary) <= np.iinfo(np.int16).max:
        codes = codes.astype(np.int16)  # numpy's stable sort of 16-bit ints is a radix sort: ~4x faster
    bounds = np.cumsum(np.bincount(codes, minlength=len(enc.dictionary)))[:-1]
    return dict(zip(enc.dictionary.to_pylist(), np.split(rows[np.argsort(codes, kind="stable")], bounds)))


def _take(data, idx: np.ndarray):
    """Rows ``idx`` (ascending) of a table or array: a slice, not a copy, when they are one run (an
    upsert in the order the file groups were written)."""
    if len(idx) and int(idx[-1]) - int(idx[0]) + 1 == len(idx):
        return data.slice(int(idx[0]), len(idx))
    return data.take(pa.array(idx, pa.int64()))


def to_table(batches) -> pa.Table | None:
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
                  task_id: int = 0, *, pack: bool = False, threads: int = 1) -> list[dict]:
    """Write this task's records for ``ctx.instant``; returns one write stat per file written. ``pack``:
    the only task of the instant, whose inserts may fill small files; ``threads`` (:func:`write_task`)."""
    return write_task(ctx, batches, task_id, pack=pack, threads=threads).stats


def write_task(ctx: WriteContext, batches: Iterable[pa.RecordBatch] | pa.Table | pa.RecordBatch,
               task_id: int = 0, *, digest: bool = False, tagged: bool = False, pack: bool = False,
               threads: int = 1) -> TaskWrite:
    """:func:`write_batches`, and with ``digest`` the :func:`key_digest` of the pairs written, so that
    a driver can check that no two tasks wrote one key (which neither could combine).

    ``tagged``: the batches carry each record's location, found before the task by a distributed index
    (:mod:`.key_lookup`): columns :data:`TAG_FILE_ID` (null for an insert) and :data:`TAG_PARTITION`
    (inserts given a small file arrive tagged with it). ``pack``: this task writes the instant's whole batch,
    so its inserts may go into the small files (no other task can pick the same one). ``threads``: the file
    groups written side by side, for a writer that is the only task on its machine (:mod:`..workers`; a Spark
    task is one of as many as the cores, so it keeps 1); the stats keep their order. A write the storage
    refuses (a full disk) is a :class:`~hudi_log.table.errors.StorageWriteError` naming the table and file."""
    with storage_errors(ctx.table_path):
        return _write_task(ctx, batches, task_id, digest=digest, tagged=tagged, pack=pack, threads=threads)


def _write_task(ctx: WriteContext, batches, task_id: int, *, digest: bool, tagged: bool, pack: bool,
                threads: int = 1) -> TaskWrite:
    table = to_table(batches)
    if table is None or table.num_rows == 0 or ctx.operation == "delete_partition":  # it replaces, writes nothing
        return TaskWrite([], np.zeros(0, np.uint64) if digest else None)
    props = ctx.properties
    keys = _strings(ctx.keygen.record_key_array(table))
    tags = None
    if tagged:
        tags = _strings(table.column(TAG_FILE_ID)), _strings(table.column(TAG_PARTITION))
        table = table.drop_columns([TAG_FILE_ID, TAG_PARTITION])
        parts = tags[1]
    else:
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
        tags = None if tags is None else (tags[0].take(taken), parts)
    flagged = _delete_flags(ctx, table)
    # route: existing file group (updates / deletes) or new (inserts), inserts first into small files
    updates, inserts = _route_rows(ctx, keys, parts, flagged, None if tags is None else tags[0])
    merges = set(ctx.merge_file_ids)  # MOR file groups rewritten, not appended to
    if pack and ctx.small_files:
        inserts = _pack_small_files(ctx, updates, inserts, merges)
    # the surviving rows' ordering values, where they are used: a merge under event-time ordering compares
    # them (a delete operation's log deletes carry Hudi's default instead, _append_to_log)
    ordering = _ordering(ctx, table) if (not props.is_mor or merges) and props.merge_mode == EVENT_TIME else None
    if ctx.operation != "delete":
        table = conform(table.drop_columns([c for c in META_FIELDS if c in table.column_names]),
                        avro_to_arrow_schema(ctx.schema), where=ctx.table_path)
    refuse_clustered_updates(ctx, updates)
    token = _write_token(ctx, task_id)
    key_list: list[str] | None = None  # as Python strings only where a path takes them one by one
    # one piece per file written, each a function of the storage it writes logs through
    pieces = []
    for fid, idx in updates.items():
        g = ctx.file_groups[fid]
        if props.is_mor and fid not in merges:
            pieces.append(partial(_append_to_log, ctx, g, table, keys, idx, task_id, token))
        else:
            key_list = keys.to_pylist() if key_list is None else key_list
            pieces.append(partial(_merge_base_file, ctx, g, table, key_list, ordering, idx, task_id, token, flagged,
                                  key_array=keys))
    for part, idx in inserts.items():
        write_partition_metadata(ctx.table_path, part, ctx.instant)  # once, before pieces may run side by side
        for start in range(0, len(idx), ctx.records_per_file):
            chunk = idx[start:start + ctx.records_per_file]
            pieces.append(partial(_create_base_file, ctx, part, table, keys, chunk, task_id, token))
    # the log files are durable before this task reports them, not each before the next is encoded
    with BackgroundSyncs() as syncs:
        storage = table_storage(ctx.table_path, syncs, cache_listings=True)  # a folder listed once per task
        # in this order, whichever finished first (workers.py)
        stats = ordered_map(lambda piece: piece(storage=storage), pieces, threads)
    if hashes is not None and repeats(hashes):
        hashes = np.unique(hashes)  # the pairs that survived the precombine
    return TaskWrite(stats, hashes)


def _pack_small_files(ctx: WriteContext, updates: dict, inserts: dict, merges: set) -> dict:
    """Java's bin-packing in one process: each partition's inserts, in row order, fill its small files
    (joining those file groups' updates; MOR ones are then rewritten, ``merges``) and the rest become the
    new file groups' inserts (:mod:`.small_files`)."""
    plan, rewritten = plan_inserts({p: len(idx) for p, idx in inserts.items()}, ctx.small_files, ctx.record_size,
                                   ctx.max_file_size, ctx.records_per_file, ctx.properties.is_mor)
    merges.update(rewritten)
    rest = {}
    for part, idx in inserts.items():
        at = 0
        for fid, n in plan[part]:
            if fid is None:
                break
            rows = idx[at:at + n]
            updates[fid] = np.sort(np.concatenate([updates[fid], rows])) if fid in updates else rows
            at += n
        if at < len(idx):
            rest[part] = idx[at:]
    return rest


def refuse_clustered_updates(ctx: WriteContext, updated_file_ids) -> None:
    """Java's default ``SparkRejectUpdateStrategy``: no update or delete goes into a file group under pending
    clustering (the clustering would replace the group without it); the write fails before it writes."""
    hit = sorted(f for f in updated_file_ids if f in ctx.clustering)
    if hit:
        instants = sorted({ctx.clustering[f][1] for f in hit})
        groups = ", ".join(f"{ctx.clustering[f][0]}/{f}" if ctx.clustering[f][0] else f for f in hit[:5])
        raise ClusteringUpdateError(ctx.table_path, f"write {ctx.instant} updates file group(s) {groups}"
                                    f"{f' and {len(hit) - 5} more' if len(hit) > 5 else ''} under pending "
                                    f"clustering {', '.join(instants)} (Hudi: not allowed to update a file group "
                                    "under clustering); run the clustering (hudi-log cluster) and write again")


def _stat(ctx, partition: str, fid: str, path: str, prev: str, **counts) -> dict:
    s = empty_write_stat()
    s.update({"fileId": fid, "path": path, "prevCommit": prev, "partitionPath": partition})
    s.update(counts)
    return s


def _rel(partition: str, name: str) -> str:
    return f"{partition}/{name}" if partition else name


def _data_file(ctx, partition: str, name: str):
    """A data file of the write: its partition came from data, so it goes through the containment rule."""
    return within_table(ctx.table_path, _rel(partition, name), source="partition value", field="partition path",
                        timeline=False)


def _create_base_file(ctx, partition, table, keys, idx, task_id, token, storage=None) -> dict:
    """A new file group's base file (its partition's metadata file written before, :func:`_write_task`)."""
    fid = f"{uuid.uuid4()}-0"
    name = base_file_name(fid, token, ctx.instant)
    markers.create_marker(ctx.table_path, ctx.instant, partition, name, markers.CREATE)
    data = _take(table, idx)
    ks = _take(keys, idx).to_pylist()
    rows = with_meta_columns(data, instant=ctx.instant, keys=ks, partition=partition, file_name=name,
                             task_partition_id=task_id, populate=ctx.properties.populate_meta_fields)
    path = _data_file(ctx, partition, name)
    size = write_base_file(path, rows, ctx.schema, ctx.bloom)
    return _stat(ctx, partition, fid, _rel(partition, name), "null", numWrites=len(idx), numInserts=len(idx),
                 totalWriteBytes=size, fileSizeInBytes=size)


def _append_to_log(ctx, g: FileGroupInfo, table, keys, idx, task_id, token, storage) -> dict:
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
                          populate_meta_fields=props.populate_meta_fields,
                          block_format=option(ctx.options, "hoodie.logfile.data.block.format", default="avro").lower(),
                          **sizes)
    markers.create_marker(ctx.table_path, ctx.instant, g.partition, str(handle.writer.log_file), markers.APPEND)
    if ctx.operation == "delete":
        # a delete operation's deletes carry Hudi's default ordering value, IntWrapper 0, as Java's writers
        # do in 0.x and 1.x (the delete helper builds empty payloads from the keys alone): they always win
        handle.delete_keys(_take(keys, idx).to_pylist(), g.partition)
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


def _merge_base_file(ctx, g: FileGroupInfo, table, keys, ordering, idx, task_id, token, flagged=None,
                     storage=None, key_array: pa.Array | None = None) -> dict:
    """COW: the file group's next base file = its rows with this batch's updates / deletes applied (a row
    flagged ``_hoodie_is_deleted`` deletes its key where it would have replaced the stored row). On a table
    with CDC on, the changes go to a ``.cdc`` log file beside it (:mod:`.cdc_log`). ``key_array``: ``keys``
    as Arrow, for the columnar match of stored and incoming keys (:func:`_merge_matches`)."""

    props = ctx.properties
    name = base_file_name(g.file_id, token, ctx.instant)
    markers.create_marker(ctx.table_path, ctx.instant, g.partition, name, markers.MERGE)
    old = read_parquet(g.base_file) if g.base_file else None
    if ctx.operation == "insert" and option(ctx.options, "hoodie.merge.allow.duplicate.on.inserts",
                                            default="false").lower() == "true":
        # inserts packed into a small file are added beside its rows (Java's concat handle)
        extra = [i for i in idx.tolist() if flagged is None or not flagged[i]]
    else:
        extra = None
    event_time = props.merge_mode == EVENT_TIME and ordering is not None
    fields = props.ordering_fields
    keep_old: list[int] = []
    take_new: list[int] = []
    deletes = updates = 0
    changes = MergeChanges()  # (old row, new row) positions, for the CDC log
    old_key_array = None if old is None else base_file_keys(g.base_file, virtual_key_generator(ctx.table_path, props),
                                                            old)
    matched = None
    if old is not None and extra is None and not event_time and key_array is not None:
        matched = _merge_matches(old_key_array, _take(key_array, idx))
    if matched is not None:  # the loop below, as columns: same lists, same order
        deletes, updates = _apply_matches(ctx, matched, idx, flagged, keep_old, take_new, changes)
    incoming = {} if matched is not None or extra is not None else {keys[i]: i for i in idx.tolist()}
    if matched is None and old is not None:
        old_keys = old_key_array.to_pylist()
        old_ord = [tuple(v) for v in zip(*[old.column(f).to_pylist() for f in fields])] \
            if event_time and all(f in old.column_names for f in fields) else None
        for j, k in enumerate(old_keys):
            i = incoming.pop(k, None)
            if i is None:
                keep_old.append(j)
            elif ctx.operation == "delete":
                # a delete operation carries the default ordering value (keys only, as Java's delete helper
                # builds it), so it removes the row whatever the row's ordering value
                deletes += 1
                changes.deleted.append(j)
            elif old_ord is not None and not ordering_ge(ordering[i], old_ord[j]):
                keep_old.append(j)  # the stored row has the greater ordering value
            elif flagged is not None and flagged[i]:
                deletes += 1
                changes.deleted.append(j)
            else:
                take_new.append(i)
                updates += 1
                changes.updated.append((j, i))
    if extra is not None:
        take_new.extend(extra)
    elif ctx.operation != "delete" and matched is None:  # new keys (inserts packed into this small file), keys
        # seen in logs only
        take_new.extend(i for i in incoming.values() if flagged is None or not flagged[i])
    schema = arrow_schema_for(ctx.schema)
    parts = []
    if old is not None and keep_old:
        parts.append(conform(old.take(pa.array(keep_old, pa.int64())), schema))
    if take_new:
        data = table.take(pa.array(take_new, pa.int64()))
        new_keys = [keys[i] for i in take_new] if key_array is None else key_array.take(pa.array(take_new, pa.int64()))
        rows = with_meta_columns(data, instant=ctx.instant, keys=new_keys, partition=g.partition,
                                 file_name=name, task_partition_id=task_id, populate=props.populate_meta_fields)
        parts.append(conform(rows, schema))
    merged = pa.concat_tables(parts) if parts else schema.empty_table()
    path = _data_file(ctx, g.partition, name)
    size = write_base_file(path, merged, ctx.schema, ctx.bloom)
    s = _stat(ctx, g.partition, g.file_id, _rel(g.partition, name), g.base_instant,
              numWrites=merged.num_rows, numUpdateWrites=updates, numDeletes=deletes,
              numInserts=len(take_new) - updates, totalWriteBytes=size, fileSizeInBytes=size)
    if g.base_file:
        s["prevBaseFile"] = Path(g.base_file).name
    if ctx.properties.cdc_enabled:
        changes.inserted = take_new[updates:]
        s["cdcStats"] = write_merge_changes(ctx, g, old, table, keys, changes, merged.num_rows, task_id, token,
                                            storage)
    return s


def _merge_matches(old_keys: pa.Array, new_keys: pa.Array) -> np.ndarray | None:
    """Per stored row, the position in ``new_keys`` of the incoming row with its key, -1 for none: the
    pairs :func:`_merge_base_file`'s loop finds with its dictionary. None where a key is null or repeats on
    either side (the loop's first-match and last-wins rules then decide)."""
    import polars as pl

    if old_keys.null_count or new_keys.null_count:
        return None
    for ks in (old_keys, new_keys):
        if len(ks) and pl.Series(ks).n_unique() != len(ks):  # polars' count: ~7x Arrow's here
            return None
    return pc.fill_null(pc.index_in(old_keys, value_set=new_keys), -1).to_numpy(zero_copy_only=False)


def _apply_matches(ctx, matched: np.ndarray, idx: np.ndarray, flagged, keep_old: list, take_new: list,
                   changes: MergeChanges) -> tuple[int, int]:
    """:func:`_merge_base_file`'s loop (commit-time ordering, distinct keys) over :func:`_merge_matches`: stored
    rows kept, deleted or replaced in stored order, then the incoming rows no stored key matched in their own
    order (inserts; none for a delete); (deletes, updates)."""
    js = np.nonzero(matched >= 0)[0]
    ii = idx[matched[js]]
    keep_old.extend(np.nonzero(matched < 0)[0].tolist())
    if ctx.operation == "delete":
        gone, upd_j, upd_i = js, js[:0], ii[:0]
    elif flagged is not None:
        f = flagged[ii]
        gone, upd_j, upd_i = js[f], js[~f], ii[~f]
    else:
        gone, upd_j, upd_i = js[:0], js, ii
    take_new.extend(upd_i.tolist())
    if ctx.properties.cdc_enabled:  # only the CDC log reads the pairs
        changes.deleted.extend(gone.tolist())
        changes.updated.extend(zip(upd_j.tolist(), upd_i.tolist()))
    if ctx.operation != "delete":
        hit = np.zeros(len(idx), bool)
        hit[matched[js]] = True
        rest = idx[~hit]
        take_new.extend((rest if flagged is None else rest[~flagged[rest]]).tolist())
    return len(gone), len(upd_i)
