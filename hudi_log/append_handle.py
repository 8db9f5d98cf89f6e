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

import copy
import datetime
import decimal
import io
import itertools
import json
import math
import uuid
from collections import abc
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

import fastavro

from . import grammar
from .block import LogBlock
from .deletes import DeleteRecord, encode_delete_payload
from .errors import HudiLogError
from .grammar import BlockType, CommandBlockType, HeaderKey
from .log_file_name import make_write_token
from .log_writer import (
    DEFAULT_LOG_FILE_MAX_SIZE,
    FIRST_NO_APPEND_TABLE_VERSION,
    AppendResult,
    LogWriter,
)
from .storage import Storage

try:  # fastavro's compiled encoder entry point: no per-call schema handling
    from fastavro._write import write_data as _fastavro_write_data
except ImportError:  # pragma: no cover
    _fastavro_write_data = None

#: ``hoodie.logfile.data.block.max.size``
DEFAULT_MAX_BLOCK_SIZE = 256 * 1024 * 1024
#: Hudi re-estimates the average record size every this many records
RECORDS_PER_SIZE_ESTIMATE = 100
#: the content version every Hudi since 0.14 writes (Avro data and delete blocks)
CONTENT_VERSION = 3

COMMIT_TIME = "_hoodie_commit_time"
COMMIT_SEQNO = "_hoodie_commit_seqno"
RECORD_KEY = "_hoodie_record_key"
PARTITION_PATH = "_hoodie_partition_path"
FILE_NAME = "_hoodie_file_name"
META_FIELDS = (COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME)

BLOCK_FORMATS = ("avro", "parquet")

# JVM-wide in Hudi (an AtomicLong starting at 1); process-wide here.
_GLOBAL_SEQNO = itertools.count(1)


class AppendHandleError(HudiLogError):
    """The append handle cannot do what was asked (closed, wrong table version, bad schema)."""


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


# ================================================================================================
# Schemas


def meta_field_schemas() -> list[dict]:
    """The five meta fields as Hudi writes them into a writer schema."""
    return [{"name": n, "type": ["null", "string"], "doc": "", "default": None} for n in META_FIELDS]


def writer_schema(table_schema: Mapping) -> dict:
    """The table schema with the meta fields prepended (unchanged if it already starts with them)."""
    schema = copy.deepcopy(dict(table_schema))
    if schema.get("type") != "record":
        raise AppendHandleError(f"a table schema must be an Avro record, not {schema.get('type')!r}")
    fields = list(schema.get("fields", []))
    names = [f["name"] for f in fields]
    if tuple(names[: len(META_FIELDS)]) == META_FIELDS:
        return schema
    clash = [n for n in names if n in META_FIELDS]
    if clash:
        raise AppendHandleError(f"table schema has meta field(s) {clash} but not as the first five fields")
    schema["fields"] = meta_field_schemas() + fields
    # keep Hudi's key order: type, name, namespace, (doc), fields
    ordered = {k: schema[k] for k in ("type", "name", "namespace", "doc") if k in schema}
    ordered.update({k: v for k, v in schema.items() if k not in ordered})
    return ordered


