"""The conflict check at commit, as Java's ``SimpleConcurrentFileWritesConflictResolutionStrategy`` does it
(``TransactionUtils.resolveWriteConflictIfAny``, under the table lock, on a freshly read timeline).

A write remembers the timeline as it saw it when it began (:class:`TimelineSnapshot`, taken after its own
instant was requested and before it read any file). At commit, every instant that completed since
(commit, delta commit, replace commit, or a compaction) and every compaction or clustering scheduled since is a
candidate; one that changed a (partition, file id) this write also changed is a conflict, and this
write fails with :class:`~hudi_log.table.errors.WriteConflictError`. As in Java, a compaction that was
already pending when the write began is no conflict: the write's log files went to the compaction's new
slice. New file groups (inserts) have fresh ids and never conflict.

Java takes candidates by instant time (requested after the last completed one, plus those pending at the
write's start); taking them by "not seen at the start" is the same set, and also catches a compaction
whose requested file appeared, with an earlier time, only after the write looked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..errors import WriteConflictError
from ..timeline.clustering_plan import pending_clusterings
from ..timeline.commit_metadata import write_stats
from ..timeline.timeline import COMMIT, COMPACTION, DELTA_COMMIT, REPLACE_COMMIT, Instant, Timeline

#: completed actions whose files a write may collide with
_COMMIT_ACTIONS = (COMMIT, DELTA_COMMIT, REPLACE_COMMIT)


@dataclass(frozen=True)
class TimelineSnapshot:
    """Requested times of the instants completed, and of those pending, when a write began."""
    completed: frozenset[str]
    pending: frozenset[str]

    @classmethod
    def of(cls, timeline: Timeline) -> "TimelineSnapshot":
        return cls(frozenset(i.requested_time for i in timeline.completed()),
                   frozenset(i.requested_time for i in timeline.pending()))


def mutated_file_groups(metadata: dict) -> set[tuple[str, str]]:
    """(partition, file id) of every file group a completed instant wrote or replaced."""
    out = {(s.get("partitionPath") or "", s.get("fileId")) for s in write_stats(metadata) if s.get("fileId")}
    for part, fids in (metadata.get("partitionToReplaceFileIds") or {}).items():
        out.update((part or "", f) for f in fids or [])
    return out


def _describe(groups: Iterable[tuple[str, str]]) -> str:
    shown = sorted(groups)
    text = ", ".join(f"{p}/{f}" if p else f for p, f in shown[:5])
    return text + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")


def check_conflicts(timeline: Timeline, instant: str, mine: set[tuple[str, str]], start: TimelineSnapshot) -> None:
    """Raise WriteConflictError when an instant completed or scheduled since ``start`` touched ``mine``."""
    if not mine:
        return
    candidates: list[tuple[Instant, set[tuple[str, str]]]] = []
    for inst in timeline.completed():
        if inst.requested_time == instant or inst.requested_time in start.completed:
            continue
        if inst.action not in _COMMIT_ACTIONS:
            continue
        if inst.action == COMMIT and inst.requested_time in start.pending and inst.requested_time < instant:
            # a compaction (or a write) that was pending when this write looked, earlier than it: the write's
            # view already put its log files in that compaction's slice; Java exempts lower compactions
            md = timeline.commit_metadata(inst)
            if md.get("operationType") == "COMPACT" or md.get("compacted"):
                continue
        candidates.append((inst, mutated_file_groups(timeline.commit_metadata(inst))))
    for inst in timeline.pending():
        if inst.action != COMPACTION or inst.requested_time in start.pending | start.completed:
            continue
        plan = timeline.compaction_plan_file_ids(inst) or {}
        candidates.append((inst, {(p, f) for p, fids in plan.items() for f in fids}))
    # a clustering scheduled since: Java's OCC takes a pending clustering's plan as the file groups it changes
    for inst, plan in pending_clusterings(timeline):
        if inst.requested_time not in start.pending | start.completed:
            candidates.append((inst, plan.file_groups()))
    for other, theirs in candidates:
        both = mine & theirs
        if both:
            what = "scheduled" if not other.is_completed else "completed"
            raise WriteConflictError(
                timeline.folder,
                f"instant {instant} conflicts with {other.action} {other.requested_time}, {what} while it was "
                f"written: both change file group(s) {_describe(both)} (Hudi: Cannot resolve conflicts for "
                "overlapping writes); it was rolled back, write it again")
