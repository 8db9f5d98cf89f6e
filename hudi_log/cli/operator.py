"""hudi-cli's read-only operator commands, under the names an operator knows, each with ``--json``:

* ``commits showpartitions PATH INSTANT`` / ``commits showfiles PATH INSTANT``: a completed write's
  stats per partition / per file, as hudi-cli's ``CommitsCommand`` (``commit showpartitions|showfiles``)
  sums them from the commit metadata's ``partitionToWriteStats``: a stat whose ``prevCommit`` is
  ``null`` adds a file, any other updates one (Java's ``HoodieWriteStat.NULL_COMMIT``); records updated
  are counted only for updated files, as Java does. Deletes (``numDeletes``) are shown beside them.
* ``fsview all PATH`` / ``fsview latest PATH``: every file slice / the latest (merged across a pending
  compaction) slice of each file group, as ``FileSystemViewCommand`` (``show fsview all|latest``) shows
  them; ``latest`` splits a slice's log files into those written for its base instant (scheduled for
  compaction) and those after, by the instant in the log file's name, as Java does.
* ``stats wa PATH``: write amplification of each completed commit and replacecommit (Java's
  ``getCommitAndReplaceTimeline``: delta commits are not counted, as in hudi-cli): records written
  over records updated, with a ``Total`` row (``StatsCommand.writeAmplificationStats``).
* ``stats filesizes PATH``: min / 10th / 50th / mean / 95th / max / count / standard deviation of file
  sizes per instant and for ``ALL`` (``StatsCommand.fileSizeStats``; the quantiles as Dropwizard's
  ``UniformSnapshot`` computes them). Where Java lists every file its glob matches, this takes the
  committed base files of the file-system view (files of failed writes are not the table's).

Instants and partitions the operator names are checked against the table first (exit 2 naming both).
"""

from __future__ import annotations

import math

import click

from ..errors import HudiLogError
from .output import StoragePath, dumps, fail, print_table, raise_error

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
_PATH = click.argument("path", type=StoragePath(exists=True, file_okay=False))
_NULL_COMMIT = "null"  # Java's HoodieWriteStat.NULL_COMMIT: the stat wrote a new file


def _show(rows: list[dict], title: str, as_json: bool) -> None:
    if as_json:
        click.echo(dumps(rows, indent=2))
        return
    columns = tuple(rows[0]) if rows else ()
    print_table(title, columns, ([", ".join(r[c]) if isinstance(r[c], list) else r[c] for c in columns] for r in rows))


def _open(path):
    from ..table import HudiTable
    try:
        return HudiTable(path)
    except HudiLogError as e:
        raise_error(e)


def _completed_write(table, instant: str):
    """The completed write instant ``instant`` of ``table`` and its commit metadata (exit 2 naming both
    when the active timeline has no such completed write)."""
    from ..table.read.instants import parse_instant
    from ..table.timeline.timeline import WRITE_ACTIONS
    try:
        instant = parse_instant(instant, "INSTANT", table.path)
        inst = table.timeline.instant(instant)
        if inst is None or not inst.is_completed or inst.action not in WRITE_ACTIONS:
            done = [i.requested_time for i in table.timeline.completed() if i.action in WRITE_ACTIONS]
            fail(f"{table.path}: instant {instant} is not a completed write on the active timeline "
                 f"(completed writes: {', '.join(done[-5:]) or 'none'}; `hudi-log commits show` lists them)")
        return inst, table.timeline.commit_metadata(inst)
    except HudiLogError as e:
        raise_error(e)


def _stats(md: dict):
    for partition, stats in sorted(((md or {}).get("partitionToWriteStats") or {}).items()):
        for s in stats or []:
            yield partition, s


def _n(s: dict, key: str) -> int:
    return int(s.get(key) or 0)


def partition_rows(inst, md: dict) -> list[dict]:
    """``commit showpartitions``: one row per partition of a commit's write stats."""
    rows: dict[str, dict] = {}
    for partition, s in _stats(md):
        r = rows.setdefault(partition, {"action": inst.action, "partition": partition, "files_added": 0,
                                        "files_updated": 0, "records_inserted": 0, "records_updated": 0,
                                        "records_deleted": 0, "bytes_written": 0, "errors": 0})
        if (s.get("prevCommit") or _NULL_COMMIT) == _NULL_COMMIT:
            r["files_added"] += 1
        else:
            r["files_updated"] += 1
            r["records_updated"] += _n(s, "numUpdateWrites")
        r["records_inserted"] += _n(s, "numInserts")
        r["records_deleted"] += _n(s, "numDeletes")
        r["bytes_written"] += _n(s, "totalWriteBytes")
        r["errors"] += _n(s, "totalWriteErrors")
    return list(rows.values())


