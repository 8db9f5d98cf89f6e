"""The bridge to the codec generated from spec/hudi_log.ksy: enums, constants and the serializer.

Every enum and constant of the format comes from the generated module, so the grammar stays the
one place where the format is written down. Bytes are produced by the generated serializer,
except on the writer's fast path (``frame_block``), which packs the fixed-width framing fields
around serialized maps and is held byte-equal to ``serialize_block`` by tests/test_fast_encode.py,
and the delete content's prefix and wrapper layouts that the one-pass delete encoder takes from here
(``delete_content_prefix``, ``ORDERING_FLOAT_FORMATS``; tests/test_deletes_encode.py).
"""

from __future__ import annotations

import struct
from typing import Iterable, Sequence

import kaitaistruct
from kaitaistruct import BytesIO, KaitaiStream

from hudi_log_generated.hudi_log import HudiLog

from ..errors import CorruptBlockWriteError

BlockType = HudiLog.BlockType
HeaderKey = HudiLog.HeaderKey
CommandBlockType = HudiLog.CommandBlockType
OrderingKind = HudiLog.OrderingKind

#: the format version every Hudi release since 0.4.1 writes
CURRENT_FORMAT_VERSION = 1

DATA_BLOCK_TYPES = frozenset(
    {BlockType.avro_data_block, BlockType.hfile_data_block, BlockType.parquet_data_block, BlockType.cdc_data_block}
)
RECORD_BLOCK_TYPES = frozenset({BlockType.avro_data_block, BlockType.cdc_data_block})

# Content types by block type, as the .ksy's `content` switch has them.
_CONTENT_CLASS = {
    BlockType.avro_data_block: HudiLog.AvroDataContent,
    BlockType.cdc_data_block: HudiLog.AvroDataContent,
    BlockType.delete_block: HudiLog.DeleteContent,
    BlockType.hfile_data_block: HudiLog.HfileContent,
    BlockType.parquet_data_block: HudiLog.ParquetContent,
}


def _grammar_magic() -> bytes:
    # The magic is written once, as `contents` in the .ksy; the generated check carries it.
    probe = HudiLog.Block()
    probe.magic = b"\x00" * 6
    try:
        probe._check()
    except kaitaistruct.ValidationNotEqualError as e:
        return bytes(e.expected)
    raise AssertionError("generated grammar lost its magic check")


MAGIC: bytes = _grammar_magic()
#: bytes a block takes on disk besides its len_block bytes (the block size): magic + the block size field
FRAME_PREFIX = len(MAGIC) + 8
#: len_block (the block size) counts the reverse pointer; the reverse pointer is len_block + this
REVERSE_POINTER_BIAS = len(MAGIC)


def header_key_name(key: HeaderKey) -> str:
    """Hudi's enum name for a header key, e.g. "INSTANT_TIME"."""
    return key.name.upper()


def block_type_name(block_type: BlockType | None) -> str:
    """Hudi's enum name for a block type, e.g. "AVRO_DATA_BLOCK" (format version 0 has none)."""
    return block_type.name.upper() if block_type is not None else "LEGACY_V0_BLOCK"


def header_key(name: str | HeaderKey) -> HeaderKey:
    if isinstance(name, HeaderKey):
        return name
    try:
        return HeaderKey[name.lower()]
    except KeyError:
        raise ValueError(f"unknown header key {name!r}; known: {[header_key_name(k) for k in HeaderKey]}") from None


def writable_block_type(block_type_: BlockType) -> BlockType:
    """``block_type_``, unless it is CORRUPT_BLOCK: only a reader reports one (CorruptBlockWriteError)."""
    if block_type_ == BlockType.corrupt_block:
        raise CorruptBlockWriteError(
            "CORRUPT_BLOCK is never written: only a reader reports a damaged span as one (HoodieLogBlockType)"
        )
    return block_type_


def block_type(name: str | BlockType) -> BlockType:
    if isinstance(name, BlockType):
        return name
    try:
        return BlockType[name.lower()]
    except KeyError:
        raise ValueError(f"unknown block type {name!r}; known: {[block_type_name(t) for t in BlockType]}") from None


