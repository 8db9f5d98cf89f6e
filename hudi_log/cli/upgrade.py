"""`hudi-log table upgrade|downgrade PATH --to N`: hudi-cli's ``upgrade table`` / ``downgrade table``
(``UpgradeOrDowngradeCommand``), over :func:`hudi_log.table.write.upgrade.change_table_version`; two
subcommands of the ``table`` group (:func:`hudi_log.cli.operator_admin.table_group`)."""

from __future__ import annotations

import json

import click

from .output import StoragePath, hudi_options


def _version_command(name: str, direction: str):
    @click.command(name, help=f"{direction.capitalize()} a table to version --to (6, 8 or 9) with Java's steps: "
                   "failed writes rolled back and a MERGE_ON_READ table compacted first, the timeline moved "
                   "between layouts, hoodie.properties replaced last.")
    @click.argument("path", type=StoragePath(exists=True, file_okay=False))
    @click.option("--to", "to", required=True, type=click.Choice(["6", "8", "9"]), help="the table version to reach")
    @click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE",
                  help="a Hudi option (repeatable), e.g. hoodie.metadata.enable=false")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    def cmd(path, to, extra, as_json):
        from ..table.properties import read_properties
        from ..table.write.options import TABLE_VERSION, resolve
        from ..table.write.upgrade import change_table_version
        current = read_properties(path).version
        if (int(to) < current) if direction == "upgrade" else (int(to) > current):
            raise click.UsageError(f"the table is at version {current}: {name} cannot take it to {to} "
                                   f"(use `hudi-log table {'downgrade' if direction == 'upgrade' else 'upgrade'}`)")
        opts = hudi_options(extra)
        resolve(opts, {TABLE_VERSION: to}, {TABLE_VERSION: "--to"}, path)  # -o naming another version: an error
        change = change_table_version(path, int(to), opts)
        if as_json:
            click.echo(json.dumps(change.to_dict()))
            return
        if change.from_version == change.to_version:
            click.echo(f"table is already at version {change.to_version}: nothing to do")
            return
        extra_steps = [f"rolled back {', '.join(change.rolled_back)}"] if change.rolled_back else []
        extra_steps += [f"compacted in {', '.join(change.compactions)}"] if change.compactions else []
        extra_steps += [f"{change.instant_files} timeline file(s) moved"] if change.instant_files else []
        click.echo(f"table {name}d from version {change.from_version} to {change.to_version}"
                   + (f" ({'; '.join(extra_steps)})" if extra_steps else ""))
    return cmd


upgrade_cmd = _version_command("upgrade", "upgrade")
downgrade_cmd = _version_command("downgrade", "downgrade")
