"""``python -m hudi_log.pipeline stream`` (issue 18, item 4): JSON files arriving in a folder are upserted
into a MERGE_ON_READ table one commit per micro-batch, and a second stream carries the table's changes
into another table; a line per micro-batch; a restart continues from the checkpoints, so later files and
only their changes flow through; bad input is a usage error, not a traceback."""

from __future__ import annotations

import json
import os

import pytest

from hudi_log.table import read_properties, read_table
from hudi_log.table.timeline.timeline import Timeline

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.pipeline import run  # noqa: E402

pytestmark = pytest.mark.slow


def drop(folder, name, rows):
    """A file arrives: Spark's file stream takes files in modification-time order, so each is a second newer."""
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    stamp = 1_700_000_000 + len(list(folder.iterdir()))
    os.utime(folder / name, (stamp, stamp))


def rows_of(path) -> dict:
    return {r["id"]: (r["name"], r["ts"]) for r in read_table(path).to_pylist()}


def commits(path) -> int:
    return len(Timeline(path, read_properties(path)).completed_commits())


def test_stream_files_into_a_table_and_its_changes_into_another(spark, tmp_path, capsys):
    src, table, changes, ckpt = tmp_path / "in", tmp_path / "events", tmp_path / "events_copy", tmp_path / "ckpt"
    drop(src, "0.json", [{"id": i, "name": "a", "ts": 1} for i in range(4)])
    drop(src, "1.json", [{"id": 1, "name": "b", "ts": 2}, {"id": 9, "name": "b", "ts": 2}])
    args = ["stream", "--input", str(src), "--table", str(table), "--record-key", "id", "--precombine", "ts",
            "--checkpoint", str(ckpt), "--changes-to", str(changes), "--available-now",
            "--max-files-per-trigger", "1", "--option", "hoodie.datasource.compaction.async.enable=false"]
    assert run(args) == 0
    err = capsys.readouterr().err
    assert "ingest batch 0: 4 row(s)" in err and "ingest batch 1: 2 row(s)" in err, err
    assert "ingest: stopped after 2 micro-batch(es)" in err and "changes batch 0:" in err, err
    expected = {0: ("a", 1), 1: ("b", 2), 2: ("a", 1), 3: ("a", 1), 9: ("b", 2)}
    assert rows_of(table) == expected and commits(table) == 2  # one commit per micro-batch
    assert rows_of(changes) == expected
    assert read_properties(changes).get("hoodie.table.name") == "events_changes"

    # restart: only the new file goes in, and only its changes flow on
    before = commits(changes)
    drop(src, "2.json", [{"id": 2, "name": "c", "ts": 3}])
    assert run(args) == 0
    err = capsys.readouterr().err
    assert "ingest batch 2: 1 row(s)" in err and "ingest: stopped after 1 micro-batch(es)" in err, err
    assert "changes: stopped after 1 micro-batch(es)" in err and "changes batch 1: 1 row(s)" in err, err
    expected[2] = ("c", 3)
    assert rows_of(table) == expected and rows_of(changes) == expected
    assert commits(changes) == before + 1


def test_stream_without_files_or_schema_is_a_usage_error(spark, tmp_path, capsys):
    (tmp_path / "in").mkdir()
    code = run(["stream", "--input", str(tmp_path / "in"), "--table", str(tmp_path / "t"), "--record-key", "id",
                "--checkpoint", str(tmp_path / "ck"), "--available-now"])
    err = capsys.readouterr().err
    assert code == 2 and "no files to infer the input's schema from; give --schema" in err, err
    assert "Traceback" not in err and not (tmp_path / "t").exists()


def test_changes_of_a_cdc_table_carry_deletes_downstream(spark, tmp_path, capsys):
    """Upstream with hoodie.table.cdc.enabled=true: the changes stream reads its CDC rows, so a key deleted
    upstream (``_hoodie_is_deleted``) is deleted downstream too, and a key's later change wins."""
    src, table, changes, ckpt = tmp_path / "in", tmp_path / "events", tmp_path / "copy", tmp_path / "ckpt"
    drop(src, "0.json", [{"id": i, "name": "a", "ts": 1, "_hoodie_is_deleted": False} for i in range(4)])
    drop(src, "1.json", [{"id": 1, "name": "b", "ts": 2, "_hoodie_is_deleted": False},
                         {"id": 2, "name": "a", "ts": 2, "_hoodie_is_deleted": True}])
    drop(src, "2.json", [{"id": 1, "name": "c", "ts": 3, "_hoodie_is_deleted": True}])
    args = ["stream", "--input", str(src), "--table", str(table), "--record-key", "id", "--precombine", "ts",
            "--checkpoint", str(ckpt), "--changes-to", str(changes), "--available-now",
            "--max-files-per-trigger", "1", "--option", "hoodie.datasource.compaction.async.enable=false",
            "--option", "hoodie.table.cdc.enabled=true"]
    assert run(args) == 0, capsys.readouterr().err
    expected = {0: ("a", 1), 3: ("a", 1)}
    assert rows_of(table) == expected
    # the downstream table: the same rows (its ordering column is the change's instant)
    assert rows_of(changes) == expected
    assert read_properties(changes).get("hoodie.table.precombine.field") == "_change_ts"
    assert read_properties(table).get("hoodie.table.cdc.enabled") == "true"
