"""Damaged log files: the corruption scenarios C1-C12 of the behaviour catalogue, truncation of real
files at every byte, bit flips in every framing field, garbage, absurd sizes, reverse reading over
damage, and the CLI's inspect / validate / salvage on damaged files."""

from __future__ import annotations

import hashlib
import json
import os
import random
import struct
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from hudi_log import (
    BlockType,
    CorruptBlockError,
    HudiLogError,
    LogBlock,
    NotALogFileError,
    ReverseReadError,
    TruncatedLogError,
    open_log,
    read_reverse,
)
from hudi_log.format.content.avro import encode_records
from hudi_log.cli import main as cli
from hudi_log.format.grammar import MAGIC, avro_data_content

# --------------------------------------------------------------------------------------------------
# helpers

SCHEMA = {
    "type": "record", "name": "RandomRecord",
    "fields": [{"name": "_hoodie_record_key", "type": "string"}, {"name": "value", "type": "double"}],
}


def s8(v: int) -> bytes:
    return struct.pack(">q", v)


def s4(v: int) -> bytes:
    return struct.pack(">i", v)


def make_records(n: int, start: int = 0, seed: int = 0) -> list[dict]:
    rng = random.Random(seed * 1_000_003 + start)
    return [{"_hoodie_record_key": f"key_{i}", "value": rng.random()} for i in range(start, start + n)]


def avro_block(recs: list[dict], instant: str = "100", **extra: str) -> LogBlock:
    header = {"INSTANT_TIME": instant, "SCHEMA": json.dumps(SCHEMA), **extra}
    return LogBlock.new("AVRO_DATA_BLOCK", header, avro_data_content(3, encode_records(recs, SCHEMA)))


def data_block(n: int, instant: str = "100", start: int = 0, **extra: str) -> bytes:
    return avro_block(make_records(n, start), instant, **extra).to_bytes()


def rollback(instant: str, target: str) -> bytes:
    header = {"INSTANT_TIME": instant, "TARGET_INSTANT_TIME": target, "COMMAND_BLOCK_TYPE": "0"}
    return LogBlock.new("COMMAND_BLOCK", header, b"").to_bytes()


def header_map(entries: dict[int, str]) -> bytes:
    out = s4(len(entries))
    for k, v in entries.items():
        raw = v.encode()
        out += s4(k) + s4(len(raw)) + raw
    return out


def partial_c1(size: int = 474, content_length: int = 400, junk: bytes = b"something-random") -> bytes:
    """TLF testAppendAndReadOnCorruptedLog: MAGIC, a size that does not match, type, version, a bogus
    content length and a few bytes of content (the Java test writes the type before the version)."""
    return MAGIC + s8(size) + s4(BlockType.avro_data_block) + s4(1) + s8(content_length) + junk


def truncated_header() -> bytes:
    """MAGIC, size 1000, type, version, content length 100, and nothing else (C11, C12)."""
    return MAGIC + s8(1000) + s4(BlockType.avro_data_block) + s4(1) + s8(100)


def partial_with_header(instant: str) -> bytes:
    """MAGIC, size 1000, version, type, a header with INSTANT_TIME, then 16 bytes of junk (C9, C10)."""
    return MAGIC + s8(1000) + s4(1) + s4(BlockType.avro_data_block) + header_map({0: instant}) + b"0123456789abcdef"


def kinds(blocks) -> list[str]:
    names = {
        BlockType.avro_data_block: "DATA", BlockType.corrupt_block: "CORRUPT", BlockType.command_block: "COMMAND",
        BlockType.delete_block: "DELETE", BlockType.hfile_data_block: "DATA", BlockType.parquet_data_block: "DATA",
    }
    return [names.get(b.block_type, str(b.block_type)) for b in blocks]


def spans(blocks) -> list[tuple[int, int, bool]]:
    return [(b.offset, b.length, b.corrupt) for b in blocks]


def assert_tiles(blocks, size: int) -> None:
    """Blocks, damaged blocks' magics and damaged spans cover the file exactly, in order."""
    pos = 0
    for b in blocks:
        assert b.corrupt == (b.block_type == BlockType.corrupt_block)
        if b.corrupt and b.magic_offset is not None:
            assert (b.magic_offset, b.offset) == (pos, pos + 6)
        else:
            assert b.offset == pos
        pos = b.offset + b.length
    assert pos == size


# --------------------------------------------------------------------------------------------------
# C1-C8


