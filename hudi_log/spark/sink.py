"""Writing Hudi tables from Spark: the ``hudi_log`` data source's writer, and :func:`write`.

``df.write.format("hudi_log").options(**hudi_options).mode("append" | "overwrite").save(path)``:

* driver (the writer's construction): :func:`hudi_log.table.write.client.begin_write` — table created if absent,
  failed writes rolled back, instant allocated, ``requested`` + ``inflight`` on the timeline, index
  snapshot in the picklable ``WriteContext`` that ships with the writer to every task (through
  :func:`write`: per-file-group facts only, the rows come tagged with their file group);
* each Spark task: :func:`hudi_log.table.write.task.write_batches` on its Arrow batches (its partition id is
  its task id, so its write token, so its own log and base files); its write stats are its commit message;
* driver, after every task succeeded: ``commit`` completes the instant (commit metadata written last and
  atomically); on any task failure Spark calls ``abort``, which rolls the instant back (a ``rollback``
  instant is recorded, the written files are removed) — no completed instant is left.

Several tasks and one file group: :func:`write` (``hudi_log.spark.write(df, path, options)``) is the path
for any DataFrame. It tags the rows with their file group in Spark (the index runs in the executors,
``hoodie.index.type`` SIMPLE or BLOOM; the driver holds per-file-group facts only) and shuffles them so
that each touched file group, and each bucket of new keys, is one Spark partition (:mod:`.partitioner`,
Java's ``UpsertPartitioner``): one log file per file group per commit on MERGE_ON_READ, one rewrite per
file group on COPY_ON_WRITE, whatever the input's partitioning, and one key's rows always in one task,
where they are combined (Hudi's ``hoodie.combine.before.upsert``).

The plain ``df.write`` path writes rows where Spark holds them, with the index built on the driver: MOR
tasks writing to one file group each write their own log file of it (valid, but one per task); it
refuses (at commit, then rolls back) a COW upsert or delete in which two tasks rewrote the same file
group, and a combining write in which two tasks wrote the same key, with an error that names
:func:`write`. A single-partition DataFrame (``df.coalesce(1)``) is always safe.

``mode("overwrite")`` replaces the whole table, as Apache Hudi's SaveMode.Overwrite did by deleting the
table path: the old table is moved aside to a sibling folder on the driver, a new table is written, and
the old one is deleted only after the commit (restored on abort). ``insert_overwrite`` (replace the
partitions written, keeping the table's history) is the operation for that instead. Spark itself refuses
the other save modes (``errorifexists``, its default, and ``ignore``) for Python data sources.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import pickle
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from ..errors import HudiLogError
from ..memory import tune_allocator
from ..paths import RemotePath, as_path, configure_storage, storage_options
from ..table.errors import WriteError
from ..table.write.task import TAG_FILE_ID

#: option by which :func:`write` hands its begun transaction to the data source (a pickle on the driver)
TRANSACTION_OPTION = "hudi_log.write.transaction"

log = logging.getLogger(__name__)


class TaskConflictError(WriteError):
    """Two Spark tasks rewrote the same copy-on-write file group (the plain ``df.write`` path)."""


class RepeatedKeyError(TaskConflictError):
    """Two Spark tasks wrote the same record key, so neither could combine its rows (Hudi's
    ``hoodie.combine.before.*``)."""


@dataclass
class HudiCommitMessage(WriterCommitMessage):
    task_id: int
    stats: list[dict] = field(default_factory=list)
    key_digest: object = None  # numpy uint64 array (hudi_log.table.write.task.key_digest), when checked


def _partition_id() -> int:
    from pyspark import TaskContext

    tc = TaskContext.get()
    return tc.partitionId() if tc is not None else 0


def _pending(table_path: str, instant: str) -> bool:
    from ..table.properties import read_properties
    from ..table.timeline.timeline import Timeline

    inst = Timeline(as_path(table_path), read_properties(table_path)).instant(instant)
    return inst is not None and not inst.is_completed


class HudiWriter(DataSourceArrowWriter):
    """Built on the driver (begins or takes over the transaction), pickled to the tasks and to commit."""

    def __init__(self, options, schema, overwrite: bool):
        from ..table.write.client import begin_write

        opts = dict(options)
        configure_storage(opts)
        #: the fs.s3a.* options in force, for the tasks' Python workers (hudi_log.paths)
        self.storage_options = storage_options()
        path = opts.pop("path", None)
        if not path:
            raise WriteError("<options>", "give the table path: df.write.format('hudi_log').save(path)")
        self.path = path
        self.aside: str | None = None
        handoff = opts.pop(TRANSACTION_OPTION, None)
        if handoff:
            with open(handoff, "rb") as f:
                self.tx, self.aside, self.check_keys = pickle.load(f)
            os.unlink(handoff)
            return
        if overwrite:
            self.aside = move_aside(path)
        try:
            self.tx = begin_write(path, None, opts, schema=_arrow_schema(schema))
        except BaseException:
            restore(path, self.aside)
            raise
        from ..table.write.context import combines

        self.check_keys = combines(self.tx.context)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> HudiCommitMessage:
        from ..table.write.task import write_task

        task_id = _partition_id()
        configure_storage(self.storage_options)
        tune_allocator()  # one file group's memory reused by the next (hudi_log.memory)
        first = next(iterator, None)
        if first is None:
            return HudiCommitMessage(task_id, [], None)
        tagged = TAG_FILE_ID in first.schema.names  # rows tagged with their file group (hudi_log.spark.write)
        batches = itertools.chain([first], iterator)
        with self.tx.heartbeat.kept_alive(), say_refused():  # the instant stays alive while its files are written
            done = write_task(self.tx.context, batches, task_id, digest=self.check_keys, tagged=tagged)
        return HudiCommitMessage(task_id, done.stats, done.key_digest)

    def commit(self, messages) -> None:
        configure_storage(self.storage_options)  # commit and abort run in a Python process of their own
        ctx = self.tx.context
        stats = [s for m in messages if m is not None for s in m.stats]
        try:
            with say_refused():
                _check_conflicts(ctx, messages)
                if self.check_keys:
                    self._check_repeated_keys(ctx, messages)
                self.result = self.tx.commit(stats)
        except BaseException:
            self.abort(messages)
            raise
        if self.aside:
            shutil.rmtree(self.aside, ignore_errors=True)
        warning = many_log_files_warning(ctx, stats)
        if warning:
            log.warning(warning)

    def _check_repeated_keys(self, ctx, messages) -> None:
        from ..table.write.context import combine_option
        from ..table.write.task import repeated_hashes

        digests = [m.key_digest for m in messages if m is not None]
        if not repeated_hashes(digests):
            return
        tasks = sum(1 for d in digests if d is not None and len(d))
        raise RepeatedKeyError(ctx.table_path, (
            f"rows of one record key came in more than one of the {tasks} Spark tasks, which cannot combine "
            f"them ({combine_option(ctx)}); the instant is rolled back. Write with hudi_log.spark.write"
            "(df, path, options), which brings one key's rows into one task, or coalesce the DataFrame to "
            "one partition"))

    def abort(self, messages) -> None:
        configure_storage(self.storage_options)
        ctx = self.tx.context
        # Spark may call abort after a failed commit that already rolled back: roll back a pending instant once
        if _pending(ctx.table_path, ctx.instant):
            self.tx.abort()
        if self.aside:
            restore(self.path, self.aside)


@contextlib.contextmanager
def say_refused():
    """A write hudi-log refuses says so in one line on stderr, ``hudi-log: <table>: <what> (<what to do>)`` as the
    CLI says it, before the error goes back through Spark (which wraps it in a Java stack trace; Spark's own
    ``ERROR AppendDataExec ... aborting`` lines are off, :func:`hudi_log.spark._quiet_write_aborts`)."""
    try:
        yield
    except HudiLogError as e:
        print(f"hudi-log: {e}", file=sys.stderr, flush=True)
        raise


def said(fn):
    """The generator function ``fn``, run in Spark tasks (a ``mapInArrow``), with its refusals said in hudi-log's
    one line (:func:`say_refused`) before Spark reports the task's failure."""
    def run(*args):
        with say_refused():
            yield from fn(*args)
    return run


