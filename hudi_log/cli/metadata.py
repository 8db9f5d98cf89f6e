"""`hudi-log metadata ...`: the metadata table's ``files`` partition, after hudi-cli's ``metadata`` commands
(``MetadataCommand``: list-partitions, list-files, validate-files, stats).

* ``metadata list-partitions PATH``: the data partitions the ``files`` partition lists;
* ``metadata list-files PATH PARTITION``: that partition's files and sizes as it lists them;
* ``metadata validate-files PATH``: its listing against storage's; exit 1 and a line per difference;
* ``metadata stats PATH``: per metadata-table partition, its latest file slices, files, bytes and records.

Each takes ``--json``. A table without a metadata table is an input error (exit 2), as any HudiLogError.
"""

from __future__ import annotations

import sys

import click

from ..errors import HudiLogError
from .output import EXIT_DAMAGED, StoragePath, dumps, fail, print_table, raise_error

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
_PATH = click.argument("path", type=StoragePath(exists=True, file_okay=False))


def _require(path):
    from ..table.metadata_files import metadata_path

    if not metadata_path(path).is_dir():
        fail(f"{path}: the table has no metadata table (.hoodie/metadata) (list its files with `hudi-log table`)")


def _run(fn, *args):
    try:
        return fn(*args)
    except HudiLogError as e:
        raise_error(e)


@click.group("metadata")
def metadata_group():
    """The metadata table's file listing (its `files` partition) and statistics."""


@metadata_group.command("list-partitions")
@_PATH
@_JSON
def list_partitions_cmd(path, as_json: bool) -> None:
    """The partitions the metadata table lists (`.` for a non-partitioned table)."""
    from ..table.metadata_files import read_listing

    _require(path)
    parts = _run(read_listing, path).partitions
    if as_json:
        click.echo(dumps(parts, indent=2))
    else:
        print_table("partitions", ("partition",), ([p or "."] for p in parts))


@metadata_group.command("list-files")
@_PATH
@click.argument("partition")
@_JSON
def list_files_cmd(path, partition: str, as_json: bool) -> None:
    """PARTITION's files as the metadata table lists them (`.` for a non-partitioned table)."""
    from ..table.metadata_files import read_listing

    _require(path)
    listing = _run(read_listing, path)
    key = "" if partition in (".", "") else partition.strip("/")
    if key not in listing.files:
        fail(f"{path}: partition {partition!r} is not listed by the metadata table "
             "(see `hudi-log metadata list-partitions`)")
    rows = [{"name": f.name, "size": f.size} for f in listing.files[key]]
    if as_json:
        click.echo(dumps(rows, indent=2))
    else:
        print_table(f"files of {partition}", ("name", "size"), ([r["name"], r["size"]] for r in rows))


@metadata_group.command("validate-files")
@_PATH
@_JSON
def validate_files_cmd(path, as_json: bool) -> None:
    """The metadata table's listing against storage: exit 0 equal, 1 different (a line per difference)."""
    from ..table.metadata_files import compare_with_storage

    _require(path)
    diffs = _run(compare_with_storage, path)
    if as_json:
        click.echo(dumps({"ok": not diffs, "differences": [d.to_dict() for d in diffs]}, indent=2))
    else:
        for d in diffs:
            click.echo(d.line())
        click.echo(f"{path}: " + ("OK: the metadata table's listing equals storage" if not diffs
                                  else f"DIFFERENT: {len(diffs)} difference(s)"))
    sys.exit(EXIT_DAMAGED if diffs else 0)


@metadata_group.command("stats")
@_PATH
@_JSON
def stats_cmd(path, as_json: bool) -> None:
    """Per metadata-table partition: latest file slices, base and log files, bytes, records."""
    from ..table.metadata_files import metadata_stats

    _require(path)
    rows = [s.to_dict() for s in _run(metadata_stats, path)]
    cols = ("partition", "file_slices", "base_files", "log_files", "base_bytes", "log_bytes", "records")
    if as_json:
        click.echo(dumps(rows, indent=2))
    else:
        print_table("metadata table", cols, ([r[c] for c in cols] for r in rows))
