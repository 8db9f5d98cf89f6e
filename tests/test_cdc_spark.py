"""CDC reads through Spark (issue 18, item 3): ``spark.read`` with the cdc incremental format returns what the
package's CDC query returns, and a ``readStream`` of a CDC table's changes sees every change once, deletes
included, across a restart from its checkpoint."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.table.read.cdc import read_cdc
from hudi_log.table.write.client import write_table

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
pytestmark = pytest.mark.slow

CDC = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.query.incremental.format": "cdc"}


def opts(table_type):
    return {"hoodie.table.name": "cdc", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.partitionpath.field": "part", "hoodie.table.cdc.enabled": "true"}


def rows(ids, ts, name):
    return pa.table({"id": ids, "ts": [ts] * len(ids), "name": [name] * len(ids),
                     "part": ["p%d" % (i % 2) for i in ids]})


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_spark_cdc_read_equals_the_package(spark, tmp_path, table_type):
    t = tmp_path / "t"
    write_table(t, rows(list(range(6)), 1, "a"), "insert", opts(table_type))
    write_table(t, rows([1, 2], 2, "b"), "upsert", opts(table_type))
    write_table(t, rows([3], 3, "x"), "delete", opts(table_type))
    df = spark.read.format("hudi_log").options(**CDC, **{"hoodie.datasource.read.begin.instanttime": "0"}).load(str(t))
    assert df.columns == ["op", "ts_ms", "before", "after"]
    got = sorted(tuple(r) for r in df.collect())
    want = sorted(tuple(r.values()) for r in read_cdc(t, "0").to_pylist())
    assert got == want and sorted(op for op, *_ in got) == ["d"] + ["i"] * 6 + ["u"] * 2


def test_spark_cdc_stream_sees_each_change_once(spark, tmp_path):
    t, ckpt, out = tmp_path / "t", tmp_path / "ckpt", tmp_path / "out"
    write_table(t, rows([1, 2], 1, "a"), "insert", opts("MERGE_ON_READ"))

    def run_once():
        q = (spark.readStream.format("hudi_log").options(**CDC).load(str(t))
             .writeStream.format("parquet").option("checkpointLocation", str(ckpt)).trigger(availableNow=True)
             .start(str(out)))
        q.awaitTermination(120)
        assert q.exception() is None

    run_once()
    write_table(t, rows([1], 2, "b"), "upsert", opts("MERGE_ON_READ"))
    write_table(t, rows([2], 3, "x"), "delete", opts("MERGE_ON_READ"))
    run_once()  # restarted from its checkpoint
    seen = sorted((r.op, r.ts_ms) for r in spark.read.parquet(str(out)).collect())
    want = sorted((r["op"], r["ts_ms"]) for r in read_cdc(t, "0").to_pylist())
    assert seen == want and sorted(op for op, _ in seen) == ["d", "i", "i", "u"]
