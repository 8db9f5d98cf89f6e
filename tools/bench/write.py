"""Benchmark: writing Avro data blocks with hudi-log against fastavro encoding the same records alone.

    python tools/bench/write.py [N] [--repeat 5] [--profile] [--keep DIR]

N records (default 1,000,000) of a quickstart-trips-like table (ts, uuid, rider, driver, fare,
city) are written, in the same run and alternating, several times by

* ours: ``AppendHandle.write_all`` (validation against the schema, meta fields, record key, Avro encoding,
  Hudi's block-size estimate, the block built and serialized by the grammar, written, fsynced) into
  a fresh log file group under /tmp, default block size (256 MiB), table version 6;
* fastavro: ``fastavro.schemaless_writer`` of each record into one ``io.BytesIO`` — the same
  records as the blocks hold them (meta fields filled in beforehand, untimed), writer schema;
* fastavro-table: the same, for the input records under the table schema (no meta fields).

It prints the median time, records/s and MB/s of each, and the ratio

    ratio = fastavro time / our time   (our throughput over fastavro's; goal >= 1.0)

plus the same ratio against fastavro-table. ``--profile`` runs ours once more under cProfile and
prints where the time goes. The numbers are reported, not asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import fastavro  # noqa: E402

from hudi_log.log.append_handle import AppendHandle, writer_schema  # noqa: E402
from tools.bench.inputs import TABLE, trip_columns  # noqa: E402
INSTANT = "20250101000000000"
FILE_ID = "bench0000-0000-0000-0000-000000000000-0"
PARTITION = "city=san_francisco"


def make_records(n: int) -> list[dict]:
    return trip_columns(range(n)).to_pylist()


def with_meta(records: list[dict]) -> list[dict]:
    return [
        {
            "_hoodie_commit_time": INSTANT, "_hoodie_commit_seqno": f"{INSTANT}_0_{i + 1}",
            "_hoodie_record_key": r["uuid"], "_hoodie_partition_path": PARTITION, "_hoodie_file_name": FILE_ID,
            **r,
        }
        for i, r in enumerate(records)
    ]


PHASES: dict[str, list[float]] = {"records (check, meta fields, encode)": [], "blocks (grammar build + serialize, write, fsync)": []}


def run_ours(records: list[dict], workdir: Path) -> tuple[float, int]:
    base = Path(tempfile.mkdtemp(dir=workdir))
    gc.collect()
    t0 = time.perf_counter()
    h = AppendHandle(str(base), PARTITION, FILE_ID, INSTANT, TABLE, "uuid", seqno_start=1)
    h.write_all(records)
    t1 = time.perf_counter()
    stats = h.close()
    t2 = time.perf_counter()
    shutil.rmtree(base)
    a, b = PHASES.values()
    a.append(t1 - t0)
    b.append(t2 - t1)
    return t2 - t0, stats.total_write_bytes


def run_fastavro(records: list[dict], schema: dict) -> tuple[float, int]:
    parsed = fastavro.parse_schema(schema)
    gc.collect()
    t0 = time.perf_counter()
    buf = io.BytesIO()
    for r in records:
        fastavro.schemaless_writer(buf, parsed, r)
    elapsed = time.perf_counter() - t0
    return elapsed, buf.tell()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", nargs="?", type=int, default=1_000_000, help="records (default 1,000,000)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="profile one of our runs with cProfile")
    ap.add_argument("--keep", help="work directory to use (default: a temporary one under /tmp)")
    args = ap.parse_args(argv)

    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hudi-log-bench-write-", dir="/tmp"))
    workdir.mkdir(parents=True, exist_ok=True)
    records = make_records(args.n)
    full = with_meta(records)
    wschema = writer_schema(TABLE)
    times: dict[str, list[float]] = {"ours": [], "fastavro": [], "fastavro-table": []}
    sizes: dict[str, int] = {}
    try:
        for rep in range(args.repeat):
            for name in (("ours", "fastavro", "fastavro-table") if rep % 2 == 0 else ("fastavro-table", "fastavro", "ours")):
                if name == "ours":
                    t, size = run_ours(records, workdir)
                elif name == "fastavro":
                    t, size = run_fastavro(full, wschema)
                else:
                    t, size = run_fastavro(records, TABLE)
                times[name].append(t)
                sizes[name] = size
            print(f"rep {rep + 1}/{args.repeat}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()), flush=True)

        print(f"\n{args.n:,} records, median of {args.repeat} (python {sys.version.split()[0]}, fastavro {fastavro.__version__})")
        med = {k: statistics.median(v) for k, v in times.items()}
        for k in times:
            print(f"  {k:15s} {med[k]:8.3f} s  {args.n / med[k]:12,.0f} records/s  {sizes[k] / med[k] / 1e6:8.1f} MB/s"
                  f"  ({sizes[k]:,} bytes)")
        print("  ours, by phase (one block: every record is buffered, the block is built at close):")
        for k, v in PHASES.items():
            print(f"    {k:50s} {statistics.median(v[: args.repeat]):8.3f} s")
        print(f"\nratio (our throughput / fastavro's, same records as written): {med['fastavro'] / med['ours']:.3f}  (goal >= 1.0)")
        print(f"ratio against fastavro encoding the input records (table schema): {med['fastavro-table'] / med['ours']:.3f}")

        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            run_ours(records, workdir)
            prof.disable()
            print("\ncProfile of one run of ours (top 25 by own time):")
            st = pstats.Stats(prof, stream=sys.stdout)
            st.sort_stats("tottime").print_stats(25)
            print("by cumulative time:")
            st.sort_stats("cumulative").print_stats(30)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
