"""The Arrow merge (table/merge.py) against the record-by-record merge: generated logs (data blocks,
deletes with default / explicit / null ordering values, rollbacks) over a generated base file, in both
merge modes; and every corpus query read both ways."""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_log import write_blocks
from hudi_log.format.content.avro_arrow import avro_to_arrow_schema
from hudi_log.format.content.deletes import OrderingKind
from hudi_log.table import HudiTable
from hudi_log.table.read.merge import NotVectorizable, TwoStepBase, merge_slice
from hudi_log.table.read.query import ReadContext, SliceTask, _read_base, _scanner, read_slice
from hudi_log.table.read.scanner import COMMIT_TIME, EVENT_TIME

from test_scanner_scenarios import FILE_ID, SCHEMA, data_block, delete_block, make_records, rollback_block

INSTANTS = ["100", "101", "102", "103", "104"]
KEYS = st.lists(st.integers(0, 7), min_size=1, max_size=6, unique=True)
OPS = st.lists(st.one_of(
    st.tuples(st.just("data"), st.sampled_from(INSTANTS), KEYS, st.integers(-2, 3)),
    st.tuples(st.just("delete"), st.sampled_from(INSTANTS), KEYS,
              st.sampled_from([(0, OrderingKind.INT), (None, OrderingKind.NULL), (2, OrderingKind.INT),
                               (-1, OrderingKind.INT), (3, OrderingKind.LONG)])),
    st.tuples(st.just("rollback"), st.sampled_from(INSTANTS)),
), min_size=1, max_size=8)


def _table_schema() -> pa.Schema:
    return pa.schema([f.with_nullable(True) for f in avro_to_arrow_schema(SCHEMA)])


def _build(root, ops, base_keys, base_ts):
    blocks = []
    for op in ops:
        if op[0] == "data":
            blocks.append(data_block(op[1], op[2], ts=op[3]))
        elif op[0] == "delete":
            value, kind = op[3]
            blocks.append(delete_block(op[1], op[2], value, kind))
        else:
            blocks.append(rollback_block("105", op[1]))
    log = root / f".{FILE_ID}_100.log.1_1-0-1"
    write_blocks(log, blocks)
    base = None
    if base_keys:
        base = root / f"{FILE_ID}_1-0-1_099.parquet"
        pq.write_table(pa.Table.from_pylist(make_records("099", base_keys, ts=base_ts), schema=_table_schema()), base)
    return SliceTask("p1", FILE_ID, "099", str(base) if base else None, (str(log),), 0)


def _rows(t: pa.Table) -> list:
    """The table's rows, sorted: the same rows in any order compare equal."""
    return sorted((tuple(r.items()) for r in t.to_pylist()), key=repr)


def _context(mode: str) -> ReadContext:
    return ReadContext(table_path="", query="snapshot", bound=None, begin=None, table_version=6,
                       ordering_fields=("ts",), merge_mode=mode, key_fields=("key",), completed=frozenset(INSTANTS),
                       timeline_start=None, table_schema=_table_schema())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, base_keys=st.lists(st.integers(0, 7), max_size=5, unique=True), base_ts=st.integers(-1, 2),
       mode=st.sampled_from([EVENT_TIME, COMMIT_TIME]))
def test_arrow_merge_equals_record_merge(tmp_path_factory, ops, base_keys, base_ts, mode):
    root = tmp_path_factory.mktemp("m")
    task = _build(root, ops, base_keys, base_ts)
    ctx = _context(mode)
    expected = read_slice(ctx, task, vectorized=False)
    assert read_slice(ctx, task).equals(expected)  # the base file read in two steps (TwoStepBase)
    assert _rows(read_slice(replace(ctx, ordered=False), task)) == _rows(expected)  # Spark's: any order
    base = pq.read_table(task.base_file) if task.base_file else None
    try:
        got = merge_slice(base, _scanner(ctx, task), ctx.table_schema)
    except NotVectorizable as e:  # only the cases the module documents as order-dependent
        assert "default-ordering delete" in str(e) and mode == EVENT_TIME or "Hudi 0.x rules" in str(e)
        return
    assert got.equals(expected), (got.to_pylist(), expected.to_pylist())


