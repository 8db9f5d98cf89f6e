"""Record keys and partition paths of incoming rows, as Hudi's key generators compute them (``KeyGenUtils``,
``SimpleAvroKeyGenerator``, ``ComplexAvroKeyGenerator``, ``NonpartitionedAvroKeyGenerator``,
``TimestampBasedAvroKeyGenerator``, ``CustomAvroKeyGenerator`` and their Spark twins, which agree with them on
the types handled here).

Record keys:

* one record-key field: the value's text (Simple, NonPartitioned, TimestampBased, and Custom with one field).
  A null or empty key value is refused (Hudi: "recordKey value ... cannot be null or empty").
* several: ``f1:v1,f2:v2`` (Complex; NonPartitioned and Custom with several fields); ``__null__`` /
  ``__empty__`` for a null / empty part; all of them null or empty is refused.
* Complex with ONE field (HUDI-7001): ``f1:v1`` (FIELD_PREFIXED) or ``v1`` (VALUE_ONLY), see
  :func:`.keygen_config.single_field_encoding`.

Partition paths (``KeyGenUtils.getRecordPartitionPath`` / ``getPartitionPath``):

* the partition fields' values joined by ``/``; a null or empty value becomes ``__HIVE_DEFAULT_PARTITION__``;
  ``hoodie.datasource.write.partitionpath.urlencode=true`` escapes a value as Hive's ``escapePathName``
  (``PartitionPathEncodeUtils``: ``%XX`` for control characters and ``"#%'*/:=?\\{[]^`` and DEL);
  ``hive_style_partitioning`` writes ``field=value``; no partition fields → ``""``.
* timestamp-based fields: :mod:`.timestamp_keygen` (a null value is the epoch + 1 unit, never the default
  partition); the url encoding and hive prefix apply after.
* a partition path that :func:`hudi_log.containment.partition_path_problem` refuses is refused, after the url
  encoding and hive prefix (:data:`~hudi_log.containment.BAD_PARTITION_PATH`, vectorized): a segment starting
  with a dot (``..`` is Hudi's ``PartitionPathEncodeUtils.validateNoPathTraversal``; ``.``, ``...``,
  ``.hidden`` would be skipped by every lister, so their rows would vanish), a leading ``/`` (an absolute
  path), an empty segment, NUL.

Values print as Java's ``toString`` does: ``true``, ``1``, floats as ``Double.toString`` / ``Float.toString``,
decimals as ``BigDecimal.toString``; dates ``yyyy-MM-dd`` (Hudi converts the Avro date to a LocalDate),
timestamps and times by their Avro long. Bytes, lists, maps and structs are refused as key or partition values.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pt

from ...containment import BAD_PARTITION_PATH, partition_path_problem
from ..errors import RecordKeyError
from ..schema import java_number_string
from .timestamp_keygen import TimestampPartitioner, TimestampSpec

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
NULL_PLACEHOLDER, EMPTY_PLACEHOLDER = "__null__", "__empty__"
#: characters Hive's FileUtils.escapePathName (Hudi's PartitionPathEncodeUtils) writes as %XX
_ESCAPED = frozenset(chr(c) for c in range(1, 32)) | frozenset('"#%\'*/:=?\\\x7f{[]^')


def escape_path_name(value: str) -> str:
    """``PartitionPathEncodeUtils.escapePathName``: ``%XX`` (upper-case hex) for the characters Hive escapes."""
    if not any(c in _ESCAPED for c in value):
        return value
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in value)


def _text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _column(batch, name: str):
    col = batch.column(batch.schema.get_field_index(name))
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def _column_values(table_path, batch, name: str) -> list:
    """The column's values as the Java objects' text would be (None stays None)."""
    col = _column(batch, name)
    t = col.type
    if pt.is_date(t):
        return [None if v is None else v.isoformat() for v in col.to_pylist()]  # Hudi: LocalDate text
    if pt.is_timestamp(t) or pt.is_time(t):
        col = col.cast(pa.int64())  # the Avro long (millis / micros), as Hudi keys timestamps
    if pt.is_floating(t):
        single = pt.is_float32(t) or pt.is_float16(t)
        return [None if v is None else java_number_string(v, single) for v in col.to_pylist()]
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_fixed_size_binary(t) or pt.is_nested(t) or pt.is_dictionary(t):
        raise RecordKeyError(table_path, f"column {name!r} of type {t} cannot be a record key or partition field "
                             "(Java would key it by the object's identity, not its value)")
    return col.to_pylist()


def _column_text(batch, name: str):
    """The column's values as Java's toString prints them, as one Arrow string array, for the types where
    Arrow's cast prints the same (strings, integers, booleans); None for the others (the list path)."""
    col = _column(batch, name)
    t = col.type
    if pt.is_string(t) or pt.is_large_string(t) or pt.is_integer(t) or pt.is_boolean(t):
        return col.cast(pa.string())
    return None


