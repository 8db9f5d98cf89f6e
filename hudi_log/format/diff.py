"""Two log files (or two blocks) compared block by block, in the grammar's terms.

No Hudi tool compares log files; this is what an on-call engineer or a Hudi contributor wants when
a file was rewritten (log compaction, a repair, another writer): which blocks differ, and how --
framing (format version, type, length, damage), header entries, content length, and for blocks
that hold records, the records themselves, matched by key (``_hoodie_record_key``, HFile cell
keys, delete record keys) and decoded with each block's own writer schema. ``first_difference``
names the first differing byte of two blocks with its field of spec/hudi_log.ksy.

Blocks are paired by position (the n-th block of A with the n-th of B); a block only one file
has is reported as added or removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import HudiLogError
from .block import LogBlock
from .grammar import DATA_BLOCK_TYPES, BlockType, header_key_name

__all__ = ["BlockDiff", "diff_blocks", "diff_files", "field_at", "first_difference"]


@dataclass
class BlockDiff:
    """How block ``index`` of A differs from block ``index`` of B (either may be missing: None)."""

    index: int
    a: LogBlock | None
    b: LogBlock | None
    differences: list[dict[str, Any]] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        def where(blk: LogBlock | None):
            if blk is None:
                return None
            return {"offset": blk.offset, "length": blk.length, "block_type": blk.block_type_name,
                    "instant_time": blk.instant_time, "corrupt": blk.corrupt}

        return {"index": self.index, "a": where(self.a), "b": where(self.b), "equal": self.equal,
                "differences": self.differences}


def _raw(block: LogBlock) -> bytes:
    """The block's bytes as they are in its file (a damaged span: its bytes)."""
    if block.corrupt:
        return block.content()
    return block._source.read(block.offset, block.length)


# ---- where a byte is, in the grammar's names -----------------------------------------------------


def _spans(block: LogBlock) -> list[tuple[int, int, str]]:
    """(start, end, field) of every field of a block, relative to its first byte (its magic)."""
    if block.corrupt:
        return [(0, block.length, "damaged span")]
    spans = [(0, 6, "magic"), (6, 14, "len_block"), (14, 18, "format_version")]
    if block.format_version == 0:
        return spans + [(18, block.length, "legacy_content")]
    spans.append((18, 22, "block_type"))
    pos = _map_spans(spans, 22, "header", block.header_entries)
    spans.append((pos, pos + 8, "len_content"))
    start = block.content_offset - block.offset
    spans += _content_spans(block, start)
    pos = _map_spans(spans, start + block.content_length, "footer", block.footer_entries)
    spans.append((pos, pos + 8, "reverse_pointer"))
    return spans


def _map_spans(spans: list, pos: int, name: str, entries) -> int:
    spans.append((pos, pos + 4, f"{name}.num_entries"))
    pos += 4
    for i, (_key, value) in enumerate(entries):
        n = len(value.encode("utf-8"))
        spans += [(pos, pos + 4, f"{name}.entries[{i}].key"), (pos + 4, pos + 8, f"{name}.entries[{i}].len_value"),
                  (pos + 8, pos + 8 + n, f"{name}.entries[{i}].value")]
        pos += 8 + n
    return pos


def _content_spans(block: LogBlock, start: int) -> list[tuple[int, int, str]]:
    end = start + block.content_length
    if block.block_type in (BlockType.avro_data_block, BlockType.cdc_data_block):
        out = [(start, start + 4, "content.content_version"), (start + 4, start + 8, "content.num_records")]
        pos = start + 8
        try:
            datums = block.datums()
        except HudiLogError:
            return out + [(pos, end, "content.records")]
        for i, d in enumerate(datums):
            out += [(pos, pos + 4, f"content.records[{i}].len_datum"), (pos + 4, pos + 4 + len(d), f"content.records[{i}].datum")]
            pos += 4 + len(d)
        return out
    if block.block_type == BlockType.delete_block:
        return [(start, start + 4, "content.content_version"), (start + 4, start + 8, "content.len_payload"),
                (start + 8, end, "content.payload")]
    return [(start, end, "content")]


def field_at(block: LogBlock, index: int) -> str:
    """The grammar field holding byte ``index`` of the block (0 = its magic's first byte)."""
    for start, end, name in _spans(block):
        if start <= index < end:
            return name
    return "past the block's end"


def first_difference(a: LogBlock, b: LogBlock) -> dict[str, Any] | None:
    """The first byte where two blocks differ, with the field it is in on each side; None if equal."""
    ra, rb = _raw(a), _raw(b)
    if ra == rb:
        return None
    n = min(len(ra), len(rb))
    i = next((k for k in range(n) if ra[k] != rb[k]), n)
    return {"what": "bytes", "index": i, "a_offset": a.offset + i, "b_offset": b.offset + i,
            "a_field": field_at(a, i), "b_field": field_at(b, i),
            "a_bytes": ra[i:i + 16].hex(), "b_bytes": rb[i:i + 16].hex()}


