"""The record-key bloom filter Java Hudi stores in every Parquet base file's footer, byte for byte.

Java's index (``HoodieBloomIndex`` / ``HoodieGlobalBloomIndex``) reads the footer key
``org.apache.hudi.bloomfilter`` of each candidate base file, after pruning files by their
``hoodie_min_record_key`` / ``hoodie_max_record_key``, and checks every incoming key against it: a key the
filter rejects is taken as absent from that file, so a filter that misses a key turns an update into a
duplicate insert. What is mirrored, by class:

* sizing, ``BloomFilterUtils``: ``bits = ceil(n * -ln(fpp) / ln(2)^2)``, ``hashes = ceil(ln(2) * bits / n)``,
  with ``n = hoodie.index.bloom.num_entries`` (60000) and ``fpp = hoodie.index.bloom.fpp`` (1e-9):
  2,587,966 bits and 30 hashes by default;
* hashing, ``HashFunction`` over the key's UTF-8 bytes (``Key``): hash i is Hadoop's MurmurHash
  (``org.apache.hadoop.util.hash.MurmurHash``, a MurmurHash2 variant: its tail bytes are sign-extended and
  taken in reverse order) seeded with hash i-1 (the first with 0), and the bit is ``|hash % bits|`` with
  Java's truncating remainder;
* bit vectors and their bytes, Hadoop's ``Filter`` / ``BloomFilter`` (Hudi's ``InternalFilter`` /
  ``InternalBloomFilter`` copy them): big-endian int -1 (version), int hash count, byte hash type
  (1 = murmur), int bit count, then ``ceil(bits / 8)`` bytes, bit i in byte i/8 at value ``1 << (i % 8)``;
* ``SIMPLE`` (``SimpleBloomFilter``): one such vector;
* ``DYNAMIC_V0`` (``HoodieDynamicBoundedBloomFilter`` over ``InternalDynamicBloomFilter``, the default of
  ``hoodie.bloom.index.filter.type``): the vector header above, then int ``nr`` (= num_entries, keys per
  row), int ``currentNbRecord``, int row count, and each row as a full vector. A new row starts every
  ``nr`` keys while ``rows * nr < hoodie.bloom.index.filter.dynamic.max.entries`` (100000); past that,
  keys go round-robin over the rows, starting with two keys for row 0 (Java's cursor only moves from the
  second key on). A key is a member when any row holds it;
* the footer value, ``serializeToString``: those bytes in standard Base64 (padded, no line breaks; the
  ASCII string as UTF-8), and ``HoodieBloomFilterWriteSupport.finalizeMetadata``: the filter,
  ``hoodie_bloom_filter_type_code`` only for the DYNAMIC types, and the min / max keys in Java's
  ``String.compareTo`` order (UTF-16 code units) when the file has keys.

Hashing is vectorised with numpy: keys sorted by length so each 4-byte block is one array operation on a
prefix, the seed-independent block mixing done once for all hash rounds, keys in cache-sized chunks.
"""

from __future__ import annotations

import base64
import math
import struct
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import HudiLogError

FOOTER_KEY = "org.apache.hudi.bloomfilter"  # HoodieAvroWriteSupport.HOODIE_AVRO_BLOOM_FILTER_METADATA_KEY
OLD_FOOTER_KEY = "com.uber.hoodie.bloomfilter"  # what readers also accept
TYPE_CODE_KEY = "hoodie_bloom_filter_type_code"
MIN_KEY = "hoodie_min_record_key"
MAX_KEY = "hoodie_max_record_key"

SIMPLE = "SIMPLE"
DYNAMIC_V0 = "DYNAMIC_V0"
TYPE_CODES = (SIMPLE, DYNAMIC_V0)  # BloomFilterTypeCode
MURMUR_HASH = 1  # org.apache.hadoop.util.hash.Hash.MURMUR_HASH; the only type BloomFilterFactory makes
_VERSION = -1  # Filter.VERSION

