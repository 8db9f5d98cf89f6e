"""Delete-block payloads (content version 3): Avro HoodieDeleteRecordList."""

from __future__ import annotations

import datetime
import decimal
import math
import os
import struct
import zipfile
from pathlib import Path

import pytest
from fastavro.schema import parse_schema, to_parsing_canonical_form
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_log.format.content.deletes import (
    DELETE_RECORD_LIST_SCHEMA,
    ArrayItem,
    ArrayItemKind,
    DeletePayloadError,
    DeleteRecord,
    OrderingKind,
    decode_delete_payload,
    encode_delete_payload,
    wrap_ordering_value,
)
from hudi_log.errors import HudiLogError

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("HUDI_LOG_CORPUS", REPO.parent / "shared" / "corpus"))
DELETE_LOG = (
    CORPUS / "log_files" / "valid_log_delete" / ".6d3d1d6e-2298-4080-a0c1-494877d6f40a-0_20250618054711154.log.1_0-26-85"
)

UTC = datetime.timezone.utc
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


def needs_corpus(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"Hudi corpus not found at {path} (set HUDI_LOG_CORPUS to the shared corpus folder)")


# ---------------------------------------------------------------------------------------------
# A private, minimal block walker (the package reader is written elsewhere): yields
# (block type, content) for every block of a log file, big-endian framing of log format v1.


def _blocks(data: bytes):
    pos = 0
    while pos < len(data):
        assert data[pos : pos + 6] == b"#HUDI#", f"no magic at {pos}"
        (size,) = struct.unpack_from(">q", data, pos + 6)
        start = pos + 14
        version, block_type = struct.unpack_from(">ii", data, start)
        assert version == 1
        p = start + 8
        (count,) = struct.unpack_from(">i", data, p)
        p += 4
        for _ in range(count):
            _key, length = struct.unpack_from(">ii", data, p)
            p += 8 + length
        (content_length,) = struct.unpack_from(">q", data, p)
        p += 8
        content = data[p : p + content_length]
        p += content_length
        (footer_count,) = struct.unpack_from(">i", data, p)
        assert footer_count == 0
        p += 4
        (reverse,) = struct.unpack_from(">q", data, p)
        assert reverse == size + 6 and p + 8 == start + size
        yield block_type, content
        pos = start + size


def _delete_payloads(data: bytes) -> list[bytes]:
    out = []
    for block_type, content in _blocks(data):
        if block_type != 1:  # DELETE_BLOCK
            continue
        version, length = struct.unpack_from(">ii", content, 0)
        assert version == 3
        assert 8 + length == len(content)
        out.append(content[8:])
    return out


# ---------------------------------------------------------------------------------------------
# Fixed bytes


def test_empty_list_is_one_zero_byte():
    assert encode_delete_payload([]) == b"\x00"
    assert decode_delete_payload(b"\x00") == []


def test_default_ordering_is_int_wrapper_zero():
    record = DeleteRecord("k", "p")
    assert (record.ordering_value, record.ordering_kind) == (0, OrderingKind.INT)
    # count 1 | key branch 1, len 1, "k" | partition branch 1, len 1, "p" | IntWrapper branch 2, value 0 | end
    assert encode_delete_payload([record]) == bytes.fromhex("02 02 02 6b 02 02 70 04 00 00")


def test_long_wrapper_bytes_match_hudi_rs_fixture():
    # Two deletes, keys "4" and "3", empty partition, LongWrapper 4000 and 3000 (hudi-rs PR #663).
    payload = bytes.fromhex("04 020234 0200 06c03e 020233 0200 06f02e 00")
    assert decode_delete_payload(payload) == [
        DeleteRecord("4", "", 4000, OrderingKind.LONG),
        DeleteRecord("3", "", 3000, OrderingKind.LONG),
    ]
    assert encode_delete_payload(decode_delete_payload(payload)) == payload


def test_array_wrapper_layout():
    # Branch 12 (ArrayWrapper) | wrappedValues branch 1 (array) | 2 items: LongWrapper(9), LongWrapper(1).
    record = DeleteRecord(
        "k", None, (ArrayItem(9, ArrayItemKind.LONG), ArrayItem(1, ArrayItemKind.LONG)), OrderingKind.ARRAY
    )
    payload = encode_delete_payload([record])
    assert payload == bytes.fromhex("02 02026b 00 18 02 04 0612 0602 00 00")
    assert decode_delete_payload(payload) == [record]
    # A null wrappedValues and an empty one are different bytes.
    assert encode_delete_payload([DeleteRecord(None, None, None, OrderingKind.ARRAY)]) == bytes.fromhex("02 00 00 18 00 00")
    assert encode_delete_payload([DeleteRecord(None, None, (), OrderingKind.ARRAY)]) == bytes.fromhex("02 00 00 18 02 00 00")


