"""Timeline archival for table version 8+: Apache Hudi 1.x's ``TimelineArchiverV2`` writing the LSM
timeline with ``LSMTimelineWriter`` (layout read back by :mod:`hudi_log.table.timeline.lsm_history`).

Which instants (``TimelineArchiverV2.getCommitInstantsToArchive`` / ``getInstantsToArchive``), where 1.x
differs from the 0.14 rules of :mod:`.archive`:

* ``hoodie.keep.min.commits`` / ``max`` are first raised as ``ArchivalUtils.getMinAndMaxInstantsToKeep``
  does: when the cleaner (KEEP_LATEST_COMMITS, ``hoodie.cleaner.commits.retained``, default 10) would
  retain from commit E, min becomes at least (completed commits after E) + 2, and max keeps its distance
  above min. Archival never takes what a clean with the table's settings still needs.
* Completed commits (commit, deltacommit, replacecommit; compactions complete as commit): more than max
  → the oldest (count − min), only those before the same bounds as 0.14 (the last completed commit before
  the oldest pending write, compaction scheduling's delta commits on MERGE_ON_READ, the first replace
  commit the last clean has not passed) and before the first savepoint.
* Cleans and rollbacks are not counted on their own any more: the completed ones requested before the last
  commit archived go with it. Savepoints stay on the active timeline.
* A table with a metadata table is refused / skipped, as for version 6.

What is written (``MetadataConversionUtils.createLSMTimelineInstant`` from an ``ActiveAction``: the
requested, inflight and completed files of one action): one ``HoodieLSMTimelineInstant`` row per action,
``instantTime`` its requested time, ``completionTime`` the one in the completed file name, ``action`` the
completed action, ``metadata`` the completed file's bytes as they are (null when empty), ``plan`` by the
pending action: a clean's plan (its requested file), a replacecommit's / clustering's requested metadata
overridden by a non-empty inflight one, a compaction's or log compaction's plan; ``version`` 1.

The file ``{first requested}_{last requested}_0.parquet`` (Parquet with the Avro schema in the footer's
``parquet.avro.schema``, as parquet-avro writes it, beside pyarrow's own ``ARROW:schema`` that Java ignores; gzip,
Hudi's default codec), then a new
``manifest_{N+1}`` (Jackson's pretty JSON of ``{"files": [{"fileName", "fileLen"}]}``) and ``_version_``
= N+1. Then the instant files go (pending first, completed oldest first: HUDI-7207). A run killed after
its file is in the manifest finds it there next time and only deletes the instant files; a file not in
the manifest is a leftover and is rewritten (``LSMTimelineWriter.write``).

Then ``compactAndClean``: while a layer holds ``hoodie.timeline.compaction.batch.size`` (10) files or
more, its oldest files (at most that many, at least 2, up to 1 GB together) are merged into one file of
the next layer and a new manifest lists it instead of them; after a compaction, manifests older than the
3 + (layers compacted) latest snapshot versions are deleted with every Parquet file no kept snapshot lists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ...paths import read_parquet, write_replace
from ..timeline.lsm_history import (
    COLUMNS, MANIFEST_PREFIX, VERSION_FILE, HistoryFile, current_files, history_folder, latest_version,
    read_history, read_manifest, snapshot_versions,
)
from ..timeline.timeline import CLEAN, CLUSTERING, COMPACTION, COMPLETED, LOG_COMPACTION, REPLACE_COMMIT, \
    ROLLBACK, Instant, Timeline, comparable_action
from ..properties import TableProperties

INSTANT_SCHEMA = {
    "type": "record", "name": "HoodieLSMTimelineInstant", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "instantTime", "type": ["null", "string"], "default": None},
        {"name": "completionTime", "type": ["null", "string"], "default": None},
        {"name": "action", "type": ["null", "string"], "default": None},
        {"name": "metadata", "type": ["null", "bytes"], "default": None},
        {"name": "plan", "type": ["null", "bytes"], "default": None},
        {"name": "version", "type": "int", "default": 1},
    ],
}
INSTANT_VERSION = 1  # LSMTimeline.LSM_TIMELINE_INSTANT_VERSION_1
DEFAULT_COMPACTION_BATCH = 10  # hoodie.timeline.compaction.batch.size
RETAINED_VERSIONS = 3  # manifests kept after a compaction (LSMTimeline's clean strategy)
TARGET_FILE_MAX_BYTES = 1024 ** 3  # a compaction stops adding files past 1 GB
DEFAULT_CLEANER_RETAINED = 10  # hoodie.cleaner.commits.retained


@dataclass(frozen=True)
class LsmConfig:
    compaction_batch: int = DEFAULT_COMPACTION_BATCH
    cleaner_retained: int = DEFAULT_CLEANER_RETAINED
    cleaner_policy: str = "KEEP_LATEST_COMMITS"

    @classmethod
    def of(cls, options: Mapping | None, where) -> "LsmConfig":
        """The options, checked (:class:`~.archive.ArchiveError` naming the bad one); writes check them
        before they start, since the auto-archive runs after the commit."""
        from .archive import ArchiveError
        o = {str(k): str(v) for k, v in (options or {}).items()}
        try:
            c = cls(int(o.get("hoodie.timeline.compaction.batch.size", DEFAULT_COMPACTION_BATCH)),
                    int(o.get("hoodie.cleaner.commits.retained", DEFAULT_CLEANER_RETAINED)),
                    o.get("hoodie.cleaner.policy", "KEEP_LATEST_COMMITS").upper())
        except ValueError as e:
            raise ArchiveError(where, f"hoodie.timeline.compaction.batch.size and hoodie.cleaner.commits.retained "
                               f"must be integers: {e}") from e
        if c.compaction_batch < 2 or c.cleaner_retained < 1:
            raise ArchiveError(where, "hoodie.timeline.compaction.batch.size must be at least 2 and "
                               "hoodie.cleaner.commits.retained at least 1")
        return c

    def unsupported(self) -> str | None:
        """Why version-8 archival cannot run with these options (None: it can)."""
        if self.cleaner_policy not in ("KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS"):
            # Java raises the kept counts by the hours policy's retained commits; hudi-log does not compute it
            return (f"hoodie.cleaner.policy={self.cleaner_policy} is not supported by version-8 archival "
                    "(KEEP_LATEST_COMMITS or KEEP_LATEST_FILE_VERSIONS)")
        return None


# ---- which instants ------------------------------------------------------------------------------
def keep_bounds(timeline: Timeline, min_commits: int, max_commits: int, lsm: LsmConfig) -> tuple[int, int]:
    """(min, max) to keep after ``ArchivalUtils.getMinAndMaxInstantsToKeep``'s cleaner-based raise."""
    from .clean import earliest_commit_to_retain
    if lsm.cleaner_policy != "KEEP_LATEST_COMMITS":
        return min_commits, max_commits  # KEEP_LATEST_FILE_VERSIONS retains no commit
    ectr = earliest_commit_to_retain(timeline, lsm.cleaner_retained)
    if ectr is None:
        return min_commits, max_commits
    after = sum(1 for c in timeline.completed_commits() if c.requested_time > ectr.requested_time)
    need = after + 2
    if min_commits < need:
        return need, need + max_commits - min_commits
    return min_commits, max_commits


