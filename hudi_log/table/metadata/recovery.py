"""The smallest rollback of one metadata-table instant (``HoodieTable.rollback`` on the metadata table), used
until helper mdtsvc's ``hudi_log.table.metadata.services.rollback_metadata_instant`` is merged (the writer's
:func:`~.writer.rollback_metadata_instant` joins that one when present).

The instant's log files go: from table version 8 on each metadata deltacommit writes its own log files, named
by its instant, and they are deleted; on version 6 its blocks were appended to the slices' log files, so a
ROLLBACK command block naming it is appended to each of those files. Then the rollback instant is completed
on the metadata table's timeline (requested, inflight, completed with Java's rollback metadata) and the
rolled-back instant's files leave the timeline.
"""

from __future__ import annotations

import time

from ...format.framing import rollback_block
from ...format.log_file_name import make_write_token
from ...format.reader import open_log
from ...log.storage import Storage
from ...log.writer import LogWriter
from ..metadata_files import metadata_path
from ..properties import read_properties
from ..timeline.timeline import Timeline
from ..timeline.writer import TimelineWriter
from ..view.file_system_view import parse_log_file_name

ROLLBACK = "rollback"


def _partitions(root):
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name != ".hoodie")


def rollback_instant(table_path, instant: str, rollback_time: str) -> None:
    root = metadata_path(table_path)
    props = read_properties(root)
    timeline = Timeline(root, props)
    target = next((i for i in timeline.instants if i.requested_time == instant and i.action == "deltacommit"), None)
    if target is None:
        return
    started = time.time()
    tw = TimelineWriter(root, props)
    earlier = next((i for i in timeline.instants if i.requested_time == rollback_time and i.action == ROLLBACK), None)
    if earlier is not None and earlier.is_completed:  # done by a run that died before the instant's files went
        tw.remove_pending(target.action, instant)
        return
    if earlier is None:  # else resumed: a run of this rollback died midway
        tw.requested(ROLLBACK, rollback_time)
        tw.inflight(ROLLBACK, rollback_time)
    partitions: dict[str, dict] = {}
    deleted = 0
    storage = Storage.for_path(table_path, supports_append=False)  # as Hudi: only HDFS-like stores append
    for folder in _partitions(root):
        pm = {"partitionPath": folder.name, "successDeleteFiles": [], "failedDeleteFiles": [],
              "rollbackLogFiles": {}, "logFilesFromFailedCommit": {}}
        for f in sorted(folder.iterdir()):
            lf = parse_log_file_name(f)
            if lf is None:
                continue
            if props.version >= 8:
                if lf.instant == instant:
                    f.unlink()
                    pm["successDeleteFiles"].append(str(f))
                    deleted += 1
                continue
            if any(not b.corrupt and b.instant_time == instant for b in open_log(f)):
                pm["logFilesFromFailedCommit"][str(f)] = f.stat().st_size
                w = LogWriter(str(folder), lf.file_id, lf.instant, table_version=props.version, storage=storage,
                              write_token=make_write_token(0, 0, 1))
                try:
                    res = w.append_blocks([rollback_block(rollback_time, instant)])
                finally:
                    w.close()
                pm["rollbackLogFiles"][res.path] = res.start_offset + res.bytes_written
        if pm["successDeleteFiles"] or pm["rollbackLogFiles"]:
            partitions[folder.name] = pm
    if target.is_completed:  # unpublished first: no reader takes it as complete any longer
        (tw.folder / target.file_name).unlink(missing_ok=True)
    tw.complete(ROLLBACK, rollback_time, {
        "startRollbackTime": rollback_time, "timeTakenInMillis": int((time.time() - started) * 1000),
        "totalFilesDeleted": deleted, "commitsRollback": [instant], "partitionMetadata": partitions,
        "instantsRollback": [{"commitTime": instant, "action": target.action}]})
    # last: a rollback that died before this leaves the instant pending, for the next metadata write to roll
    # back again (its files are gone already; doing it twice is harmless)
    tw.remove_pending(target.action, instant)


def drop_pending_rollbacks(table_path) -> None:
    """The pending rollbacks of :func:`rollback_instant` runs that died: their instant is rolled back again
    by the next run, so they are only removed (they carry no plan to resume)."""
    root = metadata_path(table_path)
    props = read_properties(root)
    tw = TimelineWriter(root, props)
    for i in Timeline(root, props).instants:
        if i.action == ROLLBACK and not i.is_completed:
            tw.remove_pending(ROLLBACK, i.requested_time)
