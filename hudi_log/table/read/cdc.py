"""CDC queries: the changes of the write instants in (begin, end], as Hudi's ``HoodieCDCExtractor`` and
its Spark readers (``HoodieCDCRDD``, ``CDCFileGroupIterator``) return them.

Instants: completed commit / deltacommit / replacecommit instants whose *requested* time is in
(begin, end] (Java compares requested times in 0.x and 1.x alike) and whose operation changes data
(inserts, upserts, deletes, bulk inserts, overwrites, partition deletes; not compaction or clustering).
Per write stat of each, by Java's inference cases:

* **AS_IS**: the stat names CDC log files (``cdcStats``, written by a COPY_ON_WRITE merge): their records
  are the changes. ``DATA_BEFORE_AFTER`` holds both images; ``DATA_BEFORE`` takes the after image from
  the new base file; ``OP_KEY_ONLY`` takes the before image from the previous base file and the after
  image from the new one. Images from CDC records are printed as Avro's ``GenericData.toString`` prints
  them (meta fields were stripped when they were written).
* Otherwise (**BASE_FILE_INSERT**, **BASE_FILE_DELETE**, **LOG_FILE**): the file group as of the instant
  before and as of this instant, compared key by key: a key only after is ``i``, only before ``d``, in
  both with a different row ``u`` (a log record that lost to the stored row on ordering changes nothing
  and is no change). That is what Java computes for each case (a new base file: every row inserted; a
  base file of no rows: every old row deleted; a log file: its records merged onto the slice before it).
  Images are the table's rows, meta fields included, as Spark's JSON writer prints a row (no spaces,
  null fields left out).
* **REPLACE_COMMIT**: every row of a replaced file group (insert_overwrite, delete_partition) is ``d``.

``ts_ms`` is the instant's requested time in every case, as Java's readers set it.

Cleaned versions: the file group versions an instant's changes are computed from (its own files, and the
version before it, ``prevCommit``) must still be there. Java's readers open those files and fail on a missing
one; here a version the cleaner removed would read as no rows (updates turned into inserts, changes lost), so
:func:`check_versions` refuses the query first, naming the instants
(:class:`~hudi_log.table.errors.IncrementalCommitsGoneError`). Java's full-table-scan fallback is for
latest-state reads only: a CDC read has none.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from dataclasses import dataclass
from typing import Any, Iterator

import pyarrow as pa

from ...format.content.meta_fields import RECORD_KEY
from ...format.grammar import BlockType
from ...format.reader import open_log
from ...containment import within_table
from ...paths import as_path
from ..cdc import CDC_ARROW_SCHEMA, DATA_BEFORE, DATA_BEFORE_AFTER, DELETE, INSERT, OP_KEY_ONLY, UPDATE
from ...containment import within_table
from ..errors import IncrementalCommitsGoneError, QueryError
from ..timeline.commit_metadata import write_stats
from ..timeline.timeline import COMMIT, DELTA_COMMIT, REPLACE_COMMIT, Instant
from .query import HudiTable, ReadPlan, read_slice

#: operations whose instants yield changes (Java's ``WriteOperationType.yieldChanges``)
CHANGE_OPERATIONS = frozenset({
    "INSERT", "UPSERT", "UPSERT_PREPPED", "DELETE", "DELETE_PREPPED", "BULK_INSERT", "DELETE_PARTITION",
    "INSERT_OVERWRITE", "INSERT_OVERWRITE_TABLE", "BOOTSTRAP", "INSERT_PREPPED", "BULK_INSERT_PREPPED",
})
_ACTIONS = {COMMIT, DELTA_COMMIT, REPLACE_COMMIT}


class CdcQueryError(QueryError):
    """A CDC query the table cannot serve (CDC off, no begin instant, an unreadable CDC file)."""


@dataclass(frozen=True)
class Change:
    op: str
    ts_ms: str
    before: str | None
    after: str | None


# ---- JSON images ----------------------------------------------------------------------------------


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    return v


def spark_json(row: dict | None) -> str | None:
    """A row as Spark's JSON writer prints it (Hudi's ``InternalRowToJsonStringConverter``)."""
    if row is None:
        return None
    return json.dumps({k: _plain(v) for k, v in row.items() if v is not None}, separators=(",", ":"),
                      ensure_ascii=False)


def avro_json(record: dict | None) -> str | None:
    """A record as Avro's ``GenericData.toString`` prints it (Hudi's ``HoodieCDCUtils.recordToJson``)."""
    if record is None:
        return None
    return json.dumps(_plain(record), separators=(", ", ": "), ensure_ascii=False)


# ---- the extractor --------------------------------------------------------------------------------


class _Snapshots:
    """File groups' rows as of instants, each instant planned once."""

    def __init__(self, table: HudiTable):
        self.table = table
        self._plans: dict[str, ReadPlan] = {}

    def plan(self, as_of: str) -> ReadPlan:
        if as_of not in self._plans:
            self._plans[as_of] = self.table.plan(query="snapshot", as_of=as_of, validate=False)
        return self._plans[as_of]

    def rows(self, as_of: str | None, partition: str, file_id: str) -> dict[str, dict]:
        """key → row of one file group as of ``as_of`` (nothing before the first instant)."""
        if as_of is None:
            return {}
        plan = self.plan(as_of)
        out: dict[str, dict] = {}
        for task in plan.tasks:
            if task.file_id == file_id and task.partition == partition:
                for row in read_slice(plan, task).to_pylist():
                    out[_key_of(self.table, row)] = row
        return out


