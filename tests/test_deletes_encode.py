"""The one-pass delete encoder (deletes_fast.encode_fast, framing.framed_delete_block) against the
grammar's own serializer and fastavro: the same bytes on every delete block of the corpus and on
generated records of every ordering-value kind; the same refusals."""

from __future__ import annotations

import datetime
import decimal
import io

import pytest
from fastavro import schemaless_writer
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_log import open_log
from hudi_log.format import grammar
from hudi_log.format.block import LogBlock
from hudi_log.format.content import deletes
from hudi_log.format.content.deletes import ArrayItem, ArrayItemKind, DeletePayloadError, DeleteRecord, \
    OrderingKind, decode_delete_payload, encode_delete_payload
from hudi_log.format.content.deletes_fast import encode_fast
from hudi_log.format.framing import framed_delete_block
from hudi_log.format.grammar import BlockType, HeaderKey

UTC = datetime.timezone.utc


def fastavro_payload(records) -> bytes:
    """What the encoder wrote before it was one pass: fastavro's encoding of the checked datums."""
    out = io.BytesIO()
    schemaless_writer(out, deletes._WIRE_SCHEMA, {"deleteRecordList": [deletes._record_to_wire(r, i)
                                                                       for i, r in enumerate(records)]})
    return out.getvalue()


def grammar_block(header, payload: bytes) -> bytes:
    """The block through the generated codec: content parsed by the grammar, block serialized by it."""
    return LogBlock.new(BlockType.delete_block, header, grammar.delete_content(3, payload)).to_bytes()


def test_every_corpus_delete_block_encodes_back_identically(corpus_log_files):
    n = avro = 0
    for path in corpus_log_files:
        raw = path.read_bytes()
        for b in open_log(path):
            if b.corrupt or b.block_type != BlockType.delete_block:
                continue
            content = b.content()
            version = int.from_bytes(content[:4], "big")
            payload = content[grammar.DELETE_CONTENT_PREFIX_SIZE:]
            prefix = grammar.delete_content_prefix(version, len(payload))
            assert prefix + payload == content, (path, b.offset)
            if version == 3:  # what the writer writes: decode, encode in one pass, the same bytes
                assert encode_fast(b.deletes()) == payload == fastavro_payload(b.deletes()), (path, b.offset)
                assert grammar.delete_content(3, payload) == content
                avro += 1
            framed, offset = grammar.frame_block(b.block_type, b.header_entries, [prefix, payload], b.footer_entries)
            assert framed == raw[b.offset: b.offset + b.length] == b.to_bytes(), (path, b.offset)
            assert framed[offset: offset + b.content_length] == content
            n += 1
    assert n == avro >= 107, (n, avro)  # the corpus holds 107 delete blocks, all of content version 3


# ---- generated records: every ordering kind, null keys and partitions, non-ASCII text ----------
_INT32, _INT64 = (-(2**31), 2**31 - 1), (-(2**63), 2**63 - 1)
_unscaled = st.integers(-(10**30) + 1, 10**30 - 1)
_SCALARS = {
    "BOOLEAN": st.booleans(),
    "INT": st.integers(*_INT32),
    "LONG": st.integers(*_INT64),
    "FLOAT": st.floats(width=32),
    "DOUBLE": st.floats(),
    "BYTES": st.binary(max_size=40),
    "STRING": st.text(max_size=20),
    "DATE": st.one_of(st.dates(), st.integers(*_INT32)),
    "DECIMAL": st.one_of(_unscaled.map(deletes._unscaled_to_decimal), st.integers(-(10**14), 10**14)),
    "TIME_MICROS": st.one_of(st.times(), st.integers(*_INT64)),
    "TIMESTAMP_MICROS": st.one_of(st.datetimes(timezones=st.just(UTC)), st.datetimes(), st.integers(*_INT64)),
}
_item = st.one_of(
    st.just(ArrayItem(None, ArrayItemKind.NULL)),
    *(v.map(lambda x, k=k: ArrayItem(x, ArrayItemKind[k])) for k, v in _SCALARS.items()),
    st.one_of(st.dates(), st.integers(*_INT32)).map(lambda d: ArrayItem(d, ArrayItemKind.LOCAL_DATE)),
)
_ordering = st.one_of(
    st.just((None, OrderingKind.NULL)),
    *(v.map(lambda x, k=k: (x, OrderingKind[k])) for k, v in _SCALARS.items()),
    st.one_of(st.none(), st.lists(_item, max_size=4).map(tuple)).map(lambda a: (a, OrderingKind.ARRAY)),
)
_text = st.one_of(st.none(), st.just(""), st.text(max_size=30), st.sampled_from(["ключ-ü-7", "日本/東京", "🦄=x"]))
_records = st.lists(st.builds(lambda k, p, o: DeleteRecord(k, p, *o), _text, _text, _ordering), max_size=70)


