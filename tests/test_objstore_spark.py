"""The Spark data sources on an object store (issue 19): ``hudi_log`` writes and reads, and
``hudi_log_blocks`` scans, an s3:// table on the local S3 server, reached through Hadoop's fs.s3a.*
option names alone (no AWS_* variable in the driver; Spark's Python workers get the options)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.paths import as_path
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
         "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.write.table.version": "8",
         "hoodie.parquet.small.file.limit": "0"}  # no small-file packing: the updates go to log blocks
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


def test_streaming_sink_and_source_on_s3(spark, s3, tmp_path):
    """A Structured Streaming query writes micro-batches into an s3:// table (rows staged as objects in
    the bucket), and another reads the table's commits back as a stream."""
    import json
    import os

    import pyarrow.parquet as pq

    from hudi_log.spark.stream_sink import SINK_CHECKPOINT_KEY
    from hudi_log.table.properties import read_properties
    from hudi_log.table.timeline.timeline import Timeline

    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    for n, (ids, name) in enumerate([([1, 2, 3], "a"), ([2, 4], "b")]):
        pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "name": [name] * len(ids),
                                 "ts": pa.array([n] * len(ids), pa.int64())}), src / f"{n}.parquet")
        os.utime(src / f"{n}.parquet", (1_700_000_000 + n,) * 2)  # the file stream's order: by modification time
    path = f"{s3.base}/t"
    o = {**s3.options(), "hoodie.table.name": "events", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
         "hoodie.write.table.version": "8", "hoodie.datasource.compaction.async.enable": "false"}
    q = (spark.readStream.schema("id long, name string, ts long").option("maxFilesPerTrigger", 1).parquet(str(src))
         .writeStream.format("hudi_log").options(**o).option("checkpointLocation", str(tmp_path / "c1"))
         .trigger(availableNow=True).start(path))
    assert q.awaitTermination(300) and q.exception() is None, q.exception()
    assert {r["id"]: r["name"] for r in read_table(path).to_pylist()} == {1: "a", 2: "b", 3: "a", 4: "b"}
    tl = Timeline(path, read_properties(path))
    assert [json.loads(tl.commit_metadata(i)["extraMetadata"][SINK_CHECKPOINT_KEY]) for i in tl.completed_commits()] \
        == [{"default_single_writer": "0"}, {"default_single_writer": "1"}]
    assert not [i for i in as_path(path).rglob("*.arrow")], "staged rows left in the bucket"

    q = (spark.readStream.format("hudi_log").options(**s3.options()).load(path).select("id", "name")
         .writeStream.format("parquet").option("checkpointLocation", str(tmp_path / "c2"))
         .trigger(availableNow=True).start(str(out)))
    assert q.awaitTermination(300) and q.exception() is None, q.exception()
    # both commits in one micro-batch: an incremental range, so each key once, at its latest value
    assert sorted((r["id"], r["name"]) for r in spark.read.parquet(str(out)).collect()) == [
        (1, "a"), (2, "b"), (3, "a"), (4, "b")]
