"""Pure-Python reader for the HBase HFile v3 files embedded in Hudi HFILE_DATA_BLOCKs.

The Hudi metadata table stores each log block's records as a complete HFile (format facts §3.5).
This module reads such a file fully into memory: trailer, file info, root data index and every
key/value of every data block.

Layout (all integers big-endian):

* Trailer: the last 4096 bytes. ``TRABLK"$`` magic, a length-delimited protobuf ``TrailerProto``,
  zero padding, and a version int (major version in the low 3 bytes, minor in the top byte).
* Blocks: an 8-byte magic, ``int onDiskSizeWithoutHeader``, ``int uncompressedSizeWithoutHeader``,
  ``long prevBlockOffset``, then for a 33-byte header also ``byte checksumType``,
  ``int bytesPerChecksum``, ``int onDiskDataSizeWithHeader``. The (possibly compressed) payload
  follows, then checksum bytes up to ``onDiskSizeWithoutHeader``.
* Data block payload: a run of ``int keyLen | int valueLen | key | value | [short tagsLen | tags]
  | [MVCC vlong]``; key = ``short rowLen | row | byte familyLen | family | qualifier | long ts |
  byte type``.

Facts checked against the corpus that the usual HBase description does not tell you:

* Hudi 1.1's native writer sets minor version 0 (which in HBase means "no checksums, 24-byte
  header") yet writes the 33-byte header with checksumType 0 and a 4-byte all-zero checksum.
  The header size is therefore detected per block for minor version 0.
* HBase-written files (Hudi 1.0) use CRC32C over header + payload, one 4-byte checksum per
  ``bytesPerChecksum`` chunk; they are verified here.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from functools import cached_property

from .hfile_grammar import (
        BLOCK_HEADER_SIZE,
    PB_MAGIC,
    TRAILER_MAGIC,
    TRAILER_SIZE,
    ChecksumType,
    CompressionCodec,
    HFileLayout,
    parse_layout,
)
from .hfile_wire import HFileError, _crc32c, _delimited_message, _protobuf_fields

__all__ = [
    "HFileError",
    "HFileKeyValue",
    "HFileContents",
    "HFileLayout",
    "read_hfile",
    "write_hfile",
    "TRAILER_SIZE",
    "COMPRESSION_CODECS",
]

# Sizes, magics and codes come from spec/hfile.ksy (through .hfile_grammar): one place per fact.

# Header sizes: 8 magic + 4 + 4 + 8 without checksum fields; + 1 + 4 + 4 with them.
HEADER_SIZE_NO_CHECKSUM = 24
HEADER_SIZE_WITH_CHECKSUM = BLOCK_HEADER_SIZE
# HBase minor version from which every block header carries the checksum fields.
MINOR_VERSION_WITH_CHECKSUM = 1

DATA_MAGIC = b"DATABLK*"
ENCODED_DATA_MAGIC = b"DATABLKE"
ROOT_INDEX_MAGIC = b"IDXROOT2"
FILE_INFO_MAGIC = b"FILEINF2"
# Blocks HBase may interleave with data blocks in the scanned section (multi-level index
# leaves and compound Bloom filter chunks); they hold no key/values, so the scan skips them.
_INLINE_NON_DATA_MAGICS = frozenset({b"IDXLEAF2", b"IDXINTE2", b"BLMFBLK2"})

# Ordinals of HBase's Compression.Algorithm as stored in the trailer; they never change.
COMPRESSION_CODECS = tuple(c.name.upper() for c in sorted(CompressionCodec, key=lambda c: c.value))

# HBase ChecksumType codes.
_CHECKSUM_NULL, _CHECKSUM_CRC32, _CHECKSUM_CRC32C = (
    t.value for t in (ChecksumType.null, ChecksumType.crc32, ChecksumType.crc32c)
)
_CHECKSUM_SIZE = 4

# File-info keys that change the key/value entry layout (HBase HFileReaderImpl semantics).
_KEY_VALUE_VERSION = "KEY_VALUE_VERSION"  # == 1: every entry ends with an MVCC vlong
_MAX_TAGS_LEN = "hfile.MAX_TAGS_LEN"  # present: every entry has a short tags length + tags
_DATA_BLOCK_ENCODING = "DATA_BLOCK_ENCODING"

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_KV_LENGTHS = struct.Struct(">ii")
_KEY_TAIL = struct.Struct(">qB")  # timestamp, type: the last 9 bytes of every cell key
_BLOCK_HEADER = struct.Struct(">8siiq")
_CHECKSUM_FIELDS = struct.Struct(">Bii")


@dataclass(frozen=True)
class HFileKeyValue:
    """One cell of a data block."""

    key: str
    """The cell row, decoded as UTF-8: for Hudi, the record key."""
    value: bytes
    """The raw cell value: for Hudi, the Avro binary record with its key field blanked."""
    timestamp: int
    key_type: int
    """HBase KeyValue type code; 4 = Put."""


@dataclass(frozen=True)
class HFileContents:
    """Everything :func:`read_hfile` decodes from one HFile."""

    major_version: int
    minor_version: int
    compression: str
    """Codec name as HBase spells it: "GZ", "NONE", ..."""
    entry_count: int
    """The trailer's entry count; always ``len(records)``."""
    file_info: dict[str, bytes]
    comparator: str
    """Comparator class name from the trailer (Hudi: HoodieHBaseKVComparator)."""
    records: list[HFileKeyValue]
    meta_blocks: dict[str, bytes] = field(default_factory=dict, repr=False)
    """Named meta blocks to write (Hudi's base files: ``bloomFilter``). A file read leaves this empty and
    keeps its own in ``layout``; contents given some are laid out again by ``write_hfile``."""
    source: bytes | None = field(default=None, compare=False, repr=False)
    """The bytes these contents were read from (``None`` for contents built to be written)."""

    @cached_property
    def layout(self) -> HFileLayout | None:
        """The file as spec/hfile.ksy lays it out (its blocks as stored, its trailer), parsed on first use."""
        return parse_layout(self.source) if self.source is not None else None


