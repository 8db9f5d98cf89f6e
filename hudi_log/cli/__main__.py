"""``python -m hudi_log.cli``: the `hudi-log` command."""

from . import main

main()
