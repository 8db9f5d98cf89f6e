"""The planted-file suite (issue 35, docs/security.md): files planted in a table folder, and data values, that
name paths outside the table never make hudi-log change anything outside it, nor the table's timeline.

Each case builds a table in a sandbox folder beside an ``outside`` folder holding canary files, plants a
hostile plan, property or value in one of its forms (an absolute path, ``<table>/a/../../outside``, a
``file://`` URI, a relative ``../`` path, a symbolic link inside the table leading out, another store's
scheme), runs the action through the public interface (``write_table``, the ``hudi-log`` CLI) and checks:
a typed error (exit 2) naming the planted file and its field, every canary unchanged, nothing new outside the
table, and the timeline as it was. The same on the S3 test server for rollback plans and partition values;
``hudi_log.spark.write`` for partition values in one slow test.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.containment import PathOutsideTableError
from hudi_log.table import HudiTable
from hudi_log.table.errors import RecordKeyError, RollbackError
from hudi_log.table.properties import read_properties, write_properties
from hudi_log.table.services.clean import CLEANER_PLAN_SCHEMA
from hudi_log.table.services.clustering import schedule_clustering
from hudi_log.table.services.compaction import COMPACTION_PLAN_SCHEMA, schedule_compaction
from hudi_log.table.services.savepoint import SAVEPOINT_METADATA_SCHEMA, create_savepoint
from hudi_log.table.timeline import commit_metadata as cm
from hudi_log.table.timeline.clustering_plan import REQUESTED_REPLACE_SCHEMA
from hudi_log.table.timeline.timeline import CLEAN, DELTA_COMMIT, ROLLBACK, Timeline
from hudi_log.table.timeline.writer import TimelineWriter
from hudi_log.table.write.client import write_table

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
#: the hostile forms of a path field (see :func:`hostile`)
FORMS = ["absolute", "dotdot", "file_uri", "relative", "symlink", "scheme"]
CANARY = b"canary: must survive"


def opts(version=8, table_type="MERGE_ON_READ", **extra):
    return {"hoodie.table.name": "planted", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version), **extra}


def batch(ids, tag, ts, part=None):
    return pa.Table.from_pylist([{"id": f"k{i}", "val": f"{tag}{i}", "ts": ts,
                                  "part": part if part is not None else f"p{i % 2}"} for i in ids], schema=SCHEMA)


class Sandbox:
    """``root/table`` (the table) beside ``root/outside`` (canaries, including files named as the table's)."""

    def __init__(self, root: Path):
        self.root = root
        self.table = root / "table"
        self.outside = root / "outside"
        self.outside.mkdir(parents=True)
        (self.outside / "canary.parquet").write_bytes(CANARY)

    def plant_twins(self, names) -> None:
        """Canaries named as files of the table (what a plan pointing outside would find, delete or rewrite)."""
        for n in names:
            (self.outside / n).write_bytes(CANARY + n.encode())

    def outside_state(self) -> dict:
        out = {}
        for dirpath, dirs, files in os.walk(self.root):
            rel = os.path.relpath(dirpath, self.root)
            if rel == "table" or rel.startswith("table" + os.sep):
                continue
            for d in dirs:
                out[os.path.join(rel, d) + "/"] = None
            for f in files:
                p = os.path.join(dirpath, f)
                out[os.path.join(rel, f)] = hashlib.sha1(Path(p).read_bytes()).hexdigest()
        return out

    def timeline_state(self) -> dict:
        folder = HudiTable(self.table).timeline.folder if self._timeline_readable() else self.table / ".hoodie"
        return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}

    def _timeline_readable(self) -> bool:
        try:
            HudiTable(self.table).timeline
            return True
        except PathOutsideTableError:
            return False

    def snapshot(self):
        return self.outside_state(), self.timeline_state()

    def assert_unchanged(self, before) -> None:
        outside, timeline = before
        assert self.outside_state() == outside, "something changed outside the table"
        assert (self.outside / "canary.parquet").read_bytes() == CANARY
        assert self.timeline_state() == timeline, "the timeline changed"


