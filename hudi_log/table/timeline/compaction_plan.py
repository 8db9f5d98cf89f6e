"""The compaction plan on the timeline: the ``HoodieCompactionPlan`` a ``{ts}.compaction.requested`` file holds.

An Avro object container of ``HoodieCompactionPlan`` (``hudi-common/src/main/avro/HoodieCompactionOperation.avsc``:
field names, order and defaults; every string a Java ``String``), as Java's
``TimelineMetadataUtils.serializeCompactionPlan`` writes it for data tables and metadata tables alike. Plan
version 2 holds file *names*, not paths. Here, below the services and the metadata layer, because both write it.
"""

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
