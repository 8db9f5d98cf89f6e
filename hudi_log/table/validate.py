"""A whole table checked (``hudi-log validate --table PATH``): what a read trusts, verified once.

* ``hoodie.properties``: readable, and ``hoodie.table.checksum`` matches (Hudi's ``HoodieTableConfig``
  validates the same checksum when it loads the properties);
* every completed instant's metadata parses (commit, delta commit, replace, clean, rollback ...: JSON in
  timeline layout 1, Avro in layout 2) — a read of a commit whose metadata is corrupt fails;
* every file a completed commit names is present unless a completed clean, rollback or replace removed
  it, and every committed log file is as long as its commits wrote (:mod:`.read.integrity`);
* every log file of the table (the metadata table's included) is framed and every block's content
  decodes: records with their SCHEMA header, delete payloads. A damaged span past a log file's committed
  extent is a failed write's tail that Hudi skips as well: it is listed as a note, not as damage;
* every committed base file that is there decodes, row group by row group (a read of a truncated or
  garbled one fails with :class:`~hudi_log.errors.DamagedFileError`);
* where the table keeps a metadata table listing ``files``, that listing equals storage's
  (:func:`~.metadata_files.compare_with_storage`, ``hudi-log metadata validate-files``): each difference is a
  ``metadata-table`` problem, since readers list files from it.

The report's ``code`` follows ``validate``'s contract for files: 0 intact, 1 damaged; a folder that is not
a table raises :class:`~hudi_log.table.properties.NotAHudiTableError` (the CLI's 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..paths import AnyPath, as_path, open_parquet, parquet_errors, walk_dirs
from ..errors import DamagedFileError, HudiLogError
from ..format.grammar import DATA_BLOCK_TYPES, BlockType
from ..format.reader import open_log
from .metadata_files import FILES_PARTITION, MetadataFilesError, compare_with_storage, metadata_path
from .properties import read_properties
from .read.integrity import committed_files, missing_or_short_files
from .timeline.timeline import Timeline, TimelineError


@dataclass(frozen=True)
class Problem:
    """One thing wrong: its kind (properties, metadata, missing, damaged), the file, the instant (if
    known) and what is wrong."""
    kind: str
    path: str
    message: str
    instant: str | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "path": self.path, "instant": self.instant, "message": self.message}


@dataclass
class TableReport:
    path: str
    checksum_ok: bool | None = None
    instants: int = 0
    committed_files: int = 0
    base_files: int = 0
    log_files: int = 0
    blocks: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def code(self) -> int:
        return 0 if self.ok else 1

    def to_dict(self) -> dict:
        return {"path": self.path, "ok": self.ok, "checksum_ok": self.checksum_ok, "instants": self.instants,
                "committed_files": self.committed_files, "base_files": self.base_files,
                "log_files": self.log_files, "blocks": self.blocks,
                "problems": [p.to_dict() for p in self.problems], "notes": list(self.notes)}


def _log_files(root: AnyPath) -> list[AnyPath]:
    out = []
    for reldir, dirs, names in walk_dirs(root):  # os.walk, or one recursive LIST on an object store
        # the timeline, archive and temp folders hold no data logs; the metadata table does
        rel = tuple(reldir.split("/")) if reldir else ()
        if rel[:1] == (".hoodie",) and rel[1:2] != ("metadata",):
            dirs[:] = [d for d in dirs if d == "metadata"] if len(rel) == 1 else []
        folder = root / reldir if reldir else root
        out += [folder / n for n in names if n.startswith(".") and ".log." in n]
    return sorted(out)


def _decode(block) -> None:
    """Decode a block's content as a reader would (raises on damage)."""
    _ = dict(block.header)
    if block.block_type in DATA_BLOCK_TYPES:
        block.records()
    elif block.block_type == BlockType.delete_block:
        block.deletes()


