"""The index that scales out: Java's ``HoodieSimpleIndex`` and ``HoodieBloomIndex`` split into what a driver
holds and what executors do, with no Spark in it (the Spark side is :mod:`hudi_log.spark.partitioner`).

The driver holds a :class:`FileGroupIndex`: per file group of the affected partitions, its latest slice
(as the read path plans it) and whether its logs may hold keys its base file lacks. Never a record key:
the lookup of incoming keys runs where the keys are.

* ``SIMPLE`` (``hoodie.index.type``'s default here, as in Java 1.x): every affected file group's keys are
  read in executors (:func:`group_keys`) and joined with the incoming (partition, key) pairs.
* ``BLOOM``: a file group is a candidate for a key only when the key lies in its base file's
  ``hoodie_min_record_key``..``hoodie_max_record_key`` (:func:`key_ranges`, read from the footers in
  executors, then held by the driver as per-file-group facts) and its footer bloom filter may hold the key;
  candidates are then checked against the group's keys (:func:`check_candidates`), as Java's
  ``HoodieBloomIndexCheckFunction`` / ``HoodieKeyLookupHandle`` do.

* ``RECORD_INDEX``: the incoming keys are looked up in the metadata table's record index in executors
  (:func:`lookup_keys`, :mod:`.record_index_lookup`): no data file is read.

SIMPLE and BLOOM are non-global, as Java's: only file groups of the partitions the incoming records go to are read
(partition pruning), and a record is an update only in its own partition.

Java's two indexes read the latest base files only (``canIndexLogFiles`` is false), which is exact for
tables Java wrote: its MOR writers with these indexes put inserts in base files, never in logs. Tables
other writers wrote (Flink with its bucket index, or hudi-log itself) can have keys only a log holds, so a
group whose logs took inserts (a write stat naming the log counts inserts; logs that took only updates
and deletes hold no new key, see :mod:`.index`) has its slice merged, as the driver-built
:func:`~hudi_log.table.write.index.build_index` does: a key is then live where the merge keeps it. A key in
several groups of one partition goes to the last group where it is live, else the last where it appears
(build_index's rule, so both paths tag alike). A BLOOM lookup checks such groups for every key (no range
or filter prunes them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...format.content.bloom import MAX_KEY, MIN_KEY, read_footer_filter
from ...paths import read_parquet_metadata
from ..errors import WriteError
from ..properties import TableProperties
from ..timeline.timeline import Timeline
from .create import option
from .index import FileGroupInfo, base_file_keys, log_write_counts, virtual_key_generator
from .keygen import KeyGenerator
from .record_index_lookup import RECORD_INDEX, record_index_keys

INDEX_TYPE_OPTION = "hoodie.index.type"
INDEX_TYPES = ("SIMPLE", "BLOOM", RECORD_INDEX)
DEFAULT_INDEX_TYPE = "SIMPLE"

#: the columns :func:`group_keys` yields: partition, record key, file id, live (not deleted in the
#: merged slice), the group's ordinal (build_index's "last group")
KEY_COLUMNS = pa.schema([("partition", pa.string()), ("key", pa.string()), ("file_id", pa.string()),
                         ("live", pa.bool_()), ("ordinal", pa.int32())])


class IndexTypeError(WriteError):
    """``hoodie.index.type`` names an index hudi-log does not build."""


def index_type(table_path, options: Mapping) -> str:
    """``hoodie.index.type``, checked: SIMPLE (default), BLOOM or RECORD_INDEX (the metadata table's record
    index, :mod:`.record_index_lookup`); every other Java index is refused by name."""
    value = str(option(options, INDEX_TYPE_OPTION, default=DEFAULT_INDEX_TYPE)).upper()
    if value not in INDEX_TYPES:
        raise IndexTypeError(table_path, f"{INDEX_TYPE_OPTION}={value} is not supported; use one of "
                             f"{', '.join(INDEX_TYPES)} (non-global indexes over the latest file slices, or the "
                             "metadata table's record index)")
    return value


@dataclass(frozen=True)
class GroupFacts:
    """One file group as the index sees it: where its keys are, never the keys."""
    ordinal: int
    partition: str
    file_id: str
    base_file: str | None
    #: the logs to merge for keys the base file lacks (those whose commits wrote inserts); empty: base keys only
    key_logs: tuple[str, ...]
    #: the slice as the read path plans it (pending compactions merged), for reading its keys
    slice_logs: tuple[str, ...]
    base_instant: str
    #: BLOOM: the base file's (min, max) record key from its footer; None = no range known (always a candidate)
    key_range: tuple[str, str] | None = None
    #: some log of the slice deleted keys (or its metadata is unreadable): which keys are live takes a merge
    deletes: bool = False
    #: bytes of the files its keys are read from (the base file, and the logs when they took inserts): bounds
    #: how many keys it holds (0: unknown)
    key_bytes: int = 0

    @property
    def prunable(self) -> bool:
        """Whether range and bloom filter may rule this group out: its keys are its base file's."""
        return self.base_file is not None and not self.key_logs


