"""The merged log scanner on synthetic log files, one test per catalogue scenario.

Scenarios: ../shared/reference/behaviour_catalogue.md §4 (C9-C11) and §5 (S4-S18); rules:
format_facts.md §4.4. The files are written with the package's own writer; damaged spans are raw bytes
appended to a file. Rollback command blocks exist only for table version <= 6, so the rollback scenarios
scan as table version 6.

Where a scenario's timeline would already hide the rolled-back instant (table version < 8 skips blocks of
instants that are not completed), the test also scans with ``completed_instants=None`` so that the
rollback block alone has to do the work.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hudi_log import BlockType, LogBlock, open_log, write_blocks
from hudi_log.format.content.avro import encode_records
from hudi_log.format.content.deletes import DeleteRecord, OrderingKind, encode_delete_payload
from hudi_log.format.grammar import MAGIC, avro_data_content, delete_content
from hudi_log.table.read.scanner import COMMIT_TIME, EVENT_TIME, MergedLogScanner

PARTITION = "p1"
FILE_ID = "fg1"

_META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
         "_hoodie_file_name"]
SCHEMA = {
    "type": "record",
    "name": "test_record",
    "namespace": "hudi_log.test",
    "fields": [{"name": n, "type": ["null", "string"], "default": None} for n in _META] + [
        {"name": "key", "type": "string"},
        {"name": "ts", "type": "long"},
        {"name": "val", "type": "string"},
    ],
}
SCHEMA_JSON = json.dumps(SCHEMA)


# ---- building blocks ------------------------------------------------------------------------------

def key(i: int) -> str:
    return f"key{i:04d}"


def keys(r) -> set[str]:
    return {key(i) for i in r}


def make_records(instant: str, r, ts: int = 0) -> list[dict]:
    return [{
        "_hoodie_commit_time": instant,
        "_hoodie_commit_seqno": f"{instant}_0_{n}",
        "_hoodie_record_key": key(i),
        "_hoodie_partition_path": PARTITION,
        "_hoodie_file_name": FILE_ID,
        "key": key(i),
        "ts": ts,
        "val": f"{instant}:{i}",
    } for n, i in enumerate(r)]


def data_block(instant: str, r, ts: int = 0, target: str | None = None) -> LogBlock:
    header = {"INSTANT_TIME": instant, "SCHEMA": SCHEMA_JSON}
    if target is not None:
        header["TARGET_INSTANT_TIME"] = target
    content = avro_data_content(3, encode_records(make_records(instant, r, ts), SCHEMA))
    return LogBlock.new(BlockType.avro_data_block, header, content)


def delete_block(instant: str, r, ordering_value=0, kind: OrderingKind = OrderingKind.INT,
                 target: str | None = None) -> LogBlock:
    header = {"INSTANT_TIME": instant}
    if target is not None:
        header["TARGET_INSTANT_TIME"] = target
    payload = encode_delete_payload([DeleteRecord(key(i), PARTITION, ordering_value, kind) for i in r])
    return LogBlock.new(BlockType.delete_block, header, delete_content(3, payload))


def rollback_block(instant: str, target: str) -> LogBlock:
    return LogBlock.new(BlockType.command_block,
                        {"INSTANT_TIME": instant, "TARGET_INSTANT_TIME": target, "COMMAND_BLOCK_TYPE": "0"})


def header_bytes(header: dict) -> bytes:
    """The serialized header map alone (cut out of a command block with empty content and footer)."""
    raw = LogBlock.new(BlockType.command_block, header).to_bytes()
    # MAGIC(6) length(8) version(4) type(4) | header | content length(8) footer(4) reverse pointer(8)
    return raw[22:-20]


# MAGIC, a block length of 1000 (runs past the data actually written), format version 1, type AVRO
_AVRO_PREFIX = (MAGIC + (1000).to_bytes(8, "big") + (1).to_bytes(4, "big")
                + int(BlockType.avro_data_block).to_bytes(4, "big"))


def partial_block(instant: str) -> bytes:
    """C9/C10: MAGIC, length 1000, version, type AVRO, a real header, then 16 bytes of junk (file ends)."""
    return _AVRO_PREFIX + header_bytes({"INSTANT_TIME": instant, "SCHEMA": SCHEMA_JSON}) + b"0123456789abcdef"


def truncated_header() -> bytes:
    """C11: MAGIC, length 1000, version, type AVRO, then the int 100 — nothing else."""
    return _AVRO_PREFIX + (100).to_bytes(4, "big")


class Log:
    """A file group's log files in a temp dir (version n = ``.fg1_100.log.n_1-0-1``)."""

    def __init__(self, root: Path):
        self.root = root
        self.files: list[Path] = []

    def file(self, version: int) -> Path:
        p = self.root / f".{FILE_ID}_100.log.{version}_1-0-1"
        if p not in self.files:
            self.files.append(p)
            self.files.sort(key=lambda q: int(q.name.split(".log.")[1].split("_")[0]))
        return p

    def append(self, blocks, version: int = 1) -> None:
        write_blocks(self.file(version), blocks, append=True)

    def append_raw(self, raw: bytes, version: int = 1) -> None:
        with open(self.file(version), "ab") as f:
            f.write(raw)

    def scan(self, *, table_version: int = 6, completed=None, latest: str | None = None,
             merge_mode: str = EVENT_TIME, timeline_start: str | None = None) -> MergedLogScanner:
        sc = MergedLogScanner([str(p) for p in self.files], table_version=table_version,
                              ordering_fields=["ts"], merge_mode=merge_mode, latest_instant=latest,
                              completed_instants=None if completed is None else set(completed),
                              timeline_start=timeline_start)
        sc.scan()
        return sc


