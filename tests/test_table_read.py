"""Whole-table reads against hudi-rs (PyPI ``hudi``) and the corpus tables' .sql expectations.

Normalisation: rows are compared after sorting by ``_hoodie_record_key`` on the columns both readers
return; where a column's Arrow type differs, our column is cast to hudi-rs's type first (e.g. nullability,
or Spark ``timestamp`` read back with a different unit/timezone). Values must then be equal.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.table import (HudiTable, NotAHudiTableError, TablePropertiesError, UnsupportedTableVersionError,
                            read_properties, read_table)
from hudi_log.table.timeline.timeline import TimelineError

hudi = pytest.importorskip("hudi")


def _oracle(root, as_of=None):
    t = hudi.HudiTableBuilder.from_base_uri(str(root)).build()
    opts = hudi.HudiReadOptions()
    if as_of is not None:
        opts = opts.with_as_of_timestamp(as_of)
    batches = t.read(opts)
    return pa.Table.from_batches(batches) if batches else None


def _rows(ours: pa.Table, theirs: pa.Table):
    cols = [c for c in theirs.column_names if c in ours.column_names]
    out_a, out_b = [], []
    for c in cols:
        a, b = ours.column(c), theirs.column(c)
        if a.type != b.type:
            try:
                a = a.cast(b.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                a, b = a.cast(pa.string()), b.cast(pa.string())
        out_a.append(a)
        out_b.append(b)
    # a key may live in several partitions (time-based key generators): sort by key, partition, commit
    keys = [(c, "ascending") for c in ("_hoodie_record_key", "_hoodie_partition_path", "_hoodie_commit_seqno")]
    ta = pa.table(out_a, names=cols).sort_by(keys).to_pylist()
    tb = pa.table(out_b, names=cols).sort_by(keys).to_pylist()
    return ta, tb


def _tables(corpus_tables):
    return sorted(corpus_tables.items())


def test_snapshot_matches_hudi_rs(corpus_tables):
    checked = 0
    for name, root in _tables(corpus_tables):
        ours = read_table(root)
        theirs = _oracle(root)
        if theirs is None:
            assert ours.num_rows == 0, name
            continue
        a, b = _rows(ours, theirs)
        assert a == b, name
        assert ours.column_names[:5] == ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                                         "_hoodie_partition_path", "_hoodie_file_name"], name
        checked += 1
    assert checked >= 10


def test_time_travel_matches_hudi_rs(corpus_tables):
    for name, root in _tables(corpus_tables):
        table = HudiTable(root)
        for inst in table.timeline.completed_commits():
            ours = read_table(root, as_of=inst.requested_time)
            theirs = _oracle(root, inst.requested_time)
            if theirs is None:
                assert ours.num_rows == 0, (name, inst)
                continue
            a, b = _rows(ours, theirs)
            assert a == b, (name, inst.requested_time)


def _by(t, col):
    return {r[col]: r for r in t.to_pylist()}


def test_v6_trips_8i1u(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v6_trips_8i1u"]
    now = _by(read_table(root), "rider")
    assert now["rider-D"]["fare"] == 25.0 and len(now) == 8
    first = HudiTable(root).timeline.completed_commits()[0].requested_time
    assert _by(read_table(root, as_of=first), "rider")["rider-D"]["fare"] == 33.9
    # read-optimized ignores the log file holding the update
    assert _by(read_table(root, query="read_optimized"), "rider")["rider-D"]["fare"] == 33.9


def test_v8_trips_8i3u1d(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    now = _by(read_table(root), "rider")
    assert sorted(now) == ["rider-A", "rider-C", "rider-D", "rider-E", "rider-G", "rider-I"]
    assert now["rider-A"]["fare"] == 0 and now["rider-G"]["fare"] == 0


def test_v6_nonpartitioned_rollback_parquet_blocks(corpus_tables):
    root = corpus_tables["sample_table_mor_parquet_v6_nonpartitioned_rollback"]
    now = _by(read_table(root), "name")
    assert now["Alice"]["isActive"] is True  # the rolled-back update (isActive false) is gone
    assert now["Bob"]["isActive"] is True and now["Carol"]["isActive"] is True


def test_incremental_is_commit_time_window(corpus_tables):
    # v8: bounds are completion times, (begin, end]; records at their state as of the range's last instant
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    commits = HudiTable(root).timeline.completed_commits()
    inc = read_table(root, query="incremental", begin=commits[0].completion_time, end=commits[-1].completion_time)
    assert sorted(r["rider"] for r in inc.to_pylist()) == ["rider-A", "rider-G"]  # rider-J: updated, then deleted
    inside = {i.requested_time for i in commits[1:]}
    assert all(r["_hoodie_commit_time"] in inside for r in inc.to_pylist())


def test_columns_and_filters(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    t = read_table(root, columns=["rider", "fare"], filters=[("fare", ">", 30.0)])
    assert t.column_names == ["rider", "fare"]
    assert sorted(t.column("rider").to_pylist()) == ["rider-E", "rider-I", "rider-D"][::-1] or \
        sorted(t.column("rider").to_pylist()) == ["rider-D", "rider-E", "rider-I"]


def test_errors_name_the_file(tmp_path, corpus_tables):
    with pytest.raises(NotAHudiTableError, match=str(tmp_path)):
        read_table(tmp_path)
    (tmp_path / ".hoodie").mkdir()
    with pytest.raises(TablePropertiesError, match="hoodie.properties"):
        read_properties(tmp_path)
    src = corpus_tables["sample_table_cow_v6_nonpartitioned"] / ".hoodie" / "hoodie.properties"
    text = src.read_text()
    (tmp_path / ".hoodie" / "hoodie.properties").write_text(text.replace("hoodie.table.checksum=", "hoodie.table.checksum=1"))
    with pytest.raises(TablePropertiesError, match="checksum"):
        read_properties(tmp_path)
    (tmp_path / ".hoodie" / "hoodie.properties").write_text(text.replace("hoodie.table.version=6", "hoodie.table.version=42"))
    with pytest.raises(UnsupportedTableVersionError, match="42"):
        read_properties(tmp_path)
    (tmp_path / ".hoodie" / "hoodie.properties").write_text(text)
    (tmp_path / ".hoodie" / "20240101000000000.commit").write_text("{not json")
    with pytest.raises(TimelineError, match="20240101000000000.commit"):
        read_table(tmp_path)


def test_properties_all_keys_and_checksum(corpus_tables):
    for name, root in _tables(corpus_tables):
        p = read_properties(root)
        assert p.checksum_ok() in (True, None), name
        assert p.version in (6, 8, 9)
        assert "hoodie.table.name" in p
