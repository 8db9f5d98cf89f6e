"""Tests for hudi_log.format.content.hfile: every HFile block of the real corpus, plus synthetic and damaged files."""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import struct
import zipfile
import zlib
from pathlib import Path

import fastavro
import pytest

from hudi_log.format.content import hfile
from hudi_log.format.content.hfile import HFileContents, HFileError, read_hfile

HFILE_DATA_BLOCK = 4
SCHEMA_HEADER = 2


def _hfile_contents_from_log(path: Path) -> list[tuple[dict[int, str], bytes]]:
    """(header map, content) of each HFILE_DATA_BLOCK in a log file.

    Stand-in until the package's own log reader lands; only the framing needed here.
    """
    data = path.read_bytes()
    blocks = []
    pos = 0
    while pos < len(data):
        assert data[pos : pos + 6] == b"#HUDI#", f"{path}: no magic at {pos}"
        (size,) = struct.unpack_from(">q", data, pos + 6)
        (block_type,) = struct.unpack_from(">i", data, pos + 18)
        cursor = pos + 22
        (count,) = struct.unpack_from(">i", data, cursor)
        cursor += 4
        headers = {}
        for _ in range(count):
            key, length = struct.unpack_from(">ii", data, cursor)
            cursor += 8
            headers[key] = data[cursor : cursor + length].decode("utf-8")
            cursor += length
        (content_length,) = struct.unpack_from(">q", data, cursor)
        cursor += 8
        if block_type == HFILE_DATA_BLOCK:
            blocks.append((headers, data[cursor : cursor + content_length]))
        pos += 6 + 8 + size
    return blocks


# ------------------------------------------------------------------------------------------
# Corpus


def _corpus_dir() -> Path:
    default = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
    return Path(os.environ.get("HUDI_LOG_CORPUS", default))


@pytest.fixture(scope="module")
def corpus_blocks(tmp_path_factory) -> list[tuple[str, str, dict[int, str], bytes]]:
    """(zip name, path inside the table, header map, HFile bytes) for every HFile block."""
    tables = _corpus_dir() / "tables"
    zips = sorted(tables.glob("*.zip"))
    if not zips:
        pytest.skip(f"Hudi corpus not found at {tables} (set HUDI_LOG_CORPUS to the corpus folder)")
    root = tmp_path_factory.mktemp("corpus")
    found = []
    for zip_path in zips:
        target = root / zip_path.stem
        with zipfile.ZipFile(zip_path) as archive:
            members = [n for n in archive.namelist() if not n.startswith("__MACOSX/")]
            archive.extractall(target, members)
        for log in sorted(target.rglob("*.log.*")):
            for headers, content in _hfile_contents_from_log(log):
                found.append((zip_path.name, str(log.relative_to(target)), headers, content))
    return found


@pytest.fixture(scope="module")
def corpus_parsed(corpus_blocks) -> list[tuple[str, str, dict[int, str], HFileContents]]:
    return [(z, p, h, read_hfile(c)) for z, p, h, c in corpus_blocks]


def _row_of_cell_key(key: bytes) -> str:
    (row_len,) = struct.unpack_from(">h", key)
    return key[2 : 2 + row_len].decode("utf-8")


def test_every_corpus_hfile_parses(corpus_parsed):
    assert len(corpus_parsed) >= 100  # the corpus README promises metadata tables full of them
    minor_by_table_version: dict[str, set[int]] = {}
    for zip_name, path, headers, contents in corpus_parsed:
        where = f"{zip_name}:{path}"
        assert contents.major_version == 3, where
        assert contents.entry_count == len(contents.records) > 0, where
        assert contents.compression == "GZ", where
        assert contents.comparator == "org.apache.hudi.io.storage.HoodieHBaseKVComparator", where
        assert contents.file_info["schema"].decode("utf-8") == headers[SCHEMA_HEADER], where
        keys = [r.key for r in contents.records]
        assert keys == sorted(keys) and len(set(keys)) == len(keys), where
        # The last key recorded in file info starts with the same rowLen|row as the last cell.
        assert _row_of_cell_key(contents.file_info["hfile.LASTKEY"]) == keys[-1], where
        assert {(r.timestamp, r.key_type) for r in contents.records} == {(2**63 - 1, 4)}, where
        table_version = "v8" if "_v8_" in zip_name else "v9"
        minor_by_table_version.setdefault(table_version, set()).add(contents.minor_version)
    # Hudi 1.0 wrote through HBase (minor 3, CRC32C); Hudi 1.1's native writer uses minor 0.
    assert minor_by_table_version == {"v8": {3}, "v9": {0}}


def test_corpus_values_are_key_excluded_avro(corpus_parsed):
    for zip_name, path, headers, contents in corpus_parsed:
        schema = fastavro.parse_schema(json.loads(headers[SCHEMA_HEADER]))
        for record in contents.records:
            stream = io.BytesIO(record.value)
            decoded = fastavro.schemaless_reader(stream, schema, schema)
            assert stream.tell() == len(record.value), f"{zip_name}:{path}:{record.key}"
            assert decoded["key"] == "", f"{zip_name}:{path}:{record.key}"


