"""Tables on an object store (issue 19): the package, the table services and the CLI against a real
S3-compatible server on localhost (moto's standalone server, the ``s3`` fixture in conftest.py).

What an object store changes, each checked here: no append (every log write is a new object), no
rename (no temporary objects, ever), completed timeline files never overwritten, listing by prefix, and
a writer killed with SIGKILL rolled back by the next write. The requests each operation makes are
counted on the server's side.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log import open_log
from hudi_log.cli import main
from hudi_log.paths import RemotePath, UnsupportedSchemeError, as_path, create_new
from hudi_log.table import read_table
from hudi_log.table.properties import read_properties
from hudi_log.table.services.clean import clean
from hudi_log.table.services.compaction import compact
from hudi_log.table.timeline.timeline import Timeline
from hudi_log.table.timeline.writer import TimelineWriteError, TimelineWriter
from hudi_log.table.view.file_system_view import parse_log_file_name
from hudi_log.table.write.client import write_table

REPO = Path(__file__).resolve().parent.parent
#: a killed writer's heartbeat expires after 3 x 1 s (S3 keeps modification times to the second)
HEARTBEAT = {"hoodie.client.heartbeat.interval_in_ms": "1000", "hoodie.client.heartbeat.tolerable.misses": "3"}


def opts(table_type: str, version: int = 8, **extra) -> dict:
    return {"hoodie.table.name": "lake", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
            "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version),
            **HEARTBEAT, **extra}


def batch(ids, tag: str, ts: int) -> pa.Table:
    return pa.table({"id": [f"k{i:03d}" for i in ids], "val": [f"{tag}{i}" for i in ids], "ts": [ts] * len(ids),
                     "part": [f"p{i % 2}" for i in ids]})


def state(t: pa.Table) -> dict:
    return dict(zip(t["id"].to_pylist(), t["val"].to_pylist()))


def keys(s3, prefix: str = "") -> list[str]:
    """Every object key in the test's bucket (through a plain client, not the code under test)."""
    import pyarrow.fs as pafs

    bucket = s3.base.removeprefix("s3://")
    infos = s3.filesystem().get_file_info(pafs.FileSelector(f"{bucket}/{prefix}".rstrip("/"), recursive=True,
                                                            allow_not_found=True))
    return sorted(i.path.removeprefix(bucket + "/") for i in infos if i.type == pafs.FileType.File)


@pytest.mark.parametrize("table_type,version", [("MERGE_ON_READ", 6), ("MERGE_ON_READ", 8),
                                                ("COPY_ON_WRITE", 8)])
def test_write_read_round_trip(s3, table_type, version):
    path = f"{s3.base}/t"
    o = opts(table_type, version)
    write_table(path, batch(range(10), "a", 1), "insert", o)
    write_table(path, batch(range(0, 10, 2), "b", 2), "upsert", o)
    write_table(path, batch(range(1, 10, 3), "", 3), "delete", o)
    model = {f"k{i:03d}": (f"b{i}" if i % 2 == 0 else f"a{i}") for i in range(10) if i % 3 != 1}
    assert state(read_table(path)) == model
    assert read_properties(path).name == "lake"
    stored = keys(s3)
    # no rename anywhere: nothing was ever written aside (temp objects would remain listed until deleted,
    # and a rename on S3 is a copy + delete, which these names would show)
    assert not [k for k in stored if k.endswith(".tmp") or "/.tmp" in k], stored
    completed = [i for i in Timeline(path, read_properties(path)).instants if i.is_completed]
    assert len(completed) == 3
    if table_type == "MERGE_ON_READ":
        logs = [parse_log_file_name(as_path(f"{s3.base}/{k}")) for k in stored if ".log." in k]
        assert logs and all(lf is not None for lf in logs)
        if version == 6:  # v6 names logs after the base instant: a second write rolls over to version 2
            assert max(lf.version for lf in logs) >= 2
        # never appended: every log object holds the blocks of one instant only
        for lf in logs:
            assert len({b.instant_time for b in open_log(str(lf.path)) if not b.corrupt}) == 1


def test_compaction_and_clean(s3):
    path = f"{s3.base}/t"
    o = opts("MERGE_ON_READ")
    for n, tag in enumerate("abcd"):
        write_table(path, batch(range(8), tag, n + 1), "upsert", o)
    before = state(read_table(path))
    res = compact(path, o)
    assert res is not None and res.write_stats
    assert state(read_table(path)) == before
    assert state(read_table(path, query="read_optimized")) == before  # base files hold everything now
    write_table(path, batch(range(4), "e", 9), "upsert", o)
    stored_before = set(keys(s3))
    instant = clean(path, retain_commits=1, options=o)
    assert instant is not None
    gone = stored_before - set(keys(s3))
    assert gone and all(".hoodie" not in k for k in gone)  # old slices deleted, the timeline kept
    assert state(read_table(path)) == {**before, **{f"k{i:03d}": f"e{i}" for i in range(4)}}


