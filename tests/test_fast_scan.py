"""The fast framing scan (hudi_log/format/fast_scan.py and its compiled twin) against the grammar.

On every corpus file and on fuzzed and hand-made input: the compiled and the Python scan give the
same frames or stop at the same offset; frames they give are the blocks of the generated Kaitai
parser (offsets, lengths, types, content places) and of ``open_log``, which finds no damage there;
and wherever the generated parser reads a file of format-version-1 blocks other than
CORRUPT_BLOCK, the fast scan reads it too.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from kaitaistruct import BytesIO, KaitaiStream

import hudi_log
from hudi_log.cli import main as cli
from hudi_log.format import fast_scan, grammar
from hudi_log.format.fast_scan import FastScanFallback, Frame
from hudi_log.format.grammar import BlockType, HudiLog

from test_grammar_js import fuzzed, hand_made

SCANS = [fast_scan.scan_python] + ([fast_scan.scan_native] if fast_scan._native is not None else [])


def test_the_compiled_scan_is_built():
    assert fast_scan._native is not None, "hudi_log.format._framing_scan was not built: pip install -e . compiles it"


def _fast(data: bytes):
    """Frames of every scan (they must agree), or the offset where they all stopped."""
    results = []
    for scan in SCANS:
        try:
            results.append(scan(data, len(data)))
        except FastScanFallback as e:
            results.append(("stopped", e.offset))
    assert all(r == results[0] for r in results), results
    return results[0]


def _kaitai_frames(data: bytes):
    root = HudiLog(KaitaiStream(BytesIO(data)))
    try:
        root._read()
    except Exception:
        return None
    out, offset = [], 0
    for b in root.blocks:
        length = b.len_block + grammar.FRAME_PREFIX
        if b.format_version == 0 or b.block_type == BlockType.corrupt_block:
            return "outside the fast path"
        header_size = 4 + sum(8 + len(e.value) for e in b.header.entries)
        content_offset = offset + 6 + 8 + 4 + 4 + header_size + 8
        out.append(Frame(offset, length, int(b.block_type), content_offset, b.len_content))
        offset += length
    return out


def _reader_frames(data: bytes):
    try:
        blocks = list(hudi_log.open_log(data))
    except hudi_log.NotALogFileError:
        return None, []
    if any(b.corrupt or b.format_version == 0 or b.skipped_by_hudi for b in blocks):
        return None, blocks
    return [Frame(b.offset, b.length, int(b.block_type), b.content_offset, b.content_length) for b in blocks], blocks


def check(data: bytes, name: str) -> str:
    fast = _fast(data)
    kaitai = _kaitai_frames(data)
    reader, blocks = _reader_frames(data)
    if isinstance(fast, tuple):  # stopped: the grammar or the reader must see why
        assert kaitai is None or kaitai == "outside the fast path" or reader is None, (name, fast)
        return "stopped"
    assert fast == reader or (reader is None and any("UTF-8" in (b.corrupt_detail or "") for b in blocks)), name
    if kaitai not in (None, "outside the fast path"):
        assert fast == kaitai, name
    else:  # the generated parser rejects a block's content or a legacy block: framing is still right
        assert reader is None or fast == reader, name
    return "read"


def test_every_corpus_file(corpus_log_files):
    for path in corpus_log_files:
        data = path.read_bytes()
        assert check(data, str(path)) == "read", path
        assert fast_scan.frames(path) == fast_scan.frames(data)  # the memory map reads the same


def test_hand_made_and_fuzzed_inputs(corpus_log_files):
    small = {str(p): p.read_bytes() for p in corpus_log_files if p.stat().st_size < 64 << 10}
    bases = {**hand_made(), **small}
    seen = {"read": 0, "stopped": 0}
    for name, data in {**bases, **fuzzed(bases, 1500, seed=4)}.items():
        seen[check(data, name)] += 1
    assert seen["read"] > 100 and seen["stopped"] > 100, seen


def test_stops_at_the_first_damage_not_after():
    rb = hand_made()["rollback"]
    with pytest.raises(FastScanFallback) as e:
        fast_scan.frames(rb + rb + b"garbage" + rb)
    assert e.value.offset == 2 * len(rb)
    assert fast_scan.frames(b"") == []


def test_validate_framing_only(tmp_path, corpus_dir):
    good = next((corpus_dir / "log_files" / "valid_log_delete").glob(".*.log.*"))
    r = CliRunner().invoke(cli, ["validate", "--framing-only", str(good)])
    assert r.exit_code == 0 and "OK: 1 intact block(s)" in r.output, r.output
    bad = tmp_path / "bad.log"
    bad.write_bytes(good.read_bytes() + b"junk")
    full = CliRunner().invoke(cli, ["validate", "--json", str(bad)])
    fast = CliRunner().invoke(cli, ["validate", "--json", "--framing-only", str(bad)])
    # damage: the full reader reports it, the same damage (only the content check differs)
    assert fast.exit_code == full.exit_code == 1
    f, g = json.loads(fast.output), json.loads(full.output)
    assert [x["damage"] for x in f["files"]] == [x["damage"] for x in g["files"]] and f["files"][0]["damage"]