@pytest.fixture
def box(tmp_path):
    return Sandbox(tmp_path / "sandbox")


def hostile(box: Sandbox, form: str, name: str = "") -> str:
    """A path to ``outside/name`` (the folder itself when ``name`` is empty) in one hostile form."""
    tail = f"/{name}" if name else ""
    if form == "absolute":
        return f"{box.outside}{tail}"
    if form == "dotdot":
        return f"{box.table}/a/../../outside{tail}"
    if form == "file_uri":
        return f"file://{box.outside}{tail}"
    if form == "relative":
        return f"../outside{tail}"
    if form == "symlink":  # a folder planted inside the table, a link leading out
        link = box.table / "lnk"
        if not link.is_symlink():
            os.symlink(box.outside, link)
        return f"lnk{tail}"
    if form == "scheme":
        return f"s3://bucket/outside{tail}"
    raise AssertionError(form)


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_refused_cli(result, *words):
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    line = [ln for ln in result.output.splitlines() if ln.startswith("hudi-log:")]
    assert len(line) == 1, result.output
    for w in words:
        assert w in line[0], (w, line[0])


def base_and_logs(box: Sandbox):
    """(partition, relative paths) of the table's data files in partition p0."""
    folder = box.table / "p0"
    return sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".hoodie_partition"))


def mor_table(box: Sandbox, version=8):
    o = opts(version)
    write_table(box.table, batch(range(6), "a", 1), "insert", o)
    write_table(box.table, batch(range(0, 6, 2), "b", 2), "upsert", o)
    return o


# ---- rollback plans: the next write_table finishes a pending rollback --------------------------------
def plant_rollback(box: Sandbox, plan: dict, inflight: bool) -> Path:
    props = read_properties(box.table)
    tw = TimelineWriter(box.table, props)
    target = tw.new_instant_time()
    tw.requested(DELTA_COMMIT, target)  # the failed write the plan undoes
    rb = tw.new_instant_time()
    plan = {"instantToRollback": {"commitTime": target, "action": DELTA_COMMIT}, **plan}
    tw.requested(ROLLBACK, rb, cm.rollback_plan_avro(plan))
    if inflight:
        tw.inflight(ROLLBACK, rb)
    return tw.folder / f"{rb}.{ROLLBACK}.requested"


@pytest.mark.parametrize("inflight", [False, True], ids=["requested", "inflight"])
@pytest.mark.parametrize("form", FORMS)
def test_rollback_plan_deleting_outside_is_refused(box, form, inflight):
    o = mor_table(box)
    names = base_and_logs(box)
    box.plant_twins(names)
    req = plant_rollback(box, {"RollbackRequests": [{
        "partitionPath": "p0", "fileId": "f", "latestBaseInstant": "1",
        "filesToBeDeleted": [hostile(box, form, n) for n in names] + [hostile(box, form, "canary.parquet")],
        "logBlocksToBeDeleted": None}]}, inflight)
    before = box.snapshot()
    with pytest.raises(PathOutsideTableError) as e:
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    assert req.name in str(e.value) and "RollbackRequests[0].filesToBeDeleted" in str(e.value)
    box.assert_unchanged(before)


@pytest.mark.parametrize("form", FORMS)
def test_rollback_plan_writing_a_log_outside_is_refused(box, form):
    """Version 6 rolls back by writing a command block into the file group's folder: planted, that folder is
    outside."""
    o = mor_table(box, version=6)
    logs = [n for n in base_and_logs(box) if ".log." in n]
    req = plant_rollback(box, {"RollbackRequests": [{
        "partitionPath": hostile(box, form), "fileId": logs[0].split("_")[0][1:], "latestBaseInstant": "1",
        "filesToBeDeleted": [], "logBlocksToBeDeleted": {f"p0/{logs[0]}": 10}}]}, inflight=False)
    before = box.snapshot()
    with pytest.raises(PathOutsideTableError) as e:
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    assert req.name in str(e.value) and "RollbackRequests[0].partitionPath" in str(e.value)
    box.assert_unchanged(before)


