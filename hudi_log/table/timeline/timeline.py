"""The active timeline: instants in ``.hoodie`` (layout 1) or ``.hoodie/timeline`` (layout 2).

File names (Apache Hudi ``InstantFileNameGenerator``/``InstantFileNameParser`` v1 and v2):

* requested ``{ts}.{action}.requested``; inflight ``{ts}.{action}.inflight``; completed layout 1
  ``{ts}.{action}``, layout 2 ``{ts}_{completionTs}.{action}``.
* Specials: a commit's inflight is ``{ts}.inflight``; compaction and log compaction complete as
  ``commit``/``deltacommit`` (``{ts}.compaction.requested`` → ``{ts}.commit``); clustering
  (layout 2) is ``{ts}.clustering.requested/.inflight`` and completes as ``replacecommit``.
* Archived (``archived/``) and LSM history (``timeline/history``) instants are not listed: reads use
  the active timeline, as Hudi's readers do, and take a write instant older than the first completed one
  as committed (Java's ``containsOrBeforeTimelineStarts``), so archived slices stay readable.
* A savepoint has the time of the commit it keeps: instants are keyed by (time, action), as Java's are.

Instants are ordered as Hudi's ``InstantComparator`` does: requested time, then state
(requested < inflight < completed); a compaction/clustering instant compares as its completed action.
Completion time: from the file name in layout 2. Layout 1 names carry none; Hudi (1.x reading a
layout-1 timeline) takes the completed instant file's modification time, formatted as an instant in the
table's timeline timezone (``hoodie.table.timeline.timezone``, default local) — so do we. Reads of
layout-1 (table version 6) tables never depend on it: slices are assigned by the base instant in log
file names, uncommitted blocks are skipped by instant membership, and incremental windows compare
``_hoodie_commit_time`` with requested times, as Hudi's v6 incremental relation does.

Commit metadata: JSON in layout 1, an Avro object container (``HoodieCommitMetadata`` /
``HoodieReplaceCommitMetadata``) in layout 2. Both are returned as plain dicts with the same keys
(``partitionToWriteStats``, ``partitionToReplaceFileIds``, ``extraMetadata``, ``operationType`` ...).
"""

from __future__ import annotations

import datetime
import io
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from ...paths import as_path
from ..properties import TableError, TableProperties
from .commit_metadata import write_metadata_problem

REQUESTED, INFLIGHT, COMPLETED = "REQUESTED", "INFLIGHT", "COMPLETED"
_STATE_ORDER = {REQUESTED: 0, INFLIGHT: 1, COMPLETED: 2}

COMMIT, DELTA_COMMIT, REPLACE_COMMIT = "commit", "deltacommit", "replacecommit"
COMPACTION, LOG_COMPACTION, CLUSTERING = "compaction", "logcompaction", "clustering"
ROLLBACK, CLEAN, SAVEPOINT, RESTORE, INDEXING = "rollback", "clean", "savepoint", "restore", "indexing"
SCHEMA_COMMIT = "schemacommit"
KNOWN_ACTIONS = {COMMIT, DELTA_COMMIT, REPLACE_COMMIT, COMPACTION, LOG_COMPACTION, CLUSTERING, ROLLBACK, CLEAN,
                 SAVEPOINT, RESTORE, INDEXING, SCHEMA_COMMIT}
# actions whose completed instants write data files ("commits timeline")
WRITE_ACTIONS = {COMMIT, DELTA_COMMIT, REPLACE_COMMIT, COMPACTION, LOG_COMPACTION, CLUSTERING}
# pending action → the action it completes as
_COMPLETES_AS = {COMPACTION: COMMIT, LOG_COMPACTION: DELTA_COMMIT, CLUSTERING: REPLACE_COMMIT}

_TS = r"\d+"
_COMPLETED_V2 = re.compile(rf"^({_TS})_({_TS})\.([a-z]+)$")
_COMPLETED_V1 = re.compile(rf"^({_TS})\.([a-z]+)$")
_PENDING = re.compile(rf"^({_TS})\.([a-z]+)\.(requested|inflight)$")
_COMMIT_INFLIGHT = re.compile(rf"^({_TS})\.inflight$")


class TimelineError(TableError):
    """An instant file of the timeline cannot be read (for example a corrupt commit file)."""


