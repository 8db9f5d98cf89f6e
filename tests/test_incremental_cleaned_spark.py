"""Incremental reads over cleaned commits on Spark (issue 35, item 4): the batch source, hudi_log.spark.read
and a streaming query fail naming the commits by default, and with
``hoodie.datasource.read.incr.fallback.fulltablescan.enable`` return the latest snapshot filtered by commit
time. The planning itself is tested without Spark in test_incremental_cleaned.py."""

from __future__ import annotations

import pytest

from hudi_log.table import read_table
from hudi_log.table.read.incremental import FALLBACK_OPTION
from hudi_log.table.services.clean import clean

from test_incremental_cleaned import expected, rows, upserts

pytestmark = pytest.mark.slow
TIMEOUT = 300  # seconds a query may take on a busy 2-core box


def spark_rows(df) -> list[tuple]:
    return sorted((r["id"], r["val"], r["_hoodie_commit_time"]) for r in df.collect())


def test_batch_source_and_spark_read(spark, tmp_path):
    from hudi_log.spark import read

    base = tmp_path / "t"
    commits = upserts(base, "MERGE_ON_READ", 8)
    assert clean(base, retain_commits=1)
    end = commits[1].completion_time
    o = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": "000",
         "hoodie.datasource.read.end.instanttime": end}
    for load in (lambda x: spark.read.format("hudi_log").options(**x).load(str(base)),
                 lambda x: read(spark, str(base), x)):
        with pytest.raises(Exception) as e:
            load(o).collect()
        assert "IncrementalCommitsGoneError" in str(e.value) and commits[0].requested_time in str(e.value)
        assert FALLBACK_OPTION in str(e.value)
        got = spark_rows(load({**o, FALLBACK_OPTION: "true"}))
        assert got == expected(base, commits, 8, "000", end) and len(got) == 2


def test_stream_over_cleaned_commits(spark, tmp_path):
    base, out, ckpt = tmp_path / "t", tmp_path / "out", tmp_path / "ckpt"
    commits = upserts(base, "MERGE_ON_READ", 6)
    assert clean(base, retain_commits=1)

    def start(**options):
        return (spark.readStream.format("hudi_log").option("hudi_log.streaming.maxRowsPerTrigger", "2")
                .options(**options).load(str(base)).select("id", "val", "_hoodie_commit_time")
                .writeStream.format("parquet").option("checkpointLocation", str(ckpt))
                .trigger(availableNow=True).start(str(out)))

    q = start()
    with pytest.raises(Exception) as e:  # the query stops with the planning error of its first batch
        q.awaitTermination(TIMEOUT)
    err = str(e.value)
    assert "IncrementalCommitsGoneError" in err and commits[0].requested_time in err and FALLBACK_OPTION in err
    q = start(**{FALLBACK_OPTION: "true"})
    assert q.awaitTermination(TIMEOUT), "the streaming query did not finish in time"
    assert q.exception() is None, q.exception()
    got = spark_rows(spark.read.parquet(str(out)))
    # no live key left out: each at its latest version (k also at the retained version before it), none twice
    assert set(rows(read_table(base))) <= set(got) and len(got) == len(set(got))