def test_decimal_is_rescaled_to_scale_15_minimal_twos_complement():
    record = DeleteRecord(None, None, decimal.Decimal("-1"), OrderingKind.DECIMAL)
    payload = encode_delete_payload([record])
    unscaled = (-(10**15)).to_bytes(7, "big", signed=True)  # minimal: 7 bytes
    assert payload == bytes.fromhex("02 00 00 12") + bytes([len(unscaled) * 2]) + unscaled + b"\x00"
    (decoded,) = decode_delete_payload(payload)
    assert decoded.ordering_value == decimal.Decimal("-1")
    assert decoded.ordering_value.as_tuple().exponent == -15
    # Trailing zeros beyond scale 15 are dropped exactly; anything that needs rounding is refused.
    assert encode_delete_payload([DeleteRecord(None, None, decimal.Decimal("1.50000000000000000000"), OrderingKind.DECIMAL)])
    with pytest.raises(DeletePayloadError, match="rounding"):
        encode_delete_payload([DeleteRecord(None, None, decimal.Decimal("1e-16"), OrderingKind.DECIMAL)])
    with pytest.raises(DeletePayloadError, match="30 digits"):
        encode_delete_payload([DeleteRecord(None, None, decimal.Decimal(10**15), OrderingKind.DECIMAL)])
    assert encode_delete_payload([DeleteRecord(None, None, decimal.Decimal(10**15 - 1), OrderingKind.DECIMAL)])


def test_schema_is_json_compatible_and_matches_released_union():
    import json

    schema = json.loads(json.dumps(DELETE_RECORD_LIST_SCHEMA))
    assert schema == DELETE_RECORD_LIST_SCHEMA
    (field,) = schema["fields"]
    record = field["type"]["items"]
    assert [f["name"] for f in record["fields"]] == ["recordKey", "partitionPath", "orderingVal"]
    union = record["fields"][2]["type"]
    names = [b if isinstance(b, str) else b["name"] for b in union]
    assert names == [
        "null",
        "BooleanWrapper",
        "IntWrapper",
        "LongWrapper",
        "FloatWrapper",
        "DoubleWrapper",
        "BytesWrapper",
        "StringWrapper",
        "DateWrapper",
        "DecimalWrapper",
        "TimeMicrosWrapper",
        "TimestampMicrosWrapper",
        "ArrayWrapper",
    ]
    assert [OrderingKind(i).name for i in range(13)] == [k.name for k in OrderingKind]
    decimal_type = union[9]["fields"][0]["type"]
    assert decimal_type == {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 15}
    assert union[8]["fields"][0]["type"] == "int"  # DateWrapper: no logical type in Hudi's schema
    assert union[11]["fields"][0]["type"] == "long"  # TimestampMicrosWrapper: likewise
    to_parsing_canonical_form(parse_schema(schema))  # a valid Avro schema


# ---------------------------------------------------------------------------------------------
# Inference


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, OrderingKind.NULL),
        (True, OrderingKind.BOOLEAN),
        (0, OrderingKind.INT),
        (2**31 - 1, OrderingKind.INT),
        (-(2**31), OrderingKind.INT),
        (2**31, OrderingKind.LONG),
        (-(2**31) - 1, OrderingKind.LONG),
        (1.5, OrderingKind.DOUBLE),
        (b"x", OrderingKind.BYTES),
        ("x", OrderingKind.STRING),
        (datetime.date(2024, 2, 29), OrderingKind.DATE),
        (datetime.datetime(2024, 2, 29, 1, 2, 3, tzinfo=UTC), OrderingKind.TIMESTAMP_MICROS),
        (decimal.Decimal("3.14"), OrderingKind.DECIMAL),
        (datetime.time(12, 0), OrderingKind.TIME_MICROS),
        ([1, "a"], OrderingKind.ARRAY),
    ],
)
def test_wrap_ordering_value_infers_like_hudi(value, kind):
    assert wrap_ordering_value(value)[1] is kind
    assert DeleteRecord.of("k", "p", value).ordering_kind is kind