def test_c1_bad_size_partial_block_in_the_middle():
    a, b = data_block(100, "100"), data_block(10, "100", 100)
    blocks = list(open_log(a + partial_c1() + b))
    assert kinds(blocks) == ["DATA", "CORRUPT", "DATA"]
    assert blocks[0].records() == make_records(100)
    assert blocks[2].records() == make_records(10, 100)
    assert blocks[1].corrupt_rule in ("reverse-pointer", "past-eof")


def test_c2_back_to_back_failures_appends_keep_working():
    a, b, c = data_block(100), data_block(10, start=100), data_block(10, start=110)
    bad2 = partial_c1(1000, 500, b"something-else-random")
    blocks = list(open_log(a + partial_c1() + b + bad2 + c))
    assert kinds(blocks) == ["DATA", "CORRUPT", "DATA", "CORRUPT", "DATA"]
    assert [blk.records() for blk in blocks if not blk.corrupt] == [
        make_records(100), make_records(10, 100), make_records(10, 110)]


def test_c3_only_magic_written():
    a, b = data_block(5), data_block(6, start=5)
    blocks = list(open_log(a + MAGIC + b))
    assert kinds(blocks) == ["DATA", "CORRUPT", "DATA"]
    # Hudi's span starts just after the bad magic and runs to the next magic: here it is empty
    assert (blocks[1].magic_offset, blocks[1].offset, blocks[1].length) == (len(a), len(a) + 6, 0)
    assert blocks[2].offset == len(a) + 6


def test_c4_corrupt_block_extent():
    a, bad, b = data_block(100), partial_c1(), data_block(10, start=100)
    blocks = list(open_log(a + bad + b))
    corrupt = blocks[1]
    assert corrupt.magic_offset == len(a)
    assert corrupt.offset == len(a) + len(MAGIC)  # just after the bad block's magic
    assert corrupt.offset + corrupt.length == len(a) + len(bad) == blocks[2].offset  # where the next magic is
    assert corrupt.content() == bad[6:]
    assert (blocks[2].offset, blocks[2].length) == (len(a) + len(bad), len(b))


def test_c5_invalid_type_ordinal():
    a, b = data_block(3), data_block(4, start=3)
    # Hudi's testSkipCorruptedCheck: type 10000 and a length that does not match
    bad = MAGIC + s8(300) + s4(1) + s4(10000) + header_map({0: "101"}) + s8(20) + b"x" * 20
    blocks = list(open_log(a + bad + b))
    assert kinds(blocks) == ["DATA", "CORRUPT", "DATA"]
    # the same with sizes that add up: only the type is wrong (our stricter inner-field check)
    body = s4(1) + s4(10000) + header_map({0: "101"}) + s8(0) + s4(0)
    framed = MAGIC + s8(len(body) + 8) + body + s8(len(body) + 8 + 6)
    blocks = list(open_log(a + framed + b))
    assert kinds(blocks) == ["DATA", "CORRUPT", "DATA"]
    assert blocks[1].corrupt_rule == "invalid-field"
    assert "10000" in blocks[1].corrupt_detail
    with pytest.raises(CorruptBlockError, match="block_type"):
        list(open_log(a + framed + b, strict=True))


