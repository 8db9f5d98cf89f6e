"""Change data capture (issue 18, item 3): ``hoodie.table.cdc.enabled`` tables, the ``.cdc`` log files a
COPY_ON_WRITE merge writes (as Java's ``HoodieMergeHandleWithChangeLog``), and CDC queries (Java's
``HoodieCDCExtractor`` cases) through the package and the CLI. Java's own Avro decodes the CDC blocks and
prints their images as Hudi's reader does (``GenericData.toString``)."""

from __future__ import annotations

import json
import re

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log import open_log
from hudi_log.cli import main as cli
from hudi_log.format.grammar import BlockType, HeaderKey
from hudi_log.table import HudiTable, read_properties
from hudi_log.table.cdc import MODES, cdc_schema
from hudi_log.table.write.create import TableOptionsError
from hudi_log.table.read.cdc import CdcQueryError, read_cdc
from hudi_log.table.services.compaction import compact
from hudi_log.table.timeline.commit_metadata import write_stats
from hudi_log.table.write.client import write_table

from hudi_rs_oracle import hudi_rs_rows
from test_java_checks import java_check  # noqa: F401  (the compiled Java check, a fixture)


def opts(table_type: str, mode: str | None = "DATA_BEFORE_AFTER", **more) -> dict:
    o = {"hoodie.table.name": "cdc", "hoodie.datasource.write.recordkey.field": "id",
         "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": table_type,
         "hoodie.table.cdc.enabled": "true", "hoodie.compact.inline": "false", "hoodie.clean.automatic": "false"}
    if mode is not None:
        o["hoodie.table.cdc.supplemental.logging.mode"] = mode
    o.update(more)
    return o


def rows(ids, ts, name) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "ts": pa.array([ts] * len(ids), pa.int64()),
                     "name": pa.array([f"{name}{i}" for i in ids])})


def data_of(image: str | None) -> dict | None:
    """The data fields of a JSON image (meta fields dropped)."""
    if image is None:
        return None
    return {k: v for k, v in json.loads(image).items() if not k.startswith("_hoodie_")}


def changes(path, begin="0", end=None) -> list[tuple]:
    out = [(r["op"], r["ts_ms"], data_of(r["before"]), data_of(r["after"])) for r in read_cdc(path, begin, end).to_pylist()]
    return sorted(out, key=lambda c: (c[1], c[0], (c[2] or c[3])["id"]))


def instants(path) -> list[str]:
    t = HudiTable(path)
    return [i.requested_time for i in t.timeline.completed_commits()]


def row(i, ts, name):
    return {"id": i, "ts": ts, "name": f"{name}{i}"}


@pytest.mark.parametrize("version", [6, 8])
def test_mor_changes_are_inferred_from_the_file_groups(tmp_path, version):
    """MOR appends write no CDC file (Java writes none); the changes come from each delta commit's file group
    before and after it: inserts, updates, deletes; a compaction is no change, nor (version 8: event-time
    ordering) an update that loses on ordering; begin is exclusive and end inclusive."""
    p = tmp_path / "mor"
    # no small-file packing: inserts go to new file groups and updates to logs (the LOG_FILE case)
    o = opts("MERGE_ON_READ", **{"hoodie.write.table.version": str(version), "hoodie.parquet.small.file.limit": "0"})
    write_table(p, rows(range(4), 1, "a"), "insert", o)
    write_table(p, pa.concat_tables([rows([1], 2, "b"), rows([2], 0, "old"), rows([7], 2, "b")]), "upsert", o)
    write_table(p, rows([3], 5, "x"), "delete", o)
    compact(p, o)
    write_table(p, rows([0], 3, "c"), "upsert", o)
    c1, c2, c3, _compaction, c5 = instants(p)
    assert not list(p.rglob("*.cdc"))
    assert changes(p) == [
        *[("i", c1, None, row(i, 1, "a")) for i in range(4)],
        ("i", c2, None, row(7, 2, "b")),
        ("u", c2, row(1, 1, "a"), row(1, 2, "b")),
        # version 6's default payload: the latest write wins; version 8: ordering 0 < 1 loses, no change
        *([("u", c2, row(2, 1, "a"), row(2, 0, "old"))] if version == 6 else []),
        ("d", c3, row(3, 1, "a"), None),
        ("u", c5, row(0, 1, "a"), row(0, 3, "c")),
    ]
    assert [c[1] for c in changes(p, c1, c3)] == [c2] * (3 if version == 6 else 2) + [c3]
    # images are the table's rows, meta fields included, as Spark's JSON writer prints them
    first = read_cdc(p, "0", c1).to_pylist()[0]
    assert json.loads(first["after"])["_hoodie_commit_time"] == c1 and ": " not in first["after"]


