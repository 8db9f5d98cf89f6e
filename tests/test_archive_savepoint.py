"""Savepoints, restore and timeline archival (issue 20, items 1, 2, 4): the instant files and Avro records
Java writes, reads at every instant afterwards, the v6 archive read back by hudi-log and decoded by
Java's Avro, the v8 refusal, the CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import fastavro
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table.errors import TimeTravelError
from hudi_log.format.reader import open_log
from hudi_log.table import HudiTable
from hudi_log.table.services.archive import ARCHIVED_META_ENTRY_SCHEMA, ArchiveError, archive, read_archive
from hudi_log.table.services.clean import clean
from hudi_log.table.services.savepoint import (SAVEPOINT_METADATA_SCHEMA, SavepointError, create_savepoint,
                                               delete_savepoint, list_savepoints, restore)
from hudi_log.table.write.client import write_table
from test_table_services import batch, hudi_rs, opts as services_opts, snapshot, timeline_files

SMALL = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3"}
JAVA_SOURCE = Path(__file__).parent / "java" / "HudiLogArchiveCheck.java"


# archival stops at the metadata table's latest compaction (Java's rule), and that compaction is helper mdtsvc's
# part: the tables archived here keep no metadata table
def opts(*args, **kwargs) -> dict:
    return {**services_opts(*args, **kwargs), "hoodie.metadata.enable": "false"}


def stream(base, n, version, table_type, extra=None):
    """``n`` small upserts; the instants and the snapshot after each."""
    o = {**opts(version, table_type), **(extra or {})}
    instants, states = [], []
    for i in range(n):
        r = write_table(base, batch([(f"k{j}", f"v{i}") for j in range(i % 3, 4)], i), "upsert", o)
        instants.append(r.instant)
        states.append(snapshot(base))
    return instants, states


CASES = [(6, "MERGE_ON_READ"), (6, "COPY_ON_WRITE"), (8, "MERGE_ON_READ"), (8, "COPY_ON_WRITE"), (9, "MERGE_ON_READ"),
         (9, "COPY_ON_WRITE")]


@pytest.mark.parametrize("version,table_type", CASES)
def test_savepoint_clean_restore_and_reads_at_every_instant(tmp_path, version, table_type):
    base = tmp_path / "t"
    instants, states = stream(base, 5, version, table_type)
    sp = create_savepoint(base, instants[2], user="ops", comments="before the bad load")
    names = timeline_files(base)
    assert f"{instants[2]}.savepoint.inflight" in names
    done = [n for n in names if n.endswith(".savepoint")]
    assert done == [f"{instants[2]}.savepoint"] if version == 6 else done[0].startswith(f"{instants[2]}_")
    md = next(iter(fastavro.reader(io.BytesIO((base / ".hoodie" / ("timeline" if version >= 8 else "")
                                                / done[0]).read_bytes()))))
    assert md["savepointedBy"] == "ops" and md["comments"] == "before the bad load" and md["version"] == 1
    assert sum(len(p["savepointDataFile"]) for p in md["partitionMetadata"].values()) == sum(
        len(v) for v in sp.files.values()) > 0
    # the savepoint does not hide the commit of the same time
    assert instants[2] in HudiTable(base).timeline.completed_commit_times()
    more, _ = stream(base, 4, version, table_type)
    rs = restore(base, instants[2])
    assert rs.action == "restore"
    tl = HudiTable(base).timeline
    assert not [i for i in tl.instants if i.action in ("commit", "deltacommit") and i.requested_time > instants[2]]
    rmd = tl.commit_metadata(rs)
    assert rmd["instantsToRollback"] == list(reversed(instants[3:] + more))
    assert set(rmd["hoodieRestoreMetadata"]) == set(instants[3:] + more)
    assert snapshot(base) == states[2] == hudi_rs(base)
    for k in range(3):
        assert snapshot(base, as_of=instants[k]) == states[k]
    # written on again after the restore, and the savepoint deleted
    delete_savepoint(base, instants[2])
    assert list_savepoints(HudiTable(base).timeline) == []
    write_table(base, batch([("k9", "z")], 99), "upsert", opts(version, table_type))
    assert snapshot(base) == {**states[2], "k9": "z"}


@pytest.mark.parametrize("version,table_type", CASES)
def test_clean_keeps_savepointed_slices(tmp_path, version, table_type):
    base = tmp_path / "t"
    instants, states = stream(base, 3, version, table_type)
    sp = create_savepoint(base, instants[1])
    stream(base, 5, version, table_type)
    before = {p for p in base.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    clean(base, retain_commits=1)
    after = {p for p in base.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    kept = {n for names in sp.files.values() for n in names}
    assert kept and kept <= {p.name for p in after}
    if table_type == "COPY_ON_WRITE":
        assert before - after  # the clean did delete what no savepoint keeps
    if table_type == "COPY_ON_WRITE":
        # time travel there is refused as Java's TimelineUtils.validateTimestampAsOf refuses it (the clean's
        # earliest commit to retain is later, savepoint or not); the savepoint serves a restore
        with pytest.raises(TimeTravelError, match="refused"):
            snapshot(base, as_of=instants[1])
    else:  # a MOR stream of delta commits onto the same slices: the clean removed nothing, travel is allowed
        assert snapshot(base, as_of=instants[1]) == states[1]
    assert restore(base, instants[1]) and snapshot(base) == states[1]


def test_a_killed_restore_is_finished_by_the_next(tmp_path, monkeypatch):
    import hudi_log.table.services.savepoint as sp_mod
    base = tmp_path / "t"
    instants, states = stream(base, 5, 6, "MERGE_ON_READ")
    create_savepoint(base, instants[1])
    real, calls = sp_mod.undo_instant_files, []

    def dies_after_one(*a):
        if calls:
            raise KeyboardInterrupt("killed")
        calls.append(a)
        return real(*a)

    monkeypatch.setattr(sp_mod, "undo_instant_files", dies_after_one)
    with pytest.raises(KeyboardInterrupt):
        restore(base, instants[1], {"hoodie.client.heartbeat.interval_in_ms": "100",
                                    "hoodie.client.heartbeat.tolerable.misses": "1"})
    monkeypatch.setattr(sp_mod, "undo_instant_files", real)
    names = timeline_files(base)
    assert any(n.endswith(".restore.inflight") for n in names) and not any(n.endswith(".restore") for n in names)
    import time
    time.sleep(0.5)  # the killed run's heartbeat expires
    done = restore(base, instants[1], {"hoodie.client.heartbeat.interval_in_ms": "100",
                                       "hoodie.client.heartbeat.tolerable.misses": "1"})
    assert done.requested_time in {n.split(".")[0] for n in names if ".restore." in n}
    assert snapshot(base) == states[1]
    assert len(HudiTable(base).timeline.commit_metadata(done)["instantsToRollback"]) == 3


def test_savepoint_refusals(tmp_path):
    base = tmp_path / "t"
    instants, _ = stream(base, 3, 6, "COPY_ON_WRITE")
    with pytest.raises(SavepointError, match="not a completed commit"):
        create_savepoint(base, "20200101000000000")
    create_savepoint(base, instants[0])
    with pytest.raises(SavepointError, match="already savepointed"):
        create_savepoint(base, instants[0])
    with pytest.raises(SavepointError, match="no savepoint"):
        restore(base, instants[1])
    with pytest.raises(SavepointError, match="does not exist"):
        delete_savepoint(base, instants[1])
    assert fastavro.parse_schema(SAVEPOINT_METADATA_SCHEMA)


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_long_stream_keeps_a_bounded_active_timeline(tmp_path, table_type):
    base = tmp_path / "t"
    extra = {**SMALL, "hoodie.compact.inline.max.delta.commits": "1"}
    instants, states = stream(base, 12, 6, table_type, extra)
    tl = HudiTable(base).timeline
    assert len(tl.completed_commits()) <= 3  # auto-archive after each write
    archived = read_archive(base)
    assert {a.commit_time for a in archived} | tl.completed_commit_times() == set(instants)
    assert {a.state for a in archived} == {"REQUESTED", "INFLIGHT", "COMPLETED"}
    files = sorted(p.name for p in (base / ".hoodie" / "archived").iterdir())
    assert files[0] == ".commits_.archive.1_1-0-1" and all(f.startswith(".commits_.archive.") for f in files)
    done = [a for a in archived if a.state == "COMPLETED"]
    assert all(a.metadata.get("partitionToWriteStats") for a in done)
    for k, inst in enumerate(instants):  # time travel into archived instants reads as before
        assert snapshot(base, as_of=inst) == states[k], k
    assert snapshot(base) == states[-1] == hudi_rs(base)


def test_archival_stops_at_savepoint_and_pending(tmp_path):
    base = tmp_path / "t"
    instants, _ = stream(base, 4, 6, "COPY_ON_WRITE")
    create_savepoint(base, instants[1])
    stream(base, 6, 6, "COPY_ON_WRITE")
    assert archive(base, SMALL)  # only what is before the savepoint
    left = HudiTable(base).timeline.completed_commit_times()
    assert instants[1] in left and instants[0] not in left
    assert not archive(base, SMALL)


def test_v8_auto_archives_into_the_lsm_history(tmp_path):
    """Version 8 archives under Hudi 1.x's rules (tests/test_archive_lsm.py has the rest)."""
    base = tmp_path / "t"
    stream(base, 5, 8, "MERGE_ON_READ", {**SMALL, "hoodie.cleaner.commits.retained": "1",
                                        "hoodie.compact.inline.max.delta.commits": "1"})
    assert len(HudiTable(base).timeline.completed_commits()) <= 3
    assert (base / ".hoodie" / "timeline" / "history" / "_version_").exists()
    with pytest.raises(ArchiveError, match="greater than"):
        archive(base, {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "3"})


