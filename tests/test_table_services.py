"""Compaction and cleaning (issue 6 part B): the instant files they write, what they keep and delete,
their errors and CLI, checked against Hudi's own files in the corpus where it has them."""

from __future__ import annotations

import io
import json

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from fastavro.schema import parse_schema, to_parsing_canonical_form

from hudi_log.cli import main
from hudi_log.table import HudiTable, read_table
from hudi_log.table.services.clean import (CLEAN_METADATA_SCHEMA, CLEANER_PLAN_SCHEMA, CleanError, clean,
                                  earliest_commit_to_retain)
from hudi_log.table.services.compaction import (COMPACTION_PLAN_SCHEMA, CompactionError, compact,
                                       pending_compactions, read_compaction_plan, run_compaction,
                                       schedule_compaction)
from hudi_log.table.timeline.timeline import read_instant_metadata
from hudi_log.table.write.client import begin_write, write_table
from hudi_rs_oracle import hudi_rs_rows

hudi = pytest.importorskip("hudi")
SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])


def opts(version=6, table_type="MERGE_ON_READ"):
    return {"hoodie.table.name": "svc", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version)}


def batch(pairs, ts):
    return pa.Table.from_pylist([{"id": k, "val": v, "ts": ts, "part": f"p{int(k[1:]) % 2}"} for k, v in pairs],
                                schema=SCHEMA)


def three_commits(base, version=6, table_type="MERGE_ON_READ"):
    o = opts(version, table_type)
    write_table(base, batch([("k1", "a"), ("k2", "b"), ("k3", "c")], 1), "insert", o)
    write_table(base, batch([("k2", "bb"), ("k3", "cc"), ("k4", "d")], 2), "upsert", o)
    write_table(base, batch([("k3", "")], 3), "delete", o)
    return {"k1": "a", "k2": "bb", "k4": "d"}


def snapshot(base, **kw):
    return {r["id"]: r["val"] for r in read_table(base, **kw).to_pylist()}


def hudi_rs(base):
    return {r["id"]: r["val"] for r in hudi_rs_rows(base)}


def timeline_files(base):
    t = HudiTable(base)
    return sorted(p.name for p in t.timeline.folder.iterdir() if p.is_file())