@pytest.mark.parametrize("version", [6, 8])
@pytest.mark.parametrize("mode", MODES)
def test_cow_merge_writes_the_cdc_log_java_writes(tmp_path, mode, version, java_check):  # noqa: F811
    p = tmp_path / "cow"
    o = opts("COPY_ON_WRITE", mode, **{"hoodie.write.table.version": str(version)})
    # version 6's default payload: the latest write wins; version 8 orders by ts, so id 2 (ts 0) loses
    updated = [1, 2] if version == 6 else [1]
    write_table(p, rows(range(4), 1, "a"), "insert", o)
    write_table(p, pa.concat_tables([rows([1], 2, "b"), rows([2], 0, "old")]), "upsert", o)
    write_table(p, rows([3], 5, "x"), "delete", o)
    c1, c2, c3 = instants(p)
    props = read_properties(p)
    assert props["hoodie.table.cdc.enabled"] == "true" and props["hoodie.table.cdc.supplemental.logging.mode"] == mode

    table = HudiTable(p)
    schema = json.loads(table.timeline.commit_metadata(table.timeline.instant(c1))["extraMetadata"]["schema"])
    lines, expected = [], []
    for inst, expect in ((c2, [("u", i) for i in updated]), (c3, [("d", 3)])):
        (stat,) = write_stats(table.timeline.commit_metadata(table.timeline.instant(inst)))
        ((rel, size),) = stat["cdcStats"].items()
        f = p / rel
        # named as the new base file's slice: its file id, this instant, version 1, the write token, .cdc
        assert re.fullmatch(rf"\.{stat['fileId']}_{inst}\.log\.1_\d+-\d+-\d+\.cdc", f.name), f.name
        assert f.stat().st_size == size
        (block,) = list(open_log(f, strict=True))
        assert block.block_type == BlockType.cdc_data_block
        assert [k for k, _ in block.header_entries] == [HeaderKey.instant_time, HeaderKey.schema]
        assert json.loads(block.schema) == cdc_schema(mode, schema)
        recs = block.records()
        assert [(r["op"], r.get("record_key") or (r.get("before") or r.get("after"))["id"]) for r in recs] == \
            [(op, str(i) if "record_key" in r else i) for (op, i), r in zip(expect, recs)]
        content = tmp_path / f"{inst}.bin"
        content.write_bytes(block.content())
        (tmp_path / f"{inst}.avsc").write_text(block.schema)
        lines.append(["cdc-block", tmp_path / f"{inst}.avsc", content])
        expected.append(recs)
    # the query: the updates and deletes from the CDC files, the first insert inferred (a new file group)
    got = changes(p)
    after = {1: row(1, 2, "b"), 2: row(2, 0, "old")}
    assert got == [*[("i", c1, None, row(i, 1, "a")) for i in range(4)],
                   *[("u", c2, row(i, 1, "a"), after[i]) for i in updated], ("d", c3, row(3, 1, "a"), None)]
    # Java's Avro decodes each CDC block; where the images come from it, Java prints them as we return them
    for result, recs in zip(java_check(lines), expected):
        assert "error" not in result, result
        assert [r["op"] for r in result["records"]] == [r["op"] for r in recs]
        if mode == "DATA_BEFORE_AFTER":
            assert result["records"][0]["ts_ms"] in (c2, c3)
    # the .cdc files do not disturb a snapshot: hudi-rs reads what we read
    assert sorted(r["id"] for r in hudi_rs_rows(p)) == sorted(r["id"] for r in HudiTable(p).read().to_pylist())
    if mode == "DATA_BEFORE_AFTER":
        ours = {(r["op"], r["before"], r["after"]) for r in read_cdc(p, c1).to_pylist()}
        java = {(r["op"], r["before"], r["after"]) for res in java_check(lines) for r in res["records"]}
        assert ours == java


def test_cow_merge_of_only_deletes_or_only_copies_writes_no_cdc_file(tmp_path):
    """Java's rule: no CDC file when the merge wrote no record (every row deleted); the reader infers it."""
    p = tmp_path / "cow"
    o = opts("COPY_ON_WRITE")
    write_table(p, rows(range(2), 1, "a"), "insert", o)
    write_table(p, rows(range(2), 2, "x"), "delete", o)
    c1, c2 = instants(p)
    assert not list(p.rglob("*.cdc"))
    assert changes(p, c1) == [("d", c2, row(0, 1, "a"), None), ("d", c2, row(1, 1, "a"), None)]


