"""Column statistics of one data file, computed as Java computes them, and their ``HoodieMetadataColumnStats``
form.

Mirrors ``HoodieColumnRangeMetadata`` and its sources: a base Parquet file's footer statistics
(``ParquetUtils.readColumnStatsFromMetadata``: per row group and column chunk, min/max from the statistics,
null count, value count = the chunk's values nulls included, compressed and uncompressed sizes, summed over
row groups), and the records an append handle wrote to a log file (``collectColumnRangeMetadata``: min/max
of the non-null values, null and value counts, sizes 0). Which columns (``getColumnsToIndex``): the three
meta fields ``_hoodie_commit_time``, ``_hoodie_partition_path``, ``_hoodie_record_key`` when the table
populates meta fields, then ``hoodie.metadata.index.column.stats.column.list`` or the first
``hoodie.metadata.index.column.stats.max.columns.to.index`` (32) fields of the writer schema whose type can
be indexed (not records, arrays, maps, enums; a decimal only within ``DecimalWrapper``'s precision 30 and
scale 15; Java's rule for the Avro record type, which the corpus's tables show).

Values are typed as index version 2 (Hudi 1.1, table version 9) types them: a ``valueType`` of
``org.apache.hudi.stats.ValueType`` (its ordinal, and ``precision,scale`` for decimals) and the wrapper of its
primitive (a decimal as ``BytesWrapper`` of the unscaled two's-complement bytes at the column's own scale, a
date as ``IntWrapper`` of days, a timestamp as ``LongWrapper`` in its unit). Table version 8 (index version 1)
writes no ``valueType`` and wraps by Java class; only strings, longs and doubles of it are checked against
Java-written tables. Internally a value is a Python str, bool, int (decimals: the unscaled int), float or bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, timezone
import json
import re
from typing import Iterable, Mapping

from ...containment import within_table
from ...errors import ContentError
from ...format.grammar import BlockType
from ...format.reader import open_log
from ...parquet_io import read_parquet_metadata
from ..errors import TableError
from ..metadata_files import java_order

WRAPPER_NS = "org.apache.hudi.avro.model."
META_INDEXED = ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key")  # a TreeMap's order
META_ALL = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
            "_hoodie_file_name", "_hoodie_operation")
COLUMN_LIST = "hoodie.metadata.index.column.stats.column.list"
INDEX_DEFS = "hoodie.table.index.defs.path"
MAX_COLUMNS = "hoodie.metadata.index.column.stats.max.columns.to.index"
DEFAULT_MAX_COLUMNS = 32
DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE = 30, 15

# org.apache.hudi.stats.ValueType ordinals (Hudi 1.1)
(V1, NULL, BOOLEAN, INT, LONG, FLOAT, DOUBLE, STRING, BYTES, FIXED, DECIMAL, UUID, DATE, TIME_MILLIS,
 TIME_MICROS, TIMESTAMP_MILLIS, TIMESTAMP_MICROS, TIMESTAMP_NANOS, LOCAL_TIMESTAMP_MILLIS,
 LOCAL_TIMESTAMP_MICROS, LOCAL_TIMESTAMP_NANOS) = range(21)
_PRIMITIVE_WRAPPER = {BOOLEAN: "BooleanWrapper", INT: "IntWrapper", DATE: "IntWrapper", TIME_MILLIS: "IntWrapper",
                      FLOAT: "FloatWrapper", DOUBLE: "DoubleWrapper", STRING: "StringWrapper", UUID: "StringWrapper",
                      BYTES: "BytesWrapper", FIXED: "BytesWrapper", DECIMAL: "BytesWrapper"}
_LONGS = {LONG, TIME_MICROS, TIMESTAMP_MILLIS, TIMESTAMP_MICROS, TIMESTAMP_NANOS, LOCAL_TIMESTAMP_MILLIS,
          LOCAL_TIMESTAMP_MICROS, LOCAL_TIMESTAMP_NANOS}
_TS_UNITS = {"milliseconds": (TIMESTAMP_MILLIS, LOCAL_TIMESTAMP_MILLIS),
             "microseconds": (TIMESTAMP_MICROS, LOCAL_TIMESTAMP_MICROS),
             "nanoseconds": (TIMESTAMP_NANOS, LOCAL_TIMESTAMP_NANOS)}
_AVRO_LONG_LOGICAL = {"timestamp-millis": TIMESTAMP_MILLIS, "timestamp-micros": TIMESTAMP_MICROS,
                      "timestamp-nanos": TIMESTAMP_NANOS, "local-timestamp-millis": LOCAL_TIMESTAMP_MILLIS,
                      "local-timestamp-micros": LOCAL_TIMESTAMP_MICROS, "local-timestamp-nanos": LOCAL_TIMESTAMP_NANOS,
                      "time-micros": TIME_MICROS}


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class ColumnStatsError(TableError):
    """A data file's column statistics cannot be computed (names the file and what is wrong)."""