@given(_records)
@settings(max_examples=300, deadline=None)
def test_one_pass_payload_equals_fastavro_and_the_grammar(records):
    payload = encode_fast(records)
    assert payload == fastavro_payload(records) == encode_delete_payload(iter(records))
    header = {HeaderKey.instant_time: "20260101000000000", HeaderKey.schema: '{"type":"string"}'}
    data = framed_delete_block(header, records).to_bytes()
    assert data == grammar_block(header, payload)
    (back,) = open_log(data, strict=True)
    assert len(back.deletes()) == len(records)


def test_common_records_round_trip_through_the_framed_block():
    records = [DeleteRecord(f"key-{i}-ключ", None if i % 3 == 0 else f"p={i % 4}", v, k)
               for i, (v, k) in enumerate([(0, OrderingKind.INT), (2**40, OrderingKind.LONG), ("z", OrderingKind.STRING),
                                           (None, OrderingKind.NULL), (True, OrderingKind.BOOLEAN)] * 30)]
    block = framed_delete_block({"INSTANT_TIME": "001"}, records)
    (back,) = open_log(block.to_bytes(), strict=True)
    assert back.deletes() == records and back.content() == block.content()
    assert decode_delete_payload(block.content()[grammar.DELETE_CONTENT_PREFIX_SIZE:]) == records


def test_no_deletes_is_the_empty_list():
    assert encode_fast([]) == fastavro_payload([]) == b"\x00"


@pytest.mark.parametrize("record,says", [
    ("k", "delete record 1: must be a DeleteRecord, not str"),
    (DeleteRecord(5, "p"), "delete record 1: record_key: must be a str or None, not int"),
    (DeleteRecord("k", b"p"), "delete record 1: partition_path: must be a str or None, not bytes"),
    (DeleteRecord("\ud800", "p"), "delete record 1: record_key: not encodable as UTF-8"),
    (DeleteRecord("k", "p", 2**31, OrderingKind.INT), "delete record 1: ordering value: INT value 2147483648 is outside"),
    (DeleteRecord("k", "p", 1, OrderingKind.NULL), "delete record 1: ordering value: NULL ordering kind with a non-None"),
    (DeleteRecord("k", "p", 1, "INT"), "ordering_kind must be an OrderingKind"),
    (DeleteRecord("k", "p", decimal.Decimal("0.1234567890123456"), OrderingKind.DECIMAL), "without rounding"),
    (DeleteRecord("k", "p", [[1]], OrderingKind.ARRAY), "arrays of ordering values do not nest"),
    (DeleteRecord("k", "p", True, OrderingKind.LONG), "LONG value must be an int, not bool"),
])
def test_refusals_name_the_record(record, says):
    with pytest.raises(DeletePayloadError, match=None) as e:
        encode_fast([DeleteRecord("ok", "p"), record])
    assert says in str(e.value)
    with pytest.raises(DeletePayloadError):
        framed_delete_block({"INSTANT_TIME": "001"}, [record])


