"""A log file as a block map: every block and damaged span with its offset, length, type, instant and record
count, and the damage found in it -- the model `hudi-log map` draws and `hudi-log view` embeds.

The damage is what ``hudi-log validate`` finds (:func:`hudi_log.format.validate.iter_checked`: framing
as Apache Hudi's ``HoodieLogFileReader`` decides a CORRUPT_BLOCK, and content or header values that do
not decode as ``HoodieAvroDataBlock`` / ``HoodieDeleteBlock`` / ... would fail on), so a picture never
calls intact what `validate` calls damaged. :func:`map_svg` draws the map as an SVG written here (no
drawing library): one bar of the file, each span as wide as its bytes (with a minimum so a small block
stays visible), and one line per block below it.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import asdict, dataclass, field
from html import escape
from typing import Any

from ..errors import HudiLogError
from ..format.validate import RULES, CONTENT_RULES, iter_checked

#: One colour per block type, and one for damage: the SVG and the HTML viewer use these.
COLOURS = {
    "AVRO_DATA_BLOCK": "#4e79a7",
    "CDC_DATA_BLOCK": "#76b7b2",
    "DELETE_BLOCK": "#f28e2b",
    "COMMAND_BLOCK": "#b07aa1",
    "PARQUET_DATA_BLOCK": "#59a14f",
    "HFILE_DATA_BLOCK": "#edc948",
    "LEGACY": "#9c755f",
    "DAMAGED": "#e15759",
}


@dataclass(frozen=True)
class MapEntry:
    """One block, or one damaged span, of a log file. ``offset``/``length`` cover the whole span on disk
    (a block from its magic to its reverse pointer; a damaged span from the bad magic, if any)."""

    index: int
    offset: int
    length: int
    block_type: str  # Hudi's HoodieLogBlockType name; "CORRUPT_BLOCK" for a damaged span
    instant: str | None = None
    records: int | None = None
    content_length: int | None = None
    format_version: int | None = None
    #: set when the span is damaged: the validate rule, the grammar field and why
    damage_rule: str | None = None
    damage_field: str | None = None
    damage_reason: str | None = None

    @property
    def damaged(self) -> bool:
        return self.damage_rule is not None

    @property
    def colour(self) -> str:
        if self.damaged:
            return COLOURS["DAMAGED"]
        if self.format_version == 0:
            return COLOURS["LEGACY"]
        return COLOURS.get(self.block_type, "#bab0ac")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "damaged": self.damaged, "colour": self.colour}


@dataclass
class FileMap:
    """The map of one file; ``error`` when it cannot be read as a log file at all."""

    path: str
    size: int
    entries: list[MapEntry] = field(default_factory=list)
    error: str | None = None

    @property
    def damaged(self) -> list[MapEntry]:
        return [e for e in self.entries if e.damaged]

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "name": os.path.basename(self.path), "size": self.size, "error": self.error,
                "entries": [e.to_dict() for e in self.entries]}


def file_map(path: str, deep: bool = True) -> FileMap:
    """The block map of the log file at ``path``. ``deep`` decodes every block's content (as ``validate``
    does) so content damage is shown too. Never raises for the file's contents: see ``error``."""
    fmap = FileMap(path=path, size=os.path.getsize(path))
    try:
        for index, block, problem in iter_checked(path, deep):
            if block.corrupt:
                start = block.magic_offset if block.magic_offset is not None else block.offset
                fmap.entries.append(MapEntry(index, start, block.offset + block.length - start, "CORRUPT_BLOCK",
                                             damage_rule=problem.rule, damage_field=problem.field,
                                             damage_reason=_reason(problem.rule, problem.reason)))
                continue
            try:
                records = block.record_count
            except HudiLogError:
                records = None  # the content does not decode: the problem below says why
            entry = MapEntry(index, block.offset, block.length, block.block_type_name, block.instant_time, records,
                             block.content_length, block.format_version)
            if problem is not None:
                entry = MapEntry(**{**asdict(entry), "damage_rule": problem.rule, "damage_field": problem.field,
                                    "damage_reason": _reason(problem.rule, problem.reason)})
            fmap.entries.append(entry)
    except HudiLogError as e:
        fmap.error = str(e)
    return fmap


def _reason(rule: str, detail: str) -> str:
    text = RULES.get(rule) or CONTENT_RULES.get(rule) or rule
    return f"{text}: {detail}" if detail else text


# ---- the map as an SVG ------------------------------------------------------------------------------

_WIDTH = 960
_BAR_Y, _BAR_H = 56, 36
_ROW_H = 18
#: rows listed under the bar; a bug report needs the damaged ones, so those are always listed
MAX_ROWS = 60
#: a damage reason is wrapped at this many characters (what fits the SVG's width), over at most 3 lines
_REASON_CHARS = 118


