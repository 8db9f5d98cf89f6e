"""Async compaction of the streaming sink: Java's ``HoodieStreamingSink`` with
``hoodie.datasource.compaction.async.enable=true`` (its default for MERGE_ON_READ) schedules the compaction
from the writer after a micro-batch's commit and executes it in a background service of the driver
(``SparkStreamingAsyncCompactService``) while later micro-batches write; writes to file groups under the
pending compaction go to the compaction's new slice (table/write/index.py, small_files.py).

Here the service is one thread per table in the process that runs the sink's ``commit`` (PySpark's
streaming-sink commit worker, reused from batch to batch):

* one run at a time: the next schedule first joins the previous run (:meth:`AsyncCompactor.join`);
* a run that failed is logged where it fails and surfaced at the next micro-batch as a warning: its plan
  stays pending (its heartbeat gone), and the next run recovers it as a re-run does today (recovery.py);
  the data stays right meanwhile (readers merge a pending compaction's slices as usual);
* the writer's and the service's commits (and their metadata-table deltacommits) serialize under the
  table lock: as Java does when async services run, a single writer that named no lock provider gets
  ``InProcessLockProvider`` (:func:`with_service_lock`). A write's rollback of failed writes and its
  heartbeat checks never take a compaction for a failed write (``failed_write_candidates``);
* a compaction another process runs (a former commit worker; fresh heartbeat) is waited for before a
  micro-batch writes (:func:`wait_for_foreign_compaction`), since the in-process lock does not reach it;
* PySpark's Python sink API has no stop hook, so a query's end does not join the thread; ``abort`` and the
  next batch do, and a driver waits for it with :func:`wait_for_compactions` (Spark's shutdown kills the
  worker: a run killed there is rolled back and run again later, as any killed compaction).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Mapping

from ..paths import as_path
from ..table.concurrency.config import IN_PROCESS_LOCK, LOCK_PROVIDER

log = logging.getLogger(__name__)
_POLL_S = 0.2


def with_service_lock(opts: Mapping) -> dict:
    """``opts`` with the in-process lock named when none is (Java's switch to ``InProcessLockProvider`` for
    async table services of a single writer)."""
    out = dict(opts)
    if not any(str(k).lower() == LOCK_PROVIDER for k in out):
        out[LOCK_PROVIDER] = IN_PROCESS_LOCK
    return out


@dataclass(frozen=True)
class ServiceFailure:
    """A background compaction run that failed: its instant and why (the plan stays pending)."""
    instant: str
    error: str


class AsyncCompactor:
    """The background compaction service of one table in this process."""

    def __init__(self, path):
        self.path = path
        self._thread: threading.Thread | None = None
        self._running: str | None = None
        self._failure: ServiceFailure | None = None
        self.completed: list[str] = []

    @property
    def running(self) -> str | None:
        """The instant being compacted now, None when idle."""
        t = self._thread
        return self._running if t is not None and t.is_alive() else None

    def join(self) -> ServiceFailure | None:
        """Wait for the run in progress; the failure of the last run (once), None when it completed."""
        t = self._thread
        if t is not None:
            t.join()
            self._thread = None
        failure, self._failure = self._failure, None
        return failure

    def submit(self, instants: list[str], opts: Mapping) -> None:
        """Run ``instants`` (pending compactions, oldest first) in the background; joins the previous run."""
        failure = self.join()
        if failure is not None:  # not surfaced by the caller: keep it for the next one
            self._failure = failure
        if not instants:
            return
        self._thread = threading.Thread(target=self._run, args=(list(instants), dict(opts)),
                                        name=f"hudi_log async compaction {instants[-1]}", daemon=False)
        self._running = instants[0]
        self._thread.start()

    def _run(self, instants: list[str], opts: dict) -> None:
        from ..table.services.compaction import run_compaction

        for instant in instants:
            self._running = instant
            try:
                # one thread: the other core is the micro-batches' commits' (and two were slower: workers.py)
                run_compaction(self.path, instant, opts, threads=1)
                self.completed.append(instant)
            except Exception as e:  # noqa: BLE001 - the run's plan stays pending; the next batch says so
                log.warning("hudi_log: %s: async compaction %s failed (its plan stays pending and is run again "
                            "after a later micro-batch): %s", self.path, instant, e)
                self._failure = ServiceFailure(instant, f"{type(e).__name__}: {e}")
                return


_SERVICES: dict[str, AsyncCompactor] = {}
_GUARD = threading.Lock()


def compactor(path) -> AsyncCompactor:
    key = str(as_path(path).resolve()) if "://" not in str(path) else str(path)
    with _GUARD:
        return _SERVICES.setdefault(key, AsyncCompactor(path))


def join_services(path) -> ServiceFailure | None:
    """Wait for the table's background compaction in this process, if any (abort, a test's stop)."""
    return compactor(path).join()


def wait_for_foreign_compaction(path, opts: Mapping, timeout_s: float | None = None) -> None:
    """Before a micro-batch writes: wait while a compaction of the table is inflight with a fresh heartbeat
    and this process does not run it (another process's service; the in-process lock does not reach it).
    An expired heartbeat is a dead run: the write goes on and the next schedule recovers the plan."""
    from ..table.concurrency.config import concurrency_config
    from ..table.concurrency.heartbeat import is_expired
    from ..table.properties import has_properties, read_properties
    from ..table.timeline.timeline import INFLIGHT, Timeline

    if not has_properties(path):
        return
    config = concurrency_config(opts)
    ours = compactor(path).running
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        timeline = Timeline(as_path(path), read_properties(path))
        foreign = [c for c in timeline.pending_compactions() if c.state == INFLIGHT
                   and c.requested_time != ours and not is_expired(path, c.requested_time, config)]
        if not foreign or (deadline is not None and time.monotonic() >= deadline):
            return
        time.sleep(_POLL_S)


def wait_for_compactions(path, timeout_s: float) -> list[str]:
    """From any process (a driver once its query ended, a test): wait until the table has no pending
    compaction, at most ``timeout_s``; the compactions still pending then (empty: all done). The query's end
    does not join the commit worker's service (no stop hook), so this is how its caller waits for it."""
    from ..table.properties import read_properties
    from ..table.timeline.timeline import Timeline

    deadline = time.monotonic() + timeout_s
    while True:
        pending = [c.requested_time for c in Timeline(as_path(path), read_properties(path)).pending_compactions()]
        if not pending or time.monotonic() >= deadline:
            return pending
        time.sleep(_POLL_S)


__all__ = ["AsyncCompactor", "ServiceFailure", "compactor", "join_services", "wait_for_compactions",
           "wait_for_foreign_compaction", "with_service_lock"]