@dataclass
class FileGroupIndex:
    """What a driver holds for a distributed lookup: per-file-group facts and the read context their
    slices are merged with. Holds no record key (its size grows with file groups, not with rows)."""
    index_type: str
    table_path: str
    groups: tuple[GroupFacts, ...] = ()
    read_context: object = None  # hudi_log.table.read.query.ReadContext, when some group has logs to merge
    keygen: KeyGenerator | None = None  # a table without meta fields: its keys made from the data columns

    def __len__(self) -> int:
        return len(self.groups)

    def partitions(self) -> set[str]:
        return {g.partition for g in self.groups}

    def pruned(self, partitions) -> "FileGroupIndex":
        """Only the file groups of ``partitions`` (None: all, for a lookup that cannot know the partition)."""
        if partitions is None:
            return self
        keep = set(partitions)
        return replace(self, groups=tuple(g for g in self.groups if g.partition in keep))

    def with_ranges(self, ranges: Mapping[int, tuple[str, str] | None]) -> "FileGroupIndex":
        return replace(self, groups=tuple(replace(g, key_range=ranges.get(g.ordinal)) for g in self.groups))

    def group(self, ordinal: int) -> GroupFacts:
        return self._by_ordinal()[ordinal]

    def _by_ordinal(self) -> dict[int, GroupFacts]:
        cached = self.__dict__.get("_ordinals")
        if cached is None:
            cached = self.__dict__["_ordinals"] = {g.ordinal: g for g in self.groups}
        return cached

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def locate(self, keys, partitions=None):
        raise WriteError(self.table_path, "a distributed index looks keys up in executors: tag the records "
                         "with their file group first (hudi_log.spark.write does)")

    positions = get = to_dict = locate


def plan_index(table_path, props: TableProperties, timeline: Timeline, groups: Mapping[str, FileGroupInfo],
               kind: str) -> FileGroupIndex:
    """The driver's side of a distributed lookup: per file group, where its keys are (no file is read
    here but the timeline's commit metadata, which says which logs took inserts)."""
    infos = list(groups.values())
    if not infos:
        return FileGroupIndex(kind, str(table_path), keygen=virtual_key_generator(table_path, props))
    read_context = None
    slices: dict[tuple[str, str], object] = {}
    if props.is_mor and any(g.log_files for g in infos):
        from ..read.query import HudiTable

        plan = HudiTable(table_path).plan(query="snapshot")
        read_context = plan.context
        slices = {(t.partition, t.file_id): t for t in plan.tasks}
    since = min((t.base_instant for t in slices.values() if t.log_files), default="")
    counts = log_write_counts(timeline, since) if slices else {}
    facts = []
    for n, g in enumerate(infos):
        t = slices.get((g.partition, g.file_id))
        logs = tuple(t.log_files) if t is not None else ()
        known = [counts.get(Path(f).name) for f in logs]
        key_logs = tuple(f for f, c in zip(logs, known) if c is None or c[0])
        facts.append(GroupFacts(
            n, g.partition, g.file_id, t.base_file if t is not None else g.base_file, key_logs, logs,
            t.base_instant if t is not None else g.base_instant,
            deletes=any(c is None or c[1] for c in known),
            key_bytes=g.base_size + (max(g.size - g.base_size, 0) if key_logs else 0)))
    return FileGroupIndex(kind, str(table_path), tuple(facts), read_context, virtual_key_generator(table_path, props))


# ---- the executors' side --------------------------------------------------------------------------------
def _base_keys(index: "FileGroupIndex", g: GroupFacts) -> pa.Array:
    if g.base_file is None:
        return pa.array([], pa.string())
    return base_file_keys(g.base_file, index.keygen)


def _slice_keys(index: FileGroupIndex, g: GroupFacts) -> tuple[pa.Array, np.ndarray]:
    """(keys, live) of one group: its base file's keys, and where its logs may hold others or deleted
    some, the merge's. (build_index merges only groups that share a key, which it sees across groups; a
    group alone cannot tell, so one whose logs deleted keys is merged: a key deleted here and inserted
    again in another group must be live only there.)"""
    base = _base_keys(index, g)
    base = base.filter(pc.is_valid(base))
    if not (g.key_logs or g.deletes) or index.read_context is None:
        return base, np.ones(len(base), bool)
    from ..read.keys import read_slice_keys, slice_log_keys
    from ..read.query import ReadPlan, SliceTask

    plan = ReadPlan(index.read_context)
    task = SliceTask(g.partition, g.file_id, g.base_instant, g.base_file, g.key_logs, 0)
    log_keys = slice_log_keys(plan, task) if g.key_logs else pa.array([], pa.string())
    if not g.deletes and log_keys is not None and (
            len(log_keys) == 0 or pc.all(pc.is_in(log_keys, value_set=base)).as_py()):
        return base, np.ones(len(base), bool)  # the logs hold no key the base file lacks
    live = read_slice_keys(plan, replace(task, log_files=g.slice_logs))
    extra = live.filter(pc.invert(pc.is_in(live, value_set=base)))
    alive = pc.is_in(base, value_set=live).to_numpy(zero_copy_only=False)
    return pa.concat_arrays([base, extra]), np.concatenate([alive, np.ones(len(extra), bool)])


