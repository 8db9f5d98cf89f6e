"""The metadata table's writer schema built from its declaration equals what Java wrote (every schema in the
corpus's metadata tables: block SCHEMA headers and base files' file info), and records encode to HFILE data
blocks that read back as written."""

from __future__ import annotations

import json

import pytest

from hudi_log.format.content.hfile import read_hfile
from hudi_log.format.reader import open_log
from hudi_log.table.metadata.change import MetadataRecord
from hudi_log.table.metadata.records import (
    MetadataSchemaError, hfile_block, metadata_schema, metadata_schema_text, payload_record,
)
from hudi_log.table.properties import read_properties


def _corpus_metadata_tables(corpus_tables):
    """(data table version, metadata table folder) of every corpus table that has a metadata table."""
    for root in corpus_tables.values():
        meta = root / ".hoodie" / "metadata"
        if meta.is_dir():
            yield int(read_properties(root).get("hoodie.table.version")), meta


def _corpus_schemas(corpus_tables) -> list[tuple[int, str, str]]:
    """(data table version, where, schema text) of every schema Java wrote in a corpus metadata table."""
    out = []
    for version, meta in _corpus_metadata_tables(corpus_tables):
        for f in sorted(meta.rglob("*")):
            if not f.is_file() or ".hoodie/metadata/.hoodie" in str(f):
                continue
            if f.name.endswith(".hfile"):
                out.append((version, str(f), read_hfile(f.read_bytes()).file_info["schema"].decode()))
            elif ".log." in f.name:
                for b in open_log(f):
                    s = None if b.corrupt else b.schema
                    if s:
                        out.append((version, f"{f}@{b.offset}", s))
    return out


def test_declared_schema_equals_every_corpus_schema(corpus_tables):
    found = _corpus_schemas(corpus_tables)
    versions = {v for v, _, _ in found}
    assert {8, 9} <= versions, versions
    for version, where, text in found:
        java = _without_doc_texts(json.loads(text))
        assert java == metadata_schema(version), where
        # Avro's own text, byte for byte, but for Java's doc prose (left out of hudi-log's schema)
        assert json.dumps(java, separators=(",", ":"), ensure_ascii=False) == metadata_schema_text(version), where


def _without_doc_texts(node):
    """A parsed schema without its non-empty ``doc`` texts (the meta fields' empty ones stay, as Java writes)."""
    if isinstance(node, dict):
        return {k: _without_doc_texts(v) for k, v in node.items() if not (k == "doc" and v)}
    if isinstance(node, list):
        return [_without_doc_texts(v) for v in node]
    return node


def test_versions_differ_as_java_releases_added_fields():
    def names(schema, record):
        def walk(t):
            if isinstance(t, list):
                for m in t:
                    yield from walk(m)
            elif isinstance(t, dict):
                if t.get("type") == "record":
                    yield t["name"], [f["name"] for f in t["fields"]]
                    for f in t["fields"]:
                        yield from walk(f["type"])
                for k in ("values", "items"):
                    if k in t:
                        yield from walk(t[k])
        return dict(walk(schema)).get(record)

    v6, v8, v9 = (metadata_schema(v) for v in (6, 8, 9))
    assert "SecondaryIndexMetadata" not in names(v6, "HoodieMetadataRecord")
    assert "SecondaryIndexMetadata" in names(v8, "HoodieMetadataRecord")
    assert "isTightBound" not in names(v6, "HoodieMetadataColumnStats")
    assert "position" not in names(v6, "HoodieRecordIndexInfo")
    assert names(v8, "ArrayWrapper") is None and names(v9, "ArrayWrapper") == ["wrappedValues"]
    assert "valueType" in names(v9, "HoodieMetadataColumnStats")
    assert metadata_schema(7) == v6 and metadata_schema(10) == v9
    with pytest.raises(MetadataSchemaError, match="versions 6, 8 and 9"):
        metadata_schema(5)


