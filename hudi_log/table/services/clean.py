"""Cleaning: delete the file slices no query of the last N commits needs (Hudi's KEEP_LATEST_COMMITS
policy, ``CleanPlanner`` / ``CleanerUtils`` / ``CleanActionExecutor``), or, by ``hoodie.cleaner.policy``,
all but the latest N versions of each file group (KEEP_LATEST_FILE_VERSIONS) or what the commits of the
last N hours need (KEEP_LATEST_BY_HOURS).

* Earliest commit to retain (ECTR): with more than N completed commits (commit, deltacommit,
  replacecommit; a compaction completes as commit), the (count − N)-th oldest completed one — but never
  later than the earliest pending write or compaction (then the last completed one before it).
  With ≤ N completed commits nothing is cleaned.
* Per file group (all its slices, newest first), a slice is deleted (base file and log files) when its
  base instant is older than the ECTR, unless it is the group's latest slice, or the latest slice older
  than the ECTR (a query reading as of the ECTR still needs it), or a pending compaction of the group
  still needs it (base instant ≥ the planned operation's base instant).
* A slice holding a file some savepoint lists is never deleted (``CleanPlanner``'s savepointed files).
* File groups replaced (insert_overwrite, clustering) by a replacecommit older than the ECTR are deleted
  whole.
* KEEP_LATEST_BY_HOURS (``hoodie.cleaner.hours.retained``, default 24): the ECTR is the first completed
  commit requested at or after now − N hours (in the table's timeline time zone); then as above. With no
  commit that recent nothing is cleaned. Java caps only KEEP_LATEST_COMMITS by pending writes.
* KEEP_LATEST_FILE_VERSIONS (``hoodie.cleaner.fileversions.retained``, default 3): per file group, the
  slices a pending compaction needs are kept and count as one version; of the rest (newest first) the
  first N are kept and the others deleted, savepointed ones excepted. Every replaced file group is deleted
  whole (no ECTR: the plan's ``earliestInstantToRetain`` is null, the metadata's ``""``).
* The timeline: ``{ts}.clean.requested`` and ``{ts}.clean.inflight`` hold a ``HoodieCleanerPlan`` (Avro,
  plan version 2: ``filePathsToBeDeletedPerPartition`` with full paths), then the files are deleted, then
  the completed ``{ts}.clean`` (``{ts}_{completion}.clean`` in layout 2) holds a ``HoodieCleanMetadata``
  (Avro in both layouts, as Hudi writes it; version 2; file *names* per partition).
* A pending plan's paths go through the containment rule (docs/security.md) before any clean or rollback
  runs: one naming a file outside the table is refused, naming the plan file and field.
* Nothing to delete → no clean instant (we do not write Hudi's optional empty clean commits).
* A clean found pending (a killed run) is executed from its plan before a new one is planned; files
  already gone count as deleted. Where another writer may be live and its heartbeat is fresh, the clean
  stops instead, naming it (recovery.py).
"""

from __future__ import annotations

import datetime
import io
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import fastavro

from ...containment import relative_in_table, within_table
from ...paths import as_path, is_uri
from ..concurrency.config import LAZY, concurrency_config
from ..concurrency.heartbeat import Heartbeat, reserve_instant
from ..concurrency.lock import TableLock
from ..metadata_table import guard_change
from ..metadata.writer import check_metadata_partitions, sync_metadata_table
from ..timeline import commit_metadata as cm
from .compaction import pending_compactions
from .recovery import claim_pending
from .rollback import rollback_failed_writes
from .savepoint import savepointed_files
from ..view.file_system_view import parse_base_file_name, parse_log_file_name
from ..timeline.pending import pending_plans
from ..properties import TableError
from ..read.query import HudiTable
from ..timeline.timeline import CLEAN, REPLACE_COMMIT, WRITE_ACTIONS, Instant, Timeline
from ..timeline.writer import format_instant
from ..timeline.writer import TimelineWriter
from ..timeline.clean_plan import CLEAN_METADATA_SCHEMA, CLEANER_PLAN_SCHEMA  # noqa: F401 (archive.py imports them here)
from ..timeline.clean_plan import earliest_commit_to_retain  # noqa: F401 (part of this module's API)