@dataclass(frozen=True)
class ValueKind:
    """How a column's values are typed in the index: ``ordinal`` of ValueType (None: read back from an
    index-version-1 record, which names no type), ``info`` (``precision,scale`` of a decimal) and the Avro
    wrapper record that carries them."""

    ordinal: int | None
    wrapper: str
    info: str | None = None

    @property
    def scale(self) -> int:
        return int(self.info.split(",")[1]) if self.info else 0


EMPTY_KIND = ValueKind(NULL, "StringWrapper")


@dataclass(frozen=True)
class ColumnRange:
    """``HoodieColumnRangeMetadata``: one column of one file (or, aggregated, of one partition)."""

    file_name: str
    column: str
    min: object
    max: object
    null_count: int
    value_count: int
    total_size: int
    total_uncompressed_size: int
    kind: ValueKind = EMPTY_KIND


def kind_of(ordinal: int, info: str | None, version: int) -> ValueKind:
    """The value kind of a ValueType ordinal for an index version (1: table version 8, 2: 9 on)."""
    if version < 2:  # the ordinal stays for combining; index version 1 writes none
        v1 = {DATE: "DateWrapper", DECIMAL: "DecimalWrapper", TIME_MICROS: "TimeMicrosWrapper",
              TIMESTAMP_MICROS: "TimestampMicrosWrapper"}
        return ValueKind(ordinal, v1.get(ordinal) or _PRIMITIVE_WRAPPER.get(ordinal) or "LongWrapper", info)
    wrapper = "LongWrapper" if ordinal in _LONGS else _PRIMITIVE_WRAPPER.get(ordinal, "StringWrapper")
    return ValueKind(ordinal, wrapper, info)


def index_version(props, table_path=None) -> int:
    """``HoodieIndexVersion`` of the table's column stats: the ``version`` of the column_stats index definition
    (``hoodie.table.index.defs.path``; a definition without one is V1, as the v8 corpus table's), else 2 from
    table version 9 on (valueType written) and 1 below."""
    rel = props.get(INDEX_DEFS)
    if table_path is not None and rel:
        path = within_table(table_path, rel, source=table_path, field=INDEX_DEFS)
        try:
            defs = json.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            defs = None
        except (OSError, ValueError) as e:
            raise ColumnStatsError(path, f"index definitions unreadable: {e}") from e
        cs = ((defs or {}).get("indexDefinitions") or {}).get("column_stats") if isinstance(defs, dict) else None
        if isinstance(cs, dict):
            m = re.fullmatch(r"[Vv](\d+)", str(cs.get("version") or "V1"))
            if not m:
                raise ColumnStatsError(path, f"column_stats index version {cs.get('version')!r} is not V<n>")
            return int(m.group(1))
    return 2 if props.version >= 9 else 1


# --- which columns ------------------------------------------------------------------------------------------

def _non_null(schema):
    if isinstance(schema, list):
        rest = [s for s in schema if s != "null"]
        return rest[0] if len(rest) == 1 else None
    return schema


def avro_kind(schema, version: int) -> ValueKind | None:
    """The value kind of an Avro field schema (``ValueType.fromSchema``); None where the type is not indexed."""
    s = _non_null(schema)
    if s is None:
        return None
    t = s if isinstance(s, str) else s.get("type")
    logical = None if isinstance(s, str) else s.get("logicalType")
    if isinstance(t, (dict, list)) or t in ("record", "array", "map", "enum", "null"):
        return None
    if logical == "decimal":
        p, sc = int(s.get("precision", 0)), int(s.get("scale", 0))
        if p + (DECIMAL_MAX_SCALE - sc) > DECIMAL_MAX_PRECISION or sc > DECIMAL_MAX_SCALE:
            return None
        return kind_of(DECIMAL, f"{p},{sc}", version)
    ordinal = {"boolean": BOOLEAN, "float": FLOAT, "double": DOUBLE, "bytes": BYTES, "fixed": FIXED,
               "string": UUID if logical == "uuid" else STRING}.get(t)
    if t == "int":
        ordinal = {"date": DATE, "time-millis": TIME_MILLIS}.get(logical, INT)
    elif t == "long":
        ordinal = _AVRO_LONG_LOGICAL.get(logical, LONG)
    return None if ordinal is None else kind_of(ordinal, None, version)