# --------------------------------------------------------------------------------------------
# Trailer


@dataclass(frozen=True)
class _Trailer:
    major_version: int
    minor_version: int
    file_info_offset: int
    load_on_open_offset: int
    data_index_count: int
    meta_index_count: int
    entry_count: int
    num_data_index_levels: int
    first_data_block_offset: int
    last_data_block_offset: int
    comparator: str
    compression: str


# TrailerProto field numbers.
_TRAILER_FIELDS = {
    1: "file_info_offset",
    2: "load_on_open_data_offset",
    3: "uncompressed_data_index_size",
    4: "total_uncompressed_bytes",
    5: "data_index_count",
    6: "meta_index_count",
    7: "entry_count",
    8: "num_data_index_levels",
    9: "first_data_block_offset",
    10: "last_data_block_offset",
    11: "comparator_class_name",
    12: "compression_codec",
    13: "encryption_key",
}


def _read_trailer(data: bytes) -> _Trailer:
    start = len(data) - TRAILER_SIZE
    if start < 0:
        raise HFileError(0, "trailer", f"file is {len(data)} bytes, shorter than the {TRAILER_SIZE}-byte trailer")
    if data[start : start + 8] != TRAILER_MAGIC:
        raise HFileError(start, "trailer magic", f"expected {TRAILER_MAGIC!r}, found {bytes(data[start:start + 8])!r}")

    (version,) = _I32.unpack_from(data, len(data) - 4)
    major, minor = version & 0x00FFFFFF, (version >> 24) & 0xFF
    if major != 3:
        raise HFileError(len(data) - 4, "trailer version", f"major version {major} (minor {minor}); only 3 is supported")

    # The protobuf sits between the magic and the version int; the rest is zero padding.
    msg_start, msg_end = _delimited_message(data, start + 8, len(data) - 4, 0, "trailer protobuf")
    values: dict[str, int | bytes] = {}
    for number, value in _protobuf_fields(data, msg_start, msg_end, 0, "trailer protobuf"):
        name = _TRAILER_FIELDS.get(number)
        if name is not None:
            values[name] = value

    def number(name: str, default: int) -> int:
        value = values.get(name, default)
        if not isinstance(value, int):
            raise HFileError(msg_start, f"trailer {name}", "expected a varint")
        return value

    def offset_field(name: str) -> int:
        value = number(name, 0)
        if value >= start:
            raise HFileError(msg_start, f"trailer {name}", f"{value} is not before the trailer at {start}")
        return value

    if values.get("encryption_key"):
        raise HFileError(msg_start, "trailer encryption_key", "encrypted HFiles are not supported")
    comparator = values.get("comparator_class_name", b"")
    if not isinstance(comparator, bytes):
        raise HFileError(msg_start, "trailer comparator_class_name", "expected a string")
    codec = number("compression_codec", COMPRESSION_CODECS.index("NONE"))
    if codec >= len(COMPRESSION_CODECS):
        raise HFileError(msg_start, "trailer compression_codec", f"unknown codec ordinal {codec}")
    data_index_count = number("data_index_count", 0)
    first_data = number("first_data_block_offset", 0)
    last_data = number("last_data_block_offset", 0)
    if data_index_count:
        # With no data blocks HBase leaves these at -1 (as uint64); only check them when used.
        if first_data >= start or last_data >= start or first_data > last_data:
            raise HFileError(
                msg_start, "trailer first/last_data_block_offset",
                f"{first_data}..{last_data} is not a range before the trailer at {start}",
            )
    return _Trailer(
        major_version=major,
        minor_version=minor,
        file_info_offset=offset_field("file_info_offset"),
        load_on_open_offset=offset_field("load_on_open_data_offset"),
        data_index_count=data_index_count,
        meta_index_count=number("meta_index_count", 0),
        entry_count=number("entry_count", 0),
        num_data_index_levels=number("num_data_index_levels", 1),
        first_data_block_offset=first_data,
        last_data_block_offset=last_data,
        comparator=_utf8(comparator, msg_start, "trailer comparator_class_name"),
        compression=COMPRESSION_CODECS[codec],
    )


