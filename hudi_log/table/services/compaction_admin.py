"""Operator actions on a pending compaction plan, as Java's ``CompactionAdminClient`` (hudi-cli's
``compaction validate`` and ``compaction unschedule``).

* :func:`validate_compaction_plan` (``validateCompactionPlan``): each operation of the plan is checked
  against the file-system view: the file group's latest slice before the compaction exists; the plan's
  base file is that slice's base file; every log file the plan names is in it; every other log file of
  that slice was written at or after the compaction instant. A failed check is a result (``valid``
  false, with the reason), not an error, as in Java.
* :func:`unschedule_compaction` (``unscheduleCompactionPlan``): refused while the compaction is inflight
  (a run started: Java asks for its rollback first); otherwise its ``.compaction.requested`` plan is
  deleted. Table version 6 names the log files written after the request after the compaction instant
  (file_system_view); without the plan no slice would take them. Java 0.x renamed them into the slice
  before, but that leaves the delta commits' write stats naming files that are gone (reads then warn,
  strict reads fail), so hudi-log refuses instead, before anything changes, and says to run the
  compaction. Version 8 names log files after their own instant: nothing is renamed, as in Java 1.x.
* :func:`repair_compaction` (``repairCompaction``, hudi-cli's ``compaction repair``): after an unschedule that
  failed half-way (Java 0.x renamed some of the log files written after the request into the slice before),
  each invalid operation's file group gets those log files back: a log file of the slice before whose version
  is above the highest the plan names is renamed to the compaction instant's slice, its version less that
  highest (``getRenamingActionsToAlignWithCompactionOperation``), under the name the delta commit that wrote it
  recorded where there is one (Java gives every such file its unknown write token, which leaves the commit
  naming a file that is gone: reads warn, strict reads fail), else with Java's unknown write token. Java also
  takes the compaction slice's own log files above that version; they are already where they belong, so
  hudi-log leaves them. Dry run by default, as hudi-cli; a rename onto an existing file is refused before any
  rename. Version 8 tables name log files by their own instant: there is nothing to rename.

Every file name a plan holds goes through :func:`hudi_log.containment.within_table` before it is looked at.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ...containment import within_table
from ...format.log_file_name import UNKNOWN_WRITE_TOKEN, LogFileName
from ...log.writer import FIRST_NO_APPEND_TABLE_VERSION
from ...paths import as_path
from ..concurrency.config import concurrency_config
from ..concurrency.lock import TableLock
from ..metadata_table import guard_change
from ..properties import read_properties
from ..read.integrity import committed_files
from ..read.query import HudiTable
from ..timeline.timeline import COMPACTION
from ..view.file_system_view import FileSlice, LogFile
from .compaction import CompactionError, CompactionOperation, CompactionPlan, read_compaction_plan
from .options import resolve_service_options


@dataclass(frozen=True)
class ValidationResult:
    """One plan operation checked (``ValidationOpResult``)."""
    partition: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]
    valid: bool
    error: str | None = None

    def to_dict(self) -> dict:
        return {"partition": self.partition, "file_id": self.file_id, "base_instant": self.base_instant,
                "base_file": self.base_file, "log_files": list(self.log_files), "valid": self.valid,
                "error": self.error}


@dataclass(frozen=True)
class UnscheduleResult:
    """What unscheduling did: the plan file deleted."""
    instant: str
    plan_file: str

    def to_dict(self) -> dict:
        return {"unscheduled": self.instant, "plan_file": self.plan_file}


def _pending_plan(table: HudiTable, instant: str) -> tuple[Path, CompactionPlan, bool]:
    """(requested file, plan, inflight?) of the pending compaction ``instant``; CompactionError otherwise."""
    tl = table.timeline
    pending = {i.requested_time: i for i in tl.pending_compactions()}
    if instant not in pending:
        inst = tl.instant(instant)
        what = "no instant" if inst is None else f"{inst.action} {inst.state.lower()}"
        raise CompactionError(tl.folder, f"instant {instant} is not a pending compaction ({what}; "
                                         "`hudi-log compactions show` lists the plans)")
    req = tl.folder / f"{instant}.{COMPACTION}.requested"
    return req, read_compaction_plan(req), pending[instant].state != "REQUESTED"


def _slice_before(table: HudiTable, view, op: CompactionOperation, instant: str) -> FileSlice | None:
    """The file group's latest slice not based on the compaction (``getLatestUnCompactedFileSlices``)."""
    for g in view.file_groups.get(op.partition, ()):
        if g.file_id == op.file_id:
            older = [s for s in g.slices if s.base_instant != instant]
            return older[-1] if older else None
    return None


def _check(table: HudiTable, view, req: Path, op: CompactionOperation, instant: str) -> str | None:
    """Why ``op`` does not match the table's files (None: it does)."""
    folder = within_table(table.path, op.partition, source=req, field="partitionPath", timeline=False)
    for name in ([op.base_file] if op.base_file else []) + list(op.log_files):
        within_table(table.path, f"{op.partition}/{name}" if op.partition else name, source=req,
                     field="operations", timeline=False)
    if op.partition not in view.file_groups:
        return f"partition {op.partition!r} is not in the table"
    fs = _slice_before(table, view, op, instant)
    if fs is None:
        return f"no file slice of file group {op.file_id}: the operation is invalid"
    if op.base_file and (fs.base_file is None or fs.base_file.name != op.base_file):
        return (f"base file {op.base_file} of the plan is not the slice's "
                f"({fs.base_file.name if fs.base_file else 'none'})")
    have = {lf.name for lf in fs.log_files}
    missing = [n for n in op.log_files if n not in have or not (folder / n).exists()]
    if missing:
        return f"log files of the plan missing from the slice: {', '.join(missing)}"
    extra = [lf.name for lf in fs.log_files if lf.name not in op.log_files and lf.instant < instant]
    if extra:
        return f"log files neither in the plan nor written after the compaction request: {', '.join(extra)}"
    return None


