"""The lake-wide block check on Spark: the ``hudi_log_blocks`` source and ``hudi-log validate --spark``.

The source's rows are checked against ``hudi_log.open_log`` on the same files (every corpus log file), and
``validate --spark`` against the plain ``validate`` on a damaged copy of a lake.
"""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from hudi_log import open_log
from hudi_log.cli import main as cli

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
from hudi_log.spark.blocks import BlocksReader, expand, pack  # noqa: E402


def test_pack_groups_by_size_and_count():
    items = [("a", 10), ("b", 10), ("c", 25), ("d", 1), ("e", 1), ("f", 1)]
    assert pack(items, target_bytes=20, max_items=10) == [["a", "b"], ["c"], ["d", "e", "f"]]
    assert pack(items, target_bytes=1000, max_items=2) == [["a", "b"], ["c", "d"], ["e", "f"]]
    assert pack([], 10, 10) == []


def test_expand_globs_directories_and_missing(tmp_path):
    (tmp_path / "t" / "p").mkdir(parents=True)
    log = tmp_path / "t" / "p" / ".f1-0_001.log.1_0-1-0"
    log.write_bytes(b"x")
    (tmp_path / "t" / "p" / "base.parquet").write_bytes(b"y")
    missing = str(tmp_path / "nope")
    by_dir = expand([str(tmp_path / "t")])
    by_glob = expand([str(tmp_path / "**" / ".*.log.*")])
    assert by_dir == by_glob == [(str(log), 1)]
    assert expand([missing, str(log), str(log)]) == sorted([(missing, 0), (str(log), 1)])


@pytest.mark.slow
def test_blocks_source_matches_open_log(spark, corpus_log_files):
    files = [str(p) for p in corpus_log_files]
    options = {"paths": json.dumps(files), "maxFilesPerPartition": "50"}
    parts = BlocksReader(options).partitions()
    assert len(parts) >= len(files) // 50 and sorted(f for p in parts for f in p.files) == sorted(files)
    df = spark.read.format("hudi_log_blocks").option("maxFilesPerPartition", "50").load(files)
    got = sorted((r["path"], r["offset"], r["length"], r["block_type"], r["instant"], r["record_count"],
                  r["corrupt"], r["error"], tuple(sorted((r["header"] or {}).items())))
                 for r in df.collect())
    want = []
    for f in files:
        for b in open_log(f):
            want.append((f, b.offset, b.length, "CORRUPT_BLOCK" if b.corrupt else b.block_type_name,
                         None if b.corrupt else b.instant_time, None if b.corrupt else b.record_count,
                         b.corrupt, None, tuple(sorted(b.header.items())) if not b.corrupt else ()))
    assert got == sorted(want)
    assert len(got) >= len(files)


def _damaged_lake(corpus_dir, tmp_path):
    lake = tmp_path / "lake"
    shutil.copytree(corpus_dir / "log_files", lake)
    logs = sorted(p for p in lake.rglob(".*.log.*"))
    victim = logs[0]
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) - 3])  # a writer that died in the last block
    return lake, victim


@pytest.mark.slow
def test_validate_spark_reports_what_validate_reports(spark, corpus_dir, tmp_path):
    lake, victim = _damaged_lake(corpus_dir, tmp_path)
    pattern = str(lake / "**" / ".*.log.*")
    files = sorted(str(p) for p in lake.rglob(".*.log.*"))
    plain = CliRunner().invoke(cli, ["validate", "--json", *files])
    on_spark = CliRunner().invoke(cli, ["validate", "--spark", "--json", pattern])
    assert plain.exit_code == on_spark.exit_code == 1, on_spark.output
    a, b = json.loads(plain.output), json.loads(on_spark.output)
    spans_plain = sorted((f["path"], d["offset"], d["length"], d["rule"]) for f in a["files"] for d in f["damage"])
    spans_spark = sorted((d["path"], d["offset"], d["length"], d["rule"]) for d in b["damage"])
    assert spans_plain == spans_spark and spans_spark and spans_spark[0][0] == str(victim)
    assert b["files"] == len(files) and b["damaged_files"] == 1
    assert b["blocks"] == sum(f["blocks"] for f in a["files"])
    text = CliRunner().invoke(cli, ["validate", "--spark", pattern])
    assert text.exit_code == 1 and "DAMAGED:" in text.output.splitlines()[-1]


@pytest.mark.slow
def test_validate_spark_unreadable_and_intact(spark, corpus_dir, tmp_path):
    intact = str(corpus_dir / "log_files" / "**" / ".*.log.*")
    ok = CliRunner().invoke(cli, ["validate", "--spark", intact])
    assert ok.exit_code == 0, ok.output
    assert ok.output.splitlines()[-1].startswith("OK: 4 file(s)")
    not_log = tmp_path / ".x_1.log.1_0-1-0"
    not_log.write_bytes(b"definitely not a hudi log file")
    bad = CliRunner().invoke(cli, ["validate", "--spark", "--json", intact, str(not_log),
                                   str(tmp_path / "missing.log")])
    assert bad.exit_code == 2
    report = json.loads(bad.output)
    assert sorted(u["path"] for u in report["unreadable"]) == sorted([str(not_log), str(tmp_path / "missing.log")])
