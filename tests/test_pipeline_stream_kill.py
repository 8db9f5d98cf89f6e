"""A kill -9 of the streaming pipeline's driver in the middle of a micro-batch, then a restart (issue 18,
item 5): ``python -m hudi_log.pipeline stream`` is killed (its whole process group: the Python driver,
the JVM, the Python workers) while a delta commit is inflight on the table; the same command run again
rolls the dead write back once its heartbeat expired, writes the batch again and goes on. The table then
holds every key once at its newest value (read by hudi-log and by hudi-rs), and the downstream table fed
by the changes stream holds the same rows: no change lost or applied twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hudi_log.table import read_properties, read_table
from hudi_log.table.timeline.timeline import Timeline

pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
hudi = pytest.importorskip("hudi", reason="hudi-rs (PyPI hudi) is not installed")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                                   reason="finds the driver's process tree in Linux's /proc")]
REPO = Path(__file__).resolve().parent.parent
FILES, ROWS = 10, 3000


def make_input(folder: Path) -> dict:
    """FILES JSON files; each updates half of the previous file's keys. Returns key -> newest (name, ts)."""
    folder.mkdir()
    final = {}
    for f in range(FILES):
        rows = [{"id": i, "name": f"v{f}", "ts": f} for i in range(f * ROWS // 2, f * ROWS // 2 + ROWS)]
        (folder / f"{f:03d}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.utime(folder / f"{f:03d}.json", (1_700_000_000 + f, 1_700_000_000 + f))
        final.update({r["id"]: (r["name"], r["ts"]) for r in rows})
    return final


def pending_write(table: Path) -> bool:
    """A delta commit inflight and not completed (v6 keeps the inflight file beside the completed one)."""
    hoodie = table / ".hoodie"
    for d in (hoodie, hoodie / "timeline"):
        names = [p.name for p in d.iterdir()] if d.is_dir() else []
        done = {n.split(".")[0].split("_")[0] for n in names if n.endswith(".deltacommit")}
        if any(n.endswith(".deltacommit.inflight") and n.split(".")[0] not in done for n in names):
            return True
    return False


def completed_writes(table: Path) -> int:
    if not (table / ".hoodie" / "hoodie.properties").exists():
        return 0
    return len(Timeline(table, read_properties(table)).completed_commits())


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and every process below it. Spark's Python workers (and the process that runs a
    streaming writer's commit) start their own process groups, so killing the driver's group alone
    would leave the commit running to its end."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, []))
    for p in tree:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_kill_9_in_a_micro_batch_then_restart(tmp_path):
    src, table, copy, ckpt = tmp_path / "in", tmp_path / "events", tmp_path / "copy", tmp_path / "ckpt"
    final = make_input(src)
    cmd = [sys.executable, "-m", "hudi_log.pipeline", "--master", "local[2]", "stream", "--input", str(src),
           "--table", str(table), "--record-key", "id", "--precombine", "ts", "--checkpoint", str(ckpt),
           "--changes-to", str(copy), "--available-now", "--max-files-per-trigger", "1",
           # a dead writer's heartbeat expires after 2 s, so the restart rolls it back at once
           "--option", "hoodie.client.heartbeat.interval_in_ms=1000",
           "--option", "hoodie.client.heartbeat.tolerable.misses=2"]
    # the kill can land just after a commit completes (the window between seeing the inflight instant and
    # the signal): then the stream is started again from its checkpoint and killed again, up to 3 times
    for _attempt in range(3):
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        caught = False
        deadline = time.monotonic() + 300
        try:
            # after the first commits (the table exists), kill at the first moment a write is inflight
            while proc.poll() is None and time.monotonic() < deadline:
                if completed_writes(table) >= 2 and pending_write(table):
                    kill_tree(proc.pid)
                    caught = True
                    break
                time.sleep(0.005)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        assert caught, f"no inflight write seen before the stream ended: {proc.stderr.read()[-2000:]}"
        if pending_write(table):
            break
    assert pending_write(table), "the killed micro-batch left no inflight instant"
    done_before = completed_writes(table)
    assert done_before < FILES

    time.sleep(2.5)  # the dead writer's heartbeat expires
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Traceback" not in again.stderr

    tl = Timeline(table, read_properties(table))
    assert not pending_write(table) and tl.completed_commits(), again.stderr[-3000:]
    assert any(i.action == "rollback" for i in tl.completed()), "the dead write was not rolled back"
    mine = {r["id"]: (r["name"], r["ts"]) for r in read_table(table).to_pylist()}
    assert mine == final  # every key once, at its newest value
    rs = hudi.HudiTableBuilder.from_base_uri(str(table)).build().read(hudi.HudiReadOptions())
    import pyarrow as pa

    theirs = pa.Table.from_batches(rs) if isinstance(rs, list) else rs
    ids = theirs.column("id").to_pylist()
    assert len(ids) == len(set(ids)) == len(final)
    assert dict(zip(ids, zip(theirs.column("name").to_pylist(), theirs.column("ts").to_pylist()))) == final
    # the downstream stream saw every change once: its table is the same rows
    assert {r["id"]: (r["name"], r["ts"]) for r in read_table(copy).to_pylist()} == final
