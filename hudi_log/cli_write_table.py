"""`hudi-log write PATH --input FILE` and `hudi-log rollback PATH INSTANT`: table writes from the shell.

Input: JSON lines (one object per line; types inferred by pyarrow) or Parquet, by extension or content.
Options use Hudi's names (``--option k=v``, repeatable); the short flags set the common ones.
Errors (bad input, incompatible schema, another table type or version) print one line and exit 2.
"""

from __future__ import annotations

import json
import sys

import click

from .errors import HudiLogError


def _fail(message: str) -> None:
    click.echo(f"hudi-log: {message}", err=True)
    sys.exit(2)


def _read_input(path: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with open(path, "rb") as f:
            head = f.read(4)
        if path.endswith(".parquet") or head == b"PAR1":
            return pq.read_table(path)
        rows = []
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        rec = json.loads(line)
                    except ValueError as e:
                        _fail(f"{path}:{n}: not JSON: {e}")
                    if not isinstance(rec, dict):
                        _fail(f"{path}:{n}: a record must be a JSON object")
                    rows.append(rec)
        if not rows:
            _fail(f"{path}: no records")
        return pa.Table.from_pylist(rows)
    except OSError as e:
        _fail(f"{path}: {e.strerror or e}")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        _fail(f"{path}: cannot read input: {e}")


@click.command("write")
@click.argument("path", type=click.Path(file_okay=False))
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="records to write: FILE.jsonl or FILE.parquet")
@click.option("--operation", default="upsert", show_default=True,
              type=click.Choice(["insert", "upsert", "delete", "bulk_insert", "insert_overwrite"]))
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="a Hudi write option (repeatable)")
@click.option("--table-name", default=None, help="hoodie.table.name (default: the folder's name)")
@click.option("--table-type", default=None, type=click.Choice(["COPY_ON_WRITE", "MERGE_ON_READ"], case_sensitive=False))
@click.option("--table-version", default=None, type=click.Choice(["6", "8"]), help="hoodie.write.table.version")
@click.option("--record-key", default=None, help="record key field(s), comma separated")
@click.option("--precombine", default=None, help="precombine (ordering) field")
@click.option("--partition-field", default=None, help="partition path field(s), comma separated")
@click.option("--hive-style/--no-hive-style", default=None, help="hive-style partition folders (field=value)")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def write_cmd(path, input_path, operation, extra, table_name, table_type, table_version, record_key, precombine,
              partition_field, hive_style, as_json):
    """Write records to the Hudi table at PATH (created when absent)."""
    from pathlib import Path

    from .table.write import write_table

    options: dict[str, str] = {}
    for kv in extra:
        if "=" not in kv:
            _fail(f"--option {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        options[k.strip()] = v.strip()
    flags = {
        "hoodie.table.name": table_name,
        "hoodie.datasource.write.table.type": table_type.upper() if table_type else None,
        "hoodie.write.table.version": table_version,
        "hoodie.datasource.write.recordkey.field": record_key,
        "hoodie.datasource.write.precombine.field": precombine,
        "hoodie.datasource.write.partitionpath.field": partition_field,
        "hoodie.datasource.write.hive_style_partitioning": None if hive_style is None else str(hive_style).lower(),
    }
    options.update({k: v for k, v in flags.items() if v is not None})
    if "hoodie.table.name" not in options and not (Path(path) / ".hoodie").is_dir():
        options["hoodie.table.name"] = Path(path).resolve().name
    data = _read_input(input_path)
    try:
        result = write_table(path, data, operation, options)
    except HudiLogError as e:
        _fail(str(e))
    if as_json:
        click.echo(json.dumps({
            "instant": result.instant, "action": result.action, "operation": result.operation,
            "completion_time": result.completion_time, "inserts": result.num_inserts,
            "updates": result.num_updates, "deletes": result.num_deletes,
            "files": [s["path"] for s in result.write_stats], "rolled_back": result.rolled_back,
            "replaced_file_ids": result.replaced_file_ids}, indent=2))
    else:
        click.echo(f"{result.action} {result.instant}: {result.operation} — {result.num_inserts} inserts, "
                   f"{result.num_updates} updates, {result.num_deletes} deletes in {len(result.write_stats)} files")


@click.command("rollback")
@click.argument("path", type=click.Path(file_okay=False))
@click.argument("instant")
def rollback_cmd(path, instant):
    """Roll back the failed (pending) write INSTANT of the table at PATH."""
    from .table.rollback import rollback

    try:
        done = rollback(path, instant)
    except HudiLogError as e:
        _fail(str(e))
    click.echo(f"rolled back {instant}: rollback {done.requested_time} ({done.file_name})")