@pytest.fixture
def log(tmp_path: Path) -> Log:
    return Log(tmp_path)


def all_keys(sc: MergedLogScanner) -> set[str]:
    return set(sc.records)


def live_keys(sc: MergedLogScanner) -> set[str]:
    return {k for k, e in sc.records.items() if not e.is_delete}


def deleted_keys(sc: MergedLogScanner) -> set[str]:
    return {k for k, e in sc.records.items() if e.is_delete}


def block_kinds(path: Path) -> list[str]:
    return ["CORRUPT" if b.corrupt else b.block_type_name for b in open_log(path)]


# ---- §5 merged scanner scenarios -----------------------------------------------------------------

def test_s4_one_block_per_file(log: Log):
    """S4: two 100-record blocks @100, one per log file (size threshold rolled the file) => 200 keys."""
    log.append([data_block("100", range(0, 100))], version=1)
    log.append([data_block("100", range(100, 200))], version=2)
    sc = log.scan(completed={"100"}, latest="200")
    assert all_keys(sc) == live_keys(sc) == keys(range(200))
    assert sc.stats.files == 2 and sc.stats.blocks == 2 and sc.stats.records == 200
    assert sc.records[key(150)].record["val"] == "100:150"


@pytest.mark.parametrize("completed", [{"100", "102"}, None], ids=["timeline", "rollback-only"])
def test_s5_rollback_of_previous_instant(log: Log, completed):
    """S5: b@100, b@101, ROLLBACK(102 -> 101), b@102; commits 100, 102 => keys of 100 and 102."""
    log.append([data_block("100", range(0, 100)), data_block("101", range(100, 200)),
                rollback_block("102", "101"), data_block("102", range(200, 300))])
    sc = log.scan(completed=completed, latest="102")
    assert all_keys(sc) == live_keys(sc) == keys(range(0, 100)) | keys(range(200, 300))
    assert sc.stats.rollbacks == 1
    # as in Java, a block skipped as uncommitted is never queued, so with the timeline the rollback
    # finds nothing to remove and is reported as "invalid or extra"; without it, it removes b@101
    assert sc.stats.invalid_rollbacks == (["101"] if completed else [])


@pytest.mark.parametrize("completed_after", [{"100", "102", "103"}, None], ids=["timeline", "rollback-only"])
def test_s6_deletes_then_rollback_of_data_block(log: Log, completed_after):
    """S6: b@100, b@101, delete@102 (50 keys of b@100). Latest 102 => 200 keys, 50 deleted, 150 live.
    Then ROLLBACK(103 -> 101), deltacommit 101 removed, latest 103 => the 100 keys of b@100, 50 deleted."""
    log.append([data_block("100", range(0, 100)), data_block("101", range(100, 200)),
                delete_block("102", range(0, 50))])
    sc = log.scan(completed={"100", "101", "102"}, latest="102")
    assert all_keys(sc) == keys(range(200))
    assert deleted_keys(sc) == keys(range(0, 50))
    assert live_keys(sc) == keys(range(50, 200))

    log.append([rollback_block("103", "101")])
    sc = log.scan(completed=completed_after, latest="103")
    assert all_keys(sc) == keys(range(100))
    assert deleted_keys(sc) == keys(range(0, 50))
    assert live_keys(sc) == keys(range(50, 100))


