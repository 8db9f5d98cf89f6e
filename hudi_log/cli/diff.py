"""`hudi-log diff A B`: two log files, or two blocks (``A@offset B@offset``), compared block by block.

Exit 0 when they are equal, 1 when they differ, 2 when an input cannot be read (not a log file, no
block at the offset given, a missing file). The comparison itself is hudi_log.format.diff.
"""

from __future__ import annotations

import os
import sys

import click

from ..errors import HudiLogError
from ..format.diff import diff_blocks, diff_files
from ..format.reader import open_log
from .output import dumps, fail as _fail


def _split(arg: str) -> tuple[str, int | None]:
    """``path`` or ``path@offset`` (a path that itself contains '@' is taken whole if it exists)."""
    path, at, offset = arg.rpartition("@")
    if not at or os.path.exists(arg) or not offset.isdigit():
        return arg, None
    return path, int(offset)


def _blocks(arg: str):
    path, offset = _split(arg)
    if not os.path.isfile(path):
        _fail(f"{path}: no such file")
    try:
        blocks = list(open_log(path))
    except (HudiLogError, OSError) as e:
        _fail(str(e))
    if offset is None:
        return blocks, None
    for b in blocks:
        if b.offset == offset or (b.corrupt and b.magic_offset == offset):
            return blocks, b
    _fail(f"{path}: no block starts at offset {offset} (blocks start at {[b.offset for b in blocks][:20]})")


def _describe(d: dict) -> str:
    what = d["what"]
    if what == "framing":
        return f"{d['field']}: {d['a']} -> {d['b']}"
    if what == "header":
        return f"header {d['key']}: {d['a']!r} -> {d['b']!r}"
    if what == "records":
        changed = ", ".join(f"{c['key']} ({', '.join(c['fields'])})" for c in d["changed"][:10])
        return (f"records: {len(d['added'])} added {d['added'][:10]}, {len(d['removed'])} removed {d['removed'][:10]}, "
                f"{len(d['changed'])} changed {changed}")
    if what == "bytes":
        return (f"first differing byte: block byte {d['index']} (A offset {d['a_offset']}, {d['a_field']}; "
                f"B offset {d['b_offset']}, {d['b_field']}): {d['a_bytes']} vs {d['b_bytes']}")
    rest = {k: v for k, v in d.items() if k != "what"}
    return f"{what}: {rest}" if rest else what


@click.command()
@click.argument("a")
@click.argument("b")
@click.option("--bytes", "with_bytes", is_flag=True, help="also show the first differing bytes and their grammar field")
@click.option("--json", "as_json", is_flag=True, help="print JSON for machines")
def diff(a: str, b: str, with_bytes: bool, as_json: bool) -> None:
    """Compare two log files (or two blocks: A@offset B@offset) block by block.

    Framing, header entries, content length and, for blocks holding records or deletes, the
    records by key (added, removed, changed fields). Exit 0: equal; 1: different; 2: bad input.
    """
    blocks_a, one_a = _blocks(a)
    blocks_b, one_b = _blocks(b)
    if (one_a is None) != (one_b is None):
        _fail("give two files, or two blocks (A@offset B@offset)")
    try:
        diffs = [diff_blocks(one_a, one_b, 0, with_bytes)] if one_a is not None else diff_files(blocks_a, blocks_b, with_bytes)
    except (HudiLogError, OSError) as e:
        _fail(str(e))
    equal = all(d.equal for d in diffs)
    if as_json:
        click.echo(dumps({"equal": equal, "a": a, "b": b, "blocks": [d.to_json() for d in diffs]}, indent=2))
    else:
        for d in diffs:
            if d.equal:
                continue
            where = " / ".join(f"{x.block_type_name} at {x.offset}" if x is not None else "-" for x in (d.a, d.b))
            click.echo(f"block {d.index} ({where}):")
            for item in d.differences:
                click.echo(f"  {_describe(item)}")
        click.echo("equal" if equal else f"{sum(not d.equal for d in diffs)} of {len(diffs)} block(s) differ")
    sys.exit(0 if equal else 1)
