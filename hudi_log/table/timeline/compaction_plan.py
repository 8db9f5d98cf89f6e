"""The compaction plan on the timeline: the ``HoodieCompactionPlan`` a ``{ts}.compaction.requested`` file holds.

An Avro object container of ``HoodieCompactionPlan`` (``hudi-common/src/main/avro/HoodieCompactionOperation.avsc``:
field names, order and defaults; every string a Java ``String``), as Java's
``TimelineMetadataUtils.serializeCompactionPlan`` writes it for data tables and metadata tables alike. Plan
version 2 holds file *names*, not paths. Here, below the services and the metadata layer, because both write it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Mapping

_JS = {"type": "string", "avro.java.string": "String"}
_S = ["null", _JS]
PLAN_VERSION = 2  # CompactionUtils.LATEST_COMPACTION_METADATA_VERSION: names, not full paths

COMPACTION_OPERATION_SCHEMA = {
    "type": "record", "name": "HoodieCompactionOperation", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "baseInstantTime", "type": _S},
        {"name": "deltaFilePaths", "type": ["null", {"type": "array", "items": _JS}], "default": None},
        {"name": "dataFilePath", "type": _S, "default": None},
        {"name": "fileId", "type": _S},
        {"name": "partitionPath", "type": _S, "default": None},
        {"name": "metrics", "type": ["null", {"type": "map", "values": "double", "avro.java.string": "String"}],
         "default": None},
        {"name": "bootstrapFilePath", "type": _S, "default": None},
    ],
}
COMPACTION_PLAN_SCHEMA = {
    "type": "record", "name": "HoodieCompactionPlan", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "operations", "type": ["null", {"type": "array", "items": COMPACTION_OPERATION_SCHEMA}],
         "default": None},
        {"name": "extraMetadata", "type": ["null", {"type": "map", "values": _JS, "avro.java.string": "String"}],
         "default": None},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {"name": "strategy", "type": ["null", {
            "type": "record", "name": "HoodieCompactionStrategy", "fields": [
                {"name": "compactorClassName", "type": _S, "default": None},
                {"name": "strategyParams", "type": ["null", {"type": "map", "values": _JS,
                                                             "avro.java.string": "String"}], "default": None},
                {"name": "version", "type": ["int", "null"], "default": 1},
            ]}], "default": None},
        {"name": "preserveHoodieMetadata", "type": ["boolean", "null"], "default": False},
        {"name": "missingSchedulePartitions", "type": ["null", {"type": "array", "items": _JS}], "default": None},
    ],
}


@dataclass(frozen=True)
class CompactionOperation:
    """One file slice to compact (``HoodieCompactionOperation``), of a data table or a metadata table.

    Plan version 1 stored full paths; Java's ``CompactionV2MigrationHandler`` keeps their file names, and so do
    we: the names are then resolved inside the operation's partition folder only (``contained_slice``)."""

    partition: str
    file_id: str
    base_instant: str
    base_file: str | None  # file name
    log_files: tuple[str, ...]  # file names, in Hudi's log file order
    metrics: Mapping[str, float] = field(default_factory=dict)

    def to_record(self) -> dict:
        return {"baseInstantTime": self.base_instant, "deltaFilePaths": list(self.log_files),
                "dataFilePath": self.base_file, "fileId": self.file_id, "partitionPath": self.partition,
                "metrics": dict(self.metrics), "bootstrapFilePath": None}

    @classmethod
    def from_record(cls, r: Mapping) -> "CompactionOperation":
        base = r.get("dataFilePath")
        return cls(r.get("partitionPath") or "", r["fileId"], r["baseInstantTime"],
                   PurePosixPath(base).name if base else None,
                   tuple(PurePosixPath(p).name for p in r.get("deltaFilePaths") or ()), dict(r.get("metrics") or {}))
