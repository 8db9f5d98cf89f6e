"""A write that fails before its first commit leaves no table behind (or the folder exactly as it was),
and the commands say what they did on the way: rollbacks, files cleaned (issue 22, item 3)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import read_table
from hudi_log.table.errors import RecordKeyError
from hudi_log.table.write.client import begin_write, write_batches, write_table
from writers import crash

OPTS = {"hoodie.table.name": "w", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_failed_first_write_leaves_no_table_and_the_retry_works(tmp_path):
    path = tmp_path / "t"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": 1, "ts": 1}\n')  # no "id": the record key is missing
    r = cli("write", path, "--input", bad, "--record-key", "id", "--table-type", "COPY_ON_WRITE")
    assert r.exit_code == 2, r.output
    assert "no table was left behind" in r.output and "Traceback" not in r.output
    assert not path.exists()
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": 1, "name": "a", "ts": 1}\n')
    r = cli("write", path, "--input", good, "--record-key", "id", "--precombine", "ts",
            "--table-type", "MERGE_ON_READ", "--json")
    assert r.exit_code == 0, r.output
    assert read_table(path).column("name").to_pylist() == ["a"]


@pytest.mark.parametrize("version", ["6", "8"])
def test_failed_first_write_into_an_existing_folder_leaves_it_as_it_was(tmp_path, version):
    path = tmp_path / "t"
    path.mkdir()
    (path / "notes.txt").write_text("mine")
    with pytest.raises(RecordKeyError):
        write_table(path, pa.table({"id": pa.array([None], pa.int64()), "ts": [1]}), "insert",
                    {**OPTS, "hoodie.write.table.version": version})
    assert sorted(p.name for p in path.iterdir()) == ["notes.txt"]


def test_a_failed_write_to_an_existing_table_keeps_the_table(tmp_path):
    path = tmp_path / "t"
    write_table(path, pa.table({"id": [1], "ts": [1]}), "insert", OPTS)
    with pytest.raises(RecordKeyError):
        write_table(path, pa.table({"id": pa.array([None], pa.int64()), "ts": [2]}), "upsert", OPTS)
    assert read_table(path).column("id").to_pylist() == [1]


def test_write_clean_and_rollback_say_what_they_did(tmp_path):
    path = tmp_path / "t"
    o = {**OPTS, "hoodie.datasource.write.table.type": "COPY_ON_WRITE"}
    write_table(path, pa.table({"id": [1], "ts": [1]}), "insert", o)
    tx = begin_write(path, "upsert", o, schema=pa.schema([("id", pa.int64()), ("ts", pa.int64())]))
    write_batches(tx.context, pa.table({"id": [1], "ts": [9]}), 0)
    crash(tx)
    src = tmp_path / "up.jsonl"
    src.write_text('{"id": 1, "ts": 2}\n')
    r = cli("write", path, "--input", src)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].startswith(f"rolled back failed write {tx.instant} (rollback ")
    for ts in (3, 4):
        src.write_text(json.dumps({"id": 1, "ts": ts}) + "\n")
        assert cli("write", path, "--input", src).exit_code == 0
    r = cli("clean", path, "--retain-commits", "1", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["clean"] and out["files_deleted"] >= 2  # the base files of the replaced versions
    r = cli("clean", path, "--retain-commits", "1")
    assert r.exit_code == 0 and r.output.strip() == "nothing to clean"
