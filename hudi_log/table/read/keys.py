"""The record keys of a file slice as a write's index needs them (Hudi's ``HoodieKeyLookupHandle`` and
``HoodieMergedLogRecordScanner`` reading only keys): the merged slice's live keys, and the keys its log data
blocks hold, decoding the key, ordering and delete-marker columns alone; and each row's key, meta field or
virtual key (a table without meta fields)."""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pyarrow.compute as pc

from .merge import NotVectorizable, record_keys
from .query import ReadPlan, SliceTask, _merge_projected, _merge_schema, _scanner, read_slice
from .scanner import KEY_FIELD, virtual_key

def read_slice_keys(plan: ReadPlan, task: SliceTask) -> pa.Array:
    """The record keys of one slice's merged rows (string, no nulls): the merge of :func:`read_slice`
    on the columns it needs (keys, ordering values, delete markers), so the rest is never decoded."""
    ctx = plan.context
    schema = _merge_schema(ctx, ())
    # a table without meta fields keys its rows by the record-key columns (merge.record_keys)
    cols = list(dict.fromkeys([KEY_FIELD, *ctx.key_fields]))
    table = _merge_projected(ctx, task, schema, cols) if KEY_FIELD in schema.names else None
    if table is None:  # the whole slice, record by record where it must
        table = read_slice(replace(ctx, columns=None, filters=()), task)
    keys = table.column(KEY_FIELD).combine_chunks()
    if keys.null_count and ctx.key_fields:
        keys = row_keys(table, ctx.key_fields)
    return keys.filter(pc.is_valid(keys)).cast(pa.string())


def row_keys(table: pa.Table, key_fields) -> pa.Array:
    """Each row's record key: ``_hoodie_record_key``, or on a table without meta fields the key the reader
    makes from the record-key columns (:func:`~hudi_log.table.read.scanner.virtual_key`)."""
    try:
        return record_keys(table, key_fields).combine_chunks()
    except NotVectorizable:
        if KEY_FIELD in table.column_names and table.column(KEY_FIELD).null_count == 0:
            return table.column(KEY_FIELD).combine_chunks()
        metas = table.column(KEY_FIELD).to_pylist() if KEY_FIELD in table.column_names else [None] * table.num_rows
        rows = table.select(list(key_fields)).to_pylist()
        return pa.array([m if m is not None else virtual_key([r.get(f) for f in key_fields], key_fields)
                         for m, r in zip(metas, rows)], pa.string())


def slice_log_keys(plan: ReadPlan, task: SliceTask) -> pa.Array | None:
    """The record keys the slice's log data blocks hold (those a merge counts; deletes not included),
    decoding only the key columns; None where keys cannot be read that way."""
    from ...format.grammar import BlockType

    ctx = plan.context
    cols = [KEY_FIELD, *ctx.key_fields]
    out = []
    try:
        for block in _scanner(ctx, task).queued_blocks():
            if block.block_type != BlockType.delete_block:
                out.append(record_keys(block.to_arrow(columns=cols), ctx.key_fields).combine_chunks())
    except NotVectorizable:
        return None
    keys = pa.concat_arrays(out) if out else pa.array([], pa.string())
    return None if keys.null_count else keys
