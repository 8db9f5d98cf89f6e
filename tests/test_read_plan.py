"""The per-slice read API: plan → picklable tasks → read_slice (in another process) == read_table."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import pyarrow as pa

from hudi_log.table import HudiTable, read_plan, read_slice, read_table


def _all_queries(table: HudiTable):
    commits = [i.requested_time for i in table.timeline.completed_commits()]
    yield {}
    yield {"query": "read_optimized"}
    for c in commits:
        yield {"as_of": c}
    for a, b in zip(commits, commits[1:]):
        yield {"query": "incremental", "begin": a, "end": b}


def test_plan_slices_equal_read_table_on_every_corpus_query(corpus_tables):
    checked = 0
    for name, root in sorted(corpus_tables.items()):
        table = HudiTable(root)
        for q in _all_queries(table):
            plan = table.plan(**q)
            whole = read_table(root, **q)
            assert whole.schema.equals(plan.schema), (name, q)
            parts = [read_slice(plan, t) for t in plan.tasks]
            for p in parts:
                assert p.schema.equals(plan.schema), (name, q)
            got = pa.concat_tables(parts) if parts else plan.schema.empty_table()
            assert got.equals(whole), (name, q)
            checked += 1
    assert checked > 100


def test_a_projection_reads_only_its_columns_and_the_merges(corpus_tables, monkeypatch):
    """A plan with ``columns`` reads from base files only those and the merge's (record key, ordering field,
    delete markers), and decodes only those from log blocks, yet returns exactly the whole read's rows
    projected: on every corpus query, with a data column alone, and with a meta column and a data column."""
    import hudi_log.format.block as block
    import hudi_log.table.read.query as query

    asked, real_parquet, real_arrow = [], query.read_parquet, block.LogBlock.to_arrow
    real_columns = query.read_parquet_columns

    def parquet(path, columns=None, **k):
        asked.append(("base", tuple(columns) if columns is not None else None))
        return real_parquet(path, columns, **k)

    def parquet_columns(f, path, columns=None, **k):  # a base file read in two steps from one open file
        asked.append(("base", tuple(columns) if columns is not None else None))
        return real_columns(f, path, columns, **k)

    def arrow(self, *a, **k):
        columns = k.get("columns")
        asked.append(("log", tuple(columns) if columns is not None else None))
        return real_arrow(self, *a, **k)

    monkeypatch.setattr(query, "read_parquet", parquet)
    monkeypatch.setattr(query, "read_parquet_columns", parquet_columns)
    monkeypatch.setattr(block.LogBlock, "to_arrow", arrow)
    checked = narrowed = 0
    for name, root in sorted(corpus_tables.items()):
        table = HudiTable(root)
        data = [f.name for f in table.plan().schema if not f.name.startswith("_hoodie_")]
        for q in _all_queries(table):
            whole = read_table(root, **q)
            for cols in ([data[-1]], ["_hoodie_commit_time", data[0]]):
                asked.clear()
                plan = table.plan(columns=cols, **q)
                got = [read_slice(plan, t) for t in plan.tasks]
                got = pa.concat_tables(got) if got else plan.schema.empty_table()
                assert got.equals(whole.select(cols)), (name, q, cols)
                # the first read of each slice is the projection's; a slice the vectorized merge declines
                # is read again whole, record by record
                read = [c for _, c in asked]
                if not plan.tasks:
                    continue
                assert read and read[0] is not None and "_hoodie_file_name" not in read[0], (name, q, asked)
                narrowed += all(c is not None and "_hoodie_file_name" not in c for c in read)
                checked += 1
    assert checked > 200 and narrowed > checked // 2


def test_read_parquet_refuses_a_column_the_file_lacks_unless_told(tmp_path):
    """pyarrow's ParquetFile.read leaves an unknown column out silently; read_parquet names it instead, and
    leaves it out only for a projected slice read (whose conform fills it with nulls)."""
    import pyarrow.parquet as pq
    import pytest

    from hudi_log.paths import read_parquet

    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"a": [1, 2], "b": ["x", "y"]}), path)
    assert read_parquet(path).column_names == ["a", "b"]
    assert read_parquet(path, columns=["b"]).to_pydict() == {"b": ["x", "y"]}
    with pytest.raises(pa.ArrowInvalid, match="no column 'c'"):
        read_parquet(path, columns=["b", "c"])
    assert read_parquet(path, columns=["c", "a"], present_only=True).column_names == ["a"]


def test_tasks_pickle_and_read_in_worker_processes(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    plan = HudiTable(root).plan()
    assert plan.tasks and all(isinstance(t.base_file, (str, type(None))) for t in plan.tasks)
    ctx = pickle.loads(pickle.dumps(plan.context))
    assert ctx == plan.context
    # spawned, not forked: forking a process whose Arrow / polars thread pools run can deadlock the child
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        parts = list(ex.map(read_slice, [ctx] * len(plan.tasks), plan.tasks))
    assert pa.concat_tables(parts).equals(read_plan(plan))
    assert sorted(pa.concat_tables(parts).column("rider").to_pylist()) == \
        ["rider-A", "rider-C", "rider-D", "rider-E", "rider-G", "rider-I"]


def test_parallel_reads_equal_the_sequential_read(corpus_tables):
    from hudi_log.table import iter_plan

    root = corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    plan = HudiTable(root).plan()
    one = read_plan(plan, workers=1)
    assert read_plan(plan, workers=2).equals(one)
    assert read_plan(plan, workers=2, processes=True).equals(one)
    assert pa.concat_tables(list(iter_plan(plan, workers=2))).equals(one)


def test_schema_is_known_before_reading_and_meta_first(corpus_tables):
    root = corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    plan = HudiTable(root).plan(columns=["txn_id", "amount"])
    assert plan.schema.names == ["txn_id", "amount"]
    full = HudiTable(root).plan()
    assert full.schema.names[:5] == ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                                     "_hoodie_partition_path", "_hoodie_file_name"]


def test_partition_filters_prune_slices(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]  # hive-style city=...
    table = HudiTable(root)
    every = table.plan()
    only = table.plan(filters=[("city", "=", "chennai")])
    assert {t.partition for t in only.tasks} == {"city=chennai"}
    assert len(only.tasks) < len(every.tasks)
    pruned = read_plan(only)
    unpruned = read_table(root).filter(pa.compute.equal(read_table(root).column("city"), "chennai"))
    assert pruned.sort_by("_hoodie_record_key").equals(unpruned.sort_by("_hoodie_record_key"))
    assert pruned.num_rows > 0
    # a filter on a data column prunes nothing
    assert len(table.plan(filters=[("fare", ">", 1.0)]).tasks) == len(every.tasks)


def test_timestamp_keygen_partitions_are_not_pruned(corpus_tables):
    root = corpus_tables["sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle"]
    # the partition path is formatted: it proves nothing (column statistics may still prune: not here)
    table = HudiTable(root, {"hoodie.metadata.enable": "false"})
    pfield = table.properties.partition_fields[0]
    value = read_table(root).column(pfield)[0].as_py()
    assert len(table.plan(filters=[(pfield, "=", value)]).tasks) == len(table.plan().tasks)
