"""Reading log files: forward with Apache Hudi's corruption rules, and in reverse.

Forward reading yields every intact block and reports each damaged span as a CORRUPT_BLOCK, the
way HoodieLogFileReader does: a block is corrupt when its size cannot be read, when it runs past
the end of the file, or when its reverse pointer disagrees with its size; the damaged span runs
from just after its magic to the next magic (or the end of the file), where reading resumes.
We are stricter about a block's inner fields (version, type, maps, content length must add up)
and more precise in two places: an intact block followed by garbage is reported intact (flagged
``skipped_by_hudi``) and the garbage as its own span; and a torn magic directly in front of a
block (``#HUDI`` + ``#HUDI#...``, the magic overlapping itself) is reported as a 5-byte garbage
span instead of swallowing the block behind it, as Hudi's scan from "just after the bad magic"
would.

Only the framing is read while scanning; content stays on disk until asked for, and every size is
checked against the bytes actually left before anything is read, so memory stays flat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from . import grammar
from .block import LogBlock
from ..errors import (
    CorruptBlockError,
    LogFormatError,
    NotALogFileError,
    ReverseReadError,
    TruncatedLogError,
)
from .grammar import BlockType, HudiLog
from .source import PathOrFile, Source, open_source

MAGIC = grammar.MAGIC

#: the rules a damaged span can break, as `validate` reports them
RULES = {
    "size-unreadable": "the block size cannot be read (file ends within it)",
    "past-eof": "the block runs past the end of the file",
    "reverse-pointer": "the reverse pointer disagrees with the block size",
    "invalid-field": "a field inside the block is invalid (version, type, metadata or content length)",
    "garbage": "bytes that are neither a block nor the end of the file",
    "truncated-magic": "the file ends within a block magic",
    "bad-first-magic": "the file does not start with a block magic (its first block's magic is damaged)",
}
_TRUNCATION_RULES = {"size-unreadable", "past-eof", "truncated-magic"}

_SCAN_WINDOW = 1 << 20
_HEAD_READ = 64 << 10
#: A header or footer map Hudi writes holds each key once, and there are 9 keys. We accept
#: duplicates (the last one wins, as in Java's HashMap) up to this many entries; a larger count is
#: damage, so a corrupted count over a run of zero bytes cannot inflate into millions of entries.
MAX_MAP_ENTRIES = 256
#: The largest header (or footer) we parse. Real headers are a few KB (the SCHEMA dominates; a
#: table of 20,000 columns has a schema of a few MB); a corrupted value length must not make the
#: scan load a large block's content as header text.
MAX_MAP_BYTES = 16 << 20
#: The magic overlaps itself at a shift of 5 ("#HUDI" + "#HUDI#"): a magic that has another
#: magic 5 bytes on is torn (its size field would start with "HUDI#", ~5.2e18, past any EOF).
_TORN_SHIFT = len(MAGIC) - 1


@dataclass
class _Damage:
    rule: str
    field: str
    offset: int
    detail: str


def _torn_magic(src: Source, pos: int) -> bool:
    """True when the magic at ``pos`` is overlapped by another magic 5 bytes on."""
    return src.read(pos + _TORN_SHIFT, len(MAGIC)) == MAGIC


def _next_magic(src: Source, start: int) -> int:
    """Offset of the next magic at or after ``start`` that is not torn, or the end of the file.

    A torn magic (another magic starts on its last byte) can never begin a block, and stopping
    there would make the damaged span that follows it start inside the real magic behind it.
    """
    pos = start
    while pos < src.size:
        window = src.read(pos, _SCAN_WINDOW + len(MAGIC) - 1)
        i = window.find(MAGIC)
        while i >= 0:
            if not _torn_magic(src, pos + i):
                return pos + i
            i = window.find(MAGIC, i + 1)
        pos += _SCAN_WINDOW
    return src.size


def _s8(b: bytes) -> int:
    return int.from_bytes(b, "big", signed=True)


_s4 = _s8  # any width: big-endian, signed


def _parse_maps_and_fields(src: Source, start: int, block_size: int):
    """Parse version, type, header, content length and footer of a v1 block whose body starts at
    ``start`` (just after the size field); the reverse pointer has already been checked.

    Returns (block_type, header_entries, footer_entries, content_offset, content_length) or a
    _Damage. Reads the header region (a few KB; more only while the parse needs more, never more
    than the block or MAX_MAP_BYTES) and the footer; the content is never read.
    """
    limit = start + block_size - 8  # where the reverse pointer starts
    # version, type, header and content length must all end before the reverse pointer
    cap = min(limit - start, MAX_MAP_BYTES + 16)
    count = _s4(src.read(start + 8, 4))  # the header's entry count (block_size >= 32: it is there)
    if count > MAX_MAP_ENTRIES:
        return _Damage("invalid-field", "header", start + 8, f"{count} header entries (at most {MAX_MAP_ENTRIES} accepted)")
    want = min(cap, _HEAD_READ)
    while True:
        head = src.read(start, want)
        pos = 0
        try:
            io = grammar.KaitaiStream(grammar.BytesIO(head))
            io.read_s4be()  # format version, checked by the caller
            pos = io.pos()
            raw_type = io.read_s4be()
            pos = io.pos()
            header = grammar.parse_from(HudiLog.MetadataMap, io)
            pos = io.pos()
            content_length = io.read_s8be()
            break
        except EOFError as e:
            need = _needed(e, len(head), want)
            if need > cap or want >= cap:
                if need <= limit - start and cap < limit - start:
                    return _Damage("invalid-field", "header", start + 8, f"header larger than {MAX_MAP_BYTES} bytes")
                return _Damage("invalid-field", "header", start + pos, "header runs past the block's end")
            want = min(cap, max(need, want * 4))
        except LogFormatError:
            raise
        except Exception as e:  # kaitaistruct validation errors from the generated parser
            return _Damage("invalid-field", _field_of(e, "header"), start + pos, str(e))
    try:
        block_type = BlockType(raw_type)
    except ValueError:
        return _Damage("invalid-field", "block_type", start + 4, f"unknown block type {raw_type}")
    if block_type == BlockType.corrupt_block:
        # Only readers make CORRUPT_BLOCKs; Hudi's reader has no case for one found on disk.
        return _Damage("invalid-field", "block_type", start + 4, "block type CORRUPT_BLOCK (2) is never written to a file")
    content_offset = start + io.pos()
    if content_length < 0 or content_offset + content_length > limit:
        return _Damage(
            "invalid-field", "len_content", content_offset - 8,
            f"content length {content_length} does not fit in the block ({limit - content_offset} bytes left)",
        )
    footer_at = content_offset + content_length
    region = limit - footer_at  # what lies between the content and the reverse pointer: the footer
    if region < 4:
        return _Damage("invalid-field", "footer", footer_at, "footer runs into the reverse pointer")
    count = _s4(src.read(footer_at, 4))
    if count > MAX_MAP_ENTRIES:
        return _Damage("invalid-field", "footer", footer_at, f"{count} footer entries (at most {MAX_MAP_ENTRIES} accepted)")
    if region > MAX_MAP_BYTES:
        return _Damage("invalid-field", "footer", footer_at, f"{region} bytes between the content and the reverse pointer")
    want = min(region, _HEAD_READ)
    while True:
        tail = src.read(footer_at, want)
        try:
            fio = grammar.KaitaiStream(grammar.BytesIO(tail))
            footer = grammar.parse_from(HudiLog.MetadataMap, fio)
            break
        except EOFError as e:
            need = _needed(e, len(tail), want)
            if need > region or want >= region:
                return _Damage("invalid-field", "footer", footer_at, "footer runs into the reverse pointer")
            want = min(region, max(need, want * 4))
        except Exception as e:
            return _Damage("invalid-field", _field_of(e, "footer"), footer_at, str(e))
    if fio.pos() != region:
        return _Damage(
            "invalid-field", "footer", footer_at + fio.pos(),
            f"{region - fio.pos()} bytes between the footer and the reverse pointer",
        )
    try:
        header_entries = grammar.map_entries(header)
    except UnicodeDecodeError as e:
        return _Damage("invalid-field", "header", start + 12, f"a header value is not UTF-8: {e}")
    try:
        footer_entries = grammar.map_entries(footer)
    except UnicodeDecodeError as e:
        return _Damage("invalid-field", "footer", footer_at, f"a footer value is not UTF-8: {e}")
    return (
        block_type,
        header_entries,
        footer_entries,
        content_offset,
        content_length,
    )


def _needed(e: EOFError, have: int, want: int) -> int:
    """How many bytes a parse that ran out of its ``have``-byte buffer needs at least.

    The generated parser's EndOfStreamError tells how many bytes the failing read wanted and how
    many were left, so an absurd length is found out without reading (or allocating) anything.
    """
    needed = getattr(e, "bytes_needed", None)
    available = getattr(e, "bytes_available", None)
    if isinstance(needed, int) and isinstance(available, int):
        return have - available + needed
    return want + 1


def _field_of(e: Exception, default: str) -> str:
    # kaitaistruct validation errors carry the grammar path, e.g. /types/metadata_entry/seq/0
    src_path = getattr(e, "src_path", None)
    return f"{default} ({src_path})" if src_path else default


def _frame(src: Source, pos: int) -> LogBlock | _Damage:
    """Read the block whose magic is at ``pos`` (already checked)."""
    start = pos + len(MAGIC)
    size = src.size
    raw = src.read(start, 12)
    if len(raw) < 8:
        return _Damage("size-unreadable", "len_block", start, f"only {size - start} bytes left for the 8-byte size")
    block_size = _s8(raw[:8])
    body = start + 8
    if block_size < 0:
        return _Damage("invalid-field", "len_block", start, f"negative block size {block_size}")
    version = int.from_bytes(raw[8:12], "big", signed=True) if len(raw) == 12 else None
    if version == 0:
        # Legacy layout: the version, then block_size bytes of content; nothing to cross-check,
        # so the block must be followed by a magic or the end of the file.
        end = body + 4 + block_size
        if end > size:
            return _Damage("past-eof", "len_block", start, f"block of {block_size} bytes runs past the end ({size})")
        follow = src.read(end, len(MAGIC))
        if follow and follow != MAGIC[: len(follow)]:
            return _Damage("invalid-field", "format_version", body, "legacy block not followed by a magic")
        return LogBlock(
            offset=pos, length=end - pos, format_version=0, block_type=None,
            content_offset=body + 4, content_length=block_size, path=src.path, _source=src,
        )
    if body + block_size > size:
        return _Damage(
            "past-eof", "len_block", start,
            f"block size {block_size} runs past the end of the file ({size - body} bytes left)",
        )
    if block_size < 4 + 4 + 4 + 8 + 4 + 8:
        return _Damage("invalid-field", "len_block", start, f"block size {block_size} is smaller than any block")
    rp_at = body + block_size - 8
    reverse_pointer = _s8(src.read(rp_at, 8))
    if reverse_pointer != block_size + grammar.REVERSE_POINTER_BIAS:
        return _Damage(
            "reverse-pointer", "reverse_pointer", rp_at,
            f"reverse pointer {reverse_pointer} != block size {block_size} + {grammar.REVERSE_POINTER_BIAS}",
        )
    if version != grammar.CURRENT_FORMAT_VERSION:
        return _Damage("invalid-field", "format_version", body, f"unknown log format version {version}")
    parsed = _parse_maps_and_fields(src, body, block_size)
    if isinstance(parsed, _Damage):
        return parsed
    block_type, header, footer, content_offset, content_length = parsed
    return LogBlock(
        offset=pos, length=grammar.FRAME_PREFIX + block_size, format_version=version, block_type=block_type,
        header_entries=header, footer_entries=footer, content_offset=content_offset,
        content_length=content_length, path=src.path, _source=src,
    )


def _corrupt(src: Source, offset: int, end: int, rule: str, detail: str, magic_offset: int | None) -> LogBlock:
    return LogBlock(
        offset=offset, length=end - offset, format_version=None, block_type=BlockType.corrupt_block,
        content_offset=offset, content_length=end - offset, path=src.path, corrupt=True,
        corrupt_rule=rule, corrupt_detail=detail, magic_offset=magic_offset, _source=src,
    )


def _raise(src: Source, d: _Damage) -> None:
    cls = TruncatedLogError if d.rule in _TRUNCATION_RULES else CorruptBlockError
    raise cls(src.path, d.offset, d.field, d.detail)


def scan(src: Source, strict: bool = False, resync: bool = False) -> Iterator[LogBlock]:
    """Blocks of ``src`` in file order, damaged spans as corrupt blocks (or errors when strict).

    ``resync``: a file that does not start with the magic is read from its next magic on, the bytes
    before it one damaged span (rule ``bad-first-magic``), as recovery tools want; Hudi's reader (and
    the default) refuses such a file. Without any magic it is not a log file either way.
    """
    size = src.size
    if size == 0:
        return
    first = src.read(0, len(MAGIC))
    pos = 0
    if first != MAGIC[: len(first)]:
        nxt = _next_magic(src, 1) if resync and not strict else size
        if nxt >= size:
            raise NotALogFileError(src.path, 0, "magic", f"expected {MAGIC!r}, found {first!r}: not a Hudi log file")
        yield _corrupt(src, 0, nxt, "bad-first-magic", f"{nxt} bytes before the first block magic", None)
        pos = nxt
    while pos < size:
        head = src.read(pos, len(MAGIC))
        torn = head == MAGIC and _torn_magic(src, pos)
        if head != MAGIC or torn:
            if len(head) < len(MAGIC) and MAGIC.startswith(head):
                d = _Damage("truncated-magic", "magic", pos, f"file ends {len(head)} bytes into a block magic")
                end = size
            else:
                end = _next_magic(src, pos + 1)
                what = "a torn magic" if torn and end == pos + _TORN_SHIFT else "bytes that are not a block"
                d = _Damage("garbage", "magic", pos, f"{end - pos} bytes: {what}")
            if strict:
                _raise(src, d)
            yield _corrupt(src, pos, end, d.rule, d.detail, None)
            pos = end
            continue
        got = _frame(src, pos)
        if isinstance(got, _Damage):
            if strict:
                _raise(src, got)
            start = pos + len(MAGIC)
            end = _next_magic(src, start)
            yield _corrupt(src, start, end, got.rule, f"{got.field} at offset {got.offset}: {got.detail}", pos)
            pos = end
            continue
        end = got.offset + got.length
        follow = src.read(end, len(MAGIC))
        if len(follow) == len(MAGIC) and follow != MAGIC:
            got.skipped_by_hudi = True
        yield got
        pos = end


def open_log(path_or_file: PathOrFile, strict: bool = False, resync: bool = False) -> Iterator[LogBlock]:
    """The blocks of a log file, in file order, with content loaded on demand.

    ``path_or_file``: a path, a seekable binary file or bytes. Damaged spans come back as
    blocks with ``corrupt=True`` (Hudi's CORRUPT_BLOCK); with ``strict=True`` the first damage
    raises TruncatedLogError or CorruptBlockError instead. A file that does not start with the
    magic raises NotALogFileError either way, unless ``resync`` (see :func:`scan`).
    """
    return _held_open(open_source(path_or_file), lambda src: scan(src, strict=strict, resync=resync))


def _held_open(src: Source, blocks) -> Iterator[LogBlock]:
    """``blocks(src)`` with a file source held open during the pass only: the blocks it yields open
    their file again for each read, so blocks kept hold no file descriptor."""
    opened = getattr(src, "opened", None)
    if opened is None:
        yield from blocks(src)
        return
    with opened():
        yield from blocks(src)


def read_reverse(path_or_file: PathOrFile) -> Iterator[LogBlock]:
    """The blocks of a log file from last to first, following the reverse pointers.

    Like Hudi's reverse reader this cannot pass damage: it raises ReverseReadError, and the
    caller should read the file forward (open_log), which recovers every intact block.
    """
    return _held_open(open_source(path_or_file), _reverse)


def _reverse(src: Source) -> Iterator[LogBlock]:
    pos = src.size
    while pos > 0:
        if pos < 8:
            raise ReverseReadError(src.path, 0, "reverse_pointer", "no room for a reverse pointer; read forward")
        rp = _s8(src.read(pos - 8, 8))
        start = pos - 8 - rp
        if rp < 0 or start < 0 or src.read(start, len(MAGIC)) != MAGIC:
            raise ReverseReadError(
                src.path, pos - 8, "reverse_pointer",
                f"reverse pointer {rp} does not lead to a block magic; cannot read in reverse, read forward",
            )
        got = _frame(src, start)
        if isinstance(got, _Damage) or got.offset + got.length != pos:
            why = got.detail if isinstance(got, _Damage) else "block does not end at the reverse pointer"
            raise ReverseReadError(src.path, start, "block", f"{why}; cannot read in reverse, read forward")
        yield got
        pos = start
