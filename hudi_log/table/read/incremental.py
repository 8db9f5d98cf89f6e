"""Incremental reads over cleaned or archived commits: never fewer rows without saying so.

Mirrors Apache Hudi's Spark incremental relations (``IncrementalRelationV1`` and
``MergeOnReadIncrementalRelationV1`` below table version 8; ``MergeOnReadIncrementalRelationV2`` with
``IncrementalQueryAnalyzer`` from 8 on) and their option
``hoodie.datasource.read.incr.fallback.fulltablescan.enable`` (``DataSourceReadOptions.
INCREMENTAL_FALLBACK_TO_FULL_TABLE_SCAN``, default false):

* **The range's commits** (:func:`range_commits`): from 8 on the write instants that completed in
  (begin, end], archived ones of the LSM history included (with their metadata) when ``begin`` is older
  than every active completion, as the analyzer loads them; below 8 the commits requested in (begin, end],
  archived ones of the v6 archive included when ``begin`` is before the active timeline (Java's V1 relation
  leaves those out, silently; their rows are in the snapshot hudi-log reads, so their files are checked
  too). Java reads the latest file of each file group those commits wrote; one the cleaner removed
  fails its read (``HoodieIncrementalPathNotFoundException``, which names the option). hudi-log reads the
  snapshot as of the range's last instant, where a removed slice would read as no rows, so the plan checks
  the same files first (:func:`gone_commits`: per file group, the files of the newest slice the range's
  commits wrote, unless a replace commit up to the range's end moved the group) and, by default, raises
  :class:`~hudi_log.table.errors.IncrementalCommitsGoneError` naming the table, the commits and the option.
* **The fallback** (:func:`incremental_scope`): with the option, Java scans the *latest* snapshot filtered
  by ``_hoodie_commit_time`` when the range starts before the active timeline (archived: from 8 on, any
  archived commit in the range; below 8 also an end before it) or a file of its commits is gone; below 8
  the files checked are the latest per file group (V1), from 8 on every file the commits wrote (V2). The
  filter is ``_hoodie_commit_time`` in the range's instants (8+, ``In``) or in (begin, end] (below 8). A
  row updated after the range carries a later commit time and is not returned: Java's answer too.
* **No meta fields** (``hoodie.populate.meta.fields=false``, or ``_hoodie_commit_time`` in
  ``hoodie.table.meta.fields.exclude.list``): there is no commit time to read by, and Java's ``validate()``
  refuses every incremental query on such a table; so does :func:`check_meta_fields`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Mapping

from ...containment import within_table
from ...paths import RemotePath, as_path
from ..errors import IncrementalCommitsGoneError, QueryError
from ..properties import TableProperties
from ..timeline.commit_metadata import write_stats
from ..timeline.archive_v6 import read_v6_archive
from ..timeline.lsm_history import history_folder, read_history
from ..timeline.timeline import (COMPLETED, CLUSTERING, REPLACE_COMMIT, WRITE_ACTIONS, Timeline,
                                 parse_instant_metadata)
from ..view.file_system_view import BASE_FILE_RE, LOG_FILE_RE

#: Java's option name, taken as it is by the Spark sources; the API's keyword is ``fallback_full_table_scan``
FALLBACK_OPTION = "hoodie.datasource.read.incr.fallback.fulltablescan.enable"
COMMIT_TIME = "_hoodie_commit_time"
#: commits named in full in an error; more are counted
_NAMED = 10


@dataclass(frozen=True)
class RangeCommit:
    """A write instant of an incremental range: requested time, action, its commit metadata."""
    requested_time: str
    action: str
    metadata: Mapping
    archived: bool = False


@dataclass(frozen=True)
class IncrementalScope:
    """What an incremental plan reads: the snapshot ``bound`` (requested time) to merge as of, the commit
    times to keep (``commit_times``, 8+) or the upper end of the (begin, end] window (``window_end``, below 8),
    and whether that is the fallback's scan of the latest snapshot."""
    bound: str | None
    commit_times: frozenset[str] | None
    window_end: str | None
    full_table_scan: bool = False


def fallback_enabled(value) -> bool:
    """The option's value as Java's ``toBoolean`` reads it (anything but "true" is false)."""
    return value is True or str(value).strip().lower() == "true"