def validate_compaction_plan(path, instant: str) -> list[ValidationResult]:
    """Each operation of the pending compaction ``instant`` checked against the table's files."""
    table = HudiTable(path)
    req, plan, _ = _pending_plan(table, instant)
    view = table.view()
    out = []
    for op in plan.operations:
        why = _check(table, view, req, op, instant)
        out.append(ValidationResult(op.partition, op.file_id, op.base_instant, op.base_file, op.log_files,
                                    why is None, why))
    return out


def _logs_after_request(table: HudiTable, req: Path, plan: CompactionPlan, instant: str) -> list[LogFile]:
    """Version 6: the log files named after the compaction instant (written since it was requested)."""
    view = table.view()
    found = []
    for op in plan.operations:
        within_table(table.path, op.partition, source=req, field="partitionPath", timeline=False)
        for g in view.file_groups.get(op.partition, ()):
            if g.file_id == op.file_id:
                found += [lf for s in g.slices if s.base_instant == instant for lf in s.log_files]
    return found


def unschedule_compaction(path, instant: str, options: Mapping | None = None) -> UnscheduleResult:
    """Remove the requested compaction ``instant``'s plan (see the module docstring)."""
    options = resolve_service_options(path, options)
    config = concurrency_config(options)
    table_path = as_path(path)
    props = guard_change(table_path, read_properties(table_path), options, "the compaction unschedule")
    with TableLock(table_path, config):
        table = HudiTable(table_path)
        req, plan, inflight = _pending_plan(table, instant)
        if inflight:
            raise CompactionError(req, f"compaction {instant} is inflight: a run started (finish it with "
                                       f"`hudi-log compact PATH --instant {instant}`; Java asks to roll it back "
                                       "before unscheduling)")
        if props.version < FIRST_NO_APPEND_TABLE_VERSION:
            after = _logs_after_request(table, req, plan, instant)
            if after:
                raise CompactionError(req, f"{len(after)} log file(s) were written into compaction {instant}'s "
                                           f"slice since it was requested ({after[0].name}, ...); without the plan "
                                           "no reader would take them (run the compaction instead: "
                                           f"`hudi-log compact PATH --instant {instant}`)")
        req.unlink()
        return UnscheduleResult(instant, req.name)


@dataclass(frozen=True)
class RenameResult:
    """One log file moved back into the compaction's slice (``RenameOpResult``)."""
    partition: str
    old: str
    new: str
    executed: bool

    def to_dict(self) -> dict:
        return {"partition": self.partition, "from": self.old, "to": self.new, "executed": self.executed}


def _committed_log_names(table: HudiTable) -> dict[tuple[str, str, str, int], str]:
    """(partition, file id, base instant, version) -> the log file name a completed commit wrote."""
    out = {}
    for cf in committed_files(table.timeline).values():
        for rel in cf.group or (cf.rel_path,):
            name = rel.rsplit("/", 1)[-1]
            if cf.is_log and LogFileName.is_log_file_name(name):
                n = LogFileName.parse(name)
                out[(cf.partition, n.file_id, n.instant, n.version)] = name
    return out


def _renames(table: HudiTable, view, req: Path, op: CompactionOperation, instant: str,
             committed: Mapping) -> list[tuple[Path, Path]]:
    """(log file, its name in the compaction's slice) for the log files the slice before holds above the plan's
    highest version: the name the commit that wrote it recorded, where one did (the unschedule renamed it away
    from that), else Java's, with the unknown write token."""
    folder = within_table(table.path, op.partition, source=req, field="partitionPath", timeline=False)
    before = _slice_before(table, view, op, instant)
    if before is None:
        return []
    top = max((LogFileName.parse(n).version for n in op.log_files), default=0)
    out = []
    for lf in before.log_files:
        if lf.version > top and not lf.is_cdc:
            name = LogFileName.parse(lf.name)
            new = str(LogFileName(name.file_id, instant, lf.version - top, UNKNOWN_WRITE_TOKEN, name.extension))
            new = committed.get((op.partition, name.file_id, instant, lf.version - top), new)
            out.append((folder / lf.name, folder / new))
    return out


def repair_compaction(path, instant: str, dry_run: bool = True, options: Mapping | None = None) -> list[RenameResult]:
    """Put the log files of the pending compaction ``instant``'s invalid operations back into its slice (see the
    module docstring); returns the renames, done unless ``dry_run``."""
    options = resolve_service_options(path, options)
    config = concurrency_config(options)
    table_path = as_path(path)
    props = read_properties(table_path)
    if not dry_run:
        props = guard_change(table_path, props, options, "the compaction repair")
    with TableLock(table_path, config):
        table = HudiTable(table_path)
        req, plan, _ = _pending_plan(table, instant)
        if props.version >= FIRST_NO_APPEND_TABLE_VERSION:
            return []
        view = table.view()
        invalid = [op for op in plan.operations if _check(table, view, req, op, instant) is not None]
        committed = _committed_log_names(table) if invalid else {}
        moves = [(op.partition, a, b) for op in invalid for a, b in _renames(table, view, req, op, instant, committed)]
        taken = [b for _, _, b in moves if b.exists()]
        if taken:
            raise CompactionError(taken[0], "a log file is already there under the name the repair would give; "
                                            "nothing was renamed")
        if not dry_run:
            for _, a, b in moves:
                os.rename(a, b)
        return [RenameResult(p, a.name, b.name, not dry_run) for p, a, b in moves]


__all__ = ["RenameResult", "UnscheduleResult", "ValidationResult", "repair_compaction", "unschedule_compaction",
           "validate_compaction_plan"]
