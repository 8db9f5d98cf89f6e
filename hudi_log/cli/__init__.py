"""The `hudi-log` command: one group, its commands in one module per group of what they act on.

* :mod:`.logs`: log files (inspect, records, validate, salvage, write-block);
* :mod:`.tables`: whole tables (table, read, write);
* :mod:`.services`: table services (compact, clean, rollback).
"""

from __future__ import annotations

import click

from .logs import inspect, records, salvage, validate, write_block
from .services import clean_cmd, compact_cmd, compactions_cmd, rollback_cmd
from .tables import read_cmd, table_cmd, write_cmd


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hudi-log")
def main() -> None:
    """Look inside, check and repair Apache Hudi Merge-On-Read log files."""


for _command, _name in ((inspect, "inspect"), (records, "records"), (validate, "validate"), (salvage, "salvage"),
                        (write_block, "write-block"), (table_cmd, "table"), (read_cmd, "read"), (write_cmd, "write"),
                        (rollback_cmd, "rollback"), (compact_cmd, "compact"), (clean_cmd, "clean"),
                        (compactions_cmd, "compactions")):
    main.add_command(_command, _name)

if __name__ == "__main__":
    main()
