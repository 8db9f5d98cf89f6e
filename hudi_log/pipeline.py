"""The data pipeline on Spark, without spark-submit: ``python -m hudi_log.pipeline [--master M] STEP ...``.

Steps:

* ``ingest``: read files (Parquet, JSON lines, CSV) into a DataFrame and write them to a Hudi table
  through the ``hudi_log`` data source (insert / upsert / delete / bulk_insert / insert_overwrite);
* ``read``: a snapshot, time-travel or incremental query of a Hudi table, shown or saved as Parquet;
* ``validate``: the lake-wide block check over globs of log files (``hudi_log_blocks``);
* ``stream``: a file-to-table stream (a folder where JSON, Parquet or CSV files arrive, a stand-in for
  Kafka) upserted into a Hudi table one commit per micro-batch, and with ``--changes-to`` a second stream
  that consumes the table's changes (its streaming source) into another table; a line per micro-batch. On a
  table with ``hoodie.table.cdc.enabled=true`` that stream reads the CDC rows, so deletes reach it too.

Every step prints its progress (steps, then task counts of running Spark stages) to stderr. On a
cluster, run the same file with spark-submit (see the README); the master then comes from spark-submit.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Mapping

import click

from hudi_log.errors import HudiLogError


def _session(ctx):
    from hudi_log.spark import spark_session
    from hudi_log.spark.progress import Progress

    if "spark" not in ctx.obj:
        p = Progress()
        with p.step(f"starting Spark ({ctx.obj['master'] or 'default master'})"):
            ctx.obj["spark"] = p.spark = spark_session(ctx.obj["master"], app_name="hudi-log pipeline")
        ctx.obj["progress"] = p
    return ctx.obj["spark"], ctx.obj["progress"]


def _options(pairs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for p in pairs:
        if "=" not in p:
            raise click.BadParameter(f"{p!r}: expected KEY=VALUE", param_hint="--option")
        k, v = p.split("=", 1)
        out[k.strip()] = v
    return out


@click.group()
@click.option("--master", default=None, help="Spark master (default: local[*], or spark-submit's)")
@click.pass_context
def main(ctx, master: str | None) -> None:
    """hudi-log's data pipeline on Spark."""
    ctx.obj = {"master": master}


@main.command()
@click.option("--input", "inputs", multiple=True, required=True, help="input file, folder or glob (repeatable)")
@click.option("--input-format", type=click.Choice(["parquet", "json", "csv"]), default=None,
              help="default: from the first input's extension")
@click.option("--table", required=True, help="the Hudi table's path")
@click.option("--table-name", default=None, help="hoodie.table.name (new tables)")
@click.option("--table-type", type=click.Choice(["COPY_ON_WRITE", "MERGE_ON_READ"]), default=None)
@click.option("--record-key", default=None, help="hoodie.datasource.write.recordkey.field")
@click.option("--precombine", default=None, help="hoodie.datasource.write.precombine.field")
@click.option("--partition-path", default=None, help="hoodie.datasource.write.partitionpath.field")
@click.option("--operation", default="upsert",
              type=click.Choice(["insert", "upsert", "delete", "bulk_insert", "insert_overwrite",
                                 "insert_overwrite_table", "delete_partition"]))
@click.option("--mode", type=click.Choice(["append", "overwrite"]), default="append")
@click.option("--option", "extra", multiple=True, help="any other Hudi write option, KEY=VALUE (repeatable)")
@click.pass_context
def ingest(ctx, inputs, input_format, table, table_name, table_type, record_key, precombine, partition_path,
           operation, mode, extra) -> None:
    """Write input files to a Hudi table through the hudi_log data source."""
    from hudi_log.spark import write

    fmt = input_format or _format_of(inputs[0])
    opts = _write_options(table_name, table_type, record_key, precombine, partition_path, operation, extra)
    spark, progress = _session(ctx)
    reader = spark.read.format(fmt)
    if fmt == "csv":
        reader = reader.option("header", "true").option("inferSchema", "true")
    df = reader.load(list(inputs))
    with progress.step(f"{operation} of {', '.join(inputs)} into {table} ({mode})"):
        result = write(df, table, opts, mode)
    progress.say(f"committed: {result}")


def _format_of(path: str) -> str:
    p = path.lower().rstrip("/")
    if p.endswith((".json", ".jsonl", ".ndjson")):
        return "json"
    if p.endswith(".csv"):
        return "csv"
    return "parquet"


@main.command()
@click.option("--table", required=True, help="the Hudi table's path")
@click.option("--query", type=click.Choice(["snapshot", "read_optimized", "incremental"]), default="snapshot")
@click.option("--as-of", default=None, help="time travel: as.of.instant")
@click.option("--begin", default=None, help="incremental: hoodie.datasource.read.begin.instanttime")
@click.option("--end", default=None, help="incremental: hoodie.datasource.read.end.instanttime")
@click.option("--fallback-full-table-scan", "fallback", is_flag=True,
              help="incremental over cleaned commits: hoodie.datasource.read.incr.fallback.fulltablescan.enable")