def lsm_instants_to_archive(timeline: Timeline, props: TableProperties, config, lsm: LsmConfig) -> list[Instant]:
    """The completed instants (one per action) ``TimelineArchiverV2`` archives, by requested time."""
    from .archive import retain_bounds
    commits = timeline.completed_commits()
    min_keep, max_keep = keep_bounds(timeline, config.min_commits, config.max_commits, lsm)
    if len(commits) <= max_keep:
        return []
    bounds = retain_bounds(timeline, props, config, commits)
    chosen = [c for c in commits if all(c.requested_time < b for b in bounds)][:len(commits) - min_keep]
    if not chosen:
        return []
    last = chosen[-1].requested_time
    chosen += [i for i in timeline.completed() if i.action in (CLEAN, ROLLBACK) and i.requested_time < last]
    return sorted(chosen, key=Instant.sort_key)


# ---- rows ----------------------------------------------------------------------------------------
def files_of(timeline: Timeline, inst: Instant) -> list[Instant]:
    """Every file of an instant's action (requested, inflight, completed: Java groups by time and comparable
    action), in state order."""
    key = comparable_action(inst.action)
    return sorted((i for i in timeline.all_files if i.requested_time == inst.requested_time
                   and comparable_action(i.action) == key), key=Instant.sort_key)


