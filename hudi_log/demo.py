"""The whole system in one command: `python -m hudi_log.demo [DIR] [--master M]`.

Starts Spark (embedded ``local[2]`` unless ``--master`` says otherwise), writes the seed walkthrough to a
COPY_ON_WRITE and a MERGE_ON_READ table through the ``hudi_log`` data source — insert ids 1-3, upsert 2
and 3, delete 3 — and queries both as Hudi users do: the snapshot, an incremental query (what changed
after the first commit) and a point-in-time query (as of the upsert). Then it runs ``hudi-log inspect``
on the MOR table's log files, where the upsert and the delete went as an Avro data block and a delete
block.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from .cli import main as cli

SCHEMA = "id int, name string, ts long"
STEPS = [  # (operation, rows): the seed walkthrough
    ("insert", [(1, "a", 1), (2, "b", 1), (3, "c", 1)]),
    ("upsert", [(2, "bb", 2), (3, "cc", 2)]),
    ("delete", [(3, "cc", 3)]),
]
COLUMNS = ["_hoodie_commit_time", "_hoodie_record_key", "id", "name", "ts"]


def table_options(table_type: str) -> dict[str, str]:
    return {
        "hoodie.table.name": f"demo_{table_type.lower()}",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
    }


def write_walkthrough(spark, path: str, table_type: str, echo=print) -> list[str]:
    """The seed steps written to ``path``; returns the instant of each step."""
    from .spark import write

    instants = []
    for op, rows in STEPS:
        df = spark.createDataFrame(rows, SCHEMA)
        result = write(df, path, {**table_options(table_type), "hoodie.datasource.write.operation": op})
        echo(f"  {op:<7} {rows}  ->  {result}")
        instants.append(result.instant)
    return instants


def _show(df, title: str) -> None:
    print(f"  {title}")
    for line in df.select(*COLUMNS).orderBy("id")._jdf.showString(20, 0, False).splitlines():
        print("    " + line)


def _cli_command() -> str:
    """How to run `hudi-log` from here: the bare name when it is on PATH, else the venv's script (the README's
    set-up installs it into .venv/bin without activating anything), else the module."""
    import os
    import shutil
    import sys

    if shutil.which("hudi-log"):
        return "hudi-log"
    script = os.path.join(os.path.dirname(sys.executable), "hudi-log")
    if os.access(script, os.X_OK):
        return os.path.relpath(script) if not os.path.relpath(script).startswith("..") else script
    return f"{sys.executable} -m hudi_log.cli"


def main(argv: list[str]) -> int:
    from .spark import spark_session
    from .spark.source import AS_OF, BEGIN, QUERY_TYPE

    master = None
    if "--master" in argv:
        i = argv.index("--master")
        master = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    out = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="hudi-log-demo-"))
    out.mkdir(parents=True, exist_ok=True)
    from pyspark.sql import SparkSession

    print(f"== starting Spark ({master or 'local[2]'})")
    ours = SparkSession.getActiveSession() is None  # a caller's session (tests) is left running
    spark = spark_session(master or "local[2]", app_name="hudi-log demo")
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ"):
        path = str(out / table_type.lower())
        print(f"\n== {table_type} table at {path}: the seed walkthrough through the hudi_log data source")
        t1, t2, t3 = write_walkthrough(spark, path, table_type)
        def table():  # a DataFrameReader keeps its options: a new one per query
            return spark.read.format("hudi_log")

        _show(table().load(path), "snapshot (ids 1 and 2 remain; 2 is upserted, 3 deleted):")
        _show(table().option(QUERY_TYPE, "incremental").option(BEGIN, t1).load(path),
              f"incremental: records changed after {t1} (the insert):")
        _show(table().option(AS_OF, t2).load(path), f"point in time: as of {t2} (the upsert, before the delete):")
    mor = out / "merge_on_read"
    logs = sorted(str(p) for p in mor.rglob(".*.log.*"))
    print(f"\n== hudi-log inspect {' '.join(Path(p).name for p in logs)}")
    # not a terminal: inspect prints plain tab-separated lines, nothing cut
    print(CliRunner().invoke(cli, ["inspect", *logs]).output)
    cmd = _cli_command()
    print(f"Tables left in {out}; try: {cmd} table {mor}   or   {cmd} read {mor} --as-of {t2}")
    if ours:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
