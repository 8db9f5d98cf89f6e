"""spec/hfile.ksy and what is derived from it: byte-level conformance on the corpus, the writer's bytes.

- Every HFile of the corpus (metadata-table base files and HFILE_DATA_BLOCK contents) parses with the
  generated codec and is written back byte for byte, through the typed layout and through
  ``write_hfile(read_hfile(b))``.
- Java as the oracle: every HFile Hudi 1.1 wrote in the corpus is rebuilt byte for byte by
  ``build_hfile`` from its records, file info and bloom filter alone.
- Files built from scratch (several blocks, GZ and NONE) read back through hudi-log's reader, the
  generated Python codec and the generated JavaScript codec alike.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from kaitaistruct import BytesIO, KaitaiStream

from hudi_log import open_log
from hudi_log.format.content.hfile import HFileContents, HFileError, HFileKeyValue, read_hfile, write_hfile
from hudi_log.format.content.hfile_grammar import (
    Hfile,
    data_block_body_bytes,
    gzip_block,
    layout_bytes,
    parse_body,
    parse_layout,
)
from hudi_log.format.content.hfile_writer import build_hfile, data_block_payload, java_hash_map_order

from test_grammar import NODE, REPO, _need_node
from test_grammar_js import _dump, _same


@pytest.fixture(scope="module")
def corpus_hfiles(corpus_tables, corpus_log_files) -> dict[str, bytes]:
    """{name: bytes} of every base HFile and every HFILE_DATA_BLOCK content of the corpus."""
    out = {}
    for name, root in corpus_tables.items():
        for dirpath, _dirs, names in os.walk(root / ".hoodie" / "metadata"):
            for n in names:
                if n.endswith(".hfile"):
                    out[f"{name}/{n}"] = (Path(dirpath) / n).read_bytes()
    bases = len(out)
    for path in corpus_log_files:
        for i, block in enumerate(open_log(path)):
            if block.block_type_name == "HFILE_DATA_BLOCK":
                out[f"{path.name}#{i}"] = bytes(block.content())
    # the corpus's metadata tables: 55 base files and 160 HFILE blocks
    assert bases >= 55 and len(out) - bases >= 160, (bases, len(out) - bases)
    return out


def test_every_corpus_hfile_round_trips_through_the_grammar(corpus_hfiles):
    minors = set()
    for name, data in corpus_hfiles.items():
        layout = parse_layout(data)
        assert layout_bytes(layout) == data, name
        contents = read_hfile(data)
        assert write_hfile(contents) == data, name
        minors.add(layout.trailer.minor_version)
        # every block's payload, inflated, parses with the grammar's body types; the cells are the reader's
        cells = []
        for block in layout.blocks:
            raw = zlib.decompress(block.payload, 31) if contents.compression == "GZ" else block.payload
            assert len(raw) == block.uncompressed_size, name
            body = parse_body(block.magic, raw)
            if block.magic == "DATABLK*":
                cells += [(c.key.row_text, c.value, c.key.timestamp, c.key.key_type.value) for c in body.cells]
        assert cells == [(r.key, r.value, r.timestamp, r.key_type) for r in contents.records], name
    assert minors == {0, 3}  # Hudi 1.1's writer and HBase's (Hudi 0.x, 1.0)


def _bloom_of(layout) -> dict[str, bytes]:
    return {"bloomFilter": zlib.decompress(b.payload, 31) for b in layout.blocks if b.magic == "METABLKc"}


def test_java_written_hfiles_are_rebuilt_byte_for_byte(corpus_hfiles):
    """Hudi 1.1 (trailer minor 0) wrote these with its own HFileWriterImpl: from their records, file info
    (creation time included) and bloom filter, build_hfile writes the same bytes."""
    rebuilt = 0
    for name, data in corpus_hfiles.items():
        contents = read_hfile(data)
        if contents.minor_version != 0:
            continue
        layout = build_hfile(
            [(r.key, r.value) for r in contents.records],
            file_info=contents.file_info, meta_blocks=_bloom_of(contents.layout),
        )
        assert layout == contents.layout, name
        assert layout_bytes(layout) == data, name
        # and through the API: contents changed (no source) are laid out again, as Java would
        built = dataclasses.replace(contents, source=None, meta_blocks=_bloom_of(contents.layout))
        assert write_hfile(built) == data, name
        rebuilt += 1
    assert rebuilt >= 150  # 31 base files and 125 log blocks


def test_file_info_order_is_java_hash_map_order(corpus_hfiles):
    for name, data in corpus_hfiles.items():
        contents = read_hfile(data)
        if contents.minor_version == 0:
            # put in the writer's order: its first key, the caller's, the ones it computes at close
            first, last = ["MAX_MEMSTORE_TS_KEY"], ["hfile.LASTKEY", "hfile.AVG_KEY_LEN", "hfile.CREATE_TIME_TS",
                                                    "hfile.AVG_VALUE_LEN", "KEY_VALUE_VERSION"]
            caller = sorted(set(contents.file_info) - set(first) - set(last))
            assert list(contents.file_info) == java_hash_map_order(first + caller + last), name


def test_gzip_blocks_are_javas_bytes(corpus_hfiles):
    for name, data in list(corpus_hfiles.items())[:40]:
        for block in parse_layout(data).blocks:
            assert gzip_block(zlib.decompress(block.payload, 31)) == block.payload, name


# ---- files written from scratch ------------------------------------------------------------------


def _records(n: int) -> list[tuple[str, bytes]]:
    return [(f"key-{i:05d}", b"value %d " % i * (1 + i % 7)) for i in range(n)]


@pytest.mark.parametrize("compression", ["GZ", "NONE"])
@pytest.mark.parametrize("n, block_size", [(0, 1024), (1, 1024), (300, 1024), (50, 1 << 20)])
def test_built_files_read_back(compression, n, block_size):
    records = _records(n)
    schema = b'{"type":"record","name":"R","fields":[]}'
    data = write_hfile(HFileContents(
        major_version=3, minor_version=0, compression=compression, entry_count=n,
        file_info={"schema": schema}, comparator="", records=[HFileKeyValue(k, v, 0, 4) for k, v in records],
        meta_blocks={"bloomFilter": b"bloom bits"} if n else {},
    ), block_size=block_size)
    contents = read_hfile(data)
    assert [(r.key, r.value) for r in contents.records] == records
    assert contents.compression == compression and contents.file_info["schema"] == schema
    assert contents.file_info["hfile.LASTKEY"] == (struct.pack(">h", 9) + records[-1][0].encode() if n else b"")
    layout = contents.layout
    data_blocks = [b for b in layout.blocks if b.magic == "DATABLK*"]
    if n == 300:
        assert len(data_blocks) > 10  # cut at the block size
    # the generated codec's cells equal the reader's records
    cells = []
    for block in data_blocks:
        raw = zlib.decompress(block.payload, 31) if compression == "GZ" else block.payload
        cells += [(c.key.row_text, c.value) for c in parse_body("DATABLK*", raw).cells]
    assert cells == [(k, v) for k, v in records]
    assert write_hfile(contents) == data


def test_data_block_fast_path_is_the_grammars():
    rng = random.Random(36)
    for _ in range(20):
        cells = [(rng.randbytes(rng.randrange(0, 300)), rng.randbytes(rng.randrange(0, 2000)))
                 for _ in range(rng.randrange(0, 30))]
        assert data_block_payload(cells) == data_block_body_bytes(cells)
    cells = [(b"a", b"1"), (b"bb", b"")]
    raw = data_block_body_bytes(cells)
    assert raw == b"".join(
        struct.pack(">iih", len(k) + 12, len(v), len(k)) + k + b"\x00" + struct.pack(">qB", 2**63 - 1, 4) + v + b"\x00"
        for k, v in cells
    )
    body = parse_body("DATABLK*", raw)
    assert [c.key.key_type for c in body.cells] == [Hfile.KeyType.put] * 2


def test_builder_refuses_unsorted_or_duplicate_keys():
    for records in ([("b", b""), ("a", b"")], [("a", b""), ("a", b"")]):
        with pytest.raises(HFileError, match="keys must be sorted and unique"):
            build_hfile(records)
    with pytest.raises(HFileError, match="not supported"):
        build_hfile([], compression="SNAPPY")


def test_grammar_refuses_damage_with_hfile_error(corpus_hfiles):
    data = next(iter(corpus_hfiles.values()))
    for damaged in (data[:100], data[:-1], b"NOTABLK*" + data[8:], data[:-4] + b"\x00\x00\x00\x04"):
        with pytest.raises(HFileError):
            parse_layout(damaged)


# ---- the JavaScript codec ------------------------------------------------------------------------


def test_built_and_corpus_files_parse_alike_in_javascript(corpus_hfiles, tmp_path):
    _need_node()
    js_dir = tmp_path / "js"
    subprocess.run([NODE, "tools/regen/regen.js", "--lang", "javascript", "--out", str(js_dir), "--spec", "spec/hfile.ksy"],
                   cwd=REPO, check=True)
    inputs = {f"built-{c}": write_hfile(HFileContents(3, 0, c, 0, {}, "", [HFileKeyValue(k, v, 0, 4) for k, v in _records(120)]))
              for c in ("GZ", "NONE")}
    inputs.update(dict(list(corpus_hfiles.items())[::20]))
    paths = []
    for i, data in enumerate(inputs.values()):
        p = tmp_path / f"in{i}.hfile"
        p.write_bytes(data)
        paths.append(str(p))
    r = subprocess.run([NODE, "tools/regen/parse_js.js", "--module", "Hfile", str(js_dir), *paths],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for (name, data), js in zip(inputs.items(), json.loads(r.stdout)):
        assert "tree" in js, (name, js.get("error"))
        root = Hfile(KaitaiStream(BytesIO(data)))
        root._read()
        _same(_dump(root), js["tree"], name, lambda where: None)
    # the uncompressed file's cells are visible in the JavaScript tree too
    tree = json.loads(r.stdout)[1]["tree"]
    cells = tree["section"]["blocks"][0]["payload"]["body"]["cells"]
    assert cells[0]["key"]["row_text"] == "key-00000"


def test_changed_contents_are_laid_out_again():
    data = write_hfile(HFileContents(3, 0, "GZ", 2, {}, "", [HFileKeyValue("a", b"1", 0, 4), HFileKeyValue("b", b"2", 0, 4)]))
    contents = read_hfile(data)
    assert write_hfile(contents) == data  # unchanged: its own bytes
    fewer = dataclasses.replace(contents, records=contents.records[:1], entry_count=1)
    assert [r.key for r in read_hfile(write_hfile(fewer)).records] == ["a"]
    with_bloom = dataclasses.replace(contents, meta_blocks={"bloomFilter": b"bits"})
    again = read_hfile(write_hfile(with_bloom))
    (meta,) = [b for b in again.layout.blocks if b.magic == "METABLKc"]
    assert zlib.decompress(meta.payload, 31) == b"bits" and again.records == contents.records