def test_wrap_ordering_value_normalises_and_rejects():
    assert wrap_ordering_value(bytearray(b"ab")) == (b"ab", OrderingKind.BYTES)
    assert wrap_ordering_value([2**40, None, datetime.date(2020, 1, 1)]) == (
        (ArrayItem(2**40, ArrayItemKind.LONG), ArrayItem(None, ArrayItemKind.NULL), ArrayItem(datetime.date(2020, 1, 1), ArrayItemKind.DATE)),
        OrderingKind.ARRAY,
    )
    for bad in (2**63, object(), {1: 2}, [[1]], decimal.Decimal("NaN"), "\ud800"):
        with pytest.raises(DeletePayloadError):
            wrap_ordering_value(bad)


@pytest.mark.parametrize(
    "record",
    [
        DeleteRecord("k", "p", 2**31, OrderingKind.INT),
        DeleteRecord("k", "p", True, OrderingKind.INT),
        DeleteRecord("k", "p", 2**63, OrderingKind.LONG),
        DeleteRecord("k", "p", 1, OrderingKind.BOOLEAN),
        DeleteRecord("k", "p", 1e39, OrderingKind.FLOAT),
        DeleteRecord("k", "p", "x", OrderingKind.BYTES),
        DeleteRecord("k", "p", b"x", OrderingKind.STRING),
        DeleteRecord("k", "p", 0, OrderingKind.NULL),
        DeleteRecord("k", "p", datetime.datetime(2020, 1, 1), OrderingKind.DATE),
        DeleteRecord("k", "p", 2**31, OrderingKind.DATE),
        DeleteRecord("k", "p", datetime.time(1, tzinfo=UTC), OrderingKind.TIME_MICROS),
        DeleteRecord("k", "p", "x", OrderingKind.ARRAY),
        DeleteRecord("k", "p", [[1]], OrderingKind.ARRAY),
        DeleteRecord("k", "p", 0, 2),  # type: ignore[arg-type]
        DeleteRecord(5, "p"),  # type: ignore[arg-type]
        DeleteRecord("k", "\udc00"),
    ],
    ids=lambda r: f"{getattr(r.ordering_kind, 'name', r.ordering_kind)}:{r.ordering_value!r}:{r.record_key!r}",
)
def test_encode_rejects_values_that_do_not_fit(record):
    with pytest.raises(DeletePayloadError):
        encode_delete_payload([record])


def test_error_class():
    assert issubclass(DeletePayloadError, ValueError)
    assert issubclass(DeletePayloadError, HudiLogError)
    with pytest.raises(DeletePayloadError):
        encode_delete_payload(["not a record"])  # type: ignore[list-item]


# ---------------------------------------------------------------------------------------------
# Round trips (property-based)

DATE_DAYS = st.integers(*INT32)
MICROS = st.integers(*INT64)


def _scalar(kind: str):
    """(strategy of values as encode accepts them, function giving the value decode returns)."""
    ident = lambda v: v  # noqa: E731
    if kind == "NULL":
        return st.none(), ident
    if kind == "BOOLEAN":
        return st.booleans(), ident
    if kind == "INT":
        return st.integers(*INT32), ident
    if kind == "LONG":
        return st.integers(*INT64), ident
    if kind == "FLOAT":
        return st.floats(width=32, allow_nan=False), ident
    if kind == "DOUBLE":
        return st.floats(allow_nan=False), ident
    if kind == "BYTES":
        return st.binary(max_size=40), ident
    if kind == "STRING":
        return st.text(max_size=40), ident
    if kind in ("DATE", "LOCAL_DATE"):
        return st.one_of(st.dates(), DATE_DAYS), _canonical_date
    if kind == "DECIMAL":
        return (
            st.integers(-(10**30) + 1, 10**30 - 1).map(lambda n: decimal.Decimal(n).scaleb(-15, decimal.Context(prec=60))),
            ident,
        )
    if kind == "TIME_MICROS":
        return st.one_of(st.times(), MICROS), _canonical_time
    if kind == "TIMESTAMP_MICROS":
        return (
            st.one_of(st.datetimes(timezones=st.just(UTC)), st.datetimes(), MICROS),
            _canonical_timestamp,
        )
    raise AssertionError(kind)


def _canonical_date(v):
    if isinstance(v, datetime.date):
        return v
    try:
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=v)
    except OverflowError:
        return v


def _canonical_time(v):
    if isinstance(v, datetime.time):
        return v
    if 0 <= v < 86_400_000_000:
        return (datetime.datetime(2000, 1, 1) + datetime.timedelta(microseconds=v)).time()
    return v


def _canonical_timestamp(v):
    if isinstance(v, datetime.datetime):
        return v if v.tzinfo else v.replace(tzinfo=UTC)
    try:
        return datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=v)
    except OverflowError:
        return v