@pytest.mark.parametrize("version", [6, 8, 9])
def test_hfile_block_round_trip_sorted_and_filled(version):
    recs = [
        MetadataRecord("p2", {"type": 2, "filesystemMetadata": {"a.parquet": {"size": 10, "isDeleted": False}}}),
        MetadataRecord("__all_partitions__",
                       {"type": 1, "filesystemMetadata": {"p2": {"size": 0, "isDeleted": False}}}),
        MetadataRecord("p\u00e9", {"type": 2, "filesystemMetadata": {}}),
        MetadataRecord("p\U0001F600", {"type": 2, "filesystemMetadata": {}}),
        MetadataRecord("p\uffff", {"type": 2, "filesystemMetadata": {}}),
    ]
    block = hfile_block("20250101000000000", recs, version, create_time_ms=1)
    assert block.instant_time == "20250101000000000"
    assert json.loads(block.schema) == metadata_schema(version)
    keys = [c.key for c in block.hfile().records]
    # Java's String order: UTF-16 units, so a supplementary character (surrogates D83D...) sorts before U+FFFF
    assert keys == ["__all_partitions__", "p2", "p\u00e9", "p\U0001F600", "p\uffff"]
    got = {r["key"]: r for r in block.records()}
    assert got["p2"]["filesystemMetadata"] == {"a.parquet": {"size": 10, "isDeleted": False}}
    assert got["p2"]["ColumnStatsMetadata"] is None and got["p2"]["_hoodie_commit_time"] is None


def test_payload_checked_against_the_version_schema():
    schema = metadata_schema(6)
    with pytest.raises(MetadataSchemaError, match="SecondaryIndexMetadata"):
        payload_record(MetadataRecord("k", {"type": 7, "SecondaryIndexMetadata": {"isDeleted": False}}), schema)
    with pytest.raises(MetadataSchemaError, match="record type"):
        payload_record(MetadataRecord("k", {"filesystemMetadata": {}}), schema)
    # a nested record's missing default-carrying field takes its default (isTightBound false, from v8)
    full = payload_record(MetadataRecord("k", {"type": 3, "ColumnStatsMetadata": {
        "fileName": "f", "columnName": "c", "isDeleted": False}}), metadata_schema(8))
    assert full["ColumnStatsMetadata"]["isTightBound"] is False and full["ColumnStatsMetadata"]["minValue"] is None
    with pytest.raises(MetadataSchemaError, match="does not fit"):
        hfile_block("1", [MetadataRecord("k", {"type": "x"})], 9)


def test_corpus_scan_saw_log_block_schemas(corpus_tables):
    # the equality above covers the SCHEMA headers of log blocks, not only base files' file info
    assert sum("@" in where for _, where, _ in _corpus_schemas(corpus_tables)) >= 20


def _bloom_block(data: bytes) -> bytes:
    """The ``bloomFilter`` meta block's bytes (the one META block Hudi writes; GZ, 33-byte header)."""
    import struct
    import zlib

    i = data.find(b"METABLKc")
    on_disk = struct.unpack(">i", data[i + 8:i + 12])[0]
    return zlib.decompress(data[i + 33:i + 33 + on_disk - 4], 31)


def test_base_files_carry_javas_bloom_filter(corpus_tables):
    from hudi_log.table.metadata.records import base_hfile

    checked = 0
    for version, meta in _corpus_metadata_tables(corpus_tables):
        for f in sorted(meta.glob("*/*.hfile")):
            java = read_hfile(f.read_bytes())
            recs = [MetadataRecord(c.key, {"type": 1}) for c in java.records]
            ours = base_hfile(recs, version, create_time_ms=1)
            assert _bloom_block(ours) == _bloom_block(f.read_bytes()), f
            info = read_hfile(ours).file_info
            assert info["bloomFilterTypeCode"] == java.file_info["bloomFilterTypeCode"] == b"DYNAMIC_V0"
            if java.records:
                assert (info["minRecordKey"], info["maxRecordKey"]) == \
                    (java.file_info["minRecordKey"], java.file_info["maxRecordKey"]), f
            checked += 1
    assert checked >= 20
