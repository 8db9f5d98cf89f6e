"""Writing blocks to a log file; every byte comes from the grammar's serializer (an HFILE block's
content, an HFile, from spec/hfile.ksy's: ``hfile_data_block``).

This is the plain "put these blocks in this file" helper. ``hudi_log.log.writer.LogWriter`` is the
writer with Hudi's semantics (lazy creation, exclusive create, append-or-roll, rollover), and
``hudi_log.log.append_handle.AppendHandle`` the one that turns records and deletes into blocks.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterable, Mapping, Sequence, Union

from . import grammar
from .block import LogBlock
from .content.avro import encode_records
from .content.hfile_grammar import layout_bytes
from .content.hfile_wire import HFileError
from .content.hfile_writer import build_hfile
from .grammar import BlockType, CommandBlockType, HeaderKey
from .source import JoinedSource


def write_blocks(dest: Union[str, os.PathLike, BinaryIO], blocks: Iterable[LogBlock], append: bool = False) -> int:
    """Write ``blocks`` to ``dest`` (a path, or a binary file) and return the bytes written.

    Every block is serialized before the file is touched, so a block the grammar refuses leaves
    ``dest`` as it was. A path is created (or appended to with ``append=True``), flushed and synced.
    """
    data = [part for block in blocks for part in block.byte_parts()]
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "ab" if append else "wb") as f:
            n = sum(f.write(chunk) for chunk in data)
            f.flush()
            os.fsync(f.fileno())
            return n
    return sum(dest.write(chunk) for chunk in data)


@dataclass(eq=False)
class FramedBlock(LogBlock):
    """A new block whose bytes are already framed by ``grammar.frame_block_parts``: ``byte_parts()``
    gives the framing and the content's chunks as they are, ``to_bytes()`` them joined, instead of
    parsing the content and serializing it again. Its ``_source`` is the :class:`JoinedSource` of
    those pieces."""

    def to_bytes(self) -> bytes:
        return self._source.data

    def byte_parts(self) -> list:
        return self._source.parts


def framed_avro_block(
    block_type: BlockType | str,
    header: Mapping[HeaderKey | str, str],
    content_version: int,
    record_count: int,
    records: Sequence[bytes | bytearray | memoryview],
) -> FramedBlock:
    """An Avro data / CDC block from its records as they sit in the content, given in chunks: each
    datum behind its length prefix (``grammar.avro_record_prefix``), ``record_count`` of them.

    The header entries are ordered as ``LogBlock.new`` orders them; the bytes equal
    ``LogBlock.new(block_type, header, grammar.avro_data_content(...)).to_bytes()``.
    """
    proto = LogBlock.new(block_type, header)
    if proto.block_type not in grammar.RECORD_BLOCK_TYPES:
        raise ValueError(f"{proto.block_type_name} does not hold Avro records")
    prefix = grammar.avro_content_prefix(content_version, record_count)
    parts, content_offset = grammar.frame_block_parts(proto.block_type, proto.header_entries, [prefix, *records])
    return FramedBlock(
        offset=-1, length=-1, format_version=proto.format_version, block_type=proto.block_type,
        header_entries=proto.header_entries, content_offset=content_offset,
        content_length=len(prefix) + sum(len(r) for r in records), _source=JoinedSource(parts),
    )


def framed_delete_block(header: Mapping[HeaderKey | str, str], records: Iterable) -> FramedBlock:
    """A DELETE_BLOCK of content version 3 (what Hudi writes since 0.14) holding ``records``
    (``DeleteRecord``s, or ``DeleteColumns``), its payload laid out in one pass (``encode_delete_payload``,
    ``encode_columns``) and framed as it is, never parsed back through the generated codec: the bytes
    equal ``LogBlock.new(DELETE_BLOCK, header, grammar.delete_content(3, payload)).to_bytes()``
    (tests/test_deletes_encode.py)."""
    from .content.deletes import encode_delete_payload
    from .content.deletes_fast import DeleteColumns, encode_columns

    payload = encode_columns(records) if isinstance(records, DeleteColumns) else encode_delete_payload(records)
    proto = LogBlock.new(BlockType.delete_block, header)
    prefix = grammar.delete_content_prefix(grammar.CURRENT_AVRO_CONTENT_VERSION, len(payload))
    parts, content_offset = grammar.frame_block_parts(proto.block_type, proto.header_entries, [prefix, payload])
    return FramedBlock(
        offset=-1, length=-1, format_version=proto.format_version, block_type=proto.block_type,
        header_entries=proto.header_entries, content_offset=content_offset,
        content_length=len(prefix) + len(payload), _source=JoinedSource(parts),
    )


def rollback_block(instant: str, target_instant: str) -> LogBlock:
    """A ROLLBACK command block: INSTANT_TIME, TARGET_INSTANT_TIME, COMMAND_BLOCK_TYPE, no content."""
    return LogBlock.new(
        BlockType.command_block,
        {
            HeaderKey.instant_time: instant,
            HeaderKey.target_instant_time: target_instant,
            HeaderKey.command_block_type: str(int(CommandBlockType.rollback_block)),
        },
        b"",
    )


def hfile_data_block(
    instant: str,
    schema: str,
    records: Iterable[Mapping[str, Any]],
    *,
    key_field: str = "key",
    create_time_ms: int | None = None,
) -> LogBlock:
    """An HFILE_DATA_BLOCK as Hudi writes one into a metadata-table log (``HoodieHFileDataBlock`` through
    ``HFileUtils.serializeRecordsToLogBlock``): header INSTANT_TIME and SCHEMA; content an HFile of
    the records keyed by ``key_field``, in Java's String order (a TreeMap), each value the record's Avro
    binary under ``schema`` with the key field blanked (readers restore it from the cell's row), 1 MB
    data blocks, GZ, file info ``schema`` (the same text as the header).

    ``schema`` is the writer schema's JSON text, as the header carries it. Two records with one key are
    refused, as Java refuses them (HFileError). ``create_time_ms`` is the file info's creation time
    (default: now).
    """
    by_key: dict[str, Mapping[str, Any]] = {}
    for rec in records:
        key = rec[key_field]
        if key in by_key:
            raise HFileError(-1, f"record key {key!r}", "two records with one key (Hudi refuses them in an HFile block)")
        by_key[key] = rec
    keys = sorted(by_key, key=lambda k: k.encode("utf-16-be", "surrogatepass"))  # Java's String.compareTo
    schema_json = json.loads(schema)
    values = encode_records(({**by_key[k], key_field: ""} for k in keys), schema_json)
    layout = build_hfile(zip(keys, values), file_info={"schema": schema.encode("utf-8")}, create_time_ms=create_time_ms)
    return LogBlock.new(
        BlockType.hfile_data_block,
        {HeaderKey.instant_time: instant, HeaderKey.schema: schema},
        layout_bytes(layout),
    )
