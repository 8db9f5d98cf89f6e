"""Incremental reads over cleaned or archived commits (issue 35, item 4): never fewer rows without saying so.

By default the read fails with IncrementalCommitsGoneError naming the table, the commits whose files the
cleaner removed and Java's option; with ``hoodie.datasource.read.incr.fallback.fulltablescan.enable`` it is the
latest snapshot filtered by ``_hoodie_commit_time`` (Java's full table scan), in the API, the CLI and the
streaming source's micro-batches alike (the reader's methods, without a Spark query; the Spark queries are in
tests/test_incremental_cleaned_spark.py)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.table import HudiTable, read_table
from hudi_log.table.errors import IncrementalCommitsGoneError, QueryError
from hudi_log.table.properties import read_properties, write_properties
from hudi_log.table.read.cdc import read_cdc
from hudi_log.table.read.incremental import FALLBACK_OPTION
from hudi_log.table.services.archive import archive
from hudi_log.table.services.clean import clean
from hudi_log.table.write.client import write_table

SCHEMA = pa.schema([("id", pa.string()), ("val", pa.string()), ("ts", pa.int64())])
VERSIONS = [(t, v) for t in ("COPY_ON_WRITE", "MERGE_ON_READ") for v in (6, 8)]


def opts(table_type, version, **more):
    # no metadata table: archival stops at its latest compaction (Java's rule), helper mdtsvc's part
    return {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
            "hoodie.write.table.version": str(version), "hoodie.clean.automatic": "false",
            "hoodie.compact.inline": "false", "hoodie.metadata.enable": "false", **more}


def upserts(base, table_type, version, n=4, start=0, **more):
    """``n`` upserts, each of key k and a new key n{i}: every commit rewrites k's file group."""
    for i in range(start, start + n):
        write_table(base, pa.Table.from_pylist([{"id": "k", "val": str(i), "ts": i},
                                                {"id": f"n{i}", "val": str(i), "ts": i}], schema=SCHEMA),
                    "upsert", opts(table_type, version, **more))
    return HudiTable(base).timeline.completed_commits()


def bound(inst, version):
    """The instant's time as an incremental bound: its completion time from version 8 on."""
    return inst.completion_time if version >= 8 else inst.requested_time


def rows(table: pa.Table) -> list[tuple]:
    return sorted((r["id"], r["val"], r["_hoodie_commit_time"]) for r in table.to_pylist())


def expected(base, commits, version, begin, end) -> list[tuple]:
    """The latest snapshot filtered by commit time: Java's full table scan (8+: the instants that completed in
    (begin, end]; below: begin < _hoodie_commit_time <= end)."""
    if version >= 8:
        keep = {c.requested_time for c in commits if begin < c.completion_time <= end}
        return [r for r in rows(read_table(base)) if r[2] in keep]
    return [r for r in rows(read_table(base)) if begin < r[2] <= end]


@pytest.mark.parametrize("table_type,version", VERSIONS)
def test_cleaned_commits_are_an_error_naming_them_or_the_fallback_scan(tmp_path, table_type, version):
    base = tmp_path / "t"
    commits = upserts(base, table_type, version)
    assert clean(base, retain_commits=1)
    c = [i.requested_time for i in commits]
    # (begin, second commit]: both commits' versions of the shared file group were cleaned
    with pytest.raises(IncrementalCommitsGoneError) as e:
        read_table(base, query="incremental", begin="000", end=bound(commits[1], version))
    assert e.value.commits == (c[0], c[1])
    msg = str(e.value)
    assert str(base) in msg and c[0] in msg and c[1] in msg and FALLBACK_OPTION + "=true" in msg
    for end in commits:  # the fallback: exactly the rows of the range's commits as the latest snapshot has them
        got = read_table(base, query="incremental", begin="000", end=bound(end, version),
                         fallback_full_table_scan=True)
        assert rows(got) == expected(base, commits, version, "000", bound(end, version))
    # what the fallback leaves out is only what was updated since: k's row now carries the last commit
    got = rows(read_table(base, query="incremental", begin="000", end=bound(commits[1], version),
                          fallback_full_table_scan=True))
    assert got == [("n0", "0", c[0]), ("n1", "1", c[1])]


