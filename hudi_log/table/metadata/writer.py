"""The metadata table's writer: a data action's records as a metadata deltacommit at the data instant's time
(``HoodieBackedTableMetadataWriter.update`` / ``commitInternal``), and the metadata table's creation
(``initializeIfNeeded`` / ``initializeFromFilesystem``).

:func:`update_metadata_table` loads the builder of every partition the data table lists in
``hoodie.table.metadata.partitions`` (a partition without one is refused by name before anything is written),
routes each builder's records to the partition's file groups (``file_group_index``), writes per touched file
group one HFILE data block (and a delete block for deleted keys) to a log file (table version 8 on: a new log
file named by the instant, as Java 1.x; version 6: Java 0.x's naming by the slice's base instant, a new log
version per write, as Hudi on local disk and object stores), and completes a deltacommit on the metadata
table's own timeline at the data instant's time (requested, inflight, completed with write stats as Java
writes them). The caller does this under the data table's lock, before it completes its own instant (the
metadata table commits first; a crash between the two leaves a metadata deltacommit whose data instant is
pending, which readers ignore and the next rollback of that data instant undoes). Every change to the
metadata table (sync, its services, its creation) is also made under the metadata lock
(:func:`~hudi_log.table.concurrency.lock.metadata_lock`), whatever the concurrency mode: processes sharing
a single-writer table (a writer beside a compaction process) would otherwise roll back each other's
half-written deltacommits as failed ones.

Rollback (``update(HoodieRollbackMetadata)``): from table version 8 on the metadata deltacommit of the
rolled-back instant is itself rolled back, at the data rollback's instant time; on version 6 a deltacommit at
the rollback's time records the log files it appended to, then the rolled-back instant's deltacommit is rolled
back at the rollback's time + ``006``. A metadata write first rolls back the metadata table's pending
deltacommits (a failed earlier metadata write), as its own write client does. Rolling back a metadata instant
and the metadata table's own compaction, clean and archival are ``hudi_log.table.metadata.services``
(:func:`run_metadata_services` calls them).

:func:`bootstrap_metadata_table` creates ``.hoodie/metadata`` for a table without one: its properties, each
partition's folder, ``.hoodie_partition_metadata`` and file groups (an empty log file holding an empty delete
block, as Java starts each), the records of the table as it is in a base HFile per file group, and the
initialising deltacommits as Java names them (version 8 on: ``00000000000000000`` plus one per partition;
version 6: the latest completed data instant, or ``00000000000000``, + ``010`` plus one per partition).
"""

from __future__ import annotations

import importlib
import json
import logging
import time
from collections import defaultdict
from typing import Mapping

from ...format.log_file_name import make_write_token
from ...log.storage import Storage
from ...log.writer import LogWriter
from ...paths import AnyPath, as_path
from ..concurrency.config import concurrency_config
from ..concurrency.lock import metadata_lock
from ..metadata_files import SOLO_COMMIT_PREFIX, metadata_path
from ..metadata_table import METADATA_PARTITIONS_KEYS, MetadataTableError
from ..properties import TableProperties, has_properties, java_date, read_properties, write_atomic, write_properties
from ..timeline.commit_metadata import empty_write_stat
from ..timeline.timeline import Timeline
from ..timeline.writer import TimelineWriter
from ..view.file_system_view import PARTITION_METAFILE, FileSystemView
from .change import DataChange, MetadataRecord, builder_module
from .records import base_hfile, delete_block, hfile_block, metadata_schema
from .services import rollback_metadata_instant  # first: services re-exports services_rollback
from .services_rollback import drop_pending_rollbacks

log = logging.getLogger("hudi_log")
DELTACOMMIT = "deltacommit"
ROLLBACK_SUFFIX = "006"  # HoodieTableMetadataUtil.OperationSuffix.ROLLBACK
PARTITION_INIT_SUFFIX = 10  # PARTITION_INITIALIZATION_TIME_SUFFIX (version six's initialising instants)
_FILE_ID_PREFIX = {"column_stats": "col-stats"}  # MetadataPartitionType's prefixes; the rest: name with '-'


def listed_partitions(props: TableProperties) -> list[str]:
    return [p for p in (props.get(METADATA_PARTITIONS_KEYS[0]) or "").split(",") if p]


def file_group_id(partition: str, index: int) -> str:
    """``HoodieTableMetadataUtil.getFileIDForFileGroup``: ``{prefix}-{index:04d}-0``."""
    return f"{_FILE_ID_PREFIX.get(partition, partition.replace('_', '-'))}-{index:04d}-0"


