"""`hudi-log` commands for table services: ``compact PATH [--schedule-only | --instant T]``,
``clean PATH --retain-commits N`` and ``rollback PATH INSTANT``. Errors exit 2 with a message."""

from __future__ import annotations

import json

import click

from ..errors import HudiLogError
from .output import StoragePath, fail as _fail, hudi_options

_OPTION = click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE",
                       help="a Hudi option (repeatable), e.g. the lock provider and heartbeat settings")


@click.command("compact")
@click.argument("path", type=StoragePath(exists=True, file_okay=False))
@click.option("--schedule-only", is_flag=True, help="Only write the compaction plan (compaction.requested).")
@click.option("--instant", default=None, help="Run this pending compaction instead of scheduling a new one.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_OPTION
def compact_cmd(path, schedule_only, instant, as_json, extra):
    """Compact a MERGE_ON_READ table: merge file slices with log files into new base files."""
    from ..table.services.compaction import compact, run_compaction, schedule_compaction
    if schedule_only and instant:
        _fail("--schedule-only and --instant exclude each other")
    opts = hudi_options(extra)
    try:
        if schedule_only:
            scheduled = schedule_compaction(path, opts)
            out = {"scheduled": scheduled}
            msg = f"scheduled compaction {scheduled}" if scheduled else "nothing to compact"
        else:
            res = run_compaction(path, instant, opts) if instant else compact(path, opts)
            files = [s["path"] for s in res.write_stats] if res else []
            rows = sum(s["numWrites"] for s in res.write_stats) if res else 0
            out = {"instant": res.instant if res else None, "files": files, "rows": rows}
            msg = (f"compaction {res.instant}: {len(files)} base file(s), {rows} row(s)" if res
                   else "nothing to compact")
    except HudiLogError as e:
        _fail(str(e))
    click.echo(json.dumps(out) if as_json else msg)


@click.command("clean")
@click.argument("path", type=StoragePath(exists=True, file_okay=False))
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
        _fail(str(e))
    click.echo(json.dumps({"clean": instant}) if as_json else
               (f"clean {instant}" if instant else "nothing to clean"))


@click.command("rollback")
@click.argument("path", type=StoragePath(file_okay=False))
@click.argument("instant")
@_OPTION
def rollback_cmd(path, instant, extra):
    """Roll back the failed (pending) write INSTANT of the table at PATH. An instant whose writer is alive
    (its heartbeat is fresh) is refused."""
    from ..table.services.rollback import rollback

    try:
        done = rollback(path, instant, options=hudi_options(extra))
    except HudiLogError as e:
        _fail(str(e))
    click.echo(f"rolled back {instant}: rollback {done.requested_time} ({done.file_name})")
