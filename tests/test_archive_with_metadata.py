"""Archival of a table that keeps a metadata table (Java's archiver): commits are archived only up to the
metadata table's latest compaction, and the table reads the same, its metadata table still in step."""

from __future__ import annotations

import pyarrow as pa

from hudi_log.table import read_table, write_table
from hudi_log.table.metadata_files import compare_with_storage, metadata_in_step, metadata_path
from hudi_log.table.properties import read_properties
from hudi_log.table.services.archive import archive, read_archive
from hudi_log.table.timeline.timeline import Timeline

OPTS = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": "COPY_ON_WRITE", "hoodie.keep.min.commits": "2",
        "hoodie.keep.max.commits": "3", "hoodie.cleaner.commits.retained": "1",
        "hoodie.metadata.compact.max.delta.commits": "4"}


def _write(path, i: int, version: str) -> None:
    rows = pa.table({"id": [f"k{i}", "z"], "p": ["a", "b"], "ts": [i, i], "v": [float(i)] * 2})
    write_table(path, rows, "upsert", {**OPTS, "hoodie.write.table.version": version})


def _latest_metadata_compaction(path) -> str:
    root = metadata_path(path)
    return [i for i in Timeline(root, read_properties(root)).completed() if i.action == "commit"][-1].requested_time


def test_archival_stops_at_the_metadata_tables_latest_compaction(tmp_path):
    for version in ("6", "8"):
        path = tmp_path / f"t{version}"
        for i in range(12):
            _write(path, i, version)
        archived = read_archive(path)
        assert archived, "nothing archived"
        bound = _latest_metadata_compaction(path)
        assert all(a.commit_time < bound for a in archived if a.action in ("commit", "deltacommit"))
        props = read_properties(path)
        assert metadata_in_step(path, props, Timeline(path, props))[0]
        assert compare_with_storage(path) == []
        rows = read_table(path).to_pylist()
        assert sorted(r["id"] for r in rows) == sorted([f"k{i}" for i in range(12)] + ["z"])
        assert {r["id"]: r["v"] for r in rows}["z"] == 11.0
        root = metadata_path(path)
        if version == "6":  # the metadata table's own timeline archived too (version 6 only, archive.py)
            assert read_archive(root), "the metadata table's timeline was not archived"


def test_nothing_is_archived_before_the_metadata_tables_first_compaction(tmp_path):
    path = tmp_path / "t"
    opts = {**OPTS, "hoodie.metadata.compact.max.delta.commits": "100"}
    for i in range(6):
        write_table(path, pa.table({"id": [f"k{i}"], "p": ["a"], "ts": [i], "v": [1.0]}), "upsert", opts)
    assert archive(path, opts) == [] and read_archive(path) == []
