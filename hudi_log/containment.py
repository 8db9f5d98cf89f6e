"""The one rule for paths that come from a table's own files or from data values: they stay in the table.

A Hudi table folder is shared ground, and what its files say is untrusted: a rollback, clean, compaction,
clustering or restore plan, a commit's write stats, a CDC stat, a marker, ``hoodie.timeline.path`` in
``hoodie.properties``, savepoint metadata, or a partition value from upstream data. Java Hudi builds such
paths with ``new StoragePath(basePath, relative)`` or takes a plan's full path as written
(``HoodieCleanStat``, ``HoodieRollbackRequest``) and checks nothing beyond
``PartitionPathEncodeUtils.validateNoPathTraversal`` on a partition value. hudi-log refuses, before it acts,
any such path that would land outside the table's base path (see docs/security.md):

* **another store**: a scheme that is not the table's (``file:`` for a local table; ``s3``, ``s3a``,
  ``s3n`` with the same bucket for one on S3; the same scheme elsewhere);
* **outside the base path after normalisation**: an absolute path elsewhere, ``<base>/a/../../x``, ``../x``;
* **a symbolic link leading out** (local disk): the path is resolved through existing links and must still
  be under the base path's own resolved location. Decided so because a link planted inside the table would
  otherwise let a plan reach anywhere; object stores have no links.
* **NUL** (no file system takes one; Python's would raise a bare ValueError).

:func:`within_table` is the function every such path goes through; :func:`partition_path_problem` is the
write-time rule for partition paths made from data (segments starting with a dot, which every lister skips
as hidden, so their rows would vanish from reads; a leading ``/``; empty segments), applied after any URL
encoding, so no encoding slips one through.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from pathlib import Path
from typing import Optional

from .errors import HudiLogError
from .paths import AnyPath, GCS_SCHEMES, S3_SCHEMES, RemotePath, as_path, filesystem_for

#: the timeline folder; plans of a data table never name files in it (the metadata table is its own table)
META_FOLDER = ".hoodie"
#: a scheme at the start of a path, in Hadoop's forms (``file:/x``, ``file:///x``, ``s3a://bucket/x``)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(//)?")
#: what a partition path written from data must not hold (see :func:`partition_path_problem`), in a regex
#: syntax Arrow and Spark share: a segment starting with a dot, a leading '/', an empty segment, a NUL
BAD_PARTITION_PATH = r"(^|/)\.|^/|//|/$|\x00"


class PathOutsideTableError(HudiLogError, ValueError):
    """A path from a table's files or from data that would land outside the table: names the table, the
    file (or data) that held it, the field, the value and why."""

    def __init__(self, table, source: str, field: str, value, why: str):
        self.table, self.source, self.field, self.value, self.why = str(table), str(source), field, value, why
        super().__init__(f"{source}: {field}: {value!r} {why}, outside the table {table}; refused before "
                         f"anything was changed (remove or repair that file, or use a value without it)")


def _same_store(scheme: str, base: AnyPath) -> bool:
    scheme = scheme.lower()
    if isinstance(base, RemotePath):
        if base.scheme in S3_SCHEMES:
            return scheme in S3_SCHEMES
        if base.scheme in GCS_SCHEMES:
            return scheme in GCS_SCHEMES
        return scheme == base.scheme
    return scheme == "file"


def _normalised(key: str) -> str:
    key = posixpath.normpath(key)
    return "/" + key.lstrip("/") if key.startswith("/") else key


def within_table(base, value, *, source, field: str, timeline: bool = True, seen: Optional[dict] = None) -> AnyPath:
    """``value`` (a path relative to the table's base path, or a full path or URI as Java's plans hold them)
    as a path of the table's kind, checked to be under ``base``; :class:`PathOutsideTableError` otherwise.

    ``source`` names where the value came from (a file, or "partition value"), ``field`` its field.
    ``timeline=False`` also refuses paths under ``.hoodie`` (for data files named by a data table's plans and
    stats, which never live there). An empty relative value is the base path itself. ``seen``: a dict one
    operation passes to every call over many paths of one table (commit stats, plans), so each folder is
    checked for links once (a few system calls a path otherwise)."""
    base = as_path(base)
    rel = relative_in_table(base, value, source=source, field=field, timeline=timeline, seen=seen)
    return base / rel if rel else base


def relative_in_table(base, value, *, source, field: str, timeline: bool = True, seen: Optional[dict] = None) -> str:
    """:func:`within_table`'s answer as the normalised path relative to ``base`` ("" for the base itself), for
    callers that keep plans' paths relative to the table."""
    base = as_path(base)
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(text, str):
        raise PathOutsideTableError(base, source, field, value, "is not a path")
    if "\x00" in text:
        raise PathOutsideTableError(base, source, field, value, "holds a NUL byte")
    m = _SCHEME.match(text)
    if m and len(m.group(1)) > 1:  # one letter would be a Windows drive, which no table here has
        if not _same_store(m.group(1), base):
            raise PathOutsideTableError(base, source, field, value, "is on another store")
        rest = text[m.end():]
        if isinstance(base, RemotePath):
            if not m.group(2):
                raise PathOutsideTableError(base, source, field, value, "has no bucket")
            if base.scheme in S3_SCHEMES:
                full = _normalised(rest)  # bucket/key, like RemotePath.key
            else:  # the key as that scheme's file system names it (its host may not be part of it)
                try:
                    full = _normalised(filesystem_for(text)[1])
                except HudiLogError as e:
                    raise PathOutsideTableError(base, source, field, value, f"cannot be opened ({e})") from e
        else:
            full = _normalised("/" + rest.lstrip("/"))
        rel = _relative(base, full, value, source, field, absolute=True)
    elif text.startswith("/"):
        if isinstance(base, RemotePath):
            raise PathOutsideTableError(base, source, field, value, "is an absolute path, not on the table's store")
        rel = _relative(base, _normalised(text), value, source, field, absolute=True)
    else:
        rel = _normalised(text) if text else "."
        if rel == ".." or rel.startswith("../"):
            raise PathOutsideTableError(base, source, field, value, "leads out of the base path")
    if rel in ("", "."):
        rel = ""
    elif not timeline and rel.split("/", 1)[0] == META_FOLDER:
        raise PathOutsideTableError(base, source, field, value, f"is under {META_FOLDER}, not a data file")
    if isinstance(base, Path):
        _no_link_out(base, rel, value, source, field, {} if seen is None else seen)
    return rel


