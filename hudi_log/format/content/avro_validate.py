"""Checks Python values against an Avro schema before they are encoded, strictly, as Java Avro's
``GenericDatumWriter`` would refuse them.

fastavro's encoder is lenient where Java's is not (it truncates 1.5 into an int, wraps integers out of
range, writes any truthy value as a boolean), so a record is checked here first and a value that does not
fit is refused (:class:`Invalid`, with the field's path) before a byte of its block is written.
:func:`binary_defaults_to_bytes` fixes the one place where fastavro reads a schema differently from Java.
"""

from __future__ import annotations

import datetime
import decimal
import math
import uuid
from collections import abc
from typing import Any, Callable

from ...errors import AppendHandleError
from .columnar_encode import AVRO_INT_RANGE, AVRO_LONG_RANGE, FLOAT32_MAX

class Invalid(Exception):
    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message


_INT32 = AVRO_INT_RANGE
_INT64 = AVRO_LONG_RANGE
_FLOAT32_MAX = FLOAT32_MAX


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


class Validator:
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
                    raise Invalid(p, f"expected a symbol of enum {name}, got {_describe(v)}")
            return check_enum
        if t == "fixed":
            size = s["size"]
            if lt == "decimal":
                return _decimal_check(s.get("precision"), s.get("scale", 0), size)

            def check_fixed(v, p, size=size):
                if not isinstance(v, (bytes, bytearray, memoryview)) or len(v) != size:
                    raise Invalid(p, f"expected {size} bytes (fixed), got {_describe(v)}")
            return check_fixed
        if t == "array":
            item = self.compile(s["items"], path + "[]")

            def check_array(v, p, item=item):
                if not isinstance(v, (list, tuple)):
                    raise Invalid(p, f"expected an array (list), got {_describe(v)}")
                for i, x in enumerate(v):
                    item(x, f"{p}[{i}]")
            return check_array
        if t == "map":
            value = self.compile(s["values"], path + "{}")

            def check_map(v, p, value=value):
                if not is_mapping(v):
                    raise Invalid(p, f"expected a map (dict), got {_describe(v)}")
                for k, x in v.items():
                    if not isinstance(k, str):
                        raise Invalid(p, f"map keys must be strings, got {_describe(k)}")
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
                except Invalid:
                    continue
            raise Invalid(p, f"{_describe(v)} matches none of {names}")
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
            if not is_mapping(v):
                raise Invalid(p, f"expected a record {rname} (dict), got {_describe(v)}")
            present = 0
            for name, check, has_default in fields:
                if name in v:
                    present += 1
                    check(v[name], name if not p else f"{p}.{name}")
                elif not has_default:
                    raise Invalid(f"{p}.{name}" if p else name, "missing, and the schema gives no default")
            if len(v) != present:
                extra = sorted(str(k) for k in v if k not in names)
                raise Invalid(p, f"field(s) {extra} are not in the schema of record {rname}")
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


def is_mapping(v) -> bool:
    return type(v) is dict or isinstance(v, abc.Mapping)


def _check_null(v, p):
    if v is not None:
        raise Invalid(p, f"expected null, got {_describe(v)}")


def _check_boolean(v, p):
    if not isinstance(v, bool):
        raise Invalid(p, f"expected a boolean, got {_describe(v)}")


def _int_check(bounds, name):
    lo, hi = bounds

    def check(v, p):
        if not isinstance(v, int) or isinstance(v, bool):
            raise Invalid(p, f"expected {name}, got {_describe(v)}")
        if not lo <= v <= hi:
            raise Invalid(p, f"{v} is out of range for Avro {name}")
    return check


_check_int = _int_check(_INT32, "int")
_check_long = _int_check(_INT64, "long")


def _check_float(v, p):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise Invalid(p, f"expected float, got {_describe(v)}")
    if isinstance(v, int) or math.isfinite(v):
        if abs(v) > _FLOAT32_MAX:
            raise Invalid(p, f"{v} does not fit a float (32-bit)")


def _check_double(v, p):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise Invalid(p, f"expected double, got {_describe(v)}")
    if isinstance(v, int) and abs(v) > 1.7976931348623157e308:
        raise Invalid(p, f"{v} does not fit a double")


def _check_bytes(v, p):
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise Invalid(p, f"expected bytes, got {_describe(v)}")


def _check_string(v, p):
    if not isinstance(v, str):
        raise Invalid(p, f"expected string, got {_describe(v)}")


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
        raise Invalid(p, f"expected a date, got {_describe(v)}")
    if isinstance(v, datetime.date):
        return
    _check_int(v, p)


def _decimal_check(precision, scale, size):
    def check(v, p):
        if isinstance(v, (bytes, bytearray, memoryview)):
            if size is not None and len(v) != size:
                raise Invalid(p, f"expected {size} bytes (decimal fixed), got {len(v)}")
            return
        if not isinstance(v, decimal.Decimal):
            raise Invalid(p, f"expected a Decimal, got {_describe(v)}")
        if not v.is_finite():
            raise Invalid(p, f"{v} is not a finite decimal")
        sign, digits, exp = v.as_tuple()
        if -exp > scale:
            raise Invalid(p, f"{v} has more than {scale} decimal places")
        if precision is not None and len(digits) + (exp + scale if exp + scale > 0 else 0) > precision:
            raise Invalid(p, f"{v} has more than {precision} digits")
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


def binary_defaults_to_bytes(parsed: Any, named: dict) -> None:
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
