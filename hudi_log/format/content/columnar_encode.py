"""Avro binary encoding of whole Arrow columns at once: the records of an Avro data block in a few
vectorized passes instead of one encoder call per record.

Every field of a flat record schema is encoded column by column with pyarrow.compute into one
binary value per row (the union branch index, then the value as Avro writes it: zig-zag varints
for int/long, little-endian IEEE for float/double, a varint length then the bytes for
string/bytes); the columns are then joined row by row, and each row is prefixed with its length
as the grammar's ``avro_record`` holds it. The result is one Arrow binary array whose data buffer
is the block content's record run, ready to be sliced into blocks without copying.

Where the package was built with a C compiler, ``hudi_log/format/content/_avro_rows.c`` writes the same rows from
the same checked columns in one pass (about ten times faster than joining binary columns); the
pyarrow path stays as the reference and the fallback, and the tests hold the two byte-equal.

Supported: record schemas whose fields are null, boolean, int, long, float, double, string or
bytes, each plain or in a two-branch union with null (either order). ``plan(schema)`` returns None
for anything else, and callers fall back to fastavro record by record; the results are identical
(tests/test_fast_encode.py holds them equal on generated schemas and values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import grammar

_PRIMITIVES = ("null", "boolean", "int", "long", "float", "double", "string", "bytes")
_ARROW_TYPE = {
    "null": pa.null(), "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(),
    "float": pa.float32(), "double": pa.float64(), "string": pa.string(), "bytes": pa.binary(),
}
#: the value ranges of Avro's int, long and float
AVRO_INT_RANGE = (-(2**31), 2**31 - 1)
AVRO_LONG_RANGE = (-(2**63), 2**63 - 1)
FLOAT32_MAX = 3.4028234663852886e38


@dataclass(frozen=True)
class FieldPlan:
    """How one field is encoded: its primitive type, and its union branches if nullable."""

    name: str
    type: str
    #: None: a plain type; else (index of null, index of the value branch) in the union
    union: Optional[tuple[int, int]]
    has_default: bool

    @property
    def nullable(self) -> bool:
        return self.union is not None or self.type == "null"


def plan(schema: Mapping) -> Optional[list[FieldPlan]]:
    """The field plans of a flat record schema, or None when a field is not supported here."""
    if not isinstance(schema, Mapping) or schema.get("type") != "record":
        return None
    out = []
    for f in schema.get("fields", []):
        t = f.get("type")
        union = None
        if isinstance(t, list):
            if len(t) != 2 or "null" not in t or t[0] == t[1]:
                return None
            vi = 1 - t.index("null")
            union = (t.index("null"), vi)
            t = t[vi]
        if isinstance(t, Mapping):
            if set(t) != {"type"}:  # logical types, named types, arrays...: the per-record path
                return None
            t = t["type"]
        if t not in _PRIMITIVES:
            return None
        out.append(FieldPlan(f["name"], t, union, "default" in f))
    return out


def arrow_schema(plans: Sequence[FieldPlan]) -> pa.Schema:
    """The Arrow schema the encoder takes for these fields."""
    return pa.schema([pa.field(p.name, _ARROW_TYPE[p.type], nullable=p.nullable) for p in plans])


def accepts(p: FieldPlan, arrow_type: pa.DataType) -> bool:
    """Whether a column of ``arrow_type`` gives the values the record-by-record path would take
    for this field (its Python values pass the handle's checks and encode the same)."""
    t = pa.types
    if t.is_null(arrow_type):
        return p.nullable
    if p.type == "boolean":
        return t.is_boolean(arrow_type)
    if p.type in ("int", "long"):
        return t.is_integer(arrow_type)
    if p.type in ("float", "double"):
        return t.is_floating(arrow_type)
    if p.type == "string":
        return t.is_string(arrow_type) or t.is_large_string(arrow_type)
    if p.type == "bytes":
        return t.is_binary(arrow_type) or t.is_large_binary(arrow_type) or t.is_fixed_size_binary(arrow_type)
    return False


# ---- varints ----------------------------------------------------------------------------------------
_U64 = pa.uint64()


def _u8_as_binary(u8: pa.Array) -> pa.Array:
    """One-byte binary values from a uint8 array (its buffer reinterpreted, then cast)."""
    u8 = u8.combine_chunks() if isinstance(u8, pa.ChunkedArray) else u8
    fsb = pa.FixedSizeBinaryArray.from_buffers(pa.binary(1), len(u8), [None, u8.buffers()[1]], offset=u8.offset)
    return fsb.cast(pa.binary())


def _fixed_as_binary(arr: pa.Array, width: int) -> pa.Array:
    """The little-endian bytes of each value of a fixed-width numeric array (nulls as zeros)."""
    fsb = pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), len(arr), [None, arr.buffers()[1]], offset=arr.offset)
    return fsb.cast(pa.binary())


