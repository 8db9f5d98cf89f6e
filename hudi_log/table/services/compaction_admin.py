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

Every file name a plan holds goes through :func:`hudi_log.containment.within_table` before it is looked at.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ...containment import within_table
from ...log.writer import FIRST_NO_APPEND_TABLE_VERSION
from ...paths import as_path
from ..concurrency.config import concurrency_config
from ..concurrency.lock import TableLock
from ..metadata_table import guard_change
from ..properties import read_properties
from ..read.query import HudiTable
from ..timeline.timeline import COMPACTION
from ..view.file_system_view import FileSlice, LogFile
from .compaction import CompactionError, CompactionOperation, CompactionPlan, read_compaction_plan


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


__all__ = ["UnscheduleResult", "ValidationResult", "unschedule_compaction", "validate_compaction_plan"]
