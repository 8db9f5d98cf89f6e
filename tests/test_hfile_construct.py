"""spec/hfile.py (construct) against spec/hfile.ksy (the Kaitai codec generated from it).

Both spellings of the HFile grammar read every HFile of the corpus to the same tree, field by field
(block bodies included, once inflated), rebuild it byte for byte, and accept or refuse the same
damaged copies.
"""

from __future__ import annotations

import importlib.util
import random
import zlib
from pathlib import Path

import pytest
from construct import ConstructError, Container, ListContainer
from kaitaistruct import BytesIO, KaitaiStream, KaitaiStruct

from hudi_log.format.content.hfile import HFileContents, HFileKeyValue, write_hfile
from hudi_log.format.content.hfile_grammar import Hfile, parse_body

from test_hfile_grammar import corpus_hfiles  # noqa: F401  (the fixture)

REPO = Path(__file__).resolve().parents[1]


def _load():
    # spec/hfile.py would shadow nothing, but load it by path as test_construct_grammar.py does
    spec = importlib.util.spec_from_file_location("hfile_construct_grammar", REPO / "spec" / "hfile.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


C = _load()


def k_tree(obj):
    """A Kaitai object as plain data: seq fields only; varints as their value, enums as numbers."""
    if isinstance(obj, (Hfile.PbVarint, Hfile.HadoopVint)):
        return obj.value
    if isinstance(obj, Hfile.BlockPayload):
        return {"data": obj.data}
    if isinstance(obj, KaitaiStruct):
        return {k: k_tree(v) for k, v in vars(obj).items() if not k.startswith("_") and not k.endswith("__enabled")}
    if isinstance(obj, list):
        return [k_tree(x) for x in obj]
    if hasattr(obj, "value") and not isinstance(obj, (bytes, str, int)):
        return obj.value  # an enum
    return obj


def c_tree(obj):
    if isinstance(obj, Container):
        return {k: c_tree(v) for k, v in obj.items() if not k.startswith("_")}
    if isinstance(obj, ListContainer):
        return [c_tree(x) for x in obj]
    return obj


def kaitai_parse(data: bytes):
    root = Hfile(KaitaiStream(BytesIO(data)))
    root._read()
    return root


def bodies_alike(tree_c, data: bytes) -> None:
    """Every block body, inflated, reads alike in both spellings and rebuilds."""
    codec = kaitai_parse(data).trailer.compression_codec
    for blk in tree_c.section.blocks:
        raw = zlib.decompress(blk.payload.data, 31) if codec == Hfile.CompressionCodec.gz else blk.payload.data
        construct_type = {"DATABLK*": C.data_block_body, "IDXROOT2": C.index_body, "FILEINF2": C.file_info_body,
                          "IDXLEAF2": C.nonroot_index_body, "IDXINTE2": C.nonroot_index_body}.get(blk.magic)
        if construct_type is None:
            continue
        parsed = construct_type.parse(raw)
        assert c_tree(parsed) == k_tree(parse_body(blk.magic, raw)), blk.magic
        assert construct_type.build(parsed) == raw, blk.magic


def test_corpus_construct_equals_kaitai_and_rebuilds(corpus_hfiles):  # noqa: F811
    for name, data in corpus_hfiles.items():
        tree_c = C.parse_hfile(data)
        assert c_tree(tree_c) == k_tree(kaitai_parse(data)), name
        assert C.build_hfile(tree_c) == data, name
        bodies_alike(tree_c, data)


@pytest.mark.parametrize("compression", ["GZ", "NONE"])
def test_built_file_construct_equals_kaitai(compression):
    records = [HFileKeyValue(f"k{i:04d}", bytes([i % 256]) * (i % 50), 0, 4) for i in range(400)]
    data = write_hfile(HFileContents(3, 0, compression, 400, {"schema": b"{}"}, "", records), block_size=2048)
    tree_c = C.parse_hfile(data)
    assert c_tree(tree_c) == k_tree(kaitai_parse(data))
    assert C.build_hfile(tree_c) == data
    bodies_alike(tree_c, data)


def test_lengths_are_rebuilt_and_padding_filled():
    data = write_hfile(HFileContents(3, 0, "NONE", 1, {}, "", [HFileKeyValue("a", b"v", 0, 4)]))
    tree = C.parse_hfile(data)
    for blk in tree.section.blocks:
        blk.len_on_disk_without_header = blk.len_on_disk_data_with_header = -5
    tree.trailer.len_proto, tree.trailer.padding = 0, None
    assert C.build_hfile(tree) == data


def test_damaged_copies_accepted_and_refused_alike(corpus_hfiles):  # noqa: F811
    rng = random.Random(36)
    samples = list(corpus_hfiles.values())[::25]
    outcomes = {"accepted": 0, "refused": 0}
    for data in samples:
        for _ in range(40):
            damaged = bytearray(data)
            at = rng.randrange(len(data)) if rng.random() < 0.5 else rng.randrange(min(len(data), 120))
            damaged[at] ^= 1 << rng.randrange(8)
            try:
                k = k_tree(kaitai_parse(bytes(damaged)))
            except Exception:
                k = None
            try:
                c = c_tree(C.parse_hfile(bytes(damaged)))
            except (ConstructError, UnicodeDecodeError):
                c = None
            assert (k is None) == (c is None), at
            if k is not None:
                assert c == k
            outcomes["accepted" if k is not None else "refused"] += 1
    assert outcomes["accepted"] and outcomes["refused"]