def columns_to_index(props, writer_schema: Mapping | None, options: Mapping | None = None,
                     version: int | None = None) -> dict[str, ValueKind]:
    """Column name -> value kind, in Java's order (``getColumnsToIndex``), for a writer schema (the data
    fields; meta fields are added as the table populates them)."""
    options = options or {}
    version = index_version(props) if version is None else version
    fields = {f["name"]: f["type"] for f in (writer_schema or {}).get("fields", [])}
    out: dict[str, ValueKind] = {}
    if props.populate_meta_fields:
        out = {m: kind_of(STRING, None, version) for m in META_INDEXED}
    listed = [c.strip() for c in str(options.get(COLUMN_LIST) or "").split(",") if c.strip()]
    if listed:
        for c in listed:
            k = avro_kind(fields[c], version) if c in fields and c not in META_INDEXED else None
            if k is not None:
                out[c] = k
        return out
    limit = int(options.get(MAX_COLUMNS) or DEFAULT_MAX_COLUMNS)
    n = 0
    for name, typ in fields.items():
        if name in META_ALL or n >= limit:
            continue
        k = avro_kind(typ, version)
        if k is not None:
            out[name] = k
            n += 1
    return out


# --- one file's ranges --------------------------------------------------------------------------------------

def _parquet_kind(physical: str, logical_json: str, version: int) -> ValueKind:
    lt = json.loads(logical_json or "{}")
    typ = lt.get("Type")
    if typ == "Decimal":
        return kind_of(DECIMAL, f"{lt['precision']},{lt['scale']}", version)
    if typ == "Timestamp":
        utc, local = _TS_UNITS.get(lt.get("timeUnit"), (LONG, LONG))
        return kind_of(utc if lt.get("isAdjustedToUTC") else local, None, version)
    named = {"String": STRING, "Enum": STRING, "Json": STRING, "Date": DATE, "UUID": UUID}.get(typ)
    if typ == "Time":
        named = TIME_MILLIS if lt.get("timeUnit") == "milliseconds" else TIME_MICROS
    if named is not None:
        return kind_of(named, None, version)
    return kind_of({"INT64": LONG, "INT32": INT, "BOOLEAN": BOOLEAN, "BYTE_ARRAY": BYTES, "FLOAT": FLOAT,
                    "DOUBLE": DOUBLE, "FIXED_LEN_BYTE_ARRAY": FIXED}.get(physical, BYTES), None, version)


def _parquet_value(raw, kind: ValueKind):
    if raw is None:
        return None
    if kind.ordinal == DECIMAL or kind.wrapper == "DecimalWrapper":
        return int.from_bytes(raw, "big", signed=True) if isinstance(raw, bytes) else int(raw)
    if kind.wrapper == "StringWrapper" and isinstance(raw, bytes):
        return raw.decode("utf-8", "replace")
    return raw


def _order(v):
    return java_order(v)  # Java's compareTo (metadata_files, which the merge rule shares)


def _lesser(a, b):
    return b if a is None else a if b is None else (a if _order(a) <= _order(b) else b)


def _greater(a, b):
    return b if a is None else a if b is None else (a if _order(a) >= _order(b) else b)


