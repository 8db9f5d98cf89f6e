"""File slices skipped by column statistics: a read's filters against the metadata table's ``column_stats``.

Java's data skipping (``ColumnStatsIndexSupport`` / ``HoodieFileIndex`` with
``hoodie.enable.data.skipping``) prunes the files whose column ranges prove that no row can match the query's
filters. Here the unit is the file slice, as the read plans it: a slice is skipped when, for one of the
filters (they are ANDed), none of its files (base and every log file: merged rows take each value from one of
them) can hold a non-null value that passes it. A row whose value is null never passes a filter (the read
drops rows whose filter is null; ``not in`` keeps them, as the read's Arrow ``is_in`` does), so for those a file
of only nulls holds no candidate. Only safe proofs skip: a file
with no column_stats record for the column, a range without bounds, a NaN bound or a value that does not
compare with the filter's (a promoted column, an unknown type) keeps the slice. Pruning runs when the table
lists ``column_stats`` in ``hoodie.table.metadata.partitions``, the metadata table is in step with the data
timeline (:func:`~hudi_log.table.metadata_files.metadata_in_step`) and ``hoodie.metadata.enable`` is not false;
the result is the unpruned read's, fewer slices read (:class:`StatsPruning`, logged).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone
from decimal import Decimal
from fractions import Fraction
import logging
from typing import Mapping

from ..metadata.column_ranges import (DATE, DECIMAL, LOCAL_TIMESTAMP_MILLIS, LOCAL_TIMESTAMP_MICROS,
                                      LOCAL_TIMESTAMP_NANOS, TIMESTAMP_MICROS, TIMESTAMP_MILLIS, TIMESTAMP_NANOS,
                                      ColumnRange, from_payload)
from ..metadata.column_stats import FIELD, PARTITION as COLUMN_STATS, read_column_stats
from ..metadata.stats_keys import column_stats_key
from ..metadata_files import metadata_enabled, metadata_in_step

log = logging.getLogger("hudi_log.read")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TS_PER_SECOND = {TIMESTAMP_MILLIS: 1_000, LOCAL_TIMESTAMP_MILLIS: 1_000, TIMESTAMP_MICROS: 1_000_000,
                  LOCAL_TIMESTAMP_MICROS: 1_000_000, TIMESTAMP_NANOS: 1_000_000_000,
                  LOCAL_TIMESTAMP_NANOS: 1_000_000_000}


@dataclass(frozen=True)
class StatsPruning:
    """What column-stats pruning did to a plan."""

    slices_before: int
    slices_after: int
    used: bool
    """False: not attempted (``reason`` says why); the plan reads every slice."""
    reason: str = ""

    def line(self) -> str:
        if not self.used:
            return f"column stats pruning off: {self.reason}"
        return f"column stats pruning: {self.slices_after} of {self.slices_before} file slices read"


def _why_not(table_path, props, timeline, filters, options) -> str:
    if not filters:
        return "no filters"
    if not metadata_enabled(options):
        return "hoodie.metadata.enable=false"
    if COLUMN_STATS not in {p for p in (props.get("hoodie.table.metadata.partitions") or "").split(",") if p}:
        return "the table has no column_stats index"
    ok, why = metadata_in_step(table_path, props, timeline)
    return "" if ok else why


def _in_domain(val, r: ColumnRange):
    """The filter value in the stats' domain (raises TypeError / ValueError where it has none)."""
    kind = r.kind.ordinal
    if kind == DECIMAL:
        if isinstance(val, float):
            return Fraction(Decimal(repr(val)))
        if isinstance(val, (int, Decimal)) and not isinstance(val, bool):
            return Fraction(val)
        raise TypeError("not a decimal")
    if kind in _TS_PER_SECOND and isinstance(val, datetime):
        aware = val if val.tzinfo else val.replace(tzinfo=timezone.utc)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * _TS_PER_SECOND[kind] + \
            delta.microseconds * _TS_PER_SECOND[kind] // 1_000_000
    if kind == DATE and isinstance(val, date) and not isinstance(val, datetime):
        return (val - date(1970, 1, 1)).days
    if isinstance(val, (datetime, date, Decimal)):
        raise TypeError("a temporal or decimal filter on a column of another type")
    if isinstance(val, str) and any(ord(ch) >= 0xD800 for ch in val):
        # Java's bounds order strings by UTF-16 unit, Arrow's filter by code point: the two agree on every
        # comparison with a string below U+D800 only
        raise TypeError("a string the two orders may disagree on")
    return val


def _bound(v, r: ColumnRange):
    if r.kind.ordinal == DECIMAL and isinstance(v, int):
        return Fraction(v, 10 ** r.kind.scale)
    return v


def may_match(r: ColumnRange, op: str, val) -> bool:
    """Whether a file with range ``r`` may hold a value passing ``column op val``. A null passes only ``in`` a
    list holding None and ``not in`` one that does not (the read's Arrow ``is_in``); no other filter."""
    if op in ("in", "not in") and r.null_count != 0 and (op == "in") == any(v is None for v in val):
        return True
    if r.value_count >= 0 and r.value_count == r.null_count:
        return False  # only nulls (or no rows at all)
    if r.min is None or r.max is None:
        return True
    lo, hi = _bound(r.min, r), _bound(r.max, r)
    if any(isinstance(x, float) and x != x for x in (lo, hi)):
        return True
    try:
        if op in ("in", "not in"):
            vals = [_in_domain(v, r) for v in val if v is not None]
            if op == "in":
                return any(lo <= v <= hi for v in vals)
            return not (lo == hi and any(lo == v for v in vals))
        v = _in_domain(val, r)
        if op in ("=", "=="):
            return lo <= v <= hi
        if op == "!=":
            return not (lo == hi == v)
        return {"<": lo < v, "<=": lo <= v, ">": hi > v, ">=": hi >= v}[op]
    except (TypeError, ValueError, KeyError, ArithmeticError):
        return True


def _file_names(task) -> list[str]:
    paths = ([task.base_file] if task.base_file else []) + list(task.log_files)
    return [p.replace("\\", "/").rsplit("/", 1)[-1] for p in paths]


def prune(table_path, props, timeline, tasks: list, filters, options: Mapping | None) -> tuple[list, StatsPruning]:
    """The tasks whose slices may hold a matching row, and what was done."""
    why = _why_not(table_path, props, timeline, filters, options)
    if why:
        return tasks, StatsPruning(len(tasks), len(tasks), False, why)
    columns = {f[0] for f in filters}
    wanted = {column_stats_key(c, t.partition, name) for t in tasks for name in _file_names(t) for c in columns}
    stats: dict[tuple[str, str], ColumnRange] = {}
    for key, rec in read_column_stats(table_path, keys=wanted).items():
        r = from_payload(rec.get(FIELD) or {})
        stats[(r.file_name, r.column)] = r
    kept = []
    for t in tasks:
        names = _file_names(t)
        skip = False
        for col, op, val in filters:
            ranges = [stats.get((n, col)) for n in names]
            if any(r is None for r in ranges):
                continue  # a file not indexed for the column: no proof
            if not any(may_match(r, str(op).strip().lower(), val) for r in ranges):
                skip = True
                break
        if not skip:
            kept.append(t)
    result = StatsPruning(len(tasks), len(kept), True)
    log.info("%s (%s)", result.line(), table_path)
    return kept, result