def parse(cls, data: bytes, parent=None, root=None):
    """Parse ``data`` as one generated type (the codec is generated without auto-read)."""
    obj = cls(KaitaiStream(BytesIO(data)), parent, root)
    obj._read()
    return obj


def parse_from(cls, io: KaitaiStream, parent=None, root=None):
    """Parse one generated type at the current position of ``io``."""
    obj = cls(io, parent, root)
    obj._read()
    return obj


def _check_tree(obj) -> None:
    # The generated _check() covers one object's own fields; every newly built child needs its
    # own. Parsed objects are clean (_dirty is False) and are not walked.
    if not getattr(obj, "_dirty", True):
        return
    obj._check()
    for name, value in vars(obj).items():
        if name.startswith("_"):
            continue
        if isinstance(value, kaitaistruct.ReadWriteKaitaiStruct):
            _check_tree(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, kaitaistruct.ReadWriteKaitaiStruct):
                    _check_tree(item)


def write(obj, size: int) -> bytes:
    """Serialize a generated object whose size is known, after the grammar's consistency checks."""
    _check_tree(obj)
    io = KaitaiStream(BytesIO(bytearray(size)))
    obj._write(io)
    return io.to_byte_array()


def map_entries(m: HudiLog.MetadataMap) -> tuple[tuple[HeaderKey, str], ...]:
    """A parsed header/footer map's entries as (key, text). Values are UTF-8 as Java writes them;
    one that is not raises UnicodeDecodeError (the reader reports the block as damaged rather than
    keep a value it could not write back: Java would substitute U+FFFD)."""
    return tuple((e.key, e.value.decode("utf-8")) for e in m.entries)


def metadata_map(entries: Sequence[tuple[HeaderKey, str]], parent=None, root=None) -> tuple[HudiLog.MetadataMap, int]:
    """A header/footer map in the given entry order, and its size in bytes."""
    m = HudiLog.MetadataMap(None, parent, root)
    m.num_entries = len(entries)
    m.entries = []
    size = 4
    for key, value in entries:
        e = HudiLog.MetadataEntry(None, m, root)
        e.key = key
        e.value = value.encode("utf-8")
        e.len_value = len(e.value)
        m.entries.append(e)
        size += 8 + e.len_value
    return m, size


def avro_data_content(content_version: int, datums: Iterable[bytes]) -> bytes:
    """Content of an Avro data / CDC block holding the given Avro binary records."""
    c = HudiLog.AvroDataContent(None, None, None)
    c.content_version = content_version
    c.records = []
    size = 8
    for datum in datums:
        r = HudiLog.AvroRecord(None, c, None)
        r.datum = datum
        r.len_datum = len(datum)
        c.records.append(r)
        size += 4 + r.len_datum
    c.num_records = len(c.records)
    return write(c, size)


# ---- the writer's fast path: content assembled from parts, maps from the generated serializer -------
def _write_unsized(obj, room: int = 64) -> bytes:
    # Small probes only: serialize into spare room and keep what was written.
    _check_tree(obj)
    io = KaitaiStream(BytesIO(bytearray(room)))
    obj._write(io)
    return io.to_byte_array()[: io.pos()]


def _probe_avro_layout() -> tuple[int, int, str]:
    # Sizes and byte order of the Avro content's fixed parts, read off the generated serializer:
    # an empty content, and one record whose length is 1.
    empty = HudiLog.AvroDataContent(None, None, None)
    empty.content_version = CURRENT_AVRO_CONTENT_VERSION
    empty.num_records = 0
    empty.records = []
    prefix = _write_unsized(empty)
    rec = HudiLog.AvroRecord(None, None, None)
    rec.len_datum = 1
    rec.datum = b"\x00"
    one = _write_unsized(rec)
    record_prefix = len(one) - 1
    order = "big" if one[:record_prefix] == (1).to_bytes(record_prefix, "big") else "little"
    return len(prefix), record_prefix, order


