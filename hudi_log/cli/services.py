"""`hudi-log` commands for table services: ``compact PATH [--schedule-only | --instant T]``,
``compactions show PATH``, ``clean PATH --retain-commits N`` and ``rollback PATH INSTANT``. Errors exit 2
with a message (3 when a compaction fails half-way)."""

from __future__ import annotations

import json

import click

from ..errors import HudiLogError
from .output import fail as _fail, hudi_options, progress, raise_error

_OPTION = click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE",
                       help="a Hudi option (repeatable), e.g. the lock provider and heartbeat settings")


@click.command("compact")
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--schedule-only", is_flag=True, help="Only write the compaction plan (compaction.requested).")
@click.option("--instant", default=None, help="Run this pending compaction instead of scheduling a new one.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_OPTION
def compact_cmd(path, schedule_only, instant, as_json, extra):
    """Compact a MERGE_ON_READ table: merge file slices with log files into new base files. Without
    --instant, every pending (scheduled) compaction runs first, oldest first, then a new one is scheduled
    and run, as Hudi's `compaction run` does; each compaction run is reported."""
    from ..table.read.instants import parse_instant
    from ..table.services.compaction import compact_all, run_compaction, schedule_compaction
    if schedule_only and instant:
        _fail("--schedule-only and --instant exclude each other")
    opts = hudi_options(extra)
    try:
        if instant:
            instant = parse_instant(instant, "--instant", path)
        if schedule_only:
            scheduled = schedule_compaction(path, opts)
            out = {"scheduled": scheduled}
            msg = f"scheduled compaction {scheduled}" if scheduled else "nothing to compact"
        else:
            with progress(None, "compacting"):
                done = [run_compaction(path, instant, opts)] if instant else compact_all(path, opts)
            runs = [{"instant": r.instant, "files": [s["path"] for s in r.write_stats],
                     "rows": sum(s["numWrites"] for s in r.write_stats)} for r in done]
            last = runs[-1] if runs else {"instant": None, "files": [], "rows": 0}
            out = {**last, "compactions": runs}  # the last run's keys stay where they were
            msg = "\n".join(f"compaction {r['instant']}: {len(r['files'])} base file(s), {r['rows']} row(s)"
                            for r in runs) or "nothing to compact"
    except HudiLogError as e:
        raise_error(e)
    click.echo(json.dumps(out) if as_json else msg)


@click.group("compactions")
def compactions_cmd():
    """Compaction plans of a MERGE_ON_READ table."""


@compactions_cmd.command("show")
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every operation of every plan).")
def compactions_show_cmd(path, as_json):
    """List the compactions whose plans are on the active timeline: instant, state, file groups, log
    files (oldest first)."""
    from ..table.services.compaction import list_compactions
    try:
        infos = list_compactions(path)
    except HudiLogError as e:
        raise_error(e)
    if as_json:
        click.echo(json.dumps({"compactions": [i.to_dict() for i in infos]}, indent=2))
        return
    if not infos:
        click.echo("no compaction plans on the active timeline")
        return
    click.echo("instant\tstate\tcompleted\tfile groups\tlog files")
    for i in infos:
        d = i.to_dict()
        click.echo(f"{i.instant}\t{i.state}\t{i.completion_time or ''}\t{d['file_groups']}\t{d['log_files']}"
                   + (f"\t(plan unreadable: {i.error})" if i.error else ""))


@click.command("clean")
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--retain-commits", type=click.IntRange(min=1), required=True,
              help="Keep every file the last N commits need (hoodie.cleaner.commits.retained).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_OPTION
def clean_cmd(path, retain_commits, as_json, extra):
    """Delete file slices older than the last N commits need (KEEP_LATEST_COMMITS)."""
    from ..table.services.clean import clean
    try:
        instant = clean(path, retain_commits=retain_commits, options=hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    deleted = _files_deleted(path, instant)
    click.echo(json.dumps({"clean": instant, "files_deleted": deleted}) if as_json else
               (f"clean {instant}: {deleted} file(s) deleted" if instant else "nothing to clean"))


def _files_deleted(path, instant: str | None) -> int:
    """``totalFilesDeleted`` of a completed clean or rollback instant's metadata (0 when there is none)."""
    if instant is None:
        return 0
    from ..table import HudiTable
    t = HudiTable(path)
    inst = t.timeline.instant(instant)
    try:
        return int((t.timeline.commit_metadata(inst) if inst else {}).get("totalFilesDeleted") or 0)
    except HudiLogError:
        return 0


@click.command("rollback")
@click.argument("path", type=click.Path(file_okay=False))
@click.argument("instant")
@_OPTION
def rollback_cmd(path, instant, extra):
    """Roll back the failed (pending) write INSTANT of the table at PATH. An instant whose writer is alive
    (its heartbeat is fresh) is refused."""
    from ..table.read.instants import parse_instant
    from ..table.services.rollback import rollback

    try:
        done = rollback(path, parse_instant(instant, "INSTANT", path), options=hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    click.echo(f"rolled back {instant}: rollback {done.requested_time} ({done.file_name}), "
               f"{_files_deleted(path, done.requested_time)} file(s) deleted")
