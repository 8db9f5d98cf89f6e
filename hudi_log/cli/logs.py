"""`hudi-log` commands on log files: ``inspect``, ``records``, ``validate`` (``--spark`` for a lake) and
``salvage``. They read through the format layer (hudi_log.format), never through a table.

FILES may be files, folders (a table's folder: its log files, the metadata table's included) and globs
(:mod:`.inputs`). A file that cannot be read is reported on stderr and the others are still shown; the
command then exits 2. Each ends with a summary line.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from ..errors import HudiLogError
from ..format import grammar
from ..format.block import LogBlock
from ..format.grammar import BlockType
from ..format.reader import open_log
from ..format.validate import FileReport, check_block_header, iter_checked, validate_log_file
from .inputs import expand
from .output import (EXIT_DAMAGED, EXIT_INPUT, check_output_path, dumps, error_message, fail, os_error, print_table,
                     plain_lines, progress, stdout_is_terminal, temp_beside, warn)

_FILES = click.argument("files", nargs=-1, required=True)


def _inputs(args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(log files, one-line errors for the arguments that named none)."""
    files, missing = expand(args)
    return files, [f"{m.arg}: {m.reason}" for m in missing]


def schema_short(text: str | None) -> str:
    """The SCHEMA header in a few words: a table cell has no room for the whole schema."""
    if text is None:
        return ""
    try:
        s = json.loads(text)
    except ValueError:
        return f"<not JSON, {len(text)} chars>"
    if isinstance(s, dict) and s.get("type") == "record":
        return f"<record {s.get('name')}, {len(s.get('fields') or [])} fields, {len(text)} chars>"
    return f"<{s.get('type') if isinstance(s, dict) else type(s).__name__} schema, {len(text)} chars>"


def _summary(b: LogBlock, index: int) -> dict[str, Any]:
    try:
        d = b.summary()
    except HudiLogError as e:  # the record count needs the content, which may not decode
        d = {"offset": b.offset, "length": b.length, "format_version": b.format_version,
             "block_type": b.block_type_name, "header": b.header, "footer": b.footer,
             "content_length": b.content_length, "record_count": None, "corrupt": b.corrupt,
             "content_error": error_message(e)}
    return {"index": index, **d}


@click.command()
@_FILES
@click.option("--json", "as_json", is_flag=True, help="print JSON for machines")
def inspect(files: tuple[str, ...], as_json: bool) -> None:
    """A row per block: index, offset, instant, record count, block type, header, footer.

    Damaged spans are shown as CORRUPT_BLOCK rows with their offset and length; the SCHEMA header is
    shortened in the table (--json gives it whole). FILES: files, folders or globs.
    """
    paths, errors = _inputs(files)
    out, blocks, damaged = [], 0, 0
    for path in paths:
        try:
            found = [_summary(b, i) for i, b in enumerate(open_log(path, resync=True))]
        except (HudiLogError, OSError) as e:
            errors.append(error_message(e))
            continue
        blocks += len(found)
        damaged += sum(1 for b in found if b["corrupt"])
        out.append({"path": path, "blocks": found})
    for e in errors:
        warn(e)
    summary = {"files": len(out), "blocks": blocks, "damaged_spans": damaged, "unreadable": len(errors)}
    if as_json:
        click.echo(dumps({"files": out, "errors": errors, "summary": summary}, indent=2))
    else:
        rows = []
        for f in out:
            for b in f["blocks"]:
                header = {k: (schema_short(v) if k == "SCHEMA" else v) for k, v in b["header"].items()}
                kind = b["block_type"] + (f" ({b['rule']})" if b["corrupt"] else "")
                rows.append((f["path"], b["index"], b["offset"], b["length"], b["header"].get("INSTANT_TIME", ""),
                             "" if b["record_count"] is None else b["record_count"], kind, dumps(header),
                             dumps(b["footer"])))
        if rows:
            print_table("Hudi log blocks", ("File", "Block", "Offset", "Length", "InstantTime", "RecordCount",
                                            "BlockType", "HeaderMetadata", "FooterMetadata"), rows)
        click.echo(f"{len(out)} file(s), {blocks} block(s), {damaged} damaged span(s)"
                   + (f"; {len(errors)} unreadable" if errors else ""))
    if errors:
        sys.exit(EXIT_INPUT)


