"""The fast paths of :mod:`.deletes`: decoding and encoding delete payloads in one pass.

The common delete payloads (string keys; null, boolean, int, long or string ordering values) are read in
one pass into columns (:class:`DeleteColumns`: what a merge reads, no record object per delete; through
the compiled ``_deletes.c`` where it is built, else its Python twin here), without fastavro and without
the strict decoder's re-encoding check. It accepts only bytes that
are canonical by construction: minimal varints, one array block, union branches and values in range. So
whatever it returns is what the strict decoder returns; anything else gives None, and the strict decoder
decides and names the damage (:mod:`.deletes` holds the schema and the strict decoder).

The encoder (:func:`encode_fast`, behind :func:`~hudi_log.format.content.deletes.encode_delete_payload`)
lays out every payload in one pass, as Hudi's Avro writer does for ``HoodieDeleteRecordList``: each
record's union branches and values appended straight to one buffer, with no per-record datum for
fastavro and nothing parsed back through the generated codec. The layout's facts come from the
grammar: the union branch codes are its ``ordering_kind`` enum, the FLOAT / DOUBLE byte layouts are
read off its generated parser (``grammar.ORDERING_FLOAT_FORMATS``), and the wire type of each wrapper
follows its ``ordering_value`` switch; tests/test_deletes_encode.py holds the bytes equal to the
grammar's own serializer and to fastavro's on every delete block of the corpus and on generated ones.
Values are checked by the same functions as before (:mod:`.deletes`), so a bad one raises the same
``DeletePayloadError``. :func:`encode_columns` lays out the common records from columns through
``_deletes.c`` (the writer's path: ``AppendHandle`` keeps its deletes as columns), and hands anything
else to :func:`encode_fast`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

from .. import grammar as _grammar
from .deletes import _INT32, _INT64, ArrayItemKind, DeletePayloadError, DeleteRecord, OrderingKind, _fail, \
    _normalize_array, _record_to_wire, _to_wire_scalar

try:  # the compiled decoder (setup.py builds it where a C compiler is); this module's Python path otherwise
    from . import _deletes as _compiled
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled = None


class _NotFast(Exception):
    pass


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """A zigzag Avro long at ``pos`` in its minimal encoding → (value, next position)."""
    b = buf[pos]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos + 1
    n = b & 0x7F
    shift = 7
    pos += 1
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            break
        shift += 7
        if shift > 63:
            raise _NotFast
    if b == 0 or n >= 1 << 64:  # an over-long encoding, or beyond 64 bits
        raise _NotFast
    return (n >> 1) ^ -(n & 1), pos


def _string(buf: bytes, pos: int) -> tuple[str, int]:
    n, pos = _varint(buf, pos)
    end = pos + n
    if n < 0 or end > len(buf):
        raise _NotFast
    return buf[pos:end].decode("utf-8"), end


def _optional_string(buf: bytes, pos: int) -> tuple[str | None, int]:
    b = buf[pos]
    if b == 0:
        return None, pos + 1
    if b != 2:
        raise _NotFast
    return _string(buf, pos + 1)


_FAST_KINDS = {k.value: k for k in (OrderingKind.NULL, OrderingKind.BOOLEAN, OrderingKind.INT, OrderingKind.LONG,
                                     OrderingKind.STRING)}


@dataclass(frozen=True)
class DeleteColumns:
    """Delete records as columns (what a merge reads): keys, partition paths, the ordering kinds' codes
    (``OrderingKind`` values, the grammar's ``ordering_kind``) and the ordering values."""

    record_keys: list
    partition_paths: list
    kind_codes: bytes
    values: list

    @classmethod
    def of(cls, records: list[DeleteRecord]) -> DeleteColumns:
        return cls([r.record_key for r in records], [r.partition_path for r in records],
                   bytes(r.ordering_kind.value for r in records), [r.ordering_value for r in records])

    def __len__(self) -> int:
        return len(self.record_keys)

    def records(self) -> list[DeleteRecord]:
        by_code = {c: OrderingKind(c) for c in set(self.kind_codes)}
        kinds = [by_code[c] for c in self.kind_codes]
        return list(map(DeleteRecord, self.record_keys, self.partition_paths, self.values, kinds))


def decode_columns(payload: bytes) -> DeleteColumns | None:
    """The records of ``payload`` as columns, or None where the fast path does not take it (the strict
    decoder decides). Through the compiled ``_deletes.c`` where the package was built with a C compiler."""
    got = _compiled.decode(payload) if _compiled is not None else _decode_columns_py(payload)
    return None if got is None else DeleteColumns(*got)


def decode_fast(payload: bytes) -> list[DeleteRecord] | None:
    """The records of ``payload``, or None where the fast path does not take it (the strict decoder decides)."""
    columns = decode_columns(payload)
    return None if columns is None else columns.records()


def _decode_columns_py(payload: bytes) -> tuple | None:
    """The Python twin of ``_deletes.c``'s ``decode``."""
    try:
        count, pos = _varint(payload, 0)
        if count < 0:
            return None
        keys, partitions, kinds, values = [], [], bytearray(), []
        for _ in range(count):
            key, pos = _optional_string(payload, pos)
            partition, pos = _optional_string(payload, pos)
            branch = payload[pos]
            pos += 1
            kind = _FAST_KINDS.get(branch >> 1) if branch & 1 == 0 else None
            if kind is None:
                return None
            if kind is OrderingKind.NULL:
                value: object = None
            elif kind is OrderingKind.BOOLEAN:
                byte = payload[pos]
                if byte > 1:
                    return None
                value, pos = byte == 1, pos + 1
            elif kind is OrderingKind.STRING:
                value, pos = _string(payload, pos)
            else:
                value, pos = _varint(payload, pos)
                if not (_INT32 if kind is OrderingKind.INT else _INT64)[0] <= value <= \
                        (_INT32 if kind is OrderingKind.INT else _INT64)[1]:
                    return None
            keys.append(key)
            partitions.append(partition)
            kinds.append(kind.value)
            values.append(value)
        if count:
            end, pos = _varint(payload, pos)
            if end != 0:
                return None
        return (keys, partitions, bytes(kinds), values) if pos == len(payload) else None
    except (_NotFast, IndexError, UnicodeDecodeError):
        return None


# ---- encoding --------------------------------------------------------------------------------------
_ONE_BYTE = [bytes([b]) for b in range(128)]
_INT_MIN, _INT_MAX = _INT32
_LONG_MIN, _LONG_MAX = _INT64
_NULL, _INT, _LONG, _STRING = OrderingKind.NULL, OrderingKind.INT, OrderingKind.LONG, OrderingKind.STRING
# union branches as they sit on the wire (zig-zag varints of the grammar's ordering_kind codes)
_BRANCH = {k: bytes([k.value * 2]) for k in OrderingKind}
_ITEM_BRANCH = {k: bytes([k.value * 2]) for k in ArrayItemKind}
_ARRAY_NULL, _ARRAY_PRESENT = b"\x00", b"\x02"  # ArrayWrapper.wrappedValues: union [null, array]
_UNION_NULL, _UNION_STRING = 0, 2  # ["null", "string"] branches 0 and 1, zig-zagged
# the wire type of each wrapper's value, as the grammar's ordering_value switches on its kind
_LONGS = frozenset({"INT", "LONG", "DATE", "LOCAL_DATE", "TIME_MICROS", "TIMESTAMP_MICROS"})
_BYTES = frozenset({"BYTES", "DECIMAL"})
_FLOATS = {name: struct.Struct(_grammar.ORDERING_FLOAT_FORMATS[int(getattr(_grammar.OrderingKind, name.lower()))])
           for name in ("FLOAT", "DOUBLE")}
#: a delete content's payload length is an s4 in the grammar
_MAX_PAYLOAD = 2**31 - 1


def _long(n: int) -> bytes:
    """An Avro int / long: zig-zag, then 7 bits a byte, least significant group first."""
    z = (n << 1) ^ (n >> 63)
    if z < 0x80:
        return _ONE_BYTE[z]
    out = bytearray()
    while z >= 0x80:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _raw(out: bytearray, kind: str, raw: object) -> None:
    # a wrapper's value, already checked and converted by deletes._to_wire_scalar
    if kind in _LONGS:
        out += _long(raw)
    elif kind == "STRING":
        data = raw.encode("utf-8")
        out += _long(len(data))
        out += data
    elif kind in _BYTES:
        out += _long(len(raw))
        out += raw
    elif kind == "BOOLEAN":
        out.append(1 if raw else 0)
    else:
        out += _FLOATS[kind].pack(raw)


def _ordering(out: bytearray, kind: object, value: object, where: str) -> None:
    """Any ordering value, through the same checks as the strict encoder."""
    if not isinstance(kind, OrderingKind):
        raise _fail(where, f"ordering_kind must be an OrderingKind, not {kind!r}")
    if kind is _NULL:
        if value is not None:
            raise _fail(where, f"NULL ordering kind with a non-None value {value!r}")
        out += _BRANCH[kind]
        return
    if kind is OrderingKind.ARRAY:
        if value is not None and not isinstance(value, (list, tuple)):
            raise _fail(where, f"ARRAY value must be a list, a tuple or None, not {type(value).__name__}")
        out += _BRANCH[kind]
        if value is None:
            out += _ARRAY_NULL
            return
        items = _normalize_array(value, where)
        out += _ARRAY_PRESENT
        if items:
            out += _long(len(items))
        for i, item in enumerate(items):
            item_where = f"{where}[{i}]"
            if not isinstance(item.kind, ArrayItemKind):
                raise _fail(item_where, f"item kind must be an ArrayItemKind, not {item.kind!r}")
            out += _ITEM_BRANCH[item.kind]
            if item.kind is ArrayItemKind.NULL:
                if item.value is not None:
                    raise _fail(item_where, f"NULL item kind with a non-None value {item.value!r}")
                continue
            _raw(out, item.kind.name, _to_wire_scalar(item.kind.name, item.value, item_where))
        out.append(0)  # the array's closing block
        return
    out += _BRANCH[kind]
    _raw(out, kind.name, _to_wire_scalar(kind.name, value, where))


def _put_optional_string(out: bytearray, value: object) -> None:
    if value is None:
        out.append(_UNION_NULL)
        return
    if not isinstance(value, str):
        raise TypeError  # the strict encoder's checks name it
    data = str.encode(value, "utf-8")
    out.append(_UNION_STRING)
    out += _long(len(data))
    out += data


def _record(out: bytearray, r: DeleteRecord, index: int) -> None:
    _put_optional_string(out, r.record_key)
    _put_optional_string(out, r.partition_path)
    kind, value = r.ordering_kind, r.ordering_value
    # the common wrappers inline; the rest (and every refusal) through the strict encoder's checks
    if kind is _INT and type(value) is int and _INT_MIN <= value <= _INT_MAX:
        out += b"\x04"
        out += _long(value)
    elif kind is _LONG and type(value) is int and _LONG_MIN <= value <= _LONG_MAX:
        out += b"\x06"
        out += _long(value)
    elif kind is _STRING and type(value) is str:
        data = value.encode("utf-8")
        out += b"\x0e"
        out += _long(len(data))
        out += data
    elif kind is _NULL and value is None:
        out.append(0)
    else:
        _ordering(out, kind, value, f"delete record {index}: ordering value")


assert (_BRANCH[_INT], _BRANCH[_LONG], _BRANCH[_STRING], _BRANCH[_NULL]) == (b"\x04", b"\x06", b"\x0e", b"\x00")


def encode_columns(columns: DeleteColumns) -> bytes:
    """``encode_fast`` of delete records given as columns: the common ones laid out by the compiled
    ``_deletes.c`` without a record object each; any other (or where it is not built) through
    :func:`encode_fast`, which also names what is wrong with a bad one."""
    got = None
    if _compiled is not None:
        got = _compiled.encode(columns.record_keys, columns.partition_paths, columns.kind_codes, columns.values)
    if got is None:
        return encode_fast(columns.records())
    return _checked_size(got, len(columns))


def _checked_size(payload: bytes, count: int) -> bytes:
    if len(payload) > _MAX_PAYLOAD:
        raise DeletePayloadError(f"{count} deletes make a payload of {len(payload):,} bytes, more than a "
                                 f"delete block holds ({_MAX_PAYLOAD:,}); write them in several blocks")
    return payload


def encode_fast(records: Iterable[DeleteRecord]) -> bytes:
    """The Avro binary of ``HoodieDeleteRecordList`` for ``records``, in one pass (see the module doc)."""
    records = records if isinstance(records, (list, tuple)) else list(records)
    out = bytearray()
    if records:
        out += _long(len(records))  # one array block holds them all, as Hudi's writer makes it
    for i, r in enumerate(records):
        try:
            if not isinstance(r, DeleteRecord):
                raise TypeError
            _record(out, r, i)
        except DeletePayloadError:
            raise
        except (TypeError, AttributeError, UnicodeEncodeError) as exc:
            _record_to_wire(r, i)  # names what is wrong with the record
            raise DeletePayloadError(f"delete record {i}: cannot encode: {exc!r}") from exc  # pragma: no cover
    out.append(0)  # the closing block of the array
    return _checked_size(bytes(out), len(records))
