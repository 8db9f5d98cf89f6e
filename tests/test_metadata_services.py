"""The metadata table's own services (hudi_log.table.metadata.services): on copies of the corpus's Java-written
metadata tables, a forced compaction leaves every partition's merged records, the files listing and the
data table's rows unchanged and writes base HFiles laid out as Java's; Java's scheduling rule says "compact"
exactly where Java compacted; clean removes exactly the slices Java's policy removes; a rolled-back
deltacommit's records are gone."""

from __future__ import annotations

import re
import shutil
import types
import zlib
from pathlib import Path

import fastavro
import pytest

from hudi_log.format.content.hfile import read_hfile
from hudi_log.format.content.hfile_grammar import parse_body, parse_layout
from hudi_log.table import metadata_files as mf
from hudi_log.table import read_table
from hudi_log.table.metadata import services as S
from hudi_log.table.metadata import services_clean as C
from hudi_log.table.properties import read_properties
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.view.file_system_view import FileSystemView

TABLES = ["quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "sample_table_cow_v9_timebasedkeygen_epochmillis",
          "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle", "sample_table_mor_avro_v9_txns_simple_meta"]
TXNS = "sample_table_mor_avro_v9_txns_simple_meta"
BASE_RE = re.compile(r"^(?P<fid>[^_]+)_(?P<token>\d+-\d+-\d+)_(?P<instant>\d{17})\.hfile$")


def _copy(corpus_tables, tmp_path, name) -> Path:
    src = corpus_tables[name]
    return Path(shutil.copytree(src, tmp_path / src.name))


def _meta(root: Path) -> Timeline:
    mroot = mf.metadata_path(root)
    return Timeline(mroot, read_properties(mroot))


def _partitions(root: Path) -> list[str]:
    mroot = mf.metadata_path(root)
    return sorted(p.name for p in mroot.iterdir() if p.is_dir() and not p.name.startswith("."))


def _payload(records: dict) -> dict:
    """The records without Hudi's meta fields (a compaction names its new file in ``_hoodie_file_name``)."""
    return {k: {f: v for f, v in r.items() if not f.startswith("_hoodie_")} for k, r in records.items()}


def _read(root: Path, p: str, **kw) -> dict:
    return _payload(mf.read_partition_records(root, p, merge=mf.merge_rule(p), **kw)[0])


def _records(root: Path) -> dict:
    return {p: _read(root, p) for p in _partitions(root)}


def _rows(root: Path) -> list[dict]:
    return sorted(read_table(root).to_pylist(), key=lambda r: (r["_hoodie_partition_path"], r["_hoodie_record_key"]))


@pytest.mark.parametrize("name", TABLES)
def test_forced_compaction_keeps_every_record_and_writes_java_base_files(corpus_tables, tmp_path, name):
    root = _copy(corpus_tables, tmp_path, name)
    mroot = mf.metadata_path(root)
    java_bases = {p: p.name for p in mroot.glob("*/*.hfile")}
    java_keys = {frozenset(read_hfile(p.read_bytes()).file_info) for p in java_bases}
    before, rows = _records(root), _rows(root)
    assert any(before.values())

    done = S.run_table_services(root, {S.MAX_DELTA_COMMITS: "0"})

    assert len(done) == 1 and done[0].startswith("compacted the metadata table at "), done
    instant = done[0].split()[-4]
    assert _records(root) == before
    assert mf.compare_with_storage(root) == []
    assert _rows(root) == rows
    # the timeline: plan requested, empty inflight, completed as a commit
    meta = _meta(root)
    commit = next(i for i in meta.completed() if i.requested_time == instant)
    assert commit.action == "commit"
    folder = meta.folder
    assert (folder / f"{instant}.compaction.inflight").read_bytes() == b""
    plan = next(fastavro.reader((folder / f"{instant}.compaction.requested").open("rb")))
    assert plan["version"] == 2 and plan["operations"]
    md = meta.commit_metadata(commit)
    assert md["compacted"] is True and md["operationType"] == "COMPACT"
    written = {s["path"] for ss in md["partitionToWriteStats"].values() for s in ss}
    new = sorted(p for p in mroot.glob(f"*/*_{instant}.hfile"))
    assert {f"{p.parent.name}/{p.name}" for p in new} == written
    # Hudi 1.1 writes a base file per operation; 1.0 none for a slice that never held a record
    assert len(new) == len(plan["operations"]) if "v9" in name else 0 < len(new) <= len(plan["operations"])
    for p in new:
        m = BASE_RE.match(p.name)
        assert m and m["instant"] == instant
        data = p.read_bytes()
        hf = read_hfile(data)
        assert frozenset(hf.file_info) in java_keys  # Java's file info keys, none more, none fewer
        assert hf.file_info["schema"] and hf.file_info["bloomFilterTypeCode"] == b"DYNAMIC_V0"
        keys = [r.key for r in hf.records]
        assert keys == sorted(keys, key=lambda k: k.encode("utf-16-be"))
        # the generated Kaitai codec reads the same cells and the bloom filter meta block
        layout = parse_layout(data)
        cells = [c.key.row_text for b in layout.blocks if b.magic == "DATABLK*"
                 for c in parse_body("DATABLK*", zlib.decompress(b.payload, 31)).cells]
        assert cells == keys
        assert [b.magic for b in layout.blocks].count("METABLKc") == 1
    # a further run compacts nothing more (Hudi 1.1: nothing to plan; 1.0 plans the slices that never held a
    # record again and writes no file for them)
    again = S.run_table_services(root, {S.MAX_DELTA_COMMITS: "0"})
    assert again == [] or name.startswith("quickstart_trips_table_mor_avro_v8"), again
    assert _records(root) == before and mf.compare_with_storage(root) == []