from .options import (  # noqa: F401  (POLICIES: part of this module's API)
    KEEP_LATEST_BY_HOURS, KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS, POLICIES, resolve_service_options,
)

POLICY = KEEP_LATEST_COMMITS  # the default (hoodie.cleaner.policy)
PLAN_VERSION = 2
METADATA_VERSION = 2
DEFAULT_RETAIN_COMMITS = 10  # hoodie.cleaner.commits.retained
DEFAULT_RETAIN_VERSIONS = 3  # hoodie.cleaner.fileversions.retained
DEFAULT_RETAIN_HOURS = 24  # hoodie.cleaner.hours.retained
#: each policy's option and what it retains
POLICY_OPTIONS = {KEEP_LATEST_COMMITS: "hoodie.cleaner.commits.retained",
                  KEEP_LATEST_FILE_VERSIONS: "hoodie.cleaner.fileversions.retained",
                  KEEP_LATEST_BY_HOURS: "hoodie.cleaner.hours.retained"}


class CleanError(TableError):
    """A clean cannot be planned or run."""


def _full_path(p) -> str:
    """A file's path as Hudi records it in a plan: ``file:/...`` on local disk, the URI on an object store."""
    return str(p) if is_uri(p) else f"file:{p}"


@dataclass(frozen=True)
class CleanerPolicy:
    """A cleaning policy and how much it retains (``hoodie.cleaner.policy`` and its ``*.retained``)."""
    policy: str = KEEP_LATEST_COMMITS
    retained: int = DEFAULT_RETAIN_COMMITS  # commits, file versions or hours, by the policy


def cleaner_policy(path, options: Mapping | None = None, policy: str | None = None,
                   retained: int | None = None, labels: Mapping[str, str] | None = None) -> CleanerPolicy:
    """The policy from explicit arguments, else ``hoodie.cleaner.*`` options, else Java's defaults. The
    options are resolved as every entry point resolves them (:mod:`.options`): an argument and an option that
    disagree (named by ``labels``: the CLI's flags), an unknown policy or a malformed count raise
    :class:`~.options.OptionError`; a retained count below 1 raises CleanError."""
    names = {"hoodie.cleaner.policy": "policy", **{k: "retained" for k in POLICY_OPTIONS.values()}, **(labels or {})}
    opts = resolve_service_options(path, options, {"hoodie.cleaner.policy": policy}, names)
    name = str(opts.get("hoodie.cleaner.policy") or POLICY).upper()
    key = POLICY_OPTIONS[name]
    if isinstance(retained, bool):
        raise CleanError(path, f"{key} must be a positive whole number, not {retained!r}")
    value = resolve_service_options(path, opts, {key: retained}, names).get(key)
    default = {KEEP_LATEST_COMMITS: DEFAULT_RETAIN_COMMITS, KEEP_LATEST_FILE_VERSIONS: DEFAULT_RETAIN_VERSIONS,
               KEEP_LATEST_BY_HOURS: DEFAULT_RETAIN_HOURS}[name]
    n = default if value is None else int(value)
    if n < 1:
        raise CleanError(path, f"{key} must be a positive whole number, not {value!r}")
    return CleanerPolicy(name, n)


