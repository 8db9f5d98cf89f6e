"""The bridge to the codec generated from spec/hfile.ksy: an HFile's bytes <-> :class:`HFileLayout`.

An HFile as Hudi writes it for its metadata table (hudi-io's ``HFileWriterImpl`` in Hudi 1.1, HBase's
``HFileWriterImpl`` before) is a run of blocks and a 4096-byte trailer. :func:`parse_layout` reads one
through the generated parser into typed dataclasses, every byte accounted for (a block's stored, still
compressed payload and its checksum bytes are kept as stored), and :func:`layout_bytes` writes a layout
through the generated serializer, so ``layout_bytes(parse_layout(b)) == b`` for every file the grammar
accepts. What the blocks mean (cells, file info, indexes) is decoded in :mod:`.hfile`; the block bodies'
layouts are the grammar's types too (:func:`parse_body`, :func:`body_bytes`).
"""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass, field
from typing import Union

import kaitaistruct
from kaitaistruct import KaitaiStream

from hudi_log_generated.hfile import Hfile

from .hfile_wire import HFileError

__all__ = [
    "BlockType",
    "ChecksumType",
    "CompressionCodec",
    "KeyType",
    "TrailerField",
    "HFileBlock",
    "HFileTrailer",
    "HFileLayout",
    "parse_layout",
    "layout_bytes",
    "parse_body",
    "body_bytes",
    "gzip_block",
    "BLOCK_HEADER_SIZE",
    "TRAILER_SIZE",
    "TRAILER_MAGIC",
    "PB_MAGIC",
]

BlockType = Hfile.BlockType
ChecksumType = Hfile.ChecksumType
CompressionCodec = Hfile.CompressionCodec
KeyType = Hfile.KeyType
TrailerField = Hfile.TrailerField
WireType = Hfile.WireType

#: the checksummed block header every block of a version-3 file has
BLOCK_HEADER_SIZE = 33
TRAILER_SIZE = 4096


def _contents_of(cls, field: str) -> bytes:
    # A magic is written once, as `contents` in the .ksy; the generated check carries it.
    probe = cls()
    setattr(probe, field, b"")
    try:
        probe._check()
    except kaitaistruct.ConsistencyError as e:  # first its length, then (zeros of it) its bytes
        setattr(probe, field, bytes(e.expected))
    try:
        probe._check()
    except kaitaistruct.ValidationNotEqualError as e:
        return bytes(e.expected)
    raise AssertionError(f"generated grammar lost the {field} check of {cls.__name__}")


TRAILER_MAGIC = _contents_of(Hfile.Trailer, "magic")
PB_MAGIC = _contents_of(Hfile.FileInfoBody, "pb_magic")

PbValue = Union[int, bytes]


@dataclass
class HFileBlock:
    """One block as stored: its header fields, stored payload and checksum bytes."""

    magic: str
    """The 8-character block magic, e.g. "DATABLK*"; :attr:`block_type` is its code."""
    uncompressed_size: int
    prev_block_offset: int
    checksum_type: int
    bytes_per_checksum: int
    payload: bytes
    """The payload as stored: for GZ, one gzip member."""
    checksums: bytes

    @property
    def block_type(self) -> "Hfile.BlockType":
        return _MAGIC_TYPES[self.magic]

    @property
    def on_disk_size(self) -> int:
        """Bytes the block takes in the file, header included."""
        return BLOCK_HEADER_SIZE + len(self.payload) + len(self.checksums)


@dataclass
class HFileTrailer:
    """The fixed trailer: the TrailerProto's fields in the order written, its padding and version."""

    fields: list[tuple[int, int, PbValue]]
    """(field number, wire type, value): varints as int, the other wire types as bytes."""
    minor_version: int
    major_version: int = 3
    padding: bytes | None = None
    """The bytes between the message and the version; ``None`` for zeros (what every writer puts)."""

    def get(self, field: "Hfile.TrailerField", default: PbValue | None = None) -> PbValue | None:
        for number, _wire, value in self.fields:
            if number == field.value:
                return value
        return default


@dataclass
class HFileLayout:
    """An HFile as the grammar lays it out: its blocks in file order, then the trailer."""

    blocks: list[HFileBlock] = field(default_factory=list)
    trailer: HFileTrailer = field(default_factory=lambda: HFileTrailer([], 0))

    def offsets(self) -> list[int]:
        """File offset of every block."""
        out, at = [], 0
        for b in self.blocks:
            out.append(at)
            at += b.on_disk_size
        return out


_MAGIC_TYPES = {
    "DATABLK*": BlockType.data, "DATABLKE": BlockType.encoded_data, "IDXLEAF2": BlockType.leaf_index,
    "BLMFBLK2": BlockType.bloom_chunk, "METABLKc": BlockType.meta, "IDXINTE2": BlockType.intermediate_index,
    "IDXROOT2": BlockType.root_index, "FILEINF2": BlockType.file_info, "BLMFMET2": BlockType.general_bloom_meta,
    "DFBLMET2": BlockType.delete_family_bloom_meta,
}


