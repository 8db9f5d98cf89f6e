"""Issue 6 acceptance: a write (or a compaction) SIGKILLed at a random point leaves a table that both
readers (ours and hudi-rs) read as the last completed state; ``hudi-log rollback`` (or the next write)
cleans it up and reads stay right.

A worker process imports everything, says ``ready``, waits for ``go`` on stdin and then runs the write;
the test kills it after a delay spread over the write's measured duration (from "before the first
instant file" to "after the commit"), plus a random jitter, so the kill points fall in every phase:
timeline requested/inflight, base files, log appends, commit.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

hudi = pytest.importorskip("hudi")

from hudi_log.cli import main  # noqa: E402
from hudi_log.table import HudiTable, read_table  # noqa: E402
from hudi_log.table.services.compaction import schedule_compaction  # noqa: E402
from hudi_log.table.view.file_system_view import parse_base_file_name, parse_log_file_name  # noqa: E402
from hudi_log.table.write.client import write_table  # noqa: E402
from hudi_rs_oracle import hudi_rs_rows  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
PARTS = 6

WORKER = r"""
import json, sys, time
import pyarrow as pa
from hudi_log.table.write.client import write_table
from hudi_log.table.services.compaction import run_compaction
job = json.loads(sys.argv[1])
if job.get("hold"):  # fault injection: stop just before the instant completes, every data file written
    from hudi_log.table.timeline.writer import TimelineWriter
    def held(self, *a, **k):
        print("holding", flush=True)
        time.sleep(600)
    TimelineWriter.complete = held
print("ready", flush=True)
sys.stdin.readline()
t0 = time.monotonic()
if job["op"] == "compact":
    run_compaction(job["path"], job["instant"], job.get("options"))
else:
    schema = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64()), ("part", pa.string())])
    write_table(job["path"], pa.Table.from_pylist(job["rows"], schema=schema), job["op"], job["options"])
print("done", time.monotonic() - t0, flush=True)
"""


#: heartbeats that a killed process stops keeping expire after 2 x 0.5 s, so cleanup need not wait Java's 120 s
HEARTBEAT = {"hoodie.client.heartbeat.interval_in_ms": "500", "hoodie.client.heartbeat.tolerable.misses": "2"}
HEARTBEAT_CLI = [a for k, v in HEARTBEAT.items() for a in ("--option", f"{k}={v}")]


def options(version: int, table_type: str) -> dict:
    return {"hoodie.table.name": "killed", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version),
            **HEARTBEAT}


def wait_for_dead_heartbeats(base: Path) -> None:
    """Until every heartbeat left by the killed process has expired (the next writer then takes its
    instant for failed; before that, it would stop at a live writer)."""
    folder = base / ".hoodie" / ".heartbeat"
    timeout = int(HEARTBEAT["hoodie.client.heartbeat.interval_in_ms"]) * int(
        HEARTBEAT["hoodie.client.heartbeat.tolerable.misses"]) / 1000
    beats = [p.stat().st_mtime for p in folder.iterdir()] if folder.is_dir() else []
    if beats:
        time.sleep(max(0.0, max(beats) + timeout + 0.05 - time.time()))


def rows(ids, tag: str, ts: int) -> list[dict]:
    return [{"id": f"id{i:04d}", "val": f"{tag}{i}", "ts": ts, "part": f"p{i % PARTS}"} for i in ids]


def state(rs: list[dict]) -> dict:
    return {r["id"]: r["val"] for r in rs}


def ours(base) -> dict:
    return state(read_table(base).to_pylist())


def theirs(base) -> dict:
    return state(hudi_rs_rows(base))


def prepare(base: Path, version: int, table_type: str) -> dict:
    """Three commits over PARTS partitions; returns the model."""
    opts = options(version, table_type)
    model: dict = {}
    for op, rs in (("insert", rows(range(120), "a", 1)), ("upsert", rows(range(0, 120, 3), "b", 2)),
                   ("delete", rows(range(1, 120, 7), "", 3))):
        write_table(base, pa.Table.from_pylist(rs, schema=SCHEMA), op, opts)
        for r in rs:
            if op == "delete":
                model.pop(r["id"], None)
            else:
                model[r["id"]] = r["val"]
    return model


def the_write(model: dict) -> tuple[str, list[dict], dict]:
    """An upsert touching every file group (updates) plus new keys; the model after it."""
    rs = rows(list(range(0, 120, 2)) + list(range(120, 200)), "c", 4)
    after = dict(model)
    after.update({r["id"]: r["val"] for r in rs})
    return "upsert", rs, after


class Worker:
    def __init__(self, job: dict):
        env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.p = subprocess.Popen([sys.executable, "-c", WORKER, json.dumps(job)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert self.p.stdout.readline().strip() == "ready", self.p.stderr.read()

    def go(self) -> float:
        self.p.stdin.write("go\n")
        self.p.stdin.flush()
        return time.monotonic()

    def finish(self) -> float:
        """Wait for the end; the write's own duration (without interpreter start and exit)."""
        out, err = self.p.communicate(timeout=120)
        assert self.p.returncode == 0 and out.startswith("done "), err
        return float(out.split()[1])

    def kill_when_holding(self) -> None:
        """SIGKILL once the worker says it holds before completing its instant."""
        self.go()
        assert self.p.stdout.readline().strip() == "holding", self.p.stderr.read()
        os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait(timeout=60)
        for f in (self.p.stdout, self.p.stderr, self.p.stdin):
            f.close()

    def kill_after(self, delay: float) -> bool:
        """SIGKILL ``delay`` seconds after go; True when the worker was still running."""
        t0 = self.go()
        while time.monotonic() - t0 < delay:
            if self.p.poll() is not None:
                break
            time.sleep(0.001)
        running = self.p.poll() is None
        if running:
            os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait(timeout=60)
        self.p.stdout.close()
        self.p.stderr.close()
        self.p.stdin.close()
        return running


