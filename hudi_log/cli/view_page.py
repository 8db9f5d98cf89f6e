"""The self-contained HTML page of `hudi-log view`: block maps of log files, and on click a block's fields
as spec/hudi_log.ksy names them, their bytes highlighted in a hex view (as the Kaitai Web IDE shows them).

Nothing is fetched: the page inlines the JavaScript codec compiled from the grammar in debug mode and the
pinned kaitai-struct runtime (generated/HudiLog.js and generated/KaitaiStream.js, written by
tools/regen/regen.js and held fresh by the regeneration test), so page and grammar cannot drift; the
files' bytes and their maps (:mod:`.block_map`, the damage ``hudi-log validate`` finds) are embedded as
JSON. The page's own script and style are viewer.js and viewer.css beside this module.
"""

from __future__ import annotations

import base64
import html
import json
from importlib import resources

from .block_map import COLOURS, FileMap

#: what a page may embed: the bytes go into the page (base64), and a browser holds them all in memory
MAX_PAGE_BYTES = 64 << 20


class ViewerAssetsMissing(Exception):
    """The generated JavaScript codec is not installed beside the package (run tools/regen/regen.js)."""


def _asset(package: str, name: str) -> str:
    try:
        return resources.files(package).joinpath(name).read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as e:
        raise ViewerAssetsMissing(f"{package}/{name} is missing ({e}); regenerate with `npm run regen`") from None


def _script(code: str) -> str:
    # `</script` inside inlined code would end the element early; `<\/` means the same to JavaScript
    return "<script>\n" + code.replace("</script", "<\\/script") + "\n</script>"


def view_page(maps: list[FileMap], contents: list[bytes], title: str = "hudi-log view") -> str:
    """The page for ``maps`` and the files' bytes ``contents`` (same order)."""
    # the maps through json.dumps, the files' bytes (base64: nothing in it needs escaping) spliced in as they
    # are: a JSON encoder and a search for "</" over tens of megabytes cost a page of big files a second
    files = []
    for fmap, data in zip(maps, contents):
        meta = json.dumps(fmap.to_dict(), ensure_ascii=True).replace("</", "<\\/")
        files.append(meta[:-1] + (", " if meta != "{}" else "") + '"b64": "' + base64.b64encode(data).decode("ascii") + '"}')
    colours = json.dumps(COLOURS, ensure_ascii=True).replace("</", "<\\/")
    payload = '{"files": [' + ", ".join(files) + '], "colours": ' + colours + "}"
    legend = "".join(f'<span class="swatch" style="background:{c}"></span>{html.escape(n)} '
                     for n, c in COLOURS.items())
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        "<style>\n" + _asset("hudi_log.cli", "viewer.css") + "</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="legend">{legend}</p>',
        '<p class="info">Click a block (bar or row) for its fields as spec/hudi_log.ksy names them; click a field '
        "to highlight its bytes. Damage is what <code>hudi-log validate</code> finds.</p>",
        '<div id="files"></div>',
        f'<script type="application/json" id="hudi-log-data">{payload}</script>',
        _script(_asset("hudi_log_generated", "KaitaiStream.js")),
        _script(_asset("hudi_log_generated", "HudiLog.js")),
        _script(_asset("hudi_log.cli", "viewer.js")),
        "<footer>Made by hudi-log view; parsed in this page by the JavaScript codec compiled from "
        "spec/hudi_log.ksy with the kaitai-struct runtime.</footer>",
        "</body></html>",
        "",
    ])
