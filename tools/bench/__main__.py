"""The benchmark suite: ``python -m tools.bench [--records N] [--repeat K] [--only read,scan,write]``.

It makes its own inputs with hudi-log's writer in a temporary folder under /tmp:

* a MERGE_ON_READ table of N records (default 1,000,000) in log-only file groups, Avro data blocks of
  10,000 records, plus a second commit of updates and deletes (``tools/bench/inputs.py``);
* a log file of ``--size-mb`` MB (default 1024) of large Avro blocks for the framing scan
  (``tools/bench/framing.py``).

Then it runs every measurement ``--repeat`` times (default 3), each run in a fresh subprocess
(``tools/bench/measure.py``) so that the peak resident memory is that run's own, alternating the
order of the two sides of each comparison, and prints the medians and the ratios of this run:

* read:  snapshot read of the table, ``hudi_log.read_table`` vs hudi-rs (goal: 4x faster);
* scan:  ``open_log`` over every block of the big file, no content decoded, vs plain ``read()``
         of it in 1 MiB chunks (goal: >= 0.5 of the raw rate); both from the page cache;
* write: ``AppendHandle.write_all`` of the N records (Arrow columns, and dicts) and ``write`` of
         each dict, into Avro blocks, fsync included, vs fastavro's ``schemaless_writer`` of the
         same records with their meta fields filled (goal: >= 1.0);
* deletes (only with ``--only deletes``; ``deletes-spark`` for the Spark write): a delete of N keys vs
         an upsert of N existing keys through ``write_table`` of a 2N-row MERGE_ON_READ table (goal:
         delete within 2x), and a snapshot read of that table after the delete vs after the upsert
         (goal: within 1.5x) (``tools/bench/deletes.py``).
* logfiles (only with ``--only logfiles``): a snapshot read of a table whose every key a plain ``df.write``
         from 200 Spark partitions updated (up to 200 log files per file group) vs one ``hudi_log.spark.write``
         updated (one per group) (``tools/bench/logfiles.py``; no goal, a measure).

``--profile`` adds one cProfiled run of hudi-log's side of each comparison (reads on one thread,
so that the profile sees the work). ``--json FILE`` saves
the raw results. The machine is shared and noisy: compare ratios from the same run only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

GROUPS = {
    "read": ("read/hudi-log", "read/hudi-rs"),
    "scan": ("scan/open_log", "scan/read()"),
    "write": ("write/arrow", "write/dicts", "write/write()", "write/fastavro"),
    "deletes": ("deletes/upsert", "deletes/delete", "deletes/read-updated", "deletes/read-deleted"),
    "deletes-spark": ("deletes-spark/upsert", "deletes-spark/delete"),
    "logfiles": ("logfiles/read-routed", "logfiles/read-plain"),
}
#: (ours, baseline, how the ratio reads, goal)
RATIOS = [
    ("read/hudi-log", "read/hudi-rs", "speed-up over hudi-rs (their time / ours)", 4.0),
    ("scan/open_log", "scan/read()", "scan rate / plain read() rate", 0.5),
    ("write/arrow", "write/fastavro", "write throughput / fastavro's (Arrow input)", 1.0),
    ("write/dicts", "write/fastavro", "write throughput / fastavro's (dict input)", 1.0),
    ("write/write()", "write/fastavro", "write throughput / fastavro's (write() per dict)", 1.0),
    # a delete of N keys within 2x an upsert of N keys; a delete-heavy read within 1.5x an update-heavy one
    ("deletes/delete", "deletes/upsert", "upsert time / delete time (write_table)", 0.5),
    ("deletes/read-deleted", "deletes/read-updated", "read: updated-log time / deleted-log time", 1 / 1.5),
    ("deletes-spark/delete", "deletes-spark/upsert", "upsert time / delete time (Spark write)", 0.5),
    # no goal: what a plain df.write's many log files per group cost every later read (docs/benchmarks.md)
    ("logfiles/read-routed", "logfiles/read-plain", "read: many-log-files time / one-log-file time", None),
]


def child(name: str, args: dict) -> dict:
    cmd = [sys.executable, "-m", "tools.bench.measure", name, json.dumps(args)]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"measurement {name} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def make_inputs(work: Path, args, groups: list[str]) -> dict:
    out: dict = {}
    if "read" in groups:
        from tools.bench.inputs import make_table

        t0 = time.perf_counter()
        info = make_table(work / "table", args.records, block_records=args.block_records)
        out["table"] = str(work / "table")
        out["table_info"] = info
        print(f"table: {info['records']:,} records in {info['file_groups']} log-only file groups, "
              f"{info['insert_blocks']} Avro blocks of <= {args.block_records:,} + updates {info['updated']:,}, "
              f"deletes {info['deleted']:,}; written in {time.perf_counter() - t0:.1f} s", flush=True)
    if "scan" in groups:
        from tools.bench.framing import write_file

        t0 = time.perf_counter()
        path = work / ".bench-0000-0_20260101000000000.log.1_0-0-0"
        blocks, size = write_file(path, int(args.size_mb * 1e6), 8 << 20)
        out["file"] = str(path)
        out["file_info"] = {"blocks": blocks, "bytes": size}
        print(f"log file: {size / 1e9:.3f} GB in {blocks} blocks; written in {time.perf_counter() - t0:.1f} s", flush=True)
    if "deletes" in groups or "deletes-spark" in groups:
        from tools.bench.deletes import make_inputs as make_delete_tables

        t0 = time.perf_counter()
        out["deletes"] = make_delete_tables(work, args.records)
        print(f"delete tables: {2 * args.records:,} rows, half of each slice's keys updated / deleted; "
              f"made in {time.perf_counter() - t0:.1f} s", flush=True)
    if "logfiles" in groups:
        from tools.bench.logfiles import make_inputs as make_logfile_tables

        t0 = time.perf_counter()
        out["logfiles"] = info = make_logfile_tables(work, args.records)
        print(f"log-file tables: {args.records:,} rows in {info['file_groups']} file groups, every key updated: "
              f"{info['log_files']['plain']} log files (<= {info['max_per_group']['plain']} per group) by a plain "
              f"df.write of {info['partitions']} partitions, {info['log_files']['routed']} by hudi_log.spark.write; made in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
    return out


def expected_result(name: str, inputs: dict, args) -> int | None:
    if name == "deletes/read-updated":
        return 2 * args.records
    if name.startswith("deletes"):  # the N keys written, or the N rows left after the deletes
        return args.records
    if name.startswith("read/"):
        return inputs["table_info"]["expected_rows"]
    if name.startswith("logfiles/"):
        return args.records
    if name == "scan/open_log":
        return inputs["file_info"]["blocks"]
    if name == "scan/read()":
        return inputs["file_info"]["bytes"]
    return None


def units(name: str, seconds: float, inputs: dict, args) -> str:
    if name.startswith("scan/"):
        return f"{inputs['file_info']['bytes'] / seconds / 1e9:8.2f} GB/s"
    n = inputs["table_info"]["expected_rows"] if name.startswith("read/") else args.records
    return f"{n / seconds:11,.0f} rec/s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=1_000_000, help="records of the read and write inputs")
    ap.add_argument("--block-records", type=int, default=10_000, help="records per Avro block of the table")
    ap.add_argument("--size-mb", type=float, default=1024, help="size of the framing-scan log file, MB")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="read,scan,write",
                    help="comma-separated groups: read, scan, write, deletes, deletes-spark, logfiles")
    ap.add_argument("--profile", action="store_true", help="also profile hudi-log's side once (cProfile)")
    ap.add_argument("--keep", help="make the inputs in this folder and keep them")
    ap.add_argument("--json", help="write the raw results here")
    args = ap.parse_args(argv)
    groups = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown or not groups or args.repeat < 1 or args.records < 1:
        ap.error(f"--only takes {', '.join(GROUPS)}; --repeat and --records must be positive")

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hudi-log-bench-", dir="/tmp"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"python -m tools.bench --records {args.records} --repeat {args.repeat} --size-mb {args.size_mb:g} "
              f"--only {','.join(groups)}   ({os.cpu_count()} CPUs, python {sys.version.split()[0]})", flush=True)
        inputs = make_inputs(work, args, groups)
        runs: dict[str, list[dict]] = {}
        for rep in range(args.repeat):
            for g in groups:
                names = GROUPS[g] if rep % 2 == 0 else tuple(reversed(GROUPS[g]))
                for name in names:
                    margs = {"table": inputs.get("table"), "file": inputs.get("file"), "records": args.records,
                             "workdir": str(work), "deletes": inputs.get("deletes"),
                             "logfiles": inputs.get("logfiles")}
                    r = child(name, margs)
                    want = expected_result(name, inputs, args)
                    if want is not None and r["result"] != want:
                        raise SystemExit(f"{name} gave {r['result']}, expected {want}")
                    runs.setdefault(name, []).append(r)
                    print(f"  run {rep + 1}/{args.repeat} {name:22s} {r['seconds']:8.3f} s  "
                          f"peak RSS {r['peak_rss_kb'] / 1024:7.1f} MB", flush=True)
        profiles = {}
        if args.profile:
            for name in [ours for g in groups for ours, *_ in RATIOS if ours in GROUPS[g]]:
                margs = {"table": inputs.get("table"), "file": inputs.get("file"), "records": args.records,
                         "workdir": str(work), "deletes": inputs.get("deletes"), "logfiles": inputs.get("logfiles"),
                         "profile": True}
                profiles[name] = child(name, margs)["profile"]
        report(runs, inputs, args, profiles)
        if args.json:
            Path(args.json).write_text(json.dumps({"args": vars(args), "inputs": inputs, "runs": runs}, indent=1))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def report(runs: dict, inputs: dict, args, profiles: dict) -> None:
    med = {n: statistics.median(r["seconds"] for r in rs) for n, rs in runs.items()}
    print(f"\nmedians of {args.repeat} runs, each in a fresh process")
    print(f"  {'measurement':22s} {'median s':>9s} {'min s':>8s} {'rate':>16s} {'peak RSS MB':>12s} {'before op MB':>13s}")
    for n, rs in runs.items():
        peak = statistics.median(r["peak_rss_kb"] for r in rs) / 1024
        before = statistics.median(r["rss_before_kb"] for r in rs) / 1024
        print(f"  {n:22s} {med[n]:9.3f} {min(r['seconds'] for r in rs):8.3f} {units(n, med[n], inputs, args):>16s} "
              f"{peak:12.1f} {before:13.1f}")
    print("\nratios (medians of this run)")
    for ours, base, what, goal in RATIOS:
        if ours in med and base in med:
            ratio = med[base] / med[ours]
            # the two sides of one repetition ran back to back, under the same load
            per_rep = ", ".join(f"{b['seconds'] / o['seconds']:.2f}" for o, b in zip(runs[ours], runs[base]))
            verdict = "no goal" if goal is None else f"goal >= {goal:g}: {'met' if ratio >= goal else 'NOT met'}"
            print(f"  {what:48s} {ratio:7.2f}   {verdict}   (per repetition: {per_rep})")
    for name, text in profiles.items():
        print(f"\ncProfile of one run of {name} (top entries by own time):\n{text}")


if __name__ == "__main__":
    sys.exit(main())
