"""Decoders bound their work and memory by the bytes they are given (hudi_log/format/content/bounds.py,
docs/security.md, "Decoding untrusted bytes"): each hostile input the fuzzer found is a ContentError naming the
file, the offset and the field, fast and small. Blocks give back their own bytes and hold no file open."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hudi_log
from hudi_log import BlockType, ContentError
from hudi_log.format import grammar
from hudi_log.format.content import avro_columnar, bounds
from hudi_log.format.content.avro import encode_records

REPO = Path(__file__).resolve().parent.parent
H = grammar.HeaderKey


def _zigzag(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        b, z = z & 0x7F, z >> 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _file(schema_text: str, content: bytes, block_type=BlockType.avro_data_block) -> bytes:
    header = ((H.instant_time, "100"), (H.schema, schema_text))
    return grammar.frame_block(block_type, header, [content])[0]


def _content(datums, count=None) -> bytes:
    datums = list(datums)
    return grammar.avro_content_prefix(3, len(datums) if count is None else count) + \
        b"".join(len(d).to_bytes(4, "big") + d for d in datums)


def _block(data: bytes):
    (b,) = [b for b in hudi_log.open_log(data) if not b.corrupt]
    return b


def _all_decodes(b):
    return [b.records, b.to_arrow, lambda: b.to_arrow(columnar=False),
            lambda: avro_columnar.decode_block_content(b.content(), b.schema, compiled=False)]


def _deep_schema(depth: int) -> str:
    inner = '{"type": "array", "items": ' * depth + '"int"' + "}" * depth
    return '{"type": "record", "name": "r", "fields": [{"name": "x", "type": ' + inner + "}]}"


def test_a_deep_schema_is_a_content_error_not_a_recursion_error():
    b = _block(_file(_deep_schema(3000), _content([b"\x00"])))
    for decode in (b.records, b.to_arrow, lambda: b.to_arrow(columnar=False), b.writer_schema):
        with pytest.raises(ContentError) as e:
            decode()
        assert e.value.field == "header.SCHEMA" and "nests" in str(e.value)
    # the columnar decoder alone refuses it as not columnar (the block then takes the checked path)
    with pytest.raises(avro_columnar.ColumnarDecodeError):
        avro_columnar.decode_block_content(b.content(), b.schema)


def test_schema_depth_limit_is_exact():
    # the record, its field list and the field take 3 levels; each array one more
    ok = _deep_schema(bounds.MAX_SCHEMA_DEPTH - 3)
    assert bounds.json_depth(ok) == bounds.MAX_SCHEMA_DEPTH
    bounds.load_schema(ok)
    with pytest.raises(bounds.BoundError):
        bounds.load_schema(_deep_schema(bounds.MAX_SCHEMA_DEPTH - 2))
    # brackets inside names and strings do not count
    assert bounds.json_depth('{"a": "[[[[{{{{", "b": ["]]]"]}') == 2


@pytest.mark.parametrize("items", ['"null"', '{"type": "record", "name": "E", "fields": []}',
                                  '{"type": "fixed", "name": "Z", "size": 0}'])
def test_zero_width_items_with_a_huge_count_are_refused_quickly(items):
    schema = '{"type": "record", "name": "z", "fields": [{"name": "x", "type": {"type": "array", "items": %s}}]}' % items
    for datum in (_zigzag(1 << 62) + b"\x00", _zigzag(-(1 << 40)) + _zigzag(0) + b"\x00"):
        b = _block(_file(schema, _content([datum])))
        for decode in _all_decodes(b):
            try:
                decode()
            except avro_columnar.ColumnarDecodeError:
                pass  # the columnar decoder's own contract: the record path decides
            except ContentError as e:
                assert e.path is None and e.offset == b.content_offset and e.field == "records[0]"
                assert "take no bytes" in str(e)
            else:
                raise AssertionError("a 2**40-item array of zero-width items was decoded")


def test_zero_width_items_under_the_limit_decode():
    schema = {"type": "record", "name": "z", "fields": [{"name": "x", "type": {"type": "array", "items": "null"}}]}
    b = _block(_file(json.dumps(schema), _content(encode_records([{"x": [None] * 1000}], schema))))
    assert b.records() == [{"x": [None] * 1000}]
    assert b.to_arrow().column("x").to_pylist() == [[None] * 1000]


@pytest.mark.parametrize("compiled", [True, False])
def test_a_record_count_beyond_the_bytes_is_refused_before_allocation(compiled):
    """The 304-byte block that made polars abort allocating 7.5 GB: a record count of 2**31-1."""
    flat = {"type": "record", "name": "f", "fields": [{"name": "a", "type": "long"}, {"name": "s", "type": "string"}]}
    nested = {"type": "record", "name": "n", "fields": [
        {"name": "p", "type": {"type": "record", "name": "p", "fields": [{"name": "x", "type": "double"}]}},
        {"name": "h", "type": {"type": "fixed", "name": "h", "size": 4}}]}
    for schema, rec in ((flat, {"a": 1, "s": "x"}), (nested, {"p": {"x": 1.0}, "h": b"abcd"})):
        good = _content(encode_records([rec] * 3, schema))
        bad = good[:4] + (2**31 - 1).to_bytes(4, "big") + good[8:]
        with pytest.raises(avro_columnar.ColumnarDecodeError, match="cannot fit"):
            avro_columnar.decode_block_content(bad, json.dumps(schema), compiled=compiled)
        b = _block(_file(json.dumps(schema), bad))
        with pytest.raises(ContentError):
            b.to_arrow()


def test_the_compiled_decoder_checks_the_count_itself():
    if avro_columnar._compiled is None:
        pytest.skip("built without a C compiler")
    with pytest.raises(ValueError, match="more records than the bytes"):
        avro_columnar._compiled.decode(b"\x00" * 40, 11, [(1, -1, 1)])


def test_a_huge_fixed_never_reaches_polars():
    schema = {"type": "record", "name": "f", "fields": [{"name": "h", "type": {"type": "fixed", "name": "h",
                                                                               "size": 1 << 40}}]}
    b = _block(_file(json.dumps(schema), _content([b"\x00" * 8] * 3)))
    for decode in _all_decodes(b):
        try:
            decode()
        except (ContentError, avro_columnar.ColumnarDecodeError):
            pass


@pytest.mark.parametrize("text", ["not json", "[]", '"string"', '{"type": "record", "name": "x"}',
                                  '{"type": "record", "name": "x", "fields": [{"type": "int"}]}',
                                  '{"type": "record", "name": "x", "fields": ["int"]}'])
def test_schemas_of_the_wrong_shape_are_content_errors(text):
    b = _block(_file(text, _content([b"\x02"])))
    for decode in _all_decodes(b)[:3]:
        with pytest.raises(ContentError) as e:
            decode()
        assert e.value.field.startswith("header.SCHEMA") or e.value.field.startswith("records")


def test_to_bytes_gives_back_bytes_after_the_declared_records():
    """Bytes after an Avro block's declared records were zeroed by the serializer."""
    schema = {"type": "record", "name": "f", "fields": [{"name": "a", "type": "long"}]}
    content = _content(encode_records([{"a": 1}, {"a": 2}], schema)) + b"\x01\x02\x03trailing"
    data = _file(json.dumps(schema), content) * 2
    blocks = list(hudi_log.open_log(data))
    assert len(blocks) == 2 and not any(b.corrupt for b in blocks)
    for b in blocks:
        assert b.to_bytes() == data[b.offset:b.offset + b.length]


