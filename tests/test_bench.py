"""The benchmark suite (python -m tools.bench): its table is what hudi-rs and we read alike, and the
command runs end to end on a tiny size."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hudi_log import open_log, read_table
from hudi_log.format.grammar import BlockType

hudi = pytest.importorskip("hudi")
pa = pytest.importorskip("pyarrow")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools.bench.inputs import make_table  # noqa: E402


def test_bench_table_reads_the_same_in_hudi_rs_and_hudi_log(tmp_path):
    info = make_table(tmp_path / "t", 900, block_records=100)
    assert info["expected_rows"] == 900 - info["deleted"] and info["deleted"] == 9 and info["updated"] == 81
    logs = [p for p in (tmp_path / "t").rglob(".*.log.*")]
    blocks = [b for p in logs for b in open_log(p, strict=True)]
    avro = [b for b in blocks if b.block_type == BlockType.avro_data_block]
    inserts = [b for b in avro if b.instant_time == info["instants"][0]]
    updates = [b for b in avro if b.instant_time == info["instants"][1]]
    assert len(inserts) == info["insert_blocks"] == 16 and max(b.record_count for b in inserts) == 100
    assert sum(b.record_count for b in inserts) == 900 and sum(b.record_count for b in updates) == info["updated"]
    # keys 0, 100, ..., 800 are deleted: all in partition 0, file groups 0 and 1
    deletes = [b for b in blocks if b.block_type == BlockType.delete_block]
    assert len(deletes) == 2 and sum(len(b.deletes()) for b in deletes) == 9

    theirs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(tmp_path / "t")).build().read(hudi.HudiReadOptions()))
    ours = read_table(str(tmp_path / "t"))
    assert ours.num_rows == theirs.num_rows == info["expected_rows"]
    cols = ["_hoodie_record_key", "_hoodie_commit_time", "ts", "fare", "city"]
    key = [("_hoodie_record_key", "ascending")]
    assert ours.select(cols).sort_by(key).to_pylist() == theirs.select(cols).sort_by(key).to_pylist()
    updated = ours.filter(pa.compute.equal(ours["_hoodie_commit_time"], info["instants"][1]))
    assert updated.num_rows == info["updated"]


@pytest.mark.slow
def test_bench_command_runs_end_to_end():
    proc = subprocess.run(
        [sys.executable, "-m", "tools.bench", "--records", "2000", "--size-mb", "5", "--repeat", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for name in ("read/hudi-log", "read/hudi-rs", "scan/open_log", "scan/read()", "write/arrow", "write/dicts",
                 "write/write()", "write/fastavro"):
        assert re.search(rf"^  {re.escape(name)}\s+\d+\.\d+", out, re.M), name
    ratios = re.findall(r"^  (.+?)\s+(\d+\.\d+)\s+goal >= ", out, re.M)
    assert len(ratios) == 5 and all(float(r) > 0 for _, r in ratios)


@pytest.mark.slow
def test_spark_bench_reports_its_ratios():
    """tools/bench/spark.py on a tiny DataFrame: every timing and both ratios are printed (the row sets
    of the data source and hudi-rs are checked equal inside it)."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
    proc = subprocess.run([sys.executable, "tools/bench/spark.py", "2000", "--repeat", "2",
                           "--partitions", "8", "--file-groups", "8"],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert re.search(r"hudi_log upsert\s+\d+\.\d+s\s+ratio \d+\.\d+ \(goal <= 2\.0; per round: \d+\.\d+, \d+\.\d+\)", out)
    assert re.search(r"combine off\s+\d+\.\d+s\s+ratio \d+\.\d+", out)
    # the peer: the same join, routing and write in Spark's own code, and the upsert against it
    assert re.search(r"spark alone, same work\s*\d+\.\d+s\s+ratio \d+\.\d+ .*upsert / it: \d+\.\d+, per round: "
                     r"\d+\.\d+, \d+\.\d+\)", out), out
    assert re.search(r"hudi-rs read\s+\d+\.\d+s\s+ratio \d+\.\d+ \(ours / hudi-rs", out)
    assert re.search(r"spark parquet read\s+\d+\.\d+s\s+ratio \d+\.\d+ \(ours / Spark's Parquet read", out), out
    assert re.search(r"driver peak memory\s+\d+ MB resident .* at most -?\d+ MB over what it held", out), out
    # issue 17: one log file per touched file group, and a driver index per file group, not per key
    per_group = re.search(r"files per file group\s+(\d+)/(\d+) = ", out)
    assert per_group and per_group.group(1) == per_group.group(2), out
    assert re.search(r"driver index\s+before 2,000 keys .* after \d+ file groups", out), out


def test_scale_bench_reports_per_file_group_costs():
    """tools/bench/scale.py (docs/scale.md's driver figures) at 20 file groups: every step is timed and
    sized per file group, and the commit it reads has one write stat per group."""
    proc = subprocess.run([sys.executable, "tools/bench/scale.py", "20", "--upserts", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert out.startswith("20 file groups, 200 rows"), out
    for step in ("latest file slices", "distributed index plan", "one commit's metadata read", "snapshot read plan"):
        assert re.search(rf"^{step}.*\s\d+\.\d{{3}}\s+\d+\.\d", out, re.M), out
    assert re.search(r"^distributed index plan\s.*\s\d+\s+\d+$", out, re.M), out  # bytes and bytes per group
    assert "write stats in that commit: 20 (" in out, out


@pytest.mark.slow
def test_stream_bench_reports_both_sinks():
    """tools/bench/stream.py at 3 micro-batches of 500 rows: throughput and latency of Spark's Parquet sink,
    of the hudi_log sink and of the Python data source API's floor, and the ratios (the table is checked to
    hold every key once inside it)."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
    proc = subprocess.run([sys.executable, "tools/bench/stream.py", "--batch-rows", "500", "--batches", "3"],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    for sink in ("parquet", "hudi_log", "floor"):
        assert re.search(rf"^  {sink}\s+[\d,]+ rows/s\s+\(steady\s+[\d,]+ rows/s\)\s+latency median\s+\d+\.\d+s",
                         out, re.M), out
        if os.path.exists("/proc/stat"):  # how busy the cores were while the query ran
            assert re.search(rf"^  {sink}\s.*, \d+\.\d\d of \d+ cores busy\)$", out, re.M), out
    for peer in ("parquet", "floor"):
        assert re.search(rf"hudi_log / {peer}: throughput \d+\.\d+, steady throughput \d+\.\d+, median latency "
                         r"\d+\.\d+", out), out


@pytest.mark.slow
def test_view_bench_reports_the_open_time_and_the_web_ides():
    """tools/bench/view.py on small delete blocks: the command's and the page's times against the 3 s goal
    (the page is checked to have rendered its first page of records inside the bench), and the Web IDE's."""
    from hudi_log.cli.chromium import chromium_path

    if chromium_path() is None or shutil.which("node") is None:
        pytest.skip("needs Chromium and node (tools/setup.sh installs them)")
    proc = subprocess.run([sys.executable, "-m", "tools.bench.view", "--keys", "2000", "--webide-keys", "3000",
                           "--repeat", "1"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"view of 4,000 deletes .*hudi-log view \d+\.\d+ s .*page open \d+\.\d+ s .*"
                     r"total / 3 s goal = \d+\.\d+", proc.stdout), proc.stdout
    assert re.search(r"3,000-key delete block: opened and expanded in \d+ ms, [\d.]+ MB heap; its records "
                     r"\(one click more\): [\d.]+ s", proc.stdout), proc.stdout


@pytest.mark.slow
def test_bench_deletes_runs_end_to_end():
    """--only deletes on a tiny table: the four timings and the two ratios (delete vs upsert, delete-heavy
    vs update-heavy read; each side's row or key count is checked inside the bench)."""
    proc = subprocess.run([sys.executable, "-m", "tools.bench", "--records", "600", "--repeat", "1", "--only", "deletes"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    for name in ("deletes/upsert", "deletes/delete", "deletes/read-updated", "deletes/read-deleted"):
        assert re.search(rf"^  {re.escape(name)}\s+\d+\.\d+", proc.stdout, re.M), name
    ratios = re.findall(r"^  (.+?)\s+(\d+\.\d+)\s+goal >= ", proc.stdout, re.M)
    assert [what for what, _ in ratios] == ["upsert time / delete time (write_table)",
                                            "read: updated-log time / deleted-log time"]


@pytest.mark.slow
def test_bench_logfiles_runs_end_to_end():
    """--only logfiles on a tiny table: the plain df.write left up to 200 log files per group, hudi_log.spark.write
    one, and both reads ran (each returns every row; checked inside the bench) with their ratio."""
    proc = subprocess.run([sys.executable, "-m", "tools.bench", "--records", "2000", "--repeat", "1",
                           "--only", "logfiles"], cwd=REPO, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "HUDI_LOG_BENCH_LOGFILES_PARTITIONS": "24"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    m = re.search(r"(\d+) log files \(<= (\d+) per group\) by a plain df.write of 24 partitions, (\d+) by "
                  r"hudi_log.spark.write", proc.stdout)
    assert m and int(m.group(2)) > 1 and int(m.group(1)) > int(m.group(3)), proc.stdout
    for name in ("logfiles/read-routed", "logfiles/read-plain"):
        assert re.search(rf"^  {re.escape(name)}\s+\d+\.\d+", proc.stdout, re.M), name
    assert re.search(r"read: many-log-files time / one-log-file time\s+\d+\.\d+\s+no goal", proc.stdout), proc.stdout