def _utf8(raw: bytes, offset: int, field: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HFileError(offset, field, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None


# --------------------------------------------------------------------------------------------
# Blocks


@dataclass(frozen=True)
class _Block:
    offset: int
    magic: bytes
    on_disk_size: int  # header + payload + checksums: the distance to the next block
    payload: bytes  # uncompressed, without header and checksums


def _header_size(data: bytes, offset: int, minor_version: int, on_disk_size: int) -> int:
    """Return 33 or 24: whether this block's header carries the checksum fields.

    HBase ties this to the minor version, but Hudi's native writer sets minor version 0 and still
    writes the 33-byte header, so for minor 0 the choice is made on whether those 9 bytes are
    self-consistent: a known checksum type and a data size that fits the block.
    """
    if minor_version >= MINOR_VERSION_WITH_CHECKSUM:
        return HEADER_SIZE_WITH_CHECKSUM
    if offset + HEADER_SIZE_WITH_CHECKSUM > len(data):
        return HEADER_SIZE_NO_CHECKSUM
    checksum_type, bytes_per_checksum, data_size = _CHECKSUM_FIELDS.unpack_from(data, offset + 24)
    if checksum_type not in (_CHECKSUM_NULL, _CHECKSUM_CRC32, _CHECKSUM_CRC32C) or bytes_per_checksum <= 0:
        return HEADER_SIZE_NO_CHECKSUM
    checksum_bytes = HEADER_SIZE_WITH_CHECKSUM + on_disk_size - data_size
    chunks = -(-data_size // bytes_per_checksum)
    # Hudi's native writer puts one zero int per chunk even for the NULL type; allow none too.
    if data_size >= HEADER_SIZE_WITH_CHECKSUM and (
        checksum_bytes == chunks * _CHECKSUM_SIZE or (checksum_type == _CHECKSUM_NULL and checksum_bytes == 0)
    ):
        return HEADER_SIZE_WITH_CHECKSUM
    return HEADER_SIZE_NO_CHECKSUM


def _read_block(
    data: bytes, offset: int, limit: int, trailer: _Trailer, verify_checksums: bool
) -> _Block:
    """Read, check and decompress the block at ``offset``; it must end by ``limit``."""
    if offset < 0 or offset + HEADER_SIZE_NO_CHECKSUM > limit:
        raise HFileError(offset, "block header", f"does not fit before offset {limit}")
    magic, on_disk_without_header, uncompressed_size, _prev = _BLOCK_HEADER.unpack_from(data, offset)
    name = magic.decode("latin-1")
    if on_disk_without_header < 0 or uncompressed_size < 0:
        raise HFileError(offset + 8, f"{name} block sizes", f"negative ({on_disk_without_header}, {uncompressed_size})")
    header_size = _header_size(data, offset, trailer.minor_version, on_disk_without_header)
    end = offset + header_size + on_disk_without_header
    if end > limit:
        raise HFileError(offset + 8, f"{name} onDiskSizeWithoutHeader", f"{on_disk_without_header} runs past offset {limit}")

    payload_end = end
    if header_size == HEADER_SIZE_WITH_CHECKSUM:
        checksum_type, bytes_per_checksum, data_size = _CHECKSUM_FIELDS.unpack_from(data, offset + 24)
        payload_end = offset + data_size
        if not header_size <= data_size <= header_size + on_disk_without_header:
            raise HFileError(offset + 29, f"{name} onDiskDataSizeWithHeader", f"{data_size} does not fit the block")
        if checksum_type != _CHECKSUM_NULL:
            _check_checksums(data, offset, data_size, end, checksum_type, bytes_per_checksum, name, verify_checksums)

    payload = _decompress(data, offset + header_size, payload_end, uncompressed_size, trailer.compression, offset, name)
    return _Block(offset, magic, end - offset, payload)


def _check_checksums(
    data: bytes, offset: int, data_size: int, end: int, checksum_type: int,
    bytes_per_checksum: int, name: str, verify: bool,
) -> None:
    """Checksums cover header + payload in ``bytes_per_checksum`` chunks, 4 bytes each."""
    if checksum_type not in (_CHECKSUM_CRC32, _CHECKSUM_CRC32C):
        raise HFileError(offset + 24, f"{name} checksumType", f"unknown type {checksum_type}")
    if bytes_per_checksum <= 0:
        raise HFileError(offset + 25, f"{name} bytesPerChecksum", f"{bytes_per_checksum} is not positive")
    chunks = -(-data_size // bytes_per_checksum)
    if end - (offset + data_size) != chunks * _CHECKSUM_SIZE:
        raise HFileError(
            offset + data_size, f"{name} checksums",
            f"{end - offset - data_size} bytes where {chunks} chunk(s) need {chunks * _CHECKSUM_SIZE}",
        )
    if not verify:
        return
    compute = zlib.crc32 if checksum_type == _CHECKSUM_CRC32 else _crc32c
    stored_at = offset + data_size
    for chunk_start in range(offset, offset + data_size, bytes_per_checksum):
        chunk_end = min(chunk_start + bytes_per_checksum, offset + data_size)
        (stored,) = _I32.unpack_from(data, stored_at)
        actual = compute(data[chunk_start:chunk_end])
        if stored & 0xFFFFFFFF != actual:
            raise HFileError(
                stored_at, f"{name} checksum",
                f"stored {stored & 0xFFFFFFFF:#010x}, computed {actual:#010x} over bytes {chunk_start}..{chunk_end}",
            )
        stored_at += _CHECKSUM_SIZE


def _decompress(
    data: bytes, start: int, end: int, uncompressed_size: int, codec: str, offset: int, name: str
) -> bytes:
    raw = data[start:end]
    if codec == "NONE":
        payload = bytes(raw)
    elif codec == "GZ":
        payload = _gunzip(raw, uncompressed_size, offset, name)
    else:
        raise HFileError(offset, f"{name} payload", f"compression {codec} is not supported (only GZ and NONE)")
    if len(payload) != uncompressed_size:
        raise HFileError(
            offset + 12, f"{name} uncompressedSizeWithoutHeader",
            f"says {uncompressed_size} bytes, payload has {len(payload)}",
        )
    return payload


def _gunzip(raw: bytes, expected_size: int, offset: int, name: str) -> bytes:
    """Inflate one or more concatenated gzip members (Hadoop's GzipCodec writes one per block).

    Output is capped just past ``expected_size`` so a damaged size cannot inflate without bound.
    """
    parts = []
    budget = expected_size + 1
    rest = raw
    try:
        while True:
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # 16+: expect a gzip wrapper
            part = inflater.decompress(rest, budget)
            parts.append(part)
            budget -= len(part)
            if budget <= 0 or inflater.unconsumed_tail:
                break  # more output than the header promises; the caller reports the size
            if not inflater.eof:
                raise HFileError(offset, f"{name} payload", "gzip stream is truncated")
            rest = inflater.unused_data
            if not rest:
                break
    except zlib.error as exc:
        raise HFileError(offset, f"{name} payload", f"gzip: {exc}") from None
    return b"".join(parts)


# --------------------------------------------------------------------------------------------
# Block contents


def _read_file_info(block: _Block) -> dict[str, bytes]:
    """FILEINF2 payload: ``PBUF`` then a length-delimited InfoProto of BytesBytesPair entries."""
    where = "FILEINF2 block (payload byte %d)"
    payload = block.payload
    if payload[:4] != PB_MAGIC:
        raise HFileError(block.offset, where % 0, f"expected {PB_MAGIC!r}, found {payload[:4]!r}")
    # Payload positions are reported through the message; offsets stay the block's.
    try:
        start, end = _delimited_message(payload, 4, len(payload), 0, "InfoProto")
        entries = _protobuf_fields(payload, start, end, 0, "InfoProto")
    except HFileError as exc:
        raise HFileError(block.offset, where % exc.offset, f"{exc.field}: {exc.problem}") from None
    file_info: dict[str, bytes] = {}
    for number, entry in entries:
        if number != 1 or not isinstance(entry, bytes):
            continue  # only map_entry (1) exists; tolerate unknown fields as protobuf does
        try:
            pair = dict(_protobuf_fields(entry, 0, len(entry), 0, "BytesBytesPair"))
        except HFileError as exc:
            raise HFileError(block.offset, "FILEINF2 map entry", f"{exc.field}: {exc.problem}") from None
        first, second = pair.get(1), pair.get(2)
        if not isinstance(first, bytes) or not isinstance(second, bytes):
            raise HFileError(block.offset, "FILEINF2 map entry", "missing or non-bytes first/second")
        file_info[_utf8(first, block.offset, "FILEINF2 map entry key")] = second
    return file_info


def _read_root_index_offsets(block: _Block, count: int) -> list[int]:
    """Block offsets of the ``count`` root-index entries: long offset, int size, vint keyLen, key."""
    payload = block.payload
    offsets = []
    pos = 0
    for i in range(count):
        field = f"IDXROOT2 entry {i} (payload byte {pos})"
        if pos + 12 > len(payload):
            raise HFileError(block.offset, field, "truncated")
        (entry_offset,) = _I64.unpack_from(payload, pos)
        key_len, pos = _read_hadoop_vlong(payload, pos + 12, block.offset, field)
        if key_len < 0 or pos + key_len > len(payload):
            raise HFileError(block.offset, field, f"key length {key_len} runs past the block")
        pos += key_len
        offsets.append(entry_offset)
    return offsets


def _read_hadoop_vlong(buf: bytes, pos: int, offset: int, field: str) -> tuple[int, int]:
    """Hadoop WritableUtils vlong: one byte for -112..127, else a length byte and big-endian bytes."""
    if pos >= len(buf):
        raise HFileError(offset, field, "truncated vlong")
    first = buf[pos] - 256 if buf[pos] > 127 else buf[pos]
    if first >= -112:
        return first, pos + 1
    negative = first < -120
    size = (-119 - first) if negative else (-111 - first)  # bytes after the length byte
    if pos + 1 + size > len(buf):
        raise HFileError(offset, field, "truncated vlong")
    value = int.from_bytes(buf[pos + 1 : pos + 1 + size], "big")
    return (~value if negative else value), pos + 1 + size


def _entry_error(block: _Block, entry_start: int, field: str, problem: str) -> HFileError:
    return HFileError(block.offset, f"DATABLK* entry at payload byte {entry_start}: {field}", problem)


def _read_data_block(
    block: _Block, has_tags: bool, has_mvcc: bool, records: list[HFileKeyValue]
) -> None:
    """Append the block's cells to ``records``."""
    payload = block.payload
    end = len(payload)
    pos = 0
    unpack_lengths = _KV_LENGTHS.unpack_from
    unpack_row_len = _I16.unpack_from
    unpack_key_tail = _KEY_TAIL.unpack_from
    while pos < end:
        entry_start = pos
        if pos + 8 > end:
            raise _entry_error(block, entry_start, "key/value lengths", f"only {end - pos} bytes left")
        key_len, value_len = unpack_lengths(payload, pos)
        pos += 8
        # Smallest key: rowLen (2) + familyLen (1) + timestamp (8) + type (1).
        if key_len < 12 or value_len < 0 or key_len + value_len > end - pos:
            raise _entry_error(block, entry_start, "key/value lengths", f"keyLen {key_len}, valueLen {value_len} with {end - pos} bytes left")
        key_start = pos
        (row_len,) = unpack_row_len(payload, key_start)
        family_at = key_start + 2 + row_len
        if row_len < 0 or family_at + 1 + 9 > key_start + key_len:
            raise _entry_error(block, entry_start, "row length", f"{row_len} does not fit the {key_len}-byte key")
        family_len = payload[family_at]
        if family_at + 1 + family_len + 9 > key_start + key_len:
            raise _entry_error(block, entry_start, "family length", f"{family_len} does not fit the {key_len}-byte key")
        timestamp, key_type = unpack_key_tail(payload, key_start + key_len - 9)
        try:
            row = payload[key_start + 2 : family_at].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _entry_error(block, entry_start, "row", f"not UTF-8 ({exc.reason})") from None
        pos = key_start + key_len
        value = payload[pos : pos + value_len]
        pos += value_len
        if has_tags:
            if pos + 2 > end:
                raise _entry_error(block, entry_start, "tags length", "truncated")
            (tags_len,) = unpack_row_len(payload, pos)
            pos += 2
            if tags_len < 0 or pos + tags_len > end:
                raise _entry_error(block, entry_start, "tags", f"length {tags_len} runs past the block")
            pos += tags_len
        if has_mvcc:
            # The memstore timestamp is unused by Hudi (always 0) but sizes the entry.
            _mvcc, pos = _read_hadoop_vlong(payload, pos, block.offset, f"DATABLK* entry at payload byte {entry_start}: MVCC vlong")
        records.append(HFileKeyValue(row, value, timestamp, key_type))


# --------------------------------------------------------------------------------------------
# Entry point


def read_hfile(data: bytes | bytearray | memoryview, *, verify_checksums: bool = True) -> HFileContents:
    """Decode a whole HFile v3 held in memory.

    Data blocks are found by walking the blocks from the trailer's first to last data block
    offset; the root data index, when it is single-level, must point at exactly those blocks.
    ``verify_checksums=False`` skips the CRC computation (layouts are still checked).

    Raises :class:`HFileError` for anything malformed or unsupported.
    """
    data = bytes(data)
    try:
        return _read(data, verify_checksums)
    except HFileError:
        raise
    except (IndexError, struct.error, OverflowError, ValueError) as exc:  # pragma: no cover - safety net
        # Every read above is bounds-checked; this only turns an overlooked case into the documented error.
        raise HFileError(-1, "unknown field", f"{type(exc).__name__}: {exc}") from exc


def _read(data: bytes, verify_checksums: bool) -> HFileContents:
    trailer = _read_trailer(data)
    trailer_start = len(data) - TRAILER_SIZE

    file_info_block = _read_block(data, trailer.file_info_offset, trailer_start, trailer, verify_checksums)
    if file_info_block.magic != FILE_INFO_MAGIC:
        raise HFileError(trailer.file_info_offset, "file info block magic", f"expected {FILE_INFO_MAGIC!r}, found {file_info_block.magic!r}")
    file_info = _read_file_info(file_info_block)

    encoding = file_info.get(_DATA_BLOCK_ENCODING)
    if encoding not in (None, b"NONE"):
        raise HFileError(trailer.file_info_offset, "file info DATA_BLOCK_ENCODING", f"{encoding!r} is not supported")
    kv_version = file_info.get(_KEY_VALUE_VERSION)
    has_mvcc = kv_version is not None and len(kv_version) == 4 and _I32.unpack(kv_version)[0] == 1
    has_tags = _MAX_TAGS_LEN in file_info

    # The root data index opens the load-on-open section.
    root_index = _read_block(data, trailer.load_on_open_offset, trailer_start, trailer, verify_checksums)
    if root_index.magic != ROOT_INDEX_MAGIC:
        raise HFileError(trailer.load_on_open_offset, "root data index magic", f"expected {ROOT_INDEX_MAGIC!r}, found {root_index.magic!r}")
    index_offsets = _read_root_index_offsets(root_index, trailer.data_index_count)

    records: list[HFileKeyValue] = []
    data_block_offsets: list[int] = []
    if trailer.data_index_count:
        offset = trailer.first_data_block_offset
        while offset <= trailer.last_data_block_offset:
            block = _read_block(data, offset, trailer.load_on_open_offset, trailer, verify_checksums)
            if block.magic == DATA_MAGIC:
                data_block_offsets.append(offset)
                _read_data_block(block, has_tags, has_mvcc, records)
            elif block.magic == ENCODED_DATA_MAGIC:
                raise HFileError(offset, "block magic", "encoded data blocks (DATABLKE) are not supported")
            elif block.magic not in _INLINE_NON_DATA_MAGICS:
                raise HFileError(offset, "block magic", f"{block.magic!r} is not a data-section block")
            offset += block.on_disk_size
        if not data_block_offsets or data_block_offsets[-1] != trailer.last_data_block_offset:
            raise HFileError(
                trailer.last_data_block_offset, "trailer last_data_block_offset",
                f"no data block starts there (data blocks at {data_block_offsets})",
            )
    # A single-level root index lists every data block; anything else means the walk went astray.
    if trailer.num_data_index_levels == 1 and index_offsets != data_block_offsets:
        raise HFileError(
            trailer.load_on_open_offset, "root data index",
            f"points at blocks {index_offsets}, the data section has {data_block_offsets}",
        )

    if trailer.entry_count != len(records):
        raise HFileError(
            trailer_start, "trailer entry_count",
            f"says {trailer.entry_count}, the data blocks hold {len(records)}",
        )
    return HFileContents(
        major_version=trailer.major_version,
        minor_version=trailer.minor_version,
        compression=trailer.compression,
        entry_count=trailer.entry_count,
        file_info=file_info,
        comparator=trailer.comparator,
        records=records,
        source=data,
    )


from .hfile_writer import write_hfile  # noqa: E402  (it writes the HFileContents defined above)