def test_grammar_layout_facts():
    """The facts the encoder takes from the generated codec (grammar.py probes them)."""
    assert grammar.DELETE_CONTENT_PREFIX_SIZE == 8 and grammar.DELETE_CONTENT_BYTE_ORDER == "big"
    assert grammar.ORDERING_FLOAT_FORMATS == {int(grammar.OrderingKind.float): "<f", int(grammar.OrderingKind.double): "<d"}
    assert grammar.delete_content_prefix(3, 300) == grammar.delete_content(3, encode_fast([DeleteRecord("k", "p")] * 20))[:4] \
        + (300).to_bytes(4, "big")


# ---- the compiled column decoder (_deletes.c) and its Python twin ------------------------------
from hudi_log.format.content import deletes_fast  # noqa: E402


def test_the_compiled_decoder_is_built():
    assert deletes_fast._compiled is not None, "hudi_log.format.content._deletes was not built: pip install -e ."


def _both(payload: bytes):
    py = deletes_fast._decode_columns_py(payload)
    assert deletes_fast._compiled.decode(payload) == py, payload
    return py


@given(_records)
@settings(max_examples=200, deadline=None)
def test_compiled_decoder_equals_its_twin_on_payloads_and_their_damage(records):
    payload = encode_fast(records)
    got = _both(payload)
    common = all(r.ordering_kind in (OrderingKind.NULL, OrderingKind.BOOLEAN, OrderingKind.INT, OrderingKind.LONG,
                                     OrderingKind.STRING) for r in records)
    assert (got is not None) == common
    if common:  # what the strict decoder gives, as columns
        assert deletes_fast.DeleteColumns(*got) == deletes_fast.DeleteColumns.of(records)
    for cut in {0, 1, len(payload) // 2, len(payload) - 1}:
        _both(payload[:cut])
    _both(payload + b"\x00")
    for i in range(0, len(payload), max(1, len(payload) // 7)):
        for b in (0x00, 0x01, 0x80, 0xFF, 0x0E):
            _both(payload[:i] + bytes([b]) + payload[i + 1:])


@given(st.binary(max_size=60))
@settings(max_examples=500, deadline=None)
def test_compiled_decoder_equals_its_twin_on_any_bytes(data):
    _both(data)
    _both(b"\x02" + data)


def test_huge_counts_are_not_believed():
    assert _both(bytes.fromhex("feffffffffffffff7f") + b"\x00" * 20) is None  # count 2^62 - 1 in 29 bytes


def test_corpus_delete_blocks_as_columns(corpus_log_files):
    n = 0
    for path in corpus_log_files:
        for b in open_log(path):
            if not b.corrupt and b.block_type == BlockType.delete_block:
                assert b.delete_columns().records() == b.deletes(), (path, b.offset)
                _both(b.content()[grammar.DELETE_CONTENT_PREFIX_SIZE:])
                n += 1
    assert n >= 107


def test_delete_columns_of_uncommon_kinds_come_from_the_records():
    records = [DeleteRecord("a", "p", 1.5, OrderingKind.DOUBLE), DeleteRecord("b", None, (1, "x"), OrderingKind.ARRAY)]
    block = framed_delete_block({"INSTANT_TIME": "001"}, records)
    (back,) = open_log(block.to_bytes(), strict=True)
    cols = back.delete_columns()
    assert cols.kind_codes == bytes([OrderingKind.DOUBLE.value, OrderingKind.ARRAY.value])
    assert cols.records() == back.deletes()


# ---- the compiled column encoder and AppendHandle.delete_keys -----------------------------------
_values_any = st.one_of(st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.text(max_size=5),
                        st.sampled_from(["\ud800", 1.5, b"x"]))


@given(st.lists(st.tuples(st.one_of(_text, st.just("\udcff"), st.integers(0, 3)), _text,
                          st.sampled_from([0, 1, 2, 3, 7, 4, 12]), _values_any), max_size=30))
@settings(max_examples=400, deadline=None)
def test_compiled_encoder_takes_exactly_what_it_lays_out_as_the_python_encoder(rows):
    keys, parts, kinds, values = (list(c) for c in zip(*rows)) if rows else ([], [], [], [])
    got = deletes_fast._compiled.encode(keys, parts, bytes(kinds), values)
    records = [DeleteRecord(k, p, v, OrderingKind(c)) for k, p, c, v in rows]
    try:
        want = encode_fast(records)
    except DeletePayloadError:
        want = None
    if got is not None:  # whatever it lays out, it lays out as the Python encoder does
        assert got == want
    common = all(c in (0, 1, 2, 3, 7) for c in kinds)
    if want is not None and common and all(type(k) is not int for k in keys):
        assert got == want  # and it takes every valid common record
    columns = deletes_fast.DeleteColumns(keys, parts, bytes(kinds), values)
    if want is None:
        with pytest.raises(DeletePayloadError):
            deletes_fast.encode_columns(columns)
    else:
        assert deletes_fast.encode_columns(columns) == want


def _log_bytes(path) -> list[bytes]:
    return [f.read_bytes() for f in sorted(path.rglob(".*.log.*"))]


def test_delete_keys_writes_what_delete_writes_one_by_one(tmp_path):
    from hudi_log.log.append_handle import AppendHandle

    schema = {"type": "record", "name": "r", "fields": [{"name": "id", "type": "string"}]}
    keys = [f"k-{i}-ключ" for i in range(300)] + [7, True]
    out = []
    for how in ("one", "many"):
        h = AppendHandle(str(tmp_path / how), "p=1", "f1", "20260101000000000", schema, "id", seqno_start=1)
        h.delete("first", "p=0", 5)
        if how == "one":
            for k in keys:
                h.delete(k, "p=1")
        else:
            h.delete_keys(keys, "p=1")
        assert h.close().num_deletes == len(keys) + 1
        out.append(_log_bytes(tmp_path / how))
    assert out[0] == out[1] and len(out[0]) == 1
    (block,) = open_log(out[0][0])
    assert [d.record_key for d in block.deletes()] == ["first", *map(str, keys[:-1]), "true"]


@pytest.mark.parametrize("bad,at", [([None], 0), (["a", ""], 1), (["a", "b", None], 2)])
def test_delete_keys_refuses_a_missing_key_by_its_index(tmp_path, bad, at):
    from hudi_log.log.append_handle import AppendHandle, RecordError

    schema = {"type": "record", "name": "r", "fields": [{"name": "id", "type": "string"}]}
    h = AppendHandle(str(tmp_path), "p", "f1", "20260101000000000", schema, "id", seqno_start=1)
    h.delete("x")
    with pytest.raises(RecordError, match="a delete needs a record key") as e:
        h.delete_keys(bad)
    assert e.value.index == at + 1
    h.close()


def test_the_write_path_never_loads_the_construct_twin(tmp_path):
    """spec/hudi_log.py (Construct) builds the same payloads tens of times slower than the one-pass
    encoder (docs/benchmarks_deletes.md): a delete through write_table must not load it, nor Construct."""
    import subprocess
    import sys

    code = (
        "import sys, pyarrow as pa\n"
        "from hudi_log.table.write.client import write_table\n"
        "o = {'hoodie.table.name': 't', 'hoodie.datasource.write.recordkey.field': 'id',\n"
        "     'hoodie.datasource.write.precombine.field': 'ts', 'hoodie.datasource.write.table.type': 'MERGE_ON_READ'}\n"
        "t = pa.table({'id': ['a', 'b'], 'ts': [1, 2]})\n"
        f"write_table({str(tmp_path / 't')!r}, t, 'insert', o)\n"
        f"assert write_table({str(tmp_path / 't')!r}, t.slice(0, 1), 'delete', o).num_deletes == 1\n"
        "loaded = [m for m, mod in list(sys.modules.items()) if m == 'construct' or m.startswith('construct.')\n"
        "          or 'hudi_log_construct' in m or str(getattr(mod, '__file__', '') or '').endswith('spec/hudi_log.py')]\n"
        "print(loaded)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
