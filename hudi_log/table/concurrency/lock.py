"""The table lock of optimistic concurrency control: Java's ``LockManager`` over a lock provider.

* ``FileSystemBasedLockProvider`` (Java's, same file and rules, so a Java writer configured with it and a
  hudi-log writer exclude each other): the lock is the file ``{hoodie.write.lock.filesystem.path}/lock``
  (default ``{table}/.hoodie/lock``), created only if absent, holding Java's ``LockInfo`` JSON
  (``lockCreateTime``, ``lockThreadName``, ``lockStacksInfo``). Unlock deletes it. A lock file older than
  ``hoodie.write.lock.filesystem.expire`` minutes (0, the default: never) is taken as abandoned and
  deleted by the next taker. While hudi-log holds the lock it keeps the file's modification time fresh,
  so only a dead holder's lock ever expires (Java judges by the same time), and a short expiry is safe.
* ``InProcessLockProvider``: a lock per table path in this process (threads of one process).
* Taking the lock: each attempt waits up to ``hoodie.write.lock.wait_time_ms``; after a failed attempt,
  ``hoodie.write.lock.client.wait_time_ms_between_retry``, up to ``hoodie.write.lock.client.num_retries``
  more attempts; then :class:`~hudi_log.table.errors.LockError` naming the lock and its holder.
* :class:`TableLock` is re-entrant within a thread (a commit that fails its conflict check rolls back
  under the same lock), and a no-op where no provider is configured (a single writer).
"""

from __future__ import annotations

import datetime
import json
import os
import socket
import threading
import time

from ...paths import as_path, create_new, touch_existing
from ..errors import LockError
from .config import FILE_SYSTEM_LOCK, IN_PROCESS_LOCK, ConcurrencyConfig

LOCK_FILE_NAME = "lock"
_POLL_S = 0.02
#: how often a waiter reads the lock file to see whether its holder on this host is gone (the poll is faster)
HOLDER_CHECK_EVERY_S = 0.5


class FileSystemLock:
    """Java's ``FileSystemBasedLockProvider``: create-if-absent is atomic on local disk and on S3 (a PUT with
    ``If-None-Match: *``); a check, then a PUT, on GCS and Azure (:func:`hudi_log.paths.create_new`)."""

    def __init__(self, table_path, config: ConcurrencyConfig, *, owner_check: bool = False):
        folder = as_path(config.lock_fs_path) if config.lock_fs_path else as_path(table_path) / ".hoodie"
        self.path = folder / LOCK_FILE_NAME
        self.expire_s = config.lock_fs_expire_minutes * 60.0
        # hudi-log's own locks (not Java's file) also name their holder's host and pid, so a holder killed on
        # this host is seen dead at once rather than after the expiry
        self.owner_check = owner_check
        self._holder_checked = -HOLDER_CHECK_EVERY_S  # when the holder was last looked at (monotonic seconds)
        self._keeper: threading.Thread | None = None
        self._held = threading.Event()

    def _keep_fresh(self) -> None:
        # touch the lock while it is held, well within the expiry, so no one takes a live holder's lock
        while not self._held.wait(max(min(self.expire_s / 4, 5.0), 0.05)):
            try:
                touch_existing(self.path)
            except OSError:
                return

    def _expired(self) -> bool:
        if self.expire_s <= 0:
            return False
        try:
            return time.time() - self.path.stat().st_mtime > self.expire_s
        except FileNotFoundError:
            return False

    def _holder_dead_here(self) -> bool:
        """The lock names a holder on this host whose process is gone (only for ``owner_check`` locks)."""
        if not self.owner_check or time.monotonic() - self._holder_checked < HOLDER_CHECK_EVERY_S:
            return False  # a holder is looked at again only now and then (a GET each, on object stores)
        self._holder_checked = time.monotonic()
        try:
            info = json.loads(self.path.read_text())
            host, pid = info.get("host"), int(info.get("pid"))
        except (OSError, ValueError, TypeError, AttributeError):
            return False
        # a lock file is the table's, so untrusted: only a positive pid names one process to probe
        if host != socket.gethostname() or pid <= 0 or pid == os.getpid():
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        return False

    def try_lock(self) -> bool:
        if self.path.exists() and (self._expired() or self._holder_dead_here()):
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
        info = {
            "lockCreateTime": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:23],
            "lockThreadName": f"hudi-log pid {os.getpid()} {threading.current_thread().name}",
            "lockStacksInfo": [],
        }
        if self.owner_check:
            info.update(host=socket.gethostname(), pid=os.getpid())
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:  # atomic on local disk and S3 (hudi_log.paths.create_new)
            create_new(self.path, json.dumps(info, indent=2).encode())
        except FileExistsError:
            return False
        if self.expire_s > 0:
            self._held.clear()
            self._keeper = threading.Thread(target=self._keep_fresh, name="hudi_log lock keeper", daemon=True)
            self._keeper.start()
        return True

    def unlock(self) -> None:
        if self._keeper is not None:
            self._held.set()
            self._keeper.join()
            self._keeper = None
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def holder(self) -> str:
        try:
            info = json.loads(self.path.read_text())
            return f"held by {info.get('lockThreadName')} since {info.get('lockCreateTime')}"
        except (OSError, ValueError, AttributeError):
            return "held"

    def describe(self) -> str:
        return str(self.path)


