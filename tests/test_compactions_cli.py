"""`compact` runs the pending scheduled compactions (oldest first) before it schedules a new one, as
Hudi's `compaction run` does, and says what it ran; `compactions show` lists the plans (issue 22, item 4)."""

from __future__ import annotations

import json

import pyarrow as pa
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import read_table
from hudi_log.table.services.compaction import (compact_all, list_compactions, pending_compactions,
                                                schedule_compaction)
from hudi_log.table.write.client import write_table

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
OPTS = {"hoodie.table.name": "c", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": "8"}


def put(base, pairs, ts):
    rows = [{"id": k, "val": v, "ts": ts, "part": "p" + k[-1]} for k, v in pairs]
    write_table(base, pa.Table.from_pylist(rows, schema=SCHEMA), "upsert", OPTS)


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_compact_runs_a_scheduled_compaction_before_scheduling_another(tmp_path):
    base = tmp_path / "t"
    put(base, [("k1", "a"), ("k2", "b")], 1)
    put(base, [("k1", "aa")], 2)
    first = schedule_compaction(base)
    assert first is not None
    put(base, [("k2", "bb")], 3)  # a log file the first plan does not hold
    r = cli("compactions", "show", base, "--json")
    assert r.exit_code == 0, r.output
    plans = json.loads(r.output)["compactions"]
    assert [(p["instant"], p["state"]) for p in plans] == [(first, "REQUESTED")]
    assert plans[0]["file_groups"] == 1 and plans[0]["log_files"] == 1
    assert all(op["file_id"] and op["base_file"] for op in plans[0]["operations"])
    r = cli("compact", base)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith(f"compaction {first}: ") and len(lines) == 2  # the pending one, then a new one
    second = lines[1].split()[1].rstrip(":")
    assert second > first and not pending_compactions(base)
    assert {x["id"]: x["val"] for x in read_table(base).to_pylist()} == {"k1": "aa", "k2": "bb"}
    r = cli("compactions", "show", base)
    assert r.exit_code == 0
    assert [ln.split("\t")[:2] for ln in r.output.splitlines()[1:]] == [[first, "COMPLETED"], [second, "COMPLETED"]]
    r = cli("compact", base)
    assert r.exit_code == 0 and r.output.strip() == "nothing to compact"


def test_compact_all_json_reports_every_run(tmp_path):
    base = tmp_path / "t"
    put(base, [("k1", "a")], 1)
    put(base, [("k1", "b")], 2)
    first = schedule_compaction(base)
    r = cli("compact", base, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [c["instant"] for c in out["compactions"]] == [first] and out["instant"] == first
    assert out["rows"] == 1 and [c.state for c in list_compactions(base)] == ["COMPLETED"]
    assert compact_all(base) == []


def test_compactions_show_on_a_table_without_plans_and_errors(tmp_path):
    base = tmp_path / "t"
    put(base, [("k1", "a")], 1)
    r = cli("compactions", "show", base)
    assert r.exit_code == 0 and "no compaction plans" in r.output
    r = cli("compactions", "show", tmp_path / "nope")
    assert r.exit_code == 2
    r = cli("compactions", "show", tmp_path)
    assert r.exit_code == 2 and "not a Hudi table" in r.output and "Traceback" not in r.output
