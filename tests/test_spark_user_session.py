"""A user's own SparkSession (no PYSPARK_PYTHON, python3 on the PATH without hudi-log) just works, and one whose
PYSPARK_PYTHON cannot import hudi-log gets one clear line naming it, not a Java stack trace."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")

SCRIPT = textwrap.dedent("""
    import sys
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from hudi_log.table.write.client import write_table
    import hudi_log.spark
    path = sys.argv[1]
    write_table(path, pa.table({"id": [1, 2]}), "insert", {"hoodie.table.name": "t",
                "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.table.type": "MERGE_ON_READ"})
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    try:
        hudi_log.spark.register(spark)
    except hudi_log.spark.WorkerPythonError as e:
        print("ERROR", e)
        sys.exit(2)
    print("ROWS", sorted(r["id"] for r in spark.read.format("hudi_log").load(path).collect()))
""")


def _foreign_python(tmp_path):
    """A python3 first on the PATH that is not this environment's (it cannot import hudi-log)."""
    for cand in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(cand) and subprocess.run([cand, "-c", "import hudi_log"], capture_output=True).returncode:
            d = tmp_path / "bin"
            d.mkdir()
            (d / "python3").symlink_to(cand)
            return d, cand
    pytest.skip("no python3 without hudi-log on this machine to stand for a user's PATH")


@pytest.mark.slow
def test_user_session_without_pyspark_python_reads(tmp_path):
    bindir, _ = _foreign_python(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env["PATH"] = f"{bindir}:{env['PATH']}"
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "t")], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ROWS [1, 2]" in r.stdout


@pytest.mark.slow
def test_user_pyspark_python_without_hudi_log_is_named(tmp_path):
    _, foreign = _foreign_python(tmp_path)
    env = {**os.environ, "PYSPARK_PYTHON": foreign}
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "t")], capture_output=True, text=True, env=env)
    assert r.returncode == 2, r.stderr[-2000:]
    assert f"ERROR PYSPARK_PYTHON={foreign}" in r.stdout and f"PYSPARK_PYTHON={sys.executable}" in r.stdout