@pytest.mark.parametrize("field, value", [
    ("commitTime", "../../../outside"), ("commitTime", "/abs"), ("action", "x/../../.."),
])
def test_rollback_plan_target_that_is_no_instant_is_refused(box, field, value):
    """The target instant names marker folders and timeline files the rollback deletes."""
    o = mor_table(box)
    req = plant_rollback(box, {"RollbackRequests": []}, inflight=False)
    raw = next(iter(fastavro.reader(io.BytesIO(req.read_bytes()))))
    raw["instantToRollback"][field] = value
    req.write_bytes(cm.rollback_plan_avro(raw))
    before = box.snapshot()
    with pytest.raises(RollbackError, match=f"instantToRollback.{field}"):
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    box.assert_unchanged(before)


def test_rollback_plan_naming_the_timeline_is_refused(box):
    o = mor_table(box)
    req = plant_rollback(box, {"RollbackRequests": [{
        "partitionPath": "", "fileId": None, "latestBaseInstant": None,
        "filesToBeDeleted": [".hoodie/hoodie.properties"], "logBlocksToBeDeleted": None}]}, inflight=False)
    before = box.snapshot()
    with pytest.raises(PathOutsideTableError, match="under .hoodie"):
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    assert (box.table / ".hoodie" / "hoodie.properties").exists()
    assert req.exists()
    box.assert_unchanged(before)


# ---- clean plans: hudi-log clean finishes a pending clean ------------------------------------------------
def plant_clean(box: Sandbox, files: dict, inflight: bool) -> Path:
    props = read_properties(box.table)
    tw = TimelineWriter(box.table, props)
    ts = tw.new_instant_time()
    first = Timeline(box.table, props).completed_commits()[0]
    data = cm.avro_container(CLEANER_PLAN_SCHEMA, {
        "earliestInstantToRetain": {"timestamp": first.requested_time, "action": first.action, "state": "COMPLETED"},
        "lastCompletedCommitTimestamp": first.requested_time, "policy": "KEEP_LATEST_COMMITS",
        "filesToBeDeletedPerPartition": {}, "version": 2,
        "filePathsToBeDeletedPerPartition": {p: [{"filePath": f, "isBootstrapBaseFile": False} for f in fs]
                                             for p, fs in files.items()},
        "partitionsToBeDeleted": [], "extraMetadata": {}})
    tw.requested(CLEAN, ts, data)
    if inflight:
        tw.inflight(CLEAN, ts, data)
    return tw.folder / f"{ts}.{CLEAN}.requested"


@pytest.mark.parametrize("inflight", [False, True], ids=["requested", "inflight"])
@pytest.mark.parametrize("form", FORMS)
def test_clean_plan_deleting_outside_is_refused_exit_2(box, form, inflight):
    mor_table(box)
    names = base_and_logs(box)
    box.plant_twins(names)
    req = plant_clean(box, {"p0": [hostile(box, form, n) for n in names + ["canary.parquet"]]}, inflight)
    before = box.snapshot()
    r = run_cli("clean", box.table, "--retain-commits", "1")
    assert_refused_cli(r, req.name, "filePath", "outside the table")
    assert "nothing to clean" not in r.output
    box.assert_unchanged(before)


@pytest.mark.parametrize("form", ["absolute", "relative", "symlink"])
def test_clean_plan_partition_outside_is_refused(box, form):
    mor_table(box)
    req = plant_clean(box, {hostile(box, form): [f"{box.table}/p0/x.parquet"]}, inflight=False)
    before = box.snapshot()
    assert_refused_cli(run_cli("clean", box.table, "--retain-commits", "1"), req.name,
                       "filePathsToBeDeletedPerPartition")
    box.assert_unchanged(before)