def load_builders(table_path, partitions) -> dict:
    """partition -> its builder module; a partition hudi-log has no builder for is refused by name."""
    out = {}
    for p in partitions:
        name = builder_module(p)
        module = None
        if name is not None:
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as e:
                if e.name != name:
                    raise
        if module is None:
            raise MetadataTableError(metadata_path(table_path) / p, f"the metadata partition {p!r} is one hudi-log "
                                     "cannot maintain, so writing would leave it stale (drop that index with Hudi, "
                                     "or run with hoodie.metadata.enable=false to delete the metadata table)")
        if hasattr(module, "for_partition"):  # one module serving several partitions: bound to this one
            module = module.for_partition(table_path, read_properties(table_path), p)
        out[p] = module
    return out


def run_metadata_services(table_path, options: Mapping | None, inflight_instant: str | None = None) -> list[str]:
    """The metadata table's compaction, clean and archival check where Java runs them: when a data write is
    about to sync its instant ``inflight_instant`` (:func:`.services.run_table_services`)."""
    from ..metadata_files import metadata_enabled
    from .services import run_table_services

    if not metadata_enabled(options):
        return []
    with metadata_lock(table_path, concurrency_config(options)):
        return run_table_services(table_path, dict(options or {}), inflight_instant=inflight_instant)


# ---- writing records -----------------------------------------------------------------------------------


def _write_stat(partition: str, file_id: str, appended, instant_in_name: str, upserts: int, deletes: int,
                base_file: str) -> dict:
    size = as_path(appended.path).stat().st_size
    name = appended.log_file.name
    return {**empty_write_stat(), "fileId": file_id, "path": f"{partition}/{name}", "prevCommit": instant_in_name,
            "numWrites": upserts, "numDeletes": deletes, "numUpdateWrites": upserts, "partitionPath": partition,
            "totalWriteBytes": appended.bytes_written, "fileSizeInBytes": size, "logVersion": appended.log_file.version,
            "logOffset": appended.start_offset, "baseFile": base_file, "logFiles": [name],
            "runtimeStats": {"totalScanTime": 0, "totalCreateTime": 0, "totalUpsertTime": 0}}


def _route(root, mprops: TableProperties, partition: str, builder, records: list[MetadataRecord]):
    """file group id -> (its latest slice, records), as the builder maps keys to the partition's groups."""
    view = FileSystemView(root, mprops, Timeline(root, mprops))
    groups = {g.file_id: g for g in view.file_groups.get(partition, [])}
    if not groups:
        raise MetadataTableError(root / partition, f"the metadata partition {partition!r} has no file groups "
                                 "(its initialisation did not finish; delete the metadata table with "
                                 "hoodie.metadata.enable=false to rebuild it)")
    out: dict[str, list] = defaultdict(list)
    for rec in records:
        fid = file_group_id(partition, builder.file_group_index(rec.key, len(groups)))
        if fid not in groups:
            raise MetadataTableError(root / partition, f"record {rec.key!r} maps to file group {fid}, which the "
                                     f"metadata table does not have ({len(groups)} groups)")
        out[fid].append(rec)
    return {fid: (groups[fid].latest_slice, recs) for fid, recs in out.items()}


def write_deltacommit(table_path, instant: str, by_partition: Mapping[str, list[MetadataRecord]],
                      builders: Mapping, operation: str = "UPSERT_PREPPED") -> None:
    """Write the records as one metadata deltacommit at ``instant`` (log files, then the timeline)."""
    root = metadata_path(table_path)
    mprops = read_properties(root)
    # a failed earlier metadata write (its deltacommit left pending) is rolled back first, as the metadata
    # table's own write client does with its failed writes (EAGER)
    # (and one at this very instant, completed by an earlier run of a data action that died before its own
    # instant completed and now runs again, as a pending clean or rollback does: written again from scratch)
    for t, inst in sorted(_metadata_instants(root).items()):
        if not inst.is_completed or t == instant:
            rollback_metadata_instant(table_path, t, TimelineWriter(root, mprops).new_instant_time())
    drop_pending_rollbacks(table_path)
    version = mprops.version
    tw = TimelineWriter(root, mprops)
    routed = {p: _route(root, mprops, p, builders[p], recs) for p, recs in by_partition.items() if recs}
    tw.requested(DELTACOMMIT, instant)
    tw.inflight(DELTACOMMIT, instant)
    stats: dict[str, list[dict]] = {}
    storage = Storage.for_path(table_path, supports_append=False)  # as Hudi: only HDFS-like stores append
    n = 0
    for partition, groups in routed.items():
        for fid, (slc, recs) in sorted(groups.items()):
            # a key written twice in one action: the later record wins, as Java's prepped records reduce
            last: dict[str, MetadataRecord] = {r.key: r for r in recs}
            upserts = [r for r in last.values() if r.payload is not None]
            deletes = [r.key for r in last.values() if r.payload is None]
            blocks = ([hfile_block(instant, upserts, version)] if upserts else []) + \
                ([delete_block(instant, deletes, partition)] if deletes else [])
            in_name = instant if version >= 8 or slc is None else slc.base_instant
            writer = LogWriter(str(root / partition), fid, in_name, table_version=version, storage=storage,
                               write_token=make_write_token(n, int(instant[-6:]) % 100000, 1))
            try:
                appended = writer.append_blocks(blocks)
            finally:
                writer.close()
            base = slc.base_file.path.name if slc is not None and slc.base_file is not None else ""
            stats.setdefault(partition, []).append(
                _write_stat(partition, fid, appended, in_name, len(upserts), len(deletes), base))
            n += 1
    schema = metadata_schema(version)
    plain = {**schema, "fields": [f for f in schema["fields"] if not f["name"].startswith("_hoodie_")]}
    tw.complete(DELTACOMMIT, instant, {
        "partitionToWriteStats": stats, "compacted": False, "operationType": operation,
        "extraMetadata": {"schema": json.dumps(plain, separators=(",", ":"))}})


