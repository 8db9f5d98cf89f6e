"""hudi-cli's ``repair deduplicate`` (Java's DedupeSparkJob) and ``compaction repair`` (CompactionAdminClient.
repairCompaction) as ``hudi-log repair deduplicate`` and ``hudi-log compaction repair``, on copies of a Java-written
table, hudi-rs reading the result."""

from __future__ import annotations

import json
import shutil
import warnings

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from cli_runner import cli, ok_json
from hudi_log.format.log_file_name import LogFileName
from hudi_log.table import read_table
from hudi_log.table.services.dedupe import plan_dedupe
from hudi_log.table.write.client import write_table

MOR6 = "quickstart_trips_table_mor_avro_v6_trips_8i1u"
COLUMNS = ["ts", "uuid", "rider", "driver", "fare", "city"]


@pytest.fixture
def mor6(corpus_tables, tmp_path):
    dest = tmp_path / "t"
    shutil.copytree(corpus_tables[MOR6], dest)
    return dest


def _rs(path) -> list[tuple[str, float]]:
    from hudi_rs_oracle import hudi_rs_rows

    return sorted((r["uuid"], r["fare"]) for r in hudi_rs_rows(path))


def _ours(path) -> list[tuple[str, float]]:
    t = read_table(path)
    return sorted(zip(t.column("uuid").to_pylist(), t.column("fare").to_pylist()))


def _duplicate(base, city: str) -> pa.Table:
    """Insert the city's rows again, newer and dearer, into a new file group: each of its keys twice."""
    t = read_table(base).select(COLUMNS)
    rows = t.filter(pc.equal(t.column("city"), city.split("=")[1]))
    again = rows.set_column(4, "fare", pc.add(rows.column("fare"), 1000.0)).set_column(0, "ts", pc.add(rows.column("ts"), 1))
    write_table(base, again, "insert", {"hoodie.parquet.small.file.limit": "0"})
    return again


def test_plan_follows_javas_dedupe_types():
    rows = [("k", "1", "f1"), ("k", "2", "f2"), ("k", "2", "f3")]  # one key: an old row, two of the latest commit
    assert plan_dedupe(rows, "insert_type") == {"f1": {"k"}}
    assert plan_dedupe(rows, "update_type") == {"f1": {"k"}, "f2": {"k"}}
    assert plan_dedupe(rows, "upsert_type") == {"f1": {"k"}, "f2": {"k"}}


def test_deduplicate_dry_run_then_for_real(mor6, tmp_path):
    before = read_table(mor6)
    again = _duplicate(mor6, "city=chennai")
    assert len(read_table(mor6)) == len(before) + again.num_rows  # the duplicates are there
    out = ok_json("repair", "deduplicate", mor6, "--partition", "city=chennai",
                  "--repaired-output-path", tmp_path / "fix")
    assert out["dry_run"] and out["replaced"] == [] and set(out["duplicates"]) == set(again.column("uuid").to_pylist())
    (old_file, keys), = out["plan"].items()
    assert sorted(keys) == sorted(again.column("uuid").to_pylist()) and (tmp_path / "fix" / old_file).exists()
    assert len(read_table(mor6)) == len(before) + again.num_rows  # a dry run changes nothing
    out = ok_json("repair", "deduplicate", mor6, "--partition", "city=chennai", "--no-dry-run")
    assert out["replaced"] == [old_file]
    expected = sorted({**dict(zip(before.column("uuid").to_pylist(), before.column("fare").to_pylist())),
                       **dict(zip(again.column("uuid").to_pylist(), again.column("fare").to_pylist()))}.items())
    assert _rs(mor6) == expected  # hudi-rs: each key once, the latest commit's row
    t = read_table(mor6)
    assert sorted(zip(t.column("uuid").to_pylist(), t.column("fare").to_pylist())) == expected
    assert ok_json("repair", "deduplicate", mor6, "--partition", "city=chennai")["duplicates"] == {}