def _relative(base: AnyPath, full: str, value, source, field, *, absolute: bool) -> str:
    if isinstance(base, RemotePath):
        roots = [base.key]
    else:  # a plan may spell the base path as given or as resolved (hudi-log's clean plans resolve it)
        roots = list(dict.fromkeys([_normalised(os.path.abspath(os.fspath(base))), os.path.realpath(base)]))
    for root in roots:
        if full == root:
            return "."
        prefix = root.rstrip("/") + "/"
        if full.startswith(prefix):
            return full[len(prefix):]
    raise PathOutsideTableError(base, source, field, value, "is not under the table's base path")


def file_name(base, value, *, source, field: str) -> str:
    """``value`` checked to be one file name (a single path segment, as plans name a slice's files and file
    ids): :class:`PathOutsideTableError` for a ``/``, ``.``, ``..``, an empty value or NUL. A name is joined to
    a folder that :func:`within_table` gave, so it cannot lead out of it."""
    if not isinstance(value, str) or value in ("", ".", "..") or "/" in value or "\x00" in value:
        raise PathOutsideTableError(as_path(base), source, field, value, "is not a file name")
    return value


def _no_link_out(base: Path, rel: str, value, source, field, seen: dict) -> None:
    """Each existing component of ``rel`` under ``base`` that is a link must resolve under the base's own
    resolved location (folders found clean are remembered in ``seen``); what does not exist yet holds none."""
    key = ("", os.fspath(base))
    real_base = seen.get(key)
    if real_base is None:
        real_base = seen[key] = os.path.realpath(base)
    inside = real_base.rstrip("/") + "/"
    parts = rel.split("/") if rel else []
    at = real_base
    for i, seg in enumerate(parts):
        prefix = (key[1], "/".join(parts[:i + 1]))
        known = seen.get(prefix)
        if known is not None:
            at = known
            continue
        p = os.path.join(at, seg)
        try:
            is_link = stat.S_ISLNK(os.lstat(p).st_mode)
        except OSError:  # not there (yet): nothing below it is a link
            return
        if is_link:
            p = os.path.realpath(p)
            if p != real_base and not p.startswith(inside):
                raise PathOutsideTableError(base, source, field, value, "leads out through a symbolic link")
        if i < len(parts) - 1:
            seen[prefix] = p
        at = p


def partition_path_problem(path: str) -> Optional[str]:
    """Why ``path`` (a partition path made from data, after any URL encoding) cannot be written, or None.

    A segment starting with a dot (``.``, ``..``, ``...``, ``.hidden``) is hidden from every listing (Hudi's
    and hudi-log's skip dot folders), so its rows would be written and never read; ``..`` would also leave
    the table (Java's ``validateNoPathTraversal``). A leading ``/`` would be an absolute path; an empty
    segment (``a//b``, a trailing ``/``) is not the folder it names; NUL is refused by every file system."""
    if "\x00" in path:
        return "holds a NUL byte"
    if path.startswith("/"):
        return "starts with '/' (an absolute path)"
    if "//" in path or path.endswith("/"):
        return "has an empty segment"
    for seg in path.split("/"):
        if seg.startswith("."):
            return f"has a segment {seg!r} starting with '.', which every reader skips as hidden" + (
                " and which leads out of the table" if seg == ".." else "")
    return None
