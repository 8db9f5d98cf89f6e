"""spec/hudi_log.py (construct) against spec/hudi_log.ksy (the Kaitai codec generated from it).

Two spellings of one grammar must agree: on every corpus log file, on random blocks built by
both (byte for byte), and on what they reject.
"""

from __future__ import annotations

import importlib.util
import random
import struct
from io import BytesIO
from pathlib import Path

import construct
import kaitaistruct
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kaitaistruct import KaitaiStream, ReadWriteKaitaiStruct

from hudi_log.format import grammar
from hudi_log_generated.hudi_log import HudiLog

REPO = Path(__file__).resolve().parent.parent


def _load_construct_grammar():
    # spec/hudi_log.py shares its module name with the hudi_log package, so load it by path
    spec = importlib.util.spec_from_file_location("hudi_log_construct_grammar", REPO / "spec" / "hudi_log.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


C = _load_construct_grammar()
_KRYO_CLASS = {1: "[Lorg.apache.hudi.common.model.HoodieKey", 2: "[Lorg.apache.hudi.common.model.DeleteRecord"}
_LONG_KINDS = {"int", "long", "date", "time_micros", "timestamp_micros", "local_date"}
_BYTES_KINDS = {"bytes", "string", "decimal"}

# ================================================================================================
# Normal form: plain dicts, lists and tuples that both parsers' results are reduced to.
# ================================================================================================


def _norm_ordering_blocks_c(blocks):
    return [
        {"count": b.num_items, "len_items": b.len_items, "items": [_norm_ordering_c(o) for o in b["items"]]}
        for b in blocks
    ]


def _norm_ordering_c(o):
    v = o.value
    if o.kind in _BYTES_KINDS:
        v = v.data
    elif o.kind == "array":
        v = None if v.branch == 0 else _norm_ordering_blocks_c(v.array_blocks)
    return (o.kind, v)


def _norm_optional_c(s):
    return s.string.data.decode("utf-8") if s.branch == 1 else None


def _norm_delete_blocks_c(blocks):
    return [
        {
            "count": b.num_items,
            "len_items": b.len_items,
            "items": [
                {
                    "record_key": _norm_optional_c(r.record_key),
                    "partition_path": _norm_optional_c(r.partition_path),
                    "ordering_value": _norm_ordering_c(r.ordering_value),
                }
                for r in b["items"]
            ],
        }
        for b in blocks
    ]


def _norm_content_c(kind, c):
    if kind in ("avro_data_block", "cdc_data_block"):
        return {"kind": "avro", "content_version": c.content_version, "record_count": c.num_records,
                "records": [r.datum for r in c.records]}
    if kind == "delete_block":
        payload = _norm_delete_blocks_c(c.records.array_blocks) if c.content_version == 3 else _norm_kryo(c.records)
        return {"kind": "delete", "content_version": c.content_version, "len_payload": c.len_payload, "payload": payload,
                "payload_bytes": bytes(c.payload)}
    if kind == "parquet_data_block":
        return {"kind": "parquet", "body": c.body, "len_footer": c.len_footer}
    if kind == "hfile_data_block":
        return {"kind": "hfile", "blocks": c.blocks, "trailer_body": c.trailer.body, "version": c.trailer.version}
    return {"kind": "raw", "data": c}


def _norm_kryo(p):  # a Kryo payload (content versions 1 and 2), either codec's object
    return {"class_name": p.class_name, "num_elements": p.num_elements, "elements": p.elements}


def _norm_map_c(m):
    return [(str(e.key), e.value) for e in m.entries]  # value: bytes, as in the .ksy


def norm_block_c(b, offset=None):
    v1 = b.format_version != 0
    kind = str(b.block_type) if v1 else None
    return {
        "offset": offset,
        "len_block": b.len_block,
        "format_version": b.format_version,
        "block_type": kind,
        "header": _norm_map_c(b.header) if v1 else None,
        "len_content": b.len_content,
        "content": _norm_content_c(kind, b.content if v1 else b.legacy_content),
        "footer": _norm_map_c(b.footer) if v1 else None,
        "reverse_pointer": b.reverse_pointer,
    }


def _kl(x):  # an AvroLong, or absent
    return None if x is None else x.value


def _norm_ordering_blocks_k(blocks):
    return [
        {"count": b.num_items.value, "len_items": _kl(getattr(b, "len_items", None)),
         "items": [_norm_ordering_k(o) for o in b.items]}
        for b in blocks
    ]


def _norm_ordering_k(o):
    kind = o.kind.name
    v = getattr(o, "value", None)
    if kind in _LONG_KINDS:
        v = v.value
    elif kind in _BYTES_KINDS:
        v = v.data
    elif kind == "array":
        v = None if v.branch.value == 0 else _norm_ordering_blocks_k(v.array_blocks)
    return (kind, v)


def _norm_optional_k(s):
    return s.string.data.decode("utf-8") if s.branch.value == 1 else None


def _norm_delete_blocks_k(blocks):
    return [
        {
            "count": b.num_items.value,
            "len_items": _kl(getattr(b, "len_items", None)),
            "items": [
                {
                    "record_key": _norm_optional_k(r.record_key),
                    "partition_path": _norm_optional_k(r.partition_path),
                    "ordering_value": _norm_ordering_k(r.ordering_value),
                }
                for r in b.items
            ],
        }
        for b in blocks
    ]


def _norm_content_k(kind, c):
    if kind in ("avro_data_block", "cdc_data_block"):
        return {"kind": "avro", "content_version": c.content_version, "record_count": c.num_records,
                "records": [r.datum for r in c.records]}
    if kind == "delete_block":
        payload = _norm_delete_blocks_k(c.records.array_blocks) if c.content_version == 3 else _norm_kryo(c.records)
        return {"kind": "delete", "content_version": c.content_version, "len_payload": c.len_payload, "payload": payload,
                "payload_bytes": bytes(c.payload)}
    if kind == "parquet_data_block":
        return {"kind": "parquet", "body": c.body, "len_footer": c.len_footer}
    if kind == "hfile_data_block":
        return {"kind": "hfile", "blocks": c.blocks, "trailer_body": c.trailer.body, "version": c.trailer.version}
    return {"kind": "raw", "data": c}


def _norm_map_k(m):
    return [(e.key.name, e.value) for e in m.entries]


def norm_block_k(b, offset=None):
    v1 = b.format_version != 0
    kind = b.block_type.name if v1 else None
    return {
        "offset": offset,
        "len_block": b.len_block,
        "format_version": b.format_version,
        "block_type": kind,
        "header": _norm_map_k(b.header) if v1 else None,
        "len_content": b.len_content if v1 else None,
        "content": _norm_content_k(kind, b.content.body if v1 else b.legacy_content),
        "footer": _norm_map_k(b.footer) if v1 else None,
        "reverse_pointer": b.reverse_pointer if v1 else None,
    }


# ================================================================================================
# Parsing with each codec
# ================================================================================================


def construct_blocks(data: bytes) -> list[dict]:
    """Normalized blocks, with the offsets construct reached (block by block, then whole-file)."""
    stream = BytesIO(data)
    out = []
    while stream.tell() < len(data):
        off = stream.tell()
        out.append(norm_block_c(C.block.parse_stream(stream), off))
    whole = [norm_block_c(b) for b in C.log_file.parse(data).blocks]
    assert whole == [dict(b, offset=None) for b in out]
    return out


def kaitai_blocks(data: bytes) -> list[dict]:
    """Normalized blocks, with the offsets Kaitai reached (block by block, then whole-file)."""
    io = KaitaiStream(BytesIO(data))
    root = HudiLog(io)
    out = []
    while not io.is_eof():
        off = io.pos()
        b = HudiLog.Block(io, root, root)
        b._read()
        out.append(norm_block_k(b, off))
    whole = HudiLog(KaitaiStream(BytesIO(data)))
    whole._read()
    assert [norm_block_k(b) for b in whole.blocks] == [dict(b, offset=None) for b in out]
    return out


# ================================================================================================
# 1. The corpus
# ================================================================================================


def test_corpus_construct_equals_kaitai_and_rebuilds(corpus_log_files):
    blocks_seen = 0
    kinds = set()
    for path in corpus_log_files:
        data = path.read_bytes()
        c = construct_blocks(data)
        k = kaitai_blocks(data)
        assert c == k, f"construct and Kaitai disagree on {path}"
        # rebuilding from the parsed object reproduces the file byte for byte; this also shows
        # that every Avro varint in the corpus is canonical (construct rebuilds them canonically)
        assert C.log_file.build(C.log_file.parse(data)) == data, f"rebuild differs: {path}"
        blocks_seen += len(c)
        kinds |= {b["block_type"] for b in c}
    assert blocks_seen >= len(corpus_log_files)
    # the corpus exercises every typed content the grammar has, except CDC
    assert {"command_block", "delete_block", "avro_data_block", "hfile_data_block", "parquet_data_block"} <= kinds


def test_corpus_mutants_accepted_and_rejected_alike(corpus_dir):
    """Corrupted copies of the single corpus files: both codecs accept the same ones, read them alike."""
    rng = random.Random(20250126)
    outcomes = {"accepted": 0, "rejected": 0}
    for path in sorted((corpus_dir / "log_files").glob("*/.*.log.*")):
        data = path.read_bytes()
        for _ in range(400):
            mutant = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                mutant[rng.randrange(len(mutant))] = rng.randrange(256)
            mutant = bytes(mutant)
            try:
                c = construct_blocks(mutant)
            except construct.ConstructError:
                c = None
            try:
                k = kaitai_blocks(mutant)
            except (kaitaistruct.KaitaiStructError, EOFError, UnicodeDecodeError):
                k = None
            assert c == k, f"construct and Kaitai differ on a mutant of {path.name}"
            outcomes["accepted" if c is not None else "rejected"] += 1
    assert outcomes["accepted"] and outcomes["rejected"]


# ================================================================================================
# 2. Random blocks, built by both codecs
# ================================================================================================

# --- the description of a file that hypothesis draws: the normal form minus derived fields -------

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_opt_text = st.none() | _text
_i32 = st.integers(-(2**31), 2**31 - 1)
_i64 = st.integers(-(2**63), 2**63 - 1)


def _scalar_ordering(date_kinds):
    return st.one_of(
        st.just(("null", None)),
        st.tuples(st.just("boolean"), st.integers(0, 1)),
        st.tuples(st.sampled_from(["int", *date_kinds]), _i32),
        st.tuples(st.sampled_from(["long", "time_micros", "timestamp_micros"]), _i64),
        st.tuples(st.just("float"), st.floats(width=32, allow_nan=False)),
        st.tuples(st.just("double"), st.floats(allow_nan=False)),
        st.tuples(st.sampled_from(["bytes", "decimal"]), st.binary(max_size=10)),
        st.tuples(st.just("string"), _text.map(lambda s: s.encode("utf-8"))),
    )


def _avro_array(items, min_blocks=0):
    """Avro array blocks: (negative count?, items) each, then the count-0 block."""
    block = st.tuples(st.booleans(), st.lists(items, min_size=1, max_size=3))
    return st.lists(block, min_size=min_blocks, max_size=2).map(lambda bs: [*bs, (False, [])])


# a delete's ordering value: a scalar, or an ArrayWrapper (null, or an array of scalars where
# branch 12 means local_date)
_array_wrappers = st.tuples(
    st.just("array"),
    st.integers(0, 3).flatmap(
        lambda i: st.none() if i == 0 else _avro_array(_scalar_ordering(["date", "local_date"]), min_blocks=1)
    ),
)
ordering_values = st.booleans().flatmap(lambda wrapped: _array_wrappers if wrapped else _scalar_ordering(["date"]))

delete_records = st.fixed_dictionaries(
    {"record_key": _opt_text, "partition_path": _opt_text, "ordering_value": ordering_values}
)

header_maps = st.lists(st.tuples(st.sampled_from([k.name for k in HudiLog.HeaderKey]), _text), max_size=5)

contents = st.one_of(
    st.tuples(st.sampled_from(["avro_data_block", "cdc_data_block"]),
              st.fixed_dictionaries({"kind": st.just("avro"), "content_version": st.integers(1, 3),
                                     "records": st.lists(st.binary(max_size=20), max_size=4)})),
    st.tuples(st.just("delete_block"),
              st.fixed_dictionaries({"kind": st.just("delete"), "content_version": st.just(3),
                                     "payload": _avro_array(delete_records)})),
    st.tuples(st.just("delete_block"),  # Kryo-era payloads: the array's start, opaque elements
              st.integers(1, 2).flatmap(lambda v: st.fixed_dictionaries({
                  "kind": st.just("delete"), "content_version": st.just(v),
                  "payload": st.fixed_dictionaries({
                      "class_name": st.just(_KRYO_CLASS[v]), "num_elements": st.integers(0, 2**20),
                      "elements": st.binary(max_size=20)})}))),
    st.tuples(st.sampled_from(["command_block", "corrupt_block"]),
              st.fixed_dictionaries({"kind": st.just("raw"), "data": st.binary(max_size=10)})),
    st.tuples(st.just("parquet_data_block"),
              st.fixed_dictionaries({"kind": st.just("parquet"), "body": st.binary(max_size=20),
                                     "len_footer": st.integers(0, 2**32 - 1)})),
    st.tuples(st.just("hfile_data_block"),
              st.fixed_dictionaries({"kind": st.just("hfile"), "blocks": st.binary(max_size=20),
                                     "trailer_body": st.binary(min_size=4084, max_size=4084),
                                     "version": st.integers(0, 255).map(lambda minor: minor << 24 | 3)})),
)

v1_blocks = st.builds(
    lambda tc, header, footer: {"format_version": 1, "block_type": tc[0], "header": header, "content": tc[1], "footer": footer},
    contents,
    header_maps,
    st.one_of(st.just([]), header_maps),  # Hudi writes empty footers; the grammar allows any
)
v0_blocks = st.builds(
    lambda data: {"format_version": 0, "block_type": None, "header": None, "content": {"kind": "raw", "data": data}, "footer": None},
    st.binary(max_size=10),
)
log_specs = st.lists(st.integers(0, 3).flatmap(lambda i: v0_blocks if i == 3 else v1_blocks), max_size=3)

_DERIVED = ("offset", "len_block", "len_content", "reverse_pointer")


def strip_derived(norm_blocks):
    """A parsed normal form reduced to what the description holds (lengths, counts dropped)."""

    def arr(blocks, item):
        return [(b["count"] < 0, [item(i) for i in b["items"]]) for b in blocks]

    def ordering(ov):
        kind, v = ov
        return (kind, arr(v, ordering)) if kind == "array" and v is not None else (kind, v)

    out = []
    for b in norm_blocks:
        b = {k: v for k, v in b.items() if k not in _DERIVED}
        for m in ("header", "footer"):
            if b[m] is not None:
                b[m] = [(k, v.decode("utf-8")) for k, v in b[m]]
        c = dict(b["content"])
        c.pop("record_count", None)
        c.pop("len_payload", None)
        c.pop("payload_bytes", None)
        if c["kind"] == "delete" and c["content_version"] == 3:
            c["payload"] = arr(c["payload"], lambda r: dict(r, ordering_value=ordering(r["ordering_value"])))
        b["content"] = c
        out.append(b)
    return out


# --- the description as a construct object ------------------------------------------------------


def _c_array(blocks, item):
    return {"array_blocks": [{"num_items": -1 if neg else 1, "items": [item(i) for i in items]} for neg, items in blocks]}


def _c_optional(s):
    return {"branch": 0} if s is None else {"branch": 1, "string": {"data": s.encode("utf-8")}}


def _c_ordering(ov):
    kind, v = ov
    if kind in _BYTES_KINDS:
        v = {"data": v}
    elif kind == "array":
        v = {"branch": 0} if v is None else {"branch": 1, **_c_array(v, _c_ordering)}
    # local_date is union branch 12 inside an ArrayWrapper
    branch = C.ORDERING_KIND["array"] if kind == "local_date" else C.ORDERING_KIND[kind]
    return {"branch": branch, "value": v}


def _c_content(c):
    if c["kind"] == "avro":
        return {"content_version": c["content_version"], "records": [{"datum": d} for d in c["records"]]}
    if c["kind"] == "delete":
        payload = c["payload"]
        if c["content_version"] == 3:
            payload = _c_array(payload, lambda r: {
                "record_key": _c_optional(r["record_key"]),
                "partition_path": _c_optional(r["partition_path"]),
                "ordering_value": _c_ordering(r["ordering_value"]),
            })
        else:
            payload = {"class_tag": 1, "class_name_id": 0, "class_name": payload["class_name"], "reference": 1,
                       "num_elements_plus_one": payload["num_elements"] + 1, "elements": payload["elements"]}
        return {"content_version": c["content_version"], "records": payload}
    if c["kind"] == "parquet":
        return {"body": c["body"], "len_footer": c["len_footer"]}
    if c["kind"] == "hfile":
        return {"blocks": c["blocks"], "trailer": {"body": c["trailer_body"], "version": c["version"]}}
    return c["data"]


def to_construct(spec):
    def mmap(entries):
        return {"entries": [{"key": k, "value": v.encode("utf-8")} for k, v in entries]}

    blocks = []
    for b in spec:
        d = {"format_version": b["format_version"]}
        d["content" if b["format_version"] != 0 else "legacy_content"] = _c_content(b["content"])
        if b["format_version"] != 0:
            d.update(block_type=b["block_type"], header=mmap(b["header"]), footer=mmap(b["footer"]))
        blocks.append(d)
    return {"blocks": blocks}


# --- the description as Kaitai objects (the generated serializer); sizes computed here ----------


class _K:
    """Builds generated objects under one root; every builder returns (object, size in bytes)."""

    def __init__(self):
        self.root = HudiLog(None)

    def new(self, cls, parent, *params, **fields):
        obj = cls(*params, None, parent, self.root)
        for k, v in fields.items():
            setattr(obj, k, v)
        return obj

    def varint(self, cls, value, parent):
        """An unsigned varint (7-bit groups, least significant first) as a generated ``cls``."""
        groups = []
        while True:
            groups.append(value & 0x7F | (0x80 if value >= 0x80 else 0))
            value >>= 7
            if not value:
                break
        return self.new(cls, parent, groups=groups), len(groups)

    def long(self, value, parent):
        return self.varint(HudiLog.AvroLong, (value << 1) ^ (value >> 63), parent)

    def avro_bytes(self, data, parent):
        o = self.new(HudiLog.AvroBytes, parent, data=data)
        o.len_data, n = self.long(len(data), o)
        return o, n + len(data)

    def optional(self, s, parent):
        o = self.new(HudiLog.AvroOptionalString, parent)
        o.branch, size = self.long(0 if s is None else 1, o)
        if s is not None:
            o.string, n = self.avro_bytes(s.encode("utf-8"), o)
            size += n
        return o, size

    def array_wrapper(self, blocks, parent):
        w = self.new(HudiLog.ArrayWrapper, parent)
        w.branch, size = self.long(0 if blocks is None else 1, w)
        if blocks is not None:
            w.array_blocks, n = self.array(blocks, None, HudiLog.OrderingValueArrayBlock,
                                           lambda ov, p: self.ordering(ov, p, in_array=True), w)
            size += n
        return w, size

    def array(self, blocks, list_cls, block_cls, item, parent):
        """Avro array blocks: in a new list_cls object, or (list_cls None) as a list in parent."""
        lst = self.new(list_cls, parent, array_blocks=[]) if list_cls else None
        owner = lst or parent
        out = []
        size = 0
        for neg, items in blocks:
            b = self.new(block_cls, owner, items=[])
            items_size = 0
            for i in items:
                o, n = item(i, b)
                b.items.append(o)
                items_size += n
            b.num_items, n = self.long(-len(items) if neg else len(items), b)
            size += n + items_size
            if neg:
                b.len_items, n = self.long(items_size, b)
                size += n
            out.append(b)
        if lst is None:
            return out, size
        lst.array_blocks = out
        return lst, size

    def ordering(self, ov, parent, in_array=False):
        kind, v = ov
        o = self.new(HudiLog.OrderingValue, parent, in_array)
        branch = HudiLog.OrderingKind.array if kind == "local_date" else HudiLog.OrderingKind[kind]
        o.branch, size = self.long(branch.value, o)
        if kind == "boolean":
            o.value, n = v, 1
        elif kind == "float":
            o.value, n = v, 4
        elif kind == "double":
            o.value, n = v, 8
        elif kind in _LONG_KINDS:
            o.value, n = self.long(v, o)
        elif kind in _BYTES_KINDS:
            o.value, n = self.avro_bytes(v, o)
        elif kind == "array":
            o.value, n = self.array_wrapper(v, o)
        else:
            n = 0
        return o, size + n

    def kryo_array(self, p, parent):
        o = self.new(HudiLog.KryoObjectArray, parent, class_name=p["class_name"], elements=p["elements"])
        size = len(p["class_name"]) + 1 + len(p["elements"])
        for name, value in (("class_tag", 1), ("class_name_id", 0), ("reference", 1),
                            ("num_elements_plus_one", p["num_elements"] + 1)):
            v, n = self.varint(HudiLog.KryoVarint, value, o)
            setattr(o, name, v)
            size += n
        return o, size

    def delete_record(self, r, parent):
        o = self.new(HudiLog.DeleteRecord, parent)
        o.record_key, a = self.optional(r["record_key"], o)
        o.partition_path, b = self.optional(r["partition_path"], o)
        o.ordering_value, c = self.ordering(r["ordering_value"], o)
        return o, a + b + c

    def content(self, c, parent):
        if c["kind"] == "avro":
            o = self.new(HudiLog.AvroDataContent, parent, content_version=c["content_version"], records=[])
            for d in c["records"]:
                o.records.append(self.new(HudiLog.AvroRecord, o, datum=d, len_datum=len(d)))
            o.num_records = len(o.records)
            return o, 8 + sum(4 + len(d) for d in c["records"])
        if c["kind"] == "delete":
            o = self.new(HudiLog.DeleteContent, parent, content_version=c["content_version"])
            if c["content_version"] == 3:
                records, n = self.array(c["payload"], HudiLog.DeleteRecordList, HudiLog.DeleteRecordArrayBlock,
                                        self.delete_record, o)
            else:
                records, n = self.kryo_array(c["payload"], o)
            # the payload is bytes in the seq; its layout, the `records` instance, serialized on its own
            o.payload = grammar.write(records, n)
            o.records, o.records__enabled = records, False
            o.len_payload = n
            return o, 8 + n
        if c["kind"] == "parquet":
            return self.new(HudiLog.ParquetContent, parent, magic=b"PAR1", body=c["body"],
                            len_footer=c["len_footer"], end_magic=b"PAR1"), 12 + len(c["body"])
        if c["kind"] == "hfile":
            o = self.new(HudiLog.HfileContent, parent, blocks=c["blocks"])
            o.trailer = self.new(HudiLog.HfileTrailer, o, magic=b'TRABLK"$', body=c["trailer_body"], version=c["version"])
            return o, len(c["blocks"]) + 4096
        return c["data"], len(c["data"])

    def metadata_map(self, entries, parent):
        m = self.new(HudiLog.MetadataMap, parent, num_entries=len(entries), entries=[])
        size = 4
        for key, value in entries:
            raw = value.encode("utf-8")
            n = len(raw)
            m.entries.append(self.new(HudiLog.MetadataEntry, m, key=HudiLog.HeaderKey[key], len_value=n, value=raw))
            size += 8 + n
        return m, size

    def block(self, spec):
        b = self.new(HudiLog.Block, self.root, magic=b"#HUDI#", format_version=spec["format_version"])
        if spec["format_version"] == 0:
            b.legacy_content, content_size = self.content(spec["content"], b)
            b.len_block = content_size
            return b, 6 + 8 + 4 + content_size
        b.block_type = HudiLog.BlockType[spec["block_type"]]
        # the content's layout is the .ksy's lazily parsed `body` instance; the serializer writes it
        b.content = self.new(HudiLog.BlockContent, b)
        b.content._m_body, content_size = self.content(spec["content"], b.content)
        b.content.num_records__enabled = False  # the body's count, not written twice
        b.header, h = self.metadata_map(spec["header"], b)
        b.footer, f = self.metadata_map(spec["footer"], b)
        b.len_content = content_size
        b.len_block = 4 + 4 + h + 8 + content_size + f + 8
        b.reverse_pointer = b.len_block + 6
        return b, 6 + 8 + b.len_block


def _check_all(obj):
    """_check() every generated object, children first (the serializer refuses unchecked ones)."""
    for name, value in list(vars(obj).items()):
        if name.startswith("_") and name != "_m_body":  # a block content's body is an instance
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, ReadWriteKaitaiStruct):
                _check_all(v)
    obj._check()


