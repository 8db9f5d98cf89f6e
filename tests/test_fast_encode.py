"""The writer's fast path gives the bytes of the generated-serializer path.

* ``grammar.frame_block`` / ``writer.framed_avro_block`` (content assembled from parts, only the
  framing built as generated objects) against ``grammar.avro_data_content`` + ``serialize_block``
  (every record a generated object, the content parsed again): generated blocks and every Avro
  data block of the corpus.
* ``columnar_encode`` against fastavro, datum by datum, on generated flat schemas and values: the
  compiled encoder (``hudi_log.format.content._avro_rows``) and the pyarrow path alike.
* ``AppendHandle.write_all`` (dicts and Arrow, a batch at a time) against ``write`` record by
  record: the same files, blocks, stats and errors.
* the grammar facts the fast path uses (prefix sizes, byte order) against the generated codec.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import shutil
import struct

import fastavro
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_log import open_log
from hudi_log.format import grammar
from hudi_log.format.content import columnar_encode
from hudi_log.log.append_handle import (
    RECORDS_PER_SIZE_ESTIMATE,
    AppendHandle,
    RecordError,
    avro_to_arrow_schema,
)
from hudi_log.format.block import LogBlock
from hudi_log.format.grammar import BlockType, HeaderKey, HudiLog
from hudi_log.format.framing import framed_avro_block
from test_append_handle import TABLE as TRIPS

# ---- framing ------------------------------------------------------------------------------------
header_values = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
headers = st.dictionaries(st.sampled_from([HeaderKey.instant_time, HeaderKey.schema, HeaderKey.target_instant_time]),
                          header_values, min_size=0, max_size=3)
datum_lists = st.lists(st.binary(max_size=300), max_size=40)


def slow_path(block_type, header, version, datums) -> bytes:
    return LogBlock.new(block_type, header, grammar.avro_data_content(version, datums)).to_bytes()


def run_of(datums) -> bytes:
    return b"".join(grammar.avro_record_prefix(len(d)) + d for d in datums)


@given(header=headers, datums=datum_lists, version=st.sampled_from([1, 2, 3]),
       block_type=st.sampled_from([BlockType.avro_data_block, BlockType.cdc_data_block]))
@settings(max_examples=150, deadline=None)
def test_framed_block_equals_generated_serializer(header, datums, version, block_type):
    run = run_of(datums)
    fast = framed_avro_block(block_type, header, version, len(datums), [run[: len(run) // 3], memoryview(run)[len(run) // 3:]])
    data = fast.to_bytes()
    assert data == slow_path(block_type, header, version, datums)
    # and it reads back: content where the block says, records as given
    (back,) = list(open_log(data, strict=True))
    assert back.datums() == datums and back.header_entries == fast.header_entries
    assert fast.content() == data[fast.content_offset: fast.content_offset + fast.content_length]


def test_every_corpus_avro_block_reframes_identically(corpus_log_files):
    n = 0
    for path in corpus_log_files:
        raw = path.read_bytes()
        for b in open_log(path):
            if b.corrupt or b.block_type not in grammar.RECORD_BLOCK_TYPES:
                continue
            datums = b.datums()
            version = int.from_bytes(b.content()[:4], "big")
            fast, offset = grammar.frame_block(
                b.block_type, b.header_entries, [grammar.avro_content_prefix(version, len(datums)), run_of(datums)],
                b.footer_entries,
            )
            assert fast == raw[b.offset: b.offset + b.length] == b.to_bytes(), (path, b.offset)
            assert fast[offset: offset + b.content_length] == b.content()
            n += 1
    assert n >= 12  # the corpus holds 12 Avro data blocks


def test_grammar_facts_match_the_generated_codec():
    c = HudiLog.AvroDataContent(None, None, None)
    c.content_version, c.num_records, c.records = 3, 0, []
    assert grammar.avro_content_prefix(3, 0) == grammar.write(c, grammar.AVRO_CONTENT_PREFIX_SIZE)
    r = HudiLog.AvroRecord(None, None, None)
    r.len_datum, r.datum = 258, b"x" * 258
    assert grammar.write(r, grammar.AVRO_RECORD_PREFIX_SIZE + 258)[: grammar.AVRO_RECORD_PREFIX_SIZE] == grammar.avro_record_prefix(258)
    assert grammar.avro_content_prefix(2, 70000) == grammar.avro_data_content(2, [b""] * 70000)[: grammar.AVRO_CONTENT_PREFIX_SIZE]


def test_frame_block_refuses_what_is_not_a_block_type():
    with pytest.raises(ValueError):
        grammar.frame_block(7, (), [b""])


# ---- the columnar encoder -------------------------------------------------------------------------
PRIMS = {
    "null": st.none(),
    "boolean": st.booleans(),
    "int": st.integers(-(2**31), 2**31 - 1),
    "long": st.integers(-(2**63), 2**63 - 1),
    "float": st.floats(width=32, allow_nan=True),
    "double": st.floats(allow_nan=True),
    "string": st.text(max_size=30),
    "bytes": st.binary(max_size=30),
}


@st.composite
def schemas_and_rows(draw):
    nfields = draw(st.integers(0, 7))
    fields, strategies = [], {}
    for i in range(nfields):
        t = draw(st.sampled_from(sorted(PRIMS)))
        shape = draw(st.sampled_from(["plain", "null_first", "null_last"])) if t != "null" else "plain"
        avro_t = t if shape == "plain" else (["null", t] if shape == "null_first" else [t, "null"])
        fields.append({"name": f"f{i}", "type": avro_t})
        strategies[f"f{i}"] = PRIMS[t] if shape == "plain" else st.one_of(st.none(), PRIMS[t])
    schema = {"type": "record", "name": "r", "fields": fields}
    rows = draw(st.lists(st.fixed_dictionaries(strategies), min_size=1, max_size=25))
    return schema, rows


def fastavro_run(schema, rows) -> bytes:
    parsed = fastavro.parse_schema(schema)
    out = []
    for r in rows:
        b = io.BytesIO()
        fastavro.schemaless_writer(b, parsed, r)
        out.append(b.getvalue())
    return run_of(out)


NATIVE = columnar_encode._native
ENCODERS = {"compiled": NATIVE, "pyarrow": None} if NATIVE is not None else {"pyarrow": None}


@contextlib.contextmanager
def encoder(native):
    saved = columnar_encode._native
    columnar_encode._native = native
    try:
        yield
    finally:
        columnar_encode._native = saved


def encodings(plans, cols, n) -> dict[str, object]:
    """``encode_table`` by each encoder this build has."""
    out = {}
    for name, native in ENCODERS.items():
        with encoder(native):
            out[name] = columnar_encode.encode_table(plans, cols, n)
    return out


def test_the_compiled_encoder_is_built_where_a_compiler_is():
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler on this machine: the package runs on the pyarrow encoder")
    assert NATIVE is not None, "hudi_log.format.content._avro_rows was not built: pip install -e . should compile it"


@given(schemas_and_rows())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_columnar_encoding_equals_fastavro(case):
    schema, rows = case
    plans = columnar_encode.plan(schema)
    assert plans is not None
    table = pa.Table.from_pylist(rows, schema=columnar_encode.arrow_schema(plans))
    cols = {p.name: table.column(p.name).slice(0) for p in plans}  # chunked, as tables hold them
    want = fastavro_run(schema, rows)
    for name, enc in encodings(plans, cols, len(rows)).items():
        assert bytes(enc.span(0, len(rows))) == want, name
        assert len(enc) == len(rows) and sum(enc.record_sizes()) == enc.offsets[-1], name


def test_columnar_encoding_edge_values():
    schema = {"type": "record", "name": "r", "fields": [
        {"name": "l", "type": "long"}, {"name": "i", "type": ["int", "null"]},
        {"name": "f", "type": "float"}, {"name": "d", "type": ["null", "double"]}, {"name": "s", "type": "string"},
    ]}
    rows = [
        {"l": v, "i": iv, "f": fv, "d": dv, "s": sv}
        for v, iv, fv, dv, sv in zip(
            [0, -1, 1, 63, 64, -64, -65, 2**63 - 1, -(2**63), 2**35],
            [None, 2**31 - 1, -(2**31), 0, None, 1, -1, 300, -300, None],
            [0.0, -0.0, math.inf, -math.inf, math.nan, 3.4e38, 1e-45, 1.5, -2.25, 0.1],
            [None, math.nan, -0.0, 1e308, 5e-324, None, 2.5, -1.0, math.inf, 0.1],
            ["", "é", "\U0001f600", "a" * 63, "b" * 64, "c" * 200, "\x00", "x", "yz", "end"],
        )
    ]
    plans = columnar_encode.plan(schema)
    table = pa.Table.from_pylist(rows, schema=columnar_encode.arrow_schema(plans))
    # sliced columns too: an Arrow offset into every buffer
    for cols, part in (({p.name: table.column(p.name).combine_chunks() for p in plans}, rows),
                       ({p.name: table.column(p.name).combine_chunks().slice(3, 5) for p in plans}, rows[3:8])):
        for name, enc in encodings(plans, cols, len(part)).items():
            assert bytes(enc.span(0, len(part))) == fastavro_run(schema, part), name


def test_unsupported_schemas_have_no_plan():
    for t in ({"type": "array", "items": "int"}, ["null", "int", "string"], {"type": "long", "logicalType": "timestamp-micros"},
              {"type": "enum", "name": "e", "symbols": ["A"]}, {"type": "fixed", "name": "x", "size": 2}):
        assert columnar_encode.plan({"type": "record", "name": "r", "fields": [{"name": "a", "type": t}]}) is None


def test_column_checks_name_the_first_bad_row():
    p = columnar_encode.plan({"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]})[0]
    with pytest.raises(columnar_encode.ColumnError) as e:
        columnar_encode.encode_field(p, pa.array([1, 2, 2**31, 3], pa.int64()))
    assert e.value.row == 2 and e.value.field == "a"
    with pytest.raises(columnar_encode.ColumnError) as e:
        columnar_encode.encode_field(p, pa.array([1, None], pa.int32()))
    assert e.value.row == 1


# ---- the append handle: batches against records one by one ----------------------------------------------
# the trips table of test_append_handle, with a non-null default and a plain (non-union) field
TABLE = {**TRIPS, "fields": [f for f in TRIPS["fields"] if f["name"] != "city"] + [
    {"name": "n", "type": ["int", "null"], "default": 7},
    {"name": "ok", "type": "boolean", "default": True},
]}
INSTANT = "20250101000000000"
FILE_ID = "fast0000-0000-0000-0000-000000000000-0"


def rows(n: int, start: int = 0) -> list[dict]:
    out = []
    for i in range(start, start + n):
        r = {"ts": 1_700_000_000_000 + i * 7919, "uuid": f"k-{i:06d}", "rider": "r" * (i % 50) if i % 11 else None,
             "fare": (i % 997) / 7 if i % 13 else None, "n": i % 300 - 150, "ok": i % 2 == 0}
        if i % 17 == 0:
            del r["n"]  # takes its default
        out.append(r)
    return out


def write_files(tmp_path, name, feed, **kw) -> tuple[list[bytes], object]:
    base = tmp_path / name
    h = AppendHandle(str(base), "p=1", FILE_ID, INSTANT, TABLE, "uuid", seqno_start=5, **kw)
    feed(h)
    stats = h.close()
    return [(base / "p=1" / f).read_bytes() for f in stats.log_files], stats


def stats_summary(s):
    return (s.num_writes, s.num_inserts, s.num_update_writes, s.data_blocks, s.total_log_blocks,
            s.total_write_bytes, [(a.start_offset, a.bytes_written) for a in s.appends])


@pytest.mark.parametrize("which", list(ENCODERS))
@pytest.mark.parametrize("max_block_size, n", [(1, 200), (700, 1500), (20_000, 3000), (256 * 1024 * 1024, 3000)])
def test_write_all_equals_write_one_by_one(tmp_path, max_block_size, n, which, monkeypatch):
    monkeypatch.setattr(columnar_encode, "_native", ENCODERS[which])
    data = rows(n)
    arrow = pa.Table.from_pylist([{**r, "n": r.get("n", 7)} for r in data], schema=avro_to_arrow_schema(TABLE))

    first = n // 3

    def one_by_one(h):
        h._plans = None  # the reference: fastavro record by record
        for r in data[:first]:
            h.write(r, is_update=False)
        for r in data[first:]:
            h.write(r)

    def dicts(h):
        h.write_all(data[:first], is_update=False)
        h.write_all(iter(data[first:]))

    def pending(h):  # write() one by one, encoded PENDING_RECORDS at a time
        for r in data[:first]:
            h.write(r, is_update=False)
        for r in data[first:]:
            h.write(r)

    def arrow_input(h):
        h.write_all(arrow.slice(0, first), is_update=False)
        h.write_all(arrow.slice(first).to_batches()[0])

    ref, ref_stats = write_files(tmp_path, "ref", one_by_one, max_block_size=max_block_size)
    for name, feed in (("dicts", dicts), ("arrow", arrow_input), ("pending", pending)):
        got, got_stats = write_files(tmp_path, name, feed, max_block_size=max_block_size)
        assert got == ref, name
        assert stats_summary(got_stats) == stats_summary(ref_stats), name
    blocks = [b for f in ref for b in open_log(f, strict=True)]
    assert sum(b.record_count for b in blocks) == n
    if max_block_size == 700:
        assert len(blocks) > 100  # the estimate cut many blocks


@given(st.lists(st.integers(1, 5000), min_size=1, max_size=700), st.integers(1, 60_000),
       st.lists(st.integers(1, 300), max_size=5))
@settings(max_examples=150, deadline=None)
def test_block_cuts_equal_hudis_per_record_estimate(sizes, max_block_size, splits):
    # the estimate as Hudi runs it, one record at a time
    avg, num, expected = None, 0, []
    for i, size in enumerate(sizes):
        if avg is None:
            avg = size
        if num >= max_block_size // max(avg, 1) or num % RECORDS_PER_SIZE_ESTIMATE == 0:
            avg = max(int(avg * 0.8 + size * 0.2), 1)
        if num >= max_block_size // avg and num > 0:
            expected.append(i)
            num = 0
        num += 1
    h = AppendHandle.__new__(AppendHandle)
    h._avg_size, h._num_records, h.max_block_size = None, 0, max_block_size
    got, pos = [], 0
    bounds = sorted({b for b in splits if 0 < b < len(sizes)})
    for part in [sizes[a:b] for a, b in zip([0] + bounds, bounds + [len(sizes)])]:
        cuts = h._block_cuts([0, *itertools.accumulate(part)])
        got += [pos + c for c in cuts]
        # what the buffer holds after this part (the handle's buffering keeps this count)
        h._num_records = len(part) - cuts[-1] if cuts else h._num_records + len(part)
        pos += len(part)
    assert got == expected


def test_write_all_refuses_like_write(tmp_path):
    data = rows(50)
    bad = dict(data[30], fare="12.5")

    def feed(kind):
        def run(h):
            with pytest.raises(RecordError) as e:
                if kind == "one":
                    h._plans = None  # the reference: fastavro record by record
                    for r in data[:30] + [bad] + data[31:]:
                        h.write(r)
                else:
                    h.write_all(data[:30] + [bad] + data[31:])
            assert (e.value.index, e.value.record_key, e.value.field) == (30, "k-000030", "fare")
        return run

    ref, ref_stats = write_files(tmp_path, "one", feed("one"), max_block_size=2_000)
    got, got_stats = write_files(tmp_path, "all", feed("all"), max_block_size=2_000)
    assert got == ref and stats_summary(got_stats) == stats_summary(ref_stats)
    assert ref_stats.num_writes == 30


def test_arrow_batches_with_bad_values_fall_back_to_exact_errors(tmp_path):
    schema = {"type": "record", "name": "r", "fields": [{"name": "k", "type": "string"}, {"name": "v", "type": "int"}]}
    h = AppendHandle(str(tmp_path), "", FILE_ID, INSTANT, schema, "k", seqno_start=1)
    batch = pa.table({"k": ["a", "b", "c"], "v": pa.array([1, 2**40, 3], pa.int64())})
    with pytest.raises(RecordError) as e:
        h.write_all(batch)
    assert (e.value.index, e.value.record_key, e.value.field) == (1, "b", "v")
    with pytest.raises(RecordError) as e:
        h.write_all(pa.table({"k": ["d", ""], "v": pa.array([1, 2], pa.int32())}))
    assert e.value.index == 3 and "key is missing" in str(e.value)  # "c" was never taken
    stats = h.close()
    assert stats.num_writes == 2  # "a", then "d"
    (block,) = [b for f in stats.log_files for b in open_log(tmp_path / f)]
    assert [r["k"] for r in block.records()] == ["a", "d"]
    assert [r["_hoodie_commit_seqno"] for r in block.records()] == [f"{INSTANT}_0_1", f"{INSTANT}_0_2"]


def test_float_packing_matches_struct():
    # the float path reinterprets Arrow's float32 buffer; Avro floats are little-endian IEEE
    p = columnar_encode.plan({"type": "record", "name": "r", "fields": [{"name": "f", "type": "float"}]})[0]
    vals = [0.1, -3.5, 1e-40, 3.4e38]
    got = columnar_encode.encode_field(p, pa.array(vals, pa.float64())).to_pylist()
    assert got == [struct.pack("<f", v) for v in vals]


def test_wide_records_are_encoded_in_smaller_batches(tmp_path, monkeypatch):
    import hudi_log.log.append_handle as ah

    monkeypatch.setattr(ah, "COLUMNAR_BATCH_BYTES", 3 << 20)  # ~2 records of 1 MiB per pass
    schema = {"type": "record", "name": "r", "fields": [{"name": "k", "type": "string"}, {"name": "b", "type": "bytes"}]}
    data = [{"k": f"k{i}", "b": bytes([i]) * (1 << 20)} for i in range(7)]
    out = {}
    for name in ("ref", "dicts", "arrow"):
        h = AppendHandle(str(tmp_path / name), "", FILE_ID, INSTANT, schema, "k", seqno_start=1, max_block_size=3 << 20)
        assert name == "ref" or h._batch_rows(pa.Table.from_pylist(data)) == 2
        if name == "ref":
            h._plans = None
            for r in data:
                h.write(r)
        else:
            h.write_all(data if name == "dicts" else pa.Table.from_pylist(data))
        stats = h.close()
        out[name] = [(tmp_path / name / f).read_bytes() for f in stats.log_files]
    assert out["ref"] == out["dicts"] == out["arrow"]
    assert [b.record_count for f in out["ref"] for b in open_log(f)] == [2, 2, 2, 1]
