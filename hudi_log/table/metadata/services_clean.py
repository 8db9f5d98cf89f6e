"""The metadata table's own clean (``HoodieBackedTableMetadataWriter.cleanIfNecessary`` with the metadata
write config of ``HoodieMetadataWriteUtils``).

* Policy KEEP_LATEST_COMMITS, retaining 20 commits (``DEFAULT_METADATA_CLEANER_COMMITS_RETAINED``; the
  option ``hoodie.metadata.cleaner.commits.retained``, a 0.x setting, overrides it here): the earliest commit
  to retain is the data clean's rule over the metadata timeline (:func:`earliest_commit_to_retain`); per file
  group, a slice whose base instant is older than it is deleted unless it is the group's latest slice or the
  latest slice older than it (a read as of that commit still needs it), or a pending compaction plans it.
* Not within 3 completed instants after the latest metadata compaction: a reader may have opened the
  compacted slice's log files just before the compaction completed.
* The clean instant: ``{t}.clean.requested`` / ``.inflight`` (``HoodieCleanerPlan``, full paths), the files
  deleted, then the completed ``clean`` (``HoodieCleanMetadata``). Its time: a new instant time from
  version 8 on (Hudi 1.x ``writeClient.clean()``); version 6, the latest deltacommit's time with ``002``
  appended (Hudi 0.14's ``clean(instantTime + "002")``). Nothing to delete: no clean instant.
"""

from __future__ import annotations

import time
from typing import Mapping

from ...paths import full_path_text
from ..metadata_files import metadata_path
from ..properties import read_properties
from ..timeline import commit_metadata as cm
from ..timeline.clean_plan import CLEAN_METADATA_SCHEMA, CLEANER_PLAN_SCHEMA, earliest_commit_to_retain
from ..timeline.timeline import CLEAN, COMMIT, DELTA_COMMIT, Timeline
from ..timeline.writer import TimelineWriter
from ..view.file_system_view import FileSystemView

RETAINED_OPTION = "hoodie.metadata.cleaner.commits.retained"
DEFAULT_RETAINED = 20  # HoodieMetadataConfig.DEFAULT_METADATA_CLEANER_COMMITS_RETAINED
POLICY = "KEEP_LATEST_COMMITS"
CLEAN_AFTER_COMPACTION_INSTANTS = 3
_PLAN_VERSION = _METADATA_VERSION = 2


def retained_commits(options: Mapping | None) -> int:
    from .services import MetadataServiceError

    raw = (options or {}).get(RETAINED_OPTION, DEFAULT_RETAINED)
    try:
        n = int(raw)
    except (TypeError, ValueError):
        raise MetadataServiceError(RETAINED_OPTION, f"{raw!r} is not a whole number") from None
    if n < 1:
        raise MetadataServiceError(RETAINED_OPTION, f"{n} is not positive")
    return n


def too_soon_after_compaction(meta: Timeline) -> bool:
    """Java's guard: fewer than 3 completed instants requested after the latest completed compaction."""
    done = [i for i in meta.completed() if i.action == COMMIT]
    if not done:
        return False
    last = done[-1].requested_time
    return sum(1 for i in meta.completed() if i.requested_time > last) < CLEAN_AFTER_COMPACTION_INSTANTS


def plan_metadata_clean(table_path, retain: int = DEFAULT_RETAINED):
    """(earliest commit to retain, {partition: [file paths to delete]}) for the metadata table."""
    root = metadata_path(table_path)
    props = read_properties(root)
    meta = Timeline(root, props)
    ectr = earliest_commit_to_retain(meta, retain)
    if ectr is None:
        return None, {}
    e = ectr.requested_time
    planned = {(p, f) for inst in meta.pending_compactions()
               for p, fs in (meta.compaction_plan_file_ids(inst) or {}).items() for f in fs}
    view = FileSystemView(root, props, meta)
    out: dict[str, list] = {}
    for part in sorted(view.partitions):
        for g in view.file_groups.get(part, []):
            slices = list(reversed(g.slices))  # newest first
            if len(slices) < 2:
                continue
            latest = slices[0].base_instant
            before = next((s.base_instant for s in slices if s.base_instant < e), None)
            for s in slices:
                if s.base_instant in (latest, before) or s.base_instant >= e:
                    continue
                if (part, g.file_id) in planned and s is slices[-1]:
                    continue
                files = ([s.base_file.path] if s.base_file else []) + [lf.path for lf in s.log_files]
                out.setdefault(part, []).extend(files)
    return ectr, out


def clean_if_necessary(table_path, options: Mapping | None = None) -> list[str]:
    """Clean the metadata table when Java would (module docstring); one line per clean done."""
    root = metadata_path(table_path)
    props = read_properties(root)
    meta = Timeline(root, props)
    if too_soon_after_compaction(meta):
        return []
    ectr, files = plan_metadata_clean(table_path, retained_commits(options))
    if not files:
        return []
    tw = TimelineWriter(root, props)
    if props.version >= 8:
        instant = tw.new_instant_time()
    else:
        deltas = [i for i in meta.completed() if i.action == DELTA_COMMIT]
        instant = deltas[-1].requested_time + "002"
    last_done = meta.completed_commits()[-1].requested_time
    started = time.monotonic()
    plan = cm.avro_container(CLEANER_PLAN_SCHEMA, {
        "earliestInstantToRetain": {"timestamp": ectr.requested_time, "action": ectr.action, "state": ectr.state},
        "lastCompletedCommitTimestamp": last_done, "policy": POLICY, "filesToBeDeletedPerPartition": {},
        "version": _PLAN_VERSION,
        "filePathsToBeDeletedPerPartition": {
            p: [{"filePath": full_path_text(f), "isBootstrapBaseFile": False} for f in fs] for p, fs in files.items()},
        "partitionsToBeDeleted": [], "extraMetadata": {}})
    tw.requested(CLEAN, instant, plan)
    tw.inflight(CLEAN, instant, plan)
    partitions = {}
    for p, fs in files.items():
        ok = []
        for f in fs:
            f.unlink(missing_ok=True)
            ok.append(f.name)
        partitions[p] = {"partitionPath": p, "policy": POLICY, "deletePathPatterns": [f.name for f in fs],
                         "successDeleteFiles": ok, "failedDeleteFiles": [], "isPartitionDeleted": False}
    tw.complete(CLEAN, instant, cm.avro_container(CLEAN_METADATA_SCHEMA, {
        "policy": POLICY, "startCleanTime": instant, "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "totalFilesDeleted": sum(len(m["successDeleteFiles"]) for m in partitions.values()),
        "earliestCommitToRetain": ectr.requested_time, "lastCompletedCommitTimestamp": last_done,
        "partitionMetadata": partitions, "version": _METADATA_VERSION, "bootstrapPartitionMetadata": {},
        "extraMetadata": {}}))
    n = sum(len(fs) for fs in files.values())
    return [f"cleaned the metadata table at {instant}: {n} files of slices before {ectr.requested_time}"]