def test_completed_instants_are_never_overwritten(s3):
    path = f"{s3.base}/t"
    write_table(path, batch(range(3), "a", 1), "insert", opts("COPY_ON_WRITE"))
    props = read_properties(path)
    done = next(i for i in Timeline(path, props).instants if i.is_completed)
    tw = TimelineWriter(path, props)
    with pytest.raises(TimelineWriteError):
        tw.complete(done.action, done.requested_time, b"{}")
    target = done.path
    assert isinstance(target, RemotePath) and target.name == done.file_name
    with pytest.raises(FileExistsError):
        create_new(target, b"{}")
    assert target.read_bytes() != b"{}"


def test_unknown_scheme_is_a_typed_error():
    with pytest.raises(UnsupportedSchemeError, match="'ftp'"):
        read_table("ftp://host/table")


def test_options_instead_of_environment(s3, monkeypatch):
    """The Hadoop S3A option names reach the store without any AWS_* variable (the CLI's --option)."""
    path = f"{s3.base}/t"
    write_table(path, batch(range(4), "a", 1), "insert", opts("MERGE_ON_READ"))
    for k in s3.env():
        monkeypatch.delenv(k)
    storage = [a for k, v in s3.options().items() for a in ("--option", f"{k}={v}")]
    res = CliRunner().invoke(main, [*storage, "read", path, "--format", "jsonl"])
    assert res.exit_code == 0, res.output
    assert {json.loads(line)["id"] for line in res.output.splitlines()} == {f"k{i:03d}" for i in range(4)}


def test_cli_validate_and_salvage_in_the_bucket(s3):
    path = f"{s3.base}/t"
    o = opts("MERGE_ON_READ")
    write_table(path, batch(range(6), "a", 1), "insert", o)
    write_table(path, batch(range(6), "b", 2), "upsert", o)
    log_key = next(k for k in keys(s3) if ".log." in k)
    log_uri = f"{s3.base}/{log_key}"
    good = as_path(log_uri).read_bytes()
    blocks = [b for b in open_log(good)]
    assert blocks and not any(b.corrupt for b in blocks)
    # damage: a second copy of the file whose last block's size field is cut short, then garbage
    damaged_uri = log_uri.rsplit("/", 1)[0] + "/damaged.log"
    as_path(damaged_uri).write_bytes(good + good[: blocks[-1].offset + 20] + b"\xff" * 50)
    runner = CliRunner()
    res = runner.invoke(main, ["validate", "--json", log_uri, damaged_uri])
    assert res.exit_code == 1, res.output
    files = {f["path"]: f for f in json.loads(res.output)["files"]}
    assert not files[log_uri]["damage"] and files[damaged_uri]["damage"]
    salvaged_uri = log_uri.rsplit("/", 1)[0] + "/salvaged.log"
    res = runner.invoke(main, ["salvage", damaged_uri, "-o", salvaged_uri])
    assert res.exit_code == 0, res.output
    salvaged = [b for b in open_log(salvaged_uri)]
    assert salvaged and not any(b.corrupt for b in salvaged)
    assert len(salvaged) == files[damaged_uri]["intact"]
    assert runner.invoke(main, ["validate", salvaged_uri]).exit_code == 0
    # the table commands on the bucket
    res = runner.invoke(main, ["table", path])
    assert res.exit_code == 0 and "lake" in res.output, res.output
    res = runner.invoke(main, ["compact", path, "--json", *[a for k, v in o.items() if k.startswith("hoodie.client")
                                                             for a in ("--option", f"{k}={v}")]])
    assert res.exit_code == 0 and json.loads(res.output)["instant"], res.output


def test_reads_only_read_and_list_by_prefix(s3):
    path = f"{s3.base}/t"
    # no metadata table: the requests of a read listing storage are counted here (with one, the read lists the
    # metadata table's timeline and files partition instead: the reader's part)
    o = opts("MERGE_ON_READ", **{"hoodie.metadata.enable": "false"})
    for n in range(3):
        write_table(path, batch(range(8), f"v{n}", n + 1), "upsert", o)
    with s3.counting() as n:
        read_table(path)
    assert n["GET"] > 0 and n["LIST"] > 0
    assert n["PUT"] == 0 and n["DELETE"] == 0  # a read never writes
    # listing is by prefix: the timeline and each partition are listed, never the whole bucket per file
    assert n["LIST"] <= 8, dict(n)
    with s3.counting() as w:
        write_table(path, batch(range(2), "w", 9), "upsert", o)
    assert w["PUT"] > 0


