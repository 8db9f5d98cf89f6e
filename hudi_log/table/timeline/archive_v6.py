"""Reading the archive of tables below version 8 (timeline layout 1), as Hudi 0.x's ``HoodieArchivedTimeline``
reads it: ``.hoodie/{hoodie.archivelog.folder}`` (default ``archived``) holds ``.commits_.archive.N_1-0-1``
log files whose Avro data blocks carry ``HoodieArchivedMetaEntry`` records, one per archived instant file
(``commitTime``, ``actionType``, ``actionState`` and the metadata in the field of its action).

It sits in the timeline layer, below the table services that write it (:mod:`hudi_log.table.services.archive`),
because readers need archived commits too: an incremental range that reaches them checks their files
(:mod:`hudi_log.table.read.incremental`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ...format.grammar import BlockType
from ...format.log_file_name import ARCHIVE_EXTENSION, LogFileName, LogFileNameError
from ...format.reader import open_log
from ..properties import TableProperties
from .timeline import CLEAN, COMMIT, COMPACTION, COMPLETED, DELTA_COMMIT, REPLACE_COMMIT, ROLLBACK, SAVEPOINT

#: the ``HoodieArchivedMetaEntry`` field holding each action's metadata
METADATA_FIELD = {COMMIT: "hoodieCommitMetadata", DELTA_COMMIT: "hoodieCommitMetadata", CLEAN: "hoodieCleanMetadata",
                  ROLLBACK: "hoodieRollbackMetadata", SAVEPOINT: "hoodieSavePointMetadata",
                  COMPACTION: "hoodieCompactionPlan", REPLACE_COMMIT: "hoodieReplaceCommitMetadata"}
_STATE_ORDER = {"REQUESTED": 0, "INFLIGHT": 1, COMPLETED: 2}


@dataclass(frozen=True)
class ArchivedRecord:
    """One record of the v6 archive: an instant file that was on the active timeline."""
    commit_time: str
    action: str
    state: str
    file: str  # the archive file holding it
    metadata: Mapping = field(default_factory=dict, compare=False, repr=False)


def archive_folder(table_path, props: TableProperties) -> Path:
    """``.hoodie/{hoodie.archivelog.folder}``."""
    return props.meta_folder(table_path, "hoodie.archivelog.folder", "archived")


def archive_files(table_path, props: TableProperties) -> list[Path]:
    """The archive's log files, in version order."""
    folder = archive_folder(table_path, props)
    files = []
    if folder.is_dir():
        for p in folder.iterdir():
            try:
                lf = LogFileName.parse(p.name)
            except LogFileNameError:
                continue
            if lf.extension == ARCHIVE_EXTENSION:
                files.append((lf.version, p))
    return [p for _, p in sorted(files)]


def read_v6_archive(table_path, props: TableProperties) -> list[ArchivedRecord]:
    """Every record of the archive, oldest instant first (requested, inflight, completed for each)."""
    out = []
    for p in archive_files(table_path, props):
        for block in open_log(p):
            if block.corrupt or block.block_type != BlockType.avro_data_block:
                continue
            for r in block.records():
                action = r.get("actionType") or ""
                md = r.get(METADATA_FIELD.get(action, "")) or r.get("hoodieCleanerPlan") or {}
                out.append(ArchivedRecord(r.get("commitTime") or "", action, r.get("actionState") or COMPLETED,
                                          p.name, md))
    return sorted(out, key=lambda a: (a.commit_time, _STATE_ORDER.get(a.state, 3)))


__all__ = ["METADATA_FIELD", "ArchivedRecord", "archive_files", "archive_folder", "read_v6_archive"]