def test_v8_metadata_table_keys(corpus_parsed):
    files_keys: set[str] = set()
    record_index_keys: set[str] = set()
    for zip_name, path, _headers, contents in corpus_parsed:
        if not zip_name.startswith("quickstart_trips_table_mor_avro_v8_"):
            continue
        if "/.hoodie/metadata/files/" in path:
            files_keys.update(r.key for r in contents.records)
        elif "/.hoodie/metadata/record_index/" in path:
            record_index_keys.update(r.key for r in contents.records)
    assert files_keys == {"__all_partitions__", "city=chennai", "city=san_francisco", "city=sao_paulo"}
    # The record index is keyed by record key: the eight uuids the table's SQL inserts.
    assert len(record_index_keys) == 8
    assert "334e26e9-8355-45cc-97c6-c31daf0df330" in record_index_keys


def _example(corpus_blocks, minor: int) -> bytes:
    for _zip_name, _path, _headers, content in corpus_blocks:
        if read_hfile(content).minor_version == minor:
            return content
    pytest.fail(f"no corpus HFile with minor version {minor}")


def _assert_damage_is_reported(damaged: bytes, must_fail: bool) -> None:
    try:
        read_hfile(damaged)
    except HFileError as exc:
        assert "offset" in str(exc) and exc.field
    else:
        assert not must_fail, "damage went unnoticed"


@pytest.mark.parametrize("minor", [0, 3])
def test_truncated_corpus_hfile_raises_hfile_error(corpus_blocks, minor):
    data = _example(corpus_blocks, minor)
    points = {0, 1, 8, 100, len(data) // 2, len(data) - 4096, len(data) - 4095, len(data) - 5, len(data) - 1}
    points.update(random.Random(minor).sample(range(len(data)), 40))
    for cut in sorted(points):
        with pytest.raises(HFileError):
            read_hfile(data[:cut])
        # Losing the head instead of the tail misplaces every offset the trailer gives.
        if cut:
            with pytest.raises(HFileError):
                read_hfile(data[cut:])


@pytest.mark.parametrize("minor", [0, 3])
def test_bit_flipped_corpus_hfile_raises_only_hfile_error(corpus_blocks, minor):
    data = _example(corpus_blocks, minor)
    trailer_start = len(data) - hfile.TRAILER_SIZE
    rng = random.Random(1000 + minor)
    # Anywhere: either still readable (padding, gzip mtime, prevBlockOffset...) or HFileError.
    for position in rng.sample(range(len(data)), 400):
        damaged = bytearray(data)
        damaged[position] ^= 1 << rng.randrange(8)
        _assert_damage_is_reported(bytes(damaged), must_fail=False)
    # Trailer magic and the compressed payload of the data block (after its 10-byte gzip header)
    # are always caught: by the magic check, by inflate / gzip CRC, or by the block CRC32C.
    for position in [trailer_start, trailer_start + 7, *range(33 + 10, 33 + 60)]:
        damaged = bytearray(data)
        damaged[position] ^= 0x10
        _assert_damage_is_reported(bytes(damaged), must_fail=True)


def test_garbage_raises_hfile_error():
    rng = random.Random(7)
    for size in (0, 10, 4095, 4096, 5000, 20000):
        with pytest.raises(HFileError):
            read_hfile(bytes(rng.randrange(256) for _ in range(size)))
    with pytest.raises(HFileError, match="trailer magic"):
        read_hfile(bytes(5000))


# ------------------------------------------------------------------------------------------
# Synthetic files: layouts the corpus does not exercise (several data blocks, NONE codec,
# 24-byte headers, CRC32, tags, no MVCC).


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _pb_bytes(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _pb_int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _cell_key(row: str) -> bytes:
    raw = row.encode("utf-8")
    return struct.pack(">h", len(raw)) + raw + b"\x00" + struct.pack(">qB", 2**63 - 1, 4)


def _build_hfile(
    records: list[tuple[str, bytes]],
    *,
    codec: str = "GZ",
    header_size: int = 33,
    checksum_type: int = 0,
    bytes_per_checksum: int = 16384,
    minor_version: int = 0,
    major_version: int = 3,
    per_block: int = 2,
    tags: bool = False,
    mvcc: bool = True,
    entry_count: int | None = None,
) -> bytes:
    out = bytearray()

    def block(magic: bytes, payload: bytes) -> int:
        start = len(out)
        body = gzip.compress(payload, mtime=0) if codec == "GZ" else payload
        if header_size == 24:
            out.extend(magic + struct.pack(">iiq", len(body), len(payload), -1) + body)
            return start
        data_size = 33 + len(body)
        chunks = -(-data_size // bytes_per_checksum)
        head = magic + struct.pack(">iiqBii", len(body) + 4 * chunks, len(payload), -1, checksum_type, bytes_per_checksum, data_size)
        framed = head + body
        sums = b""
        for at in range(0, data_size, bytes_per_checksum):
            chunk = framed[at : at + bytes_per_checksum]
            value = {0: 0, 1: zlib.crc32(chunk), 2: hfile._crc32c(chunk)}[checksum_type]
            sums += struct.pack(">I", value)
        out.extend(framed + sums)
        return start

    index = []
    for first in range(0, len(records), per_block):
        payload = bytearray()
        for row, value in records[first : first + per_block]:
            key = _cell_key(row)
            payload += struct.pack(">ii", len(key), len(value)) + key + value
            if tags:
                payload += struct.pack(">h", 3) + b"tag"
            if mvcc:
                payload += b"\x00"
        start = block(b"DATABLK*", bytes(payload))
        index.append((start, len(out) - start, _cell_key(records[first][0])))
    last_data = index[-1][0] if index else 0

    load_on_open = block(
        b"IDXROOT2", b"".join(struct.pack(">qi", o, s) + _varint(len(k)) + k for o, s, k in index)
    )
    block(b"IDXROOT2", b"")  # meta index, empty as in every corpus file
    info = {"schema": b"{}"}
    if mvcc:
        info["KEY_VALUE_VERSION"] = struct.pack(">i", 1)
    if tags:
        info["hfile.MAX_TAGS_LEN"] = struct.pack(">i", 3)
    message = b"".join(_pb_bytes(1, _pb_bytes(1, k.encode()) + _pb_bytes(2, v)) for k, v in info.items())
    file_info = block(b"FILEINF2", b"PBUF" + _varint(len(message)) + message)

    proto = b"".join([
        _pb_int(1, file_info), _pb_int(2, load_on_open), _pb_int(5, len(index)), _pb_int(6, 0),
        _pb_int(7, len(records) if entry_count is None else entry_count), _pb_int(8, 1),
        _pb_int(9, 0), _pb_int(10, last_data),
        _pb_bytes(11, b"org.apache.hudi.io.storage.HoodieHBaseKVComparator"),
        _pb_int(12, hfile.COMPRESSION_CODECS.index(codec)),
    ])
    trailer = b'TRABLK"$' + _varint(len(proto)) + proto
    trailer += bytes(hfile.TRAILER_SIZE - 4 - len(trailer)) + struct.pack(">i", major_version | minor_version << 24)
    return bytes(out + trailer)


RECORDS = [(f"key-{i:03d}", bytes([i]) * (i % 7)) for i in range(11)] + [("ключ-юникод", b"v")]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"codec": "NONE"},
        {"header_size": 24, "minor_version": 0},
        {"header_size": 24, "minor_version": 0, "codec": "NONE"},
        {"checksum_type": 2, "minor_version": 3, "bytes_per_checksum": 16},
        {"checksum_type": 1, "minor_version": 1, "bytes_per_checksum": 64, "codec": "NONE"},
        {"tags": True},
        {"mvcc": False},
        {"per_block": 1},
        {"per_block": 100},
    ],
    ids=repr,
)
def test_synthetic_layouts(options):
    contents = read_hfile(_build_hfile(RECORDS, **options))
    assert [(r.key, r.value) for r in contents.records] == RECORDS
    assert contents.entry_count == len(RECORDS)
    assert contents.compression == options.get("codec", "GZ")
    assert contents.minor_version == options.get("minor_version", 0)
    assert contents.file_info["schema"] == b"{}"


