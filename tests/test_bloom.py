"""The record-key bloom filter of base files (issue 15, item 5): Java's filters in the corpus re-made byte for
byte, the DYNAMIC_V0 rows as Java grows them, Java's min / max order, and every base file hudi-log writes
(inserts, COW merges, compaction; table versions 6 and 8) carrying a filter that holds its keys. Java's own
classes check the same files in tests/test_java_bloom.py."""

from __future__ import annotations

import base64
import random
import struct
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log.format.content import bloom
from hudi_log.format.content.bloom import (
    DYNAMIC_V0, FOOTER_KEY, SIMPLE, TYPE_CODE_KEY, BloomFilter, BloomFilterError, BloomOptions, footer_metadata,
    hash_rounds, java_min_max, murmur_hash, read_footer_filter,
)
from hudi_log.table.errors import WriteError
from hudi_log.table.services.compaction import compact
from hudi_log.table.write.client import write_table

RECORD_KEY = "_hoodie_record_key"


def data_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.parquet") if ".hoodie" not in p.parts)


# ---- the filter ------------------------------------------------------------------------------------------
def test_default_sizing_is_javas():
    assert bloom.bit_size(60000, 0.000000001) == 2587966
    assert bloom.num_hashes(2587966, 60000) == 30
    f = BloomFilter.create(BloomOptions())
    assert (f.type_code, f.vector_size, f.nb_hash, f.nr, f.max_nr) == (DYNAMIC_V0, 2587966, 30, 60000, 100000)


def _keys(rng: random.Random, n: int, lengths) -> list[str]:
    alphabet = "aZ09-_:é€😀"  # 1, 2, 3 and 4 UTF-8 bytes: negative tail bytes, as Java's signed bytes
    return ["".join(rng.choice(alphabet) for _ in range(rng.choice(lengths))) for _ in range(n)]


@pytest.mark.parametrize("lengths", [range(1, 30), [7], [36], [1], [4]], ids=["mixed", "7", "36", "1", "4"])
def test_vectorised_hash_is_the_scalar_murmur_chain(lengths):
    keys = _keys(random.Random(len(lengths)), 500, lengths)
    rounds = list(hash_rounds(pa.array(keys), 1_000_003, 4))
    for i, key in enumerate(keys):
        seed = 0
        for r in range(4):
            seed = murmur_hash(key.encode(), seed)
            assert rounds[r][i] == abs(seed) % 1_000_003, (key, r)


def test_murmur_tail_takes_javas_signed_bytes_in_reverse():
    # a 3-byte tail: data[n-3] << 16 ^ data[n-2] << 8 ^ data[n-1], each sign-extended first
    m = 0x5BD1E995
    h = (0 ^ 3) ^ (((0x80 - 256) << 16) ^ (0x01 << 8) ^ 0x02) & 0xFFFFFFFF
    h = h * m & 0xFFFFFFFF
    h ^= h >> 13
    h = h * m & 0xFFFFFFFF
    h ^= h >> 15
    assert murmur_hash(b"\x80\x01\x02", 0) == (h - (1 << 32) if h & 0x80000000 else h)


def _java_rows(n: int, nr: int, max_nr: int) -> tuple[list[int], int, int]:
    """Java's InternalDynamicBloomFilter.add one key at a time: the row of each key, rows, currentNbRecord."""
    rows, current, reached, cursor, out = 1, 0, False, 0, []
    for _ in range(n):
        if reached:
            row = cursor % rows
            cursor += 1
        elif current >= nr and rows * nr < max_nr:
            rows, current, row = rows + 1, 0, rows
        elif current >= nr:
            reached, row = True, 0
        else:
            row = rows - 1
        out.append(row)
        current += 1
    return out, rows, current