@pytest.mark.parametrize("k", [0, 1, 5, 10])
def test_c6_truncated_blocks(k):
    """TestHoodieLogFileReader.testReadBlock: ten blocks of 1000 records, k of them cut to half."""
    originals = [make_records(1000, 1000 * i, seed=k) for i in range(10)]
    raw = [avro_block(r, "100").to_bytes() for r in originals]
    cut = {9} if k == 1 else set(random.Random(k).sample(range(10), k))
    data = b"".join(r[: len(r) // 2] if i in cut else r for i, r in enumerate(raw))
    blocks = list(open_log(data))
    assert len(blocks) == 10
    assert sum(b.corrupt for b in blocks) == k
    assert {i for i, b in enumerate(blocks) if b.corrupt} == cut
    for i, b in enumerate(blocks):
        if not b.corrupt:
            assert b.records() == originals[i]
    assert_tiles(blocks, len(data))


def test_c6_adjacent_truncated_blocks():
    raw = [data_block(50, start=50 * i) for i in range(4)]
    data = raw[0] + raw[1][:40] + raw[2][: len(raw[2]) // 2] + raw[3]
    blocks = list(open_log(data))
    assert kinds(blocks) == ["DATA", "CORRUPT", "CORRUPT", "DATA"]
    assert blocks[3].records() == make_records(50, 150)


def test_c7_each_detection_rule():
    a = data_block(3)
    n = len(a)
    # the size cannot be read: the file ends inside it
    blocks = list(open_log(a + MAGIC + b"\0\0\0"))
    assert (blocks[1].corrupt_rule, blocks[1].offset, blocks[1].length) == ("size-unreadable", n + 6, 3)
    # the declared end runs past EOF
    blocks = list(open_log(a + a[: len(a) - 1]))
    assert (blocks[1].corrupt_rule, blocks[1].offset, blocks[1].length) == ("past-eof", n + 6, n - 7)
    # the reverse pointer disagrees with the size
    bad = bytearray(a)
    bad[-1] ^= 1
    blocks = list(open_log(bytes(bad) + a))
    assert kinds(blocks) == ["CORRUPT", "DATA"]
    assert (blocks[0].corrupt_rule, blocks[0].offset, blocks[0].length) == ("reverse-pointer", 6, n - 6)
    # followed by bytes that are neither MAGIC nor EOF: Hudi reads the block as corrupt; we report
    # it intact (skipped_by_hudi) and the garbage as its own span
    blocks = list(open_log(a + b"garbage!" + a))
    assert kinds(blocks) == ["DATA", "CORRUPT", "DATA"]
    assert blocks[0].skipped_by_hudi and not blocks[2].skipped_by_hudi
    assert (blocks[1].corrupt_rule, blocks[1].offset, blocks[1].length, blocks[1].magic_offset) == ("garbage", n, 8, None)


def test_c8_garbage_at_file_start(tmp_path):
    a = data_block(3)
    p = tmp_path / ".f1_100.log.1_0-0-0"
    p.write_bytes(b"garbage " + a)
    with pytest.raises(NotALogFileError) as e:
        list(open_log(p))
    assert str(p) in str(e.value) and e.value.path == str(p) and e.value.offset == 0
    with pytest.raises(NotALogFileError, match="<bytes>"):
        list(open_log(b"PAR1" + a))
    with pytest.raises(NotALogFileError):
        list(open_log(b"PAR1" + a, strict=True))


# --------------------------------------------------------------------------------------------------
# C9-C12: scanner scenarios. Only their reader half is tested here: which blocks each file yields, in
# what order, and which are damaged. Applying the rollbacks and merging the records (the expected
# record counts of the catalogue) belongs to the table-read (merged scanner) issue.


def test_c9_partial_block_reader_half():
    log1 = data_block(100, "100") + partial_with_header("101")
    log2 = data_block(100, "103", 100)
    b1, b2 = list(open_log(log1)), list(open_log(log2))
    assert kinds(b1) == ["DATA", "CORRUPT"] and kinds(b2) == ["DATA"]
    assert b1[1].corrupt_rule == "past-eof"
    assert (b1[1].offset, b1[1].offset + b1[1].length) == (len(data_block(100, "100")) + 6, len(log1))
    assert [b1[0].instant_time, b2[0].instant_time] == ["100", "103"]
    assert len(b1[0].records()) + len(b2[0].records()) == 200


def test_c10_partial_block_then_rollback_reader_half():
    log1 = data_block(100, "100") + partial_with_header("101")
    log2 = rollback("102", "101") + data_block(100, "103", 100)
    b1, b2 = list(open_log(log1)), list(open_log(log2))
    assert kinds(b1) == ["DATA", "CORRUPT"]
    assert kinds(b2) == ["COMMAND", "DATA"]
    assert b2[0].is_rollback and b2[0].target_instant_time == "101"


def test_c11_corrupts_and_rollback_reader_half():
    block = data_block(100, "100")
    # Hudi 0.x appended everything to one file; 1.x rolls over to new files. Both layouts:
    one_file = block * 3 + truncated_header() * 2 + block + truncated_header() + rollback("101", "100")
    blocks = list(open_log(one_file))
    assert kinds(blocks) == ["DATA"] * 3 + ["CORRUPT"] * 2 + ["DATA", "CORRUPT", "COMMAND"]
    assert all(b.instant_time == "100" for b in blocks if kinds([b]) == ["DATA"])
    assert blocks[-1].is_rollback and blocks[-1].target_instant_time == "100"
    assert_tiles(blocks, len(one_file))
    files = [block * 3 + truncated_header() * 2, block + truncated_header(), rollback("101", "100")]
    assert [kinds(open_log(f)) for f in files] == [
        ["DATA"] * 3 + ["CORRUPT"] * 2, ["DATA", "CORRUPT"], ["COMMAND"]]


def test_c12_corrupt_blocks_amid_log_compacted_blocks_reader_half():
    parts = [data_block(100, "100", 0), data_block(100, "101", 100), data_block(100, "102", 200),
             truncated_header(), truncated_header(),
             data_block(200, "103", 0, COMPACTED_BLOCK_TIMES="100,101"),
             data_block(300, "104", 0, COMPACTED_BLOCK_TIMES="103,102"),
             data_block(100, "105", 300), data_block(100, "106", 400), data_block(100, "107", 500),
             data_block(200, "108", 400, COMPACTED_BLOCK_TIMES="106,107")]
    blocks = list(open_log(b"".join(parts)))
    assert kinds(blocks) == ["DATA"] * 3 + ["CORRUPT"] * 2 + ["DATA"] * 6
    intact = [b for b in blocks if not b.corrupt]
    assert [b.instant_time for b in intact] == ["100", "101", "102", "103", "104", "105", "106", "107", "108"]
    assert intact[3].header["COMPACTED_BLOCK_TIMES"] == "100,101"
    assert intact[4].header["COMPACTED_BLOCK_TIMES"] == "103,102"
    assert intact[8].header["COMPACTED_BLOCK_TIMES"] == "106,107"


# --------------------------------------------------------------------------------------------------
# real files: truncation at every byte offset, bit flips in every framing field


@pytest.fixture(scope="module")
def real_files(corpus_log_files) -> dict[str, bytes]:
    """A few real files: one of each block type, and a multi-block metadata file made by appending
    the one-block files of one metadata partition (the corpus has only one-block files)."""
    by_kind: dict[str, Path] = {}
    for p in corpus_log_files:
        blocks = list(open_log(p))
        kind = blocks[0].block_type_name
        if kind not in by_kind or p.stat().st_size < by_kind[kind].stat().st_size:
            by_kind[kind] = p
    out = {k: p.read_bytes() for k, p in sorted(by_kind.items())}
    folders: dict[Path, list[Path]] = {}
    for p in corpus_log_files:
        if "/.hoodie/metadata/files/" in str(p):
            folders.setdefault(p.parent, []).append(p)
    folder = max(folders.values(), key=len)
    parts = sorted(folder)[:4]
    assert len(parts) >= 3, "expected a metadata partition with several log files"
    out["multi-block metadata"] = b"".join(p.read_bytes() for p in parts)
    for name, data in out.items():
        assert data.count(MAGIC) == len(list(open_log(data))), name  # no magic inside any content
    return out


def _expected_after_cut(blocks, k: int):
    intact = [(b.offset, b.length) for b in blocks if b.offset + b.length <= k]
    end = intact[-1][0] + intact[-1][1] if intact else 0
    rest = k - end
    if rest == 0:
        return intact, None
    if rest < 6:
        return intact, (end, rest, "truncated-magic", None)
    return intact, (end + 6, rest - 6, "size-unreadable" if rest < 14 else "past-eof", end)


REAL_KINDS = ["AVRO_DATA_BLOCK", "COMMAND_BLOCK", "DELETE_BLOCK", "HFILE_DATA_BLOCK", "PARQUET_DATA_BLOCK",
              "multi-block metadata"]


@pytest.mark.parametrize("name", [
    pytest.param(k, marks=pytest.mark.slow) if k.startswith("multi") else k for k in REAL_KINDS])
def test_truncation_at_every_byte_offset(real_files, name):
    """Every prefix of a real file: the blocks that end before the cut come back intact at their
    offsets, the rest is one damaged span (or a truncated magic); nothing raises."""
    assert set(real_files) == set(REAL_KINDS)
    data = real_files[name]
    full = list(open_log(data))
    for k in range(len(data) + 1):
        cut = data[:k]
        try:
            blocks = list(open_log(cut))
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"{name} cut at {k}: {type(e).__name__}: {e}")
        intact, damage = _expected_after_cut(full, k)
        got_intact = [(b.offset, b.length) for b in blocks if not b.corrupt]
        got_damage = [(b.offset, b.length, b.corrupt_rule, b.magic_offset) for b in blocks if b.corrupt]
        assert got_intact == intact, (name, k)
        assert got_damage == ([damage] if damage else []), (name, k)
        for b, o in zip(blocks, full):
            if not b.corrupt:
                assert (b.block_type, b.header_entries, b.content_offset) == (o.block_type, o.header_entries, o.content_offset)
        # strict reading raises a typed error exactly when something was cut
        if damage:
            with pytest.raises(TruncatedLogError):
                list(open_log(cut, strict=True))
        # reverse reading: the blocks when the cut is at a boundary, else ReverseReadError
        try:
            rev = [(b.offset, b.length) for b in read_reverse(cut)]
        except ReverseReadError:
            assert damage, (name, k)
        else:
            assert not damage and rev == intact[::-1], (name, k)


def _framing_fields(b: LogBlock) -> list[tuple[str, int, int]]:
    o = b.offset
    f = [("magic", o, 6), ("len_block", o + 6, 8), ("format_version", o + 14, 4), ("block_type", o + 18, 4),
         ("header.num_entries", o + 22, 4)]
    pos = o + 26
    for _k, v in b.header_entries:
        n = len(v.encode())
        f += [("header.key", pos, 4), ("header.len_value", pos + 4, 4)]
        pos += 8 + n
    assert pos + 8 == b.content_offset
    end = b.offset + b.length
    f += [("len_content", pos, 8), ("footer", b.content_offset + b.content_length, end - 8 - b.content_offset - b.content_length),
          ("reverse_pointer", end - 8, 8)]
    return f


MUST_BE_DAMAGED = {"len_block", "format_version", "header.num_entries", "header.len_value", "len_content",
                   "footer", "reverse_pointer"}


def _flip_every_framing_bit(data: bytes) -> int:
    full = list(open_log(data))
    n = 0
    for i, blk in enumerate(full):
        for field, start, width in _framing_fields(blk):
            for byte in range(start, start + width):
                for bit in range(8):
                    mutated = bytearray(data)
                    mutated[byte] ^= 1 << bit
                    mutated = bytes(mutated)
                    n += 1
                    where = (i, field, byte, bit)
                    if i == 0 and field == "magic":
                        with pytest.raises(NotALogFileError):
                            list(open_log(mutated))
                        continue
                    blocks = list(open_log(mutated))
                    assert_tiles(blocks, len(mutated))
                    by_offset = {b.offset: b for b in blocks}
                    for j, other in enumerate(full):  # every other block comes back intact in place
                        if j != i:
                            got = by_offset.get(other.offset)
                            assert got is not None and not got.corrupt and got.length == other.length, where
                            assert got.header_entries == other.header_entries, where
                    next_start = full[i + 1].offset if i + 1 < len(full) else len(data)
                    if field == "magic":
                        assert full[i - 1].offset in by_offset and by_offset[full[i - 1].offset].skipped_by_hudi
                        g = by_offset[blk.offset]
                        assert (g.corrupt_rule, g.length) == ("garbage", next_start - blk.offset), where
                        continue
                    got = by_offset.get(blk.offset + 6)
                    if got is not None and got.corrupt:
                        assert got.magic_offset == blk.offset and got.offset + got.length == next_start, where
                        assert field != "reverse_pointer" or got.corrupt_rule == "reverse-pointer", where
                    else:
                        # only a flip that turns an enum into another valid value leaves the block intact
                        assert field not in MUST_BE_DAMAGED, where
                        got = by_offset[blk.offset]
                        assert not got.corrupt and got.length == blk.length, where
                        assert got.block_type != BlockType.corrupt_block
                        if field == "block_type":
                            assert got.block_type != blk.block_type
                        else:
                            assert got.header_entries != blk.header_entries
    return n


def test_bit_flips_in_every_framing_field_generated():
    data = data_block(5, "100") + rollback("101", "100") + data_block(2, "102", 5) + data_block(7, "103", 7)
    assert _flip_every_framing_bit(data) > 1000


def test_bit_flips_in_every_framing_field_real(real_files):
    for name in ("multi-block metadata", "AVRO_DATA_BLOCK", "PARQUET_DATA_BLOCK", "COMMAND_BLOCK"):
        if name in real_files:
            assert _flip_every_framing_bit(real_files[name]) > 100


def test_type_flip_to_corrupt_block_ordinal_is_damage():
    a = bytearray(data_block(3))
    assert a[21] == BlockType.avro_data_block
    a[21] = BlockType.corrupt_block  # 3 -> 2: one bit. Hudi never writes a CORRUPT_BLOCK and cannot read one
    (b,) = open_log(bytes(a))
    assert b.corrupt and b.corrupt_rule == "invalid-field" and "CORRUPT_BLOCK" in b.corrupt_detail


# --------------------------------------------------------------------------------------------------
# empty files, garbage, absurd sizes


def test_empty_file(tmp_path):
    p = tmp_path / ".e_1.log.1_0-0-0"
    p.write_bytes(b"")
    assert list(open_log(p)) == []
    assert list(open_log(b"")) == []
    with open(p, "rb") as f:
        assert list(open_log(f)) == []
    assert list(read_reverse(p)) == []
    assert list(open_log(p, strict=True)) == []


def test_garbage_after_a_valid_block():
    a = data_block(4)
    n = len(a)
    blocks = list(open_log(a + b"\0" * 100))
    assert spans(blocks) == [(0, n, False), (n, 100, True)]
    assert blocks[0].skipped_by_hudi and blocks[1].corrupt_rule == "garbage"
    assert blocks[0].records() == make_records(4)
    # fewer than 6 bytes: Hudi reads past them silently; we still report them
    blocks = list(open_log(a + b"xyz"))
    assert spans(blocks) == [(0, n, False), (n, 3, True)] and not blocks[0].skipped_by_hudi
    # a partial magic at the end: a block was being written
    blocks = list(open_log(a + MAGIC[:4]))
    assert spans(blocks) == [(0, n, False), (n, 4, True)] and blocks[1].corrupt_rule == "truncated-magic"
    with pytest.raises(CorruptBlockError):
        list(open_log(a + b"\0" * 100, strict=True))


def test_torn_magic_before_a_block_does_not_swallow_it():
    """'#HUDI' + '#HUDI#...': the magic overlaps itself. Hudi would start the damaged span inside
    the real magic and lose the block; we report the 5 torn bytes and keep the block."""
    a, b = data_block(3), data_block(2, start=3)
    for junk in (b"", b"junk"):
        prefix = a + junk
        blocks = list(open_log(prefix + MAGIC[:5] + b))
        assert kinds(blocks) == ["DATA", "CORRUPT", "DATA"]
        torn = blocks[1]
        assert (torn.offset, torn.length, torn.corrupt_rule, torn.magic_offset) == (len(a), len(junk) + 5, "garbage", None)
        assert (blocks[-1].offset, blocks[-1].length) == (len(prefix) + 5, len(b))
        assert blocks[-1].records() == make_records(2, 3)
        assert_tiles(blocks, len(prefix) + 5 + len(b))
    blocks = list(open_log(MAGIC[:5] + b))
    assert spans(blocks) == [(0, 5, True), (5, len(b), False)]


def test_size_of_2_to_the_62():
    a = data_block(3)
    for bad in (MAGIC + s8(2**62) + a[14:], MAGIC + s8(2**63 - 1) + a[14:], MAGIC + s8(-(2**62)) + a[14:]):
        blocks = list(open_log(bad))
        assert kinds(blocks) == ["CORRUPT"] and blocks[0].offset == 6 and blocks[0].length == len(bad) - 6
        blocks = list(open_log(a + bad + a))
        assert kinds(blocks) == ["DATA", "CORRUPT", "DATA"]
        with pytest.raises((TruncatedLogError, CorruptBlockError)):
            list(open_log(bad, strict=True))
        with pytest.raises(ReverseReadError):
            list(read_reverse(bad))
    assert list(open_log(MAGIC + s8(2**62) + a[14:]))[0].corrupt_rule == "past-eof"
    # a reverse pointer of 2**62 at the end of the file
    with pytest.raises(ReverseReadError):
        list(read_reverse(a[:-8] + s8(2**62)))


def _framed(version: int, btype: int, header: bytes, content_length: int, content: bytes, footer: bytes) -> bytes:
    body = s4(version) + s4(btype) + header + s8(content_length) + content + footer
    size = len(body) + 8
    return MAGIC + s8(size) + body + s8(size + 6)


def test_absurd_inner_fields_are_damage_and_memory_stays_flat():
    """Sizes inside a block whose framing adds up: nothing is allocated from them."""
    zeros = b"\0" * (16 << 20)
    cases = {
        "content length 2**62": _framed(1, 3, header_map({0: "1"}), 2**62, zeros, s4(0)),
        "negative content length": _framed(1, 3, header_map({0: "1"}), -5, zeros, s4(0)),
        "header value length 2**31-1": _framed(1, 3, s4(1) + s4(0) + s4(2**31 - 1) + b"1", 0, zeros, s4(0)),
        "2**31-1 header entries over zeros": _framed(1, 3, s4(2**31 - 1), 0, zeros, s4(0)),
        "2**31-1 footer entries": _framed(1, 3, header_map({}), 0, b"", s4(2**31 - 1) + zeros),
        "footer region of 16 MiB": _framed(1, 3, header_map({}), 0, b"", s4(0) + zeros),
        "header of 16 MiB of zero entries": _framed(1, 3, s4(2**21) + zeros, 0, b"", s4(0)),
    }
    for what, data in cases.items():
        tracemalloc.start()
        try:
            blocks = list(open_log(data))
            _cur, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert kinds(blocks) == ["CORRUPT"], what
        assert blocks[0].corrupt_rule == "invalid-field", what
        # the damaged span is searched for the next magic in 1 MiB windows; nothing else is loaded
        assert peak < 4 << 20, f"{what}: peak {peak} bytes"


# --------------------------------------------------------------------------------------------------
# reverse reading (R3, R4, R5)


def test_r3_reverse_reading():
    recs = [make_records(100, 100 * i) for i in range(3)]
    data = b"".join(avro_block(r).to_bytes() for r in recs)
    rev = list(read_reverse(data))
    assert [b.records() for b in rev] == recs[::-1]  # records inside a block still in written order
    assert [b.offset for b in rev] == [b.offset for b in open_log(data)][::-1]


def test_r4_reverse_skip_without_decoding():
    recs = [make_records(10, 10 * i) for i in range(3)]
    data = b"".join(avro_block(r).to_bytes() for r in recs)
    it = read_reverse(data)
    next(it), next(it)  # skipped, content never read
    first = next(it)
    assert first.offset == 0 and first.records() == recs[0]
    assert next(it, None) is None


def test_r5_reverse_over_corruption():
    a, b = data_block(10), data_block(10, start=10)
    garbage = MAGIC + s4(3) + s8(2000) + header_map({0: "101"}) + b"some junk that is not a block"
    data = a + garbage + b
    it = read_reverse(data)
    last = next(it)
    assert last.offset == len(a) + len(garbage) and last.records() == make_records(10, 10)
    with pytest.raises(ReverseReadError, match="read forward"):
        next(it)
    assert kinds(open_log(data)) == ["DATA", "CORRUPT", "DATA"]  # forward reading recovers both blocks


# --------------------------------------------------------------------------------------------------
# CLI: validate, salvage, inspect


def _damaged_file(tmp_path: Path) -> tuple[Path, list[tuple[int, int]], list[tuple[int, int, str]]]:
    """A file with intact blocks and three kinds of damage; (path, intact spans, damaged spans)."""
    a, b, c = data_block(5), data_block(6, start=5), data_block(7, start=11)
    bad = partial_c1()
    data = a + bad + b + b"\xff" * 10 + c + c[: len(c) // 2]
    p = tmp_path / ".damaged_100.log.1_0-0-0"
    p.write_bytes(data)
    n_a, n_bad, n_b, n_c = len(a), len(bad), len(b), len(c)
    intact = [(0, n_a), (n_a + n_bad, n_b), (n_a + n_bad + n_b + 10, n_c)]
    o = n_a + n_bad + n_b
    damage = [(n_a + 6, n_bad - 6, "reverse-pointer"), (o, 10, "garbage"), (o + 10 + n_c + 6, n_c // 2 - 6, "past-eof")]
    return p, intact, damage


def test_validate_exit_codes_and_json(tmp_path, corpus_log_files):
    runner = CliRunner()
    clean = str(corpus_log_files[0])
    r = runner.invoke(cli, ["validate", clean])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["validate", "--json", clean])
    assert r.exit_code == 0 and json.loads(r.output)["ok"] is True

    damaged, intact, damage = _damaged_file(tmp_path)
    r = runner.invoke(cli, ["validate", "--json", clean, str(damaged)])
    assert r.exit_code == 1, r.output
    out = json.loads(r.output)
    assert out["ok"] is False
    f = out["files"][1]
    assert f["path"] == str(damaged) and f["intact"] == 3
    got = [(d["offset"], d["length"], d["rule"]) for d in f["damage"]]
    assert got[0][:2] == damage[0][:2] and got[0][2] in ("reverse-pointer", "past-eof")
    assert got[1:] == damage[1:]
    assert all(d["rule_text"] and d["detail"] for d in f["damage"])
    assert f["skipped_by_hudi"] == [{"offset": intact[1][0], "length": intact[1][1]}]
    r = runner.invoke(cli, ["validate", str(damaged)])
    assert r.exit_code == 1 and "DAMAGED" in r.output and str(damage[1][0]) in r.output

    not_log = tmp_path / "not-a-log"
    not_log.write_bytes(b"PAR1 this is not a log file")
    for args in ([str(not_log)], [str(tmp_path / "missing")], [str(damaged), str(not_log)]):
        r = runner.invoke(cli, ["validate", "--json", *args])
        assert r.exit_code == 2, (args, r.output)
    out = json.loads(runner.invoke(cli, ["validate", "--json", str(not_log)]).output)
    assert str(not_log) in out["files"][0]["error"]


def test_salvage(tmp_path):
    damaged, intact, _damage = _damaged_file(tmp_path)
    before = hashlib.sha256(damaged.read_bytes()).hexdigest()
    data = damaged.read_bytes()
    out = tmp_path / "salvaged.log"
    r = CliRunner().invoke(cli, ["salvage", str(damaged), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == before  # input untouched
    assert out.read_bytes() == b"".join(data[o : o + n] for o, n in intact)  # byte for byte
    blocks = list(open_log(out, strict=True))
    assert len(blocks) == 3 and not any(b.corrupt or b.skipped_by_hudi for b in blocks)
    assert [b.records() for b in blocks] == [make_records(5), make_records(6, 5), make_records(7, 11)]
    # the output must not be the input, however it is spelled
    for target in (str(damaged), os.path.join(str(tmp_path), ".", damaged.name)):
        r = CliRunner().invoke(cli, ["salvage", str(damaged), "-o", target])
        assert r.exit_code == 2 and "must not be the input" in r.output
        assert hashlib.sha256(damaged.read_bytes()).hexdigest() == before
    link = tmp_path / "hardlink.log"
    os.link(damaged, link)
    r = CliRunner().invoke(cli, ["salvage", str(damaged), "-o", str(link)])
    assert r.exit_code == 2 and hashlib.sha256(damaged.read_bytes()).hexdigest() == before


def test_inspect_json_shows_damaged_spans(tmp_path):
    damaged, intact, damage = _damaged_file(tmp_path)
    r = CliRunner().invoke(cli, ["inspect", "--json", str(damaged)])
    assert r.exit_code == 0, r.output
    blocks = json.loads(r.output)["files"][0]["blocks"]
    assert [(b["offset"], b["length"]) for b in blocks if not b["corrupt"]] == intact
    bad = [b for b in blocks if b["corrupt"]]
    assert [(b["offset"], b["length"]) for b in bad] == [d[:2] for d in damage]
    assert all(b["block_type"] == "CORRUPT_BLOCK" and b["rule"] for b in bad)
    assert bad[0]["magic_offset"] == intact[0][1]
    r = CliRunner().invoke(cli, ["inspect", str(damaged)], env={"COLUMNS": "300"})
    assert r.exit_code == 0 and r.output.count("CORRUPT_BLOCK") == 3


def test_damaged_copies_of_real_files(tmp_path, corpus_log_files):
    """Real blocks, then: garbage inserted, a block cut to half, a block duplicated, a size flipped.
    inspect --json finds every intact block at its offset and each damaged span exactly; salvage
    keeps exactly the intact blocks."""
    folders: dict[Path, list[Path]] = {}
    for p in corpus_log_files:
        folders.setdefault(p.parent, []).append(p)
    parts = [p.read_bytes() for p in sorted(max(folders.values(), key=len))[:5]]
    assert len(parts) == 5
    A, B, C, D, E = parts
    D_bad = bytearray(D)
    D_bad[10] ^= 0x40  # the block size
    data = A + b"\x00garbage\x00" + B[: len(B) // 2] + C + C + bytes(D_bad) + E
    p = tmp_path / ".real_damaged.log.1_0-0-0"
    p.write_bytes(data)
    o = {"A": 0, "G": len(A), "B": len(A) + 9}
    o["C1"] = o["B"] + len(B) // 2
    o["C2"] = o["C1"] + len(C)
    o["D"] = o["C2"] + len(C)
    o["E"] = o["D"] + len(D)
    intact = [(o["A"], len(A)), (o["C1"], len(C)), (o["C2"], len(C)), (o["E"], len(E))]
    damage = [(o["G"], 9), (o["B"] + 6, len(B) // 2 - 6), (o["D"] + 6, len(D) - 6)]
    r = CliRunner().invoke(cli, ["inspect", "--json", str(p)])
    blocks = json.loads(r.output)["files"][0]["blocks"]
    assert [(b["offset"], b["length"]) for b in blocks if not b["corrupt"]] == intact
    assert [(b["offset"], b["length"]) for b in blocks if b["corrupt"]] == damage
    out = tmp_path / "out.log"
    assert CliRunner().invoke(cli, ["salvage", str(p), "-o", str(out)]).exit_code == 0
    assert out.read_bytes() == A + C + C + E
    assert all(not b.corrupt for b in open_log(out))


def test_typed_errors_only_on_random_damage_of_real_files(corpus_log_files):
    """A quick deterministic sample; tools/fuzz runs the same idea at scale."""
    rng = random.Random(3)
    files = [p.read_bytes() for p in corpus_log_files[:: max(1, len(corpus_log_files) // 20)]]
    for _ in range(300):
        data = bytearray(rng.choice(files))
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(data))
            data[pos] = rng.randrange(256)
        try:
            blocks = list(open_log(bytes(data)))
        except NotALogFileError:
            continue
        assert_tiles(blocks, len(data))
        for b in blocks:
            if not b.corrupt:
                try:
                    b.summary()
                except HudiLogError:
                    pass