# --------------------------------------------------------------------------------------------
# Parsing


def _grammar_error(exc: Exception, what: str) -> HFileError:
    """A Kaitai parse failure as the HFile error type, naming the grammar path where it broke."""
    where = getattr(exc, "src_path", None) or what
    offset = getattr(getattr(exc, "io", None), "pos", lambda: -1)
    try:
        offset = offset() if callable(offset) else offset
    except Exception:  # pragma: no cover - a closed stream
        offset = -1
    return HFileError(offset, f"{what} ({where})" if where != what else what, f"{type(exc).__name__}: {exc}")


_PARSE_ERRORS = (kaitaistruct.KaitaiStructError, EOFError, ValueError, UnicodeDecodeError, struct.error, IndexError)


def _parse_file(data: bytes) -> "Hfile":
    if len(data) < TRAILER_SIZE:
        raise HFileError(0, "trailer", f"file is {len(data)} bytes, shorter than the {TRAILER_SIZE}-byte trailer")
    try:
        parsed = Hfile(KaitaiStream(io.BytesIO(data)))
        parsed._read()
    except _PARSE_ERRORS as exc:
        raise _grammar_error(exc, "HFile grammar") from None
    return parsed


def parse_layout(data: bytes | bytearray | memoryview) -> HFileLayout:
    """Parse an HFile's bytes with the generated codec into an :class:`HFileLayout`.

    Raises :class:`HFileError` where the bytes do not follow spec/hfile.ksy.
    """
    parsed = _parse_file(bytes(data))
    blocks = [
        HFileBlock(
            magic=b.magic, uncompressed_size=b.len_uncompressed_without_header, prev_block_offset=b.prev_block_offset,
            checksum_type=int(b.checksum_type.value), bytes_per_checksum=b.bytes_per_checksum,
            payload=b.payload.data, checksums=b.checksums,
        )
        for b in parsed.section.blocks
    ]
    t = parsed.trailer
    fields = []
    for f in t.proto.fields:
        for v in (f.tag, f.value if f.wire_type == WireType.varint else getattr(f.value, "len_data", None)):
            if v is not None and len(v.groups) > 10:
                raise HFileError(len(data) - TRAILER_SIZE, "trailer proto", "a varint longer than 10 bytes")
        wire = f.wire_type
        if wire == WireType.varint:
            value: PbValue = f.value.value
        elif wire == WireType.len_delimited:
            value = f.value.data
        else:
            value = f.value.data
        fields.append((f.number, int(wire.value), value))
    padding = None if not any(t.padding) else t.padding
    return HFileLayout(blocks, HFileTrailer(fields, t.minor_version, t.major_version, padding))


# --------------------------------------------------------------------------------------------
# Writing


