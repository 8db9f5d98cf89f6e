"""The `hudi-log` command: one group, its commands in one module per group of what they act on.

* :mod:`.logs`: log files (inspect, records, validate, salvage), :mod:`.write_block`: write-block;
* :mod:`.diff`: two log files or blocks compared (diff);
* :mod:`.view`: a log file as a picture (view: an offline HTML viewer, map: an SVG/PNG block map);
* :mod:`.tables`: whole tables (table, read, write);
* :mod:`.services`: table services (compact, cluster, clean, rollback);
* :mod:`.timeline`: the timeline (commits / cleans / savepoints / archived show, savepoint, archive);
* :mod:`.operator`: hudi-cli's read-only operator commands (commits showpartitions|showfiles, fsview, stats);
* :mod:`.operator_admin`: hudi-cli's operator commands that change a table (commit rollback,
  compaction validate|unschedule, table update-configs|delete-configs|recover-configs, repair, marker delete,
  export instants);
* :mod:`.metadata`: the metadata table's file listing (metadata list-partitions / list-files / validate-files / stats).

Every failure, whatever raised it, leaves through :class:`_Main` as one line on stderr and an exit code
(:mod:`.output` holds the convention); no input gives a traceback. ``HUDI_LOG_DEBUG=1`` re-raises
unexpected errors for debugging.
"""

from __future__ import annotations

import os
import sys

import click

from ..memory import tune_allocator
from .diff import diff
from .logs import inspect, records, salvage, validate
from .metadata import metadata_group
from .operator import commits_showfiles, commits_showpartitions, fsview_group, stats_group
from .operator_admin import commit_group, compaction_group, export_group, marker_group, repair_group, table_group
from .output import EXIT_FAILED, EXIT_INPUT, error_message, exit_code_for, hudi_options
from .services import clean_cmd, cluster_cmd, compact_cmd, compactions_cmd, rollback_cmd
from .tables import read_cmd, table_cmd, write_cmd
from .upgrade import downgrade_cmd, upgrade_cmd
from .timeline import (archive_cmd, archived_group, cleans_group, commits_group, savepoint_group,
                       savepoints_group)
from .view import map_cmd, view
from .write_block import write_block


def _say(message: str) -> None:
    click.echo(f"hudi-log: {message}", err=True)


class _Main(click.Group):
    """The group, running its commands with click's standalone handling replaced by ours."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        tune_allocator()  # the CLI's process is ours: slices and blocks reuse each other's memory (hudi_log.memory)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help() if e.ctx else str(e))
            rv = EXIT_INPUT
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx else "hudi-log"
            _say(f"{e.format_message()} (see `{where} --help`)")
            rv = EXIT_INPUT
        except click.ClickException as e:
            _say(" ".join(e.format_message().split()))
            rv = e.exit_code
        except click.Abort:
            _say("aborted")
            rv = 130
        except BrokenPipeError:
            # the reader of our output went away (`| head`): stop quietly, as shell tools do
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            rv = 141
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:
            if os.environ.get("HUDI_LOG_DEBUG"):
                raise
            from ..errors import HudiLogError

            code = exit_code_for(e)
            if isinstance(e, (HudiLogError, OSError)):
                _say(error_message(e))
            else:
                _say(f"unexpected error: {type(e).__name__}: {error_message(e)} "
                     "(please report it; HUDI_LOG_DEBUG=1 shows where)")
                code = EXIT_FAILED
            rv = code
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(name="hudi-log", cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hudi-log")
@click.option("--option", "storage", multiple=True, metavar="KEY=VALUE",
              help="a storage option for s3:// paths, named as Hadoop's S3A names it (fs.s3a.endpoint, "
                   "fs.s3a.access.key, fs.s3a.secret.key, fs.s3a.path.style.access); repeatable. "
                   "AWS_* environment variables work too.")
def main(storage) -> None:
    """Look inside, check and repair Apache Hudi Merge-On-Read log files and tables.

    Exit codes: 0 done; 2 a usage or input error (nothing was changed); 3 an operation failed in the
    middle. `validate` has its own: 0 intact, 1 damaged, 2 unreadable.
    """
    hudi_options(storage)  # takes the fs.s3a.* keys for every path the command opens


_table = table_group(table_cmd)
_table.add_command(upgrade_cmd)
_table.add_command(downgrade_cmd)
for _command, _name in ((inspect, "inspect"), (records, "records"), (validate, "validate"), (salvage, "salvage"),
                        (write_block, "write-block"), (_table, "table"), (read_cmd, "read"), (write_cmd, "write"),
                        (rollback_cmd, "rollback"), (compact_cmd, "compact"), (clean_cmd, "clean"), (diff, "diff"),
                        (compactions_cmd, "compactions"), (view, "view"), (map_cmd, "map"),
                        (cluster_cmd, "cluster")):
    main.add_command(_command, _name)
for _command, _name in ((commits_group, "commits"), (cleans_group, "cleans"), (savepoints_group, "savepoints"),
                        (archived_group, "archived"), (savepoint_group, "savepoint"), (archive_cmd, "archive"),
                        (fsview_group, "fsview"), (stats_group, "stats"), (commit_group, "commit"),
                        (compaction_group, "compaction"), (repair_group, "repair"), (marker_group, "marker"),
                        (export_group, "export"), (metadata_group, "metadata")):
    main.add_command(_command, _name)
commits_group.add_command(commits_showpartitions)  # hudi-cli's `commit showpartitions|showfiles`
commits_group.add_command(commits_showfiles)

if __name__ == "__main__":
    main()