_IN_PROCESS: dict[str, threading.Lock] = {}
_IN_PROCESS_GUARD = threading.Lock()


class InProcessLock:
    """Java's ``InProcessLockProvider``: one lock per table path within this process."""

    def __init__(self, table_path, config: ConcurrencyConfig):
        self.key = str(as_path(table_path).resolve())
        with _IN_PROCESS_GUARD:
            self._lock = _IN_PROCESS.setdefault(self.key, threading.Lock())

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def holder(self) -> str:
        return "held by another thread of this process"

    def describe(self) -> str:
        return f"in-process lock of {self.key}"


_PROVIDERS = {FILE_SYSTEM_LOCK: FileSystemLock, IN_PROCESS_LOCK: InProcessLock}


class TableLock:
    """The table's transaction lock (``with TableLock(path, config):``); a no-op without a provider."""

    _held = threading.local()  # per thread: {lock description: hold count}

    def __init__(self, table_path, config: ConcurrencyConfig, provider=None):
        self.config = config
        self.table_path = as_path(table_path)
        if provider is None and config.lock_provider in _PROVIDERS:
            provider = _PROVIDERS[config.lock_provider](table_path, config)
        self.provider = provider

    @property
    def enabled(self) -> bool:
        return self.provider is not None

    def _counts(self) -> dict:
        counts = getattr(self._held, "counts", None)
        if counts is None:
            counts = self._held.counts = {}
        return counts

    def acquire(self) -> None:
        if self.provider is None:
            return
        key = self.provider.describe()
        counts = self._counts()
        if counts.get(key):
            counts[key] += 1
            return
        cfg = self.config
        for attempt in range(cfg.lock_retries + 1):
            deadline = time.monotonic() + cfg.lock_wait_ms / 1000.0
            while True:
                if self.provider.try_lock():
                    counts[key] = 1
                    return
                if time.monotonic() >= deadline:
                    break
                time.sleep(_POLL_S)
            if attempt < cfg.lock_retries:
                time.sleep(cfg.lock_retry_wait_ms / 1000.0)
        raise LockError(key, f"cannot take the table lock of {self.table_path} after {cfg.lock_retries + 1} "
                             f"attempt(s): {self.provider.holder()}")

    def release(self) -> None:
        if self.provider is None:
            return
        key = self.provider.describe()
        counts = self._counts()
        counts[key] -= 1
        if counts[key] == 0:
            del counts[key]
            self.provider.unlock()

    def __enter__(self) -> "TableLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


#: Where the metadata lock lives, under the data table: ``.hoodie/.aux`` is Hudi's folder for auxiliary
#: files, which no timeline or file listing reads.
METADATA_LOCK_FOLDER = (".hoodie", ".aux", "metadata_sync")
_METADATA_LOCK_MIN_EXPIRY_S = 10.0


def metadata_lock(table_path, config: ConcurrencyConfig) -> TableLock:
    """The lock every change to the metadata table is made under, whatever the concurrency mode.

    Every data action ends by writing a deltacommit into the one metadata table, so processes that share a
    table without a lock provider (a single-writer table with a compaction or clean process beside its
    writer, which hudi-log allows while heartbeats keep them apart) would otherwise meet there: one would
    take the other's half-written deltacommit for a failed one and roll it back, losing the file listing of
    a write that then completes. Java avoids the meeting by promising one process (its table services run in
    the writer's process, under an in-process lock); hudi-log takes a file lock (Java's
    ``FileSystemBasedLockProvider`` rules) in ``.hoodie/.aux/metadata_sync``. A holder keeps it fresh; one
    that died is taken over at once where it ran on this host (its pid is gone), else once the lock is older
    than the heartbeat timeout (at least 10 s). Re-entrant within a thread, as :class:`TableLock` is; taken
    after the table lock where both are held."""
    from dataclasses import replace

    folder = as_path(table_path).joinpath(*METADATA_LOCK_FOLDER)
    expiry_s = max(config.heartbeat_timeout_s, _METADATA_LOCK_MIN_EXPIRY_S)
    own = replace(config, lock_provider=FILE_SYSTEM_LOCK, lock_fs_path=str(folder),
                  lock_fs_expire_minutes=expiry_s / 60.0)
    return TableLock(table_path, own, FileSystemLock(table_path, own, owner_check=True))
