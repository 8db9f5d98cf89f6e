"""Writing HFiles as Hudi 1.1 writes them for its metadata table (hudi-io ``HFileWriterImpl``).

:func:`build_hfile` lays sorted key/value records out as Java's writer does, decision for decision:
data blocks cut where the next cell would pass the block size (cells of one key never split), one
gzip member per block (:func:`.hfile_grammar.gzip_block`), one meta block per meta entry (the record-key
bloom filter of base files), the root data index and the meta index, the file info (Java's
``HashMap`` iteration order, emulated by :func:`java_hash_map_order`), a 33-byte header and zeroed
checksum bytes (type NULL) on every block, and the trailer's protobuf with minor version 0. Given the
same inputs (and creation time) the bytes equal Java's. The result is an :class:`.HFileLayout`, written
to bytes by the generated serializer (:func:`.hfile_grammar.layout_bytes`).

Callers: ``HoodieHFileDataBlock`` contents (``HFileUtils.serializeRecordsToLogBlock``: 1 MB blocks, GZ,
file info ``schema``) and metadata-table base files (``hoodie.hfile.block.size``, 1 MB by default).
"""

from __future__ import annotations

import struct
import time
from typing import Iterable, Mapping, Sequence, Union

from .hfile_grammar import (
    BLOCK_HEADER_SIZE,
    PB_MAGIC,
    ChecksumType,
    CompressionCodec,
    HFileBlock,
    HFileLayout,
    HFileTrailer,
    TrailerField,
    gzip_block,
    layout_bytes,
    pb_varint_bytes,
)
from .hfile_wire import HFileError

__all__ = [
    "build_hfile", "write_hfile", "data_block_payload", "java_hash_map_order", "DEFAULT_BLOCK_SIZE", "COMPARATOR_CLASS_NAME",
]

#: ``hoodie.hfile.block.size`` and ``HFileUtils.DEFAULT_BLOCK_SIZE_FOR_LOG_FILE``
DEFAULT_BLOCK_SIZE = 1024 * 1024
COMPARATOR_CLASS_NAME = "org.apache.hudi.io.storage.HoodieHBaseKVComparator"
_BYTES_PER_CHECKSUM = 16 * 1024
_CHECKSUM_NULL = ChecksumType.null.value
_LONG_MAX = (1 << 63) - 1
# HFileInfo's reserved keys, the ones the writer fills itself.
MAX_MEMSTORE_TS_KEY = "MAX_MEMSTORE_TS_KEY"
LAST_KEY = "hfile.LASTKEY"
AVG_KEY_LEN = "hfile.AVG_KEY_LEN"
AVG_VALUE_LEN = "hfile.AVG_VALUE_LEN"
CREATE_TIME_TS = "hfile.CREATE_TIME_TS"
KEY_VALUE_VERSION = "KEY_VALUE_VERSION"

Key = Union[str, bytes]


def _java_string_hash(text: str) -> int:
    h = 0
    units = text.encode("utf-16-be")
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return h


def java_hash_map_order(keys: Sequence[str]) -> list[str]:
    """The order a Java ``HashMap<String, ...>`` iterates ``keys`` put in this order (duplicates keep
    their first place): by bucket (the spread hash modulo the table size the map has grown to, 16
    doubling past 3/4 full), then by insertion within a bucket, as resizing keeps it."""
    unique = list(dict.fromkeys(keys))
    capacity = 16
    while len(unique) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = _java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(unique, key=lambda k: bucket(k))  # sorted() is stable: insertion order within a bucket


_CELL_HEAD = struct.Struct(">iih")
_CELL_KEY_TAIL = struct.pack(">BqB", 0, _LONG_MAX, 4)  # family length 0, timestamp Long.MAX_VALUE, Put


def data_block_payload(cells: list[tuple[bytes, bytes]]) -> bytes:
    """A data block's uncompressed payload, packed directly: the writer's fast path, held byte-equal to
    the generated serializer's (:func:`.hfile_grammar.data_block_body_bytes`) by tests/test_hfile_grammar.py
    (through the serializer, 100,000 cells take some 20 s)."""
    head, tail = _CELL_HEAD.pack, _CELL_KEY_TAIL
    return b"".join(
        b"".join((head(len(row) + 12, len(value), len(row)), row, tail, value, b"\x00")) for row, value in cells
    )


