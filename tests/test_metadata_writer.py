"""The metadata table kept by every hudi-log action (issue 36, helper mdtcore): on copies of the corpus's
Java-written metadata tables and on a version-6 table hudi-log makes, upsert, delete, insert_overwrite,
compaction, clustering, clean and rollback leave a ``files`` partition equal to storage and in step with the
data timeline, through the package API and the CLI; a partition without a builder is refused before anything
is written; a crash between the metadata deltacommit and the data commit is undone by the next write; Java's
Avro decodes the records written with the writer schema; hudi-rs still reads the data table."""

from __future__ import annotations

import json
import shutil
import types

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.format.content.hfile import read_hfile
from hudi_log.format.grammar import BlockType
from hudi_log.format.reader import open_log
from hudi_log.table import read_table
from hudi_log.table.metadata import writer as mdt_writer
from hudi_log.table.metadata.change import MetadataRecord
from hudi_log.table.metadata_files import compare_with_storage, metadata_in_step, metadata_path, read_listing
from hudi_log.table.errors import StorageWriteError
from hudi_log.table.metadata_table import MetadataTableError
from hudi_log.table.properties import read_properties, write_properties
from hudi_log.table.services.clean import clean
from hudi_log.table.services.clustering import cluster
from hudi_log.table.services.commit_rollback import rollback_completed
from hudi_log.table.services.compaction import compact
from hudi_log.table.services.rollback import rollback
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.client import begin_write, write_table
from hudi_log.table.write.task import write_batches
from writers import crash

MDT_TABLES = ["quickstart_trips_table_mor_avro_v8_trips_8i3u1d", "sample_table_cow_v9_timebasedkeygen_epochmillis",
              "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle", "sample_table_mor_avro_v9_txns_simple_meta"]
COMPACT_NOW = {"hoodie.compact.inline.max.delta.commits": "1"}
CLUSTER_ALL = {"hoodie.clustering.plan.strategy.small.file.limit": str(1 << 30)}


def files_only(path) -> None:
    """The copy keeps its metadata table's ``files`` partition alone (the other partitions' builders are other
    helpers' parts): as Java leaves a table whose other indexes were dropped."""
    p = read_properties(path).to_dict()
    for name in (p.get("hoodie.table.metadata.partitions") or "").split(","):
        if name and name != "files":
            shutil.rmtree(metadata_path(path) / name)
    p["hoodie.table.metadata.partitions"] = "files"
    write_properties(path, p)


def in_step(path) -> None:
    props = read_properties(path)
    assert compare_with_storage(path) == []
    assert metadata_in_step(path, props, Timeline(path, props)) == (True, "")


def data_of(path) -> pa.Table:
    t = read_table(path)
    t = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")])
    if "ts_millis" in t.column_names and pa.types.is_string(t.schema.field("ts_millis").type):
        # Java's Spark SQL UPDATE wrote the epoch-millis partition column as text: the same number
        t = t.set_column(t.schema.get_field_index("ts_millis"), "ts_millis", t.column("ts_millis").cast(pa.int64()))
    return t


@pytest.mark.parametrize("name", MDT_TABLES)
def test_every_action_keeps_a_corpus_metadata_table_equal_to_storage(tmp_path, corpus_tables, name, monkeypatch,
                                                                    request):
    import time

    monkeypatch.setenv("TZ", "UTC")  # the epoch-millis table's partitions: Java printed them in UTC
    time.tzset()
    request.addfinalizer(time.tzset)  # after monkeypatch restores TZ
    path = tmp_path / "t"
    shutil.copytree(corpus_tables[name], path)
    files_only(path)
    in_step(path)  # Java's own, as read before anything changed
    data = data_of(path)
    before = read_table(path).num_rows
    write_table(path, data.slice(0, 2), "upsert", {})
    in_step(path)
    write_table(path, data.slice(2, 1), "delete", {})
    in_step(path)
    assert read_table(path).num_rows == before - 1
    mor = read_properties(path).is_mor
    if mor:
        assert compact(path, COMPACT_NOW) is not None
        in_step(path)
    assert cluster(path, CLUSTER_ALL)
    in_step(path)
    r = write_table(path, data.slice(3, 1), "upsert", {})
    rollback_completed(path, r.instant)  # hudi-cli's commit rollback of the latest completed write
    in_step(path)
    clean(path, retain_commits=1)
    in_step(path)
    assert read_table(path).num_rows == before - 1
    # the metadata table's own timeline: one deltacommit per data action, at the data instant's time
    meta = Timeline(metadata_path(path), read_properties(metadata_path(path)))
    data_tl = Timeline(path, read_properties(path))
    synced = {i.requested_time for i in data_tl.completed()
              if i.action in ("commit", "deltacommit", "replacecommit", "clean")}
    done = {i.requested_time for i in meta.completed() if i.action == "deltacommit"}
    assert synced <= done
    assert r.instant not in done  # rolled back with its data instant (version 8 on: its deltacommit undone)