def parquet_ranges(path, columns: Iterable[str], version: int) -> list[ColumnRange]:
    """The columns' ranges from a base file's footer, summed over its row groups; a column the file lacks
    has none (Java reads only the columns it finds)."""
    wanted = set(columns)
    try:
        md = read_parquet_metadata(path)
    except Exception as e:  # the Parquet library's errors, named once here
        raise ColumnStatsError(path, f"base file footer unreadable: {type(e).__name__}: {e}") from e
    acc: dict[str, ColumnRange] = {}
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        for j in range(rg.num_columns):
            c = rg.column(j)
            name = c.path_in_schema
            if name not in wanted:
                continue
            kind = _parquet_kind(c.physical_type, md.schema.column(j).logical_type.to_json(), version)
            st = c.statistics
            has = st is not None and st.has_min_max
            lo = _parquet_value(st.min_raw, kind) if has else None
            hi = _parquet_value(st.max_raw, kind) if has else None
            if isinstance(lo, float):  # parquet-mr's reading builder: a NaN bound drops both, zeros are signed
                if lo != lo or hi != hi:
                    lo = hi = None
                else:
                    lo, hi = (-0.0 if lo == 0 else lo), (0.0 if hi == 0 else hi)
            nulls = int(st.null_count) if st is not None and st.has_null_count else 0
            r = ColumnRange(path.name, name, lo, hi, nulls, int(c.num_values), int(c.total_compressed_size),
                            int(c.total_uncompressed_size), kind)
            acc[name] = r if name not in acc else combine(acc[name], r)
    return list(acc.values())


def _record_value(v, kind: ValueKind):
    """A record's value as the index holds it: fastavro hands decimals, dates and timestamps over as Python
    objects (its logical types); Java's ValueType takes them back to their primitives."""
    if v is None:
        return None
    if kind.ordinal == DECIMAL or kind.wrapper == "DecimalWrapper":
        if isinstance(v, (bytes, bytearray)):
            return int.from_bytes(v, "big", signed=True)
        return int(v.scaleb(kind.scale))
    if isinstance(v, datetime):
        micros = ((v if v.tzinfo else v.replace(tzinfo=timezone.utc)) - _EPOCH) // timedelta(microseconds=1)
        return micros // 1000 if kind.ordinal in (TIMESTAMP_MILLIS, LOCAL_TIMESTAMP_MILLIS) else micros
    if isinstance(v, date):
        return (v - _EPOCH.date()).days
    if isinstance(v, time):
        micros = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
        return micros // 1000 if kind.ordinal == TIME_MILLIS else micros
    return v


def record_ranges(file_name: str, records: Iterable[Mapping], columns: Mapping[str, ValueKind],
                  version: int) -> list[ColumnRange]:
    """``collectColumnRangeMetadata``: the ranges of the records an append handle wrote (sizes 0); no record:
    every column empty (counts 0, valueType NULL)."""
    lo: dict = {}
    hi: dict = {}
    nulls = dict.fromkeys(columns, 0)
    n = 0
    for rec in records:
        n += 1
        for c, kind in columns.items():
            v = _record_value(rec.get(c), kind)
            if v is None:
                nulls[c] += 1
                continue
            lo[c] = _lesser(lo.get(c), v)
            hi[c] = _greater(hi.get(c), v)
    empty = kind_of(NULL, None, version)
    return [ColumnRange(file_name, c, lo.get(c), hi.get(c), nulls[c], n, 0, 0, kind if n else empty)
            for c, kind in columns.items()]