Part = Union[pa.Array, bytes]  # one binary value per row, or the same bytes in every row


def _varint_parts(z: pa.Array) -> list[Part]:
    """Avro's variable-length encoding of each (already zig-zagged) uint64 value: one binary part
    per byte position, empty where a value has fewer bytes."""
    z = z.cast(_U64) if z.type != _U64 else z
    top = pc.max(z).as_py() or 0
    nbytes = max(1, (top.bit_length() + 6) // 7)
    parts: list[Part] = []
    for k in range(nbytes):
        group = pc.shift_right(z, pa.scalar(7 * k, _U64)) if k else z
        if nbytes > 1:
            group = pc.bit_wise_and(group, pa.scalar(0x7F, _U64))
        if k + 1 < nbytes:
            more = pc.greater_equal(z, pa.scalar(1 << (7 * (k + 1)), _U64))
            group = pc.if_else(more, pc.bit_wise_or(group, pa.scalar(0x80, _U64)), group)
        byte = _u8_as_binary(group.cast(pa.uint8()))
        if k > 0:
            byte = pc.if_else(pc.greater_equal(z, pa.scalar(1 << (7 * k), _U64)), byte, pa.scalar(b"", pa.binary()))
        parts.append(byte)
    return parts


def _zigzag(v: pa.Array) -> pa.Array:
    """Zig-zag of int64 values, as uint64."""
    v = v.cast(pa.int64())
    sign = pc.if_else(pc.less(v, 0), pa.scalar(-1, pa.int64()), pa.scalar(0, pa.int64()))
    return pc.bit_wise_xor(pc.shift_left(v, pa.scalar(1, pa.int64())), sign).view(_U64)


def _union_index(i: int) -> bytes:
    return bytes([i << 1])  # zig-zag of a small index, one varint byte


def join(parts: Sequence[Part], n: int) -> pa.Array:
    """Concatenate the parts row by row into one binary value per row."""
    arrays = [pa.scalar(x, pa.binary()) if isinstance(x, (bytes, bytearray)) else x for x in parts]
    if not any(isinstance(x, pa.Array) for x in arrays):
        arrays.append(pa.array([b""] * n, pa.binary()))
    if len(arrays) == 1:
        return arrays[0]
    return pc.binary_join_element_wise(*arrays, b"")


# ---- values -----------------------------------------------------------------------------------------
class ColumnError(ValueError):
    """A column whose values do not fit its Avro type; ``row`` is the first offending row."""

    def __init__(self, field: str, row: int, message: str):
        self.field = field
        self.row = row
        super().__init__(f"field {field!r}, row {row}: {message}")


def _first(mask: pa.Array) -> int:
    return pc.index(mask, True).as_py()


def prepare(p: FieldPlan, col) -> pa.Array:
    """``col`` checked against the field's type and cast to the Arrow type both encoders take (int64,
    float32, float64, uint8 for booleans, binary); nulls stay. Raises :class:`ColumnError` for a value
    Avro's type cannot hold (``pa.ArrowException`` where Arrow refuses the cast)."""
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if col.null_count and not p.nullable:
        raise ColumnError(p.name, _first(pc.is_null(col)), f"null in a field of type {p.type}")
    t = p.type
    if t == "null":
        return col
    if t == "boolean":
        return col.cast(pa.uint8())
    if t in ("int", "long"):
        if t == "int" and len(col) - col.null_count:
            lo, hi = pc.min_max(col).values()
            if lo.as_py() < AVRO_INT_RANGE[0] or hi.as_py() > AVRO_INT_RANGE[1]:
                bad = pc.or_(pc.less(col, AVRO_INT_RANGE[0]), pc.greater(col, AVRO_INT_RANGE[1]))
                raise ColumnError(p.name, _first(bad), "out of range for Avro int")
        return col.cast(pa.int64())
    if t == "float":
        if len(col) - col.null_count:
            f64 = col.cast(pa.float64())
            too_big = pc.and_(pc.is_finite(f64), pc.greater(pc.abs(f64), FLOAT32_MAX))
            if pc.any(too_big).as_py():
                raise ColumnError(p.name, _first(too_big), "does not fit a float (32-bit)")
        return col.cast(pa.float32())
    if t == "double":
        return col.cast(pa.float64())
    return col.cast(pa.binary())


def _value_parts(p: FieldPlan, col: pa.Array) -> list[Part]:
    """The Avro binary of each (non-null) value of a prepared column under the primitive type ``p.type``."""
    t = p.type
    if t == "null":
        return []
    if t == "boolean":
        return [_u8_as_binary(col.fill_null(0))]
    if t in ("int", "long"):
        return _varint_parts(_zigzag(col.fill_null(0)))
    if t == "float":
        return [_fixed_as_binary(col.fill_null(0.0), 4)]
    if t == "double":
        return [_fixed_as_binary(col.fill_null(0.0), 8)]
    # string / bytes: length, then the bytes
    data = col.fill_null(b"")
    lengths = pc.binary_length(data).cast(pa.int64())
    return _varint_parts(_zigzag(lengths)) + [data]


def field_parts(p: FieldPlan, col: pa.Array) -> list[Part]:
    """Each row's Avro binary of one field (union index, if any, and value), as parts to join."""
    col = prepare(p, col)
    value = _value_parts(p, col)
    if p.union is None:
        return value
    null_i, value_i = p.union
    some = [_union_index(value_i)] + value
    if not col.null_count:
        return some
    null = pa.scalar(_union_index(null_i), pa.binary())
    if len(col) == col.null_count:
        return [_union_index(null_i)]
    return [pc.if_else(pc.is_null(col), null, join(some, len(col)))]


def encode_field(p: FieldPlan, col: pa.Array) -> pa.Array:
    """Each row's Avro binary of one field: union index (if any) and value."""
    return join(field_parts(p, col), len(col))


def _length_prefix(lengths: pa.Array) -> pa.Array:
    """Each datum length in the grammar's avro_record.len_datum layout (4 bytes, big-endian)."""
    u = lengths.cast(pa.uint32())
    parts = [
        pc.shift_left(pc.bit_wise_and(u, pa.scalar(0xFF, pa.uint32())), pa.scalar(24, pa.uint32())),
        pc.shift_left(pc.bit_wise_and(u, pa.scalar(0xFF00, pa.uint32())), pa.scalar(8, pa.uint32())),
        pc.bit_wise_and(pc.shift_right(u, pa.scalar(8, pa.uint32())), pa.scalar(0xFF00, pa.uint32())),
        pc.shift_right(u, pa.scalar(24, pa.uint32())),
    ]
    swapped = pc.bit_wise_or(pc.bit_wise_or(parts[0], parts[1]), pc.bit_wise_or(parts[2], parts[3]))
    if grammar.AVRO_RECORD_LENGTH_BYTE_ORDER == "little":  # pragma: no cover - the grammar says big
        swapped = u
    return _fixed_as_binary(swapped, grammar.AVRO_RECORD_PREFIX_SIZE)


@dataclass
class EncodedRecords:
    """Length-prefixed Avro records of one batch: ``data[offsets[i]:offsets[i+1]]`` is record i."""

    data: pa.Buffer
    offsets: list[int]

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def record_sizes(self) -> list[int]:
        """Each record's size in a block's content (its datum plus the length prefix)."""
        o = self.offsets
        return [b - a for a, b in zip(o, o[1:])]

    def span(self, start: int, stop: int) -> memoryview:
        """Records [start, stop) as they sit in a block's content, without copying."""
        return memoryview(self.data)[self.offsets[start]: self.offsets[stop]]


def encode_table(plans: Sequence[FieldPlan], columns: Mapping[str, Any], n: int) -> EncodedRecords:
    """Encode ``n`` records given, for each field, an Arrow column of its values or (a field with the
    same value in every record) that value's encoded bytes, e.g. a meta field's union index and string.
    The compiled encoder (``hudi_log.format.content._avro_rows``) writes the rows when it is built, else pyarrow."""
    if _native is not None:
        return _encode_native(plans, columns, n)
    parts: list[Part] = []
    for p in plans:
        col = columns[p.name]
        if isinstance(col, (bytes, bytearray)):
            parts.append(bytes(col))
        else:
            parts += field_parts(p, col)
    # runs of constants fold into one
    folded: list[Part] = []
    for x in parts:
        if isinstance(x, bytes) and folded and isinstance(folded[-1], bytes):
            folded[-1] += x
        else:
            folded.append(x)
    # each datum's length from its parts' lengths (no bytes are joined twice)
    const = sum(len(x) for x in folded if isinstance(x, bytes))
    length = pa.array([const] * n, pa.int32()) if n else pa.array([], pa.int32())
    for x in folded:
        if not isinstance(x, bytes):
            length = pc.add(length, pc.binary_length(x))
    rows = join([_length_prefix(length)] + folded, n)
    off = pa.Array.from_buffers(pa.int32(), len(rows) + 1, [None, rows.buffers()[1]], offset=rows.offset)
    return EncodedRecords(rows.buffers()[2], off.to_pylist())


# ---- the compiled encoder -----------------------------------------------------------------------------
try:
    from . import _avro_rows as _native
except ImportError:  # built without a C compiler: the pyarrow path above
    _native = None
if (grammar.AVRO_RECORD_LENGTH_BYTE_ORDER, grammar.AVRO_RECORD_PREFIX_SIZE) != ("big", 4):  # pragma: no cover
    _native = None  # the C code writes the grammar's prefix as it is today

# field kinds of hudi_log/format/content/_avro_rows.c
_CONST, _LONG, _DOUBLE, _FLOAT, _BOOL, _BYTES = range(6)
_KIND = {"int": _LONG, "long": _LONG, "double": _DOUBLE, "float": _FLOAT, "boolean": _BOOL, "string": _BYTES,
         "bytes": _BYTES}
_NUMPY = {_LONG: np.int64, _DOUBLE: np.float64, _FLOAT: np.float32, _BOOL: np.uint8}


def _native_field(p: FieldPlan, col: pa.Array) -> tuple | None:
    """The compiled encoder's description of one prepared column (None: the field writes nothing)."""
    n = len(col)
    if p.type == "null":
        return None
    if p.union is not None and n and col.null_count == n:  # every row takes the null branch
        return _CONST, -1, -1, None, _union_index(p.union[0]), None
    null_b, value_b = (-1, -1) if p.union is None else (p.union[0] << 1, p.union[1] << 1)
    valid = pc.is_valid(col).to_numpy(zero_copy_only=False).view(np.uint8) if col.null_count else None
    kind = _KIND[p.type]
    if kind == _BYTES:
        offsets = np.frombuffer(col.buffers()[1], np.int32, n + 1, col.offset * 4) if n else np.zeros(1, np.int32)
        data = col.buffers()[2]
        return kind, null_b, value_b, valid, offsets, data if data is not None else b""
    fill = 0.0 if kind in (_DOUBLE, _FLOAT) else 0
    values = (col.fill_null(fill) if col.null_count else col).to_numpy(zero_copy_only=False)
    return kind, null_b, value_b, valid, np.ascontiguousarray(values, _NUMPY[kind]), None


def _encode_native(plans: Sequence[FieldPlan], columns: Mapping[str, Any], n: int) -> EncodedRecords:
    specs = []
    for p in plans:
        col = columns[p.name]
        spec = ((_CONST, -1, -1, None, bytes(col), None) if isinstance(col, (bytes, bytearray))
                else _native_field(p, prepare(p, col)))
        if spec is not None:
            specs.append(spec)
    offsets = np.empty(n + 1, np.int32)
    data = _native.encode(n, specs, offsets)
    return EncodedRecords(pa.py_buffer(data), offsets.tolist())


def encode_constant(p: FieldPlan, value: Any) -> bytes:
    """The Avro binary of one value of a field (used for fields constant over a batch)."""
    col = pa.array([value], _ARROW_TYPE[p.type])
    return encode_field(p, col)[0].as_py()
