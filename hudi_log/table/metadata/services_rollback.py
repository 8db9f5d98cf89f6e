"""The rollback of one metadata deltacommit (``HoodieBackedTableMetadataWriter.update(HoodieRollbackMetadata)``
and, before each metadata update, ``rollbackFailedWrites``), as the metadata table's own MERGE_ON_READ rollback
does it (listing based: the metadata write config turns markers off).

* Version 8 and 9 (log files named after their own instant): every file written at the instant is deleted.
* Version 6 (log files named after their slice's base instant, appended to): the file groups the instant
  created (base instant = the instant) are deleted; every other file group whose latest slice holds blocks
  of the instant gets a ROLLBACK command block aimed at it, appended as a new log version (local disk and
  object stores do not append), which readers apply (``AbstractHoodieLogRecordScanner``).
* A completed deltacommit that completed before the latest metadata compaction is refused (Java's
  ``validateRollback``: its records are in the compacted base files; that takes a restore).
* The timeline: ``{t}.rollback.requested`` (``HoodieRollbackPlan``), ``.inflight``, the files undone, the
  deltacommit's own files deleted (completed first), then the completed ``rollback``
  (``HoodieRollbackMetadata``). No deltacommit at the instant: nothing, as in Java.
"""

from __future__ import annotations

import time

from ...format.framing import rollback_block
from ...format.grammar import BlockType
from ...format.log_file_name import make_write_token
from ...format.reader import open_log
from ...log.storage import Storage
from ...log.writer import LogWriter
from ...paths import as_path, full_path_text
from ..metadata_files import SOLO_COMMIT_PREFIX, metadata_path
from ..properties import read_properties
from ..timeline import commit_metadata as cm
from ..timeline.timeline import COMMIT, DELTA_COMMIT, ROLLBACK, Timeline, parse_instant_file_name
from ..timeline.writer import TimelineWriter
from ..view.file_system_view import FileSystemView, parse_base_file_name, parse_log_file_name
from .services import FIRST_V8_TABLE_VERSION, MetadataServiceError

_DATA_BLOCKS = (BlockType.hfile_data_block, BlockType.delete_block, BlockType.avro_data_block)


def _written_at(root, instant: str) -> dict[tuple[str, str], list]:
    """(partition, file id) -> the files whose name carries ``instant``."""
    groups: dict[tuple[str, str], list] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for f in sorted(folder.iterdir()):
            parsed = parse_log_file_name(f, 0) if f.name.startswith(".") else parse_base_file_name(f, 0)
            if parsed is not None and parsed.instant == instant:
                groups.setdefault((folder.name, parsed.file_id), []).append(f)
    return groups


def _appended_at(root, props, meta: Timeline, instant: str, created: set) -> dict[tuple[str, str], tuple]:
    """(partition, file id) -> (latest log's name instant, {log path: size} holding blocks of ``instant``)
    for the file groups (not created at ``instant``) whose latest slice has blocks of it."""
    out = {}
    view = FileSystemView(root, props, meta)
    for part in sorted(view.partitions):
        for g in view.file_groups.get(part, []):
            s = g.latest_slice
            if s is None or not s.log_files or (part, g.file_id) in created:
                continue
            touched = {}
            for lf in s.log_files:
                try:
                    if any(not b.corrupt and b.block_type in _DATA_BLOCKS and b.instant_time == instant
                           for b in open_log(lf.path)):
                        touched[str(lf.path)] = lf.size
                except OSError as e:
                    raise MetadataServiceError(lf.path, f"metadata log unreadable: {e}") from e
            if touched:
                out[(part, g.file_id)] = (s.log_files[-1].instant, touched)
    return out


