"""The compiled Avro block decoder (hudi_log/format/content/_avro_cols.c) against polars' columnar path and
the record path (fastavro): every corpus block it takes, hypothesis-generated flat schemas (every primitive,
nullable both ways, dates and timestamps), projections, and damaged blocks. A damaged block is refused
(ColumnarDecodeError) or, where the damage still leaves records of the schema, decoded exactly as the record
path decodes it: never another answer, never a crash."""

from __future__ import annotations

import datetime
import json
import math

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_log import BlockType, LogBlock, open_log
from hudi_log.errors import HudiLogError
from hudi_log.format.content import avro_columnar
from hudi_log.format.content.avro import encode_records
from hudi_log.format.content.avro_columnar import ColumnarDecodeError, decode_block_content
from hudi_log.format.grammar import avro_data_content

if avro_columnar._compiled is None:
    pytest.skip("the compiled decoder was not built (no C compiler at install)", allow_module_level=True)

UTC = datetime.timezone.utc
PRIMITIVES = {
    "int": st.integers(-2**31, 2**31 - 1),
    "long": st.integers(-2**63, 2**63 - 1),
    "double": st.floats(allow_nan=True),
    "float": st.floats(width=32, allow_nan=True),
    "boolean": st.booleans(),
    "string": st.text(max_size=12),
    "bytes": st.binary(max_size=12),
    "date": st.dates(datetime.date(1900, 1, 1), datetime.date(2200, 1, 1)),
    "timestamp-micros": st.datetimes(datetime.datetime(1900, 1, 1), datetime.datetime(2200, 1, 1), timezones=st.just(UTC)),
    "timestamp-millis": st.datetimes(datetime.datetime(1900, 1, 1), datetime.datetime(2200, 1, 1),
                                     timezones=st.just(UTC)).map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)),
}
LOGICAL = {"date": "int", "timestamp-micros": "long", "timestamp-millis": "long"}


def avro_type(name: str):
    return {"type": LOGICAL[name], "logicalType": name} if name in LOGICAL else name


def content(schema: dict, records: list[dict]) -> bytes:
    return avro_data_content(3, encode_records(records, schema))


def record_path(schema: dict, data: bytes) -> pa.Table:
    b = LogBlock.new(BlockType.avro_data_block, {"INSTANT_TIME": "1", "SCHEMA": json.dumps(schema)}, data)
    return b.to_arrow(columnar=False)


def same(a: pa.Table, b: pa.Table) -> bool:
    """Equal tables, NaN equal to NaN (Arrow's equals says a NaN is not itself)."""
    if a.schema != b.schema or a.num_rows != b.num_rows:
        return False
    norm = lambda v: "NaN" if isinstance(v, float) and math.isnan(v) else v  # noqa: E731
    return [[norm(v) for v in c.to_pylist()] for c in a.columns] == [[norm(v) for v in c.to_pylist()] for c in b.columns]


@st.composite
def flat_blocks(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(PRIMITIVES)), min_size=1, max_size=6))
    fields, values = [], {}
    for i, k in enumerate(kinds):
        t, v = avro_type(k), PRIMITIVES[k]
        nullable = draw(st.sampled_from([None, "first", "last"]))
        if nullable:
            t = ["null", t] if nullable == "first" else [t, "null"]
            v = st.none() | v
        fields.append({"name": f"c{i}", "type": t})
        values[f"c{i}"] = v
    schema = {"type": "record", "name": "flat", "namespace": "hudi_log.test", "fields": fields}
    return schema, draw(st.lists(st.fixed_dictionaries(values), max_size=6))


def test_every_corpus_block_it_takes_equals_polars_and_the_record_path(corpus_log_files):
    taken = 0
    for path in corpus_log_files:
        for b in open_log(path):
            if b.corrupt or b.block_type not in (BlockType.avro_data_block, BlockType.cdc_data_block):
                continue
            if avro_columnar._flat_plan(b.schema) is None:
                continue
            got = decode_block_content(b.content(), b.schema)
            assert same(got, decode_block_content(b.content(), b.schema, compiled=False)), path
            assert same(got, b.to_arrow(columnar=False)), path
            taken += 1
    assert taken >= 5