def check_meta_fields(table_path, props: TableProperties) -> None:
    """Java's ``validate()``: no incremental query on a table without ``_hoodie_commit_time``."""
    if not props.populate_meta_fields:
        raise QueryError(table_path, "incremental queries are not supported when meta fields are disabled "
                         "(hoodie.populate.meta.fields=false): the rows carry no _hoodie_commit_time to select "
                         "by; read a snapshot instead")
    excluded = {f.strip() for f in (props.get("hoodie.table.meta.fields.exclude.list") or "").split(",")}
    if COMMIT_TIME in excluded:
        raise QueryError(table_path, f"incremental queries are not supported when {COMMIT_TIME} is excluded "
                         "(hoodie.table.meta.fields.exclude.list); read a snapshot instead")


def range_commits(table_path, props: TableProperties, timeline: Timeline, begin: str,
                  end: str | None) -> list[RangeCommit]:
    """The write instants of (begin, end], oldest first by requested time (see the module's docstring)."""
    def within(t: str) -> bool:
        return begin < t and (end is None or t <= end)

    if props.version < 8:
        out = [RangeCommit(i.requested_time, i.action, _metadata(timeline, i))
               for i in timeline.completed_commits() if within(i.requested_time)]
        if _before_timeline(timeline, begin):
            known = {c.requested_time for c in out}
            out += [RangeCommit(r.commit_time, r.action, r.metadata, archived=True)
                    for r in read_v6_archive(table_path, props) if r.state == COMPLETED and r.action in WRITE_ACTIONS
                    and r.commit_time not in known and within(r.commit_time)]
        return sorted(out, key=lambda c: c.requested_time)
    active = timeline.completed_commits()
    out = [RangeCommit(i.requested_time, i.action, _metadata(timeline, i)) for i in active
           if within(i.completion_time or i.requested_time)]
    done = [i.completion_time or i.requested_time for i in active]
    if props.timeline_layout_version >= 2 and (not done or begin < min(done)):
        folder = history_folder(table_path, props)
        known = {c.requested_time for c in out}
        for r in read_history(table_path, props, ("instantTime", "completionTime", "action", "metadata")):
            t = r.get("instantTime")
            if r.get("action") in WRITE_ACTIONS and t and t not in known and within(r.get("completionTime") or t):
                md = parse_instant_metadata(r.get("metadata") or b"", folder / r["file"])
                out.append(RangeCommit(t, r["action"], md or {}, archived=True))
    return sorted(out, key=lambda c: c.requested_time)


def _metadata(timeline: Timeline, inst) -> Mapping:
    return timeline.commit_metadata(inst) or {}


@dataclass(frozen=True)
class _Written:
    rel_path: str
    partition: str
    file_id: str
    instant: str  # the base file's instant, or the log file's
    is_base: bool
    commit: str


def _written(commits: list[RangeCommit]) -> list[_Written]:
    out = []
    for c in commits:
        for s in write_stats(c.metadata):
            rel = s.get("path")
            if not rel:
                continue
            name = PurePosixPath(str(rel)).name
            base, log = BASE_FILE_RE.match(name), LOG_FILE_RE.match(name)
            if base is None and (log is None or log.group(10)):  # CDC logs hold changes, not the rows read here
                continue
            out.append(_Written(str(rel), s.get("partitionPath") or "", s.get("fileId") or "",
                                base.group(3) if base else log.group(2), base is not None, c.requested_time))
    return out


def _replaced(timeline: Timeline, commits: list[RangeCommit], bound: str | None) -> set[tuple[str, str]]:
    """(partition, file id) of the file groups a completed replace commit up to ``bound`` replaced: their
    rows moved to the new groups, which the snapshot as of ``bound`` reads instead."""
    mds = [c.metadata for c in commits if c.action in (REPLACE_COMMIT, CLUSTERING)]
    mds += [_metadata(timeline, i) for i in timeline.completed_commits()
            if i.action in (REPLACE_COMMIT, CLUSTERING) and (bound is None or i.requested_time <= bound)]
    return {(part or "", f) for md in mds for part, ids in (md.get("partitionToReplaceFileIds") or {}).items()
            for f in ids or []}


def _needed(written: list[_Written], replaced: set[tuple[str, str]]) -> list[_Written]:
    """The files of each file group's newest slice among those written: the base file of the greatest
    instant, and the log files from that instant on (older slices' files the newer base file carries)."""
    newest: dict[tuple[str, str], str] = {}
    for w in written:
        if w.is_base:
            key = (w.partition, w.file_id)
            newest[key] = max(newest.get(key, ""), w.instant)
    return [w for w in written if (w.partition, w.file_id) not in replaced
            and w.instant >= newest.get((w.partition, w.file_id), "")]


