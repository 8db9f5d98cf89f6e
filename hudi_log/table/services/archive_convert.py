"""The archived timeline carried across the 6 <-> 8 upgrade and downgrade, as Java's handlers do it
(``UpgradeDowngradeUtils.upgradeToLSMTimeline`` / ``downgradeFromLSMTimeline``, called by
``SevenToEightUpgradeHandler`` and ``EightToSevenDowngradeHandler``).

* Upgrade: the instants of the version-6 archive (``.hoodie/archived``, one record per instant file) are
  written into the LSM history (``.hoodie/timeline/history``) as Java's ``TimelineArchiverV2`` writes them: one
  ``HoodieLSMTimelineInstant`` per completed action, its completed metadata as the version-8 file holds it (an
  Avro container: commit metadata moves from the archive's record to ``HoodieCommitMetadata`` Avro, as the
  active timeline's does), its plan (a clean's plan, a clustering's requested metadata, a compaction's plan)
  and a null completion time (the archive never recorded one: Java's ``LegacyArchivedMetaEntryReader`` reads
  ``stateTransitionTime``, which a 0.x archive leaves null). One Parquet file and a new manifest, the
  instants already in the history left out. The version-6 archive stays where it is (Java does not delete it).
* Downgrade: Java means to "migrate the LSM timeline back to the old archived timeline format" but picks the
  archiver by the table's layout before the downgrade switches it (2), so its run writes the history again
  instead (issue 37's notes). hudi-log does what the handler says: the history's instants that the version-6
  archive does not hold yet (those archived while the table was at version 8) are appended to it as
  ``HoodieArchivedMetaEntry`` records of their completed state (Java's ``MetadataConversionUtils.
  createMetaWrapper``), so a 6 -> 8 -> 6 round trip leaves the archive as it was and a table archived at
  version 8 keeps its archived instants visible at 6.

Both run before ``hoodie.properties`` is switched: a killed upgrade's history goes with the layout-2 folder
the next run settles; a killed downgrade's appended records are found there next time and not written again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ...format.grammar import BlockType
from ...format.reader import open_log
from ...paths import read_parquet
from ..properties import TableProperties
from ..timeline import commit_metadata as cm
from ..timeline.archive_v6 import archive_files, archive_folder
from ..timeline.clustering_plan import REQUESTED_REPLACE_SCHEMA
from ..timeline.lsm_history import COLUMNS, current_files, read_history
from ..timeline.timeline import (
    CLEAN, COMMIT, COMPACTION, COMPLETED, DELTA_COMMIT, REPLACE_COMMIT, ROLLBACK, SAVEPOINT, comparable_action,
)
from .archive import DEFAULT_BATCH, _avro, _commit_record, _write
from .archive_lsm import INSTANT_VERSION, _write_parquet, update_manifest
from .clean import CLEAN_METADATA_SCHEMA, CLEANER_PLAN_SCHEMA
from .compaction import COMPACTION_PLAN_SCHEMA
from .savepoint import SAVEPOINT_METADATA_SCHEMA

#: completed action -> (the archive record's field, the Avro schema of the version-8 file)
COMPLETED_FIELDS = {
    COMMIT: ("hoodieCommitMetadata", cm.COMMIT_METADATA_SCHEMA),
    DELTA_COMMIT: ("hoodieCommitMetadata", cm.COMMIT_METADATA_SCHEMA),
    REPLACE_COMMIT: ("hoodieReplaceCommitMetadata", cm.REPLACE_COMMIT_METADATA_SCHEMA),
    CLEAN: ("hoodieCleanMetadata", CLEAN_METADATA_SCHEMA),
    ROLLBACK: ("hoodieRollbackMetadata", cm.ROLLBACK_METADATA_SCHEMA),
    SAVEPOINT: ("hoodieSavePointMetadata", SAVEPOINT_METADATA_SCHEMA),
}
#: pending action -> (the archive record's plan field, its schema), as the LSM row's ``plan`` holds it
PLAN_FIELDS = {
    CLEAN: ("hoodieCleanerPlan", CLEANER_PLAN_SCHEMA),
    REPLACE_COMMIT: ("hoodieRequestedReplaceMetadata", REQUESTED_REPLACE_SCHEMA),
    COMPACTION: ("hoodieCompactionPlan", COMPACTION_PLAN_SCHEMA),
}


def _v6_records(root: Path, props: TableProperties) -> list[dict]:
    out = []
    for p in archive_files(root, props):
        for block in open_log(p):
            if not block.corrupt and block.block_type == BlockType.avro_data_block:
                out.extend(block.records())
    return out


def _container(schema: Mapping, record) -> bytes | None:
    return cm.avro_container(schema, record) if record else None


def _lsm_rows(records: list[dict]) -> list[dict]:
    """One ``HoodieLSMTimelineInstant`` per completed action of the version-6 archive's records."""
    actions: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        t, a = r.get("commitTime") or "", r.get("actionType") or ""
        actions.setdefault((t, comparable_action(a)), []).append(r)
    rows = []
    for (t, _), recs in sorted(actions.items()):
        done = next((r for r in recs if (r.get("actionState") or COMPLETED) == COMPLETED), None)
        if done is None or done.get("actionType") not in COMPLETED_FIELDS:
            continue  # a pending instant: nothing the history holds
        field, schema = COMPLETED_FIELDS[done["actionType"]]
        plan = None
        for r in recs:
            if r is not done and r.get("actionType") in PLAN_FIELDS:
                pfield, pschema = PLAN_FIELDS[r["actionType"]]
                plan = _container(pschema, r.get(pfield)) or plan
        rows.append({"instantTime": t, "completionTime": None, "action": done["actionType"],
                     "metadata": _container(schema, done.get(field)), "plan": plan, "version": INSTANT_VERSION})
    return rows