def file_rows(inst, md: dict) -> list[dict]:
    """``commit showfiles``: one row per write stat (file) of a commit."""
    return [{"action": inst.action, "partition": partition, "file_id": s.get("fileId"),
             "previous_commit": s.get("prevCommit"), "records_updated": _n(s, "numUpdateWrites"),
             "records_inserted": _n(s, "numInserts"), "records_deleted": _n(s, "numDeletes"),
             "records_written": _n(s, "numWrites"), "bytes_written": _n(s, "totalWriteBytes"),
             "errors": _n(s, "totalWriteErrors"), "file_size": _n(s, "fileSizeInBytes"), "path": s.get("path")}
            for partition, s in _stats(md)]


@click.command("showpartitions")
@_PATH
@click.argument("instant")
@_JSON
def commits_showpartitions(path, instant, as_json):
    """Per partition of the completed write INSTANT: files added and updated, records inserted, updated
    and deleted, bytes written, errors (hudi-cli's `commit showpartitions`)."""
    table = _open(path)
    inst, md = _completed_write(table, instant)
    _show(partition_rows(inst, md), f"commit {inst.requested_time} partitions", as_json)


@click.command("showfiles")
@_PATH
@click.argument("instant")
@_JSON
def commits_showfiles(path, instant, as_json):
    """Per file written by the completed write INSTANT: previous commit, records updated, inserted,
    deleted and written, bytes written, errors, file size (hudi-cli's `commit showfiles`)."""
    table = _open(path)
    inst, md = _completed_write(table, instant)
    _show(file_rows(inst, md), f"commit {inst.requested_time} files", as_json)


# ---- fsview -----------------------------------------------------------------------------------------
def _view(table, as_of, partition):
    from ..table.read.instants import parse_instant
    try:
        view = table.view(parse_instant(as_of, "--as-of", table.path) if as_of else None)
    except HudiLogError as e:
        raise_error(e)
    if partition is not None and partition not in view.partitions:
        fail(f"{table.path}: no partition {partition!r} (partitions: "
             f"{', '.join(repr(p) for p in view.partitions[:10]) or 'none'})")
    return view


def _slice_row(s) -> dict:
    logs = s.log_files
    return {"partition": s.partition, "file_id": s.file_id, "base_instant": s.base_instant,
            "base_file": s.base_file.name if s.base_file else "",
            "base_file_size": s.base_file.size if s.base_file else -1,
            "log_files": len(logs), "log_files_size": sum(lf.size for lf in logs),
            "log_file_names": [lf.name for lf in logs]}


def all_slice_rows(view, partition: str | None = None) -> list[dict]:
    """``show fsview all``: every slice of every file group (oldest slice first)."""
    return [_slice_row(s) for p in view.partitions if partition in (None, p)
            for g in view.file_groups[p] for s in g.slices]


def latest_slice_rows(view, partition: str | None = None) -> list[dict]:
    """``show fsview latest``: the latest merged slice of each file group, its log files split into those
    named after the slice's base instant (scheduled with it for compaction) and the rest."""
    rows = []
    for s in view.latest_file_slices():
        if partition not in (None, s.partition):
            continue
        row = _slice_row(s)
        scheduled = [lf for lf in s.log_files if lf.instant == s.base_instant]
        unscheduled = [lf for lf in s.log_files if lf.instant != s.base_instant]
        sched, unsched, base = (sum(lf.size for lf in scheduled), sum(lf.size for lf in unscheduled),
                                row["base_file_size"])
        row.update({"log_size_scheduled": sched, "log_size_unscheduled": unsched,
                    "log_to_base_scheduled": sched / base if base > 0 else -1,
                    "log_to_base_unscheduled": unsched / base if base > 0 else -1,
                    "log_files_scheduled": [lf.name for lf in scheduled],
                    "log_files_unscheduled": [lf.name for lf in unscheduled]})
        del row["log_file_names"]
        rows.append(row)
    return rows


_AS_OF = click.option("--as-of", default=None, help="Only instants up to this one (inclusive).")
_PARTITION = click.option("--partition", default=None, help="Only this partition path ('' for the table root).")


@click.group("fsview")
def fsview_group():
    """The file-system view: file groups, slices, base and log files (hudi-cli's `show fsview`)."""