def test_archive_decoded_by_java_avro(tmp_path, java_program):
    base = tmp_path / "t"
    stream(base, 8, 6, "MERGE_ON_READ", {**SMALL, "hoodie.compact.inline.max.delta.commits": "1"})
    clean(base, retain_commits=1)
    archived = read_archive(base)
    lines, want = [], []
    for f in sorted((base / ".hoodie" / "archived").iterdir()):
        for b in open_log(f):
            schema = tmp_path / f"{f.name}.{b.offset}.avsc"
            schema.write_text(b.schema)
            assert json.loads(b.schema) == ARCHIVED_META_ENTRY_SCHEMA
            for i, (d, rec) in enumerate(zip(b.datums(), b.records())):
                datum = tmp_path / f"{f.name}.{b.offset}.{i}.bin"
                datum.write_bytes(bytes(d))
                lines.append([schema, datum])
                want.append(rec)
    assert len(want) == len(archived) > 0
    got = java_program(JAVA_SOURCE)(lines)
    for g, rec in zip(got, want):
        assert (g["commitTime"], g["actionType"], g["actionState"]) == \
            (rec["commitTime"], rec["actionType"], rec["actionState"])
        assert g["rest"] == 0
        assert g["metadata"] == ("hoodieCommitMetadata" if rec["actionType"] == "deltacommit" else g["metadata"])
        if rec["actionType"] == "deltacommit" and rec["actionState"] == "COMPLETED":
            assert g["writeStats"] == len(rec["hoodieCommitMetadata"]["partitionToWriteStats"]) > 0


