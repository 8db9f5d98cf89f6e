"""`hudi-log` commands on log files: ``inspect``, ``records``, ``validate`` (``--spark`` for a lake),
``salvage`` and ``write-block``. They read through the format layer (hudi_log.format) and write
through the log layer's AppendHandle, never through a table.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any, Iterator, Optional

import click
from rich.console import Console
from rich.table import Table

from ..errors import HudiLogError, LogFileNameError
from ..format import grammar
from ..format.block import LogBlock
from ..format.grammar import BlockType
from ..format.log_file_name import LogFileName
from ..format.reader import RULES, open_log
from ..format.content.avro_arrow import arrow_to_avro_schema
from ..log.append_handle import AppendHandle
from ..log.storage import Storage
from ..paths import as_path, is_uri, write_replace
from .output import StoragePath, dumps, fail as _fail


def _short(value: str, width: int = 60) -> str:
    return value if len(value) <= width else value[: width - 1] + "…"


@click.command()
@click.argument("files", nargs=-1, required=True, type=StoragePath(dir_okay=False))
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


@click.command()
@click.argument("files", nargs=-1, required=True, type=StoragePath(dir_okay=False))
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


@click.command()
@click.argument("files", nargs=-1, required=True, type=StoragePath(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="print JSON for machines")
@click.option("--spark", "on_spark", is_flag=True, help="one Spark job over FILES (globs, e.g. '/lake/**/.*.log.*')")
@click.option("--master", default=None, help="Spark master for --spark (default local[*])")
def validate(files: tuple[str, ...], as_json: bool, on_spark: bool, master: str | None) -> None:
    """Check log files. Exit 0: all intact; 1: some block is damaged; 2: a file cannot be read."""
    if on_spark:
        from ..spark.cli import validate_on_spark

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


@click.command()
@click.argument("file", type=StoragePath(dir_okay=False, exists=True))
@click.option("-o", "--output", required=True, type=StoragePath(dir_okay=False), help="where to write the intact blocks")
def salvage(file: str, output: str) -> None:
    """Write a new log file holding exactly the intact blocks of FILE, byte for byte."""
    if is_uri(file) or is_uri(output):
        _salvage_to_store(file, output)
        return
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


def _salvage_to_store(file: str, output: str) -> None:
    """salvage where the input or the output is on an object store: the intact blocks are gathered and
    the output is written as one object (no temp file and rename there)."""
    if str(as_path(file)) == str(as_path(output)):
        _fail("the output must not be the input file")
    kept = dropped = 0
    pieces = []
    try:
        data = as_path(file).read_bytes()  # one GET; the blocks are cut from it
        for b in open_log(data):
            if b.corrupt:
                dropped += 1
                continue
            pieces.append(data[b.offset:b.offset + b.length])
            kept += 1
        write_replace(as_path(output), b"".join(pieces))
    except (HudiLogError, OSError) as e:
        _fail(f"{file}: {e}")
    click.echo(f"{output}: kept {kept} intact block(s), dropped {dropped} damaged span(s)")


def _input_kind(path: str, declared: str) -> str:
    if declared != "auto":
        return declared
    if path.endswith(".parquet"):
        return "parquet"
    with open(path, "rb") as f:
        head = f.read(4)
    return "parquet" if head == b"PAR1" else "jsonl"


def _json_lines(path: str) -> Iterator[dict]:
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError as e:
                raise click.UsageError(f"{path}:{n}: not JSON: {e}") from None
            if not isinstance(rec, dict):
                raise click.UsageError(f"{path}:{n}: a record must be a JSON object")
            yield rec


def _deletes(path: str) -> Iterator[tuple[str, Optional[str], Any]]:
    """Lines of a deletes file: a bare key, or {"key": …, "partition_path": …, "ordering_value": …}."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if not text:
                continue
            if text.startswith("{"):
                try:
                    d = json.loads(text)
                except ValueError as e:
                    raise click.UsageError(f"{path}:{n}: not JSON: {e}") from None
                key = d.get("key", d.get("record_key"))
                if key is None:
                    raise click.UsageError(f"{path}:{n}: a delete needs \"key\"")
                yield str(key), d.get("partition_path"), d.get("ordering_value", 0)
            else:
                yield text, None, 0


@click.command("write-block")
@click.argument("input_file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--schema", "schema_path", type=click.Path(exists=True, dir_okay=False),
              help="table schema, Avro JSON (default: inferred from a Parquet input)")
@click.option("--instant", required=True, help="instant writing the blocks (yyyyMMddHHmmssSSS)")
@click.option("--record-key", "record_key", help="record key field (comma-separated for a complex key)")
@click.option("--partition-path", default="", show_default=True, help="relative partition path")
@click.option("--format", "block_format", type=click.Choice(["avro", "parquet"]), default="avro", show_default=True,
              help="data block format")
@click.option("--deletes", "deletes_path", type=click.Path(exists=True, dir_okay=False),
              help="keys to delete: one per line, or JSON lines {key, partition_path, ordering_value}")
@click.option("--table", "table_path", type=StoragePath(file_okay=False),
              help="table base path: write to the file group's log files under it (needs --file-id)")
@click.option("--file-id", help="file group id (with --table)")
@click.option("--log-file", "log_file", type=StoragePath(dir_okay=False),
              help="write to this log file (its name gives file id, instant, version and token)")
