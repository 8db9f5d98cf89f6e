"""Reads that meet a damaged table say so: a file a completed commit names is missing, a committed log
file is shorter than its commit wrote, or a block inside the committed part of a log file is damaged.

Without this, the file-system view quietly falls back to an older file slice (a deleted base file brings
back the previous version of its rows, or drops its file group) and the log scanner skips a damaged span
as Hudi's ``HoodieLogFileReader`` does for a failed write's leftovers — so a read returns fewer rows, or
deleted rows back from the dead, with no word. Hudi itself trusts the file system here; we check against
what the timeline recorded:

* every write stat of a completed commit (``partitionToWriteStats[].path``) names a file that must
  exist, unless a completed clean or rollback recorded deleting it (``partitionMetadata[].
  successDeleteFiles``) or a completed replace commit replaced its file group. Only a missing file that
  the read needs is reported: one with no newer base file of its file group present (an older slice's
  file does not change the answer);
* a log file's committed extent is at least the largest ``fileSizeInBytes`` or ``logOffset`` of its
  write stats (a lower bound that holds for Java's stats and hudi-log's alike): a file shorter than that
  lost committed blocks; a corrupt span that starts before it is damage to committed data. A corrupt
  span past it may be a failed write's tail, which Hudi skips too.

Findings are :class:`IntegrityWarning` warnings, or, with ``strict``, an
:class:`~hudi_log.table.errors.IntegrityError` naming the file and the commit.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ...containment import relative_in_table
from ...paths import RemotePath, as_path
from ..errors import IntegrityError
from ..timeline.commit_metadata import write_stats
from ..timeline.timeline import CLEAN, REPLACE_COMMIT, ROLLBACK, Timeline, TimelineError
from ..view.file_system_view import parse_base_file_name, parse_log_file_name


class IntegrityWarning(UserWarning):
    """A read met a missing or damaged committed file; the answer may be wrong (see ``strict``)."""


@dataclass(frozen=True)
class CommittedFile:
    """A file a completed commit wrote: path relative to the table, the commit, its committed size."""
    rel_path: str
    partition: str
    file_id: str
    instant: str
    action: str
    size: int | None
    is_log: bool
    #: a write stat that covers several log files of its own commit (hudi-log's append handle rolling
    #: over; Java writes a stat per file): ``size`` is their total, and these are their relative paths
    group: tuple[str, ...] = ()


def _name(rel_or_abs: str) -> str:
    return PurePosixPath(str(rel_or_abs)).name


def committed_files(timeline: Timeline, bound: str | None = None) -> dict[str, CommittedFile]:
    """{relative path: the latest completed commit (≤ ``bound``) that wrote it}, log files with their
    committed extent (the largest over their commits)."""
    out: dict[str, CommittedFile] = {}
    seen: dict = {}  # folders checked for links once (containment.within_table)

    def contained(rel, source, field) -> str:
        return relative_in_table(timeline.table_path, rel, source=source, field=field, timeline=False, seen=seen)
    for inst in timeline.completed_commits():
        if bound is not None and inst.requested_time > bound:
            continue
        source = inst.path or inst.file_name
        for s in write_stats(timeline.commit_metadata(inst)):
            rel = s.get("path")
            if not rel:
                continue
            rel = contained(rel, source, "partitionToWriteStats.path")
            is_log = ".log." in _name(rel)
            size = None
            group: tuple[str, ...] = ()
            if is_log:
                # Java's stat: logOffset = where this commit's blocks start, fileSizeInBytes = the bytes
                # they take (HoodieAppendHandle); hudi-log's append handle records the last append's
                # offset and the total. The larger of the two is committed in both readings.
                ends = [int(s.get("fileSizeInBytes") or 0), int(s.get("logOffset") or 0)]
                prev = out.get(rel)
                size = max(ends + ([prev.size] if prev and prev.size else []))
                # Java's logFiles lists the whole slice's logs; several named after this very commit
                # (table version 8 naming) were all written by it, and the stat's bytes are their total
                own = [n for n in s.get("logFiles") or [] if f"_{inst.requested_time}.log." in _name(n)]
                if len(own) > 1:
                    parent = str(PurePosixPath(rel).parent)
                    group = tuple(contained(n if "/" in n else (n if parent == "." else f"{parent}/{n}"), source,
                                            "partitionToWriteStats.logFiles") for n in own)
            out[rel] = CommittedFile(rel, s.get("partitionPath") or "", s.get("fileId") or "",
                                     inst.requested_time, inst.action, size, is_log, group)
    return out


def removed_files(timeline: Timeline) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """({(partition, file name)} a completed clean or rollback deleted, {(partition, file id)} a completed
    replace commit replaced)."""
    deleted: set[tuple[str, str]] = set()
    replaced: set[tuple[str, str]] = set()
    for inst in timeline.completed():
        if inst.action not in (CLEAN, ROLLBACK, REPLACE_COMMIT):
            continue
        try:
            md = timeline.commit_metadata(inst) or {}
        except TimelineError:
            continue  # its own problem; validate_table reports it
        if inst.action == REPLACE_COMMIT:
            for part, ids in (md.get("partitionToReplaceFileIds") or {}).items():
                replaced.update((part or "", f) for f in ids or [])
            continue
        for part, pm in (md.get("partitionMetadata") or {}).items():
            for f in (pm or {}).get("successDeleteFiles") or []:
                deleted.add((part or "", _name(f)))
    return deleted, replaced


def _group_instant(cf: CommittedFile) -> str:
    """The commit that made a base file (its name's instant), for ordering a file group's base files."""
    bf = parse_base_file_name(Path(cf.rel_path))
    return bf.instant if bf is not None else cf.instant


@dataclass(frozen=True)
class Finding:
    """One integrity problem: the file (absolute path), the commit that names it, what is wrong."""
    path: str
    instant: str
    message: str

    def error(self) -> IntegrityError:
        return IntegrityError(self.path, self.message, self.instant)


def missing_or_short_files(table_path, timeline: Timeline, bound: str | None = None,
                           needed_only: bool = True) -> list[Finding]:
    """Committed files that are gone (and not removed by a clean, rollback or replace), and committed log
    files shorter than their commits wrote. ``needed_only``: leave out missing files a newer base file of
    their file group supersedes."""
    root = as_path(table_path)
    files = committed_files(timeline, bound)
    size_of = _sizer(root, files.values())
    deleted, replaced = removed_files(timeline)
    present_bases: dict[tuple[str, str], str] = {}
    missing = []
    findings = []
    for cf in files.values():
        if (cf.partition, _name(cf.rel_path)) in deleted or (cf.partition, cf.file_id) in replaced:
            continue
        full = root / cf.rel_path
        try:
            size = size_of(cf.rel_path)
        except FileNotFoundError:
            missing.append(cf)
            continue
        except OSError:
            size = None
        if not cf.is_log:
            key = (cf.partition, cf.file_id)
            present_bases[key] = max(present_bases.get(key, ""), _group_instant(cf))
            continue
        what = "log file is"
        if cf.group and size is not None:
            size = sum(_size(size_of, g) for g in cf.group)
            what = f"its {len(cf.group)} log files are"
        if cf.size and size is not None and size < cf.size:
            findings.append(Finding(str(full), cf.instant, f"{what} {size} bytes, but completed {cf.action} "
                                    f"{cf.instant} wrote {cf.size}: committed blocks are lost"))
    for cf in missing:
        newer = present_bases.get((cf.partition, cf.file_id))
        if needed_only and newer is not None and newer > _group_instant(cf):
            continue
        findings.append(Finding(str(root / cf.rel_path), cf.instant, f"missing, though completed {cf.action} "
                                f"{cf.instant} wrote it (no clean, rollback or replace removed it): "
                                "its rows would be left out or read from an older version"))
    return sorted(findings, key=lambda f: f.path)


def _sizer(root, files):
    """``size_of(relative path)`` for the committed files: a stat each on local disk; on an object store
    from one LIST per folder holding them (a HEAD per committed file would make every read cost as many
    requests as the table has files). A missing file raises ``FileNotFoundError``."""
    if not isinstance(root, RemotePath):
        return lambda rel: (root / rel).stat().st_size
    sizes: dict[str, int] = {}
    folders = {str(PurePosixPath(g).parent) for cf in files for g in (cf.rel_path, *cf.group)}
    for folder in sorted(folders):
        base = root if folder == "." else root / folder
        for p in base.iterdir():  # entries carry their listed size: no request each
            if p.is_file():
                sizes[p.name if folder == "." else f"{folder}/{p.name}"] = p.stat().st_size

    def size_of(rel: str) -> int:
        try:
            return sizes[str(PurePosixPath(rel))]
        except KeyError:
            raise FileNotFoundError(2, "no such file", str(root / rel)) from None
    return size_of


def _size(size_of, rel: str) -> int:
    try:
        return size_of(rel)
    except OSError:
        return 0


def committed_log_extents(timeline: Timeline) -> tuple[tuple[str, int, str], ...]:
    """(log file name, committed extent, commit) of every committed log file whose own extent is known,
    for the read tasks."""
    return tuple((_name(cf.rel_path), cf.size, cf.instant) for cf in committed_files(timeline).values()
                 if cf.is_log and cf.size and not cf.group)


def report(findings: list[Finding], strict: bool) -> None:
    """Raise the first finding (strict) or warn each one."""
    if strict and findings:
        raise findings[0].error()
    for f in findings:
        warnings.warn(IntegrityWarning(f"{f.path}: {f.message}"), stacklevel=3)


def check_corrupt_block(path, offset: int, length: int, extents: dict[str, tuple[int, str]],
                        strict: bool, reported: frozenset[str] = frozenset()) -> None:
    """A corrupt span met while scanning ``path``: damage to committed data when it starts inside the
    file's committed extent (a failed write's tail past it is skipped as Hudi skips it)."""
    name = _name(path)
    if name not in extents or str(path) in reported or parse_log_file_name(Path(path)) is None:
        return
    extent, instant = extents[name]
    if offset >= extent:
        return
    report([Finding(str(path), instant, f"damaged block at offset {offset} ({length} bytes), inside the "
                    f"{extent} bytes commit {instant} wrote: the records of that block cannot be read")], strict)
