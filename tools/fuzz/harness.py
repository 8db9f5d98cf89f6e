"""The fuzzing harness: base files, structure-aware mutations, and the property every input must keep.

Bases are real Hudi log files (the corpus in ../shared/corpus, single files and every log file of
every table, metadata tables included), multi-block files made by concatenating real files of one
folder in file order (the corpus holds only one-block files), and files generated with hudi_log's
own writer (Avro data, deletes, rollback, a legacy format-version-0 block).

A mutation is a list of edits, each "replace bytes [a, b) with these bytes": truncation, bit flips in
every framing field (or anywhere), interesting values written into framing fields, inserted garbage,
inserted or torn magics, spliced (whole or partial) blocks from this file or another, duplicated
blocks, deleted ranges and overwritten ranges. While the edits are applied we track each original
block: it stays *untouched* while no edit changes a byte inside it. An insertion exactly at its start
or its end does not touch it; an insertion or deletion before it shifts its offset. A legacy
(format version 0) block has no reverse pointer: the only evidence of where it ends is the magic
(or EOF) right after it, so for such a block the 6 bytes that follow it count as its own.

The property (``check``):

1. ``open_log`` raises nothing but NotALogFileError, and that exactly when the file is not empty and
   does not start with the magic (or a prefix of it, at the very end).
2. The blocks and damaged spans tile the file: each intact block, each garbage span, each damaged
   block's magic followed by its span, in order, with no gap and no overlap, ending at EOF.
3. Every untouched block comes back intact at its (shifted) offset, with its length, type, header,
   footer and content location unchanged.
4. Intact blocks that were touched or are new (a spliced copy) can be inspected and decoded
   (summary, datums/records, deletes, table, hfile) raising nothing but HudiLogError subclasses
   (ContentError). With ``to_bytes=True`` also LogBlock.to_bytes(), which must give back the bytes
   on disk.
5. ``open_log(strict=True)`` raises only TruncatedLogError / CorruptBlockError / NotALogFileError,
   and raises exactly when the lenient scan found damage; otherwise it yields the same blocks.
6. ``read_reverse`` raises only ReverseReadError; each block it yields is one of the intact blocks
   of the forward scan, and on a file that scans clean (no damage, no legacy block) it yields them
   all, last to first.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, Sequence

import hudi_log
from hudi_log import BlockType, HudiLogError, LogBlock
from hudi_log.errors import CorruptBlockError, NotALogFileError, ReverseReadError, TruncatedLogError
from hudi_log.format.grammar import MAGIC

REPO = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------------
# Base files


@dataclass
class BaseBlock:
    offset: int
    length: int
    format_version: int | None
    block_type: BlockType | None
    header_entries: tuple
    footer_entries: tuple
    content_rel: int  # content offset relative to the block start
    content_length: int
    #: framing fields: (name, start, width), absolute offsets in the base file
    fields: list[tuple[str, int, int]]


@dataclass
class Base:
    name: str
    data: bytes
    blocks: list[BaseBlock]
    #: interesting positions: block and field boundaries
    cuts: list[int] = field(default_factory=list)


def _fields_of(b: LogBlock) -> list[tuple[str, int, int]]:
    o = b.offset
    f = [("magic", o, 6), ("len_block", o + 6, 8), ("format_version", o + 14, 4)]
    if b.format_version == 0:
        return f
    f.append(("block_type", o + 18, 4))
    pos = o + 22
    f.append(("header.num_entries", pos, 4))
    pos += 4
    for i, (_k, v) in enumerate(b.header_entries):
        n = len(v.encode("utf-8"))
        f.append((f"header[{i}].key", pos, 4))
        f.append((f"header[{i}].len_value", pos + 4, 4))
        # only the edges of a value are framing-relevant; a flip deep inside a schema is content
        f.append((f"header[{i}].value", pos + 8, min(n, 8)))
        pos += 8 + n
    f.append(("len_content", pos, 8))
    assert pos + 8 == b.content_offset, (pos, b.content_offset)
    f.append(("content.head", b.content_offset, min(b.content_length, 16)))
    end = b.offset + b.length
    footer_at = b.content_offset + b.content_length
    f.append(("footer", footer_at, end - 8 - footer_at))
    f.append(("reverse_pointer", end - 8, 8))
    return [x for x in f if x[2] > 0]


def make_base(name: str, data: bytes) -> Base:
    blocks = list(hudi_log.open_log(data))
    if any(b.corrupt for b in blocks):
        raise ValueError(f"base {name} is damaged")
    out = []
    cuts = {0, len(data)}
    for b in blocks:
        fields = _fields_of(b)
        out.append(BaseBlock(
            b.offset, b.length, b.format_version, b.block_type, b.header_entries, b.footer_entries,
            b.content_offset - b.offset, b.content_length, fields,
        ))
        for _n, s, w in fields:
            cuts.update((s, s + w))
    return Base(name, data, out, sorted(c for c in cuts if 0 <= c <= len(data)))


def corpus_root() -> Path:
    return Path(os.environ.get("HUDI_LOG_CORPUS", REPO.parent / "shared" / "corpus"))


def _is_log_name(name: str) -> bool:
    return name.startswith(".") and ".log." in name


def corpus_bases(root: Path | None = None, tmp: str | None = None) -> list[Base]:
    """Every corpus log file, plus one concatenated multi-block file per folder that holds several."""
    root = root or corpus_root()
    if not (root / "log_files").is_dir():
        return []
    files: list[Path] = [p for p in (root / "log_files").rglob("*") if p.is_file() and _is_log_name(p.name)]
    tables = root / "tables"
    if tables.is_dir() and tmp is None:
        # the files are read into memory: the unzipped tables are not needed afterwards
        with tempfile.TemporaryDirectory(prefix="hudi-log-fuzz-") as own:
            return corpus_bases(root, own)
    if tables.is_dir():
        for z in sorted(tables.glob("*.zip")):
            dest = Path(tmp) / z.stem
            with zipfile.ZipFile(z) as zf:
                members = [m for m in zf.namelist() if not m.startswith("__MACOSX/")]
                zf.extractall(dest, members)
            for dirpath, _dirs, names in os.walk(dest):
                files += [Path(dirpath) / n for n in names if _is_log_name(n)]
    files.sort()
    bases = [make_base(str(p.relative_to(root) if p.is_relative_to(root) else p.name), p.read_bytes()) for p in files]
    # The corpus has one block per file; Hudi 0.x appended many blocks to one file. Concatenating
    # the files of one folder (one metadata partition: HFile and delete blocks) gives real
    # multi-block files.
    by_dir: dict[Path, list[Path]] = {}
    for p in files:
        by_dir.setdefault(p.parent, []).append(p)
    for d, ps in sorted(by_dir.items()):
        if len(ps) < 2:
            continue
        ps = ps[:8]
        bases.append(make_base(f"concat:{d.name}:{len(ps)}", b"".join(p.read_bytes() for p in ps)))
    return bases


SCHEMA = {
    "type": "record", "name": "fuzz_record", "namespace": "hudi_log.fuzz",
    "fields": [
        {"name": "_hoodie_record_key", "type": "string"},
        {"name": "value", "type": "double"},
        {"name": "n", "type": ["null", "long"], "default": None},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    ],
}


def avro_block(n: int, instant: str, start: int = 0) -> LogBlock:
    from hudi_log.format.content.avro import encode_records
    from hudi_log.format.grammar import avro_data_content

    recs = [
        {"_hoodie_record_key": f"key_{i}", "value": i / 7, "n": None if i % 3 else i, "tags": ["a", "b"][: i % 3]}
        for i in range(start, start + n)
    ]
    header = {"INSTANT_TIME": instant, "SCHEMA": json.dumps(SCHEMA)}
    return LogBlock.new("AVRO_DATA_BLOCK", header, avro_data_content(3, encode_records(recs, SCHEMA)))


def delete_block(keys: Sequence[str], instant: str) -> LogBlock:
    from hudi_log.format.content.deletes import DeleteRecord, encode_delete_payload
    from hudi_log.format.grammar import delete_content

    payload = encode_delete_payload([DeleteRecord.of(k, "p1", i) for i, k in enumerate(keys)])
    return LogBlock.new("DELETE_BLOCK", {"INSTANT_TIME": instant}, delete_content(3, payload))


def rollback_block(instant: str, target: str) -> LogBlock:
    return LogBlock.new(
        "COMMAND_BLOCK", {"INSTANT_TIME": instant, "TARGET_INSTANT_TIME": target, "COMMAND_BLOCK_TYPE": "0"}, b""
    )


def legacy_block(content: bytes) -> bytes:
    from hudi_log.format.grammar import serialize_block

    return serialize_block(0, None, (), content)


def generated_bases() -> list[Base]:
    b = lambda *blocks: b"".join(x.to_bytes() for x in blocks)  # noqa: E731
    return [
        make_base("gen:avro3", b(avro_block(20, "100"), avro_block(5, "101", 20), avro_block(40, "102", 25))),
        make_base("gen:mixed", b(
            avro_block(10, "100"), delete_block(["key_1", "key_2"], "101"), rollback_block("102", "101"),
            avro_block(3, "103", 10), delete_block([], "104"),
        )),
        make_base("gen:small", b(rollback_block("100", "099"), avro_block(1, "101"))),
        make_base("gen:legacy", b(avro_block(2, "100")) + legacy_block(b"legacy-content" * 3) + b(avro_block(2, "101"))),
    ]


# --------------------------------------------------------------------------------------------------
# Mutations


class Chooser(Protocol):
    def int(self, lo: int, hi: int) -> int:
        """A number in [lo, hi]."""

    def bytes(self, n: int) -> bytes:
        ...


class RandomChooser:
    def __init__(self, rng):
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def bytes(self, n: int) -> bytes:
        return self.rng.randbytes(n)


class ProviderChooser:
    """Choices drawn from an atheris FuzzedDataProvider (coverage-guided fuzzing)."""

    def __init__(self, fdp):
        self.fdp = fdp

    def int(self, lo: int, hi: int) -> int:
        return self.fdp.ConsumeIntInRange(lo, hi)

    def bytes(self, n: int) -> bytes:
        data = self.fdp.ConsumeBytes(n)
        return data + b"\0" * (n - len(data))


@dataclass
class Mutant:
    base: Base
    data: bytes
    #: untouched original blocks: index in base.blocks -> offset in data
    untouched: dict[int, int]
    ops: list[str]


class _Editor:
    def __init__(self, base: Base):
        self.base = base
        self.buf = bytearray(base.data)
        self.track = {i: b.offset for i, b in enumerate(base.blocks)}
        self.ops: list[str] = []

    def replace(self, a: int, b: int, new: bytes, what: str) -> None:
        a = max(0, min(a, len(self.buf)))
        b = max(a, min(b, len(self.buf)))
        delta = len(new) - (b - a)
        for i, s in list(self.track.items()):
            e = s + self.base.blocks[i].length
            if self.base.blocks[i].format_version == 0:
                e += len(MAGIC)  # what follows a legacy block decides whether it is intact
            if a == b:  # a pure insertion touches a block only strictly inside it
                if s < a < e:
                    del self.track[i]
                elif a <= s:
                    self.track[i] = s + delta
            elif a < e and b > s:
                del self.track[i]
            elif b <= s:
                self.track[i] = s + delta
        self.buf[a:b] = new
        self.ops.append(f"{what} [{a},{b})<-{len(new)}B")

    # where the current buffer's blocks are, for choosing fields (untouched ones only)
    def current_fields(self) -> list[tuple[str, int, int]]:
        out = []
        for i, s in self.track.items():
            shift = s - self.base.blocks[i].offset
            out += [(n, st + shift, w) for n, st, w in self.base.blocks[i].fields]
        return out

    def current_blocks(self) -> list[tuple[int, int]]:
        return [(s, self.base.blocks[i].length) for i, s in self.track.items()]


def _position(ch: Chooser, ed: _Editor) -> int:
    n = len(ed.buf)
    if n and ch.int(0, 1):
        cuts = sorted({p for st, ln in ed.current_blocks() for p in (st, st + ln)} | {
            p for _n, st, w in ed.current_fields() for p in (st, st + w)})
        if cuts:
            return max(0, min(n, cuts[ch.int(0, len(cuts) - 1)] + ch.int(-1, 1)))
    return ch.int(0, n)


def _interesting(width: int, orig: int, n: int, pos: int) -> list[int]:
    if width == 8:
        vals = [0, 1, -1, 2**62, 2**63 - 1, -(2**63), 2**31 - 1, 2**31, 2**32, n, n - pos, orig * 2, 7, 31, 32, 33]
    else:
        vals = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 2**31 - 1, -(2**31), 10000, 255, 65535, n]
    vals += [orig + d for d in (-8, -6, -1, 1, 6, 8)]
    lo, hi = -(2 ** (8 * width - 1)), 2 ** (8 * width - 1) - 1
    return [v for v in vals if lo <= v <= hi]


def _garbage(ch: Chooser, n: int) -> bytes:
    kind = ch.int(0, 4)
    if kind == 0:
        return b"\0" * n
    if kind == 1:
        return b"\xff" * n
    if kind == 2:  # garbage that ends with a torn magic, or holds a magic
        return ch.bytes(max(0, n - 5)) + (MAGIC[:5] if ch.int(0, 1) else MAGIC)
    return ch.bytes(n)


def _one(ch: Chooser, ed: _Editor, bases: Sequence[Base]) -> None:
    n = len(ed.buf)
    op = ch.int(0, 11)
    fields = ed.current_fields()
    if op == 0 and n:  # truncation
        k = _position(ch, ed) if ch.int(0, 1) else ch.int(0, n)
        ed.replace(k, n, b"", "truncate")
    elif op in (1, 2) and fields:  # bit flip in a framing field
        name, st, w = fields[ch.int(0, len(fields) - 1)]
        p = st + ch.int(0, w - 1)
        if p < n:
            ed.replace(p, p + 1, bytes([ed.buf[p] ^ (1 << ch.int(0, 7))]), f"flip {name}")
    elif op == 3 and n:  # bit flip anywhere (content included)
        p = ch.int(0, n - 1)
        ed.replace(p, p + 1, bytes([ed.buf[p] ^ (1 << ch.int(0, 7))]), "flip")
    elif op == 4 and fields:  # an interesting value in an integer field
        ints = [f for f in fields if f[2] in (4, 8) and not f[0].endswith((".value", "magic", "content.head", "footer"))]
        if ints:
            name, st, w = ints[ch.int(0, len(ints) - 1)]
            if st + w <= n:
                orig = int.from_bytes(ed.buf[st : st + w], "big", signed=True)
                vals = _interesting(w, orig, n, st)
                v = vals[ch.int(0, len(vals) - 1)]
                ed.replace(st, st + w, v.to_bytes(w, "big", signed=True), f"set {name}={v}")
    elif op == 5:  # inserted garbage
        p = _position(ch, ed)
        ed.replace(p, p, _garbage(ch, ch.int(1, 40)), "insert garbage")
    elif op == 6:  # duplicated / torn magic
        p = _position(ch, ed)
        m = [MAGIC, MAGIC[:5], MAGIC + MAGIC[:5], MAGIC * 2][ch.int(0, 3)]
        ed.replace(p, p, m, "insert magic")
    elif op in (7, 8):  # spliced block (whole, prefix or suffix) from this file or another
        src = bases[ch.int(0, len(bases) - 1)] if ch.int(0, 2) == 0 else ed.base
        if not src.blocks:
            return
        blk = src.blocks[ch.int(0, len(src.blocks) - 1)]
        piece = src.data[blk.offset : blk.offset + blk.length]
        cut = ch.int(0, 2)
        if cut == 1:
            piece = piece[: ch.int(1, len(piece))]
        elif cut == 2:
            piece = piece[ch.int(0, len(piece) - 1) :]
        p = _position(ch, ed)
        ed.replace(p, p, piece, f"splice {'whole' if cut == 0 else 'part'} of {src.name}@{blk.offset}")
    elif op == 9:  # duplicate one of the current (untouched) blocks right after itself, or elsewhere
        cur = ed.current_blocks()
        if not cur:
            return
        st, ln = cur[ch.int(0, len(cur) - 1)]
        piece = bytes(ed.buf[st : st + ln])
        p = st + ln if ch.int(0, 1) else _position(ch, ed)
        ed.replace(p, p, piece, f"duplicate block@{st}")
    elif op == 10 and n:  # deleted range
        a = _position(ch, ed)
        b = min(n, a + ch.int(1, 64))
        ed.replace(a, b, b"", "delete")
    elif op == 11 and n:  # overwritten range
        a = _position(ch, ed)
        b = min(n, a + ch.int(1, 32))
        if b > a:
            ed.replace(a, b, _garbage(ch, b - a), "overwrite")


def mutate(ch: Chooser, bases: Sequence[Base]) -> Mutant:
    base = bases[ch.int(0, len(bases) - 1)]
    ed = _Editor(base)
    k = ch.int(0, 19)
    count = 1 if k < 12 else 2 if k < 17 else ch.int(3, 5)
    for _ in range(count):
        _one(ch, ed, bases)
    return Mutant(base, bytes(ed.buf), dict(ed.track), ed.ops)


# --------------------------------------------------------------------------------------------------
# The property


def _exercise(b: LogBlock, data: bytes, failures: list[str], to_bytes: bool) -> None:
    """Inspect and decode an intact block; only HudiLogError subclasses may escape."""
    calls: list[tuple[str, Callable]] = [("summary", b.summary), ("content", b.content)]
    t = b.block_type
    if t in (BlockType.avro_data_block, BlockType.cdc_data_block):
        calls += [("datums", b.datums), ("records", b.records)]
    elif t == BlockType.delete_block:
        calls += [("deletes", b.deletes)]
    elif t == BlockType.parquet_data_block:
        calls += [("table", b.table), ("records", b.records)]
    elif t == BlockType.hfile_data_block:
        calls += [("hfile", b.hfile), ("records", b.records)]
    elif t == BlockType.command_block:
        calls += [("is_rollback", lambda: b.is_rollback)]
    if to_bytes:
        calls.append(("to_bytes", b.to_bytes))
    for name, fn in calls:
        try:
            out = fn()
        except HudiLogError:
            continue
        except Exception as e:  # noqa: BLE001 - that is the finding
            failures.append(f"block@{b.offset} {b.block_type_name}.{name}() raised {type(e).__name__}: {e}")
            continue
        if name == "to_bytes" and out != data[b.offset : b.offset + b.length]:
            failures.append(f"block@{b.offset} {b.block_type_name}.to_bytes() differs from the bytes on disk")


def check(m: Mutant, exercise_content: bool = True, to_bytes: bool = False) -> list[str]:
    """The failures of one mutated input (empty when the property holds)."""
    data = m.data
    failures: list[str] = []
    expect_nalf = len(data) > 0 and not MAGIC.startswith(data[:6])
    # 1. lenient forward scan
    try:
        blocks = list(hudi_log.open_log(data))
    except NotALogFileError as e:
        if not expect_nalf:
            failures.append(f"NotALogFileError on a file that starts with the magic: {e}")
        blocks = None
    except HudiLogError as e:
        failures.append(f"lenient open_log raised {type(e).__name__}: {e}")
        blocks = None
    except Exception as e:  # noqa: BLE001
        failures.append(f"open_log raised {type(e).__name__}: {e}")
        blocks = None
    else:
        if expect_nalf:
            failures.append("no NotALogFileError on a file that does not start with the magic")
    if blocks is None:
        return failures
    # 2. tiling
    pos = 0
    for b in blocks:
        if b.corrupt != (b.block_type == BlockType.corrupt_block):
            failures.append(f"block@{b.offset}: corrupt={b.corrupt} but type {b.block_type_name}")
        if b.corrupt and b.magic_offset is not None:
            if b.magic_offset != pos or b.offset != pos + len(MAGIC):
                failures.append(f"damaged span@{b.offset} (magic@{b.magic_offset}) does not follow {pos}")
        elif b.offset != pos:
            failures.append(f"block@{b.offset} does not follow {pos}")
        if b.length < 0:
            failures.append(f"block@{b.offset} has length {b.length}")
        pos = b.offset + b.length
    if pos != len(data):
        failures.append(f"blocks end at {pos}, the file at {len(data)}")
    # 3. untouched blocks
    intact = {b.offset: b for b in blocks if not b.corrupt}
    for i, off in m.untouched.items():
        ob = m.base.blocks[i]
        b = intact.get(off)
        if b is None:
            failures.append(f"untouched block #{i} ({ob.length} B) not found intact at {off}")
            continue
        got = (b.length, b.format_version, b.block_type, b.header_entries, b.footer_entries,
               b.content_offset - b.offset, b.content_length)
        want = (ob.length, ob.format_version, ob.block_type, ob.header_entries, ob.footer_entries,
                ob.content_rel, ob.content_length)
        if got != want:
            failures.append(f"untouched block #{i} at {off} differs: {got[:3]} != {want[:3]}")
    # 4. touched or new intact blocks decode with typed errors only
    if exercise_content:
        known = set(m.untouched.values())
        for b in blocks:
            if not b.corrupt and b.offset not in known:
                _exercise(b, data, failures, to_bytes)
        for b in blocks:
            if b.corrupt:
                try:
                    b.summary()
                    if b.content() != data[b.offset : b.offset + b.length]:
                        failures.append(f"damaged span@{b.offset}: content() is not its bytes")
                except Exception as e:  # noqa: BLE001
                    failures.append(f"damaged span@{b.offset}: {type(e).__name__}: {e}")
    damaged = any(b.corrupt for b in blocks)
    # 5. strict
    try:
        strict = list(hudi_log.open_log(data, strict=True))
    except (TruncatedLogError, CorruptBlockError) as e:
        if not damaged:
            failures.append(f"strict raised {type(e).__name__} on a clean file: {e}")
    except Exception as e:  # noqa: BLE001
        failures.append(f"strict open_log raised {type(e).__name__}: {e}")
    else:
        if damaged:
            failures.append("strict open_log did not raise on a damaged file")
        elif [(b.offset, b.length) for b in strict] != [(b.offset, b.length) for b in blocks]:
            failures.append("strict open_log yields other blocks than the lenient one")
    # 6. reverse
    try:
        rev = list(hudi_log.read_reverse(data))
    except ReverseReadError:
        rev = None
    except Exception as e:  # noqa: BLE001
        failures.append(f"read_reverse raised {type(e).__name__}: {e}")
        rev = None
    clean = not damaged and all(b.format_version == 1 for b in blocks)
    if rev is not None:
        for b in rev:
            f = intact.get(b.offset)
            if f is None or f.length != b.length:
                failures.append(f"read_reverse yields block@{b.offset} that the forward scan has not")
        if clean and [b.offset for b in rev] != [b.offset for b in reversed(blocks)]:
            failures.append("read_reverse misses blocks of a clean file")
    elif clean:
        failures.append("read_reverse fails on a clean file")
    return failures