def test_cdc_properties_only_when_asked_and_bad_values_refused(tmp_path):
    write_table(tmp_path / "plain", rows([1], 1, "a"), "insert", opts("MERGE_ON_READ", None, **{"hoodie.table.cdc.enabled": "false"}))
    assert read_properties(tmp_path / "plain")["hoodie.table.cdc.enabled"] == "false"
    assert "hoodie.table.cdc.supplemental.logging.mode" not in read_properties(tmp_path / "plain")
    o = opts("MERGE_ON_READ", None)
    del o["hoodie.table.cdc.enabled"]
    write_table(tmp_path / "none", rows([1], 1, "a"), "insert", o)
    assert "hoodie.table.cdc.enabled" not in read_properties(tmp_path / "none")
    write_table(tmp_path / "lower", rows([1], 1, "a"), "insert", opts("MERGE_ON_READ", "op_key_only"))
    assert read_properties(tmp_path / "lower")["hoodie.table.cdc.supplemental.logging.mode"] == "OP_KEY_ONLY"
    with pytest.raises(TableOptionsError, match="DATA_AFTER"):
        write_table(tmp_path / "bad", rows([1], 1, "a"), "insert", opts("MERGE_ON_READ", "DATA_AFTER"))
    assert not (tmp_path / "bad").exists()
    with pytest.raises(CdcQueryError, match="hoodie.table.cdc.enabled=true"):
        read_cdc(tmp_path / "plain", "0")
    with pytest.raises(CdcQueryError, match="not an instant time"):
        read_cdc(tmp_path / "lower", "yesterday")


def test_cli_reads_changes(tmp_path):
    p = tmp_path / "t"
    write_table(p, rows(range(2), 1, "a"), "insert", opts("MERGE_ON_READ"))
    write_table(p, rows([1], 2, "b"), "upsert", opts("MERGE_ON_READ"))
    r = CliRunner().invoke(cli, ["read", str(p), "--query", "incremental", "--incremental-format", "cdc",
                                 "--begin", "0", "--format", "jsonl"])
    assert r.exit_code == 0, r.output
    got = [json.loads(line) for line in r.output.splitlines()]
    assert sorted(g["op"] for g in got) == ["i", "i", "u"] and set(got[0]) == {"op", "ts_ms", "before", "after"}
    r = CliRunner().invoke(cli, ["read", str(p), "--incremental-format", "cdc", "--begin", "0"])
    assert r.exit_code == 2 and "--query incremental" in r.output
    r = CliRunner().invoke(cli, ["read", str(p), "--query", "incremental", "--incremental-format", "cdc",
                                 "--begin", "soon"])
    assert r.exit_code != 0 and "--begin='soon' is not an instant time" in r.output and "Traceback" not in r.output


def test_insert_overwrite_deletes_the_replaced_rows_and_inserts_the_new(tmp_path):
    """A replacecommit: every row of a replaced file group is ``d`` (Java's REPLACE_COMMIT case), the new
    file group's rows ``i``."""
    p = tmp_path / "t"
    o = opts("COPY_ON_WRITE")
    write_table(p, rows(range(3), 1, "a"), "insert", o)
    write_table(p, rows([5], 2, "n"), "insert_overwrite", o)
    c1, c2 = instants(p)
    assert HudiTable(p).timeline.instant(c2).action == "replacecommit"
    assert changes(p, c1) == [("d", c2, row(i, 1, "a"), None) for i in range(3)] + [("i", c2, None, row(5, 2, "n"))]


def test_mor_small_file_merge_writes_a_cdc_file_as_java_does(tmp_path):
    """A MOR upsert with new keys rewrites the partition's small base-only file group (Java's "small file
    corrections": the merge handle, not the log), and on a CDC table that merge logs its changes as COW's
    do; the query returns them from the CDC file."""
    p = tmp_path / "mor"
    o = opts("MERGE_ON_READ")
    write_table(p, rows(range(3), 1, "a"), "insert", o)
    r = write_table(p, pa.concat_tables([rows([1], 2, "b"), rows([9], 2, "n")]), "upsert", o)
    (stat,) = r.write_stats
    assert stat["path"].endswith(".parquet") and stat["cdcStats"] and stat["numInserts"] == 1
    c1, c2 = instants(p)
    assert changes(p, c1) == [("i", c2, None, row(9, 2, "n")), ("u", c2, row(1, 1, "a"), row(1, 2, "b"))]


def test_a_file_group_two_tasks_wrote_is_one_set_of_changes(tmp_path):
    """Two tasks append to one MOR file group (two write stats for it): each change is reported once."""
    from hudi_log.table.write.client import begin_write
    from hudi_log.table.write.task import write_batches

    p = tmp_path / "t"
    o = opts("MERGE_ON_READ", **{"hoodie.parquet.small.file.limit": "0"})
    write_table(p, rows(range(4), 1, "a"), "insert", o)
    batch = rows([0, 1, 2], 2, "b")
    tx = begin_write(p, "upsert", o, schema=batch.schema)
    stats = write_batches(tx.context, batch.slice(0, 2), 0) + write_batches(tx.context, batch.slice(2, 1), 1)
    assert len({s["fileId"] for s in stats}) == 1 < len(stats)
    c2 = tx.commit(stats).instant
    got = changes(p, instants(p)[0])
    assert got == [("u", c2, row(i, 1, "a"), row(i, 2, "b")) for i in range(3)]
