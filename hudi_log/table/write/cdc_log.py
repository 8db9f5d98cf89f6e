"""The CDC log of a COPY_ON_WRITE merge (Java's ``HoodieMergeHandleWithChangeLog`` and ``HoodieCDCLogger``).

A merge that rewrites a base file on a table with ``hoodie.table.cdc.enabled=true`` also writes what
changed, one CDC record per key, into ``.{fileId}_{instant}.log.{version}_{writeToken}.cdc`` beside the
new base file (the writing instant names it, so it belongs to the new file slice): an update as ``u`` with
the stored row before and the written row after, a delete as ``d``, an insert as ``i``. The records
follow the table's supplemental logging mode (:func:`hudi_log.table.cdc.cdc_schema`); images carry the
data fields without ``_hoodie_*``. Like Java, nothing is written when the merge wrote no record (every
row deleted) or wrote only inserts: readers infer those as a base-file delete / insert. The file's
relative path and size become the write stat's ``cdcStats``.

Left as Java's defaults leave them: one block per merge (Java flushes by
``hoodie.logfile.data.block.max.size``; a merge's changes are rarely that large), no CDC from
compaction (Spark's compaction writes none) and none from MOR appends (readers infer them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pyarrow as pa

from ...format.content.avro import encode_records
from ...format.content.meta_fields import META_FIELDS, RECORD_KEY
from ...format.framing import framed_avro_block
from ...format.grammar import BlockType, HeaderKey, avro_record_prefix
from ...log.writer import LogWriter
from .. import markers
from ..cdc import DATA_BEFORE, DATA_BEFORE_AFTER, DELETE, INSERT, OP_KEY_ONLY, UPDATE, cdc_schema
from ..view.base_file import arrow_schema_for, conform

#: the content version Hudi 0.14 and later write for Avro and CDC data blocks
CONTENT_VERSION = 3


@dataclass
class MergeChanges:
    """What one merge changed, as row positions: ``updated`` (old row, new row), ``deleted`` old rows,
    ``inserted`` new rows."""
    updated: list[tuple[int, int]] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)
    inserted: list[int] = field(default_factory=list)


def _images(data: pa.Table | None, schema: pa.Schema, rows: list[int]) -> list[dict]:
    if data is None or not rows:
        return [None] * len(rows)
    data = data.drop_columns([c for c in META_FIELDS if c in data.column_names])
    taken = conform(data.take(pa.array(rows, pa.int64())), schema)
    return taken.to_pylist()


def change_records(mode: str, instant: str, old: pa.Table | None, new: pa.Table, keys: list[str],
                   changes: MergeChanges, table_schema: dict) -> list[dict]:
    """The CDC records of a merge under ``mode``: updates, then deletes, then inserts."""
    image_schema = pa.schema([f for f in arrow_schema_for(table_schema) if f.name not in META_FIELDS])
    old_keys = old.column(RECORD_KEY).to_pylist() if old is not None else []
    ops = ([(UPDATE, j, i) for j, i in changes.updated] + [(DELETE, j, None) for j in changes.deleted]
           + [(INSERT, None, i) for i in changes.inserted])
    out = []
    if mode == OP_KEY_ONLY:
        for op, j, i in ops:
            out.append({"op": op, "record_key": keys[i] if i is not None else old_keys[j]})
        return out
    before = _images(old, image_schema, [j for _, j, _ in ops if j is not None])
    after = _images(new, image_schema, [i for _, _, i in ops if i is not None]) if mode == DATA_BEFORE_AFTER else []
    bi = iter(before)
    ai = iter(after)
    for op, j, i in ops:
        b = next(bi) if j is not None else None
        if mode == DATA_BEFORE:
            out.append({"op": op, "record_key": keys[i] if i is not None else old_keys[j], "before": b})
        else:
            a = next(ai) if i is not None else None
            out.append({"op": op, "ts_ms": instant, "before": b, "after": a})
    return out


def write_merge_changes(ctx, g, old: pa.Table | None, new: pa.Table, keys: list[str], changes: MergeChanges,
                        records_written: int, task_id: int, token: str, storage) -> dict[str, int] | None:
    """Write the merge's CDC log file; its ``cdcStats`` ({path relative to the table: size}) or None."""
    if records_written == 0 or records_written == len(changes.inserted):
        return None  # HoodieCDCLogger.writeCDCDataIfNeeded: the reader infers these
    if not (changes.updated or changes.deleted or changes.inserted):
        return None  # rows copied through unchanged only: no change to log
    props = ctx.properties
    mode = props.cdc_mode
    schema = cdc_schema(mode, ctx.schema)
    records = change_records(mode, ctx.instant, old, new, keys, changes, ctx.schema)
    datums = encode_records(records, schema)
    block = framed_avro_block(
        BlockType.cdc_data_block,
        {HeaderKey.instant_time: ctx.instant, HeaderKey.schema: json.dumps(schema, separators=(",", ":"))},
        CONTENT_VERSION, len(datums), [p for d in datums for p in (avro_record_prefix(len(d)), d)])
    partition_dir = storage.join(str(ctx.table_path), g.partition) if g.partition else str(ctx.table_path)
    writer = LogWriter(partition_dir, g.file_id, ctx.instant, table_version=props.version, write_token=token,
                       storage=storage, cdc=True)
    # a CREATE marker: a rollback deletes the file (it is the failed instant's own, nothing to append to)
    markers.create_marker(ctx.table_path, ctx.instant, g.partition, str(writer.log_file), markers.CREATE)
    try:
        writer.append_blocks([block])
    finally:
        writer.close()
    stats = {}
    for lf in writer.files_written:
        rel = f"{g.partition}/{lf}" if g.partition else str(lf)
        stats[rel] = storage.size(storage.join(partition_dir, str(lf)))
    return stats