def _started_writes(root: Path) -> list[str]:
    """Data instants a writer started (Java runs the metadata services then): not compactions, clusterings
    or indexing, which table services run."""
    data = Timeline(root, read_properties(root))
    out = []
    for i in data.instants:
        t = i.requested_time
        if any((data.folder / f"{t}.{a}.requested").exists() for a in ("compaction", "clustering", "indexing")):
            continue
        if i.action in ("commit", "deltacommit", "replacecommit"):
            out.append(t)
    return out


@pytest.mark.parametrize("name", ["quickstart_trips_table_mor_avro_v8_trips_8i3u1d", TXNS])
def test_the_scheduling_rule_says_compact_where_java_compacted(corpus_tables, name):
    root = corpus_tables[name]
    meta = _meta(root)
    compactions = [i.requested_time for i in meta.completed() if i.action == "commit"]
    assert compactions  # both tables were compacted by Java
    due_at = []
    for t in _started_writes(root):
        # the metadata timeline as it stood when the write at t started
        seen = [i for i in meta.instants if (i.completion_time or i.requested_time) < t]
        state = types.SimpleNamespace(instants=seen, completed=lambda seen=seen: [i for i in seen if i.is_completed])
        if S.compaction_due(state, S.DEFAULT_MAX_DELTA_COMMITS):
            due_at.append(t)
    # each compaction was requested right after the write it ran for started, and only there
    expected = [max(t for t in _started_writes(root) if t < c) for c in compactions]
    assert due_at == expected, (due_at, expected)
    if name == TXNS:
        assert due_at == ["20260307162612542"] and compactions == ["20260307162612567"]
        state = types.SimpleNamespace(instants=meta.instants, completed=meta.completed)
        assert len(S.deltacommits_since_last_compaction(state)) == 7


def test_compaction_instant_time_rules(corpus_tables, tmp_path):
    root = _copy(corpus_tables, tmp_path, TXNS)
    data, meta = Timeline(root, read_properties(root)), _meta(root)
    latest_delta = [i for i in meta.completed() if i.action == "deltacommit"][-1].requested_time
    # version 6: the latest deltacommit's time and 001
    assert S.compaction_instant_time(root, data, meta, 6) == latest_delta + "001"
    # version 9: a new time, after everything on both timelines
    t = S.compaction_instant_time(root, data, meta, 9)
    assert t > max(i.completion_time or i.requested_time for i in meta.instants + data.instants)
    # a data instant pending but completed on the metadata table: one millisecond before it
    done = next(data.folder.glob("20260307162620509_*.deltacommit"))
    done.unlink()
    data = Timeline(root, read_properties(root))
    assert S.compaction_instant_time(root, data, meta, 9) == "20260307162620508"
    assert S.compaction_instant_time(root, data, meta, 6) is None  # 0.14's guard: no compaction then


