"""The data table's files as the record-level and secondary index builders read them.

Java's index builders read record keys (and a secondary index's column) from the files a commit names
(``BaseFileRecordParsingUtils.getRecordKeysFromBaseFile``: the base file's ``_hoodie_record_key`` column;
``HoodieTableMetadataUtil.getLogRecords``: the merged records of log files) and from the latest file slices
(``readRecordKeysFromFileSliceSnapshot``, ``SecondaryIndexRecordGenerationUtils.getRecordKeyToSecondaryKey``).
This module does the same over hudi-log's format and view layers (the read layer sits above the metadata
layer): log blocks in file order, corrupt blocks skipped, a rollback command block dropping the blocks of its
target instant read before it, blocks of later instants and of other writers' pending instants left out, and
a key's latest operation in log order winning (a delete removes it; Java's processing-time order, which is
also event-time order for the deletes Spark SQL and hudi-log write). Every path named by a commit goes
through :func:`hudi_log.containment.within_table`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Iterable, Mapping

import pyarrow as pa

from ...containment import within_table
from ...errors import ContentError, HudiLogError
from ...format.content.meta_fields import RECORD_KEY
from ...format.grammar import RECORD_BLOCK_TYPES, BlockType
from ...format.reader import open_log
from ...parquet_io import read_parquet
from ...paths import as_path
from ..errors import TableError
from ..timeline.commit_metadata import write_stats
from ..view.file_system_view import FileSystemView, parse_log_file_name

class IndexBuildError(TableError):
    """A metadata index (record index, secondary index) cannot be built from the data table's files: names the
    table, file or instant and what is wrong."""


@dataclass(frozen=True)
class KeyState:
    """What a run of log files says of each key: ``live`` key -> the requested column values, ``deleted``
    the keys whose latest operation was a delete."""

    live: dict[str, tuple]
    deleted: set[str]


def data_file(table_path, rel: str, *, source, field: str):
    """A data file a commit or plan names, as a path checked to stay in the table."""
    return within_table(table_path, rel, source=source, field=field, timeline=False)


def is_log_path(path: str) -> bool:
    return ".log." in PurePosixPath(str(path)).name


def base_columns(path, columns: Iterable[str] = ()) -> pa.Table:
    """The record key column (first) and ``columns`` of a base file."""
    cols = [RECORD_KEY, *[c for c in columns if c != RECORD_KEY]]
    try:
        return read_parquet(path, columns=cols)
    except FileNotFoundError as e:
        raise IndexBuildError(path, "the base file is gone (cleaned?): the index cannot be built from it") from e
    except HudiLogError:
        raise
    except (KeyError, ValueError) as e:  # a requested column the file lacks
        raise IndexBuildError(path, f"cannot read {cols}: {e}") from e


def base_keys(path) -> set[str]:
    col = base_columns(path).column(0)
    return {k for k in col.to_pylist() if k is not None}


def _queued(paths, upto: str | None, skip) -> list:
    """The data and delete blocks of ``paths`` (in order) that count: corrupt blocks skipped, a rollback
    command block dropping its target's blocks before it, instants past ``upto`` or ``skip(instant)`` left out."""
    queue: list = []
    for p in paths:
        try:
            for block in open_log(p):
                if block.corrupt or block.block_type == BlockType.corrupt_block:
                    continue
                t = block.instant_time
                if block.block_type == BlockType.command_block:
                    if block.is_rollback:
                        queue = [b for b in queue if b.instant_time != block.target_instant_time]
                    continue
                if (upto is not None and t is not None and t > upto) or skip(t):
                    continue
                if block.block_type in RECORD_BLOCK_TYPES or block.block_type in (
                        BlockType.parquet_data_block, BlockType.delete_block):
                    queue.append(block)
        except FileNotFoundError as e:
            raise IndexBuildError(p, "the log file is gone (cleaned?): the index cannot be built from it") from e
    return queue


