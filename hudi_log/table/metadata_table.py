"""The metadata table (``.hoodie/metadata``, ``hoodie.table.metadata.partitions``) before an action changes files.

Every action that changes files (write, compact, cluster, clean, rollback, restore) calls
:func:`guard_metadata_table` before it changes anything. With ``hoodie.metadata.enable`` true (the default)
the action proceeds and keeps the metadata table (``hudi_log.table.metadata.writer``: it syncs a metadata
deltacommit just before it completes its own instant). With ``hoodie.metadata.enable=false`` the metadata
table is deleted first, as a Hudi writer with the metadata table disabled does, and what was deleted is
logged. A table upgrade or downgrade does not carry it across versions: refused unless disabled.
"""

from __future__ import annotations

import logging
from typing import Mapping

from ..paths import as_path, remove_tree
from .properties import TableError, TableProperties, check_mergeable, check_writable, write_properties

METADATA_PARTITIONS_KEYS = ("hoodie.table.metadata.partitions", "hoodie.table.metadata.partitions.inflight")
ENABLE = "hoodie.metadata.enable"
log = logging.getLogger("hudi_log")


class MetadataTableError(TableError):
    """The table's metadata table cannot be kept (a partition hudi-log has no builder for, a missing table)."""


def has_metadata_table(table_path, props: TableProperties) -> bool:
    return any(props.get(k) for k in METADATA_PARTITIONS_KEYS) or (as_path(table_path) / ".hoodie" / "metadata").exists()


def guard_metadata_table(table_path, props: TableProperties, options: Mapping | None, action: str,
                         maintained: bool = True) -> TableProperties:
    """``props`` unchanged when the table has no metadata table, or keeps it enabled and ``action`` maintains
    it; an enabled one an action does not maintain (``maintained=False``) refuses it; disabled
    (``hoodie.metadata.enable=false``) it is deleted and its partitions cleared, and the properties written
    then are returned."""
    if not has_metadata_table(table_path, props):
        return props
    if str((options or {}).get(ENABLE, "true")).strip().lower() != "false":
        if maintained:
            return props
        raise MetadataTableError(props.path, f"the table has a metadata table, which hudi-log does not carry "
                                 f"across table versions, so {action} would leave it stale; run it with "
                                 f"{ENABLE}=false to delete the metadata table first (the next write recreates "
                                 "it at the new version)")
    root = as_path(table_path)
    partitions = sorted({p for k in METADATA_PARTITIONS_KEYS for p in (props.get(k) or "").split(",") if p})
    remove_tree(root / ".hoodie" / "metadata")
    p = props.to_dict()
    for k in METADATA_PARTITIONS_KEYS:
        if k in p:
            p[k] = ""
    log.warning("%s: %s=false: deleted the metadata table %s (partitions: %s) and cleared %s from "
                "hoodie.properties before %s", root, ENABLE, root / ".hoodie" / "metadata",
                ", ".join(partitions) or "none listed", " and ".join(METADATA_PARTITIONS_KEYS), action)
    return write_properties(root, p)


def guard_change(table_path, props: TableProperties, options: Mapping | None, action: str,
                 merges: bool = False) -> TableProperties:
    """What every table service checks before it changes files: the table version is one hudi-log writes,
    records merge as hudi-log merges them where the action ``merges`` them (compaction, clustering), and the
    metadata table kept or, disabled, deleted (see :func:`guard_metadata_table`). The write checks the same,
    with its options' agreement with the table in between."""
    check_writable(props, action)
    if merges:
        check_mergeable(props, action)
    return guard_metadata_table(table_path, props, options, action)
