"""Direct write markers (Hudi ``DirectWriteMarkers``): before a write creates, merges into or appends to a
data file it drops ``.hoodie/.temp/{instant}/{partition}/{fileName}.marker.{CREATE|MERGE|APPEND}``.
Rollback of a failed instant reads them to know exactly which files the instant touched; a commit
deletes the instant's marker folder once it is complete.
"""

from __future__ import annotations

import shutil
from pathlib import Path

CREATE, MERGE, APPEND = "CREATE", "MERGE", "APPEND"
_SUFFIX = ".marker."


def marker_dir(table_path, instant: str) -> Path:
    return Path(table_path) / ".hoodie" / ".temp" / instant


def create_marker(table_path, instant: str, partition: str, file_name: str, io_type: str) -> None:
    d = marker_dir(table_path, instant) / partition if partition else marker_dir(table_path, instant)
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{file_name}{_SUFFIX}{io_type}").touch()


def read_markers(table_path, instant: str) -> list[tuple[str, str, str]]:
    """(partition, file name, io type) of every marker of ``instant``."""
    root = marker_dir(table_path, instant)
    out = []
    if not root.is_dir():
        return out
    for p in sorted(root.rglob(f"*{_SUFFIX}*")):
        name, _, io_type = p.name.rpartition(_SUFFIX)
        rel = p.parent.relative_to(root).as_posix()
        out.append(("" if rel == "." else rel, name, io_type))
    return out


def delete_markers(table_path, instant: str) -> None:
    shutil.rmtree(marker_dir(table_path, instant), ignore_errors=True)
