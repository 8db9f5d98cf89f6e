"""The metadata table's ``files`` partition read (hudi_log.table.metadata_files) and the file-system view
listing from it: on every corpus table that has a metadata table, its listing equals storage listing and
reads give the same rows either way (and hudi-rs's); a metadata table that is behind is not trusted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hudi_log.containment import PathOutsideTableError
from hudi_log.table import HudiTable, read_table
from hudi_log.table import metadata_files as mf
from hudi_log.table.view.file_system_view import PARTITION_METAFILE, list_partitions
from hudi_rs_oracle import hudi_rs_rows

OFF = {mf.ENABLE: "false"}


@pytest.fixture(scope="module")
def metadata_tables(corpus_tables) -> dict[str, Path]:
    found = {n: r for n, r in corpus_tables.items() if (r / ".hoodie" / "metadata").is_dir()}
    assert len(found) >= 4, sorted(found)  # v8 quickstart, v9 COW and MOR tables
    return found


def _storage_listing(root: Path) -> dict[str, list[tuple[str, int]]]:
    out = {}
    for p in list_partitions(root):
        folder = root / p if p else root
        out[p] = sorted((f.name, f.stat().st_size) for f in folder.iterdir()
                        if f.is_file() and not f.name.startswith(PARTITION_METAFILE))
    return out


def _sorted_rows(table) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda r: (r["_hoodie_partition_path"], r["_hoodie_record_key"]))


def test_files_partition_equals_storage_listing_on_every_corpus_metadata_table(metadata_tables):
    for name, root in metadata_tables.items():
        listing = mf.read_listing(root)
        assert listing.partitions == list_partitions(root), name
        got = {p: [(f.name, f.size) for f in fs] for p, fs in listing.files.items()}
        assert got == _storage_listing(root), name
        assert all(f.path == (root / p / f.name) for p, fs in listing.files.items() for f in fs)
        assert listing.latest_deltacommit in {i.requested_time for i in HudiTable(root).timeline.completed()}


def test_reads_list_from_the_metadata_table_and_give_the_storage_rows_and_hudi_rs_rows(metadata_tables):
    for name, root in metadata_tables.items():
        on, off = HudiTable(root).view(), HudiTable(root, OFF).view()
        assert (on.listing_source, off.listing_source) == ("metadata", "storage"), (name, on.listing_note)
        assert off.listing_note == f"{mf.ENABLE}=false"
        assert on.to_dict() == off.to_dict(), name
        rows = _sorted_rows(read_table(root))
        assert rows and rows == _sorted_rows(read_table(root, options=OFF)), name
        oracle = sorted(hudi_rs_rows(root), key=lambda r: (r["_hoodie_partition_path"], r["_hoodie_record_key"]))
        assert [r["_hoodie_record_key"] for r in rows] == [r["_hoodie_record_key"] for r in oracle], name


def _copy(metadata_tables, tmp_path, name="sample_table_mor_avro_v9_txns_simple_meta") -> Path:
    src = metadata_tables[name]
    dest = tmp_path / src.name
    shutil.copytree(src, dest)
    return dest


def test_a_metadata_table_behind_the_data_table_falls_back_to_storage_listing(metadata_tables, tmp_path):
    for name in metadata_tables:
        root = _copy(metadata_tables, tmp_path, name)
        expected = _sorted_rows(read_table(root, options=OFF))
        latest = HudiTable(root).timeline.latest_completed_commit().requested_time
        meta_timeline = root / ".hoodie" / "metadata" / ".hoodie"
        done = [p for p in meta_timeline.rglob(f"{latest}*.deltacommit")]
        assert len(done) == 1, (name, done)
        done[0].unlink()  # the metadata table's deltacommit of the data table's latest commit never completed
        view = HudiTable(root).view()
        assert view.listing_source == "storage", name
        assert f"no completed deltacommit for the data table's instant {latest}" in view.listing_note
        assert _sorted_rows(read_table(root)) == expected, name


def test_a_metadata_table_without_the_files_partition_listed_is_not_used(metadata_tables, tmp_path):
    root = _copy(metadata_tables, tmp_path)
    props = root / ".hoodie" / "hoodie.properties"
    text = props.read_text()
    props.write_text(text.replace("column_stats,files,", "column_stats,"))
    view = HudiTable(root).view()
    assert view.listing_source == "storage" and "'files'" in view.listing_note


def test_the_metadata_listing_is_what_the_view_uses(metadata_tables, tmp_path):
    """A file present in storage but not in the metadata table's listing is not seen with the metadata
    table on (Java lists from it), and is with hoodie.metadata.enable=false."""
    root = _copy(metadata_tables, tmp_path)
    part = "region=eu"
    stray = sorted((root / part).glob("*.parquet"))[-1]
    twin = stray.with_name(stray.name.replace("-0_", "-9_", 1))
    shutil.copyfile(stray, twin)
    on = {s.file_id for g in HudiTable(root).view().file_groups[part] for s in g.slices}
    off = {s.file_id for g in HudiTable(root, OFF).view().file_groups[part] for s in g.slices}
    assert off - on == {twin.name.split("_")[0]}


def test_payload_merge_rules():
    old = {"key": "p", "type": mf.TYPE_FILE_LIST,
           "filesystemMetadata": {"a": {"size": 10, "isDeleted": False}, "b": {"size": 5, "isDeleted": False}}}
    new = {"key": "p", "type": mf.TYPE_FILE_LIST,
           "filesystemMetadata": {"a": {"size": 7, "isDeleted": False}, "b": {"size": 0, "isDeleted": True},
                                  "c": {"size": 3, "isDeleted": False}}}
    merged = mf._merge(old, new)["filesystemMetadata"]
    assert {n: i["size"] for n, i in merged.items()} == {"a": 10, "c": 3}  # larger size kept; b deleted
    assert mf._merge(None, new) is new


def test_a_file_name_leading_out_of_the_table_is_refused(metadata_tables, tmp_path, monkeypatch):
    root = _copy(metadata_tables, tmp_path)
    records = {mf.ALL_PARTITIONS_KEY: {"key": mf.ALL_PARTITIONS_KEY, "type": mf.TYPE_PARTITION_LIST,
                                       "filesystemMetadata": {"region=eu": {"size": 0, "isDeleted": False}}},
               "region=eu": {"key": "region=eu", "type": mf.TYPE_FILE_LIST,
                             "filesystemMetadata": {"../../../etc/passwd": {"size": 1, "isDeleted": False}}}}
    monkeypatch.setattr(mf, "read_files_partition", lambda base, as_of=None: (records, {"valid_instants": set()}))
    with pytest.raises(PathOutsideTableError, match="filesystemMetadata"):
        mf.read_listing(root)


# ---- CLI ---------------------------------------------------------------------------------------

def _cli(*args: str):
    from click.testing import CliRunner

    from hudi_log.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_metadata_commands(metadata_tables):
    import json

    for name, root in metadata_tables.items():
        listing = mf.read_listing(root)
        r = _cli("metadata", "list-partitions", root, "--json")
        assert r.exit_code == 0 and json.loads(r.stdout) == listing.partitions, name
        part = listing.partitions[0]
        r = _cli("metadata", "list-files", root, part or ".", "--json")
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout) == [{"name": n, "size": s} for n, s in _storage_listing(root)[part]]
        r = _cli("metadata", "validate-files", root)
        assert r.exit_code == 0 and "OK" in r.stdout.splitlines()[-1], r.output
        r = _cli("metadata", "stats", root, "--json")
        stats = {s["partition"]: s for s in json.loads(r.stdout)}
        assert r.exit_code == 0 and "files" in stats and stats["files"]["records"] > len(listing.partitions)
        assert stats["files"]["file_slices"] == 1 and stats["files"]["log_files"] >= 1
        assert set(stats) >= {"files", "record_index", "column_stats"}, name


def test_cli_validate_files_reports_each_difference_and_validate_table_too(metadata_tables, tmp_path):
    import json

    root = _copy(metadata_tables, tmp_path)
    gone = sorted((root / "region=us").glob("*.parquet"))[0]
    gone.unlink()
    grown = sorted((root / "region=eu").glob(".*.log.*"))[0]
    with open(grown, "ab") as f:
        f.write(b"x")
    r = _cli("metadata", "validate-files", root)
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    assert f"region=us/{gone.name}: listed by the metadata table, not in storage" in lines
    assert any(line.startswith(f"region=eu/{grown.name}: sizes differ") for line in lines)
    assert lines[-1].endswith("DIFFERENT: 2 difference(s)")
    diffs = json.loads(_cli("metadata", "validate-files", root, "--json").stdout)["differences"]
    assert {d["file"] for d in diffs} == {gone.name, grown.name}
    report = json.loads(_cli("validate", "--table", root, "--json").stdout)
    meta = [p for p in report["problems"] if p["kind"] == "metadata-table"]
    assert len(meta) == 2 and not report["ok"]


def test_cli_metadata_on_a_table_without_one_is_an_input_error(corpus_tables):
    root = corpus_tables["sample_table_cow_v6_nonpartitioned"]
    r = _cli("metadata", "list-partitions", root)
    assert r.exit_code == 2 and "no metadata table" in r.output


def test_blocks_of_a_data_commit_still_pending_are_not_read(metadata_tables, tmp_path):
    """The metadata table commits before the data table: its deltacommit for a data instant that is still
    pending (Java's getValidInstantTimestamps leaves it out) lists no files."""
    root = _copy(metadata_tables, tmp_path)
    latest = HudiTable(root).timeline.latest_completed_commit()
    written = {s["path"].rsplit("/", 1)[-1] for ss in HudiTable(root).timeline.commit_metadata(latest)
               ["partitionToWriteStats"].values() for s in ss}
    assert written
    expected = _sorted_rows(read_table(root, options=OFF, as_of=None))
    latest.path.unlink()  # the data commit is inflight again
    listing = mf.read_listing(root)
    listed = {f.name for fs in listing.files.values() for f in fs}
    assert not written & listed and latest.requested_time not in listing.valid_instants
    view = HudiTable(root).view()
    assert view.listing_source == "metadata"
    rows = _sorted_rows(read_table(root))
    assert rows == _sorted_rows(read_table(root, options=OFF))
    assert len(rows) <= len(expected)


def test_a_listed_file_missing_from_storage_is_reported_and_the_read_plans_from_storage(metadata_tables, tmp_path):
    from hudi_log.table.read.integrity import IntegrityWarning

    root = _copy(metadata_tables, tmp_path)
    gone = max((t.base_file for t in HudiTable(root).plan().tasks if t.base_file), key=lambda p: p.rsplit("_", 1)[1])
    Path(gone).unlink()
    assert gone.rsplit("/", 1)[1] in {f.name for fs in mf.read_listing(root).files.values() for f in fs}
    with pytest.warns(IntegrityWarning, match="missing"):
        rows = _sorted_rows(read_table(root))
    with pytest.warns(IntegrityWarning, match="missing"):
        assert rows == _sorted_rows(read_table(root, options=OFF))


@pytest.mark.slow
def test_spark_reads_list_from_the_metadata_table_unless_disabled(spark, metadata_tables, tmp_path):
    """A base file storage holds but the metadata table does not list (a stray copy of a file group) is not
    read by the hudi_log data source, and is with hoodie.metadata.enable=false, as by the package."""
    root = _copy(metadata_tables, tmp_path)
    stray = sorted((root / "region=eu").glob("*.parquet"))[-1]
    shutil.copyfile(stray, stray.with_name(stray.name.replace("-0_", "-9_", 1)))
    on = spark.read.format("hudi_log").load(str(root)).count()
    off = spark.read.format("hudi_log").option(mf.ENABLE, "false").load(str(root)).count()
    assert on == read_table(root).num_rows
    assert off == read_table(root, options=OFF).num_rows > on


def test_listing_as_of_an_instant(metadata_tables):
    """As of an instant after the metadata table's last compaction: the files of the commits up to it; before
    that compaction the merged base file hides the earlier state, which is said, not guessed."""
    root = metadata_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    timeline = HudiTable(root).timeline
    writes = [i for i in timeline.completed_commits()]
    as_of = writes[-2].requested_time  # before the latest write
    later = {s["path"].rsplit("/", 1)[-1] for ss in timeline.commit_metadata(writes[-1])["partitionToWriteStats"]
             .values() for s in ss}
    listed = {f.name for fs in mf.read_listing(root, as_of).files.values() for f in fs}
    latest = {f.name for fs in mf.read_listing(root).files.values() for f in fs}
    assert later and later <= latest and not later & listed and listed < latest
    with pytest.raises(mf.MetadataFilesError, match="compacted at"):
        mf.read_listing(root, writes[0].requested_time)
