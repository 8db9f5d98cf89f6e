"""hudi-cli's ``repair deduplicate``: rows of one record key in several latest base files of one partition (a
write that ran without its index, two writers that both inserted a key) cut down to one, as Java's
``DedupeSparkJob`` does it.

* The rows looked at are those of the partition's latest base files (``getLatestBaseFiles`` of the completed
  commits; log files are not read, as in Java). A key held by more than one row is a duplicate. Where a file
  the plan would rewrite has log files over it, hudi-log refuses (compact first): Java rewrites it anyway, and
  a log record of a key it dropped then comes back as an insert, the duplicate again.
* Which rows go, by ``--dedupe-type`` (Java's ``DeDupeType``): ``insert_type`` (default) drops the rows not
  written by the key's latest commit; ``update_type`` keeps the last row and drops the others; ``upsert_type``
  drops the rows of older commits, then all but the last of the latest commit's. "Last" is the order of the
  rows by commit time, then file, then position (Java takes Spark's collect order, which is not defined).
* The plan names, per file, keys to skip: Java skips every row of such a key in that file
  (``SparkHelpers.skipKeysAndWriteNewFile``). The fixed files are written into the repair folder (Java's
  ``--repairedOutputPath``; a fresh temporary folder when none is given) with their bloom filter made again,
  then checked: no key is held twice and no key is lost; either failure is an error and nothing changes.
* Dry run (the default, as in Java): the table is left as it is. Otherwise each fixed file replaces its
  original under the same name (Java copies them back), under the table lock, each by an atomic rename.
  Commit metadata keeps the original sizes, as Java's does.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ...containment import within_table
from ...format.content.meta_fields import COMMIT_TIME, FILE_NAME, RECORD_KEY
from ...paths import as_path
from ..concurrency.config import concurrency_config
from ..concurrency.lock import TableLock
from ..metadata_table import guard_change
from ..properties import TableError, read_properties
from ..read.query import HudiTable
from ..schema import current_schema
from ..view.base_file import bloom_options, write_base_file
from .options import resolve_service_options

DEDUPE_TYPES = ("insert_type", "update_type", "upsert_type")


class DedupeError(TableError):
    """The deduplication cannot be done, or its fixed files would still hold duplicates or lose a key."""


@dataclass(frozen=True)
class DedupeResult:
    partition: str
    dedupe_type: str
    dry_run: bool
    output: str  # the repair folder holding the fixed files
    duplicates: dict[str, int]  # record key -> rows holding it
    plan: dict[str, list[str]] = field(default_factory=dict)  # base file name -> keys skipped in it
    replaced: list[str] = field(default_factory=list)  # base files replaced in the table (none on a dry run)

    def to_dict(self) -> dict:
        return {"partition": self.partition, "dedupe_type": self.dedupe_type, "dry_run": self.dry_run,
                "repaired_output_path": self.output, "duplicates": self.duplicates, "plan": self.plan,
                "replaced": self.replaced}


def _latest_base_files(table: HudiTable, partition: str) -> tuple[list, set[str]]:
    """The partition's latest base files, and the file ids whose slice of that base file has log files."""
    view = table.view()
    if partition not in view.file_groups:
        raise DedupeError(table.path, f"partition {partition!r} is not in the table (`hudi-log fsview all PATH` "
                                      "lists them)")
    out, logged = [], set()
    for g in view.file_groups[partition]:
        with_base = [s for s in g.slices if s.base_file is not None]
        if with_base:
            out.append(with_base[-1].base_file)
            if any(s.log_files for s in g.slices[g.slices.index(with_base[-1]):]):
                logged.add(g.file_id)
    return out, logged


def _keys(path) -> pa.Table:
    return pq.read_table(path, columns=[RECORD_KEY, COMMIT_TIME, FILE_NAME])


def plan_dedupe(rows: list[tuple[str, str, str]], dedupe_type: str) -> dict[str, set[str]]:
    """file id -> keys to skip in it, from the duplicates' ``(key, commit time, file id)`` rows, in order."""
    by_key: dict[str, list[tuple[str, str]]] = {}
    for key, commit, fid in rows:
        by_key.setdefault(key, []).append((commit, fid))
    plan: dict[str, set[str]] = {}
    for key, held in by_key.items():
        latest = max(c for c, _ in held)
        if dedupe_type == "update_type":
            dropped = held[:-1]
        elif dedupe_type == "insert_type":
            dropped = [h for h in held if h[0] != latest]
        else:  # upsert_type
            dropped = [h for h in held if h[0] != latest] + [h for h in held if h[0] == latest][:-1]
        for _, fid in dropped:
            plan.setdefault(fid, set()).add(key)
    return plan


