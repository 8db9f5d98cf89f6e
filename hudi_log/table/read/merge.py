"""Merging a file slice on Arrow: the base file and the merged log, with vectorized key lookups.

The result is the one the record-by-record merge (``read._slice_rows``, Java semantics in scanner.py)
gives, row order included (a caller that needs no order, as Spark's, may get the rows in another one:
``ordered``); slices this module cannot merge exactly raise :class:`NotVectorizable` and
the caller uses the record path.

* The scanner decides which blocks count and in which order (skips, rollbacks, log compaction).
* Every data block becomes an Arrow table (:meth:`LogBlock.to_arrow`, columnar where possible) and
  every record or delete an *entry*: key, position in the merge order, delete flag, default-ordering
  flag, ordering value.
* The winner per key, as Java's fold over the entries would choose it:
  * commit-time ordering: the last entry;
  * event-time ordering: the entry with the greatest ordering value (null lowest), ties to the later
    one; a delete carrying the default ordering value wins whatever precedes it. Only when such a
    delete is not the key's last entry does the fold depend on more than that (the next record wins
    unconditionally): those slices go the record path.
  * table version 8+ (Hudi 1.x): a delete whose ordering value is of another class than the records'
    always beats an earlier log record: slices holding such deletes go the record path;
  * table version 6 (Hudi 0.x): a delete folds against the other entries of its key by its own rule
    (scanner.combine); slices where a delete meets another log entry of its key go the record path.
* Base rows are then combined with their key's winner (the log's winner replaces the base row under
  commit-time ordering; under event-time ordering when its ordering value is ≥ the base row's, or it is
  a default-ordering delete; on table version 6 a log delete always removes the base row, as Hudi 0.x's
  readers and compaction do). Output: base rows in file order (replaced or dropped), then keys only the
  log holds, in order of first appearance.
* The log's keys and the base file's are hashed once, together (one dictionary encoding over both): its
  codes give each key's winner and each base row's.
* A base file can be given as a :class:`TwoStepBase`: the merge reads the columns that decide which base
  rows the log replaces (the record key, the ordering field) first, and the file's other columns only if
  some base row survives. A slice whose log replaces every base row (an update-heavy file group before its
  compaction) leaves the rest of its base file unread. Likewise the log's data blocks: the last is decoded
  whole, an earlier one on the merge's columns first and on the others only where one of its rows is taken
  (:class:`_LogRows`).
Vectorized: one ordering field (or none), record keys from ``_hoodie_record_key`` or from string /
integer key fields, no NaN ordering values; anything else is :class:`NotVectorizable`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...format.content.deletes import OrderingKind
from ...format.grammar import BlockType
from ..view.base_file import conform
from .scanner import COMMIT_TIME, EMPTY_KEY_PART, KEY_FIELD, NULL_KEY_PART, MergedLogScanner, default_orderings

_KEY, _POS, _DEL, _DEF, _ORD, _ROW, _CODE = "__key", "__pos", "__del", "__default", "__ord", "__row", "__code"


class NotVectorizable(Exception):
    """This slice needs the record-by-record merge to stay exact."""


class TwoStepBase:
    """A slice's base file, read in two steps: ``read(schema)`` gives the file's columns of ``schema`` (a
    sub-schema of the merge's) conformed to it. :meth:`merge_part` holds the record key and the ordering
    field (the key fields too where the record key is empty); :meth:`full` adds the other columns."""

    def __init__(self, read: Callable[[pa.Schema], pa.Table], schema: pa.Schema):
        self._read, self.schema = read, schema
        self._part: pa.Table | None = None

    def merge_part(self, key_fields, ordering_fields) -> pa.Table:
        if self._part is None:
            names = [n for n in (KEY_FIELD, *ordering_fields) if n in self.schema.names]
            part = self._read(self._sub(names))
            if KEY_FIELD not in part.column_names or part.column(KEY_FIELD).null_count:
                part = self._read(self._sub(names + [k for k in key_fields if k in self.schema.names]))
            self._part = part
        return self._part

    def full(self, names=None) -> pa.Table:
        """The base rows on ``names`` (the schema's columns by default), in that order."""
        names = self.schema.names if names is None else list(names)
        part = self._part if self._part is not None else pa.table({})
        rest = [n for n in names if n not in part.column_names]
        more = self._read(self._sub(rest)) if rest else None
        return pa.table([part.column(n) if n in part.column_names else more.column(n) for n in names], names=names)

    def _sub(self, names) -> pa.Schema:
        wanted = set(names)
        return pa.schema([f for f in self.schema if f.name in wanted])


def record_keys(t: pa.Table, key_fields) -> pa.ChunkedArray:
    """Hudi's record key of each row: ``_hoodie_record_key``, else built from the record-key fields as
    :func:`~hudi_log.table.read.scanner.virtual_key` builds it."""
    meta = t.column(KEY_FIELD) if KEY_FIELD in t.column_names else pa.chunked_array([pa.nulls(t.num_rows, pa.string())])
    if meta.null_count == 0:
        return meta.cast(pa.string())
    if not key_fields or any(f not in t.column_names for f in key_fields):
        raise NotVectorizable("rows without a record key")
    parts = []
    for f in key_fields:
        c = t.column(f)
        if not (pa.types.is_string(c.type) or pa.types.is_large_string(c.type) or pa.types.is_integer(c.type)):
            raise NotVectorizable(f"key field {f} of type {c.type}")
        c = c.cast(pa.string())
        if len(key_fields) == 1:
            parts.append(pc.fill_null(c, "None"))  # str(None), as the record path formats it
            continue
        c = pc.if_else(pc.equal(c, ""), EMPTY_KEY_PART, c)
        parts.append(pc.binary_join_element_wise(f"{f}:", pc.fill_null(c, NULL_KEY_PART), ""))
    built = parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, ",")
    return pc.if_else(pc.is_null(meta), built, meta.cast(pa.string()))


def _arange(start: int, n: int) -> pa.Array:
    """start, start + 1, ... (n values, int64), from numpy without a copy."""
    return pa.array(np.arange(start, start + n, dtype=np.int64))


def _ordering(t: pa.Table, ordering_fields, typ) -> pa.ChunkedArray:
    if not ordering_fields or ordering_fields[0] not in t.column_names:
        return pa.chunked_array([pa.nulls(t.num_rows, typ)])
    return t.column(ordering_fields[0])


def merge_slice(base: pa.Table | TwoStepBase | None, scanner: MergedLogScanner, schema: pa.Schema,
                out=None, ordered: bool = True) -> pa.Table:
    """Base rows (a table already conformed to ``schema``, or a :class:`TwoStepBase` of it) merged with the
    scanner's log; conforms to ``schema``, or holds only the columns ``out`` names (in that order) where it
    is given. ``schema`` may be a projection that keeps the columns the merge reads (keys, ordering, delete
    markers): only those are decoded from the log blocks; ``out`` leaves the merge's own columns out of the
    rows taken. ``ordered=False`` allows the rows in any order (the same rows): where the log's rows replace
    every base row, they are handed on in the log's order, not reordered to the base file's."""
    out = schema.names if out is None else list(out)
    ordering_fields = scanner.ordering_fields
    if len(ordering_fields) > 1:
        raise NotVectorizable("several ordering fields")
    ord_type = schema.field(ordering_fields[0]).type if ordering_fields and ordering_fields[0] in schema.names \
        else pa.null()
    key_fields = scanner.key_fields
    blocks = list(scanner.queued_blocks())
    last_data = max((i for i, b in enumerate(blocks) if b.block_type != BlockType.delete_block), default=-1)
    records = _LogRows(schema, out, key_fields, ordering_fields)
    entries: list[pa.Table] = []
    pos = rows = 0
    data_kinds: set = set()  # the ordering field's Avro kinds in the data blocks (Java's classes)
    delete_kinds: set = set()  # the kinds of the real (non-default) ordering values of deletes
    for i, block in enumerate(blocks):
        if block.block_type == BlockType.delete_block:
            ds = block.delete_columns()  # columns straight from the payload: no record object per delete
            ovs, n = ds.values, len(ds)
            default = default_orderings(ds.kind_codes, ovs)
            delete_kinds |= {OrderingKind(c).name for c in {c for c, d in zip(ds.kind_codes, default) if not d}}
            if OrderingKind.ARRAY.value in ds.kind_codes:
                raise NotVectorizable("composite delete ordering values")
            try:
                ords = pa.array(ovs).cast(ord_type) if ordering_fields else pa.nulls(n, ord_type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
                raise NotVectorizable(f"delete ordering values vs {ord_type}: {e}") from e
            entries.append(pa.table({
                _KEY: pa.array(ds.record_keys, pa.string()),
                _POS: _arange(pos, n), _DEL: pa.repeat(True, n), _DEF: pa.array(default, pa.bool_()),
                _ORD: ords, _ROW: pa.nulls(n, pa.int64())}))
        else:
            data_kinds.add(scanner._ordering_kind(block))
            t = records.add(block, whole=i == last_data)
            n = t.num_rows
            scanner.stats.records += n
            soft = pa.chunked_array([pa.repeat(False, n)])
            if "_hoodie_is_deleted" in t.column_names and pa.types.is_boolean(t.schema.field("_hoodie_is_deleted").type):
                soft = pc.fill_null(t.column("_hoodie_is_deleted"), False)
            if "_hoodie_operation" in t.column_names:
                soft = pc.or_(soft, pc.fill_null(pc.equal(t.column("_hoodie_operation").cast(pa.string()), "D"), False))
            entries.append(pa.table({
                _KEY: record_keys(t, key_fields), _POS: _arange(pos, n),
                _DEL: soft, _DEF: pa.repeat(False, n), _ORD: _ordering(t, ordering_fields, ord_type),
                _ROW: _arange(rows, n)}))
            rows += n
        pos += n
    entries = [t for t in entries if t.num_rows]  # a block of no records (a damaged count) changes nothing
    if not entries:
        return _full(base, out) if base is not None else _select(schema.empty_table(), out)
    e = pa.concat_tables(entries)
    if e.column(_KEY).null_count:
        raise NotVectorizable("null record keys")
    if pa.types.is_floating(ord_type) and pc.any(pc.is_nan(e.column(_ORD))).as_py():
        raise NotVectorizable("NaN ordering values")
    base_part = None
    if base is not None:
        if isinstance(base, TwoStepBase):  # commit-time ordering never compares the base row's ordering value
            base_part = base.merge_part(key_fields, ordering_fields if scanner.merge_mode != COMMIT_TIME else ())
        else:
            base_part = base
    codes, base_codes = _codes(e.column(_KEY), record_keys(base_part, key_fields) if base_part is not None else None)
    if scanner.table_version < 8 and pc.any(e.column(_DEL)).as_py():
        # Hudi 0.x folds a delete against an earlier entry of its key by its own rule: the record path does that
        counts = np.bincount(codes)
        deleted = codes[e.column(_DEL).to_numpy(zero_copy_only=False)]
        if (counts[deleted] > 1).any():
            raise NotVectorizable("a delete among several log entries of its key (Hudi 0.x rules)")
    if scanner.table_version >= 8 and delete_kinds and scanner.merge_mode != COMMIT_TIME and \
            (len(data_kinds) != 1 or delete_kinds != data_kinds or None in data_kinds):
        # Hudi 1.x keeps an earlier log record over a delete only for an ordering value of the same class
        raise NotVectorizable("a delete whose ordering value's class differs from the records' (Hudi 1.x rules)")
    winners = _winners(e, codes, scanner.merge_mode)
    return _combine(base, base_part, base_codes, records, winners, scanner.merge_mode, ordering_fields, ord_type,
                    scanner.table_version, ordered)


class _LogRows:
    """The rows of the log's data blocks, in merge order. The last data block is decoded whole (its records
    win, under commit-time ordering all of them); an earlier one first on the merge's columns alone (record
    key, ordering field, delete markers), and on the other columns only where one of its rows is taken. A
    log file whose records a later one replaces entirely (an update-heavy file group, each delta commit
    rewriting the same keys) is then never decoded beyond its keys."""

    def __init__(self, schema: pa.Schema, out: list[str], key_fields, ordering_fields):
        self.schema, self.out, self.key_fields = schema, out, key_fields
        merge = {KEY_FIELD, *ordering_fields, "_hoodie_is_deleted", "_hoodie_operation"}
        self.merge_names = [n for n in schema.names if n in merge]
        self.parts: list[tuple] = []  # (block, table, whole)
        self.starts = [0]

    def add(self, block, whole: bool) -> pa.Table:
        """The block's rows on the merge's columns at least (all of them when ``whole``)."""
        if whole:
            t = self._decode(block, self.schema.names)
        else:
            t = self._decode(block, self.merge_names)
            if KEY_FIELD not in t.column_names or t.column(KEY_FIELD).null_count:  # keys from the key fields
                t = self._decode(block, self.merge_names + [k for k in self.key_fields if k in self.schema.names])
        self.parts.append((block, t, whole))
        self.starts.append(self.starts[-1] + t.num_rows)
        return t

    def rows_for(self, idx: np.ndarray) -> tuple[pa.Table, np.ndarray]:
        """The blocks rows ``idx`` (over all the blocks' rows) fall in, completed on the ``out`` columns and
        joined, and ``idx`` as indices into them; the other blocks are left as they are."""
        if not len(idx):
            return _select(self.schema.empty_table(), self.out), idx
        starts = np.asarray(self.starts[:-1], np.int64)
        which = np.searchsorted(starts, idx, side="right") - 1
        used = np.flatnonzero(np.bincount(which, minlength=len(self.parts)))
        moved = np.zeros(len(self.parts), np.int64)
        tables, at = [], 0
        for b in used:
            t = self._complete(b)
            moved[b] = at - starts[b]
            at += t.num_rows
            tables.append(t)
        return pa.concat_tables(tables), idx + moved[which]

    def _complete(self, b: int) -> pa.Table:
        block, t, whole = self.parts[b]
        rest = [n for n in self.out if n not in t.column_names]
        if rest:
            more = self._decode(block, rest)
            t = pa.table([t.column(n) if n in t.column_names else more.column(n) for n in self.out], names=self.out)
        return _select(t, self.out)

    def _decode(self, block, names) -> pa.Table:
        wanted = set(names)
        sub = pa.schema([f for f in self.schema if f.name in wanted])
        return conform(block.to_arrow(columns=sub.names), sub, strict=False)  # a read keeps a column it cannot cast


def _full(base: pa.Table | TwoStepBase, names: list[str]) -> pa.Table:
    return base.full(names) if isinstance(base, TwoStepBase) else _select(base, names)


def _select(t: pa.Table, names: list[str]) -> pa.Table:
    return t if t.column_names == names else t.select(names)


def _codes(log_keys: pa.ChunkedArray, base_keys: pa.ChunkedArray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Dictionary codes of the log's keys and the base file's (-1 for a null base key), from one hash table:
    codes count up in order of first appearance and the log's keys come first, so the log's distinct keys
    are 0..k-1 and a base key whose code is below k is a key the log holds."""
    chunks = list(log_keys.cast(pa.string()).chunks)
    n_log = sum(len(c) for c in chunks)
    if base_keys is not None:
        chunks += list(base_keys.cast(pa.string()).chunks)
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, pa.string()))
    parts = [pc.fill_null(c.indices, -1).to_numpy(zero_copy_only=False) for c in encoded.chunks]
    codes = np.concatenate(parts) if parts else np.zeros(0, np.int32)
    return codes[:n_log], (codes[n_log:] if base_keys is not None else None)


def _group_ends(codes: pa.Array, order: pa.Array) -> pa.Array:
    """Mask over ``order`` (indices sorted by code first): True at the last index of each code."""
    k = pc.take(codes, order)
    n = len(k)
    if n == 0:
        return pa.array([], pa.bool_())
    return pa.concat_arrays([pc.not_equal(k.slice(0, n - 1), k.slice(1)), pa.array([True])])


def _last_per_code(codes: np.ndarray, n_codes: int) -> pa.Array:
    """Index of each code's last row, by code (entries are in merge order: that is its last entry)."""
    last = np.full(n_codes, -1, np.int64)
    np.maximum.at(last, codes, np.arange(len(codes), dtype=np.int64))
    return pa.array(last)


def _winners(e: pa.Table, codes: np.ndarray, merge_mode: str) -> pa.Table:
    """One row per key (the entry Java's fold keeps), in order of the key's first appearance, which is the
    order of its code (:func:`_codes`): winner i is the key of code i."""
    n_codes = int(codes.max()) + 1 if len(codes) else 0
    e = e.drop_columns([_KEY]).append_column(_CODE, pa.array(codes, pa.int32()))  # keys are their codes now
    if n_codes == e.num_rows:  # every key once (an upsert of distinct keys): each entry wins
        return e
    if merge_mode == COMMIT_TIME:  # the columns _combine reads of a winner
        return e.select([_DEL, _ROW]).take(_last_per_code(codes, n_codes))
    codes = e.column(_CODE).combine_chunks()
    by_pos = pc.sort_indices(e, sort_keys=[(_CODE, "ascending"), (_POS, "ascending")])  # positions ascend
    if pc.any(e.column(_DEF)).as_py():
        last_pos = pc.take(e.column(_POS), pc.filter(by_pos, _group_ends(codes, by_pos)))  # per code
        d = e.filter(e.column(_DEF))
        if not pc.all(pc.equal(d.column(_POS), pc.take(last_pos, d.column(_CODE)))).as_py():
            raise NotVectorizable("a default-ordering delete followed by more entries of its key")
    order = pc.sort_indices(e, sort_keys=[(_CODE, "ascending", "at_start"), (_DEF, "ascending", "at_start"),
                                          (_ORD, "ascending", "at_start"), (_POS, "ascending", "at_start")])
    return e.take(pc.filter(order, _group_ends(codes, order)))


def _ge(a, b):
    """a ≥ b with Hudi's null rule: null never beats non-null; null vs null counts as ≥."""
    if pa.types.is_null(a.type) or pa.types.is_null(b.type):  # a side with no ordering column at all
        return pc.is_null(b)
    both = pc.and_(pc.is_valid(a), pc.is_valid(b))
    return pc.if_else(both, pc.greater_equal(a, b), pc.is_null(b))


def _flat(a) -> pa.Array:
    """``a`` as one int64 Array (ChunkedArrays combined)."""
    a = a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a
    return a.cast(pa.int64())


def _combine(base, base_part, base_codes, log_rows: _LogRows, winners, merge_mode, ordering_fields, ord_type,
             table_version: int = 8, ordered: bool = True) -> pa.Table:
    """The slice's rows: base rows in file order (kept, replaced by their key's winner, or dropped by a
    delete), then the winners of keys only the log holds. ``base_part``: the base rows' merge columns;
    ``base_codes``: their keys' codes (:func:`_codes`)."""
    nb = base_part.num_rows if base_part is not None else 0
    nw = winners.num_rows
    take_base = np.zeros(0, np.int64)
    in_base = np.zeros(nw, np.bool_)
    if nb:
        hit = (base_codes >= 0) & (base_codes < nw)  # the base row's key is in the log: codes < nw are its keys
        wi = pa.array(np.where(hit, base_codes, 0))
        matched = pa.array(hit)
        w_del = pc.take(winners.column(_DEL), wi)
        w_row = pc.take(winners.column(_ROW), wi)
        if merge_mode == COMMIT_TIME:
            log_wins = matched
        else:
            w_def = pc.take(winners.column(_DEF), wi)
            w_ord = pc.take(winners.column(_ORD), wi)
            b_ord = _ordering(base_part, ordering_fields, ord_type)
            # a log delete beats the base record: always in Hudi 0.x, in 1.x when it is a processing-time
            # delete (default ordering) or its ordering value is not smaller
            deletes_win = w_del if table_version < 8 else pc.and_(w_del, w_def)
            log_wins = pc.and_(matched, pc.or_(deletes_win, _ge(w_ord, b_ord)))
        keep = pc.invert(pc.and_(log_wins, w_del))
        src = pc.if_else(log_wins, pc.add(w_row, nb), _arange(0, nb))
        take_base = _flat(pc.filter(src, keep)).to_numpy()
        in_base[base_codes[hit]] = True
    only_log = winners.filter(pa.array(~in_base & ~_bools(winners.column(_DEL))))
    idx = np.concatenate([take_base, _flat(only_log.column(_ROW)).to_numpy() + nb])
    from_base = idx < nb
    if len(idx) and from_base.all():  # every row the base file's: no log block is completed
        return _full(base, log_rows.out).take(pa.array(idx))
    logs, at = log_rows.rows_for(idx[~from_base] - nb)
    if not from_base.any():  # no base row survives: the base file's other columns are never read
        if not ordered and _each_once(at, logs.num_rows):
            return logs
        return logs.take(pa.array(at))
    idx[~from_base] = at + nb
    # one table and one contiguous index array: Arrow's take with chunked indices is ~10x slower
    return pa.concat_tables([_full(base, log_rows.out), logs]).take(pa.array(idx))


def _each_once(idx: np.ndarray, n: int) -> bool:
    """``idx`` takes each of ``n`` rows exactly once (a permutation; a base file holding a key twice takes its
    winner twice)."""
    return len(idx) == n and bool((np.bincount(idx, minlength=n) == 1).all())


def _bools(a) -> np.ndarray:
    a = a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a
    return a.to_numpy(zero_copy_only=False).astype(np.bool_)
