"""The grammar opens big log files the way the Kaitai Web IDE opens them.

The Web IDE parses a file's seq fields and evaluates each block's `-webide-representation`; it parses
an instance only when its node is expanded. Block contents are such an instance (`content.body`), so
a log of a 19 MB delete block (a million deletes) and a 70 MB Avro block (1.1 million records) opens
in a small heap: before the content was lazy, a 29 MB delete block exhausted a 4 GB heap and a 99 MB
Avro block took 27 s and 2 GB. Expanding a block still parses it whole, by the same grammar.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from hudi_log.format import grammar
from hudi_log.format.content.deletes import DeleteRecord, encode_delete_payload
from hudi_log.format.grammar import BlockType, HeaderKey

from test_grammar import NODE, REPO, _need_node


def _zigzag_varint(n: int) -> bytes:
    n <<= 1
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def big_log(num_deletes: int, num_records: int) -> bytes:
    """One delete block and one Avro block, framed without going through the Python object tree."""
    one = encode_delete_payload([DeleteRecord.of("key-00000000", "p", 7)])
    item = one[1:-1]  # an array of one item is its count (1), the item, the closing count 0
    payload = _zigzag_varint(num_deletes) + item * num_deletes + b"\x00"
    deletes, _ = grammar.frame_block(
        BlockType.delete_block, [(HeaderKey.instant_time, "20250101000000000")],
        [(3).to_bytes(4, "big"), len(payload).to_bytes(4, "big"), payload])
    datum = b"\x02a" * 30
    record = grammar.avro_record_prefix(len(datum)) + datum
    avro, _ = grammar.frame_block(
        BlockType.avro_data_block, [(HeaderKey.instant_time, "20250101000000001"), (HeaderKey.schema, "{}")],
        [grammar.avro_content_prefix(3, num_records), record * num_records])
    return deletes + avro


def _open(paths, heap_mb: int, expand: str | None = None, records: str | None = None):
    args = [NODE, f"--max-old-space-size={heap_mb}", "--expose-gc", "tools/regen/open_like_webide.js"]
    if expand:
        args += ["--expand", expand]
    if records:
        args += ["--records", records]
    r = subprocess.run(args + [str(p) for p in paths], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


@pytest.mark.slow
def test_a_90_mb_log_opens_in_a_small_heap(tmp_path):
    _need_node()
    path = tmp_path / "big.log"
    path.write_bytes(big_log(1_000_000, 1_100_000))
    assert path.stat().st_size > 89_000_000
    (opened,) = _open([path], heap_mb=128)
    assert "error" not in opened, opened
    # the representation's record count comes from 4 bytes, the records are not parsed
    assert opened["blocks"] == 2 and opened["records"] == 1_100_000 and opened["expanded"] == []
    assert opened["heap_mb"] < 64, opened


def test_expanding_a_block_parses_its_content_by_the_grammar(tmp_path):
    _need_node()
    path = tmp_path / "small.log"
    path.write_bytes(big_log(1_000, 2_000))
    (opened,) = _open([path], heap_mb=128, expand="0,1")
    assert opened["expanded"] == ["payload", 2_000], opened
    # and a damaged content is refused when it is expanded, not when the file is opened
    data = bytearray(path.read_bytes())
    content_version_at = data.index(b"\x00\x00\x00\x03", 40)
    data[content_version_at + 3] = 9  # content version 9 does not exist
    path.write_bytes(bytes(data))
    (opened,) = _open([path], heap_mb=128)
    assert "error" not in opened and opened["blocks"] == 2, opened
    (expanded,) = _open([path], heap_mb=128, expand="0")
    assert "ValidationNotAnyOfError" in expanded["error"], expanded


def test_a_250_000_key_delete_block_expands_in_a_small_heap(tmp_path):
    """Expanding a delete block (its content's body) shows the payload as bytes; the records are one
    click further (the `records` instance): before, expanding the block parsed them all (14-22 s and
    1.7 GB for 250,000 keys in the Web IDE)."""
    _need_node()
    path = tmp_path / "deletes.log"
    path.write_bytes(big_log(250_000, 10))
    (opened,) = _open([path], heap_mb=64, expand="0")
    assert "error" not in opened and opened["expanded"] == ["payload"], opened
    assert opened["deletes"] == [] and opened["heap_mb"] < 16, opened
    # and the records are there, by the same grammar, when asked for (a small block: a fast test)
    path.write_bytes(big_log(3_000, 10))
    (records,) = _open([path], heap_mb=128, records="0")
    assert records["expanded"] == ["payload"] and records["deletes"] == [3_000], records
