"""`hudi-log` commands on whole tables: ``table PATH`` (properties, timeline, file groups), ``read PATH``
(snapshot, time travel, incremental) and ``write PATH --input FILE`` (Hudi's write operations).

``write`` takes JSON lines (one object per line; types inferred by pyarrow) or Parquet, by extension or
content; options use Hudi's names (``--option k=v``, repeatable) and the short flags set the common ones.
Errors (bad input, incompatible schema, another table type or version) print one line and exit 2.
"""

from __future__ import annotations

import json
import sys

import click

from ..paths import as_path
from ..errors import HudiLogError
from .output import StoragePath, fail as _fail, hudi_options


@click.command("table")
@click.argument("path", type=StoragePath(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def table_cmd(path, as_json):
    """Show a Hudi table: properties, timeline, partitions / file groups / slices."""
    from ..table import HudiTable
    try:
        t = HudiTable(path)
        view = t.view()
    except HudiLogError as e:
        raise click.ClickException(str(e))
    data = {
        "properties": t.properties.to_dict(),
        "checksum_ok": t.properties.checksum_ok(),
        "timeline": [i.to_dict() for i in t.timeline.instants],
        "partitions": view.to_dict(),
    }
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
        return
    from rich.console import Console
    from rich.table import Table
    con = Console()
    pt = Table(title=f"{t.properties.name} (version {t.properties.version}, {t.properties.table_type})")
    pt.add_column("key")
    pt.add_column("value", overflow="fold")
    for k, v in sorted(data["properties"].items()):
        pt.add_row(k, v)
    con.print(pt)
    tt = Table(title="timeline")
    for c in ("instant", "action", "state", "completion time"):
        tt.add_column(c)
    for i in t.timeline.instants:
        tt.add_row(i.requested_time, i.action, i.state, i.completion_time or "")
    con.print(tt)
    ft = Table(title="file slices")
    for c in ("partition", "file id", "base instant", "base file", "log files", "size"):
        ft.add_column(c)
    for part, groups in view.file_groups.items():
        for g in groups:
            for s in g.slices:
                ft.add_row(part or "(root)", g.file_id, s.base_instant, s.base_file.name if s.base_file else "",
                           "\n".join(f"{lf.name} ({lf.size})" for lf in s.log_files), str(s.total_size))
    con.print(ft)


@click.command("read")
@click.argument("path", type=StoragePath(exists=True, file_okay=False))
@click.option("--query", type=click.Choice(["snapshot", "read_optimized", "incremental"]), default="snapshot")
@click.option("--as-of", default=None, help="Time travel: snapshot as of this instant.")
@click.option("--begin", default=None, help="Incremental: exclusive lower bound.")
@click.option("--end", default=None, help="Incremental: inclusive upper bound (default latest).")
@click.option("--columns", default=None, help="Comma-separated columns.")
@click.option("--format", "fmt", type=click.Choice(["table", "jsonl", "parquet"]), default="table")
@click.option("-o", "--output", default=None, help="Output file (required for parquet).")
def read_cmd(path, query, as_of, begin, end, columns, fmt, output):
    """Read a Hudi table (snapshot, time travel, read-optimized or incremental)."""
    from ..table import read_table
    cols = [c.strip() for c in columns.split(",")] if columns else None
    try:
        t = read_table(path, query=query, as_of=as_of, begin=begin, end=end, columns=cols)
    except (HudiLogError, KeyError) as e:
        raise click.ClickException(str(e))
    if fmt == "parquet":
        if not output:
            raise click.ClickException("--format parquet needs -o OUT")
        import pyarrow.parquet as pq
        pq.write_table(t, output)
        return
    if fmt == "jsonl":
        lines = [json.dumps(r, default=str) for r in t.to_pylist()]
        text = "\n".join(lines) + ("\n" if lines else "")
        if output:
            with open(output, "w") as f:
                f.write(text)
        else:
            click.echo(text, nl=False)
        return
    from rich.console import Console
    from rich.table import Table
    rt = Table(title=f"{t.num_rows} rows")
    for c in t.column_names:
        rt.add_column(c, overflow="fold")
    for r in t.to_pylist():
        rt.add_row(*["" if v is None else str(v) for v in r.values()])
    if output:
        with open(output, "w") as f:
            Console(file=f, width=200).print(rt)
    else:
        Console(file=sys.stdout).print(rt)


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
@click.argument("path", type=StoragePath(file_okay=False))
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

    from ..table.write.client import write_table

    options = hudi_options(extra)
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
    if "hoodie.table.name" not in options and not (as_path(path) / ".hoodie").is_dir():
        options["hoodie.table.name"] = as_path(path).resolve().name
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
