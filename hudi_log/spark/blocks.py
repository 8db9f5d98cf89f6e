"""The ``hudi_log_blocks`` data source: one row per block of any set of log files.

``spark.read.format("hudi_log_blocks").load("/lake/**/.*.log.*")`` — or ``.load([glob, ...])`` — lists
the matching log files on the driver (a directory means every log file under it), packs them into
input partitions by size, and scans each file's framing with :func:`hudi_log.open_log` in the Python
workers. Nothing but the framing is read except for the record count of Parquet (footer) and HFile
blocks, so checking thousands of files is one cheap distributed job.

Columns: see :data:`SCHEMA`. ``error`` is set on a single row for a file that cannot be read at all
(no such file, not a log file); ``content_error`` when a block's framing is intact but its record
count cannot be read from its content.
"""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass
from typing import Iterator, TypeVar

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from ..errors import HudiLogError
from ..format.grammar import BlockType
from ..format.log_file_name import LogFileName
from ..memory import tune_allocator
from ..paths import as_path, configure_storage, is_uri

SCHEMA_DDL = (
    "path string, offset bigint, length bigint, magic_offset bigint, format_version int, block_type string, "
    "instant string, target_instant string, header map<string,string>, record_count bigint, corrupt boolean, "
    "rule string, detail string, skipped_by_hudi boolean, content_error string, error string"
)
ARROW_SCHEMA = pa.schema([
    ("path", pa.string()), ("offset", pa.int64()), ("length", pa.int64()), ("magic_offset", pa.int64()),
    ("format_version", pa.int32()), ("block_type", pa.string()), ("instant", pa.string()),
    ("target_instant", pa.string()), ("header", pa.map_(pa.string(), pa.string())),
    ("record_count", pa.int64()), ("corrupt", pa.bool_()), ("rule", pa.string()), ("detail", pa.string()),
    ("skipped_by_hudi", pa.bool_()), ("content_error", pa.string()), ("error", pa.string()),
])
#: input partitions are filled up to this many bytes of log files ...
TARGET_PARTITION_BYTES = 64 << 20
#: ... or this many files, whichever comes first (framing scans are cheap; opening files is not free)
MAX_FILES_PER_PARTITION = 256
_GLOB_CHARS = set("*?[")
T = TypeVar("T")


def _patterns(options) -> list[str]:
    """The path patterns Spark passed: ``path`` (``load(str)``) and ``paths`` (``load([...])``, JSON)."""
    out: list[str] = []
    if options.get("paths"):
        out += json.loads(options["paths"])
    if options.get("path"):
        out.append(options["path"])
    return out


def expand(patterns: list[str]) -> list[tuple[str, int]]:
    """(path, size) of every file the patterns name, sorted and without repeats.

    A glob is expanded (``**`` recursive); a directory — named or matched — means every log file under
    it; a plain path is kept even when it does not exist, so that the scan reports it as unreadable.
    """
    seen: dict[str, int] = {}

    def add(p: str) -> None:
        if os.path.isdir(p):
            for d, _dirs, names in os.walk(p):
                for n in names:
                    if LogFileName.is_log_file_name(n):
                        add(os.path.join(d, n))
            return
        try:
            seen.setdefault(p, os.path.getsize(p))
        except OSError:
            seen.setdefault(p, 0)

    for pat in patterns:
        if is_uri(pat):
            _expand_remote(pat, seen)
        elif _GLOB_CHARS & set(pat):
            # glob skips dot files unless the pattern spells the dot; log files are dot files
            for p in glob.glob(pat, recursive=True, include_hidden=True):
                add(p)
        else:
            add(pat)
    return sorted(seen.items())