def measure(job: dict) -> float:
    w = Worker(job)
    w.go()
    return w.finish()


def delays(duration: float, n: int, rnd: random.Random) -> list[float]:
    # right after go .. the end, evenly spread and jittered, then one past the end (the write completes)
    points = [duration * (k + rnd.uniform(0.0, 1.0)) / (n - 1) for k in range(n - 1)]
    return points + [duration * 1.5]


def _pending_writes(base) -> list:
    return [i for i in HudiTable(base).timeline.pending() if i.action != "compaction"]


def _files_of(base: Path, instant: str, version: int) -> list[str]:
    """Data files named after ``instant`` (base files; v8 log files) — what a rollback must remove."""
    out = []
    for p in base.rglob("*"):
        if ".hoodie" in p.parts or not p.is_file():
            continue
        b = parse_base_file_name(p)
        lf = parse_log_file_name(p)
        if (b is not None and b.instant == instant) or (version >= 8 and lf is not None and lf.instant == instant):
            out.append(p.name)
    return out


def _rolled_back(base) -> set[str]:
    """The write instants the completed rollback instants name (their HoodieRollbackMetadata)."""
    tl = HudiTable(base).timeline
    return {c for i in tl.completed() if i.action == "rollback" for c in tl.commit_metadata(i)["commitsRollback"]}


