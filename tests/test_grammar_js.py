"""The .ksy compiled to JavaScript (the Kaitai Web IDE's engine) against the generated Python codec.

Differential: the whole parse tree -- every seq field and every instance, content included -- of
every corpus log file, of hand-made edge cases (Long.MIN/MAX ordering values, lengths above 2^31,
invalid UTF-8, over-long varints, legacy blocks) and of seeded random mutations of them, must be
the same in both engines, and an input one engine rejects the other must reject too.

Where the engines cannot agree the grammar says so, and this test holds them to that documented
difference: a header value that is not UTF-8 has the same bytes in both, and its `text` view is
U+FFFD-substituted in JavaScript (as Java's `new String(bytes)`) while the Python runtime raises;
numbers above 2^53 are doubles in JavaScript, so they must agree in sign and to double precision.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from kaitaistruct import BytesIO, KaitaiStream, KaitaiStruct, KaitaiStructError

import hudi_log
from hudi_log import LogBlock
from hudi_log.format import grammar
from hudi_log.format.content.deletes import DeleteRecord, encode_delete_payload
from hudi_log.format.grammar import BlockType, HudiLog

from test_deletes_kryo import v2_payload
from test_grammar import NODE, REPO, _need_node

_EXACT = 2**53


# ---- the Python side of the dump (the same shape as tools/regen/parse_js.js prints) --------------


def _bytes(b: bytes):
    if len(b) > 64:
        return {"sha256": hashlib.sha256(b).hexdigest(), "len": len(b)}
    return {"bytes": b.hex()}


def _dump(v):
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return _bytes(bytes(v))
    if isinstance(v, list):
        return [_dump(x) for x in v]
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return int(v)  # enums as their numbers, as JavaScript holds them
    if isinstance(v, float):
        return v if math.isfinite(v) else {math.inf: "Infinity", -math.inf: "-Infinity"}.get(v, "NaN")
    assert isinstance(v, KaitaiStruct), type(v)
    # `x__enabled` are the read-write codec's switches for instances, not grammar fields
    out = {k: _dump(x) for k, x in vars(v).items() if not k.startswith("_") and not k.endswith("__enabled")}
    for name, attr in type(v).__dict__.items():
        if isinstance(attr, property) and not name.startswith("_"):
            try:
                out[name] = _dump(getattr(v, name))
            except (KaitaiStructError, EOFError) as e:
                # a lazily parsed instance (a block's `body`) that breaks the grammar: where it broke
                out[name] = {"error": "grammar", "src_path": getattr(e, "src_path", None)}
            except (UnicodeDecodeError, ValueError) as e:
                out[name] = {"error": type(e).__name__}
    return out


def python_tree(data: bytes):
    try:
        root = HudiLog(KaitaiStream(BytesIO(data)))
        root._read()
        return {"tree": _dump(root)}
    except Exception as e:  # the engines' error classes differ; the grammar path does not
        return {"error": {"name": type(e).__name__, "src_path": getattr(e, "src_path", None)}}


# ---- comparing ------------------------------------------------------------------------------------


def _same(py, js, where: str, bytes_of) -> None:
    """Assert two dumped trees agree; ``bytes_of(where)`` gives the raw value of a `text` that failed."""
    if isinstance(py, dict) and py.get("error") == "grammar":
        # an instance both engines refuse to parse, at the same place of the grammar
        assert isinstance(js, dict) and set(js) == {"error", "src_path"}, (where, js)
        if py["src_path"] and js["src_path"]:
            assert py["src_path"] == js["src_path"], (where, py, js)
        return
    if isinstance(py, dict) and set(py) == {"error"}:
        # the Python runtime raised evaluating an instance: only for the documented differences
        if py["error"] == "UnicodeDecodeError":
            raw = bytes_of(where)
            if raw is None:  # an instance derived from such a text (instant_time)
                assert isinstance(js, str) and "\ufffd" in js, (where, js)
            else:
                assert js == raw.decode("utf-8", "replace"), (where, js)
            return
        if py["error"] == "ValueError":  # command_block_type of a value that is not a number
            assert js is None or js == "NaN" or isinstance(js, (int, float)), (where, js)
            return
        raise AssertionError(f"{where}: Python raised {py['error']}")
    if isinstance(py, dict):
        assert isinstance(js, dict), (where, js)
        assert set(py) == set(js), (where, sorted(set(py) ^ set(js)))
        for k in py:
            _same(py[k], js[k], f"{where}.{k}", bytes_of)
    elif isinstance(py, list):
        assert isinstance(js, list) and len(py) == len(js), (where, js)
        for i, (a, b) in enumerate(zip(py, js)):
            _same(a, b, f"{where}[{i}]", bytes_of)
    elif isinstance(py, int) and not isinstance(py, bool) and abs(py) > _EXACT:
        # a double in JavaScript: the same sign and the same value to double precision
        assert isinstance(js, (int, float)) and (js < 0) == (py < 0), (where, py, js)
        assert math.isclose(js, py, rel_tol=2**-50), (where, py, js)
    else:
        assert py == js, (where, py, js)


def _raw_at(data: bytes):
    """A resolver for `text` instances: the bytes of the entry's `value` at a dumped path."""

    def resolve(where: str) -> bytes:
        root = HudiLog(KaitaiStream(BytesIO(data)))
        root._read()
        obj = root
        for part in where.split(".")[1:-1]:
            name, _, index = part.partition("[")
            obj = getattr(obj, name)
            if index:
                obj = obj[int(index[:-1])]
        if isinstance(obj, HudiLog.MetadataEntry):
            return obj.value
        return obj.string.data if isinstance(obj, HudiLog.AvroOptionalString) else None

    return resolve


