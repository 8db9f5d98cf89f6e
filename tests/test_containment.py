"""The one containment rule (hudi_log/containment.py): a path from a table's files or from data stays in the table."""

from __future__ import annotations

import os

import pytest

from hudi_log.containment import (PathOutsideTableError, file_name, partition_path_problem, relative_in_table,
                                  within_table)
from hudi_log.paths import as_path


@pytest.fixture
def table(tmp_path):
    t = tmp_path / "sandbox" / "table"
    (t / ".hoodie").mkdir(parents=True)
    (t / "p1").mkdir()
    return t


@pytest.mark.parametrize("value", [
    "p1/f.parquet", "p1", "", "p1/../p1/f.parquet", "./p1/x",
])
def test_relative_values_inside_are_taken(table, value):
    got = within_table(table, value, source="plan", field="f")
    assert os.path.realpath(got).startswith(os.path.realpath(table))


def test_full_paths_inside_are_taken_in_java_s_forms(table):
    for v in (f"{table}/p1/f", f"file:{table}/p1/f", f"file://{table}/p1/f", f"file:///{str(table).lstrip('/')}/p1/f"):
        assert within_table(table, v, source="plan", field="f") == table / "p1" / "f"
    assert within_table(table, str(table), source="plan", field="f") == table


@pytest.mark.parametrize("value, why", [
    ("/abs/olute", "not under"),
    ("/", "not under"),
    ("../outside/x", "leads out"),
    ("..", "leads out"),
    ("p1/../../outside", "leads out"),
    ("{table}/a/../../outside/f", "not under"),
    ("{table}x/f", "not under"),
    ("file:///etc/passwd", "not under"),
    ("s3a://bucket/table/p1/f", "another store"),
    ("hdfs://nn/table/p1/f", "another store"),
    ("p1/\x00", "NUL"),
])
def test_values_leading_out_are_refused_naming_source_and_field(table, value, why):
    value = value.replace("{table}", str(table))
    with pytest.raises(PathOutsideTableError) as e:
        within_table(table, value, source=".hoodie/1.rollback.requested", field="filesToBeDeleted")
    assert why in str(e.value) and ".hoodie/1.rollback.requested" in str(e.value) and "filesToBeDeleted" in str(e.value)
    assert str(table) in str(e.value)


def test_symlink_leading_out_is_refused(table, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, table / "p1" / "link")
    with pytest.raises(PathOutsideTableError, match="symbolic link"):
        within_table(table, "p1/link/f.parquet", source="plan", field="f")


def test_timeline_folder_refused_for_data_files(table):
    assert within_table(table, ".hoodie/x", source="plan", field="f") == table / ".hoodie" / "x"
    with pytest.raises(PathOutsideTableError, match="under .hoodie"):
        within_table(table, ".hoodie/hoodie.properties", source="plan", field="f", timeline=False)


def test_object_store_paths():
    base = as_path("mock://bucket/t")
    assert within_table(base, "p1/f", source="plan", field="f") == base / "p1" / "f"
    assert within_table(base, "mock://bucket/t/p1/f", source="plan", field="f") == base / "p1" / "f"
    for bad in ("/bucket/t/p1/f", "mock://bucket/other/f", "mock://bucket/t/../x", "file:///bucket/t/f", "../x",
                "s3://bucket/t/f"):
        with pytest.raises(PathOutsideTableError):
            within_table(base, bad, source="plan", field="f")


@pytest.mark.parametrize("path", ["/abs/olute", "/", "...", ".hidden", "a/.b", "..", "a/../b",
                                  "..\\..\\x", "..%2F..%2Fx", "a//b", "a/", "a\x00b"])
def test_partition_paths_that_would_vanish_or_leave_are_refused(path):
    assert partition_path_problem(path)


@pytest.mark.parametrize("path", ["", "a", "a/b", "city=sf", "2024/01/01", "x.y", "__HIVE_DEFAULT_PARTITION__", "a..b"])
def test_ordinary_partition_paths_pass(path):
    assert partition_path_problem(path) is None


def test_s3_schemes_are_one_store(monkeypatch):
    monkeypatch.setenv("AWS_REGION", "us-east-1")  # no region look-up over the network
    base = as_path("s3a://bucket/t")
    for same in ("s3://bucket/t/p1/f", "s3n://bucket/t/p1/f", "s3a://bucket/t/p1/f"):
        assert within_table(base, same, source="plan", field="f") == base / "p1" / "f"
    for bad in ("s3://other/t/p1/f", "s3://bucket/t2/f", "gs://bucket/t/f", "s3:/bucket/t/f"):
        with pytest.raises(PathOutsideTableError):
            within_table(base, bad, source="plan", field="f")


@pytest.mark.parametrize("value", ["", ".", "..", "a/b", "/x", "a\x00", None])
def test_file_name_takes_one_segment_only(table, value):
    with pytest.raises(PathOutsideTableError, match="not a file name"):
        file_name(table, value, source="plan", field="fileId")
    assert file_name(table, ".f1_0.log.1_0-0-0", source="plan", field="fileId") == ".f1_0.log.1_0-0-0"


def test_relative_in_table_answers_the_normalised_relative_path(table):
    assert relative_in_table(table, f"file:{table}/p1/./x/../f", source="plan", field="f") == "p1/f"
    assert relative_in_table(table, str(table), source="plan", field="f") == ""


def test_a_base_path_through_a_link_takes_plans_spelled_either_way(tmp_path, table):
    """A plan may name the table by its resolved location (hudi-log's clean plans do) or as it was given."""
    alias = tmp_path / "alias"
    os.symlink(table, alias)
    real = os.path.realpath(table)
    assert within_table(alias, f"{real}/p1/f", source="plan", field="f") == alias / "p1" / "f"
    assert within_table(alias, f"{alias}/p1/f", source="plan", field="f") == alias / "p1" / "f"


def test_links_inside_the_table_are_followed_and_checked_once_per_folder(table, tmp_path):
    os.symlink(table / "p1", table / "same")  # a link that stays inside is taken
    seen: dict = {}
    assert within_table(table, "same/f", source="plan", field="f", seen=seen) == table / "same" / "f"
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, table / "p1" / "out")
    for _ in range(2):  # a folder remembered clean never hides a link below it
        with pytest.raises(PathOutsideTableError, match="symbolic link"):
            within_table(table, "same/out/f", source="plan", field="f", seen=seen)
    os.symlink(outside / "f", table / "p1" / "file-link")
    with pytest.raises(PathOutsideTableError, match="symbolic link"):  # the last component too
        within_table(table, "p1/file-link", source="plan", field="f", seen=seen)
