"""Columnar decoding of Avro data blocks (hudi_log/format/content/avro_columnar.py) against the record path
(fastavro, record by record): every corpus Avro block, and blocks of hypothesis-generated schemas —
nested records, arrays, maps, nullable unions, enums, fixed, logical types — must give equal Arrow
tables. Schemas polars cannot decode (maps, multi-branch unions) must be declined up front."""

from __future__ import annotations

import datetime
import decimal
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_log import BlockType, LogBlock, open_log
from hudi_log.format.content.avro import encode_records
from hudi_log.format.content.avro_columnar import ColumnarDecodeError, columnar_supported, decode_block_content
from hudi_log.errors import ContentError
from hudi_log.format.grammar import avro_data_content

UTC = datetime.timezone.utc
DT_MIN, DT_MAX = datetime.datetime(1900, 1, 1), datetime.datetime(2200, 1, 1)


def block(schema: dict, records: list[dict]) -> LogBlock:
    content = avro_data_content(3, encode_records(records, schema))
    return LogBlock.new(BlockType.avro_data_block, {"INSTANT_TIME": "100", "SCHEMA": json.dumps(schema)}, content)


def test_every_corpus_avro_block_decodes_columnar_and_equals_the_record_path(corpus_log_files):
    n = 0
    for path in corpus_log_files:
        for b in open_log(path):
            if b.corrupt or b.block_type not in (BlockType.avro_data_block, BlockType.cdc_data_block):
                continue
            columnar = decode_block_content(b.content(), b.schema)  # raises if the columnar path declined
            assert columnar.equals(b.to_arrow(columnar=False)), path
            assert columnar.num_rows == b.record_count
            n += 1
    assert n >= 10


@st.composite
def avro_types(draw, depth=0, names=None):
    """(avro type, value strategy, columnar-decodable?)"""
    names = names if names is not None else [0]

    def fresh(prefix):
        names[0] += 1
        return f"{prefix}{names[0]}"

    leaves = ["boolean", "int", "long", "float", "double", "string", "bytes", "date", "ts_micros", "ts_millis",
              "local_ts", "time_millis", "time_micros", "dec_bytes", "dec_fixed", "enum", "fixed"]
    nested = ["record", "array", "map", "nullable"] if depth < 2 else []
    kind = draw(st.sampled_from(leaves + nested * 2))
    if kind == "boolean":
        return "boolean", st.booleans(), True
    if kind == "int":
        return "int", st.integers(-2**31, 2**31 - 1), True
    if kind == "long":
        return "long", st.integers(-2**63, 2**63 - 1), True
    if kind == "float":
        return "float", st.floats(width=32, allow_nan=False), True
    if kind == "double":
        return "double", st.floats(allow_nan=False), True
    if kind == "string":
        return "string", st.text(max_size=6), True
    if kind == "bytes":
        return "bytes", st.binary(max_size=6), True
    if kind == "date":
        return {"type": "int", "logicalType": "date"}, st.dates(DT_MIN.date(), DT_MAX.date()), True
    if kind == "ts_micros":
        return {"type": "long", "logicalType": "timestamp-micros"}, \
            st.datetimes(DT_MIN, DT_MAX).map(lambda d: d.replace(tzinfo=UTC)), True
    if kind == "ts_millis":
        return {"type": "long", "logicalType": "timestamp-millis"}, \
            st.datetimes(DT_MIN, DT_MAX).map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000, tzinfo=UTC)), True
    if kind == "local_ts":
        return {"type": "long", "logicalType": "local-timestamp-micros"}, st.datetimes(DT_MIN, DT_MAX), True
    if kind == "time_millis":
        return {"type": "int", "logicalType": "time-millis"}, \
            st.times().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000)), True
    if kind == "time_micros":
        return {"type": "long", "logicalType": "time-micros"}, st.times(), True
    if kind in ("dec_bytes", "dec_fixed"):
        p = draw(st.integers(1, 18))
        s = draw(st.integers(0, p))
        lim = decimal.Decimal(10) ** (p - s) - decimal.Decimal(1).scaleb(-s)
        vals = st.decimals(-lim, lim, places=s, allow_nan=False, allow_infinity=False)
        if kind == "dec_bytes":
            return {"type": "bytes", "logicalType": "decimal", "precision": p, "scale": s}, vals, True
        return {"type": "fixed", "name": fresh("D"), "size": 8, "logicalType": "decimal", "precision": p,
                "scale": s}, vals, True
    if kind == "enum":
        # polars 2.1 panics on nullable enums and enums in arrays: enums take the record path
        return {"type": "enum", "name": fresh("E"), "symbols": ["A", "B", "C"]}, st.sampled_from("ABC"), False
    if kind == "fixed":
        return {"type": "fixed", "name": fresh("F"), "size": 3}, st.binary(min_size=3, max_size=3), True
    if kind == "record":
        fields = [draw(avro_types(depth + 1, names)) for _ in range(draw(st.integers(1, 3)))]
        t = {"type": "record", "name": fresh("R"),
             "fields": [{"name": f"f{i}", "type": f[0]} for i, f in enumerate(fields)]}
        return t, st.fixed_dictionaries({f"f{i}": f[1] for i, f in enumerate(fields)}), all(f[2] for f in fields)
    item = draw(avro_types(depth + 1, names))
    if kind == "array":
        return {"type": "array", "items": item[0]}, st.lists(item[1], max_size=3), item[2]
    if kind == "map":
        return {"type": "map", "values": item[0]}, st.dictionaries(st.text(max_size=3), item[1], max_size=3), False
    if isinstance(item[0], list):  # no union directly inside a union
        return item
    return ["null", item[0]], st.none() | item[1], item[2]