def _fmt(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def _bar_spans(entries: list[MapEntry], size: int) -> list[tuple[float, float, MapEntry]]:
    """(x, width) of each entry in the bar: proportional to its bytes, at least 3 px, scaled back to fit."""
    if not entries:
        return []
    minimum = 3.0
    raw = [max(minimum, _WIDTH * e.length / max(size, 1)) for e in entries]
    scale = _WIDTH / sum(raw) if sum(raw) > _WIDTH else 1.0
    out, x = [], 0.0
    for e, w in zip(entries, raw):
        out.append((x, w * scale, e))
        x += w * scale
    return out


def _reason_lines(e: MapEntry) -> list[str]:
    if not e.damaged:
        return []
    lines = textwrap.wrap(e.damage_reason or "", _REASON_CHARS, break_long_words=True)
    return lines[:2] + ([lines[2] + (" …" if len(lines) > 3 else "")] if len(lines) > 2 else [])


def map_svg(fmap: FileMap) -> str:
    """The block map of one file as a standalone SVG document."""
    entries = fmap.entries
    listed = entries if len(entries) <= MAX_ROWS else (
        [e for e in entries if e.damaged] + [e for e in entries if not e.damaged])[:MAX_ROWS]
    listed.sort(key=lambda e: e.index)
    more = len(entries) - len(listed)
    legend_y = _BAR_Y + _BAR_H + 24
    table_y = legend_y + 30
    lines = len(listed) + sum(len(_reason_lines(e)) for e in listed) + 1 + (1 if more else 0) + (1 if fmap.error else 0)
    height = table_y + _ROW_H * lines + 12
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH + 40}" height="{height}" '
           f'viewBox="0 0 {_WIDTH + 40} {height}" font-family="DejaVu Sans Mono, monospace" font-size="12">',
           '<rect width="100%" height="100%" fill="#ffffff"/>',
           f'<text x="20" y="24" font-size="15" font-weight="bold">{escape(os.path.basename(fmap.path))}</text>',
           f'<text x="20" y="44" fill="#555">{_fmt(fmap.size)} bytes, {len(entries)} blocks, '
           f'{len(fmap.damaged)} damaged</text>',
           '<g transform="translate(20,0)">',
           f'<rect x="0" y="{_BAR_Y}" width="{_WIDTH}" height="{_BAR_H}" fill="#f0f0f0" stroke="#999"/>']
    for x, w, e in _bar_spans(entries, fmap.size):
        title = escape(f"#{e.index} @{e.offset} +{e.length} {e.block_type}"
                       + (f" DAMAGED: {e.damage_reason}" if e.damaged else ""))
        out.append(f'<rect class="span" data-index="{e.index}" x="{x:.2f}" y="{_BAR_Y}" width="{w:.2f}" '
                   f'height="{_BAR_H}" fill="{e.colour}" stroke="#fff" stroke-width="0.5"><title>{title}</title></rect>')
    used = sorted({("DAMAGED" if e.damaged else ("LEGACY" if e.format_version == 0 else e.block_type))
                   for e in entries})
    x = 0
    for name in used:
        out.append(f'<rect x="{x}" y="{legend_y - 11}" width="12" height="12" fill="{COLOURS.get(name, "#bab0ac")}"/>'
                   f'<text x="{x + 16}" y="{legend_y}">{escape(name)}</text>')
        x += 30 + 8 * len(name)
    cols = (0, 60, 170, 270, 460, 640, 720)
    heads = ("#", "offset", "length", "type", "instant", "records", "damage")
    y = table_y
    out.append("".join(f'<text x="{c}" y="{y}" font-weight="bold">{h}</text>' for c, h in zip(cols, heads)))
    for e in listed:
        y += _ROW_H
        cells = (str(e.index), _fmt(e.offset), _fmt(e.length), e.block_type, e.instant or "-", _fmt(e.records),
                 e.damage_rule or "")
        fill = COLOURS["DAMAGED"] if e.damaged else "#222"
        out.append(f'<rect x="-14" y="{y - 10}" width="10" height="10" fill="{e.colour}"/>'
                   + "".join(f'<text x="{c}" y="{y}" fill="{fill}">{escape(v)}</text>' for c, v in zip(cols, cells)))
        for line in _reason_lines(e):  # the reason on lines of its own: a bug report needs all of it
            y += _ROW_H
            out.append(f'<text x="60" y="{y}" fill="{fill}">{escape(line)}</text>')
    if more:
        y += _ROW_H
        out.append(f'<text x="0" y="{y}" fill="#555">... {more} more intact blocks (all damaged ones are listed)</text>')
    if fmap.error:
        y += _ROW_H
        out.append(f'<text x="0" y="{y}" fill="{COLOURS["DAMAGED"]}">{escape(fmap.error)}</text>')
    out.append("</g></svg>\n")
    return "\n".join(out)