#: the content version every Hudi since 0.14 writes (Avro data and delete blocks)
CURRENT_AVRO_CONTENT_VERSION = 3
AVRO_CONTENT_PREFIX_SIZE, AVRO_RECORD_PREFIX_SIZE, AVRO_RECORD_LENGTH_BYTE_ORDER = _probe_avro_layout()


def avro_content_prefix(content_version: int, record_count: int) -> bytes:
    """The content version and record count that open an Avro data / CDC block's content."""
    half = AVRO_CONTENT_PREFIX_SIZE // 2
    order = AVRO_RECORD_LENGTH_BYTE_ORDER
    return content_version.to_bytes(half, order, signed=True) + record_count.to_bytes(half, order, signed=True)


def avro_record_prefix(length: int) -> bytes:
    """The length prefix of one Avro datum in a block's content."""
    return length.to_bytes(AVRO_RECORD_PREFIX_SIZE, AVRO_RECORD_LENGTH_BYTE_ORDER, signed=True)


def _map_bytes(entries: Sequence[tuple[HeaderKey, str]]) -> bytes:
    m, size = metadata_map(entries)
    return write(m, size)


_S4 = struct.Struct(">i")  # the .ksy's s4be: format version, block type
_S8 = struct.Struct(">q")  # s8be: block size, content length, reverse pointer


def frame_block(
    block_type_: BlockType,
    header: Sequence[tuple[HeaderKey, str]],
    content_parts: Sequence[bytes],
    footer: Sequence[tuple[HeaderKey, str]] = (),
) -> tuple[bytes, int]:
    """A format-version-1 block around content given as parts, and the offset of the content in it.

    The header and footer maps come from the generated serializer; the fixed-width fields around
    them are packed here, and the content is copied once, as it is, without being parsed. That is
    what keeps a 256 MB block from being copied five times through the generated content stream.
    ``serialize_block`` gives the same bytes (tests/test_fast_encode.py holds them equal on
    generated blocks and on every Avro block of the corpus).
    """
    parts, content_offset = frame_block_parts(block_type_, header, content_parts, footer)
    return b"".join(parts), content_offset


def frame_block_parts(
    block_type_: BlockType,
    header: Sequence[tuple[HeaderKey, str]],
    content_parts: Sequence[bytes],
    footer: Sequence[tuple[HeaderKey, str]] = (),
) -> tuple[list, int]:
    """``frame_block`` without the final copy: the framing before the content, the content's parts
    as given, the framing after it (a writer writes them one after the other)."""
    if not isinstance(block_type_, BlockType):
        raise ValueError(f"not a block type: {block_type_!r}")
    writable_block_type(block_type_)
    head_map, foot_map = _map_bytes(header), _map_bytes(footer)
    content_length = sum(len(p) for p in content_parts)
    block_size = 4 + 4 + len(head_map) + 8 + content_length + len(foot_map) + 8
    head = b"".join((
        MAGIC, _S8.pack(block_size), _S4.pack(CURRENT_FORMAT_VERSION), _S4.pack(int(block_type_)),
        head_map, _S8.pack(content_length),
    ))
    tail = foot_map + _S8.pack(block_size + REVERSE_POINTER_BIAS)
    return [head, *content_parts, tail], len(head)


def delete_content(content_version: int, payload: bytes) -> bytes:
    """Content of a delete block around an (already encoded) payload, checked against the grammar."""
    c = HudiLog.DeleteContent(None, None, None)
    c.content_version = content_version
    c.len_payload = len(payload)
    c.payload = payload
    _check_delete_records(c, payload)
    return write(c, 8 + len(payload))


def _check_delete_records(c: HudiLog.DeleteContent, payload: bytes) -> None:
    # The payload is written as the bytes it is; its layout (the `records` instance, parsed on demand)
    # is parsed here by the grammar, so a payload that breaks it cannot be written, and is then not
    # written a second time at its position.
    cls = {1: HudiLog.KryoObjectArray, 2: HudiLog.KryoObjectArray, 3: HudiLog.DeleteRecordList}.get(c.content_version)
    if cls is not None:
        c._m_records = parse(cls, payload, c, None)
    c.records__enabled = False
    c._check()


