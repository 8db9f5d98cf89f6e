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
import threading
import uuid
from collections import abc
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..format.content import columnar_encode
from ..format import grammar
from ..format.block import LogBlock
from ..format.content.deletes import DeleteRecord, encode_delete_payload
from ..errors import HudiLogError
from ..format.grammar import BlockType, CommandBlockType, HeaderKey
from ..format.log_file_name import make_write_token
from .writer import (
    DEFAULT_LOG_FILE_MAX_SIZE,
    FIRST_NO_APPEND_TABLE_VERSION,
    AppendResult,
    LogWriter,
)
from .storage import Storage
from ..format.framing import framed_avro_block

try:  # fastavro's compiled encoder entry point: no per-call schema handling
    from fastavro._write import write_data as _fastavro_write_data
except ImportError:  # pragma: no cover
    _fastavro_write_data = None

#: ``hoodie.logfile.data.block.max.size``
DEFAULT_MAX_BLOCK_SIZE = 256 * 1024 * 1024
#: Hudi re-estimates the average record size every this many records
RECORDS_PER_SIZE_ESTIMATE = 100
#: the content version every Hudi since 0.14 writes (Avro data and delete blocks)
CONTENT_VERSION = grammar.CURRENT_AVRO_CONTENT_VERSION
#: records encoded together by ``write_all`` (bounds the memory of one columnar pass)
COLUMNAR_BATCH = 65536
#: and at most about this many bytes (Arrow binary arrays have 32-bit offsets)
COLUMNAR_BATCH_BYTES = 256 * 1024 * 1024
#: records ``write`` takes one at a time before they are encoded together
PENDING_RECORDS = 8192

COMMIT_TIME = "_hoodie_commit_time"
COMMIT_SEQNO = "_hoodie_commit_seqno"
RECORD_KEY = "_hoodie_record_key"
PARTITION_PATH = "_hoodie_partition_path"
FILE_NAME = "_hoodie_file_name"
META_FIELDS = (COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME)

BLOCK_FORMATS = ("avro", "parquet")


class _SeqCounter:
    """A sequence counter that can also hand out a run of numbers at once (for batches)."""

    def __init__(self, start: int):
        self._next = start
        self._lock = threading.Lock()

    def __next__(self) -> int:
        return self.take(1)

    def take(self, n: int) -> int:
        """Reserve ``n`` numbers; returns the first."""
        with self._lock:
            first = self._next
            self._next += n
            return first


# JVM-wide in Hudi (an AtomicLong starting at 1); process-wide here.
_GLOBAL_SEQNO = _SeqCounter(1)


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


_INT32 = columnar_encode.AVRO_INT_RANGE
_INT64 = columnar_encode.AVRO_LONG_RANGE
_FLOAT32_MAX = columnar_encode.FLOAT32_MAX


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
        quick = [(f["name"], *_quick_check(f["type"])) for f in s["fields"]]
        nfields = len(fields)

        def check_record(v, p, fields=fields, names=names, rname=rname):
            if type(v) is dict and len(v) == nfields:
                # the common case first: every field present, each of its exact primitive type
                # (or null where allowed) and in range; anything else takes the full check below
                for name, types, nullable, lo, hi in quick:
                    x = v.get(name, _ABSENT)
                    if x is None and nullable:
                        continue
                    if type(x) not in types or (lo is not None and not lo <= x <= hi):
                        break
                else:
                    return
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


_ABSENT = object()
# exact Python types a primitive accepts without further checks (subclasses, ints for doubles and
# floats for floats take the full check), and the bounds of the integer types
_QUICK_TYPES = {
    "null": (frozenset(), None, None), "boolean": (frozenset({bool}), None, None),
    "int": (frozenset({int}), *_INT32), "long": (frozenset({int}), *_INT64),
    "double": (frozenset({float}), None, None), "string": (frozenset({str}), None, None),
    "bytes": (frozenset({bytes}), None, None),
}
_NO_QUICK = (frozenset(), False, None, None)