def archive_to_history(root: Path, props: TableProperties, folder: Path) -> int:
    """Upgrade: the version-6 archive's completed actions written into the LSM history in ``folder`` (those it
    does not hold already); how many."""
    rows = _lsm_rows(_v6_records(root, props))
    if not rows:
        return 0
    held = set()
    if folder.is_dir() and current_files(folder):
        held = {(r.get("instantTime"), r.get("action")) for r in read_history_folder(folder)}
    rows = [r for r in rows if (r["instantTime"], r["action"]) not in held]
    if not rows:
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{rows[0]['instantTime']}_{rows[-1]['instantTime']}_0.parquet"
    _write_parquet(folder / name, rows)
    update_manifest(folder, [], name)
    return len(rows)


def read_history_folder(folder: Path) -> list[dict]:
    """The rows of the history in ``folder`` (the upgrade's, before ``hoodie.properties`` names it)."""
    return [r for f in current_files(folder) for r in read_parquet(folder / f.name, columns=list(COLUMNS)).to_pylist()]


def history_to_archive(root: Path, props: TableProperties, batch: int = DEFAULT_BATCH) -> int:
    """Downgrade: the LSM history's actions the version-6 archive does not hold, appended to it as records of
    their completed state; how many."""
    held = {(r.get("commitTime"), r.get("actionType")) for r in _v6_records(root, props)
            if (r.get("actionState") or COMPLETED) == COMPLETED}
    records = []
    for r in read_history(root, props):
        t, action = r.get("instantTime") or "", r.get("action") or ""
        if (t, action) in held or action not in COMPLETED_FIELDS:
            continue
        data = r.get("metadata") or b""
        field, _ = COMPLETED_FIELDS[action]
        md = _commit_record(data) if action in (COMMIT, DELTA_COMMIT, REPLACE_COMMIT) else _avro(data)
        records.append({"commitTime": t, "actionType": action, "actionState": COMPLETED, "version": 1, field: md})
    if records:
        _write(archive_folder(root, props), records, batch)
    return len(records)


__all__ = ["COMPLETED_FIELDS", "PLAN_FIELDS", "archive_to_history", "history_to_archive"]
