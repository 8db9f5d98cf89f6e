"""The metadata table's column_stats, partition_stats and bloom_filters records, as Java writes them (issue 36).

Oracles: the corpus's Java-written metadata tables (every column_stats and partition_stats record of every
metadata log block, replayed from the data table's completed instants by hudi-log's builders and encoded with
the block's own writer schema, equals Java's bytes; the merged partitions equal Java's, key for key); Apache
Hudi's expected column statistics (hudi-spark's test resources index/colstats, values transcribed below);
Java's Avro decoding the records hudi-log makes (tests/java/HudiLogMdtStatsCheck.java).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import fastavro
import pytest

from hudi_log.format.content.bloom import read_footer_filter
from hudi_log.format.content.hfile import read_hfile
from hudi_log.format.grammar import BlockType
from hudi_log.format.reader import open_log
from hudi_log.table.metadata import bloom_filters, column_stats, partition_stats
from hudi_log.table.metadata.change import BUILDERS, DataChange
from hudi_log.table.metadata.column_ranges import (DATE, DECIMAL, INT, NULL, STRING, ColumnRange, columns_to_index,
                                                   kind_of, partition_range, record_ranges, to_payload)
from hudi_log.table.metadata.column_stats import live, merge_stats, read_column_stats
from hudi_log.table.metadata.stats_keys import (bloom_filter_key, column_stats_key, java_string_hash,
                                                key_file_group, partition_stats_key, xxh64)
from hudi_log.table.properties import read_properties
from hudi_log.table.timeline.timeline import Timeline

MDT_TABLES = ["quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "sample_table_cow_v9_timebasedkeygen_epochmillis",
              "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle", "sample_table_mor_avro_v9_txns_simple_meta"]
SYNCED = ("commit", "deltacommit", "replacecommit", "clean")


def changes(root: Path):
    props = read_properties(root)
    tl = Timeline(root, props)
    for i in tl.completed():
        if i.action in SYNCED:
            yield DataChange(root, props, i.requested_time, i.action, tl.commit_metadata(i), {})


def replay(root: Path, module) -> list[tuple[str, object]]:
    """(instant, record) of every record the builder makes over the table's completed instants, in order."""
    return [(ch.instant, r) for ch in changes(root) for r in module.records(ch)]


def _plain(stats: dict) -> dict:
    out = dict(stats)
    for f in ("minValue", "maxValue"):
        if isinstance(out.get(f), tuple):
            out[f] = out[f][1]
    return out


# --- keys ---------------------------------------------------------------------------------------------------

def test_xxh64_published_vectors():
    assert xxh64(b"", 0) == 0xEF46DB3751D8E999
    assert xxh64(b"Nobody inspects the spammish repetition", 0) == 0xFBCEA83C8A378BF1  # > 32 bytes: the lanes


def test_keys_as_java_keys_them():
    # a column_stats and a partition_stats key Java wrote (v8 quickstart table)
    log = ".036ded81-9ed4-479f-bcea-7145dfa0079b-0_20251220210123755.log.1_0-1022-2928"
    assert column_stats_key("_hoodie_commit_time", "city=san_francisco", log) == \
        "JBBzUToHtLc=8L2cgj6DtVM=9VNMPHPy5bI4gyFm7y1O7g=="
    assert partition_stats_key("currency", "region=apac") == "/m6lxu4Dh5w=OOL0+QGXAHU="
    assert bloom_filter_key("region=eu", "x.parquet").startswith("bOOVnCDQlm8=")
    assert bloom_filter_key("", "x.parquet") == bloom_filter_key(".", "x.parquet")  # non-partitioned: "."


def test_java_string_hash_and_file_group_mapping():
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == -(1 << 31)  # Integer.MIN_VALUE: Math.abs keeps it negative
    assert key_file_group("polygenelubricants", 3) == 2  # abs(MIN_VALUE % 3) = abs(-2)
    assert key_file_group("hello", 2) == 0 and key_file_group("hello", 7) == 99162322 % 7
    with pytest.raises(ValueError):
        key_file_group("k", 0)


