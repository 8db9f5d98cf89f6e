"""The streaming sink's driver side without Spark (issue 18, item 1): one commit per micro-batch with Hudi's
checkpoint in its metadata, replays skipped, the delete-flag column, a killed micro-batch rolled back,
inline compaction. The Spark streams themselves: tests/test_spark_streaming.py."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")

from hudi_log.spark.stream_sink import (  # noqa: E402
    QUERY_ID_KEY, SINK_CHECKPOINT_KEY, StreamingSinkError, commit_micro_batch, sink_checkpoint,
)
from hudi_log.table import read_properties, read_table  # noqa: E402
from hudi_log.table.timeline.timeline import Timeline  # noqa: E402
from hudi_log.table.write.client import begin_write, write_table  # noqa: E402
from hudi_log.table.write.task import write_batches  # noqa: E402
from writers import crash  # noqa: E402


def opts(table_type="MERGE_ON_READ", version=6, **extra):
    o = {"hoodie.table.name": "stream", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
         "hoodie.write.table.version": str(version), "hoodie.datasource.compaction.async.enable": "false"}
    o.update(extra)
    return o


def batch(ids, ts, names=None, deleted=None):
    d = {"id": ids, "name": names or [f"n{i}" for i in ids], "ts": ts}
    if deleted is not None:
        d["_hoodie_is_deleted"] = deleted
    return pa.table(d)


def rows(path) -> dict:
    return {r["id"]: r["name"] for r in read_table(path).to_pylist()}


def commits(path) -> list:
    tl = Timeline(path, read_properties(path))
    return [tl.commit_metadata(i) for i in tl.completed_commits()]


@pytest.mark.parametrize("version", [6, 8])
def test_checkpoint_in_commit_metadata_and_replay_skipped(tmp_path, version):
    t = tmp_path / "t"
    o = opts(version=version, **{"hoodie.datasource.write.operation": "insert"})
    r0 = commit_micro_batch(t, o, batch([1, 2], [1, 1]), 0, "q1")
    assert r0.instant and not r0.skipped
    extra = commits(t)[-1]["extraMetadata"]
    # Java's key and value: {identifier: "batchId"}, identifier default_single_writer
    assert json.loads(extra[SINK_CHECKPOINT_KEY]) == {"default_single_writer": "0"}
    assert extra[QUERY_ID_KEY] == "q1"
    # the replay of batch 0 after a crash before Spark's checkpoint: an insert would duplicate the rows
    again = commit_micro_batch(t, o, batch([1, 2], [1, 1]), 0, "q1")
    assert again.skipped and again.instant is None
    assert len(commits(t)) == 1 and len(read_table(t)) == 2
    r1 = commit_micro_batch(t, o, batch([3], [1]), 1, "q1")
    assert not r1.skipped and sorted(rows(t)) == [1, 2, 3]
    assert sink_checkpoint(t).batch_id == 1
    # a new query (a new Spark checkpoint) counts from 0 again: its batches are not taken for replays
    assert not commit_micro_batch(t, o, batch([4], [1]), 0, "q2").skipped
    assert sorted(rows(t)) == [1, 2, 3, 4]
    # another identifier is another writer
    other = dict(o, **{"hoodie.datasource.write.streaming.checkpoint.identifier": "w2"})
    assert not commit_micro_batch(t, other, batch([5], [1]), 0, "q1").skipped
    assert sink_checkpoint(t, "w2").batch_id == 0 and sink_checkpoint(t).query_id == "q2"


def test_checkpoint_written_by_java_counts(tmp_path):
    """A commit whose checkpoint has no query id (Java's sink) decides by batch id alone, as Java does."""
    t = tmp_path / "t"
    write_table(t, batch([1], [1]), None, opts(), extra_metadata={SINK_CHECKPOINT_KEY: '{"default_single_writer":"7"}'})
    assert commit_micro_batch(t, opts(), batch([2], [1]), 7, "q").skipped
    assert not commit_micro_batch(t, opts(), batch([2], [1]), 8, "q").skipped


def test_unreadable_checkpoint_is_refused(tmp_path):
    t = tmp_path / "t"
    write_table(t, batch([1], [1]), None, opts(), extra_metadata={SINK_CHECKPOINT_KEY: "not json"})
    with pytest.raises(StreamingSinkError, match="unreadable"):
        commit_micro_batch(t, opts(), batch([2], [1]), 0, "q")


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_delete_flag_column(tmp_path, table_type):
    t = tmp_path / "t"
    o = opts(table_type)
    commit_micro_batch(t, o, batch([1, 2, 3], [1, 1, 1], deleted=[False, False, False]), 0, "q")
    # key 2 deleted by its flag; key 9 is new and flagged: never inserted; key 3 updated
    commit_micro_batch(t, o, batch([2, 9, 3], [2, 2, 2], ["x", "y", "z"], [True, True, False]), 1, "q")
    assert rows(t) == {1: "n1", 3: "z"}


def test_delete_operation_never_skipped(tmp_path):
    t = tmp_path / "t"
    commit_micro_batch(t, opts(), batch([1, 2], [1, 1]), 5, "q")
    d = opts(**{"hoodie.datasource.write.operation": "delete"})
    assert not commit_micro_batch(t, d, batch([1], [2]), 0, "q").skipped
    assert rows(t) == {2: "n2"}


def test_killed_micro_batch_is_rolled_back(tmp_path):
    t = tmp_path / "t"
    o = opts(**{"hoodie.client.heartbeat.interval_in_ms": "500"})
    commit_micro_batch(t, o, batch([1], [1]), 0, "q")
    tx = begin_write(t, None, o, schema=batch([2], [1]).schema)  # batch 1, killed before its commit
    write_batches(tx.context, batch([2], [1]), 0)
    crash(tx)
    r = commit_micro_batch(t, o, batch([2], [1]), 1, "q")  # the restarted query runs batch 1 again
    tl = Timeline(t, read_properties(t))
    assert tx.instant not in tl.completed_commit_times() and not tl.pending()
    assert r.instant in tl.completed_commit_times() and rows(t) == {1: "n1", 2: "n2"}


def test_failed_write_leaves_no_completed_instant(tmp_path):
    t = tmp_path / "t"
    commit_micro_batch(t, opts(), batch([1], [1]), 0, "q")
    bad = pa.table({"id": [None], "name": ["x"], "ts": [1]}, schema=batch([1], [1]).schema)  # no record key
    with pytest.raises(Exception):
        commit_micro_batch(t, opts(), bad, 1, "q")
    tl = Timeline(t, read_properties(t))
    assert len(tl.completed_commits()) == 1 and not tl.pending() and sink_checkpoint(t).batch_id == 0


def test_inline_compaction_every_n_delta_commits(tmp_path):
    t = tmp_path / "t"
    o = opts(**{"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "3"})
    done = [commit_micro_batch(t, o, batch([1, 2], [b, b], [f"v{b}"] * 2), b, "q") for b in range(4)]
    # batches 0 (inserts), 1, 2: three delta commits, then the compaction; batch 3 only counts again
    assert [r.compaction is not None for r in done] == [False, False, True, False]
    tl = Timeline(t, read_properties(t))
    assert [i.action for i in tl.completed_commits()].count("commit") == 1
    assert rows(t) == {1: "v3", 2: "v3"}


def test_empty_batch_commits_nothing(tmp_path):
    t = tmp_path / "t"
    commit_micro_batch(t, opts(), batch([1], [1]), 0, "q")
    assert commit_micro_batch(t, opts(), None, 1, "q").instant is None
    assert len(commits(t)) == 1


def test_replace_operations_per_micro_batch(tmp_path):
    t = tmp_path / "t"
    part = {"hoodie.datasource.write.partitionpath.field": "name"}
    commit_micro_batch(t, opts(**part), batch([1, 2], [1, 1]), 0, "q")
    o = opts(**part, **{"hoodie.datasource.write.operation": "insert_overwrite_table"})
    assert commit_micro_batch(t, o, batch([7, 8], [1, 1]), 1, "q").instant
    assert rows(t) == {7: "n7", 8: "n8"}
    assert commits(t)[-1]["operationType"] == "INSERT_OVERWRITE_TABLE"
    d = opts(**part, **{"hoodie.datasource.write.operation": "delete_partition"})
    assert commit_micro_batch(t, d, batch([7], [2]), 2, "q").instant  # the records' partition (n7) goes
    assert rows(t) == {8: "n8"}


def _async_stream(t, batches: int, **extra):
    """``batches`` micro-batches through the sink with async compaction (the default), every batch updating
    keys 1..3 and inserting one key of its own (in a new file group: no small-file packing, so the updates
    go to log files); the compaction service joined at the end."""
    from hudi_log.spark.stream_services import join_services

    o = opts(**{"hoodie.datasource.compaction.async.enable": "true", "hoodie.parquet.small.file.limit": "0",
                "hoodie.compact.inline.max.delta.commits": "2", **extra})
    done = [commit_micro_batch(t, o, batch([1, 2, 3, 10 + b], [b] * 4, [f"v{b}"] * 4), b, "q")
            for b in range(batches)]
    assert join_services(t) is None
    return done


@pytest.mark.parametrize("version", [6, 8])
def test_async_compaction_runs_beside_later_micro_batches(tmp_path, version):
    from hudi_log.table.metadata_files import compare_with_storage

    t = tmp_path / "t"
    done = _async_stream(t, 7, **{"hoodie.write.table.version": str(version)})
    scheduled = [r.compaction for r in done if r.compaction]
    assert len(scheduled) >= 2 and not any(r.warnings for r in done)
    tl = Timeline(t, read_properties(t))
    compactions = [i.requested_time for i in tl.completed_commits() if i.action == "commit"]
    assert compactions == scheduled  # every scheduled compaction completed, none inline
    assert not tl.pending(), [str(i) for i in tl.pending()]
    expect = {1: "v6", 2: "v6", 3: "v6", **{10 + b: f"v{b}" for b in range(7)}}
    assert rows(t) == expect
    batch_t = tmp_path / "batch"  # the same rows through one batch write
    write_table(batch_t, batch(list(expect), [0] * len(expect), list(expect.values())), None, opts(version=version))
    assert rows(batch_t) == rows(t)
    assert compare_with_storage(t) == []  # the metadata table in step with both writers' commits


def test_async_compaction_failure_is_surfaced_and_recovered(tmp_path, monkeypatch):
    import hudi_log.table.services.compaction as compaction

    t = tmp_path / "t"
    real = compaction.run_compaction
    calls = []

    def failing_once(path, instant=None, options=None, **kw):
        calls.append(instant)
        if len(calls) == 1:
            raise compaction.CompactionError(path, "disk full (test)")
        return real(path, instant, options, **kw)

    monkeypatch.setattr(compaction, "run_compaction", failing_once)
    done = _async_stream(t, 4)
    failed = done[1].compaction  # scheduled after batch 1, failed in the background
    assert failed and calls[0] == failed
    # surfaced at the next batch that finds the run ended (the next one at the latest: it joins the run)
    warned = [b for b, r in enumerate(done) if any(failed in w and "disk full" in w for w in r.warnings)]
    assert len(warned) == 1 and warned[0] in (2, 3), warned
    tl = Timeline(t, read_properties(t))
    assert failed in [i.requested_time for i in tl.completed_commits() if i.action == "commit"]  # recovered
    assert not tl.pending()
    assert rows(t) == {1: "v3", 2: "v3", 3: "v3", 10: "v0", 11: "v1", 12: "v2", 13: "v3"}


def test_a_compaction_completed_meanwhile_is_not_run_again(tmp_path, monkeypatch):
    """The background run completes its plan between the sink's look at the pending plans and its check that
    the run ended (made to happen here: the run waits for that look, and the look for the run's end): the next
    run is given only what is pending then, not the completed plan again (which failed as "not a pending
    compaction")."""
    import threading
    import time

    import hudi_log.spark.stream_sink as sink
    import hudi_log.table.services.compaction as compaction
    from hudi_log.spark.stream_services import compactor, join_services

    looked = threading.Event()
    real_due, real_run = sink._compaction_due, compaction.run_compaction

    def run_after_the_look(path, instant=None, options=None, **kw):
        assert looked.wait(60), "no micro-batch looked at the pending plans"
        looked.clear()
        return real_run(path, instant, options, **kw)

    def look_then_let_the_run_end(path, n):
        seen = real_due(path, n)
        if compactor(path).running is not None:
            looked.set()
            while compactor(path).running is not None:
                time.sleep(0.01)
        return seen

    monkeypatch.setattr(compaction, "run_compaction", run_after_the_look)
    monkeypatch.setattr(sink, "_compaction_due", look_then_let_the_run_end)
    t = tmp_path / "t"
    o = opts(**{"hoodie.datasource.compaction.async.enable": "true", "hoodie.parquet.small.file.limit": "0",
                "hoodie.compact.inline.max.delta.commits": "2"})
    done = [commit_micro_batch(t, o, batch([1, 2, 3, 10 + b], [b] * 4, [f"v{b}"] * 4), b, "q") for b in range(6)]
    looked.set()  # the last run goes on without a next micro-batch
    assert join_services(t) is None
    assert not any(r.warnings for r in done), [r.warnings for r in done]
    tl = Timeline(t, read_properties(t))
    assert sum(1 for i in tl.completed_commits() if i.action == "commit") >= 2 and not tl.pending()
    assert rows(t) == {1: "v5", 2: "v5", 3: "v5", 10: "v0", 11: "v1", 12: "v2", 13: "v3", 14: "v4", 15: "v5"}


def test_inline_option_keeps_compaction_in_the_commit(tmp_path):
    t = tmp_path / "t"
    done = _async_stream(t, 2, **{"hoodie.compact.inline": "true"})
    tl = Timeline(t, read_properties(t))
    # inline: the batch's result names the completed compaction, and it is done when the batch returns
    assert done[1].compaction in [i.requested_time for i in tl.completed_commits() if i.action == "commit"]


@pytest.mark.parametrize("version", [6, 8])
def test_micro_batch_writes_while_the_compaction_runs(tmp_path, monkeypatch, version):
    """The next micro-batch writes and commits while the background compaction is inflight (held there until
    that batch's commit): the write's rollback of failed writes and its live-writer check leave the running
    compaction be, the compaction then completes, and the batch's rows land in the compaction's new slice."""
    import threading

    import hudi_log.table.services.compaction as compaction
    import hudi_log.table.write.client as client
    from hudi_log.spark.stream_services import join_services
    from hudi_log.table.metadata_files import compare_with_storage

    t = tmp_path / "t"
    o = opts(version=version, **{"hoodie.datasource.compaction.async.enable": "true",
                                 "hoodie.parquet.small.file.limit": "0",
                                 "hoodie.compact.inline.max.delta.commits": "2"})
    written, inflight = threading.Event(), threading.Event()
    real_slice, real_write = compaction._compact_slice, client.write_table

    def held_slice(*a, **k):
        inflight.set()
        assert written.wait(120), "the micro-batch did not write beside the compaction"
        return real_slice(*a, **k)

    def write_then_release(*a, **k):
        result = real_write(*a, **k)
        if inflight.is_set():
            written.set()
        return result

    monkeypatch.setattr(compaction, "_compact_slice", held_slice)
    monkeypatch.setattr(client, "write_table", write_then_release)
    first = [commit_micro_batch(t, o, batch([1, 2, 3, 10 + b], [b] * 4, [f"v{b}"] * 4), b, "q") for b in range(2)]
    assert first[1].compaction and inflight.wait(120)
    during = commit_micro_batch(t, o, batch([1, 2, 3, 12], [2] * 4, ["v2"] * 4), 2, "q")
    assert during.instant and written.is_set()
    assert join_services(t) is None
    tl = Timeline(t, read_properties(t))
    assert not any(i.action == "rollback" for i in tl.instants)
    done = [i.requested_time for i in tl.completed_commits()]
    assert first[1].compaction in done and during.instant in done and not tl.pending()
    assert done.index(during.instant) > done.index(first[1].instant)
    assert rows(t) == {1: "v2", 2: "v2", 3: "v2", 10: "v0", 11: "v1", 12: "v2"}
    assert compare_with_storage(t) == []
