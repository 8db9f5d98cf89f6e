"""Makes the README's pictures from a small synthetic log file (never from the corpus):

    .venv/bin/python -m tools.pictures [--out docs/img]

* ``block_map.svg`` and ``block_map.png``: ``hudi-log map`` of a log file with a torn block;
* ``viewer.png``: a Chromium screenshot of ``hudi-log view`` on it, a block's fields selected.

``synthetic_log`` writes the file (Avro data blocks, a delete block, a rollback command block, a log
compaction block; with ``damage``, a block whose content was overwritten and a torn last block), made by
hudi-log's own writer; the tests of the viewer use it too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCHEMA = {"type": "record", "name": "trips_record", "namespace": "hoodie.trips",
          "fields": [{"name": "_hoodie_commit_time", "type": ["null", "string"], "default": None},
                     {"name": "_hoodie_record_key", "type": ["null", "string"], "default": None},
                     {"name": "_hoodie_partition_path", "type": ["null", "string"], "default": None},
                     {"name": "rider", "type": ["null", "string"], "default": None},
                     {"name": "fare", "type": ["null", "double"], "default": None}]}


#: the pictured file's name: a log file of file group f1e2d3c4-..., as Hudi names them
PICTURE_LOG = ".f1e2d3c4-0000-4a5b-9c8d-000000000001-0_20260110093000123.log.1_0-1-0"


def _records(instant: str, start: int, n: int) -> list[dict]:
    return [{"_hoodie_commit_time": instant, "_hoodie_record_key": f"trip-{i:04d}",
             "_hoodie_partition_path": "city=sf", "rider": f"rider-{i % 7}", "fare": 10.0 + i} for i in range(start, start + n)]


def synthetic_log(path: Path, damage: bool = False) -> Path:
    """A small log file of one file group; ``damage``: the third block's content overwritten and a torn
    block at the end, as a crashed or faulty writer leaves them."""
    from hudi_log import LogBlock
    from hudi_log.format.content.avro import encode_records
    from hudi_log.format.content.deletes import DeleteRecord, encode_delete_payload
    from hudi_log.format.grammar import avro_data_content, delete_content

    schema = json.dumps(SCHEMA)
    blocks = []
    instants = ["20260110093000123", "20260110094500456", "20260110100000789", "20260110101500012"]
    for k, (start, n) in enumerate(((0, 12), (12, 5), (17, 30))):
        header = {"INSTANT_TIME": instants[k], "SCHEMA": schema}
        blocks.append(LogBlock.new("AVRO_DATA_BLOCK", header,
                                   avro_data_content(3, encode_records(_records(instants[k], start, n), SCHEMA))))
    deletes = encode_delete_payload([DeleteRecord.of(f"trip-{i:04d}", "city=sf", 0) for i in (3, 4, 5)])
    blocks.append(LogBlock.new("DELETE_BLOCK", {"INSTANT_TIME": instants[3]}, delete_content(3, deletes)))
    blocks.append(LogBlock.new("COMMAND_BLOCK", {"INSTANT_TIME": "20260110103000345",
                                                 "TARGET_INSTANT_TIME": instants[3], "COMMAND_BLOCK_TYPE": "0"}))
    data = bytearray(b"".join(b.to_bytes() for b in blocks))
    if damage:
        third = sum(len(b.to_bytes()) for b in blocks[:2])
        end = third + len(blocks[2].to_bytes())
        data[end - 200:end - 150] = b"\xff" * 50  # content overwritten: framing intact, records do not decode
        torn = LogBlock.new("AVRO_DATA_BLOCK", {"INSTANT_TIME": "20260110104500678", "SCHEMA": schema},
                            avro_data_content(3, encode_records(_records("20260110104500678", 47, 8), SCHEMA)))
        data += torn.to_bytes()[:700]  # the writer died mid-block
    path.write_bytes(bytes(data))
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.pictures", description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(REPO / "docs" / "img"))
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from hudi_log.cli.chromium import screenshot

    hudi_log = [sys.executable, "-m", "hudi_log.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        # run where the file is, naming it relatively: the pictures show no temporary path
        name = PICTURE_LOG
        synthetic_log(Path(tmp) / name, damage=True)
        for picture in ("block_map.svg", "block_map.png"):
            subprocess.run([*hudi_log, "map", name, "-o", str(out / picture)], check=True, cwd=tmp)
        subprocess.run([*hudi_log, "view", name, "-o", "view.html"], check=True, cwd=tmp)
        screenshot(str(Path(tmp) / "view.html"), str(out / "viewer.png"), 1100, 820,
                   fragment="file=0&block=0&field=header")
    print(f"wrote block_map.svg, block_map.png, viewer.png to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