def _key_of(table: HudiTable, row: dict) -> str:
    if row.get(RECORD_KEY) is not None:
        return row[RECORD_KEY]
    fields = table.properties.record_key_fields
    if len(fields) == 1:
        return str(row.get(fields[0]))
    return ",".join(f"{f}:{row.get(f)}" for f in fields)


def yields_changes(table: HudiTable, inst: Instant) -> bool:
    """A completed write instant whose operation changes data (not a compaction or clustering)."""
    if inst.action not in _ACTIONS or not inst.is_completed:
        return False
    return str(table.timeline.commit_metadata(inst).get("operationType") or "").upper() in CHANGE_OPERATIONS


def change_instants(table: HudiTable, begin: str, end: str | None) -> list[Instant]:
    return [i for i in table.timeline.completed_commits()
            if begin < i.requested_time and (end is None or i.requested_time <= end) and yields_changes(table, i)]


def _previous(table: HudiTable, inst: Instant) -> str | None:
    before = [i.requested_time for i in table.timeline.completed_commits() if i.requested_time < inst.requested_time]
    return before[-1] if before else None


def _diff(before: dict[str, dict], after: dict[str, dict], ts: str) -> Iterator[Change]:
    for k, row in after.items():
        old = before.get(k)
        if old is None:
            yield Change(INSERT, ts, None, spark_json(row))
        elif old != row:
            yield Change(UPDATE, ts, spark_json(old), spark_json(row))
    for k, old in before.items():
        if k not in after:
            yield Change(DELETE, ts, spark_json(old), None)


def _cdc_records(table: HudiTable, rel_paths, ts: str) -> list[dict]:
    out = []
    for rel in sorted(rel_paths):
        path = within_table(table.path, rel, source=f"instant {ts}", field="cdcStats", timeline=False)
        try:
            data = path.read_bytes()
            for block in open_log(data, strict=True):
                if block.block_type == BlockType.cdc_data_block:
                    out.extend(block.records())
        except Exception as e:  # a CDC file the commit names must be there and whole
            raise CdcQueryError(table.path, f"instant {ts}: CDC log file {rel}: {type(e).__name__}: {e}") from None
    return out


def _as_is(table: HudiTable, snaps: _Snapshots, inst: Instant, stat: dict, prev: str | None) -> Iterator[Change]:
    ts = inst.requested_time
    mode = table.properties.cdc_mode
    records = _cdc_records(table, (stat.get("cdcStats") or {}).keys(), ts)
    if mode == DATA_BEFORE_AFTER:
        for r in records:
            yield Change(r["op"], ts, avro_json(r.get("before")), avro_json(r.get("after")))
        return
    part, fid = stat.get("partitionPath") or "", stat["fileId"]
    after = snaps.rows(ts, part, fid)
    before = snaps.rows(prev, part, fid) if mode == OP_KEY_ONLY else {}
    for r in records:
        key = r["record_key"]
        b = avro_json(r.get("before")) if mode == DATA_BEFORE else spark_json(before.get(key))
        a = spark_json(after.get(key)) if r["op"] != DELETE else None
        yield Change(r["op"], ts, None if r["op"] == INSERT else b, a)


def instant_changes(table: HudiTable, snaps: _Snapshots, inst: Instant) -> Iterator[Change]:
    ts = inst.requested_time
    md = table.timeline.commit_metadata(inst)
    prev = _previous(table, inst)
    compared = set()  # a file group several tasks wrote (one stat each) is compared once
    for stat in sorted(write_stats(md), key=lambda s: (s.get("partitionPath") or "", s.get("fileId") or "")):
        if stat.get("cdcStats"):
            yield from _as_is(table, snaps, inst, stat, prev)
            continue
        part, fid = stat.get("partitionPath") or "", stat.get("fileId")
        if (part, fid) not in compared:
            compared.add((part, fid))
            yield from _diff(snaps.rows(prev, part, fid), snaps.rows(ts, part, fid), ts)
    for part, fids in sorted((md.get("partitionToReplaceFileIds") or {}).items()):
        for fid in sorted(fids or []):
            for old in snaps.rows(prev, part, fid).values():
                yield Change(DELETE, ts, spark_json(old), None)