def test_a_v6_table_hudi_log_makes_has_one_kept_as_java_0x_keeps_it(tmp_path):
    path = tmp_path / "t"
    o = {"hoodie.table.name": "v6", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
         "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": "6"}

    def rows(keys, ts):
        return pa.table({"id": [f"k{k}" for k in keys], "ts": pa.array([ts] * len(keys), pa.int64()),
                         "part": [f"p{k % 2}" for k in keys]})

    first = write_table(path, rows(range(6), 1), "insert", o)
    props = read_properties(path)
    assert props.get("hoodie.table.metadata.partitions") == "files"
    mprops = read_properties(metadata_path(path))
    assert mprops.version == 6 and mprops.timeline_layout_version == 1
    meta = Timeline(metadata_path(path), mprops)
    # created at the first write, before its instant: Java 0.x's initialising instant (no completed commit: the
    # solo commit time + 010), then the write's own deltacommit
    assert [i.requested_time for i in meta.completed()] == ["00000000000000010", first.instant]
    in_step(path)
    for ts in (2, 3):
        write_table(path, rows([0, 3], ts), "upsert", o)
        in_step(path)
    write_table(path, rows([5], 4), "delete", o)
    in_step(path)
    write_table(path, rows([1], 5), "insert_overwrite", o)
    in_step(path)
    assert compact(path, COMPACT_NOW) is not None
    in_step(path)
    failed = rows([7], 6)
    tx = begin_write(path, "upsert", o, schema=failed.schema)
    write_batches(tx.context, failed, 0)
    crash(tx)
    rollback(path, tx.instant)
    in_step(path)
    clean(path, retain_commits=1)
    in_step(path)
    # version 6: the files partition's one file group's log files are named by its base instant, one version
    # after another (Hudi 0.x; local storage does not append, as Hudi's file:// does not)
    logs = sorted((p.name for p in (metadata_path(path) / "files").iterdir() if ".log." in p.name),
                  key=lambda n: int(n.split(".log.")[1].split("_")[0]))
    assert all(n.startswith(".files-0000-0_00000000000000010.log.") for n in logs), logs
    assert [int(n.split(".log.")[1].split("_")[0]) for n in logs] == list(range(1, len(logs) + 1))


def test_the_cli_writes_and_validate_files_agrees(tmp_path, corpus_tables):
    path = tmp_path / "t"
    shutil.copytree(corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"], path)
    files_only(path)
    pq.write_table(data_of(path).slice(0, 2), tmp_path / "in.parquet")
    runner = CliRunner()
    res = runner.invoke(main, ["write", str(path), "--input", str(tmp_path / "in.parquet"), "--operation", "upsert"])
    assert res.exit_code == 0, res.output
    for args in (["compact", str(path), "--option", "hoodie.compact.inline.max.delta.commits=1"],
                 ["clean", str(path)]):
        res = runner.invoke(main, args)
        assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["metadata", "validate-files", str(path)])
    assert res.exit_code == 0 and "equals storage" in res.output, res.output
    in_step(path)


def test_a_partition_without_a_builder_is_refused_before_anything_is_written(tmp_path, corpus_tables):
    path = tmp_path / "t"
    shutil.copytree(corpus_tables["sample_table_cow_v9_timebasedkeygen_epochmillis"], path)
    # an expression index: a kind hudi-log has no builder for, whatever other parts have landed (the record
    # index, another part's, dropped first)
    shutil.rmtree(metadata_path(path) / "record_index")
    p = read_properties(path).to_dict()
    p["hoodie.table.metadata.partitions"] = "column_stats,files,partition_stats,expr_index_amount"
    write_properties(path, p)
    before = sorted(str(p.relative_to(path)) for p in path.rglob("*"))
    data = data_of(path)
    with pytest.raises(MetadataTableError, match="'expr_index_amount'"):
        write_table(path, data.slice(0, 1), "upsert", {})
    assert sorted(str(p.relative_to(path)) for p in path.rglob("*")) == before
    res = CliRunner().invoke(main, ["write", str(path), "--input", str(_parquet(tmp_path, data.slice(0, 1))),
                                    "--operation", "upsert"])
    assert res.exit_code == 2 and "expr_index_amount" in res.output, res.output
    assert sorted(str(p.relative_to(path)) for p in path.rglob("*")) == before


