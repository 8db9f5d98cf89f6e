"""Columnar decoding of Avro data (and CDC) block content into Arrow, one call per block.

After its 8-byte prefix (content version, record count), an Avro data block's content is a run of
(4-byte big-endian length, Avro datum). That run is exactly the Avro binary encoding of records whose
schema is the writer schema with one leading ``fixed(4)`` field — so, framed as one data block of an Avro
object container file under that wrapper schema, it decodes in a single ``polars.read_avro`` call.

* Which schemas go the columnar way is decided up front (:func:`columnar_supported`): polars 2.1 does not
  decode Avro maps or enums (it panics on nullable ones and on those inside arrays) nor unions of several non-null branches, so those
  — and anything else we have not checked — use the record path (fastavro), as do blocks polars fails on. Results are identical
  (the differential tests compare both paths on every corpus block and on generated schemas).
* The decode is checked, not trusted: the lengths polars read from the wrapper's fixed field must be the
  chain of length prefixes actually in the content (each at the offset the previous ones imply) and must
  add up to the content's size, so a datum that did not consume exactly its length cannot pass unnoticed.
* Work and memory are bounded by the block's bytes before polars or the C decoder sizes anything: the record
  count may not exceed what the content can hold (each record has a 4-byte length prefix), nor may the
  ``fixed`` fields' total (polars allocates count x size up front); schemas with items that take no bytes
  (an empty record, ``fixed`` of size 0) never reach polars; the writer schema's depth is bounded
  (:mod:`.bounds`). Past these checks, polars' errors and panics are a documented boundary: they become
  ColumnarDecodeError and the record path (fastavro, bounded the same way) decides and names the damage.
* Columns are cast to :func:`hudi_log.format.content.avro_arrow.avro_to_arrow_schema` of the writer schema (polars'
  large/view string types, categoricals for enums, nanosecond times, binary for fixed).

Records of primitive fields only (plain, or in a two-branch union with null: Hudi's usual flat table schema)
are decoded by the compiled ``_avro_cols.c`` instead, where the package was built with a C compiler: one pass
over the block straight into Arrow buffers, every read bounded by the record's own length prefix, each datum
required to end at its length and the block at its last record, strings checked as UTF-8. It is about 4x
polars' decode plus the checks and casts above (:func:`decode_block_content` with ``compiled=False`` keeps the
polars path; the tests hold the two and the record path equal). A block it refuses takes the record path.
"""

from __future__ import annotations

import io
import json
from functools import lru_cache
from typing import Any, Mapping

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from .avro_arrow import UnsupportedAvroType, avro_to_arrow_schema
from .bounds import BoundError, json_depth, load_schema

try:
    from . import _avro_cols as _compiled
except ImportError:  # built without a C compiler: polars decodes every block
    _compiled = None

LEN_FIELD = "__hudi_log_datum_length"
_SYNC = b"\x8a\x1f\x07\x13hudi-log\x00\x00\x00\x00\x00\x00"[:16]
_PREFIX = 8  # content version + record count
_MAP_TYPES = ("map",)
#: JSON nesting of the schemas polars decodes: the Arrow C data interface its tables cross into pyarrow
#: refuses structures nested more than 64 levels; deeper schemas (bounds.MAX_SCHEMA_DEPTH allows 100)
#: take the record path
POLARS_MAX_DEPTH = 48


class ColumnarDecodeError(ValueError):
    """The columnar decoder cannot (or did not correctly) decode a block; use the record path."""


