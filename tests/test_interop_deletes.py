"""Deletes as Java Hudi writes and merges them (issue 15, item 4).

* A ``delete`` operation carries Hudi's default ordering value, IntWrapper 0, as Java's delete helper
  writes it (keys only, empty payloads), in 0.x and 1.x: it always wins.
* Table version 6 follows Hudi 0.x: a log delete always removes the base row (the delete's payload is
  empty), whatever the ordering values; version 8 follows 1.x's event-time rule: a delete carrying a real
  ordering value smaller than the base row's leaves the row.
* The Arrow merge and the record merge agree.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log import open_log
from hudi_log.format.content.deletes import OrderingKind
from hudi_log.format.grammar import BlockType
from hudi_log.table import HudiTable, read_table
from hudi_log.table.read.query import read_slice
from hudi_log.table.write.client import write_table

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("_hoodie_is_deleted", pa.bool_())])


def opts(version: int) -> dict:
    o = {"hoodie.table.name": "d", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
         "hoodie.write.table.version": str(version),
         # blocks are planted into the data logs by hand below, which a metadata table's listing would not know
         "hoodie.metadata.enable": "false"}
    if version == 6:  # Hudi 0.x's event-time payload
        o["hoodie.datasource.write.payload.class"] = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
    return o


def rows(items) -> pa.Table:
    return pa.Table.from_pylist([{"id": k, "val": v, "ts": ts, "_hoodie_is_deleted": d} for k, v, ts, d in items],
                                schema=SCHEMA)


def both_ways(path) -> list[tuple]:
    plan = HudiTable(path).plan()
    out = []
    for task in plan.tasks:
        fast, slow = read_slice(plan, task), read_slice(plan, task, vectorized=False)
        assert fast.equals(slow), (fast.to_pylist(), slow.to_pylist())
        out += [(r["id"], r["val"]) for r in fast.to_pylist()]
    return sorted(out)


@pytest.mark.parametrize("version", [6, 8])
def test_a_delete_operation_carries_the_default_ordering_value(tmp_path, version):
    path = tmp_path / "t"
    write_table(path, rows([("a", "x", 5, False), ("b", "y", 5, False)]), "insert", opts(version))
    write_table(path, rows([("a", "x", 1, False)]), "delete", opts(version))  # its ts is lower: still deleted
    deletes = [d for f in path.rglob(".*.log.*") for b in open_log(f) if b.block_type == BlockType.delete_block
               for d in b.deletes()]
    assert [(d.record_key, d.ordering_value, d.ordering_kind) for d in deletes] == [("a", 0, OrderingKind.INT)]
    assert both_ways(path) == [("b", "y")]


@pytest.mark.parametrize("version,survives", [(6, False), (8, True)])
def test_a_lower_ordered_log_delete_against_the_base_row(tmp_path, version, survives):
    path = tmp_path / "t"
    write_table(path, rows([("a", "x", 5, False), ("b", "y", 5, False)]), "insert", opts(version))
    write_table(path, rows([("a", "gone", 3, True)]), "upsert", opts(version))  # a soft delete, ts 3 < 5
    assert HudiTable(path).properties.merge_mode == "EVENT_TIME_ORDERING"
    expected = [("a", "x"), ("b", "y")] if survives else [("b", "y")]
    assert both_ways(path) == expected
    assert sorted((r["id"], r["val"]) for r in read_table(path).to_pylist()) == expected


# Hudi 1.x (table version 8): FileGroupRecordBuffer.doProcessNextDeletedRecord keeps an earlier log record
# over a delete only when the delete's ordering value is real, of the record's class and smaller; merge()
# against the base row compares without a class check; a processing-time delete already held stays.

def _entry(key, ordering, kind, delete=False, default=False):
    from hudi_log.table.read.scanner import Entry
    return Entry(key, None if delete else {"id": key}, None if ordering is None else (ordering,), default, kind)


@pytest.mark.parametrize("delete_kind,record_stays", [("LONG", True), ("INT", False)])
def test_v8_delete_against_an_earlier_log_record_checks_the_class(delete_kind, record_stays):
    from hudi_log.table.read.scanner import combine, combine_with_base
    record, delete = _entry("a", 9, "LONG"), _entry("a", 7, delete_kind, delete=True)
    won = combine(record, delete, "EVENT_TIME_ORDERING", 8)
    assert (won is record) == record_stays
    # against the base row, 1.x's merge() compares the values whatever their class: the row stays
    assert combine_with_base(record, delete, "EVENT_TIME_ORDERING", 8) is record


def test_v8_a_held_processing_time_delete_stays():
    from hudi_log.table.read.scanner import combine
    held = _entry("a", 0, "INT", delete=True, default=True)
    later = _entry("a", 7, "LONG", delete=True)
    assert combine(held, later, "EVENT_TIME_ORDERING", 8) is held
    # so a later record wins whatever its ordering value
    assert combine(held, _entry("a", 1, "LONG"), "EVENT_TIME_ORDERING", 8).record is not None


@pytest.mark.parametrize("delete_kind,survives", [("LONG", True), ("INT", False)])
def test_v8_log_delete_of_another_class_on_both_read_paths(tmp_path, delete_kind, survives):
    from hudi_log.format.content.deletes import DeleteRecord, encode_delete_payload
    from hudi_log.format import grammar
    from hudi_log.format.block import LogBlock
    from hudi_log.format.framing import write_blocks
    from hudi_log.format.grammar import HeaderKey
    path = tmp_path / "t"
    write_table(path, rows([("a", "x", 5, False), ("b", "y", 5, False)]), "insert", opts(8))
    write_table(path, rows([("a", "new", 9, False)]), "upsert", opts(8))
    [log] = [f for f in path.rglob(".*.log.*") if ".hoodie" not in f.relative_to(path).parts]  # the data log
    instant = next(b for b in open_log(log)).instant_time
    payload = encode_delete_payload([DeleteRecord("a", "", 7, OrderingKind[delete_kind])])
    block = LogBlock.new(BlockType.delete_block, {HeaderKey.instant_time: instant},
                         grammar.delete_content(3, payload))
    write_blocks(log, [block], append=True)  # as a Java writer appends to the same file in the same commit
    expected = [("a", "new"), ("b", "y")] if survives else [("b", "y")]
    assert both_ways(path) == expected
    assert sorted((r["id"], r["val"]) for r in read_table(path).to_pylist()) == expected
