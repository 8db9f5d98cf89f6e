"""Log-compacted blocks (COMPACTED_BLOCK_TIMES, catalogue S17, C12): the scanner places each compacted
block once, at the position of the newest instant it covers, and skips the blocks it replaces."""

from __future__ import annotations

from hudi_log import BlockType, LogBlock
from hudi_log.format.content.avro import encode_records
from hudi_log.format.grammar import avro_data_content
from hudi_log.table.read.scanner import COMMIT_TIME, EVENT_TIME

from test_scanner_scenarios import SCHEMA, SCHEMA_JSON, data_block, keys, log, make_records, truncated_header  # noqa: F401


def compacted_block(instant: str, covers: str, records: list[dict]) -> LogBlock:
    header = {"INSTANT_TIME": instant, "SCHEMA": SCHEMA_JSON, "COMPACTED_BLOCK_TIMES": covers}
    return LogBlock.new(BlockType.avro_data_block, header, avro_data_content(3, encode_records(records, SCHEMA)))


def test_s17_compacted_blocks_replace_what_they_cover(log):
    # B1@100, B2@101, B3@102 (100 keys each), two truncated blocks, CB4@103 = B1+B2, CB5@104 = CB4+B3,
    # B6@105, B7@106, B8@107, CB9@108 = B7+B8
    log.append([data_block("100", range(0, 100)), data_block("101", range(100, 200)),
                data_block("102", range(200, 300))])
    log.append_raw(truncated_header() + truncated_header())
    log.append([compacted_block("103", "100,101", make_records("100", range(0, 200)))], version=2)
    log.append([compacted_block("104", "103,102", make_records("100", range(0, 300)))], version=2)
    log.append([data_block("105", range(300, 400)), data_block("106", range(400, 500)),
                data_block("107", range(500, 600))], version=2)
    log.append([compacted_block("108", "106,107", make_records("106", range(400, 600)))], version=2)
    sc = log.scan(completed=None)
    assert [b.instant_time for b in sc.queued_blocks()] == ["104", "105", "108"]
    assert set(sc.records) == keys(range(600))
    assert sc.stats.records == 600  # CB5 + B6 + CB9: nothing merged twice
    assert sc.stats.corrupt_blocks == 2


def test_compacted_block_sits_where_its_newest_covered_instant_was(log):
    # commit-time ordering: B3@102 (not covered) is newer than the compacted copy of B2@101's record
    log.append([data_block("100", [1]), data_block("101", [1], ts=5), data_block("102", [1], ts=3)])
    log.append([compacted_block("103", "100,101", make_records("101", [1], ts=5))], version=2)
    sc = log.scan(completed=None, merge_mode=COMMIT_TIME)
    assert [b.instant_time for b in sc.queued_blocks()] == ["103", "102"]
    assert sc.records["key0001"].record["val"] == "102:1"
    # event-time ordering: the compacted record (ts 5) beats B3 (ts 3)
    sc = log.scan(completed=None, merge_mode=EVENT_TIME)
    assert sc.records["key0001"].record["val"] == "101:1"


def test_without_compacted_blocks_the_scan_is_file_ordered(log):
    log.append([data_block("100", [1]), data_block("101", [1]), data_block("100", [2])])
    sc = log.scan(completed=None, merge_mode=COMMIT_TIME)
    assert [b.instant_time for b in sc.queued_blocks()] == ["100", "101", "100"]
