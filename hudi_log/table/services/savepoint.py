"""Savepoints and restore, as Apache Hudi's ``SavepointActionExecutor``, ``BaseHoodieWriteClient``
(``deleteSavepoint``, ``restoreToSavepoint``), ``RestorePlanActionExecutor`` and
``BaseRestoreActionExecutor`` / ``CopyOnWriteRestoreActionExecutor`` do them.

* A savepoint keeps a completed write instant T restorable: ``{T}.savepoint.inflight`` (empty), then the
  completed ``{T}.savepoint`` (``{T}_{completion}.savepoint`` in layout 2) holding a
  ``HoodieSavepointMetadata`` Avro container in both layouts (Java's ``TimelineMetadataUtils``
  serialises every savepoint that way): ``savepointedBy``, ``savepointedAt`` (epoch milliseconds),
  ``comments`` and, per partition, the base and log file names of the latest file slices as of T.
  T must be a completed commit not older than what the last clean retained (Java's lookup-window check).
  Clean keeps every slice holding a savepointed file (:func:`savepointed_files`); archival stops at the
  first savepoint.
* Deleting a savepoint removes its completed file, then its inflight one (``revertToInflight`` then
  ``deleteInflight``).
* Restore to a savepoint T: a ``restore`` instant R. ``{R}.restore.requested`` holds the
  ``HoodieRestorePlan`` (version 2): every write instant after T (commits, delta commits, replace
  commits, compactions; pending ones too), newest first. ``{R}.restore.inflight`` is empty. Each instant
  is then undone as a rollback with a fresh instant time that is not published on the timeline (Java's
  restore passes ``skipTimelinePublish``): its completed file is removed first, so no reader sees a
  completed instant whose files are going, then its files are undone (see :mod:`.rollback`), then its
  pending files. The completed ``{R}.restore`` holds the ``HoodieRestoreMetadata``: the instants rolled
  back and each one's ``HoodieRollbackMetadata``. Savepoints after T stay, as in Java.
* A restore found pending (a killed run) is finished from its plan by the next restore; every step is
  idempotent (instants already gone are skipped).
"""

from __future__ import annotations

import getpass
import io
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import fastavro

from ...containment import file_name, within_table
from ...paths import as_path
from ..concurrency.config import concurrency_config
from ..concurrency.heartbeat import is_expired, reserve_instant
from ..concurrency.lock import TableLock
from ..errors import ConcurrentWriterError, RollbackError
from ..metadata_table import guard_change
from ..metadata.writer import check_metadata_partitions, sync_metadata_table
from ..properties import read_properties
from ..read.query import HudiTable
from ..timeline import commit_metadata as cm
from ..timeline.timeline import (
    CLEAN, COMPLETED, RESTORE, SAVEPOINT, WRITE_ACTIONS, Instant, Timeline, comparable_action,
    parse_instant_file_name, read_instant_metadata,
)
from ..timeline.writer import TimelineWriter
from .rollback import undo_instant_files
from .options import resolve_service_options

_JS = {"type": "string", "avro.java.string": "String"}
SAVEPOINT_METADATA_SCHEMA = {
    "type": "record", "name": "HoodieSavepointMetadata", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "savepointedBy", "type": _JS},
        {"name": "savepointedAt", "type": "long"},
        {"name": "comments", "type": _JS},
        {"name": "partitionMetadata", "type": {"type": "map", "avro.java.string": "String", "values": {
            "type": "record", "name": "HoodieSavepointPartitionMetadata", "fields": [
                {"name": "partitionPath", "type": _JS},
                {"name": "savepointDataFile", "type": {"type": "array", "items": _JS}}]}}},
        {"name": "version", "type": ["int", "null"], "default": 1},
    ],
}
_INSTANT_INFO = {"type": "record", "name": "HoodieInstantInfo", "namespace": "org.apache.hudi.avro.model",
                 "fields": [{"name": "commitTime", "type": _JS}, {"name": "action", "type": _JS}]}
RESTORE_PLAN_SCHEMA = {
    "type": "record", "name": "HoodieRestorePlan", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "instantsToRollback", "type": {"type": "array", "items": _INSTANT_INFO}, "default": []},
        {"name": "version", "type": ["int", "null"], "default": 2},
        {"name": "savepointToRestoreTimestamp", "type": ["null", _JS], "default": None},
    ],
}
RESTORE_METADATA_SCHEMA = {
    "type": "record", "name": "HoodieRestoreMetadata", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "startRestoreTime", "type": _JS},
        {"name": "timeTakenInMillis", "type": "long"},
        {"name": "instantsToRollback", "type": {"type": "array", "items": _JS}},
        {"name": "hoodieRestoreMetadata", "type": {"type": "map", "avro.java.string": "String", "values": {
            "type": "array", "items": ["null", cm.ROLLBACK_METADATA_SCHEMA]}}},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {"name": "restoreInstantInfo", "type": {"type": "array", "items": "org.apache.hudi.avro.model.HoodieInstantInfo"},
         "default": []},
        {"name": "extraMetadata", "type": ["null", {"type": "map", "values": _JS}], "default": None},
    ],
}
RESTORE_PLAN_VERSION = 2


