"""Timeline archival, as Apache Hudi 0.14's ``HoodieTimelineArchiver`` does it for table version 6, and the
reader of the archive it writes (``HoodieArchivedTimeline``).

Which instants (``getCleanInstantsToArchive`` / ``getCommitInstantsToArchive``; ``HoodieArchivalConfig``
defaults ``hoodie.keep.min.commits`` 20, ``hoodie.keep.max.commits`` 30, and max must exceed min):

* Completed cleans and completed rollbacks, each action on its own: more than max → the oldest
  (count − min).
* Completed commits (commit, deltacommit, replacecommit): more than max → the oldest (count − min),
  but only those older than every one of: the last completed commit before the oldest pending write
  instant (or that pending instant); the first savepoint; on MERGE_ON_READ the instant compaction
  scheduling still needs (``CompactionUtils.getOldestInstantToRetainForCompaction`` with
  ``hoodie.compact.inline.max.delta.commits``, default 5); the first replace commit the last clean has
  not yet passed (``ClusteringUtils.getOldestInstantToRetainForClustering``: its replaced files are
  still on disk, and readers need its metadata to hide them).
* Every file of an archived instant goes (requested, inflight, completed: Java groups by time and
  comparable action), one ``HoodieArchivedMetaEntry`` record per file, cleans first, then commits.
* With a metadata table, no commit at or after the metadata table's latest compaction (none before its
  first); the metadata table's own timeline is not archived here (docs/metadata_table.md).

Writing (table version 6): records are Avro data blocks of ``hoodie.commits.archival.batch`` (10) records,
header SCHEMA only, appended with this project's log writer to ``.hoodie/archived/.commits_.archive.N_1-0-1``
(file id ``commits``, empty base instant, extension ``archive``, Java's unknown write token). Local storage
does not append, so each run rolls over to the next version, as Java's writer does there. Then the archived
instant files are deleted: pending ones first, then completed ones oldest first (HUDI-7207: no holes).
Each record carries ``commitTime``, ``actionType``, ``actionState`` and the metadata
``MetadataConversionUtils.createMetaWrapper`` puts in (commit metadata JSON converted to the Avro
``HoodieCommitMetadata``, an empty one for an empty requested file; clean plan / metadata; rollback
metadata; compaction plan). Our schema leaves out the index fields a table hudi-log writes never holds;
Java's reader fills them with their defaults.

Table version 8+ keeps archived instants in the LSM timeline (``.hoodie/timeline/history``: Parquet files,
manifests, a version file) under Hudi 1.x's rules: :mod:`.archive_lsm` writes it, and :func:`read_archive`
reads either.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

import fastavro

from ...paths import AnyPath, as_path
from ...format import grammar
from ...format.block import LogBlock
from ...format.grammar import BlockType, HeaderKey
from ...format.log_file_name import ARCHIVE_EXTENSION
from ...log.writer import LogWriter
from ..concurrency.config import concurrency_config
from ..concurrency.lock import TableLock
from ..properties import TableError, TableProperties, check_writable, has_properties, read_properties
from ..timeline import commit_metadata as cm
from ..timeline.clustering_plan import REQUESTED_REPLACE_SCHEMA
from ..timeline.archive_v6 import archive_folder, read_v6_archive
from ..timeline.timeline import (
    CLEAN, COMMIT, COMPACTION, COMPLETED, DELTA_COMMIT, REPLACE_COMMIT, ROLLBACK, WRITE_ACTIONS,
    Instant, Timeline, comparable_action,
)
from .clean import CLEAN_METADATA_SCHEMA, CLEANER_PLAN_SCHEMA
from .archive_lsm import LsmConfig, archive_lsm, files_of, read_lsm_archive
from .compaction import COMPACTION_PLAN_SCHEMA
from .rollback import table_storage
from .savepoint import SAVEPOINT_METADATA_SCHEMA
from .options import resolve_service_options

DEFAULT_MIN_COMMITS, DEFAULT_MAX_COMMITS = 20, 30  # hoodie.keep.min.commits / hoodie.keep.max.commits
DEFAULT_BATCH = 10  # hoodie.commits.archival.batch
DEFAULT_MAX_DELTA_COMMITS = 5  # hoodie.compact.inline.max.delta.commits
ARCHIVE_FILE_ID = "commits"  # HoodieArchivedTimeline's archive log prefix
_NS = "org.apache.hudi.avro.model"


class ArchiveError(TableError):
    """The timeline cannot be archived (or the archive read) here."""


def _unique_names(schema: Any, seen: set[str], namespace: str | None = None) -> Any:
    """``schema`` with every named type defined once: a later definition becomes a reference by full name."""
    if isinstance(schema, list):
        return [_unique_names(s, seen, namespace) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if schema.get("type") in ("record", "enum", "fixed"):
        ns = schema.get("namespace", namespace)
        full = schema["name"] if "." in schema["name"] else f"{ns}.{schema['name']}" if ns else schema["name"]
        if full in seen:
            return full
        seen.add(full)
        if schema["type"] == "record":
            out["fields"] = [{**f, "type": _unique_names(f["type"], seen, ns)} for f in schema["fields"]]
        return out
    for key in ("items", "values"):
        if key in out:
            out[key] = _unique_names(out[key], seen, namespace)
    return out


def _opt(name: str, schema: Any) -> dict:
    return {"name": name, "type": ["null", schema], "default": None}


_EMPTY = {"type": "record", "name": "HoodieCompactionMetadata", "namespace": _NS, "fields": []}  # deprecated
ARCHIVED_META_ENTRY_SCHEMA = _unique_names({
    "type": "record", "name": "HoodieArchivedMetaEntry", "namespace": _NS,
    "fields": [
        _opt("hoodieCommitMetadata", cm.COMMIT_METADATA_SCHEMA),
        _opt("hoodieCleanMetadata", CLEAN_METADATA_SCHEMA),
        _opt("hoodieCompactionMetadata", _EMPTY),
        _opt("hoodieRollbackMetadata", cm.ROLLBACK_METADATA_SCHEMA),
        _opt("hoodieSavePointMetadata", SAVEPOINT_METADATA_SCHEMA),
        _opt("commitTime", "string"),
        _opt("actionType", "string"),
        {"name": "version", "type": ["int", "null"], "default": 1},
        _opt("hoodieCompactionPlan", COMPACTION_PLAN_SCHEMA),
        _opt("hoodieCleanerPlan", CLEANER_PLAN_SCHEMA),
        _opt("actionState", "string"),
        _opt("hoodieReplaceCommitMetadata", cm.REPLACE_COMMIT_METADATA_SCHEMA),
        _opt("hoodieRequestedReplaceMetadata", REQUESTED_REPLACE_SCHEMA),
        _opt("HoodieInflightReplaceMetadata", f"{_NS}.HoodieCommitMetadata"),
    ],
}, set())
_PARSED = fastavro.parse_schema(ARCHIVED_META_ENTRY_SCHEMA)


@dataclass(frozen=True)
class ArchiveConfig:
    min_commits: int = DEFAULT_MIN_COMMITS
    max_commits: int = DEFAULT_MAX_COMMITS
    batch: int = DEFAULT_BATCH
    max_delta_commits: int = DEFAULT_MAX_DELTA_COMMITS
    automatic: bool = True

    @classmethod
    def of(cls, options: Mapping | None, where) -> "ArchiveConfig":
        o = {str(k): str(v) for k, v in (options or {}).items()}
        try:
            c = cls(int(o.get("hoodie.keep.min.commits", DEFAULT_MIN_COMMITS)),
                    int(o.get("hoodie.keep.max.commits", DEFAULT_MAX_COMMITS)),
                    int(o.get("hoodie.commits.archival.batch", DEFAULT_BATCH)),
                    int(o.get("hoodie.compact.inline.max.delta.commits", DEFAULT_MAX_DELTA_COMMITS)),
                    o.get("hoodie.archive.automatic", "true").lower() != "false")
        except ValueError as e:
            raise ArchiveError(where, f"archival options must be integers: {e}") from e
        if c.min_commits < 1 or c.batch < 1 or c.max_commits <= c.min_commits:
            raise ArchiveError(where, f"hoodie.keep.max.commits={c.max_commits} must be greater than "
                               f"hoodie.keep.min.commits={c.min_commits} (both positive)")
        LsmConfig.of(options, where)  # the version-8 options too
        return c


@dataclass(frozen=True)
class ArchivedInstant:
    """One record of the archive: an instant file that was on the active timeline."""
    commit_time: str
    action: str
    state: str
    file: str = ""  # the archive file holding it
    metadata: Mapping = field(default_factory=dict, compare=False, repr=False)
    completion_time: str | None = None  # the LSM history records it (version 8+)

    def to_dict(self) -> dict:
        return {"instant": self.commit_time, "action": self.action, "state": self.state,
                "completion_time": self.completion_time, "archive_file": self.file}


# ---- which instants ------------------------------------------------------------------------------
def _oldest_to_retain_for_compaction(timeline: Timeline, max_delta: int) -> str | None:
    deltas = [i for i in timeline.instants if i.action == DELTA_COMMIT]
    compactions = [i for i in timeline.completed() if i.action == COMMIT]
    if compactions:
        last = compactions[-1].requested_time
        after = [i for i in deltas if i.requested_time > last]
    elif deltas:
        last, after = deltas[0].requested_time, deltas
    else:
        return None
    if len(after) < max_delta:
        return last
    return after[len(after) - max_delta].requested_time


def _oldest_to_retain_for_clustering(timeline: Timeline) -> str | None:
    replaces = [i for i in timeline.instants if comparable_action(i.action) == REPLACE_COMMIT]
    if not replaces:
        return None
    cleans = [i for i in timeline.instants if i.action == CLEAN and i.state != "REQUESTED"]
    if not cleans:
        return replaces[0].requested_time
    clean = cleans[-1]
    try:
        req = timeline.folder / f"{clean.requested_time}.{CLEAN}.requested"
        plan = next(iter(fastavro.reader(io.BytesIO(req.read_bytes()))))
        bound = (plan.get("earliestInstantToRetain") or {}).get("timestamp") or clean.requested_time
    except Exception as e:  # noqa: BLE001 - an unreadable plan: archive nothing it might cover
        raise ArchiveError(timeline.folder, f"cannot read the cleaner plan of {clean.requested_time}: {e}") from e
    later = [i for i in replaces if i.requested_time >= bound]
    return later[0].requested_time if later else None


def instants_to_archive(timeline: Timeline, props: TableProperties, config: ArchiveConfig) -> list[Instant]:
    """The instants (their latest state) archival takes, cleans and rollbacks first, then commits."""
    out: list[Instant] = []
    for action in (CLEAN, ROLLBACK):
        done = [i for i in timeline.completed() if i.action == action]
        if len(done) > config.max_commits:
            out += done[:len(done) - config.min_commits]
    commits = timeline.completed_commits()
    if len(commits) <= config.max_commits:
        return out
    bounds = retain_bounds(timeline, props, config, commits)
    eligible = [c for c in commits if all(c.requested_time < b for b in bounds)]
    return out + eligible[:len(commits) - config.min_commits]


def retain_bounds(timeline: Timeline, props: TableProperties, config: ArchiveConfig, commits: list[Instant]) -> list[str]:
    """Requested times no archived commit may reach (0.14 and 1.x alike): the last completed commit before
    the oldest pending write (or that write), the first savepoint, compaction's and clustering's needs."""
    bounds: list[str | None] = []
    pending = [i for i in timeline.pending() if i.action in WRITE_ACTIONS]
    if pending:
        before = [c for c in commits if c.requested_time < pending[0].requested_time]
        bounds.append(before[-1].requested_time if before else pending[0].requested_time)
    savepoints = timeline.savepoints()
    if savepoints:
        bounds.append(savepoints[0].requested_time)
    if props.is_mor:
        bounds.append(_oldest_to_retain_for_compaction(timeline, config.max_delta_commits))
    bounds.append(_oldest_to_retain_for_clustering(timeline))
    bounds.append(_metadata_compaction_bound(timeline.table_path))
    return [b for b in bounds if b is not None]


def _metadata_compaction_bound(table_path) -> str | None:
    """With a metadata table, no commit at or after its latest compaction is archived (Java's archiver: the
    metadata table's log blocks of a later data commit are only valid while that commit is on the data
    timeline); before its first compaction, none ("0" bounds every instant time). None: no metadata table."""
    root = as_path(table_path) / ".hoodie" / "metadata"
    if not has_properties(root):
        return None
    meta = Timeline(root, read_properties(root))
    compactions = [i for i in meta.completed() if i.action == COMMIT]
    return compactions[-1].requested_time if compactions else "0"


# ---- records -------------------------------------------------------------------------------------
def _avro(data: bytes) -> dict | None:
    return next(iter(fastavro.reader(io.BytesIO(data)))) if data.strip() else None


def _commit_record(data: bytes) -> dict:
    if data[:4] == b"Obj\x01":
        md = _avro(data) or {}
    else:
        md = json.loads(data.decode("utf-8")) if data.strip() else {}
    return {"partitionToWriteStats": md.get("partitionToWriteStats") or {},
            "compacted": bool(md.get("compacted", False)), "extraMetadata": md.get("extraMetadata") or {},
            "version": md.get("version", 1), "operationType": md.get("operationType") or "UNKNOWN",
            **({"partitionToReplaceFileIds": md.get("partitionToReplaceFileIds") or {}}
               if "partitionToReplaceFileIds" in md else {})}


def entry_of(inst: Instant, data: bytes, timeline: Timeline) -> dict:
    """The ``HoodieArchivedMetaEntry`` of one instant file (``MetadataConversionUtils.createMetaWrapper``)."""
    rec: dict[str, Any] = {"commitTime": inst.requested_time, "actionType": inst.action, "actionState": inst.state,
                           "version": 1}
    completed = inst.state == COMPLETED
    if inst.action == CLEAN:
        rec["hoodieCleanMetadata" if completed else "hoodieCleanerPlan"] = _avro(data)
    elif inst.action in (COMMIT, DELTA_COMMIT):
        rec["hoodieCommitMetadata"] = _commit_record(data)
    elif inst.action == REPLACE_COMMIT:
        if completed:
            rec["hoodieReplaceCommitMetadata"] = _commit_record(data)
        elif inst.state == "REQUESTED" and data[:4] == b"Obj\x01":  # a clustering's plan (Java: getRequestedReplaceMetadata)
            rec["hoodieRequestedReplaceMetadata"] = _avro(data)
        elif inst.state == "INFLIGHT" and data.strip():
            rec["HoodieInflightReplaceMetadata"] = _commit_record(data)
    elif inst.action == ROLLBACK:
        if completed:
            rec["hoodieRollbackMetadata"] = _avro(data)
    elif inst.action == COMPACTION:
        req = timeline.folder / f"{inst.requested_time}.{COMPACTION}.requested"
        rec["hoodieCompactionPlan"] = _avro(req.read_bytes()) if req.exists() else None
    else:
        raise ArchiveError(inst.path or timeline.folder, f"cannot archive a {inst.action} instant")
    return rec


def _datum(rec: dict) -> bytes:
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, _PARSED, rec)
    return buf.getvalue()


def _write(folder: AnyPath, records: list[dict], batch: int) -> str:
    header = {HeaderKey.schema: json.dumps(ARCHIVED_META_ENTRY_SCHEMA, separators=(",", ":"))}
    blocks = [LogBlock.new(BlockType.avro_data_block, header, grammar.avro_data_content(
        grammar.CURRENT_AVRO_CONTENT_VERSION, [_datum(r) for r in records[i:i + batch]]))
        for i in range(0, len(records), batch)]
    folder.mkdir(parents=True, exist_ok=True)
    writer = LogWriter(str(folder), ARCHIVE_FILE_ID, "", table_version=6, extension=ARCHIVE_EXTENSION,
                       storage=table_storage(str(folder)))
    try:
        return as_path(writer.append_blocks(blocks).path).name
    finally:
        writer.close()


def archive(path, options: Mapping | None = None, *, automatic: bool = False) -> list[ArchivedInstant]:
    """Archive the table's timeline if it holds more than ``hoodie.keep.max.commits`` commits; the
    instant files archived (empty when nothing was due). ``automatic``: the run after a write, which skips
    (instead of refusing) tables it does not archive."""
    options = resolve_service_options(path, options)
    table_path = as_path(path)
    props = read_properties(table_path)
    config = ArchiveConfig.of(options, table_path)
    if automatic and not config.automatic:
        return []
    check_writable(props, "archival")
    props.check_meta_folders(table_path)  # the folders it would write, refused whether or not anything is due
    refusal = None
    if props.timeline_layout_version >= 2:
        refusal = LsmConfig.of(options, table_path).unsupported()  # the auto-archive skips: the timeline grows
    if refusal:
        if automatic:
            return []
        raise ArchiveError(table_path, refusal)
    with TableLock(table_path, concurrency_config(options)):
        timeline = Timeline(table_path, props)
        lsm = props.timeline_layout_version >= 2  # table version 8+: the LSM timeline (Hudi 1.x)
        done = _archive(table_path, props, timeline, None if lsm else instants_to_archive(timeline, props, config),
                        config, options)
        _archive_metadata_table(table_path, config, options)
        return done


def _archive(table_path, props: TableProperties, timeline: Timeline, chosen: list[Instant] | None,
             config: ArchiveConfig, options) -> list[ArchivedInstant]:
    """Archive ``chosen`` (LSM: None, the archiver's own choice) into the timeline's archive."""
    if props.timeline_layout_version >= 2:
        return archive_lsm(table_path, props, timeline, config, options, chosen=chosen)
    if not chosen:
        return []
    files = [f for inst in chosen for f in files_of(timeline, inst)]
    records = [entry_of(f, (f.path or timeline.folder / f.file_name).read_bytes(), timeline) for f in files]
    name = _write(archive_folder(table_path, props), records, config.batch)
    for f in [f for f in files if f.state != COMPLETED] + sorted(
            (f for f in files if f.state == COMPLETED), key=Instant.sort_key):
        (f.path or timeline.folder / f.file_name).unlink(missing_ok=True)
    return [ArchivedInstant(f.requested_time, f.action, f.state, name) for f in files]


def _archive_metadata_table(table_path, config: ArchiveConfig, options) -> list[ArchivedInstant]:
    """The metadata table's own timeline archived after the data table's (Java's metadata writer archives it
    with the data table's keep bounds + 1, never past what the data timeline or the next metadata compaction
    still needs: :func:`~hudi_log.table.metadata.services_archive.metadata_instants_to_archive`), with its
    cleans and rollbacks before the last one chosen. Version 6 only: from version 8 on a metadata log file
    belongs to a slice by its deltacommit's completion time, which hudi-log's view of the metadata table
    reads from the active timeline only (archiving those deltacommits made its listing lose files), so the
    metadata table's timeline is left whole there."""
    from ..metadata.services_archive import metadata_instants_to_archive

    root = as_path(table_path) / ".hoodie" / "metadata"
    if not has_properties(root) or read_properties(root).timeline_layout_version >= 2:
        return []
    chosen = metadata_instants_to_archive(table_path, options)
    if not chosen:
        return []
    mprops = read_properties(root)
    meta = Timeline(root, mprops)
    last = chosen[-1].requested_time
    chosen = sorted(chosen + [i for i in meta.completed() if i.action in (CLEAN, ROLLBACK) and i.requested_time < last],
                    key=Instant.sort_key)
    return _archive(root, mprops, meta, chosen, config, options)


# ---- reading -------------------------------------------------------------------------------------
def read_archive(path, props: TableProperties | None = None) -> list[ArchivedInstant]:
    """Every record of the archive, oldest instant first: the v6 archive (``.hoodie/archived/.commits_.archive.*``,
    one record per instant file), or on version 8+ the LSM history (one completed record per action)."""
    table_path = as_path(path)
    props = props or read_properties(table_path)
    if props.timeline_layout_version >= 2:
        return read_lsm_archive(table_path, props)
    return [ArchivedInstant(r.commit_time, r.action, r.state, r.file, r.metadata)
            for r in read_v6_archive(table_path, props)]


__all__ = ["ARCHIVED_META_ENTRY_SCHEMA", "ArchiveConfig", "ArchiveError", "ArchivedInstant", "archive",
           "entry_of", "instants_to_archive", "read_archive", "retain_bounds"]