def test_a_valid_pending_clean_is_not_run_before_a_planted_one_is_refused(box):
    """Every pending plan is checked before the first is run: the valid clean's file stays."""
    mor_table(box)
    names = base_and_logs(box)
    plant_clean(box, {"p0": [f"file:{box.table}/p0/{names[0]}"]}, inflight=False)
    plant_clean(box, {"p0": [hostile(box, "absolute", "canary.parquet")]}, inflight=False)
    before = box.snapshot()
    assert_refused_cli(run_cli("clean", box.table, "--retain-commits", "1"), "filePath")
    assert (box.table / "p0" / names[0]).exists()
    box.assert_unchanged(before)


# ---- compaction and clustering plans ---------------------------------------------------------------------
def rewrite_plan(path: Path, schema: dict, edit) -> None:
    rec = next(iter(fastavro.reader(io.BytesIO(path.read_bytes()))))
    edit(rec)
    path.write_bytes(cm.avro_container(schema, rec))


def scheduled_compaction(box: Sandbox) -> Path:
    mor_table(box)
    instant = schedule_compaction(box.table)
    assert instant is not None
    return HudiTable(box.table).timeline.folder / f"{instant}.compaction.requested"


@pytest.mark.parametrize("form", FORMS)
def test_compaction_plan_partition_outside_is_refused_exit_2(box, form):
    req = scheduled_compaction(box)
    rec = next(iter(fastavro.reader(io.BytesIO(req.read_bytes()))))
    op = rec["operations"][0]
    # the slice's files, and a base file named as the run would write (a killed run's leftovers are deleted
    # by pattern), as canaries outside
    box.plant_twins([n for n in [op["dataFilePath"], *op["deltaFilePaths"]] if n]
                    + [f"{op['fileId']}_0-0-0_{req.name.split('.')[0]}.parquet"])
    rewrite_plan(req, COMPACTION_PLAN_SCHEMA, lambda r: r["operations"][0].update(partitionPath=hostile(box, form)))
    before = box.snapshot()
    assert_refused_cli(run_cli("compact", box.table), req.name, "operations[0].partitionPath")
    box.assert_unchanged(before)


@pytest.mark.parametrize("field, value", [("fileId", "../../outside/x"), ("dataFilePath", ".."),
                                          ("deltaFilePaths", "/")])
def test_compaction_plan_names_leading_out_are_refused(box, field, value):
    req = scheduled_compaction(box)

    def edit(r):
        r["operations"][0][field] = [value] if field == "deltaFilePaths" else value
    rewrite_plan(req, COMPACTION_PLAN_SCHEMA, edit)
    before = box.snapshot()
    assert_refused_cli(run_cli("compact", box.table), req.name, f"operations[0].{field}")
    box.assert_unchanged(before)


@pytest.mark.parametrize("form", FORMS)
def test_clustering_plan_partition_outside_is_refused_exit_2(box, form):
    o = opts(8, "COPY_ON_WRITE")
    for n in range(3):
        write_table(box.table, batch([n * 2, n * 2 + 1], "a", n + 1, part="p0"), "insert", o)
    instant = schedule_clustering(box.table)
    assert instant is not None
    req = HudiTable(box.table).timeline.folder / f"{instant}.clustering.requested"
    box.plant_twins(base_and_logs(box))
    rewrite_plan(req, REQUESTED_REPLACE_SCHEMA, lambda r: r["clusteringPlan"]["inputGroups"][0]["slices"][0].update(
        partitionPath=hostile(box, form)))
    before = box.snapshot()
    assert_refused_cli(run_cli("cluster", box.table), req.name, "inputGroups[0].slices[0].partitionPath")
    box.assert_unchanged(before)


