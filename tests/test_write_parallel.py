"""write_table on several cores (issue 38, item 3): the bounded pool (hudi_log.table.workers) keeps the serial
order of its results and raises the first failure as it was raised; a write whose file groups run side by side
writes what the one-by-one write writes; a merge's columnar key match writes what its loop writes."""

from __future__ import annotations

import shutil
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_log import open_log
from hudi_log.table import read_table
from hudi_log.table.errors import WriteError
from hudi_log.table.workers import cpus, ordered_map, write_threads
from hudi_log.table.write import task as task_module
from hudi_log.table.write.client import write_table

VARYING = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_file_name")  # named after the instant / file


def test_ordered_map_keeps_the_given_order():
    # the first pieces take longest: they finish last, and still come back first
    out = ordered_map(lambda x: (time.sleep(0.02 * (5 - x)), x * 10)[1], range(6), 3)
    assert out == [0, 10, 20, 30, 40, 50]
    assert ordered_map(lambda x: x + 1, [], 4) == [] and ordered_map(lambda x: x + 1, [1], 4) == [2]


def test_ordered_map_raises_the_first_failure_in_order_after_every_piece_ended():
    running, ended = set(), []
    lock = threading.Lock()

    def piece(x):
        with lock:
            running.add(x)
        try:
            if x == 1:
                time.sleep(0.1)  # fails last, but is the first failing piece in order
                raise WriteError("/t", "piece 1")
            if x == 2:
                raise KeyError("piece 2")
            time.sleep(0.05)
            return x
        finally:
            with lock:
                running.discard(x)
                ended.append(x)

    with pytest.raises(WriteError, match="piece 1"):
        ordered_map(piece, range(8), 3)
    assert not running  # nothing still writing when the caller rolls back
    assert 1 in ended and 2 in ended


def test_write_threads_are_one_unless_javas_parallelism_asks_for_more_up_to_the_cpus():
    assert write_threads({}, "upsert") == 1
    assert write_threads({"hoodie.upsert.shuffle.parallelism": "0"}, "upsert") == 1
    assert write_threads({"hoodie.upsert.shuffle.parallelism": "2"}, "upsert") == min(2, cpus())
    assert write_threads({"hoodie.upsert.shuffle.parallelism": "100000"}, "upsert") == cpus()
    assert write_threads({"hoodie.insert.shuffle.parallelism": "4"}, "upsert") == 1  # another operation's
    assert write_threads({"hoodie.delete.shuffle.parallelism": "2"}, "delete") == min(2, cpus())
    assert write_threads({"hoodie.bulkinsert.shuffle.parallelism": "2"}, "bulk_insert") == min(2, cpus())


def _opts(table_type: str, threads: str, **more) -> dict:
    return {"hoodie.table.name": "t", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.partitionpath.field": "p",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.upsert.shuffle.parallelism": threads,
            "hoodie.insert.shuffle.parallelism": threads, "hoodie.compact.inline": "false",
            "hoodie.clean.automatic": "false", **more}


def _rows(ids, ts: int, deleted=()) -> pa.Table:
    ids = list(ids)
    return pa.table({"id": [f"k{i:06d}" for i in ids], "ts": pa.array([ts] * len(ids), pa.int64()),
                     "v": [f"v{i}-{ts}" for i in ids], "p": [f"p{i % 3}" for i in ids],
                     "_hoodie_is_deleted": [i in deleted for i in ids]})


def _table(path, table_type: str, **more) -> None:
    """A table with several file groups per partition, small ones among them."""
    o = _opts(table_type, "1", **more)
    write_table(path, _rows(range(0, 3000), 1), "insert", {**o, "hoodie.parquet.max.file.size": "40000"})
    write_table(path, _rows(range(3000, 3300), 2), "insert", o)  # small files beside the big ones


def _upsert(path, threads: str, table_type: str, **more) -> list[tuple]:
    """An upsert of updates, flagged deletes and new keys (which fill the small files): its write stats in
    order, as what they count and what their files hold. Each side writes into its own copy of one table, so
    the layout (file sizes read from the timeline) is the same for both."""
    batch = _rows(list(range(2500, 3600)) + list(range(0, 400, 7)), 3, deleted=set(range(2600, 2700)) | {7, 14})
    res = write_table(path, batch, "upsert", _opts(table_type, threads, **more))
    return [_stat_view(path, s) for s in res.write_stats]