@click.option("--output", default=None, help="write the rows as Parquet here (a folder, Spark style)")
@click.option("--show", default=20, help="rows to print when there is no --output")
@click.pass_context
def read(ctx, table, query, as_of, begin, end, fallback, output, show) -> None:
    """Query a Hudi table: whole base files by Spark's Parquet scan, merged slices by the hudi_log data source."""
    from hudi_log.spark import read as spark_read
    from hudi_log.spark.source import AS_OF, BEGIN, END, QUERY_TYPE

    spark, progress = _session(ctx)
    from hudi_log.table.read.incremental import FALLBACK_OPTION

    given = {QUERY_TYPE: query, AS_OF: as_of, BEGIN: begin, END: end, FALLBACK_OPTION: "true" if fallback else None}
    df = spark_read(spark, table, {k: v for k, v in given.items() if v is not None})
    if output:
        with progress.step(f"{query} query of {table} to {output}"):
            df.write.mode("overwrite").parquet(output)
        return
    with progress.step(f"{query} query of {table}"):
        rows = df.limit(show).collect() if show else []
        count = df.count()
    progress.say(f"{count} row(s)")
    for row in rows:
        click.echo(json.dumps(row.asDict(recursive=True), default=str))


@main.command()
@click.argument("patterns", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def validate(ctx, patterns, as_json) -> None:
    """Check every log file the globs match (one Spark job); exit 0 / 1 / 2 as `hudi-log validate`."""
    from hudi_log.spark.validate import print_report, validate_lake

    spark, progress = _session(ctx)
    with progress.step(f"checking the blocks of {', '.join(patterns)}"):
        report = validate_lake(spark, list(patterns))
    print_report(report, as_json, click.echo)
    ctx.exit(report.exit_code)


def _write_options(table_name, table_type, record_key, precombine, partition_path, operation, extra) -> dict:
    opts = {k: v for k, v in {
        "hoodie.table.name": table_name, "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": record_key,
        "hoodie.datasource.write.precombine.field": precombine,
        "hoodie.datasource.write.partitionpath.field": partition_path,
        "hoodie.datasource.write.operation": operation}.items() if v is not None}
    opts.update(_options(extra))
    return opts


@main.command()
@click.option("--input", "input_dir", required=True, help="the folder new files arrive in")
@click.option("--input-format", type=click.Choice(["parquet", "json", "csv"]), default="json")
@click.option("--schema", default=None, help="the input's schema as Spark DDL ('id long, name string, ...'); "
              "default: inferred from the files already there")
@click.option("--table", required=True, help="the Hudi table the stream writes")
@click.option("--table-name", default=None, help="hoodie.table.name (new tables)")
@click.option("--table-type", type=click.Choice(["COPY_ON_WRITE", "MERGE_ON_READ"]), default="MERGE_ON_READ")
@click.option("--record-key", default=None, help="hoodie.datasource.write.recordkey.field")
@click.option("--precombine", default=None, help="hoodie.datasource.write.precombine.field")
@click.option("--partition-path", default=None, help="hoodie.datasource.write.partitionpath.field")
@click.option("--operation", default="upsert", type=click.Choice(["upsert", "insert", "delete", "bulk_insert"]))
@click.option("--option", "extra", multiple=True, help="any other Hudi write option, KEY=VALUE (repeatable)")
@click.option("--checkpoint", required=True, help="folder of the streams' Spark checkpoints (ingest/, changes/)")
@click.option("--changes-to", default=None, help="also stream the table's changes into this second table")
@click.option("--max-files-per-trigger", type=int, default=None, help="input files per micro-batch")
@click.option("--trigger-seconds", type=float, default=10.0, help="micro-batch interval")
@click.option("--available-now", is_flag=True, help="process what is there in micro-batches, then stop "
              "(the changes stream runs after the ingest stream)")
@click.option("--timeout", type=float, default=None, help="stop the streams after this many seconds")
@click.pass_context
def stream(ctx, input_dir, input_format, schema, table, table_name, table_type, record_key, precombine,
           partition_path, operation, extra, checkpoint, changes_to, max_files_per_trigger, trigger_seconds,
           available_now, timeout) -> None:
    """Stream arriving files into a Hudi table (and its changes into another) through hudi_log's sink and source."""
    from pathlib import Path

    # a new table is named after its folder unless named: the sink creates it inside the first micro-batch
    opts = _write_options(table_name or Path(table.rstrip("/")).name, table_type, record_key, precombine,
                          partition_path, operation, extra)
    spark, progress = _session(ctx)
    reader = spark.readStream.format(input_format)
    if input_format == "csv":
        reader = reader.option("header", "true")
    if schema is None:  # a file stream needs its schema up front: take the one of the files there now
        try:
            schema = spark.read.format(input_format).option("header", "true").load(input_dir).schema
        except Exception as e:
            raise click.UsageError(f"{input_dir}: no files to infer the input's schema from; give --schema "
                                   f"({type(e).__name__})") from None
    reader = reader.schema(schema)
    if max_files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", max_files_per_trigger)

    def start(df, target, name, options):
        w = (df.writeStream.format("hudi_log").options(**options).queryName(name)
             .option("checkpointLocation", str(Path(checkpoint) / name)))
        w = w.trigger(availableNow=True) if available_now else w.trigger(processingTime=f"{trigger_seconds} seconds")
        progress.say(f"{name}: streaming into {target}")
        return w.start(target)

    def changes():
        down_opts = {**opts, "hoodie.table.name": f"{opts['hoodie.table.name']}_changes",
                     "hoodie.datasource.write.operation": "upsert"}
        if _cdc_on(table, opts):
            down, order = _change_rows(spark, table, schema), CHANGE_TIME
            down_opts["hoodie.datasource.write.precombine.field"] = order
            down_opts.pop("hoodie.table.cdc.enabled", None)  # the downstream table is a copy, not a change log
            return start(down, changes_to, "changes", down_opts)
        down = spark.readStream.format("hudi_log").load(table)
        # the Hudi meta columns are the upstream table's; the downstream table writes its own
        down = down.drop(*[c for c in down.columns if c.startswith("_hoodie_") and c != "_hoodie_is_deleted"])
        return start(down, changes_to, "changes", down_opts)

    deadline = None if timeout is None else time.monotonic() + timeout
    ingest = start(reader.load(input_dir), table, "ingest", opts)
    if not changes_to:
        _watch([ingest], progress, deadline)
    elif available_now:
        _watch([ingest], progress, deadline)
        _watch([changes()], progress, deadline)
    else:
        _watch([ingest, changes()], progress, deadline)


#: the downstream table's ordering column when it is fed the upstream's CDC rows: the change's instant
CHANGE_TIME = "_change_ts"


def _cdc_on(table: str, opts: Mapping) -> bool:
    """The upstream table logs changes (its properties say so, or the stream creates it so)."""
    from .table.properties import NotAHudiTableError, read_properties

    try:
        return read_properties(table).cdc_enabled
    except NotAHudiTableError:
        return str(opts.get("hoodie.table.cdc.enabled", "false")).lower() == "true"


def _change_rows(spark, table: str, schema):
    """The upstream's CDC stream as rows for an upsert: each change's image (after, or before for a
    delete), ``_hoodie_is_deleted`` for deletes, and the change's instant as :data:`CHANGE_TIME`, so that
    a key's later change wins within a micro-batch as across them."""
    from pyspark.sql import functions as F

    cdc = (spark.readStream.format("hudi_log").option("hoodie.datasource.query.type", "incremental")
           .option("hoodie.datasource.query.incremental.format", "cdc").load(table))
    image = F.from_json(F.coalesce(F.col("after"), F.col("before")), schema)
    rows = cdc.select(image.alias("r"), (F.col("op") == "d").alias("_hoodie_is_deleted"),
                      F.col("ts_ms").cast("long").alias(CHANGE_TIME))
    fields = [f"r.{n}" for n in rows.select("r.*").columns if n not in ("_hoodie_is_deleted", CHANGE_TIME)]
    return rows.select(*fields, "_hoodie_is_deleted", CHANGE_TIME)


def _watch(queries, progress, deadline) -> None:
    """A line per micro-batch of each query until all stop (or the deadline, or Ctrl-C, stops them); a
    failed query is an error naming it."""
    seen = {id(q): -1 for q in queries}  # the last batch id reported
    ran = {id(q): 0 for q in queries}  # micro-batches this run (a restarted query's ids go on from its checkpoint)

    def report(q):
        for p in q.recentProgress:
            if p["batchId"] > seen[id(q)]:
                seen[id(q)] = p["batchId"]
                ran[id(q)] += 1
                ms = (p.get("durationMs") or {}).get("triggerExecution", 0)
                progress.say(f"{q.name} batch {p['batchId']}: {p['numInputRows']} row(s) in {ms / 1000:.1f}s")

    try:
        while any(q.isActive for q in queries):
            for q in queries:
                q.awaitTermination(0.5)
                report(q)
            if deadline is not None and time.monotonic() > deadline:
                progress.say("timeout: stopping the streams")
                break
    except KeyboardInterrupt:
        progress.say("interrupted: stopping the streams")
    finally:
        for q in queries:
            if q.isActive:
                q.stop()
    for q in queries:
        report(q)
        err = q.exception()
        if err is not None:
            raise click.ClickException(f"stream {q.name} failed: {str(err).strip().splitlines()[0]}")
        progress.say(f"{q.name}: stopped after {ran[id(q)]} micro-batch(es)")


def run(argv=None) -> int:
    try:
        # without standalone mode click returns the command's ctx.exit() code instead of exiting
        code = main.main(args=argv, prog_name="python -m hudi_log.pipeline", standalone_mode=False)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        e.show()
        return 2
    except (HudiLogError, OSError) as e:
        click.echo(f"error: {e}", err=True)
        return 2
    except Exception as e:  # Spark's errors (a failed job carries the worker's HudiLogError text)
        if type(e).__module__.startswith(("pyspark", "py4j")):
            click.echo(f"error: {type(e).__name__}: {str(e).strip().splitlines()[0]}", err=True)
            return 2
        raise
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(run())