def _block_rows(block: LogBlock) -> list[dict]:
    """The block's rows (all decoded first, so a block that does not decode yields none)."""
    if block.block_type in grammar.DATA_BLOCK_TYPES:
        return [{"_block_offset": block.offset, "_instant_time": block.instant_time, "_delete": False, "record": rec}
                for rec in block.records()]
    if block.block_type == BlockType.delete_block:
        return [{
            "_block_offset": block.offset, "_instant_time": block.instant_time, "_delete": True,
            "record": {"record_key": d.record_key, "partition_path": d.partition_path,
                       "ordering_value": d.ordering_value, "ordering_kind": d.ordering_kind.name},
        } for d in block.deletes()]
    return []


_RECORD_COLUMNS = ("File", "Block", "InstantTime", "Kind", "Record")


def _record_cells(row: dict) -> tuple:
    return (row["file"], row["_block_offset"], row["_instant_time"] or "", "DELETE" if row["_delete"] else "RECORD",
            dumps(row["record"]))


@click.command()
@_FILES
@click.option("--limit", type=click.IntRange(min=0), default=None, help="stop after N records (N >= 0)")
@click.option("--json", "as_json", is_flag=True, help="JSON lines (default: a table on a terminal, else tab-separated)")
@click.option("--skip-damaged", is_flag=True,
              help="exit 0 even when damaged blocks were skipped (they are still reported on stderr)")
def records(files: tuple[str, ...], limit: int | None, as_json: bool, skip_damaged: bool) -> None:
    """Records of data blocks, and the keys of delete blocks marked as deletes.

    A damaged span, or a block whose content does not decode, is skipped and reported on stderr; the
    command then exits 2 unless --skip-damaged. FILES: files, folders or globs.
    """
    paths, errors = _inputs(files)
    terminal = stdout_is_terminal() and not as_json
    n = skipped = read = 0
    header_done = False
    for path in paths:
        if limit is not None and n >= limit:
            break
        batch: list[tuple] = []
        try:
            for index, block, problem in iter_checked(path, deep=False):
                if limit is not None and n >= limit:
                    break
                if problem is not None:
                    warn(f"{path}: skipped damaged span {index} at offset {problem.offset} "
                         f"({problem.length} bytes): {problem.rule}: {problem.reason}")
                    skipped += 1
                    continue
                # a malformed header (a SCHEMA that is not JSON, no INSTANT_TIME) damages the block even
                # where its rows would decode without it (delete keys, Parquet): validate says so too
                why = None
                if found := check_block_header(block):
                    why = f"header value does not decode: {found[1]}: {found[2]}"
                else:
                    try:
                        rows = _block_rows(block)
                    except HudiLogError as e:
                        why = f"content does not decode: {e.message if hasattr(e, 'message') else e}"
                if why:
                    warn(f"{path}: skipped block {index} at offset {block.offset} ({block.length} bytes): "
                         f"{block.block_type_name} {why}")
                    skipped += 1
                    continue
                for row in rows[: None if limit is None else limit - n]:
                    row = {"file": path, **row}
                    n += 1
                    if as_json:
                        click.echo(dumps(row))
                    elif terminal:
                        batch.append(_record_cells(row))
                    else:
                        for line in plain_lines(_RECORD_COLUMNS, [_record_cells(row)], header=not header_done):
                            click.echo(line)
                        header_done = True
            read += 1
        except (HudiLogError, OSError) as e:
            errors.append(error_message(e))
        if batch:
            print_table(path, _RECORD_COLUMNS, batch)
    for e in errors:
        warn(e)
    if read:  # the summary; with nothing read, the errors above say it all
        warn(f"{n} record(s) from {read} file(s)"
             + (f"; {skipped} damaged block(s) skipped" if skipped else "")
             + (f"; {len(errors)} input(s) unreadable" if errors else ""))
    if errors:
        sys.exit(EXIT_INPUT)
    if skipped and not skip_damaged:
        fail(f"{skipped} damaged block(s) skipped, their records are missing above "
             "(run `hudi-log validate` for details, or --skip-damaged to accept)", EXIT_INPUT)


def _print_report(r: FileReport) -> None:
    if r.error:
        click.echo(f"{r.path}: UNREADABLE: {r.error}")
        return
    click.echo(f"{r.path}: {r.state}: {r.intact} intact block(s), {len(r.problems)} damaged")
    for p in r.problems:
        what = "damaged span" if p.framing else f"block ({p.block_type})"
        click.echo(f"  {what} {p.index} at offset {p.offset}, {p.length} bytes: {p.rule}: {p.field}: {p.reason}")
    for offset, _ in r.skipped_by_hudi:
        click.echo(f"  block at offset {offset} is intact, but Apache Hudi reads it as corrupt (garbage follows it)")