def deduplicate(table_path, partition: str, dedupe_type: str = "insert_type", output=None, dry_run: bool = True,
                options: Mapping | None = None) -> DedupeResult:
    """Repair the duplicates of ``partition`` (see the module docstring)."""
    options = resolve_service_options(table_path, options)
    if dedupe_type not in DEDUPE_TYPES:
        raise DedupeError(table_path, f"unknown dedupe type {dedupe_type!r} (one of {', '.join(DEDUPE_TYPES)})")
    config = concurrency_config(options)
    root = as_path(table_path)
    props = read_properties(root)
    if not dry_run:
        props = guard_change(root, props, options, "the deduplication")
    folder = within_table(root, partition, source="--partition", field="partition", timeline=False)
    table = HudiTable(root)
    bases, logged = _latest_base_files(table, partition)
    keyed = [(b, _keys(b.path)) for b in bases]
    seen = pa.concat_tables([k for _, k in keyed]) if keyed else None
    if seen is None or seen.num_rows == 0:
        return DedupeResult(partition, dedupe_type, dry_run, str(output or ""), {})
    counts = pc.value_counts(seen.column(RECORD_KEY)).to_pylist()
    dupes = {c["values"]: c["counts"] for c in counts if c["counts"] > 1}
    rows = []
    for b, k in sorted(keyed, key=lambda bk: (bk[0].instant, bk[0].name)):
        for key, commit in zip(k.column(RECORD_KEY).to_pylist(), k.column(COMMIT_TIME).to_pylist()):
            if key in dupes:
                rows.append((key, commit, b.file_id))
    rows.sort(key=lambda r: r[1])  # stable: commit time, then file, then position
    by_file_id = {b.file_id: b for b in bases}
    by_id = plan_dedupe(rows, dedupe_type)
    if logged & set(by_id):
        # Java rewrites the base file anyway, and a log record of a skipped key then comes back as an insert
        raise DedupeError(root, f"file group {sorted(logged & set(by_id))[0]} of {partition} has log files over the "
                                "base file the repair would rewrite: they may update a key it drops, which would "
                                "come back (compact first: `hudi-log compact PATH`); nothing was changed")
    plan = {by_file_id[fid].name: sorted(keys) for fid, keys in by_id.items()}
    out = as_path(output) if output else as_path(tempfile.mkdtemp(prefix="hudi-log-dedupe-"))
    out.mkdir(parents=True, exist_ok=True)
    schema = current_schema(props, table.timeline)
    bloom = bloom_options(props.to_dict())
    for b, _ in keyed:
        if b.name in plan:
            data = pq.read_table(b.path)
            keep = pc.invert(pc.is_in(data.column(RECORD_KEY), pa.array(plan[b.name], pa.string())))
            write_base_file(out / b.name, data.filter(keep), schema, bloom)
        else:
            shutil.copyfile(b.path, out / b.name)
    _check_fixed(root, [out / b.name for b in bases], seen, dedupe_type)
    replaced: list[str] = []
    if not dry_run and plan:
        with TableLock(root, config):
            for name in sorted(plan):
                dest = within_table(root, f"{partition}/{name}" if partition else name, source="--partition",
                                    field="base file", timeline=False)
                tmp = folder / f".{name}.hudi_log-dedupe"
                shutil.copyfile(out / name, tmp)
                os.replace(tmp, dest)
                replaced.append(name)
    return DedupeResult(partition, dedupe_type, dry_run, str(out), dupes, plan, replaced)


def _check_fixed(root, files, before: pa.Table, dedupe_type: str) -> None:
    """Java's checks of the fixed files: no key held twice, no key lost."""
    after = pa.concat_tables([_keys(p) for p in files])
    counts = pc.value_counts(after.column(RECORD_KEY)).to_pylist()
    still = sorted(c["values"] for c in counts if c["counts"] > 1)
    if still:
        raise DedupeError(root, f"{len(still)} key(s) would still be duplicated ({still[0]}, ...): their rows share "
                                f"the latest commit, which {dedupe_type} keeps (use --dedupe-type upsert_type); "
                                "nothing was changed")
    lost = set(before.column(RECORD_KEY).to_pylist()) - set(after.column(RECORD_KEY).to_pylist())
    if lost:
        raise DedupeError(root, f"{len(lost)} key(s) would be lost ({sorted(lost)[0]}, ...): a file holds both "
                                "rows of a key, which Java's plan skips together; nothing was changed")