def test_cli_timeline_commands(tmp_path):
    base = tmp_path / "t"
    instants, states = stream(base, 4, 6, "COPY_ON_WRITE")
    r = CliRunner()

    def run(*args):
        res = r.invoke(main, [args[0], *args[1:]])
        assert res.exit_code == 0, res.output
        return res.output

    rows = json.loads(run("commits", "show", str(base), "--json"))
    assert [x["instant"] for x in rows] == instants and all(x["records"] > 0 and x["bytes"] > 0 for x in rows)
    # piped: tab-separated, full instant times (no rich table folding them)
    lines = run("commits", "show", str(base)).splitlines()
    assert lines[0].split("\t")[:3] == ["instant", "action", "state"]
    assert [line.split("\t")[0] for line in lines[1:]] == instants
    assert json.loads(run("savepoint", "create", str(base), instants[1], "--json"))["instant"] == instants[1]
    assert [x["instant"] for x in json.loads(run("savepoints", "show", str(base), "--json"))] == [instants[1]]
    out = json.loads(run("archive", str(base), "-o", "hoodie.keep.min.commits=1", "-o", "hoodie.keep.max.commits=2",
                         "--json"))
    assert {x["instant"] for x in out} == {instants[0]}
    assert {x["instant"] for x in json.loads(run("archived", "show", str(base), "--json"))} == {instants[0]}
    assert json.loads(run("savepoint", "restore", str(base), instants[1], "--json"))["restore"]
    assert snapshot(base) == states[1]
    assert json.loads(run("cleans", "show", str(base), "--json")) == []
    run("savepoint", "delete", str(base), instants[1])
    res = r.invoke(main, ["savepoint", "delete", str(base), instants[1]])
    assert res.exit_code == 2 and "does not exist" in res.output