def _rolled_back(change: DataChange) -> list[str]:
    md = change.metadata
    if change.action == "rollback":
        return list(md.get("commitsRollback") or [])
    return [c for rms in (md.get("hoodieRestoreMetadata") or {}).values() for rm in rms or []
            for c in rm.get("commitsRollback") or []]


def _metadata_instants(root) -> dict[str, object]:
    mprops = read_properties(root)
    return {i.requested_time: i for i in Timeline(root, mprops).instants if i.action == DELTACOMMIT}


def update_metadata_table(change: DataChange) -> None:
    """Bring the metadata table up to date with ``change`` (see the module's docstring)."""
    root = metadata_path(change.table_path)
    if not has_properties(root):
        raise MetadataTableError(root, "the data table lists metadata partitions but has no metadata table (run "
                                 "with hoodie.metadata.enable=false to clear them, then again to rebuild it)")
    builders = load_builders(change.table_path, listed_partitions(change.props))
    if change.action in ("rollback", "restore") and change.props.version >= 8:
        pending = _metadata_instants(root)
        targets = sorted((t for t in _rolled_back(change) if t in pending), reverse=True)  # newest first
        mprops = read_properties(root)
        for t in targets:  # a rollback at the data rollback's own time; a restore's, each at a time of its own
            at = change.instant if change.action == "rollback" else TimelineWriter(root, mprops).new_instant_time()
            rollback_metadata_instant(change.table_path, t, at)
        if change.action == "rollback":
            return
    by_partition = {p: list(b.records(change)) for p, b in builders.items()}
    write_deltacommit(change.table_path, change.instant, by_partition, builders)
    if change.action == "rollback":  # version 6: the rolled-back instant's own deltacommit goes after
        pending = _metadata_instants(root)
        for t in _rolled_back(change):
            if t in pending:
                rollback_metadata_instant(change.table_path, t, change.instant + ROLLBACK_SUFFIX)


# ---- creating the metadata table ------------------------------------------------------------------------


def _metadata_properties(data: TableProperties) -> dict[str, str]:
    """The metadata table's hoodie.properties as Java writes it for the data table's version."""
    v = data.version
    p = {"hoodie.table.name": f"{data.get('hoodie.table.name') or 'table'}_metadata",
         "hoodie.table.type": "MERGE_ON_READ", "hoodie.table.version": str(v),
         "hoodie.table.base.file.format": "HFILE", "hoodie.populate.meta.fields": "false",
         "hoodie.table.recordkey.fields": "key", "hoodie.datasource.write.drop.partition.columns": "false",
         "hoodie.compaction.payload.class": "org.apache.hudi.metadata.HoodieMetadataPayload"}
    if v >= 8:
        p.update({"hoodie.table.initial.version": str(v), "hoodie.table.keygenerator.type": "HOODIE_TABLE_METADATA",
                  "hoodie.archivelog.folder": "history", "hoodie.timeline.layout.version": "2",
                  "hoodie.timeline.history.path": "history", "hoodie.timeline.path": "timeline",
                  "hoodie.record.merge.strategy.id": "00000000-0000-0000-0000-000000000000",
                  "hoodie.record.merge.mode": "CUSTOM"})
    else:
        p.update({"hoodie.archivelog.folder": "archived", "hoodie.timeline.layout.version": "1",
                  "hoodie.table.keygenerator.class": "org.apache.hudi.metadata.HoodieTableMetadataKeyGenerator"})
    return p


