"""Record keys of the metadata table's column_stats, partition_stats and bloom_filters partitions, and the
mapping of a key to one of a partition's file groups, as Java computes them.

Mirrors ``org.apache.hudi.common.util.hash.HashID`` and its ``ColumnIndexID`` / ``PartitionIndexID`` (64-bit
XXHash of the UTF-8 name, seed ``0xdabadaba`` sign-extended, big-endian) and ``FileIndexID`` (MD5 of the file
name), each Base64-encoded, and ``HoodieMetadataPayload``'s keys made of them: column stats = column +
partition + file, partition stats = column + partition, bloom filter = partition + file. A non-partitioned
table's partition is named ``.`` (``getColumnStatsIndexPartitionIdentifier``). The file group of a key is
``HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex``: Java's ``String.hashCode`` of the whole key, modulo
the count. XXHash64 is written out here (Python has none in its standard library; the project takes no
dependency for one function), held to the published test vectors and to the corpus's keys by tests.
"""

from __future__ import annotations

import base64
import hashlib
import struct

_M = (1 << 64) - 1
_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
#: HashID.HASH_SEED, an int passed where XXHash64 takes a long: sign-extended
HASH_SEED = 0xDABADABA - (1 << 32)
NON_PARTITIONED_NAME = "."


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _M, 31) * _P1) & _M


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXHash64 of ``data`` (the reference algorithm; ``seed`` taken modulo 2**64)."""
    seed &= _M
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed, (seed - _P1) & _M]
        while i + 32 <= n:
            lanes = struct.unpack_from("<4Q", data, i)
            v = [_round(a, b) for a, b in zip(v, lanes)]
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for a in v:
            h = ((h ^ _round(0, a)) * _P1 + _P4) & _M
    else:
        h = (seed + _P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        h = (_rotl(h ^ _round(0, struct.unpack_from("<Q", data, i)[0]), 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        h = (_rotl(h ^ ((struct.unpack_from("<I", data, i)[0] * _P1) & _M), 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        h = (_rotl(h ^ ((data[i] * _P5) & _M), 11) * _P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M
    h ^= h >> 29
    h = (h * _P3) & _M
    return h ^ (h >> 32)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def name_id(name: str) -> str:
    """``ColumnIndexID`` / ``PartitionIndexID`` of a name, Base64."""
    return _b64(struct.pack(">Q", xxh64(name.encode("utf-8"), HASH_SEED)))


def file_id(file_name: str) -> str:
    """``FileIndexID`` of a file name, Base64."""
    return _b64(hashlib.md5(file_name.encode("utf-8")).digest())


def partition_identifier(partition: str) -> str:
    """The name a data partition is hashed by (``.`` for a non-partitioned table)."""
    return partition if partition not in ("", NON_PARTITIONED_NAME) else NON_PARTITIONED_NAME


def column_stats_key(column: str, partition: str, file_name: str) -> str:
    return name_id(column) + name_id(partition_identifier(partition)) + file_id(file_name)


def partition_stats_key(column: str, partition: str) -> str:
    return name_id(column) + name_id(partition_identifier(partition))


def bloom_filter_key(partition: str, file_name: str) -> str:
    return name_id(partition_identifier(partition)) + file_id(file_name)


def java_string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units), a signed 32-bit int."""
    h = 0
    for unit in struct.unpack(f"<{len(s.encode('utf-16-le')) // 2}H", s.encode("utf-16-le")):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def key_file_group(key: str, count: int) -> int:
    """``mapRecordKeyToFileGroupIndex``: ``abs(abs(hashCode) % count)`` (Java's abs of MIN_VALUE stays negative,
    hence the outer abs)."""
    if count <= 0:
        raise ValueError(f"a metadata partition has at least one file group, not {count}")
    h = java_string_hash(key)
    a = h if h == -(1 << 31) else abs(h)
    r = abs(a) % count if a >= 0 else -(abs(a) % count)  # Java's % keeps the dividend's sign
    return abs(r)