# ---- records ----------------------------------------------------------------------------------------


def _keyed(rows: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in rows:
        k, n = key, 1
        while k in out:  # the same key twice in a block: keep both, in order
            n += 1
            k = f"{key}#{n}"
        out[k] = value
    return out


def _records(block: LogBlock) -> dict[str, Any] | None:
    """The block's records by key, or None for a block that holds none."""
    if block.corrupt:
        return None
    if block.block_type == BlockType.delete_block:
        return _keyed([(str(d.record_key), {"partition_path": d.partition_path, "ordering_value": d.ordering_value,
                                            "ordering_kind": d.ordering_kind.name}) for d in block.deletes()])
    if block.block_type in DATA_BLOCK_TYPES:
        rows = block.records()
        key_field = "key" if block.block_type == BlockType.hfile_data_block else "_hoodie_record_key"
        return _keyed([(str(r.get(key_field, f"#{i}")), r) for i, r in enumerate(rows)])
    return None


def _plain(v: Any) -> Any:
    return v.hex() if isinstance(v, (bytes, bytearray)) else v if isinstance(v, (int, float, str, bool, type(None))) else str(v)


def _record_differences(a: LogBlock, b: LogBlock) -> list[dict[str, Any]]:
    try:
        ra, rb = _records(a), _records(b)
    except HudiLogError as e:  # content that does not decode: the bytes still tell whether it differs
        return [] if _raw(a) == _raw(b) else [{"what": "records not compared", "reason": str(e)}]
    if ra is None or rb is None:
        return []
    added = [k for k in rb if k not in ra]
    removed = [k for k in ra if k not in rb]
    changed = []
    for k in ra:
        if k in rb and ra[k] != rb[k]:
            va, vb = ra[k], rb[k]
            fields = sorted(set(va) | set(vb)) if isinstance(va, dict) and isinstance(vb, dict) else ["value"]
            changed.append({"key": k, "fields": {f: [_plain(va.get(f)), _plain(vb.get(f))]
                                                 for f in fields if not isinstance(va, dict) or va.get(f) != vb.get(f)}})
    if not (added or removed or changed):
        return []
    return [{"what": "records", "added": added, "removed": removed, "changed": changed}]


# ---- blocks and files ----------------------------------------------------------------------------


def diff_blocks(a: LogBlock, b: LogBlock, index: int = 0, with_bytes: bool = False) -> BlockDiff:
    """Everything that differs between two blocks (framing, header, content length, records)."""
    d = BlockDiff(index, a, b)
    for name in ("corrupt", "format_version", "block_type_name", "length"):
        va, vb = getattr(a, name), getattr(b, name)
        if va != vb:
            d.differences.append({"what": "framing", "field": name, "a": va, "b": vb})
    ha = {header_key_name(k): v for k, v in a.header_entries}
    hb = {header_key_name(k): v for k, v in b.header_entries}
    for key in sorted(set(ha) | set(hb)):
        if ha.get(key) != hb.get(key):
            d.differences.append({"what": "header", "key": key, "a": ha.get(key), "b": hb.get(key)})
    if [k for k, _ in a.header_entries] != [k for k, _ in b.header_entries] and ha == hb:
        d.differences.append({"what": "header order", "a": [header_key_name(k) for k, _ in a.header_entries],
                              "b": [header_key_name(k) for k, _ in b.header_entries]})
    if a.content_length != b.content_length:
        d.differences.append({"what": "content_length", "a": a.content_length, "b": b.content_length})
    if a.block_type == b.block_type:
        d.differences += _record_differences(a, b)
    if with_bytes or not d.differences:
        # equal in every decoded respect but not byte for byte (a re-encoded schema, a footer, ...)
        first = first_difference(a, b)
        if first is not None:
            d.differences.append(first)
    return d


def diff_files(a: list[LogBlock], b: list[LogBlock], with_bytes: bool = False) -> list[BlockDiff]:
    """Block-by-block differences of two files' blocks (as open_log gives them)."""
    out = []
    for i in range(max(len(a), len(b))):
        if i >= len(a):
            out.append(BlockDiff(i, None, b[i], [{"what": "block added"}]))
        elif i >= len(b):
            out.append(BlockDiff(i, a[i], None, [{"what": "block removed"}]))
        else:
            out.append(diff_blocks(a[i], b[i], i, with_bytes))
    return out
