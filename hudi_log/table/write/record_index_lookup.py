"""``hoodie.index.type=RECORD_INDEX``: incoming keys looked up in the metadata table's record index.

Java's ``SparkMetadataTableRecordIndex``: the keys are mapped to the record index's file groups
(``mapRecordKeyToFileGroupIndex``) and only those groups are read (:func:`~hudi_log.table.metadata.record_index.lookup_record_index`),
in the package write (:class:`RecordIndexLookup`, what ``ctx.index`` is: it pickles as the table path, and
each task reads the groups of its own keys) and in the Spark write (:func:`record_index_keys`, run in the
executors on the incoming keys, giving the rows the other indexes' lookups give).

As in Java 1.x, the record index is used only when ``hoodie.index.type`` asks for it (Spark's default stays
SIMPLE, present record index or not). It is refused by name where it cannot answer as Java's would: the
table lists no ``record_index`` partition (Java falls back to GLOBAL_SIMPLE, which hudi-log has not), the
metadata table is behind the data table (keys of the newest commit would be missed, and written again), or
the partitioned record index of Hudi 1.1. The record index is global: a key it finds in another partition
than the incoming record's is refused by name (:class:`RecordIndexPartitionError`), where Java's default
(``hoodie.record.index.update.partition.path=false``) would update the record in its old partition, which
hudi-log's write path does not do; never written again as a new record.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import WriteError
from ..metadata.record_index import PARTITION, RecordIndexError, check_supported, lookup_record_index
from ..metadata_files import metadata_in_step
from ..properties import TableProperties
from ..timeline.timeline import Timeline

RECORD_INDEX = "RECORD_INDEX"


class RecordIndexPartitionError(WriteError):
    """An incoming record's key lives in another partition of the table (the record index is global)."""


def check_usable(table_path, props: TableProperties, timeline: Timeline, options=None) -> None:
    """Refuses a RECORD_INDEX write the record index cannot serve as Java's would (see the module)."""
    listed = (props.get("hoodie.table.metadata.partitions") or "").split(",")
    if PARTITION not in listed:
        raise RecordIndexError(table_path, "hoodie.index.type=RECORD_INDEX but the table has no record index "
                               "(hoodie.table.metadata.partitions does not list record_index); use SIMPLE or BLOOM")
    ok, why = metadata_in_step(table_path, props, timeline)
    if not ok:
        raise RecordIndexError(table_path, f"the record index cannot be trusted: {why} (write with SIMPLE or "
                               "BLOOM, or bring the metadata table in step first)")
    check_supported(table_path, props, options)


def _conflict(table_path, key: str, found: str, incoming: str) -> RecordIndexPartitionError:
    return RecordIndexPartitionError(table_path, f"record key {key!r} is in partition {found!r} of the table, the "
                                     f"incoming record in {incoming!r}: the record index is global, and hudi-log does "
                                     "not move records between partitions (write it to its partition, or delete it "
                                     "there first)")


class RecordIndexLookup:
    """``ctx.index`` for RECORD_INDEX in the package write: :meth:`locate` as :class:`~.index.KeyIndex`'s,
    answered from the record index (the groups the keys map to) instead of a map of every key."""

    def __init__(self, table_path):
        self.table_path = str(table_path)

    def __getstate__(self):
        return {"table_path": self.table_path}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __len__(self) -> int:
        return 1  # never empty: whether a key is there is the record index's to say

    def lookup(self, keys) -> dict[str, tuple[str, str]]:
        return lookup_record_index(Path(self.table_path), [k for k in keys if k is not None])

    def locate(self, keys: pa.Array, partitions: pa.Array | None = None) -> tuple[pa.Array, pa.Array]:
        """(file id, partition) per key, null where the record index does not hold it; a key held in another
        partition than ``partitions`` says is refused (:class:`RecordIndexPartitionError`)."""
        ks = keys.to_pylist()
        found = self.lookup(ks)
        locs = [found.get(k) if k is not None else None for k in ks]
        if partitions is not None:
            for k, loc, p in zip(ks, locs, partitions.to_pylist()):
                if loc is not None and p is not None and loc[0] != p:
                    raise _conflict(self.table_path, k, loc[0], p)
        return (pa.array([l[1] if l else None for l in locs], pa.string()),
                pa.array([l[0] if l else None for l in locs], pa.string()))

    def positions(self, keys: pa.Array) -> np.ndarray:
        raise WriteError(self.table_path, "the record index answers locate(), not positions")

    def get(self, key: str) -> tuple[str, str] | None:
        return self.lookup([key]).get(key)

    def to_dict(self) -> dict[str, tuple[str, str]]:
        raise WriteError(self.table_path, "the record index is looked up by keys, not listed whole")


def record_index_keys(index, keys: pa.Array, partitions: pa.Array | None) -> pa.Table:
    """The Spark write's lookup in an executor: (key, live, ordinal) rows of the incoming ``keys`` the record
    index holds, the ordinal that of the file group in ``index`` (a
    :class:`~hudi_log.table.write.key_lookup.FileGroupIndex`) it names."""
    ks = keys.to_pylist()
    found = lookup_record_index(Path(index.table_path), [k for k in ks if k is not None])
    ordinals = {(g.partition, g.file_id): g.ordinal for g in index.groups}
    parts = partitions.to_pylist() if partitions is not None else [None] * len(ks)
    out_k, out_o = [], []
    for k, p in zip(ks, parts):
        loc = found.get(k) if k is not None else None
        if loc is None:
            continue
        if p is not None and loc[0] != p:
            raise _conflict(index.table_path, k, loc[0], p)
        o = ordinals.get(loc)
        if o is None:
            raise RecordIndexError(index.table_path, f"the record index places key {k!r} in file group {loc[1]} "
                                   f"of partition {loc[0]!r}, which the table's latest slices do not hold (the "
                                   "record index is stale)")
        out_k.append(k)
        out_o.append(o)
    return pa.table({"key": pa.array(out_k, pa.string()), "live": pa.array(np.ones(len(out_k), bool)),
                     "ordinal": pa.array(out_o, pa.int32())})