# ---- delete blocks on the writer's fast path: the layout facts the one-pass encoder needs ----------
def _probe_delete_layout() -> tuple[int, str, dict[int, str]]:
    # Read off the generated codec: the content's prefix (size, byte order) from its serializer, with
    # the empty record list as payload; and how the ordering wrappers FLOAT and DOUBLE lay out their
    # value (struct format), by parsing the same number in both byte orders.
    probe = delete_content(CURRENT_AVRO_CONTENT_VERSION, b"\x00")
    prefix = len(probe) - 1
    half = prefix // 2
    order = "big" if probe[:half] == CURRENT_AVRO_CONTENT_VERSION.to_bytes(half, "big") else "little"
    formats = {}
    for kind, code in ((OrderingKind.float, "f"), (OrderingKind.double, "d")):
        for fmt in ("<" + code, ">" + code):
            data = bytes([int(kind) * 2]) + struct.pack(fmt, 1.5)  # the union branch (a one-byte varint), then 1.5
            if parse_with(HudiLog.OrderingValue, data, False).value == 1.5:
                formats[int(kind)] = fmt
                break
    return prefix, order, formats


def parse_with(cls, data: bytes, *params):
    """``parse`` for a generated type that takes parameters (``ordering_value(in_array)``)."""
    obj = cls(*params, KaitaiStream(BytesIO(data)), None, None)
    obj._read()
    return obj


#: the delete content's version and payload length: bytes and byte order; FLOAT / DOUBLE wrapper values'
#: struct formats by ordering-kind code
DELETE_CONTENT_PREFIX_SIZE, DELETE_CONTENT_BYTE_ORDER, ORDERING_FLOAT_FORMATS = _probe_delete_layout()


def delete_content_prefix(content_version: int, payload_length: int) -> bytes:
    """The content version and payload length that open a delete block's content."""
    half = DELETE_CONTENT_PREFIX_SIZE // 2
    order = DELETE_CONTENT_BYTE_ORDER
    return content_version.to_bytes(half, order, signed=True) + payload_length.to_bytes(half, order, signed=True)


def _block_content(block_type_: BlockType, content: bytes, block) -> HudiLog.BlockContent:
    # The content's layout is the lazily parsed `body` instance: set it, parsed by the grammar's
    # content type (so a content that breaks its layout cannot be written); the serializer writes
    # it when it fetches the block's instances. `num_records` is the same 4 bytes as the body's
    # count, so it is not written a second time.
    c = HudiLog.BlockContent(None, block, None)
    cls = _CONTENT_CLASS.get(block_type_)
    c._m_body = parse(cls, content, c, None) if cls is not None else content
    if isinstance(c._m_body, HudiLog.DeleteContent):
        _check_delete_records(c._m_body, c._m_body.payload)
    c.num_records__enabled = False
    return c


def serialize_block(
    format_version: int,
    block_type_: BlockType | None,
    header: Sequence[tuple[HeaderKey, str]],
    content: bytes,
    footer: Sequence[tuple[HeaderKey, str]] = (),
) -> bytes:
    """The on-disk bytes of one block, produced by the generated serializer.

    ``content`` is the block's content bytes; for typed block types they are parsed with the
    grammar's content type first, so a block whose content breaks its layout cannot be written.
    """
    b = HudiLog.Block(None, None, None)
    b.magic = MAGIC
    b.format_version = format_version
    if format_version == 0:
        b.len_block = len(content)
        b.legacy_content = content
        return write(b, FRAME_PREFIX + 4 + len(content))
    b.block_type = writable_block_type(block_type_)
    b.header, header_size = metadata_map(header, b, None)
    b.footer, footer_size = metadata_map(footer, b, None)
    b.len_content = len(content)
    b.content = _block_content(block_type_, content, b)
    b.len_block = 4 + 4 + header_size + 8 + len(content) + footer_size + 8
    b.reverse_pointer = b.len_block + REVERSE_POINTER_BIAS
    return write(b, FRAME_PREFIX + b.len_block)