# ---- savepoint metadata, commit write stats ----------------------------------------------------------------
@pytest.mark.parametrize("form", ["absolute", "relative", "symlink"])
def test_savepoint_metadata_outside_is_refused(box, form):
    mor_table(box)
    first = HudiTable(box.table).timeline.completed_commits()[-1].requested_time
    create_savepoint(box.table, first)
    sp = next(i for i in HudiTable(box.table).timeline.savepoints())
    path = sp.path
    rewrite_plan(path, SAVEPOINT_METADATA_SCHEMA, lambda r: r.update(partitionMetadata={
        hostile(box, form): {"partitionPath": hostile(box, form), "savepointDataFile": ["canary.parquet"]}}))
    before = box.snapshot()
    assert_refused_cli(run_cli("clean", box.table, "--retain-commits", "1"), path.name, "partitionMetadata")
    box.assert_unchanged(before)


@pytest.mark.parametrize("form", ["absolute", "relative", "symlink", "file_uri"])
def test_commit_write_stat_outside_is_refused_on_read(box, form):
    mor_table(box)
    inst = HudiTable(box.table).timeline.completed_commits()[-1]
    md = HudiTable(box.table).timeline.commit_metadata(inst)
    stat = next(s for ss in md["partitionToWriteStats"].values() for s in ss)
    stat["path"] = hostile(box, form, "canary.parquet")
    import json
    inst.path.write_text(json.dumps(md))
    before = box.snapshot()
    r = run_cli("read", box.table)
    assert_refused_cli(r, inst.path.name, "partitionToWriteStats.path")
    box.assert_unchanged(before)


@pytest.mark.parametrize("form", ["absolute", "relative", "symlink"])
def test_cdc_stat_outside_is_refused(box, form):
    """A COPY_ON_WRITE merge's commit names its CDC log in ``cdcStats``: a planted one leading out is refused."""
    from hudi_log.table.read.cdc import read_cdc
    o = opts(8, "COPY_ON_WRITE", **{"hoodie.table.cdc.enabled": "true",
                                    "hoodie.table.cdc.supplemental.logging.mode": "DATA_BEFORE_AFTER"})
    write_table(box.table, batch(range(4), "a", 1), "insert", o)
    write_table(box.table, batch([0, 2], "b", 2), "upsert", o)
    inst = HudiTable(box.table).timeline.completed_commits()[-1]
    md = HudiTable(box.table).timeline.commit_metadata(inst)
    stat = next(s for ss in md["partitionToWriteStats"].values() for s in ss if s.get("cdcStats"))
    stat["cdcStats"] = {hostile(box, form, "canary.parquet"): 10}
    import json
    inst.path.write_text(json.dumps(md))
    before = box.snapshot()
    with pytest.raises(PathOutsideTableError, match="cdcStats"):
        read_cdc(box.table, "0")
    box.assert_unchanged(before)


def test_marker_folder_through_a_link_is_refused_by_the_next_write(box):
    """A failed write's markers name its partitions; rollback lists and deletes the instant's files there. A
    partition folder planted as a link leading out is refused, the outside file named as that write's base
    file left alone."""
    from writers import crash
    from hudi_log.table.markers import marker_dir
    from hudi_log.table.write.client import begin_write
    o = mor_table(box)
    tx = begin_write(box.table, "upsert", o, schema=SCHEMA)
    crash(tx)
    os.symlink(box.outside, box.table / "lnk")
    (marker_dir(box.table, tx.instant) / "lnk").mkdir(parents=True)
    name = f"f1-0_0-0-0_{tx.instant}.parquet"
    (marker_dir(box.table, tx.instant) / "lnk" / f"{name}.marker.CREATE").touch()
    box.plant_twins([name])
    before = box.snapshot()
    with pytest.raises(PathOutsideTableError, match="symbolic link"):
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    box.assert_unchanged(before)


# ---- hoodie.properties folders -------------------------------------------------------------------------
def set_property(box: Sandbox, key: str, value: str) -> None:
    p = read_properties(box.table).to_dict()
    p[key] = value
    write_properties(box.table, p)