def _missing(table_path, files: list[_Written]) -> list[_Written]:
    """The files not on storage: a stat each on local disk, one listing per folder on an object store. A
    path leading out of the table is refused (:func:`~hudi_log.containment.within_table`)."""
    root = as_path(table_path)
    where = {w.rel_path: within_table(root, w.rel_path, source=f"commit {w.commit}", field="path",
                                      timeline=False) for w in files}
    if not isinstance(root, RemotePath):
        return [w for w in files if not where[w.rel_path].exists()]
    listed: dict[str, set[str]] = {}
    for w in files:
        folder = where[w.rel_path].parent
        if str(folder) not in listed:
            listed[str(folder)] = {p.name for p in folder.iterdir()} if folder.exists() else set()
    return [w for w in files if where[w.rel_path].name not in listed[str(where[w.rel_path].parent)]]


def gone_commits(table_path, timeline: Timeline, commits: list[RangeCommit], bound: str | None,
                 every_file: bool = False) -> list[str]:
    """Requested times of the range's commits whose rows the snapshot as of ``bound`` cannot give: a file of
    its file group's newest slice in the range is gone. ``every_file``: any file they wrote (Java V2's
    fallback test)."""
    written = _written(commits)
    files = written if every_file else _needed(written, _replaced(timeline, commits, bound))
    lost = _missing(table_path, files)
    # a gone slice also held the rows the range's earlier commits wrote to its file group
    reach = {}
    for w in lost:
        key = (w.partition, w.file_id)
        reach[key] = max(reach.get(key, ""), w.instant)
    return sorted({w.commit for w in lost} | {w.commit for w in written
                                             if w.instant <= reach.get((w.partition, w.file_id), "")})


def _before_timeline(timeline: Timeline, t: str | None) -> bool:
    """Java's ``isBeforeTimelineStarts`` on the completed commits."""
    start = timeline.timeline_start()
    return t is not None and start is not None and t < start


def incremental_scope(table_path, props: TableProperties, timeline: Timeline, begin: str, end: str | None,
                      latest: str | None, fallback: bool = False) -> IncrementalScope:
    """The plan of an incremental query over (begin, end] (``latest``: the latest completed commit's
    requested time): the range read as of its end, or, where that would lose rows, an
    :class:`~hudi_log.table.errors.IncrementalCommitsGoneError` or (``fallback``) the latest snapshot
    filtered by commit time."""
    check_meta_fields(table_path, props)
    commits = range_commits(table_path, props, timeline, begin, end)
    if props.version >= 8:
        times = frozenset(c.requested_time for c in commits)
        bound = commits and max(times) or None
        window_end = None
        archived = any(c.archived for c in commits)
    else:
        times = None
        bound = end if end is not None else latest
        window_end = bound
        archived = _before_timeline(timeline, begin) or _before_timeline(timeline, end)
    if not commits and not archived:
        return IncrementalScope(bound, times, window_end)
    if fallback:
        gone = gone_commits(table_path, timeline, commits, bound, every_file=props.version >= 8)
        if archived or gone:
            return IncrementalScope(latest, times, window_end, full_table_scan=True)
        return IncrementalScope(bound, times, window_end)
    gone = gone_commits(table_path, timeline, commits, bound)
    if gone:
        raise _gone_error(table_path, begin, end, gone, {c.requested_time for c in commits if c.archived})
    return IncrementalScope(bound, times, window_end)


def _gone_error(table_path, begin: str, end: str | None, gone: list[str],
                archived: set[str]) -> IncrementalCommitsGoneError:
    named = ", ".join(t + (" (archived)" if t in archived else "") for t in gone[:_NAMED])
    named += f" and {len(gone) - _NAMED} more" if len(gone) > _NAMED else ""
    msg = (f"incremental query ({begin}, {end or 'latest'}]: the files of commit{'s' if len(gone) > 1 else ''} "
           f"{named} are gone (removed by the cleaner, or lost), so their rows cannot be read as of the range's "
           f"end. Set {FALLBACK_OPTION}=true to read them from a scan of the latest snapshot filtered by "
           "_hoodie_commit_time (rows updated since carry a later commit time and are not returned), or retain "
           "more commits (hoodie.cleaner.commits.retained) so that incremental readers keep up")
    return IncrementalCommitsGoneError(table_path, msg, tuple(gone))


__all__ = ["FALLBACK_OPTION", "IncrementalScope", "RangeCommit", "check_meta_fields",
           "fallback_enabled", "gone_commits", "incremental_scope", "range_commits"]
