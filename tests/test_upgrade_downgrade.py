"""Issue 37, item 2: upgrade and downgrade between table versions 6, 8 and 9 (hudi_log.table.write.upgrade).

* a round trip 6 -> 8 -> 9 -> 8 -> 6 of COW and MOR tables (partitioned; updates, deletes, a compaction in the
  history) keeps the rows (hudi-log and hudi-rs), and time-travel and incremental reads give what they gave
  before, after every step; each step leaves the properties and timeline files Java's handlers leave;
* a write with hoodie.write.table.version upgrades (or downgrades) the table first, as Java's write client does,
  unless hoodie.write.auto.upgrade=false;
* corpus version-6 tables upgrade to 9 and back with their rows; a table with a metadata table is refused, or
  its metadata table dropped with hoodie.metadata.enable=false;
* kill -9 before and after hoodie.properties is replaced: the table reads the same, and the next run finishes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import read_table
from hudi_log.table.metadata_table import MetadataTableError, has_metadata_table
from hudi_log.table.properties import read_properties
from hudi_log.table.services.clustering import cluster
from hudi_log.table.services.compaction import compact_all
from hudi_log.table.timeline.timeline import Timeline, parse_instant_file_name
from hudi_log.table.write.client import write_table
from hudi_log.table.write.upgrade import UpgradeDowngradeError, change_table_version

hudi = pytest.importorskip("hudi")
from hudi_rs_oracle import hudi_rs_rows  # noqa: E402

import writers  # noqa: E402  (tests/writers.py: crash helpers)

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])


def options(table_type: str, **extra) -> dict:
    # no metadata table: an upgrade or downgrade refuses one (test_a_table_with_a_metadata_table_is_refused)
    return {"hoodie.table.name": "ud", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.metadata.enable": "false", **extra}


def rows(pairs, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": k, "val": v, "ts": ts, "part": f"p{int(k[1:]) % 2}"} for k, v in pairs],
                                schema=SCHEMA)


def make_table(base: Path, table_type: str, logs_left: bool = False) -> None:
    """Inserts, updates, deletes and (MOR) a compaction; ``logs_left``: log files written after it."""
    o = options(table_type)
    write_table(base, rows([(f"k{i}", "a") for i in range(8)], 1), "insert", o)
    write_table(base, rows([("k0", "b"), ("k1", "b"), ("k5", "b")], 2), "upsert", o)
    write_table(base, rows([("k2", "x")], 3), "delete", o)
    if table_type == "MERGE_ON_READ":
        compact_all(base)
    else:  # small file groups clustered: a replacecommit whose replaced groups reads must keep hiding
        write_table(base, rows([("k10", "s"), ("k12", "s")], 3), "bulk_insert", o)
        assert cluster(base)
    write_table(base, rows([("k3", "c"), ("k8", "new")], 4), "upsert", o)
    write_table(base, rows([("k4", "x")], 5), "delete", o)
    if table_type == "MERGE_ON_READ" and not logs_left:
        compact_all(base)


def snapshot(base: Path) -> dict:
    return {r["id"]: r["val"] for r in read_table(base).to_pylist()}


def hudi_rs(base: Path) -> dict:
    return {r["id"]: r["val"] for r in hudi_rs_rows(base)}


def reads(base: Path, commits: list[str], begin: str) -> dict:
    """Snapshot, time travel to every commit, incremental from ``begin``: the first commit's completion time,
    which selects the same commits by requested time (version 6) and by completion time (8 and 9)."""
    out = {"snapshot": snapshot(base)}
    for t in commits:
        out[f"as_of {t}"] = {r["id"]: r["val"] for r in read_table(base, as_of=t).to_pylist()}
    out["incremental"] = sorted((r["id"], r["val"]) for r in
                                read_table(base, query="incremental", begin=begin).to_pylist())
    return out


def instant_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_file() and parse_instant_file_name(p.name))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_round_trip_keeps_rows_and_reads(tmp_path, table_type):
    base = tmp_path / "t"
    make_table(base, table_type)
    commits = [i.requested_time for i in Timeline(base, read_properties(base)).completed_commits()]
    completion = {i.requested_time: i.completion_time for i in Timeline(base, read_properties(base)).completed()}
    begin = completion[commits[0]]
    before = reads(base, commits, begin)
    assert before["snapshot"] == hudi_rs(base) and "k2" not in before["snapshot"] and before["incremental"]
    v6_files = instant_files(base / ".hoodie")
    if table_type == "COPY_ON_WRITE":
        assert any(n.endswith(".replacecommit") for n in v6_files)
    for to in (8, 9, 8, 6):
        change = change_table_version(base, to)
        props = read_properties(base)
        assert props.version == to and change.to_version == to
        assert reads(base, commits, begin) == before, to
        assert hudi_rs(base) == before["snapshot"], to
        assert not (base / ".hoodie" / "hoodie.properties.backup").exists()
        tl = Timeline(base, props)
        assert {i.requested_time: i.completion_time for i in tl.completed()} == completion  # kept in both layouts
        if to >= 8:
            assert props.timeline_layout_version == 2 and props["hoodie.timeline.path"] == "timeline"
            assert props["hoodie.table.initial.version"] == "6"
            assert instant_files(base / ".hoodie") == []
            names = instant_files(base / ".hoodie" / "timeline")
            assert all("_" in n for n in names if parse_instant_file_name(n).is_completed)
            done = [i for i in tl.completed() if i.action in ("commit", "deltacommit")]
            assert all(i.path.read_bytes()[:4] == b"Obj\x01" for i in done)  # Avro commit metadata
            assert props["hoodie.table.keygenerator.type"] == "SIMPLE"
            if table_type == "COPY_ON_WRITE":  # the clustering's pending files are named clustering from 8 on
                assert any(n.endswith(".clustering.requested") for n in names)
                assert not any(n.endswith(".replacecommit.requested") for n in names)
        if to == 9 and table_type == "MERGE_ON_READ":  # EightToNineUpgradeHandler: MOR only
            assert props[("hoodie.table.partial.update.mode")] == "NONE"
            assert props["hoodie.legacy.payload.class"].endswith("DefaultHoodieRecordPayload")
            assert "hoodie.compaction.payload.class" not in props
        if to == 8:
            assert "hoodie.table.partial.update.mode" not in props and "hoodie.legacy.payload.class" not in props
            mode = "EVENT_TIME_ORDERING" if table_type == "MERGE_ON_READ" else "COMMIT_TIME_ORDERING"
            assert props["hoodie.record.merge.mode"] == mode  # SevenToEightUpgradeHandler.upgradeMergeMode
    props = read_properties(base)
    assert props.timeline_layout_version == 1
    assert not (base / ".hoodie" / "timeline").exists()
    assert instant_files(base / ".hoodie") == v6_files
    for k in ("hoodie.record.merge.mode", "hoodie.record.merge.strategy.id", "hoodie.table.initial.version",
              "hoodie.table.keygenerator.type"):
        assert k not in props
    done = [i for i in Timeline(base, props).completed() if i.action in ("commit", "deltacommit")]
    assert all(json.loads(i.path.read_bytes()) for i in done)  # JSON again


def test_upgrade_compacts_a_merge_on_read_table_first(tmp_path):
    base = tmp_path / "t"
    make_table(base, "MERGE_ON_READ", logs_left=True)
    before = snapshot(base)
    optimized = lambda: {r["id"]: r["val"] for r in read_table(base, query="read_optimized").to_pylist()}  # noqa: E731
    assert optimized() != before  # the last upsert and delete are in log files only
    change = change_table_version(base, 9)
    assert len(change.compactions) == 1  # Java: rollbackFailedWritesAndCompact before 7 -> 8 and 8 -> 9
    assert snapshot(base) == before == hudi_rs(base) == optimized()  # every row in a base file


def test_write_with_a_newer_table_version_upgrades_first(tmp_path):
    base = tmp_path / "t"
    make_table(base, "MERGE_ON_READ", logs_left=True)
    write_table(base, rows([("k1", "v8")], 9), "upsert",
                options("MERGE_ON_READ", **{"hoodie.write.table.version": "8"}))
    props = read_properties(base)
    assert props.version == 8 and props.timeline_layout_version == 2
    assert snapshot(base)["k1"] == "v8" and snapshot(base) == hudi_rs(base)
    # and back down: a write at version 6 downgrades first (Java's write client downgrades too)
    write_table(base, rows([("k6", "v6")], 10), "upsert",
                options("MERGE_ON_READ", **{"hoodie.write.table.version": "6"}))
    assert read_properties(base).version == 6
    assert snapshot(base)["k6"] == "v6" and snapshot(base)["k1"] == "v8" and snapshot(base) == hudi_rs(base)


def test_auto_upgrade_off_writes_at_the_tables_version(tmp_path):
    base = tmp_path / "t"
    make_table(base, "COPY_ON_WRITE")
    write_table(base, rows([("k1", "same")], 9), "upsert", options(
        "COPY_ON_WRITE", **{"hoodie.write.table.version": "9", "hoodie.write.auto.upgrade": "false"}))
    assert read_properties(base).version == 6 and snapshot(base)["k1"] == "same"


def test_cli_upgrade_and_downgrade(tmp_path):
    base = tmp_path / "t"
    make_table(base, "COPY_ON_WRITE")
    runner = CliRunner()
    r = runner.invoke(main, ["table", "upgrade", str(base), "--to", "9", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert (out["from_version"], out["to_version"]) == (6, 9) and out["instant_files"] > 0
    r = runner.invoke(main, ["table", "upgrade", str(base), "--to", "8"])
    assert r.exit_code == 2 and "downgrade" in r.output
    r = runner.invoke(main, ["table", "downgrade", str(base), "--to", "6"])
    assert r.exit_code == 0 and "from version 9 to 6" in r.output
    r = runner.invoke(main, ["table", str(base), "--json"])  # `table PATH` still shows the table
    assert r.exit_code == 0 and json.loads(r.output)["properties"]["hoodie.table.version"] == "6"


def _archived(base: Path) -> list:
    r = CliRunner().invoke(main, ["archived", "show", str(base), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_archived_instants_round_trip_6_8_6(tmp_path, table_type):
    archived_round_trip(tmp_path, table_type)


def archived_round_trip(tmp_path, table_type: str) -> Path:
    """The v6 archive goes into the LSM history on the way up (SevenToEightUpgradeHandler's upgradeToLSMTimeline)
    and stays; on the way down nothing is appended twice: ``archived show`` is what it was. Instants archived
    at version 8 are appended to the v6 archive on the way down."""
    from hudi_log.table.services.archive import archive, read_archive
    from hudi_log.table.services.clean import clean
    from hudi_log.table.timeline.lsm_history import read_history

    base = tmp_path / "t"
    make_table(base, table_type)
    o = options(table_type)
    for n in range(6):
        write_table(base, rows([(f"k{n}", f"r{n}")], 10 + n), "upsert", o)
    keep = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3", "hoodie.cleaner.commits.retained": "1"}
    done = archive(base, keep)
    assert len(done) >= 6
    before, rows_before = _archived(base), snapshot(base)
    v6 = read_archive(base)
    change = change_table_version(base, 8)
    assert change.archived_instants == len({(a.commit_time, a.action) for a in v6 if a.state == "COMPLETED"})
    history = read_history(base, read_properties(base))
    completed = sorted((a.commit_time, a.action) for a in v6 if a.state == "COMPLETED")
    assert sorted((r["instantTime"], r["action"]) for r in history) == completed
    assert all(r["metadata"][:4] == b"Obj\x01" for r in history)  # completed metadata as a v8 file holds it
    assert sorted((a.commit_time, a.action) for a in read_archive(base)) == completed  # parsed back
    assert (base / ".hoodie" / "archived").is_dir()  # Java leaves the v6 archive where it is
    assert snapshot(base) == rows_before == hudi_rs(base)
    back = change_table_version(base, 6)
    assert back.archived_instants == 0
    assert _archived(base) == before and snapshot(base) == rows_before == hudi_rs(base)
    # archived at version 8, then down to 6: the new ones are appended to the v6 archive
    change_table_version(base, 8)
    for n in range(6):
        write_table(base, rows([(f"k{n}", f"s{n}")], 30 + n), "upsert", o)
    clean(base, 1)  # version 8 archives only what the cleaner no longer needs (ArchivalUtils)
    assert archive(base, keep)
    at8 = sorted((r["instantTime"], r["action"]) for r in read_history(base, read_properties(base)))
    down = change_table_version(base, 6)
    assert down.archived_instants == len(at8) - len(completed) > 0
    after = sorted((a.commit_time, a.action) for a in read_archive(base) if a.state == "COMPLETED")
    assert after == at8
    assert _archived(base)[:len(before)] == before
    return base


def test_java_reads_the_converted_archives(tmp_path, java_program):
    """Java's Avro decodes every block of the v6 archive the downgrade appended to (HoodieArchivedMetaEntry,
    COMPATIBLE both ways), and parquet-mr reads the footer of the LSM file an upgrade writes from it."""
    from hudi_log import open_log
    from hudi_log.format.grammar import BlockType
    from hudi_log.table.services.archive import ARCHIVED_META_ENTRY_SCHEMA

    java_check = java_program(Path(__file__).parent / "java" / "HudiLogJavaCheck.java")
    base = archived_round_trip(tmp_path, "COPY_ON_WRITE")
    (tmp_path / "reader.avsc").write_text(json.dumps(ARCHIVED_META_ENTRY_SCHEMA))
    lines, counts = [], []
    for n, log in enumerate(sorted((base / ".hoodie" / "archived").glob(".commits_.archive.*"))):
        for m, block in enumerate(open_log(log)):
            if block.block_type == BlockType.avro_data_block:
                (tmp_path / f"w{n}_{m}.avsc").write_text(block.schema)
                (tmp_path / f"c{n}_{m}.bin").write_bytes(block.content())
                lines.append(["avro-block", tmp_path / f"w{n}_{m}.avsc", tmp_path / f"c{n}_{m}.bin",
                              tmp_path / "reader.avsc"])
                counts.append(len(block.records()))
    assert len(lines) >= 2
    for got, count in zip(java_check(lines), counts):
        assert "error" not in got, got
        assert got["count"] == count
        assert got["reader_reads_writer"] == "COMPATIBLE" and got["writer_reads_reader"] == "COMPATIBLE"
    # up again: the whole archive (appended records too) into one LSM file, which parquet-mr reads
    change = change_table_version(base, 8)
    files = sorted((base / ".hoodie" / "timeline" / "history").glob("*.parquet"))
    assert change.archived_instants > 0 and len(files) == 1
    got, = java_check([["parquet-footer", files[0]]])
    assert "error" not in got and got["rows"] == change.archived_instants and got["avro_schema_parses"] is True


def full_rows(base: Path) -> list[str]:
    """Every row, but the file it is in (the upgrade's compaction moves MOR rows into new base files)."""
    return sorted(json.dumps({k: v for k, v in r.items() if k != "_hoodie_file_name"}, sort_keys=True, default=str)
                  for r in read_table(base).to_pylist())


def keys(rows_) -> set:
    return {(r["_hoodie_record_key"], r["_hoodie_commit_time"]) for r in rows_}


def test_corpus_v6_tables_upgrade_to_nine_and_back(corpus_tables, tmp_path):
    done = 0
    for name, root in corpus_tables.items():
        props = read_properties(root)
        if props.version != 6:
            continue
        base = tmp_path / name
        shutil.copytree(root, base)  # copy2: the instant files' modification times (their completion times) kept
        before = full_rows(base)
        if has_metadata_table(base, props):
            with pytest.raises(MetadataTableError):
                change_table_version(base, 9)
            change_table_version(base, 9, {"hoodie.metadata.enable": "false"})
        else:
            change_table_version(base, 9)
        assert read_properties(base).version == 9
        assert full_rows(base) == before, name
        assert keys(hudi_rs_rows(base)) == keys(read_table(base).to_pylist()), name
        change_table_version(base, 6)
        assert read_properties(base).version == 6 and full_rows(base) == before, name
        done += 1
    assert done >= 5


def test_a_table_with_a_metadata_table_is_refused(corpus_tables, tmp_path):
    name, root = next((n, r) for n, r in corpus_tables.items()
                      if read_properties(r).version == 8 and has_metadata_table(r, read_properties(r)))
    base = tmp_path / name
    shutil.copytree(root, base)
    with pytest.raises(MetadataTableError, match="hoodie.metadata.enable=false"):
        change_table_version(base, 9)
    assert read_properties(base).version == 8 and (base / ".hoodie" / "metadata").exists()
    before = full_rows(base)
    change_table_version(base, 6, {"hoodie.metadata.enable": "false"})  # item 7: the metadata table dropped
    props = read_properties(base)
    assert props.version == 6 and not has_metadata_table(base, props) and full_rows(base) == before


# ---- kill -9 --------------------------------------------------------------------------------------------
HELD = r"""
import sys, time
hold, argv = sys.argv[1], sys.argv[2:]
import hudi_log.table.write.upgrade as upgrade
real = upgrade.replace_properties
def replace_properties(*a, **k):
    if hold == "after-swap":
        real(*a, **k)
    print("holding", flush=True)
    time.sleep(600)
upgrade.replace_properties = replace_properties
from hudi_log.cli import main
main(argv, prog_name="hudi-log")
"""


def kill_midway(hold: str, args: list[str]) -> None:
    """Run ``hudi-log ARGS`` in a subprocess and SIGKILL it where ``hold`` stops it (:data:`HELD`)."""
    writers.kill_midway(HELD, hold, args)


@pytest.mark.slow
@pytest.mark.parametrize("hold", ["before-swap", "after-swap"])
@pytest.mark.parametrize("start,to", [(6, 8), (8, 6)])
def test_kill_midway_then_rerun(tmp_path, hold, start, to):
    base = tmp_path / "t"
    make_table(base, "MERGE_ON_READ")
    if start != 6:
        change_table_version(base, start)
    before = snapshot(base)
    cmd = "upgrade" if to > start else "downgrade"
    kill_midway(hold, ["table", cmd, str(base), "--to", str(to)])
    props = read_properties(base)
    assert props.version == (start if hold == "before-swap" else to)
    # killed with both layouts' files on disk: the new ones not yet named, or the old ones not yet deleted
    assert instant_files(base / ".hoodie") and instant_files(base / ".hoodie" / "timeline")
    assert snapshot(base) == before == hudi_rs(base)  # whole at one version or the other
    r = CliRunner().invoke(main, ["table", cmd, str(base), "--to", str(to)])
    assert r.exit_code == 0, r.output
    props = read_properties(base)
    assert props.version == to and snapshot(base) == before == hudi_rs(base)
    v1 = instant_files(base / ".hoodie")
    if to >= 8:
        assert v1 == [] and instant_files(base / ".hoodie" / "timeline")
    else:
        assert v1 and not (base / ".hoodie" / "timeline").exists()


def test_a_write_settles_a_killed_upgrade(tmp_path):
    """What a run killed before the swap leaves (copies in .hoodie/timeline of a version-6 table) goes with the
    next write, as with the next upgrade: a later upgrade never meets stale copies."""
    base = tmp_path / "t"
    make_table(base, "COPY_ON_WRITE")
    stray = base / ".hoodie" / "timeline"
    stray.mkdir()
    first = instant_files(base / ".hoodie")[0]
    shutil.copy2(base / ".hoodie" / first, stray / first)
    write_table(base, rows([("k1", "later")], 9), "upsert", options("COPY_ON_WRITE"))
    assert not stray.exists() and snapshot(base)["k1"] == "later" and read_properties(base).version == 6


def test_a_live_writers_instant_stops_the_upgrade(tmp_path):
    """Optimistic concurrency: a pending write whose heartbeat is fresh is another writer's, not a failed one;
    the upgrade refuses, naming it, and changes nothing (its rollback would break the live write)."""
    from hudi_log.table.write.client import begin_write
    occ = {"hoodie.write.concurrency.mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
           "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider"}
    base = tmp_path / "t"
    make_table(base, "COPY_ON_WRITE")
    tx = begin_write(base, "upsert", options("COPY_ON_WRITE", **occ), schema=SCHEMA)
    try:
        with pytest.raises(UpgradeDowngradeError, match=tx.instant):
            change_table_version(base, 8, occ)
        assert read_properties(base).version == 6 and not (base / ".hoodie" / "timeline").exists()
    finally:
        tx.abort()


@pytest.mark.slow
def test_spark_write_with_a_newer_table_version_upgrades_first(spark, tmp_path):
    base = tmp_path / "t"
    make_table(base, "MERGE_ON_READ", logs_left=True)
    df = spark.createDataFrame([("k1", "spark", 20, "p1"), ("k9", "new", 20, "p1")], "id string, val string, ts long, "
                                                                                       "part string")
    o = options("MERGE_ON_READ", **{"hoodie.write.table.version": "9", "hoodie.datasource.write.operation": "upsert"})
    df.write.format("hudi_log").options(**o).mode("append").save(str(base))
    props = read_properties(base)
    assert props.version == 9 and props.timeline_layout_version == 2
    got = snapshot(base)
    assert got["k1"] == "spark" and got["k9"] == "new" and got == hudi_rs(base)


def test_a_pending_clustering_is_refused_before_anything_changes(tmp_path):
    """Neither the rollback of failed writes nor the compaction completes a scheduled clustering: refused by
    name before either runs (a MOR table with log files keeps them)."""
    from hudi_log.table.services.clustering import schedule_clustering
    base = tmp_path / "t"
    make_table(base, "MERGE_ON_READ", logs_left=True)
    planned = schedule_clustering(base)
    assert planned
    before = sorted(str(p.relative_to(base)) for p in base.rglob("*"))
    with pytest.raises(UpgradeDowngradeError, match=planned):
        change_table_version(base, 8)
    assert sorted(str(p.relative_to(base)) for p in base.rglob("*")) == before


def test_upgrade_in_the_bucket(s3):
    """An object store: the same steps (its modification times give the v6 completion times); a downgrade to
    6 is refused before anything changes, since a store does not let hudi-log set modification times."""
    base = f"{s3.base}/t"
    o = options("MERGE_ON_READ")
    write_table(base, rows([(f"k{i}", "a") for i in range(6)], 1), "insert", o)
    write_table(base, rows([("k0", "b")], 2), "upsert", o)
    before = {r["id"]: r["val"] for r in read_table(base).to_pylist()}
    change = change_table_version(base, 9)
    assert change.compactions and read_properties(base).version == 9
    assert {r["id"]: r["val"] for r in read_table(base).to_pylist()} == before
    with pytest.raises(UpgradeDowngradeError, match="object store"):
        change_table_version(base, 6)
    change_table_version(base, 8)
    assert read_properties(base).version == 8 and {r["id"]: r["val"] for r in read_table(base).to_pylist()} == before