@pytest.mark.parametrize("name", MDT_TABLES)
def test_every_corpus_key_sits_in_the_file_group_java_maps_it_to(corpus_tables, name):
    root = corpus_tables[name]
    checked = 0
    for part, mod in (("column_stats", column_stats), ("partition_stats", partition_stats)):
        folder = root / ".hoodie" / "metadata" / part
        groups = {f.lstrip(".").split("_")[0] for f in os.listdir(folder) if "-0" in f and not f.startswith(".hoodie")}
        count = mod.file_group_count(0, {})
        assert len(groups) == count, groups
        for f in sorted(os.listdir(folder)):
            p = folder / f
            keys = []
            if f.endswith(".hfile"):
                keys = [c.key for c in read_hfile(p.read_bytes()).records]
            elif ".log." in f:
                keys = [c.key for b in open_log(p) if b.block_type == BlockType.hfile_data_block for c in b.hfile().records]
            index = int(f.lstrip(".").split("_")[0].split("-")[-2]) if keys else None
            for k in keys:
                assert mod.file_group_index(k, count) == index, (f, k)
                checked += 1
    assert checked > 100


def test_builders_are_registered():
    assert BUILDERS["column_stats"] == column_stats.__name__
    assert BUILDERS["partition_stats"] == partition_stats.__name__
    assert BUILDERS["bloom_filters"] == bloom_filters.__name__
    assert (column_stats.file_group_count(10**6, {}), partition_stats.file_group_count(5, {}),
            bloom_filters.file_group_count(5, {})) == (2, 1, 4)
    assert column_stats.file_group_count(1, {"hoodie.metadata.index.column.stats.file.group.count": "8"}) == 8


# --- the corpus's records -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", MDT_TABLES)
def test_replayed_records_equal_javas_log_blocks_byte_for_byte(corpus_tables, name):
    """Every column_stats and partition_stats record in the metadata table's log blocks is what the builders
    make for that block's data instant, encoded with the block's writer schema (Java blanks the key field)."""
    root = corpus_tables[name]
    mine = {}
    for mod in (column_stats, partition_stats):
        for instant, r in replay(root, mod):
            mine[(instant, r.key)] = r.payload
    equal = 0
    for part in ("column_stats", "partition_stats"):
        folder = root / ".hoodie" / "metadata" / part
        for f in sorted(os.listdir(folder)):
            if ".log." not in f:
                continue
            for b in open_log(folder / f):
                if b.block_type != BlockType.hfile_data_block:
                    continue
                schema = json.loads(b.schema)
                parsed = fastavro.parse_schema(schema)
                for cell in b.hfile().records:
                    payload = mine.pop((b.instant_time, cell.key), None)
                    assert payload is not None, (f, b.instant_time, cell.key)
                    rec = {fld["name"]: None for fld in schema["fields"]}
                    rec.update(payload, key="")
                    buf = io.BytesIO()
                    fastavro.schemaless_writer(buf, parsed, rec)
                    assert buf.getvalue() == cell.value, (f, cell.key, fastavro.schemaless_reader(
                        io.BytesIO(cell.value), parsed))
                    equal += 1
    assert equal > 100
    assert not mine, f"records Java did not write: {sorted(mine)[:3]}"


@pytest.mark.parametrize("name", MDT_TABLES)
def test_replayed_partitions_equal_javas_merged_partitions(corpus_tables, name):
    """The builders' records merged with the column-stats rule equal what Java's metadata table holds now
    (base HFiles of its compactions included), key for key and value for value."""
    root = corpus_tables[name]
    for part, mod in (("column_stats", column_stats), ("partition_stats", partition_stats)):
        state: dict = {}
        for _, r in replay(root, mod):
            state[r.key] = merge_stats(state.get(r.key), r.payload)
        mine = {k: _plain(v["ColumnStatsMetadata"]) for k, v in live(state).items()}
        java = {k: v["ColumnStatsMetadata"] for k, v in read_column_stats(root, part).items()}
        assert mine == java and len(java) > 20, (part, sorted(set(mine) ^ set(java))[:3])
        if part == "partition_stats":
            assert all(v["isTightBound"] for v in java.values())


# --- the rules ----------------------------------------------------------------------------------------------

