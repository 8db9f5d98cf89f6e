"""Instant metadata as Hudi serialises it: commit / replacecommit metadata (JSON in timeline layout 1,
Avro object container in layout 2) and rollback metadata / plans (Avro in both layouts).

The Avro schemas below are the record layouts Hudi 1.x writes into its instant files (field order as
in the real files of ``../shared/corpus``; every string is Java ``String``). Write stats are the same
dicts in both encodings; keys an encoding does not know are dropped, missing nullable ones are null.

Layout 1 JSON follows Jackson's pretty printer closely enough for every reader (``"key" : value``,
two-space indent). Hudi itself writes the rollback plan and rollback metadata as Avro even in
layout 1 (``20250126040936578.rollback`` in the v6 rollback corpus table), and so do we.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

import fastavro

_JS = {"type": "string", "avro.java.string": "String"}
_S = ["null", _JS]
_L = ["null", "long"]


def _nullable_fields(spec) -> list[dict]:
    return [{"name": n, "type": t, "default": None} for n, t in spec]


WRITE_STAT_SCHEMA = {
    "type": "record", "name": "HoodieWriteStat", "namespace": "org.apache.hudi.avro.model",
    "fields": _nullable_fields([
        ("fileId", _S), ("path", _S), ("prevCommit", _S), ("numWrites", _L), ("numDeletes", _L),
        ("numUpdateWrites", _L), ("totalWriteBytes", _L), ("totalWriteErrors", _L), ("partitionPath", _S),
        ("totalLogRecords", _L), ("totalLogFiles", _L), ("totalUpdatedRecordsCompacted", _L),
        ("numInserts", _L), ("totalLogBlocks", _L), ("totalCorruptLogBlock", _L), ("totalRollbackBlocks", _L),
        ("fileSizeInBytes", _L), ("logVersion", ["null", "int"]), ("logOffset", _L), ("baseFile", _S),
        ("logFiles", ["null", {"type": "array", "items": _JS, "default": None}]),
        ("cdcStats", ["null", {"type": "map", "values": "long", "avro.java.string": "String", "default": None}]),
        ("prevBaseFile", _S), ("minEventTime", _L), ("maxEventTime", _L),
        ("runtimeStats", ["null", {"type": "record", "name": "HoodieRuntimeStats", "fields": _nullable_fields(
            [("totalScanTime", _L), ("totalCreateTime", _L), ("totalUpsertTime", _L)])}]),
        ("totalLogFilesCompacted", _L), ("totalLogReadTimeMs", _L), ("totalLogSizeCompacted", _L),
        ("tempPath", _S), ("numUpdates", _L),
    ]),
}

_STATS_MAP = ["null", {"type": "map", "values": {"type": "array", "items": WRITE_STAT_SCHEMA},
                       "avro.java.string": "String"}]
_EXTRA = ["null", {"type": "map", "values": _JS, "avro.java.string": "String", "default": None}]

COMMIT_METADATA_SCHEMA = {
    "type": "record", "name": "HoodieCommitMetadata", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "partitionToWriteStats", "type": _STATS_MAP, "default": None},
        {"name": "compacted", "type": ["null", "boolean"], "default": None},
        {"name": "extraMetadata", "type": _EXTRA, "default": None},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {"name": "operationType", "type": _S, "default": None},
    ],
}

REPLACE_COMMIT_METADATA_SCHEMA = {
    "type": "record", "name": "HoodieReplaceCommitMetadata", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "partitionToWriteStats", "type": _STATS_MAP, "default": None},
        {"name": "extraMetadata", "type": _EXTRA, "default": None},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {"name": "operationType", "type": _S, "default": None},
        {"name": "partitionToReplaceFileIds", "type": ["null", {
            "type": "map", "values": {"type": "array", "items": _JS}, "avro.java.string": "String"}],
         "default": None},
        {"name": "compacted", "type": ["null", "boolean"], "default": None},
    ],
}

_INSTANT_INFO = {"type": "record", "name": "HoodieInstantInfo", "namespace": "org.apache.hudi.avro.model",
                 "fields": [{"name": "commitTime", "type": _JS}, {"name": "action", "type": _JS}]}
_SIZES = ["null", {"type": "map", "values": "long", "avro.java.string": "String"}]

ROLLBACK_METADATA_SCHEMA = {
    "type": "record", "name": "HoodieRollbackMetadata", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "startRollbackTime", "type": _JS},
        {"name": "timeTakenInMillis", "type": "long"},
        {"name": "totalFilesDeleted", "type": "int"},
        {"name": "commitsRollback", "type": {"type": "array", "items": _JS}},
        {"name": "partitionMetadata", "type": {"type": "map", "avro.java.string": "String", "values": {
            "type": "record", "name": "HoodieRollbackPartitionMetadata", "fields": [
                {"name": "partitionPath", "type": _JS},
                {"name": "successDeleteFiles", "type": {"type": "array", "items": _JS}},
                {"name": "failedDeleteFiles", "type": {"type": "array", "items": _JS}},
                {"name": "rollbackLogFiles", "type": _SIZES, "default": None},
                {"name": "logFilesFromFailedCommit", "type": _SIZES, "default": None},
            ]}}},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {"name": "instantsRollback", "type": {"type": "array", "items": _INSTANT_INFO, "default": []}, "default": []},
    ],
}

ROLLBACK_PLAN_SCHEMA = {
    "type": "record", "name": "HoodieRollbackPlan", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "instantToRollback", "type": ["null", _INSTANT_INFO], "default": None},
        {"name": "RollbackRequests", "type": ["null", {"type": "array", "items": {
            "type": "record", "name": "HoodieRollbackRequest", "fields": [
                {"name": "partitionPath", "type": _JS},
                {"name": "fileId", "type": _S, "default": None},
                {"name": "latestBaseInstant", "type": _S, "default": None},
                {"name": "filesToBeDeleted", "type": {"type": "array", "items": _JS, "default": []}, "default": []},
                {"name": "logBlocksToBeDeleted", "type": _SIZES, "default": None},
            ]}}], "default": None},
        {"name": "version", "type": ["int", "null"], "default": 1},
    ],
}

_PARSED: dict[str, Any] = {}


def _parsed(schema: Mapping) -> Any:
    key = schema["name"]
    if key not in _PARSED:
        _PARSED[key] = fastavro.parse_schema(dict(schema))
    return _PARSED[key]


def avro_container(schema: Mapping, record: Mapping) -> bytes:
    """One record in an Avro object container file (null codec), as Hudi's ``serializeAvroMetadata``."""
    buf = io.BytesIO()
    fastavro.writer(buf, _parsed(schema), [dict(record)], codec="null")
    return buf.getvalue()


