"""hudi-log's base-file bloom filters as Java's BLOOM / GLOBAL_BLOOM index reads them (issue 15, items 5 and 9):
tests/java/HudiLogBloomCheck.java, compiled with javac against PySpark's Parquet and Hadoop jars, reads every
base file hudi-log wrote (table versions 6 and 8, MERGE_ON_READ and COPY_ON_WRITE, compaction included),
decodes ``org.apache.hudi.bloomfilter`` into Hadoop's ``org.apache.hadoop.util.bloom.BloomFilter`` rows and
checks that ``membershipTest`` holds every record key of the file, that absent keys are rejected, and that
the footer's min / max keys are Java's ``String.compareTo`` min / max. A missing or damaged filter fails.
Skipped, with the reason, where Java or the jars are absent.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hudi_log.format.content.bloom import FOOTER_KEY, hash_rounds, read_footer_filter
from hudi_log.table.write.client import write_table
from test_bloom import _options, _rows, data_files, write_history

SOURCE = Path(__file__).parent / "java" / "HudiLogBloomCheck.java"
ABSENT = 2000


@pytest.fixture(scope="session")
def bloom_check(java_program):
    """Java's verdict on each base file: one dict per file."""
    run = java_program(SOURCE)
    return lambda files: run([[f, ABSENT] for f in files])


def _keys(path: Path) -> list[str]:
    return pq.read_table(path, columns=["_hoodie_record_key"]).column(0).to_pylist()


@pytest.mark.parametrize("version", [6, 8])
@pytest.mark.parametrize("kind", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_java_finds_every_key_in_the_filters_hudi_log_writes(tmp_path, bloom_check, version, kind):
    write_history(tmp_path / "t", version, kind)
    files = data_files(tmp_path / "t")
    if kind == "MERGE_ON_READ":
        assert any("_0-0-0_" in f.name for f in files)  # compaction wrote some of them
    for path, got in zip(files, bloom_check(files)):
        assert "error" not in got, (path, got)
        keys = _keys(path)
        assert got["keys"] == len(keys) > 0
        assert got["missing"] == 0, (path, got["first_missing"])
        assert (got["type"], got["rows"], got["nb_hash"], got["hash_type"], got["vector_size"], got["nr"]) == \
            ("DYNAMIC_V0", 1, 30, 1, 2587966, 60000)
        assert got["current"] == len(keys)
        assert got["absent"] == ABSENT and got["absent_hits"] <= 1  # fpp 1e-9
        assert (got["footer_min"], got["footer_max"]) == (got["java_min"], got["java_max"])


def test_java_reads_grown_dynamic_and_simple_filters(tmp_path, bloom_check):
    """Small num_entries: DYNAMIC_V0 filters of several rows, keys going round-robin past the maximum;
    and SIMPLE filters (one Hadoop BloomFilter, no type code)."""
    small = {"hoodie.index.bloom.num_entries": "8", "hoodie.bloom.index.filter.dynamic.max.entries": "20"}
    write_history(tmp_path / "d", 8, "COPY_ON_WRITE", **small)
    write_table(tmp_path / "d", _rows(range(100, 200), 4), "insert", _options(8, "COPY_ON_WRITE", **small))
    write_history(tmp_path / "s", 6, "MERGE_ON_READ", **{"hoodie.bloom.index.filter.type": "SIMPLE"})
    dynamic, simple = data_files(tmp_path / "d"), data_files(tmp_path / "s")
    results = bloom_check(dynamic + simple)
    grown = 0
    for path, got in zip(dynamic + simple, results):
        assert "error" not in got, (path, got)
        assert got["missing"] == 0 and got["keys"] == len(_keys(path))
        if path in dynamic:
            assert got["type"] == "DYNAMIC_V0" and got["nr"] == 8
            assert got["rows"] == min(3, -(-got["keys"] // 8))  # a row per 8 keys, up to ceil(20 / 8)
            grown += got["keys"] > 24  # past the maximum: round-robin over the three rows
        else:
            assert got["type"] == "SIMPLE" and got["absent_hits"] <= 1
    assert grown >= 1


def _rewrite_footer(src: Path, dst: Path, change) -> None:
    """``src`` again at ``dst``, its footer key/values passed through ``change``."""
    meta = dict(pq.ParquetFile(src).metadata.metadata)
    table = pq.read_table(src)
    with pq.ParquetWriter(dst, table.schema, store_schema=False) as w:
        w.write_table(table)
        w.add_key_value_metadata(change(meta))


def test_java_check_fails_on_a_damaged_or_missing_filter(tmp_path, bloom_check):
    write_history(tmp_path / "t", 6, "COPY_ON_WRITE")
    src = data_files(tmp_path / "t")[0]
    key = _keys(src)[0]
    f = read_footer_filter(pq.ParquetFile(src).metadata.metadata)
    pos = int(next(hash_rounds([key], f.vector_size, f.nb_hash))[0])
    f.bits[0, pos // 8 * 8: pos // 8 * 8 + 8] ^= True  # flip the byte holding the key's first bit

    def flipped(meta):
        meta[FOOTER_KEY.encode()] = f.serialize().encode()
        return meta

    def dropped(meta):
        del meta[FOOTER_KEY.encode()]
        return meta

    _rewrite_footer(src, tmp_path / "flipped.parquet", flipped)
    _rewrite_footer(src, tmp_path / "dropped.parquet", dropped)
    good, bad, missing = bloom_check([src, tmp_path / "flipped.parquet", tmp_path / "dropped.parquet"])
    assert good["missing"] == 0
    assert bad["missing"] >= 1 and bad["first_missing"] == key
    assert "no org.apache.hudi.bloomfilter" in missing["error"]


def test_the_check_reads_javas_own_base_files(corpus_tables, bloom_check):
    """The checker itself, on the base files Java Hudi wrote in the corpus: every key found, Java's min / max."""
    files = [f for root in corpus_tables.values() for f in data_files(root)]
    assert len(files) >= 50
    for path, got in zip(files, bloom_check(files)):
        assert "error" not in got and got["missing"] == 0, (path, got)
        assert got["type"] == "DYNAMIC_V0" and got["absent_hits"] <= 1
        if got["keys"]:
            assert (got["footer_min"], got["footer_max"]) == (got["java_min"], got["java_max"])