def test_clean_removes_the_slices_java_keeps_no_longer(corpus_tables, tmp_path):
    root = _copy(corpus_tables, tmp_path, TXNS)
    mroot = mf.metadata_path(root)
    props = read_properties(mroot)
    compacted = "20260307162612567"
    view = FileSystemView(mroot, props, _meta(root))
    # what Java's KEEP_LATEST_COMMITS with 2 retained removes here: every slice older than the compaction's
    expected = set()
    for part in view.partitions:
        for g in view.file_groups[part]:
            if any(s.base_instant == compacted for s in g.slices):
                for s in g.slices:
                    if s.base_instant < compacted:
                        expected |= {f.path.name for f in ([s.base_file] if s.base_file else []) + s.log_files}
    assert expected
    before, rows = _records(root), _rows(root)
    assert C.clean_if_necessary(root, {C.RETAINED_OPTION: "20"}) == []  # 20 retained: nothing old enough
    lines = C.clean_if_necessary(root, {C.RETAINED_OPTION: "2"})
    assert len(lines) == 1 and lines[0].startswith("cleaned the metadata table at ")
    remaining = {p.name for p in mroot.glob("*/*") if p.is_file()}
    assert not (expected & remaining)
    meta = _meta(root)
    clean = [i for i in meta.completed() if i.action == "clean"]
    assert len(clean) == 1
    md = meta.commit_metadata(clean[0])
    assert {f for m in md["partitionMetadata"].values() for f in m["successDeleteFiles"]} == expected
    assert _records(root) == before and mf.compare_with_storage(root) == [] and _rows(root) == rows
    assert C.clean_if_necessary(root, {C.RETAINED_OPTION: "2"}) == []


def test_no_clean_right_after_a_compaction(corpus_tables, tmp_path):
    root = _copy(corpus_tables, tmp_path, "sample_table_cow_v9_timebasedkeygen_epochmillis")
    S.run_table_services(root, {S.MAX_DELTA_COMMITS: "0"})
    assert C.too_soon_after_compaction(_meta(root))
    assert C.clean_if_necessary(root, {C.RETAINED_OPTION: "1"}) == []


def test_rollback_of_a_metadata_deltacommit_leaves_its_records_out(corpus_tables, tmp_path):
    root = _copy(corpus_tables, tmp_path, TXNS)
    mroot = mf.metadata_path(root)
    target, previous = "20260307162620509", "20260307162619269"
    parts = [p for p in _partitions(root) if p != "secondary_index_txn_date_idx"]  # built at a later instant
    expected = {p: _read(root, p, as_of=previous) for p in parts}
    latest = {p: _read(root, p) for p in parts}
    assert expected != latest  # the instant changed something
    written = [p for p in mroot.glob(f"*/.*_{target}.log.*")]
    assert written

    S.rollback_metadata_instant(root, target, "20260307162700000")

    assert not any(p.exists() for p in written)
    assert {p: _read(root, p) for p in parts} == expected
    meta = _meta(root)
    assert not [i for i in meta.instants if i.requested_time == target]
    rb = next(i for i in meta.completed() if i.action == "rollback")
    assert rb.requested_time == "20260307162700000"
    assert meta.commit_metadata(rb)["commitsRollback"] == [target]
    # nothing at that instant any more: a second call does nothing
    S.rollback_metadata_instant(root, target, "20260307162700001")
    assert len([i for i in _meta(root).instants if i.action == "rollback"]) == 1


def test_rollback_before_the_latest_compaction_is_refused(corpus_tables, tmp_path):
    root = _copy(corpus_tables, tmp_path, TXNS)
    files = sorted(p.name for p in mf.metadata_path(root).rglob("*"))
    with pytest.raises(S.MetadataServiceError, match="restore"):
        S.rollback_metadata_instant(root, "20260307162611195", "20260307162700000")
    assert sorted(p.name for p in mf.metadata_path(root).rglob("*")) == files  # nothing changed


def test_a_failed_metadata_deltacommit_is_rolled_back_first(corpus_tables, tmp_path):
    root = _copy(corpus_tables, tmp_path, TXNS)
    meta = _meta(root)
    next(meta.folder.glob("20260307162620509_*.deltacommit")).unlink()  # the deltacommit never completed
    assert S.rollback_failed_deltacommits(root) == ["20260307162620509"]
    assert not list(mf.metadata_path(root).glob("*/.*_20260307162620509.log.*"))
    assert S.rollback_failed_deltacommits(root) == []