def _zigzag(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _avro_bytes(b: bytes) -> bytes:
    return _zigzag(len(b)) + b


def columnar_supported(schema: Any) -> bool:
    """True when every type in the writer schema is one polars decodes faithfully."""
    defined: set[str] = set()

    def ok(s, ns, in_array=False) -> bool:
        if isinstance(s, list):
            branches = [b for b in s if b != "null"]
            return len(branches) == 1 and len(s) <= 2 and ok(branches[0], ns, in_array)
        if isinstance(s, str):
            if s in ("null", "boolean", "int", "long", "float", "double", "bytes", "string"):
                return s != "null"
            return False  # a reference to a named type: not checked with polars
        if not isinstance(s, Mapping):
            return False
        t = s.get("type")
        if t in ("record", "error"):
            name = s.get("name")
            if name in defined or not s.get("fields"):  # no fields: a record that takes no bytes
                return False
            defined.add(name)
            inner = s.get("namespace", ns)
            return all(ok(f["type"], inner, in_array) for f in s["fields"])
        if t == "array":
            return ok(s["items"], ns, True)
        if t in _MAP_TYPES:
            return False
        if t == "enum":
            return False  # polars 2.1 panics on nullable enums and enums inside arrays
        if t == "fixed":
            size = s.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or size < 1:
                return False
            return s.get("logicalType") in (None, "decimal") and (s.get("logicalType") != "decimal" or
                                                                 int(s["precision"]) <= 38)
        if s.get("logicalType") == "decimal":
            return t == "bytes" and int(s["precision"]) <= 38
        return isinstance(t, str) and ok(t, ns)

    try:
        return isinstance(schema, Mapping) and schema.get("type") == "record" and \
            all(ok(f["type"], schema.get("namespace")) for f in schema["fields"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return False


def _fixed_bytes(schema: Any) -> int:
    """The sizes of the ``fixed`` types a record holds outside arrays and maps, added up: polars sizes
    their buffers as record count x size up front (inside a list it starts from nothing)."""
    total = 0
    todo = [schema]
    while todo:
        s = todo.pop()
        if isinstance(s, list):
            todo += s
        elif isinstance(s, Mapping):
            t = s.get("type")
            if t == "fixed" and isinstance(s.get("size"), int):
                total += s["size"]
            elif t in ("record", "error"):
                todo += [f.get("type") for f in s.get("fields", ()) if isinstance(f, Mapping)]
            elif isinstance(t, (list, Mapping)):
                todo.append(t)
    return total


@lru_cache(maxsize=64)
def _plan(schema_json: str) -> tuple[bytes, pa.Schema, int] | None:
    """(container header, target Arrow schema, fixed bytes per record) for a writer schema, or None if
    not columnar."""
    try:
        schema = load_schema(schema_json)
        if json_depth(schema_json, POLARS_MAX_DEPTH) > POLARS_MAX_DEPTH or not columnar_supported(schema):
            return None
        names = [f["name"] for f in schema["fields"]]
        if LEN_FIELD in names:
            return None
        target = avro_to_arrow_schema(schema)
    except (BoundError, UnsupportedAvroType, KeyError, TypeError, ValueError, AttributeError):
        return None
    wrapper = dict(schema)
    wrapper["fields"] = [{"name": LEN_FIELD, "type": {"type": "fixed", "name": LEN_FIELD, "size": 4}}] + \
        list(schema["fields"])
    meta = _zigzag(2) + _avro_bytes(b"avro.schema") + _avro_bytes(json.dumps(wrapper).encode()) + \
        _avro_bytes(b"avro.codec") + _avro_bytes(b"null") + _zigzag(0)
    return b"Obj\x01" + meta + _SYNC, target, _fixed_bytes(schema)


def decode_block_content(content: bytes | memoryview, schema_json: str, columns=None, compiled: bool = True) -> pa.Table:
    """The records of Avro data-block content (prefix included) as an Arrow table under the writer
    schema's Arrow mapping. Raises ColumnarDecodeError when the columnar path does not apply.
    ``columns``: only these (those the schema has, in schema order) are built, which is cheaper.
    ``compiled``: the C decoder where it takes the schema (else, and with False, polars)."""
    flat = _flat_plan(schema_json) if compiled and _compiled is not None else None
    if flat is not None:
        return _decode_flat(content, flat, columns)
    plan = _plan(schema_json)
    if plan is None:
        raise ColumnarDecodeError("schema not supported by the columnar decoder")
    header, target, fixed_bytes = plan
    if len(content) < _PREFIX:
        raise ColumnarDecodeError("content shorter than its prefix")
    count = int.from_bytes(content[4:8], "big", signed=True)
    body = memoryview(content)[_PREFIX:]
    _check_count(count, len(body), fixed_bytes)
    if count == 0:
        if len(body):
            raise ColumnarDecodeError("bytes after zero records")
        return _project(target, columns).empty_table()
    if count < 0:
        raise ColumnarDecodeError("negative record count")
    container = b"".join((header, _zigzag(count), _zigzag(len(body)), body, _SYNC))
    try:
        df = pl.read_avro(io.BytesIO(container), columns=None if columns is None else
                          [LEN_FIELD] + _project(target, columns).names)
    except BaseException as e:  # polars raises its own errors, and pyo3 panics derive from BaseException
        if isinstance(e, (KeyboardInterrupt, SystemExit, MemoryError)):
            raise
        raise ColumnarDecodeError(f"polars: {type(e).__name__}: {str(e)[:200]}") from e
    if df.height != count:
        raise ColumnarDecodeError(f"polars read {df.height} records, the block holds {count}")
    try:  # views: zero-copy; _conform casts once
        table = df.to_arrow(compat_level=pl.CompatLevel.newest())
    except pa.ArrowException as e:  # the Arrow C data interface polars exports through has its own limits
        raise ColumnarDecodeError(f"polars to Arrow: {type(e).__name__}: {str(e)[:200]}") from e
    _check_lengths(table.column(LEN_FIELD), body)
    return _conform(table.drop_columns([LEN_FIELD]), _project(target, columns))


def _check_count(count: int, body: int, fixed_bytes: int) -> None:
    """A record count the body can hold: a 4-byte length prefix per record, and its fixed fields' bytes."""
    if count < 0:
        raise ColumnarDecodeError("negative record count")
    # a null in a union takes a byte where polars still sizes a fixed value: 8x the bytes, and some room
    if count * 4 > body or count * fixed_bytes > 8 * body + (1 << 20):
        raise ColumnarDecodeError(f"{count} records cannot fit in {body} bytes")


# field kinds of _avro_cols.c, by Avro primitive type, with the Arrow storage type each is built as
_KINDS = {"int": (0, pa.int32()), "long": (1, pa.int64()), "double": (2, pa.float64()), "float": (3, pa.float32()),
          "boolean": (4, pa.bool_()), "string": (5, pa.string()), "bytes": (5, pa.binary())}


@lru_cache(maxsize=64)
def _flat_plan(schema_json: str) -> tuple[tuple, pa.Schema] | None:
    """((kind, null branch, storage type) per field, target Arrow schema) when every field of the writer
    schema is a primitive the compiled decoder builds as the target's own storage (a date is an int32, a
    timestamp an int64: reinterpreted, not converted), else None."""
    try:
        schema = load_schema(schema_json)
        target = avro_to_arrow_schema(schema)
        fields = schema["fields"]
    except (ValueError, KeyError, TypeError, AttributeError, UnsupportedAvroType):  # BoundError is a ValueError
        return None
    specs = []
    for f, tf in zip(fields, target):
        t, null_branch = f.get("type"), -1
        if isinstance(t, list):
            if len(t) != 2 or t.count("null") != 1:
                return None
            null_branch = t.index("null")
            t = t[1 - null_branch]
        if isinstance(t, Mapping):
            if t.get("logicalType") in ("decimal", "big-decimal"):
                return None
            t = t.get("type")
        if not isinstance(t, str) or t not in _KINDS:
            return None
        kind, storage = _KINDS[t]
        if tf.type != storage and not (pa.types.is_temporal(tf.type) and not pa.types.is_interval(tf.type)
                                       and tf.type.bit_width == storage.bit_width and kind in (0, 1)):
            return None
        specs.append((kind, null_branch, storage))
    return tuple(specs), target


def _decode_flat(content, flat: tuple[tuple, pa.Schema], columns) -> pa.Table:
    specs, target = flat
    if len(content) < _PREFIX:
        raise ColumnarDecodeError("content shorter than its prefix")
    count = int.from_bytes(content[4:8], "big", signed=True)
    _check_count(count, len(content) - _PREFIX, 0)
    wanted = None if columns is None else set(columns)
    keep = [wanted is None or f.name in wanted for f in target]
    try:
        out = _compiled.decode(memoryview(content)[_PREFIX:], count,
                               [(k, nb, int(kp)) for (k, nb, _), kp in zip(specs, keep)])
    except ValueError as e:
        raise ColumnarDecodeError(f"compiled decoder: {e}") from e
    arrays, fields = [], []
    for (kind, _, storage), f, built in zip(specs, target, out):
        if built is None:
            continue
        validity, values, data, nulls, ascii = built
        vbuf = pa.py_buffer(validity) if validity is not None else None
        if kind == 4:  # one byte per boolean: Arrow packs them into bits
            values = np.packbits(np.frombuffer(values, np.uint8), bitorder="little")
        bufs = [vbuf, pa.py_buffer(values)] + ([pa.py_buffer(data)] if data is not None else [])
        arr = pa.Array.from_buffers(storage, count, bufs, null_count=nulls)
        if kind == 5 and storage == pa.string() and not ascii:  # ASCII bytes are valid UTF-8
            try:
                arr.validate(full=True)  # UTF-8
            except pa.ArrowInvalid as e:
                raise ColumnarDecodeError(f"field {f.name!r}: {e}") from e
        arrays.append(arr if arr.type == f.type else arr.view(f.type))
        fields.append(f)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _project(target: pa.Schema, columns) -> pa.Schema:
    if columns is None:
        return target
    wanted = set(columns)
    return pa.schema([f for f in target if f.name in wanted])


def _check_lengths(lengths: pa.ChunkedArray, body: memoryview) -> None:
    """The decoded length fields must be the chain of prefixes in ``body`` and cover it exactly."""
    n = len(lengths)
    arr = lengths.combine_chunks().cast(pa.large_binary()) if lengths.null_count == 0 else None
    if arr is None or pc.min_max(pc.binary_length(arr)).as_py() != {"min": 4, "max": 4}:
        raise ColumnarDecodeError("length fields are not 4 bytes each")
    first = int(np.frombuffer(arr.buffers()[1], np.int64, 1, 8 * arr.offset)[0])
    prefixes = np.frombuffer(arr.buffers()[2], np.uint8, 4 * n, first).reshape(n, 4)
    sizes = prefixes.view(">i4").ravel().astype(np.int64)
    if sizes.min() < 0:
        raise ColumnarDecodeError("negative datum length")
    ends = np.cumsum(sizes + 4)
    if int(ends[-1]) != len(body):
        raise ColumnarDecodeError(f"records end at {int(ends[-1])}, the content at {len(body)}")
    # the prefix at each record's start (0, then the previous ends) must be what polars decoded there
    starts = np.concatenate(([0], ends[:-1]))
    raw = np.frombuffer(body, np.uint8)
    if not np.array_equal(raw[starts[:, None] + np.arange(4)], prefixes):
        raise ColumnarDecodeError("length prefixes do not match the decoded datums")


def _conform(t: pa.Table, target: pa.Schema) -> pa.Table:
    return pa.Table.from_arrays([_cast(t.column(f.name), f.type) for f in target], schema=target)


def _cast(c: pa.ChunkedArray, to: pa.DataType) -> pa.ChunkedArray:
    if c.type == to:
        return c
    if pa.types.is_dictionary(c.type):
        c = c.cast(c.type.value_type)
    if pa.types.is_fixed_size_binary(to):
        return pa.chunked_array([_to_fixed(a.cast(pa.binary()), to) for a in c.chunks], to)
    if pa.types.is_time32(to) or pa.types.is_time64(to):
        # polars keeps times in nanoseconds; Avro's are whole ms / µs, so the division is exact
        unit = 1_000_000 if to == pa.time32("ms") else 1_000
        ints = pc.divide(c.cast(pa.int64()), unit)
        return ints.cast(pa.int32() if pa.types.is_time32(to) else pa.int64()).cast(to)
    if pa.types.is_struct(to):
        return pa.chunked_array([_cast_struct(a, to) for a in c.chunks], to)
    if pa.types.is_list(to):
        return pa.chunked_array([_cast_list(a, to) for a in c.chunks], to)
    return c.cast(to)


def _to_fixed(a: pa.Array, to: pa.FixedSizeBinaryType) -> pa.Array:
    values = a.to_pylist()
    if any(v is not None and len(v) != to.byte_width for v in values):
        raise ColumnarDecodeError("fixed value of the wrong size")
    return pa.array(values, to)


def _cast_struct(a: pa.Array, to: pa.StructType) -> pa.Array:
    fields = [to.field(i) for i in range(to.num_fields)]
    children = [_cast(pa.chunked_array([a.field(f.name)]), f.type).combine_chunks() for f in fields]
    return pa.StructArray.from_arrays(children, fields=fields, mask=a.is_null() if a.null_count else None)


def _cast_list(a: pa.Array, to: pa.ListType) -> pa.Array:
    a = a.cast(pa.large_list(a.type.value_type)) if not pa.types.is_large_list(a.type) else a
    values = _cast(pa.chunked_array([a.values], a.type.value_type), to.value_type).combine_chunks()
    offsets = a.offsets.cast(pa.int32())
    return pa.ListArray.from_arrays(offsets, values, type=to, mask=a.is_null() if a.null_count else None)
