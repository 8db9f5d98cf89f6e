"""hudi-cli's operator commands that change a table, under the names an operator knows, each with
``--json``:

* ``commit rollback PATH INSTANT``: roll back a completed write (hudi-cli's ``commit rollback``; the
  checks Java makes are :mod:`hudi_log.table.services.commit_rollback`'s).

Errors follow the CLI's convention (cli/output.py): exit 2 when refused before anything changed, 3 when a
step failed in the middle.
"""

from __future__ import annotations

import click

from ..errors import HudiLogError
from .output import StoragePath, dumps, hudi_options, raise_error

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
