"""HFILE_DATA_BLOCKs written through the grammar path (format/framing.py: hfile_data_block).

Java as the oracle: every HFILE block Hudi 1.1 wrote in the corpus is written again from its records,
instant and schema alone, and its content is the same bytes (its whole block too where Java's header
happened to list INSTANT_TIME first, the order hudi-log writes); blocks written to a log file read back
equal through open_log.
"""

from __future__ import annotations

import struct

import pytest

from hudi_log import open_log, write_blocks
from hudi_log.format.content.hfile import HFileError
from hudi_log.format.framing import hfile_data_block

SCHEMA = (
    '{"type":"record","name":"HoodieMetadataRecord","namespace":"org.apache.hudi.avro.model","fields":['
    '{"name":"key","type":{"type":"string","avro.java.string":"String"}},{"name":"type","type":"int"},'
    '{"name":"note","type":["null","string"],"default":null}]}'
)


@pytest.fixture(scope="module")
def corpus_hfile_blocks(corpus_log_files):
    blocks = [b for p in corpus_log_files for b in open_log(p) if b.block_type_name == "HFILE_DATA_BLOCK"]
    assert len(blocks) >= 160
    return blocks


def test_java_written_blocks_are_written_again_byte_for_byte(corpus_hfile_blocks):
    same_content = same_block = 0
    for block in corpus_hfile_blocks:
        contents = block.hfile()
        if contents.minor_version != 0:  # HBase's writer (Hudi 0.x, 1.0): not what hudi-log writes
            continue
        (created,) = struct.unpack(">q", contents.file_info["hfile.CREATE_TIME_TS"])
        again = hfile_data_block(block.instant_time, block.header["SCHEMA"], block.records(), create_time_ms=created)
        assert again.header == block.header
        assert again.content() == block.content(), block.path
        same_content += 1
        if list(block.header) == ["INSTANT_TIME", "SCHEMA"]:
            assert again.to_bytes() == block.to_bytes()
            same_block += 1
    assert same_content >= 125 and same_block >= 20


def test_written_block_reads_back(tmp_path):
    records = [{"key": k, "type": i, "note": None if i % 2 else f"n{i}"} for i, k in enumerate(["b", "a", "\u00e9", "c"])]
    block = hfile_data_block("20250101000000000", SCHEMA, records)
    path = tmp_path / ".files-0000-0_20250101000000000.log.1_0-1-1"
    write_blocks(path, [block])
    (read,) = list(open_log(path))
    assert read.block_type_name == "HFILE_DATA_BLOCK" and not read.corrupt
    assert read.header == {"INSTANT_TIME": "20250101000000000", "SCHEMA": SCHEMA}
    assert read.records() == sorted(records, key=lambda r: r["key"])
    assert read.hfile().file_info["schema"] == SCHEMA.encode()
    assert [c.key for c in read.hfile().records] == ["a", "b", "c", "\u00e9"]


def test_duplicate_keys_refused():
    with pytest.raises(HFileError, match="two records with one key"):
        hfile_data_block("1", SCHEMA, [{"key": "a", "type": 1, "note": None}] * 2)