def first_avro_record(data: bytes, error: type[Exception], where, what: str) -> dict | None:
    """The first record of an Avro container (None when it holds none); ``error(where, ...)`` when the bytes
    do not decode."""
    try:
        return next(iter(fastavro.reader(io.BytesIO(data))), None)
    except Exception as e:  # noqa: BLE001 - any decoding failure is a corrupt file
        raise error(where, f"corrupt {what}: {e}") from e


def commit_metadata_json(metadata: Mapping) -> bytes:
    """Layout 1 commit metadata: pretty JSON in Jackson's style."""
    return json.dumps(metadata, indent=2, separators=(",", " : "), ensure_ascii=False).encode("utf-8")


def commit_metadata_avro(metadata: Mapping, replace: bool = False) -> bytes:
    md = dict(metadata)
    md.setdefault("version", 1)
    return avro_container(REPLACE_COMMIT_METADATA_SCHEMA if replace else COMMIT_METADATA_SCHEMA, md)


def rollback_metadata_avro(metadata: Mapping) -> bytes:
    return avro_container(ROLLBACK_METADATA_SCHEMA, {"version": 1, **metadata})


def rollback_plan_avro(plan: Mapping) -> bytes:
    return avro_container(ROLLBACK_PLAN_SCHEMA, {"version": 1, **plan})


#: the write stat's scalar fields and their Python types (an int that is a bool is refused too)
_STAT_FIELD_TYPES = {f["name"]: int if f["type"] in (_L, ["null", "int"]) else str
                     for f in WRITE_STAT_SCHEMA["fields"] if f["type"] in (_L, ["null", "int"], _S)}


