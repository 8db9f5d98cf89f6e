"""Incremental reads against hudi-rs on every corpus table, between every pair of consecutive completed
instants, with the bounds given as requested times and as completion times.

Semantics (read.py): table version ≥ 8 compares completion times, (begin, end] — Hudi 1.x Spark's
MergeOnReadIncrementalRelationV2 (IncrementalQueryAnalyzer, OPEN_CLOSED) and hudi-rs alike; so an
instant's own requested time as ``begin`` includes that instant, which completed later. Table version < 8
compares requested times, begin < _hoodie_commit_time <= end (Hudi's V1 relation)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.table import HudiTable, read_table

from test_table_read import _rows

hudi = pytest.importorskip("hudi")


def _oracle_incremental(root, begin, end):
    t = hudi.HudiTableBuilder.from_base_uri(str(root)).build()
    opts = (hudi.HudiReadOptions().with_query_type(hudi.HudiQueryType.Incremental)
            .with_start_timestamp(begin).with_end_timestamp(end))
    batches = t.read(opts)
    return pa.Table.from_batches(batches) if batches else None


def test_incremental_matches_hudi_rs_between_consecutive_instants(corpus_tables):
    compared = nonempty = 0
    for name, root in sorted(corpus_tables.items()):
        commits = HudiTable(root).timeline.completed_commits()
        for a, b in zip(commits, commits[1:]):
            bounds = {(a.requested_time, b.requested_time)}
            if a.completion_time and b.completion_time:
                bounds.add((a.completion_time, b.completion_time))
            for begin, end in sorted(bounds):
                ours = read_table(root, query="incremental", begin=begin, end=end)
                theirs = _oracle_incremental(root, begin, end)
                if theirs is None or theirs.num_rows == 0:
                    assert ours.num_rows == 0, (name, begin, end)
                else:
                    x, y = _rows(ours, theirs)
                    assert x == y, (name, begin, end)
                    nonempty += 1
                compared += 1
    assert compared > 50 and nonempty > 20


def test_v8_bounds_are_completion_times(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    commits = HudiTable(root).timeline.completed_commits()
    first, second = commits[0], commits[1]
    # begin = the first instant's requested time: it completed after that, so its rows are included;
    # end = the second's requested time: it completed after that, so its update of rider-A is not
    inc = read_table(root, query="incremental", begin=first.requested_time, end=second.requested_time)
    assert set(inc.column("_hoodie_commit_time").to_pylist()) == {first.requested_time}
    assert {r["rider"]: r["fare"] for r in inc.to_pylist()}["rider-A"] == 19.1
    # with completion times: exactly the second instant's change, at its state then
    inc = read_table(root, query="incremental", begin=first.completion_time, end=second.completion_time)
    assert [(r["rider"], r["fare"], r["_hoodie_commit_time"]) for r in inc.to_pylist()] == \
        [("rider-A", 0.0, second.requested_time)]


def test_v6_bounds_are_requested_times_begin_exclusive(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    c = [i.requested_time for i in HudiTable(root).timeline.completed_commits()]
    inc = read_table(root, query="incremental", begin=c[0], end=c[1])
    assert set(inc.column("_hoodie_commit_time").to_pylist()) == {c[1]}
    assert read_table(root, query="incremental", begin=c[1], end=c[1]).num_rows == 0
