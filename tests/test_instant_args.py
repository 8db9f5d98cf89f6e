"""Instant arguments (issue 22, item 1): a malformed time, an option the query does not take and a time
travel Apache Hudi refuses (TimelineUtils.validateTimestampAsOf) are typed errors in the API, a one-line
message with exit 2 in the CLI; never 0 rows or every row."""

from __future__ import annotations

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.spark.source import AS_OF, BEGIN, QUERY_TYPE, read_args
from hudi_log.table import HudiTable, read_table
from hudi_log.table.errors import InstantArgumentError, QueryError, TimeTravelError
from hudi_log.table.read.instants import parse_instant
from hudi_log.table.services.clean import clean
from hudi_log.table.write.client import write_table

V6 = "quickstart_trips_table_mor_avro_v6_trips_8i1u"
SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64())])


def opts():
    return {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
            "hoodie.write.table.version": "6"}


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_instant_formats():
    assert parse_instant("20250331030642808", "as_of", "t") == "20250331030642808"
    assert parse_instant("20250331030642", "as_of", "t") == "20250331030642"
    assert parse_instant("2025-03-31 03:06:42.808", "as_of", "t") == "20250331030642808"
    assert parse_instant("2025-03-31 03:06:42", "as_of", "t") == "20250331030642000"
    assert parse_instant("2025-03-31", "as_of", "t") == "20250331000000000"
    assert parse_instant("000", "begin", "t", bound=True) == "000"
    for bad in ("notatime", "2025", "20251331030642808", "2025-02-30", "", "12:00", "2025-03-31T03:06:42"):
        with pytest.raises(InstantArgumentError, match="is not an instant time"):
            parse_instant(bad, "as_of", "t")
    with pytest.raises(InstantArgumentError, match="begin 'x1' is not an instant time"):
        parse_instant("x1", "begin", "t", bound=True)


@pytest.mark.parametrize("args, message", [
    (["--as-of", "notatime"], "{as_of} 'notatime' is not an instant time"),
    (["--query", "incremental", "--begin", "notatime"], "{begin} 'notatime' is not an instant time"),
    (["--query", "incremental", "--begin", "000", "--end", "soon"], "{end} 'soon' is not an instant time"),
    (["--begin", "20250331030642808"], "{begin} only apply to an incremental query (this one is snapshot)"),
    (["--query", "read_optimized", "--end", "20250331030642808"], "{end} only apply to an incremental query"),
    (["--query", "incremental", "--begin", "000", "--as-of", "20250331030642808"],
     "{as_of} is for snapshot and read-optimized queries"),
    (["--query", "incremental"], "an incremental query needs {begin}"),
])
def test_bad_instant_arguments_cli_and_api(corpus_tables, args, message):
    root = corpus_tables[V6]
    r = cli("read", root, "--format", "jsonl", *args)
    assert r.exit_code == 2, r.output
    assert message.format(as_of="--as-of", begin="--begin", end="--end") in r.output
    assert "Traceback" not in r.output and r.output.count("\n") == 1
    kw = {"query": "snapshot"}
    it = iter(args)
    for flag in it:
        kw[flag.lstrip("-").replace("-", "_")] = next(it)
    api = message.format(as_of="as_of", begin="begin", end="end")
    with pytest.raises(QueryError) as e:
        read_table(root, **kw)
    assert api in str(e.value)


def test_spark_source_options_are_checked_the_same_way():
    with pytest.raises(InstantArgumentError, match=f"option {AS_OF} 'yesterday' is not an instant time"):
        read_args({AS_OF: "yesterday", "path": "t"})
    with pytest.raises(InstantArgumentError, match=f"option {BEGIN} only apply to an incremental query"):
        read_args({BEGIN: "000", "path": "t"})
    with pytest.raises(InstantArgumentError, match=f"an incremental query needs option {BEGIN}"):
        read_args({QUERY_TYPE: "incremental", "path": "t"})
    assert read_args({AS_OF: "2025-03-31", "path": "t"})["as_of"] == "20250331000000000"


def test_time_travel_at_or_after_the_first_incomplete_commit_is_refused(corpus_tables, tmp_path):
    import shutil
    root = tmp_path / "t"
    shutil.copytree(corpus_tables[V6], root)
    commits = [i.requested_time for i in HudiTable(root).timeline.completed_commits()]
    assert read_table(root, as_of=commits[-1]).num_rows == 8  # no pending commit: time travel works
    pending = "20990101000000000"
    (root / ".hoodie" / f"{pending}.deltacommit.requested").write_bytes(b"")
    assert read_table(root, as_of=commits[-1]).num_rows == 8  # before the pending one: still fine
    with pytest.raises(TimeTravelError, match=f"not earlier than the first incomplete commit {pending}"):
        read_table(root, as_of=pending)
    r = cli("read", root, "--as-of", "20990102000000000")
    assert r.exit_code == 2 and f"first incomplete commit {pending} (deltacommit, requested)" in r.output


def test_time_travel_before_the_clean_retained_commits_is_refused(tmp_path):
    base = tmp_path / "t"
    times = []
    for n in range(4):
        r = write_table(base, pa.Table.from_pylist([{"id": "k", "val": str(n), "ts": n}], schema=SCHEMA),
                        "upsert", opts())
        times.append(r.instant)
    assert read_table(base, as_of=times[0]).column("val").to_pylist() == ["0"]
    assert clean(base, retain_commits=1) is not None
    retained = times[-1]
    assert read_table(base, as_of=retained).column("val").to_pylist() == ["3"]
    for t in times[:-1]:
        with pytest.raises(TimeTravelError, match=f"kept only the files of commits from {retained} on"):
            read_table(base, as_of=t)
    r = cli("read", base, "--as-of", times[0], "--format", "jsonl")
    assert r.exit_code == 2 and "retain more commits" in r.output and r.output.count("\n") == 1


def test_instant_of_compact_and_rollback_is_checked(tmp_path):
    base = tmp_path / "t"
    write_table(base, pa.Table.from_pylist([{"id": "k", "val": "a", "ts": 1}], schema=SCHEMA), "upsert", opts())
    r = cli("compact", base, "--instant", "notatime")
    assert r.exit_code == 2 and "--instant 'notatime' is not an instant time" in r.output
    r = cli("rollback", base, "soon")
    assert r.exit_code == 2 and "INSTANT 'soon' is not an instant time" in r.output
