"""`hudi-log diff A B`: block by block, records by key, first differing byte by grammar field, exit codes."""

from __future__ import annotations

import json

from click.testing import CliRunner

import hudi_log
from hudi_log import BlockType, LogBlock
from hudi_log.cli import main as cli
from hudi_log.format import grammar
from hudi_log.format.content.avro import encode_records
from hudi_log.format.content.deletes import DeleteRecord, encode_delete_payload
from hudi_log.format.diff import field_at
from hudi_log.format.framing import rollback_block

SCHEMA = {"type": "record", "name": "r", "fields": [
    {"name": "_hoodie_record_key", "type": "string"}, {"name": "v", "type": "long"}, {"name": "s", "type": "string"}]}


def _avro(instant: str, rows: list[tuple[str, int, str]]) -> LogBlock:
    recs = [{"_hoodie_record_key": k, "v": v, "s": s} for k, v, s in rows]
    return LogBlock.new(BlockType.avro_data_block, {"INSTANT_TIME": instant, "SCHEMA": json.dumps(SCHEMA)},
                        grammar.avro_data_content(3, encode_records(recs, SCHEMA)))


def _deletes(instant: str, keys: list[str]) -> LogBlock:
    payload = encode_delete_payload([DeleteRecord.of(k, "p", 1) for k in keys])
    return LogBlock.new(BlockType.delete_block, {"INSTANT_TIME": instant}, grammar.delete_content(3, payload))


def _write(path, blocks) -> str:
    hudi_log.write_blocks(path, blocks)
    return str(path)


def _run(*args):
    return CliRunner().invoke(cli, ["diff", *map(str, args)])


def test_equal_files_exit_0(tmp_path):
    a = _write(tmp_path / "a.log", [_avro("1", [("k1", 1, "x")]), rollback_block("2", "1")])
    b = _write(tmp_path / "b.log", [_avro("1", [("k1", 1, "x")]), rollback_block("2", "1")])
    r = _run(a, b)
    assert r.exit_code == 0 and r.output.strip() == "equal", r.output


def test_records_added_removed_changed_and_header(tmp_path):
    a = _write(tmp_path / "a.log", [_avro("1", [("k1", 1, "x"), ("k2", 2, "y"), ("k3", 3, "z")]),
                                    _deletes("2", ["d1", "d2"])])
    b = _write(tmp_path / "b.log", [_avro("9", [("k1", 10, "x"), ("k3", 3, "z"), ("k4", 4, "w")]),
                                    _deletes("2", ["d2", "d3"]), rollback_block("3", "2")])
    r = _run("--json", a, b)
    assert r.exit_code == 1, r.output
    out = json.loads(r.output)
    assert out["equal"] is False and len(out["blocks"]) == 3
    first = out["blocks"][0]["differences"]
    assert {"what": "header", "key": "INSTANT_TIME", "a": "1", "b": "9"} in first
    (recs,) = [d for d in first if d["what"] == "records"]
    assert recs["added"] == ["k4"] and recs["removed"] == ["k2"]
    assert recs["changed"] == [{"key": "k1", "fields": {"v": [1, 10]}}]
    (dels,) = [d for d in out["blocks"][1]["differences"] if d["what"] == "records"]
    assert dels["added"] == ["d3"] and dels["removed"] == ["d1"] and dels["changed"] == []
    assert out["blocks"][2]["a"] is None and out["blocks"][2]["differences"] == [{"what": "block added"}]
    text = _run(a, b).output
    assert "records: 1 added ['k4'], 1 removed ['k2'], 1 changed k1 (v)" in text and "3 of 3 block(s) differ" in text


def test_bytes_names_the_grammar_field(tmp_path):
    a = _write(tmp_path / "a.log", [_avro("20250101000000000", [("k1", 1, "x")])])
    b = _write(tmp_path / "b.log", [_avro("20250101000000001", [("k1", 1, "x")])])
    out = json.loads(_run("--json", "--bytes", a, b).output)
    (first,) = [d for d in out["blocks"][0]["differences"] if d["what"] == "bytes"]
    assert first["a_field"] == first["b_field"] == "header.entries[0].value"
    assert first["index"] == 6 + 8 + 4 + 4 + 4 + 8 + 16  # the instant's last digit
    # every byte has its field
    c = _write(tmp_path / "c.log", [_avro("20250101000000000", [("k1", 1, "x")])])
    (blk,) = hudi_log.open_log(c)
    assert field_at(blk, blk.content_offset - blk.offset + 8 + 4) == "content.records[0].datum"
    assert field_at(blk, blk.length - 1) == "reverse_pointer" and field_at(blk, 0) == "magic"
    assert _run(a, c).exit_code == 0


def test_two_blocks_by_offset(tmp_path):
    first, second = _avro("1", [("k1", 1, "x")]), _avro("2", [("k1", 2, "x")])
    a = _write(tmp_path / "a.log", [first, second])
    blocks = list(hudi_log.open_log(a))
    r = _run("--json", f"{a}@{blocks[0].offset}", f"{a}@{blocks[1].offset}")
    assert r.exit_code == 1
    (d,) = json.loads(r.output)["blocks"]
    assert {"what": "header", "key": "INSTANT_TIME", "a": "1", "b": "2"} in d["differences"]
    assert _run(f"{a}@0", f"{a}@0").exit_code == 0


def test_bad_input_exits_2(tmp_path):
    a = _write(tmp_path / "a.log", [_avro("1", [("k1", 1, "x")])])
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"not a log")
    for args in ((a, junk), (a, tmp_path / "missing.log"), (f"{a}@3", f"{a}@0"), (f"{a}@0", a)):
        r = _run(*args)
        assert r.exit_code == 2 and "Traceback" not in r.output, (args, r.output)