def _glob_regex(pattern: str) -> re.Pattern:
    """A path glob as a regex: ``**`` crosses folders, ``*`` and ``?`` do not (as ``glob`` treats them)."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            if pattern.startswith("/", i):  # "**/" also matches no folder at all
                out[-1] = "(?:.*/)?"
                i += 1
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                out.append("[" + pattern[i + 1:j].replace("!", "^", 1) + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def _expand_remote(pattern: str, seen: dict[str, int]) -> None:
    """An object-store pattern or folder: one recursive LIST of the prefix before the first glob
    character, matched here (a plain URI that lists nothing is kept, to be reported unreadable)."""
    glob_at = min((pattern.find(c) for c in _GLOB_CHARS if c in pattern), default=-1)
    root = as_path(pattern[:glob_at].rsplit("/", 1)[0] if glob_at >= 0 else pattern)
    match = _glob_regex(pattern) if glob_at >= 0 else None
    found = False
    for p in root.rglob("*"):
        if not p.is_file():
            continue
        uri = str(p)
        if (match.match(uri) if match else LogFileName.is_log_file_name(p.name)):
            seen.setdefault(uri, p.stat().st_size)
            found = True
    if not found and match is None:
        try:
            seen.setdefault(pattern, root.stat().st_size)
        except OSError:
            seen.setdefault(pattern, 0)


@dataclass
class FilesPartition(InputPartition):
    files: list[str]

    def __init__(self, files: list[str]):
        super().__init__(files)
        self.files = files


def pack(items: list[tuple[T, int]], target_bytes: int, max_items: int) -> list[list[T]]:
    """Consecutive (item, size) pairs grouped until a group reaches ``target_bytes`` or ``max_items``."""
    groups: list[list[T]] = []
    cur: list[T] = []
    size = 0
    for item, n in items:
        if cur and (size + n > target_bytes or len(cur) >= max_items):
            groups.append(cur)
            cur, size = [], 0
        cur.append(item)
        size += n
    if cur:
        groups.append(cur)
    return groups


def spread(items: list[tuple[T, int]], k: int) -> list[list[T]]:
    """Consecutive (item, size) pairs in at most ``k`` groups of about equal size: an item goes to the group
    its midpoint falls in when the total is cut in ``k`` equal parts."""
    total = sum(n for _, n in items)
    if k <= 1 or total <= 0:
        return [[item for item, _ in items]] if items else []
    groups: list[list[T]] = [[] for _ in range(k)]
    at = 0
    for item, n in items:
        groups[min(k - 1, int((at + n / 2) * k // total))].append(item)
        at += n
    return [g for g in groups if g]


def _record_count(block) -> int | None:
    if block.block_type == BlockType.parquet_data_block:
        import pyarrow.parquet as pq

        # the row count from the Parquet footer, without decoding the rows
        return pq.ParquetFile(pa.BufferReader(block.content())).metadata.num_rows
    return block.record_count


def scan_file(path: str) -> list[dict]:
    """The rows of one log file (a single ``error`` row when the file cannot be read)."""
    from ..format.reader import open_log

    rows: list[dict] = []
    try:
        for b in open_log(path):
            row = {
                "path": path, "offset": b.offset, "length": b.length, "magic_offset": b.magic_offset,
                "format_version": b.format_version, "corrupt": b.corrupt,
                "skipped_by_hudi": b.skipped_by_hudi, "record_count": None, "content_error": None,
            }
            if b.corrupt:
                row.update(block_type="CORRUPT_BLOCK", rule=b.corrupt_rule, detail=b.corrupt_detail)
            else:
                row.update(block_type=b.block_type_name, instant=b.instant_time,
                           target_instant=b.target_instant_time, header=list(b.header.items()))
                try:
                    row["record_count"] = _record_count(b)
                except (HudiLogError, OSError, pa.ArrowException) as e:
                    row["content_error"] = str(e)
            rows.append(row)
    except (HudiLogError, OSError) as e:
        rows.append({"path": path, "error": str(e) or type(e).__name__})
    return rows


class BlocksReader(DataSourceReader):
    def __init__(self, options):
        self.options = dict(options)

    def partitions(self):
        configure_storage(self.options)
        files = expand(_patterns(self.options))
        groups = pack(files, int(self.options.get("targetPartitionBytes", TARGET_PARTITION_BYTES)),
                      int(self.options.get("maxFilesPerPartition", MAX_FILES_PER_PARTITION)))
        return [FilesPartition(g) for g in groups] or [FilesPartition([])]

    def read(self, partition: FilesPartition) -> Iterator[pa.RecordBatch]:
        configure_storage(self.options)  # this Python worker's own file systems
        tune_allocator()  # one file's memory reused by the next (hudi_log.memory)
        rows: list[dict] = []
        for path in partition.files:
            rows += scan_file(path)
            if len(rows) >= 8192:
                yield pa.RecordBatch.from_pylist(rows, schema=ARROW_SCHEMA)
                rows = []
        if rows:
            yield pa.RecordBatch.from_pylist(rows, schema=ARROW_SCHEMA)


class BlocksDataSource(DataSource):
    """``format("hudi_log_blocks")``: the blocks of log files, a row each."""

    @classmethod
    def name(cls) -> str:
        return "hudi_log_blocks"

    def schema(self) -> str:
        return SCHEMA_DDL

    def reader(self, schema) -> BlocksReader:
        if not _patterns(self.options):
            raise HudiLogError("hudi_log_blocks: give the log files as load(path_or_glob) or load([globs])")
        return BlocksReader(self.options)
