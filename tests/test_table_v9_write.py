"""Table version 9 (Hudi 1.1) written (issue 37): Java's own v9 tables without a metadata table carried on by
upserts, deletes and a compaction (package and CLI), read back equal by hudi-log and hudi-rs; tables hudi-log
creates at version 9 hold the properties Java 1.1 writes and are read equal by hudi-rs; what hudi-log does not
merge as Java does (partial updates, merge properties) is refused before anything changes."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import read_table
from hudi_log.table.metadata_files import compare_with_storage
from hudi_log.table.metadata_table import has_metadata_table
from hudi_log.table.properties import UnsupportedMergeConfigError, read_properties, write_properties
from hudi_log.table.services.archive import archive
from hudi_log.table.services.clean import clean
from hudi_log.table.services.clustering import cluster
from hudi_log.table.services.compaction import compact, schedule_compaction
from hudi_log.table.services.rollback import rollback
from hudi_log.table.write.client import begin_write, write_table
from hudi_log.table.write.task import write_batches
from hudi_rs_oracle import hudi_rs_rows
from writers import crash

#: the corpus's Java 1.1 tables without a metadata table (the test below holds that these are all of them)
PLAIN_V9 = ["sample_table_cow_v9_txns_simple_nometa", "sample_table_mor_avro_v9_txns_nonpart_nometa"]
COLUMNS = ["txn_id", "account_id", "txn_ts", "merchant_name", "currency"]
COMPACT_NOW = {"hoodie.compact.inline.max.delta.commits": "1"}


def _rows(table: pa.Table) -> dict[str, tuple]:
    return {r["txn_id"]: tuple(r[c] for c in COLUMNS) for r in table.select(COLUMNS).to_pylist()}


def _both(path) -> tuple[dict, dict]:
    """The snapshot as hudi-log and as hudi-rs read it, by key."""
    rs = hudi_rs_rows(path)
    return _rows(read_table(path)), {r["txn_id"]: tuple(r[c] for c in COLUMNS) for r in rs}


def test_the_corpus_v9_tables_without_a_metadata_table(corpus_tables):
    plain = sorted(n for n, root in corpus_tables.items()
                   if "_v9_" in n and not has_metadata_table(root, read_properties(root)))
    assert plain == PLAIN_V9


@pytest.mark.parametrize("name", PLAIN_V9)
def test_java_v9_table_takes_upserts_deletes_and_a_compaction(tmp_path, corpus_tables, name):
    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    props_before = read_properties(path).to_dict()
    t = read_table(path)
    before = _rows(t)
    data = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")]).sort_by("txn_id")
    # two of its own rows, changed (a later ordering value, so event-time merging takes them)
    two = data.slice(0, 2)
    two = two.set_column(two.schema.get_field_index("merchant_name"), "merchant_name", pa.array(["m-a", "m-b"]))
    two = two.set_column(two.schema.get_field_index("txn_ts"), "txn_ts", pc.add(two.column("txn_ts"), 1000))
    gone = data.column("txn_id")[2].as_py()
    write_table(path, two, "upsert", {})
    # the delete through the CLI, as a user would
    pq.write_table(data.slice(2, 1), tmp_path / "gone.parquet")
    res = CliRunner().invoke(main, ["write", str(path), "--input", str(tmp_path / "gone.parquet"),
                                    "--operation", "delete"])
    assert res.exit_code == 0, res.output
    expected = dict(before)
    for r in two.select(COLUMNS).to_pylist():
        expected[r["txn_id"]] = tuple(r[c] for c in COLUMNS)
    del expected[gone]
    ours, theirs = _both(path)
    assert ours == expected == theirs
    if read_properties(path).is_mor:
        done = compact(path, COMPACT_NOW)
        assert done is not None and done.action == "commit"
        ours, theirs = _both(path)
        assert ours == expected == theirs
    # Java 1.1's properties untouched (no upgrade, no downgrade, nothing of version 8 added back), but for the
    # metadata table the first write created (as Java's writer does, hoodie.metadata.enable defaulting to true)
    after = read_properties(path).to_dict()
    mdt_keys = {"hoodie.table.metadata.partitions", "hoodie.table.metadata.partitions.inflight",
                "hoodie.table.checksum"}
    assert {k: v for k, v in after.items() if k not in mdt_keys} == \
        {k: v for k, v in props_before.items() if k not in mdt_keys}
    # Java 1.x's defaults: column and partition statistics too (partition statistics only when partitioned)
    wanted = "column_stats,files,partition_stats" if read_properties(path).partition_fields else "column_stats,files"
    assert after["hoodie.table.metadata.partitions"] == wanted and compare_with_storage(path) == []
    # every new instant completed, named as Java 1.1 names them (requested_completion.action)
    timeline = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir() if p.is_file())
    new = [n for n in timeline if n[:17] > max(k[:17] for k in timeline if k.startswith("2026030"))]
    completed = [n for n in new if "_" in n.split(".")[0]]
    assert len(completed) == (3 if read_properties(path).is_mor else 2), new


def _options(table_type: str, **extra) -> dict:
    return {"hoodie.table.name": "v9", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": "9", **extra}


def _batch(rows) -> pa.Table:
    return pa.Table.from_pylist([{"id": k, "val": v, "ts": ts, "part": p} for k, v, ts, p in rows],
                                schema=pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()),
                                                  ("part", pa.string())]))


def _snap(path) -> tuple[dict, dict]:
    ours = {r["id"]: r["val"] for r in read_table(path).to_pylist()}
    return ours, {r["id"]: r["val"] for r in hudi_rs_rows(path)}


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_new_v9_table_holds_java_1_1_properties_and_hudi_rs_reads_it(tmp_path, corpus_tables, table_type):
    path = tmp_path / "t"
    # without a metadata table: the properties are held to a Java table made without one, and the archival
    # at the end is refused on a table with one until its own compaction runs (helper mdtsvc's part)
    write_table(path, _batch([("k1", "a", 1, "x"), ("k2", "b", 1, "y"), ("k3", "c", 1, "x")]), "insert",
                _options(table_type, **{"hoodie.metadata.enable": "false"}))
    props = read_properties(path)
    assert props.version == 9 and props.timeline_layout_version == 2
    p = props.to_dict()
    assert p["hoodie.table.ordering.fields"] == "ts" and p["hoodie.record.merge.mode"] == "EVENT_TIME_ORDERING"
    assert p["hoodie.table.format"] == "native" and p["hoodie.table.initial.version"] == "9"
    for gone in ("hoodie.table.precombine.field", "hoodie.compaction.payload.class",
                 "hoodie.record.merge.strategy.id"):
        assert gone not in p, gone
    # the keys Java 1.1 writes for a new table without a metadata table (its CREATE TABLE's), and ours: the
    # same, but for the timeline zone hudi-log records (UTC, so that every writer agrees on instant times)
    java = read_properties(corpus_tables["sample_table_cow_v9_txns_simple_nometa"]).to_dict()
    assert set(p) - set(java) == {"hoodie.table.timeline.timezone"}
    assert set(java) - set(p) == set()
    assert _snap(path) == ({"k1": "a", "k2": "b", "k3": "c"},) * 2
    o = _options(table_type, **{"hoodie.metadata.enable": "false"})
    write_table(path, _batch([("k1", "A", 2, "x"), ("k2", "old", 0, "y")]), "upsert", o)  # k2: older, loses
    write_table(path, _batch([("k3", "", 3, "x")]), "delete", o)
    expected = {"k1": "A", "k2": "b"}
    assert _snap(path) == (expected, expected)
    if table_type == "MERGE_ON_READ":
        assert compact(path, COMPACT_NOW) is not None
        assert _snap(path) == (expected, expected)
    # the services: a clustering, a clean, a rollback of the last write, archival; each read equal by hudi-rs
    write_table(path, _batch([("k4", "d", 4, "y")]), "insert", o)
    assert cluster(path, {"hoodie.clustering.plan.strategy.small.file.limit": str(1 << 30)})
    expected["k4"] = "d"
    assert _snap(path) == (expected, expected)
    failed = _batch([("k5", "e", 5, "x")])  # a write whose process died before its commit
    tx = begin_write(path, "upsert", o, schema=failed.schema)
    write_batches(tx.context, failed, 0)
    crash(tx)
    rollback(path, tx.instant)
    assert _snap(path) == (expected, expected)
    clean(path, retain_commits=1)
    archive(path, {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3"})
    assert _snap(path) == (expected, expected)
    assert read_properties(path).to_dict() == p  # no action changed the properties


def test_new_v9_table_with_commit_time_ordering_and_several_ordering_fields(tmp_path):
    commit_time = tmp_path / "c"
    o = {**_options("MERGE_ON_READ"), "hoodie.datasource.write.precombine.field": None}
    o = {k: v for k, v in o.items() if v is not None}
    write_table(commit_time, _batch([("k1", "a", 5, "x")]), "insert", o)
    p = read_properties(commit_time).to_dict()
    assert p["hoodie.record.merge.mode"] == "COMMIT_TIME_ORDERING" and "hoodie.table.ordering.fields" not in p
    write_table(commit_time, _batch([("k1", "later", 1, "x")]), "upsert", o)  # commit time: the later write wins
    assert _snap(commit_time) == ({"k1": "later"},) * 2
    # several ordering fields: only version 9 records them; compared field by field
    several = tmp_path / "s"
    o = {**_options("COPY_ON_WRITE"), "hoodie.datasource.write.precombine.field": "ts,val"}
    write_table(several, _batch([("k1", "b", 1, "x"), ("k1", "a", 1, "x"), ("k2", "z", 1, "y")]), "upsert", o)
    assert read_properties(several)["hoodie.table.ordering.fields"] == "ts,val"
    write_table(several, _batch([("k2", "y", 1, "y")]), "upsert", o)  # same ts, smaller val: loses
    assert {r["id"]: r["val"] for r in read_table(several).to_pylist()} == {"k1": "b", "k2": "z"}


def test_v9_merge_configs_hudi_log_does_not_apply_are_refused_before_anything_changes(tmp_path, corpus_tables):
    name = "sample_table_mor_avro_v9_txns_nonpart_nometa"
    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    p = read_properties(path).to_dict()
    write_properties(path, {**p, "hoodie.table.partial.update.mode": "IGNORE_DEFAULTS"})
    before = sorted(str(f.relative_to(path)) for f in path.rglob("*"))
    t = read_table(path)
    row = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")]).slice(0, 1)
    with pytest.raises(UnsupportedMergeConfigError, match="the write would merge.*partial.update.mode=IGNORE_DEFAULTS"):
        write_table(path, row, "upsert", {})
    with pytest.raises(UnsupportedMergeConfigError, match="the compaction"):
        schedule_compaction(path, COMPACT_NOW)
    pq.write_table(row, tmp_path / "row.parquet")
    res = CliRunner().invoke(main, ["write", str(path), "--input", str(tmp_path / "row.parquet")])
    assert res.exit_code == 2 and res.output.count("\n") == 1 and "partial.update.mode" in res.output
    assert sorted(str(f.relative_to(path)) for f in path.rglob("*")) == before
    # a merge property (Java 1.1 records the delete markers of the payloads it retires this way) likewise
    write_properties(path, {**p, "hoodie.record.merge.property.hoodie.payload.delete.field": "Op"})
    with pytest.raises(UnsupportedMergeConfigError, match="hoodie.payload.delete.field=Op"):
        write_table(path, row, "upsert", {})


def test_v9_table_with_a_metadata_table_keeps_it_unless_it_is_disabled(tmp_path, corpus_tables):
    name = "sample_table_mor_avro_v9_txns_simple_meta"
    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    t = read_table(path)
    row = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")]).slice(0, 1)
    # every partition it lists (files, column and partition stats, record and secondary indexes) has a builder
    write_table(path, row, "upsert", {})
    assert compare_with_storage(path) == [] and (path / ".hoodie" / "metadata").exists()
    write_table(path, row, "upsert", {"hoodie.metadata.enable": "false"})
    assert not (path / ".hoodie" / "metadata").exists()
    ours, theirs = _both(path)
    assert ours == theirs == _rows(t)


@pytest.mark.slow
def test_java_v9_table_takes_an_upsert_through_the_spark_data_source(tmp_path, corpus_tables, spark):
    from hudi_log.spark import write as spark_write

    name = "sample_table_mor_avro_v9_txns_nonpart_nometa"
    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    t = read_table(path)
    expected = _rows(t)
    data = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")]).sort_by("txn_id").slice(0, 2)
    data = data.set_column(data.schema.get_field_index("merchant_name"), "merchant_name", pa.array(["s-a", "s-b"]))
    data = data.set_column(data.schema.get_field_index("txn_ts"), "txn_ts", pc.add(data.column("txn_ts"), 1000))
    ddl = ("txn_id string, account_id string, txn_ts bigint, txn_datetime timestamp, txn_date date, "
           "amount decimal(15,2), currency string, txn_type string, merchant_name string, is_international boolean, "
           "fee_amount decimal(10,2), txn_metadata string")  # the table's own types (pandas would narrow decimals)
    assert data.column_names == [c.split()[0] for c in ddl.split(", ")]
    spark_write(spark.createDataFrame(data.to_pandas(), schema=ddl), str(path),
                {"hoodie.datasource.write.operation": "upsert"})
    for r in data.select(COLUMNS).to_pylist():
        expected[r["txn_id"]] = tuple(r[c] for c in COLUMNS)
    ours, theirs = _both(path)
    assert ours == expected == theirs


def test_custom_merge_mode_is_refused_on_write_and_create(tmp_path, corpus_tables):
    from hudi_log.table.write.create import TableOptionsError

    name = "sample_table_cow_v9_txns_simple_nometa"
    path = tmp_path / name
    shutil.copytree(corpus_tables[name], path)
    write_properties(path, {**read_properties(path).to_dict(), "hoodie.record.merge.mode": "CUSTOM"})
    t = read_table(path)
    row = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")]).slice(0, 1)
    with pytest.raises(UnsupportedMergeConfigError, match="hoodie.record.merge.mode=CUSTOM"):
        write_table(path, row, "upsert", {})
    with pytest.raises(TableOptionsError, match="CUSTOM"):
        write_table(tmp_path / "new", _batch([("k1", "a", 1, "x")]), "insert",
                    _options("COPY_ON_WRITE", **{"hoodie.record.merge.mode": "CUSTOM"}))
    assert not (tmp_path / "new" / ".hoodie").exists()


def test_array_wrapper_delete_ordering_compares_item_by_item():
    """Hudi 1.1 wraps the ordering values of a table with several ordering fields in an ArrayWrapper; the
    log scanner unwraps its items to compare them with a record's values, field by field."""
    from hudi_log.format.content.deletes import ArrayItem, ArrayItemKind
    from hudi_log.table.read.scanner import ordering_ge, ordering_tuple

    wrapped = (ArrayItem(2, ArrayItemKind.LONG), ArrayItem("b", ArrayItemKind.STRING))
    assert ordering_tuple(wrapped) == (2, "b")
    assert ordering_ge(ordering_tuple(wrapped), (2, "a")) and not ordering_ge(ordering_tuple(wrapped), (2, "c"))
    assert ordering_tuple(7) == (7,) and ordering_tuple(None) is None