@dataclass(frozen=True)
class Instant:
    requested_time: str
    action: str
    state: str
    completion_time: str | None = None
    file_name: str = field(default="", compare=False)
    path: Path | None = field(default=None, compare=False, repr=False)

    @property
    def timestamp(self) -> str:
        return self.requested_time

    @property
    def is_completed(self) -> bool:
        return self.state == COMPLETED

    def sort_key(self):
        return (self.requested_time, _STATE_ORDER[self.state], _COMPLETES_AS.get(self.action, self.action))

    def to_dict(self) -> dict:
        return {"instant": self.requested_time, "action": self.action, "state": self.state,
                "completion_time": self.completion_time, "file": self.file_name}


def comparable_action(action: str) -> str:
    """The action an instant completes as (Java's ``HoodieInstant.getComparableAction``)."""
    return _COMPLETES_AS.get(action, action)


def parse_instant_file_name(name: str, path: Path | None = None) -> Instant | None:
    """The instant a timeline file name stands for, or None for files that are not instants."""
    m = _COMPLETED_V2.match(name)
    if m and m.group(3) in KNOWN_ACTIONS:
        return Instant(m.group(1), m.group(3), COMPLETED, m.group(2), name, path)
    m = _COMPLETED_V1.match(name)
    if m and m.group(2) in KNOWN_ACTIONS:
        return Instant(m.group(1), m.group(2), COMPLETED, None, name, path)
    m = _COMMIT_INFLIGHT.match(name)
    if m:
        return Instant(m.group(1), COMMIT, INFLIGHT, None, name, path)
    m = _PENDING.match(name)
    if m and m.group(2) in KNOWN_ACTIONS:
        return Instant(m.group(1), m.group(2), REQUESTED if m.group(3) == "requested" else INFLIGHT, None, name, path)
    return None


