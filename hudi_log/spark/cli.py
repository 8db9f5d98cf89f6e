"""The Spark side of the command line (`hudi-log validate --spark`)."""

from __future__ import annotations

import click


def validate_on_spark(patterns, master: str | None, as_json: bool) -> int:
    try:
        from .session import spark_session
        from .validate import print_report, validate_lake
    except ImportError as e:
        click.echo(f"error: --spark needs pyspark: {e}", err=True)
        return 2
    try:
        report = validate_lake(spark_session(master), list(patterns))
    except Exception as e:  # Spark could not run the job (no Java, a lost executor): a message, not a traceback
        lines = str(e).strip().splitlines() or [type(e).__name__]
        click.echo(f"error: the Spark job failed: {lines[0]}", err=True)
        return 2
    print_report(report, as_json, click.echo)
    return report.exit_code