def test_every_corpus_query_is_the_same_both_ways(corpus_tables):
    for name, root in sorted(corpus_tables.items()):
        table = HudiTable(root)
        commits = [i.requested_time for i in table.timeline.completed_commits()]
        for q in [{}] + [{"as_of": c} for c in commits]:
            plan = table.plan(**q)
            for t in plan.tasks:
                assert read_slice(plan, t).equals(read_slice(plan, t, vectorized=False)), (name, q, t.file_id)


def test_schema_evolution_across_blocks(tmp_path):
    """A later block's writer schema adds a column and widens nothing else: older rows are null-filled,
    the same both ways."""
    import json

    from hudi_log import BlockType, LogBlock
    from hudi_log.format.content.avro import encode_records
    from hudi_log.format.grammar import avro_data_content

    evolved = dict(SCHEMA, fields=SCHEMA["fields"] + [{"name": "extra", "type": ["null", "long"], "default": None}])
    recs = [dict(r, extra=7) for r in make_records("101", [1, 5], ts=1)]
    b2 = LogBlock.new(BlockType.avro_data_block, {"INSTANT_TIME": "101", "SCHEMA": json.dumps(evolved)},
                      avro_data_content(3, encode_records(recs, evolved)))
    log = tmp_path / f".{FILE_ID}_100.log.1_1-0-1"
    write_blocks(log, [data_block("100", [1, 2, 3]), b2])
    schema = pa.schema([f.with_nullable(True) for f in avro_to_arrow_schema(evolved)])
    ctx = ReadContext(table_path="", query="snapshot", bound=None, begin=None, table_version=6,
                      ordering_fields=("ts",), merge_mode=EVENT_TIME, key_fields=("key",),
                      completed=frozenset(INSTANTS), timeline_start=None, table_schema=schema)
    task = SliceTask("p1", FILE_ID, "100", None, (str(log),), 0)
    got = merge_slice(None, _scanner(ctx, task), schema)
    assert got.equals(read_slice(ctx, task, vectorized=False))
    assert {r["key"]: r["extra"] for r in got.to_pylist()} == {"key0001": 7, "key0002": None, "key0003": None,
                                                               "key0005": 7}


def test_base_columns_past_the_merge_are_read_only_where_a_base_row_survives(tmp_path):
    """A log that replaces every base row leaves the base file's other columns unread; one base row left
    over reads them, and both merges are the record path's."""
    ctx = _context(EVENT_TIME)
    schema = ctx.table_schema
    for base_keys, rest_read in (([1, 2], False), ([1, 2, 3], True)):
        root = tmp_path / str(len(base_keys))
        root.mkdir()
        task = _build(root, [("data", "100", [2, 1, 5], 1)], base_keys, 0)
        asked = []

        def read(sub, path=task.base_file):
            asked.append(sub.names)
            return _read_base(path, sub)

        got = merge_slice(TwoStepBase(read, schema), _scanner(ctx, task), schema)
        assert got.equals(read_slice(ctx, task, vectorized=False))
        assert asked[0] == ["_hoodie_record_key", "ts"]
        assert (len(asked) == 2) == rest_read
        if rest_read:
            assert set(asked[1]) == set(schema.names) - {"_hoodie_record_key", "ts"}


def test_unordered_merge_hands_on_the_log_rows_as_they_are(tmp_path):
    """Where the log replaces every base row, a read that needs no order (Spark's) gets the log's rows in the
    log's order, not reordered to the base file's; a base file holding a key twice still gets its winner
    twice (the log's rows are not all taken once), in either mode."""
    for mode in (EVENT_TIME, COMMIT_TIME):
        ctx = _context(mode)
        for name, log_keys, base_keys in (("all", [2, 1, 5], [1, 2]), ("dup", [1, 1], [1, 1])):
            root = tmp_path / f"{mode}-{name}"
            root.mkdir()
            task = _build(root, [("data", "100", log_keys, 1)], base_keys, 0)
            expected = read_slice(ctx, task, vectorized=False)
            assert read_slice(ctx, task).equals(expected)
            got = read_slice(replace(ctx, ordered=False), task)
            assert _rows(got) == _rows(expected)
            keys = got.column("key").to_pylist()
            if name == "all":
                assert keys == ["key0002", "key0001", "key0005"]  # the log's order
                assert expected.column("key").to_pylist() == ["key0001", "key0002", "key0005"]  # the base's
            else:
                assert keys == ["key0001", "key0001"] and got.column("val").to_pylist() == ["100:1", "100:1"]