@dataclass(frozen=True)
class CleanPlan:
    """What one clean deletes: {partition: [relative file paths]} and the commit it retains from (None under
    KEEP_LATEST_FILE_VERSIONS)."""
    instant: str
    earliest_commit_to_retain: Instant | None
    last_completed_commit: str
    files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # paths relative to the table
    policy: str = POLICY

    def to_bytes(self, table_path: Path) -> bytes:
        root = as_path(table_path).resolve()
        e = self.earliest_commit_to_retain
        return cm.avro_container(CLEANER_PLAN_SCHEMA, {
            "earliestInstantToRetain": e and {"timestamp": e.requested_time, "action": e.action, "state": e.state},
            "lastCompletedCommitTimestamp": self.last_completed_commit, "policy": self.policy,
            "filesToBeDeletedPerPartition": {}, "version": PLAN_VERSION,
            "filePathsToBeDeletedPerPartition": {
                p: [{"filePath": _full_path(root / rel), "isBootstrapBaseFile": False} for rel in rels]
                for p, rels in self.files.items()},
            "partitionsToBeDeleted": [], "extraMetadata": {}})

    @classmethod
    def from_bytes(cls, instant: str, data: bytes, table_path: Path, path=None) -> "CleanPlan":
        try:
            r = next(iter(fastavro.reader(io.BytesIO(data))))
        except Exception as e:  # noqa: BLE001 - any decoding failure is a corrupt plan
            raise CleanError(path or table_path, f"corrupt cleaner plan: {e}") from e
        # every path through the containment rule, before the clean deletes anything (a planted plan)
        source = path or f"clean plan {instant}"
        files = {}
        for part, infos in (r.get("filePathsToBeDeletedPerPartition") or {}).items():
            where = f"filePathsToBeDeletedPerPartition[{part!r}]"
            within_table(table_path, part, source=source, field=where, timeline=False)
            files[part] = tuple(relative_in_table(table_path, (info or {}).get("filePath"), source=source,
                                                  field=f"{where}.filePath", timeline=False) for info in infos)
        e = r.get("earliestInstantToRetain")
        return cls(instant, e and Instant(e.get("timestamp", ""), e.get("action", ""), e.get("state", "COMPLETED")),
                   r.get("lastCompletedCommitTimestamp") or "", files, r.get("policy") or POLICY)


def _now(utc: bool) -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc) if utc else datetime.datetime.now()


def earliest_commit_by_hours(timeline: Timeline, timezone: str | None, hours: int,
                             now: datetime.datetime | None = None) -> Instant | None:
    """``CleanerUtils.getEarliestCommitToRetain`` for KEEP_LATEST_BY_HOURS: the first completed commit
    requested at or after now − ``hours``, now read in the timeline's time zone (UTC or local) as instant
    times are written."""
    now = now or _now(str(timezone or "LOCAL").upper() == "UTC")
    threshold = format_instant(now - datetime.timedelta(hours=hours))
    return next((i for i in timeline.completed_commits() if i.requested_time >= threshold), None)


def _doomed(slices, policy: CleanerPolicy, e: str | None, needed: str | None) -> list:
    """The slices (newest first) of one file group the policy deletes, before the savepoint check."""
    if policy.policy == KEEP_LATEST_FILE_VERSIONS:
        # the slices a pending compaction needs are kept, and count as one version kept
        rest = [s for s in slices if needed is None or s.base_instant < needed]
        return rest[max(policy.retained - (needed is not None), 0):]
    latest = slices[0].base_instant
    before_ectr = next((s.base_instant for s in slices if s.base_instant < e), None)
    return [s for s in slices if s.base_instant not in (latest, before_ectr) and s.base_instant < e
            and not (needed is not None and s.base_instant >= needed)]


