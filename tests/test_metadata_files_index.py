"""The files partition's builder, applied to each completed data instant of every corpus table with a metadata
table, lists what Java's metadata table lists (read back through read_files_partition), and that equals storage."""

from __future__ import annotations

import pytest

from hudi_log.table.metadata import files_index
from hudi_log.table.metadata.change import DataChange
from hudi_log.table.metadata_files import _live, _merge, read_files_partition, storage_listing
from hudi_log.table.properties import read_properties
from hudi_log.table.timeline.timeline import Timeline

MDT_TABLES = ["quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "sample_table_cow_v9_timebasedkeygen_epochmillis",
              "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle", "sample_table_mor_avro_v9_txns_simple_meta"]


def fold(table, props, timeline, start: dict | None = None) -> dict:
    state = dict(start or {})
    for inst in timeline.completed():
        if inst.action not in ("commit", "deltacommit", "replacecommit", "clean", "rollback", "restore"):
            continue
        change = DataChange(table, props, inst.requested_time, inst.action, timeline.commit_metadata(inst))
        for rec in files_index.records(change):
            state[rec.key] = _merge(state.get(rec.key), rec.payload)
    return state


@pytest.mark.parametrize("name", MDT_TABLES)
def test_builder_reproduces_javas_files_partition(corpus_tables, name):
    table = corpus_tables[name]
    props = read_properties(table)
    timeline = Timeline(table, props)
    java, _ = read_files_partition(table)
    ours = fold(table, props, timeline)
    assert {k: _live(v) for k, v in ours.items()} == {k: _live(v) for k, v in java.items()}
    # and both equal storage
    stored = storage_listing(table)
    assert {(k if k != "." else ""): v for k, v in ((k, _live(r)) for k, r in ours.items())
            if k != "__all_partitions__"} == stored
    assert set(_live(ours["__all_partitions__"])) == {p or "." for p in stored}


@pytest.mark.parametrize("name", MDT_TABLES)
def test_bootstrap_lists_committed_files(corpus_tables, name):
    table = corpus_tables[name]
    props = read_properties(table)
    recs = {r.key: r.payload for r in files_index.bootstrap(table, props, {})}
    java, _ = read_files_partition(table)
    assert {k: _live(v) for k, v in recs.items()} == {k: _live(v) for k, v in java.items()}


def test_clean_and_v6_rollback_records(tmp_path):
    class P:  # the one property the builder reads
        version = 6
    clean = {"partitionMetadata": {"": {"partitionPath": "", "deletePathPatterns": ["a.parquet"],
                                        "successDeleteFiles": ["a.parquet"], "isPartitionDeleted": False},
                                   "p1": {"partitionPath": "p1", "deletePathPatterns": ["p1/b.parquet"],
                                          "isPartitionDeleted": True}}}
    got = {r.key: r.payload for r in files_index.records(DataChange(tmp_path, P, "1", "clean", clean))}
    assert got["."]["filesystemMetadata"] == {"a.parquet": {"size": 0, "isDeleted": True}}
    assert got["p1"]["filesystemMetadata"] == {"b.parquet": {"size": 0, "isDeleted": True}}
    assert got["__all_partitions__"]["filesystemMetadata"] == {"p1": {"size": 0, "isDeleted": True}}
    rb = {"commitsRollback": ["0"], "partitionMetadata": {"p": {
        "partitionPath": "p", "successDeleteFiles": ["/t/p/x.parquet"],
        "rollbackLogFiles": {"/t/p/.f_0.log.2_0-1-1": 99}, "logFilesFromFailedCommit": {"/t/p/.f_0.log.1_0-0-0": 50}}}}
    got = {r.key: r.payload for r in files_index.records(DataChange(tmp_path, P, "2", "rollback", rb))}
    assert got == {"p": {"type": 2, "filesystemMetadata": {".f_0.log.2_0-1-1": {"size": 99, "isDeleted": False},
                                                          ".f_0.log.1_0-0-0": {"size": 50, "isDeleted": False}}}}
    P.version = 8
    assert files_index.records(DataChange(tmp_path, P, "2", "rollback", rb)) == []
