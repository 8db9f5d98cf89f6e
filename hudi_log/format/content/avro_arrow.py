"""Avro schemas as Arrow types and back: the mapping the table reader and the columnar block decoder share,
and the Avro schema Hudi's Spark writer derives for a batch (:func:`arrow_to_avro_schema`, Spark's
``SchemaConverters`` then Hudi's ``fixNullOrdering``; the spellings Java writes, checked against every corpus
table).

Avro to Arrow:

* a union of null and one branch → that branch, nullable; other unions have no Arrow equivalent here
  (:class:`UnsupportedAvroType`; callers fall back to the record path);
* logical types: decimal (bytes or fixed) → decimal128 (decimal256 above 38 digits), date → date32,
  time-millis → time32[ms], time-micros → time64[us], timestamp-millis/micros → timestamp with tz UTC,
  local-timestamp-* → timestamp without tz, uuid → string;
* record → struct, array → list<element>, map → map<string, value>, enum → string, fixed → fixed_size_binary.
Named types are resolved with Avro's namespace rules.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

import pyarrow as pa

from ...errors import AppendHandleError, HudiLogError
from .meta_fields import META_FIELDS

PRIMITIVE = {"null": pa.null(), "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(),
             "float": pa.float32(), "double": pa.float64(), "bytes": pa.binary(), "string": pa.string()}
LOGICAL = {("int", "date"): pa.date32(), ("int", "time-millis"): pa.time32("ms"),
           ("long", "time-micros"): pa.time64("us"),
           ("long", "timestamp-millis"): pa.timestamp("ms", tz="UTC"),
           ("long", "timestamp-micros"): pa.timestamp("us", tz="UTC"),
           ("long", "local-timestamp-millis"): pa.timestamp("ms"),
           ("long", "local-timestamp-micros"): pa.timestamp("us"), ("string", "uuid"): pa.string()}


class UnsupportedAvroType(HudiLogError, ValueError):
    """An Avro type with no faithful Arrow mapping here (e.g. a union of two non-null branches)."""


def _decimal(s: Mapping) -> pa.DataType:
    p, sc = int(s["precision"]), int(s.get("scale", 0))
    return pa.decimal128(p, sc) if p <= 38 else pa.decimal256(p, sc)


class _Converter:
    def __init__(self):
        self.named: dict[str, pa.DataType] = {}

    def full_name(self, s: Mapping, ns: str | None) -> str:
        name = s["name"]
        space = s.get("namespace", ns)
        return name if "." in name or not space else f"{space}.{name}"

    def conv(self, s: Any, ns: str | None) -> tuple[pa.DataType, bool]:
        """(type, nullable) of an Avro schema."""
        if isinstance(s, list):
            branches = [b for b in s if b != "null"]
            if len(branches) > 1:
                raise UnsupportedAvroType(f"union {s!r} has {len(branches)} non-null branches")
            if not branches:
                return pa.null(), True
            t, _ = self.conv(branches[0], ns)
            return t, "null" in s
        if isinstance(s, str):
            if s in PRIMITIVE:
                return PRIMITIVE[s], s == "null"
            for key in (s, f"{ns}.{s}" if ns else s):
                if key in self.named:
                    return self.named[key], False
            raise UnsupportedAvroType(f"unknown Avro type {s!r}")
        t, lt = s.get("type"), s.get("logicalType")
        if t == "record" or t == "error":
            full = self.full_name(s, ns)
            inner = full.rsplit(".", 1)[0] if "." in full else None
            fields = []
            for f in s["fields"]:
                ft, nullable = self.conv(f["type"], inner)
                fields.append(pa.field(f["name"], ft, nullable=nullable))
            self.named[full] = pa.struct(fields)
            return self.named[full], False
        if t == "enum":
            self.named[self.full_name(s, ns)] = pa.string()
            return pa.string(), False
        if t == "fixed":
            out = _decimal(s) if lt == "decimal" else pa.binary(int(s["size"]))
            self.named[self.full_name(s, ns)] = out
            return out, False
        if t == "array":
            it, nullable = self.conv(s["items"], ns)
            return pa.list_(pa.field("element", it, nullable=nullable)), False
        if t == "map":
            vt, nullable = self.conv(s["values"], ns)
            return pa.map_(pa.string(), pa.field("value", vt, nullable=nullable)), False
        if lt == "decimal" and t == "bytes":
            return _decimal(s), False
        if (t, lt) in LOGICAL:
            return LOGICAL[(t, lt)], False
        return self.conv(t, ns)


def avro_to_arrow_schema(schema: Mapping | str) -> pa.Schema:
    """The Arrow schema of an Avro record schema (one field per record field, in order)."""
    if isinstance(schema, str):
        schema = json.loads(schema)
    if not isinstance(schema, Mapping) or schema.get("type") != "record":
        raise UnsupportedAvroType("not an Avro record schema")
    try:
        struct, _ = _Converter().conv(dict(schema), schema.get("namespace"))
        return pa.schema(list(struct))
    except UnsupportedAvroType:
        raise
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError, pa.ArrowException) as e:
        # a malformed schema (a field without a name, a fixed size or a precision Arrow cannot take)
        raise UnsupportedAvroType(f"no Arrow mapping: {type(e).__name__}: {e}") from e


def min_bytes_for_precision(precision: int) -> int:
    """Bytes of the ``fixed`` that holds a decimal of ``precision`` digits: Spark's
    ``minBytesForPrecision`` (the same doubles as Java's ``Math.pow``)."""
    n = 1
    while 2.0 ** (8 * n - 1) < 10.0 ** precision:
        n += 1
    return n


def arrow_to_avro_schema(arrow_schema, name: str = "record", namespace: Optional[str] = None) -> dict:
    """The Avro record schema Hudi's Spark writer records for a batch of this Arrow schema.

    Spark's ``SchemaConverters.toAvroType`` (what ``AvroConversionUtils.convertStructTypeToAvroSchema``
    calls, record ``{table}_record`` in namespace ``hoodie.{table}``), then Hudi's
    ``AvroInternalSchemaConverter.fixNullOrdering`` (``HoodieSchemaUtils.deduceWriterSchema``), which is the
    JSON Java writes to commit metadata, the log SCHEMA header and ``parquet.avro.schema``:

    * a nullable field is ``["null", T]`` with ``"default": null``; a non-nullable one is ``T`` with no
      default; nullable array elements and map values are ``["null", T]`` too;
    * a struct is a record named after its field, in the namespace of the enclosing record's full name
      (array elements and map values take their field's name);
    * a decimal is ``fixed`` named ``fixed`` in the namespace ``{enclosing record}.{field}``, of Spark's
      size for its precision (:func:`min_bytes_for_precision`), logical type decimal;
    * byte, short and int are ``int``; date is ``date``; timestamp is ``timestamp-micros``, a timestamp
      without zone ``local-timestamp-micros``; binary is ``bytes``.

    Arrow types Spark has no equal of keep a faithful Avro form: unsigned integers widen, milli/second
    timestamps are ``*-millis``, times are ``time-*``, fixed-size binary is ``fixed`` (named as decimals are).
    Keys are in the order Avro's ``Schema.toString`` prints them.
    """
    import pyarrow.types as pt

    def fixed(ns: str, fname: str, size: int) -> dict:
        return {"type": "fixed", "name": "fixed", "namespace": f"{ns}.{fname}", "size": size}

    def conv(t, fname: str, ns: str):
        """``t`` as the Avro type of field ``fname`` of the record whose full name is ``ns``."""
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
            return fixed(ns, fname, t.byte_width)
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
            out = fixed(ns, fname, min_bytes_for_precision(t.precision))
            out.update({"logicalType": "decimal", "precision": t.precision, "scale": t.scale})
            return out
        if pt.is_list(t) or pt.is_large_list(t) or pt.is_fixed_size_list(t):
            vf = t.value_field
            return {"type": "array", "items": maybe_null(conv(vf.type, fname, ns), vf.nullable)}
        if pt.is_map(t):
            vf = t.item_field
            return {"type": "map", "values": maybe_null(conv(vf.type, fname, ns), vf.nullable)}
        if pt.is_struct(t):
            return record(list(t), fname, ns)
        if pt.is_dictionary(t):
            return conv(t.value_type, fname, ns)
        raise AppendHandleError(f"no Avro type for Arrow type {t} (field {fname!r})")

    def maybe_null(avro_t, nullable: bool):
        return ["null", avro_t] if nullable else avro_t

    def record(fields, rname: str, ns: Optional[str]) -> dict:
        full = f"{ns}.{rname}" if ns else rname
        out = []
        for f in fields:
            if f.name in META_FIELDS:
                continue
            entry = {"name": f.name, "type": maybe_null(conv(f.type, f.name, full), f.nullable)}
            if f.nullable:
                entry["default"] = None
            out.append(entry)
        head = {"type": "record", "name": rname}
        if ns:
            head["namespace"] = ns
        head["fields"] = out
        return head

    ns = namespace if namespace is not None else f"hoodie.{name}"
    return record(list(arrow_schema), f"{name}_record", ns)


def _respell_unions(schema: Mapping, null_first: bool) -> dict:
    """``schema`` with ``null`` first (or last) in every union, and ``"default": null`` on exactly the
    fields whose type is then a null-first union (none when ``null_first`` is False)."""
    def walk(t):
        if isinstance(t, list):
            rest = [walk(b) for b in t if b != "null"]
            return rest if "null" not in t else (["null"] + rest if null_first else rest + ["null"])
        if not isinstance(t, Mapping):
            return t
        out = dict(t)
        if t.get("type") in ("record", "error"):
            fields = []
            for f in t["fields"]:
                g = {k: (walk(v) if k == "type" else v) for k, v in f.items() if k != "default"}
                if isinstance(g["type"], list) and g["type"][:1] == ["null"]:
                    g["default"] = None
                elif "default" in f and f["default"] is not None:
                    g["default"] = f["default"]
                fields.append(g)
            out["fields"] = fields
        elif t.get("type") == "array":
            out["items"] = walk(t["items"])
        elif t.get("type") == "map":
            out["values"] = walk(t["values"])
        return out

    return walk(dict(schema))


def spark_create_schema(schema: Mapping) -> dict:
    """``schema`` as Spark's own converter spells it, before Hudi moves null first: every union
    ``[T, "null"]`` and no null defaults. Java's Spark SQL ``CREATE TABLE`` records this form as
    ``hoodie.table.create.schema`` (all the corpus tables show it)."""
    return _respell_unions(schema, null_first=False)


def fix_null_ordering(schema: Mapping) -> dict:
    """``schema`` with ``null`` first in every nullable union and ``"default": null`` on every nullable
    field: the union order and defaults of Hudi's ``AvroInternalSchemaConverter.fixNullOrdering``, which
    Java applies to the table's schema before a write. Types keep their spelling (a decimal as ``bytes``
    stays ``bytes``)."""
    return _respell_unions(schema, null_first=True)