def write_metadata_problem(md: Mapping) -> str | None:
    """What is wrong with the shape of a write instant's metadata (commit, deltacommit, replacecommit), or
    None. Java's Jackson / Avro readers throw on these; read on, they would be a bare AttributeError or
    ValueError far from the file, or a write stat quietly skipped: ``partitionToWriteStats`` a map of lists
    of stats, each an object with a ``path`` (a non-empty string without NUL), its counts integers and its
    names strings; ``partitionToReplaceFileIds`` a map of lists of strings; ``extraMetadata`` a map of
    strings."""
    stats = md.get("partitionToWriteStats")
    if stats is not None and not isinstance(stats, Mapping):
        return f"partitionToWriteStats is {_kind(stats)}, not a map of partition paths to write stats"
    for part, ss in (stats or {}).items():
        if not isinstance(part, str) or "\x00" in part:
            return f"partitionToWriteStats has the partition path {part!r}"
        if ss is None:
            continue
        if not isinstance(ss, list):
            return f"partitionToWriteStats[{part!r}] is {_kind(ss)}, not a list of write stats"
        for i, st in enumerate(ss):
            where = f"partitionToWriteStats[{part!r}][{i}]"
            if not isinstance(st, Mapping):
                return f"{where} is {_kind(st)}, not a write stat (an object)"
            path = st.get("path")
            if not isinstance(path, str) or not path or "\x00" in path:
                return f"{where}.path is {path!r}, not the path of the file it wrote"
            for k, v in st.items():  # one pass over the stat's own keys (a commit may hold thousands)
                want = _STAT_FIELD_TYPES.get(k)
                if want is not None and v is not None and type(v) is not want:
                    return f"{where}.{k} is {v!r}, not {'an integer' if want is int else 'a string'}"
    replaced = md.get("partitionToReplaceFileIds")
    if replaced is not None:
        if not isinstance(replaced, Mapping):
            return f"partitionToReplaceFileIds is {_kind(replaced)}, not a map of partition paths to file ids"
        for part, ids in replaced.items():
            if ids is not None and (not isinstance(ids, list) or not all(isinstance(x, str) for x in ids)):
                return f"partitionToReplaceFileIds[{part!r}] is {ids!r}, not a list of file ids"
    extra = md.get("extraMetadata")
    if extra is not None and (not isinstance(extra, Mapping)
                              or not all(isinstance(v, str) or v is None for v in extra.values())):
        return f"extraMetadata is {_kind(extra)}, not a map of strings"
    return None


def _kind(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(v), f"a {type(v).__name__}") + (f" ({v!r})" if isinstance(v, (str, int, float)) and len(repr(v)) < 40
                                             else "")


def write_stats(metadata: Mapping) -> list[dict]:
    """Every write stat of a commit's metadata, over all its partitions."""
    return [s for ss in (metadata.get("partitionToWriteStats") or {}).values() for s in ss or []]


def empty_write_stat() -> dict:
    """Every write-stat key Hudi writes, zero / null."""
    return {
        "fileId": None, "path": None, "cdcStats": None, "prevCommit": None, "numWrites": 0, "numDeletes": 0,
        "numUpdateWrites": 0, "numInserts": 0, "totalWriteBytes": 0, "totalWriteErrors": 0, "tempPath": None,
        "partitionPath": None, "totalLogRecords": 0, "totalLogFilesCompacted": 0, "totalLogSizeCompacted": 0,
        "totalUpdatedRecordsCompacted": 0, "totalLogBlocks": 0, "totalCorruptLogBlock": 0,
        "totalRollbackBlocks": 0, "fileSizeInBytes": 0, "minEventTime": None, "maxEventTime": None,
        "runtimeStats": None,
    }


@dataclass
class WriteResult:
    instant: str
    action: str
    operation: str
    completion_time: str | None
    write_stats: list[dict]
    num_inserts: int = 0
    num_updates: int = 0
    num_deletes: int = 0
    replaced_file_ids: dict[str, list[str]] = field(default_factory=dict)
    rolled_back: list[str] = field(default_factory=list)  # rollback instants run first (eager rollback)