def _rec(lo, hi, nulls=0, values=1, *, deleted=False, tight=False, typ=3):
    return {"type": typ, "ColumnStatsMetadata": {
        "fileName": "f", "columnName": "c", "minValue": None if lo is None else {"value": lo},
        "maxValue": None if hi is None else {"value": hi}, "valueCount": values, "nullCount": nulls,
        "totalSize": 10, "totalUncompressedSize": 20, "isDeleted": deleted, "isTightBound": tight,
        "valueType": {"typeOrdinal": INT, "additionalInfo": None}}}


def test_merge_rule_of_hoodie_metadata_payload():
    a, b = _rec(5, 9, 1, 4), _rec(2, 7, 0, 3)
    m = merge_stats(a, b)["ColumnStatsMetadata"]
    assert (m["minValue"], m["maxValue"], m["valueCount"], m["nullCount"], m["totalSize"]) == \
        ({"value": 2}, {"value": 9}, 7, 1, 20)
    assert merge_stats(a, _rec(None, None, 0, 0))["ColumnStatsMetadata"]["minValue"] == {"value": 5}
    tomb = _rec(None, None, -1, -1, deleted=True)
    assert merge_stats(a, tomb) is tomb and merge_stats(tomb, b) is b  # a tombstone on either side: the newer
    tight = _rec(6, 6, tight=True, typ=6)
    assert merge_stats(_rec(1, 9, typ=6), tight) is tight  # a tight bound replaces
    assert live({"x": tomb, "y": a}) == {"y": a}


def test_columns_to_index_rules(corpus_tables):
    props = read_properties(corpus_tables[MDT_TABLES[3]])
    schema = {"type": "record", "name": "r", "fields": [
        {"name": "s", "type": ["null", "string"]}, {"name": "rec", "type": {"type": "record", "name": "n", "fields": []}},
        {"name": "arr", "type": {"type": "array", "items": "int"}}, {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}},
        {"name": "d", "type": {"type": "int", "logicalType": "date"}},
        {"name": "ok_dec", "type": {"type": "fixed", "name": "f1", "size": 7, "logicalType": "decimal", "precision": 15, "scale": 2}},
        {"name": "big_dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 38, "scale": 2}},
        {"name": "_hoodie_commit_seqno", "type": "string"}, {"name": "b", "type": "bytes"}]}
    cols = columns_to_index(props, schema)
    assert list(cols) == ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "s", "d", "ok_dec", "b"]
    assert (cols["d"].ordinal, cols["d"].wrapper) == (DATE, "IntWrapper")
    assert (cols["ok_dec"].ordinal, cols["ok_dec"].info, cols["ok_dec"].wrapper) == (DECIMAL, "15,2", "BytesWrapper")
    assert list(columns_to_index(props, schema, {"hoodie.metadata.index.column.stats.max.columns.to.index": "2"}))[3:] == ["s", "d"]
    listed = columns_to_index(props, schema, {"hoodie.metadata.index.column.stats.column.list": "d,rec,_hoodie_record_key"})
    assert list(listed) == ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "d"]


def test_decimals_are_javas_unscaled_two_complement_bytes():
    kind = kind_of(DECIMAL, "15,2", 2)
    for unscaled, raw in ((0, b"\x00"), (-1, b"\xff"), (127, b"\x7f"), (128, b"\x00\x80"), (-128, b"\x80"),
                          (-129, b"\xff\x7f"), (50000, b"\x00\xc3\x50")):
        p = to_payload(ColumnRange("f", "c", unscaled, unscaled, 0, 1, 0, 0, kind))
        assert p["minValue"] == ("org.apache.hudi.avro.model.BytesWrapper", {"value": raw}), unscaled
    assert p["valueType"] == {"typeOrdinal": DECIMAL, "additionalInfo": "15,2"}
    # records read with their logical type: fastavro's Decimal back to the unscaled value
    r = record_ranges("f", [{"c": Decimal("12.34")}, {"c": None}, {"c": Decimal("-0.05")}], {"c": kind}, 2)[0]
    assert (r.min, r.max, r.null_count, r.value_count) == (-5, 1234, 1, 3)
    empty = record_ranges("f", [], {"c": kind}, 2)[0]
    assert (empty.min, empty.value_count, empty.kind.ordinal) == (None, 0, NULL)


