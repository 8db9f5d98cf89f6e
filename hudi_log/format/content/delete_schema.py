"""Hudi's ``HoodieDeleteRecordList`` Avro schema (``HoodieDeleteRecordList.avsc``, ``HoodieDeleteRecord.avsc``),
the schema of a delete block's payload at log-block version 3, and the two enums of its unions: which wrapper
record holds a delete's ordering value, and which holds an element of an ``ArrayWrapper``. Kept apart from the
payload's encoder and decoder (:mod:`.deletes`), which take every name from here."""

from __future__ import annotations

import copy
import enum
from typing import Any

from fastavro import parse_schema

from .. import grammar as _grammar

# Both enums come from the grammar's ordering_kind (one place per fact). In the top-level union
# branch 12 is ArrayWrapper; inside an ArrayWrapper branch 12 is LocalDateWrapper (the grammar
# names it local_date, value 13, because it is derived from the branch and the array context).
_KINDS = {m.name.upper(): int(m) for m in _grammar.OrderingKind}

#: Which wrapper holds a delete's ordering value. The value is the ``orderingVal`` union branch.
OrderingKind = enum.Enum("OrderingKind", {n: v for n, v in _KINDS.items() if n != "LOCAL_DATE"})

#: Which wrapper holds one element of an ArrayWrapper. The value is the item union branch:
#: branches 0-11 match OrderingKind, branch 12 is LocalDateWrapper.
ArrayItemKind = enum.Enum(
    "ArrayItemKind", {**{n: v for n, v in _KINDS.items() if v < 12}, "LOCAL_DATE": 12}
)


_NS = "org.apache.hudi.avro.model"

# Wrapper record name and the Avro type of its ``value`` field, in item-union branch order 1..11.
_SCALAR_WRAPPERS: tuple[tuple[str, Any], ...] = (
    ("BooleanWrapper", "boolean"),
    ("IntWrapper", "int"),
    ("LongWrapper", "long"),
    ("FloatWrapper", "float"),
    ("DoubleWrapper", "double"),
    ("BytesWrapper", "bytes"),
    ("StringWrapper", "string"),
    ("DateWrapper", "int"),
    ("DecimalWrapper", {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 15}),
    ("TimeMicrosWrapper", {"type": "long", "logicalType": "time-micros"}),
    ("TimestampMicrosWrapper", "long"),
)
_LOCAL_DATE_WRAPPER = ("LocalDateWrapper", "int")


def _wrapper_record(name: str, value_type: Any) -> dict[str, Any]:
    return {
        "type": "record",
        "name": name,
        "namespace": _NS,
        "fields": [{"name": "value", "type": value_type}],
    }


def _build_schema() -> dict[str, Any]:
    # Each named type is defined at its first use and referenced by full name after that, as in
    # Hudi's own schema.
    wrapper_defs = [_wrapper_record(name, t) for name, t in _SCALAR_WRAPPERS]
    item_union = ["null", *(f"{_NS}.{name}" for name, _ in _SCALAR_WRAPPERS), _wrapper_record(*_LOCAL_DATE_WRAPPER)]
    array_wrapper = {
        "type": "record",
        "name": "ArrayWrapper",
        "namespace": _NS,
        "fields": [
            {
                "name": "wrappedValues",
                "type": ["null", {"type": "array", "items": item_union}],
                "default": None,
            }
        ],
    }
    delete_record = {
        "type": "record",
        "name": "HoodieDeleteRecord",
        "namespace": _NS,
        "fields": [
            {"name": "recordKey", "type": ["null", "string"], "default": None},
            {"name": "partitionPath", "type": ["null", "string"], "default": None},
            {"name": "orderingVal", "type": ["null", *wrapper_defs, array_wrapper], "default": None},
        ],
    }
    return {
        "type": "record",
        "name": "HoodieDeleteRecordList",
        "namespace": _NS,
        "fields": [{"name": "deleteRecordList", "type": {"type": "array", "items": delete_record}}],
    }


def _strip_logical_types(node: Any) -> Any:
    """The schema with every logical type replaced by its underlying type.

    Logical types never change the bytes. Without them fastavro hands over raw ints and bytes, which
    this module converts itself: exactly, and for values that Python's date and time types cannot
    hold.
    """
    if isinstance(node, list):
        return [_strip_logical_types(n) for n in node]
    if isinstance(node, dict):
        if "logicalType" in node and isinstance(node.get("type"), str):
            return node["type"]
        return {k: _strip_logical_types(v) for k, v in node.items()}
    return node


#: Hudi's ``HoodieDeleteRecordList`` schema as a JSON-compatible dict (docs left out).
DELETE_RECORD_LIST_SCHEMA: dict[str, Any] = _build_schema()

_WIRE_SCHEMA = parse_schema(_strip_logical_types(copy.deepcopy(DELETE_RECORD_LIST_SCHEMA)))

_ARRAY_WRAPPER_NAME = f"{_NS}.ArrayWrapper"
_ORDERING_KIND_BY_NAME = {f"{_NS}.{name}": OrderingKind(i) for i, (name, _) in enumerate(_SCALAR_WRAPPERS, 1)}
_ORDERING_KIND_BY_NAME[_ARRAY_WRAPPER_NAME] = OrderingKind.ARRAY
_ORDERING_NAME_BY_KIND = {kind: name for name, kind in _ORDERING_KIND_BY_NAME.items()}
_ITEM_KIND_BY_NAME = {f"{_NS}.{name}": ArrayItemKind(i) for i, (name, _) in enumerate(_SCALAR_WRAPPERS, 1)}
_ITEM_KIND_BY_NAME[f"{_NS}.{_LOCAL_DATE_WRAPPER[0]}"] = ArrayItemKind.LOCAL_DATE
_ITEM_NAME_BY_KIND = {kind: name for name, kind in _ITEM_KIND_BY_NAME.items()}
