"""The framing of a log file, fast: where each block is, its type and its content, and nothing else.

A lake holds mostly small log files of small blocks (one per delta commit per file group), so
checking it is bound by the per-block cost of the scan. ``frames`` walks the blocks of an intact
format-version-1 file with one ``struct`` unpack per fixed group of fields, over a memory map, and
makes no object per block but a tuple: several times the block rate of ``open_log``, which builds
a LogBlock with its decoded header for every block.

It checks every framing rule of the grammar (spec/hudi_log.ksy, type ``block``) and of
HoodieLogFileReader that decides where blocks are: the magic, block_size in [0, 2^31 - 1] and
inside the file, format version 1, a block type of the enum other than CORRUPT_BLOCK, the header
and footer maps (entry count, known keys, value lengths, all inside the block), content_length
in [0, 2^31 - 1], and that the fields add up to block_size and end at the reverse pointer, which
must be block_size + 6. Like the grammar it does not decode header values: a value that is not
UTF-8 (which ``open_log`` reports as damage) passes here. At the first thing it does not accept
(damage, a format-version-0 block, garbage) it gives up (``FastScanFallback``) and callers use
``open_log``, which reports the damage as Hudi does. tests/test_fast_scan.py holds its results equal to the generated Kaitai
parser's and to ``open_log``'s on every corpus file and on fuzzed input.
"""

from __future__ import annotations

import mmap
import os
import struct
from typing import NamedTuple

from . import grammar
from .grammar import BlockType, HeaderKey
from .reader import MAX_MAP_BYTES, MAX_MAP_ENTRIES

__all__ = ["Frame", "FastScanFallback", "frames", "scan_native", "scan_python"]

_MAGIC = grammar.MAGIC
_HEAD = struct.Struct(">6sqiii")  # magic, block_size, format_version, block_type, header entry count
_ENTRY = struct.Struct(">ii")  # key, value length
_S8 = struct.Struct(">q")
_S4 = struct.Struct(">i")
_JAVA_INT_MAX = 2**31 - 1
_KEYS = frozenset(int(k) for k in HeaderKey)
_MAX_KEY = max(_KEYS)
assert _KEYS == set(range(_MAX_KEY + 1)), "header keys are no longer 0..n: check them as a set"
_TYPES = {int(t): t for t in BlockType if t != BlockType.corrupt_block}
# the smallest block: version, type, empty header, content length, empty footer, reverse pointer
_MIN_BLOCK = 4 + 4 + 4 + 8 + 4 + 8


class Frame(NamedTuple):
    """One intact block: where it is, its type, where its content is."""

    offset: int
    length: int
    #: the block type's number (an int, so that no enum lookup is paid per block: it compares
    #: equal to the BlockType member; ``BlockType(frame.block_type)`` names it)
    block_type: int
    content_offset: int
    content_length: int


class FastScanFallback(Exception):
    """The fast path does not take this file (damage, a legacy block, an odd map): use open_log.
    ``offset`` is where the block it stopped at starts."""

    def __init__(self, offset: int, reason: str):
        self.offset = offset
        self.reason = reason
        super().__init__(f"offset {offset}: {reason}")


def _map_end(buf, p: int, limit: int) -> int:
    """The end of a metadata map starting at ``p`` that ends by ``limit``, or -1."""
    if p + 4 > limit:
        return -1
    (count,) = _S4.unpack_from(buf, p)
    if not 0 <= count <= MAX_MAP_ENTRIES:
        return -1
    p += 4
    entry = _ENTRY.unpack_from
    for _ in range(count):
        if p + 8 > limit:
            return -1
        key, n = entry(buf, p)
        p += 8 + n
        if key not in _KEYS or n < 0 or p > limit:
            return -1
    return p


def _scan(buf, size: int) -> list[Frame]:
    out: list[Frame] = []
    append, new = out.append, tuple.__new__  # Frame built without its Python-level __new__
    head, entry, s8, s4 = _HEAD.unpack_from, _ENTRY.unpack_from, _S8.unpack_from, _S4.unpack_from
    types, magic_, max_key, max_entries = _TYPES, _MAGIC, _MAX_KEY, MAX_MAP_ENTRIES
    pos = 0
    while pos < size:
        if pos + 26 > size:
            raise FastScanFallback(pos, "file ends within a block's framing")
        magic, block_size, version, raw_type, count = head(buf, pos)
        end = pos + 14 + block_size
        if (magic != magic_ or version != 1 or not _MIN_BLOCK <= block_size <= _JAVA_INT_MAX or end > size
                or raw_type not in types or not 0 <= count <= max_entries):
            raise FastScanFallback(pos, "not an intact format-version-1 block")
        rp_at = end - 8
        if s8(buf, rp_at)[0] != block_size + 6:
            raise FastScanFallback(pos, "reverse pointer")
        p = pos + 26
        for _ in range(count):  # the header's entries (inlined: this loop is the scan's cost)
            key, n = entry(buf, p)  # inside the file: p < rp_at (checked below for the last one)
            p += 8 + n
            if not (0 <= key <= max_key and n >= 0 and p <= rp_at):
                raise FastScanFallback(pos, "header entry with an unknown key or a bad length")
        if p + 8 > rp_at or p - pos - 22 > MAX_MAP_BYTES:
            raise FastScanFallback(pos, "header too large or content length past the block")
        (content_length,) = s8(buf, p)
        content_offset = p + 8
        footer_at = content_offset + content_length
        if content_length < 0 or footer_at + 4 > rp_at:
            raise FastScanFallback(pos, "content length")
        # the footer: Hudi writes it empty; any other must still end at the reverse pointer
        if not (footer_at + 4 == rp_at and s4(buf, footer_at)[0] == 0) and (
                rp_at - footer_at > MAX_MAP_BYTES or _map_end(buf, footer_at, rp_at) != rp_at):
            raise FastScanFallback(pos, "footer does not end at the reverse pointer")
        append(new(Frame, (pos, end - pos, raw_type, content_offset, content_length)))
        pos = end
    return out


def scan_python(buf, size: int) -> list[Frame]:
    """The scan in Python: the reference for the compiled one, and the fallback without a compiler."""
    try:
        return _scan(buf, size)
    except struct.error as e:  # a length led past the end of the file
        raise AssertionError(f"the scan read past its checks: {e}") from e  # every read is bounds-checked first


try:
    from . import _framing_scan as _native
except ImportError:  # built without a C compiler
    _native = None

_TYPE_MASK = sum(1 << t for t in _TYPES)
_PACKED = struct.Struct("=5q")


def scan_native(buf, size: int) -> list[Frame]:
    """The same scan, compiled (hudi_log/format/_framing_scan.c)."""
    packed, fail, reason = _native.scan(buf[:size] if size != len(buf) else buf, MAX_MAP_ENTRIES, MAX_MAP_BYTES,
                                        _MAX_KEY, _TYPE_MASK)
    if fail >= 0:
        raise FastScanFallback(fail, reason)
    return list(map(Frame._make, _PACKED.iter_unpack(packed)))


_scan_checked = scan_native if _native is not None else scan_python


def frames(path_or_bytes) -> list[Frame]:
    """Every block of an intact log file (a path, or bytes), or FastScanFallback.

    A path is memory-mapped, so block contents are never read (only the pages holding framing
    are touched). An empty file has no blocks.
    """
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return _scan_checked(path_or_bytes, len(path_or_bytes))
    with open(os.fspath(path_or_bytes), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return []
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return _scan_checked(m, size)
