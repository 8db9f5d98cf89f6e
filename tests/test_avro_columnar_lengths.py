"""The vectorized check of Avro block framing (avro_columnar._check_lengths): the decoded 4-byte length
fields must be exactly the chain of big-endian prefixes that covers the block body."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_log.format.content.avro_columnar import ColumnarDecodeError, _check_lengths


def _body(datums: list[bytes]) -> bytes:
    return b"".join(len(d).to_bytes(4, "big") + d for d in datums)


def _lengths(datums: list[bytes], chunks: int = 1) -> pa.ChunkedArray:
    values = [len(d).to_bytes(4, "big") for d in datums]
    k = max(1, len(values) // chunks)
    parts = [values[i:i + k] for i in range(0, len(values), k)]
    return pa.chunked_array([pa.array(p, pa.binary()) for p in parts])


DATUMS = [b"abc", b"", b"x" * 300, b"\x00\x00\x00\x05", b"hello"]


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_a_true_chain_passes(chunks):
    lengths = _lengths(DATUMS, chunks)
    _check_lengths(lengths, memoryview(_body(DATUMS)))
    _check_lengths(lengths.slice(0), memoryview(_body(DATUMS)))


def test_a_sliced_array_is_read_from_its_offset():
    lengths = _lengths([b"zz"] + DATUMS).combine_chunks().slice(1)
    _check_lengths(pa.chunked_array([lengths]), memoryview(_body(DATUMS)))


@pytest.mark.parametrize("damage, message", [
    (lambda ls, body: (ls, body + b"\x00"), "records end at"),
    (lambda ls, body: (ls, body[:-1]), "records end at"),
    (lambda ls, body: (pa.chunked_array([pa.array([b"\x00\x00\x00\x03", b"\x00\x00\x00"] + ls.to_pylist()[2:])]),
                       body), "not 4 bytes"),
    (lambda ls, body: (pa.chunked_array([pa.array([b"\xff\xff\xff\xff"] + ls.to_pylist()[1:])]), body),
     "negative datum length"),
    # same total, but the second prefix sits in the wrong place
    (lambda ls, body: (pa.chunked_array([pa.array([b"\x00\x00\x00\x02", b"\x00\x00\x00\x01"]
                                                  + ls.to_pylist()[2:])]), body), "do not match"),
])
def test_damage_is_named(damage, message):
    lengths, body = damage(_lengths(DATUMS), _body(DATUMS))
    with pytest.raises(ColumnarDecodeError, match=message):
        _check_lengths(lengths, memoryview(body))