@st.composite
def item_and_expected(draw):
    kind = draw(st.sampled_from(list(ArrayItemKind)))
    values, canon = _scalar(kind.name)
    value = draw(values)
    return ArrayItem(value, kind), ArrayItem(canon(value), kind)


@st.composite
def ordering_and_expected(draw):
    kind = draw(st.sampled_from(list(OrderingKind)))
    if kind is OrderingKind.ARRAY:
        pairs = draw(st.one_of(st.none(), st.lists(item_and_expected(), max_size=4)))
        if pairs is None:
            return None, None, kind
        items = [p[0] for p in pairs]
        given_value = draw(st.sampled_from([list, tuple]))(items)
        return given_value, tuple(p[1] for p in pairs), kind
    values, canon = _scalar(kind.name)
    value = draw(values)
    return value, canon(value), kind


@st.composite
def records_and_expected(draw):
    out_given, out_expected = [], []
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.one_of(st.none(), st.text(max_size=20)))
        part = draw(st.one_of(st.none(), st.text(max_size=20)))
        given_value, expected_value, kind = draw(ordering_and_expected())
        out_given.append(DeleteRecord(key, part, given_value, kind))
        out_expected.append(DeleteRecord(key, part, expected_value, kind))
    return out_given, out_expected


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(records_and_expected())
def test_round_trip_every_kind(pair):
    records, expected = pair
    payload = encode_delete_payload(records)
    decoded = decode_delete_payload(payload)
    assert decoded == expected
    assert encode_delete_payload(decoded) == payload


@pytest.mark.parametrize("kind", list(OrderingKind))
def test_each_kind_round_trips_at_least_once(kind):
    # Deterministic companion of the property test: one representative per kind.
    samples = {
        OrderingKind.NULL: None,
        OrderingKind.BOOLEAN: False,
        OrderingKind.INT: -7,
        OrderingKind.LONG: 7,  # same number as an INT would be, different bytes
        OrderingKind.FLOAT: 0.5,
        OrderingKind.DOUBLE: -0.0,
        OrderingKind.BYTES: b"\x00\xff",
        OrderingKind.STRING: "ключ",
        OrderingKind.DATE: datetime.date(1969, 12, 31),
        OrderingKind.DECIMAL: decimal.Decimal("-0.000000000000001"),
        OrderingKind.TIME_MICROS: datetime.time(23, 59, 59, 999999),
        OrderingKind.TIMESTAMP_MICROS: datetime.datetime(1900, 1, 1, tzinfo=UTC),
        OrderingKind.ARRAY: (ArrayItem(datetime.date(2024, 1, 1), ArrayItemKind.LOCAL_DATE), ArrayItem(None, ArrayItemKind.NULL)),
    }
    record = DeleteRecord("key", "part", samples[kind], kind)
    payload = encode_delete_payload([record])
    (decoded,) = decode_delete_payload(payload)
    assert decoded == record and decoded.ordering_kind is kind
    assert encode_delete_payload([decoded]) == payload


def test_int_and_long_of_same_number_stay_distinct():
    as_int = encode_delete_payload([DeleteRecord("k", None, 5, OrderingKind.INT)])
    as_long = encode_delete_payload([DeleteRecord("k", None, 5, OrderingKind.LONG)])
    assert as_int != as_long
    assert decode_delete_payload(as_int)[0].ordering_kind is OrderingKind.INT
    assert decode_delete_payload(as_long)[0].ordering_kind is OrderingKind.LONG


def test_float_nan_round_trips_bytes():
    payload = encode_delete_payload([DeleteRecord(None, None, math.nan, OrderingKind.FLOAT)])
    (decoded,) = decode_delete_payload(payload)
    assert math.isnan(decoded.ordering_value)
    assert encode_delete_payload([decoded]) == payload


def test_out_of_python_range_temporals_decode_to_raw_ints():
    records = [
        DeleteRecord(None, None, 2**31 - 1, OrderingKind.DATE),
        DeleteRecord(None, None, -1, OrderingKind.TIME_MICROS),
        DeleteRecord(None, None, 2**63 - 1, OrderingKind.TIMESTAMP_MICROS),
    ]
    decoded = decode_delete_payload(encode_delete_payload(records))
    assert decoded == records


# ---------------------------------------------------------------------------------------------
# Bad payloads


def _sample_payload() -> bytes:
    return encode_delete_payload(
        [
            DeleteRecord("key-1", "city=sf"),
            DeleteRecord("key-2", None, decimal.Decimal("12.5"), OrderingKind.DECIMAL),
            DeleteRecord(None, "", (ArrayItem("a", ArrayItemKind.STRING),), OrderingKind.ARRAY),
        ]
    )