def _parquet(tmp_path, table):
    pq.write_table(table, tmp_path / "one.parquet")
    return tmp_path / "one.parquet"


def test_disabled_the_metadata_table_is_deleted_and_not_made(tmp_path, corpus_tables):
    path = tmp_path / "t"
    shutil.copytree(corpus_tables["sample_table_cow_v9_timebasedkeygen_epochmillis"], path)
    write_table(path, data_of(path).slice(0, 1), "upsert", {"hoodie.metadata.enable": "false"})
    assert not metadata_path(path).exists()
    assert not read_properties(path).get("hoodie.table.metadata.partitions")
    new = tmp_path / "new"
    write_table(new, pa.table({"id": ["a"], "ts": [1]}), "insert",
                {"hoodie.table.name": "n", "hoodie.datasource.write.recordkey.field": "id",
                 "hoodie.datasource.write.precombine.field": "ts", "hoodie.metadata.enable": "false"})
    assert not metadata_path(new).exists()


def test_other_partitions_routed_to_their_file_groups(tmp_path, monkeypatch):
    """A builder monkeypatched in for a second partition: created with its file groups, its records routed by
    the builder's file_group_index, deletes written as a delete block."""
    stub = types.ModuleType("stub_builder")
    stub.records = lambda change: [MetadataRecord(f"key{n}", {"type": 5, "recordIndexMetadata": {
        "partitionName": "p", "fileId": "f", "fileIdEncoding": 1, "instantTime": 1}}) for n in range(4)] + \
        [MetadataRecord("gone", None)]
    stub.bootstrap = lambda table_path, props, options: [MetadataRecord("gone", {"type": 5, "recordIndexMetadata": {
        "partitionName": "p", "fileId": "f", "fileIdEncoding": 1, "instantTime": 0}})]
    stub.file_group_count = lambda n, options: 2
    stub.file_group_index = lambda key, count: len(key) % count
    monkeypatch.setitem(__import__("sys").modules, "hudi_log.table.metadata.record_index", stub)
    path = tmp_path / "t"
    o = {"hoodie.table.name": "s", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.metadata.record.index.enable": "true",
         "hoodie.datasource.write.table.type": "MERGE_ON_READ"}
    r = write_table(path, pa.table({"id": ["a"], "ts": [1]}), "insert", o)
    assert read_properties(path).get("hoodie.table.metadata.partitions") == "files,record_index"
    folder = metadata_path(path) / "record_index"
    bases = sorted(p.name for p in folder.iterdir() if p.name.endswith(".hfile"))
    # the table's version is hudi-log's default, 6: Java 0.x's initialising instants (010 files, 011 the next)
    assert bases == ["record-index-0000-0_0-0-0_00000000000000011.hfile"]  # "gone": 4 chars, group 0
    blocks = {}
    for lf in sorted(p for p in folder.iterdir() if ".log." in p.name):
        for b in open_log(lf):
            if b.instant_time == r.instant:
                blocks.setdefault(lf.name.split("_")[0], []).append(
                    (b.block_type, [c.key for c in b.hfile().records] if b.block_type == BlockType.hfile_data_block
                     else [d.record_key for d in b.deletes()]))
    assert blocks == {".record-index-0000-0": [(BlockType.hfile_data_block, ["key0", "key1", "key2", "key3"]),
                                               (BlockType.delete_block, ["gone"])]}


