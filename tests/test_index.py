"""The write index (``hudi_log.table.write.index``): which file group holds each record key.

``build_index`` merges a slice only where liveness can matter (keys in several groups, keys only logs
hold); these tests hold it equal to the plain definition — every slice merged through the reader — on
every corpus table, on tables with log-only file groups, and after a key moved between file groups.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log.table.write.index import KeyIndex, build_index, latest_slices
from hudi_log.table.properties import read_properties
from hudi_log.table.read.query import HudiTable, read_slice
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.client import write_table

from test_hudi_rs_interop import FG_SF, write_table as write_log_only_table


def _index(path) -> KeyIndex:
    props = read_properties(path)
    tl = Timeline(path, props)
    index = build_index(path, props, tl, latest_slices(path, props, tl))
    primed = index.__dict__.get("_sorted_cache")  # the lookup order the build's own hashing left
    fresh = KeyIndex(index.keys, index.groups, index.locations)._sorted
    if primed is not None:
        assert np.array_equal(primed[0], fresh[0]) and np.array_equal(index.keys.take(primed[1]), index.keys.take(fresh[1]))
    return index


def _opts(table_type: str) -> dict[str, str]:
    return {"hoodie.table.name": "t", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts"}


def _rows(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "v": [f"v{ts}"] * len(ids), "ts": [ts] * len(ids)})


def reference_index(path) -> dict[str, tuple[str, str]]:
    """Per key: the last group (in latest-slice order) where the merged slice holds it, else the last
    whose base file holds it (deleted there)."""
    props = read_properties(path)
    tl = Timeline(path, props)
    groups = list(latest_slices(path, props, tl).values())
    plan = HudiTable(path).plan(query="snapshot")
    tasks = {(t.partition, t.file_id): t for t in plan.tasks}
    best: dict[str, tuple[bool, int]] = {}
    for n, g in enumerate(groups):
        seen = []
        if g.base_file:
            seen += [(k, False) for k in pq.read_table(g.base_file, columns=["_hoodie_record_key"]).column(0).to_pylist()]
        task = tasks.get((g.partition, g.file_id))
        if props.is_mor and task is not None and task.log_files:
            live = set(k for k in read_slice(plan, task).column("_hoodie_record_key").to_pylist() if k is not None)
            seen = [(k, k in live) for k, _ in seen] + [(k, True) for k in live]
        else:
            seen = [(k, True) for k, _ in seen]
        for k, alive in seen:
            if k is not None and (k not in best or (alive, n) >= best[k]):
                best[k] = (alive, n)
    return {k: (groups[n].partition, groups[n].file_id) for k, (_, n) in best.items()}


def test_index_equals_merging_every_slice_on_the_corpus(corpus_tables):
    checked = 0
    for name, root in corpus_tables.items():
        for props_file in sorted(root.rglob(".hoodie/hoodie.properties")):
            path = props_file.parent.parent
            if "metadata" in path.parts:
                continue
            assert _index(path).to_dict() == reference_index(path), name
            checked += 1
    assert checked >= 15


@pytest.mark.parametrize("table_version", [6, 8])
def test_log_only_file_groups(tmp_path, table_version):
    path = tmp_path / "trips"
    expected, _ = write_log_only_table(path, table_version)
    index = _index(path)
    assert index.to_dict() == reference_index(path)
    assert set(index.to_dict()) == set(expected)  # live log-only keys are indexed, deleted ones are not
    assert index.get("uuid-001") == ("city=san_francisco", FG_SF) and index.get("uuid-002") is None
    # an upsert of a live log-only key appends to its group; of a deleted one, inserts a new group
    schema = pa.schema([("ts", pa.int64()), ("uuid", pa.string()), ("rider", pa.string()), ("fare", pa.float64()),
                        ("city", pa.string())])
    rows = pa.table({"ts": [5000, 5000], "uuid": ["uuid-001", "uuid-002"], "rider": ["r", "r"], "fare": [1.0, 2.0],
                     "city": ["san_francisco", "san_francisco"]}, schema=schema)
    res = write_table(path, rows, "upsert", {"hoodie.datasource.write.partitionpath.field": "city",
                                             "hoodie.datasource.write.hive_style_partitioning": "true"})
    assert (res.num_updates, res.num_inserts) == (1, 1)
    assert {s["fileId"] for s in res.write_stats if s["numUpdateWrites"]} == {FG_SF}
    assert _index(path).to_dict() == reference_index(path)


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_a_key_that_moved_group(tmp_path, table_type):
    """k deleted in group A, inserted again (group B): the index names B, where k is live."""
    path = tmp_path / "t"
    # no small-file packing, which would put k back into group A
    opts, t = {**_opts(table_type), "hoodie.parquet.small.file.limit": "0"}, _rows
    write_table(path, t(["k", "j"], 1), "insert", opts)
    a = _index(path).get("k")
    write_table(path, t(["k"], 2), "delete", opts)
    write_table(path, t(["k"], 3), "insert", opts)
    index = _index(path)
    assert index.to_dict() == reference_index(path)
    assert index.get("k") != a and index.get("j") == a


def test_key_index_lookups_and_pickling():
    index = KeyIndex.from_dict({f"k{i}": ("p1" if i % 2 else "p2", f"f{i % 3}") for i in range(1000)})
    again = pickle.loads(pickle.dumps(index))
    assert again == index and len(again) == 1000 and "_sorted_cache" not in pickle.loads(pickle.dumps(again)).__dict__
    keys = pa.array(["k1", "k2", "nope", "k999"])
    fids, parts = again.locate(keys)
    assert fids.to_pylist() == ["f1", "f2", None, "f0"] and parts.to_pylist() == ["p1", "p2", None, "p1"]
    fids, _ = again.locate(keys, pa.array(["p1", "p1", "p1", "p1"]))  # non-global: same partition only
    assert fids.to_pylist() == ["f1", None, None, "f0"]
    assert KeyIndex.empty().locate(keys)[0].to_pylist() == [None] * 4
    assert list(again.positions(pa.array([], pa.string()))) == [] and np.all(KeyIndex.empty().positions(keys) == -1)


def test_logs_that_commits_wrote_only_updates_to_are_not_read(tmp_path, monkeypatch):
    """Hudi counts a record as an update only where the index placed it in the group, so the keys of a
    log that no commit wrote inserts to are the group's already: the build skips decoding them."""
    import hudi_log.table.read.keys as read_mod

    path = tmp_path / "t"
    opts, t = _opts("MERGE_ON_READ"), _rows
    write_table(path, t(["a", "b", "c"], 1), "insert", opts)
    write_table(path, t(["a", "b"], 2), "upsert", opts)
    write_table(path, t(["c"], 3), "delete", opts)
    decoded = []
    real = read_mod.slice_log_keys
    monkeypatch.setattr(read_mod, "slice_log_keys", lambda plan, task: decoded.append(task.log_files) or real(plan, task))
    assert _index(path).to_dict() == reference_index(path)
    assert decoded == []