def plan_clean(table: HudiTable, retain_commits: int = DEFAULT_RETAIN_COMMITS, policy: CleanerPolicy | None = None
               ) -> tuple[Instant | None, dict[str, list[str]]]:
    """The ECTR (None under KEEP_LATEST_FILE_VERSIONS) and {partition: relative paths to delete} (empty
    when nothing is to be cleaned). ``policy`` overrides ``retain_commits``."""
    policy = policy or CleanerPolicy(KEEP_LATEST_COMMITS, retain_commits)
    timeline = table.timeline
    if policy.policy == KEEP_LATEST_FILE_VERSIONS:
        ectr = None
    else:
        ectr = (earliest_commit_by_hours(timeline, table.properties.get("hoodie.table.timeline.timezone"),
                                         policy.retained) if policy.policy == KEEP_LATEST_BY_HOURS
                else earliest_commit_to_retain(timeline, policy.retained))
        if ectr is None:
            return None, {}
    e = ectr.requested_time if ectr else None
    pending_ops = {(op.partition, op.file_id): op.base_instant
                   for plan in pending_compactions(table).values() for op in plan.operations}
    view = table.view()
    kept = savepointed_files(timeline)
    out: dict[str, list[str]] = {}

    def add(partition, path: Path):
        out.setdefault(partition, []).append(str(path.relative_to(table.path)))

    for partition, groups in view.file_groups.items():
        for g in groups:
            slices = list(reversed(g.slices))  # newest first, as Hudi walks them
            if not slices:
                continue
            for s in _doomed(slices, policy, e, pending_ops.get((partition, g.file_id))):
                names = {f.path.name for f in ([s.base_file] if s.base_file else []) + list(s.log_files)}
                if names & kept.get(partition, set()):
                    continue  # a savepoint keeps the slice
                if s.base_file is not None:
                    add(partition, s.base_file.path)
                for lf in s.log_files:
                    add(partition, lf.path)
    # file groups replaced before the ECTR: every file of the group
    replaced: dict[str, set[str]] = {}
    folders = {}
    for inst in timeline.completed():
        if inst.action == REPLACE_COMMIT and (e is None or inst.requested_time < e):
            for part, ids in (timeline.commit_metadata(inst).get("partitionToReplaceFileIds") or {}).items():
                folders[part or ""] = within_table(table.path, part or "", source=inst.path or inst.file_name,
                                                   field="partitionToReplaceFileIds", timeline=False)
                replaced.setdefault(part or "", set()).update(ids or [])
    for partition, ids in replaced.items():
        folder = folders[partition]
        if not folder.is_dir():
            continue
        for p in sorted(folder.iterdir()):
            f = parse_base_file_name(p) or parse_log_file_name(p)
            if f is not None and f.file_id in ids and p.name not in kept.get(partition, set()):
                add(partition, p)
    return ectr, {p: sorted(set(v)) for p, v in out.items() if v}


def _delete(table_path: Path, plan: CleanPlan) -> dict[str, dict]:
    per_partition = {}
    for part, rels in plan.files.items():
        ok, failed = [], []
        for rel in rels:
            p = table_path / rel
            try:
                p.unlink()
                ok.append(p.name)
            except FileNotFoundError:
                ok.append(p.name)  # a re-run after a kill: already deleted
            except OSError:
                failed.append(p.name)
        per_partition[part] = {"partitionPath": part, "policy": plan.policy,
                               "deletePathPatterns": [Path(r).name for r in rels],
                               "successDeleteFiles": ok, "failedDeleteFiles": failed, "isPartitionDeleted": False}
    return per_partition


def _execute(table: HudiTable, tw: TimelineWriter, plan: CleanPlan, started: float) -> str:
    partitions = _delete(table.path, plan)
    metadata = {
        "policy": plan.policy, "startCleanTime": plan.instant,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "totalFilesDeleted": sum(len(m["successDeleteFiles"]) for m in partitions.values()),
        "earliestCommitToRetain": plan.earliest_commit_to_retain.requested_time if plan.earliest_commit_to_retain
        else "",
        "lastCompletedCommitTimestamp": plan.last_completed_commit, "partitionMetadata": partitions,
        "version": METADATA_VERSION, "bootstrapPartitionMetadata": {}, "extraMetadata": {}}
    sync_metadata_table(table.path, plan.instant, CLEAN, metadata, None)  # the metadata table commits first
    tw.complete(CLEAN, plan.instant, cm.avro_container(CLEAN_METADATA_SCHEMA, metadata))
    return plan.instant


def _pending(table: HudiTable) -> list[tuple[Instant, Path, bytes, CleanPlan]]:
    """The pending cleans with their plans, every one read and contained before any is run."""
    return [(inst, req, data, CleanPlan.from_bytes(inst.requested_time, data, table.path, req))
            for inst, req, data in pending_plans(table.timeline, CLEAN, CleanError)]


