"""`hudi-log` commands on whole tables: ``table PATH`` (properties, timeline, file groups), ``read PATH``
(snapshot, time travel, incremental) and ``write PATH --input FILE`` (Hudi's write operations).

``write`` takes JSON lines (one object per line; types inferred by pyarrow) or Parquet, by extension or
content; options use Hudi's names (``--option k=v``, repeatable) and the short flags set the common ones.
Errors (bad input, incompatible schema, another table type or version) print one line and exit 2.
"""

from __future__ import annotations

import json
import sys
import warnings

import click

from ..paths import as_path
from ..errors import HudiLogError
from .output import (StoragePath, check_output_path, error_message, exit_code_for, fail as _fail, hudi_options,
                     print_table, progress, stdout_is_terminal)


@click.command("table")
@click.argument("path", type=StoragePath(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
def table_cmd(path, as_json):
    """Show a Hudi table: properties, timeline, partitions / file groups / slices (full file names; on a
    terminal as tables, else as plain tab-separated sections)."""
    from ..table import HudiTable

    t = HudiTable(path)
    for inst in t.timeline.completed_commits():  # as a read does: commit metadata that is damaged is an error
        t.timeline.commit_metadata(inst)
    view = t.view()
    data = {
        "properties": t.properties.to_dict(),
        "checksum_ok": t.properties.checksum_ok(),
        "timeline": [i.to_dict() for i in t.timeline.instants],
        "partitions": view.to_dict(),
    }
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
        return
    plain = not stdout_is_terminal()
    title = f"{t.properties.name} (version {t.properties.version}, {t.properties.table_type})"
    sections = [
        (title, ("key", "value"), sorted(data["properties"].items())),
        ("timeline", ("instant", "action", "state", "completion time"),
         [(i.requested_time, i.action, i.state, i.completion_time or "") for i in t.timeline.instants]),
        ("file slices", ("partition", "file id", "base instant", "base file", "log files", "size"),
         [(part or "(root)", g.file_id, s.base_instant, s.base_file.name if s.base_file else "",
           (", " if plain else "\n").join(f"{lf.name} ({lf.size})" for lf in s.log_files), s.total_size)
          for part, groups in view.file_groups.items() for g in groups for s in g.slices]),
    ]
    for n, (name, columns, rows) in enumerate(sections):
        if plain:
            click.echo(("" if n == 0 else "\n") + f"# {name}")
        print_table(name, columns, rows)


_BATCH_ROWS = 65536


@click.command("read")
@click.argument("path", type=StoragePath(file_okay=False))
@click.option("--query", type=click.Choice(["snapshot", "read_optimized", "incremental"]), default="snapshot")
@click.option("--as-of", default=None, help="Time travel: snapshot as of this instant.")
@click.option("--begin", default=None, help="Incremental: exclusive lower bound.")
@click.option("--end", default=None, help="Incremental: inclusive upper bound (default latest).")
@click.option("--incremental-format", type=click.Choice(["latest_state", "cdc"]), default="latest_state",
              help="Incremental: the rows as they are now (latest_state) or the changes (cdc: op, ts_ms, before, "
              "after; a table with hoodie.table.cdc.enabled=true).")
@click.option("--columns", default=None, help="Comma-separated columns.")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="Stop after N rows.")
@click.option("--format", "fmt", type=click.Choice(["table", "jsonl", "parquet"]), default="table",
              help="table: a table on a terminal, tab-separated text otherwise; jsonl; parquet (needs -o).")
@click.option("-o", "--output", default=None, help="Output file (required for parquet).")
@click.option("--strict", is_flag=True, help="Fail (exit 3) when a committed file is missing or damaged, "
              "instead of warning on stderr.")
@click.option("--fallback-full-table-scan", "fallback", is_flag=True,
              help="Incremental: where the range's commits' files were cleaned (or it reaches archived commits), "
              "read the latest snapshot filtered by _hoodie_commit_time instead of failing (Java's "
              "hoodie.datasource.read.incr.fallback.fulltablescan.enable).")
def read_cmd(path, query, as_of, begin, end, incremental_format, columns, limit, fmt, output, strict, fallback):
    """Read a Hudi table (snapshot, time travel, read-optimized or incremental).

    Rows are written as they are read, slice by slice, so memory stays bounded by a few file slices. A
    committed file found missing or damaged is a warning on stderr, or with --strict an error (exit 3).
    """
    from .read_output import stream_table

    if fmt == "parquet" and not output:
        raise click.UsageError("--format parquet needs -o OUT")
    if output:
        output = check_output_path(output)
    from ..table import HudiTable, iter_plan

    cols = None
    if columns is not None:
        # each named once, in the order given; an empty list is a mistake, not "every column"
        cols = list(dict.fromkeys(c.strip() for c in columns.split(",") if c.strip()))
        if not cols:
            raise click.UsageError(f"--columns {columns!r}: name at least one column (comma-separated)")
    from ..table.errors import IncrementalCommitsGoneError, IntegrityError
    from ..table.read.instants import query_arguments
    from ..table.read.integrity import IntegrityWarning

    if fallback and query != "incremental":
        raise click.UsageError("--fallback-full-table-scan goes with --query incremental")
    if incremental_format == "cdc":
        if query != "incremental" or as_of is not None or cols is not None or fallback:
            raise click.UsageError("--incremental-format cdc goes with --query incremental (no --as-of, no --columns, "
                                   "no --fallback-full-table-scan)")
        return _read_changes(path, begin, end, limit, fmt, output)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IntegrityWarning)
        try:
            # checked here first so that errors name the options as typed
            query_arguments(path, query, as_of, begin, end, {"as_of": "--as-of", "begin": "--begin", "end": "--end"})
            plan = HudiTable(path).plan(query=query, as_of=as_of, begin=begin, end=end, columns=cols, strict=strict,
                                        fallback_full_table_scan=fallback)
            stream_table(plan.schema, iter_plan(plan), len(plan.tasks), fmt, output, limit)
        except KeyError as e:  # a column the table does not have
            _fail(f"{path}: {e.args[0] if e.args else e} (see `hudi-log table {path}` for the schema)")
        except IncrementalCommitsGoneError as e:  # the option as this command spells it
            _fail(f"{e} (here: --fallback-full-table-scan)", exit_code_for(e))
        except IntegrityError as e:  # --strict: a committed file is missing or damaged
            _fail(f"{e} (commit {e.instant}); see hudi-log validate --table {path}", exit_code_for(e))
        finally:
            for w in caught:  # a damaged table is said on stderr, one line each; other warnings as Python shows them
                if issubclass(w.category, IntegrityWarning):
                    click.echo(f"hudi-log: warning: {w.message}", err=True)
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def _read_changes(path, begin, end, limit, fmt, output) -> None:
    """A CDC query: each instant's changes written as they are computed (hudi_log.table.read.cdc)."""
    from ..table.cdc import CDC_ARROW_SCHEMA
    from ..table.read.cdc import cdc_instants, iter_changes
    from .read_output import stream_table

    if begin is None:
        raise click.UsageError("--incremental-format cdc needs --begin (0: from the first change)")
    times = cdc_instants(path, begin, end, ("--begin", "--end"))
    stream_table(CDC_ARROW_SCHEMA, iter_changes(path, times), len(times), fmt, output, limit)


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
@click.option("--operation", default=None,
              help="insert, upsert, delete, bulk_insert, insert_overwrite, insert_overwrite_table or delete_partition "
                   "(default: -o hoodie.datasource.write.operation, else upsert)")
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="a Hudi write option (repeatable)")
@click.option("--table-name", default=None, help="hoodie.table.name (default: the folder's name)")
@click.option("--table-type", default=None, type=click.Choice(["COPY_ON_WRITE", "MERGE_ON_READ"], case_sensitive=False))
@click.option("--table-version", default=None, type=click.Choice(["6", "8", "9"]), help="hoodie.write.table.version")
@click.option("--record-key", default=None, help="record key field(s), comma separated")
@click.option("--precombine", default=None, help="precombine (ordering) field")
@click.option("--partition-field", default=None, help="partition path field(s), comma separated")
@click.option("--hive-style/--no-hive-style", default=None, help="hive-style partition folders (field=value)")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def write_cmd(path, input_path, operation, extra, table_name, table_type, table_version, record_key, precombine,
              partition_field, hive_style, as_json):
    """Write records to the Hudi table at PATH (created when absent)."""

    from ..table.write.client import write_table
    from ..table.write.options import OPERATION, resolve

    flags = {  # Hudi's option -> (the flag, its value): a flag and the same -o option disagreeing is an error
        OPERATION: ("--operation", operation),
        "hoodie.table.name": ("--table-name", table_name),
        "hoodie.datasource.write.table.type": ("--table-type", table_type),
        "hoodie.write.table.version": ("--table-version", table_version),
        "hoodie.datasource.write.recordkey.field": ("--record-key", record_key),
        "hoodie.datasource.write.precombine.field": ("--precombine", precombine),
        "hoodie.datasource.write.partitionpath.field": ("--partition-field", partition_field),
        "hoodie.datasource.write.hive_style_partitioning": (
            "--hive-style" if hive_style else "--no-hive-style", None if hive_style is None else str(hive_style).lower()),
    }
    try:
        options = resolve(hudi_options(extra), {k: v for k, (_, v) in flags.items()},
                          {k: label for k, (label, _) in flags.items()})
    except HudiLogError as e:
        _fail(error_message(e), exit_code_for(e))
    operation = None  # resolved into the options
    if "hoodie.table.name" not in options and not (as_path(path) / ".hoodie").is_dir():
        options["hoodie.table.name"] = as_path(path).resolve().name
    data = _read_input(input_path)
    from ..table.properties import has_properties

    existed = has_properties(path)
    try:
        with progress(None, f"writing {data.num_rows} record(s)"):
            result = write_table(path, data, operation, options)
    except (HudiLogError, OSError) as e:
        left = "" if existed or (as_path(path) / ".hoodie").exists() else "; nothing was written and no table was left behind"
        _fail(f"{error_message(e)}{left}", exit_code_for(e))
    if as_json:
        click.echo(json.dumps({
            "instant": result.instant, "action": result.action, "operation": result.operation,
            "completion_time": result.completion_time, "inserts": result.num_inserts,
            "updates": result.num_updates, "deletes": result.num_deletes,
            "files": [s["path"] for s in result.write_stats], "rolled_back": result.rolled_back,
            "replaced_file_ids": result.replaced_file_ids}, indent=2))
    else:
        for line in _rollbacks_done(path, result.rolled_back):  # Hudi's eager rollback of failed writes
            click.echo(line)
        click.echo(f"{result.action} {result.instant}: {result.operation} — {result.num_inserts} inserts, "
                   f"{result.num_updates} updates, {result.num_deletes} deletes in {len(result.write_stats)} files")