@pytest.mark.parametrize("n,nr,max_nr", [(50, 8, 20), (50, 8, 0), (17, 8, 100), (8, 8, 20), (0, 8, 20)])
def test_dynamic_rows_grow_and_rotate_as_javas(n, nr, max_nr):
    keys = [f"key-{i}" for i in range(n)]
    whole = BloomFilter.create(BloomOptions(num_entries=nr, dynamic_max_entries=max_nr))
    whole.add(keys)
    split = BloomFilter.create(BloomOptions(num_entries=nr, dynamic_max_entries=max_nr))
    for part in (keys[:3], keys[3:11], keys[11:]):  # batches cut across row boundaries land alike
        split.add(part)
    assert whole.to_bytes() == split.to_bytes()
    rows_of, rows, current = _java_rows(n, nr, max_nr)
    raw = whole.to_bytes()
    version, nb_hash, hash_type, size, nr_out, current_out, count = struct.unpack(">iibiiii", raw[:25])
    assert (version, hash_type, nr_out, current_out, count) == (-1, 1, nr, current, rows)
    # each key's bits are in the row Java puts it in
    for i, key in enumerate(keys):
        pos = [int(r[0]) for r in hash_rounds([key], size, nb_hash)]
        assert whole.bits[rows_of[i], pos].all()
    assert len(raw) == 25 + rows * (13 + (size + 7) // 8)


def test_round_trip_membership_and_rejection():
    keys = [f"{i:08d}-uuid-ish" for i in range(5000)]
    for kind in (SIMPLE, DYNAMIC_V0):
        footer = footer_metadata(keys, BloomOptions(filter_type=kind))
        f = read_footer_filter(footer)
        assert f.type_code == kind and f.might_contain(keys).all()
        assert f.serialize().encode() == footer[FOOTER_KEY.encode()]
        absent = [f"absent-{i}" for i in range(5000)]
        assert f.might_contain(absent).sum() <= 2  # fpp 1e-9
        assert (TYPE_CODE_KEY.encode() in footer) == (kind == DYNAMIC_V0)  # Java writes DYNAMIC codes only


def test_a_flipped_byte_loses_a_key():
    f = BloomFilter.create(BloomOptions())
    f.add(["only-key"])
    raw = bytearray(f.to_bytes())
    pos = int(next(hash_rounds(["only-key"], f.vector_size, f.nb_hash))[0])
    raw[25 + 13 + pos // 8] ^= 0xFF  # the dynamic header, the row's header, then the byte of that bit
    broken = BloomFilter.parse(base64.b64encode(bytes(raw)), DYNAMIC_V0)
    assert not broken.might_contain(["only-key"])[0]


def test_min_max_in_javas_utf16_order():
    # U+10000 is the surrogate pair D800 DC00 in Java: below U+FFFF there, above it in code points
    keys = ["\uffff", "\U00010000", "a"]
    assert java_min_max(keys) == ("a", "\uffff")
    assert java_min_max(["b", "a", "c"]) == ("a", "c")
    assert java_min_max([]) is None
    footer = footer_metadata(["\U00010000", "\uffff"], BloomOptions())
    assert footer[b"hoodie_min_record_key"] == "\U00010000".encode()
    assert footer[b"hoodie_max_record_key"] == "\uffff".encode()


def test_refusals():
    with pytest.raises(BloomFilterError, match="empty"):
        footer_metadata(["a", ""], BloomOptions())
    with pytest.raises(BloomFilterError, match="null"):
        footer_metadata(pa.array(["a", None]), BloomOptions())
    for bad in ({bloom.OPT_TYPE: "BITMAP"}, {bloom.OPT_NUM_ENTRIES: "0"}, {bloom.OPT_FPP: "1.5"},
                {bloom.OPT_NUM_ENTRIES: "many"}):
        with pytest.raises(BloomFilterError):
            BloomOptions.from_options(bad)
    good = BloomFilter.create(BloomOptions(num_entries=10)).serialize()
    with pytest.raises(BloomFilterError, match="bytes after"):
        BloomFilter.parse(base64.b64encode(base64.b64decode(good) + b"\0"), DYNAMIC_V0)
    with pytest.raises(BloomFilterError, match="ends at byte"):
        BloomFilter.parse(base64.b64encode(base64.b64decode(good)[:-1]), DYNAMIC_V0)
    with pytest.raises(BloomFilterError, match="version"):
        BloomFilter.parse(base64.b64encode(struct.pack(">iibi", 5, 1, 1, 8) + b"\0"), SIMPLE)
    with pytest.raises(BloomFilterError, match="type code"):
        BloomFilter.parse(good, "DYNAMIC_V9")
    assert BloomOptions.from_options({bloom.OPT_ENABLED: "false"}).enabled is False
    assert BloomOptions.from_options({bloom.OPT_ENABLED: "false", bloom.OPT_INDEX_TYPE: "GLOBAL_BLOOM"}).enabled


# ---- Java's files -----------------------------------------------------------------------------------------
def test_corpus_filters_are_remade_byte_for_byte(corpus_tables):
    """Every base file Java wrote in the corpus: its filter holds its keys, and the filter, type code and
    min / max hudi-log makes from the same keys (in the file's order, Hudi's default options) are the
    footer's, byte for byte."""
    checked = 0
    for root in corpus_tables.values():
        for path in data_files(root):
            meta = pq.ParquetFile(path).metadata.metadata
            keys = pq.read_table(path, columns=[RECORD_KEY]).column(0)
            f = read_footer_filter(meta)
            assert f is not None and f.might_contain(keys).all(), path
            ours = footer_metadata(keys, BloomOptions())
            for k, v in ours.items():
                assert meta[k] == v, (path, k)
            assert (b"hoodie_min_record_key" in meta) == (b"hoodie_min_record_key" in ours)
            checked += 1
    assert checked >= 50


# ---- hudi-log's files -------------------------------------------------------------------------------------
def _rows(ids, ts: int) -> pa.Table:
    # keys of 1 to 4 UTF-8 bytes per character, at every tail length
    return pa.table({"id": [f"k{i}" + "é€😀"[: i % 4] for i in ids], "part": [f"p{i % 2}" for i in ids],
                     "ts": pa.array([ts] * len(ids), pa.int64())})


def _options(version: int, kind: str, **extra) -> dict:
    # no small-file packing: updates stay in MOR logs, so there is something to compact
    return {"hoodie.table.name": "bloom", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": kind, "hoodie.write.table.version": str(version),
            "hoodie.parquet.small.file.limit": "0", **extra}


def write_history(path: Path, version: int, kind: str, **extra) -> None:
    """Inserts, updates and new keys, then (MOR) a compaction: base files from every writer of them."""
    o = _options(version, kind, **extra)
    write_table(path, _rows(range(40), 1), "insert", o)
    write_table(path, _rows(list(range(0, 40, 3)) + list(range(40, 50)), 2), "upsert", o)
    write_table(path, _rows(range(1, 60, 4), 3), "upsert", o)
    if kind == "MERGE_ON_READ":
        assert compact(path, o) is not None


@pytest.mark.parametrize("version", [6, 8])
@pytest.mark.parametrize("kind", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_every_base_file_carries_a_filter_of_its_keys(tmp_path, version, kind):
    write_history(tmp_path / "t", version, kind)
    files = data_files(tmp_path / "t")
    assert len(files) >= 4
    for path in files:
        meta = pq.ParquetFile(path).metadata.metadata
        keys = pq.read_table(path, columns=[RECORD_KEY]).column(0)
        f = read_footer_filter(meta)
        assert f.type_code == DYNAMIC_V0 and meta[TYPE_CODE_KEY.encode()] == b"DYNAMIC_V0"
        assert f.might_contain(keys).all(), path
        assert footer_metadata(keys, BloomOptions()) == {k: meta[k] for k in footer_metadata(keys, BloomOptions())}


def test_filter_options_are_hudis(tmp_path):
    write_history(tmp_path / "s", 8, "MERGE_ON_READ", **{"hoodie.bloom.index.filter.type": "SIMPLE",
                                                         "hoodie.index.bloom.num_entries": "100"})
    for path in data_files(tmp_path / "s"):
        meta = pq.ParquetFile(path).metadata.metadata
        assert TYPE_CODE_KEY.encode() not in meta
        f = read_footer_filter(meta)
        assert (f.type_code, f.vector_size) == (SIMPLE, bloom.bit_size(100, 1e-9))
        assert f.might_contain(pq.read_table(path, columns=[RECORD_KEY]).column(0)).all()
    write_history(tmp_path / "off", 6, "COPY_ON_WRITE", **{"hoodie.parquet.bloom.filter.enabled": "false"})
    for path in data_files(tmp_path / "off"):
        meta = pq.ParquetFile(path).metadata.metadata
        assert FOOTER_KEY.encode() not in meta and b"hoodie_min_record_key" not in meta  # as Java


def test_bad_filter_options_are_refused_before_anything_is_written(tmp_path):
    bad = {"hoodie.bloom.index.filter.type": "CUCKOO"}
    with pytest.raises(WriteError, match="CUCKOO"):
        write_table(tmp_path / "t", _rows(range(3), 1), "insert", _options(6, "MERGE_ON_READ", **bad))
    assert not (tmp_path / "t").exists()
    write_table(tmp_path / "t", _rows(range(3), 1), "insert", _options(6, "MERGE_ON_READ"))
    write_table(tmp_path / "t", _rows(range(3), 2), "upsert", _options(6, "MERGE_ON_READ"))
    before = sorted((tmp_path / "t").rglob("*"))
    with pytest.raises(WriteError, match="CUCKOO"):  # refused as the write refuses it (services/options.py)
        compact(tmp_path / "t", bad)
    with pytest.raises(WriteError, match="CUCKOO"):
        write_table(tmp_path / "t", _rows(range(3), 3), "upsert", _options(6, "MERGE_ON_READ", **bad))
    assert sorted((tmp_path / "t").rglob("*")) == before


def test_large_file_filter_holds_every_key():
    keys = pa.array([f"{i:08d}-8f2c-4a4b-9d53-1c6f0e9b{i % 10000:04d}" for i in range(150_000)])
    f = read_footer_filter(footer_metadata(keys, BloomOptions()))
    assert len(f.bits) == 2 and f.current == 90_000  # a second row from key 60,000 on; reached max at 120,000
    assert f.might_contain(keys).all()
    assert np.count_nonzero(f.might_contain(pa.array([f"x{i}" for i in range(20_000)]))) <= 2


def test_a_small_commits_footers_do_not_shrink_later_files(tmp_path):
    """A 3-row commit's bytes are mostly its files' bloom filters (~430 KB each): Hudi's record size
    estimate skips commits under hoodie.parquet.small.file.limit, so the next insert is not cut into
    files of a few hundred records."""
    o = _options(6, "COPY_ON_WRITE", **{"hoodie.parquet.small.file.limit": str(100 << 20)})  # Hudi's default
    write_table(tmp_path / "t", _rows(range(3), 1), "insert", o)
    r = write_table(tmp_path / "t", _rows(range(1000, 6000), 2), "insert", o)
    assert len(r.write_stats) == 2  # one file per partition (120 MiB / 1 KiB records)
