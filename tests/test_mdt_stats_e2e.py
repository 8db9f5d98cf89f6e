"""End to end (issue 36, done when): on copies of the corpus's Java-written metadata tables, hudi-log's upsert,
delete, commit rollback, compaction, clustering and clean keep column_stats equal to the data files' own
values (every file of the latest slices, its counts and sizes; no record outliving its file), partition_stats
tight bound and, for the partitions a write touches, equal to its latest slices' files; reads pruned by them
return the unpruned rows. The record and secondary indexes are another part's (dropped from the copies)."""

from __future__ import annotations

import shutil

import pytest

from hudi_log.table import read_table
from hudi_log.table.metadata.column_ranges import columns_to_index, file_ranges, index_version, partition_range
from hudi_log.table.metadata.column_stats import read_column_stats
from hudi_log.table.metadata.partition_stats import tight_bound
from hudi_log.table.metadata.stats_keys import partition_stats_key
from hudi_log.table.metadata_files import compare_with_storage, metadata_in_step, metadata_path, storage_listing
from hudi_log.table.properties import read_properties, write_properties
from hudi_log.table.read.query import HudiTable, read_plan
from hudi_log.table.schema import current_schema
from hudi_log.table.services.clean import clean
from hudi_log.table.services.clustering import cluster
from hudi_log.table.services.commit_rollback import rollback_completed
from hudi_log.table.services.compaction import compact
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.view.file_system_view import FileSystemView
from hudi_log.table.write.client import write_table
from test_metadata_writer import CLUSTER_ALL, COMPACT_NOW, MDT_TABLES, data_of

KEEP = ("files", "column_stats", "partition_stats")
NO_MDT_COMPACTION = {"hoodie.metadata.compact.max.delta.commits": "1000"}  # the rollback undoes a deltacommit


def stats_only(path) -> None:
    """The copy keeps files, column_stats and partition_stats (record and secondary indexes are another part's)."""
    p = read_properties(path).to_dict()
    names = [n for n in (p.get("hoodie.table.metadata.partitions") or "").split(",") if n]
    for name in names:
        if name not in KEEP:
            shutil.rmtree(metadata_path(path) / name)
    p["hoodie.table.metadata.partitions"] = ",".join(n for n in names if n in KEEP)
    write_properties(path, p)


def _plain(c):
    c = dict(c)
    for f in ("minValue", "maxValue"):
        if isinstance(c.get(f), tuple):
            c[f] = c[f][1]
    return c


def check_stats(path):
    props = read_properties(path)
    tl = Timeline(path, props)
    assert compare_with_storage(path) == [] and metadata_in_step(path, props, tl) == (True, "")
    version = index_version(props, path)
    columns = columns_to_index(props, current_schema(props, tl), {}, version)
    stats = {}
    for v in read_column_stats(path).values():
        c = _plain(v["ColumnStatsMetadata"])
        stats[(c["fileName"], c["columnName"])] = c
    view = FileSystemView(path, props, tl, options={"hoodie.metadata.enable": "false"})
    files = 0
    for s in view.latest_file_slices():
        for f in ([s.base_file] if s.base_file else []) + list(s.log_files):
            for r in file_ranges(path, s.partition, f.name, None, columns, version):
                got = stats[(f.name, r.column)]
                assert (got["valueCount"], got["nullCount"]) == (r.value_count, r.null_count), (f.name, r.column)
                assert (got["totalSize"], got["totalUncompressedSize"]) == (r.total_size, r.total_uncompressed_size)
            files += 1
    assert files
    stored = {name for names in storage_listing(path).values() for name in names}
    assert {f for f, _ in stats} <= stored  # no record outlives its file (cleaned: tombstones; rolled back: undone)
    parts = read_column_stats(path, "partition_stats")
    assert parts and all(v["ColumnStatsMetadata"]["isTightBound"] == tight_bound(props) for v in parts.values())
    return stats


def check_partition_stats(path, rows):
    props = read_properties(path)
    tl = Timeline(path, props)
    version = index_version(props, path)
    latest = tl.completed_commits()[-1]
    written = {ws["partitionPath"] for stats in tl.commit_metadata(latest)["partitionToWriteStats"].values()
               for ws in stats}
    columns = columns_to_index(props, current_schema(props, tl), {}, version)
    parts = read_column_stats(path, "partition_stats")
    view = FileSystemView(path, props, tl, options={"hoodie.metadata.enable": "false"})
    checked = 0
    for p in written:
        ranges = []
        for g in view.file_groups[p]:
            s = g.latest_slice
            for f in ([s.base_file] if s.base_file else []) + list(s.log_files):
                ranges += file_ranges(path, p, f.name, None, columns, version)
        for c, r in partition_range(p, ranges, columns).items():
            got = _plain(parts[partition_stats_key(c, p)]["ColumnStatsMetadata"])
            assert (got["valueCount"], got["nullCount"], got["totalSize"]) == (r.value_count, r.null_count, r.total_size)
            checked += 1
    assert checked


@pytest.mark.parametrize("name", MDT_TABLES)
def test_writes_and_services_keep_column_stats_equal_to_the_files(tmp_path, corpus_tables, name, monkeypatch, request):
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    request.addfinalizer(time.tzset)
    path = tmp_path / "t"
    shutil.copytree(corpus_tables[name], path)
    stats_only(path)
    data = data_of(path)
    check_stats(path)
    r = write_table(path, data.slice(3, 1), "upsert", NO_MDT_COMPACTION)
    rollback_completed(path, r.instant, options=NO_MDT_COMPACTION)  # its metadata deltacommit undone: its files' records with it
    check_stats(path)
    write_table(path, data.slice(0, 2), "upsert", {})
    check_stats(path)
    write_table(path, data.slice(2, 1), "delete", {})
    check_stats(path)
    if read_properties(path).is_mor:
        assert compact(path, COMPACT_NOW) is not None
        check_stats(path)
    assert cluster(path, CLUSTER_ALL)
    check_stats(path)
    clean(path, retain_commits=1)
    check_stats(path)
    # a write after the clean: the partitions it writes to are recomputed over their latest slices
    write_table(path, data.slice(4, 1), "upsert", {})
    check_partition_stats(path, data_of(path).slice(4, 1))
    everything = read_table(path)
    f = [("_hoodie_partition_path", "=", everything.column("_hoodie_partition_path")[0].as_py())]
    plan = HudiTable(path).plan(filters=f)
    unpruned = read_plan(HudiTable(path, {"hoodie.metadata.enable": "false"}).plan(filters=f))
    assert plan.pruning.used and plan.pruning.slices_after < plan.pruning.slices_before
    assert sorted(map(str, read_plan(plan).to_pylist())) == sorted(map(str, unpruned.to_pylist())) != []