def test_deduplicate_refusals(mor6):
    _duplicate(mor6, "city=san_francisco")
    before = sorted(p.name for p in (mor6 / "city=san_francisco").iterdir())
    # the old file group has a log file over its base file: a dropped key would come back from it
    r = cli("repair", "deduplicate", mor6, "--partition", "city=san_francisco", "--no-dry-run")
    assert r.exit_code == 2 and "compact first" in r.output, r.output
    r = cli("repair", "deduplicate", mor6, "--partition", "city=nowhere")
    assert r.exit_code == 2 and "not in the table" in r.output, r.output
    r = cli("repair", "deduplicate", mor6, "--partition", "../x")
    assert r.exit_code == 2, r.output
    assert sorted(p.name for p in (mor6 / "city=san_francisco").iterdir()) == before
    assert ok_json("compact", mor6)  # compacted, the same repair goes through
    out = ok_json("repair", "deduplicate", mor6, "--partition", "city=san_francisco", "--no-dry-run")
    assert len(out["replaced"]) == 1
    assert len(_rs(mor6)) == 8 and len({u for u, _ in _rs(mor6)}) == 8


def test_compaction_repair_puts_back_what_a_half_unschedule_renamed(mor6):
    from hudi_log.table.services.compaction import schedule_compaction

    c = schedule_compaction(mor6)
    assert c is not None
    t = read_table(mor6).select(COLUMNS)
    sf = t.filter(pc.equal(t.column("city"), "san_francisco")).slice(0, 1)
    # no metadata table: the renames below are made by hand, behind a listing's back
    write_table(mor6, sf.set_column(4, "fare", pa.array([7.0])).set_column(0, "ts", pc.add(sf.column("ts"), 5)),
                "upsert", {"hoodie.metadata.enable": "false"})
    folder = mor6 / "city=san_francisco"
    after, = [p for p in folder.iterdir() if p.name.startswith(".") and f"_{c}.log." in p.name]
    expected = _ours(mor6)
    assert (sf.column("uuid")[0].as_py(), 7.0) in expected
    assert ok_json("compaction", "validate", mor6, c)["valid"]
    # Java 0.x's unschedule renames it into the slice before, after the plan's log files, then dies
    old = LogFileName.parse(after.name)
    before_log, = [p for p in folder.iterdir() if p.name.startswith(".") and ".log." in p.name and p != after]
    top = LogFileName.parse(before_log.name)
    moved = folder / str(LogFileName(old.file_id, top.instant, top.version + old.version, "1-0-1"))
    after.rename(moved)
    r = cli("compaction", "validate", mor6, c, "--json")
    assert r.exit_code == 1 and not json.loads(r.output)["valid"]
    dry = ok_json("compaction", "repair", mor6, c)
    # back under the name its delta commit recorded (Java would give it the unknown write token 1-0-1)
    assert dry["renames"] == [{"partition": "city=san_francisco", "from": moved.name, "to": after.name,
                               "executed": False}]
    assert moved.exists()
    done = ok_json("compaction", "repair", mor6, c, "--no-dry-run")
    assert done["renames"][0]["executed"] and (folder / done["renames"][0]["to"]).exists() and not moved.exists()
    assert ok_json("compaction", "validate", mor6, c)["valid"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every committed file is where its commit says
        assert _ours(mor6) == expected
    assert ok_json("compaction", "repair", mor6, c)["renames"] == []  # nothing left to repair
    ok_json("compact", mor6, "--instant", c)  # the repaired plan runs; hudi-rs reads the compacted table
    assert _rs(mor6) == expected and _ours(mor6) == expected


def test_compaction_repair_of_no_pending_compaction_is_refused(mor6):
    r = cli("compaction", "repair", mor6, "20250331030642808")
    assert r.exit_code == 2 and "not a pending compaction" in r.output, r.output
