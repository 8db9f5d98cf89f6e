"""Damaged tables: a small MERGE_ON_READ table written once, then per input a copy with one file damaged
(a log file, a base Parquet file, a timeline file or hoodie.properties), read with ``read_table``.

The property: ``read_table`` returns a table or raises a HudiLogError; nothing else escapes. (Whether a
damaged committed file is a warning or, strict, an error is the table layer's rule, held by its tests;
the fuzzer only asks that every failure is typed.)
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from hudi_log import HudiLogError

from .content import mutate_bytes
from .harness import Chooser


def _opts(version: int) -> dict:
    return {
        "hoodie.table.name": "fuzz",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.write.table.version": version,
        "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        # the data tables every recorded finding replays on, as they were before writes kept a metadata table
        # (its HFiles are fuzzed through the HFile decode paths)
        "hoodie.metadata.enable": "false",
    }


def build_tables(root: str) -> list[Path]:
    """Two small MERGE_ON_READ tables (versions 6 and 8): inserts, upserts (log files) and deletes."""
    import pyarrow as pa

    from hudi_log import write_table

    out = []
    for version in (6, 8):
        path = Path(root) / f"mor_v{version}"
        o = _opts(version)
        write_table(str(path), pa.table({"id": [1, 2, 3, 4], "name": ["a", "b", "c", "d"], "ts": [1, 1, 1, 1],
                                         "region": ["eu", "us", "eu", "us"]}), "insert", o)
        write_table(str(path), pa.table({"id": [2, 3], "name": ["bb", "cc"], "ts": [2, 2], "region": ["us", "eu"]}),
                    "upsert", o)
        write_table(str(path), pa.table({"id": [4], "name": ["d"], "ts": [3], "region": ["us"]}), "delete", o)
        out.append(path)
    return out


@dataclass
class TableMutant:
    table: Path  # the damaged copy
    file: str
    ops: list[str]


def _files(table: Path) -> list[Path]:
    out = []
    for dirpath, _dirs, names in os.walk(table):
        out += [Path(dirpath) / n for n in names if not n.endswith(".crc")]
    return sorted(out)


def mutate_table(ch: Chooser, tables: list[Path], scratch: str) -> TableMutant:
    src = tables[ch.int(0, len(tables) - 1)]
    dest = Path(scratch) / "t"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest)
    files = _files(dest)
    # aim at what readers decode: log files, base files, completed instants, hoodie.properties
    weighted = [f for f in files if ".log." in f.name or f.suffix == ".parquet"] * 2 + files
    f = weighted[ch.int(0, len(weighted) - 1)]
    data = f.read_bytes()
    if ch.int(0, 9) == 0:
        new, ops = b"", ["emptied"]
    else:
        new, ops = mutate_bytes(ch, data, [0, 4, 8, len(data) - 8, len(data) - 4, len(data) // 2])
    f.write_bytes(new)
    return TableMutant(dest, str(f.relative_to(dest)), ops)


def check_table(m: TableMutant) -> list[str]:
    from hudi_log import read_table

    failures = []
    for kw in ({}, {"strict": True}):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read_table(str(m.table), **kw)
        except HudiLogError:
            pass
        except Exception as e:  # noqa: BLE001 - that is the finding
            failures.append(f"read_table({kw}) with {m.file} damaged raised {type(e).__name__}: {str(e)[:200]}")
    return failures


def scratch_dir() -> str:
    return tempfile.mkdtemp(prefix="hudi-log-fuzz-table-")