def _finish_pending(table: HudiTable, tw: TimelineWriter, config) -> list[str]:
    """Execute every pending clean plan, oldest first (Java's ``CleanActionExecutor`` runs them before it
    plans a new one): a killed run's, unless another writer may be live and its heartbeat is fresh
    (recovery.py). The cleans completed."""
    done = []
    for inst, req, data, plan in _pending(table):
        claim_pending(table.path, inst.requested_time, inst.state, "clean", config, inst.path or req)
        beat = Heartbeat(table.path, inst.requested_time, config).start()  # this run's now (the dead one's goes)
        try:
            if inst.state != "INFLIGHT":
                tw.inflight(CLEAN, inst.requested_time, data)
            done.append(_execute(table, tw, plan, time.monotonic()))
        finally:
            beat.stop()
    return done


def clean(path, retain_commits: int | None = None, options: Mapping | None = None,
          policy: CleanerPolicy | None = None) -> str | None:
    """:func:`clean_all`, answering with the last clean it completed (None: nothing was to be deleted and
    no clean was pending)."""
    done = clean_all(path, retain_commits, options, policy)
    return done[-1] if done else None


def clean_all(path, retain_commits: int | None = None, options: Mapping | None = None,
              policy: CleanerPolicy | None = None) -> list[str]:
    """Clean the table keeping what the last ``retain_commits`` commits need (or what ``policy`` keeps, or
    the ``hoodie.cleaner.*`` options say, :func:`cleaner_policy`; an argument and an option disagreeing is
    an error, as Java's): every clean instant completed,
    in order, pending ones first (a killed run's plan, executed as it was planned), then a new one (none
    when nothing is to be deleted). Under LAZY failed-writes cleaning (optimistic concurrency) it first
    rolls back the writes whose heartbeat expired, as Java's clean does. The clean runs under the table
    lock, if any, with a heartbeat of its own."""
    if retain_commits is not None and (not isinstance(retain_commits, int) or isinstance(retain_commits, bool)
                                       or retain_commits < 1):
        raise CleanError(path, f"retain_commits must be a positive int, not {retain_commits!r}")
    options = resolve_service_options(path, options, {POLICY_OPTIONS[KEEP_LATEST_COMMITS]: retain_commits},
                                      {POLICY_OPTIONS[KEEP_LATEST_COMMITS]: "retain_commits"})
    chosen = cleaner_policy(path, options)
    if policy is not None and policy != chosen:  # the options name the policy too: they must agree
        cleaner_policy(path, options, policy.policy, policy.retained)
    policy = policy or chosen
    config = concurrency_config(options)
    table = HudiTable(path)
    guard_change(path, table.properties, options, "the clean")  # before the rollbacks change files
    check_metadata_partitions(path, table.properties, options)
    _pending(table)  # a planted plan is refused before the rollbacks change anything
    if config.failed_writes == LAZY:
        rollback_failed_writes(path, config)
    with TableLock(path, config):
        table = HudiTable(path)
        tw = TimelineWriter(table.path, table.properties)
        finished = _finish_pending(table, tw, config)
        if finished:
            table = HudiTable(path)
        started = time.monotonic()
        ectr, files = plan_clean(table, policy.retained, policy)
        if not files:
            return finished
        last = table.timeline.latest_completed_commit()
        instant, beat = reserve_instant(table.path, tw, config)
        try:
            plan = CleanPlan(instant, ectr, last.requested_time if last else "",
                             {p: tuple(v) for p, v in files.items()}, policy.policy if policy else POLICY)
            data = plan.to_bytes(table.path)
            tw.requested(CLEAN, instant, data)
            tw.inflight(CLEAN, instant, data)
            return finished + [_execute(table, tw, plan, started)]
        finally:
            beat.stop()


__all__ = ["CleanError", "CleanPlan", "CleanerPolicy", "clean", "clean_all", "cleaner_policy", "earliest_commit_by_hours",
           "earliest_commit_to_retain", "plan_clean"]
