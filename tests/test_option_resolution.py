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


@pytest.mark.slow
def test_spark_writers_and_stream_sink_refuse_bad_values_by_name_and_honour_good_ones(tmp_path):
    from hudi_log.spark import spark_session, write

    spark = spark_session()
    df = spark.createDataFrame(ROWS)
    for name in REFUSABLE:
        opts = _options(name, BAD[lookup(name).kind])
        for how in ("df.write", "hudi_log.spark.write"):
            path = str(tmp_path / f"{how}-{name}")
            with pytest.raises(Exception) as e:
                if how == "df.write":
                    df.write.format("hudi_log").options(**opts).mode("append").save(path)
                else:
                    write(df, path, opts)
            assert name in str(e.value), (how, name, str(e.value)[-500:])
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
