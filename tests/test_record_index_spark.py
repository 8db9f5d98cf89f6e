"""The Spark write's tagging with ``hoodie.index.type=RECORD_INDEX`` (hudi_log.spark.partitioner.tag, the
executors' lookup in the metadata table's record index) puts every key of a corpus table with a record index
in the file group SIMPLE's tagging (a read of the data files) puts it, and a new key in none."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hudi_log.table import read_table
from hudi_log.table.properties import read_properties
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.write.index import latest_slices
from hudi_log.table.write.key_lookup import plan_index
from hudi_log.table.write.keygen_config import key_generator

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark.partitioner import ORDINAL, tag  # noqa: E402

pytestmark = pytest.mark.slow


def test_record_index_tagging_equals_simple_tagging(spark, corpus_tables):
    root = corpus_tables["sample_table_mor_avro_v9_txns_simple_meta"]
    props = read_properties(root)
    tl = Timeline(root, props)
    groups = latest_slices(root, props, tl)
    live = read_table(root).select(["txn_id", "region"]).to_pylist()
    rows = [(r["txn_id"], r["region"]) for r in live] + [("TXN-new", "eu")]
    df = spark.createDataFrame(rows, "txn_id string, region string")
    tagged = {}
    for kind in ("SIMPLE", "RECORD_INDEX"):
        ctx = SimpleNamespace(keygen=key_generator(root, props.to_dict(), {}), operation="upsert", options={},
                              table_path=str(root), index=plan_index(root, props, tl, groups, kind))
        out, _, held = tag(df, ctx, 2)
        tagged[kind] = {(r["txn_id"], r[ORDINAL]) for r in out.select("txn_id", ORDINAL).collect()}
        for frame in held:
            frame.unpersist()
    assert tagged["RECORD_INDEX"] == tagged["SIMPLE"]
    assert ("TXN-new", None) in tagged["RECORD_INDEX"]
    assert sum(o is not None for _, o in tagged["RECORD_INDEX"]) == len(live)


def test_spark_upsert_with_record_index_into_a_corpus_copy(spark, corpus_tables, tmp_path):
    """hudi_log.spark.write with hoodie.index.type=RECORD_INDEX into a copy of a Java-written table: the
    existing keys are found in the record index (updated in place, no second copy) and new keys land in the
    record index where they live."""
    import shutil

    from hudi_log.parquet_io import read_parquet
    from hudi_log.spark import write
    from hudi_log.table.metadata import record_index as ri
    from test_record_index_end_to_end import _drop_partitions_without_builders

    root = tmp_path / "t"
    shutil.copytree(corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"], root)
    _drop_partitions_without_builders(root)
    live = {r["uuid"] for r in read_table(root).select(["uuid"]).to_pylist()}
    base = sorted((root / "city=san_francisco").glob("*.parquet"))[-1]
    t = read_parquet(base)
    t = t.drop_columns([c for c in t.column_names if c.startswith("_hoodie_")])
    rows = [r for r in t.to_pylist() if r["uuid"] in live] + [{**t.to_pylist()[0], "uuid": "new-key"}]
    import pyarrow as pa

    df = spark.createDataFrame(pa.Table.from_pylist(rows, t.schema).to_pandas())  # longs, strings, doubles
    res = write(df, str(root), {"hoodie.index.type": "RECORD_INDEX", "hoodie.datasource.write.operation": "upsert"})
    assert (res.updates, res.inserts) == (len(rows) - 1, 1)
    after = read_table(root).select(["uuid", "_hoodie_partition_path", "_hoodie_file_name"]).to_pylist()
    assert len(after) == len(live) + 1
    scan = {r["uuid"]: (r["_hoodie_partition_path"], r["_hoodie_file_name"].split("_")[0]) for r in after}
    assert ri.lookup_record_index(root, list(scan)) == scan
