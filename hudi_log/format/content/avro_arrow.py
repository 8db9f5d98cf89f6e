"""Avro schemas as Arrow types: the mapping the table reader and the columnar block decoder share.

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
    struct, _ = _Converter().conv(dict(schema), schema.get("namespace"))
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
