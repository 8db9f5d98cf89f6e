"""Version-8 timeline archival into the LSM history (issue 20, item 2): a long stream keeps a bounded active
timeline, every read reachable before archival answers the same after it (snapshot, time travel,
incremental from archived instants, hudi-rs), ``archived show`` reads the history, and Java's Parquet,
Avro and Jackson read the files as Hudi 1.x's LSMTimeline does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import HudiTable
from hudi_log.table.read.query import read_table
from hudi_log.table.services.archive import archive, read_archive
from hudi_log.table.services.archive_lsm import INSTANT_SCHEMA, keep_bounds, LsmConfig
from hudi_log.table.services.clean import clean
from hudi_log.table.services.compaction import run_compaction, schedule_compaction
from hudi_log.table.timeline.lsm_history import current_files, history_folder, latest_version, read_history
from hudi_log.table.write.client import write_table
from test_table_services import batch, hudi_rs, opts as services_opts, snapshot

SMALL = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3", "hoodie.cleaner.commits.retained": "1",
         "hoodie.compact.inline.max.delta.commits": "1", "hoodie.timeline.compaction.batch.size": "2"}
JAVA_SOURCE = Path(__file__).parent / "java" / "HudiLogLsmCheck.java"


# archival stops at the metadata table's latest compaction (Java's rule), and that compaction is helper mdtsvc's
# part: the tables archived here keep no metadata table
def opts(*args, **kwargs) -> dict:
    return {**services_opts(*args, **kwargs), "hoodie.metadata.enable": "false"}


def incremental(base, begin, end=None):
    return {r["id"]: (r["val"], r["_hoodie_commit_time"])
            for r in read_table(base, query="incremental", begin=begin, end=end).to_pylist()}


def completion_of(base, instant):
    done = {i.requested_time: i.completion_time for i in HudiTable(base).timeline.completed()}
    return done[instant]


def mor_stream_with_compaction_and_clean(base, extra):
    """Ten upserts on v8 MERGE_ON_READ, a compaction after the 4th, a clean after the 6th."""
    o = {**opts(8, "MERGE_ON_READ"), **extra}
    for i in range(10):
        write_table(base, batch([(f"k{j}", f"v{i}") for j in range(4)], i), "upsert", o)
        if i == 3:
            run_compaction(base, schedule_compaction(base, {"hoodie.compact.inline.max.delta.commits": "1"}))
        if i == 5:
            assert clean(base, retain_commits=2)


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_long_v8_stream_keeps_a_bounded_timeline_and_reads_as_before(tmp_path, table_type):
    base = tmp_path / "t"
    o = {**opts(8, table_type), **SMALL}
    instants, completions, states, incs = [], [], [], {}
    for i in range(14):
        r = write_table(base, batch([(f"k{j}", f"v{i}") for j in range(i % 3, 5)], i), "upsert", o)
        instants.append(r.instant)
        completions.append(r.completion_time)
        states.append(snapshot(base))
        for j in {0, i // 2, max(i - 1, 0)}:  # incremental reads from earlier commits, as they are now
            incs[(j, i)] = incremental(base, completions[j])
        assert len(HudiTable(base).timeline.completed_commits()) <= 3  # the auto-archive keeps it bounded
    folder = history_folder(base, HudiTable(base).properties)
    names = {f.name for f in current_files(folder)}
    assert latest_version(folder) > 1 and any(n.endswith("_1.parquet") for n in names)  # compacted into L1
    archived = read_archive(base)
    active = HudiTable(base).timeline.completed_commit_times()
    assert [a.commit_time for a in archived] == instants[:len(archived)] and len(archived) >= 10
    assert {a.commit_time for a in archived} | active == set(instants)
    assert all(a.completion_time == completions[k] and a.metadata.get("partitionToWriteStats")
               for k, a in enumerate(archived))
    for k, inst in enumerate(instants):  # time travel into archived instants reads as before
        assert snapshot(base, as_of=inst) == states[k], k
    for (j, i), want in incs.items():  # incremental whose begin is archived: the same rows
        assert incremental(base, completions[j], completions[i]) == want, (j, i)
    assert snapshot(base) == states[-1] == hudi_rs(base)
    # the next instant is later than everything the history holds
    r = write_table(base, batch([("k1", "z")], 99), "upsert", o)
    assert r.instant > max(a.completion_time for a in read_archive(base))


def test_mor_with_compaction_and_clean_archives_plans(tmp_path):
    base = tmp_path / "t"
    mor_stream_with_compaction_and_clean(base, {"hoodie.archive.automatic": "false"})
    before = snapshot(base)
    assert archive(base, SMALL)
    rows = {r["instantTime"]: r for r in read_history(base, HudiTable(base).properties)}
    by_action = {}
    for r in rows.values():
        by_action.setdefault(r["action"], []).append(r)
    assert set(by_action) >= {"deltacommit", "commit", "clean"}
    assert all(r["plan"] for r in by_action["commit"] + by_action["clean"])  # compaction plan, cleaner plan
    assert all(r["plan"] is None and r["metadata"][:4] == b"Obj\x01" for r in by_action["deltacommit"])
    assert snapshot(base) == before == hudi_rs(base)
    # savepoints stay active; the 1.x rules never archive past the last commit archived
    tl = HudiTable(base).timeline
    last = max(r["instantTime"] for r in by_action["deltacommit"] + by_action["commit"])
    assert all(i.requested_time > last for i in tl.completed() if i.action in ("clean", "rollback"))


def test_cleaner_raises_the_counts_as_java(tmp_path):
    base = tmp_path / "t"
    for i in range(6):
        write_table(base, batch([("k1", f"v{i}")], i), "upsert",
                    {**opts(8, "COPY_ON_WRITE"), "hoodie.archive.automatic": "false"})
    tl = HudiTable(base).timeline
    assert keep_bounds(tl, 2, 3, LsmConfig(cleaner_retained=10)) == (2, 3)  # 6 commits: nothing to clean yet
    assert keep_bounds(tl, 2, 3, LsmConfig(cleaner_retained=4)) == (5, 6)  # 3 commits after E, + 2
    assert not archive(base, {**SMALL, "hoodie.cleaner.commits.retained": "4"})
    assert len(archive(base, SMALL)) > 0


def test_archived_show_and_archive_cli_on_v8(tmp_path):
    base = tmp_path / "t"
    o = {**opts(8, "COPY_ON_WRITE"), "hoodie.archive.automatic": "false"}
    instants = [write_table(base, batch([("k1", f"v{i}")], i), "upsert", o).instant for i in range(5)]
    r = CliRunner()
    res = r.invoke(main, ["archive", str(base), "--json", *sum((["-o", f"{k}={v}"] for k, v in SMALL.items()), [])])
    assert res.exit_code == 0, res.output
    done = {x["instant"] for x in json.loads(res.output)}
    assert done == set(instants[:3])
    res = r.invoke(main, ["archived", "show", str(base), "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [x["instant"] for x in rows] == instants[:3]
    assert all(x["completion_time"] > x["instant"] and x["records"] == 1 and x["archive_file"].endswith("_0.parquet")
               for x in rows)
    lines = r.invoke(main, ["archived", "show", str(base)]).output.splitlines()  # piped: tab-separated
    assert "archive_file" in lines[0].split("\t") and [x.split("\t")[0] for x in lines[1:]] == instants[:3]


def test_java_reads_the_lsm_history(tmp_path, java_program):
    base = tmp_path / "t"
    mor_stream_with_compaction_and_clean(base, SMALL)
    props = HudiTable(base).properties
    folder = history_folder(base, props)
    (tmp_path / "instant.avsc").write_text(json.dumps(INSTANT_SCHEMA))
    files = current_files(folder)
    lines = [["parquet", folder / f.name, tmp_path / "instant.avsc"] for f in files]
    lines += [["manifest", folder / f"manifest_{latest_version(folder)}"], ["version", folder / "_version_"]]
    got = java_program(JAVA_SOURCE)(lines)
    want = {r["instantTime"]: r for r in read_history(base, props)}
    seen = []
    for f, g in zip(files, got):
        assert g["avroSchemaEqual"] is True, g
        msg = g["message"]  # what parquet-avro's AvroSchemaConverter makes of the Avro schema
        for col in ("instantTime", "completionTime", "action"):
            assert f"optional binary {col} (STRING)" in msg
        assert "optional binary metadata;" in msg and "optional binary plan;" in msg
        assert "required int32 version;" in msg
        for row in g["rows"]:
            w = want[row["instantTime"]]
            assert (row["completionTime"], row["action"], row["version"]) == (w["completionTime"], w["action"], 1)
            assert row["plan"] == (len(w["plan"]) if w["plan"] else -1)
            if row["action"] == "deltacommit":
                assert row["metadata"] == 1 and row["writeStats"] > 0  # an Avro HoodieCommitMetadata
            seen.append(row["instantTime"])
    assert sorted(seen) == sorted(want)
    assert {w["action"] for w in want.values() if w["plan"]} == {"clean", "commit"}  # cleaner / compaction plans
    assert got[-2] == {"files": [[f.name, (folder / f.name).stat().st_size] for f in files]}
    assert got[-1] == {"version": latest_version(folder)}


def test_manifest_json_is_jacksons_pretty_print(tmp_path):
    from hudi_log.table.services.archive_lsm import manifest_json
    from hudi_log.table.timeline.lsm_history import HistoryFile
    assert manifest_json([]) == '{\n  "files" : [ ]\n}'
    text = manifest_json([HistoryFile("1_2_0.parquet", 10), HistoryFile("3_4_0.parquet", 20)])
    assert text == ('{\n  "files" : [ {\n    "fileName" : "1_2_0.parquet",\n    "fileLen" : 10\n  }, '
                    '{\n    "fileName" : "3_4_0.parquet",\n    "fileLen" : 20\n  } ]\n}')
    assert json.loads(text) == {"files": [{"fileName": "1_2_0.parquet", "fileLen": 10},
                                          {"fileName": "3_4_0.parquet", "fileLen": 20}]}


def test_a_killed_archival_is_finished_and_leftovers_ignored(tmp_path, monkeypatch):
    """Killed after the manifest names its file: the next run only deletes the instant files. A Parquet
    file no manifest lists is not part of the history."""
    import hudi_log.table.services.archive_lsm as lsm
    base = tmp_path / "t"
    o = {**opts(8, "COPY_ON_WRITE"), "hoodie.archive.automatic": "false"}
    instants = [write_table(base, batch([("k1", f"v{i}")], i), "upsert", o).instant for i in range(5)]
    folder = history_folder(base, HudiTable(base).properties)
    (folder / "1_2_0.parquet").write_bytes(b"junk")  # a leftover
    monkeypatch.setattr(lsm, "compact_and_clean", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    real_unlink = Path.unlink
    monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: (_ for _ in ()).throw(KeyboardInterrupt())
                        if self.parent.name == "timeline" else real_unlink(self, missing_ok))
    with pytest.raises(KeyboardInterrupt):
        archive(base, SMALL)
    monkeypatch.undo()
    assert len(HudiTable(base).timeline.completed_commits()) == 5  # nothing deleted yet
    version = latest_version(folder)
    done = archive(base, SMALL)
    assert {a.commit_time for a in done} == set(instants[:3]) and latest_version(folder) == version
    assert [a.commit_time for a in read_archive(base)] == instants[:3]
    assert snapshot(base) == {"k1": "v4"}


def test_corpus_history_layout_and_v9_archival(corpus_tables, tmp_path):
    """Java's v8/v9 tables keep an empty ``timeline/history`` folder (nothing archived yet), where hudi-log's
    new tables keep theirs too; hudi-log reads it as an empty history. A version-9 table is archived into it
    as a version-8 one is (Hudi 1.1 keeps 1.0's LSM timeline), its rows unchanged."""
    import shutil
    v8 = [k for k in corpus_tables if "_v8_" in k or "_v9_" in k]
    assert v8
    for name in v8:
        props = HudiTable(corpus_tables[name]).properties
        folder = history_folder(corpus_tables[name], props)
        assert folder.is_dir() and not any(folder.iterdir()), name
        assert folder.relative_to(corpus_tables[name]).as_posix() == ".hoodie/timeline/history"
        assert latest_version(folder) == -1 and read_history(corpus_tables[name], props) == []
        assert read_archive(corpus_tables[name]) == []
    write_table(tmp_path / "ours", batch([("k1", "a")], 1), "insert", opts(8, "COPY_ON_WRITE"))
    assert history_folder(tmp_path / "ours", HudiTable(tmp_path / "ours").properties).is_dir()
    v9 = "sample_table_cow_v9_txns_simple_nometa"  # no metadata table (a table with one is not archived here)
    copy = tmp_path / "v9"
    shutil.copytree(corpus_tables[v9], copy)
    def rows(path):
        return sorted(read_table(path).drop_columns(["_hoodie_commit_seqno"]).to_pylist(), key=str)

    before = rows(copy)
    done = archive(copy, {"hoodie.keep.min.commits": "1", "hoodie.keep.max.commits": "2"})  # no longer refused
    assert [a.commit_time for a in read_history(copy, HudiTable(copy).properties)] == [a.commit_time for a in done]
    assert rows(copy) == before


def test_bad_lsm_options_are_refused_before_the_write(tmp_path):
    from hudi_log.table.services.archive import ArchiveError
    base = tmp_path / "t"
    for bad in ({"hoodie.timeline.compaction.batch.size": "1"}, {"hoodie.cleaner.commits.retained": "x"}):
        with pytest.raises(ArchiveError):
            write_table(base, batch([("k1", "a")], 1), "insert", {**opts(8, "COPY_ON_WRITE"), **bad})
        assert not (base / ".hoodie").exists()
    # the hours policy: version-8 archival refuses it by name, writes go on and skip the auto-archive
    hours = {**opts(8, "COPY_ON_WRITE"), "hoodie.cleaner.policy": "KEEP_LATEST_BY_HOURS",
             "hoodie.keep.min.commits": "1", "hoodie.keep.max.commits": "2", "hoodie.cleaner.commits.retained": "1"}
    for i in range(4):
        write_table(base, batch([("k1", f"v{i}")], i), "upsert", hours)
    assert len(HudiTable(base).timeline.completed_commits()) == 4
    with pytest.raises(ArchiveError, match="KEEP_LATEST_BY_HOURS"):
        archive(base, hours)
    v6 = tmp_path / "v6"  # version 6 archival does not use the policy: it archives
    for i in range(4):
        write_table(v6, batch([("k1", f"v{i}")], i), "upsert", {**hours, **opts(6, "COPY_ON_WRITE"),
                                                               "hoodie.cleaner.policy": "KEEP_LATEST_BY_HOURS"})
    assert len(HudiTable(v6).timeline.completed_commits()) <= 2