@fsview_group.command("all")
@_PATH
@_PARTITION
@_AS_OF
@_JSON
def fsview_all(path, partition, as_of, as_json):
    """Every file slice of every file group: base instant, base file and size (-1: none), log files
    and their total size."""
    table = _open(path)
    _show(all_slice_rows(_view(table, as_of, partition), partition), "file slices", as_json)


@fsview_group.command("latest")
@_PATH
@_PARTITION
@_AS_OF
@_JSON
def fsview_latest(path, partition, as_of, as_json):
    """The latest file slice of each file group (merged with the slice before a pending compaction),
    its log files split into those scheduled for compaction and those written after."""
    table = _open(path)
    _show(latest_slice_rows(_view(table, as_of, partition), partition), "latest file slices", as_json)


# ---- stats ------------------------------------------------------------------------------------------
def write_amplification_rows(table) -> list[dict]:
    """``stats wa``: per completed commit / replacecommit, records updated, records written and their
    ratio (``0`` with no updates; two decimals as Java's ``#.00``), then the ``Total`` row."""
    from ..table.timeline.timeline import COMMIT, REPLACE_COMMIT
    rows, upserted, written = [], 0, 0
    try:
        for inst in table.timeline.completed():
            if inst.action not in (COMMIT, REPLACE_COMMIT):
                continue
            stats = [s for _, s in _stats(table.timeline.commit_metadata(inst))]
            u, w = sum(_n(s, "numUpdateWrites") for s in stats), sum(_n(s, "numWrites") for s in stats)
            rows.append(_wa_row(inst.requested_time, u, w))
            upserted, written = upserted + u, written + w
    except HudiLogError as e:
        raise_error(e)
    return rows + [_wa_row("Total", upserted, written)]


def _wa_row(instant: str, upserted: int, written: int) -> dict:
    return {"instant": instant, "records_upserted": upserted, "records_written": written,
            "write_amplification": round(written / upserted, 2) if upserted > 0 else 0}


def _quantile(values: list[int], q: float) -> float:
    """Dropwizard ``UniformSnapshot.getValue``: linear between the sorted values around q·(n+1)."""
    if not values:
        return 0.0
    pos = q * (len(values) + 1)
    if pos < 1:
        return float(values[0])
    if pos >= len(values):
        return float(values[-1])
    lower, upper = values[int(pos) - 1], values[int(pos)]
    return lower + (pos - math.floor(pos)) * (upper - lower)


def size_summary(key: str, sizes: list[int]) -> dict:
    """One ``stats filesizes`` row: Java's histogram snapshot of ``sizes`` (sample standard deviation)."""
    v = sorted(sizes)
    n = len(v)
    mean = sum(v) / n if n else 0.0
    std = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
    return {"instant": key, "min": v[0] if v else 0, "p10": _quantile(v, 0.1), "p50": _quantile(v, 0.5),
            "avg": mean, "p95": _quantile(v, 0.95), "max": v[-1] if v else 0, "files": n, "std_dev": std}


def file_size_rows(view, partition: str | None = None) -> list[dict]:
    """``stats filesizes``: the committed base files' sizes per instant, then ``ALL``."""
    by_instant: dict[str, list[int]] = {}
    for p in view.partitions:
        if partition not in (None, p):
            continue
        for g in view.file_groups[p]:
            for s in g.slices:
                if s.base_file is not None:
                    by_instant.setdefault(s.base_file.instant, []).append(s.base_file.size)
    everything = [x for sizes in by_instant.values() for x in sizes]
    return [size_summary(k, by_instant[k]) for k in sorted(by_instant)] + [size_summary("ALL", everything)]


@click.group("stats")
def stats_group():
    """Write amplification and file sizes (hudi-cli's `stats`)."""


@stats_group.command("wa")
@_PATH
@_JSON
def stats_wa(path, as_json):
    """Write amplification per completed commit and replacecommit: records written / records updated
    (0 when nothing was updated), and the total."""
    _show(write_amplification_rows(_open(path)), "write amplification", as_json)


@stats_group.command("filesizes")
@_PATH
@_PARTITION
@_JSON
def stats_filesizes(path, partition, as_json):
    """Base file sizes per instant and for ALL: min, 10th, 50th, mean, 95th percentile, max, count,
    standard deviation (bytes)."""
    table = _open(path)
    _show(file_size_rows(_view(table, None, partition), partition), "file sizes", as_json)