def _both(tmp_path, table_type: str, first, second, **more) -> tuple[list, list]:
    _table(tmp_path / "base", table_type, **more)
    for name in ("a", "b"):
        shutil.copytree(tmp_path / "base", tmp_path / name)
    return first(tmp_path / "a", table_type, **more), second(tmp_path / "b", table_type, **more)


def _stat_view(path, s: dict) -> tuple:
    counts = tuple(s.get(k) for k in ("partitionPath", "numWrites", "numInserts", "numUpdateWrites", "numDeletes"))
    rel = s["path"]
    if rel.endswith(".parquet"):
        t = pq.read_table(f"{path}/{rel}")
        seq = [v.rsplit("_", 2)[-2:] for v in t.column("_hoodie_commit_seqno").to_pylist()]  # less the instant
        held = (t.drop_columns(list(VARYING)).to_pylist(), seq)
    else:  # the log's blocks: their types and records (less what names the instant or file)
        held = []
        for b in open_log(f"{path}/{rel}"):
            recs = b.to_arrow() if b.block_type_name == "AVRO_DATA_BLOCK" else None
            held.append((b.block_type_name, None if recs is None else recs.drop_columns(
                [c for c in VARYING if c in recs.column_names]).to_pylist()))
    cdc = (s.get("cdcStats") or {})
    return counts, held, tuple(sorted(cdc.values())) if isinstance(cdc, dict) else cdc


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_file_groups_side_by_side_write_what_one_by_one_writes(tmp_path, table_type):
    serial, parallel = _both(tmp_path, table_type, lambda p, t, **m: _upsert(p, "1", t, **m),
                             lambda p, t, **m: _upsert(p, "2", t, **m))
    assert serial == parallel
    assert len(serial) > 6  # several file groups in each partition
    kinds = {b[0] for s in serial if isinstance(s[1], list) for b in s[1]} | \
        {"parquet" for s in serial if isinstance(s[1], tuple)}
    assert kinds == ({"parquet", "AVRO_DATA_BLOCK"} if table_type == "MERGE_ON_READ" else {"parquet"})
    assert read_table(str(tmp_path / "a")).sort_by("id").drop_columns(list(VARYING)).equals(
        read_table(str(tmp_path / "b")).sort_by("id").drop_columns(list(VARYING)))


@pytest.mark.parametrize("cdc", ["false", "true"])
def test_the_columnar_merge_writes_what_the_loop_writes(tmp_path, monkeypatch, cdc):
    calls = []

    def loop(path, table_type, **more):
        with monkeypatch.context() as m:
            m.setattr(task_module, "_merge_matches", lambda *a: calls.append(1))  # None: the loop decides
            return _upsert(path, "2", table_type, **more)

    matched = []
    real = task_module._merge_matches

    def columnar(path, table_type, **more):
        with monkeypatch.context() as m:
            m.setattr(task_module, "_merge_matches", lambda *a: matched.append(real(*a)) or matched[-1])
            return _upsert(path, "2", table_type, **more)

    fast, slow = _both(tmp_path, "COPY_ON_WRITE", columnar, loop, **{"hoodie.table.cdc.enabled": cdc})
    assert calls and all(m is not None for m in matched) and len(matched) == len(calls)
    assert fast == slow
    assert sum(s[0][4] for s in fast) == 102 and sum(s[0][2] for s in fast) > 0  # deletes; inserts into small files


def test_an_index_built_ahead_is_taken_only_for_the_same_slices(tmp_path, monkeypatch):
    from hudi_log.table.write import client
    from hudi_log.table.write.index import build_index_ahead

    built = []
    real = client.build_index
    monkeypatch.setattr(client, "build_index", lambda *a: built.append(1) or real(*a))
    path = tmp_path / "t"
    o = _opts("MERGE_ON_READ", "2")
    write_table(path, _rows(range(0, 300), 1), "upsert", o)
    build_index_ahead(path)  # the streaming sink's, after a micro-batch
    built.clear()
    res = write_table(path, _rows(range(250, 350), 2), "upsert", o)
    assert built == [] and (res.num_updates, res.num_inserts) == (50, 50)  # taken: keys found without a build
    build_index_ahead(path)
    write_table(path, _rows(range(1000, 1010), 3), "insert", o)  # no lookup: the one built ahead stays, now stale
    res = write_table(path, _rows(range(1000, 1010), 4), "upsert", o)
    assert built == [1] and res.num_updates == 10  # a new file group since: built again, the inserted keys found
    rows = read_table(str(path)).sort_by("id")
    assert rows.num_rows == 360 and set(rows.column("ts").to_pylist()) == {1, 2, 4}
