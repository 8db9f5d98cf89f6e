"""AppendHandle: writes the records and deletes of one file group for one instant, as Hudi's
``HoodieAppendHandle`` does.

* Records (dicts, or pyarrow RecordBatch / Table rows) are checked against the table schema and
  must carry their record key; a record that does not fit is refused with ``RecordError`` (naming
  the record, its key and the field) when it is handed in, so no byte of its block is ever written.
* The meta fields are filled as Hudi fills them: ``_hoodie_commit_time`` = the instant,
  ``_hoodie_commit_seqno`` = ``{instant}_{taskPartitionId}_{counter}``, ``_hoodie_record_key``,
  ``_hoodie_partition_path`` (relative, "" when not partitioned) and ``_hoodie_file_name`` = the
  file id. The writer schema is the table schema with the five meta fields prepended, each
  ``["null","string"]`` with default null (exactly the JSON Hudi writes).
* Records are buffered; the average record size is estimated as Hudi does (the first record's size,
  then ``avg*0.8 + size*0.2`` every 100 records and at each block boundary, with Java's integer
  truncation), and a data block is flushed once the buffer holds ``max_block_size // avg`` records.
  Our size of a record is its Avro encoding plus the 4-byte length prefix (Hudi uses the JVM
  object size, which has no Python equivalent).
* ``close()`` appends the last data block and then the delete block in one ``append_blocks`` batch:
  ``[data…, delete]``. Every block carries INSTANT_TIME and SCHEMA.
* Data blocks are Avro (default) or Parquet (``block_format="parquet"``: the content is a whole
  Parquet file written by pyarrow, GZIP, meta fields first).
* ``rollback(target_instant)`` appends a ROLLBACK command block (table version 6 and below only;
  from version 8 Hudi deletes the failed instant's log files instead).
* ``close()`` returns ``WriteStats`` with what a commit's write stat needs.
"""

from __future__ import annotations

import io
import itertools
from typing import Any, Iterable, Mapping, Optional, Sequence

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import AppendHandleError, HudiLogError
from ..format import grammar
from ..format.block import LogBlock
from ..format.content import columnar_encode
from ..format.content.avro_arrow import UnsupportedAvroType, arrow_to_avro_schema  # noqa: F401  (re-exported)
from ..format.content.avro_arrow import avro_to_arrow_schema as _avro_to_arrow
from ..format.content.avro_validate import Invalid, Validator, binary_defaults_to_bytes, is_mapping
from ..format.content.deletes import DeleteRecord, OrderingKind
from ..format.content.deletes_fast import DeleteColumns
from ..format.content.meta_fields import (  # noqa: F401  (META_FIELDS, writer_schema, schema_json: re-exported)
    COMMIT_SEQNO, COMMIT_TIME, FILE_NAME, GLOBAL_SEQNO, META_FIELDS, PARTITION_PATH, RECORD_KEY, SeqCounter,
    schema_json, strip_meta_fields, writer_schema,
)
from ..format.framing import framed_avro_block, framed_delete_block, rollback_block  # noqa: F401  (rollback_block: re-exported)
from ..format.grammar import BlockType, HeaderKey
from ..format.log_file_name import make_write_token
from .records import (  # noqa: F401  (RECORDS_PER_SIZE_ESTIMATE: re-exported)
    RECORDS_PER_SIZE_ESTIMATE, RecordKeyField, arrow_batches, block_cuts, is_arrow, iter_records, key_extractor,
    key_text, one_chunk,
)
from .storage import Storage
from .write_stats import WriteStats
from .writer import DEFAULT_LOG_FILE_MAX_SIZE, FIRST_NO_APPEND_TABLE_VERSION, AppendResult, LogWriter

try:  # fastavro's compiled encoder entry point: no per-call schema handling
    from fastavro._write import write_data as _fastavro_write_data
except ImportError:  # pragma: no cover
    _fastavro_write_data = None