def pb_varint_bytes(value: int) -> bytes:
    """A protobuf varint; a negative int64 as its two's complement, 10 bytes, as protobuf writes it."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _varint(value: int, parent, root) -> "Hfile.PbVarint":
    v = Hfile.PbVarint(None, parent, root)
    v.groups = list(pb_varint_bytes(value))
    return v


def _pb_message(fields: list[tuple[int, int, PbValue]], parent, root) -> tuple["Hfile.PbMessage", int]:
    msg = Hfile.PbMessage(None, parent, root)
    msg.fields = []
    size = 0
    for number, wire, value in fields:
        f = Hfile.PbField(None, msg, root)
        f.tag = _varint(number * 8 + wire, f, root)
        size += len(f.tag.groups)
        if wire == WireType.varint.value:
            f.value = _varint(int(value), f, root)
            size += len(f.value.groups)
        elif wire == WireType.len_delimited.value:
            f.value = Hfile.PbBytes(None, f, root)
            f.value.len_data = _varint(len(value), f.value, root)
            f.value.data = bytes(value)
            size += len(f.value.len_data.groups) + len(value)
        else:
            cls = Hfile.PbFixed64 if wire == WireType.fixed64.value else Hfile.PbFixed32
            f.value = cls(None, f, root)
            f.value.data = bytes(value)
            size += len(value)
        msg.fields.append(f)
    return msg, size


def _check_all(obj) -> None:
    # Each generated _check() covers its own object's fields only: built children need theirs.
    obj._check()
    for name, value in vars(obj).items():
        for item in value if isinstance(value, list) else (value,):
            if not name.startswith("_") and isinstance(item, kaitaistruct.ReadWriteKaitaiStruct):
                _check_all(item)


def _check_write(obj, size: int, what: str) -> bytes:
    buf = io.BytesIO(bytearray(size))
    try:
        _check_all(obj)
        obj._write(KaitaiStream(buf))
    except (kaitaistruct.KaitaiStructError, EOFError, ValueError, struct.error) as exc:
        raise HFileError(-1, what, f"the grammar refuses it: {type(exc).__name__}: {exc}") from None
    return buf.getvalue()


def layout_bytes(layout: HFileLayout) -> bytes:
    """Serialize ``layout`` through the generated writer (every field checked by the grammar)."""
    root = Hfile()
    root._root = root
    section = Hfile.BlockSection(None, root, root)
    section.blocks = []
    section_size = 0
    for b in layout.blocks:
        blk = Hfile.Block(None, section, root)
        blk.magic = b.magic
        blk.len_on_disk_without_header = len(b.payload) + len(b.checksums)
        blk.len_uncompressed_without_header = b.uncompressed_size
        blk.prev_block_offset = b.prev_block_offset
        try:
            blk.checksum_type = ChecksumType(b.checksum_type)
        except ValueError:
            raise HFileError(section_size + 24, f"{b.magic} checksum_type", f"unknown type {b.checksum_type}") from None
        blk.bytes_per_checksum = b.bytes_per_checksum
        blk.len_on_disk_data_with_header = BLOCK_HEADER_SIZE + len(b.payload)
        blk.payload = Hfile.BlockPayload(None, blk, root)
        blk.payload.data = bytes(b.payload)
        blk.payload.body__enabled = False  # the stored bytes are written as they are
        blk.checksums = bytes(b.checksums)
        section.blocks.append(blk)
        section_size += b.on_disk_size
    root.section = section

    t = layout.trailer
    trailer = Hfile.Trailer(None, root, root)
    trailer.magic = TRAILER_MAGIC
    trailer.proto, proto_size = _pb_message(t.fields, trailer, root)
    trailer.len_proto = _varint(proto_size, trailer, root)
    pad_len = TRAILER_SIZE - len(TRAILER_MAGIC) - len(trailer.len_proto.groups) - proto_size - 4
    if pad_len < 0:
        raise HFileError(section_size, "trailer proto", f"{proto_size} bytes do not fit the {TRAILER_SIZE}-byte trailer")
    if t.padding is not None and len(t.padding) != pad_len:
        raise HFileError(section_size, "trailer padding", f"{len(t.padding)} bytes where the message leaves {pad_len}")
    trailer.padding = t.padding if t.padding is not None else bytes(pad_len)
    trailer.version = (t.minor_version << 24) | t.major_version
    root.trailer = trailer
    return _check_write(root, section_size + TRAILER_SIZE, "HFile")


# --------------------------------------------------------------------------------------------
# Block bodies (uncompressed payloads), by magic, as the grammar's types lay them out

_BODY_TYPES = {
    "DATABLK*": Hfile.DataBlockBody,
    "IDXROOT2": Hfile.IndexBody,
    "FILEINF2": Hfile.FileInfoBody,
    "IDXLEAF2": Hfile.NonrootIndexBody,
    "IDXINTE2": Hfile.NonrootIndexBody,
}


def parse_body(magic: str, payload: bytes, offset: int = -1):
    """The uncompressed ``payload`` of a ``magic`` block as the grammar's body type (None for raw blocks)."""
    cls = _BODY_TYPES.get(magic)
    if cls is None:
        return None
    try:
        body = cls(KaitaiStream(io.BytesIO(payload)))
        body._root = body
        body._read()
    except _PARSE_ERRORS as exc:
        raise _grammar_error(exc, f"{magic} block at {offset}") from None
    return body


def data_block_body_bytes(cells: list[tuple[bytes, bytes]]) -> bytes:
    """A data block's uncompressed payload from (row, value) cells, written by the generated serializer
    as Hudi's native writer lays every cell out: empty family and qualifier, timestamp Long.MAX_VALUE,
    type Put, memstore timestamp 0."""
    body = Hfile.DataBlockBody()
    body._root = body
    body.cells = []
    size = 0
    for row, value in cells:
        c = Hfile.Cell(None, body, body)
        k = Hfile.CellKey(None, c, body)
        k.len_row, k.row, k.len_family, k.family, k.qualifier = len(row), bytes(row), 0, b"", b""
        k.timestamp, k.key_type = (1 << 63) - 1, KeyType.put
        c.key, c.len_key, c.value, c.len_value = k, len(row) + 12, bytes(value), len(value)
        c.memstore_ts = Hfile.HadoopVint(None, c, body)
        c.memstore_ts.first, c.memstore_ts.rest = 0, b""
        body.cells.append(c)
        size += 8 + c.len_key + c.len_value + 1
    return _check_write(body, size, "DATABLK* body")


def body_bytes(body, size: int, what: str) -> bytes:
    """Serialize a body object of the generated codec (``size`` bytes) through its checks."""
    return _check_write(body, size, what)


def gzip_block(raw: bytes) -> bytes:
    """One gzip member as Java's GZIPOutputStream writes it (hudi-io's GZ codec): the 10-byte header
    with no name, mtime 0 and OS 0, deflate at level 6, CRC32 and size. Every GZ block of the corpus
    recompresses to its stored bytes this way."""
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return (
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
        + c.compress(raw) + c.flush()
        + struct.pack("<II", zlib.crc32(raw), len(raw) & 0xFFFFFFFF)
    )
