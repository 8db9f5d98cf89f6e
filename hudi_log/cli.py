"""The `hudi-log` command."""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import os
import sys
import tempfile
import uuid
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from . import grammar
from .block import LogBlock
from .errors import HudiLogError
from .grammar import BlockType
from .reader import RULES, open_log


def _json_default(value: Any):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if hasattr(value, "name") and hasattr(value, "value"):  # enums
        return value.name
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def dumps(value: Any, **kw) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False, **kw)


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"hudi-log: {message}", err=True)
    sys.exit(code)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hudi-log")
def main() -> None:
    """Look inside, check and repair Apache Hudi Merge-On-Read log files."""


def _short(value: str, width: int = 60) -> str:
    return value if len(value) <= width else value[: width - 1] + "…"


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print JSON for machines")
def inspect(files: tuple[str, ...], as_json: bool) -> None:
    """A row per block: offset, instant, record count, block type, header, footer.

    Damaged spans are shown as CORRUPT_BLOCK rows with their offset and length.
    """
    out = []
    for path in files:
        try:
            blocks = [b.summary() for b in open_log(path)]
        except (HudiLogError, OSError) as e:
            _fail(str(e))
        out.append({"path": path, "blocks": blocks})
    if as_json:
        click.echo(dumps({"files": out}, indent=2))
        return
    table = Table(title="Hudi log blocks", show_lines=False)
    for col in ("File", "Offset", "Length", "InstantTime", "RecordCount", "BlockType", "HeaderMetadata", "FooterMetadata"):
        table.add_column(col, overflow="fold")
    for f in out:
        for b in f["blocks"]:
            header = {k: (_short(v) if k == "SCHEMA" else v) for k, v in b["header"].items()}
            kind = b["block_type"] + (f" ({b['rule']})" if b["corrupt"] else "")
            table.add_row(
                os.path.basename(f["path"]), str(b["offset"]), str(b["length"]),
                b["header"].get("INSTANT_TIME", ""), "" if b["record_count"] is None else str(b["record_count"]),
                ("[red]" + kind + "[/red]") if b["corrupt"] else kind, dumps(header), dumps(b["footer"]),
            )
    Console().print(table)


def _block_rows(block: LogBlock):
    if block.corrupt:
        return
    if block.block_type in grammar.DATA_BLOCK_TYPES:
        for rec in block.records():
            yield {"_block_offset": block.offset, "_instant_time": block.instant_time, "_delete": False, "record": rec}
    elif block.block_type == BlockType.delete_block:
        for d in block.deletes():
            yield {
                "_block_offset": block.offset, "_instant_time": block.instant_time, "_delete": True,
                "record": {
                    "record_key": d.record_key, "partition_path": d.partition_path,
                    "ordering_value": d.ordering_value, "ordering_kind": d.ordering_kind.name,
                },
            }


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--limit", type=int, default=None, help="stop after N records")
@click.option("--json", "as_json", is_flag=True, help="JSON lines (the default prints a table)")
def records(files: tuple[str, ...], limit: int | None, as_json: bool) -> None:
    """Records of data blocks, and the keys of delete blocks marked as deletes."""
    rows = []
    try:
        for path in files:
            for block in open_log(path):
                for row in _block_rows(block):
                    if limit is not None and len(rows) >= limit:
                        break
                    rows.append({"file": path, **row})
    except (HudiLogError, OSError) as e:
        _fail(str(e))
    if as_json:
        for row in rows:
            click.echo(dumps(row))
        return
    table = Table(title=f"{len(rows)} records")
    for col in ("File", "Block", "InstantTime", "Kind", "Record"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(
            os.path.basename(row["file"]), str(row["_block_offset"]), row["_instant_time"] or "",
            "DELETE" if row["_delete"] else "RECORD", dumps(row["record"]),
        )
    Console().print(table)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print JSON for machines")
@click.option("--spark", "on_spark", is_flag=True, help="one Spark job over FILES (globs, e.g. '/lake/**/.*.log.*')")
@click.option("--master", default=None, help="Spark master for --spark (default local[*])")
def validate(files: tuple[str, ...], as_json: bool, on_spark: bool, master: str | None) -> None:
    """Check log files. Exit 0: all intact; 1: some block is damaged; 2: a file cannot be read."""
    if on_spark:
        from .spark.cli import validate_on_spark

        sys.exit(validate_on_spark(files, master, as_json))
    results = []
    code = 0
    for path in files:
        entry: dict[str, Any] = {"path": path, "blocks": 0, "intact": 0, "damage": [], "skipped_by_hudi": []}
        try:
            for b in open_log(path):
                entry["blocks"] += 1
                if b.corrupt:
                    entry["damage"].append({
                        "offset": b.offset, "length": b.length, "rule": b.corrupt_rule,
                        "rule_text": RULES[b.corrupt_rule], "detail": b.corrupt_detail, "magic_offset": b.magic_offset,
                    })
                else:
                    entry["intact"] += 1
                    if b.skipped_by_hudi:
                        entry["skipped_by_hudi"].append({"offset": b.offset, "length": b.length})
        except (HudiLogError, OSError) as e:
            entry["error"] = str(e)
            code = 2
        if entry["damage"] and code == 0:
            code = 1
        results.append(entry)
    if as_json:
        click.echo(dumps({"ok": code == 0, "files": results}, indent=2))
    else:
        for r in results:
            if "error" in r:
                click.echo(f"{r['path']}: UNREADABLE: {r['error']}")
                continue
            state = "OK" if not r["damage"] else "DAMAGED"
            click.echo(f"{r['path']}: {state}: {r['intact']} intact block(s), {len(r['damage'])} damaged span(s)")
            for d in r["damage"]:
                click.echo(f"  offset {d['offset']}, {d['length']} bytes: {d['rule']}: {d['detail']}")
            for s in r["skipped_by_hudi"]:
                click.echo(f"  block at offset {s['offset']} is intact, but Apache Hudi reads it as corrupt (garbage follows it)")
    sys.exit(code)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, exists=True))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="where to write the intact blocks")
def salvage(file: str, output: str) -> None:
    """Write a new log file holding exactly the intact blocks of FILE, byte for byte."""
    if os.path.exists(output) and os.path.samefile(file, output):
        _fail("the output must not be the input file")
    kept = dropped = 0
    out_dir = os.path.dirname(os.path.abspath(output))
    fd, tmp = tempfile.mkstemp(prefix=".salvage-", dir=out_dir)
    try:
        with os.fdopen(fd, "wb") as out, open(file, "rb") as src:
            for b in open_log(file):
                if b.corrupt:
                    dropped += 1
                    continue
                src.seek(b.offset)
                out.write(src.read(b.length))
                kept += 1
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, output)
    except (HudiLogError, OSError) as e:
        os.unlink(tmp)
        _fail(str(e))
    click.echo(f"{output}: kept {kept} intact block(s), dropped {dropped} damaged span(s)")


def _register() -> None:
    from .cli_table import read_cmd, table_cmd
    from .cli_write import write_block

    main.add_command(write_block, "write-block")
    main.add_command(table_cmd, "table")
    main.add_command(read_cmd, "read")
    from .cli_write_table import rollback_cmd, write_cmd
    main.add_command(write_cmd, "write"); main.add_command(rollback_cmd, "rollback")
    from .cli_table_maint import clean_cmd, compact_cmd
    main.add_command(compact_cmd, "compact")
    main.add_command(clean_cmd, "clean")


_register()

if __name__ == "__main__":
    main()
