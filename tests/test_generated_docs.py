"""generated/hudi_log.html and generated/hudi_log.svg, the grammar's documentation (issue 23 item 6).

Written from spec/hudi_log.ksy by tools/regen (the regeneration test in test_grammar.py holds them fresh);
here: a person can read them offline -- nothing fetched, Markdown rendered, no compiler internals or
`???` offsets, every type, field, instance and enum value of the .ksy documented, and a diagram of one
block narrow enough for a page. Slow: the page as Chromium renders it.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hudi_log.cli.chromium import chromium_path, dump_dom, screenshot

from test_grammar import NODE, _need_node

REPO = Path(__file__).resolve().parents[1]
HTML = REPO / "generated" / "hudi_log.html"
SVG = REPO / "generated" / "hudi_log.svg"


@pytest.fixture(scope="module")
def spec() -> dict:
    """The .ksy as the regeneration reads it (npm's yaml: no YAML parser among the Python packages)."""
    _need_node()
    code = "process.stdout.write(JSON.stringify(require('yaml').parse(require('fs').readFileSync('spec/hudi_log.ksy','utf8'))))"
    return json.loads(subprocess.run([NODE, "-e", code], cwd=REPO, check=True, capture_output=True, text=True).stdout)


def test_docs_are_self_contained_and_readable():
    html = HTML.read_text()
    assert not re.search(r"<(script|link|img|iframe)\b", html)  # nothing to fetch, nothing to run
    assert "@import" not in html and "url(" not in html
    for internal in ("???", "SwitchType(", "ValueInstanceSpec(", "ParseInstanceSpec(", "BytesLimitType(", "Identifier("):
        assert internal not in html, internal
    # Markdown rendered: no backtick left outside <code>, and the docs' `code` spans became <code>
    text = re.sub(r"<code[^>]*>.*?</code>", "", html, flags=re.S)
    assert "`" not in re.sub(r"<style>.*?</style>", "", text, flags=re.S)
    assert "<code>#HUDI#</code>" in html


def test_docs_cover_the_whole_grammar(spec):
    html = HTML.read_text()
    for name, t in spec["types"].items():
        assert f'id="type-{name}"' in html, name
        for attr in t.get("seq", []):
            assert f'<code class="id">{attr["id"]}</code>' in html, (name, attr["id"])
        for inst in t.get("instances", {}):
            assert f'<code class="id">{inst}</code>' in html, (name, inst)
    for name, values in spec["enums"].items():
        section = html.split(f'id="enum-{name}"')[1].split("</section>")[0]
        for value in values.values():
            assert f'<code class="id">{value["id"]}</code>' in section, (name, value)
    # offsets: numbers where the layout fixes them, "after <field>" where earlier data decides
    block = html.split('id="type-block"')[1].split("</section>")[0]
    assert [int(x) for x in re.findall(r'<tr><td class="num">(\d+)</td>', block)] == [0, 6, 14, 18]
    assert 'after <code>header</code>' in block


def test_block_diagram_fits_a_page(spec):
    root = ElementTree.fromstring(SVG.read_text())
    assert float(root.get("width")) <= 800 and float(root.get("height")) <= 600
    labels = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {a["id"] for a in spec["types"]["block"]["seq"]} <= labels
    assert SVG.read_text().split("\n", 1)[1].strip()[:-6] in HTML.read_text()  # the same diagram, inlined


@pytest.mark.slow
@pytest.mark.skipif(chromium_path() is None, reason="no Chromium (apt-get install chromium)")
def test_docs_in_chromium(tmp_path, spec):
    dom = dump_dom(str(HTML))
    assert dom.count('<section class="type"') == len(spec["types"]) + 1  # and the top level
    assert dom.count('<section class="enum"') == len(spec["enums"])
    png = tmp_path / "docs.png"
    screenshot(str(HTML), str(png), 1000, 1400)
    from test_view import colours_in

    width, height, seen = colours_in(png)
    assert (width, height) == (1000, 1400) and len(seen) > 20
    assert (0xDB, 0xE8, 0xF5) in seen  # the diagram's boxes were drawn


def test_hfile_docs_cover_the_whole_grammar():
    """generated/hfile.html (from spec/hfile.ksy): every type, field, instance and enum value, no diagram."""
    _need_node()
    code = "process.stdout.write(JSON.stringify(require('yaml').parse(require('fs').readFileSync('spec/hfile.ksy','utf8'))))"
    hfile_spec = json.loads(subprocess.run([NODE, "-e", code], cwd=REPO, check=True, capture_output=True, text=True).stdout)
    html = (REPO / "generated" / "hfile.html").read_text()
    assert "Written from spec/hfile.ksy" in html and "<svg" not in html
    for internal in ("???", "SwitchType(", "ValueInstanceSpec("):
        assert internal not in html, internal
    for name, t in hfile_spec["types"].items():
        assert f'id="type-{name}"' in html, name
        # the gallery's rule: a doc on every type, field and instance
        assert t.get("doc") and all(a.get("doc") for a in t.get("seq", [])), name
        assert all(i.get("doc") for i in t.get("instances", {}).values()), name
        for attr in t.get("seq", []):
            assert f'<code class="id">{attr["id"]}</code>' in html, (name, attr["id"])
        for inst in t.get("instances", {}):
            assert f'<code class="id">{inst}</code>' in html, (name, inst)
    for name, values in hfile_spec["enums"].items():
        section = html.split(f'id="enum-{name}"')[1].split("</section>")[0]
        for value in values.values():
            assert f'<code class="id">{value["id"]}</code>' in section, (name, value)
