"""Errors of table reads and writes. All derive from TableError (and so HudiLogError) and name the table."""

from __future__ import annotations

import contextlib
import errno

from ..log.storage import StorageError
from .properties import TableError


class WriteError(TableError):
    """A write to a Hudi table failed; nothing of it is visible (its instant was rolled back)."""


class TableOptionsError(TableError):
    """The options cannot create a table (no name, no record key, unknown type or version) or run a service."""


class RecordKeyError(WriteError):
    """A record has no record key (null or empty key field) or lacks a key / partition column."""


class TableMismatchError(TableError):
    """The table exists with another type, version, name or key than the write asked for."""


class UnsupportedKeyGeneratorError(TableMismatchError):
    """The table (or the write) uses a key generator or key setting hudi-log does not compute as Java does;
    writing would put keys where Java would not look for them, so nothing is written."""


class OrderingFieldError(WriteError):
    """The input lacks an ordering (precombine) column that the write combines rows of one key by; Java's
    writer refuses it too (its ``field not found in record``)."""


class SchemaEvolutionError(WriteError):
    """The batch's schema does not evolve the table's compatibly (dropped or retyped column)."""


class WriteSchemaError(WriteError):
    """The batch's schema would make a table other readers cannot read (Avro, Java, Spark, hudi-rs): a column
    name Avro cannot carry, a decimal over precision 38, a column twice. Refused before anything is written."""


class ColumnCastError(WriteError):
    """A column's values cannot be written as the table's type of that column (a timestamp out of range,
    nanoseconds a microsecond column would lose); names the table and the column."""


class StorageWriteError(WriteError, StorageError):
    """The storage refused a write (no space left, over quota, too large, read-only, an I/O error): names the
    table and the file. What the write had written of that file is removed, and its instant rolled back (or,
    where even that cannot be written, left pending for the next write to roll back, as Java's are)."""

    def __init__(self, path, file, message: str):
        self.file = None if file is None else str(file)
        super().__init__(path, message)


#: errors of the storage itself, not of the input: a write fails with them wherever it is
STORAGE_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO")
                           if hasattr(errno, n))


@contextlib.contextmanager
def storage_errors(table_path):
    """An OSError of :data:`STORAGE_ERRNOS` raised inside as :class:`StorageWriteError` naming ``table_path`` and
    the file (the error's ``filename``, which hudi-log's writers set: :func:`hudi_log.paths.naming`)."""
    try:
        yield
    except OSError as e:
        if e.errno not in STORAGE_ERRNOS:
            raise
        file = e.filename
        raise StorageWriteError(table_path, file, f"writing {file or 'a file'} failed: {e.strerror or e} (the "
                                "write was undone; make room or fix the storage, then write again)") from e


class ClusteringUpdateError(WriteError):
    """An update or delete into file groups a pending clustering has taken (Java's default
    ``SparkRejectUpdateStrategy`` throws ``HoodieClusteringUpdateException``)."""


class RollbackError(WriteError):
    """An instant cannot be rolled back (unknown, completed, or not a write)."""


class ConcurrencyError(WriteError):
    """Another process's work on the same table stopped this one (docs/concurrency.md). Nothing of this
    write is visible; retrying later is safe."""


class ConcurrencyConfigError(ConcurrencyError):
    """A concurrency option (mode, failed-writes policy, lock provider, heartbeat) is not supported."""


class ConcurrentWriterError(ConcurrencyError):
    """Another writer's instant is in flight and alive (its heartbeat is fresh): a single writer (failed
    writes policy EAGER) stops instead of rolling it back."""


class PendingServiceError(ConcurrencyError):
    """A table service found a plan of its own kind pending (requested or inflight) with a fresh heartbeat
    where another writer may be live (optimistic concurrency, or a lock provider named): it may be a live
    run, so it is neither run again nor passed over as "nothing to do". The message names the instant and
    when its heartbeat expires; a run after that recovers the plan (services/recovery.py)."""


class WriteConflictError(ConcurrencyError):
    """Optimistic concurrency: an instant that completed while this one was written changed the same file
    groups (Java's ``HoodieWriteConflictException``); this instant was rolled back."""


class InstantTakenError(WriteConflictError):
    """Another writer completed this write's own instant first (two writers holding one instant time): the
    store refused to replace its completed file, or the check before completing found it. This write's own
    files were removed and it is not completed; the other's commit stands. ``instant`` names it."""

    def __init__(self, path, instant: str, message: str):
        self.instant = instant
        super().__init__(path, message)


class LockError(ConcurrencyError):
    """The table's lock could not be taken in time (it names the holder when the lock says who)."""


class InstantLostError(ConcurrencyError):
    """This writer's own instant was rolled back by another process, or its heartbeat expired so that
    another process may roll it back: it is not completed."""


class QueryError(TableError):
    """A query cannot run as asked (bad query type or bounds)."""


class InstantArgumentError(QueryError):
    """An instant argument (``as_of``, ``begin``, ``end``, an ``--instant``) is not a time Hudi reads, or
    names an option the chosen query does not take."""


class IncrementalCommitsGoneError(QueryError):
    """An incremental query (or a stream's micro-batch) reaches commits (active or archived) whose files the
    cleaner removed: their rows would be missing from the answer. ``commits``: the requested times of those
    commits. Java's ``HoodieIncrementalPathNotFoundException``; the way out is
    ``hoodie.datasource.read.incr.fallback.fulltablescan.enable`` (:mod:`hudi_log.table.read.incremental`)."""

    def __init__(self, path, message: str, commits: tuple[str, ...] = ()):
        super().__init__(path, message)
        self.commits = tuple(commits)


class TimeTravelError(QueryError):
    """A time travel Apache Hudi refuses (``TimelineUtils.validateTimestampAsOf``): at or after the first
    incomplete commit, or before the earliest commit the last clean retained."""


class IntegrityError(TableError):
    """A completed commit's file is missing or damaged: a read would return a wrong answer. ``path`` is
    the file, ``instant`` the commit that names it."""

    def __init__(self, path, message: str, instant: str | None = None):
        self.instant = instant
        super().__init__(path, message)