def _enabled(options: Mapping, key: str, default: bool) -> bool:
    v = options.get(key)
    return default if v is None else str(v).strip().lower() == "true"


def default_partitions(props: TableProperties, options: Mapping | None) -> list[str]:
    """The partitions Java's ``HoodieMetadataConfig`` defaults give a Spark writer at the table's version
    (0.14/0.15: files; 1.0 and 1.1: files, column_stats, partition_stats; the record index and bloom filters
    only when asked for), limited to those hudi-log has a builder for."""
    o = dict(options or {})
    v1 = props.version >= 8
    stats = _enabled(o, "hoodie.metadata.index.column.stats.enable", v1)
    wanted = ["files"]
    if stats:
        wanted.append("column_stats")
    if stats and _enabled(o, "hoodie.metadata.index.partition.stats.enable", v1) and props.partition_fields:
        wanted.append("partition_stats")  # never for a non-partitioned table (Java's PartitionStatsIndexer)
    if _enabled(o, "hoodie.metadata.index.bloom.filter.enable", False):
        wanted.append("bloom_filters")
    if _enabled(o, "hoodie.metadata.record.index.enable", False):
        wanted.append("record_index")
    out = []
    for p in wanted:
        try:
            load_builders(".", [p])
        except MetadataTableError:
            log.info("metadata partition %s: hudi-log has no builder for it; not created", p)
            continue
        out.append(p)
    return out


def _init_instants(table_path, props: TableProperties, count: int, taken: set[str]) -> list[str]:
    if props.version >= 8:  # generateUniqueInstantTime: SOLO_COMMIT_TIMESTAMP plus n milliseconds
        def name(n: int) -> str:
            return f"{n:017d}"
    else:  # createIndexInitTimestamp(initializationTime, offset)
        done = [i.requested_time for i in Timeline(table_path, props).completed()]
        base = done[-1] if done else SOLO_COMMIT_PREFIX

        def name(n: int) -> str:
            return f"{base}{PARTITION_INIT_SUFFIX + n:03d}"
    out, n = [], 0
    while len(out) < count:
        if name(n) not in taken:
            out.append(name(n))
        n += 1
    return out


def _partition_metafile(folder, instant: str) -> None:
    import datetime

    folder.mkdir(parents=True, exist_ok=True)
    f = folder / PARTITION_METAFILE
    if not f.exists():
        now = datetime.datetime.now(datetime.timezone.utc)
        write_atomic(f, f"#partition metadata\n#{java_date(now)}\ncommitTime={instant}\npartitionDepth=1\n".encode())


def _init_partition(table_path, props: TableProperties, partition: str, builder, instant: str,
                    options: Mapping) -> None:
    root = metadata_path(table_path)
    mprops = read_properties(root)
    version = mprops.version
    records = list(builder.bootstrap(table_path, props, options))
    count = max(1, int(builder.file_group_count(len(records), options)))
    folder = root / partition
    _partition_metafile(folder, instant)
    tw = TimelineWriter(root, mprops)
    tw.requested(DELTACOMMIT, instant)
    tw.inflight(DELTACOMMIT, instant)
    by_group: dict[int, list] = defaultdict(list)
    for rec in records:
        by_group[builder.file_group_index(rec.key, count)].append(rec)
    storage = Storage.for_path(table_path, supports_append=False)  # as Hudi: only HDFS-like stores append
    stats = []
    for i in range(count):
        fid = file_group_id(partition, i)
        w = LogWriter(str(folder), fid, instant, table_version=version, storage=storage,
                      write_token=make_write_token(0, 0, 0), version=1)
        try:  # Java starts every file group with an empty delete block
            w.append_blocks([delete_block(instant, [], partition)])
        finally:
            w.close()
        recs = [r for r in by_group.get(i, []) if r.payload is not None]
        if not recs:
            continue
        name = f"{fid}_{make_write_token(i, 0, 0)}_{instant}.hfile"
        data = base_hfile(recs, version)
        write_atomic(folder / name, data)
        stats.append({**empty_write_stat(), "fileId": fid, "path": f"{partition}/{name}", "prevCommit": "null",
                      "numWrites": len(recs), "numInserts": len(recs), "partitionPath": partition,
                      "totalWriteBytes": len(data), "fileSizeInBytes": len(data),
                      "runtimeStats": {"totalScanTime": 0, "totalCreateTime": 0, "totalUpsertTime": 0}})
    schema = metadata_schema(version)
    plain = {**schema, "fields": [f for f in schema["fields"] if not f["name"].startswith("_hoodie_")]}
    tw.complete(DELTACOMMIT, instant, {
        "partitionToWriteStats": {partition: stats} if stats else {}, "compacted": False,
        "operationType": "BULK_INSERT_PREPPED", "extraMetadata": {"schema": json.dumps(plain, separators=(",", ":"))}})