def kaitai_write(spec) -> bytes:
    k = _K()
    k.root.blocks = []
    size = 0
    for s in spec:
        b, n = k.block(s)
        k.root.blocks.append(b)
        size += n
    _check_all(k.root)
    io = KaitaiStream(BytesIO(bytearray(size)))
    k.root._write(io)
    return io.to_byte_array()


@settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log_specs)
def test_random_blocks_construct_equals_kaitai(spec):
    built = C.log_file.build(to_construct(spec))
    assert built == kaitai_write(spec), "construct and the Kaitai serializer wrote different bytes"
    c = construct_blocks(built)
    assert c == kaitai_blocks(built)
    assert strip_derived(c) == spec
    assert C.log_file.build(C.log_file.parse(built)) == built


# ================================================================================================
# 3. Invalid input
# ================================================================================================


def _command_block(**over):
    b = {"format_version": 1, "block_type": "command_block",
         "header": [("instant_time", "20250126040823628"), ("command_block_type", "0")],
         "content": {"kind": "raw", "data": b""}, "footer": []}
    b.update(over)
    return b


VALID = C.log_file.build(to_construct([_command_block()]))


def _both_reject(data: bytes):
    with pytest.raises(construct.ConstructError):
        C.log_file.parse(data)
    with pytest.raises((kaitaistruct.KaitaiStructError, EOFError, UnicodeDecodeError)):
        k = HudiLog(KaitaiStream(BytesIO(data)))
        k._read()
        k._fetch_instances()  # block contents are parsed lazily