def _block(magic: str, raw: bytes, prev_offset: int, codec: "CompressionCodec") -> HFileBlock:
    """One block as HFileBlock.serialize writes it: compressed payload, NULL checksums of zeros."""
    stored = gzip_block(raw) if codec == CompressionCodec.gz else bytes(raw)
    chunks = -(-(BLOCK_HEADER_SIZE + len(stored)) // _BYTES_PER_CHECKSUM)
    return HFileBlock(
        magic=magic, uncompressed_size=len(raw), prev_block_offset=prev_offset, checksum_type=_CHECKSUM_NULL,
        bytes_per_checksum=_BYTES_PER_CHECKSUM, payload=stored, checksums=bytes(4 * chunks),
    )


def _index_payload(entries: list[tuple[bytes, int, int]], with_key_length: bool) -> bytes:
    """Root data index (key = 2-byte length + key) or meta index (key as is) entries.

    The key's length is written as Hadoop's vint, which the readers (Hudi's and HBase's) decode.
    Java's native writer writes a protobuf varint there: the same bytes below 128, and above that
    bytes its own reader misreads, so those are not copied."""
    out = bytearray()
    for key, offset, size in entries:
        if with_key_length:
            key = struct.pack(">h", len(key)) + key
        out += struct.pack(">qi", offset, size) + _hadoop_vint(len(key)) + key
    return bytes(out)


def _hadoop_vint(value: int) -> bytes:
    if -112 <= value <= 127:
        return struct.pack(">b", value)
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return struct.pack(">b", -112 - len(raw)) + raw


def _file_info_payload(entries: list[tuple[str, bytes]]) -> bytes:
    message = bytearray()
    for name, value in entries:
        first = name.encode("utf-8")
        pair = _pb_len(1, first) + _pb_len(2, value)
        message += _pb_len(1, pair)
    return PB_MAGIC + pb_varint_bytes(len(message)) + bytes(message)


def _pb_len(number: int, data: bytes) -> bytes:
    return pb_varint_bytes(number << 3 | 2) + pb_varint_bytes(len(data)) + data


def build_hfile(
    records: Iterable[tuple[Key, bytes]],
    *,
    file_info: Mapping[str, bytes] | Sequence[tuple[str, bytes]] = (),
    meta_blocks: Mapping[str, bytes] | Sequence[tuple[str, bytes]] = (),
    compression: str = "GZ",
    block_size: int = DEFAULT_BLOCK_SIZE,
    create_time_ms: int | None = None,
) -> HFileLayout:
    """An HFile of ``records`` (key, value), in key order, as Hudi 1.1's writer lays it out.

    ``file_info`` entries are added after the writer's first (MAX_MEMSTORE_TS_KEY) and before the ones
    it computes (last key, average key and value lengths, creation time, KEY_VALUE_VERSION), which
    replace same-named ones; ``meta_blocks`` become one META block each (Hudi: ``bloomFilter``).
    ``create_time_ms`` defaults to a given ``hfile.CREATE_TIME_TS``, else now.
    Keys must be strictly ascending (Hudi sorts and refuses duplicates): text keys in Java's String
    order (UTF-16 code units, as Hudi's TreeMap sorts them), byte keys by their bytes.
    """
    try:
        codec = CompressionCodec[compression.lower()]
    except KeyError:
        raise HFileError(-1, "compression", f"unknown codec {compression!r}") from None
    if codec not in (CompressionCodec.gz, CompressionCodec.none):
        raise HFileError(-1, "compression", f"{compression} is not supported (only GZ and NONE)")
    if block_size <= 0:
        raise HFileError(-1, "block size", f"{block_size} is not positive")
    info = dict(file_info.items() if isinstance(file_info, Mapping) else file_info)
    if create_time_ms is None:
        stored = info.get(CREATE_TIME_TS)
        create_time_ms = struct.unpack(">q", stored)[0] if stored and len(stored) == 8 else int(time.time() * 1000)

    blocks: list[HFileBlock] = []
    offset = 0
    data_index: list[tuple[bytes, int, int]] = []
    pending: list[tuple[bytes, bytes]] = []
    pending_bytes = 0
    prev_offset = -1  # Java hands each new data block the offset where it will start
    total_cell_bytes = key_bytes = value_bytes = count = 0  # noqa: F841 (total in flush)
    last_key = b""

    def flush() -> None:
        nonlocal offset, pending, pending_bytes, prev_offset
        if not pending:
            return
        nonlocal total_cell_bytes
        block = _block("DATABLK*", data_block_payload(pending), prev_offset, codec)
        # The trailer's uncompressed_data_index_size: in Hudi 1.1's files, the data blocks' payload
        # sizes (every corpus file says so; the master branch's source counts key + value + 9).
        total_cell_bytes += block.uncompressed_size
        blocks.append(block)
        data_index.append((pending[0][0], offset, block.on_disk_size))
        offset += block.on_disk_size
        prev_offset = offset
        pending, pending_bytes = [], 0

    last_order = b""
    for key, value in records:
        order = key.encode("utf-16-be", "surrogatepass") if isinstance(key, str) else bytes(key)
        key = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        value = bytes(value)
        if count and order <= last_order:
            raise HFileError(-1, f"record {count} key", f"{key!r} does not come after {last_key!r} (keys must be sorted and unique)")
        last_order = order
        if len(key) > 0x7FFF:
            raise HFileError(-1, f"record {count} key", f"{len(key)} bytes; a cell row holds at most 32767")
        if pending and pending_bytes + len(key) + len(value) + 9 > block_size:
            flush()
        pending.append((key, value))
        pending_bytes += len(key) + len(value) + 9
        key_bytes += len(key)
        value_bytes += len(value)
        count += 1
        last_key = key
    flush()
    # Without data blocks Java leaves the first offset at -1 (a uint64 in the protobuf) and the last at 0.
    first_data, last_data = (data_index[0][1], data_index[-1][1]) if data_index else ((1 << 64) - 1, 0)

    meta_index: list[tuple[bytes, int, int]] = []
    metas = dict(meta_blocks.items() if isinstance(meta_blocks, Mapping) else meta_blocks)
    for name in java_hash_map_order(list(metas)):
        block = _block("METABLKc", metas[name], -1, codec)
        blocks.append(block)
        meta_index.append((name.encode("utf-8"), offset, block.on_disk_size))
        offset += block.on_disk_size

    load_on_open = offset
    for entries, with_len in ((data_index, True), (meta_index, False)):
        block = _block("IDXROOT2", _index_payload(entries, with_len), -1, codec)
        blocks.append(block)
        offset += block.on_disk_size

    computed = {
        LAST_KEY: struct.pack(">h", len(last_key)) + last_key if last_key else b"",
        AVG_KEY_LEN: struct.pack(">i", key_bytes // count if count else 0),
        CREATE_TIME_TS: struct.pack(">q", create_time_ms),
        AVG_VALUE_LEN: struct.pack(">i", value_bytes // count if count else 0),
    }
    values = {MAX_MEMSTORE_TS_KEY: bytes(8), **info, **computed}
    values.setdefault(KEY_VALUE_VERSION, struct.pack(">i", 1))
    names = java_hash_map_order([MAX_MEMSTORE_TS_KEY, *info, *computed, KEY_VALUE_VERSION])
    file_info_offset = offset
    blocks.append(_block("FILEINF2", _file_info_payload([(n, values[n]) for n in names]), -1, codec))

    fields = [
        (TrailerField.file_info_offset.value, 0, file_info_offset),
        (TrailerField.load_on_open_data_offset.value, 0, load_on_open),
        (TrailerField.uncompressed_data_index_size.value, 0, total_cell_bytes),
        (TrailerField.data_index_count.value, 0, len(data_index)),
        (TrailerField.meta_index_count.value, 0, len(meta_index)),
        (TrailerField.entry_count.value, 0, count),
        (TrailerField.num_data_index_levels.value, 0, 1),
        (TrailerField.first_data_block_offset.value, 0, first_data),
        (TrailerField.last_data_block_offset.value, 0, last_data),
        (TrailerField.comparator_class_name.value, 2, COMPARATOR_CLASS_NAME.encode()),
        (TrailerField.compression_codec.value, 0, codec.value),
    ]
    return HFileLayout(blocks, HFileTrailer(fields, minor_version=0))


def write_hfile(parsed, *, block_size: int = DEFAULT_BLOCK_SIZE, create_time_ms: int | None = None) -> bytes:
    """The bytes of an HFile: the inverse of :func:`.hfile.read_hfile`.

    ``parsed`` is an :class:`.HFileLayout` (written as laid out), or an :class:`.HFileContents`: one
    read from bytes and unchanged is written from its layout, so ``write_hfile(read_hfile(b)) == b``;
    any other (built, or changed with ``dataclasses.replace``) is laid out by :func:`build_hfile` from
    its records, file info (whose ``hfile.CREATE_TIME_TS`` it keeps unless ``create_time_ms`` is
    given), meta blocks and compression, as Hudi 1.1 writes it.
    """
    if isinstance(parsed, HFileLayout):
        return layout_bytes(parsed)
    source = getattr(parsed, "source", None)
    if source is not None:
        from .hfile import read_hfile  # the reader sits above this module (it re-exports write_hfile)

        if read_hfile(source) == parsed:
            return layout_bytes(parsed.layout)
    layout = build_hfile(
        ((r.key, r.value) for r in parsed.records),
        file_info=parsed.file_info,
        meta_blocks=parsed.meta_blocks,
        compression=parsed.compression,
        block_size=block_size,
        create_time_ms=create_time_ms,
    )
    return layout_bytes(layout)