@settings(max_examples=300, deadline=None)
@given(flat_blocks())
def test_generated_flat_schemas_decode_as_the_record_path(case):
    schema, records = case
    assert avro_columnar._flat_plan(json.dumps(schema)) is not None
    data = content(schema, records)
    got = decode_block_content(data, json.dumps(schema))
    assert same(got, record_path(schema, data)), (got.to_pylist(), records)
    assert same(got, decode_block_content(data, json.dumps(schema), compiled=False))
    some = [f["name"] for f in schema["fields"]][::2]
    assert same(decode_block_content(data, json.dumps(schema), columns=some), got.select(some))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flat_blocks(), st.data())
def test_damaged_blocks_are_refused_or_read_as_the_record_path_reads_them(case, data):
    schema, records = case
    raw = bytearray(content(schema, records))
    how = data.draw(st.sampled_from(["flip", "cut", "append", "count"]))
    if how == "flip" and len(raw) > 8:
        i = data.draw(st.integers(8, len(raw) - 1))
        raw[i] ^= data.draw(st.integers(1, 255))
    elif how == "cut" and len(raw) > 8:
        del raw[data.draw(st.integers(8, len(raw) - 1)):]
    elif how == "append":
        raw += data.draw(st.binary(min_size=1, max_size=8))
    else:
        raw[4:8] = data.draw(st.integers(0, 10)).to_bytes(4, "big")
    try:
        got = decode_block_content(bytes(raw), json.dumps(schema))
    except ColumnarDecodeError:
        return
    try:
        want = record_path(schema, bytes(raw))
    except HudiLogError:
        pytest.fail(f"the compiled decoder took a block the record path refuses ({how})")
    assert same(got, want), how


@pytest.mark.parametrize("schema, datum, why", [
    ({"type": "record", "name": "r", "fields": [{"name": "b", "type": "boolean"}]}, b"\x02", "a boolean byte of 2"),
    ({"type": "record", "name": "r", "fields": [{"name": "v", "type": ["null", "long"]}]}, b"\x04\x02", "union branch 2"),
    ({"type": "record", "name": "r", "fields": [{"name": "v", "type": "int"}]}, b"\xfe\xff\xff\xff\x1f", "an int past 32 bits"),
    ({"type": "record", "name": "r", "fields": [{"name": "s", "type": "string"}]}, b"\x04\xff\xfe", "bytes that are not UTF-8"),
    ({"type": "record", "name": "r", "fields": [{"name": "s", "type": "string"}]}, b"\x12abcdefgh\xff",
     "a ninth byte that is not UTF-8"),
    ({"type": "record", "name": "r", "fields": [{"name": "s", "type": "string"}]}, b"\x10\xc3abcdefg",
     "a cut two-byte sequence in the first eight"),
    ({"type": "record", "name": "r", "fields": [{"name": "s", "type": "string"}]}, b"\x03", "a negative length"),
    ({"type": "record", "name": "r", "fields": [{"name": "v", "type": "long"}]}, b"\x80" * 10 + b"\x01", "an 11-byte varint"),
])
def test_values_outside_the_schema_are_refused(schema, datum, why):
    data = (3).to_bytes(4, "big") + (1).to_bytes(4, "big") + len(datum).to_bytes(4, "big") + datum
    with pytest.raises(ColumnarDecodeError):
        decode_block_content(data, json.dumps(schema))


def test_schemas_it_does_not_take_go_to_polars():
    for t in (["null", "string", "long"], {"type": "array", "items": "long"}, {"type": "bytes", "logicalType": "decimal",
              "precision": 10, "scale": 2}, {"type": "enum", "name": "e", "symbols": ["A"]}):
        schema = {"type": "record", "name": "r", "fields": [{"name": "v", "type": t}]}
        assert avro_columnar._flat_plan(json.dumps(schema)) is None, t
