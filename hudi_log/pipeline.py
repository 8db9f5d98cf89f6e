"""The data pipeline on Spark, without spark-submit: ``python -m hudi_log.pipeline [--master M] STEP ...``.

Steps:

* ``ingest``: read files (Parquet, JSON lines, CSV) into a DataFrame and write them to a Hudi table
  through the ``hudi_log`` data source (insert / upsert / delete / bulk_insert / insert_overwrite);
* ``read``: a snapshot, time-travel or incremental query of a Hudi table, shown or saved as Parquet;
* ``validate``: the lake-wide block check over globs of log files (``hudi_log_blocks``).

Every step prints its progress (steps, then task counts of running Spark stages) to stderr. On a
cluster, run the same file with spark-submit (see the README); the master then comes from spark-submit.
"""

from __future__ import annotations

import json
import sys

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
              type=click.Choice(["insert", "upsert", "delete", "bulk_insert", "insert_overwrite"]))
@click.option("--mode", type=click.Choice(["append", "overwrite"]), default="append")
@click.option("--option", "extra", multiple=True, help="any other Hudi write option, KEY=VALUE (repeatable)")
@click.pass_context
def ingest(ctx, inputs, input_format, table, table_name, table_type, record_key, precombine, partition_path,
           operation, mode, extra) -> None:
    """Write input files to a Hudi table through the hudi_log data source."""
    from hudi_log.spark import write

    fmt = input_format or _format_of(inputs[0])
    opts = {k: v for k, v in {
        "hoodie.table.name": table_name, "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": record_key,
        "hoodie.datasource.write.precombine.field": precombine,
        "hoodie.datasource.write.partitionpath.field": partition_path,
        "hoodie.datasource.write.operation": operation}.items() if v is not None}
    opts.update(_options(extra))
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
@click.option("--output", default=None, help="write the rows as Parquet here (a folder, Spark style)")
@click.option("--show", default=20, help="rows to print when there is no --output")
@click.pass_context
def read(ctx, table, query, as_of, begin, end, output, show) -> None:
    """Query a Hudi table through the hudi_log data source."""
    from hudi_log.spark.source import AS_OF, BEGIN, END, QUERY_TYPE

    spark, progress = _session(ctx)
    r = spark.read.format("hudi_log").option(QUERY_TYPE, query)
    for key, value in ((AS_OF, as_of), (BEGIN, begin), (END, end)):
        if value is not None:
            r = r.option(key, value)
    df = r.load(table)
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
