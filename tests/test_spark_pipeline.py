"""The README's demo and the pipeline entry point (`python -m hudi_log.pipeline`), run in-process on the
session fixture's Spark."""

from __future__ import annotations

import json

import pytest

from hudi_log.table import read_table

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log import demo, pipeline  # noqa: E402

pytestmark = pytest.mark.slow


def test_demo_walkthrough(spark, tmp_path, capsys):
    assert demo.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for table_type in ("copy_on_write", "merge_on_read"):
        rows = sorted((r["id"], r["name"]) for r in read_table(tmp_path / table_type).to_pylist())
        assert rows == [(1, "a"), (2, "bb")]
    # the three queries of each table, then the MOR log files: an Avro data block (2 rows) and a delete block
    assert out.count("snapshot (ids 1 and 2 remain") == 2 and out.count("point in time: as of") == 2
    assert "|3                 |3  |cc  |2  |" in out  # id 3 as of the upsert, before the delete
    assert "AVRO_DATA_BLOCK" in out and "DELETE_BLOCK" in out
    assert not spark.sparkContext._jsc.sc().isStopped()  # the caller's session survives the demo


def test_pipeline_ingest_read_validate(spark, tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "name": f"n{i}", "ts": 1, "city": ["a", "b"][i % 2]}) + "\n"
                           for i in range(10)))
    table = str(tmp_path / "t")
    common = ["--master", "local[2]"]
    assert pipeline.run([*common, "ingest", "--input", str(src), "--table", table, "--table-name", "t",
                         "--table-type", "MERGE_ON_READ", "--record-key", "id", "--precombine", "ts",
                         "--partition-path", "city", "--operation", "insert"]) == 0
    upd = tmp_path / "upd.jsonl"
    upd.write_text(json.dumps({"id": 3, "name": "three", "ts": 2, "city": "b"}) + "\n")
    assert pipeline.run([*common, "ingest", "--input", str(upd), "--table", table, "--record-key", "id",
                         "--precombine", "ts", "--partition-path", "city", "--table-name", "t",
                         "--table-type", "MERGE_ON_READ"]) == 0
    err = capsys.readouterr().err
    assert "upsert of" in err and "committed: deltacommit" in err and "1 update(s)" in err
    assert pipeline.run([*common, "read", "--table", table, "--show", "20"]) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted((r["id"], r["name"]) for r in shown) == [(i, "three" if i == 3 else f"n{i}") for i in range(10)]
    assert pipeline.run([*common, "validate", f"{table}/**/.*.log.*"]) == 0
    # the data table's one log file and its metadata table's three (the files partition's first, holding its
    # empty delete block, and one per write)
    assert capsys.readouterr().out.splitlines()[-1].startswith("OK: 4 file(s)")
    assert pipeline.run([*common, "read", "--table", str(tmp_path / "nope")]) == 2
    assert "error:" in capsys.readouterr().err
