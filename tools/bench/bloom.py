"""Benchmark: the cost of the bloom filter footer on one base file.

    python -m tools.bench.bloom [N] [--repeat 3]

``write_base_file`` writes N records (default 1,000,000) of the benchmark's trips table (record key
``uuid``, 36 characters) as one base Parquet file, alternately with Hudi's default DYNAMIC_V0 filter
(60,000 entries, fpp 1e-9, at most 100,000: two rows of 2,587,966 bits, 30 hashes) and with
``hoodie.parquet.bloom.filter.enabled=false`` (no filter, no min / max keys). It prints the median time
of each and their ratio. The numbers are reported, not asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hudi_log.table.view.base_file import bloom_options, with_meta_columns, write_base_file  # noqa: E402
from tools.bench.inputs import TABLE, trip_columns  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="?", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    data = trip_columns(range(args.records))
    keys = data.column("uuid").to_pylist()
    rows = with_meta_columns(data, instant="20250101000000000", keys=keys, partition="", file_name="f.parquet",
                             task_partition_id=0)
    sides = {"with filter": bloom_options({}), "without": bloom_options({}, {
        "hoodie.parquet.bloom.filter.enabled": "false"})}
    times: dict[str, list[float]] = {k: [] for k in sides}
    with tempfile.TemporaryDirectory(prefix="hudi_log_bloom_") as tmp:
        for r in range(args.repeat):
            for name in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
                t = time.perf_counter()
                write_base_file(Path(tmp) / f"{r}_{name[:4]}.parquet", rows, TABLE, sides[name])
                times[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in times.items():
        print(f"{k:12s} median {med[k]:.3f} s  runs {', '.join(f'{x:.3f}' for x in v)}")
    print(f"filter cost: {med['with filter'] - med['without']:.3f} s, "
          f"ratio with / without = {med['with filter'] / med['without']:.2f}")


if __name__ == "__main__":
    main()
