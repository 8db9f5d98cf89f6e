"""hudi-cli's operator commands that change a table, under the names an operator knows, each with
``--json``:

* ``commit rollback PATH INSTANT``: roll back a completed write (hudi-cli's ``commit rollback``; the
  checks Java makes are :mod:`hudi_log.table.services.commit_rollback`'s);
* ``compaction validate|unschedule PATH INSTANT``: check or remove a pending compaction plan
  (``CompactionAdminClient``: :mod:`hudi_log.table.services.compaction_admin`); validate exits 1 when an
  operation is invalid.

Errors follow the CLI's convention (cli/output.py): exit 2 when refused before anything changed, 3 when a
step failed in the middle.
"""

from __future__ import annotations

import click

from ..errors import HudiLogError
from .output import EXIT_DAMAGED, StoragePath, dumps, hudi_options, print_table, raise_error

_OPTION = click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE",
                       help="a Hudi option (repeatable), e.g. the lock provider or hoodie.cleaner.policy.failed.writes")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
_PATH = click.argument("path", type=StoragePath(exists=True, file_okay=False))


@click.group("commit")
def commit_group():
    """One completed commit (hudi-cli's `commit rollback`)."""


@commit_group.command("rollback")
@_PATH
@click.argument("instant")
@_JSON
@_OPTION
def commit_rollback(path, instant, as_json, extra):
    """Roll back the completed write INSTANT: its files are undone and a rollback instant records it.
    As Java, only the latest write (no completed write after it, none pending), never a savepointed one."""
    from ..table.read.instants import parse_instant
    from ..table.services.commit_rollback import rollback_completed
    from .services import _files_deleted
    try:
        done = rollback_completed(path, parse_instant(instant, "INSTANT", path), options=hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    deleted = _files_deleted(path, done.requested_time)
    click.echo(dumps({"rolled_back": instant, "rollback": done.requested_time, "file": done.file_name,
                      "files_deleted": deleted}) if as_json
               else f"commit {instant} rolled back: rollback {done.requested_time} ({done.file_name}), "
                    f"{deleted} file(s) deleted")


@click.group("compaction")
def compaction_group():
    """One compaction plan (hudi-cli's `compaction validate|unschedule`); `compactions show` lists them."""


@compaction_group.command("validate")
@_PATH
@click.argument("instant")
@_JSON
def compaction_validate(path, instant, as_json):
    """Check each operation of the pending compaction INSTANT against the table's files: its slice, base
    file and log files are there. Exit 1 when an operation is invalid."""
    from ..table.read.instants import parse_instant
    from ..table.services.compaction_admin import validate_compaction_plan
    try:
        results = validate_compaction_plan(path, parse_instant(instant, "INSTANT", path))
    except HudiLogError as e:
        raise_error(e)
    rows = [r.to_dict() for r in results]
    if as_json:
        click.echo(dumps({"instant": instant, "valid": all(r.valid for r in results), "operations": rows}, indent=2))
    else:
        print_table(f"compaction {instant}", ("partition", "file_id", "base_instant", "base_file", "valid", "error"),
                    ([r[c] for c in ("partition", "file_id", "base_instant", "base_file", "valid", "error")]
                     for r in rows))
    if not all(r.valid for r in results):
        raise SystemExit(EXIT_DAMAGED)


@compaction_group.command("unschedule")
@_PATH
@click.argument("instant")
@_JSON
@_OPTION
def compaction_unschedule(path, instant, as_json, extra):
    """Remove the requested (not yet running) compaction INSTANT's plan. Refused on a version 6 table
    where log files were written into its slice since it was requested (run the compaction instead)."""
    from ..table.read.instants import parse_instant
    from ..table.services.compaction_admin import unschedule_compaction
    try:
        done = unschedule_compaction(path, parse_instant(instant, "INSTANT", path), hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    click.echo(dumps(done.to_dict()) if as_json
               else f"unscheduled compaction {instant}: deleted {done.plan_file}")
