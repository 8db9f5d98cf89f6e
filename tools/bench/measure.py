"""One measurement, run in a fresh process: ``python -m tools.bench.measure NAME ARGS_JSON``.

Each measurement has a setup (untimed: imports, input records in memory, a warm page cache) and an
operation (timed). Before the operation the process's peak resident set is reset (``5`` written to
``/proc/self/clear_refs``), so ``peak_rss_kb`` (VmHWM afterwards) is the peak while the operation
ran, the setup's resident memory included; ``rss_before_kb`` is what setup left resident. The result
is printed as one JSON line; with ``"profile": true`` in ARGS the operation also runs once under
cProfile and the top entries come back as text.
"""

from __future__ import annotations

import cProfile
import gc
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from tools.bench import deletes as _deletes
from tools.bench import logfiles as _logfiles

MIB = 1 << 20


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:  # not Linux, or not allowed: the peak then includes setup
        return False


def _read_file(path: str) -> int:
    total = 0
    with open(path, "rb", buffering=0) as f:
        while True:
            chunk = f.read(MIB)
            if not chunk:
                return total
            total += len(chunk)


# ---- measurements: name -> setup(args) -> (operation, units) -----------------------------------------
def read_hudi_log(args):
    import hudi_log
    import hudi_log.table.read.query  # noqa: F401  (imported by setup, as hudi-rs's module is)

    if args.get("profile"):
        # profile the work where cProfile sees it: one thread instead of the reader's pool
        from hudi_log.table.read.query import HudiTable, read_plan

        return lambda: read_plan(HudiTable(args["table"]).plan(), workers=1).num_rows

    def op():
        return hudi_log.read_table(args["table"]).num_rows
    return op


def read_hudi_rs(args):
    import hudi
    import pyarrow as pa

    def op():
        t = hudi.HudiTableBuilder.from_base_uri(args["table"]).build()
        batches = t.read(hudi.HudiReadOptions())
        return pa.Table.from_batches(batches).num_rows if batches else 0
    return op


def scan_framing(args):
    import hudi_log

    _read_file(args["file"])  # page cache

    def op():
        return sum(1 for _ in hudi_log.open_log(args["file"]))
    return op


def plain_read(args):
    _read_file(args["file"])

    def op():
        return _read_file(args["file"])
    return op


def _write_records(args):
    from tools.bench.inputs import trip_columns

    return trip_columns(range(args["records"]))


def _write_with(args, data, one_by_one: bool = False) -> Callable[[], int]:
    from hudi_log.log.append_handle import AppendHandle
    from tools.bench.inputs import TABLE
    from tools.bench.write import FILE_ID, INSTANT, PARTITION

    def op():
        base = tempfile.mkdtemp(prefix="hudi-log-bench-w-", dir=args.get("workdir"))
        try:
            h = AppendHandle(base, PARTITION, FILE_ID, INSTANT, TABLE, "uuid", seqno_start=1)
            if one_by_one:
                for r in data:
                    h.write(r)
            else:
                h.write_all(data)
            return h.close().total_write_bytes
        finally:
            shutil.rmtree(base, ignore_errors=True)
    return op


def write_arrow(args):
    return _write_with(args, _write_records(args))


def write_dicts(args):
    return _write_with(args, _write_records(args).to_pylist())


def write_one_by_one(args):
    return _write_with(args, _write_records(args).to_pylist(), one_by_one=True)


def write_fastavro(args):
    import fastavro

    from hudi_log.log.append_handle import writer_schema
    from tools.bench.inputs import TABLE
    from tools.bench.write import with_meta

    records = with_meta(_write_records(args).to_pylist())  # the records as the blocks hold them
    parsed = fastavro.parse_schema(writer_schema(TABLE))

    def op():
        buf = io.BytesIO()
        for r in records:
            fastavro.schemaless_writer(buf, parsed, r)
        return buf.tell()
    return op


MEASUREMENTS: dict[str, Callable[[dict], Callable[[], Any]]] = {
    "read/hudi-log": read_hudi_log,
    "read/hudi-rs": read_hudi_rs,
    "scan/open_log": scan_framing,
    "scan/read()": plain_read,
    "write/arrow": write_arrow,
    "write/dicts": write_dicts,
    "write/write()": write_one_by_one,
    "write/fastavro": write_fastavro,
}
MEASUREMENTS.update(_deletes.MEASUREMENTS)
MEASUREMENTS.update(_logfiles.MEASUREMENTS)


def run(name: str, args: dict) -> dict:
    op = MEASUREMENTS[name](args)
    gc.collect()
    rss_before = _status_kb("VmRSS")
    exact_peak = _reset_peak()
    t0 = time.perf_counter()
    result = op()
    seconds = time.perf_counter() - t0
    out = {"name": name, "seconds": seconds, "result": result, "rss_before_kb": rss_before,
           "peak_rss_kb": _status_kb("VmHWM"), "peak_is_operation_only": exact_peak, "pid": os.getpid()}
    if args.get("profile"):  # the timed run above is of the profiled variant (single-threaded reads)
        prof = cProfile.Profile()
        prof.enable()
        op()
        prof.disable()
        text = io.StringIO()
        stats = pstats.Stats(prof, stream=text)
        stats.sort_stats("tottime").print_stats(args.get("profile_top", 15))
        out["profile"] = text.getvalue()
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    name, args = argv[0], json.loads(argv[1]) if len(argv) > 1 else {}
    repo = str(Path(__file__).resolve().parents[2])
    if repo not in sys.path:
        sys.path.insert(0, repo)
    print(json.dumps(run(name, args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
