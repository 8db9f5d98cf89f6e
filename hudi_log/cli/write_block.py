"""`hudi-log write-block`: append records and deletes to one file group's log files through the log layer's
AppendHandle (Hudi's ``HoodieAppendHandle``), outside the table's write client.

Writing into a table outside a commit makes blocks no commit owns (an orphan file group, which other
readers may return), so into a table it is refused unless the instant is pending on the table's timeline
(or ``--force``). The table version is the table's; ``--instant`` must be an instant time.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator, Optional

import click

from ..errors import HudiLogError, LogFileNameError
from ..format.content.avro_arrow import arrow_to_avro_schema
from ..format.log_file_name import LogFileName
from ..format.validate import instant_time_problem
from ..log.append_handle import AppendHandle
from ..log.storage import Storage
from ..paths import AnyPath, as_path, is_uri
from .output import EXIT_FAILED, StoragePath, error_message, fail as _fail


def _enclosing_table(folder) -> Optional[AnyPath]:
    """The table whose base path holds ``folder`` (the nearest ancestor with .hoodie/hoodie.properties);
    ``folder`` may be on an object store."""
    p = as_path(folder).resolve()
    for d in (p, *p.parents):
        if (d / ".hoodie" / "hoodie.properties").is_file() or (d / ".hoodie" / "hoodie.properties.backup").is_file():
            return d
    return None


def _table_checks(table: AnyPath, instant: str, declared: Optional[str], force: bool) -> tuple[int, bool]:
    """The table's version (refusing one hudi-log does not write, or a --table-version that differs) and
    whether it fills the meta fields (``hoodie.populate.meta.fields``: else its records carry them null), after
    checking the instant is pending on its timeline (unless ``force``)."""
    from ..table import Timeline, read_properties
    from ..table.properties import check_writable

    props = read_properties(table)
    check_writable(props, "write-block")
    if declared is not None and int(declared) != props.version:
        _fail(f"{table}: the table is version {props.version}, not --table-version {declared} "
              "(leave --table-version out to take the table's)")
    timeline = Timeline(table, props)
    if not force and not timeline.is_pending(instant):
        state = "completed" if timeline.instant(instant) is not None else "not on the timeline"
        _fail(f"{table}: instant {instant} is {state}, not pending: blocks written outside a pending commit belong "
              "to no commit and readers may return them (start the commit first, or --force to write anyway)")
    return props.version, props.populate_meta_fields


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


def _log_dir(log_file: str) -> str:
    """The folder (or key prefix) holding ``log_file``, spelled as the storage takes it."""
    return log_file.rsplit("/", 1)[0] if is_uri(log_file) else os.path.dirname(os.path.abspath(log_file))


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
@click.option("--table-version", type=click.Choice(["6", "8", "9"]), default=None,
              help="the table's version (default: the table's own; 6 for a log file outside any table)")
@click.option("--input-format", type=click.Choice(["auto", "jsonl", "parquet"]), default="auto", show_default=True)
@click.option("--table-name", default="hudi_log", show_default=True, help="record name for an inferred schema")
@click.option("--max-block-size", type=click.IntRange(min=1), default=None, help="bytes per data block (default 256 MiB)")
@click.option("--log-file-max-size", type=click.IntRange(min=1), default=None, help="roll over past this size (default 1 GiB)")
@click.option("--task-partition-id", type=click.IntRange(min=0), default=0, show_default=True, help="for the write token and seqno")
@click.option("--force", is_flag=True, help="write into a table even when --instant is not pending on its timeline")
@click.option("--json", "as_json", is_flag=True, help="print the write stats as JSON")
def write_block(
    input_file: Optional[str], schema_path: Optional[str], instant: str, record_key: Optional[str],
    partition_path: str, block_format: str, deletes_path: Optional[str], table_path: Optional[str],
    file_id: Optional[str], log_file: Optional[str], base_instant: Optional[str], table_version: Optional[str],
    input_format: str, table_name: str, max_block_size: Optional[int], log_file_max_size: Optional[int],
    task_partition_id: int, force: bool, as_json: bool,
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
    for name, value in (("--instant", instant), ("--base-instant", base_instant)):
        if value is not None and (why := instant_time_problem(value)):
            raise click.BadParameter(why, param_hint=name)
    if log_file is not None and as_path(log_file).is_dir():
        _fail(f"{log_file}: is a folder (--log-file names one log file)")
    if table_path is not None:
        if not file_id:
            raise click.UsageError("--table needs --file-id")
        table: Optional[AnyPath] = as_path(table_path)
        if _enclosing_table(table_path) != as_path(table_path).resolve():
            if not force:
                _fail(f"{table_path}: not a Hudi table (no .hoodie/hoodie.properties): give the table's base path, "
                      "--log-file for a loose log file, or --force to write the file group's log files there anyway")
            table = None
    else:
        table = _enclosing_table(_log_dir(log_file))
    populate = True
    if table is not None:
        version, populate = _table_checks(table, instant, table_version, force)
    else:
        version = int(table_version or 6)

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

    storage = Storage.for_path(log_file if log_file is not None else table_path)  # URIs stay URIs
    kw: dict[str, Any] = {}
    if log_file is not None:
        try:
            name = LogFileName.parse(as_path(log_file).name)
        except LogFileNameError as e:
            _fail(str(e))
        directory = _log_dir(log_file)
        base, fid = directory, name.file_id
        kw.update(log_dir=directory, log_version=name.version, write_token=name.write_token or "1-0-1")
        if name.instant != instant:
            kw["base_instant"] = name.instant
            if version >= 8:
                _fail(f"table version {version} names log files after the writing instant; "
                      f"{name.name} carries {name.instant}, not {instant}")
    else:
        base, fid = table_path, file_id
        if base_instant:
            kw["base_instant"] = base_instant
    if max_block_size is not None:
        kw["max_block_size"] = max_block_size
    if log_file_max_size is not None:
        kw["log_file_max_size"] = log_file_max_size

    handle = AppendHandle(
        base, partition_path, fid, instant, schema, key_spec, table_version=version,
        block_format=block_format, storage=storage, task_partition_id=task_partition_id,
        populate_meta_fields=populate, **kw,
    )
    try:
        with handle:
            if arrow_table is not None:
                handle.write_all(arrow_table)
            elif input_file is not None:
                handle.write_all(_json_lines(input_file))
            if deletes_path:
                for key, pp, ordering in _deletes(deletes_path):
                    handle.delete(key, pp, ordering)
    except (HudiLogError, OSError, click.ClickException) as e:
        done = handle.stats.appends
        if not done:
            raise  # nothing written: the group reports it (exit 2 for bad input, 3 for storage)
        where = ", ".join(f"{a.path} from offset {a.start_offset}" for a in done)
        _fail(f"{error_message(e)}; blocks of instant {instant} were already appended to {where} "
              f"(roll the instant back, or truncate the file(s) there)", EXIT_FAILED)
    stats = handle.stats
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