def bootstrap_metadata_table(table_path: AnyPath, props: TableProperties, options: Mapping | None = None,
                             partitions: list[str] | None = None) -> TableProperties:
    """Create the metadata table of a table that has none (see the module's docstring); returns the data
    table's properties with the partitions recorded. ``partitions``: default :func:`default_partitions`."""
    options = dict(options or {})
    root = metadata_path(table_path)
    if has_properties(root):
        return props
    wanted = partitions if partitions is not None else default_partitions(props, options)
    if "files" not in wanted:
        wanted = ["files"] + list(wanted)
    builders = load_builders(table_path, wanted)
    metadata_schema(props.version)  # a version hudi-log cannot write the metadata table of: refused here
    started = time.time()
    (root / ".hoodie").mkdir(parents=True, exist_ok=True)
    mprops = write_properties(root, _metadata_properties(props))
    for sub in (".aux", ".temp", ".schema", ".heartbeat"):
        (root / ".hoodie" / sub).mkdir(exist_ok=True)
    if mprops.version >= 8:
        (root / ".hoodie" / "timeline" / "history").mkdir(parents=True, exist_ok=True)
    instants = _init_instants(table_path, props, len(wanted), set())
    p = props.to_dict()
    p[METADATA_PARTITIONS_KEYS[1]] = ",".join(wanted)  # inflight until every partition is initialised
    props = write_properties(table_path, p)
    for partition, instant in zip(wanted, instants):
        _init_partition(table_path, props, partition, builders[partition], instant, options)
    p = props.to_dict()
    p[METADATA_PARTITIONS_KEYS[0]] = ",".join(sorted(set(listed_partitions(props)) | set(wanted)))
    p[METADATA_PARTITIONS_KEYS[1]] = ""
    log.info("%s: created the metadata table (partitions %s) in %.1f s", table_path, ", ".join(wanted),
             time.time() - started)
    return write_properties(table_path, p)


# ---- the hooks every data action calls ------------------------------------------------------------------

#: the action a data instant completes as (compaction completes as commit, clustering as replacecommit)
_COMPLETES_AS = {"compaction": "commit", "clustering": "replacecommit", "logcompaction": "deltacommit"}


def prepare_metadata_table(table_path, props: TableProperties, options: Mapping | None) -> TableProperties:
    """Before a write changes anything: with ``hoodie.metadata.enable`` true (the default) a table without a
    metadata table gets one (Java's writer initialises it at its first write); the partitions it lists must
    all have builders (refused by name here, before anything is written)."""
    from ..metadata_files import metadata_enabled

    if not metadata_enabled(options):
        return props
    if not has_properties(metadata_path(table_path)):
        with metadata_lock(table_path, concurrency_config(options)):
            if not has_properties(metadata_path(table_path)):
                return bootstrap_metadata_table(table_path, props, options)
        props = read_properties(table_path)  # another process created it meanwhile
    load_builders(table_path, listed_partitions(props))
    return props


def sync_metadata_table(table_path, instant: str, action: str, metadata: Mapping,
                        options: Mapping | None) -> None:
    """What a data action calls just before it completes its own instant, under the data table's lock where it
    holds one: the metadata deltacommit of ``metadata`` (the action's metadata as its completed instant will
    hold it) at ``instant``, when the metadata table is enabled and present; nothing otherwise."""
    from ..metadata_files import metadata_enabled

    if not metadata_enabled(options) or not has_properties(metadata_path(table_path)):
        return
    with metadata_lock(table_path, concurrency_config(options)):  # one syncing process at a time
        props = read_properties(table_path)
        update_metadata_table(DataChange(table_path, props, instant, _COMPLETES_AS.get(action, action),
                                         dict(metadata), dict(options or {})))


def check_metadata_partitions(table_path, props: TableProperties, options: Mapping | None) -> None:
    """What a table service checks before it changes files: every partition of an enabled metadata table has a
    builder (else :class:`MetadataTableError` naming it, before anything is written)."""
    from ..metadata_files import metadata_enabled

    if metadata_enabled(options) and has_properties(metadata_path(table_path)):
        load_builders(table_path, listed_partitions(props))
