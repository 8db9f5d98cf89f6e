"""Requests per operation on an object store: ``python -m tools.bench.objstore [--records N] [--partitions P]``.

Starts the local S3 server (tools/s3server.py, moto), writes a MERGE_ON_READ and a COPY_ON_WRITE table
(table version 8) to it through hudi-log, and prints the requests the server answered for each
commit, read and table service, by kind (LIST, GET, HEAD, PUT, DELETE), as a Markdown table
(docs/benchmarks.md holds a run). The counts depend on the layout (partitions, file groups, log files),
not on the machine, so one run is enough; pyarrow uploads every object as a multipart upload (three PUT
requests: start, part, complete), which the PUT column includes.
"""

from __future__ import annotations

import argparse
import os
import sys

import pyarrow as pa

from tools.s3server import KINDS, S3Server


def batch(ids, tag: str, ts: int, partitions: int) -> pa.Table:
    return pa.table({"id": [f"k{i:07d}" for i in ids], "val": [f"{tag}{i}" for i in ids], "ts": [ts] * len(ids),
                     "part": [f"p{i % partitions}" for i in ids]})


def run(records: int, partitions: int) -> list[tuple[str, dict]]:
    from hudi_log.table import read_table
    from hudi_log.table.services.clean import clean
    from hudi_log.table.services.compaction import compact
    from hudi_log.table.write.client import write_table

    out = []
    with S3Server() as s3:
        os.environ.update(s3.env())
        s3.create_bucket("bench")
        for table_type in ("MERGE_ON_READ", "COPY_ON_WRITE"):
            path = f"s3://bench/{table_type.lower()}"
            o = {"hoodie.table.name": "bench", "hoodie.datasource.write.recordkey.field": "id",
                 "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
                 "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": "8"}
            short = "MOR" if table_type == "MERGE_ON_READ" else "COW"

            def measure(what: str, fn) -> None:
                with s3.counting() as n:
                    fn()
                out.append((f"{short}: {what}", dict(n)))

            measure("insert commit (creates the table)", lambda: write_table(path, batch(range(records), "a", 1, partitions), "insert", o))
            measure("upsert commit (10% updated)", lambda: write_table(path, batch(range(0, records, 10), "b", 2, partitions), "upsert", o))
            measure("upsert commit (10% updated)", lambda: write_table(path, batch(range(5, records, 10), "c", 3, partitions), "upsert", o))
            measure("snapshot read", lambda: read_table(path))
            if short == "MOR":
                measure("read_optimized read", lambda: read_table(path, query="read_optimized"))
                measure("compaction (schedule + run)", lambda: compact(path, o))
                measure("snapshot read after compaction", lambda: read_table(path))
            measure("clean (retain 1 commit)", lambda: clean(path, retain_commits=1, options=o))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--partitions", type=int, default=4)
    args = ap.parse_args(argv)
    rows = run(args.records, args.partitions)
    print(f"{args.records} records in {args.partitions} partitions, table version 8, moto S3 server")
    print()
    print("| operation | " + " | ".join(KINDS) + " | total |")
    print("|---|" + "---:|" * (len(KINDS) + 1))
    for what, n in rows:
        print(f"| {what} | " + " | ".join(str(n.get(k, 0)) for k in KINDS) + f" | {sum(n.values())} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
