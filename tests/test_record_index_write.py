"""``hoodie.index.type=RECORD_INDEX`` in the write path (hudi_log.table.write.record_index_lookup): on every
corpus table with a record index, the package write's lookup and the Spark write's executor lookup tag every
live key with the file group the default index (SIMPLE, a read of the data files) tags it with, and a key
the table lacks with none; where the record index cannot answer as Java's would, the write is refused by name."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_log.table import read_table
from hudi_log.table.metadata.record_index import RecordIndexError
from hudi_log.table.properties import read_properties
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.index import build_index, latest_slices
from hudi_log.table.write.key_lookup import group_keys, index_type, lookup_keys, plan_index
from hudi_log.table.write.record_index_lookup import RecordIndexLookup, RecordIndexPartitionError, check_usable


@pytest.fixture(scope="module")
def rli_tables(corpus_tables) -> dict[str, Path]:
    found = {n: r for n, r in corpus_tables.items()
             if "record_index" in (read_properties(r).get("hoodie.table.metadata.partitions") or "")}
    assert len(found) == 4, sorted(found)
    return found


def _live(root: Path) -> dict[str, set[tuple[str, str]]]:
    """key -> every (partition, file id) a snapshot read finds it in."""
    out: dict[str, set] = {}
    for r in read_table(root).select(["_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"]).to_pylist():
        out.setdefault(r["_hoodie_record_key"], set()).add((r["_hoodie_partition_path"], r["_hoodie_file_name"].split("_")[0]))
    return out


def test_index_type_takes_the_record_index():
    assert index_type("t", {"hoodie.index.type": "record_index"}) == "RECORD_INDEX"
    assert index_type("t", {}) == "SIMPLE"  # Java 1.x's Spark default, record index or not


def test_package_lookup_tags_live_keys_as_the_default_index_does(rli_tables):
    for name, root in rli_tables.items():
        props = read_properties(root)
        tl = Timeline(root, props)
        check_usable(root, props, tl)
        live = _live(root)
        keys = sorted(live) + ["no-such-key"]
        parts = [sorted(live[k])[0][0] if k in live else "p" for k in keys]
        rli = pickle.loads(pickle.dumps(RecordIndexLookup(root)))  # as a task gets it
        fids, found_parts = rli.locate(pa.array(keys), pa.array(parts))
        simple = build_index(root, props, tl, latest_slices(root, props, tl)).locate(pa.array(keys), pa.array(parts))[0]
        for k, fid, ref, part in zip(keys, fids.to_pylist(), simple.to_pylist(), found_parts.to_pylist()):
            if k not in live:
                assert fid is None and ref is None, (name, k)
            elif len(live[k]) == 1:  # a key Java's insert wrote twice: the indexes may pick either copy
                assert fid == ref and (part, fid) in live[k], (name, k)
            else:
                assert (part, fid) in live[k], (name, k)
        assert rli.get(keys[0]) == (parts[0], fids[0].as_py())


def test_executor_lookup_tags_live_keys_as_simple_does(rli_tables):
    for name, root in rli_tables.items():
        props = read_properties(root)
        tl = Timeline(root, props)
        groups = latest_slices(root, props, tl)
        index = pickle.loads(pickle.dumps(plan_index(root, props, tl, groups, "RECORD_INDEX")))
        live = _live(root)
        keys = sorted(live) + ["no-such-key"]
        parts = [sorted(live[k])[-1][0] if k in live else "p" for k in keys]
        got = lookup_keys(index, pa.array(keys), pa.array(parts)).to_pylist()
        simple = plan_index(root, props, tl, groups, "SIMPLE")
        by_ordinal = {r["ordinal"]: r for r in group_keys(simple, [g.ordinal for g in simple.groups]).to_pylist()}
        assert {r["key"] for r in got} == set(live), name
        for r in got:
            g = index.group(r["ordinal"])
            assert r["live"] and (g.partition, g.file_id) in live[r["key"]], (name, r)
            assert by_ordinal[r["ordinal"]]["file_id"] == g.file_id  # the same ordinals as SIMPLE's plan
        deletes = lookup_keys(index, pa.array(keys), None).to_pylist()  # keys only: found in any partition
        assert {r["key"] for r in deletes} == set(live), name


def test_a_key_in_another_partition_is_refused_by_name(rli_tables):
    root = rli_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    props = read_properties(root)
    tl = Timeline(root, props)
    with pytest.raises(RecordIndexPartitionError, match="'TXN-001' is in partition 'region=us'.*'region=eu'"):
        RecordIndexLookup(root).locate(pa.array(["TXN-001"]), pa.array(["region=eu"]))
    index = plan_index(root, props, tl, latest_slices(root, props, tl), "RECORD_INDEX")
    with pytest.raises(RecordIndexPartitionError, match="the record index is global"):
        lookup_keys(index, pa.array(["TXN-001"]), pa.array(["region=eu"]))


def test_a_record_index_behind_the_data_table_or_absent_is_refused(rli_tables, corpus_tables, tmp_path):
    root = tmp_path / "t"
    shutil.copytree(rli_tables["sample_table_cow_v9_timebasedkeygen_epochmillis"], root)
    props = read_properties(root)
    last = Timeline(root, props).completed()[-1].requested_time
    for f in (root / ".hoodie" / "metadata" / ".hoodie" / "timeline").glob(f"{last}_*.deltacommit"):
        f.unlink()  # the metadata table's commit of the data table's last instant: gone
    with pytest.raises(RecordIndexError, match="cannot be trusted: the metadata table has no completed deltacommit"):
        check_usable(root, props, Timeline(root, props))
    plain = corpus_tables["sample_table_cow_v8_simplekeygen_nonhivestyle"]
    with pytest.raises(RecordIndexError, match="has no record index"):
        check_usable(plain, read_properties(plain), Timeline(plain, read_properties(plain)))


def test_a_record_index_write_on_a_table_without_one_changes_nothing(tmp_path):
    from hudi_log.table.write.client import write_table

    root = tmp_path / "t"
    opts = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.metadata.enable": "false"}
    write_table(root, pa.table({"id": ["a", "b"], "ts": [1, 1]}), "insert", opts)
    before = sorted(p.name for p in (root / ".hoodie").rglob("*"))
    for op in ("upsert", "delete"):
        with pytest.raises(RecordIndexError, match="has no record index"):
            write_table(root, pa.table({"id": ["a"], "ts": [2]}), op, {**opts, "hoodie.index.type": "RECORD_INDEX"})
    assert sorted(p.name for p in (root / ".hoodie").rglob("*")) == before  # no instant requested
    write_table(root, pa.table({"id": ["c"], "ts": [2]}), "insert", {**opts, "hoodie.index.type": "RECORD_INDEX"})
    assert sorted(r["id"] for r in read_table(root).select(["id"]).to_pylist()) == ["a", "b", "c"]  # no lookup
