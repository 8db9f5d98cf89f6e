"""Inserts packed into small files, then into new file groups sized to the table's records (Java's
``UpsertPartitioner.assignInserts``, ``getSmallFiles`` and, for MERGE_ON_READ,
``SparkUpsertDeltaCommitPartitioner.getSmallFileCandidates``).

* Average record size: the bytes per record of the latest commit that wrote more than
  ``hoodie.record.size.estimation.threshold`` x ``hoodie.parquet.small.file.limit`` bytes, else
  ``hoodie.copyonwrite.record.size.estimate`` (1024) (``averageBytesPerRecord``).
* Small files of a partition: COPY_ON_WRITE, every latest base file under
  ``hoodie.parquet.small.file.limit`` (100 MiB; 0 turns packing off). MERGE_ON_READ with the SIMPLE or
  BLOOM index (which cannot find keys in log files): latest file slices that have a base file and no log
  file, under the limit, smallest first, at most ``hoodie.merge.small.file.group.candidates.limit`` (1)
  of them. Never a file group under pending clustering or pending compaction.
* Each small file takes ``(hoodie.parquet.max.file.size - its size) / average record size`` inserts (at
  most what is left); the rest go to new file groups of ``max file size / average record size`` records.

Inserts given to a small file are merged into it: a new base file of its file group with its old rows and
the new ones, at this instant, as Java's merge handle writes them, on MERGE_ON_READ too
(``BaseSparkDeltaCommitActionExecutor.handleUpdate`` sends a small file's inserts to the merge handle
when the index cannot index log files), so every key stays where the index looks for it. ``insert`` and
``upsert`` pack; ``bulk_insert`` and the overwrites do not, as in Java.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..timeline.commit_metadata import write_stats
from ..timeline.timeline import Timeline
from ..view.file_system_view import parse_base_file_name
from .context import DEFAULT_MAX_FILE_SIZE, DEFAULT_RECORD_SIZE_ESTIMATE, DEFAULT_SMALL_FILE_LIMIT, SmallFiles
from .create import option
from .index import FileGroupInfo

#: operations whose inserts Java's partitioner packs into small files
PACKING_OPERATIONS = ("insert", "upsert")


def max_file_size(options: Mapping) -> int:
    return int(option(options, "hoodie.parquet.max.file.size", default=DEFAULT_MAX_FILE_SIZE))


def small_file_limit(options: Mapping) -> int:
    return int(option(options, "hoodie.parquet.small.file.limit", default=str(DEFAULT_SMALL_FILE_LIMIT)))


def average_record_size(timeline: Timeline, options: Mapping) -> int:
    """Java's ``averageBytesPerRecord``: a smaller commit's bytes are mostly each file's fixed footer (a
    bloom filter is ~430 KB), not its records, so only a commit past the threshold counts."""
    estimate = int(option(options, "hoodie.copyonwrite.record.size.estimate", default=DEFAULT_RECORD_SIZE_ESTIMATE))
    threshold = float(option(options, "hoodie.record.size.estimation.threshold", default="1.0")) * \
        small_file_limit(options)
    for inst in reversed(timeline.completed_commits()):
        try:
            md = timeline.commit_metadata(inst)
        except Exception:  # noqa: BLE001  (an unreadable commit is reported by the reads; here it just does not count)
            continue
        stats = write_stats(md)
        n = sum(int(s.get("numWrites") or 0) for s in stats)
        b = sum(int(s.get("totalWriteBytes") or 0) for s in stats)
        if n > 0 and b > threshold:
            return max(-(-b // n), 1)  # Math.ceil
    return max(estimate, 1)


def small_files(is_mor: bool, groups: Mapping[str, FileGroupInfo], options: Mapping,
                clustering: Mapping[str, object]) -> SmallFiles:
    """The small files each partition's inserts go to first (see the module docstring)."""
    limit = small_file_limit(options)
    if limit <= 0:
        return {}
    out: SmallFiles = {}
    for g in groups.values():
        if g.base_file is None or g.file_id in clustering or (is_mor and g.log_files):
            continue
        bf = parse_base_file_name(Path(g.base_file))
        if bf is None or bf.instant != g.base_instant:  # a pending compaction's slice is the newest
            continue
        if g.base_size < limit:
            out.setdefault(g.partition, []).append((g.file_id, g.base_size))
    if is_mor:
        keep = int(option(options, "hoodie.merge.small.file.group.candidates.limit", default="1"))
        out = {p: sorted(fs, key=lambda f: (f[1], f[0]))[:max(keep, 0)] for p, fs in out.items()}
        out = {p: fs for p, fs in out.items() if fs}
    return out


def assign_inserts(inserts: int, small: list[tuple[str, int]], record_size: int, max_size: int,
                   per_file: int) -> list[tuple[str | None, int]]:
    """One partition's inserts as buckets: (small file id, rows) first, then (None, rows) per new file
    group (the last takes the remainder), as ``assignInserts`` makes them."""
    out: list[tuple[str | None, int]] = []
    left = inserts
    for fid, size in small:
        if left <= 0:
            break
        take = min((max_size - size) // max(record_size, 1), left)
        if take > 0:
            out.append((fid, take))
            left -= take
    if left > 0:
        per = max(int(per_file), 1)
        n = -(-left // per)
        out += [(None, per if b < n - 1 else left - (n - 1) * per) for b in range(n)]
    return out


def plan_inserts(inserts: Mapping[str, int], small: SmallFiles, record_size: int, max_size: int, per_file: int,
                 is_mor: bool) -> tuple[dict[str, list[tuple[str | None, int]]], set[str]]:
    """Every partition's inserts as :func:`assign_inserts` buckets, and the MERGE_ON_READ file groups the
    write rewrites: every small-file candidate of a partition with inserts, whose updates are merged too
    (Java's "small file corrections", ``BaseSparkDeltaCommitActionExecutor.handleUpdate``)."""
    plan = {p: assign_inserts(n, small.get(p, []), record_size, max_size, per_file) for p, n in inserts.items()}
    merges = {fid for p in plan for fid, _ in small.get(p, [])} if is_mor else set()
    return plan, merges
