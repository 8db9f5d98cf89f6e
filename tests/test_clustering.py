"""Clustering (issue 20, items 3 and 4): plan, run, replace; reads before and after (hudi-log and hudi-rs),
time travel before it, the update refusal, a killed run rolled back, clean of the replaced files, the plan's
Avro as Java's schema reads it, the CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import fastavro
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import HudiTable
from hudi_log.table.errors import ClusteringUpdateError, WriteConflictError
from hudi_log.table.services import clustering as cl
from hudi_log.table.services.clean import clean
from hudi_log.table.services.options import OptionError
from hudi_log.table.services.compaction import schedule_compaction
from hudi_log.table.timeline.clustering_plan import (
    CLUSTERING_PLAN_SCHEMA, REQUESTED_REPLACE_SCHEMA, ClusteringPlan, file_groups_in_pending_clustering,
)
from hudi_log.table.write.client import begin_write, write_batches, write_table
from test_table_services import batch, hudi_rs, opts, snapshot, timeline_files

CASES = [(6, "MERGE_ON_READ"), (6, "COPY_ON_WRITE"), (8, "MERGE_ON_READ"), (8, "COPY_ON_WRITE"), (9, "MERGE_ON_READ"),
         (9, "COPY_ON_WRITE")]


def base_files(base) -> set[str]:
    return {str(p.relative_to(base)) for p in Path(base).rglob("*.parquet") if ".hoodie" not in p.parts}


def latest_bases(base) -> list[str]:
    return sorted(s.base_file.name for s in HudiTable(base).view().latest_file_slices() if s.base_file)


def small_stream(base, version, table_type, n=6):
    """``n`` small bulk inserts (each its own file groups: bulk_insert does not fill small files), then an upsert (MOR: log files on some groups)."""
    o = opts(version, table_type)
    instants = [write_table(base, batch([(f"k{i * 2 + j}", f"v{i}") for j in range(2)], i), "bulk_insert", o).instant
                for i in range(n)]
    instants.append(write_table(base, batch([("k0", "u0"), ("k3", "u3")], 50), "upsert", o).instant)
    return instants


def requested_of(base, instant) -> Path:
    folder = HudiTable(base).timeline.folder
    return next(p for p in folder.iterdir() if p.name.startswith(f"{instant}.") and p.name.endswith(".requested"))


@pytest.mark.parametrize("version,table_type", CASES)
def test_cluster_rewrites_small_files_and_reads_stay(tmp_path, version, table_type):
    base = tmp_path / "t"
    instants = small_stream(base, version, table_type)
    before = snapshot(base)
    groups_before = latest_bases(base)
    assert len(groups_before) == 12  # every insert opened a file group per partition
    instant = cl.schedule_clustering(base)
    req = requested_of(base, instant)
    # version 6: a replacecommit; version 8 (Java 1.x): the clustering action; both complete as replacecommit
    assert req.name == f"{instant}.{'clustering' if version >= 8 else 'replacecommit'}.requested"
    plan = ClusteringPlan.from_bytes(instant, req.read_bytes())
    assert len(plan.groups) == 2 and all(g.num_output_file_groups == 1 for g in plan.groups)  # one per partition
    assert sorted(f for _, f in plan.file_groups()) == sorted(s.file_id for s in HudiTable(base).view().latest_file_slices())
    # pending: reads unchanged, the new files not visible
    assert snapshot(base) == before
    result = cl.run_clustering(base, instant)
    assert result.action == "replacecommit"
    names = timeline_files(base)
    done = [n for n in names if n.endswith(".replacecommit") and n.startswith(instant)]
    assert done == ([f"{instant}.replacecommit"] if version == 6 else done) and len(done) == 1
    assert f"{instant}.{'clustering' if version >= 8 else 'replacecommit'}.inflight" in names
    tl = HudiTable(base).timeline
    md = tl.commit_metadata(next(i for i in tl.completed() if i.requested_time == instant))
    assert md["operationType"] == "CLUSTER"
    assert sorted(f for fids in md["partitionToReplaceFileIds"].values() for f in fids) == \
        sorted(f for _, f in plan.file_groups())
    after = latest_bases(base)
    assert len(after) == 2 and all(n.endswith(f"_{instant}.parquet") for n in after)
    assert snapshot(base) == before == hudi_rs(base)
    # time travel before the clustering still sees the old layout and rows
    assert snapshot(base, as_of=instants[-1]) == before
    assert len([s for s in HudiTable(base).view(as_of=instants[-1]).latest_file_slices()]) == 12
    # commit times and the file names inside the files
    rows = {r["id"]: r for r in HudiTable(base).read().to_pylist()}
    assert rows["k11"]["_hoodie_commit_time"] == instants[5]
    assert {r["_hoodie_file_name"] for r in rows.values()} == set(after)
    # writes go on: an update of a clustered key lands in the new file group
    write_table(base, batch([("k5", "w5")], 99), "upsert", opts(version, table_type))
    assert snapshot(base) == {**before, "k5": "w5"} == hudi_rs(base)


@pytest.mark.parametrize("version,table_type", [(6, "MERGE_ON_READ"), (8, "COPY_ON_WRITE")])
def test_upsert_into_a_pending_clustering_is_refused(tmp_path, version, table_type):
    base = tmp_path / "t"
    small_stream(base, version, table_type, n=3)
    before = snapshot(base)
    instant = cl.schedule_clustering(base)
    taken = file_groups_in_pending_clustering(HudiTable(base).timeline)
    assert taken and set(taken.values()) == {instant}
    with pytest.raises(ClusteringUpdateError, match=instant):
        write_table(base, batch([("k1", "no")], 70), "upsert", opts(version, table_type))
    with pytest.raises(ClusteringUpdateError, match=instant):
        write_table(base, batch([("k1", "")], 70), "delete", opts(version, table_type))
    with pytest.raises(ClusteringUpdateError, match="under pending clustering"):
        write_table(base, batch([("k90", "over")], 70), "insert_overwrite", opts(version, table_type))
    assert snapshot(base) == before
    assert not HudiTable(base).timeline.pending()[1:]  # the refused writes were rolled back
    # inserts of new keys go to new file groups: allowed
    write_table(base, batch([("k40", "new")], 71), "insert", opts(version, table_type))
    # a pending clustering is no failed write: no write rolls it back
    assert HudiTable(base).timeline.is_pending(instant)
    # compaction never plans a file group under clustering
    if table_type == "MERGE_ON_READ":
        assert schedule_compaction(base) is None
    cl.run_clustering(base, instant)
    write_table(base, batch([("k1", "yes")], 72), "upsert", opts(version, table_type))
    assert snapshot(base) == {**before, "k40": "new", "k1": "yes"} == hudi_rs(base)


def test_write_begun_before_the_clustering_conflicts_at_commit(tmp_path):
    base = tmp_path / "t"
    small_stream(base, 8, "MERGE_ON_READ", n=2)
    before = snapshot(base)
    tx = begin_write(base, "upsert", opts(8, "MERGE_ON_READ"))
    stats = write_batches(tx.context, batch([("k1", "late")], 80))
    instant = cl.schedule_clustering(base)
    with pytest.raises(WriteConflictError, match=instant):
        tx.commit(stats)
    cl.run_clustering(base, instant)
    assert snapshot(base) == before == hudi_rs(base)


@pytest.mark.parametrize("version", [6, 8])
def test_killed_clustering_is_rolled_back_and_run_again(tmp_path, monkeypatch, version):
    base = tmp_path / "t"
    small_stream(base, version, "MERGE_ON_READ", n=3)
    before = snapshot(base)
    instant = cl.schedule_clustering(base)
    real = cl.write_base_file
    calls = []

    def dies(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt("killed")  # the first new file is written, the process dies on the second
        return real(*args, **kwargs)

    monkeypatch.setattr(cl, "write_base_file", dies)
    with pytest.raises(KeyboardInterrupt):
        cl.run_clustering(base, instant)
    monkeypatch.setattr(cl, "write_base_file", real)
    assert any(n.endswith(f"_{instant}.parquet") for n in base_files(base))  # left behind
    assert snapshot(base) == before
    # writes do not roll a clustering back (it is no failed write): the next clustering run does
    write_table(base, batch([("k30", "n")], 60), "insert", opts(version, "MERGE_ON_READ"))
    before["k30"] = "n"
    assert HudiTable(base).timeline.instant(instant).state == "INFLIGHT"
    done = [cl.run_clustering(base)]
    assert done[0].instant == instant and len(done[0].rolled_back) == 1
    tl = HudiTable(base).timeline
    rb = tl.instant(done[0].rolled_back[0])
    assert rb.action == "rollback" and rb.is_completed
    assert tl.commit_metadata(rb)["commitsRollback"] == [instant]
    # only the rerun's files remain under the clustering instant
    mine = sorted(n.split("/")[-1] for n in base_files(base) if n.endswith(f"_{instant}.parquet"))
    assert len(mine) == 2 and mine == [n for n in latest_bases(base) if n.endswith(f"_{instant}.parquet")]
    assert snapshot(base) == before == hudi_rs(base)


@pytest.mark.parametrize("version,table_type", [(6, "COPY_ON_WRITE"), (8, "MERGE_ON_READ")])
def test_clean_removes_replaced_file_groups(tmp_path, version, table_type):
    base = tmp_path / "t"
    small_stream(base, version, table_type, n=3)
    before = snapshot(base)
    [result] = cl.cluster(base)
    replaced = {f for fids in result.replaced_file_ids.values() for f in fids}
    for i in range(3):  # commits after the clustering, so that it falls behind the retained window
        write_table(base, batch([(f"k{60 + i}", "x")], 90 + i), "insert", opts(version, table_type))
    assert any(Path(n).name.split("_")[0] in replaced for n in base_files(base))
    assert clean(base, retain_commits=1) is not None
    left = {Path(n).name.split("_")[0] for n in base_files(base)}
    assert not left & replaced
    assert not [p for p in Path(base).rglob(".*.log.*") if p.name[1:].split("_")[0] in replaced]
    assert snapshot(base) == {**before, "k60": "x", "k61": "x", "k62": "x"} == hudi_rs(base)


def test_plan_options_sort_and_sizes(tmp_path):
    base = tmp_path / "t"
    small_stream(base, 8, "COPY_ON_WRITE", n=4)
    before = snapshot(base)
    sizes = sorted(s.base_file.size for s in HudiTable(base).view().latest_file_slices())
    # groups close at max.bytes.per.group; target.file.max.bytes sets the output file groups of each
    o = {cl.MAX_BYTES_PER_GROUP: str(sizes[-1] * 2), cl.TARGET_FILE_MAX_BYTES: str(sizes[-1]),
         "hoodie.clustering.plan.strategy.sort.columns": "val"}
    groups = cl.plan_groups(HudiTable(base), cl.ClusteringConfig.of(base, o))
    assert [len(g.slices) for g in groups] == [2, 2, 2, 2] and all(g.num_output_file_groups == 2 for g in groups)
    # small.file.limit leaves bigger files out; max.num.groups caps the plan
    assert cl.plan_groups(HudiTable(base), cl.ClusteringConfig.of(base, {cl.SMALL_FILE_LIMIT: "1"})) == []
    assert len(cl.plan_groups(HudiTable(base), cl.ClusteringConfig.of(base, {**o, cl.MAX_NUM_GROUPS: "3"}))) == 3
    [r] = cl.cluster(base, o)
    plan = ClusteringPlan.from_bytes(r.instant, requested_of(base, r.instant).read_bytes())
    assert plan.sort_columns == ["val"]
    assert snapshot(base) == before
    for s in HudiTable(base).view().latest_file_slices():  # each new file sorted by val
        vals = [r["val"] for r in HudiTable(base).read().to_pylist() if r["_hoodie_file_name"] == s.base_file.name]
        assert vals == sorted(vals)
    with pytest.raises(cl.ClusteringError, match="nope"):
        cl.schedule_clustering(base, {"hoodie.clustering.plan.strategy.sort.columns": "val,nope"})
    with pytest.raises(OptionError, match="small.file.limit='big' is not an integer"):
        cl.schedule_clustering(base, {cl.SMALL_FILE_LIMIT: "big"})
    assert cl.cluster(base, {cl.SMALL_FILE_LIMIT: "1"}) == []


def test_requested_file_reads_with_javas_schema(tmp_path):
    """The requested file is the Avro container Java's HoodieRequestedReplaceMetadata reader takes: field names,
    types and defaults of the .avsc files (hudi-common/src/main/avro), read here with a reader schema written
    from those files, field for field, independently of the writer schema."""
    base = tmp_path / "t"
    small_stream(base, 6, "MERGE_ON_READ", n=2)
    instant = cl.schedule_clustering(base)
    slice_info = {"type": "record", "name": "HoodieSliceInfo", "fields": [
        {"name": "dataFilePath", "type": ["null", "string"], "default": None},
        {"name": "deltaFilePaths", "type": ["null", {"type": "array", "items": "string"}], "default": None},
        {"name": "fileId", "type": ["null", "string"]},
        {"name": "partitionPath", "type": ["null", "string"], "default": None},
        {"name": "bootstrapFilePath", "type": ["null", "string"], "default": None},
        {"name": "version", "type": ["int", "null"], "default": 1}]}
    java = {"namespace": "org.apache.hudi.avro.model", "type": "record", "name": "HoodieRequestedReplaceMetadata",
            "fields": [
                {"name": "operationType", "type": ["null", "string"], "default": ""},
                {"name": "clusteringPlan", "type": [{"type": "record", "name": "HoodieClusteringPlan", "fields": [
                    {"name": "inputGroups", "type": ["null", {"type": "array", "items": {
                        "type": "record", "name": "HoodieClusteringGroup", "fields": [
                            {"name": "slices", "type": ["null", {"type": "array", "items": slice_info}], "default": None},
                            {"name": "metrics", "type": ["null", {"type": "map", "values": "double"}], "default": None},
                            {"name": "numOutputFileGroups", "type": ["int", "null"], "default": 1},
                            {"name": "version", "type": ["int", "null"], "default": 1}]}}], "default": None},
                    {"name": "strategy", "type": [{"type": "record", "name": "HoodieClusteringStrategy", "fields": [
                        {"name": "strategyClassName", "type": ["null", "string"], "default": None},
                        {"name": "strategyParams", "type": ["null", {"type": "map", "values": "string"}], "default": None},
                        {"name": "version", "type": ["int", "null"], "default": 1}]}, "null"], "default": None},
                    {"name": "extraMetadata", "type": ["null", {"type": "map", "values": "string"}], "default": None},
                    {"name": "version", "type": ["int", "null"], "default": 1}]}, "null"], "default": None},
                {"name": "extraMetadata", "type": ["null", {"type": "map", "values": "string"}], "default": None},
                {"name": "version", "type": ["int", "null"], "default": 1}]}
    data = requested_of(base, instant).read_bytes()
    [rec] = list(fastavro.reader(io.BytesIO(data), reader_schema=fastavro.parse_schema(java)))
    assert rec["operationType"] == "CLUSTER"
    groups = rec["clusteringPlan"]["inputGroups"]
    assert len(groups) == 2 and rec["clusteringPlan"]["strategy"]["strategyClassName"].endswith(
        "SparkSortAndSizeExecutionStrategy")
    s = groups[0]["slices"][0]
    assert Path(s["dataFilePath"]).is_file() and s["dataFilePath"].startswith(str(base))
    assert all(Path(p).is_file() for g in groups for sl in g["slices"] for p in sl["deltaFilePaths"])
    assert set(groups[0]["metrics"]) == {"TOTAL_IO_READ_MB", "TOTAL_IO_WRITE_MB", "TOTAL_IO_MB",
                                         "TOTAL_LOG_FILES_SIZE", "TOTAL_LOG_FILES"}
    # our schemas name Java's records
    assert REQUESTED_REPLACE_SCHEMA["name"] == java["name"] and CLUSTERING_PLAN_SCHEMA["name"] == "HoodieClusteringPlan"


def test_cli_cluster(tmp_path):
    base = tmp_path / "t"
    small_stream(base, 8, "MERGE_ON_READ", n=2)
    before = snapshot(base)
    runner = CliRunner()
    r = runner.invoke(main, ["cluster", str(base), "--schedule-only", "--json"])
    assert r.exit_code == 0, r.output
    scheduled = json.loads(r.output)["scheduled"]
    assert HudiTable(base).timeline.is_pending(scheduled)
    r = runner.invoke(main, ["cluster", str(base), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [c["instant"] for c in out["clusterings"]][0] == scheduled and out["clusterings"][0]["replaced_file_groups"] == 4
    assert snapshot(base) == before
    r = runner.invoke(main, ["cluster", str(base)])
    assert r.exit_code == 0 and "clustering" in r.output
    r = runner.invoke(main, ["cluster", str(base), "-o", f"{cl.SMALL_FILE_LIMIT}=x"])
    assert r.exit_code == 2 and "small.file.limit='x' is not an integer" in r.output


def test_archived_clustering_decoded_by_java_avro(tmp_path, java_program):
    """A v6 clustering archived: its requested entry carries the plan (HoodieRequestedReplaceMetadata), the
    completed one the replace metadata, each decoded by Java's Avro from the archive block's own schema."""
    from hudi_log.format.reader import open_log
    from hudi_log.table.services.archive import archive, read_archive
    from test_archive_savepoint import JAVA_SOURCE
    base = tmp_path / "t"
    # no metadata table: archival stops at its latest compaction (Java's rule), helper mdtsvc's part
    no_mdt = {**opts(6, "COPY_ON_WRITE"), "hoodie.metadata.enable": "false"}
    for i in range(2):
        write_table(base, batch([(f"k{i * 2 + j}", f"v{i}") for j in range(2)], i), "bulk_insert", no_mdt)
    write_table(base, batch([("k0", "u0"), ("k3", "u3")], 50), "upsert", no_mdt)
    before = snapshot(base)
    [r] = cl.cluster(base)
    for i in range(4):
        write_table(base, batch([(f"k{70 + i}", "x")], 90 + i), "insert", no_mdt)
    clean(base, retain_commits=1)
    archive(base, {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3"})
    entries = [e for e in read_archive(base) if e.commit_time == r.instant]
    assert {e.state for e in entries} == {"REQUESTED", "INFLIGHT", "COMPLETED"}, entries
    lines, want = [], []
    for f in sorted((base / ".hoodie" / "archived").iterdir()):
        for b in open_log(f):
            schema = tmp_path / f"{f.name}.{b.offset}.avsc"
            schema.write_text(b.schema)
            for i, (d, rec) in enumerate(zip(b.datums(), b.records())):
                if rec["commitTime"] != r.instant:
                    continue
                datum = tmp_path / f"{f.name}.{b.offset}.{i}.bin"
                datum.write_bytes(bytes(d))
                lines.append([schema, datum])
                want.append(rec)
    got = java_program(JAVA_SOURCE)(lines)
    by_state = {g["actionState"]: g for g in got}
    assert by_state["REQUESTED"]["metadata"] == "hoodieRequestedReplaceMetadata"
    assert by_state["COMPLETED"]["metadata"] == "hoodieReplaceCommitMetadata"
    assert all(g["rest"] == 0 for g in got)
    plan = next(w for w in want if w["actionState"] == "REQUESTED")["hoodieRequestedReplaceMetadata"]["clusteringPlan"]
    assert len(plan["inputGroups"]) == 2
    assert snapshot(base) == {**before, **{f"k{70 + i}": "x" for i in range(4)}} == hudi_rs(base)


KILLED_WORKER = r"""
import sys, time
from hudi_log.table.services.clustering import run_clustering
from hudi_log.table.timeline.writer import TimelineWriter
def held(self, *a, **k):  # every new base file written: hold before the replacecommit completes
    print("holding", flush=True)
    time.sleep(600)
