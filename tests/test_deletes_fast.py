"""The fast delete-payload decoder against the strict one: same records, same verdicts."""

from __future__ import annotations

import random

import pytest

from hudi_log.format.content import deletes
from hudi_log.format.content.deletes import DeletePayloadError, DeleteRecord, OrderingKind, decode_delete_payload, \
    encode_delete_payload


def _strict(payload: bytes, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(deletes, "_decode_fast", lambda p: None)
        try:
            return decode_delete_payload(payload)
        except DeletePayloadError as e:
            return type(e)


def _random_record(rng: random.Random) -> DeleteRecord:
    key = rng.choice([None, "", "k-%d" % rng.randrange(10**6), "ключ-ü-%d" % rng.randrange(99), "x" * 200])
    part = rng.choice([None, "", "city=sf", "a/b/c"])
    kind = rng.choice([OrderingKind.NULL, OrderingKind.BOOLEAN, OrderingKind.INT, OrderingKind.LONG,
                       OrderingKind.STRING, OrderingKind.DOUBLE])
    value = {
        OrderingKind.NULL: None,
        OrderingKind.BOOLEAN: rng.random() < 0.5,
        OrderingKind.INT: rng.choice([0, 1, -1, 63, 64, -65, 2**31 - 1, -(2**31), rng.randrange(-2**31, 2**31)]),
        OrderingKind.LONG: rng.choice([0, 2**63 - 1, -(2**63), rng.randrange(-2**63, 2**63), 300]),
        OrderingKind.STRING: rng.choice(["", "2024-01-01", "é" * 70]),
        OrderingKind.DOUBLE: rng.random(),
    }[kind]
    return DeleteRecord(key, part, value, kind)


def test_fast_decoder_matches_strict_on_canonical_payloads(monkeypatch):
    rng = random.Random(8)
    for n in [0, 1, 2, 5, 64, 65, 300]:
        records = [_random_record(rng) for _ in range(n)]
        payload = encode_delete_payload(records)
        got = decode_delete_payload(payload)
        assert got == records == _strict(payload, monkeypatch)
        fast = deletes._decode_fast(payload)
        if all(r.ordering_kind is not OrderingKind.DOUBLE for r in records):
            assert fast == records  # the fast path really ran
        else:
            assert fast is None


def test_fast_decoder_never_disagrees_with_strict_on_damage(monkeypatch):
    rng = random.Random(88)
    checked = 0
    for _ in range(60):
        records = [_random_record(rng) for _ in range(rng.randrange(1, 6))]
        records = [r for r in records if r.ordering_kind is not OrderingKind.DOUBLE] or \
            [DeleteRecord("k", "p", 5, OrderingKind.LONG)]
        payload = bytearray(encode_delete_payload(records))
        for _ in range(15):
            bad = bytearray(payload)
            what = rng.randrange(4)
            if what == 0:
                bad[rng.randrange(len(bad))] = rng.randrange(256)
            elif what == 1:
                del bad[rng.randrange(len(bad)):]
            elif what == 2:
                bad += bytes([rng.randrange(256)])
            else:
                bad.insert(rng.randrange(len(bad)), 0x80)  # over-long varints and the like
            bad = bytes(bad)
            try:
                got = decode_delete_payload(bad)
            except DeletePayloadError as e:
                got = type(e)
            assert got == _strict(bad, monkeypatch)
            checked += 1
    assert checked == 900


@pytest.mark.parametrize("payload", [
    bytes([0x02, 0x02, 0x02, ord("k"), 0x00, 0x04, 0x80, 0x00, 0x00]),  # over-long INT varint
    bytes([0x01, 0x02, 0x02, ord("k"), 0x00, 0x04, 0x02, 0x00]),  # negative array count
    bytes([0x02, 0x02, 0x02, ord("k"), 0x00, 0x02, 0x02, 0x00]),  # boolean byte 2
    bytes([0x02, 0x02, 0x02, ord("k"), 0x00, 0x04, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00]),  # INT beyond 32 bits
])
def test_fast_decoder_leaves_noncanonical_bytes_to_the_strict_one(payload):
    assert deletes._decode_fast(payload) is None
    with pytest.raises(DeletePayloadError):
        decode_delete_payload(payload)