def _quick_check(t) -> tuple:
    """(exact types, nullable, lo, hi) for a field type that is a primitive or a nullable one."""
    nullable = False
    if isinstance(t, list):
        if len(t) != 2 or "null" not in t:
            return _NO_QUICK
        nullable, t = True, t[1 - t.index("null")]
    if isinstance(t, dict) and set(t) == {"type"}:
        t = t["type"]
    if not isinstance(t, str) or t not in _QUICK_TYPES:
        return _NO_QUICK
    types, lo, hi = _QUICK_TYPES[t]
    return types, nullable or t == "null", lo, hi


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
    from ..format.content.avro_arrow import UnsupportedAvroType, avro_to_arrow_schema as convert

    try:
        return convert(schema)
    except UnsupportedAvroType as e:
        raise AppendHandleError(f"Parquet blocks cannot hold this schema: {e}") from e


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
        self._seq = _SeqCounter(seqno_start) if seqno_start is not None else _GLOBAL_SEQNO

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
        self._key_spec = record_key_field
        self._key_of = self._key_extractor(record_key_field)
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
        self._deletes: list[DeleteRecord] = []
        # Hudi's size estimation state
        self._avg_size: Optional[int] = None
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

    def _admit(self, record: Any) -> tuple[Mapping[str, Any], str]:
        """Check one record handed in (schema, key); returns it without meta fields, and its key."""
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
        full = self._with_meta(record, key) if self.populate_meta_fields else dict(record)
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
            for rec in _iter_records(records):
                self.write(rec, is_update=is_update)
                n += 1
            return n
        n = 0
        if _is_arrow(records):
            for batch in _arrow_batches(records, self._batch_rows(records)):
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
                full = self._with_meta(r, k, seqnos[i] if seqnos else None) if self.populate_meta_fields else dict(r)
                run = self._encode(full)
                self._buffer_records(run, [0, len(run)], None)
            return
        keys_array = pa.array(keys, pa.string())
        step = self._batch_rows(table)
        for start in range(0, table.num_rows, step):
            part = table.slice(start, step)
            columns = {name: _one_chunk(part.column(name)) for name in part.column_names}
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
            self._write_dicts(list(_iter_records(batch)), is_update)
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
            col = _one_chunk(batch.column(p.name))
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
        col = _one_chunk(batch.column(spec))
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
        """Hudi's estimate over records ``offsets[i]..offsets[i+1]`` long: the positions before
        which the buffer is written as a data block.

        Hudi updates the average record size (``avg*0.8 + size*0.2``, truncated) at the first
        record, every 100 records and whenever the buffer holds ``max_block_size // avg`` records,
        and flushes when, after the update, it still does. Between those points nothing changes,
        so the loop jumps from one to the next.
        """
        avg, num, max_size = self._avg_size, self._num_records, self.max_block_size
        every = RECORDS_PER_SIZE_ESTIMATE
        cuts: list[int] = []
        i, n = 0, len(offsets) - 1
        while i < n:
            if avg is None:
                avg = offsets[i + 1] - offsets[i]
            limit = max_size // max(avg, 1)
            if num >= limit or num % every == 0:
                avg = max(int(avg * 0.8 + (offsets[i + 1] - offsets[i]) * 0.2), 1)
                if num >= max_size // avg and num > 0:
                    cuts.append(i)
                    num = 0
                num += 1
                i += 1
            else:
                step = min((num // every + 1) * every, limit, num + n - i) - num
                num += step
                i += step
        self._avg_size = avg
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


def _is_arrow(records) -> bool:
    return isinstance(records, (pa.RecordBatch, pa.Table))


def _arrow_batches(records, size: int):
    batches = [records] if isinstance(records, pa.RecordBatch) else records.to_batches(max_chunksize=size)
    for b in batches:
        for start in range(0, b.num_rows, size):
            yield b.slice(start, size)


def _one_chunk(col):
    if isinstance(col, pa.ChunkedArray):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col


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
