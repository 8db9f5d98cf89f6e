"""Pending table-service instants (compaction, clean) and the plans their ``.requested`` files hold."""

from __future__ import annotations

from pathlib import Path

from ..properties import TableError
from .timeline import (CLUSTERING, COMMIT, DELTA_COMMIT, REPLACE_COMMIT, Instant, Timeline, TimelineError,
                       read_instant_metadata)


def pending_plans(timeline: Timeline, action: str, error: type[TableError]) -> list[tuple[Instant, Path, bytes]]:
    """(instant, requested file, its bytes) of every requested or inflight ``action``, oldest first; an
    unreadable requested file raises ``error`` naming it."""
    out = []
    for inst in timeline.pending():
        if inst.action != action:
            continue
        req = timeline.folder / f"{inst.requested_time}.{action}.requested"
        try:
            out.append((inst, req, req.read_bytes()))
        except OSError as e:
            raise error(req, f"cannot read the {action} plan: {e.strerror or e}") from e
    return out


def is_pending_clustering(timeline: Timeline, inst: Instant) -> bool:
    """A pending clustering: the ``clustering`` action (layout 2), or a replace commit whose requested
    file holds a clustering plan (layout 1, ``operationType`` CLUSTER)."""
    if inst.action == CLUSTERING:
        return True
    if inst.action != REPLACE_COMMIT:
        return False
    try:
        md = read_instant_metadata(timeline.folder / f"{inst.requested_time}.{REPLACE_COMMIT}.requested")
    except TimelineError:
        return False
    return isinstance(md, dict) and md.get("operationType") == "CLUSTER"


def incomplete_commits(timeline: Timeline) -> list[Instant]:
    """Pending writes, oldest first: Java's commits timeline filtered to requested and inflight instants,
    less clustering (commits, delta commits and replace commits). Both the failed-writes rollback and
    the time-travel check (``TimelineUtils.validateTimestampAsOf``) start from this list."""
    return [i for i in timeline.pending()
            if i.action in (COMMIT, DELTA_COMMIT, REPLACE_COMMIT) and not is_pending_clustering(timeline, i)]