def test_valid_sample_parses_and_empty_file_is_legal():
    assert len(C.log_file.parse(VALID).blocks) == 1
    assert C.log_file.parse(b"").blocks == []
    assert C.log_file.build({"blocks": []}) == b""


def _patched(offset: int, new: bytes, data: bytes = VALID) -> bytes:
    return data[:offset] + new + data[offset + len(new):]


@pytest.mark.parametrize(
    "name, data, error",
    [
        ("wrong magic", _patched(0, b"#HUDX#"), construct.ConstError),
        ("bad reverse pointer", VALID[:-8] + struct.pack(">q", len(VALID) - 8 + 1), construct.ValidationError),
        ("format version 2", _patched(14, struct.pack(">i", 2)), construct.ValidationError),
        ("unknown block type", _patched(18, struct.pack(">i", 7)), construct.ValidationError),
        ("unknown header key", _patched(26, struct.pack(">i", 9)), construct.ValidationError),
        ("negative block size", _patched(6, struct.pack(">q", -1)), construct.ValidationError),
        ("negative header count", _patched(22, struct.pack(">i", -1)), construct.ValidationError),
        ("block size above 2^31 - 1", _patched(6, struct.pack(">q", 2**31)), construct.ValidationError),
        ("block size above 2^32", _patched(6, struct.pack(">q", 2**32 + 76)), construct.ValidationError),
        ("truncated", VALID[:-1], construct.StreamError),
    ],
)
def test_invalid_block_rejected(name, data, error):
    with pytest.raises(error):
        C.block.parse(data)
    _both_reject(data)


