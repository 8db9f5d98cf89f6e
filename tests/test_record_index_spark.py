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
