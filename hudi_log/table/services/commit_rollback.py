"""Rollback of a COMPLETED write, as hudi-cli's ``commit rollback`` runs it (Java's
``BaseHoodieWriteClient.rollback(instant)`` through ``BaseRollbackActionExecutor``).

Java's checks, in its order, before anything changes (each refusal a :class:`RollbackError` naming the
instant and what to do):

* the instant is a completed write on the active timeline (commit, deltacommit, replacecommit, or a
  compaction completed as a commit); a pending one is `hudi-log rollback`'s (failed writes);
* it is not savepointed (``validateSavepointRollbacks``: delete the savepoint first);
* under the default failed-writes policy EAGER (``validateRollbackCommitSequence``): no completed write
  was requested after it (roll those back first, newest first), unless the instant still has a heartbeat
  (a remnant of a LAZY writer, which Java lets through), and no write is pending (its writer may be
  running; `hudi-log rollback` it first). LAZY skips this check, as Java does.

Then, under the table lock: the rollback plan is written (``{rb}.rollback.requested``, the same plan as a
failed write's: :mod:`.rollback`), the instant is unpublished (its completed file deleted first, Java's
``revertToInflight``, so no reader takes it as complete), its files are undone (base files deleted; table
version 6 log files get a ROLLBACK command block, version 8 log files of the instant are deleted), its
requested and inflight files go, and the rollback completes. Killed half-way, the pending rollback is
finished by the next writer or service (``rollback_failed_writes``), from its plan.
"""

from __future__ import annotations

import time

from ...paths import as_path
from ..concurrency.config import EAGER, concurrency_config
from ..concurrency.heartbeat import heartbeat_path, reserve_instant
from ..concurrency.lock import TableLock
from ..errors import RollbackError
from ..metadata_table import guard_change
from ..metadata.writer import check_metadata_partitions
from ..properties import read_properties
from ..timeline import commit_metadata as cm
from ..timeline.pending import incomplete_commits
from ..timeline.timeline import INFLIGHT, ROLLBACK, WRITE_ACTIONS, Instant, Timeline, parse_instant_file_name
from ..timeline.writer import TimelineWriter
from .rollback import _failed_files, _finish, _plan
from .savepoint import _instant_files
from .options import resolve_service_options


def check_rollback_of_completed(table_path, timeline: Timeline, instant: str, eager: bool) -> Instant:
    """The completed write ``instant``, or :class:`RollbackError` where Java refuses its rollback."""
    target = timeline.instant(instant)
    if target is None:
        raise RollbackError(timeline.folder, f"no instant {instant} on the active timeline "
                                             "(`hudi-log commits show` lists the writes)")
    if not target.is_completed:
        raise RollbackError(target.path or timeline.folder,
                            f"instant {instant} ({target.action}) is pending, not completed "
                            "(`hudi-log rollback PATH INSTANT` rolls back a failed write)")
    if target.action not in WRITE_ACTIONS:
        raise RollbackError(target.path or timeline.folder, f"instant {instant} is a {target.action}, not a write")
    if any(s.requested_time == instant for s in timeline.savepoints()):
        raise RollbackError(target.path or timeline.folder,
                            f"commit {instant} is savepointed (delete the savepoint first: "
                            f"`hudi-log savepoint delete PATH {instant}`)")
    if eager:
        later = [i.requested_time for i in timeline.completed_commits() if i.requested_time > instant]
        if later and not heartbeat_path(table_path, instant).exists():
            raise RollbackError(target.path or timeline.folder,
                                f"found commits after {instant}: {', '.join(later)} (roll back the later "
                                "commits first, newest first)")
        pending = [i.requested_time for i in incomplete_commits(timeline)]
        if pending:
            raise RollbackError(target.path or timeline.folder,
                                f"found in-flight commits after {instant}: {', '.join(pending)} (roll them back "
                                "first with `hudi-log rollback PATH INSTANT`, or let their writer finish)")
    return target


def rollback_completed(path, instant: str, *, options=None) -> Instant:
    """Roll back the completed write ``instant`` of the table at ``path``; the completed rollback instant."""
    options = resolve_service_options(path, options)
    started = time.time()
    config = concurrency_config(options)
    table_path = as_path(path)
    props = guard_change(table_path, read_properties(table_path), options, "the rollback")
    check_metadata_partitions(table_path, props, options)
    with TableLock(table_path, config):
        timeline = Timeline(table_path, props)
        target = check_rollback_of_completed(table_path, timeline, str(instant), config.failed_writes == EAGER)
        files = _instant_files(timeline, target)  # completed, inflight, requested
        # the plan names the instant as its pending files do (a compaction completed as a commit is undone
        # as the compaction it was), so that the rollback's last step removes exactly those files
        pending_actions = [a.action for a in (parse_instant_file_name(f.name, f) for f in files[1:]) if a]
        as_pending = Instant(target.requested_time, pending_actions[0] if pending_actions else target.action,
                             INFLIGHT)
        tw = TimelineWriter(table_path, props)
        rb_instant, beat = reserve_instant(table_path, tw, config)
        try:
            plan = _plan(table_path, props, as_pending, _failed_files(table_path, props, target.requested_time))
            tw.requested(ROLLBACK, rb_instant, cm.rollback_plan_avro(plan))
            files[0].unlink()  # unpublished first: no reader takes it as complete any longer
            done = _finish(table_path, props, tw, plan, rb_instant, started)
            for f in files[1:]:
                f.unlink(missing_ok=True)  # pending files _finish's names did not cover
        finally:
            beat.stop()
        return done