#: ``hoodie.logfile.data.block.max.size``
DEFAULT_MAX_BLOCK_SIZE = 256 * 1024 * 1024
#: the content version every Hudi since 0.14 writes (Avro data and delete blocks)
CONTENT_VERSION = grammar.CURRENT_AVRO_CONTENT_VERSION
#: the ordering value of a delete that carries none: ``DeleteRecord``'s default, IntWrapper 0
DELETE_DEFAULT_ORDERING = (0, OrderingKind.INT)
#: records encoded together by ``write_all`` (bounds the memory of one columnar pass)
COLUMNAR_BATCH = 65536
#: and at most about this many bytes (Arrow binary arrays have 32-bit offsets)
COLUMNAR_BATCH_BYTES = 256 * 1024 * 1024
#: records ``write`` takes one at a time before they are encoded together
PENDING_RECORDS = 8192

BLOCK_FORMATS = ("avro", "parquet")


class RecordError(AppendHandleError, ValueError):
    """A record that does not fit the schema or lacks its key; nothing of it was written."""

    def __init__(self, index: int, key: Any, field: str, message: str):
        #: position of the record among all handed to the handle (0-based)
        self.index = index
        self.record_key = key
        self.field = field
        self.message = message
        who = f"record {index}" + (f" (key {key!r})" if key is not None else "")
        where = f"field {field!r}: " if field else ""
        super().__init__(f"{who}: {where}{message}")


def avro_to_arrow_schema(schema: Mapping):
    """The Arrow schema of a Parquet data block for an Avro record schema (nullable unions → nullable)."""
    try:
        return _avro_to_arrow(schema)
    except UnsupportedAvroType as e:
        raise AppendHandleError(f"Parquet blocks cannot hold this schema: {e}") from e


