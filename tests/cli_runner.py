"""Test helpers: the ``hudi-log`` command run in-process (click's runner), and its ``--json`` answer."""

from __future__ import annotations

import json

from click.testing import CliRunner

from hudi_log.cli import main


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def ok_json(*args):
    r = cli(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.output)
