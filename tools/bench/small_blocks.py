"""Benchmark: the framing scan of small and of large blocks, beside a plain struct reader.

    python -m tools.bench.small_blocks [--blocks 50000] [--block-kb 1] [--large-mb 512] [--repeat 5]

Writes, in a temporary folder under /tmp, a log file of --blocks Avro data blocks of about
--block-kb KB each (one per delta commit per file group is what a lake mostly holds) and a log file
of --large-mb MB of 8 MiB blocks. Then, in the same run and alternating, --repeat times:

* fast scan: ``hudi_log.format.fast_scan.frames`` (the compiled scan; every framing rule checked);
* fast scan (Python): the same scan's Python reference, ``scan_python`` over a memory map;
* open_log: ``hudi_log.open_log`` over every block (a LogBlock with its decoded header each);
* struct reader: the plainest framing reader -- seek, read 14 bytes, unpack magic and block size,
  skip -- which checks nothing else (the baseline of issue 23);
* for the large file: fast scan in GB/s beside plain ``read()`` of the file in 1 MiB chunks.

Prints the best and median rates and the ratios of this run (the machine is shared and noisy:
compare ratios from the same run only). Files come from the page cache (just written and read).
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import shutil
import struct
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tools.bench.framing import MIB, plain_read, write_file  # noqa: E402

SCHEMA = {"type": "record", "name": "small", "namespace": "hudi_log.bench",
          "fields": [{"name": "_hoodie_record_key", "type": "string"}, {"name": "payload", "type": "bytes"}]}
_FRAME = struct.Struct(">6sq")


def write_small(path: Path, blocks: int, block_bytes: int) -> int:
    from hudi_log import LogBlock
    from hudi_log.format.content.avro import encode_records
    from hudi_log.format.grammar import avro_data_content

    schema = json.dumps(SCHEMA)
    with open(path, "wb") as f:
        for i in range(blocks):
            recs = [{"_hoodie_record_key": f"key-{i}", "payload": bytes([i % 251]) * max(0, block_bytes - 400)}]
            header = {"INSTANT_TIME": f"2026{i:013d}", "SCHEMA": schema}
            f.write(LogBlock.new("AVRO_DATA_BLOCK", header, avro_data_content(3, encode_records(recs, SCHEMA))).to_bytes())
    return path.stat().st_size


def struct_reader(path: Path) -> int:
    n = pos = 0
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        while pos < size:
            f.seek(pos)
            magic, block_size = _FRAME.unpack(f.read(14))
            pos += 14 + block_size
            n += 1
    return n


def fast(path: Path) -> int:
    from hudi_log.format.fast_scan import frames

    return len(frames(path))


def fast_python(path: Path) -> int:
    from hudi_log.format.fast_scan import scan_python

    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return len(scan_python(m, len(m)))


def open_log_scan(path: Path) -> int:
    import hudi_log

    return sum(1 for _ in hudi_log.open_log(path))


def timed(fn, path: Path) -> tuple[int, float]:
    t0 = time.perf_counter()
    n = fn(path)
    return n, time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--blocks", type=int, default=50_000)
    p.add_argument("--block-kb", type=float, default=1.0)
    p.add_argument("--large-mb", type=int, default=512)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="hudi-log-bench-small-", dir="/tmp"))
    try:
        small = tmp / ".small-0000-0_20260101000000000.log.1_0-0-0"
        size = write_small(small, args.blocks, int(args.block_kb * 1024))
        large = tmp / ".large-0000-0_20260101000000000.log.1_0-0-0"
        nlarge, large_size = write_file(large, args.large_mb * MIB, 8 * MIB)
        print(f"small: {args.blocks} blocks, {size / 1e6:.1f} MB ({size / args.blocks:.0f} bytes a block); "
              f"large: {nlarge} blocks, {large_size / 1e9:.2f} GB")
        plain_read(small), plain_read(large)  # page cache
        sides = {"fast scan": fast, "fast scan (Python)": fast_python, "open_log": open_log_scan,
                 "struct reader": struct_reader}
        rates: dict[str, list[float]] = {k: [] for k in [*sides, "large: fast scan", "large: read()"]}
        for rep in range(args.repeat):
            order = list(sides.items())
            if rep % 2:
                order.reverse()
            for name, fn in order:
                n, dt = timed(fn, small)
                assert n == args.blocks, (name, n)
                rates[name].append(n / dt)
            n, dt = timed(fast, large)
            assert n == nlarge
            rates["large: fast scan"].append(large_size / dt / 1e9)
            total, dt = plain_read(large)
            rates["large: read()"].append(large_size / dt / 1e9)
        med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        for name, xs in rates.items():
            unit = "GB/s" if name.startswith("large") else "blocks/s"
            print(f"{name:20s} best {max(xs):>12,.2f} {unit}   median {med(xs):>12,.2f} {unit}")
        base = rates["struct reader"]
        for name in ("fast scan", "fast scan (Python)", "open_log"):
            print(f"ratio {name} / struct reader: best {max(rates[name]) / max(base):.2f}, "
                  f"median {med(rates[name]) / med(base):.2f}")
        print(f"ratio large fast scan / read(): median {med(rates['large: fast scan']) / med(rates['large: read()']):.2f}")
        print(f"goal >= 200,000 small blocks/s (fast scan, median): "
              f"{'met' if med(rates['fast scan']) >= 200_000 else 'NOT met'}; "
              f"large blocks > 1 GB/s: {'met' if med(rates['large: fast scan']) > 1 else 'NOT met'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
