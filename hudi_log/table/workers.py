"""A bounded pool of threads for the independent pieces of one write or service run in one process: the file
groups of a ``write_table`` task, the slices of a compaction, the per-file reads of an index build (Java's
``HoodieEngineContext.map(list, fn, parallelism)``, which Spark runs as that many tasks and Java's own engine
runs one by one).

Threads, not processes: what these pieces spend their time on is C that releases the GIL (Arrow's Parquet
encoding and decoding, the Avro encoder ``_avro_rows.c``, numpy's bloom-filter hashing, polars), and the
pieces share the write's context without pickling. Results come back in the order the pieces were given,
whatever order they finish in, so what a caller builds from them (the write stats of a commit) is the same
as one by one; the first failure, in that order, is raised as it was raised (its type unchanged) once every
piece has ended, so no thread still writes when the caller rolls back.

The bound: ``os.cpu_count()``. Pure decoding (the index build's key reads) uses every CPU. A write's file
groups and a compaction's slices default to ONE thread: their pieces also run Python between the C calls, and
two such threads contend for the GIL (each C call's return waits for the other's switch interval), measured
slower than one by one on 2 cores (write_table 0.65 s against 0.45 s, a compaction of two slices 0.82-0.95 s
against 0.70-0.75 s; docs/benchmarks.md). A write takes more where its operation's Hudi shuffle parallelism
asks for it (``hoodie.upsert.shuffle.parallelism``, ``hoodie.insert.shuffle.parallelism``,
``hoodie.bulkinsert.shuffle.parallelism``, ``hoodie.delete.shuffle.parallelism``: the number of Spark tasks
that write file groups in Java), at most the CPUs; 0 (Java's default, derived from the input) is one here.
"""

from __future__ import annotations

import os
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Java's shuffle parallelism option of each write operation
PARALLELISM_OPTIONS = {
    "upsert": "hoodie.upsert.shuffle.parallelism",
    "insert": "hoodie.insert.shuffle.parallelism",
    "bulk_insert": "hoodie.bulkinsert.shuffle.parallelism",
    "delete": "hoodie.delete.shuffle.parallelism",
    "insert_overwrite": "hoodie.insert.shuffle.parallelism",
    "insert_overwrite_table": "hoodie.insert.shuffle.parallelism",
}


def cpus() -> int:
    return os.cpu_count() or 1


def write_threads(options: Mapping, operation: str) -> int:
    """The threads a one-process write's file groups use: its operation's shuffle parallelism where given and
    above 1, at most the CPUs; else 1 (see the module docstring)."""
    name = PARALLELISM_OPTIONS.get(operation)
    value = None
    if name is not None:
        value = options.get(name, options.get(name.lower()))
    try:
        given = int(str(value).strip()) if value is not None else 0
    except ValueError:
        given = 0  # refused by name where options are resolved (write/options.py); never reached from there
    return min(given, cpus()) if given > 1 else 1


def ordered_map(fn: Callable[[T], R], items: Iterable[T], threads: int) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``threads`` threads (see the module docstring)."""
    todo: Sequence[T] = list(items)
    n = min(max(threads, 1), len(todo))
    if n <= 1:
        return [fn(x) for x in todo]
    with ThreadPoolExecutor(n, thread_name_prefix="hudi_log-worker") as pool:
        futures = [pool.submit(fn, x) for x in todo]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        if any(f.exception() is not None for f in done):
            for f in futures:
                f.cancel()  # pieces not started yet are not started; leaving the block waits for the running ones
    for f in futures:
        if not f.cancelled() and f.exception() is not None:
            raise f.exception()  # the first failure in the given order, as it was raised
    return [f.result() for f in futures]
