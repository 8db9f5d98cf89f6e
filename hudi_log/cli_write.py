"""`hudi-log write-block`: append records (JSON lines or Parquet) and deletes to a log file.

Register with ``main.add_command(write_block)`` in hudi_log/cli.py.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Iterator, Optional

import click

from .append_handle import AppendHandle, arrow_to_avro_schema
from .errors import HudiLogError, LogFileNameError
from .log_file_name import LogFileName
from .storage import Storage


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"hudi-log: {message}", err=True)
    sys.exit(code)


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
@click.option("--table", "table_path", type=click.Path(file_okay=False),
              help="table base path: write to the file group's log files under it (needs --file-id)")
@click.option("--file-id", help="file group id (with --table)")
@click.option("--log-file", "log_file", type=click.Path(dir_okay=False),
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

    storage = Storage()
    kw: dict[str, Any] = {}
    if log_file is not None:
        try:
            name = LogFileName.parse(os.path.basename(log_file))
        except LogFileNameError as e:
            _fail(str(e))
        directory = os.path.dirname(os.path.abspath(log_file))
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
