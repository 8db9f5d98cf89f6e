"""The grammar and its generated codec: corpus round trips, JS parity, regeneration, typed errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import hudi_log
from hudi_log import BlockType, HeaderKey, LogBlock
from hudi_log.format import grammar
from hudi_log.format.content.avro import encode_records
from hudi_log.cli import main as cli
from hudi_log.format.grammar import HudiLog

REPO = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")


def _need_node() -> None:
    if NODE is None or not (REPO / "node_modules" / "kaitai-struct-compiler").is_dir():
        if os.environ.get("CI"):
            pytest.fail("node and the pinned npm packages are required in CI (npm ci)")
        pytest.skip("node or node_modules missing: run `npm ci`")


def _full_parse(data: bytes):
    # every block's content too: the .ksy parses it lazily (the `body` instance)
    root = grammar.parse(HudiLog, data)
    root._fetch_instances()
    return root


# ---- corpus --------------------------------------------------------------------------------------


def test_every_corpus_file_round_trips(corpus_log_files):
    """Every real log file parses strictly and its blocks' to_bytes() concatenate to the file."""
    types = set()
    for path in corpus_log_files:
        data = path.read_bytes()
        blocks = list(hudi_log.open_log(path, strict=True))
        assert b"".join(b.to_bytes() for b in blocks) == data, path
        assert all(not b.corrupt for b in blocks)
        types |= {b.block_type for b in blocks}
    # the corpus covers these kinds; make sure we really went through them
    assert {BlockType.command_block, BlockType.delete_block, BlockType.avro_data_block,
            BlockType.hfile_data_block, BlockType.parquet_data_block} <= types


def test_lazy_reader_equals_full_generated_parse(corpus_log_files):
    """The lazy framing reader and the generated parser see the same blocks."""
    for path in corpus_log_files:
        data = path.read_bytes()
        full = _full_parse(data)
        lazy = list(hudi_log.open_log(data))
        assert len(full.blocks) == len(lazy)
        offset = 0
        for k, b in zip(full.blocks, lazy):
            assert b.offset == offset
            assert b.length == k.len_block + grammar.FRAME_PREFIX
            assert b.format_version == k.format_version
            assert b.block_type == k.block_type
            assert b.header_entries == grammar.map_entries(k.header)
            assert b.footer_entries == grammar.map_entries(k.footer)
            assert b.content_length == k.len_content
            assert b.instant_time == (k.instant_time or None)
            if b.block_type in grammar.RECORD_BLOCK_TYPES:
                assert b.record_count == k.num_records
                assert b.datums() == [r.datum for r in k.content.body.records]
            offset += b.length
        assert offset == len(data)


def test_corpus_content_decodes(corpus_log_files):
    """Records, deletes, Parquet rows and HFile cells of every corpus block decode."""
    counts = {}
    for path in corpus_log_files:
        for b in hudi_log.open_log(path):
            if b.block_type == BlockType.delete_block:
                n = len(b.deletes())
            elif b.block_type in grammar.DATA_BLOCK_TYPES:
                recs = b.records()
                assert len(recs) == b.record_count
                n = len(recs)
            else:
                continue
            counts[b.block_type] = counts.get(b.block_type, 0) + n
    assert counts[BlockType.avro_data_block] > 0 and counts[BlockType.parquet_data_block] > 0
    assert counts[BlockType.hfile_data_block] > 0 and counts[BlockType.delete_block] > 0


def test_known_avro_block(corpus_dir):
    path = next((corpus_dir / "log_files" / "valid_log_avro_data").glob(".*.log.*"))
    (block,) = hudi_log.open_log(path)
    assert block.block_type == BlockType.avro_data_block
    assert block.instant_time == "20250316025828811"
    (rec,) = block.records()
    assert rec["rider"] == "rider-A" and rec["_hoodie_file_name"] == "ff32ab89-5ad0-4968-83b4-89a34c95d32f-0"
    # a reader schema projects, as Hudi's schema resolution does
    schema = block.writer_schema()
    schema["fields"] = [f for f in schema["fields"] if f["name"] in ("uuid", "fare")]
    assert block.records(reader_schema=schema) == [{"uuid": rec["uuid"], "fare": rec["fare"]}]


