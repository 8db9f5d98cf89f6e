"""`hudi-log` commands over the timeline, after Hudi's CLI (``commits show``, ``cleans show``,
``savepoints show``, ``archived commits show``, ``savepoint create|delete|rollback``, archival):

* ``commits show PATH`` / ``cleans show PATH`` / ``savepoints show PATH`` / ``archived show PATH``: one row
  per instant (instant, action, state, completion time, files and records written, bytes, duration);
* ``savepoint create|delete|restore PATH INSTANT``; ``archive PATH``.

``--json`` prints the rows as JSON; the default is a rich table. Errors exit 2 with a message.
"""

from __future__ import annotations

import datetime

import click

from ..errors import HudiLogError
from .output import dumps, fail as _fail, hudi_options

_OPTION = click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE",
                       help="a Hudi option (repeatable), e.g. hoodie.keep.max.commits or the lock provider")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
_PATH = click.argument("path", type=click.Path(exists=True, file_okay=False))


def _ms(t: str | None) -> int | None:
    try:
        return int(datetime.datetime.strptime(t[:17], "%Y%m%d%H%M%S%f").timestamp() * 1000) if t else None
    except ValueError:
        return None


def _write_totals(md) -> dict:
    stats = [s for ss in ((md or {}).get("partitionToWriteStats") or {}).values() for s in (ss or [])]
    return {"files": len(stats), "records": sum(int(s.get("numWrites") or 0) for s in stats),
            "bytes": sum(int(s.get("totalWriteBytes") or 0) for s in stats)}


def _row(inst, md) -> dict:
    """One instant's row: the write totals of its metadata, and completion − request as its duration."""
    start, end = _ms(inst.requested_time), _ms(inst.completion_time)
    row = {**inst.to_dict(), **_write_totals(md)}
    row["duration_ms"] = end - start if start is not None and end is not None and inst.is_completed else None
    if "totalFilesDeleted" in (md or {}):
        row["files_deleted"] = md["totalFilesDeleted"]
    return row


def _show(rows: list[dict], columns: tuple[str, ...], title: str, as_json: bool) -> None:
    if as_json:
        click.echo(dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    t = Table(title=title)
    for c in columns:
        t.add_column(c)
    for r in rows:
        t.add_row(*("" if r.get(c) is None else str(r.get(c)) for c in columns))
    Console().print(t)


def _run(fn, *args):
    """``fn(*args)``, a hudi-log error ending the command with its message."""
    try:
        return fn(*args)
    except HudiLogError as e:
        _fail(str(e))


def _timeline_rows(path, actions) -> list[dict]:
    from ..table import HudiTable
    try:
        timeline = HudiTable(path).timeline
        return [_row(i, timeline.commit_metadata(i) if i.is_completed else {})
                for i in timeline.instants if i.action in actions]
    except HudiLogError as e:
        _fail(str(e))


_COLUMNS = ("instant", "action", "state", "completion_time", "files", "records", "bytes", "duration_ms")


@click.group("commits")
def commits_group():
    """The table's write instants."""


@commits_group.command("show")
@_PATH
@_JSON
def commits_show(path, as_json):
    """Write instants of the active timeline (commit, deltacommit, replacecommit, pending compactions)."""
    from ..table.timeline.timeline import WRITE_ACTIONS
    _show(_timeline_rows(path, WRITE_ACTIONS), _COLUMNS, "commits", as_json)


@click.group("cleans")
def cleans_group():
    """The table's clean instants."""


@cleans_group.command("show")
@_PATH
@_JSON
def cleans_show(path, as_json):
    """Clean instants of the active timeline with the files each deleted."""
    _show(_timeline_rows(path, {"clean"}), ("instant", "state", "completion_time", "files_deleted", "duration_ms"),
          "cleans", as_json)


@click.group("savepoints")
def savepoints_group():
    """The table's savepoints."""


@savepoints_group.command("show")
@_PATH
@_JSON
def savepoints_show(path, as_json):
    """Completed savepoints: instant, who, when, comments, files kept."""
    from ..table import HudiTable
    from ..table.services.savepoint import list_savepoints
    rows = [s.to_dict() for s in _run(lambda: list_savepoints(HudiTable(path).timeline))]
    _show(rows, ("instant", "savepointed_by", "savepointed_at", "comments", "partitions", "files"), "savepoints",
          as_json)


@click.group("archived")
def archived_group():
    """The archived timeline."""


@archived_group.command("show")
@_PATH
@_JSON
def archived_show(path, as_json):
    """Instants of the v6 archive (.hoodie/archived), with the totals their metadata records."""
    from ..table.services.archive import read_archive
    rows = [{**a.to_dict(), **_write_totals(a.metadata)} for a in _run(read_archive, path)]
    _show(rows, ("instant", "action", "state", "files", "records", "bytes", "archive_file"), "archived", as_json)


@click.group("savepoint")
def savepoint_group():
    """Create, delete or restore to a savepoint."""


@savepoint_group.command("create")
@_PATH
@click.argument("instant")
@click.option("--user", default=None, help="savepointedBy (default: the current user).")
@click.option("--comments", default="", help="Comments kept with the savepoint.")
@_JSON
@_OPTION
def savepoint_create(path, instant, user, comments, as_json, extra):
    """Savepoint the completed commit INSTANT."""
    from ..table.services.savepoint import create_savepoint
    sp = _run(create_savepoint, path, instant, user, comments, hudi_options(extra))
    click.echo(dumps(sp.to_dict()) if as_json else f"savepoint {instant}: {sp.to_dict()['files']} file(s) kept")


@savepoint_group.command("delete")
@_PATH
@click.argument("instant")
@_JSON
@_OPTION
def savepoint_delete(path, instant, as_json, extra):
    """Delete the savepoint of INSTANT."""
    from ..table.services.savepoint import delete_savepoint
    _run(delete_savepoint, path, instant, hudi_options(extra))
    click.echo(dumps({"deleted": instant}) if as_json else f"deleted savepoint {instant}")


@savepoint_group.command("restore")
@_PATH
@click.argument("instant")
@_JSON
@_OPTION
def savepoint_restore(path, instant, as_json, extra):
    """Restore the table to the savepoint INSTANT: roll back every later write."""
    from ..table.services.savepoint import restore
    done = _run(restore, path, instant, hudi_options(extra))
    click.echo(dumps({"restore": done.requested_time, "file": done.file_name}) if as_json
               else f"restored to {instant}: restore {done.requested_time} ({done.file_name})")


@click.command("archive")
@_PATH
@_JSON
@_OPTION
def archive_cmd(path, as_json, extra):
    """Archive the timeline (hoodie.keep.min.commits / hoodie.keep.max.commits, defaults 20 / 30)."""
    from ..table.services.archive import archive
    done = _run(archive, path, hudi_options(extra))
    if as_json:
        click.echo(dumps([a.to_dict() for a in done]))
    else:
        click.echo(f"archived {len(done)} instant file(s) to {done[0].file}" if done else "nothing to archive")
