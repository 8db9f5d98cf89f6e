"""Every Hudi option README.md and docs/ name, walked through every entry point that writes: honoured, or
refused by name before anything is written (hudi_log.table.write.options, the one resolution they share).

The names are extracted from the docs, so a newly documented option is walked as soon as it is written down
(and fails here until hudi_log.table.write.options knows it). Package, CLI and the stream sink's driver and
commit are fast; the Spark writer's walk is the slow test at the end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.errors import HudiLogError
from hudi_log.table import read_table
from hudi_log.table.write.client import write_table
from hudi_log.table.write.options import (
    BOOL, ENUM, FILE, INT, NUMBER, OPTIONS, READ, REFUSED, STORED, OptionError, lookup, resolve,
)

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: an option's name in prose: not inside another word or path (``_hoodie.x``, ``.hoodie/...``); ``a/b`` alternatives
_NAME = re.compile(r"(?<![\w./])hoodie\.[A-Za-z0-9_.]*[A-Za-z0-9_](?:/[A-Za-z0-9_.]*[A-Za-z0-9_])*")
BASE = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ", "hoodie.datasource.write.partitionpath.field": "p"}
ROWS = [{"id": 1, "v": "a", "ts": 1, "p": "x"}, {"id": 2, "v": "b", "ts": 1, "p": "y"}]
BAD = {ENUM: "bogus", BOOL: "maybe", INT: "ten", NUMBER: "many", STORED: "x", REFUSED: "x"}


def documented_options() -> list[str]:
    """Every ``hoodie.*`` name in README.md and docs/*.md (``hoodie.keep.min/max.commits`` is two names)."""
    names: set[str] = set()
    for doc in DOCS:
        for m in _NAME.findall(doc.read_text(encoding="utf-8")):
            head, *alternatives = m.split("/")
            if not alternatives:
                names.add(m)
                continue
            tail = "." + alternatives[-1].split(".", 1)[1] if "." in alternatives[-1] else ""
            names.add(head + tail)
            names.update(head.rsplit(".", 1)[0] + "." + a.split(".", 1)[0] + tail for a in alternatives)
    return sorted(names)


DOCUMENTED = documented_options()
#: the documented names a write takes (the others are read options and file names)
WRITE_NAMES = [n for n in DOCUMENTED if lookup(n) is not None and lookup(n).kind not in (READ, FILE)]
REFUSABLE = [n for n in WRITE_NAMES if lookup(n).kind in BAD]


def _value(name: str) -> str:
    o = lookup(name)
    return o.sample if not o.prefix else "x"


def _options(name: str, value: str) -> dict:
    opts = {**BASE, name: value}
    if lookup(name) is lookup("hoodie.datasource.write.recordkey.field"):
        opts = {k: v for k, v in opts.items() if k != "hoodie.datasource.write.recordkey.field"} | {name: value}
    return opts


def test_the_docs_name_options_and_each_is_known():
    assert len(DOCUMENTED) > 60 and "hoodie.keep.max.commits" in DOCUMENTED
    unknown = [n for n in DOCUMENTED if lookup(n) is None]
    assert not unknown, f"documented but unknown to hudi_log.table.write.options: {unknown}"
    assert {lookup(n).kind for n in WRITE_NAMES} >= {ENUM, BOOL, INT, STORED, REFUSED}


def test_every_option_has_one_entry():
    names = [n.lower() for o in OPTIONS for n in o.names]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name", REFUSABLE)
def test_package_refuses_a_bad_value_by_name(tmp_path, name):
    with pytest.raises(HudiLogError, match=re.escape(name)) as e:
        write_table(str(tmp_path / "t"), pa.Table.from_pylist(ROWS), None, _options(name, BAD[lookup(name).kind]))
    if lookup(name).kind == ENUM:  # the values hudi-log takes are named
        assert lookup(name).choices[0] in str(e.value)
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("name", [n for n in WRITE_NAMES if lookup(n).kind not in (STORED, REFUSED)])
def test_package_honours_a_valid_value(tmp_path, name):
    path = str(tmp_path / "t")
    opts = _options(name, _value(name))
    write_table(path, pa.Table.from_pylist(ROWS), None, opts)
    assert len(read_table(path)) == 2
    o = lookup(name)
    assert o.canonical(resolve(opts)[o.name]) == o.canonical(_value(name))  # read under the name hudi-log's code reads


@pytest.mark.parametrize("name", REFUSABLE)
def test_cli_refuses_a_bad_value_by_name(tmp_path, name):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    args = ["write", str(tmp_path / "t"), "--input", str(inp)]
    for k, v in _options(name, BAD[lookup(name).kind]).items():
        args += ["-o", f"{k}={v}"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and name in r.output and "hudi-log: " in r.output, r.output
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("name", [n for n in WRITE_NAMES if lookup(n).kind not in (STORED, REFUSED)])
def test_cli_honours_a_valid_value(tmp_path, name):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    args = ["write", str(tmp_path / "t"), "--input", str(inp)]
    for k, v in _options(name, _value(name)).items():
        args += ["-o", f"{k}={v}"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert len(read_table(str(tmp_path / "t"))) == 2


@pytest.mark.parametrize("flag,option,value", [
    ("--operation", "hoodie.datasource.write.operation", "delete"),
    ("--record-key", "hoodie.datasource.write.recordkey.field", "v"),
    ("--record-key", "hoodie.table.recordkey.fields", "v"),
    ("--precombine", "hoodie.table.ordering.fields", "id"),
    ("--table-type", "hoodie.table.type", "COPY_ON_WRITE"),
    ("--partition-field", "hoodie.table.partition.fields", "v"),
    ("--table-version", "hoodie.write.table.version", "8"),
])
def test_cli_flag_and_option_disagreeing_is_an_error(tmp_path, flag, option, value):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    given = {"--operation": "upsert", "--record-key": "id", "--precombine": "ts", "--table-type": "MERGE_ON_READ",
             "--partition-field": "p", "--table-version": "6"}[flag]
    r = CliRunner().invoke(main, ["write", str(tmp_path / "t"), "--input", str(inp), flag, given,
                                  "-o", f"{option}={value}", "-o", "hoodie.table.name=t"])
    assert r.exit_code == 2 and "disagree" in r.output and flag in r.output and option in r.output, r.output
    assert not (tmp_path / "t").exists()
    # the same value both ways is one setting, not a disagreement
    r = CliRunner().invoke(main, ["write", str(tmp_path / "t"), "--input", str(inp), flag, given,
                                  "-o", f"{option}={given}", "-o", "hoodie.table.name=t",
                                  "-o", "hoodie.datasource.write.recordkey.field=id"])
    assert r.exit_code == 0, r.output


def test_aliases_of_one_setting_resolve_alike_and_disagreeing_ones_are_refused(tmp_path):
    for o in OPTIONS:
        if len(o.names) < 2 or o.kind in (STORED, REFUSED, READ, FILE) or o.sample is None:
            continue
        for alias in o.names[1:]:
            assert resolve({alias: o.sample})[o.name] == o.sample, alias
            other = next((c for c in o.choices if o.canonical(c) != o.canonical(o.sample)), "other")
            with pytest.raises(OptionError, match="disagree"):
                resolve({o.name: o.sample, alias: other})
    # and Spark's lower-cased names are Hudi's again
    assert resolve({"hoodie.datasource.streaming.startoffset": "earliest"}) == {
        "hoodie.datasource.streaming.startOffset": "earliest"}


def test_hudi_1x_names_create_the_table_as_the_0x_names_do(tmp_path):
    opts = {"hoodie.table.name": "t", "hoodie.table.recordkey.fields": "id", "hoodie.table.type": "MOR",
            "hoodie.table.partition.fields": "p", "hoodie.table.ordering.fields": "ts"}
    write_table(str(tmp_path / "t"), pa.Table.from_pylist(ROWS + [{"id": 1, "v": "old", "ts": 0, "p": "x"}]),
                None, opts)
    props = (tmp_path / "t" / ".hoodie" / "hoodie.properties").read_text()
    for line in ("hoodie.table.type=MERGE_ON_READ", "hoodie.table.recordkey.fields=id",
                 "hoodie.table.partition.fields=p", "hoodie.table.precombine.field=ts"):
        assert line in props
    t = read_table(str(tmp_path / "t"))
    assert sorted(zip(t.column("id").to_pylist(), t.column("v").to_pylist())) == [(1, "a"), (2, "b")]


# ---- the stream sink: its driver (the query's start) and its micro-batch commit ------------------------
@pytest.mark.parametrize("name", REFUSABLE)
def test_stream_sink_refuses_a_bad_value_when_the_query_starts(tmp_path, name):
    from hudi_log.spark.stream_sink import HudiStreamWriter

    with pytest.raises(HudiLogError, match=re.escape(name)):
        HudiStreamWriter({"path": str(tmp_path / "t"), **_options(name, BAD[lookup(name).kind])}, None, False)
    assert not (tmp_path / "t").exists()


def test_stream_sink_commit_honours_the_options(tmp_path):
    from hudi_log.spark.stream_sink import commit_micro_batch

    path = str(tmp_path / "t")
    lower = {k.lower(): v for k, v in {**BASE, "hoodie.table.ordering.fields": "ts"}.items()}  # as Spark hands them
    commit_micro_batch(path, {"path": path, **lower}, pa.Table.from_pylist(ROWS), 0, "q")
    commit_micro_batch(path, {"path": path, **lower, "hoodie.datasource.write.operation": "DELETE"},
                       pa.Table.from_pylist(ROWS[:1]), 1, "q")
    assert read_table(path).column("id").to_pylist() == [2]
    assert "hoodie.table.precombine.field=ts" in (tmp_path / "t" / ".hoodie" / "hoodie.properties").read_text()


# ---- Spark ------------------------------------------------------------------------------------------
def _all_valid() -> dict:
    """Every documented write option at its valid value, at once (they are compatible)."""
    opts = dict(BASE)
    for n in WRITE_NAMES:
        if lookup(n).kind not in (STORED, REFUSED):
            opts[n] = _value(n)
    return opts


def test_every_valid_value_at_once_is_one_write(tmp_path):
    write_table(str(tmp_path / "t"), pa.Table.from_pylist(ROWS), None, _all_valid())
    assert len(read_table(str(tmp_path / "t"))) == 2


@pytest.mark.parametrize("name", REFUSABLE)
def test_spark_data_source_writer_refuses_a_bad_value_by_name(tmp_path, name):
    """``df.write.format("hudi_log")``'s writer, built as Spark builds it (``DataSource.writer``, in a Python
    worker before any task) but without Spark's hand-over: every refusable option, fast. The Spark test below
    goes through real Spark for one option of each kind."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    from hudi_log.spark.sink import HudiWriter

    schema = StructType([StructField("id", LongType()), StructField("v", StringType()),
                         StructField("ts", LongType()), StructField("p", StringType())])
    with pytest.raises(HudiLogError, match=re.escape(name)):
        HudiWriter({"path": str(tmp_path / "t"), **_options(name, BAD[lookup(name).kind])}, schema, False)
    assert not (tmp_path / "t").exists()


def _one_per_kind() -> list[str]:
    """One refusable option of each kind (enumerated, boolean, integer, number, ...)."""
    return list({lookup(n).kind: n for n in reversed(REFUSABLE)}.values())


@pytest.mark.slow
def test_spark_writers_and_stream_sink_refuse_bad_values_by_name_and_honour_good_ones(tmp_path):
    from hudi_log.spark import spark_session, write

    spark = spark_session()
    df = spark.createDataFrame(ROWS)
    for name in REFUSABLE:  # hudi_log.spark.write refuses on the driver, before any Spark job: every option
        path = str(tmp_path / f"write-{name}")
        with pytest.raises(Exception) as e:
            write(df, path, _options(name, BAD[lookup(name).kind]))
        assert name in str(e.value), (name, str(e.value)[-500:])
        assert not Path(path).exists()
    for name in _one_per_kind():  # through Spark's Python data source hand-over: one option of each kind
        path = str(tmp_path / f"df-write-{name}")
        with pytest.raises(Exception) as e:
            df.write.format("hudi_log").options(**_options(name, BAD[lookup(name).kind])).mode("append").save(path)
        assert name in str(e.value), (name, str(e.value)[-500:])
        assert not Path(path).exists()
    write(df, str(tmp_path / "ok-1"), _all_valid())
    df.write.format("hudi_log").options(**_all_valid()).mode("append").save(str(tmp_path / "ok-2"))
    for ok in ("ok-1", "ok-2"):
        assert len(read_table(str(tmp_path / ok))) == 2
    # the stream sink in a running query: refused when it starts, honoured in its micro-batches
    src = tmp_path / "in"
    src.mkdir()
    (src / "rows.json").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    stream = spark.readStream.schema(df.schema).json(str(src))
    for path, opts in (("bad", {**_all_valid(), "hoodie.index.type": "BOGUS"}), ("good", _all_valid())):
        def run():
            q = (stream.writeStream.format("hudi_log").options(**opts)
                 .option("checkpointLocation", str(tmp_path / f"cp-{path}")).trigger(availableNow=True)
                 .start(str(tmp_path / path)))
            q.awaitTermination()
        if path == "bad":
            with pytest.raises(Exception, match="hoodie.index.type"):
                run()
            assert not (tmp_path / "bad" / ".hoodie").exists()
        else:
            run()
            assert len(read_table(str(tmp_path / "good"))) == 2


# ---- the table services: package functions and `hudi-log` service commands ------------------------------
from hudi_log.table.services.options import SERVICE_OPTIONS  # noqa: E402

INSTANT = "20200101000000000"  # a well-formed instant: the options are refused before it is looked up


def _services():
    """(name, package call (path, options), CLI arguments (path)) of every entry point running a table
    service or an operator's change."""
    from hudi_log.table.admin import delete_instant_markers, update_table_configs
    from hudi_log.table.services.archive import archive
    from hudi_log.table.services.clean import clean
    from hudi_log.table.services.clustering import cluster, schedule_clustering
    from hudi_log.table.services.commit_rollback import rollback_completed
    from hudi_log.table.services.compaction import compact_all, run_compaction, schedule_compaction
    from hudi_log.table.services.compaction_admin import repair_compaction, unschedule_compaction
    from hudi_log.table.services.dedupe import deduplicate
    from hudi_log.table.services.rollback import rollback
    from hudi_log.table.services.savepoint import create_savepoint, delete_savepoint, restore
    from hudi_log.table.write.upgrade import change_table_version
    return [
        ("clean", lambda p, o: clean(p, options=o), lambda p: ["clean", p]),
        ("compact", compact_all, lambda p: ["compact", p]),
        ("compact --schedule-only", schedule_compaction, lambda p: ["compact", p, "--schedule-only"]),
        ("compact --instant", lambda p, o: run_compaction(p, INSTANT, o), lambda p: ["compact", p, "--instant", INSTANT]),
        ("cluster", cluster, lambda p: ["cluster", p]),
        ("cluster --schedule-only", schedule_clustering, lambda p: ["cluster", p, "--schedule-only"]),
        ("archive", archive, lambda p: ["archive", p]),
        ("rollback", lambda p, o: rollback(p, INSTANT, options=o), lambda p: ["rollback", p, INSTANT]),
        ("commit rollback", lambda p, o: rollback_completed(p, INSTANT, options=o),
         lambda p: ["commit", "rollback", p, INSTANT]),
        ("savepoint create", lambda p, o: create_savepoint(p, INSTANT, options=o),
         lambda p: ["savepoint", "create", p, INSTANT]),
        ("savepoint delete", lambda p, o: delete_savepoint(p, INSTANT, o), lambda p: ["savepoint", "delete", p, INSTANT]),
        ("savepoint restore", lambda p, o: restore(p, INSTANT, o), lambda p: ["savepoint", "restore", p, INSTANT]),
        ("compaction unschedule", lambda p, o: unschedule_compaction(p, INSTANT, o),
         lambda p: ["compaction", "unschedule", p, INSTANT]),
        ("compaction repair", lambda p, o: repair_compaction(p, INSTANT, False, o),
         lambda p: ["compaction", "repair", p, INSTANT, "--no-dry-run"]),
        ("repair deduplicate", lambda p, o: deduplicate(p, "x", dry_run=False, options=o),
         lambda p: ["repair", "deduplicate", p, "--partition", "x", "--no-dry-run"]),
        ("table update-configs", lambda p, o: update_table_configs(p, {"hoodie.table.name": "t"}, options=o),
         lambda p: ["table", "update-configs", p, "--set", "hoodie.table.name=t"]),
        ("table delete-configs", lambda p, o: update_table_configs(p, {}, deletes=["x.y"], options=o),
         lambda p: ["table", "delete-configs", p, "x.y"]),
        ("marker delete", lambda p, o: delete_instant_markers(p, INSTANT, o), lambda p: ["marker", "delete", p, INSTANT]),
        ("table upgrade", lambda p, o: change_table_version(p, 9, o), lambda p: ["table", "upgrade", p, "--to", "9"]),
        ("table downgrade", lambda p, o: change_table_version(p, 6, o), lambda p: ["table", "downgrade", p, "--to", "6"]),
    ]


SERVICE_NAMES = [s[0] for s in _services()]
#: every service option with a value the resolution refuses
SERVICE_REFUSABLE = [o.name for o in SERVICE_OPTIONS if o.kind in BAD]


@pytest.fixture(scope="module")
def service_table(tmp_path_factory):
    """A MERGE_ON_READ table of two writes; the refusals below must leave it as it is."""
    path = str(tmp_path_factory.mktemp("services") / "t")
    write_table(path, pa.Table.from_pylist(ROWS), None, BASE)
    write_table(path, pa.Table.from_pylist(ROWS[:1]), None, BASE)
    return path


def _files(path) -> dict:
    return {str(p): p.read_bytes() if p.is_file() else None for p in sorted(Path(path).rglob("*"))}


@pytest.mark.parametrize("service", SERVICE_NAMES)
def test_every_service_entry_point_refuses_bad_values_by_name(service_table, service):
    """Every service option's malformed or unknown value, and a 1.x name disagreeing with its 0.x alias,
    refused by the package function and by its `hudi-log` command alike, before anything changed."""
    assert len(SERVICE_REFUSABLE) > 40
    _, call, cli = next(s for s in _services() if s[0] == service)
    before = _files(service_table)
    for name in SERVICE_REFUSABLE:
        o = lookup(name)
        bad = BAD[o.kind]
        with pytest.raises(HudiLogError, match=re.escape(name)) as e:
            call(service_table, {name: bad})
        if o.kind == ENUM:
            assert o.choices[0] in str(e.value)
        r = CliRunner().invoke(main, [*cli(service_table), "-o", f"{name}={bad}"])
        assert r.exit_code == 2 and f"hudi-log: {service_table}" in r.output and name in r.output, (name, r.output)
        assert str(e.value) in r.output, (str(e.value), r.output)  # the same words
    policies = {"hoodie.cleaner.policy.failed.writes": "EAGER", "hoodie.clean.failed.writes.policy": "NEVER"}
    with pytest.raises(HudiLogError, match="disagree"):
        call(service_table, policies)
    r = CliRunner().invoke(main, [*cli(service_table), *(a for k, v in policies.items() for a in ("-o", f"{k}={v}"))])
    assert r.exit_code == 2 and "disagree" in r.output and all(k in r.output for k in policies), r.output
    assert _files(service_table) == before


def test_clean_refuses_an_unknown_policy_and_a_flag_disagreeing_with_its_option(service_table):
    from hudi_log.table.services.clean import clean

    before = _files(service_table)
    for call in (lambda o: clean(service_table, options=o),
                 lambda o: _cli(["clean", service_table, *(a for k, v in o.items() for a in ("-o", f"{k}={v}"))])):
        with pytest.raises(HudiLogError, match=r"hoodie\.cleaner\.policy=bogus .*KEEP_LATEST_FILE_VERSIONS"):
            call({"hoodie.cleaner.policy": "bogus"})
    with pytest.raises(HudiLogError, match=r"retain_commits '3' and hoodie\.cleaner\.commits\.retained='5' disagree"):
        clean(service_table, 3, {"hoodie.cleaner.commits.retained": "5"})
    for args, words in (
            (["--retain-commits", "3", "-o", "hoodie.cleaner.commits.retained=5"],
             "--retain-commits '3' and hoodie.cleaner.commits.retained='5' disagree"),
            (["--policy", "KEEP_LATEST_BY_HOURS", "-o", "hoodie.cleaner.policy=KEEP_LATEST_COMMITS"],
             "--policy 'KEEP_LATEST_BY_HOURS' and hoodie.cleaner.policy='KEEP_LATEST_COMMITS' disagree"),
            (["--retain-versions", "2", "-o", "hoodie.cleaner.policy=KEEP_LATEST_COMMITS"], "--retain-versions (its policy)"),
            (["-o", "hoodie.cleaner.fileversions.retained=two", "-o", "hoodie.cleaner.policy=KEEP_LATEST_FILE_VERSIONS"],
             "hoodie.cleaner.fileversions.retained='two' is not an integer")):
        r = CliRunner().invoke(main, ["clean", service_table, *args])
        assert r.exit_code == 2 and words in r.output, r.output
    assert _files(service_table) == before
    # the same value both ways is one setting
    r = CliRunner().invoke(main, ["clean", service_table, "--retain-commits", "5", "-o",
                                  "hoodie.cleaner.commits.retained=5", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["retained"] == 5, r.output


def _cli(args):
    r = CliRunner().invoke(main, args)
    if r.exit_code:
        raise HudiLogError(r.output)
    return r


def test_compaction_refuses_a_malformed_trigger_and_honours_a_good_one(service_table):
    from hudi_log.table.services.compaction import schedule_compaction

    before = _files(service_table)
    with pytest.raises(HudiLogError, match=r"hoodie\.compact\.inline\.max\.delta\.commits='x' is not an integer"):
        schedule_compaction(service_table, {"hoodie.compact.inline.max.delta.commits": "x"})
    r = CliRunner().invoke(main, ["compact", service_table, "-o", "hoodie.compact.inline.max.delta.commits=x"])
    assert r.exit_code == 2 and "hoodie.compact.inline.max.delta.commits='x' is not an integer" in r.output
    # two delta commits, five needed: nothing is scheduled (a lower-cased name, as Spark hands it, read alike)
    assert schedule_compaction(service_table, {"HOODIE.COMPACT.INLINE.MAX.DELTA.COMMITS": "5"}) is None
    assert _files(service_table) == before


def test_clean_honours_the_policy_given_as_options(tmp_path):
    """`clean(path, options=...)` cleans by the options' policy (it used to fall back to the default)."""
    from hudi_log.table.services.clean import clean

    path = str(tmp_path / "t")
    for _ in range(3):
        write_table(path, pa.Table.from_pylist(ROWS), None, {**BASE, "hoodie.datasource.write.table.type": "COPY_ON_WRITE"})
    files = lambda: sorted(p.name for p in (tmp_path / "t" / "x").glob("*.parquet"))  # noqa: E731
    assert len(files()) == 3
    # KEEP_LATEST_COMMITS with the default 10 retained would delete nothing
    opts = {"hoodie.cleaner.policy": "keep_latest_file_versions", "hoodie.cleaner.fileversions.retained": "1"}
    instant = clean(path, options=opts)
    assert instant is not None and len(files()) == 1
    assert sorted(read_table(path).column("id").to_pylist()) == [1, 2]


def test_table_upgrade_refuses_a_table_version_option_naming_another_version(service_table):
    before = _files(service_table)
    r = CliRunner().invoke(main, ["table", "upgrade", service_table, "--to", "8", "-o", "hoodie.write.table.version=9"])
    assert r.exit_code == 2 and "--to '8' and hoodie.write.table.version='9' disagree" in r.output, r.output
    from hudi_log.table.write.upgrade import change_table_version
    with pytest.raises(HudiLogError, match="to '8' and hoodie.table.version='9' disagree"):
        change_table_version(service_table, 8, {"hoodie.table.version": "9"})
    assert _files(service_table) == before
