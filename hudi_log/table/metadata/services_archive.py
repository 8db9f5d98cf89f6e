"""Which metadata-table instants Java's archiver would archive (``HoodieTimelineArchiver`` on the metadata
table, with the archival config of ``HoodieMetadataWriteUtils.createMetadataWriteConfig``).

* Keep bounds: the data table's ``hoodie.keep.min.commits`` / ``hoodie.keep.max.commits`` (20 / 30), each
  plus one. With more completed commits (commit, deltacommit, replacecommit) than the max, the oldest
  (count − min) are candidates.
* Never an instant at or after the data table's earliest commit (any state) or its earliest pending instant
  (any action) (``TimelineUtils.getEarliestInstantForMetadataArchival``): the metadata table's record of
  a data commit still on the data timeline must stay, since a rollback of that commit is undone through it
  (``HoodieTableMetadataUtil.processRollbackMetadata``).
* Never the deltacommits the next compaction still counts, nor anything after the latest compaction when
  fewer than ``hoodie.metadata.compact.max.delta.commits`` came since
  (``CompactionUtils.getOldestInstantToRetainForCompaction``).

hudi-log decides this here; the metadata table's archive itself (its LSM history from table version 8 on,
the ``archived`` log of version 6) is written by the services layer's archivers, which sit above this one.
"""

from __future__ import annotations

from typing import Mapping

from ..metadata_files import metadata_path
from ..properties import read_properties
from ..timeline.timeline import WRITE_ACTIONS, Instant, Timeline
from .services import deltacommits_since_last_compaction, max_delta_commits

KEEP_MIN, KEEP_MAX = "hoodie.keep.min.commits", "hoodie.keep.max.commits"
DEFAULT_KEEP_MIN, DEFAULT_KEEP_MAX = 20, 30  # HoodieArchivalConfig


def _keep(options: Mapping | None, data_props) -> tuple[int, int]:
    def get(key: str, default: int) -> int:
        return int((options or {}).get(key) or data_props.get(key) or default)

    return get(KEEP_MIN, DEFAULT_KEEP_MIN) + 1, get(KEEP_MAX, DEFAULT_KEEP_MAX) + 1


def archival_bound(data: Timeline, meta: Timeline, max_commits: int) -> str | None:
    """The instant time no archived metadata instant may reach (None: no bound)."""
    bounds = []
    commits = [i for i in data.instants if i.action in WRITE_ACTIONS]
    if commits:
        bounds.append(commits[0].requested_time)
    if data.pending():
        bounds.append(data.pending()[0].requested_time)
    deltas = deltacommits_since_last_compaction(meta)
    compactions = [i for i in meta.completed() if i.action == "commit"]
    if len(deltas) < max_commits:
        keep = compactions[-1] if compactions else (deltas[0] if deltas else None)
    else:
        keep = deltas[len(deltas) - max_commits]
    if keep is not None:
        bounds.append(keep.requested_time)
    return min(bounds) if bounds else None


def metadata_instants_to_archive(table_path, options: Mapping | None = None) -> list[Instant]:
    """The completed metadata instants Java would archive now, oldest first."""
    root = metadata_path(table_path)
    props, data_props = read_properties(root), read_properties(table_path)
    meta, data = Timeline(root, props), Timeline(table_path, data_props)
    keep_min, keep_max = _keep(options, data_props)
    commits = meta.completed_commits()
    if len(commits) <= keep_max:
        return []
    bound = archival_bound(data, meta, max_delta_commits(options))
    candidates = commits[:len(commits) - keep_min]
    return [i for i in candidates if bound is None or i.requested_time < bound]