def _lost_version(table: HudiTable, snaps: _Snapshots, inst: Instant) -> str | None:
    """What of the file group versions ``inst``'s changes are computed from is gone, or None."""
    md = table.timeline.commit_metadata(inst)
    prev = _previous(table, inst)
    mode = table.properties.cdc_mode
    for stat in write_stats(md):
        part, fid, rel = stat.get("partitionPath") or "", stat.get("fileId"), stat.get("path")
        if stat.get("cdcStats") and mode == DATA_BEFORE_AFTER:
            continue  # the CDC log files hold both images (read, and checked, by _cdc_records)
        if rel and not within_table(table.path, rel, source=f"commit {inst.requested_time}", field="path",
                                    timeline=False).exists():
            return f"its file {rel}"
        before = stat.get("prevCommit")
        if prev is None or before in (None, "", "null") or before >= inst.requested_time \
                or (stat.get("cdcStats") and mode == DATA_BEFORE):  # no version before (a new file group)
            continue
        if not any(t.partition == part and t.file_id == fid and t.base_instant >= before
                   for t in snaps.plan(prev).tasks):
            return f"the version of file group {fid} before it (commit {before})"
    for part, fids in (md.get("partitionToReplaceFileIds") or {}).items():
        for fid in fids or []:
            if prev is not None and not any(t.partition == (part or "") and t.file_id == fid
                                            for t in snaps.plan(prev).tasks):
                return f"the replaced file group {fid}"
    return None


def check_versions(table: HudiTable, snaps: _Snapshots, insts: list[Instant]) -> None:
    """Refuse (before any change is computed) instants whose file group versions the cleaner removed."""
    lost = [(i.requested_time, what) for i in insts if yields_changes(table, i)
            for what in [_lost_version(table, snaps, i)] if what]
    if lost:
        named = "; ".join(f"{t}: {what}" for t, what in lost[:10]) + (f"; and {len(lost) - 10} more"
                                                                       if len(lost) > 10 else "")
        raise IncrementalCommitsGoneError(
            table.path, f"CDC query: the file versions the changes of {len(lost)} instant(s) are computed from are "
            f"gone (removed by the cleaner, or lost): {named}. Read changes within the commits the cleaner retains "
            "(hoodie.cleaner.commits.retained), or read the latest state (an incremental query without the cdc "
            "format, with hoodie.datasource.read.incr.fallback.fulltablescan.enable)",
            tuple(t for t, _ in lost))


def open_cdc_table(path) -> HudiTable:
    table = HudiTable(path)
    if not table.properties.cdc_enabled:
        raise CdcQueryError(table.path, "CDC queries need a table with hoodie.table.cdc.enabled=true "
                            "(hoodie.properties); an incremental query without the cdc format reads this one")
    return table


def _instant_arg(table: HudiTable, value, name: str) -> str | None:
    if value is None:
        return None
    v = str(value).strip()
    if not v.isdigit():  # Hudi takes "0" / "000" for the start of the timeline, and instant times
        raise CdcQueryError(table.path, f"{name}={value!r} is not an instant time (yyyyMMddHHmmss[SSS]) or 0")
    return v


_OPTION_NAMES = ("hoodie.datasource.read.begin.instanttime", "hoodie.datasource.read.end.instanttime")


def cdc_instants(path, begin, end=None, names: tuple[str, str] = _OPTION_NAMES) -> list[str]:
    """Requested times of the instants whose changes a CDC query of (begin, end] returns, in order;
    ``names``: what errors call begin and end (the options as the caller took them)."""
    table = open_cdc_table(path)
    b = _instant_arg(table, begin, names[0])
    if b is None:
        raise CdcQueryError(table.path, f"a CDC query needs {names[0]} (0: from the start)")
    e = _instant_arg(table, end, names[1])
    return [i.requested_time for i in change_instants(table, b, e)]


def iter_changes(path, requested_times) -> Iterator[pa.Table]:
    """The changes of the given instants (requested times), one table of Hudi's CDC columns per instant, in
    that order. The table is opened once and each point in time planned once (an instant's "before" is the
    previous one's "after")."""
    table = open_cdc_table(path)
    snaps = _Snapshots(table)
    insts = []
    for t in requested_times:
        inst = table.timeline.instant(t)
        if inst is None or not inst.is_completed:
            raise CdcQueryError(table.path, f"instant {t} is not a completed instant of the table")
        insts.append(inst)
    check_versions(table, snaps, insts)
    for inst in insts:
        rows = list(instant_changes(table, snaps, inst)) if yields_changes(table, inst) else []
        yield pa.Table.from_pylist([c.__dict__ for c in rows], schema=CDC_ARROW_SCHEMA)


def changes_table(path, requested_times) -> pa.Table:
    """:func:`iter_changes` as one table."""
    return pa.concat_tables([CDC_ARROW_SCHEMA.empty_table(), *iter_changes(path, requested_times)])


def read_cdc(path, begin, end=None) -> pa.Table:
    """The changes of the instants in (begin, end] as a table of Hudi's CDC columns (op, ts_ms, before,
    after), in instant order."""
    return changes_table(path, cdc_instants(path, begin, end))