def rollback_metadata_instant(table_path, instant: str, rollback_instant: str) -> None:
    """Undo the metadata deltacommit at ``instant`` (completed or pending) with a metadata ``rollback`` at
    ``rollback_instant`` (module docstring)."""
    root = metadata_path(table_path)
    props = read_properties(root)
    meta = Timeline(root, props)
    target = next((i for i in meta.instants if i.requested_time == instant and i.action == DELTA_COMMIT), None)
    if target is None:
        return
    if target.is_completed:
        compactions = [i for i in meta.completed() if i.action == COMMIT]
        if compactions and len(instant) == len(compactions[-1].requested_time) \
                and (target.completion_time or instant) <= compactions[-1].requested_time:
            raise MetadataServiceError(root, f"metadata deltacommit {instant} completed before the metadata "
                                       f"compaction {compactions[-1].requested_time}: restore the table instead")
    started = time.time()
    deleted = _written_at(root, instant)
    appended = {}
    if props.version < FIRST_V8_TABLE_VERSION:  # a file named after the instant is of a group it created
        appended = _appended_at(root, props, meta, instant, set(deleted))
    requests = [{"partitionPath": p, "fileId": fid, "latestBaseInstant": instant,
                 "filesToBeDeleted": [full_path_text(f) for f in fs], "logBlocksToBeDeleted": {}}
                for (p, fid), fs in sorted(deleted.items())]
    requests += [{"partitionPath": p, "fileId": fid, "latestBaseInstant": base, "filesToBeDeleted": [],
                  "logBlocksToBeDeleted": logs} for (p, fid), (base, logs) in sorted(appended.items())]
    tw = TimelineWriter(root, props)
    tw.requested(ROLLBACK, rollback_instant, cm.rollback_plan_avro(
        {"instantToRollback": {"commitTime": instant, "action": DELTA_COMMIT}, "RollbackRequests": requests}))
    tw.inflight(ROLLBACK, rollback_instant, b"")
    partitions: dict[str, dict] = {}

    def pm(part: str) -> dict:
        return partitions.setdefault(part, {"partitionPath": part, "successDeleteFiles": [], "failedDeleteFiles": [],
                                            "rollbackLogFiles": {}, "logFilesFromFailedCommit": {}})

    for (part, _), fs in sorted(deleted.items()):
        for f in fs:
            f.unlink(missing_ok=True)
            pm(part)["successDeleteFiles"].append(full_path_text(f))
    token = make_write_token(0, int(rollback_instant[-5:]), 1)  # never a write's token (attempt 0)
    for (part, fid), (base, logs) in sorted(appended.items()):
        writer = LogWriter(str(root / part), fid, base, table_version=props.version, write_token=token,
                           storage=Storage.for_path(root, supports_append=False))
        try:
            result = writer.append_blocks([rollback_block(rollback_instant, instant)])
        finally:
            writer.close()
        pm(part)["rollbackLogFiles"][str(result.path)] = as_path(result.path).stat().st_size
        pm(part)["logFilesFromFailedCommit"].update(logs)
    for f in list(props.timeline_folder(root).iterdir()):  # completed first, so no reader sees it half undone
        inst = parse_instant_file_name(f.name)
        if inst is not None and inst.requested_time == instant and inst.action == DELTA_COMMIT and inst.is_completed:
            f.unlink()
    tw.remove_pending(DELTA_COMMIT, instant)
    tw.complete(ROLLBACK, rollback_instant, {
        "startRollbackTime": rollback_instant, "timeTakenInMillis": int((time.time() - started) * 1000),
        "totalFilesDeleted": sum(len(m["successDeleteFiles"]) for m in partitions.values()),
        "commitsRollback": [instant], "partitionMetadata": partitions,
        "instantsRollback": [{"commitTime": instant, "action": DELTA_COMMIT}]})


def rollback_failed_deltacommits(table_path) -> list[str]:
    """Roll back every pending metadata deltacommit (a failed one), as the metadata writer does before each
    update (``rollbackFailedWrites`` with the eager policy); returns the instants undone."""
    root = metadata_path(table_path)
    props = read_properties(root)
    out = []
    for inst in Timeline(root, props).pending():
        if inst.action == DELTA_COMMIT and not inst.requested_time.startswith(SOLO_COMMIT_PREFIX):
            rollback_metadata_instant(table_path, inst.requested_time, TimelineWriter(root, props).new_instant_time())
            out.append(inst.requested_time)
    return out


def drop_pending_rollbacks(table_path) -> None:
    """Metadata rollbacks a run left pending (it died midway): the deltacommit they undo is still pending and
    is rolled back again, at a new time, by the next metadata write, so these carry nothing to resume and are
    only removed."""
    root = metadata_path(table_path)
    props = read_properties(root)
    tw = TimelineWriter(root, props)
    for i in Timeline(root, props).instants:
        if i.action == ROLLBACK and not i.is_completed:
            tw.remove_pending(ROLLBACK, i.requested_time)
