"""The small codecs under the HFile reader (:mod:`.hfile`): its error type, CRC32C (HBase's checksum
type 2) and just enough of protobuf's wire format for HBase's ``TrailerProto`` and ``InfoProto``.

Kept apart so that the reader itself reads as the file's layout: trailer, blocks, file info, index, cells.
"""

from __future__ import annotations

from ...errors import HudiLogError


class HFileError(HudiLogError, ValueError):
    """The bytes are not a readable HFile v3.

    ``offset`` is a byte offset in the HFile; ``field`` names what was being read there. For
    problems inside a compressed block, the offset is the block's and the message also gives the
    position inside the uncompressed payload.
    """

    def __init__(self, offset: int, field: str, problem: str) -> None:
        super().__init__(f"HFile offset {offset}: {field}: {problem}")
        self.offset = offset
        self.field = field
        self.problem = problem


# --------------------------------------------------------------------------------------------
# CRC32C (Castagnoli). zlib only has plain CRC32, and a dependency for a few KB per file is
# not worth it: a table-driven loop checks a typical metadata-table HFile in well under 1 ms.


def _crc32c_table() -> tuple[int, ...]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC32C_TABLE = _crc32c_table()


def _crc32c(data: bytes) -> int:
    table = _CRC32C_TABLE
    crc = 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# --------------------------------------------------------------------------------------------
# Protobuf: just enough of the wire format for TrailerProto and InfoProto (proto2).


def _read_varint(buf: bytes, pos: int, end: int, offset: int, field: str) -> tuple[int, int]:
    """Decode an unsigned varint at buf[pos:end]; ``offset`` is buf[0]'s HFile offset."""
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise HFileError(offset + pos, field, "truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 64:
            raise HFileError(offset + pos, field, "varint longer than 10 bytes")


def _protobuf_fields(
    buf: bytes, pos: int, end: int, offset: int, what: str
) -> list[tuple[int, int | bytes]]:
    """Split a protobuf message into (field number, value); varints as int, the rest as bytes."""
    fields: list[tuple[int, int | bytes]] = []
    while pos < end:
        tag, pos = _read_varint(buf, pos, end, offset, f"{what} field tag")
        number, wire_type = tag >> 3, tag & 7
        name = f"{what} field {number}"
        if number == 0:
            raise HFileError(offset + pos, name, "field number 0")
        value: int | bytes
        if wire_type == 0:
            value, pos = _read_varint(buf, pos, end, offset, name)
        elif wire_type == 2:
            length, pos = _read_varint(buf, pos, end, offset, f"{name} length")
            if length > end - pos:
                raise HFileError(offset + pos, name, f"length {length} runs past the message")
            value = bytes(buf[pos : pos + length])
            pos += length
        elif wire_type in (1, 5):  # fixed64 / fixed32: unused by these messages, kept raw
            size = 8 if wire_type == 1 else 4
            if size > end - pos:
                raise HFileError(offset + pos, name, "truncated fixed-width value")
            value = bytes(buf[pos : pos + size])
            pos += size
        else:
            raise HFileError(offset + pos, name, f"unsupported wire type {wire_type}")
        fields.append((number, value))
    return fields


def _delimited_message(buf: bytes, pos: int, end: int, offset: int, what: str) -> tuple[int, int]:
    """Locate a varint-length-prefixed message; return its (start, end) in buf."""
    length, pos = _read_varint(buf, pos, end, offset, f"{what} length")
    if length > end - pos:
        raise HFileError(offset + pos, f"{what} length", f"{length} runs past the end ({end - pos} left)")
    return pos, pos + length