@pytest.mark.parametrize("form", FORMS)
def test_timeline_path_outside_is_refused(box, form):
    o = mor_table(box)
    timeline = {p.name: p.read_bytes() for p in (box.table / ".hoodie" / "timeline").iterdir() if p.is_file()}
    value = {"relative": "../../outside", "symlink": "tl"}.get(form) or hostile(box, form)
    if form == "symlink":
        os.symlink(box.outside, box.table / ".hoodie" / "tl")
    set_property(box, "hoodie.timeline.path", value)
    before = box.outside_state()
    with pytest.raises(PathOutsideTableError) as e:
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    assert "hoodie.properties" in str(e.value) and "hoodie.timeline.path" in str(e.value)
    assert_refused_cli(run_cli("read", box.table), "hoodie.properties", "hoodie.timeline.path")
    assert box.outside_state() == before
    assert {p.name: p.read_bytes() for p in (box.table / ".hoodie" / "timeline").iterdir() if p.is_file()} == timeline


@pytest.mark.parametrize("key, version", [("hoodie.archivelog.folder", 6), ("hoodie.timeline.history.path", 8)])
def test_archive_and_history_folders_outside_are_refused_before_a_write(box, key, version):
    """Archival runs after a write commits: the folder is checked before the write starts."""
    o = mor_table(box, version)
    set_property(box, key, "../../../outside")
    before = box.snapshot()
    with pytest.raises(PathOutsideTableError, match=key):
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    assert_refused_cli(run_cli("archive", box.table), key)
    box.assert_unchanged(before)


# ---- partition values ------------------------------------------------------------------------------------
PARTITION_VALUES = [("/abs", False), ("/", False), ("...", False), (".hidden", False), ("..\\..\\x", False),
                    ("../../x", True), ("../x", False), ("a/../../x", False), ("..\\..\\x", True)]


@pytest.mark.parametrize("value, encode", PARTITION_VALUES)
def test_partition_value_leading_out_or_hidden_is_refused_at_write(box, value, encode):
    o = opts(8, "COPY_ON_WRITE", **{"hoodie.datasource.write.partitionpath.urlencode": str(encode).lower()})
    write_table(box.table, batch(range(2), "a", 1), "insert", o)
    value = value.replace("/abs", str(box.outside))
    before = box.snapshot()
    data = box.table_files = sorted(str(p) for p in box.table.rglob("*") if ".hoodie" not in p.parts)
    with pytest.raises(RecordKeyError, match="partition value") as e:
        write_table(box.table, batch([5], "z", 2, part=value), "upsert", o)
    assert "part" in str(e.value)
    box.assert_unchanged(before)
    assert sorted(str(p) for p in box.table.rglob("*") if ".hoodie" not in p.parts) == data


def test_partition_value_refused_through_the_cli(box, tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "k1", "val": "v", "ts": 1, "part": "%s"}\n' % box.outside)
    r = run_cli("write", box.table, "--input", rows, "--record-key", "id", "--partition-field", "part",
                "--precombine", "ts")
    assert r.exit_code == 2, r.output
    assert "partition value" in r.output
    assert not (box.table / ".hoodie").exists()
    assert sorted(os.listdir(box.outside)) == ["canary.parquet"]


# ---- the same on the S3 test server -----------------------------------------------------------------------
class S3Sandbox:
    """``s3://bucket/sandbox/table`` beside ``sandbox/outside/canary.parquet`` in the test's bucket."""

    def __init__(self, s3):
        self.s3, self.bucket = s3, s3.base.removeprefix("s3://")
        self.table = f"{s3.base}/sandbox/table"
        self.fs = s3.filesystem()
        with self.fs.open_output_stream(f"{self.bucket}/sandbox/outside/canary.parquet") as f:
            f.write(CANARY)

    def objects(self) -> dict:
        import pyarrow.fs as pafs
        infos = self.fs.get_file_info(pafs.FileSelector(self.bucket, recursive=True))
        out = {}
        for i in infos:
            if i.type != pafs.FileType.File or "/.hoodie/.heartbeat/" in i.path or "/.hoodie/.lock" in i.path:
                continue  # what a writer that starts and stops leaves; nothing else may change
            with self.fs.open_input_stream(i.path) as f:
                out[i.path] = hashlib.sha1(f.read()).hexdigest()
        return out


