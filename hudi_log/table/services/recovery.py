"""A table service run again after its last run died (kill -9, a lost machine): what compaction, clustering
and clean do with a pending instant of their own kind, as Java's ``BaseHoodieTableServiceClient`` does.

Java runs a pending plan again whatever its heartbeat says: ``compact`` rolls an inflight compaction back
(``HoodieTable.rollbackInflightCompaction``: a rollback instant, the instant back to requested, its plan
kept) and executes the plan; ``cluster`` does the same through ``rollbackInflightClustering``; ``clean``
executes every pending clean plan before it plans a new one (``CleanActionExecutor``). The heartbeat of a
run killed a moment ago is still fresh (it expires interval × tolerable misses after its last beat, 120 s
by default), so a rule that waited for it would leave the plan pending and report nothing to do.

* A single writer (``hoodie.write.concurrency.mode=SINGLE_WRITER`` and no lock provider, the default)
  does as Java does: Java's promise is one writer at a time, so a pending plan is a dead run's and is
  recovered at once. Two runs of one service started at once against that promise take each other's plan
  for a dead run's: the one whose run was rolled back under it does not complete (:func:`still_ours`),
  the other does (docs/concurrency.md).
* Where another writer may be live (optimistic concurrency, or a lock provider named), a fresh heartbeat
  may be a run going on in another process: the service stops with
  :class:`~hudi_log.table.errors.PendingServiceError`, naming the instant and when its heartbeat expires.
  Run after that, it recovers the plan as above.
* An expired heartbeat, or none (a plan scheduled and never started), is a dead run in both modes.
"""

from __future__ import annotations

import datetime
import time
from pathlib import Path

from ..concurrency.config import HEARTBEAT_INTERVAL, HEARTBEAT_MISSES, LOCK_PROVIDER, MODE, ConcurrencyConfig
from ..concurrency.heartbeat import heartbeat_expiry, is_expired
from ..errors import InstantLostError, PendingServiceError
from ..properties import TableProperties
from ..timeline.timeline import Timeline
from .rollback import rollbacks_of


def claim_pending(table_path: Path, instant: str, state: str, what: str, config: ConcurrencyConfig,
                  where=None) -> None:
    """Return when this process may run the pending ``what`` (compaction, clustering, clean) ``instant``
    (in ``state``, REQUESTED or INFLIGHT) itself; raise :class:`PendingServiceError` when its heartbeat is
    fresh and another writer may be live (see the module docstring). ``where``: the file to name (the
    instant's file; the table otherwise)."""
    if not config.others_may_write or is_expired(table_path, instant, config):
        return
    expires = heartbeat_expiry(table_path, instant, config)
    if expires is None:
        return  # its heartbeat went since the check: the run ended
    now = time.time()
    at = datetime.datetime.fromtimestamp(expires, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    redo = "executed from its plan" if what == "clean" else "rolled back and run again from its plan"
    why = f"{MODE}={config.mode}" if config.optimistic else f"{LOCK_PROVIDER}={config.lock_provider}"
    raise PendingServiceError(
        where or table_path,
        f"{what} {instant} is {state.lower()} and its heartbeat is fresh: it expires at {at} (in "
        f"{max(expires - now, 0.0):.0f} s; last beat {max(now - expires + config.heartbeat_timeout_s, 0.0):.1f} s "
        f"ago, {HEARTBEAT_INTERVAL}={config.heartbeat_interval_ms} x {HEARTBEAT_MISSES}={config.heartbeat_misses}); "
        f"with {why} another process may be running it, so it is neither run again nor passed over (run again "
        f"after {at}: a dead run's {what} is then {redo})")


def known_rollbacks(table_path: Path, props: TableProperties, instant: str) -> set[str]:
    """The rollbacks of ``instant`` when a run of it starts (its recovery of killed runs), for :func:`still_ours`."""
    return {r.requested_time for r in rollbacks_of(Timeline(table_path, props), instant)}


def still_ours(table_path: Path, props: TableProperties, instant: str, what: str, known: set[str]) -> None:
    """Before a service completes ``instant`` (under the table lock, if any): no rollback but those ``known``
    when it started targets it. Another run that took this one for dead rolled its files back and runs the
    plan itself; this run then raises :class:`InstantLostError` instead of completing over files that are
    gone."""
    late = sorted(r.requested_time for r in rollbacks_of(Timeline(table_path, props), instant)
                  if r.requested_time not in known)
    if late:
        raise InstantLostError(table_path, f"{what} {instant} was not completed: rollback {late[0]} undid this run "
                               "(another run took it for a dead one and runs its plan)")


__all__ = ["claim_pending", "known_rollbacks", "still_ours"]
