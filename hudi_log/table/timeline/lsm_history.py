"""Reading the LSM timeline (table version 8+): the archived instants in ``.hoodie/timeline/history``.

Layout, as Apache Hudi 1.x's ``LSMTimeline`` defines it (and the corpus tables' empty ``history`` folders
agree with):

* ``_version_``: the current snapshot version N, a UTF-8 number. When it is missing or unreadable the
  reader takes the greatest N of the ``manifest_N`` files, as Java's ``latestSnapshotVersion`` does.
* ``manifest_N``: a JSON ``HoodieLSMTimelineManifest``: ``{"files": [{"fileName": ..., "fileLen": ...}]}``,
  the Parquet files valid in snapshot N. Files not listed (left by a killed write or awaiting clean) are
  not part of the timeline.
* ``{min}_{max}_{level}.parquet``: rows of the ``HoodieLSMTimelineInstant`` Avro record (instantTime,
  completionTime, action, metadata bytes, plan bytes, version), one per archived action; ``min``/``max``
  are the first and last requested times the file holds, ``level`` its LSM layer (0 for a file written
  by archival, n+1 for a compaction of layer n files).

The active timeline (:mod:`.timeline`) never lists these instants; readers that need them (completion
times of archived delta commits for v8 file slicing, incremental ranges reaching archived instants,
``archived show``) ask here, as Java's ``CompletionTimeQueryViewV2`` and ``ArchivedTimelineV2`` load them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ...errors import DamagedFileError
from ...paths import as_path, read_parquet
from ..properties import TableError, TableProperties

VERSION_FILE = "_version_"
MANIFEST_PREFIX = "manifest_"
MANIFEST_RE = re.compile(r"^manifest_(\d+)$")
HISTORY_FILE_RE = re.compile(r"^(\d+)_(\d+)_(\d+)\.parquet$")
COLUMNS = ("instantTime", "completionTime", "action", "metadata", "plan", "version")


class HistoryError(TableError):
    """The LSM history cannot be read (a manifest or Parquet file listed by it is damaged or missing)."""


@dataclass(frozen=True)
class HistoryFile:
    name: str
    length: int

    @property
    def min_instant(self) -> str:
        return HISTORY_FILE_RE.match(self.name).group(1)

    @property
    def max_instant(self) -> str:
        return HISTORY_FILE_RE.match(self.name).group(2)

    @property
    def layer(self) -> int:
        return int(HISTORY_FILE_RE.match(self.name).group(3))


def history_folder(table_path, props: TableProperties) -> Path | None:
    """``.hoodie/{timeline path}/{history path}`` of a layout-2 table, None for older tables."""
    if props.timeline_layout_version < 2:
        return None
    timeline = props.meta_folder(table_path, "hoodie.timeline.path", "timeline")
    return props.meta_folder(table_path, "hoodie.timeline.history.path", "history", timeline)


def snapshot_versions(folder: Path) -> list[int]:
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for p in folder.iterdir() if (m := MANIFEST_RE.match(p.name)))


def latest_version(folder: Path) -> int:
    """The current snapshot version, -1 when there is none (an empty history)."""
    try:
        return int((folder / VERSION_FILE).read_text("utf-8").strip())
    except (OSError, ValueError):
        versions = snapshot_versions(folder)
        return versions[-1] if versions else -1


def read_manifest(folder: Path, version: int) -> list[HistoryFile]:
    if version < 0:
        return []
    path = folder / f"{MANIFEST_PREFIX}{version}"
    try:
        text = path.read_text("utf-8")
        doc = json.loads(text) if text.strip() else {}
        files = [HistoryFile(str(f["fileName"]), int(f.get("fileLen") or 0)) for f in doc.get("files") or []]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise HistoryError(path, f"unreadable LSM timeline manifest: {e}") from e
    bad = [f.name for f in files if not HISTORY_FILE_RE.match(f.name)]
    if bad:
        raise HistoryError(path, f"manifest lists files that are not LSM timeline files: {bad}")
    return files


def current_files(folder: Path) -> list[HistoryFile]:
    return read_manifest(folder, latest_version(folder))


def read_history(table_path, props: TableProperties, columns=COLUMNS) -> list[dict]:
    """Every archived instant of the current snapshot (``columns`` of each row), ordered by requested time.
    A layer-n file and the compaction that replaced it are never both listed, so each instant is read once;
    should a damaged history list one twice, the first row wins (as Java's loader keeps the first)."""
    folder = history_folder(table_path, props)
    if folder is None:
        return []
    files = current_files(folder)
    if not files:
        return []
    rows: dict[str, dict] = {}
    for f in sorted(files, key=lambda f: f.name):
        try:
            table = read_parquet(folder / f.name, columns=list(columns))
        except (OSError, ValueError, DamagedFileError) as e:  # pyarrow's errors derive from the first two
            raise HistoryError(folder / f.name, f"unreadable LSM timeline file: {e}") from e
        for r in table.to_pylist():
            rows.setdefault(r.get("instantTime") or "", {**r, "file": f.name})
    return [rows[k] for k in sorted(rows)]


def archived_completion_times(table_path, props: TableProperties) -> dict[str, str]:
    """{requested time: completion time} of the archived instants (Java's LoadMode.TIME)."""
    return {r["instantTime"]: r.get("completionTime") or r["instantTime"]
            for r in read_history(table_path, props, ("instantTime", "completionTime", "action"))
            if r.get("instantTime")}


def has_history(table_path, props: TableProperties) -> bool:
    folder = history_folder(table_path, props)
    return folder is not None and latest_version(folder) >= 0


__all__ = ["COLUMNS", "HistoryError", "HistoryFile", "archived_completion_times", "current_files", "has_history",
           "history_folder", "latest_version", "read_history", "read_manifest", "snapshot_versions"]