# ---- compaction -----------------------------------------------------------------------------------------
def test_plan_schema_and_record_match_hudi(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    req = root / ".hoodie" / "timeline" / "20251220210129235.compaction.requested"
    hudi_schema = fastavro.reader(io.BytesIO(req.read_bytes())).writer_schema
    assert to_parsing_canonical_form(hudi_schema) == to_parsing_canonical_form(parse_schema(COMPACTION_PLAN_SCHEMA))
    plan = read_compaction_plan(req)
    assert plan.instant == "20251220210129235" and len(plan.operations) == 3
    ours = next(iter(fastavro.reader(io.BytesIO(plan.to_bytes()))))
    hudis = next(iter(fastavro.reader(io.BytesIO(req.read_bytes()))))
    assert ours["operations"] == hudis["operations"]
    assert ours["version"] == hudis["version"] == 2


@pytest.mark.parametrize("version", [6, 8])
def test_compaction_instants_files_and_rows(tmp_path, version):
    base = tmp_path / "t"
    want = three_commits(base, version)
    before = {r["id"]: r for r in read_table(base).to_pylist()}
    instant = schedule_compaction(base)
    plan = pending_compactions(base)[instant]
    assert all(op.log_files for op in plan.operations)
    folder = HudiTable(base).timeline.folder
    assert (folder / f"{instant}.compaction.requested").read_bytes()[:4] == b"Obj\x01"
    res = run_compaction(base)
    assert res.instant == instant and res.action == "commit" and res.operation == "compact"
    assert (folder / f"{instant}.compaction.inflight").read_bytes() == b""
    done = HudiTable(base).timeline.instant(instant)
    assert done.is_completed and done.action == "commit"
    raw = done.path.read_bytes()
    assert (raw[:4] == b"Obj\x01") == (version >= 8)  # v6: JSON, v8: Avro
    md = read_instant_metadata(done.path)
    assert md["compacted"] is True and md["operationType"] == "COMPACT" and "schema" in md["extraMetadata"]
    stats = [s for ss in md["partitionToWriteStats"].values() for s in ss]
    assert {(s["partitionPath"], s["fileId"]) for s in stats} == {(o.partition, o.file_id) for o in plan.operations}
    for s in stats:
        path = base / s["path"]
        assert path.name.startswith(f"{s['fileId']}_") and path.name.endswith(f"_{instant}.parquet")
        t = pq.read_table(path).to_pylist()
        assert s["numWrites"] == len(t) and s["fileSizeInBytes"] == path.stat().st_size
        for r in t:  # meta columns kept; the file name is the new file's
            assert r["_hoodie_file_name"] == path.name
            assert r["_hoodie_commit_time"] == before[r["id"]]["_hoodie_commit_time"]
            assert r["_hoodie_commit_seqno"] == before[r["id"]]["_hoodie_commit_seqno"]
    assert snapshot(base) == want == hudi_rs(base)
    # every slice now has its base file only (nothing left to compact)
    assert all(not s.log_files for s in HudiTable(base).view().latest_file_slices())
    assert compact(base) is None


def test_compaction_refusals(tmp_path):
    cow = tmp_path / "cow"
    three_commits(cow, 6, "COPY_ON_WRITE")
    with pytest.raises(CompactionError, match="MERGE_ON_READ"):
        schedule_compaction(cow)
    mor = tmp_path / "mor"
    three_commits(mor, 8)
    tx = begin_write(mor, "upsert", opts(8), schema=SCHEMA)  # a write left inflight
    with pytest.raises(CompactionError, match=tx.instant):
        schedule_compaction(mor)
    tx.abort()
    with pytest.raises(CompactionError, match="no pending compaction"):
        run_compaction(mor)
    assert schedule_compaction(mor, {"hoodie.compact.inline.max.delta.commits": "5"}) is None
    c = schedule_compaction(mor, {"hoodie.compact.inline.max.delta.commits": "3"})
    run_compaction(mor, c)
    with pytest.raises(CompactionError, match="not a pending compaction"):
        run_compaction(mor, c)


def test_writes_while_compaction_pending(tmp_path):
    """v6 names the new log after the pending compaction (Hudi's HoodieAppendHandle takes the pending
    compaction's empty slice as the latest); our reader merges it with the slice before, as Java's
    ``getLatestMergedFileSlicesBeforeOrOn``. hudi-rs 0.5.0 agrees for v8 while the compaction is pending;
    for v6 it leaves that log out until the compaction completes (an hudi-rs limitation), so it is
    compared after the run only."""
    for version in (6, 8):
        base = tmp_path / f"v{version}"
        want = three_commits(base, version)
        c = schedule_compaction(base)
        write_table(base, batch([("k1", "aa"), ("k5", "e")], 4), "upsert", opts(version))
        want.update({"k1": "aa", "k5": "e"})
        names = [p.name for p in base.rglob(".*.log.*")]
        if version == 6:
            assert any(f"_{c}.log." in n for n in names), names
        assert snapshot(base) == want
        if version >= 8:
            assert hudi_rs(base) == want
        run_compaction(base, c)
        assert snapshot(base) == want == hudi_rs(base)


# ---- cleaning -------------------------------------------------------------------------------------------
def test_earliest_commit_to_retain(tmp_path):
    base = tmp_path / "t"
    three_commits(base, 8)
    tl = HudiTable(base).timeline
    commits = [i.requested_time for i in tl.completed_commits()]
    assert earliest_commit_to_retain(tl, 3) is None
    assert earliest_commit_to_retain(tl, 2).requested_time == commits[1]
    assert earliest_commit_to_retain(tl, 1).requested_time == commits[2]
    tx = begin_write(base, "upsert", opts(8), schema=SCHEMA)  # pending, later than every commit:
    assert earliest_commit_to_retain(HudiTable(base).timeline, 1).requested_time == commits[2]  # unchanged
    tx.abort()


@pytest.mark.parametrize("version,table_type", [(6, "MERGE_ON_READ"), (8, "MERGE_ON_READ"),
                                                (6, "COPY_ON_WRITE"), (8, "COPY_ON_WRITE")])
def test_clean_keeps_the_retained_window(tmp_path, version, table_type):
    base = tmp_path / "t"
    o = opts(version, table_type)
    states = {}
    model = {}
    for n in range(5):
        pairs = [("k1", f"v{n}"), ("k2", f"w{n}")]
        r = write_table(base, batch(pairs, n + 1), "upsert", o)
        model.update(pairs)
        states[r.instant] = dict(model)
        if table_type == "MERGE_ON_READ" and n == 2:
            states[compact(base).instant] = dict(model)
    files_before = {p.name for p in base.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    ectr = earliest_commit_to_retain(HudiTable(base).timeline, 2)
    instant = clean(base, retain_commits=2)
    assert instant is not None
    files_after = {p.name for p in base.rglob("*") if p.is_file() and ".hoodie" not in p.parts}
    deleted = files_before - files_after
    assert deleted and not files_after - files_before
    tl = HudiTable(base).timeline
    done = tl.instant(instant)
    assert done.action == "clean" and done.is_completed
    names = timeline_files(base)
    assert f"{instant}.clean.requested" in names and f"{instant}.clean.inflight" in names
    plan_raw = (tl.folder / f"{instant}.clean.requested").read_bytes()
    plan = next(iter(fastavro.reader(io.BytesIO(plan_raw))))
    assert plan["policy"] == "KEEP_LATEST_COMMITS" and plan["version"] == 2
    assert plan["earliestInstantToRetain"]["timestamp"] == ectr.requested_time
    planned = {i["filePath"].rsplit("/", 1)[-1]
               for infos in plan["filePathsToBeDeletedPerPartition"].values() for i in infos}
    assert planned == deleted
    md = next(iter(fastavro.reader(io.BytesIO(done.path.read_bytes()))))
    assert md["totalFilesDeleted"] == len(deleted) and md["earliestCommitToRetain"] == ectr.requested_time
    assert {f for p in md["partitionMetadata"].values() for f in p["successDeleteFiles"]} == deleted
    # latest state and time travel inside the window unchanged, for both readers
    assert snapshot(base) == model == hudi_rs(base)
    for t, s in states.items():
        if t >= ectr.requested_time:
            assert snapshot(base, as_of=t) == s
    assert clean(base, retain_commits=2) is None  # nothing more to delete


def test_clean_spares_pending_compaction_and_finishes_a_killed_clean(tmp_path, monkeypatch):
    base = tmp_path / "t"
    o = opts(6)
    for n in range(3):
        write_table(base, batch([("k1", f"v{n}")], n + 1), "upsert", o)
    compact(base)
    for n in range(3, 5):
        write_table(base, batch([("k1", f"v{n}")], n + 1), "upsert", o)
    c = schedule_compaction(base)
    # the pending compaction's slice (base file + logs) must survive any clean
    op = pending_compactions(base)[c].operations[0]
    clean(base, retain_commits=1)
    folder = base / op.partition
    assert (folder / op.base_file).exists() and all((folder / n).exists() for n in op.log_files)
    run_compaction(base, c)
    assert snapshot(base) == {"k1": "v4"} == hudi_rs(base)
    # a clean killed after its inflight: the next clean finishes it from its plan
    write_table(base, batch([("k1", "v5")], 6), "upsert", o)
    compact(base)
    write_table(base, batch([("k1", "v6")], 7), "upsert", o)
    import hudi_log.table.services.clean as cl

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # the process dies after clean.inflight, before deleting anything
    with monkeypatch.context() as m:
        m.setattr(cl, "_execute", killed)
        with pytest.raises(KeyboardInterrupt):
            clean(base, retain_commits=1)
    pending = [i for i in HudiTable(base).timeline.pending() if i.action == "clean"]
    assert len(pending) == 1 and pending[0].state == "INFLIGHT"
    clean(base, retain_commits=1)
    assert not HudiTable(base).timeline.pending()
    assert HudiTable(base).timeline.instant(pending[0].requested_time).is_completed
    assert snapshot(base) == {"k1": "v6"} == hudi_rs(base)


@pytest.mark.parametrize("version", [6, 8])
def test_clean_deletes_file_groups_replaced_before_the_ectr(tmp_path, version):
    base = tmp_path / "t"
    o = opts(version, "COPY_ON_WRITE")
    write_table(base, batch([("k0", "a"), ("k2", "b")], 1), "insert", o)
    old_files = {p.name for p in (base / "p0").iterdir() if p.suffix == ".parquet"}
    write_table(base, batch([("k4", "c")], 2), "insert_overwrite", o)  # replaces p0's file group
    write_table(base, batch([("k4", "cc")], 3), "upsert", o)
    want = {"k4": "cc"}
    assert snapshot(base) == want == hudi_rs(base)
    assert clean(base, retain_commits=1) is not None
    left = {p.name for p in (base / "p0").iterdir() if p.suffix == ".parquet"}
    assert not old_files & left and left
    assert snapshot(base) == want == hudi_rs(base)


def test_clean_schemas_are_hudis_records():
    for schema, name in ((CLEANER_PLAN_SCHEMA, "HoodieCleanerPlan"), (CLEAN_METADATA_SCHEMA, "HoodieCleanMetadata")):
        parsed = parse_schema(schema)
        assert parsed["name"] == f"org.apache.hudi.avro.model.{name}"
    with pytest.raises(CleanError):
        clean("/nonexistent", retain_commits=0)


# ---- CLI ------------------------------------------------------------------------------------------------
def test_cli_compact_and_clean(tmp_path):
    base = tmp_path / "t"
    want = three_commits(base, 8)
    r = CliRunner().invoke(main, ["compact", str(base), "--schedule-only", "--json"])
    assert r.exit_code == 0, r.output
    c = json.loads(r.output)["scheduled"]
    assert c in pending_compactions(base)
    r = CliRunner().invoke(main, ["compact", str(base), "--instant", c, "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["instant"] == c and out["files"]
    compacted = {r["id"] for f in out["files"] for r in pq.read_table(base / f).to_pylist()}
    assert out["rows"] == len(compacted) and compacted <= set(want)
    r = CliRunner().invoke(main, ["compact", str(base)])
    assert r.exit_code == 0 and "nothing to compact" in r.output
    r = CliRunner().invoke(main, ["compact", str(base), "--instant", "20000101000000000"])
    assert r.exit_code == 2 and "not a pending compaction" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["compact", str(base), "--schedule-only", "--instant", c])
    assert r.exit_code == 2
    write_table(base, batch([("k1", "aa")], 4), "upsert", opts(8))
    want["k1"] = "aa"
    compact(base)  # now the first slices are older than the last version before the ECTR
    r = CliRunner().invoke(main, ["clean", str(base), "--retain-commits", "1", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["clean"] is not None
    assert snapshot(base) == want
    r = CliRunner().invoke(main, ["clean", str(base), "--retain-commits", "0"])
    assert r.exit_code == 2
    cow = tmp_path / "cow"
    three_commits(cow, 6, "COPY_ON_WRITE")
    r = CliRunner().invoke(main, ["compact", str(cow)])
    assert r.exit_code == 2 and "MERGE_ON_READ" in r.output
