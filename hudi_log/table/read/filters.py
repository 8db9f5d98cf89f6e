"""The ``filters=`` of a read: ``(column, op, value)`` triples as pyarrow's ``filters`` and hudi-rs's take them
(``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``, ``not in``), checked before a read plans anything, and turned
into masks: of partition values where a plan prunes partitions, and of rows once a slice is merged (a later log
record of a key must still replace or delete its base row first)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

_OPS = {"=": pc.equal, "==": pc.equal, "!=": pc.not_equal, "<": pc.less, "<=": pc.less_equal,
        ">": pc.greater, ">=": pc.greater_equal}


def check_filter(f: tuple) -> None:
    if len(f) != 3:
        raise ValueError(f"a filter is (column, op, value), not {f!r}")
    op = str(f[1]).strip().lower()
    if op not in _OPS and op not in ("in", "not in"):
        raise ValueError(f"unknown filter operator {op!r}")


def check_columns(ctx, columns, filters) -> None:
    names = ctx.table_schema.names
    unknown = [c for c in list(columns or []) + [f[0] for f in filters] if c not in names]
    if unknown:
        raise KeyError(f"unknown columns: {', '.join(dict.fromkeys(unknown))}")


def filter_mask(arr, op: str, val):
    op = op.strip().lower()
    if op in _OPS:
        return _OPS[op](arr, val if isinstance(val, pa.Scalar) else pa.scalar(val, type=arr.type))
    mask = pc.is_in(arr, value_set=pa.array(list(val), type=arr.type))
    return pc.invert(mask) if op == "not in" else mask