def column_ranges(file_name: str, table, columns: Mapping[str, ValueKind], version: int) -> list[ColumnRange]:
    """:func:`record_ranges` over an Arrow table of the records (a log block's columnar decode): min and max by
    Arrow for numbers, dates, times, decimals and strings within the BMP, whose orders are Java's there; floats
    (signed zeros, NaN last), bytes (signed) and strings past U+FFFF value by value in Java's order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = table.num_rows
    if n == 0:
        return record_ranges(file_name, [], columns, version)
    out = []
    for c, kind in columns.items():
        if c not in table.column_names:
            out.append(ColumnRange(file_name, c, None, None, n, n, 0, 0, kind))
            continue
        arr = table.column(c)
        by_value = pa.types.is_floating(arr.type) or pa.types.is_binary(arr.type) or \
            pa.types.is_large_binary(arr.type) or pa.types.is_fixed_size_binary(arr.type)
        if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
            # Arrow orders strings by code point, Java by UTF-16 unit: they differ past U+FFFF only
            by_value = bool(pc.any(pc.match_substring_regex(arr, "[\\x{10000}-\\x{10FFFF}]")).as_py())
        if by_value:
            lo = hi = None
            for v in arr.to_pylist():
                v = _record_value(v, kind)
                if v is not None:
                    lo, hi = _lesser(lo, v), _greater(hi, v)
        else:
            mm = pc.min_max(arr)
            lo, hi = _record_value(mm["min"].as_py(), kind), _record_value(mm["max"].as_py(), kind)
        out.append(ColumnRange(file_name, c, lo, hi, arr.null_count, n, 0, 0, kind))
    return out


def log_ranges(path, instant: str | None, columns: Mapping[str, ValueKind], version: int) -> list[ColumnRange]:
    """The ranges of the records an instant wrote to a log file: its data blocks of that instant (a
    version-6 log file is appended to by later instants; each commit's stats are of its own records).
    ``instant=None``: every data block (the partition's initialisation reads whole files)."""
    import pyarrow as pa

    tables = []
    try:
        for block in open_log(path):
            if block.corrupt or (instant is not None and block.instant_time != instant):
                continue
            if block.block_type in (BlockType.avro_data_block, BlockType.parquet_data_block):
                tables.append(block.to_arrow(columns=list(columns)))
    except ContentError as e:
        raise ColumnStatsError(path, f"log file unreadable: {e}") from e
    except OSError as e:
        raise ColumnStatsError(path, f"log file unreadable: {e}") from e
    if not tables:
        return record_ranges(path.name, [], columns, version)
    try:
        table = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # blocks of schemas that do not unify: value by value
        return record_ranges(path.name, [r for t in tables for r in t.to_pylist()], columns, version)
    return column_ranges(path.name, table, columns, version)


def file_ranges(table_path, partition: str, file_name: str, instant: str | None, columns: Mapping[str, ValueKind],
                version: int) -> list[ColumnRange]:
    """A data file's ranges: from the footer of a base Parquet file, from the records ``instant`` wrote to a log
    file (other files: none, as Java logs and skips them)."""
    path = within_table(table_path, f"{partition}/{file_name}" if partition else file_name,
                        source=table_path, field="partitionToWriteStats.path", timeline=False)
    if file_name.endswith(".parquet"):
        return parquet_ranges(path, columns, version)
    if ".log." in file_name:
        return log_ranges(path, instant, columns, version)
    return []


# --- combining ----------------------------------------------------------------------------------------------

def combine(a: ColumnRange, b: ColumnRange) -> ColumnRange:
    """``HoodieColumnRangeMetadata.merge``: the wider range, counts and sizes summed; an empty range (valueType
    NULL: a file with no records) takes the other's type."""
    kind = a.kind if b.kind.ordinal == NULL else b.kind if a.kind.ordinal == NULL else a.kind
    return ColumnRange(a.file_name, a.column, _lesser(a.min, b.min), _greater(a.max, b.max),
                       a.null_count + b.null_count, a.value_count + b.value_count, a.total_size + b.total_size,
                       a.total_uncompressed_size + b.total_uncompressed_size, kind)


_INTS = {INT, LONG, DATE, TIME_MILLIS} | _LONGS


def standardize(v, source: ValueKind, target: ValueKind):
    """A bound in the column's current type (``ValueMetadata.standardizeJavaTypeAndPromote``): numbers cast as
    Java casts them (a float to an integer truncated, a numeric string parsed), a decimal rescaled; a value the
    type cannot take raises ValueError (Java throws there too)."""
    if v is None or target.ordinal in (None, NULL) or source.ordinal == target.ordinal and source.info == target.info:
        return v
    t = target.ordinal
    if t in _INTS and t != DECIMAL:
        if isinstance(v, (bytes, bytearray)):
            raise ValueError(f"bytes cannot be a {t} bound")
        return int(v) if not isinstance(v, str) else int(v.strip())
    if t in (FLOAT, DOUBLE):
        return float(v)
    if t in (STRING, UUID):
        if isinstance(v, bool):  # ValueType.castToString: Java's toString of a boxed value
            return "true" if v else "false"
        if isinstance(v, int) and source.ordinal in (INT, LONG):
            return str(v)
        if not isinstance(v, str):
            raise ValueError(f"a {type(v).__name__} cannot be a string bound")
        return v
    if t == DECIMAL:
        if source.ordinal != DECIMAL:
            raise ValueError("only a decimal can be a decimal bound")
        shift = target.scale - source.scale
        if shift < 0 and v % 10 ** -shift:
            raise ValueError("a decimal bound does not fit the column's scale")
        return v * 10 ** shift if shift >= 0 else v // 10 ** -shift
    if t == BOOLEAN:
        if not isinstance(v, bool):
            raise ValueError(f"a {type(v).__name__} cannot be a boolean bound")
        return v
    if t in (BYTES, FIXED):
        return v.encode("utf-8") if isinstance(v, str) else bytes(v)
    return v


def partition_range(partition: str, ranges: Iterable[ColumnRange],
                    columns: Mapping[str, ValueKind] | None = None) -> dict[str, ColumnRange]:
    """Column -> the partition's range (``FileFormatUtils.getColumnRangeInPartition``), named by partition; with
    ``columns`` (the commit's columns to index) every file's bounds are first taken to the column's current type,
    which the partition's record then carries, as index version 2 does."""
    out: dict[str, ColumnRange] = {}
    for r in ranges:
        target = (columns or {}).get(r.column)
        if target is not None and r.kind.ordinal != NULL:
            try:
                r = replace(r, min=standardize(r.min, r.kind, target), max=standardize(r.max, r.kind, target),
                            kind=target)
            except ValueError as e:
                raise ColumnStatsError(r.file_name, f"column {r.column!r}: {e} (a partition's range needs one type)") \
                    from e
        r = replace(r, file_name=partition)
        out[r.column] = r if r.column not in out else combine(out[r.column], r)
    return out


# --- the HoodieMetadataColumnStats form ---------------------------------------------------------------------

def _wrap(value, kind: ValueKind):
    if value is None:
        return None
    if kind.wrapper == "BytesWrapper" and isinstance(value, int):  # BigDecimal.unscaledValue().toByteArray()
        value = value.to_bytes(max(1, (value + (value < 0)).bit_length() // 8 + 1), "big", signed=True)
    elif kind.wrapper == "DecimalWrapper":  # Avro's decimal(30,15) of the wrapper: at its scale, exactly
        from decimal import Decimal, localcontext
        with localcontext() as ctx:
            ctx.prec = 2 * DECIMAL_MAX_PRECISION  # quantize within the wrapper's 30 digits, never rounding
            value = Decimal(value).scaleb(-kind.scale).quantize(Decimal(1).scaleb(-DECIMAL_MAX_SCALE))
    return (WRAPPER_NS + kind.wrapper, {"value": value})


def to_payload(r: ColumnRange, *, deleted: bool = False, tight: bool = False, version: int = 2) -> dict:
    """The ``HoodieMetadataColumnStats`` dict of a range; a wrapped value is ``(full wrapper name, {"value": v})``,
    fastavro's notation for a union branch (the wrappers' fields alone would not say which)."""
    out = {"fileName": r.file_name, "columnName": r.column, "minValue": _wrap(r.min, r.kind),
           "maxValue": _wrap(r.max, r.kind), "valueCount": r.value_count, "nullCount": r.null_count,
           "totalSize": r.total_size, "totalUncompressedSize": r.total_uncompressed_size, "isDeleted": deleted,
           "isTightBound": tight}
    if version >= 2:
        out["valueType"] = {"typeOrdinal": r.kind.ordinal, "additionalInfo": r.kind.info}
    return out


def unwrap_value(v, kind: ValueKind):
    if isinstance(v, tuple):
        v = v[1]
    if v is None:
        return None
    v = v.get("value") if isinstance(v, Mapping) else v
    if kind.ordinal == DECIMAL and isinstance(v, (bytes, bytearray)):
        return int.from_bytes(v, "big", signed=True)
    if hasattr(v, "scaleb") and kind.ordinal == DECIMAL:  # a DecimalWrapper read back (else kept a Decimal)
        return int(v.scaleb(kind.scale))
    return v


def from_payload(stats: Mapping) -> ColumnRange:
    """A range from a ``ColumnStatsMetadata`` dict (as :func:`to_payload` makes or the metadata reader returns)."""
    vt = stats.get("valueType")
    # index version 1 names no type: the caller knows the column's (a wrapper read back names no branch)
    kind = kind_of(vt.get("typeOrdinal"), vt.get("additionalInfo"), 2) if vt else ValueKind(None, "", None)
    return ColumnRange(stats.get("fileName") or "", stats.get("columnName") or "",
                       unwrap_value(stats.get("minValue"), kind), unwrap_value(stats.get("maxValue"), kind),
                       stats.get("nullCount") or 0, stats.get("valueCount") or 0, stats.get("totalSize") or 0,
                       stats.get("totalUncompressedSize") or 0, kind)


def stub(file_name: str, column: str, version: int) -> ColumnRange:
    """``HoodieColumnRangeMetadata.stub``: the range a tombstone carries (counts -1, valueType NULL)."""
    return ColumnRange(file_name, column, None, None, -1, -1, -1, -1, kind_of(NULL, None, version))
