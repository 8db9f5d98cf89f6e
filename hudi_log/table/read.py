"""Queries on a Hudi table: snapshot (with time travel), read-optimized and incremental.

* snapshot: latest file slice of every visible file group, base rows merged with the merged log scanner
  (MOR), bounded by ``as_of`` (a completed instant; None = the latest completed write instant).
* read_optimized: base files of those slices only (log files ignored).
* incremental: the snapshot as of ``end`` restricted to records whose ``_hoodie_commit_time`` lies in
  (``begin``, ``end``] — the records changed by instants in that range, at their state as of ``end``
  (Hudi's MOR incremental relation merges then filters on commit time).
Columns: ``_hoodie_*`` meta columns first, then the data columns in base-file order (columns only
found in log blocks — schema evolution — are appended and null-filled for older rows).
``columns`` projects after the merge; ``filters`` is a list of ``(column, op, value)`` with op in
``= == != < <= > >= in not in`` applied after the merge.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .file_system_view import FileSystemView
from .properties import TableError, read_properties
from .scanner import COMMIT_TIME, KEY_FIELD, Entry, MergedLogScanner, combine
from .timeline import Timeline

QUERY_TYPES = ("snapshot", "read_optimized", "incremental")


class QueryError(TableError):
    """A query cannot run as asked (bad query type or bounds)."""


class HudiTable:
    """A Hudi table opened for reading: properties, timeline and file-system views."""

    def __init__(self, path):
        self.path = Path(path)
        self.properties = read_properties(self.path)
        self.timeline = Timeline(self.path, self.properties)

    def view(self, as_of: str | None = None) -> FileSystemView:
        return FileSystemView(self.path, self.properties, self.timeline, as_of)

    def _bound(self, as_of: str | None) -> str | None:
        if as_of is None:
            latest = self.timeline.latest_completed_commit()
            return latest.requested_time if latest else None
        return _normalise_instant(as_of)

    def _slice_rows(self, fs, bound: str | None, merge_logs: bool) -> tuple[list[dict], list[pa.Schema], list]:
        props = self.properties
        rows: list[dict] = []
        schemas: list[pa.Schema] = []
        extra_fields: list = []
        completed = self.timeline.completed_commit_times()
        timeline_start = min((i.requested_time for i in self.timeline.instants), default=None)
        slices = fs.latest_file_slices()
        tables = {id(s): pq.read_table(s.base_file.path) for s in slices if s.base_file is not None}
        # target schema: the newest base file's, plus columns only older files have (Hudi reads with the
        # latest table schema; hudi-rs does the same, e.g. a partition column written as int64 then string)
        order = sorted((s for s in slices if s.base_file is not None), key=lambda s: s.base_file.instant)
        target = None
        for s in reversed(order):
            sch = tables[id(s)].schema
            if target is None:
                target = sch
            else:
                target = pa.schema(list(target) + [f for f in sch if f.name not in target.names])
        if target is not None:
            schemas.append(target)
        for s in slices:
            base_rows: list[dict] = []
            if s.base_file is not None:
                base_rows = _conform(tables[id(s)], target).to_pylist()
            if not merge_logs or not s.log_files:
                rows.extend(base_rows)
                continue
            sc = MergedLogScanner(
                s.log_files, table_version=props.version, ordering_fields=props.ordering_fields,
                merge_mode=props.merge_mode, latest_instant=bound, completed_instants=completed,
                timeline_start=timeline_start, key_fields=props.record_key_fields)
            merged = sc.scan()
            seen = set()
            for r in base_rows:
                key = r.get(KEY_FIELD) or sc._key_of(r)
                seen.add(key)
                log_entry = merged.get(key)
                if log_entry is None:
                    rows.append(r)
                    continue
                base_entry = Entry(key, r, sc._ordering_of(r))
                win = combine(base_entry, log_entry, sc.merge_mode)
                if win.record is not None:
                    rows.append(win.record)
            for key, e in merged.items():
                if key not in seen and e.record is not None:
                    rows.append(e.record)
            for e in merged.values():
                if e.record is not None:
                    for k in e.record:
                        if k not in extra_fields:
                            extra_fields.append(k)
        return rows, schemas, extra_fields

    def read(self, query: str = "snapshot", as_of=None, begin=None, end=None, columns=None, filters=None) -> pa.Table:
        if query not in QUERY_TYPES:
            raise QueryError(self.path, f"unknown query type {query!r} (use {', '.join(QUERY_TYPES)})")
        if query == "incremental":
            if begin is None:
                raise QueryError(self.path, "an incremental query needs begin")
            bound = self._bound(end)
        else:
            bound = self._bound(as_of)
        if bound is None:  # no completed commit yet: empty table
            return _finish(_empty_table(self.properties), columns, filters)
        for inst in self.timeline.completed_commits():  # a corrupt commit file is an error naming it
            if inst.requested_time <= bound:
                self.timeline.commit_metadata(inst)
        fs = self.view(bound)
        rows, schemas, extra = self._slice_rows(fs, bound, merge_logs=(query != "read_optimized"
                                                                           and self.properties.is_mor))
        table = _to_table(rows, schemas, extra, self.properties)
        if query == "incremental":
            b = _normalise_instant(begin)
            ct = table.column("_hoodie_commit_time")
            mask = pc.and_(pc.greater(ct, b), pc.less_equal(ct, bound))
            table = table.filter(mask)
        return _finish(table, columns, filters)


def _conform(t: pa.Table, target: pa.Schema) -> pa.Table:
    cols = []
    for f in target:
        if f.name in t.column_names:
            c = t.column(f.name)
            if c.type != f.type:
                try:
                    c = c.cast(f.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    pass
            cols.append(c)
        else:
            cols.append(pa.nulls(t.num_rows, f.type))
    return pa.table(cols, names=target.names)


def _normalise_instant(t) -> str:
    s = str(t).strip()
    digits = "".join(c for c in s if c.isdigit())
    if s.isdigit():
        return s
    # "2025-03-31 03:06:42.808" style → 20250331030642808
    return digits


def _unify(schemas: list[pa.Schema]) -> pa.Schema | None:
    if not schemas:
        return None
    try:
        return pa.unify_schemas(schemas, promote_options="permissive")
    except (pa.ArrowInvalid, TypeError):
        return schemas[-1]


def _to_table(rows: list[dict], schemas: list[pa.Schema], extra: list[str], props) -> pa.Table:
    schema = _unify(schemas)
    if schema is None:
        t = pa.Table.from_pylist(rows) if rows else _empty_table(props)
        return _meta_first(t)
    names = list(schema.names)
    missing = [f for f in extra if f not in names]
    if missing:
        inferred = pa.Table.from_pylist([{k: r.get(k) for k in missing} for r in rows]).schema
        schema = pa.schema(list(schema) + [inferred.field(k) for k in missing])
    schema = pa.schema([f.with_nullable(True) for f in schema])
    t = pa.Table.from_pylist([{k: r.get(k) for k in schema.names} for r in rows], schema=schema)
    return _meta_first(t)


def _meta_first(t: pa.Table) -> pa.Table:
    meta = [n for n in t.column_names if n.startswith("_hoodie_")]
    rest = [n for n in t.column_names if not n.startswith("_hoodie_")]
    return t.select(meta + rest)


def _empty_table(props) -> pa.Table:
    fields = [pa.field(n, pa.string()) for n in ("_hoodie_commit_time", "_hoodie_commit_seqno",
                                                 "_hoodie_record_key", "_hoodie_partition_path",
                                                 "_hoodie_file_name")]
    schema_json = props.get("hoodie.table.create.schema")
    if schema_json:
        try:
            import json
            for f in json.loads(schema_json)["fields"]:
                fields.append(pa.field(f["name"], _avro_to_arrow(f["type"])))
        except Exception:  # noqa: BLE001 - the empty table still has the meta columns
            pass
    return pa.table({f.name: pa.array([], f.type) for f in fields})


def _avro_to_arrow(t):
    if isinstance(t, list):
        non_null = [x for x in t if x != "null"]
        return _avro_to_arrow(non_null[0]) if non_null else pa.null()
    if isinstance(t, dict):
        lt = t.get("logicalType")
        if lt == "decimal":
            return pa.decimal128(t["precision"], t.get("scale", 0))
        if lt == "date":
            return pa.date32()
        if lt == "timestamp-micros":
            return pa.timestamp("us", tz="UTC")
        if lt == "timestamp-millis":
            return pa.timestamp("ms", tz="UTC")
        if t["type"] == "record":
            return pa.struct([pa.field(f["name"], _avro_to_arrow(f["type"])) for f in t["fields"]])
        if t["type"] == "array":
            return pa.list_(_avro_to_arrow(t["items"]))
        if t["type"] == "map":
            return pa.map_(pa.string(), _avro_to_arrow(t["values"]))
        return _avro_to_arrow(t["type"])
    return {"string": pa.string(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(),
            "double": pa.float64(), "boolean": pa.bool_(), "bytes": pa.binary(), "null": pa.null()}.get(t, pa.string())


_OPS = {"=": pc.equal, "==": pc.equal, "!=": pc.not_equal, "<": pc.less, "<=": pc.less_equal,
        ">": pc.greater, ">=": pc.greater_equal}


def _finish(t: pa.Table, columns, filters) -> pa.Table:
    for flt in filters or []:
        col, op, val = flt
        op = op.strip().lower()
        arr = t.column(col)
        if op in _OPS:
            mask = _OPS[op](arr, pa.scalar(val, type=arr.type) if not isinstance(val, pa.Scalar) else val)
        elif op in ("in", "not in"):
            mask = pc.is_in(arr, value_set=pa.array(list(val), type=arr.type))
            if op == "not in":
                mask = pc.invert(mask)
        else:
            raise ValueError(f"unknown filter operator {op!r}")
        t = t.filter(pc.fill_null(mask, False))
    if columns:
        cols = list(columns)
        unknown = [c for c in cols if c not in t.column_names]
        if unknown:
            raise KeyError(f"unknown columns: {', '.join(unknown)}")
        t = t.select(cols)
    return t


def read_table(path, query: str = "snapshot", as_of=None, begin=None, end=None, columns=None,
               filters=None) -> pa.Table:
    """Read a Hudi table as a pyarrow Table (``_hoodie_*`` columns first)."""
    return HudiTable(path).read(query=query, as_of=as_of, begin=begin, end=end, columns=columns, filters=filters)
