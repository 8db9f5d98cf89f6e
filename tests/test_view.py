"""`hudi-log view` (offline HTML viewer) and `hudi-log map` (block map picture), issue 23 items 1 and 2.

Fast: the block map's model and SVG against what `validate` finds, and the page's shape (self-contained:
no URL it would fetch, the grammar's JavaScript codec inlined, the maps embedded). Slow: the page in a
real headless Chromium (Debian's package) on a corpus file and on damaged files -- the block list as the
page's scripts rendered it, a block's fields by grammar name, and screenshots (size, not blank, the
damage colour present); and `map -o x.png`. Without Chromium the slow tests skip, saying so.
"""

from __future__ import annotations

import json
import re
import struct
import sys
import zlib
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.cli.block_map import COLOURS, file_map, map_svg
from hudi_log.cli.chromium import chromium_path, dump_dom, screenshot
from hudi_log.format.validate import validate_log_file

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.pictures.__main__ import synthetic_log  # noqa: E402


@pytest.fixture
def logs(tmp_path) -> tuple[Path, Path]:
    return (synthetic_log(tmp_path / ".a-0_1.log.1_0-1-0"), synthetic_log(tmp_path / ".b-0_1.log.1_0-1-0", damage=True))


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


# ---- the model and the SVG ----------------------------------------------------------------------------

def test_map_covers_the_file_and_shows_what_validate_finds(logs):
    intact, damaged = logs
    m = file_map(str(intact))
    assert [e.block_type for e in m.entries] == ["AVRO_DATA_BLOCK"] * 3 + ["DELETE_BLOCK", "COMMAND_BLOCK"]
    assert [e.records for e in m.entries[:3]] == [12, 5, 30] and not m.damaged
    assert m.entries[0].instant == "20260110093000123"
    d = file_map(str(damaged))
    spans = [(e.offset, e.length) for e in d.entries]
    assert spans[0][0] == 0 and all(a + n == b for (a, n), (b, _) in zip(spans, spans[1:]))
    assert spans[-1][0] + spans[-1][1] == damaged.stat().st_size  # every byte is in one span
    report = validate_log_file(str(damaged))
    assert [(e.index, e.damage_rule) for e in d.damaged] == [(p.index, p.rule) for p in report.problems]
    assert [e.damage_rule for e in d.damaged] == ["content", "past-eof"]
    assert all(e.colour == COLOURS["DAMAGED"] for e in d.damaged)
    assert all(p.reason in e.damage_reason for e, p in zip(d.damaged, report.problems))


def test_map_svg_lists_every_block_and_the_damage(logs):
    fmap = file_map(str(logs[1]))
    svg = map_svg(fmap)
    root = ElementTree.fromstring(svg)  # well-formed
    ns = {"s": "http://www.w3.org/2000/svg"}
    spans = root.findall(".//s:rect[@class='span']", ns)
    assert [int(r.get("data-index")) for r in spans] == list(range(len(fmap.entries)))
    assert [r.get("fill") for r in spans if r.get("fill") == COLOURS["DAMAGED"]] == [COLOURS["DAMAGED"]] * 2
    assert sum(float(r.get("width")) for r in spans) == pytest.approx(960, abs=0.1)
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for e in fmap.entries:
        assert f"{e.offset:,}" in text and e.block_type in text
    assert "runs past the end of the file" in text