@pytest.mark.parametrize("name, instant, identical", [
    (TXNS, "20260307162612567", True),  # Hudi 1.1: the same bytes
    ("quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "20251220210130942", False),  # 1.0 (HBase's layout): cells
])
def test_java_compactions_replayed_give_java_base_files(corpus_tables, name, instant, identical):
    """Java's own compaction plan, merged and written by hudi-log: every base file Java wrote, cell for cell
    (Hudi 1.1's byte for byte, given its creation time), and none where Java wrote none."""
    import struct

    root = corpus_tables[name]
    mroot = mf.metadata_path(root)
    props = read_properties(mroot)
    meta = _meta(root)
    ops = S.read_plan(props.timeline_folder(mroot) / f"{instant}.compaction.requested")
    valid = mf.valid_instants(Timeline(root, read_properties(root)), meta)
    done = {i.requested_time for i in meta.completed()}
    compared = 0
    for op in ops:
        m = S.merge_slice(mroot, op, valid, done.__contains__)
        java = next((mroot / op.partition).glob(f"{op.file_id}_*_{instant}.hfile"), None)
        if java is None:  # Hudi 1.0 writes no base file for a slice that never held a record
            assert not m.records and not m.log_records and props.version < 9, op
            continue
        data = java.read_bytes()
        jh = read_hfile(data)
        created = struct.unpack(">q", jh.file_info["hfile.CREATE_TIME_TS"])[0]
        schema = m.schema or jh.file_info["schema"].decode()  # a slice of only its empty first block: the table's
        ours = S.base_hfile_bytes(m.records, schema, props.version, java.name, m.listing_orders(), created)
        oh = read_hfile(ours)
        assert [(c.key, c.value) for c in oh.records] == [(c.key, c.value) for c in jh.records], java.name
        if identical:
            assert ours == data, java.name
        compared += 1
    assert compared >= 10


def test_archival_never_passes_the_data_tables_earliest_commit(corpus_tables):
    from hudi_log.table.metadata.services_archive import metadata_instants_to_archive

    root = corpus_tables[TXNS]
    assert metadata_instants_to_archive(root) == []  # 21 kept, 31 at most: not due
    due = metadata_instants_to_archive(root, {"hoodie.keep.min.commits": "1", "hoodie.keep.max.commits": "2"})
    # due by count: all but the newest two; allowed: only what precedes the data table's first commit
    first_data = Timeline(root, read_properties(root)).instants[0].requested_time
    assert [i.requested_time for i in due] == [f"0000000000000000{n}" for n in range(5)]
    assert all(i.requested_time < first_data for i in due)


def test_a_pending_metadata_compaction_is_run_from_its_plan_and_a_planted_one_refused(corpus_tables, tmp_path):
    from hudi_log.containment import PathOutsideTableError

    root = _copy(corpus_tables, tmp_path, "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle")
    mroot = mf.metadata_path(root)
    meta = _meta(root)
    before = _records(root)
    instant = S.compaction_instant_time(root, Timeline(root, read_properties(root)), meta, 9)
    ops = S.plan_compaction(root, instant)
    req = meta.folder / f"{instant}.compaction.requested"
    planted = [S.CompactionOperation("../../..", ops[0].file_id, ops[0].base_instant, None, ops[0].log_files)]
    req.write_bytes(S.plan_bytes(planted))
    files = sorted(p.name for p in mroot.rglob("*"))
    with pytest.raises(PathOutsideTableError):
        S.run_table_services(root)
    assert sorted(p.name for p in mroot.rglob("*")) == files  # nothing written
    req.write_bytes(S.plan_bytes(ops))  # a run killed after its plan was requested and one base file written
    (mroot / ops[0].partition / f"{ops[0].file_id}_0-0-0_{instant}.hfile").write_bytes(b"half")
    assert S.run_table_services(root) == [f"ran the pending metadata compaction {instant}"]
    assert _records(root) == before and mf.compare_with_storage(root) == []
    assert len(list(mroot.glob(f"*/*_{instant}.hfile"))) == len(ops)


def test_the_plan_is_javas(corpus_tables, tmp_path):
    """txns_simple_meta's metadata compaction undone: hudi-log plans at its instant what Java planned."""
    root = _copy(corpus_tables, tmp_path, TXNS)
    mroot = mf.metadata_path(root)
    instant = "20260307162612567"
    folder = _meta(root).folder
    java = next(fastavro.reader((folder / f"{instant}.compaction.requested").open("rb")))
    for f in [*folder.glob(f"{instant}*"), *mroot.glob(f"*/*_{instant}.hfile")]:
        f.unlink()
    ours = [op.to_record() for op in S.plan_compaction(root, instant)]

    def key(r):
        return r["partitionPath"], r["fileId"]

    assert sorted(ours, key=key) == sorted(java["operations"], key=key)
    assert [list(r["metrics"]) for r in ours] == [list(java["operations"][0]["metrics"])] * len(ours)


def test_options_are_checked_and_a_table_without_a_metadata_table_is_left_alone(corpus_tables, tmp_path):
    root = _copy(corpus_tables, tmp_path, "sample_table_cow_v9_timebasedkeygen_epochmillis")
    for bad in ("ten", "-1"):
        with pytest.raises(S.MetadataServiceError, match=S.MAX_DELTA_COMMITS):
            S.run_table_services(root, {S.MAX_DELTA_COMMITS: bad})
    with pytest.raises(S.MetadataServiceError, match=C.RETAINED_OPTION):
        S.run_table_services(root, {C.RETAINED_OPTION: "0"})
    assert S.run_table_services(root) == []  # 8 deltacommits: not due, nothing old enough to clean
    plain = _copy(corpus_tables, tmp_path, "sample_table_cow_v9_txns_simple_nometa")
    assert S.run_table_services(plain, {S.MAX_DELTA_COMMITS: "0"}) == []


def test_rollback_by_command_blocks_leaves_the_records_out(corpus_tables, tmp_path, monkeypatch):
    """Table version 6's way (a ROLLBACK command block appended to each file group the instant wrote to),
    run here on a version 9 copy: the mechanism and its reading, not version 6's file naming."""
    from hudi_log.table.metadata import services_rollback as R

    root = _copy(corpus_tables, tmp_path, TXNS)
    mroot = mf.metadata_path(root)
    target, previous = "20260307162620509", "20260307162619269"
    parts = [p for p in _partitions(root) if p != "secondary_index_txn_date_idx"]
    expected = {p: _read(root, p, as_of=previous) for p in parts}
    written = sorted(mroot.glob(f"*/.*_{target}.log.*"))
    monkeypatch.setattr(R, "_written_at", lambda root, instant: {})  # as if its logs were appended ones
    monkeypatch.setattr(R, "FIRST_V8_TABLE_VERSION", 10)

    R.rollback_metadata_instant(root, target, "20260307162700000")

    assert all(p.exists() for p in written)  # nothing deleted: undone by command blocks
    added = sorted(mroot.glob("*/.*.log.*_0-*-1"))
    assert len(added) == len({(p.parent.name, p.name.split("_")[0]) for p in written})
    assert {p: _read(root, p) for p in parts} == expected
    md = _meta(root).commit_metadata(next(i for i in _meta(root).completed() if i.action == "rollback"))
    assert {Path(f).name for m in md["partitionMetadata"].values() for f in m["logFilesFromFailedCommit"]} \
        == {p.name for p in written}


def test_column_stats_merge_is_javas():
    def rec(lo, hi, n, deleted=False, tight=False, wrapper="IntWrapper"):
        return {"key": "k", "type": 3, "ColumnStatsMetadata": {
            "fileName": "f", "columnName": "c", "minValue": (wrapper, {"value": lo}), "maxValue": (wrapper, {"value": hi}),
            "valueCount": n, "nullCount": 1, "totalSize": 10, "totalUncompressedSize": 20, "isDeleted": deleted,
            "isTightBound": tight}}

    merged = mf.merge_column_stats(rec(5, 9, 3), rec(2, 7, 4))["ColumnStatsMetadata"]
    assert (merged["minValue"], merged["maxValue"]) == (("IntWrapper", {"value": 2}), ("IntWrapper", {"value": 9}))
    assert (merged["valueCount"], merged["nullCount"], merged["totalSize"], merged["totalUncompressedSize"]) \
        == (7, 2, 20, 40)
    for old, new in ((rec(5, 9, 3), rec(2, 7, 4, deleted=True)), (rec(5, 9, 3, deleted=True), rec(2, 7, 4)),
                     (rec(5, 9, 3), rec(6, 7, 4, tight=True))):
        assert mf.merge_column_stats(old, new) == new  # a tombstone on either side, or a tight bound, wins whole
    # strings compare as Java's String does (UTF-16 code units): U+FF5E sorts after U+1F600's surrogates
    a, b = rec("\uff5e", "\uff5e", 1, wrapper="StringWrapper"), rec("\U0001f600", "\U0001f600", 1, wrapper="StringWrapper")
    merged = mf.merge_column_stats(a, b)["ColumnStatsMetadata"]
    assert merged["minValue"][1]["value"] == "\U0001f600" and merged["maxValue"][1]["value"] == "\uff5e"
    assert mf.merge_rule("column_stats") is mf.merge_rule("partition_stats") is mf.merge_column_stats
    assert mf.merge_rule("record_index") is None and mf.merge_rule("files") is mf._merge