def test_memoryview_input():
    data = _build_hfile(RECORDS)
    padded = b"xx" + data + b"yy"
    assert read_hfile(memoryview(padded)[2:-2]) == read_hfile(data)


def test_empty_hfile():
    contents = read_hfile(_build_hfile([]))
    assert contents.records == [] and contents.entry_count == 0


def test_checksum_mismatch_is_reported():
    data = bytearray(_build_hfile(RECORDS, checksum_type=2, minor_version=3, codec="NONE"))
    data[data.index(b"key-000") + 2] ^= 1  # "key-000" -> "kex-000": only the CRC can notice
    with pytest.raises(HFileError, match="DATABLK\\* checksum"):
        read_hfile(bytes(data))
    assert read_hfile(bytes(data), verify_checksums=False).records[0].key == "kex-000"


def test_entry_count_mismatch_names_the_field():
    with pytest.raises(HFileError, match="entry_count"):
        read_hfile(_build_hfile(RECORDS, entry_count=len(RECORDS) + 1))


def test_unsupported_version_and_codec():
    with pytest.raises(HFileError, match="major version 2"):
        read_hfile(_build_hfile(RECORDS, major_version=2))
    with pytest.raises(HFileError, match="SNAPPY"):
        data = _build_hfile(RECORDS, codec="NONE")
        proto_codec = _pb_int(12, hfile.COMPRESSION_CODECS.index("NONE"))
        at = data.rindex(proto_codec)
        read_hfile(data[:at] + _pb_int(12, hfile.COMPRESSION_CODECS.index("SNAPPY")) + data[at + 2 :])


def test_crc32c_known_value():
    assert hfile._crc32c(b"123456789") == 0xE3069283
