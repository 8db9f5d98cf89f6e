"""Inserts fill small files first, then new file groups sized by the table's records (issue 17, item 3; Java's
``UpsertPartitioner.assignInserts``): which files are small, how many inserts each takes, and that the keys
packed into a file group are found there by the next upsert (no duplicate), on both table types; hudi-rs
reads the same rows."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.table import HudiTable, read_table
from hudi_log.table.write.client import write_table
from hudi_log.table.write.index import FileGroupInfo
from hudi_log.table.write.small_files import assign_inserts, small_files

from hudi_rs_oracle import hudi_rs_rows


def opts(table_type: str, **more) -> dict:
    return {"hoodie.table.name": "sf", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.compact.inline": "false", **more}


def rows(ids, ts=1, name="a") -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "ts": pa.array([ts] * len(ids), pa.int64()),
                     "name": [f"{name}{i}" for i in ids], "part": ["p"] * len(ids)})


def groups(path) -> dict[str, int]:
    """file id -> rows, over the latest slices."""
    out: dict[str, int] = {}
    for r in read_table(path).to_pylist():
        fid = r["_hoodie_file_name"].split("_")[0]
        out[fid] = out.get(fid, 0) + 1
    return out


def test_assign_inserts_fills_small_files_then_new_groups():
    # capacity (max - size) / record size: 10 and 2 records; the rest in new groups of 4, the last the remainder
    assert assign_inserts(21, [("a", 0), ("b", 800)], 100, 1000, 4) == [
        ("a", 10), ("b", 2), (None, 4), (None, 4), (None, 1)]
    assert assign_inserts(5, [("a", 0)], 100, 1000, 4) == [("a", 5)]
    assert assign_inserts(5, [("full", 1000)], 100, 1000, 4) == [(None, 4), (None, 1)]
    assert assign_inserts(0, [("a", 0)], 100, 1000, 4) == []


def _g(fid, size, logs=(), base_instant="1"):
    return FileGroupInfo("p", fid, base_instant, f"/t/p/{fid}_0-1-0_1.parquet", tuple(logs), size, size)


def test_which_files_are_small():
    gs = {"a": _g("a", 500), "b": _g("b", 100), "c": _g("c", 50, logs=("/t/p/.c_1.log.1_0-1-0",)),
          "d": _g("d", 5000), "e": _g("e", 10), "f": _g("f", 20, base_instant="2")}
    o = {"hoodie.parquet.small.file.limit": "1000"}
    # COW: every base file under the limit (not one under pending clustering, nor one whose newest slice is
    # a pending compaction's)
    assert small_files(False, gs, o, {"e": ("p", "9")}) == {"p": [("a", 500), ("b", 100), ("c", 50)]}
    # MOR with SIMPLE/BLOOM: base-only slices, smallest first, hoodie.merge.small.file.group.candidates.limit
    assert small_files(True, gs, o, {}) == {"p": [("e", 10)]}
    assert small_files(True, gs, {**o, "hoodie.merge.small.file.group.candidates.limit": "2"}, {}) == \
        {"p": [("e", 10), ("b", 100)]}
    assert small_files(False, gs, {"hoodie.parquet.small.file.limit": "0"}, {}) == {}


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_inserts_go_into_the_small_file_and_stay_findable(tmp_path, table_type):
    p = tmp_path / "t"
    write_table(p, rows(range(10)), "insert", opts(table_type))
    (first,) = groups(p)
    r = write_table(p, rows(range(10, 15), 2, "n"), "upsert", opts(table_type))
    assert groups(p) == {first: 15}  # the five new keys joined the small file group
    (stat,) = r.write_stats
    assert stat["fileId"] == first and stat["path"].endswith(".parquet") and stat["numInserts"] == 5
    # the next upsert finds the packed keys where they are: updates, no duplicate
    r = write_table(p, rows([12, 13], 3, "u"), "upsert", opts(table_type))
    assert r.num_updates == 2 and r.num_inserts == 0
    got = sorted((x["id"], x["name"]) for x in read_table(p).to_pylist())
    assert len(got) == 15 and (12, "u12") in got and (14, "n14") in got
    assert got == sorted((x["id"], x["name"]) for x in hudi_rs_rows(p))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_small_file_takes_what_fits_and_new_groups_take_the_rest(tmp_path, table_type):
    p = tmp_path / "t"
    # the record size stays the 1 KiB estimate (no commit passes the estimation threshold)
    base = opts(table_type, **{"hoodie.record.size.estimation.threshold": "1000000"})
    write_table(p, rows(range(2)), "insert", base)
    size = next(s.base_file.size for s in HudiTable(p).view().latest_file_slices())
    max_size = size + 3 * 1024  # room for 3 more records; new groups hold max_size // 1024 records
    o = {**base, "hoodie.parquet.max.file.size": str(max_size), "hoodie.parquet.small.file.limit": str(max_size)}
    write_table(p, rows(range(10, 30), 2, "n"), "insert", o)
    per_new = max_size // 1024
    rest = 20 - 3
    want = sorted([5] + [per_new] * (rest // per_new) + ([rest % per_new] if rest % per_new else []))
    assert sorted(groups(p).values()) == want


def test_pending_compaction_and_logs_keep_mor_groups_out(tmp_path):
    """A MOR file group with log files is no candidate (the index could not find keys packed behind them):
    new keys go to a new file group, and the updates stay in the log."""
    p = tmp_path / "t"
    o = opts("MERGE_ON_READ", **{"hoodie.parquet.small.file.limit": "0"})
    write_table(p, rows(range(4)), "insert", o)
    write_table(p, rows([1], 2, "u"), "upsert", o)  # a log on the only group
    r = write_table(p, pa.concat_tables([rows([2], 3, "v"), rows([7], 3, "n")]), "upsert", opts("MERGE_ON_READ"))
    kinds = sorted("log" if ".log." in s["path"] else "base" for s in r.write_stats)
    assert kinds == ["base", "log"] and len(groups(p)) == 2
