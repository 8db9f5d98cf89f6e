"""The plain ``df.write`` path says so when a commit wrote several log files into one file group (one per Spark
task that held its rows), naming the count and hudi_log.spark.write; silent where each group got one."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")

from hudi_log.spark.sink import many_log_files_warning  # noqa: E402

CTX = SimpleNamespace(table_path="/lake/t", instant="20260101000000000")


def stat(fid, token, log=True):
    name = f".{fid}_20251231000000000.log.1_{token}" if log else f"{fid}_{token}_20260101000000000.parquet"
    return {"fileId": fid, "path": f"p/{name}"}


def test_several_log_files_in_one_group_are_named():
    stats = [stat("g1", "0-1-1"), stat("g1", "1-1-1"), stat("g1", "2-1-1"), stat("g2", "0-1-1"), stat("g3", "3-1-1", False)]
    w = many_log_files_warning(CTX, stats)
    assert w and "up to 3 log files" in w and "1 of 2 groups" in w and "hudi_log.spark.write" in w and "/lake/t" in w


def test_one_log_file_per_group_is_silent():
    assert many_log_files_warning(CTX, [stat("g1", "0-1-1"), stat("g2", "1-1-1"), stat("g2", "1-1-1", False)]) is None
