"""The `hudi-log` command: one group, its commands in one module per group of what they act on.

* :mod:`.logs`: log files (inspect, records, validate, salvage, write-block);
* :mod:`.tables`: whole tables (table, read, write);
* :mod:`.services`: table services (compact, clean, rollback).
"""

from __future__ import annotations

import click

from .output import hudi_options
from .logs import inspect, records, salvage, validate, write_block
from .services import clean_cmd, compact_cmd, rollback_cmd
from .tables import read_cmd, table_cmd, write_cmd


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hudi-log")
@click.option("--option", "storage", multiple=True, metavar="KEY=VALUE",
              help="a storage option for s3:// paths, named as Hadoop's S3A names it (fs.s3a.endpoint, "
                   "fs.s3a.access.key, fs.s3a.secret.key, fs.s3a.path.style.access); repeatable. "
                   "AWS_* environment variables work too.")
def main(storage) -> None:
    """Look inside, check and repair Apache Hudi Merge-On-Read log files."""
    hudi_options(storage)  # takes the fs.s3a.* keys for every path the command opens


for _command, _name in ((inspect, "inspect"), (records, "records"), (validate, "validate"), (salvage, "salvage"),
                        (write_block, "write-block"), (table_cmd, "table"), (read_cmd, "read"), (write_cmd, "write"),
                        (rollback_cmd, "rollback"), (compact_cmd, "compact"), (clean_cmd, "clean")):
    main.add_command(_command, _name)

if __name__ == "__main__":
    main()