def log_states(paths, columns: Iterable[str] = (), *, upto: str | None = None, skip=lambda t: False) -> KeyState:
    """Each key's latest state over the log files ``paths`` (in log order): live with ``columns``' values, or
    deleted."""
    cols = [c for c in columns if c != RECORD_KEY]
    live: dict[str, tuple] = {}
    deleted: set[str] = set()
    for block in _queued(paths, upto, skip):
        try:
            if block.block_type == BlockType.delete_block:
                for d in block.deletes():
                    live.pop(d.record_key, None)
                    deleted.add(d.record_key)
                continue
            t = block.to_arrow(columns=[RECORD_KEY, *cols])
        except ContentError as e:
            raise IndexBuildError(block.path, f"log block unreadable: {e}") from e
        missing = [c for c in [RECORD_KEY, *cols] if c not in t.column_names]
        if missing:
            raise IndexBuildError(block.path, f"a data block of instant {block.instant_time} has no {missing}")
        keys = t.column(RECORD_KEY).to_pylist()
        values = list(zip(*[t.column(c).to_pylist() for c in cols])) if cols else [()] * len(keys)
        for k, v in zip(keys, values):
            if k is None:
                continue
            live[k] = v
            deleted.discard(k)
    return KeyState(live, deleted)


def ordered_logs(paths) -> list:
    """Log file paths in Hudi's ``LogFileComparator`` order, each once (a table before version 8 appends a
    commit's blocks to a log file the slice already has)."""
    parsed = [(parse_log_file_name(as_path(p), 0), p) for p in dict.fromkeys(paths)]
    return [p for lf, p in sorted(parsed, key=lambda x: x[0].sort_key() if x[0] else ("", 0, False, str(x[1]), False))]


def slice_state(table_path, base_file, log_files, columns: Iterable[str] = (), *, upto: str | None = None,
                skip=lambda t: False) -> dict[str, tuple]:
    """The live keys of a file slice (base file, then its logs) with ``columns``' values."""
    cols = [c for c in columns if c != RECORD_KEY]
    out: dict[str, tuple] = {}
    if base_file is not None:
        t = base_columns(base_file, cols)
        keys = t.column(0).to_pylist()
        values = list(zip(*[t.column(c).to_pylist() for c in cols])) if cols else [()] * len(keys)
        out.update((k, v) for k, v in zip(keys, values) if k is not None)
    if log_files:
        st = log_states(log_files, cols, upto=upto, skip=skip)
        for k in st.deleted:
            out.pop(k, None)
        out.update(st.live)
    return out


def storage_view(table_path, props, timeline, as_of: str | None = None) -> FileSystemView:
    """The data table's file-system view listed from storage (the metadata table may be what is being
    written), as of ``as_of``."""
    return FileSystemView(table_path, props, timeline, as_of=as_of, options={"hoodie.metadata.enable": "false"})


def before(timeline, instant: str) -> str | None:
    """The latest completed write instant before ``instant``: the view a commit's previous slices are in
    (None: there is none, nothing was written before)."""
    done = [i.requested_time for i in timeline.completed_commits() if i.requested_time < instant]
    return max(done) if done else None


def pending_other_than(timeline, instant: str):
    """A predicate: whether a block's instant is another write still pending (its blocks do not count)."""
    pending = {i.requested_time for i in timeline.pending()} - {instant}
    return lambda t: t in pending


def indexed_write_stats(change, error, what: str) -> list[dict] | None:
    """The write stats of a data action an index learns from; None for a clean, rollback, restore or
    compaction, which change no entry. A log write stat counting inserts is refused (``error``), as Java
    refuses it: an index over keys only a log holds is not kept."""
    if change.action not in ("commit", "deltacommit", "replacecommit"):
        return None
    md = change.metadata or {}
    if str(md.get("operationType") or "").upper() in ("COMPACT", "LOG_COMPACT"):
        return None
    stats = write_stats(md)
    for s in stats:
        if is_log_path(s.get("path") or "") and int(s.get("numInserts") or 0) > 0:
            raise error(change.table_path, f"commit {change.instant} wrote inserts to the log file "
                        f"{s.get('path')}: {what} cannot hold keys only a log has (Java refuses it too)")
    return stats


def option(options: Mapping | None, key: str, default=None, *alternatives: str):
    opts = options or {}
    for k in (key, *alternatives):
        if opts.get(k) not in (None, ""):
            return opts[k]
    return default
