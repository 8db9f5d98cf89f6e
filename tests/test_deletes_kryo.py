"""Delete blocks of content versions 1 and 2 (Kryo, Hudi before 0.14) decode; CORRUPT_BLOCK is never written.

The payload layout is Kryo 4's for HoodieDeleteBlock's ``SerializationUtils.serialize`` of a
``HoodieKey[]`` / ``DeleteRecord[]`` (see hudi_log/format/content/deletes_kryo.py). Bytes are built
here by hand, following that layout, and -- where Java and Spark's Kryo jar are installed --
compared with what Kryo itself writes (tests/java/kryo/KryoDeleteBlocks.java).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import hudi_log
from hudi_log import BlockType, ContentError, CorruptBlockWriteError, LogBlock
from hudi_log.format import grammar
from hudi_log.format.content.deletes import DeletePayloadError, DeleteRecord, OrderingKind
from hudi_log.format.content.deletes_kryo import (
    DELETE_RECORD_ARRAY_CLASS,
    KEY_ARRAY_CLASS,
    decode_kryo_delete_payload,
)

MODEL = "org.apache.hudi.common.model."


# ---- a hand encoder of the layout (Kryo 4: Output, DefaultClassResolver, MapReferenceResolver) ----


def uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def zigzag(n: int, bits: int = 32) -> bytes:
    return uvarint(((n << 1) ^ (n >> (bits - 1))) & ((1 << bits) - 1))


def ascii_str(s: str) -> bytes:
    """A Kryo ASCII string (2 to 63 characters): the last byte carries the high bit."""
    raw = bytearray(s.encode("ascii"))
    raw[-1] |= 0x80
    return bytes(raw)


def utf8_str(s: str) -> bytes:
    """A Kryo string with a length: length+1 (0x80 set, 6 bits first), then UTF-16 units, 1-3 bytes each."""
    units = [int.from_bytes(s.encode("utf-16-le")[i:i + 2], "little") for i in range(0, len(s.encode("utf-16-le")), 2)]
    n = len(units) + 1
    head = bytearray([0x80 | (n & 0x3F) | (0x40 if n > 0x3F else 0)])
    if n > 0x3F:
        head += uvarint(n >> 6)
    body = bytearray()
    for u in units:
        if u < 0x80:
            body.append(u)
        elif u < 0x800:
            body += bytes([0xC0 | u >> 6, 0x80 | u & 0x3F])
        else:
            body += bytes([0xE0 | u >> 12, 0x80 | (u >> 6) & 0x3F, 0x80 | u & 0x3F])
    return bytes(head + body)


NEW, NULL = b"\x01", b"\x00"  # reference markers: a new object, null


def named_class(name_id: int, name: str | None) -> bytes:
    """A class written by name: tag 1, the name id, the name the first time only."""
    return b"\x01" + uvarint(name_id) + (ascii_str(name) if name else b"")


def v2_payload() -> bytes:
    # DeleteRecord[] of 3: class name ids 0 (the array), 1 (DeleteRecord), 2 (HoodieKey);
    # reference ids: 0 array, 1 record, 2 key, 3 "p1", 4 "k1", ...
    out = named_class(0, DELETE_RECORD_ARRAY_CLASS) + NEW + uvarint(3 + 1)
    # record 0: key (partitionPath "p1", recordKey "k1"), orderingVal Integer 7 (class id 0 + 2)
    out += named_class(1, MODEL + "DeleteRecord") + NEW
    out += named_class(2, MODEL + "HoodieKey") + NEW + NEW + ascii_str("p1") + NEW + ascii_str("k1")
    out += uvarint(0 + 2) + zigzag(7)
    # record 1 (ids 5, 6): partitionPath back-reference to "p1" (id 3), key "é" (a string with a
    # length), orderingVal Long.MIN (class id 7 + 2; a 9-byte varlong, the 9th byte holding 8 bits)
    out += named_class(1, None) + NEW + named_class(2, None) + NEW + uvarint(3 + 2) + NEW + utf8_str("é")
    out += uvarint(7 + 2) + b"\xff" * 8 + b"\xff"
    # record 2: partitionPath null, recordKey back-reference to "k1" (id 4), orderingVal a String
    # (class id 1 + 2, reference marker, string), then one ordering value null
    out += named_class(1, None) + NEW + named_class(2, None) + NEW + NULL + uvarint(4 + 2)
    out += uvarint(1 + 2) + NEW + ascii_str("ts")
    return out


def test_hand_built_v2_payload_decodes():
    assert decode_kryo_delete_payload(2, v2_payload()) == [
        DeleteRecord("k1", "p1", 7, OrderingKind.INT),
        DeleteRecord("é", "p1", -(2**63), OrderingKind.LONG),
        DeleteRecord("k1", None, "ts", OrderingKind.STRING),
    ]


def test_hand_built_v1_payload_decodes_with_ordering_zero():
    # HoodieKey[] of 2; the second key shares the first one's partition (reference id 2)
    out = named_class(0, KEY_ARRAY_CLASS) + NEW + uvarint(2 + 1)
    out += named_class(1, MODEL + "HoodieKey") + NEW + NEW + ascii_str("2025/01/01") + NEW + ascii_str("id-1")
    out += named_class(1, None) + NEW + uvarint(2 + 2) + NEW + utf8_str("x" * 70)
    assert decode_kryo_delete_payload(1, out) == [
        DeleteRecord("id-1", "2025/01/01", 0, OrderingKind.INT),
        DeleteRecord("x" * 70, "2025/01/01", 0, OrderingKind.INT),
    ]


@pytest.mark.parametrize("payload, words", [
    (v2_payload()[:-1], "ends early"),
    (v2_payload() + b"\x00", "1 bytes after the array"),
    (named_class(0, KEY_ARRAY_CLASS) + NEW + b"\x01", "holds [Lorg.apache.hudi.common.model.HoodieKey;"),
    (named_class(0, DELETE_RECORD_ARRAY_CLASS) + NEW + b"\x02" + named_class(1, MODEL + "DeleteRecord") + NEW
     + named_class(2, MODEL + "HoodieKey") + NEW + NULL + NULL + named_class(3, "java.math.BigDecimal"),
     "class java.math.BigDecimal is not decoded"),
    (named_class(0, DELETE_RECORD_ARRAY_CLASS) + NEW + b"\x02" + named_class(1, MODEL + "DeleteRecord") + NEW
     + named_class(2, MODEL + "HoodieKey") + NEW + uvarint(9 + 2), "reference to object 9"),
])
def test_bad_payloads_are_typed_errors(payload, words):
    with pytest.raises(DeletePayloadError) as e:
        decode_kryo_delete_payload(2, payload)
    assert words in str(e.value)


def test_delete_block_of_content_version_2_reads_through_open_log(tmp_path):
    content = grammar.delete_content(2, v2_payload())
    block = LogBlock.new(BlockType.delete_block, {"INSTANT_TIME": "20230101000000000"}, content)
    path = tmp_path / ".f_20230101000000000.log.1_0-1-1"
    hudi_log.write_blocks(path, [block])
    (back,) = hudi_log.open_log(path, strict=True)
    assert [d.record_key for d in back.deletes()] == ["k1", "é", "k1"]
    assert back.to_bytes() == path.read_bytes()
    # a damaged payload is a ContentError naming the payload, not a traceback or a wrong answer
    bad = LogBlock.new(BlockType.delete_block, {"INSTANT_TIME": "1"}, grammar.delete_content(2, v2_payload()[:-3]))
    with pytest.raises(ContentError) as e:
        bad.deletes()
    assert e.value.field == "payload"


# ---- against Kryo itself ------------------------------------------------------------------------

JAVA_SOURCE = Path(__file__).parent / "java" / "kryo" / "KryoDeleteBlocks.java"


def _kryo_payloads(tmp_path) -> dict[str, bytes]:
    if not (shutil.which("javac") and shutil.which("java")):
        pytest.skip("javac/java not on PATH: the Kryo check needs a JDK")
    pyspark = pytest.importorskip("pyspark", reason="pyspark's jars/ holds Kryo")
    jars = Path(pyspark.__file__).parent / "jars"
    cp = [next(iter(jars.glob(f"{n}-*.jar")), None) for n in ("kryo-shaded", "objenesis", "minlog")]
    if None in cp:
        pytest.skip(f"{jars} lacks Kryo, Objenesis or MinLog")
    classpath = os.pathsep.join(map(str, cp))
    subprocess.run(["javac", "-nowarn", "-cp", classpath, "-d", str(tmp_path), str(JAVA_SOURCE)], check=True,
                   capture_output=True)
    r = subprocess.run(["java", "-cp", classpath + os.pathsep + str(tmp_path),
                        "org.apache.hudi.common.model.KryoDeleteBlocks"], capture_output=True, text=True, check=True)
    return {name: bytes.fromhex(hx) for name, hx in (line.split("\t") for line in r.stdout.splitlines())}


def test_payloads_written_by_kryo_decode(tmp_path):
    got = _kryo_payloads(tmp_path)
    shared = "2025/01/01"
    assert decode_kryo_delete_payload(1, got["v1-keys"]) == [
        DeleteRecord("id-1", shared, 0, OrderingKind.INT), DeleteRecord("id-2", shared, 0, OrderingKind.INT),
        DeleteRecord("x", None, 0, OrderingKind.INT),
    ]
    assert decode_kryo_delete_payload(1, got["v1-empty"]) == []
    assert decode_kryo_delete_payload(2, got["v2-mixed"]) == [
        DeleteRecord("id-1", shared, 0, OrderingKind.INT), DeleteRecord("id-2", shared, 5, OrderingKind.LONG),
        DeleteRecord("id-3", None, "s", OrderingKind.STRING), DeleteRecord("id-4", "", None, OrderingKind.NULL),
        DeleteRecord("k" * 70, shared, -(2**63), OrderingKind.LONG),
        DeleteRecord("Grüße-😀", shared, 2**63 - 1, OrderingKind.LONG),
        DeleteRecord("id-6", shared, -1, OrderingKind.INT), DeleteRecord("id-7", shared, 1.5, OrderingKind.FLOAT),
        DeleteRecord("id-8", shared, -2.25, OrderingKind.DOUBLE), DeleteRecord("id-9", shared, True, OrderingKind.BOOLEAN),
        DeleteRecord("é", shared, "ordering-é", OrderingKind.STRING),
        DeleteRecord("id-10", shared, -(2**31), OrderingKind.INT),
    ]
    with pytest.raises(DeletePayloadError, match="java.math.BigDecimal"):
        decode_kryo_delete_payload(2, got["v2-decimal"])
    # the hand encoder above follows the same layout: Kryo writes its bytes for the same records
    ours = named_class(0, KEY_ARRAY_CLASS) + NEW + uvarint(0 + 1)
    assert ours == got["v1-empty"]
    # the grammar parses what Kryo wrote
    for name, payload in got.items():
        version = 1 if name.startswith("v1") else 2
        parsed = grammar.parse(grammar.HudiLog.DeleteContent, grammar.delete_content(version, payload))
        assert parsed.records.class_name + ";" == (KEY_ARRAY_CLASS if version == 1 else DELETE_RECORD_ARRAY_CLASS)
        expected = 1 if name == "v2-decimal" else len(decode_kryo_delete_payload(version, payload))
        assert parsed.records.num_elements == expected


# ---- CORRUPT_BLOCK is only ever reported --------------------------------------------------------


def test_writer_refuses_corrupt_block(tmp_path):
    with pytest.raises(CorruptBlockWriteError):
        LogBlock.new("CORRUPT_BLOCK", {"INSTANT_TIME": "1"})
    with pytest.raises(CorruptBlockWriteError):
        grammar.serialize_block(1, BlockType.corrupt_block, ((grammar.HeaderKey.instant_time, "1"),), b"")
    with pytest.raises(CorruptBlockWriteError):
        grammar.frame_block(BlockType.corrupt_block, (), [b""])
    assert issubclass(CorruptBlockWriteError, hudi_log.HudiLogError)