def test_partition_aggregation_equals_hudis_expected_partition_stats():
    """hudi-spark's index/colstats/column-stats-index-table.json: four files' ranges (c1 int, c2 string, c3
    decimal(?,3), c5 int, c6 date, c7 bytes: Base64 in the JSON); partition-stats-index-table.json: their
    partition's range, valueCount 40. Binary bounds combine in ByteBuffer order (signed bytes): min 0xd4."""
    files = [  # c1 min/max, c2, c3, c5, c6, c7 (hex), valueCount
        (309, 769, " 309sdc", " 769sdc", "76.430", "919.769", 32, 78, "2020-01-08", "2020-11-14", "01", "b9", 9),
        (0, 932, " 0sdc", " 932sdc", "19.000", "994.355", 1, 94, "2020-01-01", "2020-09-09", "00", "c7", 8),
        (89, 943, " 200sdc", " 943sdc", "100.556", "854.690", 10, 95, "2020-01-10", "2020-10-10", "2c", "c8", 10),
        (74, 959, " 181sdc", " 959sdc", "38.740", "980.213", 9, 97, "2020-01-23", "2020-11-22", "d4", "bf", 13)]
    kinds = {"c1": kind_of(INT, None, 2), "c2": kind_of(STRING, None, 2), "c3": kind_of(DECIMAL, "10,3", 2),
             "c5": kind_of(INT, None, 2), "c6": kind_of(DATE, None, 2), "c7": kind_of(8, None, 2)}
    ranges = []
    for i, f in enumerate(files):
        n = f[-1]
        vals = {"c1": f[0:2], "c2": f[2:4], "c3": tuple(int(Decimal(x) * 1000) for x in f[4:6]), "c5": f[6:8],
                "c6": tuple((date.fromisoformat(x) - date(1970, 1, 1)).days for x in f[8:10]),
                "c7": tuple(bytes.fromhex(x) for x in f[10:12])}
        ranges += [ColumnRange(f"file{i}", c, lo, hi, 0, n, 0, 0, kinds[c]) for c, (lo, hi) in vals.items()]
    agg = partition_range("p", ranges)
    got = {c: (r.min, r.max) for c, r in agg.items()}
    assert got["c1"] == (0, 959) and got["c2"] == (" 0sdc", " 959sdc") and got["c5"] == (1, 97)
    assert got["c3"] == (19000, 994355)
    assert got["c6"] == ((date(2020, 1, 1) - date(1970, 1, 1)).days, (date(2020, 11, 22) - date(1970, 1, 1)).days)
    assert got["c7"] == (bytes.fromhex("d4"), bytes.fromhex("c8"))  # "1A==" and "yA==" in Hudi's expected file
    assert {r.value_count for r in agg.values()} == {40} and agg["c1"].file_name == "p"


def test_clean_writes_a_tombstone_per_indexed_column(corpus_tables, tmp_path):
    root = corpus_tables[MDT_TABLES[3]]
    props = read_properties(root)
    java = read_column_stats(root)
    partition, a_file = column_stats.write_stat_files(next(changes(root)).metadata)[0]
    assert any(v["ColumnStatsMetadata"]["fileName"] == a_file for v in java.values())
    change = DataChange(root, props, "20990101000000000", "clean",
                        {"partitionMetadata": {partition: {"deletePathPatterns": [a_file], "successDeleteFiles": []}}}, {})
    recs = column_stats.records(change)
    assert len(recs) == 16 and all(r.payload["ColumnStatsMetadata"]["isDeleted"] for r in recs)
    stats = recs[0].payload["ColumnStatsMetadata"]
    assert (stats["valueCount"], stats["nullCount"], stats["totalSize"], stats["minValue"], stats["valueType"]) == \
        (-1, -1, -1, None, {"typeOrdinal": NULL, "additionalInfo": None})
    state = dict(java)
    for r in recs:
        state[r.key] = merge_stats(state.get(r.key), r.payload)
    assert not any(v["ColumnStatsMetadata"]["fileName"] == a_file for v in live(state).values())
    assert column_stats.records(DataChange(root, props, "20990101000000001", "rollback", {}, {})) == []
    assert partition_stats.records(change) == []