def test_to_bytes_of_every_corpus_block(corpus_dir, tmp_path):
    import zipfile

    files = [p for p in (corpus_dir / "log_files").rglob("*") if p.is_file() and ".log." in p.name]
    for z in sorted((corpus_dir / "tables").glob("*.zip"))[:4]:
        with zipfile.ZipFile(z) as zf:
            zf.extractall(tmp_path / z.stem)
        files += [p for p in (tmp_path / z.stem).rglob("*") if p.is_file() and ".log." in p.name
                  and "__MACOSX" not in p.parts]
    assert len(files) > 10
    for p in files:
        data = p.read_bytes()
        for b in hudi_log.open_log(p):
            assert b.to_bytes() == data[b.offset:b.offset + b.length], p


def test_to_bytes_of_mutated_blocks():
    import random

    sys.path.insert(0, str(REPO))
    from tools.fuzz import content, harness

    seeds = content.generated_seeds()
    seen = 0
    for i in range(300):
        m = content.mutate_content(harness.RandomChooser(random.Random(f"tb:{i}")), seeds)
        for b in hudi_log.open_log(m.data):
            assert b.to_bytes() == m.data[b.offset:b.offset + b.length]
            seen += 1
    assert seen >= 300


def test_blocks_kept_from_many_files_hold_no_file_descriptor(tmp_path):
    """EMFILE after 61 files at ulimit -n 64: each kept block held its file open."""
    schema = {"type": "record", "name": "f", "fields": [{"name": "a", "type": "long"}]}
    data = _file(json.dumps(schema), _content(encode_records([{"a": 1}], schema)))
    for i in range(200):
        (tmp_path / f".f{i}_1.log.1_0-0-0").write_bytes(data)
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        sys.path.insert(0, {str(REPO)!r})
        from pathlib import Path
        import hudi_log
        kept = []
        for p in sorted(Path({str(tmp_path)!r}).iterdir()):
            kept += list(hudi_log.open_log(p))
            kept += list(hudi_log.read_reverse(p))
        assert len(kept) == 400, len(kept)
        assert all(b.records() == [{{"a": 1}}] for b in kept)  # each reads its file again, and closes it
        import os
        print(len(os.listdir("/proc/self/fd")))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.split()[-1]) < 16  # stdin/out/err and the interpreter's own, no log files


