"""The forward and reverse readers on intact files: real corpus files, written files, lazy content,
sources, large headers, legacy blocks."""

from __future__ import annotations

import io
import json
import struct

import pytest

from hudi_log import BlockType, LogBlock, ReverseReadError, open_log, read_reverse, write_blocks
from hudi_log.format.content.avro import encode_records
from hudi_log.format.grammar import MAGIC, avro_data_content, serialize_block
from hudi_log.format.reader import MAX_MAP_ENTRIES

SCHEMA = {
    "type": "record", "name": "r",
    "fields": [{"name": "_hoodie_record_key", "type": "string"}, {"name": "payload", "type": "bytes"}],
}


def recs(n: int, start: int = 0, size: int = 10) -> list[dict]:
    return [{"_hoodie_record_key": f"key_{i}", "payload": bytes([i % 256]) * size} for i in range(start, start + n)]


def block(records: list[dict], instant: str = "100", schema: dict = SCHEMA, **extra: str) -> LogBlock:
    header = {"INSTANT_TIME": instant, "SCHEMA": json.dumps(schema), **extra}
    return LogBlock.new("AVRO_DATA_BLOCK", header, avro_data_content(3, encode_records(records, schema)))


class CountingFile(io.BytesIO):
    """A seekable file that counts the bytes read from it."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.bytes_read = 0

    def read(self, n=-1):
        out = super().read(n)
        self.bytes_read += len(out)
        return out


def test_corpus_files_read_clean(corpus_log_files):
    for p in corpus_log_files:
        data = p.read_bytes()
        blocks = list(open_log(p))
        assert blocks, p
        pos = 0
        for b in blocks:
            assert not b.corrupt and not b.skipped_by_hudi and b.format_version == 1, p
            assert b.offset == pos and b.path == str(p)
            assert data[b.offset : b.offset + 6] == MAGIC
            pos = b.offset + b.length
        assert pos == len(data)
        assert [(b.offset, b.length) for b in open_log(p, strict=True)] == [(b.offset, b.length) for b in blocks]
        assert [b.offset for b in read_reverse(p)] == [b.offset for b in blocks][::-1]


def test_r1_r2_written_blocks_read_back_in_order(tmp_path):
    path = tmp_path / ".f_100.log.1_0-0-0"
    written = [recs(100), recs(100, 100), recs(100, 200)]
    write_blocks(path, [block(written[0])])
    write_blocks(path, [block(written[1]), block(written[2], "101")], append=True)
    blocks = list(open_log(path))
    assert [b.block_type for b in blocks] == [BlockType.avro_data_block] * 3
    assert [b.records() for b in blocks] == written
    assert [b.instant_time for b in blocks] == ["100", "100", "101"]
    assert all(b.writer_schema() == SCHEMA for b in blocks)


def test_scanning_is_lazy_content_is_read_on_demand():
    big = [block(recs(20, 20 * i, size=50_000)) for i in range(4)]  # 1 MB of content per block
    data = b"".join(b.to_bytes() for b in big)
    f = CountingFile(data)
    blocks = list(open_log(f))
    assert len(blocks) == 4
    # framing only: headers, reverse pointers, the bytes after each block; no content
    assert f.bytes_read < 4 * (64 << 10) + 4096 < len(data) // 3
    before = f.bytes_read
    assert blocks[2].records() == recs(20, 40, size=50_000)
    assert f.bytes_read - before >= blocks[2].content_length
    # reverse reading is lazy too
    f2 = CountingFile(data)
    it = read_reverse(f2)
    next(it), next(it)
    assert f2.bytes_read < len(data) // 3


def test_sources_agree(tmp_path):
    data = block(recs(3)).to_bytes() + block(recs(2, 3)).to_bytes()
    path = tmp_path / ".s_1.log.1_0-0-0"
    path.write_bytes(data)
    expected = [(b.offset, b.length, b.content_offset) for b in open_log(data)]
    with open(path, "rb") as f:
        got_file = [(b.offset, b.length, b.content_offset) for b in open_log(f)]
    for src in (bytearray(data), memoryview(data), path, str(path)):
        assert [(b.offset, b.length, b.content_offset) for b in open_log(src)] == expected
    assert got_file == expected
    blocks = list(open_log(path))
    assert blocks[1].records() == recs(2, 3)  # readable after the scan finished
    with pytest.raises(TypeError):
        list(open_log(12345))


def test_large_header_and_footer_entries():
    """A SCHEMA far larger than the first header read, and a footer with entries, parse."""
    wide = {"type": "record", "name": "wide", "fields": [
        {"name": f"column_with_a_long_name_{i:05d}", "type": ["null", "string"], "default": None} for i in range(6000)]}
    b = block([{}], schema=wide)
    assert len(b.schema) > 300_000
    raw = b.to_bytes()
    (got,) = open_log(raw + raw[:0])
    assert not got.corrupt and got.schema == b.schema and got.records() == [{f["name"]: None for f in wide["fields"]}]
    content = avro_data_content(3, [])
    with_footer = serialize_block(1, BlockType.avro_data_block, b.header_entries[:1], content, b.header_entries[:1])
    (got,) = open_log(with_footer)
    assert not got.corrupt and got.footer == {"INSTANT_TIME": "100"}


def test_header_entry_count_limit():
    def framed(n_entries: int) -> bytes:
        header = struct.pack(">i", n_entries) + b"".join(struct.pack(">ii", 0, 1) + b"7" for _ in range(n_entries))
        body = struct.pack(">ii", 1, 0) + header + struct.pack(">q", 0) + struct.pack(">i", 0)
        size = len(body) + 8
        return MAGIC + struct.pack(">q", size) + body + struct.pack(">q", size + 6)

    (ok,) = open_log(framed(MAX_MAP_ENTRIES))
    assert not ok.corrupt and ok.instant_time == "7" and len(ok.header_entries) == MAX_MAP_ENTRIES
    (bad,) = open_log(framed(MAX_MAP_ENTRIES + 1))
    assert bad.corrupt and bad.corrupt_rule == "invalid-field" and "header" in bad.corrupt_detail


def test_legacy_format_version_0_block():
    v0 = serialize_block(0, None, (), b"legacy payload")
    data = block(recs(1)).to_bytes() + v0 + block(recs(1, 1)).to_bytes()
    blocks = list(open_log(data))
    assert [b.format_version for b in blocks] == [1, 0, 1]
    assert blocks[1].block_type is None and blocks[1].content() == b"legacy payload"
    assert not any(b.corrupt for b in blocks)
    # no reverse pointer: reverse reading stops there and says to read forward
    it = read_reverse(data)
    assert next(it).offset == blocks[2].offset
    with pytest.raises(ReverseReadError, match="read forward"):
        next(it)


def test_reverse_reading_of_real_files(corpus_log_files):
    for p in corpus_log_files[:50]:
        fwd = list(open_log(p))
        rev = list(read_reverse(p))
        assert [(b.offset, b.length, b.header_entries) for b in rev] == [
            (b.offset, b.length, b.header_entries) for b in fwd][::-1]