# --- bloom filters ------------------------------------------------------------------------------------------

def test_bloom_filter_records_hold_the_footer_filter(corpus_tables):
    root = corpus_tables[MDT_TABLES[3]]
    first = next(changes(root))
    recs = bloom_filters.records(first)
    files = column_stats.write_stat_files(first.metadata)
    assert len(recs) == len(files) == 3
    for (partition, name), r in zip(files, recs):
        assert r.key == bloom_filter_key(partition, name)
        bf = r.payload["BloomFilterMetadata"]
        assert (r.payload["type"], bf["type"], bf["timestamp"], bf["isDeleted"]) == (4, "DYNAMIC_V0", first.instant, False)
        import pyarrow.parquet as pq
        footer = pq.ParquetFile(root / partition / name).metadata.metadata
        assert bf["bloomFilter"] == footer[b"org.apache.hudi.bloomfilter"]
        keys = pq.read_table(root / partition / name, columns=["_hoodie_record_key"]).column(0).to_pylist()
        flt = read_footer_filter(footer)
        assert flt.might_contain(keys).all()
    tomb = bloom_filters.records(DataChange(root, first.props, "20990101000000000", "clean", {"partitionMetadata": {
        files[0][0]: {"successDeleteFiles": [files[0][1], ".x_1.log.1_0-1-1"]}}}, {}))
    assert [(r.key, r.payload["BloomFilterMetadata"]) for r in tomb] == [
        (recs[0].key, {"type": "", "timestamp": "20990101000000000", "bloomFilter": b"", "isDeleted": True})]
    # only base files: a log file's write stat makes none
    assert all(bloom_filters.records(ch) == [] for ch in changes(root)
               if all(".log." in f for _, f in column_stats.write_stat_files(ch.metadata)) and ch.action != "clean")


# --- Java's Avro ---------------------------------------------------------------------------------------------

def test_java_avro_decodes_the_records(corpus_tables, java_program, tmp_path):
    """column_stats, partition_stats and bloom_filters records of the v9 table, encoded with the
    HoodieMetadataRecord schema Java wrote that table's metadata with, read by Java's GenericDatumReader."""
    root = corpus_tables[MDT_TABLES[3]]
    base = next((root / ".hoodie" / "metadata" / "column_stats").glob("*.hfile"))
    schema = json.loads(read_hfile(base.read_bytes()).file_info["schema"])
    schema_file = tmp_path / "schema.avsc"
    schema_file.write_text(json.dumps(schema), encoding="utf-8")
    parsed = fastavro.parse_schema(schema)
    first = next(changes(root))
    recs = column_stats.records(first)[:16] + partition_stats.records(first)[:16] + bloom_filters.records(first)
    lines = []
    for i, r in enumerate(recs):
        rec = {f["name"]: None for f in schema["fields"]}
        rec.update(r.payload, key=r.key)
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, parsed, rec)
        (tmp_path / f"{i}.bin").write_bytes(buf.getvalue())
        lines.append([schema_file, tmp_path / f"{i}.bin"])
    got = java_program(Path(__file__).parent / "java" / "HudiLogMdtStatsCheck.java")(lines)
    for r, g in zip(recs, got):
        assert g["rest"] == 0 and g["key"] == r.key and g["type"] == r.payload["type"]
        if r.payload["type"] in (3, 6):
            s = r.payload["ColumnStatsMetadata"]
            assert (g["column"], g["file"], g["valueCount"], g["nullCount"], g["deleted"], g["tight"]) == \
                (s["columnName"], s["fileName"], s["valueCount"], s["nullCount"], False, r.payload["type"] == 6)
            assert (g["valueType"], g["info"]) == (s["valueType"]["typeOrdinal"], s["valueType"]["additionalInfo"])
            name, value = s["minValue"]
            shown = value["value"].hex() if isinstance(value["value"], bytes) else str(value["value"]).lower()
            assert g["min"].lower() == f"{name.rsplit('.', 1)[1]}:{shown}".lower(), g
        else:
            bf = r.payload["BloomFilterMetadata"]
            assert (g["bloomType"], g["bloomTimestamp"], g["bloomBytes"].encode(), g["bloomDeleted"]) == \
                (bf["type"], bf["timestamp"], bf["bloomFilter"], False)
    assert {g["type"] for g in got} == {3, 4, 6}


