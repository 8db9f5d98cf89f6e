"""Driver-side costs per file group, measured at small scale for docs/scale.md (issue 17, item 6).

    python tools/bench/scale.py [GROUPS] [--rows-per-group 10] [--upserts 2]

Writes a MERGE_ON_READ table of GROUPS file groups with ``write_table`` (no Spark), upserts every key
``--upserts`` times (one log file per group each time), and times and sizes what the driver does once per
write or read, per file group: listing the latest file slices, planning the distributed index (and its
pickled size: what the driver holds and broadcasts), loading the timeline, reading one commit's metadata
(and its size per write stat), and planning a snapshot read. docs/scale.md multiplies these by 10,000.
"""

from __future__ import annotations

import argparse
import json
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def timed(fn, repeat: int = 3):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="?", type=int, default=1000)
    ap.add_argument("--rows-per-group", type=int, default=10)
    ap.add_argument("--upserts", type=int, default=2)
    args = ap.parse_args(argv)

    import pyarrow as pa

    from hudi_log.table import read_properties
    from hudi_log.table.read.query import HudiTable
    from hudi_log.table.timeline.timeline import Timeline
    from hudi_log.table.write.client import write_table
    from hudi_log.table.write.index import latest_slices
    from hudi_log.table.write.key_lookup import plan_index

    n, per = args.groups * args.rows_per_group, args.rows_per_group
    work = Path(tempfile.mkdtemp(prefix="hudi-log-bench-scale-"))
    path = str(work / "t")
    opts = {"hoodie.table.name": "scale", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
            "hoodie.parquet.max.file.size": str(per * 1024), "hoodie.copyonwrite.record.size.estimate": "1024"}
    try:
        def rows(v):
            return pa.table({"id": pa.array([f"k{i:09d}" for i in range(n)]), "ts": pa.array([v] * n, pa.int64()),
                             "v": pa.array([float(v)] * n)})
        t_ins, _ = timed(lambda: write_table(path, rows(0), "insert", opts), 1)
        for v in range(1, args.upserts + 1):
            write_table(path, rows(v), "upsert", opts)
        props = read_properties(path)
        t_tl, _ = timed(lambda: Timeline(Path(path), props).completed())
        tl = Timeline(Path(path), props)
        t_ls, groups = timed(lambda: latest_slices(path, props, tl))
        t_ix, index = timed(lambda: plan_index(path, props, tl, groups, "SIMPLE"))
        last = tl.completed()[-1]
        t_md, md = timed(lambda: Timeline(Path(path), props).commit_metadata(last))  # not cached
        stats = [s for ss in md["partitionToWriteStats"].values() for s in ss]
        md_bytes = len(json.dumps(md).encode())
        t_plan, plan = timed(lambda: HudiTable(path).plan())
        g = len(groups)
        print(f"{g:,} file groups, {n:,} rows, {args.upserts} upserts (one log file per group each); insert {t_ins:.1f}s")
        rows_out = [
            ("timeline load", t_tl, None),
            ("latest file slices (listing)", t_ls, None),
            ("distributed index plan", t_ix, len(pickle.dumps(index))),
            ("one commit's metadata read", t_md, md_bytes),
            ("snapshot read plan", t_plan, len(pickle.dumps(plan))),
        ]
        print(f"{'driver step':32} {'seconds':>9} {'us/group':>9} {'bytes':>11} {'B/group':>8}")
        for name, secs, size in rows_out:
            print(f"{name:32} {secs:9.3f} {secs / g * 1e6:9.1f} {size if size is not None else '':>11} "
                  f"{'' if size is None else f'{size / g:.0f}':>8}")
        print(f"write stats in that commit: {len(stats):,} ({md_bytes / max(len(stats), 1):.0f} B each)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