@pytest.mark.parametrize("version", [8, 9])
def test_a_payload_class_given_at_creation_sets_the_merge_mode_as_java_infers_it(tmp_path, version):
    """``HoodieTableConfig.inferMergingConfigsForPreV9Table``: OverwriteWithLatestAvroPayload merges by commit
    time even with an ordering field; version 9 keeps it as the legacy payload (``inferMergingConfigsFor
    V9TableCreation``), version 8 as the payload, each with the commit-time strategy id."""
    from hudi_log.table.write.create import TableOptionsError

    overwrite = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
    o = {**_options("MERGE_ON_READ"), "hoodie.write.table.version": str(version),
         "hoodie.datasource.write.payload.class": overwrite}
    path = tmp_path / "t"
    write_table(path, _batch([("k1", "a", 5, "x")]), "insert", o)
    p = read_properties(path).to_dict()
    assert p["hoodie.record.merge.mode"] == "COMMIT_TIME_ORDERING"
    assert p["hoodie.record.merge.strategy.id"] == "ce9acb64-bde0-424c-9b91-f6ebba25356d"
    assert p["hoodie.legacy.payload.class" if version == 9 else "hoodie.compaction.payload.class"] == overwrite
    write_table(path, _batch([("k1", "later", 1, "x")]), "upsert", o)  # commit time: the later write wins
    assert {r["id"]: r["val"] for r in read_table(path).to_pylist()} == {"k1": "later"}
    for bad in ({"hoodie.datasource.write.payload.class": "com.example.MyPayload"},
                {"hoodie.record.merge.mode": "EVENT_TIME_ORDERING"}):
        with pytest.raises(TableOptionsError):
            write_table(tmp_path / "bad", _batch([("k1", "a", 5, "x")]), "insert", {**o, **bad})
    assert not (tmp_path / "bad" / ".hoodie").exists()
