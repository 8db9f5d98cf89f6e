"""hudi-cli's operator commands in `hudi-log` (issue 39, deliverable 6): commits showpartitions/showfiles,
fsview all/latest, stats wa/filesizes, checked on the Java-written v8 MOR corpus table (numbers read from
its own commit files) and on tables the tests write."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pytest

from cli_runner import cli, ok_json
from hudi_log.cli.operator import _quantile, size_summary
from hudi_log.table.write.client import write_table

V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
FIRST, COMPACTION = "20251220210108078", "20251220210129235"

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
OPTS = {"hoodie.table.name": "o", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": "8"}


def put(base, rows, ts, operation="upsert", opts=OPTS):
    write_table(base, pa.Table.from_pylist([{"id": k, "val": v, "ts": ts, "part": p} for k, v, p in rows],
                                           schema=SCHEMA), operation, opts)


def _copy(corpus_tables, tmp_path, name):
    dest = tmp_path / name.rsplit("_", 1)[-1]
    shutil.copytree(corpus_tables[name], dest)
    return dest


@pytest.fixture
def v8(corpus_tables, tmp_path):
    return _copy(corpus_tables, tmp_path, V8)


def test_showpartitions_sums_the_commit_stats_as_hudi_cli(v8):
    rows = ok_json("commits", "showpartitions", v8, FIRST)
    # the first delta commit wrote one new base file per city: 2 + 4 + 2 inserts
    assert [(r["partition"], r["files_added"], r["files_updated"], r["records_inserted"], r["bytes_written"])
            for r in rows] == [("city=chennai", 1, 0, 2, 436201), ("city=san_francisco", 1, 0, 4, 436421),
                               ("city=sao_paulo", 1, 0, 2, 436221)]
    assert {r["action"] for r in rows} == {"deltacommit"}


def test_showfiles_one_row_per_write_stat(v8):
    rows = ok_json("commits", "showfiles", v8, COMPACTION)
    assert [r["action"] for r in rows] == ["commit"] * 3
    sf = next(r for r in rows if r["partition"] == "city=san_francisco")
    assert (sf["file_id"], sf["previous_commit"], sf["records_updated"], sf["records_written"], sf["file_size"]) == \
        ("036ded81-9ed4-479f-bcea-7145dfa0079b-0", FIRST, 1, 4, 436354)
    # showpartitions of the same compaction: every file updated (its previous commit is set)
    parts = ok_json("commits", "showpartitions", v8, COMPACTION)
    assert all(p["files_added"] == 0 and p["files_updated"] == 1 for p in parts)
    assert sum(p["records_updated"] for p in parts) == sum(r["records_updated"] for r in rows) == 1


def test_showpartitions_counts_adds_updates_and_deletes_on_a_written_table(tmp_path):
    base = tmp_path / "t"
    put(base, [("a", "1", "p1"), ("b", "2", "p1"), ("c", "3", "p2")], 1, "insert")
    put(base, [("a", "1x", "p1"), ("d", "4", "p2")], 2)
    put(base, [("b", "", "p1")], 3, "delete")
    commits = [r["instant"] for r in ok_json("commits", "show", base)]
    assert len(commits) == 3
    first = {r["partition"]: r for r in ok_json("commits", "showpartitions", base, commits[0])}
    assert (first["p1"]["files_added"], first["p1"]["records_inserted"], first["p2"]["records_inserted"]) == (1, 2, 1)
    deletes = ok_json("commits", "showpartitions", base, commits[2])
    assert [(r["partition"], r["records_deleted"], r["files_added"]) for r in deletes] == [("p1", 1, 0)]
    files = ok_json("commits", "showfiles", base, commits[1])
    # the insert into p2 rewrote its small base file (2 records written), the update went to a log file
    assert sorted((f["partition"], f["records_updated"], f["records_inserted"], f["records_written"]) for f in files) \
        == [("p1", 1, 0, 1), ("p2", 0, 1, 2)]


def test_commit_not_on_the_timeline_is_refused_naming_it(v8):
    r = cli("commits", "showfiles", v8, "20991231000000000")
    assert r.exit_code == 2 and "20991231000000000 is not a completed write" in r.output and str(v8) in r.output


def test_fsview_all_and_latest(v8):
    every = ok_json("fsview", "all", v8)
    assert len(every) == 6  # three file groups, two slices each (before and after the compaction)
    sp = [r for r in every if r["partition"] == "city=sao_paulo"]
    assert [(r["base_instant"], r["log_files"]) for r in sp] == [(FIRST, 1), (COMPACTION, 1)]
    assert sp[1]["log_files_size"] == 1145 and sp[1]["base_file_size"] == 436127
    latest = ok_json("fsview", "latest", v8, "--partition", "city=sao_paulo")
    assert len(latest) == 1 and latest[0]["base_instant"] == COMPACTION
    # v8 names a log file after its own delta commit: not the base instant, so "unscheduled" as in Java
    assert latest[0]["log_size_unscheduled"] == 1145 and latest[0]["log_size_scheduled"] == 0
    assert latest[0]["log_to_base_unscheduled"] == pytest.approx(1145 / 436127)
    old = ok_json("fsview", "all", v8, "--as-of", FIRST)
    assert {r["base_instant"] for r in old} == {FIRST} and all(r["log_files"] == 0 for r in old)
    r = cli("fsview", "latest", v8, "--partition", "city=nowhere")
    assert r.exit_code == 2 and "no partition 'city=nowhere'" in r.output


def test_fsview_latest_merges_a_pending_compaction(tmp_path):
    from hudi_log.table.services.compaction import schedule_compaction
    base = tmp_path / "t"
    put(base, [("a", "1", "p1")], 1)
    put(base, [("a", "2", "p1")], 2)
    c = schedule_compaction(base)
    put(base, [("a", "3", "p1")], 3)
    every = ok_json("fsview", "all", base)
    assert [r["base_instant"] for r in every][-1] == c and every[-1]["base_file"] == ""
    assert every[-1]["base_file_size"] == -1
    latest = ok_json("fsview", "latest", base)
    assert len(latest) == 1 and latest[0]["base_instant"] != c and latest[0]["log_files"] == 2


def test_stats_wa_counts_commits_and_replacecommits_with_a_total(v8):
    rows = ok_json("stats", "wa", v8)
    # the delta commits are not on Java's commit-and-replace timeline: only the compaction counts
    assert rows == [{"instant": COMPACTION, "records_upserted": 1, "records_written": 6, "write_amplification": 6.0},
                    {"instant": "Total", "records_upserted": 1, "records_written": 6, "write_amplification": 6.0}]


def test_stats_wa_zero_without_updates(tmp_path):
    base = tmp_path / "t"
    put(base, [("a", "1", "p1")], 1, opts={**OPTS, "hoodie.datasource.write.table.type": "COPY_ON_WRITE"})
    rows = ok_json("stats", "wa", base)
    assert rows[-1]["instant"] == "Total" and rows[0]["write_amplification"] == 0 and rows[0]["records_written"] == 1


def test_stats_filesizes(v8):
    rows = ok_json("stats", "filesizes", v8)
    assert [r["instant"] for r in rows] == [FIRST, COMPACTION, "ALL"]
    first = rows[0]
    assert (first["min"], first["max"], first["files"], first["p50"]) == (436201, 436421, 3, 436221)
    assert rows[-1]["files"] == 6 and rows[-1]["avg"] == pytest.approx((436201 + 436421 + 436221 + 436098
                                                                       + 436354 + 436127) / 6)
    one = ok_json("stats", "filesizes", v8, "--partition", "city=chennai")
    assert [r["files"] for r in one] == [1, 1, 2]


def test_quantiles_as_dropwizard_uniform_snapshot():
    v = [10, 20, 30, 40]
    assert _quantile(v, 0.5) == 25  # pos 2.5: between the 2nd and 3rd
    assert _quantile(v, 0.1) == 10 and _quantile(v, 0.95) == 40
    s = size_summary("x", [1])
    assert s["std_dev"] == 0 and s["p50"] == 1


def test_plain_output_has_a_header(v8):
    r = cli("fsview", "all", v8)
    assert r.exit_code == 0
    assert r.output.splitlines()[0].split("\t")[:3] == ["partition", "file_id", "base_instant"]


# ---- commit rollback --------------------------------------------------------------------------------
NO_MDT = ("-o", "hoodie.metadata.enable=false")  # the corpus table has a metadata table hudi-log does not update
LAST = "20251220210130911"


def _rs(path, **kw):
    from hudi_rs_oracle import hudi_rs_rows
    return sorted((r["uuid"], r["fare"]) for r in hudi_rs_rows(path, **kw))


def test_commit_rollback_of_the_latest_commits_as_java(v8, corpus_tables):
    before_compaction = _rs(corpus_tables[V8], as_of="20251220210129000")
    r = cli("commit", "rollback", v8, COMPACTION, *NO_MDT)
    assert r.exit_code == 2 and f"found commits after {COMPACTION}: {LAST}" in r.output
    assert (v8 / ".hoodie" / "timeline" / "20251220210129235_20251220210129883.commit").exists()  # nothing changed
    out = ok_json("commit", "rollback", v8, LAST, *NO_MDT)
    assert out["rolled_back"] == LAST and out["files_deleted"] == 1
    out = ok_json("commit", "rollback", v8, COMPACTION, *NO_MDT)
    assert out["files_deleted"] == 3  # the compaction's three base files
    names = sorted(p.name for p in (v8 / ".hoodie" / "timeline").iterdir())
    assert not [n for n in names if n.startswith((COMPACTION, LAST))]  # completed, inflight and requested gone
    assert sum(n.endswith(".rollback") for n in names) == 2
    assert _rs(v8) == before_compaction  # hudi-rs reads the table as it was before both
    assert [r["instant"] for r in ok_json("commits", "show", v8)][-1] == "20251220210128625"


def test_commit_rollback_refusals(tmp_path):
    base = tmp_path / "t"
    put(base, [("a", "1", "p1")], 1)
    put(base, [("a", "2", "p1")], 2)
    first, second = [r["instant"] for r in ok_json("commits", "show", base)]
    r = cli("savepoint", "create", base, second)
    assert r.exit_code == 0, r.output
    r = cli("commit", "rollback", base, second)
    assert r.exit_code == 2 and "savepointed" in r.output and "savepoint delete" in r.output
    r = cli("commit", "rollback", base, "20991231000000000")
    assert r.exit_code == 2 and "no instant 20991231000000000" in r.output
    r = cli("commit", "rollback", base, first)
    assert r.exit_code == 2 and f"found commits after {first}" in r.output
    assert len(ok_json("commits", "show", base)) == 2
    r = cli("savepoint", "delete", base, second)
    assert r.exit_code == 0, r.output
    from hudi_log.table.properties import read_properties
    from hudi_log.table.timeline.writer import TimelineWriter
    tw = TimelineWriter(base, read_properties(base))
    pending = tw.new_instant_time()
    tw.requested("deltacommit", pending)  # a write in flight after it
    r = cli("commit", "rollback", base, second)
    assert r.exit_code == 2 and f"found in-flight commits after {second}: {pending}" in r.output
    r = cli("rollback", base, second)  # the failed-write rollback points to this command
    assert r.exit_code == 2 and "hudi-log commit rollback" in r.output


def test_commit_rollback_v6_mor_writes_a_rollback_block(tmp_path):
    from hudi_log.format.reader import open_log
    base = tmp_path / "t"
    v6 = {**OPTS, "hoodie.write.table.version": "6"}
    put(base, [("a", "1", "p1"), ("b", "1", "p1")], 1, opts=v6)
    put(base, [("a", "2", "p1")], 2, opts=v6)
    put(base, [("b", "3", "p1")], 3, opts=v6)
    last = [r["instant"] for r in ok_json("commits", "show", base)][-1]
    out = ok_json("commit", "rollback", base, last)
    assert out["rolled_back"] == last
    logs = sorted((base / "p1").glob(".*.log.*"))
    blocks = [b for p in logs for b in open_log(p) if not b.corrupt]
    # the logs are kept, and a new log version holds the rollback's command block (block type 0)
    assert [(b.block_type, b.instant_time) for b in blocks][-1] == (0, out["rollback"]) and len(logs) == 3
    from hudi_rs_oracle import hudi_rs_rows
    assert {r["id"]: r["val"] for r in hudi_rs_rows(base)} == {"a": "2", "b": "1"}
    from hudi_log.table import read_table
    assert {r["id"]: r["val"] for r in read_table(base).to_pylist()} == {"a": "2", "b": "1"}


# ---- compaction validate / unschedule ---------------------------------------------------------------
def _scheduled(tmp_path, version, later=True):
    from hudi_log.table.services.compaction import schedule_compaction
    base = tmp_path / f"t{version}"
    opts = {**OPTS, "hoodie.write.table.version": str(version)}
    put(base, [("a", "1", "p1"), ("b", "1", "p1")], 1, opts=opts)
    put(base, [("a", "2", "p1")], 2, opts=opts)
    c = schedule_compaction(base)
    if later:
        put(base, [("b", "3", "p1")], 3, opts=opts)  # a log file written after the request
    return base, c


@pytest.mark.parametrize("version,later", [(6, False), (8, True)])
def test_compaction_validate_then_unschedule(tmp_path, version, later):
    from hudi_rs_oracle import hudi_rs_rows
    from hudi_log.table import read_table
    base, c = _scheduled(tmp_path, version, later)
    out = ok_json("compaction", "validate", base, c)
    assert out["valid"] and len(out["operations"]) == 1 and out["operations"][0]["valid"]
    done = ok_json("compaction", "unschedule", base, c)
    assert done["unscheduled"] == c and not (base / ".hoodie" / f"{c}.compaction.requested").exists() \
        and not list((base / ".hoodie").rglob(f"{c}.compaction.*"))
    assert ok_json("compactions", "show", base) == {"compactions": []}
    expected = {"a": "2", "b": "3" if later else "1"}
    assert {r["id"]: r["val"] for r in hudi_rs_rows(base)} == expected
    assert {r["id"]: r["val"] for r in read_table(base).to_pylist()} == expected
    latest = ok_json("fsview", "latest", base)
    assert len(latest) == 1 and latest[0]["log_files"] == (2 if later else 1)  # every log file in one slice


def test_compaction_unschedule_v6_refused_with_logs_written_after_the_request(tmp_path):
    base, c = _scheduled(tmp_path, 6)
    r = cli("compaction", "unschedule", base, c)
    assert r.exit_code == 2 and "1 log file(s) were written into compaction" in r.output \
        and f"hudi-log compact PATH --instant {c}" in r.output
    assert (base / ".hoodie" / f"{c}.compaction.requested").exists()


def test_compaction_validate_reports_a_missing_log_file(tmp_path):
    base, c = _scheduled(tmp_path, 8)
    plan_log = json.loads(cli("compactions", "show", base, "--json").output)["compactions"][0]["operations"][0]
    (base / "p1" / plan_log["log_files"][0]).unlink()
    r = cli("compaction", "validate", base, c, "--json")
    assert r.exit_code == 1
    op = json.loads(r.output)["operations"][0]
    assert not op["valid"] and "missing" in op["error"]


def test_compaction_unschedule_refusals(tmp_path):
    base, c = _scheduled(tmp_path, 8)
    (base / ".hoodie" / "timeline" / f"{c}.compaction.inflight").write_bytes(b"")
    r = cli("compaction", "unschedule", base, c)
    assert r.exit_code == 2 and "inflight" in r.output
    assert (base / ".hoodie" / "timeline" / f"{c}.compaction.requested").exists()
    first = ok_json("commits", "show", base)[0]["instant"]
    r = cli("compaction", "unschedule", base, first)
    assert r.exit_code == 2 and f"instant {first} is not a pending compaction" in r.output


# ---- clean policies ---------------------------------------------------------------------------------
COW = {**OPTS, "hoodie.datasource.write.table.type": "COPY_ON_WRITE"}


def _cow_versions(tmp_path, n=4):
    base = tmp_path / "cow"
    for i in range(n):
        put(base, [("a", str(i), "p1"), ("b", str(i), "p1")], i, opts=COW)
    return base, [r["instant"] for r in ok_json("commits", "show", base)]


def _base_instants(base):
    return sorted(p.name.rsplit("_", 1)[1].split(".")[0] for p in (base / "p1").glob("*.parquet"))


def test_clean_keep_latest_file_versions(tmp_path):
    from hudi_rs_oracle import hudi_rs_rows
    from hudi_log.table.timeline.timeline import Timeline
    from hudi_log.table.properties import read_properties
    base, commits = _cow_versions(tmp_path)
    out = ok_json("clean", base, "--policy", "KEEP_LATEST_FILE_VERSIONS", "--retain-versions", "2")
    assert out["files_deleted"] == 2 and out["policy"] == "KEEP_LATEST_FILE_VERSIONS" and out["retained"] == 2
    assert _base_instants(base) == commits[2:]  # the two latest versions of the one file group
    assert {r["id"]: r["val"] for r in hudi_rs_rows(base)} == {"a": "3", "b": "3"}
    tl = Timeline(base, read_properties(base))
    md = tl.commit_metadata(tl.instant(out["clean"]))
    assert md["policy"] == "KEEP_LATEST_FILE_VERSIONS" and md["earliestCommitToRetain"] == ""
    # the same through hoodie.cleaner.* options; a flag that disagrees with them is refused
    assert ok_json("clean", base, "-o", "hoodie.cleaner.policy=KEEP_LATEST_FILE_VERSIONS",
                   "-o", "hoodie.cleaner.fileversions.retained=1")["files_deleted"] == 1
    assert _base_instants(base) == commits[3:]
    r = cli("clean", base, "--policy", "KEEP_LATEST_COMMITS", "-o", "hoodie.cleaner.policy=KEEP_LATEST_FILE_VERSIONS")
    assert r.exit_code == 2 and "hoodie.cleaner.policy" in r.output
    r = cli("clean", base, "--policy", "KEEP_LATEST_BY_HOURS", "--retain-versions", "1")
    assert r.exit_code == 2 and "--retain-versions does not go with --policy KEEP_LATEST_BY_HOURS" in r.output


def test_clean_file_versions_keeps_what_a_pending_compaction_needs(tmp_path):
    from hudi_rs_oracle import hudi_rs_rows
    from hudi_log.table.services.compaction import schedule_compaction
    base = tmp_path / "mor"
    put(base, [("a", "0", "p1")], 0)
    put(base, [("a", "1", "p1")], 1)
    from hudi_log.table.services.compaction import compact
    compact(base)  # a second slice
    put(base, [("a", "2", "p1")], 2)
    c = schedule_compaction(base)
    assert c is not None
    slices = [r["base_instant"] for r in ok_json("fsview", "all", base)]
    assert len(slices) == 3 and slices[-1] == c  # the first write's, the compaction's, the pending one
    # the slices the pending compaction needs count as one version: with 2 kept, nothing goes
    out = ok_json("clean", base, "--policy", "KEEP_LATEST_FILE_VERSIONS", "--retain-versions", "2")
    assert out["files_deleted"] == 0
    # with 1 kept, the first slice (its base file and log file) goes; the compaction's slices stay
    out = ok_json("clean", base, "--policy", "KEEP_LATEST_FILE_VERSIONS", "--retain-versions", "1")
    assert out["files_deleted"] == 2
    assert [r["base_instant"] for r in ok_json("fsview", "all", base)] == slices[1:]
    assert json.loads(cli("compaction", "validate", base, c, "--json").output)["valid"]
    assert {r["id"]: r["val"] for r in hudi_rs_rows(base)} == {"a": "2"}


def test_clean_keep_latest_by_hours(tmp_path, monkeypatch):
    import datetime
    from hudi_log.table.services import clean as clean_mod
    base, commits = _cow_versions(tmp_path)
    assert ok_json("clean", base, "--policy", "KEEP_LATEST_BY_HOURS", "--retain-hours", "1")["files_deleted"] == 0
    # an hour after the third commit: it is the earliest to retain, the slice before it is kept for it
    third = datetime.datetime.strptime(commits[2][:17], "%Y%m%d%H%M%S%f") + datetime.timedelta(hours=1)
    monkeypatch.setattr(clean_mod, "_now", lambda utc: third)
    out = ok_json("clean", base, "--policy", "keep_latest_by_hours", "--retain-hours", "1")
    assert out["files_deleted"] == 1 and _base_instants(base) == commits[1:]


# ---- table configs, repairs, markers, export ---------------------------------------------------------
V6 = "sample_table_mor_parquet_v6_simplekeygen_nonhivestyle"


@pytest.fixture
def v6(corpus_tables, tmp_path):
    return _copy(corpus_tables, tmp_path, V6)


def _rs_count(path):
    from hudi_rs_oracle import hudi_rs_rows
    return len(hudi_rs_rows(path))


def test_table_update_delete_recover_configs(v6, tmp_path):
    from hudi_log.table.properties import read_properties
    rows = _rs_count(v6)
    before = dict(read_properties(v6))
    out = ok_json("table", "update-configs", v6, "--set", "hoodie.cleaner.commits.retained=5")
    assert out["changed"] == [{"property": "hoodie.cleaner.commits.retained", "old": None, "new": "5"}]
    props = read_properties(v6)
    assert props["hoodie.cleaner.commits.retained"] == "5" and props.checksum_ok() is not False
    assert not (v6 / ".hoodie" / "hoodie.properties.backup").exists()
    assert _rs_count(v6) == rows  # hudi-rs still reads the table
    f = tmp_path / "p.properties"
    f.write_text("hoodie.cleaner.commits.retained=7\n")
    assert ok_json("table", "update-configs", v6, "--props-file", f)["changed"][0]["new"] == "7"
    assert ok_json("table", "delete-configs", v6, "hoodie.cleaner.commits.retained")["changed"][0]["new"] is None
    assert dict(read_properties(v6)) == before
    # refused before anything is written
    for bad in ("hoodie.table.version=7", "hoodie.table.checksum=1", "hoodie.table.name="):
        r = cli("table", "update-configs", v6, "--set", bad)
        assert r.exit_code == 2, (bad, r.output)
    assert dict(read_properties(v6)) == before
    # a killed update: the properties gone, the backup left: recover-configs restores it
    (v6 / ".hoodie" / "hoodie.properties").rename(v6 / ".hoodie" / "hoodie.properties.backup")
    assert ok_json("table", "recover-configs", v6) == {"recover": "restored from the backup"}
    assert dict(read_properties(v6)) == before and not (v6 / ".hoodie" / "hoodie.properties.backup").exists()
    assert ok_json("table", "recover-configs", v6) == {"recover": "nothing to recover"}
    assert cli("table", v6, "--json").exit_code == 0  # `table PATH` is still the summary


def test_repair_overwrite_hoodie_props(v6, tmp_path):
    from hudi_log.table.properties import properties_text, read_properties
    props = dict(read_properties(v6))
    props["hoodie.archivelog.folder"] = "archived2"
    f = tmp_path / "new.properties"
    f.write_text(properties_text(props), encoding="latin-1")
    out = ok_json("repair", "overwrite-hoodie-props", v6, "--new-props-file", f)
    assert out["changed"] == [{"property": "hoodie.archivelog.folder", "old": "archived", "new": "archived2"}]
    assert read_properties(v6)["hoodie.archivelog.folder"] == "archived2"
    assert _rs_count(v6) > 0


def test_repair_addpartitionmeta(v6):
    rows = _rs_count(v6)
    parts = sorted(p.parent.name for p in v6.glob("*/.hoodie_partition_metadata"))
    assert parts
    (v6 / parts[0] / ".hoodie_partition_metadata").unlink()
    dry = ok_json("repair", "addpartitionmeta", v6)
    assert [(r["partition"], r["metadata_present"], r["action"]) for r in dry if not r["metadata_present"]] == \
        [(parts[0], False, "Would repair")]
    assert not (v6 / parts[0] / ".hoodie_partition_metadata").exists()  # a dry run by default, as Java
    done = ok_json("repair", "addpartitionmeta", v6, "--no-dry-run")
    assert [r["action"] for r in done if r["partition"] == parts[0]] == ["Repaired"]
    text = (v6 / parts[0] / ".hoodie_partition_metadata").read_text()
    assert "commitTime=" in text and "partitionDepth=1" in text
    assert _rs_count(v6) == rows


def test_marker_delete(tmp_path):
    from hudi_log.table.markers import create_marker, marker_dir
    base = tmp_path / "t"
    put(base, [("a", "1", "p1")], 1)
    create_marker(base, "20200101000000000", "p1", "x.parquet", "CREATE")
    assert ok_json("marker", "delete", base, "20200101000000000") == {"instant": "20200101000000000",
                                                                      "markers_deleted": 1}
    assert not marker_dir(base, "20200101000000000").exists()
    assert ok_json("marker", "delete", base, "20200101000000000")["markers_deleted"] == 0


def test_export_instants(v8, tmp_path):
    out = tmp_path / "exp"
    done = ok_json("export", "instants", v8, "--dir", out)
    assert [d["instant"] for d in done] == ["20251220210108078", "20251220210123755", "20251220210125441",
                                            "20251220210127080", "20251220210128625", COMPACTION, LAST]
    first = done[0]["file"]
    assert (out / first).read_bytes() == (v8 / ".hoodie" / "timeline" / first).read_bytes()
    newest = ok_json("export", "instants", v8, "--dir", tmp_path / "e2", "--desc", "--limit", "1",
                     "--actions", "commit")
    assert [(d["instant"], d["action"]) for d in newest] == [(COMPACTION, "commit")]


def test_export_refuses_an_archived_name_that_is_a_path(v8, tmp_path, monkeypatch):
    from hudi_log.table.services import archive
    evil = archive.ArchivedInstant("../../x", "commit", "COMPLETED", "f")
    monkeypatch.setattr(archive, "read_archive", lambda *a, **k: [evil])
    r = cli("export", "instants", v8, "--dir", tmp_path / "e")
    assert r.exit_code == 2 and "is not an instant time and action" in r.output
    assert not (tmp_path / "x.commit").exists() and not (tmp_path / "e").exists()  # refused before any write


def test_commit_rollback_cow_read_by_hudi_rs(tmp_path):
    from hudi_rs_oracle import hudi_rs_rows
    base = tmp_path / "cow"
    for i in range(3):
        put(base, [("a", str(i), "p1"), (f"n{i}", "x", "p2")], i, opts=COW)
    commits = [r["instant"] for r in ok_json("commits", "show", base)]
    expected = sorted((r["id"], r["val"]) for r in hudi_rs_rows(base, as_of=commits[1]))
    out = ok_json("commit", "rollback", base, commits[2])
    assert out["files_deleted"] == 2  # the new versions of both file groups
    assert sorted((r["id"], r["val"]) for r in hudi_rs_rows(base)) == expected
    assert ("a", "1") in expected and ("n2", "x") not in expected


def test_marker_delete_refused_while_the_writer_is_alive(tmp_path):
    from hudi_log.table.concurrency.heartbeat import heartbeat_path
    from hudi_log.table.markers import create_marker, marker_dir
    from hudi_log.table.properties import read_properties
    from hudi_log.table.timeline.writer import TimelineWriter
    base = tmp_path / "t"
    put(base, [("a", "1", "p1")], 1)
    tw = TimelineWriter(base, read_properties(base))
    live = tw.new_instant_time()
    tw.requested("deltacommit", live)
    create_marker(base, live, "p1", "x.parquet", "CREATE")
    hb = heartbeat_path(base, live)
    hb.parent.mkdir(parents=True, exist_ok=True)
    hb.write_bytes(b"")  # a fresh heartbeat: its writer is alive
    r = cli("marker", "delete", base, live)
    assert r.exit_code == 2 and "its writer is alive" in r.output and marker_dir(base, live).exists()