def test_update_only_logs_need_every_stat_naming_the_file_clean():
    from hudi_log.table.write.index import _update_only_logs

    class Inst:
        def __init__(self, t):
            self.requested_time = t

    stats = {
        "1": [{"path": "p/.f1_1.log.1_0-1-0", "numInserts": 0}, {"path": "p/.f2_1.log.1_0-1-0", "numInserts": 0}],
        "2": [{"path": "p/.f2_1.log.1_0-1-0", "numInserts": 3, "logFiles": [".f3_1.log.1_0-1-0"]}],
        "3": [{"path": "p/.f4_1.log.1_0-1-0", "numInserts": 0}],
    }

    class Tl:
        def completed_commits(self):
            return [Inst(t) for t in stats]

        def commit_metadata(self, inst):
            return {"partitionToWriteStats": {"p": stats[inst.requested_time]}}

    assert _update_only_logs(Tl(), "") == {".f1_1.log.1_0-1-0", ".f4_1.log.1_0-1-0"}
    assert _update_only_logs(Tl(), "3") == {".f4_1.log.1_0-1-0"}


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_deferred_index_is_built_into_a_file_the_workers_wait_for(tmp_path, table_type):
    from hudi_log.table.write.index import DeferredIndex
    from hudi_log.table.markers import marker_dir, work_dir
    from hudi_log.table.write.client import begin_write
    from hudi_log.table.write.task import write_batches

    path = tmp_path / "t"
    opts, t = _opts(table_type), _rows
    write_table(path, t(["a", "b", "c"], 1), "insert", opts)
    expected = _index(path).to_dict()
    tx = begin_write(path, "upsert", opts, schema=t(["a"], 2).schema, defer_index=True)
    deferred = isinstance(tx.context.index, DeferredIndex)
    assert deferred == (table_type == "MERGE_ON_READ")  # COW routes on the driver: built there and then
    ctx = pickle.loads(pickle.dumps(tx.context))  # what a task gets: the file's path, not the keys
    if deferred:
        assert len(pickle.dumps(ctx.index)) < 300
    assert ctx.index.to_dict() == expected
    stats = write_batches(ctx, t(["a", "d"], 2), 0)
    # Java's marker folder holds only marker files, named as Java names them (issue 15): the index is elsewhere
    temp = marker_dir(path, tx.instant)
    assert temp.is_dir() and all(".marker." in p.name for p in temp.rglob("*") if p.is_file())
    if deferred:
        assert Path(ctx.index.path).parent == work_dir(path, tx.instant)
    res = tx.commit(stats)
    tx.finish_index()
    assert (res.num_updates, res.num_inserts) == (1, 1)
    assert not marker_dir(path, res.instant).exists() and not work_dir(path, res.instant).exists()