def test_known_rollback_block(corpus_dir):
    path = next((corpus_dir / "log_files" / "valid_log_rollback").glob(".*.log.*"))
    (block,) = hudi_log.open_log(path)
    assert block.is_rollback and block.content_length == 0 and block.length == 105
    assert block.header == {
        "INSTANT_TIME": "20250126040936578", "COMMAND_BLOCK_TYPE": "0", "TARGET_INSTANT_TIME": "20250126040826878",
    }


# ---- generated/ and JavaScript -------------------------------------------------------------------


def test_generated_is_fresh():
    _need_node()
    r = subprocess.run([NODE, "tools/regen/regen.js", "--check"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_compiler_warnings_fail_regeneration(tmp_path):
    """The npm compiler drops the warnings the official one prints; regen.js keeps them and fails on any
    (so spec/hudi_log.ksy, which test_generated_is_fresh regenerates, builds with none): a size named
    against Kaitai's `len_*` style is refused, the same grammar with the style's name is not."""
    _need_node()

    def compile_(size_field: str):
        ksy = tmp_path / f"{size_field}.ksy"
        ksy.write_text("meta:\n  id: probe\nseq:\n"
                       f"  - id: {size_field}\n    type: u1\n  - id: body\n    size: {size_field}\n")
        return subprocess.run([NODE, "tools/regen/regen.js", "--lang", "python", "--out", str(tmp_path / size_field),
                               "--spec", str(ksy)], cwd=REPO, capture_output=True, text=True)

    bad = compile_("body_length")
    assert bad.returncode == 1 and "use `len_body` instead of `body_length`" in bad.stderr, bad.stderr
    assert not (tmp_path / "body_length").exists()
    good = compile_("len_body")
    assert good.returncode == 0, good.stderr
    assert (tmp_path / "len_body" / "probe.py").is_file()


# the JavaScript codec against the Python one: tests/test_grammar_js.py


# ---- writing ---------------------------------------------------------------------------------------

SCHEMA = {
    "type": "record", "name": "r", "namespace": "hoodie.t",
    "fields": [{"name": "id", "type": "string"}, {"name": "v", "type": ["null", "long"], "default": None}],
}


def test_new_blocks_write_header_in_ascending_order(tmp_path):
    datums = encode_records([{"id": "ä", "v": 1}, {"id": "b", "v": None}], SCHEMA)
    block = LogBlock.new(
        "AVRO_DATA_BLOCK",
        {"SCHEMA": json.dumps({**SCHEMA, "doc": "Grüße é"}, ensure_ascii=False), HeaderKey.instant_time: "20250101000000000"},
        grammar.avro_data_content(3, datums),
    )
    assert [k for k, _ in block.header_entries] == [HeaderKey.instant_time, HeaderKey.schema]
    rollback = LogBlock.new(BlockType.command_block, {
        "TARGET_INSTANT_TIME": "20250101000000000", "COMMAND_BLOCK_TYPE": "0", "INSTANT_TIME": "20250101000000001",
    })
    path = tmp_path / ".f1_20250101000000000.log.1_0-0-0"
    n = hudi_log.write_blocks(path, [block, rollback])
    data = path.read_bytes()
    assert n == len(data)
    full = _full_parse(data)  # the generated parser agrees, reverse pointers included
    assert [b.block_type for b in full.blocks] == [BlockType.avro_data_block, BlockType.command_block]
    back = list(hudi_log.open_log(path, strict=True))
    assert back[0].records() == [{"id": "ä", "v": 1}, {"id": "b", "v": None}]
    assert json.loads(back[0].schema)["doc"] == "Grüße é"
    assert back[1].is_rollback and back[1].target_instant_time == "20250101000000000"
    assert [b.offset for b in back] == [0, back[0].length]
    assert list(reversed(list(hudi_log.read_reverse(path))))[0].header == back[0].header


def test_serializer_rejects_content_that_breaks_its_layout():
    with pytest.raises(Exception):
        grammar.serialize_block(1, BlockType.parquet_data_block, (), b"not parquet at all")
    block = LogBlock.new("PARQUET_DATA_BLOCK", {"INSTANT_TIME": "1"}, b"not parquet at all")
    with pytest.raises(hudi_log.ContentError) as e:
        block.to_bytes()
    assert e.value.field == "content"


# ---- typed errors ------------------------------------------------------------------------------------


def test_not_a_log_file(tmp_path):
    p = tmp_path / "x.log"
    p.write_bytes(b"PAR1 definitely not a hudi log")
    with pytest.raises(hudi_log.NotALogFileError) as e:
        list(hudi_log.open_log(p))
    assert e.value.path == str(p) and e.value.offset == 0 and e.value.field == "magic"
    assert str(p) in str(e.value)


def test_cut_short_is_a_typed_error_naming_offset_and_field(tmp_path):
    datums = encode_records([{"id": "a", "v": 1}], SCHEMA)
    block = LogBlock.new("AVRO_DATA_BLOCK", {"INSTANT_TIME": "1", "SCHEMA": json.dumps(SCHEMA)},
                         grammar.avro_data_content(3, datums))
    data = block.to_bytes()
    p = tmp_path / "cut.log"
    p.write_bytes(data[:-5])
    with pytest.raises(hudi_log.TruncatedLogError) as e:
        list(hudi_log.open_log(p, strict=True))
    assert e.value.field == "len_block" and e.value.offset == 6 and str(p) in str(e.value)
    p.write_bytes(data[:10])
    with pytest.raises(hudi_log.TruncatedLogError) as e:
        list(hudi_log.open_log(p, strict=True))
    assert e.value.offset == 6


def test_cli_errors_are_messages_not_tracebacks(tmp_path):
    p = tmp_path / "x.log"
    p.write_bytes(b"garbage!")
    for cmd in (["inspect", str(p)], ["inspect", "--json", str(p)], ["records", str(p)]):
        r = CliRunner().invoke(cli, cmd)
        assert r.exit_code == 2
        assert "not a Hudi log file" in r.output and "Traceback" not in r.output


def test_cli_inspect_json_shape(corpus_dir):
    path = next((corpus_dir / "log_files" / "valid_log_delete").glob(".*.log.*"))
    r = CliRunner().invoke(cli, ["inspect", "--json", str(path)])
    assert r.exit_code == 0, r.output
    (f,) = json.loads(r.output)["files"]
    (b,) = f["blocks"]
    assert f["path"] == str(path)
    assert set(b) >= {"offset", "length", "format_version", "block_type", "header", "footer",
                      "content_length", "record_count", "corrupt"}
    assert b["block_type"] == "DELETE_BLOCK" and b["record_count"] is None and b["corrupt"] is False
    assert "INSTANT_TIME" in b["header"] and b["footer"] == {}


def test_cli_records_marks_deletes(corpus_dir):
    files = [next((corpus_dir / "log_files" / d).glob(".*.log.*"))
             for d in ("valid_log_delete", "valid_log_parquet_data", "valid_log_avro_data")]
    r = CliRunner().invoke(cli, ["records", "--json", *map(str, files)])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    deletes = [x for x in rows if x["_delete"]]
    assert {d["record"]["record_key"] for d in deletes} == {
        "e96c4396-3fad-413a-a942-4cb36106d721", "9909a8b1-2d15-4d3d-8ec9-efc48c536a00",
        "334e26e9-8355-45cc-97c6-c31daf0df330",
    }
    assert any(not x["_delete"] and x["record"].get("_hoodie_record_key") for x in rows)
    r = CliRunner().invoke(cli, ["records", "--json", "--limit", "2", *map(str, files)])
    assert len(r.stdout.splitlines()) == 2


def test_console_script_runs():
    r = subprocess.run([sys.executable, "-m", "hudi_log.cli", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "inspect" in r.stdout