def test_archived_log_blocks_stay_visible_behind_an_older_rollback(tmp_path):
    """The scanner's archived range ends at the first completed write, not at the oldest instant: a
    rollback older than the archived delta commits stays active and must not hide their log blocks."""
    from hudi_log.table.write.client import begin_write
    from test_table_services import SCHEMA
    base = tmp_path / "t"
    o = {**opts(6, "MERGE_ON_READ"), **SMALL, "hoodie.compact.inline.max.delta.commits": "1"}
    write_table(base, batch([(f"k{j}", "v") for j in range(4)], 0), "upsert", o)
    begin_write(base, "upsert", o, schema=SCHEMA).abort()
    rollback = [i for i in HudiTable(base).timeline.instants if i.action == "rollback"]
    assert rollback
    instants, states = stream(base, 8, 6, "MERGE_ON_READ", o)
    archived = {a.commit_time for a in read_archive(base)}
    assert any(t > rollback[0].requested_time for t in archived)
    assert rollback[0].requested_time in {i.requested_time for i in HudiTable(base).timeline.instants}
    assert snapshot(base) == states[-1]
    for k, inst in enumerate(instants):
        assert snapshot(base, as_of=inst) == states[k], k


def test_java_written_v6_instants_become_archive_entries(corpus_tables):
    """Every instant file Java 0.14 wrote in the corpus's v6 tables (JSON commits, Avro rollbacks) converts
    to a HoodieArchivedMetaEntry that encodes under the archive schema and decodes back to its metadata."""
    from hudi_log.table.services.archive import _PARSED, _datum, entry_of
    tables = [n for n in corpus_tables if "_v6_" in n and "empty" not in n]
    assert tables
    for name in tables:
        tl = HudiTable(corpus_tables[name]).timeline
        assert tl.all_files
        for f in tl.all_files:
            rec = entry_of(f, (tl.folder / f.file_name).read_bytes(), tl)
            back = fastavro.schemaless_reader(io.BytesIO(_datum(rec)), _PARSED)
            assert (back["commitTime"], back["actionType"], back["actionState"]) == \
                (f.requested_time, f.action, f.state), name
            if f.state == "COMPLETED" and f.action in ("commit", "deltacommit"):
                assert set(back["hoodieCommitMetadata"]["partitionToWriteStats"]) == \
                    set(tl.commit_metadata(f)["partitionToWriteStats"]), name
            if f.state == "COMPLETED" and f.action == "rollback":
                assert back["hoodieRollbackMetadata"]["commitsRollback"] == \
                    tl.commit_metadata(f)["commitsRollback"], name


def test_bad_archival_options_are_refused_before_the_write(tmp_path):
    base = tmp_path / "t"
    stream(base, 1, 6, "COPY_ON_WRITE")
    before = timeline_files(base)
    with pytest.raises(ArchiveError, match="greater than"):
        write_table(base, batch([("k1", "x")], 5), "upsert",
                    {**opts(6, "COPY_ON_WRITE"), "hoodie.keep.min.commits": "5", "hoodie.keep.max.commits": "4"})
    assert timeline_files(base) == before