@click.command()
@click.argument("files", nargs=-1, required=False)
@click.option("--json", "as_json", is_flag=True, help="print JSON for machines")
@click.option("--framing-only", is_flag=True,
              help="check only the framing (fast: no content is decoded), as Apache Hudi's reader does")
@click.option("--spark", "on_spark", is_flag=True,
              help="one Spark job over FILES (globs, e.g. '/lake/**/.*.log.*'); checks the framing only")
@click.option("--master", default=None, help="Spark master for --spark (default local[*])")
@click.option("--table", "table_path", default=None, type=click.Path(file_okay=False),
              help="check a whole table: properties, instant metadata, committed files, every log file")
def validate(files: tuple[str, ...], as_json: bool, framing_only: bool, on_spark: bool, master: str | None,
             table_path) -> None:
    """Check log files: framing, and every block's header values and content (Avro records under their
    SCHEMA header, delete keys, Parquet and HFile contents); or, with --table, a whole table.

    FILES: files, folders (a table's folder: its log files, the metadata table's included) or globs.

    Exit status (its own contract): 0 every file intact; 1 some block is damaged (each one is
    reported with its index, offset and the reason); 2 a file cannot be read (or a usage error).
    """
    if table_path is not None or not files:
        from .tables import validate_table_cli

        validate_table_cli(table_path, files, as_json)
    if on_spark:
        from ..spark.cli import validate_on_spark

        sys.exit(validate_on_spark(files, master, as_json))
    paths, missing = expand(files)
    reports = [FileReport(path=m.arg, error=f"{m.arg}: {m.reason}") for m in missing]
    with progress(len(paths), "validating", threshold=10) as bar:
        for path in paths:
            reports.append(validate_log_file(path, deep=not framing_only))
            bar.advance()
    unreadable = sum(1 for r in reports if r.error)
    damaged = sum(1 for r in reports if r.problems and not r.error)
    code = EXIT_INPUT if unreadable else (EXIT_DAMAGED if damaged else 0)
    summary = {"files": len(reports), "ok": len(reports) - unreadable - damaged, "damaged": damaged,
               "unreadable": unreadable, "blocks": sum(r.blocks for r in reports), "content_checked": not framing_only}
    if as_json:
        click.echo(dumps({"ok": code == 0, "files": [r.to_dict() for r in reports], "summary": summary}, indent=2))
    else:
        for r in reports:
            _print_report(r)
        click.echo(f"{'OK' if code == 0 else 'DAMAGED' if code == 1 else 'UNREADABLE'}: {summary['files']} file(s): "
                   f"{summary['ok']} intact, {damaged} damaged, {unreadable} unreadable; {summary['blocks']} block(s)"
                   + ("" if not framing_only else " (framing only: content not decoded)"))
    sys.exit(code)


@click.command()
@click.argument("file")
@click.option("-o", "--output", required=True, help="where to write the intact blocks")
def salvage(file: str, output: str) -> None:
    """Write a new log file holding exactly the intact blocks of FILE, byte for byte.

    Dropped: damaged spans, and blocks whose framing is intact but whose header values or content do
    not decode (each is named). A file whose first magic is damaged is read from its next magic on.
    """
    if os.path.isdir(file):
        fail(f"{file}: is a folder (give one log file)")
    if not os.path.exists(file):
        fail(f"{file}: no such file (check the path)")
    if os.path.exists(output) and os.path.samefile(file, output):
        fail(f"{output}: the output must not be the input file (give another name)")
    target = check_output_path(output)
    kept = 0
    dropped = []
    try:
        src = open(file, "rb")
    except OSError as e:
        raise os_error(file, e) from None
    tmp = temp_beside(target, ".salvage-")
    try:
        with src, open(tmp, "wb") as out:
            for index, block, problem in iter_checked(file, deep=True):
                if problem is not None:
                    dropped.append(problem)
                    continue
                src.seek(block.offset)
                out.write(src.read(block.length))
                kept += 1
            out.flush()
            os.fsync(out.fileno())
        if not kept:
            fail(f"{file}: no intact block to salvage; {output} not written")
        os.replace(tmp, target)
    except OSError as e:
        raise os_error(output, e) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    for p in dropped:
        what = "damaged span" if p.framing else f"block {p.index} ({p.block_type}), content does not decode:"
        click.echo(f"dropped {what} at offset {p.offset}, {p.length} bytes: {p.rule}: {p.reason}", err=True)
    click.echo(f"{output}: kept {kept} intact block(s), dropped {len(dropped)} damaged")