@pytest.mark.parametrize("table_type,version", VERSIONS)
def test_a_range_the_cleaner_kept_reads_as_before(tmp_path, table_type, version):
    base = tmp_path / "t"
    commits = upserts(base, table_type, version)
    before = rows(read_table(base, query="incremental", begin=bound(commits[2], version)))
    assert clean(base, retain_commits=1)
    plain = HudiTable(base).plan(query="incremental", begin=bound(commits[2], version))
    assert not plain.context.full_table_scan
    assert rows(read_table(base, query="incremental", begin=bound(commits[2], version))) == before
    assert before == [("k", "3", commits[3].requested_time), ("n3", "3", commits[3].requested_time)]


@pytest.mark.parametrize("version,table_type", [(6, "COPY_ON_WRITE"), (8, "MERGE_ON_READ")])
def test_file_groups_clustered_before_the_end_are_read_from_their_new_group(tmp_path, version, table_type):
    from test_clustering import batch as cbatch, opts as copts, small_stream
    from hudi_log.table.services import clustering as cl

    base = tmp_path / "t"
    first = small_stream(base, version, table_type, n=3)[0]
    assert cl.cluster(base)
    for i in range(3):  # commits after the clustering, so that the cleaner removes the replaced groups
        write_table(base, cbatch([(f"k{60 + i}", "x")], 90 + i), "insert", copts(version, table_type))
    whole = rows(read_table(base, query="incremental", begin="000"))
    assert clean(base, retain_commits=1)
    # the replaced groups' files are gone, but the clustering (before the range's end) moved their rows
    assert rows(read_table(base, query="incremental", begin="000")) == whole
    # a range ending before the clustering needed the replaced groups' files
    end = HudiTable(base).timeline.instant(first)
    with pytest.raises(IncrementalCommitsGoneError) as e:
        read_table(base, query="incremental", begin="000", end=bound(end, version))
    assert e.value.commits == (first,)


def test_no_meta_fields_no_incremental_query(tmp_path):
    base = tmp_path / "t"
    upserts(base, "COPY_ON_WRITE", 6, n=1)
    write_properties(base, {**dict(read_properties(base)), "hoodie.populate.meta.fields": "false"})
    for fallback in (False, True):
        with pytest.raises(QueryError, match="meta fields are disabled"):
            read_table(base, query="incremental", begin="000", fallback_full_table_scan=fallback)
    assert read_table(base).num_rows == 2  # a snapshot still reads


@pytest.mark.parametrize("version", [6, 8])
def test_archived_commits_are_checked_by_their_archived_metadata(tmp_path, version):
    """From the v6 archive (below 8; Java's V1 relation leaves archived commits out) or the LSM history (8+)."""
    base = tmp_path / "t"
    small = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3", "hoodie.cleaner.commits.retained": "1"}
    commits = upserts(base, "COPY_ON_WRITE", version, n=6)
    end = bound(commits[1], version)
    before = rows(read_table(base, query="incremental", begin="000", end=end))
    assert clean(base, retain_commits=1) and archive(base, small)
    assert HudiTable(base).timeline.timeline_start() > commits[1].requested_time  # archived
    with pytest.raises(IncrementalCommitsGoneError) as e:
        read_table(base, query="incremental", begin="000", end=end)
    assert e.value.commits == (commits[0].requested_time, commits[1].requested_time)
    assert f"{commits[1].requested_time} (archived)" in str(e.value)
    got = read_table(base, query="incremental", begin="000", end=end, fallback_full_table_scan=True)
    assert rows(got) == expected(base, commits, version, "000", end) == [r for r in before if r[0] != "k"]
    # the whole range reads as before: the newest versions are all there
    assert rows(read_table(base, query="incremental", begin="000")) == rows(read_table(base))
    plan = HudiTable(base).plan(query="incremental", begin="000", fallback_full_table_scan=True)
    assert plan.context.full_table_scan  # Java: a range reaching archived instants is scanned


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_names_the_commits_and_the_flag_falls_back(tmp_path):
    base = tmp_path / "t"
    commits = upserts(base, "MERGE_ON_READ", 8)
    assert clean(base, retain_commits=1)
    end = commits[1].completion_time
    r = cli("read", base, "--query", "incremental", "--begin", "000", "--end", end, "--format", "jsonl")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "Traceback" not in r.output
    assert r.output.startswith("hudi-log: ") and commits[0].requested_time in r.output and FALLBACK_OPTION in r.output
    assert "--fallback-full-table-scan" in r.output
    r = cli("read", base, "--query", "incremental", "--begin", "000", "--end", end, "--format", "jsonl",
            "--fallback-full-table-scan")
    assert r.exit_code == 0, r.output
    got = sorted((d["id"], d["val"], d["_hoodie_commit_time"]) for d in map(json.loads, r.output.splitlines()))
    assert got == expected(base, commits, 8, "000", end) and len(got) == 2
    r = cli("read", base, "--fallback-full-table-scan")
    assert r.exit_code == 2 and "--query incremental" in r.output


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_cdc_over_cleaned_versions_names_the_instants(tmp_path, table_type):
    base = tmp_path / "t"
    cdc = {"hoodie.table.cdc.enabled": "true", "hoodie.table.cdc.supplemental.logging.mode": "OP_KEY_ONLY"}
    commits = upserts(base, table_type, 6, **cdc)
    c = [i.requested_time for i in commits]
    whole = read_cdc(base, "0")
    assert clean(base, retain_commits=1)
    with pytest.raises(IncrementalCommitsGoneError) as e:
        read_cdc(base, "0")
    assert set(e.value.commits) >= {c[0], c[1]} and c[3] not in e.value.commits
    # the changes the retained versions still give are as before
    after = read_cdc(base, c[2])
    assert sorted(after.to_pylist(), key=str) == sorted([r for r in whole.to_pylist() if r["ts_ms"] == c[3]], key=str)
    r = cli("read", base, "--query", "incremental", "--incremental-format", "cdc", "--begin", "0")
    assert r.exit_code == 2 and c[0] in r.output and r.output.count("\n") == 1


