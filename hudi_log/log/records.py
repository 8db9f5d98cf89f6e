"""Records as they come into an append handle (``HoodieAppendHandle``'s input side): dicts or Arrow
batches, their record keys as Hudi's key generators print them, and Hudi's estimate of the record size
that decides where one data block ends (``hoodie.logfile.data.block.max.size``)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

import pyarrow as pa

from ..errors import AppendHandleError
from ..format.content.meta_fields import META_FIELDS

#: Hudi re-estimates the average record size every this many records
RECORDS_PER_SIZE_ESTIMATE = 100

RecordKeyField = Union[str, Sequence[str], Callable[[Mapping[str, Any]], Any]]


def key_extractor(spec: RecordKeyField, field_names) -> Callable[[Mapping[str, Any]], Any]:
    """The record key of a record: one field's value, Hudi's complex key text "f1:v1,f2:v2" for several,
    or what a callable computes."""
    if callable(spec):
        return spec
    fields = [spec] if isinstance(spec, str) else list(spec)
    if not fields:
        raise AppendHandleError("record_key_field names no field")
    missing = [f for f in fields if f not in field_names]
    if missing:
        raise AppendHandleError(f"record key field(s) {missing} are not in the table schema")
    if len(fields) == 1:
        only = fields[0]
        return lambda r: r.get(only)
    # ComplexKeyGenerator: "f1:v1,f2:v2"
    def complex_key(r):
        parts = []
        for f in fields:
            v = r.get(f)
            if v is None or v == "":
                return None
            parts.append(f"{f}:{key_text(v)}")
        return ",".join(parts)
    return complex_key


def block_cuts(offsets: Sequence[int], avg: Optional[int], num: int, max_size: int) -> tuple[list[int], Optional[int]]:
    """Hudi's estimate over records ``offsets[i]..offsets[i+1]`` long: the positions before
    which the buffer is written as a data block, and the average after them. ``avg`` is the average
    so far (None before the first record), ``num`` the records already in the buffer.

    Hudi updates the average record size (``avg*0.8 + size*0.2``, truncated) at the first
    record, every 100 records and whenever the buffer holds ``max_block_size // avg`` records,
    and flushes when, after the update, it still does. Between those points nothing changes,
    so the loop jumps from one to the next.
    """
    every = RECORDS_PER_SIZE_ESTIMATE
    cuts: list[int] = []
    i, n = 0, len(offsets) - 1
    while i < n:
        if avg is None:
            avg = offsets[i + 1] - offsets[i]
        limit = max_size // max(avg, 1)
        if num >= limit or num % every == 0:
            avg = max(int(avg * 0.8 + (offsets[i + 1] - offsets[i]) * 0.2), 1)
            if num >= max_size // avg and num > 0:
                cuts.append(i)
                num = 0
            num += 1
            i += 1
        else:
            step = min((num // every + 1) * every, limit, num + n - i) - num
            num += step
            i += step
    return cuts, avg


def key_text(v: Any) -> str:
    """A key value as Java's toString would print the common types."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def is_arrow(records) -> bool:
    return isinstance(records, (pa.RecordBatch, pa.Table))


def arrow_batches(records, size: int):
    batches = [records] if isinstance(records, pa.RecordBatch) else records.to_batches(max_chunksize=size)
    for b in batches:
        for start in range(0, b.num_rows, size):
            yield b.slice(start, size)


def one_chunk(col):
    if isinstance(col, pa.ChunkedArray):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col


def iter_records(records) -> Iterable[Mapping[str, Any]]:
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None and isinstance(records, (pa.RecordBatch, pa.Table)):
        batches = [records] if isinstance(records, pa.RecordBatch) else records.to_batches()
        for b in batches:
            cols = [c for c in b.schema.names if c not in META_FIELDS]
            yield from b.select(cols).to_pylist(maps_as_pydicts="strict")
        return
    yield from records
