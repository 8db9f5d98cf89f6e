"""Pending table-service instants (compaction, clean) and the plans their ``.requested`` files hold."""

from __future__ import annotations

from pathlib import Path

from ...containment import file_name, within_table
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


def contained_slice(table_path, source, where: str, partition: str, file_id: str, base_file, log_files):
    """The folder of a file slice a compaction or clustering plan names (``where``: its place in the plan),
    through the containment rule, with its file id and file names checked to be single names: a planted plan
    is refused (:class:`~hudi_log.containment.PathOutsideTableError`) before the service changes anything."""
    folder = within_table(table_path, partition, source=source, field=f"{where}.partitionPath", timeline=False)
    file_name(table_path, file_id, source=source, field=f"{where}.fileId")
    for field, names in (("dataFilePath", [base_file] if base_file else []), ("deltaFilePaths", log_files)):
        for name in names:
            file_name(table_path, name, source=source, field=f"{where}.{field}")
    return folder
