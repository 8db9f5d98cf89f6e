"""The fast path of :func:`hudi_log.format.content.deletes.decode_delete_payload`.

The common delete payloads (string keys; null, boolean, int, long or string ordering values) are read in
one pass, without fastavro and without the strict decoder's re-encoding check. It accepts only bytes that
are canonical by construction: minimal varints, one array block, union branches and values in range. So
whatever it returns is what the strict decoder returns; anything else gives None, and the strict decoder
decides and names the damage (:mod:`.deletes` holds the schema and the strict decoder).
"""

from __future__ import annotations

from .deletes import _INT32, _INT64, DeleteRecord, OrderingKind


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


_FAST_KINDS = {0: OrderingKind.NULL, 1: OrderingKind.BOOLEAN, 2: OrderingKind.INT, 3: OrderingKind.LONG,
               7: OrderingKind.STRING}


def decode_fast(payload: bytes) -> list[DeleteRecord] | None:
    """The records of ``payload``, or None where the fast path does not take it (the strict decoder decides)."""
    try:
        count, pos = _varint(payload, 0)
        out: list[DeleteRecord] = []
        if count < 0:
            return None
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
            out.append(DeleteRecord(key, partition, value, kind))
        if count:
            end, pos = _varint(payload, pos)
            if end != 0:
                return None
        return out if pos == len(payload) else None
    except (_NotFast, IndexError, UnicodeDecodeError):
        return None