TimelineWriter.complete = held
run_clustering(sys.argv[1], sys.argv[2])
"""


@pytest.mark.parametrize("version", [6, 8])
def test_clustering_killed_with_sigkill_then_recovered(tmp_path, version):
    import os
    import signal
    import subprocess
    import sys

    from hudi_log.table.errors import PendingServiceError
    base = tmp_path / "t"
    small_stream(base, version, "COPY_ON_WRITE", n=3)
    before = snapshot(base)
    instant = cl.schedule_clustering(base)
    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(repo) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.Popen([sys.executable, "-c", KILLED_WORKER, str(base), instant], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    assert p.stdout.readline().strip() == "holding", p.stderr.read()
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    p.stdout.close()
    p.stderr.close()
    left = [n for n in base_files(base) if n.endswith(f"_{instant}.parquet")]
    assert len(left) == 2 and snapshot(base) == before == hudi_rs(base)  # written, not visible
    occ = {"hoodie.write.concurrency.mode": "OPTIMISTIC_CONCURRENCY_CONTROL",
           "hoodie.write.lock.provider": "FileSystemBasedLockProvider"}
    with pytest.raises(PendingServiceError, match=f"clustering {instant} is inflight and its heartbeat is fresh"):
        cl.run_clustering(base, instant, occ)  # another writer may be live: its heartbeat is still fresh
    done = cl.run_clustering(base, instant)  # a single writer: the killed run's, recovered at once, as Java does
    assert len(done.rolled_back) == 1
    now = [n for n in base_files(base) if n.endswith(f"_{instant}.parquet")]
    assert len(now) == 2 and not set(now) & set(left)  # the killed run's files went, the rerun's stayed
    assert snapshot(base) == before == hudi_rs(base)


@pytest.mark.parametrize("version,table_type", [(6, "MERGE_ON_READ"), (8, "COPY_ON_WRITE")])
def test_restore_undoes_a_clustering_and_a_pending_one(tmp_path, version, table_type):
    from hudi_log.table.services.savepoint import create_savepoint, restore
    base = tmp_path / "t"
    instants = small_stream(base, version, table_type, n=3)
    before = snapshot(base)
    create_savepoint(base, instants[-1])
    [done] = cl.cluster(base)
    write_table(base, batch([("k1", "zz")], 99), "upsert", opts(version, table_type))
    pending = cl.schedule_clustering(base)
    restore(base, instants[-1])
    later = [(i.action, i.state) for i in HudiTable(base).timeline.instants if i.requested_time > instants[-1]]
    assert later == [("restore", "COMPLETED")]
    assert not [n for n in base_files(base) if n.endswith(f"_{done.instant}.parquet")] and pending
    assert snapshot(base) == before == hudi_rs(base)
    assert file_groups_in_pending_clustering(HudiTable(base).timeline) == {}


@pytest.mark.parametrize("version,table_type", CASES)
def test_incremental_queries_unchanged_by_clustering(tmp_path, version, table_type):
    """Rows keep their commit times, so incremental windows return what they returned before, and a window
    that starts at the clustering returns nothing new."""
    from hudi_log.table import read_table
    base = tmp_path / "t"
    instants = small_stream(base, version, table_type, n=4)

    def window(begin, end=None):
        return sorted((r["id"], r["val"]) for r in read_table(base, query="incremental", begin=begin, end=end).to_pylist())

    want = {(b, e): window(b, e) for b, e in [(instants[1], None), (instants[0], instants[-1]), (instants[2], None)]}
    assert want[(instants[1], None)]
    [done] = cl.cluster(base)
    assert {k: window(*k) for k in want} == want
    assert window(done.instant) == []