def schema_json(schema: Mapping) -> str:
    """Compact JSON, as Hudi's SCHEMA header holds it."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def strip_meta_fields(schema: Mapping) -> dict:
    s = dict(schema)
    s["fields"] = [f for f in schema.get("fields", []) if f["name"] not in META_FIELDS]
    return s


# ---- record validation ----------------------------------------------------------------------------
class _Invalid(Exception):
    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message


_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_FLOAT32_MAX = 3.4028234663852886e38


def _describe(v: Any) -> str:
    r = repr(v)
    if len(r) > 60:
        r = r[:57] + "..."
    return f"{type(v).__name__} {r}"


def _type_name(s: Any) -> str:
    if isinstance(s, str):
        return s
    if isinstance(s, list):
        return " or ".join(_type_name(x) for x in s)
    if isinstance(s, dict):
        lt = s.get("logicalType")
        base = s.get("name") or s.get("type")
        return f"{base} ({lt})" if lt else str(base)
    return str(s)


class _Validator:
    """Checks Python values against a (fastavro-parsed) Avro schema, strictly.

    fastavro's encoder is lenient in places (it truncates 1.5 into an int field, wraps ints out of
    range, turns "1.0" into a float, writes any truthy value as a boolean and drops values of
    "null" fields), so records are checked here first; fastavro then only encodes.
    """

    def __init__(self, named: dict):
        self.named = named
        self.compiled: dict[str, Callable] = {}

    def compile(self, s: Any, path: str) -> Callable[[Any, str], None]:
        if isinstance(s, list):
            return self._union(s, path)
        if isinstance(s, str):
            if s in _PRIMITIVE_CHECKS:
                return _PRIMITIVE_CHECKS[s]
            return self._named(s)
        t = s.get("type")
        lt = s.get("logicalType")
        if t == "record" or t == "error":
            return self._record(s)
        if t == "enum":
            symbols = frozenset(s["symbols"])

            def check_enum(v, p, symbols=symbols, name=s.get("name")):
                if not isinstance(v, str) or v not in symbols:
                    raise _Invalid(p, f"expected a symbol of enum {name}, got {_describe(v)}")
            return check_enum
        if t == "fixed":
            size = s["size"]
            if lt == "decimal":
                return _decimal_check(s.get("precision"), s.get("scale", 0), size)

            def check_fixed(v, p, size=size):
                if not isinstance(v, (bytes, bytearray, memoryview)) or len(v) != size:
                    raise _Invalid(p, f"expected {size} bytes (fixed), got {_describe(v)}")
            return check_fixed
        if t == "array":
            item = self.compile(s["items"], path + "[]")

            def check_array(v, p, item=item):
                if not isinstance(v, (list, tuple)):
                    raise _Invalid(p, f"expected an array (list), got {_describe(v)}")
                for i, x in enumerate(v):
                    item(x, f"{p}[{i}]")
            return check_array
        if t == "map":
            value = self.compile(s["values"], path + "{}")

            def check_map(v, p, value=value):
                if not _is_mapping(v):
                    raise _Invalid(p, f"expected a map (dict), got {_describe(v)}")
                for k, x in v.items():
                    if not isinstance(k, str):
                        raise _Invalid(p, f"map keys must be strings, got {_describe(k)}")
                    value(x, f"{p}[{k!r}]")
            return check_map
        if lt is not None and (t, lt) in _LOGICAL_CHECKS:
            if lt == "decimal":
                return _decimal_check(s.get("precision"), s.get("scale", 0), None)
            return _LOGICAL_CHECKS[(t, lt)]
        if isinstance(t, (str, list, dict)):
            return self.compile(t, path)
        raise AppendHandleError(f"unsupported schema at {path}: {s!r}")

    def _named(self, name: str) -> Callable:
        if name not in self.named:
            raise AppendHandleError(f"unknown Avro type {name!r}")
        if name not in self.compiled:
            # placeholder first, so recursive types terminate
            holder: list[Callable] = []
            self.compiled[name] = lambda v, p: holder[0](v, p)
            holder.append(self.compile(self.named[name], name))
            self.compiled[name] = holder[0]
        return self.compiled[name]

    def _union(self, branches: list, path: str) -> Callable:
        checks = [(b, self.compile(b, path)) for b in branches]
        non_null = [(b, c) for b, c in checks if b != "null"]
        if "null" in branches and len(non_null) == 1:
            only = non_null[0][1]

            def check_nullable(v, p, only=only):
                if v is not None:
                    only(v, p)
            return check_nullable
        names = _type_name(branches)

        def check_union(v, p, checks=checks, names=names):
            for _b, c in checks:
                try:
                    c(v, p)
                    return
                except _Invalid:
                    continue
            raise _Invalid(p, f"{_describe(v)} matches none of {names}")
        return check_union

    def _record(self, s: dict) -> Callable:
        fields = []
        for f in s["fields"]:
            has_default = "default" in f
            fields.append((f["name"], self.compile(f["type"], f["name"]), has_default))
        names = frozenset(f[0] for f in fields)
        rname = s.get("name")

        def check_record(v, p, fields=fields, names=names, rname=rname):
            if not _is_mapping(v):
                raise _Invalid(p, f"expected a record {rname} (dict), got {_describe(v)}")
            present = 0
            for name, check, has_default in fields:
                if name in v:
                    present += 1
                    check(v[name], name if not p else f"{p}.{name}")
                elif not has_default:
                    raise _Invalid(f"{p}.{name}" if p else name, "missing, and the schema gives no default")
            if len(v) != present:
                extra = sorted(str(k) for k in v if k not in names)
                raise _Invalid(p, f"field(s) {extra} are not in the schema of record {rname}")
        return check_record


def _is_mapping(v) -> bool:
    return type(v) is dict or isinstance(v, abc.Mapping)


def _check_null(v, p):
    if v is not None:
        raise _Invalid(p, f"expected null, got {_describe(v)}")


def _check_boolean(v, p):
    if not isinstance(v, bool):
        raise _Invalid(p, f"expected a boolean, got {_describe(v)}")


def _int_check(bounds, name):
    lo, hi = bounds

    def check(v, p):
        if not isinstance(v, int) or isinstance(v, bool):
            raise _Invalid(p, f"expected {name}, got {_describe(v)}")
        if not lo <= v <= hi:
            raise _Invalid(p, f"{v} is out of range for Avro {name}")
    return check


_check_int = _int_check(_INT32, "int")
_check_long = _int_check(_INT64, "long")


def _check_float(v, p):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise _Invalid(p, f"expected float, got {_describe(v)}")
    if isinstance(v, int) or math.isfinite(v):
        if abs(v) > _FLOAT32_MAX:
            raise _Invalid(p, f"{v} does not fit a float (32-bit)")


def _check_double(v, p):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise _Invalid(p, f"expected double, got {_describe(v)}")
    if isinstance(v, int) and abs(v) > 1.7976931348623157e308:
        raise _Invalid(p, f"{v} does not fit a double")


def _check_bytes(v, p):
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise _Invalid(p, f"expected bytes, got {_describe(v)}")


def _check_string(v, p):
    if not isinstance(v, str):
        raise _Invalid(p, f"expected string, got {_describe(v)}")


_PRIMITIVE_CHECKS = {
    "null": _check_null, "boolean": _check_boolean, "int": _check_int, "long": _check_long,
    "float": _check_float, "double": _check_double, "bytes": _check_bytes, "string": _check_string,
}


def _or_type(base, types, what):
    def check(v, p):
        if isinstance(v, types) and not isinstance(v, bool):
            return
        base(v, p)
    check.__name__ = what
    return check


def _check_date(v, p):
    if isinstance(v, datetime.datetime):
        raise _Invalid(p, f"expected a date, got {_describe(v)}")
    if isinstance(v, datetime.date):
        return
    _check_int(v, p)


def _decimal_check(precision, scale, size):
    def check(v, p):
        if isinstance(v, (bytes, bytearray, memoryview)):
            if size is not None and len(v) != size:
                raise _Invalid(p, f"expected {size} bytes (decimal fixed), got {len(v)}")
            return
        if not isinstance(v, decimal.Decimal):
            raise _Invalid(p, f"expected a Decimal, got {_describe(v)}")
        if not v.is_finite():
            raise _Invalid(p, f"{v} is not a finite decimal")
        sign, digits, exp = v.as_tuple()
        if -exp > scale:
            raise _Invalid(p, f"{v} has more than {scale} decimal places")
        if precision is not None and len(digits) + (exp + scale if exp + scale > 0 else 0) > precision:
            raise _Invalid(p, f"{v} has more than {precision} digits")
    return check


_LOGICAL_CHECKS = {
    ("int", "date"): _check_date,
    ("int", "time-millis"): _or_type(_check_int, (datetime.time,), "time-millis"),
    ("long", "time-micros"): _or_type(_check_long, (datetime.time,), "time-micros"),
    ("long", "timestamp-millis"): _or_type(_check_long, (datetime.datetime,), "timestamp-millis"),
    ("long", "timestamp-micros"): _or_type(_check_long, (datetime.datetime,), "timestamp-micros"),
    ("long", "local-timestamp-millis"): _or_type(_check_long, (datetime.datetime,), "local-timestamp-millis"),
    ("long", "local-timestamp-micros"): _or_type(_check_long, (datetime.datetime,), "local-timestamp-micros"),
    ("string", "uuid"): _or_type(_check_string, (uuid.UUID,), "uuid"),
    ("bytes", "decimal"): None,  # built by _decimal_check with the schema's precision and scale
}


# ---- Avro <-> Arrow schemas -------------------------------------------------------------------------
def avro_to_arrow_schema(schema: Mapping):
    """The Arrow schema of a Parquet data block for an Avro record schema (nullable unions → nullable)."""
    import pyarrow as pa

    named: dict[str, Any] = {}

    def conv(s, ns) -> tuple[Any, bool]:
        if isinstance(s, list):
            non_null = [b for b in s if b != "null"]
            if len(non_null) != 1:
                raise AppendHandleError(f"Parquet blocks cannot hold the union {s!r}")
            t, _ = conv(non_null[0], ns)
            return t, "null" in s
        if isinstance(s, str):
            prim = {
                "null": pa.null(), "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(),
                "float": pa.float32(), "double": pa.float64(), "bytes": pa.binary(), "string": pa.string(),
            }
            if s in prim:
                return prim[s], s == "null"
            key = s if s in named else (f"{ns}.{s}" if ns else s)
            if key not in named:
                raise AppendHandleError(f"unknown Avro type {s!r}")
            return named[key], False
        t = s.get("type")
        lt = s.get("logicalType")
        if t in ("record", "enum", "fixed"):
            full = s["name"] if "." in s["name"] or not (s.get("namespace") or ns) else f"{s.get('namespace') or ns}.{s['name']}"
        if t == "record":
            inner_ns = full.rsplit(".", 1)[0] if "." in full else None
            fields = []
            for f in s["fields"]:
                ft, nullable = conv(f["type"], inner_ns)
                fields.append(pa.field(f["name"], ft, nullable=nullable))
            named[full] = pa.struct(fields)
            return named[full], False
        if t == "enum":
            named[full] = pa.string()
            return pa.string(), False
        if t == "fixed":
            named[full] = pa.decimal128(s["precision"], s.get("scale", 0)) if lt == "decimal" else pa.binary(s["size"])
            return named[full], False
        if t == "array":
            it, nullable = conv(s["items"], ns)
            return pa.list_(pa.field("element", it, nullable=nullable)), False
        if t == "map":
            vt, nullable = conv(s["values"], ns)
            return pa.map_(pa.string(), pa.field("value", vt, nullable=nullable)), False
        logical = {
            ("int", "date"): pa.date32(),
            ("int", "time-millis"): pa.time32("ms"),
            ("long", "time-micros"): pa.time64("us"),
            ("long", "timestamp-millis"): pa.timestamp("ms", tz="UTC"),
            ("long", "timestamp-micros"): pa.timestamp("us", tz="UTC"),
            ("long", "local-timestamp-millis"): pa.timestamp("ms"),
            ("long", "local-timestamp-micros"): pa.timestamp("us"),
            ("string", "uuid"): pa.string(),
        }
        if lt == "decimal" and t == "bytes":
            return pa.decimal128(s["precision"], s.get("scale", 0)), False
        if (t, lt) in logical:
            return logical[(t, lt)], False
        return conv(t, ns)

    if schema.get("type") != "record":
        raise AppendHandleError("a Parquet block schema must be a record")
    struct, _ = conv(dict(schema), schema.get("namespace"))
    return pa.schema(list(struct))


def arrow_to_avro_schema(arrow_schema, name: str = "record", namespace: Optional[str] = None) -> dict:
    """An Avro record schema for an Arrow schema, every field ``["null", T]`` default null (Hudi's style)."""
    import pyarrow.types as pt

    def conv(t, fname: str, ns: str):
        if pt.is_boolean(t):
            return "boolean"
        if pt.is_int8(t) or pt.is_int16(t) or pt.is_int32(t) or pt.is_uint8(t) or pt.is_uint16(t):
            return "int"
        if pt.is_int64(t) or pt.is_uint32(t):
            return "long"
        if pt.is_float16(t) or pt.is_float32(t):
            return "float"
        if pt.is_float64(t):
            return "double"
        if pt.is_string(t) or pt.is_large_string(t):
            return "string"
        if pt.is_binary(t) or pt.is_large_binary(t):
            return "bytes"
        if pt.is_fixed_size_binary(t):
            return {"type": "fixed", "name": fname, "namespace": ns, "size": t.byte_width}
        if pt.is_date32(t) or pt.is_date64(t):
            return {"type": "int", "logicalType": "date"}
        if pt.is_timestamp(t):
            unit = "millis" if t.unit in ("s", "ms") else "micros"
            kind = "timestamp" if t.tz is not None else "local-timestamp"
            return {"type": "long", "logicalType": f"{kind}-{unit}"}
        if pt.is_time32(t):
            return {"type": "int", "logicalType": "time-millis"}
        if pt.is_time64(t):
            return {"type": "long", "logicalType": "time-micros"}
        if pt.is_decimal(t):
            return {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}
        if pt.is_list(t) or pt.is_large_list(t):
            return {"type": "array", "items": nullable(conv(t.value_type, fname, ns))}
        if pt.is_map(t):
            return {"type": "map", "values": nullable(conv(t.item_type, fname, ns))}
        if pt.is_struct(t):
            return {
                "type": "record", "name": fname, "namespace": ns,
                "fields": [
                    {"name": f.name, "type": nullable(conv(f.type, f.name, f"{ns}.{fname}")), "default": None}
                    for f in t
                ],
            }
        if pt.is_dictionary(t):
            return conv(t.value_type, fname, ns)
        raise AppendHandleError(f"no Avro type for Arrow type {t} (field {fname!r})")

    def nullable(avro_t):
        return ["null", avro_t]

    ns = namespace if namespace is not None else f"hoodie.{name}"
    fields = [
        {"name": f.name, "type": nullable(conv(f.type, f.name, ns)), "default": None}
        for f in arrow_schema
        if f.name not in META_FIELDS
    ]
    return {"type": "record", "name": f"{name}_record", "namespace": ns, "fields": fields}


# ================================================================================================
# The handle


@dataclass
class WriteStats:
    """What one append handle wrote: the basis of a commit's write stat for this file group."""

    file_id: str
    partition_path: str
    instant: str
    base_instant: str
    log_files: list[str] = field(default_factory=list)
    appends: list[AppendResult] = field(default_factory=list)
    num_writes: int = 0
    num_inserts: int = 0
    num_update_writes: int = 0
    num_deletes: int = 0
    total_write_bytes: int = 0
    total_log_blocks: int = 0
    total_rollback_blocks: int = 0
    data_blocks: int = 0
    delete_blocks: int = 0

    @property
    def path(self) -> Optional[str]:
        """The last log file, relative to the table base path."""
        if not self.log_files:
            return None
        return f"{self.partition_path}/{self.log_files[-1]}" if self.partition_path else self.log_files[-1]

    @property
    def log_version(self) -> Optional[int]:
        return self.appends[-1].log_file.version if self.appends else None

    @property
    def log_offset(self) -> Optional[int]:
        return self.appends[-1].start_offset if self.appends else None

    def hudi_write_stat(self, base_file: str = "") -> dict:
        """This file group's entry of ``partitionToWriteStats`` in Hudi's commit metadata."""
        return {
            "fileId": self.file_id,
            "path": self.path,
            "cdcStats": None,
            "prevCommit": self.base_instant,
            "numWrites": self.num_writes,
            "numDeletes": self.num_deletes,
            "numUpdateWrites": self.num_update_writes,
            "numInserts": self.num_inserts,
            "totalWriteBytes": self.total_write_bytes,
            "totalWriteErrors": 0,
            "tempPath": None,
            "partitionPath": self.partition_path,
            "totalLogRecords": 0,
            "totalLogFilesCompacted": 0,
            "totalLogSizeCompacted": 0,
            "totalUpdatedRecordsCompacted": 0,
            "totalLogBlocks": 0,
            "totalCorruptLogBlock": 0,
            "totalRollbackBlocks": 0,
            "fileSizeInBytes": self.total_write_bytes,
            "minEventTime": None,
            "maxEventTime": None,
            "logVersion": self.log_version,
            "logOffset": self.log_offset,
            "baseFile": base_file,
            "logFiles": list(self.log_files),
        }


RecordKeyField = Union[str, Sequence[str], Callable[[Mapping[str, Any]], Any]]


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
        self._seq = itertools.count(seqno_start) if seqno_start is not None else _GLOBAL_SEQNO

        self.table_schema = strip_meta_fields(table_schema)
        self.schema = writer_schema(self.table_schema) if populate_meta_fields else dict(table_schema)
        self.schema_json = schema_json(self.schema)
        try:
            self._named: dict = {}
            self._parsed = fastavro.parse_schema(self.schema, self._named)
            _binary_defaults_to_bytes(self._parsed, self._named)
            tnamed: dict = {}
            tparsed = fastavro.parse_schema(self.table_schema, tnamed, _write_hint=False)
        except Exception as e:
            raise AppendHandleError(f"invalid Avro schema: {e}") from e
        self._check_record = _Validator(tnamed).compile(tparsed, "")
        self._field_names = [f["name"] for f in self.table_schema["fields"]]
        self._meta_names = frozenset(META_FIELDS) if populate_meta_fields else frozenset()
        self._key_of = self._key_extractor(record_key_field)
        self._encode_opts = {"strict": False, "strict_allow_default": False, "disable_tuple_notation": True}
        self._arrow_schema = avro_to_arrow_schema(self.schema) if block_format == "parquet" else None

        self.writer = LogWriter(
            log_dir if log_dir is not None else self.storage.join(base_path, self.partition_path),
            file_id, self.base_instant, table_version=table_version, write_token=self.write_token,
            size_threshold=log_file_max_size, storage=self.storage, version=log_version,
        )
        # buffer of the current data block
        self._buf = bytearray()
        self._ends: list[int] = []
        self._rows: list[dict] = []  # Parquet blocks: the full records
        self._deletes: list[DeleteRecord] = []
        # Hudi's size estimation state
        self._avg_size: Optional[int] = None
        self._num_records = 0
        self._index = 0
        self._closed = False
        self.stats = WriteStats(file_id, self.partition_path, instant, self.base_instant)

    # ---- keys ----------------------------------------------------------------------------------
    def _key_extractor(self, spec: RecordKeyField) -> Callable[[Mapping[str, Any]], Any]:
        if callable(spec):
            return spec
        fields = [spec] if isinstance(spec, str) else list(spec)
        if not fields:
            raise AppendHandleError("record_key_field names no field")
        missing = [f for f in fields if f not in self._field_names]
        if missing:
            raise AppendHandleError(f"record key field(s) {missing} are not in the table schema")
        if len(fields) == 1:
            only = fields[0]
            return lambda r: r.get(only)
        # ComplexKeyGenerator: "f1:v1,f2:v2"
        def complex_key(r):
            parts = []
            for f in fields:
                v = r.get(f)
                if v is None or v == "":
                    return None
                parts.append(f"{f}:{_key_text(v)}")
            return ",".join(parts)
        return complex_key

    # ---- records -------------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise AppendHandleError(f"append handle for {self.file_id} @ {self.instant} is closed")

    def write(self, record: Mapping[str, Any], *, is_update: bool = True) -> None:
        """Buffer one record (flushing a data block first when the buffer is full)."""
        self._check_open()
        index = self._index  # counts every record handed in, refused ones too
        self._index += 1
        if not _is_mapping(record):
            raise RecordError(index, None, "", f"a record must be a dict, not {type(record).__name__}")
        try:
            key = self._key_of(record)
        except Exception as e:
            raise RecordError(index, None, "", f"cannot compute its record key: {e}") from e
        if key is None or key == "":
            raise RecordError(index, None, "", "record key is missing (null or empty)")
        key = _key_text(key)
        if not self._meta_names.isdisjoint(record.keys()):
            # meta fields in the input (e.g. rows read from a Hudi table) are Hudi's to fill
            record = {k: v for k, v in record.items() if k not in self._meta_names}
        try:
            self._check_record(record, "")
        except _Invalid as e:
            raise RecordError(index, key, e.path, e.message) from None
        full = self._with_meta(record, key) if self.populate_meta_fields else dict(record)
        # encode now: the bytes are the size estimate, and nothing can fail at flush time
        start = len(self._buf)
        try:
            self._encode(full)
        except Exception as e:  # validated above, so this is a safety net
            del self._buf[start:]
            raise RecordError(index, key, "", f"cannot be encoded: {type(e).__name__}: {e}") from e
        size = len(self._buf) - start + 4
        # Hudi: estimate, maybe flush (before this record joins the buffer), then buffer it
        if self._avg_size is None:
            self._avg_size = size
        limit = self.max_block_size // max(self._avg_size, 1)
        if self._num_records >= limit or self._num_records % RECORDS_PER_SIZE_ESTIMATE == 0:
            self._avg_size = max(int(self._avg_size * 0.8 + size * 0.2), 1)
        if self._num_records >= self.max_block_size // self._avg_size and self._ends:
            pending = bytes(self._buf[start:])
            del self._buf[start:]
            self._append([self._data_block()])
            self._num_records = 0
            self._buf += pending
        self._ends.append(len(self._buf))
        if self.block_format == "parquet":
            self._rows.append(full)
        self._num_records += 1
        self.stats.num_writes += 1
        if is_update:
            self.stats.num_update_writes += 1
        else:
            self.stats.num_inserts += 1

    def write_all(self, records: Iterable[Mapping[str, Any]] | Any, *, is_update: bool = True) -> int:
        """Buffer many records: dicts, or a pyarrow RecordBatch / Table. Returns how many."""
        n = 0
        for rec in _iter_records(records):
            self.write(rec, is_update=is_update)
            n += 1
        return n

    def _with_meta(self, record: Mapping[str, Any], key: str) -> dict:
        full = dict(record)  # the encoder follows the schema's field order, not the dict's
        full[COMMIT_TIME] = self.instant
        full[COMMIT_SEQNO] = f"{self.instant}_{self.task_partition_id}_{next(self._seq)}"
        full[RECORD_KEY] = key
        full[PARTITION_PATH] = self.partition_path
        full[FILE_NAME] = self.file_id
        return full

    def _encode(self, full: dict) -> None:
        if _fastavro_write_data is not None:
            _fastavro_write_data(self._buf, full, self._parsed, self._named, "", self._encode_opts)
        else:  # pragma: no cover
            b = io.BytesIO()
            fastavro.schemaless_writer(b, self._parsed, full, disable_tuple_notation=True)
            self._buf += b.getvalue()

    def delete(self, record_key: str, partition_path: Optional[str] = None, ordering_value: Any = 0) -> None:
        """Buffer a delete of ``record_key`` (written in the delete block at close)."""
        self._check_open()
        if record_key is None or record_key == "":
            raise RecordError(len(self._deletes), None, "", "a delete needs a record key")
        pp = self.partition_path if partition_path is None else partition_path
        if isinstance(ordering_value, DeleteRecord):  # pragma: no cover - convenience
            self._deletes.append(ordering_value)
        else:
            try:
                self._deletes.append(DeleteRecord.of(_key_text(record_key), pp, ordering_value))
            except HudiLogError as e:
                raise RecordError(len(self._deletes), record_key, "ordering_value", str(e)) from e
        self.stats.num_deletes += 1

    # ---- blocks --------------------------------------------------------------------------------
    def _header(self) -> dict:
        return {HeaderKey.instant_time: self.instant, HeaderKey.schema: self.schema_json}

    def _data_block(self) -> LogBlock:
        if self.block_format == "parquet":
            content = self._parquet_content()
            block = LogBlock.new(BlockType.parquet_data_block, self._header(), content)
        else:
            mv = memoryview(self._buf)
            datums = []
            prev = 0
            for end in self._ends:
                datums.append(mv[prev:end])
                prev = end
            try:
                content = grammar.avro_data_content(CONTENT_VERSION, datums)
            finally:
                del datums
                try:
                    mv.release()
                except BufferError:  # a slice is still referenced (e.g. by a traceback)
                    pass
            block = LogBlock.new(BlockType.avro_data_block, self._header(), content)
        self._buf = bytearray()
        self._ends = []
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
        payload = encode_delete_payload(self._deletes)
        self._deletes = []
        return LogBlock.new(BlockType.delete_block, self._header(), grammar.delete_content(CONTENT_VERSION, payload))

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
        if not self._ends:
            return None
        result = self._append([self._data_block()])
        self._num_records = 0
        return result

    def rollback(self, target_instant: str, rollback_instant: Optional[str] = None) -> AppendResult:
        """Append a ROLLBACK command block for ``target_instant`` (table version < 8 only).

        Its INSTANT_TIME is ``rollback_instant`` (default: this handle's instant).
        """
        self._check_open()
        if self.table_version >= FIRST_NO_APPEND_TABLE_VERSION:
            raise AppendHandleError(
                f"table version {self.table_version} has no rollback blocks (Hudi 1.0+ deletes the failed log files)"
            )
        return self._append([rollback_block(rollback_instant or self.instant, target_instant)])

    def close(self) -> WriteStats:
        """Append the last data block and the delete block (one batch), close, return the stats."""
        if self._closed:
            return self.stats
        try:
            blocks = []
            if self._ends:
                blocks.append(self._data_block())
            if self._deletes:
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


def _binary_defaults_to_bytes(parsed: Any, named: dict) -> None:
    """Avro JSON gives bytes/fixed defaults as ISO-8859-1 strings; fastavro would write them as str."""
    seen: set[int] = set()

    def is_binary(t) -> bool:
        if isinstance(t, list):
            return bool(t) and is_binary(t[0])  # a union's default belongs to its first branch
        if isinstance(t, str):
            return t == "bytes" or (t in named and isinstance(named[t], dict) and named[t].get("type") == "fixed")
        return isinstance(t, dict) and t.get("type") in ("bytes", "fixed")

    def walk(t) -> None:
        if isinstance(t, list):
            for b in t:
                walk(b)
        elif isinstance(t, str):
            if t in named:
                walk(named[t])
        elif isinstance(t, dict) and id(t) not in seen:
            seen.add(id(t))
            if t.get("type") == "record":
                for f in t.get("fields", []):
                    if isinstance(f.get("default"), str) and is_binary(f["type"]):
                        f["default"] = f["default"].encode("latin-1")
                    walk(f["type"])
            elif t.get("type") == "array":
                walk(t["items"])
            elif t.get("type") == "map":
                walk(t["values"])

    walk(parsed)


def _key_text(v: Any) -> str:
    """A key value as Java's toString would print the common types."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _iter_records(records) -> Iterable[Mapping[str, Any]]:
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None and isinstance(records, (pa.RecordBatch, pa.Table)):
        batches = [records] if isinstance(records, pa.RecordBatch) else records.to_batches()
        for b in batches:
            cols = [c for c in b.schema.names if c not in META_FIELDS]
            yield from b.select(cols).to_pylist(maps_as_pydicts="strict")
        return
    yield from records