@st.composite
def blocks(draw):
    names = [0]
    fields = [draw(avro_types(0, names)) for _ in range(draw(st.integers(1, 4)))]
    schema = {"type": "record", "name": "gen", "namespace": "hudi_log.test",
              "fields": [{"name": f"c{i}", "type": f[0]} for i, f in enumerate(fields)]}
    records = draw(st.lists(st.fixed_dictionaries({f"c{i}": f[1] for i, f in enumerate(fields)}), max_size=5))
    return schema, records, all(f[2] for f in fields)


@settings(max_examples=300, deadline=None)
@given(blocks())
def test_generated_schemas_decode_alike_both_ways(case):
    schema, records, decodable = case
    b = block(schema, records)
    assert columnar_supported(schema) == decodable
    expected = b.to_arrow(columnar=False)
    assert expected.num_rows == len(records)
    if decodable:
        got = decode_block_content(b.content(), b.schema)
        assert got.equals(expected), (got.to_pylist(), expected.to_pylist())
    else:
        with pytest.raises(ColumnarDecodeError):
            decode_block_content(b.content(), b.schema)
    assert b.to_arrow().equals(expected)


def test_multi_branch_unions_are_declined():
    schema = {"type": "record", "name": "u", "fields": [{"name": "v", "type": ["null", "string", "long"]}]}
    assert not columnar_supported(schema)
    with pytest.raises(ColumnarDecodeError):
        decode_block_content(block(schema, [{"v": "a"}, {"v": 5}]).content(), json.dumps(schema))


def test_a_datum_that_does_not_fill_its_length_is_caught():
    schema = {"type": "record", "name": "r", "fields": [{"name": "s", "type": "string"}, {"name": "n", "type": "long"}]}
    datums = encode_records([{"s": "abc", "n": 1}, {"s": "de", "n": 2}], schema)
    # shift one byte of the first datum into the second's length: totals still add up
    body = (len(datums[0]) + 1).to_bytes(4, "big") + datums[0] + b"\x00" + \
        (len(datums[1]) - 1).to_bytes(4, "big") + datums[1][:-1]
    content = (3).to_bytes(4, "big") + (2).to_bytes(4, "big") + body[:-0 or None]
    with pytest.raises(ColumnarDecodeError):
        decode_block_content(content, json.dumps(schema))
    b = LogBlock.new(BlockType.avro_data_block, {"INSTANT_TIME": "1", "SCHEMA": json.dumps(schema)}, content)
    with pytest.raises(ContentError):  # the record path names the damage
        b.to_arrow()