def test_deferred_index_stops_waiting_when_the_write_is_rolled_back(tmp_path):
    from hudi_log.table.write.index import DeferredIndex
    from hudi_log.table.errors import WriteError

    folder = tmp_path / ".hoodie" / ".temp" / "001"
    folder.mkdir(parents=True)
    waiting = DeferredIndex(str(folder / "hudi_log.index.arrow"), timeout=0.2)
    with pytest.raises(WriteError, match="not ready after"):
        len(waiting)
    folder.rmdir()
    with pytest.raises(WriteError, match="rolled back"):
        len(DeferredIndex(str(folder / "hudi_log.index.arrow")))
    KeyIndex.from_dict({"k": ("p", "f")}).save(tmp_path / "i.arrow")
    assert DeferredIndex(str(tmp_path / "i.arrow")).get("k") == ("p", "f")


def test_a_write_committed_elsewhere_before_its_deferred_index_was_ready_leaves_nothing(tmp_path):
    """Spark commits in another process; with no rows to write, that can be before the driver's build
    finished. The driver then waits for its thread and removes whatever the build left."""
    from hudi_log.table.markers import marker_dir, work_dir
    from hudi_log.table.write.client import begin_write

    path = tmp_path / "t"
    opts = _opts("MERGE_ON_READ")
    write_table(path, _rows(["a", "b"], 1), "insert", opts)
    tx = begin_write(path, "upsert", opts, schema=_rows(["a"], 2).schema, defer_index=True)
    elsewhere = pickle.loads(pickle.dumps(tx))  # what Spark's commit process holds: no thread to wait for
    res = elsewhere.commit([])
    tx.finish_index()
    assert not marker_dir(path, res.instant).exists() and not work_dir(path, res.instant).exists()
    assert _index(path).to_dict() == reference_index(path)


# ---- the distributed index's executor side (key_lookup), run here without Spark -------------------------
def _executor_lookup(path, kind: str) -> dict[tuple[str, str], str]:
    """(partition, key) -> file id as hudi_log.spark.write's executors find it: SIMPLE reads each group's
    keys; BLOOM prunes by footer ranges and bloom filters, then checks the candidates. Keys looked up:
    every key the reference index knows, in its partition."""
    from hudi_log.table.write.key_lookup import check_candidates, group_keys, key_ranges, plan_index, range_candidates

    props = read_properties(path)
    tl = Timeline(path, props)
    index = plan_index(path, props, tl, latest_slices(path, props, tl), kind)
    ref = reference_index(path)
    keys = pa.array(list(ref), pa.string())
    parts = pa.array([p for p, _ in ref.values()], pa.string())
    if kind == "SIMPLE":
        found = group_keys(index, [g.ordinal for g in index.groups])
    else:
        index = index.with_ranges(key_ranges(index, [g.ordinal for g in index.groups]))
        at, ords = range_candidates(index, keys, parts)
        found = pa.concat_tables([check_candidates(index, int(o), keys.take(pa.array(at[ords == o])))
                                  for o in np.unique(ords)] or [group_keys(index, [])])
    best: dict[tuple[str, str], tuple[bool, int, str]] = {}
    for r in found.to_pylist():
        k = (r["partition"], r["key"])
        best[k] = max(best.get(k, (False, -1, "")), (r["live"], r["ordinal"], r["file_id"]))
    return {k: v[2] for k, v in best.items()}


@pytest.mark.parametrize("kind", ["SIMPLE", "BLOOM"])
def test_executor_lookup_finds_what_the_driver_index_finds(corpus_tables, tmp_path, kind):
    roots = [p.parent.parent for r in corpus_tables.values() for p in sorted(r.rglob(".hoodie/hoodie.properties"))
             if "metadata" not in p.parent.parent.parts]
    log_only = tmp_path / "trips"
    write_log_only_table(log_only, 8)
    moved = tmp_path / "moved"
    for op, ids, ts in (("insert", ["k", "j"], 1), ("delete", ["k"], 2), ("insert", ["k"], 3)):
        write_table(moved, _rows(ids, ts), op, _opts("MERGE_ON_READ"))
    for path in roots + [log_only, moved]:
        got = _executor_lookup(path, kind)
        for key, (part, fid) in reference_index(path).items():
            assert got[(part, key)] == fid, (path, key)


def test_unsupported_index_types_are_refused_by_name(tmp_path):
    from hudi_log.table.write.key_lookup import IndexTypeError

    for kind in ("GLOBAL_BLOOM", "BUCKET", "PARTITIONED_RECORD_INDEX"):
        with pytest.raises(IndexTypeError, match=f"hoodie.index.type={kind} is not supported"):
            write_table(tmp_path / "t", _rows(["a"], 1), "upsert", {**_opts("MERGE_ON_READ"), "hoodie.index.type": kind})
    assert not (tmp_path / "t").exists()
    # the record index is taken, and refused by name where the table has none
    from hudi_log.table.metadata.record_index import RecordIndexError

    with pytest.raises(RecordIndexError, match="the table has no record index"):
        write_table(tmp_path / "t", _rows(["a"], 1), "upsert", {**_opts("MERGE_ON_READ"), "hoodie.index.type": "RECORD_INDEX"})
    assert not (tmp_path / "t").exists()
