"""The clean instant's Avro records on the timeline: ``HoodieCleanerPlan`` (``{ts}.clean.requested`` and
``.inflight``) and ``HoodieCleanMetadata`` (the completed ``clean``), after the ``.avsc`` files of
``hudi-common/src/main/avro`` (field names, order and defaults). Here, below the services and the metadata
layer, because the data table's clean and the metadata table's own clean both write them; and the
KEEP_LATEST_COMMITS policy's earliest commit to retain, which both compute.
"""

from .timeline import WRITE_ACTIONS, Instant, Timeline

_STR_MAP = ["null", {"type": "map", "values": "string"}]
CLEANER_PLAN_SCHEMA = {
    "type": "record", "name": "HoodieCleanerPlan", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "earliestInstantToRetain", "type": ["null", {
            "type": "record", "name": "HoodieActionInstant", "fields": [
                {"name": "timestamp", "type": "string"}, {"name": "action", "type": "string"},
                {"name": "state", "type": "string"}]}], "default": None},
        {"name": "lastCompletedCommitTimestamp", "type": "string", "default": ""},
        {"name": "policy", "type": "string"},
        {"name": "filesToBeDeletedPerPartition", "type": ["null", {
            "type": "map", "values": {"type": "array", "items": "string"}}], "default": None},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {"name": "filePathsToBeDeletedPerPartition", "type": ["null", {
            "type": "map", "values": {"type": "array", "items": {
                "type": "record", "name": "HoodieCleanFileInfo", "fields": [
                    {"name": "filePath", "type": ["null", "string"], "default": None},
                    {"name": "isBootstrapBaseFile", "type": ["null", "boolean"], "default": None}]}}}],
         "default": None},
        {"name": "partitionsToBeDeleted", "type": ["null", {"type": "array", "items": "string"}], "default": None},
        {"name": "extraMetadata", "type": _STR_MAP, "default": None},
    ],
}
_PARTITION_METADATA = {
    "type": "record", "name": "HoodieCleanPartitionMetadata", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "partitionPath", "type": "string"}, {"name": "policy", "type": "string"},
        {"name": "deletePathPatterns", "type": {"type": "array", "items": "string"}},
        {"name": "successDeleteFiles", "type": {"type": "array", "items": "string"}},
        {"name": "failedDeleteFiles", "type": {"type": "array", "items": "string"}},
        {"name": "isPartitionDeleted", "type": ["null", "boolean"], "default": None},
    ],
}
CLEAN_METADATA_SCHEMA = {
    "type": "record", "name": "HoodieCleanMetadata", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "policy", "type": "string", "default": ""},
        {"name": "startCleanTime", "type": "string"},
        {"name": "timeTakenInMillis", "type": "long"},
        {"name": "totalFilesDeleted", "type": "int"},
        {"name": "earliestCommitToRetain", "type": "string"},
        {"name": "lastCompletedCommitTimestamp", "type": "string", "default": ""},
        {"name": "partitionMetadata", "type": {"type": "map", "values": _PARTITION_METADATA}},
        {"name": "version", "type": ["int", "null"], "default": 1},
        {"name": "bootstrapPartitionMetadata", "type": ["null", {
            "type": "map", "values": "org.apache.hudi.avro.model.HoodieCleanPartitionMetadata"}], "default": None},
        {"name": "extraMetadata", "type": _STR_MAP, "default": None},
    ],
}


def earliest_commit_to_retain(timeline: Timeline, retain_commits: int) -> Instant | None:
    """``CleanerUtils.getEarliestCommitToRetain`` for KEEP_LATEST_COMMITS."""
    completed = timeline.completed_commits()
    if len(completed) <= retain_commits:
        return None
    nth = completed[len(completed) - retain_commits]
    pending = [i for i in timeline.pending() if i.action in WRITE_ACTIONS]
    if pending and nth.sort_key() > pending[0].sort_key():
        before = [i for i in completed if i.requested_time < pending[0].requested_time]
        return before[-1] if before else None
    return nth