def test_s6_old_variant_rollback_of_delete_block(log: Log):
    """S6 (old variant): rolling back the delete block itself restores all 200 live records."""
    log.append([data_block("100", range(0, 100)), data_block("101", range(100, 200)),
                delete_block("102", range(0, 50)), rollback_block("103", "102")])
    sc = log.scan(completed={"100", "101", "103"}, latest="103")
    assert all_keys(sc) == live_keys(sc) == keys(range(200))
    sc = log.scan(completed=None, latest="103")
    assert all_keys(sc) == live_keys(sc) == keys(range(200))


def test_s7_block_rewritten_after_its_rollback_counts(log: Log):
    """S7: b@100, b@101, delete@102 (50), ROLLBACK(103 -> 102), delete@102 written again
    => 200 keys, 50 deleted: a rollback only affects blocks read before it.

    Java (BaseHoodieLogRecordReader V1 scan) semantics. hudi-rs collects rollback targets globally and
    would drop the re-written delete too (200 live keys, no deletes); we follow Java."""
    log.append([data_block("100", range(0, 100)), data_block("101", range(100, 200)),
                delete_block("102", range(0, 50)), rollback_block("103", "102"),
                delete_block("102", range(0, 50))])
    sc = log.scan(completed={"100", "101", "102"}, latest="103")
    assert all_keys(sc) == keys(range(200))
    assert deleted_keys(sc) == keys(range(0, 50))
    assert live_keys(sc) == keys(range(50, 200))


def test_s8_delete_vs_data_ordering(log: Log):
    """S8: b@100, b@101 (ordering 0); delete@102 keys 0-9 with the default ordering, delete@103 keys 10-19
    with ordering -1, delete@104 keys 20-29 with ordering +1 => 200 keys, keys 0-9 and 20-29 deleted;
    10-19 stay alive (lower ordering loses; equal ordering => the later delete wins)."""
    log.append([data_block("100", range(0, 100), ts=0), data_block("101", range(100, 200), ts=0),
                delete_block("102", range(0, 10), 0, OrderingKind.INT),
                # Java's records and deletes here carry ordering values of one class; ts is long, so LongWrappers
                delete_block("103", range(10, 20), -1, OrderingKind.LONG),
                delete_block("104", range(20, 30), 1, OrderingKind.LONG)])
    sc = log.scan(completed={"100", "101", "102", "103", "104"}, latest="104")
    assert all_keys(sc) == keys(range(200))
    assert deleted_keys(sc) == keys(range(0, 10)) | keys(range(20, 30))
    assert sc.records[key(15)].record["val"] == "100:15"


def test_s8_default_ordering_null_kind_and_commit_time(log: Log):
    """S8 companions: a delete with no ordering value (NULL wrapper) is a processing-time delete and wins
    over a record with a higher ordering; a delete whose ordering value is of another Java class than the
    record's (IntWrapper against a long field) wins too (``isSameClass``). Table version 6 (Hudi 0.x's
    ``processNextDeletedRecord``) applies the rule whatever the merge mode; version 8 under
    COMMIT_TIME_ORDERING lets every later delete win."""
    log.append([data_block("100", range(0, 40), ts=5),
                delete_block("101", range(0, 10), None, OrderingKind.NULL),
                delete_block("102", range(10, 20), 1, OrderingKind.LONG),
                delete_block("103", range(20, 30), 5, OrderingKind.LONG),
                delete_block("104", range(30, 40), 1, OrderingKind.INT)])
    done = {"100", "101", "102", "103", "104"}
    for mode in (EVENT_TIME, COMMIT_TIME):
        sc = log.scan(completed=done, latest="104", merge_mode=mode)
        assert deleted_keys(sc) == keys(range(0, 10)) | keys(range(20, 40))
        assert live_keys(sc) == keys(range(10, 20))
    sc = log.scan(table_version=8, completed=done, latest="104", merge_mode=COMMIT_TIME)
    assert deleted_keys(sc) == keys(range(40)) and live_keys(sc) == set()


def test_s9_duplicate_rollback_blocks(log: Log):
    """S9: b@100 x2 + delete@100 (50), headers also carry target 100; commit 100; the same
    ROLLBACK(100 -> 100) appended twice (a retry) => 0 records; the extra rollback is harmless."""
    log.append([data_block("100", range(100), target="100"), data_block("100", range(100), target="100"),
                delete_block("100", range(50), target="100")])
    log.append([rollback_block("100", "100")])
    log.append([rollback_block("100", "100")])
    sc = log.scan(completed={"100"}, latest="100")
    assert sc.records == {}
    assert sc.stats.rollbacks == 2
    assert sc.stats.invalid_rollbacks == ["100"]  # the retry matched nothing