# Hudi's option names (HoodieStorageConfig / HoodieIndexConfig) and defaults
OPT_ENABLED = "hoodie.parquet.bloom.filter.enabled"
OPT_NUM_ENTRIES = "hoodie.index.bloom.num_entries"
OPT_FPP = "hoodie.index.bloom.fpp"
OPT_TYPE = "hoodie.bloom.index.filter.type"
OPT_DYNAMIC_MAX = "hoodie.bloom.index.filter.dynamic.max.entries"
OPT_INDEX_TYPE = "hoodie.index.type"

_M = np.uint32(0x5BD1E995)
_CHUNK = 1 << 16  # keys hashed at once: a chunk's arrays stay in the CPU cache (measured fastest)


class BloomFilterError(HudiLogError, ValueError):
    """A bloom filter option, key or footer value Hudi's classes would refuse."""


@dataclass(frozen=True)
class BloomOptions:
    """How a base file's filter is made (``HoodieFileWriterFactory.createBloomFilter`` /
    ``enableBloomFilter``)."""
    num_entries: int = 60000
    fpp: float = 0.000000001
    filter_type: str = DYNAMIC_V0
    dynamic_max_entries: int = 100000
    enabled: bool = True

    @classmethod
    def from_options(cls, options: Mapping | None) -> "BloomOptions":
        """From write options / table properties under Hudi's names (unset or empty: Hudi's default)."""
        options = options or {}

        def get(name, default):
            v = options.get(name)
            return default if v is None or str(v).strip() == "" else str(v).strip()

        try:
            num = int(get(OPT_NUM_ENTRIES, cls.num_entries))
            fpp = float(get(OPT_FPP, cls.fpp))
            dyn = int(get(OPT_DYNAMIC_MAX, cls.dynamic_max_entries))
        except ValueError as e:
            raise BloomFilterError(f"bloom filter option is not a number: {e}") from None
        kind = get(OPT_TYPE, DYNAMIC_V0).upper()
        if kind not in TYPE_CODES:
            raise BloomFilterError(f"{OPT_TYPE}={kind!r} is not one of {', '.join(TYPE_CODES)}")
        if not 0 < num < 2 ** 31:
            raise BloomFilterError(f"{OPT_NUM_ENTRIES}={num}: must be a positive int")
        if not 0 < fpp < 1:
            raise BloomFilterError(f"{OPT_FPP}={fpp}: must be between 0 and 1")
        if not 0 <= dyn < 2 ** 31:
            raise BloomFilterError(f"{OPT_DYNAMIC_MAX}={dyn}: must be a non-negative int")
        if bit_size(num, fpp) >= 2 ** 31:
            raise BloomFilterError(f"{OPT_NUM_ENTRIES}={num} with {OPT_FPP}={fpp} needs more bits than Java's int")
        # Java writes the filter when hoodie.parquet.bloom.filter.enabled (default true) or a BLOOM index
        enabled = get(OPT_ENABLED, "true").lower() == "true" or "BLOOM" in get(OPT_INDEX_TYPE, "").upper()
        return cls(num, fpp, kind, dyn, enabled)


def bit_size(num_entries: int, fpp: float) -> int:
    """``BloomFilterUtils.getBitSize``."""
    return int(math.ceil(num_entries * (-math.log(fpp) / (math.log(2) * math.log(2)))))


def num_hashes(bits: int, num_entries: int) -> int:
    """``BloomFilterUtils.getNumHashes``."""
    return int(math.ceil(math.log(2) * bits / num_entries))


