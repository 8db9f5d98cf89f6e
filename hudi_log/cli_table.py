"""CLI commands ``table PATH [--json]`` and ``read PATH [...]`` (registered by hudi_log.cli)."""

from __future__ import annotations

import json
import sys

import click

from .errors import HudiLogError


@click.command("table")
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def table_cmd(path, as_json):
    """Show a Hudi table: properties, timeline, partitions / file groups / slices."""
    from .table import HudiTable
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
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--query", type=click.Choice(["snapshot", "read_optimized", "incremental"]), default="snapshot")
@click.option("--as-of", default=None, help="Time travel: snapshot as of this instant.")
@click.option("--begin", default=None, help="Incremental: exclusive lower bound.")
@click.option("--end", default=None, help="Incremental: inclusive upper bound (default latest).")
@click.option("--columns", default=None, help="Comma-separated columns.")
@click.option("--format", "fmt", type=click.Choice(["table", "jsonl", "parquet"]), default="table")
@click.option("-o", "--output", default=None, help="Output file (required for parquet).")
def read_cmd(path, query, as_of, begin, end, columns, fmt, output):
    """Read a Hudi table (snapshot, time travel, read-optimized or incremental)."""
    from .table import read_table
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