def _check_log(path: AnyPath, extent: tuple[int, str] | None, report: TableReport) -> None:
    try:
        for b in open_log(path):
            report.blocks += 1
            if b.corrupt or b.block_type == BlockType.corrupt_block:
                where = f"damaged block at offset {b.offset} ({b.length} bytes): {b.corrupt_detail}"
                if extent is not None and b.offset >= extent[0]:
                    report.notes.append(f"{path}: {where}, past the {extent[0]} committed bytes (a failed "
                                        "write's tail, skipped by Hudi too)")
                else:
                    report.problems.append(Problem("damaged", str(path), where, extent[1] if extent else None))
                continue
            try:
                _decode(b)
            except (HudiLogError, ValueError, KeyError, TypeError, EOFError, IndexError) as e:
                report.problems.append(Problem("damaged", str(path), f"block at offset {b.offset} "
                                               f"({b.block_type.name}) does not decode: {e}",
                                               extent[1] if extent else None))
    except (HudiLogError, OSError) as e:
        report.problems.append(Problem("damaged", str(path), f"cannot be read: {e}"))


def _check_base(path: AnyPath, instant: str, report: TableReport) -> None:
    """Decode every row group of a base file, one at a time (memory: one row group)."""
    try:
        with open_parquet(path) as f:
            for i in range(f.num_row_groups):
                with parquet_errors(path):
                    f.read_row_group(i)
    except DamagedFileError as e:
        report.problems.append(Problem("damaged", str(path), e.message, instant))
    except OSError as e:
        report.problems.append(Problem("damaged", str(path), f"cannot be read: {e.strerror or e}", instant))


def validate_table(path) -> TableReport:
    """Check the table at ``path`` (see the module docstring); problems are collected, not raised."""
    root = as_path(path)
    props = read_properties(root)  # not a table: NotAHudiTableError
    report = TableReport(str(root), checksum_ok=props.checksum_ok())
    if report.checksum_ok is False:
        report.problems.append(Problem("properties", str(root / ".hoodie" / "hoodie.properties"),
                                       "hoodie.table.checksum does not match the table name"))
    timeline = Timeline(root, props)
    for inst in timeline.completed():
        report.instants += 1
        try:
            timeline.commit_metadata(inst)
        except TimelineError as e:
            report.problems.append(Problem("metadata", e.path, e.message, inst.requested_time))
    try:
        files = committed_files(timeline)
        findings = missing_or_short_files(root, timeline, needed_only=False)
    except TimelineError:
        files, findings = {}, []  # reported above
    report.committed_files = len(files)
    report.problems += [Problem("missing" if "missing" in f.message else "damaged", f.path, f.message, f.instant)
                        for f in findings]
    extents = {(root / cf.rel_path): (cf.size, cf.instant) for cf in files.values()
               if cf.is_log and cf.size and not cf.group}
    short = {f.path for f in findings}
    for cf in sorted(files.values(), key=lambda cf: cf.rel_path):
        full = root / cf.rel_path
        if not cf.is_log and str(full) not in short and full.exists():
            report.base_files += 1
            _check_base(full, cf.instant, report)
    for lf in _log_files(root):
        report.log_files += 1
        if str(lf) not in short:  # a short log's lost tail is reported once, above
            _check_log(lf, extents.get(lf), report)
    _check_metadata_listing(root, props, report)
    return report


def _check_metadata_listing(root, props, report: TableReport) -> None:
    if not metadata_path(root).is_dir() or \
            FILES_PARTITION not in (props.get("hoodie.table.metadata.partitions") or "").split(","):
        return
    where = str(metadata_path(root) / FILES_PARTITION)
    try:
        diffs = compare_with_storage(root)
    except (MetadataFilesError, HudiLogError) as e:
        report.problems.append(Problem("metadata-table", where, f"the files partition cannot be read: {e}"))
        return
    report.problems += [Problem("metadata-table", where, d.line()) for d in diffs]
