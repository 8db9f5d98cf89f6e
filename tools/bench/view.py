"""Benchmark: delete-heavy log files in `hudi-log view` and the way the Kaitai Web IDE opens them (issue 38, item 4).

    python -m tools.bench.view [--keys 300000] [--webide-keys 250000] [--repeat 3]

Inputs (untimed): a log file of two delete blocks of ``--keys`` keys each (600,000 deletes by default;
UUID keys, partition paths, long ordering values, as ``write_table`` writes them), and a log of one delete
block of ``--webide-keys`` keys (``tests/test_grammar_webide.big_log``). Measured, medians of ``--repeat``:

* view/cli: ``hudi-log view FILE -o page.html`` as a command (imports, the validate-depth block map, the page
  written), wall time;
* view/open: the page opened by headless Chromium: navigation start to the page's scripts done (the
  embedded bytes decoded, every block's framing parsed by the grammar's JavaScript codec, the first block
  shown with its first page of records), the page's own ``data-render-ms``;
* webide/expand: ``tools/regen/open_like_webide.js --expand 0`` on the one-block log: the file opened and the
  delete block expanded as the Web IDE does (the payload as bytes, its records one click further), time and
  heap left;
* webide/records: the same with ``--records 0``: that further click, every record parsed by the debug codec.

The goal is view/cli + view/open under 3 s for the 600,000-key file; the ratio printed is that sum / 3 s.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

GOAL_S = 3.0


def delete_log(path: Path, keys: int, blocks: int = 2) -> None:
    from hudi_log.format.content.deletes import DeleteRecord
    from hudi_log.format.framing import framed_delete_block

    with open(path, "wb") as f:
        for b in range(blocks):
            records = [DeleteRecord.of(str(uuid.UUID(int=b << 64 | i)), f"city={i % 4}", 1_700_000_000_000 + i)
                       for i in range(keys)]
            f.write(framed_delete_block({"INSTANT_TIME": f"2026010100000000{b}"}, records).to_bytes())


def _cli(log: Path, page: Path) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hudi_log.cli", "view", str(log), "-o", str(page)], check=True,
                   capture_output=True, cwd=REPO)
    return time.perf_counter() - t


def _open(page: Path) -> float:
    from hudi_log.cli.chromium import dump_dom

    dom = dump_dom(str(page), timeout=300)
    found = re.search(r'data-render-ms="(\d+)"', dom)
    if not found or "records.array_blocks[0].items[99]" not in dom:
        raise SystemExit("the page did not render its first page of records")
    return int(found.group(1)) / 1000


def _webide(log: Path, flag: str) -> dict:
    r = subprocess.run(["node", "--max-old-space-size=4096", "--expose-gc", "tools/regen/open_like_webide.js", flag, "0",
                        str(log)], check=True, capture_output=True, text=True, cwd=REPO)
    (out,) = json.loads(r.stdout)
    if "error" in out:
        raise SystemExit(f"open_like_webide.js: {out['error']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bench.view", description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=300_000, help="keys of each of the two delete blocks")
    ap.add_argument("--webide-keys", type=int, default=250_000, help="keys of the Web IDE's delete block")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO / "tests"))
    from test_grammar_webide import big_log

    with tempfile.TemporaryDirectory(prefix="hudi-log-bench-view-") as tmp:
        work = Path(tmp)
        log, page, ide = work / ".deletes-0_1.log.1_0-1-0", work / "view.html", work / "webide.log"
        delete_log(log, args.keys)
        ide.write_bytes(big_log(args.webide_keys, 10))
        cli, opened, expand, records = [], [], [], []
        for _ in range(args.repeat):
            cli.append(_cli(log, page))
            opened.append(_open(page))
            expand.append(_webide(ide, "--expand"))
        records.append(_webide(ide, "--records"))  # once: tens of seconds
        c, o = statistics.median(cli), statistics.median(opened)
        e = min(expand, key=lambda r: r["ms"])
        print(f"python -m tools.bench.view --keys {args.keys} --webide-keys {args.webide_keys} --repeat {args.repeat}")
        print(f"  view of {2 * args.keys:,} deletes ({log.stat().st_size / 1e6:.1f} MB): hudi-log view {c:.2f} s "
              f"(runs {', '.join(f'{x:.2f}' for x in cli)}), page open {o:.2f} s "
              f"(runs {', '.join(f'{x:.2f}' for x in opened)}); total / {GOAL_S:g} s goal = {(c + o) / GOAL_S:.2f}")
        print(f"  Web IDE, {args.webide_keys:,}-key delete block: opened and expanded in {e['ms']:.0f} ms, "
              f"{e['heap_mb']:.1f} MB heap; its records (one click more): {records[0]['ms'] / 1000:.1f} s, "
              f"{records[0]['heap_mb']:.0f} MB heap")
    return 0


if __name__ == "__main__":
    sys.exit(main())