def kill_write_trials(tmp_path: Path, version: int, table_type: str, points: int, seed: int) -> dict:
    rnd = random.Random(seed)
    template = tmp_path / "template"
    model = prepare(template, version, table_type)
    op, rs, after = the_write(model)
    opts = options(version, table_type)
    runs = []
    for k in range(2):  # the shorter of two runs (the first may pay for warm-up)
        scratch = tmp_path / f"measure{k}"
        shutil.copytree(template, scratch)
        runs.append(measure({"op": op, "rows": rs, "options": opts, "path": str(scratch)}))
        assert ours(scratch) == after
    duration = min(runs)
    outcomes = {"before": 0, "after": 0, "pending": 0}  # pending: killed between requested and completed
    # the timed kills, then one held just before the commit (so a killed pending write is always seen,
    # however fast or slow the machine makes the write)
    for n, delay in enumerate(delays(duration, points, rnd) + [None]):
        base = tmp_path / f"trial{n}"
        shutil.copytree(template, base)
        job = {"op": op, "rows": rs, "options": opts, "path": str(base)}
        if delay is None:
            Worker({**job, "hold": True}).kill_when_holding()
        else:
            Worker(job).kill_after(delay)
        timeline = HudiTable(base).timeline
        done = [i for i in timeline.completed_commits() if i.requested_time not in
                HudiTable(template).timeline.completed_commit_times()]
        expected = after if done else model
        outcomes["after" if done else "before"] += 1
        assert ours(base) == expected, (n, delay)
        assert theirs(base) == expected, (n, delay)
        pending = _pending_writes(base)
        outcomes["pending"] += bool(pending)
        wait_for_dead_heartbeats(base)
        if n % 2 == 0:
            # hudi-log rollback of each failed instant
            for inst in pending:
                res = CliRunner().invoke(main, ["rollback", str(base), inst.requested_time, *HEARTBEAT_CLI])
                assert res.exit_code == 0, res.output
                assert _files_of(base, inst.requested_time, version) == []
            assert _pending_writes(base) == []
            assert ours(base) == expected and theirs(base) == expected
        # the next write (rolls back what is left first) and reads stay right
        nxt = rows(range(200, 205), "d", 5)
        write_table(base, pa.Table.from_pylist(nxt, schema=SCHEMA), "upsert", opts)
        rolled = _rolled_back(base)
        for inst in pending:
            assert inst.requested_time in rolled
            assert HudiTable(base).timeline.instant(inst.requested_time) is None
            assert _files_of(base, inst.requested_time, version) == []
        final = {**expected, **{r["id"]: r["val"] for r in nxt}}
        assert _pending_writes(base) == []
        assert ours(base) == final and theirs(base) == final
        shutil.rmtree(base)
    return outcomes


def kill_compaction_trials(tmp_path: Path, version: int, points: int, seed: int) -> int:
    rnd = random.Random(seed)
    template = tmp_path / "template"
    model = prepare(template, version, "MERGE_ON_READ")
    instant = schedule_compaction(template)
    assert instant is not None
    scratch = tmp_path / "measure"
    shutil.copytree(template, scratch)
    duration = measure({"op": "compact", "instant": instant, "path": str(scratch), "options": HEARTBEAT})
    assert ours(scratch) == model
    killed = 0
    for n, delay in enumerate(delays(duration, points, rnd)):
        base = tmp_path / f"trial{n}"
        shutil.copytree(template, base)
        killed += Worker({"op": "compact", "instant": instant, "path": str(base), "options": HEARTBEAT}).kill_after(delay)
        assert ours(base) == model and theirs(base) == model, (n, delay)
        if HudiTable(base).timeline.instant(instant).state != "COMPLETED":
            wait_for_dead_heartbeats(base)
            res = CliRunner().invoke(main, ["compact", str(base), "--instant", instant, *HEARTBEAT_CLI])
            assert res.exit_code == 0, res.output
        assert HudiTable(base).timeline.instant(instant).state == "COMPLETED"
        for part in base.iterdir():
            if part.is_dir() and part.name != ".hoodie":
                names = [p.name for p in part.iterdir()]
                assert not any(x.endswith(".tmp") for x in names), names
                fids = [parse_base_file_name(part / x).file_id for x in names
                        if parse_base_file_name(part / x) and x.endswith(f"_{instant}.parquet")]
                assert len(fids) == len(set(fids)), names  # one new base file per file group
        assert ours(base) == model and theirs(base) == model
        shutil.rmtree(base)
    return killed


def test_killed_write_short(tmp_path):
    outcomes = kill_write_trials(tmp_path, 8, "MERGE_ON_READ", points=3, seed=1)
    assert outcomes["before"] >= 1


@pytest.mark.slow
@pytest.mark.parametrize("version,table_type", [(6, "MERGE_ON_READ"), (8, "MERGE_ON_READ"),
                                                (6, "COPY_ON_WRITE"), (8, "COPY_ON_WRITE")])
def test_killed_write(tmp_path, version, table_type):
    outcomes = kill_write_trials(tmp_path, version, table_type, points=7, seed=version)
    assert outcomes["pending"] >= 1 and outcomes["before"] + outcomes["after"] == 8, outcomes


@pytest.mark.slow
@pytest.mark.parametrize("version", [6, 8])
def test_killed_compaction(tmp_path, version):
    assert kill_compaction_trials(tmp_path, version, points=5, seed=version) >= 1