def test_an_abandoned_scan_closes_its_file_when_dropped(tmp_path):
    schema = {"type": "record", "name": "f", "fields": [{"name": "a", "type": "long"}]}
    p = tmp_path / ".f_1.log.1_0-0-0"
    p.write_bytes(_file(json.dumps(schema), _content(encode_records([{"a": 1}], schema))) * 3)

    def fds():
        return sum(1 for fd in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{fd}") == str(p))

    it = hudi_log.open_log(p)
    first = next(it)
    assert fds() == 1  # the scan holds it while it runs
    it.close()
    assert fds() == 0
    assert first.records() == [{"a": 1}] and fds() == 0


def test_zero_width_detection_follows_names_and_stops_at_recursion():
    empty = {"type": "record", "name": "E", "fields": []}
    s = {"type": "record", "name": "r", "namespace": "n", "fields": [
        {"name": "e", "type": empty},
        {"name": "list", "type": {"type": "array", "items": "n.E"}}]}
    assert bounds.has_zero_width_items(s)
    linked = {"type": "record", "name": "L", "fields": [
        {"name": "next", "type": ["null", "L"]}, {"name": "xs", "type": {"type": "array", "items": "L"}}]}
    assert not bounds.has_zero_width_items(linked)
    assert not bounds.has_zero_width_items(
        {"type": "record", "name": "m", "fields": [{"name": "m", "type": {"type": "map", "values": "null"}}]})


def test_the_walker_accepts_what_fastavro_writes():
    """Every type the walker skips, against fastavro's encoding of it (a block with zero-width items
    anywhere is walked whole)."""
    schema = {"type": "record", "name": "w", "fields": [
        {"name": "nulls", "type": {"type": "array", "items": "null"}},
        {"name": "m", "type": {"type": "map", "values": ["null", "long", "string"]}},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
        {"name": "f", "type": {"type": "fixed", "name": "F", "size": 3}},
        {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "t", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "x", "type": ["null", {"type": "record", "name": "X", "fields": [
            {"name": "b", "type": "boolean"}, {"name": "fl", "type": "float"}, {"name": "db", "type": "double"}]}]},
        {"name": "again", "type": ["null", "X"]}]}
    import datetime
    import decimal

    rec = {"nulls": [None] * 7, "m": {"a": 1, "b": None, "c": "s"}, "e": "B", "f": b"abc",
           "d": decimal.Decimal("1.25"), "t": datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
           "x": {"b": True, "fl": 1.5, "db": 2.5}, "again": None}
    datums = encode_records([rec, dict(rec, nulls=[], m={}, x=None)], schema)
    bounds.check_datums(datums, schema)
    b = _block(_file(json.dumps(schema), _content(datums)))
    assert [r["nulls"] for r in b.records()] == [[None] * 7, []]
    with pytest.raises(bounds.BoundError, match="left after"):
        bounds.check_datums([datums[0] + b"\x00"], schema)


@pytest.mark.parametrize("depth", [40, 64, bounds.MAX_SCHEMA_DEPTH - 3])
def test_deep_schemas_within_the_limit_decode_or_say_why(depth):
    """Arrays 64 deep crossed polars' Arrow export (the C data interface refuses more than 64 levels):
    an ArrowInvalid. Schemas that deep now take the record path."""
    text = _deep_schema(depth)
    inner = 0
    for _ in range(depth):
        inner = [inner]
    schema = json.loads(text)
    b = _block(_file(text, _content(encode_records([{"x": inner}], schema))))
    assert b.records() == [{"x": inner}]
    for decode in (b.to_arrow, lambda: b.to_arrow(columnar=False)):
        try:
            assert decode().column("x").to_pylist() == [inner]
        except ContentError as e:  # Arrow itself may refuse the nesting: said, typed
            assert e.field.startswith("records")


@pytest.mark.parametrize("depth", [63, 64, 5000, 100_000])
def test_a_recursive_schema_nests_values_at_most_max_value_depth_levels(depth):
    """fastavro's compiled reader overflowed the C stack (a segfault) on a recursive record nested 5,000
    levels deep, and to_arrow crawled at 2,000: such datums are walked first and refused past the limit."""
    schema = {"type": "record", "name": "L", "fields": [{"name": "next", "type": ["null", "L"]}]}
    assert bounds.is_recursive(schema) and not bounds.is_recursive(
        {"type": "record", "name": "a", "fields": [{"name": "b", "type": {"type": "record", "name": "b",
                                                                            "fields": [{"name": "c", "type": "int"}]}}]})
    b = _block(_file(json.dumps(schema), _content([b"\x02" * depth + b"\x00"])))
    if depth + 1 <= bounds.MAX_VALUE_DEPTH:
        value = b.records()[0]
        for _ in range(depth):
            value = value["next"]
        assert value == {"next": None}
        return
    for decode in (b.records, b.to_arrow, lambda: b.to_arrow(columnar=False)):
        with pytest.raises(ContentError, match="nest more than"):
            decode()


def test_a_schema_exponentially_larger_expanded_is_refused():
    """T1 holds T0 twice, T2 holds T1 twice, ... T39: 2**39 empty records a datum of no bytes (fastavro
    would read every one)."""
    fields = [{"name": "t0", "type": {"type": "record", "name": "T0", "fields": []}}]
    for i in range(1, 40):
        fields.append({"name": f"t{i}", "type": {"type": "record", "name": f"T{i}", "fields": [
            {"name": "a", "type": f"T{i - 1}"}, {"name": "b", "type": f"T{i - 1}"}]}})
    b = _block(_file(json.dumps({"type": "record", "name": "top", "fields": fields}), _content([b""])))
    for decode in (b.records, b.to_arrow):
        with pytest.raises(ContentError, match="types with its named types expanded"):
            decode()


def test_zero_width_fields_times_records_are_bounded():
    schema = {"type": "record", "name": "top", "fields": [{"name": f"n{i}", "type": "null"} for i in range(2000)]}
    ok = _block(_file(json.dumps(schema), _content([b""] * 3)))
    assert ok.records() == [{f"n{i}": None for i in range(2000)}] * 3
    bad = _block(_file(json.dumps(schema), _content([b""] * (bounds.MAX_ZERO_WIDTH_VALUES // 2000 + 1))))
    with pytest.raises(ContentError, match="values that take no bytes"):
        bad.records()


def test_a_log_data_block_of_no_records_leaves_the_base_rows(tmp_path):
    """Fuzzer finding (full engine, seed 36, input 7670): a table's log file whose data block's record count was
    damaged to 0; the merge took winners from an empty log (ArrowIndexError). Replayed here, read_table must give
    rows or a HudiLogError, lenient and strict."""
    import random

    from tools.fuzz import harness, tables

    seeds = tables.build_tables(str(tmp_path / "seed"))
    m = tables.mutate_table(harness.RandomChooser(random.Random("36:7670")), seeds, str(tmp_path))
    assert m.ops == ["int4@766"] and ".log." in m.file
    assert tables.check_table(m) == []