def test_header_value_not_utf8_is_kept_as_bytes():
    """Both codecs keep a header value's bytes; construct's `text` substitutes U+FFFD as Java and the
    JavaScript runtime do (the generated Python `text` raises: the engines differ there)."""
    data = _patched(34, b"\xff")
    (c,) = C.log_file.parse(data).blocks
    k = HudiLog(KaitaiStream(BytesIO(data)))
    k._read()
    assert c.header.entries[0].value == k.blocks[0].header.entries[0].value == b"\xff" + VALID[35:51]
    assert c.header.entries[0].text == "\ufffd0250126040823628"
    assert construct_blocks(data) == kaitai_blocks(data)
    assert C.log_file.build(C.log_file.parse(data)) == data


def test_every_truncation_and_trailing_garbage_rejected():
    two = VALID + VALID
    for n in range(1, len(two)):
        if n == len(VALID):
            continue  # a whole block
        _both_reject(two[:n])
    _both_reject(VALID + b"#")  # bytes that do not form a block are not dropped
    _both_reject(VALID + b"\x00" * 14)


def test_invalid_content_rejected():
    def with_content(block_type, raw):
        # a raw-content block, retyped: the content bytes must then fit that type's layout
        data = C.log_file.build(to_construct([_command_block(content={"kind": "raw", "data": raw})]))
        return _patched(18, struct.pack(">i", C.BLOCK_TYPE[block_type]), data)

    _both_reject(with_content("avro_data_block", struct.pack(">ii", 4, 0)))  # content version 4
    _both_reject(with_content("avro_data_block", struct.pack(">iii", 3, 1, 5) + b"abc"))  # datum overruns
    _both_reject(with_content("parquet_data_block", b"PAR1" + b"\x00" * 8 + b"PAR2"))
    _both_reject(with_content("hfile_data_block", b"\x00" * 4096))  # no trailer magic
    _both_reject(with_content("delete_block", struct.pack(">ii", 3, 2) + b"\x02\x01"))  # 1 item, union branch -1
    # 1 item with null key and partition, then ordering branch 13 / an ArrayWrapper with branch 2
    _both_reject(with_content("delete_block", struct.pack(">ii", 3, 4) + b"\x02\x00\x00\x1a"))
    _both_reject(with_content("delete_block", struct.pack(">ii", 3, 5) + b"\x02\x00\x00\x18\x04"))


def test_build_refuses_what_parse_would_reject():
    for bad in (
        _command_block(format_version=2),
        _command_block(block_type="no_such_block"),
        _command_block(header=[("no_such_key", "x")]),
    ):
        with pytest.raises((construct.ConstructError, KeyError)):
            C.log_file.build(to_construct([bad]))


def test_lengths_are_rebuilt_from_the_data():
    parsed = C.log_file.parse(VALID)
    b = parsed.blocks[0]
    b.header.entries[0].value = "20250126040823628-and-more-ü".encode("utf-8")
    b.len_block = b.len_content = b.reverse_pointer = b.header.num_entries = 0  # stale; ignored
    out = C.log_file.build(parsed)
    again = C.log_file.parse(out).blocks[0]
    assert again.header.entries[0].text == "20250126040823628-and-more-ü"
    assert again.len_block == len(out) - 14 and again.reverse_pointer == len(out) - 8
    assert kaitai_blocks(out) == construct_blocks(out)
