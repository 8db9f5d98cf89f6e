"""Which log files a command's FILES arguments name: files, folders and globs.

* a file: itself (whatever its name: a renamed or salvaged log file is still checked);
* a folder: the log files under it, recursively; a table's folder thus means its log files, the
  metadata table's (``.hoodie/metadata``) included, while the rest of ``.hoodie`` (timeline, archive,
  markers) is left out;
* anything else: a glob (``*``, ``?``, ``[..]``; ``**`` crosses folders, hidden ones too), keeping the
  matches named as log files and the log files of matched folders.

Log files are recognised by name, as Hudi's ``FSUtils.isLogFile`` does (``.{fileId}_{instant}.log.{version}_{token}``).

On an object store (``s3://bucket/...``, :mod:`hudi_log.paths`) the same three kinds hold: an object, a
prefix (a "folder", listed once, recursively) and a glob, whose part before the first wildcard is the
prefix listed (one recursive LIST) and whose rest is matched against the keys under it.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import sys
from dataclasses import dataclass

from ..errors import HudiLogError, LogFileNameError
from ..format.log_file_name import LogFileName
from ..paths import as_path, is_uri, walk_dirs

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


def _join(folder: str, rel: str) -> str:
    if not rel:
        return folder
    return folder.rstrip("/") + "/" + rel if is_uri(folder) else os.path.join(folder, rel)


def _folder_logs(folder: str) -> list[str]:
    out = []
    top = os.path.basename(folder.rstrip("/"))
    for rel, dirs, files in walk_dirs(as_path(folder)):  # os.walk, or one recursive LIST on a store
        if (rel.rsplit("/", 1)[-1] if rel else top) == ".hoodie":
            dirs[:] = [x for x in dirs if x not in _HOODIE_SKIP]
        dirs.sort()
        d = _join(folder, rel)
        out.extend(_join(d, f) for f in sorted(files) if is_log_file_name(f))
    return out


def _skipped_below(folder_name: str, dirs: list[str]) -> bool:
    """Whether a file in ``dirs`` (folders below a folder named ``folder_name``) is one that
    :func:`_folder_logs` leaves out (timeline, archive, markers, ... under a ``.hoodie``)."""
    names = [folder_name, *dirs]
    return any(names[j] == ".hoodie" and names[j + 1] in _HOODIE_SKIP for j in range(len(names) - 1))


def _match(pattern: list[str], parts: list[str]) -> bool:
    """Whether path components ``parts`` match glob components ``pattern`` (``**``: any number of them)."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _match(pattern[1:], parts[1:])


def _store_glob(pattern: str) -> list[str]:
    """The log files a glob on an object store names: matched objects named as log files, and the log
    files under matched prefixes (as :func:`_folder_logs` picks them)."""
    scheme, _, rest = pattern.partition("://")
    parts = rest.split("/")
    first = next(i for i, c in enumerate(parts) if glob.has_magic(c))
    if first == 0:
        raise ValueError("a wildcard in the bucket name is not supported")
    root, pat = f"{scheme}://" + "/".join(parts[:first]), [c for c in parts[first:] if c]
    out = []
    for rel, _, files in walk_dirs(as_path(root)):  # one recursive LIST of the prefix
        dirs = rel.split("/") if rel else []
        for f in files:
            if not is_log_file_name(f):
                continue
            # the object itself, or a folder above it (the prefix itself for a bare "**")
            if _match(pat, dirs + [f]) or any(
                    _match(pat, dirs[:k]) and not _skipped_below(dirs[k - 1] if k else parts[first - 1], dirs[k:])
                    for k in range(len(dirs) + 1)):
                out.append(_join(_join(root, rel), f))
    return sorted(out)


def _store_kind(arg: str) -> str:
    """"dir", "file" or "missing" for an object-store argument (one HEAD-like request)."""
    p = as_path(arg)
    if p.is_file():
        return "file"
    return "dir" if p.is_dir() else "missing"


def _glob(pattern: str) -> list[str]:
    kw = {"include_hidden": True} if sys.version_info >= (3, 11) else {}
    return sorted(glob.glob(pattern, recursive=True, **kw))


def expand(args: tuple[str, ...] | list[str]) -> tuple[list[str], list[Missing]]:
    """(log files in argument order without repeats, arguments that named none)."""
    files: list[str] = []
    missing: list[Missing] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = path if is_uri(path) else os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            files.append(path)

    for arg in args:
        if is_uri(arg):
            try:
                if glob.has_magic(arg):
                    found = _store_glob(arg)
                    if not found:
                        missing.append(Missing(arg, "no log file matches this pattern"))
                else:
                    kind = _store_kind(arg)
                    found = _folder_logs(arg) if kind == "dir" else [arg] if kind == "file" else []
                    if kind != "file" and not found:
                        missing.append(Missing(arg, "a prefix holding no log files" if kind == "dir"
                                               else "no such object or prefix"))
            except (HudiLogError, OSError, ValueError) as e:
                missing.append(Missing(arg, " ".join(str(e).split())))
                continue
            for f in found:
                add(f)
        elif os.path.isdir(arg):
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