# ---- Hadoop's MurmurHash --------------------------------------------------------------------------------
def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def murmur_hash(data: bytes, seed: int = -1) -> int:
    """``org.apache.hadoop.util.hash.MurmurHash.hash(data, length, seed)`` of one byte string, as a Java
    int. The scalar reference for :func:`hash_rounds`."""
    m, n = 0x5BD1E995, len(data)
    h = (seed ^ n) & 0xFFFFFFFF
    body = n >> 2 << 2
    for i in range(0, body, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = k * m & 0xFFFFFFFF
        k ^= k >> 24
        k = k * m & 0xFFFFFFFF
        h = (h * m & 0xFFFFFFFF) ^ k
    left = n - body
    if left:
        # Java: (int) data[n-3] << 16 ^ (int) data[n-2] << 8 ^ data[n-1], signed bytes
        for j, b in enumerate(data[body:]):
            h ^= (b - 256 if b > 127 else b) << (8 * (left - 1 - j)) & 0xFFFFFFFF
        h = h * m & 0xFFFFFFFF
    h ^= h >> 13
    h = h * m & 0xFFFFFFFF
    h ^= h >> 15
    return _int32(h)


def _as_array(keys) -> pa.Array:
    if isinstance(keys, pa.ChunkedArray):
        return keys.combine_chunks() if keys.num_chunks else pa.array([], pa.string())
    return keys if isinstance(keys, pa.Array) else pa.array(list(keys), pa.string())


def _key_bytes(keys) -> tuple[np.ndarray, np.ndarray]:
    """The UTF-8 bytes of ``keys`` (strings) and their offsets (n + 1 int64). Null or empty keys are
    refused, as Java's ``HashFunction`` / ``SimpleBloomFilter.add`` refuse them."""
    keys = _as_array(keys)
    if not (pa.types.is_string(keys.type) or pa.types.is_large_string(keys.type)):
        raise BloomFilterError(f"record keys must be strings, not {keys.type}")
    if keys.null_count:
        raise BloomFilterError("a record key is null: a bloom filter cannot hold it")
    arr = keys.cast(pa.large_string())
    offsets = np.frombuffer(arr.buffers()[1], np.int64)[arr.offset:arr.offset + len(arr) + 1]
    data_buf = arr.buffers()[2]
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    if len(arr) and (np.diff(offsets) == 0).any():
        raise BloomFilterError("a record key is empty: Java's bloom filter refuses empty keys")
    return data, offsets


def hash_rounds(keys, vector_size: int, nb_hash: int) -> Iterator[np.ndarray]:
    """For each of ``nb_hash`` rounds, the bit position of every key (uint32, in key order), as
    ``HashFunction.hash``: round i hashes with round i-1's hash as seed."""
    order, rounds = _sorted_rounds(keys, vector_size, nb_hash)
    unsort = np.empty(len(order), np.int64)
    unsort[order] = np.arange(len(order))
    for pos in rounds:
        yield pos[unsort]


def _sorted_rounds(keys, vector_size: int, nb_hash: int) -> tuple[np.ndarray, Iterator[np.ndarray]]:
    """:func:`hash_rounds` with the keys in the order returned first: longest first, so the keys that
    have a j-th 4-byte block are a prefix and each block is one array operation on it."""
    data, offsets = _key_bytes(keys)
    lens = np.diff(offsets)
    order = np.argsort(-lens, kind="stable")
    return order, _rounds(data, offsets[:-1][order], lens[order], vector_size, nb_hash)


def _mixed_blocks(data: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> tuple[list, list, np.ndarray]:
    """Per 4-byte block j: the keys that have it (a prefix, by count) and its seed-independent mixing
    (done once for every round); and each key's tail term (its last ``len % 4`` bytes, sign-extended
    as Java's bytes and taken in reverse order: the first of three goes to bits 16-23)."""
    n = len(lens)
    nblocks = lens >> 2
    counts = np.searchsorted(-nblocks, -np.arange(int(nblocks[0]) if n else 0), side="left").tolist()
    if n and lens[0] == lens[-1]:  # one length (UUIDs, fixed formats): the keys are rows of a matrix
        size = int(lens[0])
        first = int(starts[0])
        words = [np.ndarray((n,), "<u4", data, first + 4 * j, (size,)) for j in range(len(counts))]
        col = [np.ndarray((n,), "i1", data, first + 4 * len(counts) + j, (size,)) for j in range(size & 3)]
    else:  # words[p]: the unaligned little-endian word at byte p
        every = np.ndarray((max(len(data) - 3, 0),), "<u4", data, 0, (1,))
        words = [every[starts[:c] + 4 * j] for j, c in enumerate(counts)]
        tail_at = starts + (nblocks << 2)
        col = [data[np.where(lens & 3 > j, tail_at + j, 0)].view(np.int8) for j in range(3)]
    blocks = []
    for w in words:
        k = w * _M
        k ^= k >> np.uint32(24)
        k *= _M
        blocks.append(k)
    left = lens & 3
    tail = np.zeros(n, np.uint32)
    for j, b in enumerate(col):
        has = left > j
        term = b.astype(np.int32).view(np.uint32) << np.where(has, 8 * (left - 1 - j), 0).astype(np.uint32)
        tail ^= np.where(has, term, np.uint32(0))
    return counts, blocks, tail


def _rounds(data, starts, lens, vector_size: int, nb_hash: int) -> Iterator[np.ndarray]:
    counts, blocks, tail = _mixed_blocks(data, starts, lens)
    n = len(lens)
    mult = np.where(lens & 3 > 0, _M, np.uint32(1)).astype(np.uint32)
    lens32 = lens.astype(np.uint32)
    vs = np.uint32(vector_size)
    h = np.zeros(n, np.uint32)  # the seed: 0, then the previous round's hash
    shifted = np.empty(n, np.uint32)
    for _ in range(nb_hash):
        h ^= lens32
        for c, k in zip(counts, blocks):
            hc = h[:c]
            hc *= _M
            hc ^= k
        h ^= tail
        h *= mult
        h ^= np.right_shift(h, np.uint32(13), out=shifted)
        h *= _M
        h ^= np.right_shift(h, np.uint32(15), out=shifted)
        # Math.abs(initval % maxValue) = |initval| % maxValue (Java's remainder truncates); |int| fits
        # uint32 (abs of -2**31 wraps to 2**31 there), and numpy divides uint32 by a scalar fast
        a = np.abs(h.view(np.int32)).view(np.uint32)
        q = a // vs
        q *= vs
        a -= q
        yield a


# ---- the filters ----------------------------------------------------------------------------------------
@dataclass
class BloomFilter:
    """A SIMPLE or DYNAMIC_V0 filter: ``bits``, one row (SIMPLE: the only one) per bit vector of
    ``vector_size`` bits. The DYNAMIC_V0 state (``nr``, ``current``, and the unserialized ``max_nr`` and
    round-robin cursor) is kept as Java keeps it, so keys added after parsing land where Java's would."""
    type_code: str
    vector_size: int
    nb_hash: int
    hash_type: int = MURMUR_HASH
    bits: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))  # rows x vector_size
    nr: int = 0
    current: int = 0
    max_nr: int = 0
    reached_max: bool = False
    cursor: int = 0

    @classmethod
    def create(cls, opts: BloomOptions) -> "BloomFilter":
        """``BloomFilterFactory.createBloomFilter``."""
        size = bit_size(opts.num_entries, opts.fpp)
        f = cls(opts.filter_type, size, num_hashes(size, opts.num_entries), bits=np.zeros((1, size), bool))
        if opts.filter_type == DYNAMIC_V0:
            f.nr, f.max_nr = opts.num_entries, opts.dynamic_max_entries
        return f

    def _row_of_each(self, n: int) -> np.ndarray:
        """The row each of ``n`` further keys goes to (``InternalDynamicBloomFilter.getActiveStandardBF``),
        advancing the filter's state and adding rows as Java does."""
        if self.type_code == SIMPLE:
            return np.zeros(n, np.int64)
        out, done, rows = [], 0, len(self.bits)
        while done < n:
            if self.reached_max:
                m = n - done
                out.append((self.cursor + np.arange(m)) % rows)
                self.cursor += m
                self.current += m
                done = n
            elif self.current >= self.nr and rows * self.nr < self.max_nr:
                rows += 1
                self.current = 0
            elif self.current >= self.nr:
                self.reached_max = True  # this key goes to row 0 without advancing the cursor
                out.append(np.zeros(1, np.int64))
                self.current += 1
                done += 1
            else:
                m = min(self.nr - self.current, n - done)
                out.append(np.full(m, rows - 1, np.int64))
                self.current += m
                done += m
        if rows > len(self.bits):
            self.bits = np.vstack([self.bits, np.zeros((rows - len(self.bits), self.vector_size), bool)])
        return np.concatenate(out) if out else np.zeros(0, np.int64)

    def add(self, keys) -> None:
        """Add record keys (strings, in the order the file holds them)."""
        for chunk in _chunks(keys):
            rows = self._row_of_each(len(chunk))
            order, rounds = _sorted_rounds(chunk, self.vector_size, self.nb_hash)
            if len(self.bits) == 1:
                for pos in rounds:
                    self.bits[0, pos] = True
            else:
                base = rows[order] * self.vector_size
                flat = self.bits.reshape(-1)  # a view: bits is C-contiguous
                for pos in rounds:
                    flat[base + pos] = True

    def might_contain(self, keys) -> np.ndarray:
        """Per key, whether the filter may hold it (False: certainly absent); any row may hold it."""
        found = []
        for chunk in _chunks(keys):
            ok = np.ones((len(self.bits), len(chunk)), bool)
            order, rounds = _sorted_rounds(chunk, self.vector_size, self.nb_hash)
            for pos in rounds:
                ok &= self.bits[:, pos]
            hit = np.empty(len(chunk), bool)
            hit[order] = ok.any(axis=0)
            found.append(hit)
        return np.concatenate(found) if found else np.zeros(0, bool)

    # -- bytes
    def _header(self) -> bytes:
        return struct.pack(">iibi", _VERSION, self.nb_hash, self.hash_type, self.vector_size)

    def to_bytes(self) -> bytes:
        """``write(DataOutput)`` of the filter (``BloomFilter`` for SIMPLE, ``InternalDynamicBloomFilter``)."""
        packed = np.packbits(self.bits, axis=1, bitorder="little")  # each row padded to whole bytes
        vectors = [self._header() + row.tobytes() for row in packed]
        if self.type_code == SIMPLE:
            return vectors[0]
        return self._header() + struct.pack(">iii", self.nr, self.current, len(vectors)) + b"".join(vectors)

    def serialize(self) -> str:
        """``serializeToString``: the footer value."""
        return base64.b64encode(self.to_bytes()).decode("ascii")

    @classmethod
    def parse(cls, value: str | bytes, type_code: str | None = None) -> "BloomFilter":
        """A footer value back (``BloomFilterFactory.fromString``; no type code means SIMPLE, as Java's
        footer reader assumes)."""
        kind = (type_code or SIMPLE).upper()
        if kind not in TYPE_CODES:
            raise BloomFilterError(f"bloom filter type code {type_code!r} is not one of {', '.join(TYPE_CODES)}")
        try:
            raw = base64.b64decode(value, validate=True)
        except ValueError as e:
            raise BloomFilterError(f"bloom filter footer value is not Base64: {e}") from None
        r = _Reader(raw)
        nb_hash, hash_type, size = r.header()
        f = cls(kind, size, nb_hash, hash_type)
        if kind == SIMPLE:
            rows = [r.vector(size)]
        else:
            f.nr, f.current, count = r.ints(3)
            if count < 1:
                raise BloomFilterError(f"dynamic bloom filter has {count} rows")
            rows = []
            for _ in range(count):
                if r.header() != (nb_hash, hash_type, size):
                    raise BloomFilterError("dynamic bloom filter row differs from the filter's header")
                rows.append(r.vector(size))
        f.bits = np.stack(rows)
        if r.pos != len(raw):
            raise BloomFilterError(f"bloom filter has {len(raw) - r.pos} bytes after its last vector")
        return f