@click.option("--base-instant", help="instant in the log file name (table version < 8; default --instant)")
@click.option("--table-version", type=int, default=6, show_default=True)
@click.option("--input-format", type=click.Choice(["auto", "jsonl", "parquet"]), default="auto", show_default=True)
@click.option("--table-name", default="hudi_log", show_default=True, help="record name for an inferred schema")
@click.option("--max-block-size", type=int, default=None, help="bytes per data block (default 256 MiB)")
@click.option("--log-file-max-size", type=int, default=None, help="roll over past this size (default 1 GiB)")
@click.option("--task-partition-id", type=int, default=0, show_default=True, help="for the write token and seqno")
@click.option("--json", "as_json", is_flag=True, help="print the write stats as JSON")
def write_block(
    input_file: Optional[str], schema_path: Optional[str], instant: str, record_key: Optional[str],
    partition_path: str, block_format: str, deletes_path: Optional[str], table_path: Optional[str],
    file_id: Optional[str], log_file: Optional[str], base_instant: Optional[str], table_version: int,
    input_format: str, table_name: str, max_block_size: Optional[int], log_file_max_size: Optional[int],
    task_partition_id: int, as_json: bool,
) -> None:
    """Append records from INPUT_FILE (JSON lines or Parquet) and/or deletes to a Hudi log file.

    The records become Avro (or Parquet) data blocks with Hudi's meta fields filled in, the
    deletes one delete block after them; headers INSTANT_TIME and SCHEMA. Target either a file
    group (--table, --partition-path, --file-id) or one log file (--log-file).
    """
    if input_file is None and deletes_path is None:
        raise click.UsageError("nothing to write: give INPUT_FILE and/or --deletes")
    if (log_file is None) == (table_path is None):
        raise click.UsageError("give exactly one of --log-file or --table")

    kind = _input_kind(input_file, input_format) if input_file else None
    arrow_table = None
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            arrow_table = pq.read_table(input_file)
        except Exception as e:  # pyarrow raises ArrowInvalid and friends
            _fail(f"{input_file}: cannot read Parquet: {e}")
    if schema_path:
        try:
            with open(schema_path, encoding="utf-8") as f:
                schema = json.load(f)
        except ValueError as e:
            _fail(f"{schema_path}: not JSON: {e}")
    elif arrow_table is not None:
        schema = arrow_to_avro_schema(arrow_table.schema, table_name)
    else:
        raise click.UsageError("--schema is needed unless the input is Parquet")
    if record_key is None:
        if input_file is not None:
            raise click.UsageError("--record-key is needed to write records")
        key_spec: Any = lambda r: None  # deletes only  # noqa: E731
    else:
        fields = [f.strip() for f in record_key.split(",") if f.strip()]
        key_spec = fields[0] if len(fields) == 1 else fields

    storage = Storage.for_path(log_file if log_file is not None else table_path or "")
    kw: dict[str, Any] = {}
    if log_file is not None:
        try:
            name = LogFileName.parse(storage.basename(log_file))
        except LogFileNameError as e:
            _fail(str(e))
        directory = log_file.rsplit("/", 1)[0] if is_uri(log_file) else os.path.dirname(os.path.abspath(log_file))
        base, fid = directory, name.file_id
        kw.update(log_dir=directory, log_version=name.version, write_token=name.write_token or "1-0-1")
        if name.instant != instant:
            kw["base_instant"] = name.instant
            if table_version >= 8:
                _fail(f"table version {table_version} names log files after the writing instant; "
                      f"{name.name} carries {name.instant}, not {instant}")
    else:
        if not file_id:
            raise click.UsageError("--table needs --file-id")
        base, fid = table_path, file_id
        if base_instant:
            kw["base_instant"] = base_instant
    if max_block_size is not None:
        kw["max_block_size"] = max_block_size
    if log_file_max_size is not None:
        kw["log_file_max_size"] = log_file_max_size

    try:
        handle = AppendHandle(
            base, partition_path, fid, instant, schema, key_spec, table_version=table_version,
            block_format=block_format, storage=storage, task_partition_id=task_partition_id, **kw,
        )
        with handle:
            if arrow_table is not None:
                handle.write_all(arrow_table)
            elif input_file is not None:
                handle.write_all(_json_lines(input_file))
            if deletes_path:
                for key, pp, ordering in _deletes(deletes_path):
                    handle.delete(key, pp, ordering)
        stats = handle.stats
    except (HudiLogError, OSError) as e:
        _fail(str(e))
    directory = kw.get("log_dir") or storage.join(base, partition_path.strip("/"))
    out = {
        "files": [storage.join(directory, n) for n in stats.log_files],
        "records": stats.num_writes,
        "deletes": stats.num_deletes,
        "data_blocks": stats.data_blocks,
        "delete_blocks": stats.delete_blocks,
        "bytes_written": stats.total_write_bytes,
        "appends": [
            {"file": a.path, "offset": a.start_offset, "bytes": a.bytes_written} for a in stats.appends
        ],
    }
    if as_json:
        click.echo(json.dumps(out, indent=2))
    else:
        for a in out["appends"]:
            click.echo(f"{a['file']}: {a['bytes']} bytes at offset {a['offset']}")
        click.echo(
            f"{out['records']} record(s) in {out['data_blocks']} data block(s), "
            f"{out['deletes']} delete(s) in {out['delete_blocks']} delete block(s)"
        )
