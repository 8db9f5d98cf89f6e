"""Rollback of a failed (pending) write instant, as Hudi's ``BaseRollbackActionExecutor`` does it.

* Which files the failed instant touched: its markers (``.hoodie/.temp/{instant}``) plus a listing —
  base files named with the instant; table version ≥ 8: log files named with it; version 6: log files
  holding a block whose INSTANT_TIME is the instant.
* A ``rollback`` instant is recorded: ``{rb}.rollback.requested`` holds the ``HoodieRollbackPlan``,
  ``{rb}.rollback.inflight`` is empty, the completed ``{rb}.rollback`` holds the
  ``HoodieRollbackMetadata`` (Avro in both layouts, as Hudi writes them).
* Execution: base files of the instant are deleted. Version 6 writes a ROLLBACK command block
  targeting the instant to each file group it appended to (in a new log version, as Hudi does on local
  disk, which it never appends to; the readers then drop the failed blocks) and keeps the log files;
  version 8 deletes the instant's log files.
* Then the failed instant's requested / inflight files and markers are deleted, and the rollback
  completes. A rollback interrupted half-way is finished by :func:`rollback_pending` (the plan is in
  its requested file; every step is idempotent).
* A plan read back from the timeline (an interrupted rollback's, or one another tool left) is checked whole
  before anything changes (:func:`contained_plan`, docs/security.md): every path it names stays in the table
  and out of ``.hoodie``, its target is an instant time and a timeline action.
* Concurrency (docs/concurrency.md): an instant whose heartbeat is alive belongs to a live writer and is
  never rolled back (:class:`~hudi_log.table.errors.ConcurrentWriterError`); a rollback runs under the
  table lock when one is configured and keeps a heartbeat of its own, so that an interrupted rollback is
  finished only once its process is gone.
* Failed writes (:func:`rollback_failed_writes`, Java's ``rollbackFailedWrites``): the pending commits,
  delta commits and replace commits (not compactions, log compactions or clusterings), by the policy
  ``hoodie.cleaner.policy.failed.writes``: EAGER rolls back every one whose writer is gone and stops at a
  live one, LAZY rolls back those whose heartbeat expired and leaves live ones be, NEVER none.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import fastavro

from ...containment import file_name, within_table
from ...paths import as_path, full_path_text
from ...format.reader import open_log
from ...format.framing import rollback_block
from ...format.log_file_name import make_write_token
from ...log.writer import FIRST_NO_APPEND_TABLE_VERSION, LogWriter
from ...log.storage import BackgroundSyncs, Storage
from ..concurrency.config import EAGER, NEVER, ConcurrencyConfig, concurrency_config
from ..concurrency.heartbeat import Heartbeat, delete_heartbeat, heartbeat_age, is_expired, reserve_instant
from ..concurrency.lock import TableLock
from ..metadata_table import guard_change
from ..metadata.writer import check_metadata_partitions, sync_metadata_table
from ..timeline import commit_metadata as cm
from ..view.file_system_view import list_partitions, parse_base_file_name, parse_log_file_name
from ..markers import delete_markers, delete_work_dir, read_markers
from ..properties import TableProperties, read_properties
from ..timeline.timeline import (
    COMPACTION, KNOWN_ACTIONS, ROLLBACK, WRITE_ACTIONS, Instant, Timeline,
    TimelineError,
)
from ..timeline.pending import incomplete_commits, is_pending_clustering
from ..timeline.writer import TimelineWriteError, TimelineWriter
from ..errors import ConcurrentWriterError, RollbackError
from .options import resolve_service_options

ROLLBACKABLE_ACTIONS = WRITE_ACTIONS - {COMPACTION}


def table_storage(table_path, syncs: BackgroundSyncs | None = None, cache_listings: bool = False) -> Storage:
    """Storage for a table's log files, on local disk or the table's object store (paths as the table
    spells them: :meth:`Storage.for_path`). Hudi's ``StorageSchemes.FILE`` does not append (only
    HDFS-like schemes do), nor does any object store, so every writer opens a new log version.
    ``syncs``: the fsyncs run in the background until it waits (a write task, before it reports);
    ``cache_listings``: see :class:`Storage` (a write task's)."""
    return Storage.for_path(table_path, supports_append=False, syncs=syncs, cache_listings=cache_listings)


def _partition_dir(table_path: Path, partition: str, source) -> Path:
    return within_table(table_path, partition, source=source, field="partition", timeline=False)


def _failed_files(table_path: Path, props: TableProperties, instant: str):
    """{(partition, file_id): {"base": [...], "logs": [...], "base_instant": str}} of ``instant``."""
    markers = read_markers(table_path, instant)
    partitions = sorted({p for p, _, _ in markers}) or list_partitions(table_path)
    found: dict[tuple[str, str], dict] = {}

    def group(part: str, file_id: str, base_instant: str) -> dict:
        return found.setdefault((part, file_id), {"base": [], "logs": [], "base_instant": base_instant})
    for part in partitions:
        folder = _partition_dir(table_path, part, f"markers of {instant}")
        if not folder.is_dir():
            continue
        for p in sorted(folder.iterdir()):
            if not p.is_file():
                continue
            if p.name.startswith(".") and p.name.endswith(".tmp") and f"_{instant}.parquet." in p.name:
                # a base file the instant was still writing (written aside, never renamed into place)
                tmp_of = parse_base_file_name(p.with_name(p.name[1:].split(".parquet.")[0] + ".parquet"))
                if tmp_of is not None and tmp_of.instant == instant:
                    group(part, tmp_of.file_id, instant)["base"].append(p)
                continue
            bf = parse_base_file_name(p)
            if bf is not None:
                if bf.instant == instant:
                    group(part, bf.file_id, instant)["base"].append(p)
                continue
            lf = parse_log_file_name(p)
            if lf is None:
                continue
            if lf.is_cdc:
                # a CDC log (a COW merge's changes, hudi_log.table.write.cdc_log) is a new file named with
                # the writing instant, never appended to: deleted with the instant's base files
                if lf.instant == instant:
                    group(part, lf.file_id, instant)["base"].append(p)
                continue
            if props.version >= FIRST_NO_APPEND_TABLE_VERSION:
                hit = lf.instant == instant
            else:
                hit = any(b.instant_time == instant for b in open_log(p) if not b.corrupt)
            if hit:
                e = group(part, lf.file_id, lf.instant)
                e["logs"].append(p)
                e["base_instant"] = lf.instant
    return found


def _plan(table_path: Path, props: TableProperties, target: Instant, found) -> dict:
    requests = []

    full = full_path_text
    for (part, fid), e in sorted(found.items()):
        to_delete = [full(p) for p in e["base"]]
        log_blocks = None
        if props.version >= FIRST_NO_APPEND_TABLE_VERSION:
            to_delete += [full(p) for p in e["logs"]]
        elif e["logs"]:
            log_blocks = {full(p): p.stat().st_size for p in e["logs"]}
        requests.append({"partitionPath": part, "fileId": fid, "latestBaseInstant": e["base_instant"],
                         "filesToBeDeleted": to_delete, "logBlocksToBeDeleted": log_blocks})
    return {"instantToRollback": {"commitTime": target.requested_time, "action": target.action},
            "RollbackRequests": requests}


def contained_plan(table_path: Path, plan: dict, source) -> dict:
    """{path as the plan writes it: path in the table} of every file and folder a ``HoodieRollbackPlan`` names,
    each through the containment rule, and its target checked to be an instant of the timeline's own naming:
    a planted plan (a rollback file another tool, a restored backup or an attacker left) is refused with
    :class:`~hudi_log.containment.PathOutsideTableError` (or :class:`RollbackError`) before anything changes."""
    target = plan.get("instantToRollback") or {}
    when, action = target.get("commitTime"), target.get("action")
    if not isinstance(when, str) or not when.isdigit() or not when.isascii():
        raise RollbackError(source, f"instantToRollback.commitTime: {when!r} is not an instant time (remove or "
                            "repair that file)")
    if action not in KNOWN_ACTIONS:
        raise RollbackError(source, f"instantToRollback.action: {action!r} is not a timeline action (remove or "
                            "repair that file)")
    out: dict = {}
    for n, req in enumerate(plan.get("RollbackRequests") or []):
        where = f"RollbackRequests[{n}]"
        part = req.get("partitionPath") or ""
        out[part] = within_table(table_path, part, source=source, field=f"{where}.partitionPath", timeline=False)
        for key in ("fileId", "latestBaseInstant"):
            if req.get(key) is not None:
                file_name(table_path, req[key], source=source, field=f"{where}.{key}")
        for key in ("filesToBeDeleted", "logBlocksToBeDeleted"):
            for f in req.get(key) or ():
                out[f] = within_table(table_path, f, source=source, field=f"{where}.{key}", timeline=False)
    return out


def _execute(table_path: Path, props: TableProperties, plan: dict, rb_instant: str, source) -> dict:
    paths = contained_plan(table_path, plan, source)  # before the first change
    target = plan["instantToRollback"]["commitTime"]
    partitions: dict[str, dict] = {}
    deleted = 0
    token = make_write_token(0, int(rb_instant[-5:]), 1)  # never a write's token (attempt 0)
    for req in plan.get("RollbackRequests") or []:
        part = req.get("partitionPath") or ""
        pm = partitions.setdefault(part, {"partitionPath": part, "successDeleteFiles": [], "failedDeleteFiles": [],
                                          "rollbackLogFiles": None, "logFilesFromFailedCommit": None})
        for f in req.get("filesToBeDeleted") or []:
            try:
                paths[f].unlink()
            except FileNotFoundError:
                pass  # deleted by an earlier, interrupted run of this rollback
            except OSError:
                pm["failedDeleteFiles"].append(f)
                continue
            pm["successDeleteFiles"].append(f)
            deleted += 1
        logs = req.get("logBlocksToBeDeleted")
        if logs:
            writer = LogWriter(str(paths[part]), req["fileId"], req["latestBaseInstant"],
                               table_version=props.version, write_token=token, storage=table_storage(table_path))
            try:
                result = writer.append_blocks([rollback_block(rb_instant, target)])
            finally:
                writer.close()
            pm["rollbackLogFiles"] = {result.path: as_path(result.path).stat().st_size}
            pm["logFilesFromFailedCommit"] = dict(logs)
    return {"partitionMetadata": partitions, "totalFilesDeleted": deleted}


def _read_plan(path: Path) -> dict:
    raw = path.read_bytes()
    if not raw:
        return {}
    try:
        recs = list(fastavro.reader(io.BytesIO(raw)))
    except Exception as e:  # noqa: BLE001 - any decoding failure is a damaged plan
        raise RollbackError(path, f"corrupt rollback plan: {e} (remove or repair that file)") from e
    return recs[0] if recs else {}


def _finish(table_path: Path, props: TableProperties, tw: TimelineWriter, plan: dict, rb_instant: str,
            started: float, keep_requested: bool = False) -> Instant:
    source = tw.folder / f"{rb_instant}.{ROLLBACK}.requested"
    contained_plan(table_path, plan, source)  # a planted plan changes nothing, not even the rollback's state
    tw.inflight(ROLLBACK, rb_instant)
    result = _execute(table_path, props, plan, rb_instant, source)
    target = plan["instantToRollback"]
    if keep_requested:  # a table service's plan stays, to be run again (only its inflight goes)
        (tw.folder / tw._pending_names(target["action"], target["commitTime"])[1]).unlink(missing_ok=True)
    else:
        tw.remove_pending(target["action"], target["commitTime"])
    delete_markers(table_path, target["commitTime"])
    delete_work_dir(table_path, target["commitTime"])  # a deferred index's tasks stop waiting
    metadata = {
        "startRollbackTime": rb_instant,
        "timeTakenInMillis": int((time.time() - started) * 1000),
        "totalFilesDeleted": result["totalFilesDeleted"],
        "commitsRollback": [target["commitTime"]],
        "partitionMetadata": result["partitionMetadata"],
        "instantsRollback": [{"commitTime": target["commitTime"], "action": target["action"]}],
    }
    sync_metadata_table(table_path, rb_instant, ROLLBACK, metadata, None)  # the metadata table first
    done = tw.complete(ROLLBACK, rb_instant, metadata)
    return done


def rollback_to_requested(table_path: Path, props: TableProperties, target: Instant,
                          config: ConcurrencyConfig) -> Instant:
    """Roll back an inflight table service whose run died (Java's ``rollbackInflightCompaction`` and
    ``rollbackInflightClustering``): its files go, a rollback instant records it, and the instant returns to
    requested, its plan kept to run again.
    The caller holds the table lock and has checked that no live process runs it. A rollback of it that an
    earlier recovery left pending (killed inside it) is finished instead of a new one planned, as Java reuses
    it (``getPendingRollbackInfo``)."""
    tw = TimelineWriter(table_path, props)
    stale = [i for i in rollbacks_of(Timeline(table_path, props), target.requested_time) if not i.is_completed]
    if stale:
        rb_instant = stale[0].requested_time
        plan = _read_plan(tw.folder / f"{rb_instant}.{ROLLBACK}.requested")
        beat = Heartbeat(table_path, rb_instant, config).start()
    else:
        rb_instant, beat = reserve_instant(table_path, tw, config)
    try:
        if not stale:
            plan = _plan(table_path, props, target, _failed_files(table_path, props, target.requested_time))
            tw.requested(ROLLBACK, rb_instant, cm.rollback_plan_avro(plan))
        return _finish(table_path, props, tw, plan, rb_instant, time.time(), keep_requested=True)
    finally:
        beat.stop()


def undo_instant_files(table_path: Path, props: TableProperties, target: Instant, rb_instant: str) -> dict:
    """Undo the files ``target`` (pending or completed) wrote, as one rollback ``rb_instant`` of a restore
    does (Java's restore runs its rollbacks without publishing them): the same plan and execution as
    :func:`rollback`; returns the ``HoodieRollbackMetadata`` the restore records for it."""
    started = time.time()
    plan = _plan(table_path, props, target, _failed_files(table_path, props, target.requested_time))
    result = _execute(table_path, props, plan, rb_instant, f"rollback {rb_instant} of a restore")
    delete_markers(table_path, target.requested_time)
    return {"startRollbackTime": rb_instant, "timeTakenInMillis": int((time.time() - started) * 1000),
            "totalFilesDeleted": result["totalFilesDeleted"], "commitsRollback": [target.requested_time],
            "partitionMetadata": result["partitionMetadata"], "version": 1,
            "instantsRollback": [{"commitTime": target.requested_time, "action": target.action}]}


def failed_write_candidates(timeline: Timeline) -> list[Instant]:
    """Pending instants a failed-writes rollback may take (Java's commits timeline, less compaction and
    clustering): commits, delta commits and replace commits."""
    return incomplete_commits(timeline)


def rollbacks_of(timeline: Timeline, instant: str) -> list[Instant]:
    """Rollback instants (pending or completed) that target ``instant``."""
    found = []
    for inst in timeline.instants:
        if inst.action != ROLLBACK or inst.requested_time <= instant:
            continue  # a rollback of an instant is always requested after it
        req = timeline.folder / f"{inst.requested_time}.{ROLLBACK}.requested"
        targets: set[str] = set()
        try:
            plan = _read_plan(req) if req.exists() else {}
            if plan.get("instantToRollback"):
                targets.add(plan["instantToRollback"].get("commitTime"))
            if inst.is_completed:
                targets.update(timeline.commit_metadata(inst).get("commitsRollback") or [])
        except (OSError, ValueError, TimelineError, RollbackError):
            continue
        if instant in targets:
            found.append(inst)
    return found


def live_writer_error(timeline: Timeline, table_path: Path, inst: Instant, what: str) -> ConcurrentWriterError:
    age = heartbeat_age(table_path, inst.requested_time)
    return ConcurrentWriterError(
        inst.path or timeline.folder,
        f"{inst.action} {inst.requested_time} is {inst.state.lower()} and its writer is alive (heartbeat "
        f"{age:.1f} s old): {what}; wait for it to finish, or for its heartbeat to expire if it died")


def rollback_failed_writes(path, config: ConcurrencyConfig | None = None) -> list[Instant]:
    """Java's ``rollbackFailedWrites``: finish interrupted rollbacks whose process is gone, then roll back
    failed writes by ``config.failed_writes`` (see the module docstring); the rollbacks done."""
    config = config or concurrency_config(None)
    table_path = as_path(path)
    props = read_properties(table_path)
    done: list[Instant] = []
    if config.failed_writes == NEVER:
        return done
    with TableLock(table_path, config):
        timeline = Timeline(table_path, props)  # read under the lock: what another process did is seen
        tw = TimelineWriter(table_path, props)
        plans = []
        for inst in timeline.pending():
            if inst.action != ROLLBACK or not is_expired(table_path, inst.requested_time, config):
                continue
            req = timeline.folder / f"{inst.requested_time}.{ROLLBACK}.requested"
            plan = _read_plan(req) if req.exists() else {}
            if plan.get("instantToRollback"):
                contained_plan(table_path, plan, req)  # every plan checked before any is acted on
            plans.append((inst, plan))
        for inst, plan in plans:
            if not plan.get("instantToRollback"):
                tw.remove_pending(ROLLBACK, inst.requested_time)  # nothing was planned: drop it
                continue
            target = timeline.instant(plan["instantToRollback"]["commitTime"])
            # a compaction's or clustering's rollback returns it to requested (rollback_to_requested): its plan stays
            keep = target is not None and (target.action == COMPACTION or is_pending_clustering(timeline, target))
            try:
                done.append(_finish(table_path, props, tw, plan, inst.requested_time, time.time(), keep_requested=keep))
            except TimelineWriteError:
                # without a lock: its own process completed it since we looked (and dropped its heartbeat)
                if Timeline(table_path, props).is_pending(inst.requested_time):
                    raise
                continue
            delete_heartbeat(table_path, inst.requested_time)
        timeline = Timeline(table_path, props)
        for inst in failed_write_candidates(timeline):
            if not is_expired(table_path, inst.requested_time, config):
                if config.failed_writes == EAGER:
                    raise live_writer_error(timeline, table_path, inst, "a single writer (failed writes policy "
                                            "EAGER) does not start beside it; concurrent writers need "
                                            "hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL")
                continue  # LAZY: a concurrent writer, not a failed one
            try:
                done.append(rollback(table_path, inst.requested_time, config=config, force=True))
            except RollbackError:
                if not Timeline(table_path, props).is_pending(inst.requested_time):
                    continue  # it completed (or was rolled back) meanwhile: not ours to undo
                raise
    return done


def rollback(path, instant: str, *, options=None, config: ConcurrencyConfig | None = None,
             force: bool = False) -> Instant:
    """Roll back the pending write ``instant``; returns the completed ``rollback`` instant. An instant whose
    heartbeat is alive is refused (its writer is running) unless ``force`` (its own writer aborting)."""
    options = resolve_service_options(path, options)
    started = time.time()
    config = config or concurrency_config(options)
    table_path = as_path(path)
    props = guard_change(table_path, read_properties(table_path), options, "the rollback")
    check_metadata_partitions(table_path, props, options)
    with TableLock(table_path, config):
        timeline = Timeline(table_path, props)
        target = timeline.instant(str(instant))
        if target is None:
            raise RollbackError(timeline.folder, f"no instant {instant} on the timeline")
        if target.is_completed:
            raise RollbackError(target.path or timeline.folder,
                                f"instant {instant} ({target.action}) is completed; only failed (pending) writes "
                                "are rolled back here (`hudi-log commit rollback PATH INSTANT` rolls back the latest "
                                "completed write)")
        if target.action not in ROLLBACKABLE_ACTIONS:
            raise RollbackError(target.path or timeline.folder,
                                f"instant {instant} is a pending {target.action}, not a write")
        if not force and not is_expired(table_path, target.requested_time, config):
            raise live_writer_error(timeline, table_path, target, "it is not rolled back")
        tw = TimelineWriter(table_path, props)
        rb_instant, beat = reserve_instant(table_path, tw, config)
        try:
            plan = _plan(table_path, props, target, _failed_files(table_path, props, target.requested_time))
            tw.requested(ROLLBACK, rb_instant, cm.rollback_plan_avro(plan))
            done = _finish(table_path, props, tw, plan, rb_instant, started)
        finally:
            beat.stop()
        delete_heartbeat(table_path, target.requested_time)
        return done
