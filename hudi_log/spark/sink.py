"""Writing Hudi tables from Spark: the ``hudi_log`` data source's writer, and :func:`write`.

``df.write.format("hudi_log").options(**hudi_options).mode("append" | "overwrite").save(path)``:

* driver (the writer's construction): :func:`hudi_log.table.write.client.begin_write` — table created if absent,
  failed writes rolled back, instant allocated, ``requested`` + ``inflight`` on the timeline, index
  snapshot in the picklable ``WriteContext`` that ships with the writer to every task (MOR through
  :func:`write`: built by a driver thread while Spark shuffles, into an Arrow file in the instant's
  working folder, .hoodie/.aux/.hudi_log/{instant}, that the tasks memory-map when they first look a key up);
* each Spark task: :func:`hudi_log.table.write.task.write_batches` on its Arrow batches (its partition id is
  its task id, so its write token, so its own log and base files); its write stats are its commit message;
* driver, after every task succeeded: ``commit`` completes the instant (commit metadata written last and
  atomically); on any task failure Spark calls ``abort``, which rolls the instant back (a ``rollback``
  instant is recorded, the written files are removed) — no completed instant is left.

Several tasks and one file group: MOR tasks writing to one file group are safe (each appends to its own
log file). COW tasks are not: two tasks rewriting one base file would each lose the other's changes.
And rows of one key in two tasks are never combined (Hudi's ``hoodie.combine.before.upsert``): two
tasks inserting the same new key would insert it twice. So:

* :func:`write` (``hudi_log.spark.write(df, path, options)``) is the safe path for any DataFrame: it
  begins the transaction, then saves through the data source, which takes the transaction over instead
  of beginning another. COW rows are first repartitioned by the file group each is routed to
  (:func:`hudi_log.table.write.task.route`; rows of new keys by record key). MOR rows are written by the
  tasks that hold them (tasks sharing a file group write separate log files of it): each task reports
  a digest of the keys it wrote (:func:`hudi_log.table.write.task.key_digest`), and when the commit finds a
  key in two tasks it rolls the instant back and :func:`write` runs again behind a hash shuffle on the
  record-key columns, which brings one key's rows into one task. Distinct keys, the usual upsert, so
  cost no shuffle; ``hudi_log.write.shuffle.keys=always`` shuffles up front (input known to repeat
  keys across partitions, e.g. change streams), and with Hudi's ``hoodie.combine.before.upsert``
  (``.delete``) set to false the caller vouches that no key repeats: no shuffle and no check;
* the plain ``df.write`` path refuses (at commit, then rolls back) a COW upsert or delete in which two
  tasks rewrote the same file group, and a combining write in which two tasks wrote the same key, with
  an error that names :func:`write`. A single-partition DataFrame (``df.coalesce(1)``) is always safe.

``mode("overwrite")`` replaces the whole table, as Apache Hudi's SaveMode.Overwrite did by deleting the
table path: the old table is moved aside to a sibling folder on the driver, a new table is written, and
the old one is deleted only after the commit (restored on abort). ``insert_overwrite`` (replace the
partitions written, keeping the table's history) is the operation for that instead. Spark itself refuses
the other save modes (``errorifexists``, its default, and ``ignore``) for Python data sources.
"""

from __future__ import annotations

import logging
import os
import pickle
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from ..paths import RemotePath, as_path, configure_storage, storage_options
from ..table.errors import WriteError

#: option by which :func:`write` hands its begun transaction to the data source (a pickle on the driver)
TRANSACTION_OPTION = "hudi_log.write.transaction"
ROUTE_COLUMN = "_hudi_log_route"
#: how many tasks :func:`write` shuffles the routed rows into (default: the DataFrame's partitions, at
#: least Spark's default parallelism)
SHUFFLE_PARTITIONS_OPTION = "hudi_log.write.shuffle.partitions"
#: MOR through :func:`write`: ``auto`` (no key shuffle unless the commit finds a key in two tasks; then
#: the write runs again behind one) or ``always`` (shuffle by record key up front)
SHUFFLE_KEYS_OPTION = "hudi_log.write.shuffle.keys"
SHUFFLE_KEYS_VALUES = ("auto", "always")

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
        #: where the commit leaves word for :func:`write` that a key came in two tasks (then it retries)
        self.retry_flag: str | None = None
        handoff = opts.pop(TRANSACTION_OPTION, None)
        if handoff:
            with open(handoff, "rb") as f:
                self.tx, self.aside, self.check_keys = pickle.load(f)
            os.unlink(handoff)
            self.retry_flag = retry_flag(handoff)
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
        batches = (b.drop_columns([ROUTE_COLUMN]) if ROUTE_COLUMN in b.schema.names else b for b in iterator)
        with self.tx.heartbeat.kept_alive():  # the instant stays alive while its files are written
            done = write_task(self.tx.context, batches, task_id, digest=self.check_keys)
        return HudiCommitMessage(task_id, done.stats, done.key_digest)

    def commit(self, messages) -> None:
        configure_storage(self.storage_options)  # commit and abort run in a Python process of their own
        ctx = self.tx.context
        stats = [s for m in messages if m is not None for s in m.stats]
        try:
            _check_conflicts(ctx, messages)
            if self.check_keys:
                self._check_repeated_keys(ctx, messages)
            self.result = self.tx.commit(stats)
        except BaseException:
            self.abort(messages)
            raise
        if self.aside:
            shutil.rmtree(self.aside, ignore_errors=True)

    def _check_repeated_keys(self, ctx, messages) -> None:
        from ..table.write.context import combine_option
        from ..table.write.task import repeated_hashes

        digests = [m.key_digest for m in messages if m is not None]
        if not repeated_hashes(digests):
            return
        if self.retry_flag:  # hudi_log.spark.write: runs the write again, behind a key shuffle
            as_path(self.retry_flag).touch()
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