class AppendHandle:
    """Records and deletes of one file group, for one instant, into its log files."""

    def __init__(
        self,
        base_path: str,
        partition_path: str,
        file_id: str,
        instant: str,
        table_schema: Mapping,
        record_key_field: RecordKeyField,
        *,
        table_version: int = 6,
        base_instant: Optional[str] = None,
        task_partition_id: int = 0,
        stage_id: int = 0,
        attempt_id: int = 0,
        block_format: str = "avro",
        max_block_size: int = DEFAULT_MAX_BLOCK_SIZE,
        log_file_max_size: int = DEFAULT_LOG_FILE_MAX_SIZE,
        storage: Optional[Storage] = None,
        seqno_start: Optional[int] = None,
        populate_meta_fields: bool = True,
        log_dir: Optional[str] = None,
        log_version: Optional[int] = None,
        write_token: Optional[str] = None,
    ):
        """
        ``base_path``: the table's root; ``partition_path``: relative partition ("" if none).
        ``base_instant``: table version < 8 names log files after the base instant of the latest
        file slice (default: ``instant``, i.e. a new log-only file group); version 8 and up always
        use ``instant``. ``record_key_field``: a field name, several (a complex key
        ``f1:v1,f2:v2``) or a function of the record. ``seqno_start``: a per-handle sequence
        counter starting there (default: one process-wide counter from 1, like Hudi's JVM-wide one).
        ``log_dir`` / ``log_version`` / ``write_token``: target another directory than
        ``base_path/partition_path``, start from a given log version, or use a given write token
        instead of ``{task_partition_id}-{stage_id}-{attempt_id}`` (for fixtures and the CLI).
        ``populate_meta_fields=False`` (a table with ``hoodie.populate.meta.fields=false``): the records keep
        the five meta fields, every value null, as Java's append handle writes them.
        """
        if block_format not in BLOCK_FORMATS:
            raise AppendHandleError(f"block_format must be one of {BLOCK_FORMATS}, not {block_format!r}")
        if max_block_size <= 0:
            raise AppendHandleError("max_block_size must be positive")
        self.storage = storage if storage is not None else Storage()
        self.base_path = base_path
        self.partition_path = partition_path.strip("/")
        self.file_id = file_id
        self.instant = instant
        self.table_version = table_version
        self.base_instant = instant if (table_version >= FIRST_NO_APPEND_TABLE_VERSION or base_instant is None) else base_instant
        self.task_partition_id = task_partition_id
        self.write_token = write_token if write_token is not None else make_write_token(task_partition_id, stage_id, attempt_id)
        self.block_format = block_format
        self.max_block_size = max_block_size
        self.populate_meta_fields = populate_meta_fields
        self._seq = SeqCounter(seqno_start) if seqno_start is not None else GLOBAL_SEQNO

        self.table_schema = strip_meta_fields(table_schema)
        # without meta fields (hoodie.populate.meta.fields=false) Java still writes them, as nulls: its handles
        # prepend them with no values and the block's SCHEMA is the writer schema with them
        self.schema = writer_schema(self.table_schema)
        self.schema_json = schema_json(self.schema)
        try:
            self._named: dict = {}
            self._parsed = fastavro.parse_schema(self.schema, self._named)
            binary_defaults_to_bytes(self._parsed, self._named)
            tnamed: dict = {}
            tparsed = fastavro.parse_schema(self.table_schema, tnamed, _write_hint=False)
        except Exception as e:
            raise AppendHandleError(f"invalid Avro schema: {e}") from e
        self._check_record = Validator(tnamed).compile(tparsed, "")
        self._field_names = [f["name"] for f in self.table_schema["fields"]]
        self._meta_names = frozenset(META_FIELDS)
        self._key_spec = record_key_field
        self._key_of = key_extractor(record_key_field, self._field_names)
        self._encode_opts = {"strict": False, "strict_allow_default": False, "disable_tuple_notation": True}
        self._arrow_schema = avro_to_arrow_schema(self.schema) if block_format == "parquet" else None
        # flat schemas of primitive fields are encoded a batch at a time (write_all)
        self._plans = columnar_encode.plan(self.schema) if block_format == "avro" else None
        if self._plans is not None:
            self._init_columnar()

        self.writer = LogWriter(
            log_dir if log_dir is not None else self.storage.join(base_path, self.partition_path),
            file_id, self.base_instant, table_version=table_version, write_token=self.write_token,
            size_threshold=log_file_max_size, storage=self.storage, version=log_version,
        )
        # the current data block: its records as they sit in an Avro block's content (each
        # behind its length prefix; chunks of encoded batches, joined once when framed), and how many
        self._chunks: list = []
        self._num_records = 0
        self._pending: list = []  # records write() checked, not yet encoded
        self._pending_keys: list[str] = []
        self._pending_seqnos: list[int] = []
        self._rows: list[dict] = []  # Parquet blocks: the full records
        # the delete block's records, as columns: keys, partition paths, ordering kinds' codes, values
        self._del_keys: list = []
        self._del_parts: list = []
        self._del_kinds = bytearray()
        self._del_values: list = []
        # Hudi's size estimation state
        self._avg_size: Optional[int] = None
        self._index = 0
        self._closed = False
        self.stats = WriteStats(file_id, self.partition_path, instant, self.base_instant)

    # ---- records -------------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise AppendHandleError(f"append handle for {self.file_id} @ {self.instant} is closed")

    def _admit(self, record: Any) -> tuple[Mapping[str, Any], str]:
        """Check one record handed in (schema, key); returns it without meta fields, and its key."""
        index = self._index  # counts every record handed in, refused ones too
        self._index += 1
        if not is_mapping(record):
            raise RecordError(index, None, "", f"a record must be a dict, not {type(record).__name__}")
        try:
            key = self._key_of(record)
        except Exception as e:
            raise RecordError(index, None, "", f"cannot compute its record key: {e}") from e
        if key is None or key == "":
            raise RecordError(index, None, "", "record key is missing (null or empty)")
        key = key_text(key)
        if not self._meta_names.isdisjoint(record.keys()):
            # meta fields in the input (e.g. rows read from a Hudi table) are Hudi's to fill
            record = {k: v for k, v in record.items() if k not in self._meta_names}
        try:
            self._check_record(record, "")
        except Invalid as e:
            raise RecordError(index, key, e.path, e.message) from None
        return record, key

    def write(self, record: Mapping[str, Any], *, is_update: bool = True) -> None:
        """Buffer one record (flushing a data block first when the buffer is full).

        The record is checked now. With the columnar encoder it is encoded with the next
        ``PENDING_RECORDS`` (or at the next flush, write_all, rollback or close): the blocks and
        their bytes are the same, they reach the file a little later.
        """
        self._check_open()
        record, key = self._admit(record)
        self._count(1, is_update)
        if self._plans is not None:
            self._pending.append(record)
            self._pending_keys.append(key)
            if self.populate_meta_fields:
                self._pending_seqnos.append(next(self._seq))
            if len(self._pending) >= PENDING_RECORDS:
                self._drain()
            return
        full = self._with_meta(record, key)
        # encode now: the bytes are the size estimate, and nothing can fail at flush time
        try:
            run = self._encode(full)
        except Exception as e:  # validated above, so this is a safety net
            raise RecordError(self._index - 1, key, "", f"cannot be encoded: {type(e).__name__}: {e}") from e
        self._buffer_records(run, [0, len(run)], [full] if self.block_format == "parquet" else None)

    def write_all(self, records: Iterable[Mapping[str, Any]] | Any, *, is_update: bool = True) -> int:
        """Buffer many records: dicts, or a pyarrow RecordBatch / Table. Returns how many.

        Avro blocks of flat schemas are encoded a batch at a time (``columnar_encode``): dicts are
        still checked one by one, Arrow columns are checked as columns; the bytes, blocks and errors
        are those of ``write`` record by record.
        """
        self._check_open()
        self._drain()
        if self._plans is None:
            n = 0
            for rec in iter_records(records):
                self.write(rec, is_update=is_update)
                n += 1
            return n
        n = 0
        if is_arrow(records):
            for batch in arrow_batches(records, self._batch_rows(records)):
                self._write_arrow(batch, is_update)
                n += batch.num_rows
            return n
        it = iter(records)
        while True:
            chunk = list(itertools.islice(it, COLUMNAR_BATCH))
            if not chunk:
                return n
            self._write_dicts(chunk, is_update)
            n += len(chunk)

    def _with_meta(self, record: Mapping[str, Any], key: str, seqno: Optional[int] = None) -> dict:
        full = dict(record)  # the encoder follows the schema's field order, not the dict's
        if not self.populate_meta_fields:
            full.update(dict.fromkeys(META_FIELDS))
            return full
        full[COMMIT_TIME] = self.instant
        full[COMMIT_SEQNO] = f"{self.instant}_{self.task_partition_id}_{next(self._seq) if seqno is None else seqno}"
        full[RECORD_KEY] = key
        full[PARTITION_PATH] = self.partition_path
        full[FILE_NAME] = self.file_id
        return full

    def _encode(self, full: dict) -> bytes:
        """One record as it sits in a block's content: length prefix, then the Avro datum."""
        if _fastavro_write_data is not None:
            datum = bytearray()
            _fastavro_write_data(datum, full, self._parsed, self._named, "", self._encode_opts)
        else:  # pragma: no cover
            b = io.BytesIO()
            fastavro.schemaless_writer(b, self._parsed, full, disable_tuple_notation=True)
            datum = b.getvalue()
        return grammar.avro_record_prefix(len(datum)) + datum

    # ---- batches (columnar) --------------------------------------------------------------------
    def _init_columnar(self) -> None:
        plans = {p.name: p for p in self._plans}
        self._table_plans = [p for p in self._plans if p.name not in self._meta_names]
        self._table_arrow_schema = columnar_encode.arrow_schema(self._table_plans)
        self._defaults = {f["name"]: f["default"] for f in self._parsed["fields"] if "default" in f}
        self._meta_constants: dict[str, bytes] = {}
        if self.populate_meta_fields:
            for name, value in ((COMMIT_TIME, self.instant), (PARTITION_PATH, self.partition_path), (FILE_NAME, self.file_id)):
                self._meta_constants[name] = columnar_encode.encode_constant(plans[name], value)
        else:
            for name in META_FIELDS:
                self._meta_constants[name] = columnar_encode.encode_constant(plans[name], None)
        self._seqno_prefix = f"{self.instant}_{self.task_partition_id}_"

    def _count(self, n: int, is_update: bool) -> None:
        self.stats.num_writes += n
        if is_update:
            self.stats.num_update_writes += n
        else:
            self.stats.num_inserts += n

    def _drain(self) -> None:
        """Encode the records ``write`` took since the last drain."""
        if self._pending:
            records, keys, seqnos = self._pending, self._pending_keys, self._pending_seqnos
            self._pending, self._pending_keys, self._pending_seqnos = [], [], []
            self._encode_dicts(records, keys, seqnos or None)

    def _write_dicts(self, records: list, is_update: bool) -> None:
        admitted, keys = [], []
        refused = None
        for rec in records:
            try:
                r, k = self._admit(rec)
            except RecordError as e:
                refused = e
                break
            admitted.append(r)
            keys.append(k)
        if admitted:  # the records before a refused one are taken, as write() one by one takes them
            self._count(len(admitted), is_update)
            self._encode_dicts(admitted, keys)
        if refused is not None:
            raise refused

    def _encode_dicts(self, records: list, keys: list[str], seqnos: Optional[list[int]] = None) -> None:
        """Encode checked records a batch at a time; ``seqnos``: their sequence numbers if already
        drawn (``write`` draws each when it takes the record, as Hudi does), else drawn now."""
        nf = len(self._table_plans)
        if any(len(r) != nf for r in records):  # absent fields take their defaults, as fastavro's
            records = [r if len(r) == nf else {**self._defaults, **r} for r in records]
        try:
            table = pa.Table.from_pylist(records, schema=self._table_arrow_schema)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            # checked values pyarrow will not take as these types (e.g. a huge int for a double)
            for i, (r, k) in enumerate(zip(records, keys)):
                full = self._with_meta(r, k, seqnos[i] if seqnos else None)
                run = self._encode(full)
                self._buffer_records(run, [0, len(run)], None)
            return
        keys_array = pa.array(keys, pa.string())
        step = self._batch_rows(table)
        for start in range(0, table.num_rows, step):
            part = table.slice(start, step)
            columns = {name: one_chunk(part.column(name)) for name in part.column_names}
            self._encode_batch(columns, keys_array.slice(start, step), part.num_rows,
                               seqnos[start: start + step] if seqnos else None)

    def _batch_rows(self, table) -> int:
        """Rows per columnar pass: COLUMNAR_BATCH, fewer for wide records (an encoded record takes
        at most its Arrow size plus 11 bytes a field and its length prefix)."""
        if not table.num_rows:
            return COLUMNAR_BATCH
        per_row = table.nbytes / table.num_rows + 11 * len(self._plans) + grammar.AVRO_RECORD_PREFIX_SIZE
        return max(1, min(COLUMNAR_BATCH, int(COLUMNAR_BATCH_BYTES // per_row)))

    def _write_arrow(self, batch, is_update: bool) -> None:
        prepared = self._arrow_columns(batch)
        if prepared is None:  # not expressible as columns here: the dict path, with its exact errors
            self._write_dicts(list(iter_records(batch)), is_update)
            return
        columns, keys = prepared
        self._index += batch.num_rows
        self._count(batch.num_rows, is_update)
        self._encode_batch(columns, keys, batch.num_rows)

    def _arrow_columns(self, batch) -> Optional[tuple[dict, Any]]:
        """The batch's columns as the encoder takes them, checked as columns; None when a check
        fails or a column is of another type (the caller then goes record by record)."""
        names = [n for n in batch.schema.names if n not in self._meta_names]
        planned = {p.name for p in self._table_plans}
        if not set(names) <= planned or len(set(names)) != len(names):
            return None
        columns: dict[str, Any] = {}
        for p in self._table_plans:
            if p.name not in names:
                if not p.has_default:
                    return None
                columns[p.name] = columnar_encode.encode_constant(p, self._defaults[p.name])
                continue
            col = one_chunk(batch.column(p.name))
            if not columnar_encode.accepts(p, col.type):
                return None
            try:
                columns[p.name] = columnar_encode.prepare(p, col)
            except (columnar_encode.ColumnError, pa.ArrowException):
                return None
        keys = self._arrow_keys(batch)
        if keys is None:
            return None
        return columns, keys

    def _arrow_keys(self, batch):
        spec = self._key_spec
        if not isinstance(spec, str) or spec not in batch.schema.names:
            return None
        col = one_chunk(batch.column(spec))
        if pa.types.is_integer(col.type) or pa.types.is_boolean(col.type):
            col = col.cast(pa.string())  # Java's toString of a long / boolean
        elif pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            col = col.cast(pa.string())
        else:
            return None
        if col.null_count or pc.any(pc.equal(col, "")).as_py():
            return None
        return col

    def _encode_batch(self, columns: dict, keys, n: int, seqnos: Optional[list[int]] = None) -> None:
        if self.populate_meta_fields:
            if seqnos is None:
                first = self._seq.take(n)
                seq = pa.array(np.arange(first, first + n, dtype=np.int64)).cast(pa.string())
            else:
                seq = pa.array(seqnos, pa.int64()).cast(pa.string())
            columns[COMMIT_SEQNO] = pc.binary_join_element_wise(self._seqno_prefix, seq, "")
            columns[RECORD_KEY] = keys
        columns.update(self._meta_constants)
        encoded = columnar_encode.encode_table(self._plans, columns, n)
        self._buffer_records(encoded.span(0, n), encoded.offsets, None)

    # ---- buffering, with Hudi's block size estimate -----------------------------------------------
    def _block_cuts(self, offsets: Sequence[int]) -> list[int]:
        """Where Hudi's size estimate ends data blocks among records ``offsets[i]..offsets[i+1]`` long."""
        cuts, self._avg_size = block_cuts(offsets, self._avg_size, self._num_records, self.max_block_size)
        return cuts

    def _buffer_records(self, run, offsets: Sequence[int], rows: Optional[list]) -> None:
        """Take records encoded as they sit in a block's content (record i is
        ``run[offsets[i] - offsets[0]:offsets[i+1] - offsets[0]]``), writing data blocks where
        Hudi's estimate says so."""
        n = len(offsets) - 1
        cuts = self._block_cuts(offsets)
        mv = memoryview(run)
        base = offsets[0]
        prev = 0
        for cut in cuts + [n]:
            if cut > prev:
                self._chunks.append(mv[offsets[prev] - base: offsets[cut] - base])
                self._num_records += cut - prev
                if rows is not None:
                    self._rows.extend(rows[prev:cut])
                prev = cut
            if cut < n:
                self._append([self._data_block()])

    def delete(self, record_key: str, partition_path: Optional[str] = None, ordering_value: Any = 0) -> None:
        """Buffer a delete of ``record_key`` (written in the delete block at close)."""
        self._check_open()
        if record_key is None or record_key == "":
            raise RecordError(len(self._del_keys), None, "", "a delete needs a record key")
        pp = self.partition_path if partition_path is None else partition_path
        if isinstance(ordering_value, DeleteRecord):  # pragma: no cover - convenience
            d = ordering_value
        else:
            try:
                d = DeleteRecord.of(key_text(record_key), pp, ordering_value)
            except HudiLogError as e:
                raise RecordError(len(self._del_keys), record_key, "ordering_value", str(e)) from e
        self._del_keys.append(d.record_key)
        self._del_parts.append(d.partition_path)
        self._del_kinds.append(d.ordering_kind.value)
        self._del_values.append(d.ordering_value)
        self.stats.num_deletes += 1

    def delete_keys(self, record_keys: Sequence[Any], partition_path: Optional[str] = None) -> None:
        """Buffer deletes of ``record_keys`` carrying Hudi's default ordering value, IntWrapper 0: what
        ``delete(key, partition_path)`` does for each, at once (a delete operation's keys)."""
        self._check_open()
        keys = list(record_keys)
        if not set(map(type, keys)) <= {str}:  # as delete() takes them: Java's toString of other types
            keys = [None if k is None else key_text(k) for k in keys]
        if None in keys or "" in keys:
            at = next(i for i, k in enumerate(keys) if k is None or k == "")
            raise RecordError(len(self._del_keys) + at, None, "", "a delete needs a record key")
        pp = self.partition_path if partition_path is None else partition_path
        default_value, default_kind = DELETE_DEFAULT_ORDERING
        self._del_keys.extend(keys)
        self._del_parts.extend([pp] * len(keys))
        self._del_kinds.extend(bytes([default_kind.value]) * len(keys))
        self._del_values.extend([default_value] * len(keys))
        self.stats.num_deletes += len(keys)

    # ---- blocks --------------------------------------------------------------------------------
    def _header(self) -> dict:
        return {HeaderKey.instant_time: self.instant, HeaderKey.schema: self.schema_json}

    def _data_block(self) -> LogBlock:
        if self.block_format == "parquet":
            content = self._parquet_content()
            block = LogBlock.new(BlockType.parquet_data_block, self._header(), content)
        else:
            # the buffer already is the content's record run: only the framing is built
            block = framed_avro_block(BlockType.avro_data_block, self._header(), CONTENT_VERSION, self._num_records, self._chunks)
        self._chunks = []
        self._num_records = 0
        self._rows = []
        return block

    def _parquet_content(self) -> bytes:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist(self._rows, schema=self._arrow_schema)
        sink = io.BytesIO()
        pq.write_table(table, sink, compression="gzip", store_schema=False)
        return sink.getvalue()

    def _delete_block(self) -> LogBlock:
        # laid out in one pass and framed as it is (not parsed back through the generated codec)
        columns = DeleteColumns(self._del_keys, self._del_parts, bytes(self._del_kinds), self._del_values)
        self._del_keys, self._del_parts, self._del_kinds, self._del_values = [], [], bytearray(), []
        return framed_delete_block(self._header(), columns)

    def _append(self, blocks: list[LogBlock]) -> AppendResult:
        result = self.writer.append_blocks(blocks)
        self.stats.appends.append(result)
        self.stats.total_write_bytes += result.bytes_written
        self.stats.total_log_blocks += len(blocks)
        for b in blocks:
            if b.block_type == BlockType.delete_block:
                self.stats.delete_blocks += 1
            elif b.block_type == BlockType.command_block:
                self.stats.total_rollback_blocks += 1
            else:
                self.stats.data_blocks += 1
        name = str(result.log_file)
        if name not in self.stats.log_files:
            self.stats.log_files.append(name)
        return result

    def flush(self) -> Optional[AppendResult]:
        """Write the buffered records as a data block now (deletes still wait for close)."""
        self._check_open()
        self._drain()
        if not self._num_records:
            return None
        return self._append([self._data_block()])

    def rollback(self, target_instant: str, rollback_instant: Optional[str] = None) -> AppendResult:
        """Append a ROLLBACK command block for ``target_instant`` (table version < 8 only).

        Its INSTANT_TIME is ``rollback_instant`` (default: this handle's instant).
        """
        self._check_open()
        if self.table_version >= FIRST_NO_APPEND_TABLE_VERSION:
            raise AppendHandleError(
                f"table version {self.table_version} has no rollback blocks (Hudi 1.0+ deletes the failed log files)"
            )
        self._drain()
        return self._append([rollback_block(rollback_instant or self.instant, target_instant)])

    def close(self) -> WriteStats:
        """Append the last data block and the delete block (one batch), close, return the stats."""
        if self._closed:
            return self.stats
        try:
            self._drain()
            blocks = []
            if self._num_records:
                blocks.append(self._data_block())
            if self._del_keys:
                blocks.append(self._delete_block())
            if blocks:
                self._append(blocks)
        finally:
            self._closed = True
            self.writer.close()
        return self.stats

    def __enter__(self) -> "AppendHandle":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:  # do not write a half batch on error; what was appended stays
            self._closed = True
            self.writer.close()


