"""LogBlock: one block of a log file (or one damaged span), with its content loaded on demand."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping, Sequence

from . import grammar
from ..errors import ContentError
from .grammar import BlockType, HeaderKey, HudiLog
from .source import BytesSource, Source

HeaderEntries = tuple[tuple[HeaderKey, str], ...]


@dataclass(eq=False)
class LogBlock:
    """A block as found in a log file, or a new block to be written.

    For a damaged span (``corrupt``), ``offset`` is the byte just after the bad block's magic (or
    the first byte of garbage) and ``length`` runs to the next magic or the end of the file, as
    Apache Hudi reports it; ``magic_offset`` is where the bad block's magic was (if any).
    """

    offset: int
    length: int
    format_version: int | None
    block_type: BlockType | None  # None: format version 0 has no block type
    header_entries: HeaderEntries = ()
    footer_entries: HeaderEntries = ()
    content_offset: int = 0
    content_length: int = 0
    path: str | None = None
    corrupt: bool = False
    #: for a damaged span: the rule it broke (see reader.RULES)
    corrupt_rule: str | None = None
    corrupt_detail: str | None = None
    magic_offset: int | None = None
    #: intact, but Apache Hudi's Java reader reports it as corrupt (garbage follows it)
    skipped_by_hudi: bool = False
    _source: Source | None = field(default=None, repr=False)

    # ---- metadata -------------------------------------------------------------------------
    @property
    def header(self) -> dict[str, str]:
        """Header entries keyed by Hudi's enum names, in file order."""
        return {grammar.header_key_name(k): v for k, v in self.header_entries}

    @property
    def footer(self) -> dict[str, str]:
        return {grammar.header_key_name(k): v for k, v in self.footer_entries}

    def _header_value(self, key: HeaderKey) -> str | None:
        value = None
        for k, v in self.header_entries:
            if k == key:
                value = v  # Java reads the map into a HashMap: the last entry wins
        return value

    @property
    def instant_time(self) -> str | None:
        return self._header_value(HeaderKey.instant_time)

    @property
    def target_instant_time(self) -> str | None:
        return self._header_value(HeaderKey.target_instant_time)

    @property
    def compacted_block_times(self) -> str | None:
        """Log compaction: comma-separated instants whose blocks this block merges (None if not compacted)."""
        return self._header_value(HeaderKey.compacted_block_times)

    @property
    def schema(self) -> str | None:
        return self._header_value(HeaderKey.schema)

    @property
    def block_type_name(self) -> str:
        return grammar.block_type_name(self.block_type)

    @property
    def is_rollback(self) -> bool:
        return (
            self.block_type == BlockType.command_block
            and self._header_value(HeaderKey.command_block_type) == str(int(grammar.CommandBlockType.rollback_block))
        )

    # ---- content --------------------------------------------------------------------------
    def content(self) -> bytes:
        """The content bytes (for a damaged span: its bytes), read from the file on demand."""
        data = self._source.read(self.content_offset, self.content_length) if self._source else b""
        if len(data) != self.content_length:
            raise ContentError(self.path, self.content_offset, "content", "file shrank since it was scanned")
        return data

    @cached_property
    def record_count(self) -> int | None:
        """Records in a data block (Avro/CDC count, Parquet rows, HFile entries); None otherwise."""
        if self.corrupt:
            return None
        if self.block_type in grammar.RECORD_BLOCK_TYPES:
            head = self._source.read(self.content_offset, min(8, self.content_length)) if self._source else b""
            if len(head) < 8:
                raise ContentError(self.path, self.content_offset, "record_count", "content too short")
            return int.from_bytes(head[4:8], "big", signed=True)
        if self.block_type == BlockType.parquet_data_block:
            return self.table().num_rows
        if self.block_type == BlockType.hfile_data_block:
            return self.hfile().entry_count
        return None

    def _parse_content(self, cls, *instances: str):
        # ``instances``: parse-on-demand layouts to parse too (a delete content's ``records``), so
        # damage inside them is named here
        try:
            parsed = grammar.parse(cls, self.content())
            for name in instances:
                getattr(parsed, name)
            return parsed
        except ContentError:
            raise
        except Exception as e:  # the generated parser raises kaitaistruct / EOF errors
            raise ContentError(self.path, self.content_offset, cls.__name__, f"{type(e).__name__}: {e}") from e

    def _require(self, *types: BlockType) -> None:
        if self.corrupt or self.block_type not in types:
            names = ", ".join(grammar.block_type_name(t) for t in types)
            raise ContentError(self.path, self.offset, "block_type", f"{self.block_type_name} is not {names}")

    def datums(self) -> list[bytes]:
        """The Avro binary records of an Avro data or CDC block."""
        self._require(*grammar.RECORD_BLOCK_TYPES)
        data = self.content()
        out = _split_datums(data)
        if out is None:  # damaged or unusual: the grammar's parser reports it (or reads it) exactly
            return [r.datum for r in self._parse_content(HudiLog.AvroDataContent).records]
        return out

    def writer_schema(self) -> dict:
        """The SCHEMA header as JSON: an Avro record, nested at most ``bounds.MAX_SCHEMA_DEPTH`` levels."""
        return copy.deepcopy(self._checked_schema())  # the parse is shared across blocks: callers get their own

    def _checked_schema(self) -> dict:
        """The parsed SCHEMA header, shared with every block of the same schema: read it, never change it."""
        from .content.bounds import BoundError, load_schema

        if self.schema is None:
            raise ContentError(self.path, self.offset, "header.SCHEMA", "block has no SCHEMA header")
        try:
            return load_schema(self.schema)
        except BoundError as e:
            raise ContentError(self.path, self.offset, e.field, str(e)) from e

    def records(self, reader_schema: Mapping | None = None) -> list[dict[str, Any]]:
        """Records of an Avro data / CDC block (writer schema from SCHEMA), Parquet or HFile block."""
        if self.block_type == BlockType.parquet_data_block and not self.corrupt:
            # page CRCs checked (cheap beside making Python objects): a flipped bit inside a page would
            # otherwise come back as a wrong value, as validate would not let it
            table = self.table(verify_checksums=True)
            try:
                return table.to_pylist()
            except Exception as e:  # damaged values surface only when converted (UTF-8, ranges)
                raise ContentError(self.path, self.content_offset, "parquet", f"{type(e).__name__}: {e}") from e
        if self.block_type == BlockType.hfile_data_block and not self.corrupt:
            return self._hfile_records(reader_schema)
        from .content.avro import decode_datums

        datums = self.datums()
        return decode_datums(datums, self._checked_schema(), reader_schema, self.path, self.content_offset)

    def to_arrow(self, columnar: bool = True, columns=None):
        """The records of a data block as a pyarrow Table.

        Avro data and CDC blocks decode in one call per block (:mod:`hudi_log.format.content.avro_columnar`) when the
        writer schema allows it, else record by record through fastavro — same values either way, typed
        by :func:`hudi_log.format.content.avro_arrow.avro_to_arrow_schema` of the writer schema. Parquet blocks are read
        as they are; HFile blocks go through their records. ``columns`` keeps only those the block has
        (the columnar decode then builds only them).
        """
        import pyarrow as pa

        def project(t):
            return t if columns is None else t.select([c for c in t.column_names if c in set(columns)])

        if self.block_type == BlockType.parquet_data_block and not self.corrupt:
            return project(self.table())
        if self.block_type in grammar.RECORD_BLOCK_TYPES and not self.corrupt:
            schema = self._checked_schema()  # checked (depth, shape) before any decoder sees it
            if columnar:
                from .content.avro_columnar import ColumnarDecodeError, decode_block_content

                try:
                    return decode_block_content(self.content(), self.schema, columns)
                except ColumnarDecodeError:
                    pass  # the record path below decides (and names the damage, if any)
            return project(records_to_arrow(self.records(), schema, self.path, self.content_offset))
        if self.block_type == BlockType.hfile_data_block and not self.corrupt:
            return project(_arrow_boundary(lambda: pa.Table.from_pylist(self.records()), self.path, self.content_offset))
        self._require(*grammar.RECORD_BLOCK_TYPES, BlockType.parquet_data_block, BlockType.hfile_data_block)

    def deletes(self):
        """The deleted keys of a delete block (content version 3: Avro; 1 and 2: Kryo, Hudi before 0.14)."""
        from .content.deletes import DeletePayloadError, decode_delete_payload

        self._require(BlockType.delete_block)
        payload = self._v3_delete_payload()
        if payload is not None:
            # well-framed version-3 content: the strict payload decoder checks every byte (it re-encodes
            # and compares), so the grammar's parse tree is only needed to name damage
            try:
                return decode_delete_payload(payload)
            except DeletePayloadError:
                pass
        c = self._parse_content(HudiLog.DeleteContent, "records")
        payload = self.content()[8:8 + c.len_payload]
        if c.content_version != 3:
            from .content.deletes_kryo import decode_kryo_delete_payload

            try:  # Hudi before 0.14: Kryo-serialized HoodieKey[] (1) or DeleteRecord[] (2)
                return decode_kryo_delete_payload(c.content_version, payload)
            except DeletePayloadError as e:
                raise ContentError(self.path, self.content_offset + 8, "payload", str(e)) from e
        payload = self.content()[8:]
        try:
            return decode_delete_payload(payload)
        except DeletePayloadError as e:
            raise ContentError(self.path, self.content_offset + 8, "payload", str(e)) from e

    def delete_columns(self):
        """The deleted keys of a delete block as columns (``deletes_fast.DeleteColumns``), what a merge
        reads: the common version-3 payloads straight from the bytes (the compiled decoder, no record
        objects), any other through :meth:`deletes`."""
        from .content.deletes_fast import DeleteColumns, decode_columns

        self._require(BlockType.delete_block)
        payload = self._v3_delete_payload()
        columns = decode_columns(payload) if payload is not None else None
        return columns if columns is not None else DeleteColumns.of(self.deletes())

    def _v3_delete_payload(self) -> bytes | None:
        # the payload of a well-framed version-3 delete content (version, then the payload's length)
        data = self.content()
        if (len(data) >= 8 and int.from_bytes(data[:4], "big") == 3
                and int.from_bytes(data[4:8], "big") == len(data) - 8):
            return data[8:]
        return None

    def table(self, verify_checksums: bool = False):
        """A Parquet data block's rows as a pyarrow Table (``verify_checksums``: check the pages' CRCs
        where the writer stored them, as validation does)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._require(BlockType.parquet_data_block)
        self._parse_content(HudiLog.ParquetContent)  # checks both magics
        try:
            return pq.read_table(pa.BufferReader(self.content()), page_checksum_verification=verify_checksums)
        except Exception as e:
            raise ContentError(self.path, self.content_offset, "parquet", str(e)) from e

    def hfile(self):
        """An HFile data block's key/value cells."""
        from .content.hfile import HFileError, read_hfile

        self._require(BlockType.hfile_data_block)
        try:
            return read_hfile(self.content())
        except HFileError as e:
            raise ContentError(self.path, self.content_offset, "hfile", str(e)) from e

    def _hfile_records(self, reader_schema):
        from .content.avro import decode_datums

        cells = self.hfile().records
        records = decode_datums([c.value for c in cells], self._checked_schema(), reader_schema, self.path,
                                self.content_offset)
        # Hudi blanks the key field in HFile values and restores it from the cell row on read.
        for cell, rec in zip(cells, records):
            if rec.get("key") == "":
                rec["key"] = cell.key
        return records

    # ---- bytes ----------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The block's bytes: for a block read from a file, the bytes it has there, as they are (a
        serializer would write what the grammar parsed, and lose what it did not, e.g. bytes after an
        Avro block's declared records); for a damaged span, its bytes; for a new block, through the
        grammar's serializer."""
        if self.corrupt:
            return self.content()
        if self.offset >= 0 and self._source is not None and self.length >= 0:
            data = self._source.read(self.offset, self.length)
            if len(data) != self.length:
                raise ContentError(self.path, self.offset, "block", "file shrank since it was scanned")
            return data
        try:
            return grammar.serialize_block(
                self.format_version, self.block_type, self.header_entries, self.content(), self.footer_entries
            )
        except ContentError:
            raise
        except Exception as e:  # content that breaks its layout cannot go through the serializer
            raise ContentError(self.path, self.content_offset, "content", f"{type(e).__name__}: {e}") from e

    def byte_parts(self) -> list:
        """The block's bytes as pieces to write one after the other (``to_bytes()`` in one piece here;
        a block framed around its content's chunks gives them without joining them first)."""
        return [self.to_bytes()]

    # ---- construction ---------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        block_type: BlockType | str,
        header: Mapping[HeaderKey | str, str] | Sequence[tuple[HeaderKey | str, str]],
        content: bytes = b"",
    ) -> "LogBlock":
        """A new block; its header entries are written in ascending key order."""
        items = header.items() if isinstance(header, Mapping) else header
        entries = tuple(sorted(((grammar.header_key(k), str(v)) for k, v in items), key=lambda kv: int(kv[0])))
        data = bytes(content)
        return cls(
            offset=-1, length=-1, format_version=grammar.CURRENT_FORMAT_VERSION,
            block_type=grammar.writable_block_type(grammar.block_type(block_type)), header_entries=entries,
            content_offset=0, content_length=len(data), _source=BytesSource(data),
        )

    def summary(self) -> dict[str, Any]:
        """The block as `hudi-log inspect --json` prints it."""
        d: dict[str, Any] = {
            "offset": self.offset,
            "length": self.length,
            "format_version": self.format_version,
            "block_type": self.block_type_name,
            "header": self.header,
            "footer": self.footer,
            "content_length": self.content_length,
            "record_count": None if self.corrupt else self.record_count,
            "corrupt": self.corrupt,
        }
        if self.corrupt:
            d["rule"] = self.corrupt_rule
            d["detail"] = self.corrupt_detail
            d["magic_offset"] = self.magic_offset
        if self.skipped_by_hudi:
            d["skipped_by_hudi"] = True
        return d