def compare_engines(inputs: dict[str, bytes], tmp_path: Path) -> dict[str, int]:
    """Parse every input with both engines and compare; returns counts of parsed and rejected inputs."""
    _need_node()
    js_dir = tmp_path / "js"
    subprocess.run([NODE, "tools/regen/regen.js", "--lang", "javascript", "--out", str(js_dir)], cwd=REPO, check=True)
    files = []
    for i, (name, data) in enumerate(inputs.items()):
        p = tmp_path / f"in{i:05d}.log"
        p.write_bytes(data)
        files.append((name, p, data))
    r = subprocess.run([NODE, "tools/regen/parse_js.js", str(js_dir), *(str(p) for _, p, _ in files)],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    counts = {"parsed": 0, "rejected": 0}
    for (name, _p, data), js in zip(files, json.loads(r.stdout)):
        py = python_tree(data)
        if "error" in py or "error" in js:
            assert "error" in py and "error" in js, (name, py.get("error"), js.get("error"))
            if py["error"]["src_path"] and js["error"]["src_path"]:
                assert py["error"]["src_path"] == js["error"]["src_path"], (name, py["error"], js["error"])
            counts["rejected"] += 1
            continue
        try:
            _same(py["tree"], js["tree"], "", _raw_at(data))
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
        # a block whose framing parses but whose lazily parsed content breaks the grammar is refused
        # too, at its `body` (in both engines: _same checked that)
        counts["rejected" if '"error": "grammar"' in json.dumps(py["tree"]) else "parsed"] += 1
    return counts


# ---- inputs ----------------------------------------------------------------------------------------

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def _delete_block(values) -> bytes:
    records = [DeleteRecord.of(f"k{i}", "p", v) for i, v in enumerate(values)]
    content = grammar.delete_content(3, encode_delete_payload(records))
    return LogBlock.new(BlockType.delete_block, {"INSTANT_TIME": "20250101000000000"}, content).to_bytes()


def _rollback(command: str = "0") -> bytes:
    return LogBlock.new(BlockType.command_block, {
        "INSTANT_TIME": "20250101000000001", "TARGET_INSTANT_TIME": "20250101000000000", "COMMAND_BLOCK_TYPE": command,
    }).to_bytes()


def _avro_block() -> bytes:
    content = grammar.avro_data_content(3, [b"\x02a", b"", b"\x00" * 70])
    return LogBlock.new(BlockType.avro_data_block, {"INSTANT_TIME": "20250101000000002", "SCHEMA": "{}"}, content).to_bytes()


def _with_s8(data: bytes, at: int, value: int) -> bytes:
    return data[:at] + struct.pack(">q", value) + data[at + 8:]


def hand_made() -> dict[str, bytes]:
    rb = _rollback()
    # the instant's first byte sits after magic, size, version, type, count, key, length
    first_value = 6 + 8 + 4 + 4 + 4 + 4 + 4
    deletes = _delete_block([LONG_MIN, LONG_MAX, LONG_MIN + 1, LONG_MAX - 1, 2**53 + 1, -(2**53) - 1, 0, -1,
                             2**31, -(2**31), 1.5, "Grüße 😀", b"\x00\xff", True, None])
    content_length_at = len(rb) - 8 - 4 - 8  # a command block: content_length, no content, footer, pointer
    cases = {
        "empty file": b"",
        "rollback": rb,
        "rollback, command 7": _rollback("7"),
        "rollback, command not a number": _rollback("x1"),
        "avro block": _avro_block(),
        "deletes at Long.MIN/MAX and around 2^53": deletes,
        "two blocks": rb + deletes,
        "delete block of content version 2 (Kryo)": LogBlock.new(
            BlockType.delete_block, {"INSTANT_TIME": "20230101000000000"}, grammar.delete_content(2, v2_payload()),
        ).to_bytes(),
        "legacy v0 block": b"#HUDI#" + struct.pack(">qi", 3, 0) + b"abc",
        "header value not UTF-8": rb[:first_value] + b"\xff\xfe" + rb[first_value + 2:],
        "header value, truncated UTF-8 sequence": rb[:first_value] + b"\xe2\x82" + rb[first_value + 2:],
        "block size 2^31": _with_s8(rb, 6, 2**31),
        "block size 2^32 + its real size": _with_s8(rb, 6, 2**32 + len(rb) - 14),
        "block size 2^53 + 1": _with_s8(rb, 6, 2**53 + 1),
        "block size -1": _with_s8(rb, 6, -1),
        "content length 2^31": _with_s8(rb, content_length_at, 2**31),
        "content length 2^32": _with_s8(rb, content_length_at, 2**32),
        "reverse pointer off by 2^32": _with_s8(rb, len(rb) - 8, len(rb) - 8 + 2**32),
    }
    # an 11-byte varint where a delete's record count is: Avro allows 10 at most
    payload_at = deletes.index(b"\x00\x00\x00\x03", 40) + 8
    cases["varint of 11 bytes"] = deletes[:payload_at] + b"\xff" * 10 + b"\x01" + deletes[payload_at + 11:]
    cases["varint of 10 bytes, last with high bit"] = deletes[:payload_at] + b"\xff" * 10 + deletes[payload_at + 10:]
    return cases


def fuzzed(bases: dict[str, bytes], n: int, seed: int = 23) -> dict[str, bytes]:
    rnd = random.Random(seed)
    names = sorted(bases)
    out = {}
    for i in range(n):
        name = rnd.choice(names)
        data = bytearray(bases[name])
        if not data:
            continue
        op = rnd.randrange(4)
        at = rnd.randrange(len(data))
        if op == 0:
            data[at] ^= 1 << rnd.randrange(8)
        elif op == 1:
            data[at] = rnd.choice((0x00, 0x7F, 0x80, 0xFF, 0xC3, 0xED))
        elif op == 2:
            del data[at:]
        else:
            data[at:at] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 9)))
        out[f"fuzz {i} of {name}"] = bytes(data)
    return out