def test_s10_data_and_delete_of_one_commit_two_rollbacks(log: Log):
    """S10: b@100 + delete@100 (same instant), commit 100, two ROLLBACK -> 100 => 0 records
    (a rollback removes data and delete blocks of its target alike)."""
    log.append([data_block("100", range(100)), delete_block("100", range(50)),
                rollback_block("101", "100"), rollback_block("101", "100")])
    sc = log.scan(completed={"100"}, latest="101")
    assert sc.records == {}
    assert sc.stats.rollbacks == 2


def test_s11_rollback_of_instant_without_blocks(log: Log):
    """S11: b@100, ROLLBACK target 101 (an in-flight commit that never wrote here) => 100 records,
    reported as an invalid or extra rollback."""
    log.append([data_block("100", range(100)), rollback_block("102", "101")])
    sc = log.scan(completed={"100"}, latest="102")
    assert all_keys(sc) == live_keys(sc) == keys(range(100))
    assert sc.stats.invalid_rollbacks == ["101"]


def test_s12_one_rollback_removes_every_block_of_instant(log: Log):
    """S12: the same block x3 @100 (task retries) + delete@100, one ROLLBACK(101 -> 100) => 0 records."""
    log.append([data_block("100", range(100))] * 3 + [delete_block("100", range(50)), rollback_block("101", "100")])
    sc = log.scan(completed={"100"}, latest="101")
    assert sc.records == {}
    assert sc.stats.blocks == 5 and sc.stats.invalid_rollbacks == []


def test_s13_rolling_back_an_older_instant(log: Log):
    """S13: b@100 (100), b@101 (10) => 110; ROLLBACK target 100 (not the latest) => 10;
    ROLLBACK target 101 => 0."""
    log.append([data_block("100", range(100)), data_block("101", range(100, 110))])
    assert live_keys(log.scan(completed={"100", "101"}, latest="101")) == keys(range(110))
    log.append([rollback_block("102", "100")])
    sc = log.scan(completed={"100", "101"}, latest="102")
    assert all_keys(sc) == live_keys(sc) == keys(range(100, 110))
    log.append([rollback_block("103", "101")])
    assert log.scan(completed={"100", "101"}, latest="103").records == {}


def test_s15_uncommitted_blocks_skipped_before_v8(log: Log):
    """S15: table version 6; 4 files of records @100 (completed) + 2 files @150 (deltacommit inflight);
    latest 200 => only the 400 records of 100."""
    for v in range(1, 5):
        log.append([data_block("100", range((v - 1) * 100, v * 100))], version=v)
    log.append([data_block("150", range(0, 100), ts=9)], version=5)       # updates, uncommitted
    log.append([data_block("150", range(400, 500), ts=9)], version=6)     # inserts, uncommitted
    sc = log.scan(table_version=6, completed={"100"}, latest="200")
    assert all_keys(sc) == live_keys(sc) == keys(range(400))
    assert {e.record["_hoodie_commit_time"] for e in sc.records.values()} == {"100"}
    assert sc.stats.skipped_blocks == 2
    # an instant older than the active timeline's start is archived, so taken as committed
    sc = log.scan(table_version=6, completed={"200"}, latest="200", timeline_start="120")
    assert all_keys(sc) == keys(range(400))
    # v8+: the file-system view leaves out uncommitted files; the scanner does not filter by timeline
    sc = log.scan(table_version=8, completed={"100"}, latest="200")
    assert all_keys(sc) == keys(range(500))


def test_s15_blocks_newer_than_bound_skipped(log: Log):
    """S15 (any version): data and delete blocks newer than the latest instant are skipped."""
    log.append([data_block("100", range(100)), delete_block("101", range(10)), data_block("102", range(100, 110))])
    for tv in (6, 8):
        sc = log.scan(table_version=tv, completed={"100", "101", "102"}, latest="100")
        assert all_keys(sc) == live_keys(sc) == keys(range(100))