@pytest.mark.parametrize("name", MDT_TABLES)
def test_bootstrap_indexes_the_latest_slices_as_java_did(corpus_tables, name):
    """A partition initialised on the table as it is: every file of the latest slices has Java's column_stats
    values (Java's partition also keeps older slices' files, not yet cleaned); partition stats equal Java's
    where its last computation saw today's slices (Java counts the groups an inflight clustering replaces, and
    keeps a partition whose only file is now empty)."""
    root = corpus_tables[name]
    props = read_properties(root)
    java = {k: v["ColumnStatsMetadata"] for k, v in read_column_stats(root).items()}
    mine = {r.key: _plain(r.payload["ColumnStatsMetadata"]) for r in column_stats.bootstrap(root, props, {})}
    assert mine and all(java.get(k) == v for k, v in mine.items())
    parts = {r.key: _plain(r.payload["ColumnStatsMetadata"]) for r in partition_stats.bootstrap(root, props, {})}
    java_parts = {k: v["ColumnStatsMetadata"] for k, v in read_column_stats(root, "partition_stats").items()}
    if name in (MDT_TABLES[0], MDT_TABLES[2]):
        assert parts == java_parts
    else:
        assert parts and set(parts) <= set(java_parts)
    blooms = bloom_filters.bootstrap(root, props, {})  # one per latest base file with a footer filter
    from hudi_log.table.view.file_system_view import FileSystemView
    view = FileSystemView(root, props, Timeline(root, props), options={"hoodie.metadata.enable": "false"})
    bases = [s.base_file.name for s in view.latest_file_slices() if s.base_file]
    assert len(blooms) == len(bases) and all(r.payload["BloomFilterMetadata"]["bloomFilter"] for r in blooms)


def test_index_version_is_the_index_definitions(corpus_tables, tmp_path):
    from hudi_log.table.metadata.column_ranges import ColumnStatsError, index_version

    v8, v9 = corpus_tables[MDT_TABLES[0]], corpus_tables[MDT_TABLES[3]]
    assert index_version(read_properties(v8), v8) == 1  # a definition without a version: V1
    assert index_version(read_properties(v9), v9) == 2
    copy = tmp_path / "t"
    shutil.copytree(v9, copy)
    defs = copy / ".hoodie" / ".index_defs" / "index.json"
    defs.write_text(defs.read_text().replace('"V2"', '"V1"'))
    props = read_properties(copy)
    assert index_version(props, copy) == 1
    first = next(changes(copy))
    stats = column_stats.records(first)[0].payload["ColumnStatsMetadata"]
    assert "valueType" not in stats  # index version 1 writes none
    defs.write_text("{not json")
    with pytest.raises(ColumnStatsError, match="index definitions unreadable"):
        index_version(props, copy)


def test_an_unreadable_data_file_is_a_typed_error_naming_it(corpus_tables, tmp_path):
    from hudi_log.table.metadata.column_ranges import ColumnStatsError

    copy = tmp_path / "t"
    shutil.copytree(corpus_tables[MDT_TABLES[3]], copy)
    first = next(changes(copy))
    partition, name = column_stats.write_stat_files(first.metadata)[0]
    (copy / partition / name).write_bytes(b"PAR1 not a parquet file PAR1")
    with pytest.raises(ColumnStatsError, match=name):
        column_stats.records(first)