# ---- tests -------------------------------------------------------------------------------------------


def test_every_corpus_file_parses_alike_in_both_engines(corpus_log_files, tmp_path):
    inputs = {str(p): p.read_bytes() for p in corpus_log_files}
    counts = compare_engines(inputs, tmp_path)
    assert counts == {"parsed": len(inputs), "rejected": 0}


def test_hand_made_edge_cases_alike_in_both_engines(tmp_path):
    cases = hand_made()
    counts = compare_engines(cases, tmp_path)
    # the accepted ones really are there (a test that rejects everything proves nothing)
    assert counts["parsed"] >= 9 and counts["rejected"] >= 8, counts
    deletes = python_tree(cases["deletes at Long.MIN/MAX and around 2^53"])["tree"]
    values = [item["ordering_value"]["value"]["value"] for item in deletes["blocks"][0]["content"]["body"]["records"]
              ["array_blocks"][0]["items"][:4]]
    assert values == [LONG_MIN, LONG_MAX, LONG_MIN + 1, LONG_MAX - 1]
    for name in ("block size 2^31", "block size 2^32 + its real size", "content length 2^31"):
        assert "error" in python_tree(cases[name]), name
    # a content that breaks the grammar is refused where it is parsed: a delete payload at its lazy
    # `records` (the block, its content and the payload's bytes are there)
    body = python_tree(cases["varint of 11 bytes"])["tree"]["blocks"][0]["content"]["body"]
    assert body["content_version"] == 3 and body["payload"] is not None, body
    records = body["records"]
    assert records["error"] == "grammar" and records["src_path"] == "/types/avro_long/seq/0", records


def test_fuzzed_inputs_alike_in_both_engines(corpus_log_files, tmp_path):
    small = {str(p): p.read_bytes() for p in corpus_log_files if p.stat().st_size < 64 << 10}
    bases = {**hand_made(), **small}
    counts = compare_engines(fuzzed(bases, 600), tmp_path)
    assert counts["parsed"] > 30 and counts["rejected"] > 30, counts


def test_reader_agrees_with_the_grammar_on_the_edge_cases():
    """hudi-log's reader (framing fast path) accepts and rejects the hand-made blocks as the grammar does."""
    for name, data in hand_made().items():
        if not data:
            continue
        grammar_ok = "error" not in python_tree(data)
        blocks = list(hudi_log.open_log(data))
        reader_ok = not any(b.corrupt for b in blocks)
        if name.startswith("header value"):
            # the grammar keeps the bytes; the reader refuses a value it could not write back
            assert grammar_ok and not reader_ok, name
        elif name.startswith("varint"):
            # both frame the block and read the payload's records on demand: both refuse it there
            assert grammar_ok and reader_ok, name
            assert python_tree(data)["tree"]["blocks"][0]["content"]["body"]["records"]["error"] == "grammar", name
            with pytest.raises(hudi_log.ContentError):
                blocks[0].deletes()
        else:
            assert grammar_ok == reader_ok, name


@pytest.mark.skipif(shutil.which("node") is None, reason="node missing")
def test_differences_are_caught():
    """The comparison itself fails on a real difference (a wrong value, a missing field)."""
    with pytest.raises(AssertionError):
        _same({"a": 1}, {"a": 2}, "x", None)
    with pytest.raises(AssertionError):
        _same({"a": 1}, {}, "x", None)
    with pytest.raises(AssertionError):
        _same(LONG_MIN, 2.0**63, "x", None)