def many_log_files_warning(ctx, stats: list[dict]) -> str | None:
    """What to tell the user when one commit wrote several log files into one file group: the plain ``df.write``
    path writes one per Spark task that held the group's rows (Java writes one), and every later read and
    compaction opens them all. None when each group got at most one."""
    from ..format.log_file_name import LogFileName

    per_group: dict[str, int] = {}
    for s in stats:
        name = str(s.get("path") or "").rsplit("/", 1)[-1]
        if LogFileName.is_log_file_name(name):
            per_group[s["fileId"]] = per_group.get(s["fileId"], 0) + 1
    several = sorted(n for n in per_group.values() if n > 1)
    if not several:
        return None
    return (f"hudi_log: {ctx.table_path}: instant {ctx.instant} wrote up to {several[-1]} log files into one file "
            f"group ({len(several)} of {len(per_group)} groups have several), one per Spark task that held its rows; "
            "reads and compactions open each. hudi_log.spark.write(df, path, options) writes one per file group, "
            "as Java does")


def _arrow_schema(spark_schema) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_schema, timezone="UTC")


def _check_conflicts(ctx, messages) -> None:
    if ctx.properties.is_mor:
        return
    writers: dict[str, set[int]] = {}
    for m in messages:
        if m is None:
            continue
        for s in m.stats:  # new file groups get fresh ids per task: a shared id is a rewritten base file
            writers.setdefault(s["fileId"], set()).add(m.task_id)
    clash = sorted(fid for fid, tasks in writers.items() if len(tasks) > 1)
    if clash:
        raise TaskConflictError(ctx.table_path, (
            f"{len(clash)} copy-on-write file group(s) were rewritten by several Spark tasks (e.g. {clash[0]}), "
            "which would lose updates; the instant is rolled back. Write with hudi_log.spark.write(df, path, "
            "options), which routes each file group to one task, or coalesce the DataFrame to one partition"))