def _rollbacks_done(path, rollbacks: list[str]) -> list[str]:
    """A line per rollback a write did on the way, naming the failed instant it undid."""
    from ..table import HudiTable
    timeline = HudiTable(path).timeline
    out = []
    for t in rollbacks:
        inst = timeline.instant(t)
        try:
            undone = (timeline.commit_metadata(inst) if inst else {}).get("commitsRollback") or []
        except HudiLogError:
            undone = []
        out.append(f"rolled back failed write {', '.join(undone) or '?'} (rollback {t})")
    return out


def validate_table_cli(table_path, files, as_json: bool) -> None:
    """``validate --table PATH``: exit 0 intact, 1 damaged (each problem on a line), 2 not a table."""
    from ..table.validate import validate_table
    if table_path is None or files:
        _fail("give log FILES or --table PATH (not both)")
    try:
        report = validate_table(table_path)
    except HudiLogError as e:
        _fail(str(e))
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        for p in report.problems:
            click.echo(f"{p.path}: {p.kind.upper()}: {p.message}")
        for n in report.notes:
            click.echo(f"note: {n}")
        state = "OK" if report.ok else f"DAMAGED: {len(report.problems)} problem(s)"
        click.echo(f"{table_path}: {state}: {report.instants} completed instant(s), {report.committed_files} "
                   f"committed file(s), {report.base_files} base file(s) read, {report.log_files} log file(s), "
                   f"{report.blocks} block(s)"
                   + ("" if report.checksum_ok is not False else ", properties checksum WRONG"))
    sys.exit(report.code)