class Timeline:
    """The active timeline: every instant at its latest state."""

    def __init__(self, table_path, props: TableProperties):
        self.table_path = as_path(table_path)
        self.props = props
        self.folder = props.timeline_folder(self.table_path)
        self.all_files: list[Instant] = []
        utc = props.get("hoodie.table.timeline.timezone", "LOCAL").upper() == "UTC"
        if self.folder.is_dir():
            for p in self.folder.iterdir():
                if p.is_file():
                    inst = parse_instant_file_name(p.name, p)
                    if inst is not None:
                        if inst.is_completed and inst.completion_time is None:
                            inst = replace(inst, completion_time=_mtime_instant(p, utc))
                        self.all_files.append(inst)
        # latest state of each (requested time, action): a savepoint shares its commit's time, as
        # Java's timeline keys instants by time and (comparable) action
        latest: dict[tuple[str, str], Instant] = {}
        for inst in sorted(self.all_files, key=Instant.sort_key):
            latest[(inst.requested_time, _COMPLETES_AS.get(inst.action, inst.action))] = inst
        self.instants: list[Instant] = sorted(latest.values(), key=Instant.sort_key)
        self._metadata_cache: dict[str, dict] = {}

    # --- views -----------------------------------------------------------------------------
    def completed(self) -> list[Instant]:
        return [i for i in self.instants if i.is_completed]

    def pending(self) -> list[Instant]:
        return [i for i in self.instants if not i.is_completed]

    def completed_commits(self) -> list[Instant]:
        """Completed instants that wrote data (commit, deltacommit, replacecommit)."""
        return [i for i in self.completed() if i.action in WRITE_ACTIONS]

    def completed_commit_times(self) -> set[str]:
        return {i.requested_time for i in self.completed_commits()}

    def pending_commit_times(self) -> set[str]:
        return {i.requested_time for i in self.pending() if i.action in WRITE_ACTIONS}

    def timeline_start(self) -> str | None:
        """The first completed write instant: Java's ``isBeforeTimelineStarts`` takes every instant before
        it as committed (archived), which is how slices written by archived instants stay visible."""
        c = self.completed_commits()
        return c[0].requested_time if c else None

    def savepoints(self) -> list[Instant]:
        return [i for i in self.completed() if i.action == SAVEPOINT]

    def latest_completed_commit(self) -> Instant | None:
        c = self.completed_commits()
        return c[-1] if c else None

    def completion_time(self, requested_time: str) -> str | None:
        for i in self.instants:
            if i.requested_time == requested_time and i.is_completed:
                return i.completion_time or i.requested_time
        return None

    def instant(self, requested_time: str) -> Instant | None:
        for i in self.instants:
            if i.requested_time == requested_time:
                return i
        return None

    def is_pending(self, requested_time: str) -> bool:
        """The instant is on the timeline and not completed (not gone, not finished by anyone)."""
        inst = self.instant(requested_time)
        return inst is not None and not inst.is_completed

    # --- metadata -----------------------------------------------------------------------------
    def commit_metadata(self, instant: Instant) -> dict:
        """Parsed metadata of a completed instant (JSON in layout 1, Avro in layout 2); a write instant's
        of the wrong shape is a :class:`TimelineError` naming its file
        (:func:`~hudi_log.table.timeline.commit_metadata.write_metadata_problem`)."""
        key = instant.file_name
        if key in self._metadata_cache:
            return self._metadata_cache[key]
        path = instant.path or (self.folder / instant.file_name)
        md = read_instant_metadata(path)
        problem = write_metadata_problem(md) if instant.action in WRITE_ACTIONS and instant.is_completed else None
        if problem is not None:
            raise TimelineError(path, f"commit metadata of the wrong shape: {problem} (repair or remove the "
                                      f"file; `hudi-log validate --table` lists every such file)")
        self._metadata_cache[key] = md
        return md

    def pending_compactions(self, as_of: str | None = None) -> list[Instant]:
        """Compactions requested (or inflight) at or before ``as_of`` and not yet completed."""
        return [i for i in self.pending() if i.action == COMPACTION and (as_of is None or i.requested_time <= as_of)]

    def compaction_plan_file_ids(self, instant: Instant) -> dict[str, set[str]] | None:
        """{partition: file ids} of a compaction plan (``.compaction.requested``, an Avro
        ``HoodieCompactionPlan``); None when the plan cannot be read (e.g. an empty requested file)."""
        path = self.folder / f"{instant.requested_time}.{COMPACTION}.requested"
        try:
            md = read_instant_metadata(path)
        except TimelineError:
            return None
        ops = md.get("operations") if isinstance(md, dict) else None
        if not ops:
            return None
        out: dict[str, set[str]] = {}
        for op in ops:
            if op.get("fileId"):
                out.setdefault(op.get("partitionPath") or "", set()).add(op["fileId"])
        return out

    def replaced_file_ids(self, as_of: str | None = None) -> dict[str, set[str]]:
        """{partition: file ids} replaced by completed replacecommits at or before ``as_of``."""
        out: dict[str, set[str]] = {}
        for inst in self.completed():
            if inst.action != REPLACE_COMMIT or (as_of is not None and inst.requested_time > as_of):
                continue
            md = self.commit_metadata(inst)
            for part, ids in (md.get("partitionToReplaceFileIds") or {}).items():
                out.setdefault(part or "", set()).update(ids or [])
        return out


def _mtime_instant(path: Path, utc: bool) -> str | None:
    """A file's modification time as an instant (yyyyMMddHHmmssSSS)."""
    try:
        ms = path.stat().st_mtime_ns // 1_000_000
    except OSError:
        return None
    tz = datetime.timezone.utc if utc else None
    t = datetime.datetime.fromtimestamp(ms / 1000, tz)
    return t.strftime("%Y%m%d%H%M%S") + f"{ms % 1000:03d}"


def read_instant_metadata(path: Path) -> dict:
    try:
        raw = as_path(path).read_bytes()
    except OSError as e:
        raise TimelineError(path, f"cannot read instant file: {e.strerror or e}") from e
    return parse_instant_metadata(raw, path)


def parse_instant_metadata(raw: bytes, path) -> dict:
    """An instant file's content (Avro container or JSON) as a dict; ``path`` names it in errors."""
    if not raw.strip():
        return {}
    if raw[:4] == b"Obj\x01":
        try:
            import fastavro
            recs = list(fastavro.reader(io.BytesIO(raw)))
        except Exception as e:  # noqa: BLE001 - any decoding failure is a corrupt commit file
            raise TimelineError(path, f"corrupt commit metadata (Avro): {e}") from e
        return recs[0] if recs else {}
    try:
        md = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TimelineError(path, f"corrupt commit metadata (neither Avro nor JSON): {e}") from e
    if not isinstance(md, dict):
        raise TimelineError(path, "corrupt commit metadata: not a JSON object")
    return md


def load_timeline(table_path, props: TableProperties) -> Timeline:
    return Timeline(table_path, props)