def test_a_crash_between_the_two_commits_is_undone_by_the_next_write(tmp_path, corpus_tables):
    path = tmp_path / "t"
    shutil.copytree(corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"], path)
    files_only(path)
    data = data_of(path)
    tx = begin_write(path, "upsert", {}, schema=data.schema)
    stats = write_batches(tx.context, data.slice(0, 1), 0)
    by_part = {}
    for s in stats:
        by_part.setdefault(s["partitionPath"], []).append(s)
    # the metadata deltacommit completes; the process dies before the data instant does
    mdt_writer.sync_metadata_table(path, tx.instant, tx.context.action, {"partitionToWriteStats": by_part}, {})
    crash(tx)
    meta = Timeline(metadata_path(path), read_properties(metadata_path(path)))
    assert any(i.requested_time == tx.instant and i.is_completed for i in meta.instants)
    # readers skip a deltacommit whose data instant is pending: the failed write's files are not listed
    failed = {s["path"].rsplit("/", 1)[-1] for s in stats}
    assert failed and not failed & {f.name for fs in read_listing(path).files.values() for f in fs}
    write_table(path, data.slice(1, 1), "upsert", {})  # rolls the failed write back, in the metadata table too
    meta = Timeline(metadata_path(path), read_properties(metadata_path(path)))
    assert not any(i.requested_time == tx.instant and i.action == "deltacommit" for i in meta.instants)
    in_step(path)


def test_java_avro_decodes_the_records_written(tmp_path, java_program):
    run = java_program(__import__("pathlib").Path(__file__).parent / "java" / "HudiLogMetadataCheck.java")
    path = tmp_path / "t"
    o = {"hoodie.table.name": "j", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
         "hoodie.datasource.write.table.type": "MERGE_ON_READ"}
    for version in ("6", "9"):
        write_table(path / version, pa.table({"id": ["a", "b"], "ts": [1, 1], "part": ["x", "y"]}), "insert",
                    {**o, "hoodie.write.table.version": version})
    lines, expected = [], []
    for f in sorted(path.rglob("*")):
        if not f.is_file() or "/.hoodie/metadata/files/" not in str(f):
            continue
        if f.name.endswith(".hfile"):
            hf, schema = read_hfile(f.read_bytes()), None
            schema = hf.file_info["schema"].decode()
            cells = hf.records
        elif ".log." in f.name:
            cells, schema = [], None
            for b in open_log(f):
                if b.block_type == BlockType.hfile_data_block:
                    cells, schema = cells + b.hfile().records, b.schema
        else:
            continue
        for n, c in enumerate(cells):
            (tmp_path / f"s{len(lines)}.avsc").write_text(schema)
            (tmp_path / f"v{len(lines)}.bin").write_bytes(c.value)
            lines.append(["datum", tmp_path / f"s{len(lines)}.avsc", tmp_path / f"v{len(lines)}.bin"])
            expected.append(c.key)
    assert len(lines) >= 6
    out = run(lines)
    for res, key in zip(out, expected):
        assert "out" in res, res
        rec = json.loads(res["out"])
        assert rec["key"] == ""  # blanked in the cell, as Java writes it; the cell's row holds the key
        assert rec["type"] in (1, 2) and isinstance(rec["filesystemMetadata"], dict)
        assert rec["ColumnStatsMetadata"] is None and rec["_hoodie_commit_time"] is None


def test_hudi_rs_reads_a_table_whose_metadata_table_hudi_log_keeps(tmp_path, corpus_tables):
    from hudi_rs_oracle import hudi_rs_rows

    path = tmp_path / "t"
    shutil.copytree(corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"], path)
    files_only(path)
    data = data_of(path)
    write_table(path, data.slice(0, 3), "upsert", {})
    ours = sorted(r["txn_id"] for r in read_table(path).to_pylist())
    assert sorted(r["txn_id"] for r in hudi_rs_rows(path)) == ours
    assert read_listing(path).partitions  # listed from the metadata table


def test_a_pending_metadata_deltacommit_is_rolled_back_before_the_next(tmp_path, corpus_tables, monkeypatch):
    """A metadata write that died before its deltacommit completed (here: the completion refused) is rolled
    back by the next metadata write, as the metadata table's own write client rolls back its failed writes."""
    from hudi_log.table.timeline.writer import TimelineWriter

    path = tmp_path / "t"
    shutil.copytree(corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"], path)
    files_only(path)
    data = data_of(path)
    real = TimelineWriter.complete

    def refuse(self, action, instant, metadata):
        if "metadata" in str(self.table_path):
            raise OSError(28, "No space left on device")
        return real(self, action, instant, metadata)
    with monkeypatch.context() as m:
        m.setattr(TimelineWriter, "complete", refuse)
        with pytest.raises(StorageWriteError, match="No space left on device"):
            write_table(path, data.slice(0, 1), "upsert", {})
    meta = Timeline(metadata_path(path), read_properties(metadata_path(path)))
    assert [i for i in meta.instants if not i.is_completed]  # what the failed write left on the metadata timeline
    write_table(path, data.slice(1, 1), "upsert", {})
    meta = Timeline(metadata_path(path), read_properties(metadata_path(path)))
    assert not [i for i in meta.instants if not i.is_completed]
    in_step(path)


@pytest.mark.slow
def test_a_spark_write_keeps_the_metadata_table(spark, tmp_path, corpus_tables):
    """The Spark data source's write (driver begins and commits, tasks write) keeps the metadata table: on a
    new table (created with it) and on a corpus table's copy."""
    from hudi_log.spark import write as spark_write

    new = str(tmp_path / "new")
    o = {"hoodie.table.name": "s", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
         "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": "8"}
    df = spark.createDataFrame([("a", 1, "x"), ("b", 1, "y"), ("c", 1, "x")], "id string, ts long, part string")
    spark_write(df, new, {**o, "hoodie.datasource.write.operation": "insert"})
    spark_write(df.limit(2), new, {**o, "hoodie.datasource.write.operation": "upsert"})
    # Java 1.x's defaults at version 8: column and partition statistics beside the listing
    assert read_properties(new).get("hoodie.table.metadata.partitions") == "column_stats,files,partition_stats"
    in_step(new)
    path = tmp_path / "t"
    shutil.copytree(corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"], path)
    files_only(path)
    df = spark.read.format("hudi_log").load(str(path))
    spark_write(df.drop(*[c for c in df.columns if c.startswith("_hoodie_")]).limit(3), str(path),
                {"hoodie.datasource.write.operation": "upsert"})
    in_step(path)


@pytest.mark.parametrize("version", ["6", "9"])
def test_savepoint_and_restore_keep_it(tmp_path, version):
    from hudi_log.table.services.savepoint import create_savepoint, restore

    path = tmp_path / "t"
    o = {"hoodie.table.name": "r", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
         "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": version}

    def rows(keys, ts):
        return pa.table({"id": [f"k{k}" for k in keys], "ts": pa.array([ts] * len(keys), pa.int64()),
                         "part": [f"p{k % 2}" for k in keys]})
    saved = write_table(path, rows(range(4), 1), "insert", o)
    create_savepoint(path, saved.instant)  # changes no files: proceeds with the metadata table
    in_step(path)
    write_table(path, rows([0, 5], 2), "upsert", o)
    write_table(path, rows([6], 3), "insert", o)
    in_step(path)
    restore(path, saved.instant)
    in_step(path)
    assert sorted(r["id"] for r in read_table(path).to_pylist()) == ["k0", "k1", "k2", "k3"]
    write_table(path, rows([9], 4), "insert", o)
    in_step(path)


def test_a_clean_that_died_after_its_metadata_deltacommit_runs_again(tmp_path, monkeypatch):
    """The metadata deltacommit at the clean's instant completed, the clean did not: the next clean runs the
    pending plan again at the same instant, and its metadata deltacommit is written again from scratch."""
    from hudi_log.table.timeline.writer import TimelineWriter

    path = tmp_path / "t"
    o = {"hoodie.table.name": "c", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
         "hoodie.write.table.version": "8", "hoodie.clean.automatic": "false"}
    for ts in range(4):
        write_table(path, pa.table({"id": ["a", "b"], "ts": [ts, ts]}), "upsert", o)
    real = TimelineWriter.complete

    def die(self, action, instant, metadata):
        if action == "clean" and "metadata" not in str(self.table_path):
            raise KeyboardInterrupt  # the process dies here
        return real(self, action, instant, metadata)
    with monkeypatch.context() as m:
        m.setattr(TimelineWriter, "complete", die)
        with pytest.raises(KeyboardInterrupt):
            clean(path, retain_commits=1)
    pending = [i for i in Timeline(path, read_properties(path)).instants if i.action == "clean"]
    assert pending and not pending[0].is_completed
    assert clean(path, retain_commits=1) is not None
    in_step(path)


def test_kept_in_a_bucket(s3):
    """On an object store: the metadata table is made and kept in the bucket (no appends: a log per write)."""
    from hudi_log.paths import as_path

    path = f"{s3.base}/t"
    o = {"hoodie.table.name": "b", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
         "hoodie.write.table.version": "8"}
    write_table(path, pa.table({"id": ["a", "b"], "ts": [1, 1]}), "insert", o)
    write_table(path, pa.table({"id": ["a"], "ts": [2]}), "upsert", o)
    # Java 1.x's defaults for a v8 table: files and column statistics (no partition stats when non-partitioned)
    assert read_properties(path).get("hoodie.table.metadata.partitions") == "column_stats,files"
    assert sum(".files-0000-0_" in p.name for p in (as_path(path) / ".hoodie" / "metadata" / "files").iterdir()) == 3
    in_step(path)
