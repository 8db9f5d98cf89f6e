"""Table writes (issue 6, part A): create, the commit protocol, operations, rollback, bad input, CLI.

Every state is read back through BOTH our reader (``hudi_log.read_table``) and hudi-rs (PyPI ``hudi``):
snapshot, time travel to each completed instant and incremental windows between them. Incremental
windows are bounded by requested times on table version 6 and by completion times on version 8, as
each version's readers (Hudi 0.x / 1.x, hudi-rs) define them.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hudi_log import open_log, write_table
from hudi_log.format.grammar import BlockType
from hudi_log.table import read_properties, read_table
from hudi_log.table.write.create import TableMismatchError
from hudi_log.table.services.rollback import rollback
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.client import begin_write
from hudi_log.table.write.task import key_digest, repeated_hashes, route, write_batches, write_task
from hudi_log.table.errors import RecordKeyError, RollbackError, SchemaEvolutionError

hudi = pytest.importorskip("hudi")
from writers import crash
from hudi_rs_oracle import hudi_rs_rows  # noqa: E402

KINDS = [(t, v) for t in ("COPY_ON_WRITE", "MERGE_ON_READ") for v in (6, 8)]


def opts(table_type, version, partitioned=False, **extra):
    o = {
        "hoodie.table.name": "seed",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.write.table.version": version,
    }
    if partitioned:
        o["hoodie.datasource.write.partitionpath.field"] = "region"
        o["hoodie.datasource.write.hive_style_partitioning"] = "true"
    o.update(extra)
    return o


def rows(ids, names, ts, region=None):
    d = {"id": ids, "name": names, "ts": ts}
    if region is not None:
        d["region"] = region
    return pa.table(d)


def ours(path, **kw) -> list[tuple]:
    return sorted((r["id"], r["name"]) for r in read_table(path, **kw).to_pylist())


def theirs(path, **kw) -> list[tuple]:
    return sorted((r["id"], r["name"]) for r in hudi_rs_rows(path, **kw))


def both(path, **kw) -> list[tuple]:
    """The rows both readers return; fails when they disagree."""
    a = ours(path, **({"query": "incremental", **kw} if "begin" in kw else kw))
    b = theirs(path, **kw)
    assert a == b, f"our reader {a} != hudi-rs {b} ({kw})"
    return a


def window_bound(path, instant: str) -> str:
    """Incremental bounds: requested time (v6), completion time (v8)."""
    props = read_properties(path)
    inst = Timeline(path, props).instant(instant)
    return inst.completion_time if props.version >= 8 else inst.requested_time


def log_files(path):
    return sorted(p for p in path.rglob(".*.log.*") if ".hoodie" not in p.parts)


def assert_logs_reparse(path):
    for f in log_files(path):
        blocks = list(open_log(f, strict=True))
        assert blocks and not any(b.corrupt for b in blocks), f
        assert b"".join(b.to_bytes() for b in blocks) == f.read_bytes(), f


def pending(path):
    return [i for i in Timeline(path, read_properties(path)).instants if not i.is_completed]


# ---- the seed walkthrough ---------------------------------------------------------------------------
@pytest.mark.parametrize("partitioned", [False, True], ids=["flat", "partitioned"])
@pytest.mark.parametrize("table_type,version", KINDS)
def test_seed_walkthrough(tmp_path, table_type, version, partitioned):
    path = tmp_path / "seed"
    o = opts(table_type, version, partitioned)
    reg = (lambda n: ["eu", "us", "eu"][:n]) if partitioned else (lambda n: None)
    r1 = write_table(path, rows([1, 2, 3], ["a", "b", "c"], [1, 1, 1], reg(3)), "insert", o)
    r2 = write_table(path, rows([2, 3], ["bb", "cc"], [2, 2], ["us", "eu"] if partitioned else None), "upsert", o)
    r3 = write_table(path, rows([3], ["cc"], [3], ["eu"] if partitioned else None), "delete", o)

    assert both(path) == [(1, "a"), (2, "bb")]
    assert both(path, as_of=r1.instant) == [(1, "a"), (2, "b"), (3, "c")]
    assert both(path, as_of=r2.instant) == [(1, "a"), (2, "bb"), (3, "cc")]
    assert both(path, as_of=r3.instant) == [(1, "a"), (2, "bb")]
    b1, b2, b3 = (window_bound(path, r.instant) for r in (r1, r2, r3))
    assert both(path, begin=b1, end=b2) == [(2, "bb"), (3, "cc")]
    assert both(path, begin=b2, end=b3) == []  # a delete changes no live row
    assert both(path, begin=b1, end=b3) == [(2, "bb")]

    props = read_properties(path)
    assert props.checksum_ok() and props.version == version and props.table_type == table_type
    tl = Timeline(path, props)
    action = "deltacommit" if table_type == "MERGE_ON_READ" else "commit"
    assert [(i.action, i.state) for i in tl.instants] == [(action, "COMPLETED")] * 3
    assert (r1.num_inserts, r2.num_updates, r3.num_deletes) == (3, 2, 1)
    assert_logs_reparse(path)
    md = tl.commit_metadata(tl.instant(r2.instant))
    assert md["operationType"] == "UPSERT" and json.loads(md["extraMetadata"]["schema"])["name"] == "seed_record"
    upsert_files = [s["path"] for ss in md["partitionToWriteStats"].values() for s in ss]
    if table_type == "MERGE_ON_READ":
        # updates land in log files: an Avro data block with the new rows, the delete in a delete block
        assert upsert_files and all(s.split("/")[-1].startswith(".") and ".log." in s for s in upsert_files)
        blocks = [b for f in log_files(path) for b in open_log(f)]
        data = [r for b in blocks if b.block_type == BlockType.avro_data_block for r in b.records()]
        assert sorted((r["id"], r["name"]) for r in data) == [(2, "bb"), (3, "cc")]
        dels = [d for b in blocks if b.block_type == BlockType.delete_block for d in b.deletes()]
        assert [d.record_key for d in dels] == ["3"]
    else:
        assert log_files(path) == []
        # COW: the updated file group got a new base file (same file id, new instant)
        assert all(p.endswith(f"_{r2.instant}.parquet") for p in upsert_files)
        first = {s["fileId"] for ss in tl.commit_metadata(tl.instant(r1.instant))["partitionToWriteStats"].values()
                 for s in ss}
        assert {s["fileId"] for ss in md["partitionToWriteStats"].values() for s in ss} <= first


@pytest.mark.parametrize("table_type,version", KINDS)
def test_base_files_carry_meta_columns_and_footer(tmp_path, table_type, version):
    path = tmp_path / "t"
    write_table(path, rows([1, 2], ["a", "b"], [1, 1]), "insert", opts(table_type, version))
    [f] = [p for p in path.glob("*.parquet")]
    t = pq.read_table(f)
    assert t.column_names[:5] == ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                                  "_hoodie_partition_path", "_hoodie_file_name"]
    assert set(t.column("_hoodie_file_name").to_pylist()) == {f.name}
    meta = pq.read_metadata(f).metadata
    schema = json.loads(meta[b"parquet.avro.schema"])
    assert [x["name"] for x in schema["fields"]][:5] == t.column_names[:5]
    assert meta[b"hoodie_min_record_key"] == b"1" and meta[b"hoodie_max_record_key"] == b"2"


# ---- other operations -------------------------------------------------------------------------------
@pytest.mark.parametrize("table_type,version", KINDS)
def test_insert_overwrite_replaces_written_partitions(tmp_path, table_type, version):
    path = tmp_path / "t"
    o = opts(table_type, version, partitioned=True)
    write_table(path, rows([1, 2, 3], ["a", "b", "c"], [1, 1, 1], ["eu", "us", "eu"]), "insert", o)
    r = write_table(path, rows([7], ["g"], [1], ["eu"]), "insert_overwrite", o)
    assert r.action == "replacecommit" and list(r.replaced_file_ids) == ["region=eu"]
    assert both(path) == [(2, "b"), (7, "g")]
    tl = Timeline(path, read_properties(path))
    assert tl.commit_metadata(tl.instant(r.instant))["partitionToReplaceFileIds"] == r.replaced_file_ids
    # and a later upsert into the overwritten partition finds the new file group
    write_table(path, rows([7], ["gg"], [2], ["eu"]), "upsert", o)
    assert both(path) == [(2, "b"), (7, "gg")]


@pytest.mark.parametrize("table_type,version", KINDS)
def test_bulk_insert_and_precombine(tmp_path, table_type, version):
    path = tmp_path / "t"
    o = opts(table_type, version)
    write_table(path, rows([1, 2], ["a", "b"], [1, 1]), "bulk_insert", o)
    # upsert precombines within the batch: the greatest ts wins, whatever the row order
    write_table(path, rows([1, 1, 1, 3], ["x", "late", "y", "c"], [5, 9, 7, 1]), "upsert", o)
    assert both(path) == [(1, "late"), (2, "b"), (3, "c")]


@pytest.mark.parametrize("table_type,version", KINDS)
def test_insert_of_an_existing_key_duplicates_it_as_hudi_does(tmp_path, table_type, version):
    """Hudi's INSERT skips the index lookup (no hoodie.datasource.write.insert.drop.duplicates): a key that
    exists is inserted again where the insert lands. Into a new file group it is a duplicate; packed into
    the small file that holds it, the merge replaces the stored row, unless
    hoodie.merge.allow.duplicate.on.inserts=true adds it beside (Java's concat handle)."""
    cases = {"new group": ({"hoodie.parquet.small.file.limit": "0"}, [(1, "a"), (1, "again")]),
             "packed": ({}, [(1, "again")]),
             "packed, duplicates allowed": ({"hoodie.merge.allow.duplicate.on.inserts": "true"},
                                            [(1, "a"), (1, "again")])}
    for name, (extra, want) in cases.items():
        path = tmp_path / name.replace(" ", "_").replace(",", "")
        o = {**opts(table_type, version), **extra}
        write_table(path, rows([1], ["a"], [1]), "insert", o)
        write_table(path, rows([1], ["again"], [2]), "insert", o)
        assert both(path) == want, name


def test_added_nullable_column_evolves_the_schema(tmp_path):
    path = tmp_path / "t"
    o = opts("MERGE_ON_READ", 6)
    write_table(path, rows([1, 2], ["a", "b"], [1, 1]), "insert", o)
    write_table(path, pa.table({"id": [2], "name": ["bb"], "ts": [2], "extra": [4.5]}), "upsert", o)
    got = {r["id"]: r for r in read_table(path).to_pylist()}
    assert got[1]["extra"] is None and got[2]["extra"] == 4.5 and got[2]["name"] == "bb"
    rs = {r["id"]: r for r in hudi_rs_rows(path)}
    assert rs[2]["extra"] == 4.5 and rs[1]["extra"] is None


# ---- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("table_type,version", KINDS)
def test_record_without_key_fails_and_leaves_only_a_rollback(tmp_path, table_type, version):
    path = tmp_path / "t"
    o = opts(table_type, version)
    write_table(path, rows([1], ["a"], [1]), "insert", o)
    bad = pa.table({"id": pa.array([2, None], pa.int64()), "name": ["b", "x"], "ts": [1, 1]})
    with pytest.raises(RecordKeyError, match="row 1"):
        write_table(path, bad, "upsert", o)
    tl = Timeline(path, read_properties(path))
    assert pending(path) == []
    assert [i.action for i in tl.instants] == ["deltacommit" if table_type == "MERGE_ON_READ" else "commit",
                                               "rollback"]
    assert both(path) == [(1, "a")]


def test_incompatible_schema_and_other_table_type_or_version_leave_no_instant(tmp_path):
    path = tmp_path / "t"
    o = opts("COPY_ON_WRITE", 6)
    write_table(path, rows([1], ["a"], [1]), "insert", o)
    before = sorted(p.name for p in (path / ".hoodie").iterdir())
    with pytest.raises(SchemaEvolutionError, match="name"):
        write_table(path, pa.table({"id": [2], "name": [True], "ts": [1]}), "upsert", o)  # no boolean → string
    with pytest.raises(SchemaEvolutionError, match="lacks column 'name'"):
        write_table(path, pa.table({"id": [2], "ts": [1]}), "upsert", o)
    with pytest.raises(TableMismatchError, match="MERGE_ON_READ"):
        write_table(path, rows([2], ["b"], [1]), "upsert", opts("MERGE_ON_READ", 6))
    with pytest.raises(TableMismatchError, match="MERGE_ON_READ"):  # refused before its upgrade changes anything
        write_table(path, rows([2], ["b"], [1]), "upsert", opts("MERGE_ON_READ", 8))
    with pytest.raises(TableMismatchError, match="version"):  # a version hudi-log neither writes nor moves to
        write_table(path, rows([2], ["b"], [1]), "upsert", opts("COPY_ON_WRITE", 7))
    assert sorted(p.name for p in (path / ".hoodie").iterdir()) == before
    assert both(path) == [(1, "a")]


# ---- failed writes and rollback -------------------------------------------------------------------
def _failed_write(path, o):
    """A write killed after writing its files, before its commit."""
    tx = begin_write(path, "upsert", o, schema=rows([1], ["a"], [1]).schema)
    write_batches(tx.context, rows([2, 4], ["FAILED", "FAILED"], [9, 9]), 0)
    crash(tx)  # its heartbeat goes stale: a dead writer's instant, which the next one may roll back
    return tx.instant


@pytest.mark.parametrize("table_type,version", KINDS)
def test_failed_write_then_rollback(tmp_path, table_type, version):
    path = tmp_path / "t"
    o = opts(table_type, version)
    write_table(path, rows([1, 2, 3], ["a", "b", "c"], [1, 1, 1]), "insert", o)
    write_table(path, rows([3], ["cc"], [2]), "upsert", o)
    failed = _failed_write(path, o)
    expected = [(1, "a"), (2, "b"), (3, "cc")]
    assert both(path) == expected  # the pending instant is invisible to both readers
    assert [i.requested_time for i in pending(path)] == [failed]

    done = rollback(path, failed)
    assert done.action == "rollback" and done.is_completed and pending(path) == []
    assert both(path) == expected
    assert not (path / ".hoodie" / ".temp" / failed).exists()
    assert not [p for p in path.glob("*.parquet") if failed in p.name]
    logs_of_failed = [p for p in log_files(path) if any(b.instant_time == failed for b in open_log(p))]
    if table_type == "MERGE_ON_READ" and version == 6:
        # v6 keeps the log and appends a ROLLBACK command block targeting the failed instant
        cmds = [b for f in log_files(path) for b in open_log(f) if b.block_type == BlockType.command_block]
        assert [b.target_instant_time for b in cmds] == [failed]
        assert logs_of_failed
    else:
        assert logs_of_failed == []  # v8 (and COW) delete the failed files
    assert_logs_reparse(path)
    md = Timeline(path, read_properties(path)).commit_metadata(done)
    assert md["commitsRollback"] == [failed]
    # a later write works on the rolled-back table
    write_table(path, rows([2], ["bb"], [3]), "upsert", o)
    assert both(path) == [(1, "a"), (2, "bb"), (3, "cc")]


@pytest.mark.parametrize("table_type,version", KINDS)
def test_next_write_rolls_back_a_failed_write(tmp_path, table_type, version):
    path = tmp_path / "t"
    o = opts(table_type, version)
    write_table(path, rows([1, 2], ["a", "b"], [1, 1]), "insert", o)
    failed = _failed_write(path, o)
    r = write_table(path, rows([1], ["aa"], [2]), "upsert", o)
    assert len(r.rolled_back) == 1 and pending(path) == []
    assert both(path) == [(1, "aa"), (2, "b")]
    actions = [(i.action, i.requested_time == failed) for i in Timeline(path, read_properties(path)).instants]
    assert ("rollback", False) in actions and not any(f for _, f in actions)


def test_rollback_refuses_completed_and_unknown_instants(tmp_path):
    path = tmp_path / "t"
    r = write_table(path, rows([1], ["a"], [1]), "insert", opts("MERGE_ON_READ", 6))
    with pytest.raises(RollbackError, match="completed"):
        rollback(path, r.instant)
    with pytest.raises(RollbackError, match="no instant"):
        rollback(path, "20200101000000000")


# ---- several tasks --------------------------------------------------------------------------------
@pytest.mark.parametrize("version", [6, 8])
def test_two_tasks_update_one_mor_file_group(tmp_path, version):
    path = tmp_path / "t"
    o = opts("MERGE_ON_READ", version)
    write_table(path, rows([1, 2, 3, 4], ["a", "b", "c", "d"], [1, 1, 1, 1]), "insert", o)
    batch = rows([1, 2, 3, 5], ["A", "B", "C", "E"], [2, 2, 2, 2])
    tx = begin_write(path, "upsert", o, schema=batch.schema)
    fids = route(tx.context, batch.to_batches()[0]).to_pylist()
    assert fids[3] == "" and len(set(fids[:3])) == 1 and fids[0]
    stats = write_batches(tx.context, batch.slice(0, 2), 0) + write_batches(tx.context, batch.slice(2, 2), 1)
    r = tx.commit(stats)
    assert r.num_updates == 3 and r.num_inserts == 1
    # each task wrote its own data block in its own log file (a new version; local disk never appends)
    blocks = [b for f in log_files(path) for b in open_log(f) if b.instant_time == r.instant]
    assert [b.block_type for b in blocks] == [BlockType.avro_data_block] * 2
    assert len({s["path"] for s in stats}) == 3  # two log files and one new base file
    assert both(path) == [(1, "A"), (2, "B"), (3, "C"), (4, "d"), (5, "E")]


def test_key_digests_find_a_key_two_tasks_wrote(tmp_path):
    """What a Spark commit checks instead of shuffling: each task's digest is the sorted distinct hashes
    of the (partition, key) pairs it wrote (after its own precombine); a pair in two digests is found,
    the same key in two partitions is two pairs."""
    path = tmp_path / "t"
    o = opts("MERGE_ON_READ", 6, partitioned=True)
    write_table(path, rows([1, 2, 3], ["a", "b", "c"], [1, 1, 1], ["eu", "eu", "us"]), "insert", o)
    batch = rows([1, 1, 2, 3, 4], ["A", "AA", "B", "C", "D"], [2, 3, 2, 2, 2], ["eu", "eu", "eu", "us", "us"])
    tx = begin_write(path, "upsert", o, schema=batch.schema)
    first = write_task(tx.context, batch.slice(0, 3), 0, digest=True)  # 1 twice: combined in the task
    second = write_task(tx.context, batch.slice(3, 2), 1, digest=True)
    assert write_task(tx.context, batch.slice(0, 0), 2, digest=True).key_digest.tolist() == []
    assert write_task(tx.context, batch.slice(0, 0), 2).key_digest is None
    assert len(first.key_digest) == 2 and list(first.key_digest) == sorted(first.key_digest)
    assert len(second.key_digest) == 2 and repeated_hashes([first.key_digest, second.key_digest]) == 0
    tx.commit(first.stats + second.stats)
    assert both(path) == [(1, "AA"), (2, "B"), (3, "C"), (4, "D")]
    k, eu, us = pa.array(["1", "2"]), pa.array(["eu", "eu"]), pa.array(["us", "eu"])
    assert repeated_hashes([key_digest(k, eu), key_digest(k, us)]) == 1  # key 2 in eu twice; key 1 differs
    assert repeated_hashes([key_digest(k, eu), None, key_digest(k.slice(0, 0), eu.slice(0, 0))]) == 0


# ---- CLI -------------------------------------------------------------------------------------------
def test_cli_write_and_rollback(tmp_path):
    from hudi_log.cli import main

    path = tmp_path / "t"
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": 1, "name": "a", "ts": 1}\n{"id": 2, "name": "b", "ts": 1}\n')
    runner = CliRunner()
    res = runner.invoke(main, ["write", str(path), "--input", str(src), "--operation", "insert",
                               "--record-key", "id", "--precombine", "ts", "--table-type", "MERGE_ON_READ",
                               "--table-name", "seed", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["inserts"] == 2
    pq.write_table(pa.table({"id": [2], "name": ["bb"], "ts": [2]}), tmp_path / "up.parquet")
    res = runner.invoke(main, ["write", str(path), "--input", str(tmp_path / "up.parquet")])
    assert res.exit_code == 0, res.output
    assert both(path) == [(1, "a"), (2, "bb")]
    # bad input: exit 2 with one line, no traceback
    res = runner.invoke(main, ["write", str(path), "--input", str(src), "--table-type", "COPY_ON_WRITE"])
    assert res.exit_code == 2 and "COPY_ON_WRITE" in res.output and "Traceback" not in res.output
    failed = _failed_write(path, opts("MERGE_ON_READ", 6))
    res = runner.invoke(main, ["rollback", str(path), failed])
    assert res.exit_code == 0, res.output
    assert pending(path) == [] and both(path) == [(1, "a"), (2, "bb")]
    res = runner.invoke(main, ["rollback", str(path), failed])
    assert res.exit_code == 2 and "no instant" in res.output


@pytest.mark.parametrize("table_type,version", KINDS)
def test_merge_mode_decides_lower_ordering_updates_and_deletes(tmp_path, table_type, version):
    # v6 tables get Hudi 0.x's default payload (OverwriteWithLatestAvroPayload: commit-time ordering);
    # v8 tables EVENT_TIME_ORDERING: a lower ts does not overwrite. A delete operation carries Hudi's
    # default ordering value, IntWrapper 0, as Java's writers do (keys only), so it always wins, with or
    # without the ordering column. COW merges as MOR reads.
    path = tmp_path / "t"
    o = opts(table_type, version)
    write_table(path, rows([1, 2, 3], ["a", "b", "c"], [5, 5, 5]), "insert", o)
    write_table(path, rows([1], ["lower"], [3]), "upsert", o)
    write_table(path, rows([2], ["x"], [3]), "delete", o)
    write_table(path, pa.table({"id": [3]}), "delete", o)
    assert both(path) == ([(1, "lower")] if version == 6 else [(1, "a")])


@pytest.mark.parametrize("table_type,version", KINDS)
def test_delete_of_unknown_keys_is_an_empty_commit_both_readers_read(tmp_path, table_type, version):
    path = tmp_path / "t"
    o = opts(table_type, version)
    write_table(path, rows([1], ["a"], [1]), "insert", o)
    r = write_table(path, rows([9], ["z"], [1]), "delete", o)
    assert r.write_stats == [] and r.num_deletes == 0
    assert both(path) == [(1, "a")] and both(path, as_of=r.instant) == [(1, "a")]


def test_interrupted_rollback_is_finished_by_the_next_write(tmp_path, monkeypatch):
    from hudi_log.table.services import rollback as rb

    path = tmp_path / "t"
    o = opts("MERGE_ON_READ", 6)
    write_table(path, rows([1, 2], ["a", "b"], [1, 1]), "insert", o)
    write_table(path, rows([2], ["bb"], [2]), "upsert", o)
    failed = _failed_write(path, o)

    def killed(*a, **k):
        raise KeyboardInterrupt("killed while rolling back")
    monkeypatch.setattr(rb, "_execute", killed)
    with pytest.raises(KeyboardInterrupt):
        rollback(path, failed)
    monkeypatch.undo()
    assert {i.action for i in pending(path)} == {"rollback", "deltacommit"}
    assert both(path) == [(1, "a"), (2, "bb")]
    r = write_table(path, rows([1], ["aa"], [3]), "upsert", o)
    assert pending(path) == [] and len(r.rolled_back) == 1
    assert both(path) == [(1, "aa"), (2, "bb")]
    cmds = [b for f in log_files(path) for b in open_log(f) if b.block_type == BlockType.command_block]
    assert [b.target_instant_time for b in cmds] == [failed]


def test_write_context_pickles_and_writes_from_a_copy(tmp_path):
    import pickle

    path = tmp_path / "t"
    o = opts("COPY_ON_WRITE", 8)
    write_table(path, rows([1, 2], ["a", "b"], [1, 1]), "insert", o)
    batch = rows([2], ["bb"], [2])
    tx = begin_write(path, "upsert", o, schema=batch.schema)
    ctx = pickle.loads(pickle.dumps(tx.context))
    assert ctx.index == tx.context.index and ctx.instant == tx.instant
    assert len(ctx.index) == 2 and ctx.index.get("3") is None
    assert route(ctx, batch.to_batches()[0]).to_pylist() == [ctx.index.get("2")[1]]
    tx.commit(write_batches(ctx, batch.to_batches(), 3))
    assert both(path) == [(1, "a"), (2, "bb")]


@pytest.mark.parametrize("table_type,version", KINDS)
def test_complex_keys_and_null_partition_values(tmp_path, table_type, version):
    path = tmp_path / "t"
    o = opts(table_type, version, **{"hoodie.datasource.write.recordkey.field": "id,name",
                                    "hoodie.datasource.write.partitionpath.field": "region",
                                    "hoodie.datasource.write.hive_style_partitioning": "false"})
    write_table(path, rows([1, 1], ["a", "b"], [1, 1], ["eu", None]), "insert", o)
    write_table(path, pa.table({"id": [1], "name": ["b"], "ts": [2], "region": pa.array([None], pa.string())}),
                "delete", o)
    got = read_table(path).to_pylist()
    assert [(r["_hoodie_record_key"], r["_hoodie_partition_path"]) for r in got] == [("id:1,name:a", "eu")]
    assert (path / "__HIVE_DEFAULT_PARTITION__" / ".hoodie_partition_metadata").exists()
    assert both(path) == [(1, "a")]
    assert read_properties(path)["hoodie.table.recordkey.fields"] == "id,name"


def test_rollback_removes_a_base_file_left_half_written(tmp_path):
    path = tmp_path / "t"
    o = opts("COPY_ON_WRITE", 6)
    write_table(path, rows([1], ["a"], [1]), "insert", o)
    tx = begin_write(path, "insert", o, schema=rows([1], ["a"], [1]).schema)
    half = path / f".{'f' * 8}-0000-0000-0000-{'0' * 12}-0_0-1-0_{tx.instant}.parquet.tmp"
    half.write_bytes(b"PAR1")  # killed while pyarrow was writing it
    tx.abort()
    assert not half.exists() and pending(path) == [] and both(path) == [(1, "a")]


def test_new_file_groups_are_sized_by_the_max_file_size(tmp_path):
    path = tmp_path / "t"
    o = opts("MERGE_ON_READ", 8, **{"hoodie.parquet.max.file.size": str(3 * 1024)})  # 3 records of ~1 KiB
    r = write_table(path, rows(list(range(7)), list("abcdefg"), [1] * 7), "insert", o)
    assert sorted(s["numInserts"] for s in r.write_stats) == [1, 3, 3]
    assert len({s["fileId"] for s in r.write_stats}) == 3
    assert all(s["fileId"].endswith("-0") and len(s["fileId"]) == 38 for s in r.write_stats)
    assert len(both(path)) == 7


# ---- writing into tables Apache Hudi wrote ------------------------------------------------------------
CORPUS_WRITES = ["quickstart_trips_table_mor_avro_v6_trips_8i1u", "quickstart_trips_table_mor_avro_v8_trips_8i3u1d",
                 "sample_table_cow_v6_nonpartitioned", "sample_table_cow_v8_simplekeygen_nonhivestyle",
                 "sample_table_mor_parquet_v6_nonpartitioned_rollback"]


def _all_rows(rows: list[dict]) -> dict:
    key = "_hoodie_record_key"
    return {r[key]: {k: v for k, v in r.items() if not k.startswith("_hoodie")} for r in rows}


@pytest.mark.parametrize("name", CORPUS_WRITES)
def test_upsert_and_delete_into_a_table_hudi_wrote(tmp_path, corpus_tables, name):
    import shutil

    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    before = read_table(path)
    keys = sorted(_all_rows(before.to_pylist()))
    first = before.filter(pa.compute.equal(before.column("_hoodie_record_key"), keys[0]))
    props = read_properties(path)
    data = first.drop_columns([c for c in first.column_names if c.startswith("_hoodie")])
    ordering = props.ordering_fields[0]
    data = data.set_column(data.column_names.index(ordering), ordering,
                           pa.compute.add(data.column(ordering), pa.scalar(1, data.column(ordering).type)))
    o = {"hoodie.metadata.enable": "false"}  # hudi-log keeps no metadata table: drop it as Hudi would
    write_table(path, data, "upsert", o)
    doomed = before.filter(pa.compute.equal(before.column("_hoodie_record_key"), keys[-1]))
    write_table(path, doomed.drop_columns([c for c in doomed.column_names if c.startswith("_hoodie")]), "delete", o)

    after = read_table(path)
    theirs_rows = _all_rows(hudi_rs_rows(path))
    ours_rows = _all_rows(after.to_pylist())
    assert set(ours_rows) == set(theirs_rows) == set(keys) - {keys[-1]}
    assert ours_rows[keys[0]][ordering] == data.column(ordering)[0].as_py()
    assert theirs_rows[keys[0]][ordering] == data.column(ordering)[0].as_py()
    assert_logs_reparse(path)
    assert pending(path) == [] or {i.action for i in pending(path)} <= {"compaction", "indexing"}


def test_a_table_with_a_metadata_table_is_refused_without_the_option(tmp_path, corpus_tables):
    import shutil
    from hudi_log.table.write.create import MetadataTableError

    name = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    # every index it lists has a builder now: an expression index (none has) is what gets it refused
    from hudi_log.table.properties import read_properties, write_properties
    props = read_properties(path).to_dict()
    props["hoodie.table.metadata.partitions"] += ",expr_index_fare"
    write_properties(path, props)
    before = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    with pytest.raises(MetadataTableError, match="hoodie.metadata.enable=false"):
        write_table(path, pa.table({"uuid": ["x"], "ts": [1]}), "upsert", {})
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == before
    assert (path / ".hoodie" / "metadata").is_dir()


@pytest.mark.parametrize("version", [6, 8])
def test_parquet_log_blocks_by_option(tmp_path, version):
    path = tmp_path / "t"
    o = opts("MERGE_ON_READ", version, **{"hoodie.logfile.data.block.format": "parquet"})
    write_table(path, rows([1, 2], ["a", "b"], [1, 1]), "insert", o)
    write_table(path, rows([2], ["bb"], [2]), "upsert", o)
    kinds = {b.block_type for f in log_files(path) for b in open_log(f)}
    assert kinds == {BlockType.parquet_data_block}
    assert both(path) == [(1, "a"), (2, "bb")]
    assert_logs_reparse(path)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_combine_before_upsert_false_writes_duplicates_as_they_come(tmp_path, table_type):
    """Hudi's hoodie.combine.before.upsert=false: a new key given twice is inserted twice (the caller
    vouched there were no duplicates); by default the rows are combined into one. (Into a new file group:
    Java's merge of a small file keys the incoming rows by key, so there the last one would win.)"""
    o = {**opts(table_type, 6), "hoodie.parquet.small.file.limit": "0"}
    for combine, want in (("true", 1), ("false", 2)):
        path = tmp_path / f"t-{combine}"
        write_table(path, rows([1], ["a"], [1]), "insert", o)
        res = write_table(path, rows([2, 2], ["b", "bb"], [1, 2]), "upsert",
                          {**o, "hoodie.combine.before.upsert": combine})
        assert res.num_inserts == want
        assert sorted(r["id"] for r in read_table(path).to_pylist()).count(2) == want