def _bytes(timeline: Timeline, inst: Instant | None) -> bytes | None:
    if inst is None:
        return None
    data = (inst.path or timeline.folder / inst.file_name).read_bytes()
    return data or None


def lsm_row(timeline: Timeline, files: list[Instant]) -> dict:
    """The ``HoodieLSMTimelineInstant`` of one action (its files, requested → completed)."""
    completed = next(f for f in files if f.state == COMPLETED)
    pending = [f for f in files if f.state != COMPLETED]
    requested = next((f for f in pending if f.state == "REQUESTED"), None)
    inflight = next((f for f in pending if f.state == "INFLIGHT"), None)
    plan = None
    pending_action = pending[0].action if pending else None
    if pending_action == CLEAN:
        plan = _bytes(timeline, pending[0])
    elif pending_action in (REPLACE_COMMIT, CLUSTERING):
        plan = _bytes(timeline, inflight) or _bytes(timeline, requested)
    elif pending_action in (COMPACTION, LOG_COMPACTION):
        req = timeline.folder / f"{completed.requested_time}.{pending_action}.requested"
        plan = req.read_bytes() or None if req.exists() else None
    return {"instantTime": completed.requested_time, "completionTime": completed.completion_time,
            "action": completed.action, "metadata": _bytes(timeline, completed), "plan": plan,
            "version": INSTANT_VERSION}


