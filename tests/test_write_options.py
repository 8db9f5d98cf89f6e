"""Hudi's option names answered as Java answers them: an explicit operation and Hudi's option never silently
override each other, and Hudi 1.x's ``hoodie.table.ordering.fields`` orders the rows as the 0.x name does."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow as pa
import pytest

from hudi_log.table import read_table
from hudi_log.table.write.client import write_table
from hudi_log.table.write.create import TableOptionsError
from hudi_log.table.errors import WriteError, TableMismatchError

BASE = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


def _rows(path):
    t = read_table(path)
    return sorted(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))


def test_operation_option_is_taken_and_a_disagreeing_flag_refused(tmp_path):
    path = str(tmp_path / "t")
    write_table(path, pa.table({"id": [1, 2], "v": ["a", "b"]}), "insert", BASE)
    write_table(path, pa.table({"id": [1], "v": ["a"]}), None, {**BASE, "hoodie.datasource.write.operation": "delete"})
    assert _rows(path) == [(2, "b")]
    with pytest.raises(WriteError, match="disagree"):
        write_table(path, pa.table({"id": [2], "v": ["b"]}), "upsert", {"hoodie.datasource.write.operation": "delete"})
    with pytest.raises(WriteError, match="unknown operation 'bogus'"):
        write_table(path, pa.table({"id": [2], "v": ["b"]}), None, {"hoodie.datasource.write.operation": "bogus"})
    assert _rows(path) == [(2, "b")]


def test_cli_option_operation_deletes_and_bogus_is_refused(tmp_path):
    path = tmp_path / "t"
    write_table(str(path), pa.table({"id": [1, 2], "v": ["a", "b"]}), "insert", BASE)
    inp = tmp_path / "x.jsonl"
    inp.write_text(json.dumps({"id": 1, "v": "a"}) + "\n")
    cli = [sys.executable, "-m", "hudi_log.cli", "write", str(path), "--input", str(inp)]
    r = subprocess.run(cli + ["-o", "hoodie.datasource.write.operation=delete"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _rows(str(path)) == [(2, "b")]
    for extra in (["-o", "hoodie.datasource.write.operation=bogus"],
                  ["--operation", "upsert", "-o", "hoodie.datasource.write.operation=delete"]):
        r = subprocess.run(cli + extra, capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.startswith("hudi-log: ") and "Traceback" not in r.stderr, r.stderr
    assert _rows(str(path)) == [(2, "b")]


@pytest.mark.parametrize("name", ["hoodie.table.ordering.fields", "hoodie.datasource.write.precombine.field"])
def test_ordering_field_by_either_name_orders_duplicates(tmp_path, name):
    path = str(tmp_path / "t")
    opts = {**BASE, name: "ts"}
    write_table(path, pa.table({"id": [1, 1], "v": ["new", "old"], "ts": [2, 1]}), "upsert", opts)
    assert _rows(path) == [(1, "new")]  # the greater ts wins the combine, whichever row comes last
    assert "hoodie.table.precombine.field=ts" in (tmp_path / "t" / ".hoodie" / "hoodie.properties").read_text()


def test_ordering_names_that_disagree_or_several_fields_are_refused(tmp_path):
    path = str(tmp_path / "t")
    data = pa.table({"id": [1], "v": ["a"], "ts": [1], "u": [1]})
    with pytest.raises(TableOptionsError, match="disagree"):
        write_table(path, data, "upsert", {**BASE, "hoodie.table.ordering.fields": "ts",
                                           "hoodie.datasource.write.precombine.field": "u"})
    with pytest.raises(TableOptionsError, match="table version 9"):
        write_table(path, data, "upsert", {**BASE, "hoodie.table.ordering.fields": "ts,u"})
    assert not (tmp_path / "t" / ".hoodie").exists()
    write_table(path, data, "upsert", {**BASE, "hoodie.table.ordering.fields": "ts"})
    with pytest.raises(TableMismatchError, match="ordering field"):
        write_table(path, data, "upsert", {"hoodie.datasource.write.precombine.field": "u"})


def test_readme_object_store_import_works():
    from hudi_log.table import read_table as r, write_table as w  # the README's object-store snippet

    assert w is write_table and r is read_table
