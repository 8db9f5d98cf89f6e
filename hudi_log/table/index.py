"""A simple index: which file group holds each record key, read from the latest file slices.

Keys come from the base file's ``_hoodie_record_key`` column and, for MOR slices with log files, from the
reader's merge of the slice (``read.read_slice``: columnar, committed blocks only). A key of the base
file deleted in a log still maps to its file group, as Hudi's index finds it in the base file: a later
upsert of that key goes back to the same file group.

The index is non-global, as Hudi's default (``BLOOM``/``SIMPLE``): a record is an update only when its
key lives in the *same* partition; the map keeps one location per key (the last seen when a key lives
in several partitions after a partition-path change).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..append_handle import RECORD_KEY
from .file_system_view import FileSystemView
from .properties import TableProperties
from .timeline import Timeline


@dataclass(frozen=True)
class FileGroupInfo:
    """The latest slice of one file group, as plain data (paths as str) so a context pickles."""
    partition: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]
    size: int


def latest_slices(table_path, props: TableProperties, timeline: Timeline) -> dict[str, FileGroupInfo]:
    fs = FileSystemView(table_path, props, timeline)
    # appends go to the group's newest slice: under a pending compaction that is the compaction's (v6 names
    # the log after it, as HoodieAppendHandle does); the files to read keys from are the merged slice's
    newest = {(g.partition, g.file_id): g.latest_slice.base_instant
              for gs in fs.file_groups.values() for g in gs if g.latest_slice is not None}
    out = {}
    for s in fs.latest_file_slices():
        out[s.file_id] = FileGroupInfo(
            s.partition, s.file_id, newest.get((s.partition, s.file_id), s.base_instant),
            str(s.base_file.path) if s.base_file else None,
            tuple(str(lf.path) for lf in s.log_files), s.total_size)
    return out


def build_index(table_path, props: TableProperties, timeline: Timeline,
                groups: dict[str, FileGroupInfo]) -> dict[str, tuple[str, str]]:
    """record key → (partition, file id) over the latest slices in ``groups``."""
    live_keys = _live_log_keys(table_path, groups) if props.is_mor else {}
    parts = []
    for n, g in enumerate(groups.values()):
        loc = (g.partition, g.file_id)
        merged = live_keys.get(loc) if g.log_files else None
        if g.base_file is not None:
            keys = pq.read_table(g.base_file, columns=[RECORD_KEY]).column(0).combine_chunks()
            # a base key the merge left out was deleted in the logs: known here, but not live
            alive = pa.array(np.ones(len(keys), bool)) if merged is None else pc.is_in(keys, value_set=merged)
            parts.append((keys, alive, n))
        if merged is not None:
            parts.append((merged, pa.array(np.ones(len(merged), bool)), n))
    if not parts:
        return {}
    locs = list(groups.values())
    t = pa.table({"k": pa.concat_arrays([p[0].cast(pa.string()) for p in parts]),
                  "live": pa.concat_arrays([p[1] for p in parts]),
                  "g": pa.array(np.concatenate([np.full(len(p[0]), p[2], np.int64) for p in parts]))})
    t = t.filter(pc.is_valid(t.column("k")))
    # per key: the last group where it is live, else the last where it appears (deleted there). A key
    # deleted here and inserted again elsewhere (insert does not look keys up) must be routed to the
    # group where it is live, else its update or delete would miss it.
    order = pc.sort_indices(t, sort_keys=[("k", "ascending"), ("live", "ascending"), ("g", "ascending")])
    t = t.take(order)
    k = t.column("k").combine_chunks()
    n = len(k)
    last = np.append(pc.not_equal(k.slice(1), k.slice(0, n - 1)).to_numpy(zero_copy_only=False), True) \
        if n > 1 else np.ones(n, bool)
    keys = k.filter(pa.array(last)).to_pylist()
    gs = t.column("g").to_numpy()[last]
    return dict(zip(keys, ((locs[i].partition, locs[i].file_id) for i in gs)))


def _live_log_keys(table_path, groups: dict[str, FileGroupInfo]) -> dict[tuple[str, str], pa.Array]:
    """(partition, file id) → the keys live after merging base and logs, for groups with log files: the
    reader's own slice merge (columnar, rolled-back and uncommitted blocks left out), keys column only."""
    if not any(g.log_files for g in groups.values()):
        return {}
    from .read import HudiTable, read_slice

    plan = HudiTable(table_path).plan(query="snapshot")
    out = {}
    for task in plan.tasks:
        if task.log_files:
            keys = read_slice(plan, task).column(RECORD_KEY).combine_chunks()
            out[(task.partition, task.file_id)] = keys.filter(pc.is_valid(keys)).cast(pa.string())
    return out