class _Reader:
    def __init__(self, raw: bytes):
        self.raw, self.pos = raw, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.raw):
            raise BloomFilterError(f"bloom filter ends at byte {len(self.raw)}, inside a field at {self.pos}")
        b = self.raw[self.pos:self.pos + n]
        self.pos += n
        return b

    def ints(self, n: int) -> tuple[int, ...]:
        return struct.unpack(f">{n}i", self.take(4 * n))

    def header(self) -> tuple[int, int, int]:
        at = self.pos
        version, nb_hash = self.ints(2)
        if version != _VERSION:  # positive: Hadoop's unversioned Jenkins-hash format, which Hudi never writes
            raise BloomFilterError(f"bloom filter at byte {at}: version {version} (Hudi writes {_VERSION})")
        hash_type = struct.unpack(">b", self.take(1))[0]
        (size,) = self.ints(1)
        if hash_type != MURMUR_HASH or nb_hash <= 0 or size <= 0:
            raise BloomFilterError(f"bloom filter at byte {at}: hash type {hash_type}, {nb_hash} hashes, "
                                   f"{size} bits (Hudi writes murmur, both positive)")
        return nb_hash, hash_type, size

    def vector(self, size: int) -> np.ndarray:
        packed = np.frombuffer(self.take((size + 7) // 8), np.uint8)
        return np.unpackbits(packed, count=size, bitorder="little").astype(bool)


def _chunks(keys) -> Iterator[pa.Array]:
    keys = _as_array(keys)
    for start in range(0, len(keys), _CHUNK):
        yield keys.slice(start, _CHUNK)


# ---- the footer -------------------------------------------------------------------------------------------
def java_min_max(keys) -> tuple[str, str] | None:
    """The smallest and largest key by Java's ``String.compareTo`` (UTF-16 code units); None without keys.
    That is UTF-8 byte order (Arrow's) unless a key has a character beyond U+FFFF (4 UTF-8 bytes)."""
    arr = _as_array(keys)
    if len(arr) - arr.null_count == 0:
        return None
    mm = pc.min_max(arr)
    data = arr.buffers()[2]
    if data is not None and (np.frombuffer(data, np.uint8) >= 0xF0).any():
        values = [v for v in arr.to_pylist() if v is not None]
        return min(values, key=_utf16), max(values, key=_utf16)
    return mm["min"].as_py(), mm["max"].as_py()


def _utf16(s: str) -> bytes:
    return s.encode("utf-16-be")


def footer_metadata(keys, opts: BloomOptions) -> dict[bytes, bytes]:
    """``HoodieBloomFilterWriteSupport.finalizeMetadata`` for a file holding ``keys`` in this order: the
    filter, its type code (DYNAMIC types only), min and max key. Empty when Java writes no filter (then no
    min / max either, as they come with the filter's write support)."""
    if not opts.enabled:
        return {}
    f = BloomFilter.create(opts)
    f.add(keys)
    out = {FOOTER_KEY.encode(): f.serialize().encode("utf-8")}
    if f.type_code.startswith("DYNAMIC"):
        out[TYPE_CODE_KEY.encode()] = f.type_code.encode("utf-8")
    mm = java_min_max(keys)
    if mm is not None:
        out[MIN_KEY.encode()] = mm[0].encode("utf-8")
        out[MAX_KEY.encode()] = mm[1].encode("utf-8")
    return out


def read_footer_filter(metadata: Mapping[bytes, bytes]) -> BloomFilter | None:
    """The filter a Parquet footer carries (``BaseFileUtils.readBloomFilterFromMetadata``), None without."""
    value = metadata.get(FOOTER_KEY.encode(), metadata.get(OLD_FOOTER_KEY.encode()))
    if value is None:
        return None
    code = metadata.get(TYPE_CODE_KEY.encode())
    return BloomFilter.parse(value, code.decode("utf-8") if code is not None else None)


__all__ = ["BloomFilter", "BloomFilterError", "BloomOptions", "DYNAMIC_V0", "FOOTER_KEY", "MAX_KEY", "MIN_KEY",
           "SIMPLE", "TYPE_CODE_KEY", "bit_size", "footer_metadata", "hash_rounds", "java_min_max", "murmur_hash",
           "num_hashes", "read_footer_filter"]
