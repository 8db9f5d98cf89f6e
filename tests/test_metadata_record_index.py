"""The record index and secondary index builders (hudi_log.table.metadata.record_index / secondary_index)
against the metadata tables Java wrote: replaying every completed data instant of a corpus table through the
builders gives, key for key, the merged state Java's metadata table holds; each key sits in the file group
Java's mapping names; lookups equal a full scan of the table."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from hudi_log.table import read_table
from hudi_log.table.metadata import record_index as ri
from hudi_log.table.metadata import secondary_index as si
from hudi_log.table.metadata.change import DataChange, builder_module
from hudi_log.table.metadata.data_files import IndexBuildError
from hudi_log.table.metadata_files import _base_records, _queued_blocks, read_partition_records
from hudi_log.table.properties import TableProperties, read_properties
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.format.grammar import BlockType

#: the zone each corpus table's Java writer ran in (the record index stores instants parsed in it)
WRITER_ZONE = {"sample_table_mor_avro_v9_txns_simple_meta": "Etc/GMT+6"}  # UTC-6


@pytest.fixture(scope="module")
def metadata_tables(corpus_tables) -> dict[str, Path]:
    found = {n: r for n, r in corpus_tables.items() if (r / ".hoodie" / "metadata").is_dir()}
    assert len(found) >= 4, sorted(found)
    return found


@pytest.fixture
def zone(monkeypatch):
    def set_zone(name: str):
        monkeypatch.setenv("TZ", name)
        time.tzset()
    yield set_zone
    monkeypatch.undo()
    time.tzset()


def _replay(root: Path, builder, state: dict, after: str | None = None, **kw) -> dict:
    props = read_properties(root)
    tl = Timeline(root, props)
    for inst in tl.completed():
        if inst.action not in ("commit", "deltacommit", "replacecommit") or (after and inst.requested_time <= after):
            continue
        for r in builder.records(DataChange(root, props, inst.requested_time, inst.action, tl.commit_metadata(inst)), **kw):
            if r.payload is None:
                state.pop(r.key, None)
            else:
                state[r.key] = r.payload
    return state


def _java(root: Path, partition: str, field: str) -> dict:
    recs, _ = read_partition_records(root, partition)
    return {k: {"type": v["type"], field: v[field]} for k, v in recs.items()}


def _placement(root: Path, partition: str) -> dict[str, int]:
    """key -> the ordinal (by file id) of the file group of Java's metadata table that holds it."""
    _, facts = read_partition_records(root, partition)
    ids = sorted(s.file_id for s in facts["slices"])
    out = {}
    for s in facts["slices"]:
        keys = {r["key"] for r in _base_records(s.base_file.path)} if s.base_file is not None else set()
        for b in _queued_blocks(s.log_files):
            keys |= ({d.record_key for d in b.deletes()} if b.block_type == BlockType.delete_block
                     else {r["key"] for r in b.records()})
        for k in keys:
            assert out.setdefault(k, ids.index(s.file_id)) == ids.index(s.file_id), k
    return out


# ---- Java's arithmetic ---------------------------------------------------------------------------------
def test_java_string_hash_and_file_group_mapping():
    assert ri.java_string_hash("") == 0
    assert ri.java_string_hash("hello") == 99162322
    assert ri.java_string_hash("polygenelubricants") == -(1 << 31)  # Integer.MIN_VALUE: Math.abs keeps it
    assert ri.map_key_to_file_group("polygenelubricants", 10) == 8
    assert ri.java_string_hash("\U0001F600") == 31 * 0xD83D + 0xDE00  # UTF-16 code units, not code points
    assert ri.java_string_hash("TXN-001") == ri.java_string_hash("TXN-001")
    assert [ri.file_group_index(f"TXN-{i:03d}", 10) for i in (1, 3, 9)] == [8, 6, 0]  # as the corpus holds them
    # V2 secondary keys hash the escaped value with its '$'; V1 the whole key
    assert si.file_group_index("Amazon$TXN-001", 10) == ri.map_key_to_file_group("Amazon$", 10)
    assert si.file_group_index("rider-A$334e", 10, "V1") == ri.map_key_to_file_group("rider-A$334e", 10)
    assert si.file_group_index("a\\$b$k", 10) == ri.map_key_to_file_group("a\\$b$", 10)