def test_map_cli_svg_and_refusals(logs, tmp_path, monkeypatch):
    out = tmp_path / "m.svg"
    r = run("map", str(logs[1]), "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "6 blocks, 2 damaged" in r.output and out.read_text().startswith("<svg")
    r = run("map", str(logs[1]), "-o", str(tmp_path / "m.gif"))
    assert r.exit_code == 2 and ".svg or .png" in r.output
    monkeypatch.setenv("HUDI_LOG_CHROMIUM", str(tmp_path / "no-such-chromium"))
    r = run("map", str(logs[1]), "-o", str(tmp_path / "m.png"))
    assert r.exit_code == 2 and "Chromium" in r.output and "svg" in r.output
    assert not (tmp_path / "m.png").exists()
    r = run("map", str(tmp_path / "missing.log"), "-o", str(out))
    assert r.exit_code == 2


# ---- the page's shape ---------------------------------------------------------------------------------

def _page_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="hudi-log-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def test_view_page_is_self_contained_and_embeds_the_maps(logs, tmp_path):
    page = tmp_path / "v.html"
    r = run("view", *map(str, logs), "-o", str(page))
    assert r.exit_code == 0, r.output
    html = page.read_text()
    # nothing fetched: no external script, stylesheet, image or frame
    assert not re.search(r"""<(script|link|img|iframe)[^>]*\b(src|href)=""", html)
    assert "@import" not in html and "url(" not in html
    # the grammar's JavaScript codec (debug build) and the runtime, as generated/ holds them
    for name in ("HudiLog.js", "KaitaiStream.js"):
        assert (REPO / "generated" / name).read_text().replace("</script", "<\\/script") in html
    data = _page_data(html)
    assert [f["name"] for f in data["files"]] == [p.name for p in logs]
    assert [len(f["entries"]) for f in data["files"]] == [5, 6]
    assert data["files"][1]["entries"][5]["damage_rule"] == "past-eof"


def test_view_refuses_bad_inputs(tmp_path, logs):
    r = run("view", str(tmp_path / "missing.log"), "-o", str(tmp_path / "v.html"))
    assert r.exit_code == 2 and "missing.log" in r.output
    r = run("view", str(logs[0]), "-o", str(tmp_path / "no-dir" / "v.html"))
    assert r.exit_code == 2 and "does not exist" in r.output


# ---- in a real browser (slow) -------------------------------------------------------------------------

need_chromium = pytest.mark.skipif(chromium_path() is None,
                                   reason="no Chromium (apt-get install chromium; tools/setup.sh installs it as root)")


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit non-interlaced PNG, as Chromium writes them."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, colour, _, _, interlace = ihdr
    assert depth == 8 and interlace == 0 and colour in (2, 6)
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def colours_in(path: Path) -> tuple[int, int, set[tuple[int, int, int]]]:
    width, height, rows = png_pixels(path)
    bpp = len(rows[0]) // width
    seen = set()
    for r in rows[::2]:
        for i in range(0, len(r), bpp * 2):
            seen.add((r[i], r[i + 1], r[i + 2]))
    return width, height, seen


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def _rows(dom: str, section: int) -> list[tuple[int, str, str]]:
    """(index, data-state, type cell text) of the block rows the page rendered for file ``section``."""
    part = dom.split(f'id="file-{section}"')[1].split('<section')[0]
    found = re.findall(r'<tr class="block[^"]*" data-index="(\d+)" data-state="(\w+)">(.*?)</tr>', part, re.S)
    return [(int(i), s, re.sub(r"<[^>]+>", "|", cells).split("|")) for i, s, cells in found]


@pytest.mark.slow
@need_chromium
def test_view_in_chromium_corpus_and_damaged(corpus_dir, logs, tmp_path):
    corpus = sorted((corpus_dir / "log_files").rglob(".*.log.*"))  # one file per block kind Java wrote
    assert corpus
    damaged_corpus = tmp_path / ".c-0_1.log.1_0-1-0"
    data = bytearray(corpus[0].read_bytes())
    data[40] ^= 0xFF  # inside the header: the first block's framing breaks
    damaged_corpus.write_bytes(bytes(data) + corpus[0].read_bytes())
    page = tmp_path / "v.html"
    files = [logs[1], damaged_corpus, *corpus]
    r = run("view", *map(str, files), "-o", str(page))
    assert r.exit_code == 0, r.output
    dom = dump_dom(str(page), fragment="file=0&block=2&field=header")
    assert 'data-rendered="yes"' in dom, "the page's scripts did not finish"
    expected = [file_map(str(p)) for p in files]
    assert sum(len(m.damaged) for m in expected[2:]) == 0 and sum(len(m.damaged) for m in expected[:2]) >= 3
    for fi, fmap in enumerate(expected):
        rows = _rows(dom, fi)
        assert [i for i, _, _ in rows] == [e.index for e in fmap.entries]
        for (_, state, cells), e in zip(rows, fmap.entries):
            assert e.block_type in cells and f"{e.offset:,}" in cells
            # every intact block was parsed by the grammar's JavaScript codec and agrees with Python's map
            assert state == ("damaged" if e.damaged else "ok"), (fi, e, cells)
            if e.damaged:
                assert any(e.damage_reason[:60] in c for c in cells)
    # file 0, block 2 (content damaged) selected: its fields by grammar name, the codec's own error shown
    detail = dom.split('id="file-0"')[1].split('<section')[0].split('class="detail"')[1]
    for field in ("magic", "len_block", "format_version", "block_type", "header", "len_content", "content",
                  "content_version", "num_records"):
        assert f'data-field="{field}"' in detail, field
    assert 'class="field on" data-field="header"' in detail  # the field named in the URL is highlighted
    assert "The grammar stops here" in detail
    assert re.search(r'<span class="b hl" data-o="\d+">', detail)


@pytest.mark.slow
@need_chromium
def test_view_pages_through_a_delete_blocks_records(tmp_path):
    """A delete block's records are parsed and listed a page (100) at a time, by the grammar's types; the
    URL can name a page (#block=B&records=N); the last page says so."""
    from hudi_log.format.content.deletes import DeleteRecord
    from hudi_log.format.framing import framed_delete_block

    log = tmp_path / ".d-0_1.log.1_0-1-0"
    records = [DeleteRecord.of(f"key-{i:05d}", f"p{i % 3}", i) for i in range(250)]
    log.write_bytes(framed_delete_block({"INSTANT_TIME": "20260101000000000"}, records).to_bytes())
    page = tmp_path / "v.html"
    assert run("view", str(log), "-o", str(page)).exit_code == 0

    def shown(fragment: str) -> tuple[list[int], str]:
        dom = dump_dom(str(page), fragment=fragment)
        assert 'data-rendered="yes"' in dom and re.search(r'data-render-ms="\d+"', dom)
        items = [int(i) for i in re.findall(r'data-field="records\.array_blocks\[0\]\.items\[(\d+)\]"', dom)]
        return items, re.sub(r"<[^>]+>", " ", dom.split('class="pages"')[1].split("</p>")[0])

    items, pages = shown("")
    assert items == list(range(100)) and "delete records 0-99" in pages
    items, pages = shown("block=0&records=3")
    assert items == list(range(200, 250)) and "delete records 200-249" in pages
    dom = dump_dom(str(page), fragment="block=0&records=3")
    assert re.search(r'<button type="button" class="next-page" disabled', dom)  # nothing after the last page
    assert '"key-00249"' in dom and '"key-00199"' not in dom  # only the page asked for is parsed and listed


@pytest.mark.slow
@need_chromium
def test_view_screenshot_shows_blocks_and_damage(logs, tmp_path):
    page, png = tmp_path / "v.html", tmp_path / "v.png"
    assert run("view", str(logs[1]), "-o", str(page)).exit_code == 0
    screenshot(str(page), str(png), 1200, 900, fragment="file=0&block=5")
    width, height, seen = colours_in(png)
    assert (width, height) == (1200, 900)
    assert len(seen) > 20, "blank screenshot"
    for name in ("DAMAGED", "AVRO_DATA_BLOCK", "DELETE_BLOCK"):
        assert _rgb(COLOURS[name]) in seen, name


@pytest.mark.slow
@need_chromium
def test_map_png(logs, tmp_path):
    out = tmp_path / "m.png"
    r = run("map", str(logs[1]), "-o", str(out))
    assert r.exit_code == 0, r.output
    width, height, seen = colours_in(out)
    root = ElementTree.fromstring(map_svg(file_map(str(logs[1]))))
    assert (width, height) == (int(root.get("width")), int(root.get("height")))
    assert _rgb(COLOURS["DAMAGED"]) in seen and _rgb(COLOURS["AVRO_DATA_BLOCK"]) in seen


def test_readme_block_map_is_fresh(tmp_path, monkeypatch):
    """docs/img/block_map.svg is what `python -m tools.pictures` makes now (the PNGs are screenshots of the
    same file and page)."""
    from tools.pictures.__main__ import PICTURE_LOG

    monkeypatch.chdir(tmp_path)
    synthetic_log(tmp_path / PICTURE_LOG, damage=True)
    assert run("map", PICTURE_LOG, "-o", "m.svg").exit_code == 0
    assert (tmp_path / "m.svg").read_text() == (REPO / "docs" / "img" / "block_map.svg").read_text(), \
        "docs/img is stale: run .venv/bin/python -m tools.pictures"


def test_a_file_that_is_not_a_log_file(tmp_path, logs):
    junk = tmp_path / ".j-0_1.log.1_0-1-0"
    junk.write_bytes(b"not a log file at all" * 10)
    r = run("map", str(junk), "-o", str(tmp_path / "j.svg"))
    assert r.exit_code == 2 and "not a Hudi log file" in r.output and not (tmp_path / "j.svg").exists()
    page = tmp_path / "v.html"
    r = run("view", str(logs[0]), str(junk), "-o", str(page))
    assert r.exit_code == 2 and "1 of 2 file(s) could not be read" in r.output
    files = _page_data(page.read_text())["files"]
    assert files[0]["error"] is None and "not a Hudi log file" in files[1]["error"]