class SavepointError(RollbackError):
    """A savepoint cannot be created, deleted or restored to."""


@dataclass(frozen=True)
class Savepoint:
    instant: str
    savepointed_by: str
    savepointed_at: int  # epoch milliseconds
    comments: str
    files: Mapping[str, tuple[str, ...]]  # partition -> file names

    def to_dict(self) -> dict:
        return {"instant": self.instant, "savepointed_by": self.savepointed_by,
                "savepointed_at": self.savepointed_at, "comments": self.comments,
                "partitions": len(self.files), "files": sum(len(v) for v in self.files.values())}


def _decode(data: bytes, path) -> dict:
    try:
        return next(iter(fastavro.reader(io.BytesIO(data))))
    except Exception as e:  # noqa: BLE001 - any decoding failure is a corrupt instant file
        raise SavepointError(path, f"corrupt instant metadata: {e}") from e


def list_savepoints(timeline: Timeline) -> list[Savepoint]:
    """The completed savepoints, oldest first."""
    out = []
    for inst in timeline.savepoints():
        path = inst.path or timeline.folder / inst.file_name
        md = _decode(as_path(path).read_bytes(), path)
        files = {p: tuple(m.get("savepointDataFile") or ()) for p, m in (md.get("partitionMetadata") or {}).items()}
        for p, names in files.items():  # names the cleaner keeps: held to the rule every plan's paths are
            where = f"partitionMetadata[{p!r}]"
            within_table(timeline.table_path, p, source=path, field=where, timeline=False)
            for name in names:
                file_name(timeline.table_path, name, source=path, field=f"{where}.savepointDataFile")
        out.append(Savepoint(inst.requested_time, md.get("savepointedBy") or "", int(md.get("savepointedAt") or 0),
                             md.get("comments") or "", files))
    return out


def savepointed_files(timeline: Timeline) -> dict[str, set[str]]:
    """{partition: file names} every savepoint keeps (``CleanPlanner.getSavepointedDataFiles``)."""
    out: dict[str, set[str]] = {}
    for sp in list_savepoints(timeline):
        for part, names in sp.files.items():
            out.setdefault(part, set()).update(names)
    return out


def _last_commit_retained(timeline: Timeline) -> str | None:
    """What the last clean retained from (its ECTR), else the first completed commit."""
    cleans = [i for i in timeline.instants if i.action == CLEAN]
    if cleans:
        last = cleans[-1]
        name = last.file_name if last.is_completed else f"{last.requested_time}.{CLEAN}.requested"
        try:
            md = read_instant_metadata(timeline.folder / name)
        except Exception:  # noqa: BLE001 - an unreadable clean falls back to the first commit, below
            md = {}
        ectr = md.get("earliestCommitToRetain") if last.is_completed else \
            (md.get("earliestInstantToRetain") or {}).get("timestamp")
        if ectr:
            return ectr
    commits = timeline.completed_commits()
    return commits[0].requested_time if commits else None


def create_savepoint(path, instant: str, user: str | None = None, comments: str = "",
                     options: Mapping | None = None) -> Savepoint:
    """Savepoint the completed write ``instant`` of the table at ``path``."""
    options = resolve_service_options(path, options)
    config = concurrency_config(options)
    props = guard_change(path, read_properties(path), options, "the savepoint")
    with TableLock(path, config):
        table = HudiTable(path)
        timeline = table.timeline
        if str(instant) not in timeline.completed_commit_times():
            raise SavepointError(timeline.folder, f"could not savepoint {instant}: not a completed commit on the "
                                 "active timeline")
        if any(s.requested_time == instant for s in timeline.savepoints()):
            raise SavepointError(timeline.folder, f"instant {instant} is already savepointed")
        retained = _last_commit_retained(timeline)
        if retained is not None and instant < retained:
            raise SavepointError(timeline.folder, f"could not savepoint {instant}: it is beyond the lookup window "
                                 f"{retained} (a clean may have removed its files)")
        files: dict[str, list[str]] = {p: [] for p in table.view(instant).partitions}
        for s in table.view(instant).latest_file_slices():
            names = files.setdefault(s.partition, [])
            if s.base_file is not None:
                names.append(s.base_file.path.name)
            names.extend(lf.path.name for lf in s.log_files)
        sp = Savepoint(instant, user if user is not None else getpass.getuser(), int(time.time() * 1000),
                       comments, {p: tuple(v) for p, v in files.items()})
        data = cm.avro_container(SAVEPOINT_METADATA_SCHEMA, {
            "savepointedBy": sp.savepointed_by, "savepointedAt": sp.savepointed_at, "comments": sp.comments,
            "partitionMetadata": {p: {"partitionPath": p, "savepointDataFile": list(v)} for p, v in sp.files.items()},
            "version": 1})
        tw = TimelineWriter(table.path, props)
        tw.inflight(SAVEPOINT, instant)
        tw.complete(SAVEPOINT, instant, data)
        return sp


