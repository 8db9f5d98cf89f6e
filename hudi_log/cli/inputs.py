"""Which log files a command's FILES arguments name: files, folders and globs.

* a file: itself (whatever its name: a renamed or salvaged log file is still checked);
* a folder: the log files under it, recursively; a table's folder thus means its log files, the
  metadata table's (``.hoodie/metadata``) included, while the rest of ``.hoodie`` (timeline, archive,
  markers) is left out;
* anything else: a glob (``*``, ``?``, ``[..]``; ``**`` crosses folders, hidden ones too), keeping the
  matches named as log files and the log files of matched folders.

Log files are recognised by name, as Hudi's ``FSUtils.isLogFile`` does (``.{fileId}_{instant}.log.{version}_{token}``).
"""

from __future__ import annotations

import glob
import os
import sys
from dataclasses import dataclass

from ..errors import LogFileNameError
from ..format.log_file_name import LogFileName

#: folders under .hoodie that never hold a table's log files (the metadata table's are under .hoodie/metadata)
_HOODIE_SKIP = {"archived", "timeline", ".aux", ".temp", ".heartbeat", ".schema", ".bucket_index", ".lock"}


@dataclass(frozen=True)
class Missing:
    """An argument that names nothing (no such file, a glob without matches, a folder without log files)."""

    arg: str
    reason: str


def is_log_file_name(name: str) -> bool:
    try:
        LogFileName.parse(name)
    except LogFileNameError:
        return False
    return True


def _folder_logs(folder: str) -> list[str]:
    out = []
    for d, dirs, files in os.walk(folder):
        if os.path.basename(d) == ".hoodie":
            dirs[:] = [x for x in dirs if x not in _HOODIE_SKIP]
        dirs.sort()
        out.extend(os.path.join(d, f) for f in sorted(files) if is_log_file_name(f))
    return out


def _glob(pattern: str) -> list[str]:
    kw = {"include_hidden": True} if sys.version_info >= (3, 11) else {}
    return sorted(glob.glob(pattern, recursive=True, **kw))


def expand(args: tuple[str, ...] | list[str]) -> tuple[list[str], list[Missing]]:
    """(log files in argument order without repeats, arguments that named none)."""
    files: list[str] = []
    missing: list[Missing] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            files.append(path)

    for arg in args:
        if os.path.isdir(arg):
            found = _folder_logs(arg)
            if not found:
                missing.append(Missing(arg, "a folder holding no log files"))
            for f in found:
                add(f)
        elif os.path.lexists(arg):
            add(arg)
        elif glob.has_magic(arg):
            matched = _glob(arg)
            logs = []
            for m in matched:
                if os.path.isdir(m):
                    logs.extend(_folder_logs(m))
                elif is_log_file_name(os.path.basename(m)):
                    logs.append(m)
            if not logs:
                missing.append(Missing(arg, "no log file matches this pattern"))
            for f in logs:
                add(f)
        else:
            missing.append(Missing(arg, "no such file or folder"))
    return files, missing