S3_FORMS = ["{base}/sandbox/outside/canary.parquet", "s3a://{bucket}/sandbox/table/a/../../outside/canary.parquet",
            "/{bucket}/sandbox/outside/canary.parquet", "../outside/canary.parquet", "file:///{bucket}/x",
            "s3://other-bucket/sandbox/table/p0/canary.parquet"]


@pytest.mark.parametrize("form", S3_FORMS)
def test_rollback_plan_on_s3_is_refused(s3, form):
    box = S3Sandbox(s3)
    o = opts(8)
    write_table(box.table, batch(range(4), "a", 1), "insert", o)
    props = read_properties(box.table)
    tw = TimelineWriter(box.table, props)
    target, rb = tw.new_instant_time(), None
    tw.requested(DELTA_COMMIT, target)
    rb = tw.new_instant_time()
    value = form.format(base=s3.base, bucket=box.bucket)
    tw.requested(ROLLBACK, rb, cm.rollback_plan_avro({
        "instantToRollback": {"commitTime": target, "action": DELTA_COMMIT},
        "RollbackRequests": [{"partitionPath": "p0", "fileId": "f", "latestBaseInstant": "1",
                              "filesToBeDeleted": [value], "logBlocksToBeDeleted": None}]}))
    before = box.objects()
    with pytest.raises(PathOutsideTableError) as e:
        write_table(box.table, batch([1], "c", 3), "upsert", o)
    assert f"{rb}.rollback.requested" in str(e.value) and "filesToBeDeleted" in str(e.value)
    assert box.objects() == before
    assert f"{box.bucket}/sandbox/outside/canary.parquet" in before


@pytest.mark.parametrize("value", ["/abs/olute", "/", "...", ".hidden", "../x"])
def test_partition_value_on_s3_is_refused(s3, value):
    box = S3Sandbox(s3)
    o = opts(8, "COPY_ON_WRITE")
    write_table(box.table, batch(range(2), "a", 1), "insert", o)
    before = box.objects()
    with pytest.raises(RecordKeyError, match="partition value"):
        write_table(box.table, batch([5], "z", 2, part=value), "upsert", o)
    assert box.objects() == before


# ---- hudi_log.spark.write ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_partition_values_through_spark_write_are_refused(spark, tmp_path):
    """Partition paths made by Spark expressions (plain string column) and by the Python key generator in the
    executors (url encoding): refused before any data file or marker is written, nothing outside changes."""
    from hudi_log.spark import write

    for n, (encode, values) in enumerate([("false", ["{outside}", "/", ".hidden"]), ("true", ["../../x", "..\\..\\x"])]):
        box = Sandbox(tmp_path / f"sandbox{n}")
        o = opts(8, "COPY_ON_WRITE", **{"hoodie.datasource.write.partitionpath.urlencode": encode})
        write_table(box.table, batch(range(4), "a", 1), "insert", o)
        committed = [i.requested_time for i in HudiTable(box.table).timeline.completed_commits()]
        data_files = sorted(str(p) for p in box.table.rglob("*") if ".hoodie" not in p.parts)
        before = box.outside_state()
        for value in values:
            value = value.format(outside=box.outside)
            df = spark.createDataFrame([("k9", "z", 2, value)], "id string, val string, ts long, part string")
            with pytest.raises(RecordKeyError, match="partition value: partition path") as e:
                write(df, str(box.table), o)
            assert repr(value.replace("/", "%2F").replace("\\", "%5C") if encode == "true" else value) in str(e.value)
            assert box.outside_state() == before
            assert sorted(str(p) for p in box.table.rglob("*") if ".hoodie" not in p.parts) == data_files
            # the write's own instant was started, then rolled back: the committed timeline is as it was
            assert [i.requested_time for i in HudiTable(box.table).timeline.completed_commits()] == committed
            assert not HudiTable(box.table).timeline.pending()