def delete_savepoint(path, instant: str, options: Mapping | None = None) -> None:
    """Delete the savepoint of ``instant``: its completed file, then its inflight one."""
    options = resolve_service_options(path, options)
    config = concurrency_config(options)
    props = read_properties(path)
    with TableLock(path, config):
        timeline = Timeline(path, props)
        found = [s for s in timeline.savepoints() if s.requested_time == str(instant)]
        if not found:
            raise SavepointError(timeline.folder, f"could not delete savepoint {instant}: it does not exist")
        (found[0].path or timeline.folder / found[0].file_name).unlink()
        TimelineWriter(path, props).remove_pending(SAVEPOINT, str(instant))


def _instant_files(timeline: Timeline, target: Instant) -> list[Path]:
    """The timeline files of ``target`` (any state), completed first, then inflight, then requested."""
    key = comparable_action(target.action)
    found = [i for i in (parse_instant_file_name(p.name, p) for p in timeline.folder.iterdir())
             if i is not None and i.requested_time == target.requested_time and comparable_action(i.action) == key]
    order = {COMPLETED: 0, "INFLIGHT": 1, "REQUESTED": 2}
    return [i.path for i in sorted(found, key=lambda i: order[i.state])]


def _plan_targets(timeline: Timeline, savepoint: str) -> list[Instant]:
    return [i for i in reversed(timeline.instants)
            if i.action in WRITE_ACTIONS and i.requested_time > savepoint]


def restore(path, savepoint: str, options: Mapping | None = None) -> Instant:
    """Restore the table at ``path`` to the savepoint ``savepoint``; returns the completed restore instant."""
    options = resolve_service_options(path, options)
    started = time.time()
    config = concurrency_config(options)
    table_path = as_path(path)
    props = guard_change(table_path, read_properties(table_path), options, "the restore")
    check_metadata_partitions(table_path, props, options)
    with TableLock(table_path, config):
        timeline = Timeline(table_path, props)
        tw = TimelineWriter(table_path, props)
        pending = [i for i in timeline.pending() if i.action == RESTORE]
        if pending:  # a killed restore: finish it from its plan
            inst = pending[0]
            if not is_expired(table_path, inst.requested_time, config):
                raise ConcurrentWriterError(inst.path or timeline.folder, f"restore {inst.requested_time} is running")
            req = timeline.folder / f"{inst.requested_time}.{RESTORE}.requested"
            plan = _decode(req.read_bytes(), req)
            restore_ts, beat = inst.requested_time, None
        else:
            if not any(s.requested_time == str(savepoint) for s in timeline.savepoints()):
                raise SavepointError(timeline.folder, f"no savepoint {savepoint} to restore to")
            for t in _plan_targets(timeline, str(savepoint)):
                if not t.is_completed and not is_expired(table_path, t.requested_time, config):
                    raise ConcurrentWriterError(t.path or timeline.folder,
                                                f"{t.action} {t.requested_time} is running: restore refused")
            plan = {"instantsToRollback": [{"commitTime": t.requested_time, "action": t.action}
                                           for t in _plan_targets(timeline, str(savepoint))],
                    "version": RESTORE_PLAN_VERSION, "savepointToRestoreTimestamp": str(savepoint)}
            restore_ts, beat = reserve_instant(table_path, tw, config)
            tw.requested(RESTORE, restore_ts, cm.avro_container(RESTORE_PLAN_SCHEMA, plan))
        try:
            if not (timeline.folder / f"{restore_ts}.{RESTORE}.inflight").exists():
                tw.inflight(RESTORE, restore_ts)
            per_instant: dict[str, list] = {}
            for info in plan["instantsToRollback"]:
                timeline = Timeline(table_path, props)
                target = next((i for i in timeline.instants if i.requested_time == info["commitTime"]
                               and i.action in WRITE_ACTIONS), None)
                if target is None:
                    continue  # undone by the killed run already
                files = _instant_files(timeline, target)
                if files and target.is_completed:
                    files[0].unlink()  # unpublish first: no reader takes it as complete any longer
                    files = files[1:]
                md = undo_instant_files(table_path, props, target, tw.new_instant_time())
                for f in files:
                    f.unlink(missing_ok=True)
                per_instant[target.requested_time] = [md]
            metadata = {
                "startRestoreTime": restore_ts, "timeTakenInMillis": int((time.time() - started) * 1000),
                "instantsToRollback": [i["commitTime"] for i in plan["instantsToRollback"]],
                "hoodieRestoreMetadata": per_instant, "version": 1,
                "restoreInstantInfo": list(plan["instantsToRollback"]), "extraMetadata": None}
            sync_metadata_table(table_path, restore_ts, RESTORE, metadata, None)  # the metadata table first
            return tw.complete(RESTORE, restore_ts, cm.avro_container(RESTORE_METADATA_SCHEMA, metadata))
        finally:
            if beat is not None:
                beat.stop()


__all__ = ["SAVEPOINT_METADATA_SCHEMA", "Savepoint", "SavepointError", "create_savepoint", "delete_savepoint",
           "list_savepoints", "restore", "savepointed_files"]