# ---- the streaming source's micro-batches (the reader's methods, as Spark calls them) -------------------------
def stream_reader(base, **options):
    pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
    from hudi_log.spark.source import HudiDataSource

    ds = HudiDataSource({"path": str(base), **options})
    return ds.streamReader(ds.schema())


def batch(r, start, end) -> list[tuple]:
    out = []
    for p in r.partitions(start, end):
        for b in r.read(p):
            out += [(x["id"], x["val"], x["_hoodie_commit_time"]) for x in b.to_pylist()]
    return sorted(out)


@pytest.mark.parametrize("version", [6, 8])
def test_stream_from_earliest_and_falling_behind_the_cleaner(tmp_path, version):
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows

    base = tmp_path / "t"
    commits = upserts(base, "MERGE_ON_READ", version)
    assert clean(base, retain_commits=1)
    r = stream_reader(base)
    start = r.initialOffset()
    end = r.latestOffset(start, ReadMaxRows(2))  # the first commit's rows only: its files are gone
    with pytest.raises(IncrementalCommitsGoneError) as e:
        r.partitions(start, end)
    assert e.value.commits == (commits[0].requested_time,)
    f = stream_reader(base, **{FALLBACK_OPTION: "true"})
    got, offset = [], start
    while True:
        nxt = f.latestOffset(offset, ReadMaxRows(2))
        if nxt == offset:
            break
        got += batch(f, offset, nxt)
        offset = nxt
    # every live key delivered at its latest version (k also at a retained older one, as it changed since), none twice
    assert set(rows(read_table(base))) <= set(got) and len(got) == len(set(got))
    assert {x[0] for x in got} == {"k", "n0", "n1", "n2", "n3"}
    # a stream that read the first two commits, then fell behind the cleaner
    t = tmp_path / "u"
    first = upserts(t, "MERGE_ON_READ", version, n=2)
    r = stream_reader(t)
    mid = r.latestOffset(r.initialOffset(), ReadAllAvailable())
    assert [x[0] for x in batch(r, r.initialOffset(), mid)] == ["k", "n0", "n1"]
    more = upserts(t, "MERGE_ON_READ", version, n=4, start=2)[len(first):]
    assert clean(t, retain_commits=1)
    end = r.latestOffset(mid, ReadMaxRows(2))
    with pytest.raises(IncrementalCommitsGoneError):
        r.partitions(mid, end)
    f = stream_reader(t, **{FALLBACK_OPTION.lower(): "true"})  # Spark may hand option names lower-cased
    end = f.latestOffset(mid, ReadAllAvailable())
    assert batch(f, mid, end) == expected(t, first + more, version, mid["offsetCommitTime"], end["offsetCommitTime"])


def test_on_an_object_store(s3):
    base = f"{s3.base}/t"
    commits = upserts(base, "COPY_ON_WRITE", 8)
    assert clean(base, retain_commits=1)
    end = commits[1].completion_time
    with pytest.raises(IncrementalCommitsGoneError) as e:
        read_table(base, query="incremental", begin="000", end=end)
    assert e.value.commits == (commits[0].requested_time, commits[1].requested_time)
    got = read_table(base, query="incremental", begin="000", end=end, fallback_full_table_scan=True)
    assert rows(got) == expected(base, commits, 8, "000", end) and len(got) == 2
