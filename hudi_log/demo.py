"""A tour of hudi-log on a log file it writes itself: `python -m hudi_log.demo [DIR]`.

Writes a file group's log (an Avro data block of inserts and updates, a delete block, a rollback
block), shows it the way `hudi-log inspect` does, damages a copy the way a dying writer would,
and recovers the intact blocks with `validate` and `salvage`.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

from . import LogBlock, grammar, open_log, write_blocks
from .avro import encode_records
from .cli import main as cli
from .deletes import DeleteRecord, encode_delete_payload

SCHEMA = {
    "type": "record", "name": "demo_record", "namespace": "hoodie.demo",
    "fields": [
        *({"name": f, "type": ["null", "string"], "default": None} for f in (
            "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
            "_hoodie_partition_path", "_hoodie_file_name")),
        {"name": "id", "type": "int"}, {"name": "name", "type": "string"}, {"name": "ts", "type": "long"},
    ],
}
FILE_ID = "6d3d1d6e-0000-4000-8000-000000000001-0"


def _rows(instant: str, rows: list[tuple[int, str]]) -> list[dict]:
    return [
        {"_hoodie_commit_time": instant, "_hoodie_commit_seqno": f"{instant}_0_{i}", "_hoodie_record_key": str(id_),
         "_hoodie_partition_path": "", "_hoodie_file_name": FILE_ID, "id": id_, "name": name, "ts": i}
        for i, (id_, name) in enumerate(rows, 1)
    ]


def _run(args: list[str]) -> str:
    r = CliRunner().invoke(cli, args)
    return r.output


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="hudi-log-demo-"))
    out.mkdir(parents=True, exist_ok=True)
    log = out / f".{FILE_ID}_20250101000000000.log.1_0-1-0"
    header = {"INSTANT_TIME": "20250101000001000", "SCHEMA": json.dumps(SCHEMA)}
    blocks = [
        LogBlock.new("AVRO_DATA_BLOCK", header, grammar.avro_data_content(
            3, encode_records(_rows("20250101000001000", [(1, "a"), (2, "bb"), (3, "cc")]), SCHEMA))),
        LogBlock.new("DELETE_BLOCK", header, grammar.delete_content(
            3, encode_delete_payload([DeleteRecord("3", "", 0)]))),
        LogBlock.new("COMMAND_BLOCK", {"INSTANT_TIME": "20250101000002000",
                                       "TARGET_INSTANT_TIME": "20250101000001500", "COMMAND_BLOCK_TYPE": "0"}),
    ]
    write_blocks(log, blocks)
    print(f"== wrote {log} ({log.stat().st_size} bytes)\n")
    print(_run(["inspect", str(log)]))
    print("== records and deletes")
    print(_run(["records", "--json", str(log)]))
    damaged = out / (log.name + ".damaged")
    data = log.read_bytes()
    first = next(open_log(log))
    # a writer that died mid-block: the second block cut short, then a new block appended after it
    damaged.write_bytes(data[: first.length + 40] + blocks[2].to_bytes())
    print(f"== validate {damaged.name} (a torn block in the middle)")
    print(_run(["validate", str(damaged)]))
    salvaged = out / (log.name + ".salvaged")
    print(_run(["salvage", str(damaged), "-o", str(salvaged)]))
    print(_run(["validate", str(salvaged)]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