# ---- files ---------------------------------------------------------------------------------------
def _write_parquet(path: Path, rows: list[dict]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    schema = pa.schema([pa.field("instantTime", pa.string()), pa.field("completionTime", pa.string()),
                        pa.field("action", pa.string()), pa.field("metadata", pa.binary()),
                        pa.field("plan", pa.binary()), pa.field("version", pa.int32(), nullable=False)],
                       metadata={"parquet.avro.schema": json.dumps(INSTANT_SCHEMA, separators=(",", ":")),
                                 "writer.model.name": "avro"})
    table = pa.Table.from_pylist([{c: r.get(c) for c in COLUMNS} for r in rows], schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="gzip")
    write_replace(path, sink.getvalue().to_pybytes())  # temp file + rename on disk, one PUT on a store


def manifest_json(files: list[HistoryFile]) -> str:
    """Jackson's default pretty printer output of a ``HoodieLSMTimelineManifest``."""
    if not files:
        return '{\n  "files" : [ ]\n}'
    entries = ", ".join('{\n    "fileName" : %s,\n    "fileLen" : %d\n  }' % (json.dumps(f.name), f.length)
                        for f in files)
    return '{\n  "files" : [ %s ]\n}' % entries


def _write_immutable(path: Path, text: str) -> None:
    write_replace(path, text.encode("utf-8"))


def update_manifest(folder: Path, remove: list[str], add: str) -> int:
    """``LSMTimelineWriter.updateManifest``: manifest_{N+1} = manifest_N − ``remove`` + ``add``; then _version_."""
    version = latest_version(folder)
    files = [f for f in read_manifest(folder, version) if f.name not in remove]
    files.append(HistoryFile(add, (folder / add).stat().st_size))
    new = 1 if version < 0 else version + 1
    _write_immutable(folder / f"{MANIFEST_PREFIX}{new}", manifest_json(files))
    _write_immutable(folder / VERSION_FILE, str(new))
    return new


def _compact_layer(folder: Path, layer: int, batch: int) -> str | None:
    files = sorted((f for f in current_files(folder) if f.layer == layer), key=lambda f: f.name)
    if len(files) < batch:
        return None
    picked: list[HistoryFile] = []
    total = 0
    for f in files:  # LSMTimelineWriter.getCandidateFiles
        total += f.length
        picked.append(f)
        if len(picked) >= batch:
            break
        if total > TARGET_FILE_MAX_BYTES:
            if len(picked) < 2:
                total, picked = 0, []
            else:
                break
    if len(picked) < 2:
        return None
    name = (f"{min(f.min_instant for f in picked)}_{max(f.max_instant for f in picked)}_"
            f"{picked[0].layer + 1}.parquet")
    rows = [r for f in picked for r in read_parquet(folder / f.name, columns=list(COLUMNS)).to_pylist()]
    _write_parquet(folder / name, rows)
    update_manifest(folder, [f.name for f in picked], name)
    return name


def compact_and_clean(folder: Path, batch: int) -> None:
    """``LSMTimelineWriter.compactAndClean``: compact layer after layer, then clean old snapshots."""
    layer = 0
    while _compact_layer(folder, layer, batch):
        layer += 1
    keep_n = RETAINED_VERSIONS + layer
    versions = snapshot_versions(folder)
    if len(versions) <= keep_n:
        return
    kept = sorted(versions, reverse=True)[:keep_n]
    keep_files = {f.name for v in kept for f in read_manifest(folder, v)}
    for v in versions:
        if v not in kept:
            (folder / f"{MANIFEST_PREFIX}{v}").unlink(missing_ok=True)
    for p in folder.glob("*.parquet"):
        if p.name not in keep_files:
            p.unlink(missing_ok=True)


def archive_lsm(table_path: Path, props: TableProperties, timeline: Timeline, config, options,
                chosen: list[Instant] | None = None) -> list:
    """Archive a version-8+ table's timeline into the LSM history (caller holds the table lock); the
    instant files archived, as :class:`~.archive.ArchivedInstant` records. ``chosen``: these instants (the
    metadata table's, chosen by its own rules), else the archiver's choice."""
    from .archive import ArchivedInstant
    lsm = LsmConfig.of(options, table_path)
    if chosen is None:
        chosen = lsm_instants_to_archive(timeline, props, config, lsm)
    if not chosen:
        return []
    actions = [files_of(timeline, c) for c in chosen]
    folder = history_folder(table_path, props)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{chosen[0].requested_time}_{chosen[-1].requested_time}_0.parquet"
    if name not in {f.name for f in current_files(folder)}:  # else: written by a run killed before deleting
        _write_parquet(folder / name, [lsm_row(timeline, files) for files in actions])
        update_manifest(folder, [], name)
    flat = [f for files in actions for f in files]
    for f in [f for f in flat if f.state != COMPLETED] + sorted(
            (f for f in flat if f.state == COMPLETED), key=Instant.sort_key):
        (f.path or timeline.folder / f.file_name).unlink(missing_ok=True)
    compact_and_clean(folder, lsm.compaction_batch)
    return [ArchivedInstant(f.requested_time, f.action, f.state, name) for f in flat]


def read_lsm_archive(table_path, props: TableProperties) -> list:
    """The archived instants of the LSM history as :class:`~.archive.ArchivedInstant` rows (one per action,
    COMPLETED), with the parsed completed metadata."""
    from .archive import ArchivedInstant
    from ..timeline.timeline import parse_instant_metadata
    out = []
    for r in read_history(table_path, props):
        where = history_folder(table_path, props) / r["file"]
        md = parse_instant_metadata(r.get("metadata") or b"", where)
        out.append(ArchivedInstant(r.get("instantTime") or "", r.get("action") or "", COMPLETED,
                                   r["file"], md, r.get("completionTime")))
    return out


__all__ = ["INSTANT_SCHEMA", "LsmConfig", "archive_lsm", "compact_and_clean", "files_of", "keep_bounds", "lsm_instants_to_archive",
           "lsm_row", "manifest_json", "read_lsm_archive", "update_manifest"]
