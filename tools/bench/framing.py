"""Benchmark: scanning the framing of a large log file against reading it with plain read().

    python tools/bench/framing.py --size-gb 1 [--repeat 5] [--block-mb 8] [--keep DIR]

Writes a log file of about --size-gb GB of large Avro data blocks (1 MiB datums) into a temporary
folder under /tmp, then, in the same run and alternating, several repetitions of

* scan: iterate every block with hudi_log.open_log, touching no content (the framing only);
* read: read the same file sequentially with plain read() in 1 MiB chunks;

and prints GB/s for both and their ratio (scan over read), plus the peak memory of a scan, taken
in a fresh subprocess (its peak resident set, VmHWM, and tracemalloc's peak of Python allocations),
next to the same subprocess's baseline after importing hudi_log. Both measurements read from the
page cache (the file was just written); the numbers are reported, not asserted. The file is
deleted at the end unless --keep is given.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SCHEMA = {
    "type": "record", "name": "bench", "namespace": "hudi_log.bench",
    "fields": [{"name": "_hoodie_record_key", "type": "string"}, {"name": "payload", "type": "bytes"}],
}
MIB = 1 << 20
CHUNK = MIB


def write_file(path: Path, size: int, block_bytes: int) -> tuple[int, int]:
    """Write about ``size`` bytes of Avro data blocks; returns (blocks, bytes)."""
    from hudi_log import LogBlock
    from hudi_log.format.content.avro import encode_records
    from hudi_log.format.grammar import avro_data_content

    per_block = max(1, block_bytes // MIB)
    # a few distinct payloads; blocks differ in their instant time and keys
    payloads = [bytes([i]) * MIB for i in range(4)]
    blocks = written = 0
    with open(path, "wb") as f:
        while written < size:
            recs = [{"_hoodie_record_key": f"key_{blocks}_{j}", "payload": payloads[(blocks + j) % 4]} for j in range(per_block)]
            header = {"INSTANT_TIME": f"2026{blocks:013d}", "SCHEMA": json.dumps(SCHEMA)}
            raw = LogBlock.new("AVRO_DATA_BLOCK", header, avro_data_content(3, encode_records(recs, SCHEMA))).to_bytes()
            f.write(raw)
            written += len(raw)
            blocks += 1
        f.flush()
        os.fsync(f.fileno())
    return blocks, written


def scan(path: Path) -> tuple[int, float]:
    from hudi_log import open_log

    t0 = time.perf_counter()
    n = 0
    for _b in open_log(path):
        n += 1
    return n, time.perf_counter() - t0


def plain_read(path: Path) -> tuple[int, float]:
    t0 = time.perf_counter()
    total = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(CHUNK)
            if not chunk:
                break
            total += len(chunk)
    return total, time.perf_counter() - t0


_CHILD = r"""
import json, sys, time, tracemalloc
sys.path.insert(0, {repo!r})

def hwm_kb():
    # VmHWM: this process's peak resident set. (ru_maxrss would also count the parent's peak,
    # which Linux carries over into a child through fork and exec.)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

import hudi_log
base = hwm_kb()
if {scan!r}:
    tracemalloc.start()
    t0 = time.perf_counter()
    n = sum(1 for _ in hudi_log.open_log({path!r}))
    dt = time.perf_counter() - t0
    _cur, peak = tracemalloc.get_traced_memory()
else:
    n, dt, peak = 0, 0.0, 0
print(json.dumps({{"blocks": n, "seconds": dt, "baseline_maxrss_kb": base,
                  "maxrss_kb": hwm_kb(), "tracemalloc_peak": peak}}))
"""


def child(path: Path, do_scan: bool) -> dict:
    code = _CHILD.format(repo=str(REPO), path=str(path), scan=do_scan)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-gb", type=float, default=1.0)
    p.add_argument("--block-mb", type=int, default=8, help="content per block, in 1 MiB datums")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--keep", default=None, help="write the file into this folder and keep it")
    args = p.parse_args(argv)

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hudi-log-bench-", dir="/tmp"))
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / ".bench-0000-0_20260101000000000.log.1_0-0-0"
    try:
        t0 = time.perf_counter()
        nblocks, size = write_file(path, int(args.size_gb * 1e9), args.block_mb * MIB)
        print(f"wrote {size / 1e9:.3f} GB in {nblocks} blocks ({args.block_mb} x 1 MiB datums each) "
              f"in {time.perf_counter() - t0:.1f}s: {path}")
        plain_read(path)  # warm the page cache for both
        scans, reads = [], []
        for i in range(args.repeat):
            n, dt = scan(path)
            assert n == nblocks, (n, nblocks)
            scans.append(dt)
            total, rt = plain_read(path)
            assert total == size
            reads.append(rt)
            print(f"  rep {i + 1}: scan {dt * 1e3:8.1f} ms ({size / dt / 1e9:8.2f} GB/s)   "
                  f"read {rt * 1e3:8.1f} ms ({size / rt / 1e9:6.2f} GB/s)")
        best_scan, best_read = min(scans), min(reads)
        med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        print(f"scan framing (open_log, no content): best {size / best_scan / 1e9:.2f} GB/s, "
              f"median {size / med(scans) / 1e9:.2f} GB/s")
        print(f"plain read() in 1 MiB chunks:        best {size / best_read / 1e9:.2f} GB/s, "
              f"median {size / med(reads) / 1e9:.2f} GB/s")
        print(f"ratio scan/read: best {best_read / best_scan:.1f}x, median {med(reads) / med(scans):.1f}x")
        base = child(path, False)
        mem = child(path, True)
        assert mem["blocks"] == nblocks
        print(f"scan in a fresh process: {mem['seconds'] * 1e3:.1f} ms; peak RSS {mem['maxrss_kb'] / 1024:.1f} MB "
              f"(after importing hudi_log: {mem['baseline_maxrss_kb'] / 1024:.1f} MB; a process that only imports: "
              f"{base['maxrss_kb'] / 1024:.1f} MB); tracemalloc peak during the scan {mem['tracemalloc_peak'] / MIB:.2f} MiB")
        print(f"memory goal (< 100 MB for the scan): {'met' if mem['maxrss_kb'] / 1024 < 100 else 'NOT met'}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