def _null_or_empty(arr) -> bool:
    return arr.null_count > 0 or pc.any(pc.equal(arr, "")).as_py() is True


def partition_path_error(table_path, path: str, fields=()) -> RecordKeyError:
    """The refusal of a partition path made from data that :data:`BAD_PARTITION_PATH` matches."""
    made = f" (made from partition field(s) {', '.join(fields)})" if fields else ""
    return RecordKeyError(table_path, f"partition value: partition path {path!r}{made} "
                          f"{partition_path_problem(path) or 'is refused'}; refused before anything was written "
                          "(clean the value upstream, or write it url-encoded where that makes it a plain name)")


@dataclass(frozen=True)
class KeyGenerator:
    """One table's key generation. ``timestamp_fields`` maps the partition fields computed by the
    timestamp-based rules to their settings (TimestampBased: the first field; Custom: the ``:TIMESTAMP``
    ones). ``field_prefixed`` says how a Complex generator keys ONE field (HUDI-7001)."""
    table_path: str
    record_key_fields: tuple[str, ...]
    partition_fields: tuple[str, ...] = ()
    hive_style: bool = False
    url_encode: bool = False
    kind: str = "SIMPLE"  # SIMPLE, COMPLEX, NON_PARTITION, TIMESTAMP, CUSTOM (Hudi's KeyGeneratorType)
    field_prefixed: bool = False
    timestamp: TimestampSpec | None = None
    timestamp_fields: tuple[str, ...] = ()

    @property
    def prefixes_single_field(self) -> bool:
        """A one-field key is written ``field:value`` (Complex under FIELD_PREFIXED)."""
        return self.kind == "COMPLEX" and self.field_prefixed

    def record_keys(self, batch) -> list[str]:
        return self.record_key_array(batch).to_pylist()

    def check_columns(self, names, operation: str = "upsert") -> None:
        """The refusal of an input whose columns ``names`` lack a record key field, or a partition field
        where ``operation`` places rows (a delete may find its keys' partitions by the index): made on a
        driver from the input's schema, before any task (or the instant) starts, as each batch makes it."""
        names = set(names)
        missing = [f for f in self.record_key_fields if f not in names]
        if missing and operation != "delete_partition":
            raise RecordKeyError(self.table_path, f"the input has no record key column(s) {missing}")
        missing = [f for f in self.partition_fields if f not in names]
        if missing and operation not in ("delete", "delete_partition"):
            raise RecordKeyError(self.table_path, f"the input has no partition column(s) {missing}")

    def record_key_array(self, batch) -> pa.Array:
        """The record keys as one Arrow string array."""
        if any(f not in batch.schema.names for f in self.record_key_fields):
            self.check_columns(batch.schema.names)
        single = len(self.record_key_fields) == 1 and not self.prefixes_single_field
        if single:  # the common case as one vectorized cast
            arr = _column_text(batch, self.record_key_fields[0])
            if arr is not None and not _null_or_empty(arr):
                return arr
        cols = [_column_values(self.table_path, batch, f) for f in self.record_key_fields]
        out: list[str] = []
        for i, vals in enumerate(zip(*cols)):
            if single:
                v = vals[0]
                if v is None or v == "":
                    raise RecordKeyError(self.table_path, f"row {i}: record key field "
                                         f"{self.record_key_fields[0]!r} is null or empty")
                out.append(_text(v))
                continue
            if all(v is None or v == "" for v in vals):
                raise RecordKeyError(self.table_path, f"row {i}: every record key field "
                                     f"{list(self.record_key_fields)} is null or empty")
            out.append(",".join(f"{f}:" + (NULL_PLACEHOLDER if v is None else EMPTY_PLACEHOLDER if v == "" else _text(v))
                                for f, v in zip(self.record_key_fields, vals)))
        return pa.array(out, pa.string())

    def partition_paths(self, batch) -> list[str]:
        return self.partition_path_array(batch).to_pylist()

    def _segment(self, field: str, value: str) -> str:
        if self.url_encode:
            value = escape_path_name(value)
        return f"{field}={value}" if self.hive_style else value

    def partition_path_array(self, batch, check: bool = True) -> pa.Array:
        """Each row's partition path as one Arrow string array; ``check=False`` leaves the refusal of paths
        :data:`~hudi_log.containment.BAD_PARTITION_PATH` matches to the caller (a Spark pass, whose driver
        refuses them with one typed error instead of a Python worker's traceback)."""
        n = batch.num_rows
        if not self.partition_fields:
            return pa.repeat(pa.scalar("", pa.string()), n)
        if any(f not in batch.schema.names for f in self.partition_fields):
            self.check_columns([*batch.schema.names, *self.record_key_fields])
        texts = [None if f in self.timestamp_fields else _column_text(batch, f) for f in self.partition_fields]
        if all(t is not None for t in texts) and not self.url_encode:  # vectorized: text, default, hive prefix
            segs = []
            for f, t in zip(self.partition_fields, texts):
                t = pc.if_else(pc.fill_null(pc.equal(t, ""), True), DEFAULT_PARTITION, t)
                segs.append(pc.binary_join_element_wise(f"{f}=", t, "") if self.hive_style else t)
            joined = segs[0] if len(segs) == 1 else pc.binary_join_element_wise(*segs, "/")
            out = joined.cast(pa.string())
        else:
            columns = []
            for f in self.partition_fields:
                if f in self.timestamp_fields:
                    columns.append(self._timestamp_segments(batch, f))
                    continue
                columns.append([self._segment(f, DEFAULT_PARTITION if v is None or v == "" else _text(v))
                                for v in _column_values(self.table_path, batch, f)])
            out = pa.array(["/".join(segs) for segs in zip(*columns)], pa.string())
        if check:
            self._check_partition_paths(out)
        return out

    def _timestamp_segments(self, batch, field: str) -> list[str]:
        col = _column(batch, field)
        t = col.type
        if not (pt.is_integer(t) or pt.is_floating(t) or pt.is_decimal(t) or pt.is_string(t) or pt.is_large_string(t)):
            raise RecordKeyError(self.table_path, f"timestamp-based partition field {field!r} is of type {t}: "
                                 "hudi-log computes partitions of number and string columns only (Java's Avro and "
                                 "Spark row paths disagree on date and timestamp columns)")
        part = TimestampPartitioner(self.timestamp, self.table_path, field)
        cache: dict = {}
        out = []
        for i, v in enumerate(col.to_pylist()):
            s = cache.get(v)
            if s is None:
                s = cache[v] = self._segment(field, part.segment(v, i))
            out.append(s)
        return out

    def _check_partition_paths(self, paths: pa.Array) -> None:
        bad = pc.match_substring_regex(paths, BAD_PARTITION_PATH)
        if pc.any(bad).as_py():
            raise partition_path_error(self.table_path, paths.filter(bad)[0].as_py(), self.partition_fields)