WORKER = r"""
import json, sys, time
import pyarrow as pa
from hudi_log.table.write.client import write_table
from hudi_log.table.timeline.writer import TimelineWriter
job = json.loads(sys.argv[1])
def held(self, *a, **k):  # every data file written, the instant not completed: then the kill comes
    print("holding", flush=True)
    time.sleep(600)
TimelineWriter.complete = held
t = pa.table({k: v for k, v in job["rows"].items()})
write_table(job["path"], t, "upsert", job["options"])
"""


def test_kill_9_mid_write_then_rollback_on_next_write(s3):
    path = f"{s3.base}/t"
    o = opts("MERGE_ON_READ")
    write_table(path, batch(range(10), "a", 1), "insert", o)
    model = state(read_table(path))
    rows = batch(range(0, 20, 2), "dead", 5).to_pydict()
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.Popen([sys.executable, "-c", WORKER, json.dumps({"path": path, "rows": rows, "options": o})],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline()
        assert line.strip() == "holding", p.stderr.read()
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    props = read_properties(path)
    failed = [i for i in Timeline(path, props).instants if not i.is_completed]
    assert len(failed) == 1
    dead = failed[0].requested_time
    assert any(dead in k for k in keys(s3) if ".log." in k or k.endswith(".parquet"))  # its files are there
    assert state(read_table(path)) == model  # and invisible
    time.sleep(int(HEARTBEAT["hoodie.client.heartbeat.interval_in_ms"]) / 1000
               * int(HEARTBEAT["hoodie.client.heartbeat.tolerable.misses"]) + 1.5)
    write_table(path, batch([3, 30], "c", 6), "upsert", o)
    tl = Timeline(path, read_properties(path))
    assert any(i.action == "rollback" and i.is_completed for i in tl.instants)
    assert not [i for i in tl.instants if not i.is_completed]
    assert not [k for k in keys(s3) if dead in k and ".hoodie/" not in k and ".log." not in k]
    assert state(read_table(path)) == {**model, "k003": "c3", "k030": "c30"}


@pytest.mark.parametrize("name", ["quickstart_trips_table_mor_avro_v6_trips_8i1u",
                                  "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"])
def test_java_written_table_read_from_the_bucket(s3, corpus_tables, name):
    """A table Java Hudi wrote, uploaded as is, reads the same from the bucket as from local disk."""
    root = corpus_tables[name]
    fs, bucket = s3.filesystem(), s3.base.removeprefix("s3://")
    for f in root.rglob("*"):
        if f.is_file():
            with fs.open_output_stream(f"{bucket}/t/{f.relative_to(root).as_posix()}") as out:
                out.write(f.read_bytes())
    local, remote = read_table(str(root)), read_table(f"{s3.base}/t")
    assert local.num_rows > 0
    key = lambda t: sorted(map(str, t.to_pylist()))  # noqa: E731
    assert key(remote) == key(local)


def test_timeline_services_in_the_bucket(s3):
    """Archival (v6; on COPY_ON_WRITE, which no compaction holds back), savepoint and restore, and the CLI's timeline commands on an s3:// table."""
    from hudi_log.table.services.archive import read_archive
    from hudi_log.table.services.savepoint import create_savepoint, list_savepoints, restore

    path = f"{s3.base}/t"
    # no metadata table: archival stops at its latest compaction (Java's rule), helper mdtsvc's part
    o = opts("COPY_ON_WRITE", 6, **{"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3",
                                    "hoodie.metadata.enable": "false"})
    instants, states = [], []
    for n in range(5):  # the write after the 4th commit archives the timeline automatically
        instants.append(write_table(path, batch(range(n % 3, 6), f"v{n}", n + 1), "upsert", o).instant)
        states.append(state(read_table(path)))
    archived = read_archive(path)
    assert archived and {a.commit_time for a in archived} < set(instants)
    assert any(k.startswith("t/.hoodie/archived/.commits_.archive.") for k in keys(s3))
    create_savepoint(path, instants[-1], user="ops")
    assert [s.instant for s in list_savepoints(Timeline(path, read_properties(path)))] == [instants[-1]]
    write_table(path, batch(range(6), "late", 9), "upsert", o)
    assert restore(path, instants[-1], o).action == "restore"
    assert state(read_table(path)) == states[-1]
    runner = CliRunner()
    for args in (["savepoints", "show", "--json", path], ["archived", "show", "--json", path],
                 ["commits", "show", "--json", path]):
        res = runner.invoke(main, args)
        assert res.exit_code == 0, (args, res.output)
        assert json.loads(res.output), args


def test_integrity_validate_and_diff_in_the_bucket(s3):
    """A committed log object deleted from the bucket: a read warns (or, strict, refuses), ``validate
    --table`` reports it; ``diff`` compares two log objects."""
    from hudi_log.table.errors import IntegrityError
    from hudi_log.table.read.integrity import IntegrityWarning

    path = f"{s3.base}/t"
    o = opts("MERGE_ON_READ")
    write_table(path, batch(range(6), "a", 1), "insert", o)
    write_table(path, batch(range(6), "b", 2), "upsert", o)
    runner = CliRunner()
    res = runner.invoke(main, ["validate", "--table", path, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["log_files"] >= 1
    logs = sorted(k for k in keys(s3) if ".log." in k and "/.hoodie/" not in k)  # the data table's, not its metadata table's
    res = runner.invoke(main, ["diff", f"{s3.base}/{logs[0]}", f"{s3.base}/{logs[0]}"])
    assert res.exit_code == 0, res.output
    if len(logs) > 1:
        assert runner.invoke(main, ["diff", f"{s3.base}/{logs[0]}", f"{s3.base}/{logs[1]}"]).exit_code == 1
    as_path(f"{s3.base}/{logs[0]}").unlink()
    with pytest.warns(IntegrityWarning, match="missing"):
        read_table(path)
    with pytest.raises(IntegrityError, match=logs[0].rsplit("/", 1)[-1]):
        read_table(path, strict=True)
    res = runner.invoke(main, ["validate", "--table", path])
    assert res.exit_code == 1 and "missing" in res.output.lower(), res.output
    res = runner.invoke(main, ["read", path, "--strict", "--format", "jsonl"])
    assert res.exit_code == 3, res.output


def test_clustering_in_the_bucket(s3):
    from hudi_log.table.services.clustering import cluster

    path = f"{s3.base}/t"
    o = opts("COPY_ON_WRITE")
    for n in range(4):  # four small commits, new keys each: several small base files per partition
        write_table(path, batch(range(n * 4, n * 4 + 4), "v", n + 1), "insert", o)
    before = state(read_table(path))
    done = cluster(path, o)
    assert done, "nothing was clustered"
    assert state(read_table(path)) == before
    tl = Timeline(as_path(path), read_properties(path))
    assert any(i.action == "replacecommit" and i.is_completed for i in tl.instants)
    assert not [k for k in keys(s3) if ".tmp" in k]  # no rename: no temporary objects


def test_version_8_archival_into_the_lsm_history_in_the_bucket(s3):
    """Version 8 archives into ``.hoodie/timeline/history`` (Parquet files, manifest, _version_): each a whole
    object, no temporary objects; reads at every instant unchanged."""
    from hudi_log.table.services.archive import read_archive

    path = f"{s3.base}/t"
    # no metadata table: archival stops at its latest compaction (Java's rule), helper mdtsvc's part
    o = opts("COPY_ON_WRITE", 8, **{"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3",
                                    "hoodie.cleaner.commits.retained": "1", "hoodie.metadata.enable": "false"})
    instants, states = [], []
    for n in range(6):
        instants.append(write_table(path, batch(range(n % 3, 6), f"v{n}", n + 1), "upsert", o).instant)
        states.append(state(read_table(path)))
    archived = {a.commit_time for a in read_archive(path)}
    assert archived and archived < set(instants)
    stored = keys(s3, "t/.hoodie/timeline/history")
    assert any(k.endswith(".parquet") for k in stored) and any(k.endswith("_version_") for k in stored), stored
    assert not [k for k in keys(s3) if k.endswith(".tmp")]
    for k, inst in enumerate(instants):
        assert state(read_table(path, as_of=inst)) == states[k], k


def test_cdc_on_s3(s3):
    """A CDC table in the bucket: a COW merge writes its .cdc object (a new object, never appended), and the
    CDC query reads it back, with the inferred inserts."""
    from hudi_log.table.read.cdc import read_cdc

    path = f"{s3.base}/t"
    o = opts("COPY_ON_WRITE", **{"hoodie.table.cdc.enabled": "true"})
    write_table(path, batch(range(4), "a", 1), "insert", o)
    write_table(path, batch([0, 2], "b", 2), "upsert", o)
    write_table(path, batch([1], "", 3), "delete", o)
    assert [k for k in keys(s3) if k.endswith(".cdc")]
    got = sorted((r["op"], json.loads(r["after"] or r["before"])["id"]) for r in read_cdc(path, "0").to_pylist())
    assert got == [("d", "k001"), ("i", "k000"), ("i", "k001"), ("i", "k002"), ("i", "k003"),
                   ("u", "k000"), ("u", "k002")]