def move_aside(path: str) -> str | None:
    """Move an existing table out of the way for an overwrite; returns where it went."""
    p = as_path(path)
    if isinstance(p, RemotePath):
        # an object store has no rename, and deleting the old table first would lose it if the write failed
        raise WriteError(path, "mode('overwrite') moves the old table aside, which an object store cannot "
                         "do (no rename); use the insert_overwrite_table operation, which keeps the history")
    if not p.exists():
        return None
    aside = p.with_name(f".{p.name}.hudi_log-overwrite-{uuid.uuid4().hex[:8]}")
    os.rename(p, aside)
    return str(aside)


def restore(path: str, aside: str | None) -> None:
    if not aside:
        return
    if os.path.exists(path):
        shutil.rmtree(path)
    os.rename(aside, path)


def write(df, path: str, options: dict, mode: str = "append"):
    """Write ``df`` to the Hudi table at ``path``, each file group by exactly one task.

    Begins the transaction on the driver with a distributed index (per-file-group facts only, see
    :mod:`hudi_log.table.write.key_lookup`), tags the rows with their file group in Spark (``hoodie.
    index.type`` SIMPLE or BLOOM) and shuffles them so that each touched file group, and each bucket of
    new keys of a partition, is one Spark partition (:mod:`.partitioner`); then saves through the
    ``hudi_log`` data source, which takes the transaction over. Returns the :class:`WriteSummary` of the
    committed instant.
    """
    configure_storage(options)
    if mode not in ("append", "overwrite"):
        raise WriteError(path, f"mode {mode!r}: use append or overwrite")
    from ..table.write.client import begin_write
    from .partitioner import partition_by_file_group, release

    aside = move_aside(path) if mode == "overwrite" else None
    try:
        tx = begin_write(path, None, options, schema=_arrow_schema(df.schema), distributed_index=True)
    except BaseException:
        restore(path, aside)
        raise
    held = []
    try:
        routed, _, held = partition_by_file_group(df, tx.context)
        fd, handoff = tempfile.mkstemp(prefix="hudi_log-tx-", suffix=".pickle")
        with os.fdopen(fd, "wb") as f:
            pickle.dump((tx, aside, False), f)
    except BaseException:
        release(held)
        tx.abort()
        restore(path, aside)
        raise
    try:
        (routed.write.format("hudi_log").options(**{k: str(v) for k, v in options.items()})
         .option(TRANSACTION_OPTION, handoff).mode("append").save(path))
    finally:
        release(held)
        if os.path.exists(handoff):  # the data source never started: nothing took the transaction over
            os.unlink(handoff)
            tx.abort()
            restore(path, aside)
    return _committed(path, tx.instant)


def _committed(path: str, instant: str):
    """What the committed instant wrote (the writer's result stays in Spark's commit process)."""
    from ..table.timeline.commit_metadata import write_stats
    from ..table.properties import read_properties
    from ..table.timeline.timeline import Timeline

    tl = Timeline(as_path(path), read_properties(path))
    inst = tl.instant(instant)
    if inst is None or not inst.is_completed:
        raise WriteError(path, f"instant {instant} did not complete")
    md = tl.commit_metadata(inst)
    stats = write_stats(md)
    return WriteSummary(instant, inst.action, len(stats),
                        sum(int(s.get("numInserts") or 0) for s in stats),
                        sum(int(s.get("numUpdateWrites") or 0) for s in stats),
                        sum(int(s.get("numDeletes") or 0) for s in stats))


@dataclass(frozen=True)
class WriteSummary:
    instant: str
    action: str
    files: int
    inserts: int
    updates: int
    deletes: int

    def __str__(self) -> str:
        return (f"{self.action} {self.instant}: {self.files} file(s), {self.inserts} insert(s), "
                f"{self.updates} update(s), {self.deletes} delete(s)")
