"""The Spark data sources on an object store (issue 19): ``hudi_log`` writes and reads, and
``hudi_log_blocks`` scans, an s3:// table on the local S3 server, reached through Hadoop's fs.s3a.*
option names alone (no AWS_* variable in the driver; Spark's Python workers get the options)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.table import read_table

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark import write  # noqa: E402

pytestmark = pytest.mark.slow


def test_spark_write_read_and_blocks_on_s3(spark, s3, monkeypatch):
    for k in s3.env():
        monkeypatch.delenv(k)
    path = f"{s3.base}/t"
    o = {**s3.options(), "hoodie.table.name": "lake", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
         "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": "8"}
    first = spark.createDataFrame([(f"k{i}", f"a{i}", 1, f"p{i % 2}") for i in range(20)], "id string, val string, ts long, part string")
    first.repartition(2).write.format("hudi_log").options(**o).mode("append").save(path)
    second = spark.createDataFrame([(f"k{i}", f"b{i}", 2, f"p{i % 2}") for i in range(0, 30, 3)], "id string, val string, ts long, part string")
    summary = write(second.repartition(3), path, o)
    assert summary.updates == 7 and summary.inserts == 3

    expected = {f"k{i}": f"a{i}" for i in range(20)} | {f"k{i}": f"b{i}" for i in range(0, 30, 3)}
    got = spark.read.format("hudi_log").options(**s3.options()).load(path).select("id", "val").collect()
    assert dict((r.id, r.val) for r in got) == expected
    local = read_table(path)  # the driver's own read, with the options configured above
    assert dict(zip(local["id"].to_pylist(), local["val"].to_pylist())) == expected

    blocks = (spark.read.format("hudi_log_blocks").options(**s3.options()).load(f"{path}/**/.*.log.*")
              .select("path", "block_type", "corrupt", "record_count", "error").collect())
    assert blocks and all(b.path.startswith(path + "/") for b in blocks)
    assert not [b for b in blocks if b.corrupt or b.error]
    # the updates went to log blocks (new keys to base files): the records counted there are those
    assert sum(b.record_count or 0 for b in blocks if b.block_type == "AVRO_DATA_BLOCK") == summary.updates

    with pytest.raises(Exception, match="object store cannot"):
        first.write.format("hudi_log").options(**o).mode("overwrite").save(path)
    assert pa.Table.from_pylist([r.asDict() for r in got]).num_rows == len(expected)
