"""Table integrity (issue 22, item 8): on copies of the corpus's real tables, a committed file deleted,
truncated or overwritten is said — a warning from the API and on the CLI's stderr, an IntegrityError
naming the file and the commit with strict=True / --strict (exit 3) — and `validate --table` finds it
(exit 1), while every intact corpus table validates clean (exit 0)."""

from __future__ import annotations

import json
import os
import shutil
import warnings

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import HudiTable, read_table
from hudi_log.table.errors import IntegrityError
from hudi_log.table.read.integrity import IntegrityWarning
from hudi_log.table.services.clean import clean
from hudi_log.table.validate import validate_table
from hudi_log.table.write.client import write_table

V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
COW = "sample_table_cow_v6_nonpartitioned"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def copy(corpus_tables, name, tmp_path):
    dest = tmp_path / name
    shutil.copytree(corpus_tables[name], dest)
    return dest


def latest_base_and_log(root):
    """The newest base file, and a log file of the latest slices (the read needs both)."""
    plan = HudiTable(root).plan()
    base = max((t.base_file for t in plan.tasks if t.base_file), key=lambda p: p.rsplit("_", 1)[1])
    logs = [lf for t in plan.tasks for lf in t.log_files]
    return base, (logs[0] if logs else None)


def damage(root, how):
    base, log = latest_base_and_log(root)
    if how == "delete base":
        os.remove(base)
        return base
    if how == "delete log":
        os.remove(log)
    elif how == "truncate log":
        os.truncate(log, os.path.getsize(log) // 2)
    elif how == "overwrite log":  # 8 bytes of the first block's size: its framing breaks
        with open(log, "r+b") as f:
            f.seek(6)
            f.write(b"\xff" * 8)
    return log


CASES = [(COW, "delete base", "missing, though completed commit"),
         (V8, "delete base", "missing, though completed commit"),
         (V8, "delete log", "missing, though completed deltacommit"),
         (V8, "truncate log", "committed blocks are lost"),
         (V8, "overwrite log", "damaged block at offset 6")]


@pytest.mark.parametrize("name, how, message", CASES)
def test_damage_is_said_by_api_cli_and_validate(corpus_tables, tmp_path, name, how, message):
    root = copy(corpus_tables, name, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IntegrityWarning)
        read_table(root)  # intact: no warning
    assert validate_table(root).code == 0
    path = damage(root, how)
    with pytest.warns(IntegrityWarning, match=message):
        read_table(root)
    with pytest.raises(IntegrityError, match=message) as e:
        read_table(root, strict=True)
    assert e.value.path == str(path) and e.value.instant
    r = cli("read", root, "--format", "jsonl")
    assert r.exit_code == 0, r.output
    assert f"hudi-log: warning: {path}: " in r.stderr and message in r.stderr
    r = cli("read", root, "--format", "jsonl", "--strict")
    assert r.exit_code == 3 and message in r.stderr and e.value.instant in r.stderr
    assert "Traceback" not in r.output  # rows stream out as read: those before the damage may be printed
    out = tmp_path / "rows.jsonl"
    r = cli("read", root, "--format", "jsonl", "--strict", "-o", out)
    assert r.exit_code == 3 and message in r.stderr and not out.exists()  # an output file is all or nothing
    r = cli("validate", "--table", root)
    assert r.exit_code == 1, r.output
    # a table with a metadata table: a file deleted or cut short also makes its listing differ from storage
    listed = (root / ".hoodie" / "metadata").is_dir() and how != "overwrite log"
    assert f"{path}: " in r.stdout and message in r.stdout and f"DAMAGED: {1 + listed} problem(s)" in r.stdout
    report = json.loads(cli("validate", "--table", root, "--json").stdout)
    assert not report["ok"] and [p["path"] for p in report["problems"] if p["kind"] != "metadata-table"] == [str(path)]
    assert [p["message"].split(":")[0] for p in report["problems"] if p["kind"] == "metadata-table"] == \
        ([os.path.relpath(path, root)] if listed else [])


def test_every_corpus_table_validates_clean(corpus_tables):
    for name, root in corpus_tables.items():
        r = cli("validate", "--table", root)
        assert r.exit_code == 0, (name, r.output)
        assert r.stdout.rstrip().endswith("log file(s), " + r.stdout.rstrip().rsplit(", ", 1)[1])
        assert ": OK: " in r.stdout


def test_files_a_clean_removed_are_not_damage(tmp_path):
    base = tmp_path / "t"
    o = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "COPY_ON_WRITE"}
    for n in range(4):
        write_table(base, pa.table({"id": [1], "ts": [n]}), "upsert", o)
    assert clean(base, retain_commits=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IntegrityWarning)
        assert read_table(base).column("ts").to_pylist() == [3]
    report = validate_table(base)
    assert report.ok and report.committed_files == 4, report.to_dict()


def test_validate_table_errors(tmp_path):
    r = cli("validate", "--table", tmp_path)
    assert r.exit_code == 2 and "not a Hudi table" in r.output and "Traceback" not in r.output
    r = cli("validate")
    assert r.exit_code == 2 and "--table" in r.output


def test_corrupt_commit_metadata_is_a_problem(corpus_tables, tmp_path):
    root = copy(corpus_tables, COW, tmp_path)
    t = HudiTable(root)
    last = t.timeline.completed_commits()[-1]
    (t.timeline.folder / last.file_name).write_bytes(b"{not json")
    report = validate_table(root)
    assert [(p.kind, p.instant) for p in report.problems] == [("metadata", last.requested_time)]


def test_compaction_refuses_to_make_a_loss_permanent(corpus_tables, tmp_path):
    root = copy(corpus_tables, V8, tmp_path)
    log = damage(root, "truncate log")
    r = cli("compact", root)  # its metadata table is kept (every index it lists has a builder): the loss refuses
    assert r.exit_code == 3 and f"{log}: " in r.stderr and "committed blocks are lost" in r.stderr, r.output
    r = cli("compact", root, "-o", "hoodie.metadata.enable=false")
    assert r.exit_code == 3, r.output
    assert f"{log}: " in r.stderr and "committed blocks are lost" in r.stderr and "Traceback" not in r.output