@pytest.mark.parametrize("version", [8, 9])
def test_stats_of_files_hudi_log_writes_equal_their_values(tmp_path, version):
    """Base files and log files hudi-log writes (nulls, decimals, dates, timestamps, doubles): each file's
    column_stats record holds the min, max, null and value counts of the values the file holds."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq

    from hudi_log.table.metadata.column_ranges import unwrap_value, from_payload
    from hudi_log.table.write.client import write_table

    def rows(ids, ts):
        return pa.table({
            "id": [f"k{i:03d}" for i in ids], "part": [f"p{i % 2}" for i in ids], "ts": pa.array([ts] * len(ids), pa.int64()),
            "amount": pa.array([None if i % 5 == 0 else Decimal(i * 37 - 500) / 100 for i in ids], pa.decimal128(12, 2)),
            "day": pa.array([dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in ids], pa.date32()),
            "at": pa.array([dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=i * 7) for i in ids],
                           pa.timestamp("us", tz="UTC")),
            "score": pa.array([None if i % 3 == 0 else i * -0.5 for i in ids], pa.float64())})

    root = tmp_path / "t"
    o = {"hoodie.table.name": "s", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
         "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": str(version),
         "hoodie.parquet.small.file.limit": "0", "hoodie.metadata.enable": "false"}
    write_table(root, rows(range(30), 1), "insert", o)
    write_table(root, rows(range(0, 30, 4), 2), "upsert", o)
    checked = {"base": 0, "log": 0}
    for ch in changes(root):
        for r in column_stats.records(ch):
            s = from_payload(r.payload["ColumnStatsMetadata"])
            wrapped = r.payload["ColumnStatsMetadata"]["minValue"]
            assert ("valueType" in r.payload["ColumnStatsMetadata"]) == (version >= 9)
            name = s.file_name
            path = next(root.rglob(name))
            if name.endswith(".parquet"):
                values = pq.read_table(path, columns=[s.column]).column(0).to_pylist()
                checked["base"] += 1
            else:
                values = [rec.get(s.column) for b in open_log(path) if b.block_type == BlockType.avro_data_block
                          for rec in b.records()]
                checked["log"] += 1
            present = [v for v in values if v is not None]
            assert (s.value_count, s.null_count) == (len(values), len(values) - len(present)), (name, s.column)
            if s.column == "amount":
                lo = min(present)
                assert wrapped[0].endswith("BytesWrapper" if version >= 9 else "DecimalWrapper")
                assert unwrap_value(wrapped, s.kind) in (int(lo.scaleb(2)), lo)
            elif s.column == "day" and version >= 9:
                assert s.min == (min(present) - dt.date(1970, 1, 1)).days
            elif s.column == "at" and version >= 9:
                assert s.max == (max(present) - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(microseconds=1)
            elif s.column in ("score", "id", "ts"):
                assert (s.min, s.max) == (min(present), max(present)), (name, s.column)
    assert checked["base"] and checked["log"]


def test_partition_bounds_take_the_columns_current_type():
    """Index version 2 (``getColumnRangeInPartition``): each file's bounds are standardized to the column's type
    in the commit's schema before they combine, and the record carries that type."""
    from hudi_log.table.metadata.column_ranges import LONG, ColumnStatsError, standardize

    long_kind, str_kind = kind_of(LONG, None, 2), kind_of(STRING, None, 2)
    ranges = [ColumnRange("a", "c", "1705311000000", "1705367700000", 0, 2, 0, 0, str_kind),
              ColumnRange("b", "c", 1705000000000, 1705300000000, 1, 3, 0, 0, long_kind)]
    r = partition_range("p", ranges, {"c": long_kind})["c"]
    assert (r.min, r.max, r.value_count, r.null_count, r.kind) == (1705000000000, 1705367700000, 5, 1, long_kind)
    r = partition_range("p", ranges, {"c": str_kind})["c"]
    assert (r.min, r.max, r.kind) == ("1705000000000", "1705367700000", str_kind)
    assert standardize(1234, kind_of(DECIMAL, "10,2", 2), kind_of(DECIMAL, "12,4", 2)) == 123400
    assert standardize(7.9, kind_of(6, None, 2), long_kind) == 7 and standardize(True, kind_of(2, None, 2), str_kind) == "true"
    with pytest.raises(ColumnStatsError, match="'c'"):
        partition_range("p", [ColumnRange("a", "c", b"\x01", b"\x02", 0, 1, 0, 0, kind_of(8, None, 2))], {"c": long_kind})
