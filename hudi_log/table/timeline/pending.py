"""Pending table-service instants (compaction, clean) and the plans their ``.requested`` files hold."""

from __future__ import annotations

from pathlib import Path

from ..properties import TableError
from .timeline import Instant, Timeline


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
