"""What a data-table action hands the metadata table, and what each metadata partition's builder returns.

Java updates its metadata table from the action's own metadata (``HoodieTableMetadataWriter.update`` with
a ``HoodieCommitMetadata``, ``HoodieCleanMetadata``, ``HoodieRollbackMetadata`` or ``HoodieRestoreMetadata``
at the data instant's time). :class:`DataChange` is that: the instant, its action and the metadata dict as
the data timeline holds it (Java's field names). Each metadata partition has one builder module, named in
:data:`BUILDERS`, with the functions of :class:`PartitionBuilder`; the writer routes the
:class:`MetadataRecord`\\ s a builder returns to the partition's file groups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Protocol

from ...paths import AnyPath
from ..properties import TableProperties


@dataclass(frozen=True)
class DataChange:
    """One completed-to-be data-table action, as the metadata table is told of it."""

    table_path: AnyPath
    props: TableProperties
    """The data table's properties."""
    instant: str
    """The data instant's requested time: the metadata deltacommit's instant time."""
    action: str
    """commit, deltacommit, replacecommit, clean, rollback, restore (compaction completes as commit)."""
    metadata: dict
    """The instant's metadata as the data timeline holds it: ``partitionToWriteStats`` (and
    ``partitionToReplaceFileIds``) of a commit, ``partitionMetadata`` of a clean, ``partitionMetadata`` /
    ``commitsRollback`` of a rollback, ``hoodieRestoreMetadata`` of a restore."""
    options: Mapping = field(default_factory=dict)
    """The action's options (``hoodie.metadata.*``)."""


@dataclass(frozen=True)
class MetadataRecord:
    """One record for a metadata partition: ``payload`` is the ``HoodieMetadataRecord`` as a dict holding
    ``type`` and its one filled field (``filesystemMetadata``, ``ColumnStatsMetadata``, ``recordIndexMetadata``,
    ...; the writer fills the others with null); ``payload=None`` deletes the key (a delete block entry)."""

    key: str
    payload: dict | None


class PartitionBuilder(Protocol):
    """The functions of a metadata partition's builder module."""

    def records(self, change: DataChange) -> list[MetadataRecord]:
        """The records this data action adds to, changes in or deletes from the partition."""

    def bootstrap(self, table_path: AnyPath, props: TableProperties, options: Mapping) -> list[MetadataRecord]:
        """Every record of the partition for the table as it is now (the partition's initialisation)."""

    def file_group_count(self, record_count: int, options: Mapping) -> int:
        """How many file groups a new partition is given (Java's per-partition options and defaults)."""

    def file_group_index(self, key: str, count: int) -> int:
        """Which of the partition's ``count`` file groups holds ``key`` (Java's mapping)."""


#: metadata partition name (or, ending in ``_``, a name prefix) -> the module of its builder. A partition the
#: table lists whose builder is missing here (an expression index, say) is refused by name before anything
#: is written.
BUILDERS: dict[str, str] = {
    "files": "hudi_log.table.metadata.files_index",
    "record_index": "hudi_log.table.metadata.record_index",
    "secondary_index_": "hudi_log.table.metadata.secondary_index",
    "column_stats": "hudi_log.table.metadata.column_stats",
    "partition_stats": "hudi_log.table.metadata.partition_stats",
    "bloom_filters": "hudi_log.table.metadata.bloom_filters",
}


def builder_module(partition: str) -> str | None:
    """The builder module's name for a metadata partition, or None where hudi-log has none."""
    if partition in BUILDERS:
        return BUILDERS[partition]
    for name, module in BUILDERS.items():
        if name.endswith("_") and partition.startswith(name):
            return module
    return None