@pytest.mark.parametrize("n1,n2", [(77, 100), (100, 66), (100, 100)])
def test_s16_duplicate_data_from_task_retries(log: Log, n1, n2):
    """S16: log.1 holds N1 records, log.2 holds the first N2 of the same keys, same instant 100
    => max(N1, N2) merged records; the later file's copy wins."""
    log.append([data_block("100", range(n1))], version=1)
    log.append([data_block("100", range(n2))], version=2)
    sc = log.scan(completed={"100"}, latest="100")
    assert all_keys(sc) == live_keys(sc) == keys(range(max(n1, n2)))
    assert len(sc.records) == max(n1, n2)
    assert sc.stats.records == n1 + n2
    last = make_records("100", range(n2))[-1]
    assert sc.records[last["_hoodie_record_key"]].record == last


@pytest.mark.parametrize("completed", [{"100", "101"}, None], ids=["timeline", "rollback-only"])
def test_s18_rollback_newer_than_bound_still_applied(log: Log, completed):
    """S18 (HUDI-8248): a rollback command block whose own instant (103) is later than the scan bound (102)
    is still applied; only data and delete blocks are bounded."""
    log.append([data_block("100", range(100)), data_block("101", range(100, 200)), rollback_block("103", "101")])
    sc = log.scan(completed=completed, latest="102")
    assert all_keys(sc) == live_keys(sc) == keys(range(100))
    assert sc.stats.rollbacks == 1 and sc.stats.skipped_blocks == 0


# ---- §4 corruption scenarios through the scanner ---------------------------------------------------

def test_c9_scanner_ignores_partial_block(log: Log):
    """C9: block@100 (100) + a partial block whose header says 101 (MAGIC, length 1000, version, type, header,
    16-byte junk); block@103 by a new writer in the next log version. Commits 100, 103 => keys of 100 and 103."""
    log.append([data_block("100", range(100))], version=1)
    log.append_raw(partial_block("101"), version=1)
    log.append([data_block("103", range(100, 200))], version=2)
    assert block_kinds(log.files[0]) == ["AVRO_DATA_BLOCK", "CORRUPT"]
    for completed in ({"100", "103"}, None):
        sc = log.scan(completed=completed, latest="103")
        assert all_keys(sc) == live_keys(sc) == keys(range(200))
        assert sc.stats.corrupt_blocks == 1


def test_c9_partial_block_mid_file(log: Log):
    """C9 variant: the next writer appends to the same file after the partial block; the reader recovers at
    the next MAGIC and the scanner ignores the corrupt span."""
    log.append([data_block("100", range(100))])
    log.append_raw(partial_block("101"))
    log.append([data_block("103", range(100, 200))])
    assert block_kinds(log.files[0]) == ["AVRO_DATA_BLOCK", "CORRUPT", "AVRO_DATA_BLOCK"]
    sc = log.scan(completed={"100", "103"}, latest="103")
    assert all_keys(sc) == live_keys(sc) == keys(range(200))


@pytest.mark.parametrize("same_file", [True, False], ids=["same-file", "next-version"])
def test_c10_partial_block_then_rollback(log: Log, same_file):
    """C10: block@100; partial block @101; a new writer appends ROLLBACK(102 -> 101) and block@103
    => keys of 100 and 103 (the rollback also drops the queued corrupt block)."""
    log.append([data_block("100", range(100))])
    log.append_raw(partial_block("101"))
    log.append([rollback_block("102", "101"), data_block("103", range(100, 200))], version=1 if same_file else 2)
    sc = log.scan(completed={"100", "103"}, latest="103")
    assert all_keys(sc) == live_keys(sc) == keys(range(200))
    assert sc.stats.corrupt_blocks == 1 and sc.stats.rollbacks == 1
    assert sc.stats.invalid_rollbacks == []  # it removed the corrupt block


def test_c11_corrupts_and_rollback_of_all_data(log: Log):
    """C11: the same block x3 @100; two truncated headers; a new file with the block @100 again plus another
    truncated header; then ROLLBACK(101 -> 100) => 0 records."""
    log.append([data_block("100", range(100))] * 3)
    log.append_raw(truncated_header())
    log.append_raw(truncated_header())
    log.append([data_block("100", range(100))], version=2)
    log.append_raw(truncated_header(), version=2)
    log.append([rollback_block("101", "100")], version=2)
    assert block_kinds(log.files[0]) == ["AVRO_DATA_BLOCK"] * 3 + ["CORRUPT"] * 2
    assert block_kinds(log.files[1]) == ["AVRO_DATA_BLOCK", "CORRUPT", "COMMAND_BLOCK"]
    sc = log.scan(completed={"100"}, latest="101")
    assert sc.records == {}
    assert sc.stats.corrupt_blocks == 3 and sc.stats.rollbacks == 1