def test_truncated_payload_raises():
    payload = _sample_payload()
    for cut in range(len(payload)):
        with pytest.raises(DeletePayloadError):
            decode_delete_payload(payload[:cut])


def test_trailing_bytes_raise():
    with pytest.raises(DeletePayloadError, match="trailing"):
        decode_delete_payload(_sample_payload() + b"\x00")
    with pytest.raises(DeletePayloadError, match="trailing"):
        decode_delete_payload(b"\x00\x00")


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (bytes.fromhex("02 00 00 1a 00"), "union branch 13 does not exist"),
        (bytes.fromhex("02 00 00 01 00 00"), "negative union branch"),
        (bytes.fromhex("02 04"), "union branch 2 of [null, string]"),
        (bytes.fromhex("01 02 00 00 00 00"), "array block with a negative count (non-canonical)"),
        (bytes.fromhex("02 00 00 04 00 02 00 00 04 00 00"), "array split into two blocks (non-canonical)"),
        (bytes.fromhex("02 00 00 04 80 00 00"), "over-long varint"),
        (bytes.fromhex("02 00 00 04 80 80 80 80 10 00"), "INT beyond 32 bits"),
        (bytes.fromhex("02 00 00 02 02 00"), "boolean byte 2"),
        (bytes.fromhex("02 02 02 ff 00 00 00"), "invalid UTF-8 key"),
        (bytes.fromhex("02 00 00 12 00 00"), "zero-length decimal"),
        (bytes.fromhex("02 00 00 12 04 00 01 00"), "non-minimal decimal bytes"),
        (bytes.fromhex("02 00 00 18 02 04 1a 00 00"), "item union branch 13 does not exist"),
        (bytes.fromhex("ff ff ff ff ff ff ff ff ff ff 01"), "absurd varint"),
    ],
)
def test_garbled_payload_raises(payload, why):
    with pytest.raises(DeletePayloadError):
        decode_delete_payload(payload)


def test_non_bytes_input_raises():
    with pytest.raises(DeletePayloadError):
        decode_delete_payload("\x00")  # type: ignore[arg-type]


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=64))
def test_random_bytes_decode_or_raise_delete_payload_error_only(data):
    try:
        records = decode_delete_payload(data)
    except DeletePayloadError:
        return
    assert encode_delete_payload(records) == data


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_payloads_decode_or_raise_delete_payload_error_only(data):
    payload = bytearray(_sample_payload())
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(payload) - 1))
        payload[i] = data.draw(st.integers(0, 255))
    try:
        records = decode_delete_payload(bytes(payload))
    except DeletePayloadError:
        return
    assert encode_delete_payload(records) == bytes(payload)


# ---------------------------------------------------------------------------------------------
# Real Hudi files

# From log_files/valid_log_delete/datagen.sql: DELETE ... WHERE rider in ('rider-A', 'rider-C', 'rider-D'),
# table partitioned by city (hive-style path), no ordering value given, so IntWrapper(0).
DELETED = {
    "334e26e9-8355-45cc-97c6-c31daf0df330",  # rider-A, san_francisco
    "e96c4396-3fad-413a-a942-4cb36106d721",  # rider-C, san_francisco
    "9909a8b1-2d15-4d3d-8ec9-efc48c536a00",  # rider-D, san_francisco
}


def test_corpus_delete_block():
    needs_corpus(DELETE_LOG)
    (payload,) = _delete_payloads(DELETE_LOG.read_bytes())
    records = decode_delete_payload(payload)
    assert len(records) == 3
    assert {r.record_key for r in records} == DELETED
    for record in records:
        assert record.partition_path == "city=san_francisco"
        assert (record.ordering_value, record.ordering_kind) == (0, OrderingKind.INT)
    assert encode_delete_payload(records) == payload


def test_corpus_tables_delete_blocks_round_trip():
    tables = CORPUS / "tables"
    needs_corpus(tables)
    seen = empty = 0
    for archive in sorted(tables.glob("*.zip")):
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                base = name.rsplit("/", 1)[-1]
                if name.startswith("__MACOSX/") or not base.startswith(".") or ".log." not in base:
                    continue
                for payload in _delete_payloads(zf.read(name)):
                    records = decode_delete_payload(payload)
                    assert encode_delete_payload(records) == payload, f"{archive.name}:{name}"
                    for record in records:
                        assert (record.ordering_value, record.ordering_kind) == (0, OrderingKind.INT)
                    seen += 1
                    empty += payload == b"\x00"
    if seen == 0:
        pytest.skip(f"no delete blocks found in {tables}")
    assert empty > 0  # the metadata table's bootstrap delete blocks
