"""hudi-cli's operator commands that change a table, under the names an operator knows, each with
``--json``:

* ``commit rollback PATH INSTANT``: roll back a completed write (hudi-cli's ``commit rollback``; the
  checks Java makes are :mod:`hudi_log.table.services.commit_rollback`'s);
* ``compaction validate|unschedule|repair PATH INSTANT``: check, remove or repair a pending compaction plan
  (``CompactionAdminClient``: :mod:`hudi_log.table.services.compaction_admin`); validate exits 1 when an
  operation is invalid;
* ``repair deduplicate PATH --partition P``: Java's ``DedupeSparkJob`` (:mod:`hudi_log.table.services.dedupe`);
* ``table update-configs|delete-configs|recover-configs``, ``repair overwrite-hoodie-props|addpartitionmeta``,
  ``marker delete``, ``export instants``: :mod:`hudi_log.table.admin`. ``table PATH`` stays the summary.

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
    """One compaction plan (hudi-cli's `compaction validate|unschedule|repair`); `compactions show` lists them."""


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


@compaction_group.command("repair")
@_PATH
@click.argument("instant")
@click.option("--dry-run/--no-dry-run", default=True, show_default=True,
              help="Only report the renames (hudi-cli's --dryrun, true by default).")
@_JSON
@_OPTION
def compaction_repair(path, instant, dry_run, as_json, extra):
    """Put back into the pending compaction INSTANT's slice the log files a half-done unschedule renamed out of
    it (hudi-cli's `compaction repair`; version 6 tables)."""
    from ..table.read.instants import parse_instant
    from ..table.services.compaction_admin import repair_compaction
    try:
        done = repair_compaction(path, parse_instant(instant, "INSTANT", path), dry_run, hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    rows = [r.to_dict() for r in done]
    if as_json:
        click.echo(dumps({"instant": instant, "dry_run": dry_run, "renames": rows}, indent=2))
    elif rows:
        print_table(f"compaction {instant}" + (" (dry run)" if dry_run else ""), ("partition", "from", "to"),
                    ([r["partition"], r["from"], r["to"]] for r in rows))
    else:
        click.echo(f"compaction {instant}: nothing to repair")


# ---- table configs, repairs, markers, export -------------------------------------------------------
class TableGroup(click.Group):
    """``hudi-log table PATH`` (the table's summary) beside hudi-cli's ``table update-configs|recover-configs|
    delete-configs``: a first argument that names no subcommand is the PATH of the summary."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["show", *args]
        return super().parse_args(ctx, args)


def _changes(changes, as_json: bool, what: str) -> None:
    rows = [c.to_dict() for c in changes]
    if as_json:
        click.echo(dumps({"changed": rows}, indent=2))
    elif rows:
        print_table(what, ("property", "old", "new"), ([r["property"], r["old"], r["new"]] for r in rows))
    else:
        click.echo("no property changed")


def _key_values(pairs, what: str) -> dict:
    out = {}
    for kv in pairs:
        k, sep, v = kv.partition("=")
        if not sep or not k.strip():
            raise click.UsageError(f"{what} {kv!r} is not KEY=VALUE")
        out[k.strip()] = v
    return out


def _props_file(path) -> dict:
    from ..table.properties import parse_java_properties
    try:
        with open(path, encoding="latin-1") as f:
            return parse_java_properties(f.read())
    except OSError as e:
        raise_error(e)


def table_group(summary: click.Command) -> click.Group:
    """The ``table`` group: ``summary`` (``hudi-log table PATH``) and the config commands."""
    group = TableGroup("table", help="The table's summary (`hudi-log table PATH [--json]`), or hudi-cli's "
                                     "`table update-configs|delete-configs|recover-configs`.")
    group.add_command(summary, "show")
    for c in (table_update_configs, table_delete_configs, table_recover_configs):
        group.add_command(c)
    return group


@click.command("update-configs")
@_PATH
@click.option("--set", "pairs", multiple=True, metavar="KEY=VALUE", help="A property to set (repeatable).")
@click.option("--props-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A Java properties file whose properties are set (hudi-cli's --props-file).")
@_JSON
@_OPTION
def table_update_configs(path, pairs, props_file, as_json, extra):
    """Set properties in .hoodie/hoodie.properties, through hoodie.properties.backup as Hudi does."""
    from ..table.admin import update_table_configs
    updates = {**(_props_file(props_file) if props_file else {}), **_key_values(pairs, "--set")}
    if not updates:
        raise click.UsageError("give --set KEY=VALUE or --props-file")
    try:
        changes = update_table_configs(path, updates, options=hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    _changes(changes, as_json, "updated properties")


@click.command("delete-configs")
@_PATH
@click.argument("keys", nargs=-1, required=True)
@_JSON
@_OPTION
def table_delete_configs(path, keys, as_json, extra):
    """Remove properties KEYS from .hoodie/hoodie.properties (through the backup, as Hudi does)."""
    from ..table.admin import update_table_configs
    try:
        changes = update_table_configs(path, {}, deletes=keys, options=hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    _changes(changes, as_json, "deleted properties")


@click.command("recover-configs")
@_PATH
@_JSON
def table_recover_configs(path, as_json):
    """Restore a missing or damaged hoodie.properties from hoodie.properties.backup (then delete the backup)."""
    from ..table.admin import recover_table_configs
    try:
        done = recover_table_configs(path)
    except HudiLogError as e:
        raise_error(e)
    click.echo(dumps({"recover": done}) if as_json else done)


@click.group("repair")
def repair_group():
    """hudi-cli's repairs: overwrite-hoodie-props, addpartitionmeta, deduplicate."""


@repair_group.command("overwrite-hoodie-props")
@_PATH
@click.option("--new-props-file", type=click.Path(exists=True, dir_okay=False), required=True,
              help="The Java properties file that replaces hoodie.properties (its checksum recomputed).")
@_JSON
@_OPTION
def repair_overwrite_props(path, new_props_file, as_json, extra):
    """Replace .hoodie/hoodie.properties by a properties file, through the backup as Hudi does; prints what
    changed."""
    from ..table.admin import overwrite_table_properties
    try:
        changes = overwrite_table_properties(path, _props_file(new_props_file), options=hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    _changes(changes, as_json, "hoodie.properties")


@repair_group.command("deduplicate")
@_PATH
@click.option("--partition", "partition", required=True, help="The partition path holding the duplicates "
              "(hudi-cli's --duplicatedPartitionPath).")
@click.option("--dedupe-type", type=click.Choice(["insert_type", "update_type", "upsert_type"]),
              default="insert_type", show_default=True, help="Which rows of a key go (hudi-cli's --dedupeType).")
@click.option("--repaired-output-path", default=None, type=click.Path(file_okay=False),
              help="Where the fixed files are written (hudi-cli's --repairedOutputPath; default a new temporary "
                   "folder).")
@click.option("--dry-run/--no-dry-run", default=True, show_default=True,
              help="Only write the fixed files aside (hudi-cli's --dryrun, true by default).")
@_JSON
@_OPTION
def repair_deduplicate(path, partition, dedupe_type, repaired_output_path, dry_run, as_json, extra):
    """Cut rows of one record key held by several latest base files of a partition down to one, as hudi-cli's
    DedupeSparkJob does; with --no-dry-run the fixed files replace the originals."""
    from ..table.services.dedupe import deduplicate
    try:
        done = deduplicate(path, partition, dedupe_type, repaired_output_path, dry_run, hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    if as_json:
        click.echo(dumps(done.to_dict(), indent=2))
        return
    if not done.duplicates:
        click.echo(f"{partition}: no duplicates")
        return
    print_table(f"{partition}: {len(done.duplicates)} duplicated key(s), {dedupe_type}",
                ("file", "keys skipped"), ([name, len(keys)] for name, keys in done.plan.items()))
    click.echo(f"fixed files in {done.output}; " + ("dry run: the table is unchanged (--no-dry-run replaces them)"
                                                    if dry_run else f"{len(done.replaced)} file(s) replaced"))


@repair_group.command("addpartitionmeta")
@_PATH
@click.option("--dry-run/--no-dry-run", default=True, show_default=True,
              help="Only report (hudi-cli's --dryrun, true by default).")
@_JSON
def repair_addpartitionmeta(path, dry_run, as_json):
    """Write .hoodie_partition_metadata (naming the latest write) into each folder holding data files
    without one."""
    from ..table.admin import add_partition_metadata
    try:
        rows = [r.to_dict() for r in add_partition_metadata(path, dry_run)]
    except HudiLogError as e:
        raise_error(e)
    if as_json:
        click.echo(dumps(rows, indent=2))
    else:
        print_table("partitions", ("partition", "metadata_present", "action"),
                    ([r["partition"], r["metadata_present"], r["action"]] for r in rows))


@click.group("marker")
def marker_group():
    """An instant's markers (hudi-cli's `marker delete`)."""


@marker_group.command("delete")
@_PATH
@click.argument("instant")
@_JSON
@_OPTION
def marker_delete(path, instant, as_json, extra):
    """Delete the markers of INSTANT (.hoodie/.temp/INSTANT); refused while its writer is alive."""
    from ..table.admin import delete_instant_markers
    from ..table.read.instants import parse_instant
    try:
        n = delete_instant_markers(path, parse_instant(instant, "INSTANT", path), hudi_options(extra))
    except HudiLogError as e:
        raise_error(e)
    click.echo(dumps({"instant": instant, "markers_deleted": n}) if as_json
               else f"deleted {n} marker(s) of {instant}")


@click.group("export")
def export_group():
    """Copy instants out of the table (hudi-cli's `export instants`)."""


@export_group.command("instants")
@_PATH
@click.option("--dir", "folder", type=click.Path(file_okay=False), required=True, help="The local folder to write.")
@click.option("--actions", default=",".join(("clean", "commit", "deltacommit", "rollback", "savepoint", "restore")),
              show_default=True, help="Comma-separated actions to export.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many instants.")
@click.option("--desc", is_flag=True, help="Newest first.")
@_JSON
def export_instants_cmd(path, folder, actions, limit, desc, as_json):
    """Write each completed instant (archived ones as their metadata in JSON, active ones as their instant
    file) into --dir."""
    from ..table.admin import export_instants
    try:
        done = export_instants(path, folder, [a.strip() for a in actions.split(",") if a.strip()], limit, desc)
    except (HudiLogError, OSError) as e:
        raise_error(e)
    click.echo(dumps([d.to_dict() for d in done], indent=2) if as_json
               else f"exported {len(done)} instant(s) to {folder}")
