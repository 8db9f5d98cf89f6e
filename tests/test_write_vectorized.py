"""The vectorized write paths (key generator casts, precombine as a sort, routing as a hash lookup) give
exactly what the record-by-record paths give."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_log.table.write import keygen
from hudi_log.table.write import index as key_index
from hudi_log.table.write.index import KeyIndex
from hudi_log.table.write.keygen import KeyGenerator
from hudi_log.table.write.context import WriteContext
from hudi_log.table.write.task import _group_rows, _precombine, _precombine_columns, _route_rows, _take

KEYS = st.sampled_from(["a", "b", "c", "d"])
PARTS = st.sampled_from(["p1", "p2"])


def _ctx(operation="upsert", index=None, ordering="ts") -> WriteContext:
    props = {"hoodie.table.name": "t", "hoodie.table.recordkey.fields": "id",
             "hoodie.table.precombine.field": ordering, "hoodie.table.type": "MERGE_ON_READ",
             "hoodie.table.version": "6"}
    return WriteContext("/nowhere", props, "20250101000000000", "deltacommit", {}, operation,
                        KeyIndex.from_dict(index or {}), {})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(KEYS, PARTS, st.one_of(st.none(), st.integers(-3, 3))), min_size=1, max_size=30),
       st.sampled_from(["int", "float", "str"]))
def test_precombine_sort_equals_fold(rows, kind):
    keys = [r[0] for r in rows]
    parts = [r[1] for r in rows]
    conv = {"int": lambda v: v, "float": lambda v: None if v is None else v + 0.5,
            "str": lambda v: None if v is None else f"v{v + 3}"}[kind]
    ts = [conv(r[2]) for r in rows]
    table = pa.table({"id": keys, "ts": pa.array(ts, {"int": pa.int64(), "float": pa.float64(), "str": pa.string()}[kind])})
    fast = _precombine_columns(_ctx(), table, keys, parts)
    assert fast == _precombine(keys, parts, [(v,) for v in ts])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(KEYS, PARTS), min_size=1, max_size=30),
       st.dictionaries(KEYS, st.tuples(PARTS, st.sampled_from(["f1", "f2", "f3"]))),
       st.sampled_from(["upsert", "delete"]))
def test_routing_equals_dict_lookups(rows, index, operation):
    keys = [r[0] for r in rows]
    parts = [r[1] for r in rows]
    def route(ix):
        return tuple({k: v.tolist() for k, v in d.items()} for d in _route_rows(_ctx(operation, ix), keys, parts))

    updates, inserts = route(index)
    # a batch much smaller than the index; and an index whose hash collides for every key
    big = {f"other{i}": ("p1", "f9") for i in range(16 * len(keys))}
    assert route({**big, **index}) == (updates, inserts)
    real = key_index._hash
    key_index._hash = lambda keys: np.zeros(len(keys), np.uint64)
    try:
        assert route({**big, **index}) == (updates, inserts)
    finally:
        key_index._hash = real
    want_u, want_i = {}, {}
    for i, (k, p) in enumerate(zip(keys, parts)):
        loc = index.get(k)
        if loc is not None and loc[0] == p:
            want_u.setdefault(loc[1], []).append(i)
        elif operation != "delete":
            want_i.setdefault(p, []).append(i)
    assert updates == want_u and inserts == want_i


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(["", "x", "y/z"])),
                          st.one_of(st.none(), st.integers(-5, 5)), st.one_of(st.none(), st.booleans())),
                min_size=1, max_size=20), st.booleans())
def test_partition_paths_vectorized_equal_values(rows, hive):
    table = pa.table({"s": pa.array([r[0] for r in rows], pa.string()), "i": pa.array([r[1] for r in rows], pa.int64()),
                      "b": pa.array([r[2] for r in rows], pa.bool_())})
    kg = KeyGenerator("t", ("s",), ("s", "i", "b"), hive)
    want = []
    for r in rows:
        segs = [keygen.DEFAULT_PARTITION if v is None or v == "" else keygen._text(v) for v in r]
        want.append("/".join(f"{f}={v}" if hive else v for f, v in zip(("s", "i", "b"), segs)))
    assert kg.partition_paths(table) == want


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["f1", "f2", None]), min_size=1, max_size=40), st.data())
def test_grouped_rows_and_their_take(labels, data):
    """Rows grouped by label keep their order; taking them (a slice when they are one run) equals a gather."""
    rows = np.arange(100, 100 + len(labels), dtype=np.int64)
    groups = _group_rows(pa.array(labels, pa.string()), rows)
    want: dict = {}
    for label, r in zip(labels, rows.tolist()):
        want.setdefault(label, []).append(r)
    assert {k: v.tolist() for k, v in groups.items()} == want
    table = pa.table({"x": pa.array(range(len(labels) + 5)), "s": pa.array([f"v{i}" for i in range(len(labels) + 5)])})
    idx = np.array(sorted(data.draw(st.sets(st.integers(0, table.num_rows - 1)))), np.int64)
    assert _take(table, idx).equals(table.take(pa.array(idx, pa.int64())))
    start = data.draw(st.integers(0, table.num_rows - 1))
    run = np.arange(start, table.num_rows, dtype=np.int64)
    assert _take(table.column("s"), run).to_pylist() == table.column("s").to_pylist()[start:]