def _split_datums(data: bytes) -> list[bytes] | None:
    """The datums of well-formed Avro data-block content, split without building a parse tree per
    record (the grammar's AvroDataContent layout); None when anything is off."""
    if len(data) < 8 or int.from_bytes(data[:4], "big", signed=True) not in (1, 2, 3):
        return None
    count = int.from_bytes(data[4:8], "big", signed=True)
    if count < 0:
        return None
    out = []
    pos, end = 8, len(data)
    for _ in range(count):
        if pos + 4 > end:
            return None
        n = int.from_bytes(data[pos:pos + 4], "big", signed=True)
        if n < 0 or pos + 4 + n > end:
            return None
        out.append(data[pos + 4:pos + 4 + n])
        pos += 4 + n
    return out if pos == end else None


def records_to_arrow(records: list, writer_schema: Mapping, path: str | None = None, offset: int = 0):
    """Decoded Avro records as an Arrow table typed by the writer schema (inferred where it has no mapping)."""
    import pyarrow as pa

    from .content.avro_arrow import UnsupportedAvroType, avro_to_arrow_schema

    try:
        schema = avro_to_arrow_schema(writer_schema)
    except UnsupportedAvroType:
        schema = None
    return _arrow_boundary(lambda: pa.Table.from_pylist(records, schema=schema), path, offset)


def _arrow_boundary(build, path: str | None, offset: int):
    """pyarrow building a table from decoded values: a documented decode boundary. Its errors are many
    (ArrowInvalid, ArrowTypeError, ArrowNotImplementedError, OverflowError, ...) and all mean that the
    values decoded from the block do not fit the Arrow types of its schema: a ContentError naming the block."""
    try:
        return build()
    except Exception as e:  # noqa: BLE001 - the pyarrow boundary, see above
        raise ContentError(path, offset, "records (as Arrow)", f"{type(e).__name__}: {str(e)[:200]}") from e