def test_bulk_mapping_equals_the_one_key_mapping():
    import random

    rnd = random.Random(7)
    alphabet = "abcXYZ09-_$\\\x00é漢\U0001F600"
    keys = ["", "polygenelubricants"] + ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 60)))
                                         for _ in range(2000)]
    for n in (1, 7, 10, 10000):
        assert ri.file_group_indexes(keys, n).tolist() == [ri.map_key_to_file_group(k, n) for k in keys]
    assert ri.file_group_indexes([], 10).tolist() == []


def _units(s: str) -> str:
    data = s.encode("utf-16-be", "surrogatepass")
    return ",".join(str((data[i] << 8) | data[i + 1]) for i in range(0, len(data), 2))


def test_mapping_file_ids_and_instants_equal_the_jdks(java_program, zone):
    """The JDK's own String.hashCode, Math.abs, UUID.fromString and date parsing against this module's."""
    import random
    import uuid as uuid_

    run = java_program(Path(__file__).parent / "java" / "HudiLogKeyHashCheck.java")
    rnd = random.Random(36)
    alphabet = "abcXYZ09-_$\\\x00\t\né漢\U0001F600"
    keys = ["", "polygenelubricants", "TXN-001", "Amazon$"] + [
        "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 50))) for _ in range(300)]
    ids = [f"{uuid_.UUID(int=rnd.getrandbits(128))}-{rnd.randrange(0, 5)}" for _ in range(50)] + [
        str(uuid_.UUID(int=rnd.getrandbits(128))) for _ in range(10)]
    instants = ["20251220210108078", "20260307162619269", "19700101000000000", "20381231235959999"]
    lines = ([["hash", _units(k), n] for k in keys for n in (10, 7)] + [["uuid", _units(i)] for i in ids]
             + [["time", t, z] for t in instants for z in ("UTC", "Etc/GMT+6")])
    got = iter(run(lines))
    for k in keys:
        for n in (10, 7):
            r = next(got)
            assert (r["hash"], r["group"]) == (ri.java_string_hash(k), ri.map_key_to_file_group(k, n)), repr(k)
    zone("UTC")
    for i in ids:
        r = next(got)
        info = ri.location_payload("p", i, 0)["recordIndexMetadata"]
        assert (r["high"], r["low"]) == (info["fileIdHighBits"], info["fileIdLowBits"]), i
        assert ri.decode_location(ri.location_payload("p", i, 0)) == ("p", i)
    for t in instants:
        assert next(got)["ms"] == ri.instant_millis(t, {"hoodie.table.timeline.timezone": "UTC"})
        zone("Etc/GMT+6")
        assert next(got)["ms"] == ri.instant_millis(t)
        zone("UTC")


def test_file_group_count_is_javas_estimate():
    assert ri.file_group_count(0, {}) == 10
    assert ri.file_group_count(100_000_000, {}) == 10  # 8 by size: the minimum
    assert ri.file_group_count(1_000_000_000, {}) == 89  # 2e9 / (1 GiB / 48)
    assert ri.file_group_count(10**12, {}) == 10000
    assert ri.file_group_count(5, {"hoodie.metadata.record.index.min.filegroup.count": "4",
                                   "hoodie.metadata.record.index.max.filegroup.count": "4"}) == 4
    assert ri.file_group_count(5, {"hoodie.metadata.global.record.level.index.min.filegroup.count": "3",
                                   "hoodie.metadata.global.record.level.index.max.filegroup.count": "3"}) == 3


def test_location_encoding_round_trips_and_refuses_other_file_ids(zone):
    zone("UTC")
    p = ri.location_payload("city=x", "036ded81-9ed4-479f-bcea-7145dfa0079b-0", ri.instant_millis("20251220210108078"))
    info = p["recordIndexMetadata"]
    assert (p["type"], info["fileIdEncoding"], info["fileIndex"], info["fileId"], info["position"]) == (5, 0, 0, "", None)
    assert info["instantTime"] == 1766264468078
    assert ri.decode_location(p) == ("city=x", "036ded81-9ed4-479f-bcea-7145dfa0079b-0")
    bare = ri.location_payload("", "036ded81-9ed4-479f-bcea-7145dfa0079b", 0)
    assert bare["recordIndexMetadata"]["fileIndex"] == -1
    assert ri.decode_location(bare) == ("", "036ded81-9ed4-479f-bcea-7145dfa0079b")
    for bad in ("files-0000-0", "036ded819ed4479fbcea7145dfa0079b-0", "036ded81-9ed4-479f-bcea-7145dfa0079b-x"):
        with pytest.raises(ri.RecordIndexError, match="not a UUID-based file id"):
            ri.location_payload("p", bad, 0)
    assert ri.instant_millis("20251220210108") == 1766264468999  # no millis: Java's 999
    assert ri.instant_millis("20251220210108078", {"hoodie.table.timeline.timezone": "UTC"}) == 1766264468078
    zone("Etc/GMT+6")
    assert ri.instant_millis("20251220210108078") == 1766264468078 + 6 * 3600_000  # LOCAL: this process's zone
    assert ri.instant_millis("20251220210108078", {"hoodie.table.timeline.timezone": "UTC"}) == 1766264468078
    with pytest.raises(ri.RecordIndexError, match="not an instant time"):
        ri.instant_millis("2025")


def test_secondary_keys_escape_as_java():
    assert si.index_key("a$b\\c", "k$1") == "a\\$b\\\\c$k\\$1"
    assert si.index_key(None, "TXN-003") == "\x00$TXN-003"
    assert si.split_key("a\\$b\\\\c$k\\$1") == ("a$b\\c", "k$1")
    assert si.split_key("\x00$TXN-003") == (None, "TXN-003")
    with pytest.raises(si.SecondaryIndexError):
        si.split_key("no-separator")


def test_builders_are_registered():
    assert builder_module("record_index") == ri.__name__
    assert builder_module("secondary_index_rider_idx") == si.__name__


# ---- the corpus as oracle ------------------------------------------------------------------------------
def test_record_index_replayed_equals_javas_on_every_corpus_metadata_table(metadata_tables, zone):
    for name, root in metadata_tables.items():
        zone(WRITER_ZONE.get(name, "UTC"))
        ours = _replay(root, ri, {})
        java = _java(root, "record_index", "recordIndexMetadata")
        assert ours == java, name
        assert len(java) >= 5, name


def test_record_index_keys_sit_in_the_file_group_javas_mapping_names(metadata_tables):
    for name, root in metadata_tables.items():
        placed = _placement(root, "record_index")
        assert placed and all(ri.file_group_index(k, 10) == g for k, g in placed.items()), name


def test_record_index_bootstrap_finds_every_key_where_java_has_it(metadata_tables):
    for name, root in metadata_tables.items():
        props = read_properties(root)
        boot = {r.key: ri.decode_location(r.payload) for r in ri.bootstrap(root, props, {})}
        java = {k: ri.decode_location(v) for k, v in _java(root, "record_index", "recordIndexMetadata").items()}
        assert boot == java, name


def test_lookup_record_index_equals_a_full_scan_on_every_corpus_metadata_table(metadata_tables):
    for name, root in metadata_tables.items():
        rows = read_table(root).select(["_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name",
                                        "_hoodie_commit_time"]).to_pylist()
        # a key Java's insert wrote twice: the index names the newest
        scan = {r["_hoodie_record_key"]: (r["_hoodie_partition_path"], r["_hoodie_file_name"].split("_")[0])
                for r in sorted(rows, key=lambda r: r["_hoodie_commit_time"])}
        assert len(scan) < len(rows) or name != "sample_table_cow_v9_timebasedkeygen_epochmillis"
        assert ri.lookup_record_index(root, list(scan) + ["no-such-key"]) == scan, name
        assert ri.lookup_record_index(root, []) == {}


def _index_start(root: Path, partition: str) -> str:
    """The data instant a secondary index was built as of (its indexing instant's ``indexUptoInstant``)."""
    tl = Timeline(root, read_properties(root))
    for inst in tl.completed():
        if inst.action == "indexing":
            for info in tl.commit_metadata(inst).get("indexPartitionInfos") or []:
                if info.get("metadataPartitionPath") == partition:
                    return info["indexUptoInstant"]
    raise AssertionError(partition)


def test_secondary_indexes_bootstrapped_and_replayed_equal_javas(metadata_tables):
    seen = 0
    for name, root in metadata_tables.items():
        props = read_properties(root)
        for part in si.listed(props):
            start = _index_start(root, part)
            state = {r.key: r.payload for r in si.bootstrap(root, props, {}, as_of=start, partition=part)}
            ours = _replay(root, si, state, after=start, partition=part)
            java = _java(root, part, "SecondaryIndexMetadata")
            assert ours == java and java, (name, part)
            builder = si.for_partition(root, props, part)  # the partition's builder, bound
            placed = _placement(root, part)
            assert all(builder.file_group_index(k, 10) == g for k, g in placed.items()), (name, part)
            assert {r.key: r.payload for r in builder.bootstrap(root, props, {}, as_of=start)} == \
                {r.key: r.payload for r in si.bootstrap(root, props, {}, as_of=start, partition=part)}
            assert builder.file_group_count(len(java), {}) == 10
            seen += 1
    assert seen == 3  # rider_idx (V1, then updated and deleted), merchant_idx (a null value), txn_date_idx (dates)


def test_secondary_index_replay_deletes_the_entries_of_deleted_records(metadata_tables):
    root = metadata_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    props = read_properties(root)
    tl = Timeline(root, props)
    deletes = {}
    for inst in tl.completed():
        if inst.action == "deltacommit":
            md = tl.commit_metadata(inst)
            got = si.records(DataChange(root, props, inst.requested_time, inst.action, md))  # the one index
            deletes[md["operationType"]] = deletes.get(md["operationType"], []) + got
    assert all(r.payload is None for r in deletes["DELETE_PREPPED"])
    assert {si.split_key(r.key)[0] for r in deletes["DELETE_PREPPED"]} == {"rider-F", "rider-J"}
    assert not [r for r in deletes["UPSERT_PREPPED"] if r.payload is not None and "fare" in r.key]


def test_secondary_index_skips_clustering_and_refuses_overwrites(metadata_tables):
    root = metadata_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    props = read_properties(root)
    tl = Timeline(root, props)
    by_op = {tl.commit_metadata(i).get("operationType"): i for i in tl.completed() if i.action == "replacecommit"}
    change = lambda i: DataChange(root, props, i.requested_time, i.action, tl.commit_metadata(i))  # noqa: E731
    assert si.records(change(by_op["CLUSTER"]), partition="secondary_index_merchant_idx") == []
    with pytest.raises(si.SecondaryIndexError, match="INSERT_OVERWRITE at .* cannot be applied to a secondary index"):
        si.records(change(by_op["INSERT_OVERWRITE"]), partition="secondary_index_merchant_idx")


def test_secondary_index_lookup(metadata_tables):
    root = metadata_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    got = si.lookup_secondary_index(root, "secondary_index_merchant_idx", ["Amazon", None, "nobody"])
    assert got == {"Amazon": {"TXN-001"}, None: {"TXN-003"}}
    got = si.lookup_secondary_index(root, "secondary_index_txn_date_idx", ["19737"])
    assert got == {"19737": {"TXN-001", "TXN-003"}}


# ---- refused by name -----------------------------------------------------------------------------------
def _copy(root: Path, tmp_path: Path) -> Path:
    dest = tmp_path / root.name
    shutil.copytree(root, dest)
    return dest


def _set_definitions(root: Path, edit) -> None:
    path = root / ".hoodie" / ".index_defs" / "index.json"
    defs = json.loads(path.read_text())
    edit(defs["indexDefinitions"])
    path.write_text(json.dumps(defs))


def test_partitioned_record_index_and_unsupported_secondary_indexes_are_refused(metadata_tables, tmp_path):
    root = _copy(metadata_tables["sample_table_mor_avro_v9_txns_simple_meta"], tmp_path)
    props = read_properties(root)
    tl = Timeline(root, props)
    first = tl.completed()[0]
    change = DataChange(root, props, first.requested_time, first.action, tl.commit_metadata(first))
    virtual = TableProperties({**props, "hoodie.populate.meta.fields": "false"}, props.path)
    with pytest.raises(si.SecondaryIndexError, match="populate.meta.fields=false"):
        si.for_partition(root, virtual, "secondary_index_txn_date_idx")
    with pytest.raises(ri.RecordIndexError, match="populate.meta.fields=false"):
        ri.bootstrap(root, virtual, {})
    for switch in ri.PARTITIONED:
        with pytest.raises(ri.RecordIndexError, match="partitioned record index"):
            ri.records(DataChange(root, props, change.instant, change.action, change.metadata, {switch: "true"}))
    _set_definitions(root, lambda d: d["record_index"]["indexOptions"].update(isPartitioned="true"))
    with pytest.raises(ri.RecordIndexError, match="partitioned record index"):
        ri.bootstrap(root, props, {})
    _set_definitions(root, lambda d: d["secondary_index_merchant_idx"].update(indexFunction="upper"))
    with pytest.raises(si.SecondaryIndexError, match="expression index function 'upper'"):
        si.records(change, partition="secondary_index_merchant_idx")
    _set_definitions(root, lambda d: d["secondary_index_txn_date_idx"].update(sourceFields=["amount"]))
    with pytest.raises(si.SecondaryIndexError, match="'amount' is of type decimal"):
        si.bootstrap(root, props, {}, partition="secondary_index_txn_date_idx")
    with pytest.raises(si.SecondaryIndexError, match="which secondary index"):
        si.records(change)
    assert issubclass(si.SecondaryIndexError, IndexBuildError) and issubclass(ri.RecordIndexError, IndexBuildError)


def test_log_inserts_and_cleaned_files_are_refused_by_name(metadata_tables, tmp_path):
    root = _copy(metadata_tables["sample_table_mor_avro_v9_txns_simple_meta"], tmp_path)
    props = read_properties(root)
    tl = Timeline(root, props)
    upsert = next(i for i in tl.completed() if tl.commit_metadata(i).get("operationType") == "UPSERT_PREPPED")
    md = tl.commit_metadata(upsert)
    stat = next(s for ss in md["partitionToWriteStats"].values() for s in ss)
    stat["numInserts"] = 1
    with pytest.raises(ri.RecordIndexError, match="wrote inserts to the log file"):
        ri.records(DataChange(root, props, upsert.requested_time, upsert.action, md))
    first = tl.completed()[0]
    md = tl.commit_metadata(first)
    stat = next(s for ss in md["partitionToWriteStats"].values() for s in ss)
    (root / stat["path"]).unlink()
    with pytest.raises(IndexBuildError, match="gone"):
        ri.records(DataChange(root, props, first.requested_time, first.action, md))
    stat["path"] = "../outside.parquet"
    with pytest.raises(Exception, match="outside the table"):
        ri.records(DataChange(root, props, first.requested_time, first.action, md))


# ---- tables hudi-log writes ----------------------------------------------------------------------------
def _scan(root: Path) -> dict[str, tuple[str, str]]:
    rows = read_table(root).select(["_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"]).to_pylist()
    return {r["_hoodie_record_key"]: (r["_hoodie_partition_path"], r["_hoodie_file_name"].split("_")[0]) for r in rows}


@pytest.mark.parametrize("version", [6, 8, 9])
@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_replay_over_hudi_logs_own_writes_finds_every_key_where_it_lives(tmp_path, version, table_type, zone):
    """Inserts, updates, deletes, a deleted key written again, compaction, clustering and an insert overwrite
    written by hudi-log: after each, the record index replayed from the timeline (and bootstrapped from the
    slices) places every live key where a snapshot read finds it, and holds no other key."""
    import pyarrow as pa

    from hudi_log.table.services.clustering import cluster
    from hudi_log.table.services.compaction import compact
    from hudi_log.table.write.client import write_table

    zone("UTC")
    root = tmp_path / "t"
    opts = {"hoodie.table.name": "t", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts",
            "hoodie.datasource.write.partitionpath.field": "region", "hoodie.write.table.version": str(version),
            "hoodie.parquet.small.file.limit": "0", "hoodie.metadata.enable": "false"}

    def rows(ids, ts, region=None):
        return pa.table({"id": [f"k{i}" for i in ids], "ts": [ts] * len(ids),
                         "region": [region or ("eu" if i % 2 else "us") for i in ids]})

    steps = [
        lambda: write_table(root, rows(range(20), 1), "insert", opts),
        lambda: write_table(root, rows(range(0, 30, 3), 2), "upsert", opts),  # updates and new keys
        lambda: write_table(root, rows(range(0, 12, 4), 3), "delete", opts),
        lambda: write_table(root, rows([4, 8, 40], 4), "upsert", opts),  # deleted keys written again
        lambda: compact(root, {"hoodie.compact.inline.max.delta.commits": "1"}) if table_type == "MERGE_ON_READ" else None,
        lambda: cluster(root, {"hoodie.clustering.plan.strategy.small.file.limit": str(1 << 30)}),
        lambda: write_table(root, rows([100, 102], 5, "us"), "insert_overwrite", opts),
    ]
    props = None
    for step in steps:
        step()
        props = read_properties(root)
        state = {k: ri.decode_location(v) for k, v in _replay(root, ri, {}).items()}
        live = _scan(root)
        assert state == live
        assert {r.key: ri.decode_location(r.payload) for r in ri.bootstrap(root, props, {})} == live
    ops = {Timeline(root, props).commit_metadata(i).get("operationType") for i in Timeline(root, props).completed()}
    assert {"CLUSTER", "INSERT_OVERWRITE"} <= ops and ("COMPACT" in ops) == (table_type == "MERGE_ON_READ")


@pytest.mark.parametrize("version", [6, 9])
@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_secondary_index_replay_over_hudi_logs_own_writes(tmp_path, version, table_type):
    """A secondary index on a string column of a table hudi-log writes (inserts, value changes, unchanged
    updates, deletes, a deleted key written again, compaction, clustering): replayed from the timeline, it
    holds exactly the (value, key) pairs a snapshot read finds; bootstrapped, the same."""
    import pyarrow as pa

    from hudi_log.table.properties import TableProperties
    from hudi_log.table.services.clustering import cluster
    from hudi_log.table.services.compaction import compact
    from hudi_log.table.write.client import write_table

    root = tmp_path / "t"
    opts = {"hoodie.table.name": "t", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts",
            "hoodie.datasource.write.partitionpath.field": "region", "hoodie.write.table.version": str(version),
            "hoodie.parquet.small.file.limit": "0", "hoodie.metadata.enable": "false"}

    def rows(ids, ts, name):
        return pa.table({"id": [f"k{i}" for i in ids], "ts": [ts] * len(ids),
                         "region": ["eu" if i % 2 else "us" for i in ids],
                         "name": pa.array([None if name is None else f"{name}{i % 3}$" for i in ids], pa.string())})

    steps = [
        lambda: write_table(root, rows(range(12), 1, "a"), "insert", opts),
        lambda: write_table(root, rows(range(0, 12, 2), 2, "b"), "upsert", opts),  # values change
        lambda: write_table(root, rows(range(1, 12, 4), 3, "a"), "upsert", opts),  # values unchanged
        lambda: write_table(root, rows([3, 4], 4, "x"), "delete", opts),
        lambda: write_table(root, rows([4, 20], 5, None), "upsert", opts),  # written again; null values
        lambda: compact(root, {"hoodie.compact.inline.max.delta.commits": "1"}) if table_type == "MERGE_ON_READ" else None,
        lambda: cluster(root, {"hoodie.clustering.plan.strategy.small.file.limit": str(1 << 30)}),
    ]
    part = "secondary_index_name_idx"
    defs = root / ".hoodie" / ".index_defs" / "index.json"
    for step in steps:
        step()
        if not defs.exists():
            defs.parent.mkdir(parents=True, exist_ok=True)
            defs.write_text(json.dumps({"indexDefinitions": {part: {
                "indexName": part, "indexType": "secondary_index", "indexFunction": "identity",
                "sourceFields": ["name"], "indexOptions": {}}}}))
        disk = read_properties(root)
        props = TableProperties({**disk, "hoodie.table.index.defs.path": ".hoodie/.index_defs/index.json",
                                 "hoodie.table.metadata.partitions": f"files,{part}"}, disk.path)
        state: dict = {}
        tl = Timeline(root, props)
        for inst in tl.completed():
            if inst.action in ("commit", "deltacommit", "replacecommit"):
                for r in si.records(DataChange(root, props, inst.requested_time, inst.action, tl.commit_metadata(inst))):
                    if r.payload is None:
                        state.pop(r.key, None)
                    else:
                        state[r.key] = r.payload
        live = {si.index_key(r["name"], r["id"]) for r in read_table(root).select(["id", "name"]).to_pylist()}
        assert set(state) == live
        assert {r.key for r in si.bootstrap(root, props, {})} == live
    assert si.index_key(None, "k20") in live and si.index_key("a1$", "k1") in live
