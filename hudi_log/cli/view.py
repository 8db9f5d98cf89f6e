"""`hudi-log view FILE... -o page.html` and `hudi-log map FILE -o map.svg|png`: a log file's blocks as a
picture -- an offline HTML viewer (:mod:`.view_page`) and a block map for bug reports (:mod:`.block_map`).

Both show the damage ``hudi-log validate`` finds. A PNG map is the SVG rendered by headless Chromium
(:mod:`.chromium`); without Chromium, ``-o x.png`` is refused (write .svg instead). Exit 0 when written,
2 for an input or output that cannot be used: `map` then writes nothing; `view` still writes its page,
showing such a file as unreadable, beside the others.
"""

from __future__ import annotations

import os
import tempfile

import click

from .block_map import FileMap, file_map, map_svg
from .inputs import expand
from .output import check_output_path, fail, os_error, temp_beside, warn


def _log_files(args: tuple[str, ...]) -> list[str]:
    files, missing = expand(args)
    for m in missing:
        fail(f"{m.arg}: {m.reason}")
    if not files:
        fail("no log files given")
    return files


def _maps(files: list[str], deep: bool) -> list[FileMap]:
    out = []
    for path in files:
        try:
            fmap = file_map(path, deep)
        except OSError as e:
            raise os_error(path, e) from None
        out.append(fmap)
    return out


def _write(path: str, data: bytes) -> None:
    target = check_output_path(path)
    tmp = temp_beside(target, ".hudi-log-")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except OSError as e:
        os.unlink(tmp)
        raise os_error(path, e) from None


_DEEP = click.option("--framing-only", "framing_only", is_flag=True,
                     help="check framing only (fast); by default every block's content is decoded as validate does")


@click.command()
@click.argument("files", nargs=-1, required=True)
@click.option("-o", "--output", required=True, help="the HTML page to write")
@_DEEP
def view(files: tuple[str, ...], output: str, framing_only: bool) -> None:
    """Write one self-contained HTML page (no network) showing each log file's blocks: a block map with
    damage in its own colour and the reason, and on click a block's fields by grammar name with their
    bytes highlighted in a hex view."""
    from .view_page import MAX_PAGE_BYTES, ViewerAssetsMissing, view_page

    check_output_path(output)
    paths = _log_files(files)
    total = sum(os.path.getsize(p) for p in paths)
    if total > MAX_PAGE_BYTES:
        fail(f"{total:,} bytes of log files: a page embeds them and holds at most {MAX_PAGE_BYTES:,} "
             "(view fewer or smaller files; `hudi-log map` draws any size)")
    maps = _maps(paths, not framing_only)
    contents = []
    for p in paths:
        try:
            with open(p, "rb") as f:
                contents.append(f.read())
        except OSError as e:
            raise os_error(p, e) from None
    try:
        page = view_page(maps, contents)
    except ViewerAssetsMissing as e:
        fail(str(e))
    _write(output, page.encode("utf-8"))
    damaged = sum(len(m.damaged) for m in maps)
    click.echo(f"wrote {output}: {len(maps)} file(s), {sum(len(m.entries) for m in maps)} blocks, {damaged} damaged")
    unreadable = [m for m in maps if m.error]
    for m in unreadable:
        warn(f"{m.error} (shown on the page as unreadable)")
    if unreadable:
        fail(f"{len(unreadable)} of {len(maps)} file(s) could not be read as log files")


@click.command(name="map")
@click.argument("file")
@click.option("-o", "--output", required=True, help="the picture to write: .svg, or .png (needs Chromium)")
@_DEEP
def map_cmd(file: str, output: str, framing_only: bool) -> None:
    """Draw a log file's block map (offset, length, type, instant, records; damage in red with its reason)
    as an SVG or PNG picture, for bug reports."""
    from .chromium import ChromiumError, chromium_path, screenshot

    ext = os.path.splitext(output)[1].lower()
    if ext not in (".svg", ".png"):
        fail(f"{output}: give a .svg or .png file name")
    if ext == ".png" and chromium_path() is None:
        fail(f"{output}: a PNG is rendered by Chromium, and none was found (apt-get install chromium, or set "
             "HUDI_LOG_CHROMIUM); write an .svg instead")
    check_output_path(output)
    (fmap,) = _maps(_log_files((file,)), not framing_only)
    if fmap.error:
        fail(fmap.error)
    svg = map_svg(fmap)
    if ext == ".svg":
        _write(output, svg.encode("utf-8"))
    else:
        width, height = _svg_size(svg)
        with tempfile.TemporaryDirectory(prefix="hudi-log-map-") as tmp:
            src, png = os.path.join(tmp, "map.svg"), os.path.join(tmp, "map.png")
            with open(src, "w", encoding="utf-8") as f:
                f.write(svg)
            try:
                screenshot(src, png, width, height)
            except ChromiumError as e:
                fail(f"{output}: {e}", 3)
            with open(png, "rb") as f:
                _write(output, f.read())
    click.echo(f"wrote {output}: {len(fmap.entries)} blocks, {len(fmap.damaged)} damaged")


def _svg_size(svg: str) -> tuple[int, int]:
    import re

    m = re.search(r'width="(\d+)" height="(\d+)"', svg)
    return int(m.group(1)), int(m.group(2))
