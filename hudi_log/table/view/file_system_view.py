"""File system view: partitions, file groups and file slices of the committed table state.

* Partitions are the folders (outside ``.hoodie``) holding ``.hoodie_partition_metadata``; the table
  root itself is the partition ``""`` of a non-partitioned table.
* Base file ``{fileId}_{writeToken}_{instant}.{parquet|orc|hfile}``; log file
  ``.{fileId}_{instant}.log.{version}_{writeToken}[.cdc]`` (format_facts §5.4).
* Log files within a slice are ordered by Hudi's ``LogFileComparator``: instant in the name (string),
  then version (int), then write token (nulls first), the ``.cdc`` twin right after its data file (F5, F6).
* What is visible (as of a bound ``as_of`` = a requested instant time, None = latest):
  * a base file only if its instant is a completed write instant ≤ ``as_of``, or older than the first
    completed one (archived: Java's ``containsOrBeforeTimelineStarts``);
  * table version < 8: a log file's name carries its slice's base instant; the file is listed when that
    base instant is completed ≤ ``as_of`` (or it is a log-only group) — blocks of uncommitted instants
    are dropped later, block by block, by the scanner;
  * table version ≥ 8: a log file's name carries its own delta-commit instant; the file is listed only
    if that instant is completed ≤ ``as_of`` (uncommitted log files excluded), or archived (older than
    the first completed one, its completion time read from the LSM history). It belongs to the slice
    with the greatest base instant that precedes the log's completion time (Hudi 1.x
    ``HoodieFileGroup`` with completion times);
  * file groups replaced by completed replacecommits ≤ ``as_of`` (insert_overwrite, clustering) are left out.
* Pending compaction (requested or inflight at C ≤ ``as_of``): a file group in the compaction plan gets a
  new slice based on C with no base file yet. Log files written after the request belong to it (v6: named
  after C; v8: completed after C). Readers merge it with the slice before it — that slice's base file and
  logs, then the new logs — as Hudi's ``getLatestMergedFileSlicesBeforeOrOn`` does
  (:meth:`FileSystemView.latest_file_slices`). Without a readable plan, v6 still recognises the new slice
  from log files named after C; for v8 the merged result is the same either way.
* A data log file in a table whose ``hoodie.properties`` lacks ``hoodie.table.type`` is refused
  (:func:`~hudi_log.table.properties.check_missing_type_log_file`): the table is MERGE_ON_READ, not the
  COPY_ON_WRITE Java's default would read it as.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ...paths import as_path, walk_dirs
from ..metadata_files import ENABLE, MetadataListing, metadata_enabled, metadata_in_step, metadata_path, read_listing
from ..properties import TableProperties, check_missing_type_log_file
from ..timeline.lsm_history import archived_completion_times
from ..timeline.timeline import WRITE_ACTIONS, Timeline

BASE_FILE_RE = re.compile(r"^([^.][^_]*)_(\d+-\d+-\d+)_(\d+)\.(parquet|orc|hfile)$")
LOG_FILE_RE = re.compile(r"^\.([^._]+)_([^.]*)\.(log)\.(\d+)(_((\d+)-(\d+)-(\d+))(\.cdc)?)?$")
PARTITION_METAFILE = ".hoodie_partition_metadata"


@dataclass(frozen=True)
class BaseFile:
    path: Path
    file_id: str
    write_token: str
    instant: str
    size: int

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class LogFile:
    path: Path
    file_id: str
    instant: str
    version: int
    write_token: str | None
    is_cdc: bool
    size: int

    @property
    def name(self) -> str:
        return self.path.name

    def sort_key(self):
        # LogFileComparator: instant, version, write token (nulls first), cdc after its twin
        return (self.instant, self.version, self.write_token is not None, self.write_token or "", self.is_cdc)


def parse_base_file_name(path: Path, size: int | None = None) -> BaseFile | None:
    m = BASE_FILE_RE.match(path.name)
    if not m:
        return None
    return BaseFile(path, m.group(1), m.group(2), m.group(3), _size(path) if size is None else size)


def parse_log_file_name(path: Path, size: int | None = None) -> LogFile | None:
    m = LOG_FILE_RE.match(path.name)
    if not m:
        return None
    return LogFile(path, m.group(1), m.group(2), int(m.group(4)), m.group(6), bool(m.group(10)),
                   _size(path) if size is None else size)


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return -1


@dataclass
class FileSlice:
    partition: str
    file_id: str
    base_instant: str
    base_file: BaseFile | None = None
    log_files: list[LogFile] = field(default_factory=list)

    @property
    def total_size(self) -> int:
        return (self.base_file.size if self.base_file else 0) + sum(lf.size for lf in self.log_files)

    def to_dict(self) -> dict:
        return {
            "partition": self.partition, "file_id": self.file_id, "base_instant": self.base_instant,
            "base_file": self.base_file.name if self.base_file else None,
            "base_file_size": self.base_file.size if self.base_file else 0,
            "log_files": [{"name": lf.name, "size": lf.size} for lf in self.log_files],
            "total_size": self.total_size,
        }


@dataclass
class FileGroup:
    partition: str
    file_id: str
    slices: list[FileSlice] = field(default_factory=list)  # oldest first

    @property
    def latest_slice(self) -> FileSlice | None:
        return self.slices[-1] if self.slices else None


def list_partitions(table_path) -> list[str]:
    """Relative partition paths ("" for the table root) holding ``.hoodie_partition_metadata``."""
    root = as_path(table_path)
    out = []
    for rel, dirnames, filenames in walk_dirs(root):  # on an object store: one recursive LIST
        dirnames[:] = sorted(d for d in dirnames if not (rel == "" and d == ".hoodie")
                             and d != "__MACOSX" and not d.startswith("."))
        if any(n.startswith(PARTITION_METAFILE) for n in filenames):
            out.append(rel)
    return sorted(out)


class FileSystemView:
    def __init__(self, table_path, props: TableProperties, timeline: Timeline, as_of: str | None = None,
                 options: Mapping | None = None):
        self.table_path = as_path(table_path)
        self.props = props
        self.timeline = timeline
        self.as_of = as_of
        # where files are listed from: the metadata table's ``files`` partition when it is there and in step
        # (and hoodie.metadata.enable is not false), else storage; ``listing_note`` says why storage
        self.listing: MetadataListing | None = None
        self.listing_note = ""
        if metadata_enabled(options) and metadata_path(self.table_path).is_dir():
            ok, self.listing_note = metadata_in_step(self.table_path, props, timeline)
            if ok:
                self.listing = read_listing(self.table_path)
        elif not metadata_enabled(options):
            self.listing_note = f"{ENABLE}=false"
        self.listing_source = "metadata" if self.listing is not None else "storage"
        self.partitions = self.listing.partitions if self.listing is not None else list_partitions(self.table_path)
        completed = [i for i in timeline.completed_commits() if as_of is None or i.requested_time <= as_of]
        self.visible_instants = {i.requested_time for i in completed}
        # Java's containsOrBeforeTimelineStarts: an instant older than the first completed write was archived
        self.timeline_start = timeline.timeline_start()
        self.completion = {i.requested_time: (i.completion_time or i.requested_time) for i in completed}
        self._archived: dict[str, str] | None = None  # archived instant → completion time, on demand (v8+)
        self._first_write: str | None = None
        self.replaced = timeline.replaced_file_ids(as_of)
        # pending compaction instant → {partition: file ids} of its plan (None: plan unreadable)
        self.pending_compactions = {i.requested_time: timeline.compaction_plan_file_ids(i)
                                    for i in timeline.pending_compactions(as_of)}
        self.file_groups: dict[str, list[FileGroup]] = {p: self._build(p) for p in self.partitions}

    def _files(self, partition: str) -> list[tuple[Path, int | None]]:
        """(path, size) of the partition's files: from the metadata listing (sizes as it records them), or
        listed from storage (sizes read on parsing)."""
        if self.listing is not None:
            return [(f.path, f.size) for f in self.listing.files.get(partition, [])]
        folder = self.table_path / partition if partition else self.table_path
        return [(p, None) for p in sorted(folder.iterdir()) if p.is_file()]

    def _build(self, partition: str) -> list[FileGroup]:
        bases: dict[str, list[BaseFile]] = {}
        logs: dict[str, list[LogFile]] = {}
        for p, size in self._files(partition):
            bf = parse_base_file_name(p, size)
            if bf is not None:
                if self._committed(bf.instant):
                    bases.setdefault(bf.file_id, []).append(bf)
                continue
            lf = parse_log_file_name(p, size)
            if lf is not None:
                check_missing_type_log_file(self.props, p)  # no MERGE_ON_READ table read as COPY_ON_WRITE
                logs.setdefault(lf.file_id, []).append(lf)
        replaced = self.replaced.get(partition, set())
        groups = []
        for fid in sorted(set(bases) | set(logs)):
            if fid in replaced:
                continue
            g = self._group(partition, fid, bases.get(fid, []), logs.get(fid, []))
            if g.slices:
                groups.append(g)
        return groups

    def _committed(self, instant: str) -> bool:
        if instant in self.visible_instants:
            return True
        return self.timeline_start is not None and instant < self.timeline_start and \
            (self.as_of is None or instant <= self.as_of)

    def _archived_log(self, instant: str) -> bool:
        """A log file's instant was archived: older than every write instant on the active timeline, pending
        ones included (Java's ``isArchived``: before the write timeline's first non-savepoint instant), and
        within the bound."""
        if self._first_write is None:
            writes = [i.requested_time for i in self.timeline.instants if i.action in WRITE_ACTIONS]
            self._first_write = min(writes) if writes else ""
        return instant < self._first_write and (self.as_of is None or instant <= self.as_of)

    def _archived_completion(self, instant: str) -> str | None:
        """Completion time of an archived instant, loaded once from the LSM history (Java's
        ``CompletionTimeQueryViewV2`` loads archived completion times when a file slice asks)."""
        if self._archived is None:
            self._archived = archived_completion_times(self.table_path, self.props)
        return self._archived.get(instant)

    def _in_compaction_plan(self, instant: str, partition: str, fid: str) -> bool:
        plan = self.pending_compactions.get(instant)
        return plan is not None and fid in plan.get(partition, ())

    def _group(self, partition, fid, bases: list[BaseFile], logs: list[LogFile]) -> FileGroup:
        slices: dict[str, FileSlice] = {}
        for bf in sorted(bases, key=lambda b: b.instant):
            # several base files of one instant (retries) — keep the last by name
            slices[bf.instant] = FileSlice(partition, fid, bf.instant, bf)
        for c in self.pending_compactions:
            if (bases or logs) and self._in_compaction_plan(c, partition, fid):
                slices.setdefault(c, FileSlice(partition, fid, c))
        if self.props.version >= 8:
            base_instants = sorted(slices)
            log_only: FileSlice | None = None
            for lf in sorted(logs, key=LogFile.sort_key):
                if lf.instant in self.visible_instants:
                    done = self.completion[lf.instant]
                elif self._archived_log(lf.instant):  # its completion time is in the LSM history
                    done = self._archived_completion(lf.instant)
                else:
                    continue  # uncommitted (or beyond the bound) log file
                # the slice whose base instant precedes the log file's completion time; an archived
                # instant the history does not hold goes to the newest slice (Java's isSlicedAfterOrOn)
                cands = [b for b in base_instants if done is None or b < done]
                if cands:
                    slices[cands[-1]].log_files.append(lf)
                else:
                    if log_only is None:
                        log_only = slices.setdefault(lf.instant, FileSlice(partition, fid, lf.instant))
                    log_only.log_files.append(lf)
        else:
            for lf in logs:
                if lf.instant in slices:
                    slices[lf.instant].log_files.append(lf)
                elif lf.instant in self.pending_compactions:
                    # written after the compaction was requested: the new slice based on its instant
                    slices.setdefault(lf.instant, FileSlice(partition, fid, lf.instant)).log_files.append(lf)
                elif self._committed(lf.instant) or not bases:
                    # log-only slice (no base file yet); the scanner filters blocks by instant
                    if self._committed(lf.instant) or self.as_of is None:
                        slices.setdefault(lf.instant, FileSlice(partition, fid, lf.instant)).log_files.append(lf)
        out = []
        for k in sorted(slices):
            s = slices[k]
            s.log_files.sort(key=LogFile.sort_key)
            out.append(s)
        return FileGroup(partition, fid, out)

    def latest_file_slices(self) -> list[FileSlice]:
        """The latest slice of every file group, a pending compaction's slice merged with the one before."""
        out = []
        for p in self.partitions:
            for g in self.file_groups[p]:
                s = g.latest_slice
                if s is None:
                    continue
                if s.base_file is None and s.base_instant in self.pending_compactions and len(g.slices) > 1:
                    prev = g.slices[-2]
                    s = FileSlice(p, g.file_id, prev.base_instant, prev.base_file,
                                  sorted(prev.log_files + s.log_files, key=LogFile.sort_key))
                out.append(s)
        return out

    def to_dict(self) -> dict:
        return {p: [{"file_id": g.file_id, "slices": [s.to_dict() for s in g.slices]} for g in gs]
                for p, gs in self.file_groups.items()}
