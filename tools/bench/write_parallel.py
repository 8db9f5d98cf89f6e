"""Benchmark: ``write_table`` with its file groups one by one and side by side (issue 38, item 3: the
streaming sink's commit).

    python tools/bench/write_parallel.py [--rows 100000] [--repeat 5] [--code DIR ...] [--stream]

Two shapes, each timed in a fresh process per run (setup untimed), the variants interleaved run by run so
that they share the machine's load:

* upsert: a MERGE_ON_READ table of 2 x ``--rows`` rows (one write; two file groups by Hudi's file sizing),
  then ``write_table(..., "upsert")`` of ``--rows`` existing keys and ``--rows`` new ones: one file group
  gets a log file, the small one is rewritten with the new keys (Java's small-file packing). Timed: that
  upsert.
* stream (``--stream``): the stream bench's commits without Spark: six micro-batches of ``--rows`` rows,
  every second one updating the keys of the one before, through ``commit_micro_batch`` with the sink's
  defaults (async compaction after the fifth). Timed: the six commits (each also printed), and the
  compaction's tail after the last one.

Each run also reports the process's CPU seconds over the same span (all its threads, the compaction's in the
stream shape too): on a loaded machine wall time swings with the other processes, CPU time much less, so a
saving of work shows there even when the cores are not free to show it as wall time.

Variants: ``threads=1`` (``hoodie.upsert.shuffle.parallelism=1``: one file group after another, the default)
and ``threads=2`` (two side by side; the code before this option ignores it), for the code of this checkout
and of each ``--code DIR`` (another
checkout's root, e.g. ``git worktree add /tmp/before main``; its compiled extensions built). Reported: the
median seconds of each variant and their ratios to the first. Numbers are reported, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OPTIONS = {"hoodie.table.name": "bench_write", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
           "hoodie.datasource.write.recordkey.field": "uuid", "hoodie.datasource.write.precombine.field": "ts",
           "hoodie.datasource.write.operation": "upsert"}
PARALLELISM = "hoodie.upsert.shuffle.parallelism"


def rows(lo: int, hi: int, b: int):
    """Trips with keys ``lo`` .. ``hi - 1``, written by batch ``b`` (the stream bench's shape)."""
    import pyarrow as pa

    ids = range(lo, hi)
    return pa.table({"uuid": [f"trip-{i:010d}" for i in ids], "ts": pa.array([b] * (hi - lo), pa.int64()),
                     "rider": [f"rider-{i % 1000}" for i in ids], "fare": [float(i % 10_000) / 100 + b for i in ids],
                     "city": [("sf", "sp", "ch")[i % 3] for i in ids]})


def child(shape: str, n: int, threads: str) -> dict:
    """One timed run in this process (the code on ``sys.path`` first is the one measured)."""
    import pyarrow as pa

    opts = {**OPTIONS, PARALLELISM: threads}
    with tempfile.TemporaryDirectory(prefix="hudi-log-bench-write-") as work:
        path = os.path.join(work, "t")
        if shape == "upsert":
            from hudi_log.table.write.client import write_table

            write_table(path, rows(0, 2 * n, 0), "upsert", opts)
            data = pa.concat_tables([rows(n, 2 * n, 1), rows(2 * n, 3 * n, 1)])
            t, c = time.perf_counter(), time.process_time()
            write_table(path, data, "upsert", opts)
            return {"seconds": time.perf_counter() - t, "cpu": time.process_time() - c}
        from hudi_log.spark.stream_services import wait_for_compactions
        from hudi_log.spark.stream_sink import commit_micro_batch

        batches = [rows((b // 2) * n, (b // 2) * n + n, b) for b in range(6)]
        each = []
        c = time.process_time()
        for b, data in enumerate(batches):
            t = time.perf_counter()
            commit_micro_batch(path, {**opts, "hoodie.compact.inline": "false"}, data, b, "bench")
            each.append(time.perf_counter() - t)
        t = time.perf_counter()
        wait_for_compactions(path, 600)
        return {"seconds": sum(each), "each": each, "tail": time.perf_counter() - t, "cpu": time.process_time() - c}


def run_variant(code: Path, shape: str, n: int, threads: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), str(REPO)])}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", shape, str(n), threads],
                         env=env, cwd=str(code), capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--code", action="append", default=[], help="another checkout's root to time as well")
    ap.add_argument("--stream", action="store_true", help="also the six stream commits")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        shape, n, threads = args.child
        print(json.dumps(child(shape, int(n), threads)))
        return 0
    codes = [REPO, *(Path(c).resolve() for c in args.code)]
    variants = [(c, t) for c in codes for t in ("1", "2")]
    for shape in ("upsert", "stream") if args.stream else ("upsert",):
        results: dict = {v: [] for v in variants}
        for _ in range(args.repeat):
            for v in variants:
                results[v].append(run_variant(v[0], shape, args.rows, v[1]))
        what = (f"upsert of {args.rows:,} existing + {args.rows:,} new keys into a {2 * args.rows:,}-row MOR table"
                if shape == "upsert" else f"six stream commits of {args.rows:,} rows (commit_micro_batch)")
        print(f"\n{what}, median of {args.repeat} (cpus {os.cpu_count()}):")
        first = None
        for (code, threads), runs in results.items():
            med = statistics.median(r["seconds"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs)
            first = first or med
            name = "this checkout" if code == REPO else str(code)
            extra = ""
            if shape == "stream":
                each = [statistics.median(r["each"][b] for r in runs) for b in range(6)]
                extra = (f"  per commit {' '.join(f'{x:.2f}' for x in each)}; compaction tail "
                         f"{statistics.median(r['tail'] for r in runs):.2f}s")
            each_run = " ".join(f"{r['seconds']:.2f}" for r in runs)
            print(f"  {name:28} threads={threads:4}  {med:6.3f}s  ({med / first:.2f} of the first; CPU {cpu:.3f}s; "
                  f"runs {each_run}){extra}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