def group_keys(index: FileGroupIndex, ordinals) -> pa.Table:
    """The keys of the given file groups as :data:`KEY_COLUMNS` rows (SIMPLE's existing-keys side)."""
    parts = []
    for o in ordinals:
        g = index.group(int(o))
        keys, live = _slice_keys(index, g)
        n = len(keys)
        parts.append(pa.table([pa.repeat(pa.scalar(g.partition), n), keys, pa.repeat(pa.scalar(g.file_id), n),
                               pa.array(live, pa.bool_()), pa.array(np.full(n, g.ordinal, np.int32))],
                              schema=KEY_COLUMNS))
    return pa.concat_tables(parts) if parts else KEY_COLUMNS.empty_table()


def lookup_keys(index: FileGroupIndex, keys: pa.Array, partitions: pa.Array | None) -> pa.Table:
    """RECORD_INDEX's lookup in an executor: the incoming keys the record index holds, as (key, live,
    ordinal) rows (the record index reads only the file groups the keys map to)."""
    return record_index_keys(index, keys.cast(pa.string()), partitions)


def key_ranges(index: FileGroupIndex, ordinals) -> dict[int, tuple[str, str] | None]:
    """Each prunable group's (min, max) record key from its base file's footer (None: the footer has none)."""
    out = {}
    for o in ordinals:
        g = index.group(int(o))
        if not g.prunable:
            continue
        meta = read_parquet_metadata(g.base_file).metadata or {}
        lo, hi = meta.get(MIN_KEY.encode()), meta.get(MAX_KEY.encode())
        out[g.ordinal] = (lo.decode("utf-8"), hi.decode("utf-8")) if lo is not None and hi is not None else None
    return out


def range_candidates(index: FileGroupIndex, keys: pa.Array, partitions: pa.Array | None) -> tuple[np.ndarray, np.ndarray]:
    """BLOOM's first step (Java's ``HoodieBloomIndex.explodeRecordsWithFileComparisons``): (row, ordinal)
    pairs where the group is in the row's partition (any partition, for keys given without one: a delete
    by keys only) and its key range holds the key, or no range prunes it.
    Ranges compare in UTF-8 byte order; a key with a character beyond U+FFFF, where Java's UTF-16 order
    differs, is never pruned."""
    keys = keys.cast(pa.string())
    astral = pc.match_substring_regex(keys, "[\U00010000-\U0010FFFF]").to_numpy(zero_copy_only=False)
    rows, ords = [], []
    anywhere = pa.array(np.ones(len(keys), bool))
    for g in index.groups:
        same = anywhere if partitions is None else pc.fill_null(pc.equal(partitions, g.partition), False)
        if g.prunable and g.key_range is not None:
            lo, hi = g.key_range
            inside = pc.and_(pc.greater_equal(keys, lo), pc.less_equal(keys, hi))
            same = pc.and_(same, pc.or_(pc.fill_null(inside, False), pa.array(astral)))
        hit = np.nonzero(same.to_numpy(zero_copy_only=False))[0]
        rows.append(hit)
        ords.append(np.full(len(hit), g.ordinal, np.int32))
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int32)
    return np.concatenate(rows).astype(np.int64), np.concatenate(ords)


def check_candidates(index: FileGroupIndex, ordinal: int, keys: pa.Array) -> pa.Table:
    """BLOOM's second step for one group: of the candidate ``keys``, those its bloom filter may hold
    (prunable groups) and that it really holds, as :data:`KEY_COLUMNS` rows."""
    g = index.group(ordinal)
    keys = keys.cast(pa.string())
    if g.prunable:
        bloom = read_footer_filter(read_parquet_metadata(g.base_file).metadata or {})
        if bloom is not None:
            keys = keys.filter(pa.array(bloom.might_contain(keys)))
    if len(keys) == 0:
        return KEY_COLUMNS.empty_table()
    table = group_keys(index, [ordinal])
    return table.filter(pc.is_in(table.column("key"), value_set=keys))


__all__ = ["DEFAULT_INDEX_TYPE", "FileGroupIndex", "GroupFacts", "INDEX_TYPES", "INDEX_TYPE_OPTION",
           "IndexTypeError", "KEY_COLUMNS", "check_candidates", "group_keys", "index_type", "key_ranges",
           "lookup_keys", "plan_index", "range_candidates"]
