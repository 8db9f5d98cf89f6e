"""Direct write markers (Hudi ``DirectWriteMarkers``): before a write creates, merges into or appends to a
data file it drops ``.hoodie/.temp/{instant}/{partition}/{fileName}.marker.{CREATE|MERGE|APPEND}``.
Rollback of a failed instant reads them to know exactly which files the instant touched; a commit
deletes the instant's marker folder once it is complete.

The marker folder holds nothing else, as Java's marker-based rollback expects. hudi-log's own working
files of an instant (the index a Spark write builds beside the job) live in
``.hoodie/.aux/.hudi_log/{instant}`` (:func:`work_dir`), which rollback and commit remove the same way.
"""

from __future__ import annotations

from pathlib import Path

from ..containment import file_name, within_table
from ..paths import as_path, remove_tree

CREATE, MERGE, APPEND = "CREATE", "MERGE", "APPEND"
_SUFFIX = ".marker."


def _instant_folder(table_path, under: str, instant: str) -> Path:
    # the instant may come from a plan (a rollback's instantToRollback): one name, never a path
    root = as_path(table_path) / ".hoodie" / under
    return root / file_name(table_path, instant, source=root, field="instant")


def marker_dir(table_path, instant: str) -> Path:
    return _instant_folder(table_path, ".temp", instant)


def create_marker(table_path, instant: str, partition: str, name: str, io_type: str) -> None:
    d = within_table(marker_dir(table_path, instant), partition, source="partition value", field="partition path")
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{file_name(table_path, name, source=d, field='marker file')}{_SUFFIX}{io_type}").touch()


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
    remove_tree(marker_dir(table_path, instant))


def work_dir(table_path, instant: str) -> Path:
    """hudi-log's own working folder of ``instant``, out of Java's way (Java keeps only bootstrap indexes
    under ``.aux``)."""
    return _instant_folder(table_path, ".aux/.hudi_log", instant)


def delete_work_dir(table_path, instant: str) -> None:
    remove_tree(work_dir(table_path, instant))