def retry_flag(handoff: str) -> str:
    return handoff + ".retry"


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
    """Write ``df`` to the Hudi table at ``path`` so that no two tasks write one record key (or, COW,
    one file group).

    Begins the transaction on the driver, then saves through the ``hudi_log`` data source, which takes
    it over. COW rows are repartitioned by a routing column first (the row's file group for a known key,
    else its record key), so each base file is rewritten by one task. MOR rows stay where they are
    unless the commit finds a record key in two tasks: then the instant is rolled back and the write
    runs again behind a hash shuffle on the record-key columns (at once with ``hudi_log.write.shuffle.
    keys=always``). Returns the :class:`WriteSummary` of the committed instant.
    """
    configure_storage(options)
    shuffle = str(options.get(SHUFFLE_KEYS_OPTION, "auto")).lower()
    if shuffle not in SHUFFLE_KEYS_VALUES:
        raise WriteError(path, f"{SHUFFLE_KEYS_OPTION}={shuffle!r}: use one of {', '.join(SHUFFLE_KEYS_VALUES)}")
    if mode not in ("append", "overwrite"):
        raise WriteError(path, f"mode {mode!r}: use append or overwrite")
    summary = _write_once(df, path, options, mode, shuffle == "always")
    if summary is None:  # a key came in two tasks: the instant was rolled back; now one key, one task
        log.warning("hudi_log: %s: record keys repeat across Spark partitions; writing again behind a key "
                    "shuffle (%s=always shuffles up front)", path, SHUFFLE_KEYS_OPTION)
        summary = _write_once(df, path, options, mode, True)
    return summary


def _write_once(df, path: str, options: dict, mode: str, shuffle_keys: bool):
    """One attempt of :func:`write`; None when the commit found a key in two tasks (rolled back)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    from ..table.write.client import begin_write
    from ..table.write.context import combines
    from ..table.write.task import route

    aside = move_aside(path) if mode == "overwrite" else None
    try:
        # MOR: the index is built on this driver while Spark starts the tasks
        tx = begin_write(path, None, options, schema=_arrow_schema(df.schema), defer_index=True)
    except BaseException:
        restore(path, aside)
        raise
    try:
        ctx = tx.context

        def tasks() -> int:  # how many tasks a shuffle makes
            return int(options.get(SHUFFLE_PARTITIONS_OPTION) or 0) or max(
                df.rdd.getNumPartitions(), df.sparkSession.sparkContext.defaultParallelism)

        key_fields = list(ctx.properties.record_key_fields)
        check_keys = False
        if ctx.properties.is_mor and not combines(ctx):
            # the caller vouches that no key repeats (Hudi's combine.before.* = false): no shuffle at all
            routed = df
        elif ctx.properties.is_mor and key_fields and all(f in df.columns for f in key_fields):
            # MOR: tasks sharing a file group each write their own log file, which is valid, so one key
            # per task is all that is needed: checked at commit, or made so by a hash shuffle in the JVM
            routed = df.repartition(tasks(), *[F.col(f) for f in key_fields]) if shuffle_keys else df
            check_keys = not shuffle_keys
        else:  # COW: each file group's rows in one task, or two tasks would rewrite one base file
            out_schema = StructType(df.schema.fields + [StructField(ROUTE_COLUMN, StringType())])

            def add_route(batches):
                kg = ctx.keygen
                for b in batches:
                    fg = route(ctx, b)
                    new = pc.equal(fg, "")
                    if pc.any(new).as_py():  # new keys spread by record key
                        keys = pa.array(kg.record_keys(b), pa.string())
                        fg = pc.if_else(new, pc.binary_join_element_wise("k:", keys, ""), fg)
                    yield b.append_column(ROUTE_COLUMN, fg)

            routed = df.mapInArrow(add_route, out_schema).repartition(tasks(), F.col(ROUTE_COLUMN))
        fd, handoff = tempfile.mkstemp(prefix="hudi_log-tx-", suffix=".pickle")
        with os.fdopen(fd, "wb") as f:
            pickle.dump((tx, aside, check_keys), f)
    except BaseException:
        tx.abort()
        tx.finish_index()
        restore(path, aside)
        raise
    flag = retry_flag(handoff)
    try:
        (routed.write.format("hudi_log").options(**{k: str(v) for k, v in options.items()})
         .option(TRANSACTION_OPTION, handoff).mode("append").save(path))
    except Exception:
        if not os.path.exists(flag):
            raise
        return None  # the commit rolled the instant back (and restored an overwritten table)
    finally:
        if os.path.exists(handoff):  # the data source never started: nothing took the transaction over
            os.unlink(handoff)
            tx.abort()
            restore(path, aside)
        if os.path.exists(flag):
            os.unlink(flag)
        tx.finish_index()
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
