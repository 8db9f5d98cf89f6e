"""`hudi-log` on log files, driven through the CLI (issue 22): deep validation (content and header values),
salvage of content damage and of a damaged first magic, records reporting what it skips, files/folders/
globs with a summary line, write-block's instant and table checks, and output that fits a pipe."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hudi_log.cli import main as cli
from hudi_log.format.reader import open_log
from hudi_log.format.validate import validate_log_file

INSTANT = "20250101120000000"
FILE_ID = "5d3a6f0e-1111-2222-3333-444455556666-0"
SCHEMA = {"type": "record", "name": "trip", "fields": [
    {"name": "uuid", "type": "string"}, {"name": "fare", "type": "double"}, {"name": "rider", "type": "string"}]}


def run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line_error(r, code: int, *fragments: str) -> None:
    """The convention: exit code, exactly one `hudi-log:` line on stderr naming what is wrong, no traceback."""
    assert r.exit_code == code, (r.exit_code, r.output)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hudi-log: "), r.stderr
    assert "Traceback" not in r.output and not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit)
    for f in fragments:
        assert f in lines[0], (f, lines[0])


def make_log(folder: Path, blocks: int = 3, rows: int = 4, name: str | None = None) -> Path:
    """A log file of ``blocks`` Avro data blocks written through write-block."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "schema.avsc").write_text(json.dumps(SCHEMA))
    log = folder / (name or f".{FILE_ID}_{INSTANT}.log.1_0-0-0")
    for b in range(blocks):
        src = folder / f"in{b}.jsonl"
        src.write_text("".join(json.dumps({"uuid": f"u{b}-{i}", "fare": i + 0.5, "rider": f"rider-{i}"}) + "\n"
                               for i in range(rows)))
        r = run("write-block", src, "--schema", folder / "schema.avsc", "--instant", INSTANT, "--record-key", "uuid",
                "--log-file", log)
        assert r.exit_code == 0, r.output
    return log


def overwrite(path: Path, at: int, data: bytes) -> None:
    raw = bytearray(path.read_bytes())
    raw[at:at + len(data)] = data
    path.write_bytes(bytes(raw))


def content_damaged(tmp_path: Path) -> tuple[Path, int]:
    """A copy with 40 bytes overwritten inside block 1's content (its framing intact); (file, block offset)."""
    log = make_log(tmp_path / "d")
    b = list(open_log(log))[1]
    overwrite(log, b.content_offset + b.content_length // 2 - 20, b"\xff" * 40)
    return log, b.offset


# ---- validate: deep by default ------------------------------------------------------------------

def test_validate_decodes_content_and_framing_only_does_not(tmp_path):
    log, offset = content_damaged(tmp_path)
    assert all(not b.corrupt for b in open_log(log))  # the framing is intact
    r = run("validate", log)
    assert r.exit_code == 1, r.output
    assert f"block (AVRO_DATA_BLOCK) 1 at offset {offset}" in r.stdout and ": content: " in r.stdout
    assert r.stdout.splitlines()[-1].startswith("DAMAGED: 1 file(s): 0 intact, 1 damaged, 0 unreadable")
    out = json.loads(run("validate", "--json", log).stdout)
    [d] = out["files"][0]["damage"]
    assert (d["index"], d["offset"], d["rule"], d["block_type"]) == (1, offset, "content", "AVRO_DATA_BLOCK")
    assert d["detail"] and out["summary"]["damaged"] == 1
    r = run("validate", "--framing-only", log)
    assert r.exit_code == 0 and "framing only" in r.stdout.splitlines()[-1]


@pytest.mark.parametrize("what, fragment", [
    ("schema", "header.SCHEMA"), ("instant", "header.INSTANT_TIME")])
def test_validate_header_values(tmp_path, what, fragment):
    log = make_log(tmp_path / what, blocks=2)
    raw = log.read_bytes()
    if what == "schema":
        at = raw.index(b'"fields"', raw.index(b"#HUDI#", 1))  # the second block's SCHEMA
        overwrite(log, at, b"\x00{{{{")
    else:
        at = raw.index(INSTANT.encode(), raw.index(b"#HUDI#", 1))
        overwrite(log, at, b"notatime")
    r = run("validate", "--json", log)
    assert r.exit_code == 1
    [d] = json.loads(r.stdout)["files"][0]["damage"]
    assert d["index"] == 1 and d["rule"] == "header-value" and d["field"] == fragment, d


def test_validate_every_corpus_log_file_is_intact(corpus_log_files):
    bad = [r.to_dict() for r in map(validate_log_file, map(str, corpus_log_files)) if r.state != "OK"]
    assert not bad and len(corpus_log_files) > 200


def test_validate_a_table_folder_includes_the_metadata_table(corpus_tables):
    root = corpus_tables["quickstart_trips_table_mor_avro_v8_trips_8i3u1d"]
    expected = sorted(str(Path(d) / n) for d, _, ns in os.walk(root) for n in ns if ".log." in n)
    assert any("/.hoodie/metadata/" in p for p in expected)
    out = json.loads(run("validate", "--json", root).stdout)
    assert sorted(f["path"] for f in out["files"]) == expected and out["ok"]
    assert out["summary"]["files"] == len(expected)
    r = run("validate", root)
    assert r.exit_code == 0 and r.stdout.splitlines()[-1].startswith(f"OK: {len(expected)} file(s)")
    # a glob ('**' crosses hidden folders) names the same files
    r = run("validate", "--json", f"{root}/**/.*.log.*")
    assert sorted(f["path"] for f in json.loads(r.stdout)["files"]) == expected


# ---- salvage ----------------------------------------------------------------------------------

def test_salvage_drops_content_damage_and_says_so(tmp_path):
    log, offset = content_damaged(tmp_path)
    blocks = list(open_log(log))
    raw = log.read_bytes()
    out = tmp_path / "out.log"
    r = run("salvage", log, "-o", out)
    assert r.exit_code == 0, r.output
    assert f"dropped block 1 (AVRO_DATA_BLOCK), content does not decode: at offset {offset}" in r.stderr
    assert "kept 2 intact block(s), dropped 1 damaged" in r.stdout
    keep = [b for b in blocks if b.offset != offset]
    assert out.read_bytes() == b"".join(raw[b.offset:b.offset + b.length] for b in keep)
    assert run("validate", out).exit_code == 0


def test_salvage_output_through_a_symlink_with_the_usual_mode(tmp_path):
    """The output is written under a temporary name and renamed: through a symlink the target is
    written (the link stays), with the mode a new file gets (not the temporary file's private 0600)."""
    log = make_log(tmp_path / "in", blocks=1)
    link = tmp_path / "link.log"
    link.symlink_to(tmp_path / "target.log")
    old = os.umask(0o022)
    try:
        r = run("salvage", log, "-o", link)
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and (tmp_path / "target.log").read_bytes() == log.read_bytes()
    assert (tmp_path / "target.log").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".salvage-")] == []


def test_salvage_recovers_blocks_behind_a_damaged_first_magic(tmp_path):
    log = make_log(tmp_path / "m")
    blocks = list(open_log(log))
    raw = log.read_bytes()
    overwrite(log, 0, b"#HUXI#")
    assert run("inspect", log).exit_code == 0  # shown, with the damaged span first
    r = run("validate", "--json", log)
    assert r.exit_code == 1 and json.loads(r.stdout)["files"][0]["damage"][0]["rule"] == "bad-first-magic"
    out = tmp_path / "out.log"
    r = run("salvage", log, "-o", out)
    assert r.exit_code == 0 and "kept 2 intact block(s)" in r.stdout, r.output
    assert out.read_bytes() == raw[blocks[1].offset:]
    # no magic at all, or no intact block after the bad start: not a log file, nothing written
    junk = tmp_path / "junk"
    junk.write_bytes(b"x" * 100 + b"#HUDI#" + b"\x00" * 3)
    one_line_error(run("salvage", junk, "-o", tmp_path / "j.out"), 2, str(junk), "not a Hudi log file")
    assert not (tmp_path / "j.out").exists()


def test_validate_refuses_what_only_the_columnar_decoder_accepts(tmp_path):
    """Damage the columnar decoder reads past: a union branch index out of range (polars takes any index
    but null's for the value; Java's GenericDatumReader and fastavro fail) and a damaged content version
    (polars does not read it). validate, records and salvage all call such a block damaged."""
    for name, where, value in (("union", 8 + 4, b"\x06"), ("version", 0, b"\x80")):
        log = make_log(tmp_path / name, blocks=2)
        b = list(open_log(log))[1]
        if name == "union":
            # the first datum opens with _hoodie_commit_time's union index: 0x02 (branch 1, string)
            assert log.read_bytes()[b.content_offset + where] == 0x02
        overwrite(log, b.content_offset + where, value)
        if name == "union":  # polars reads past it (what made validate say OK before); the compiled decoder refuses
            from hudi_log.format.content.avro_columnar import decode_block_content

            assert decode_block_content(b.content(), b.schema, compiled=False).num_rows == 4
        r = run("validate", log)
        assert r.exit_code == 1 and f"block (AVRO_DATA_BLOCK) 1 at offset {b.offset}" in r.stdout, (name, r.output)
        r = run("records", log)
        assert r.exit_code == 2 and f"skipped block 1 at offset {b.offset}" in r.stderr, (name, r.output)
        r = run("salvage", log, "-o", tmp_path / f"{name}.out")
        assert r.exit_code == 0 and "kept 1 intact block(s), dropped 1 damaged" in r.stdout, (name, r.output)


def test_validate_prints_no_panic_text(tmp_path):
    """A string length running past its datum makes polars panic; its Rust panic hook writes a message and
    a backtrace straight to file descriptor 2. validate keeps that off stderr (one process, real fds)."""
    import subprocess
    import sys

    log = make_log(tmp_path / "p", blocks=1, rows=1)
    raw = log.read_bytes()
    at = raw.rindex(b"\x08u0-0")  # the uuid's length (4, zigzag 8) in the only datum
    overwrite(log, at, b"\x7e")  # 63 bytes: past the end of the datum
    r = subprocess.run([sys.executable, "-m", "hudi_log.cli", "validate", str(log)], capture_output=True, text=True,
                       env={**os.environ, "RUST_BACKTRACE": "1"})
    assert r.returncode == 1 and "DAMAGED" in r.stdout, r.stdout + r.stderr
    assert r.stderr == "", r.stderr[:500]


def test_records_checks_header_values_and_parquet_pages(corpus_dir, tmp_path):
    """Blocks whose rows would decode without their header (delete keys, Parquet) are still damaged when a
    header value is (validate says so); a Parquet page whose CRC fails is damaged, not a wrong value."""
    [deletes] = (corpus_dir / "log_files" / "valid_log_delete").glob(".*.log.*")
    log = tmp_path / deletes.name
    log.write_bytes(deletes.read_bytes().replace(b'{"type"', b'{"tyqe"', 1))
    assert run("validate", log).exit_code == 1
    r = run("records", log)
    assert r.exit_code == 2 and "DELETE_BLOCK header value does not decode: header.SCHEMA" in r.stderr, r.output
    [parquet] = (corpus_dir / "log_files" / "valid_log_parquet_data").glob(".*.log.*")
    log = tmp_path / parquet.name
    raw = bytearray(parquet.read_bytes())
    raw[1029] ^= 1  # inside the first data page
    log.write_bytes(bytes(raw))
    assert run("validate", log).exit_code == 1
    r = run("records", log)
    assert r.exit_code == 2 and "CRC checksum verification failed" in r.stderr and r.stdout.count("\n") <= 1, r.output


# ---- records ------------------------------------------------------------------------------------

def test_records_reports_skipped_blocks_and_exits_non_zero(tmp_path):
    log, offset = content_damaged(tmp_path)
    r = run("records", "--json", log)
    assert r.exit_code == 2
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(rows) == 8  # blocks 0 and 2
    assert f"skipped block 1 at offset {offset}" in r.stderr and "--skip-damaged" in r.stderr.splitlines()[-1]
    r = run("records", "--json", "--skip-damaged", log)
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 8 and f"skipped block 1 at offset {offset}" in r.stderr


def test_records_limit(tmp_path):
    log = make_log(tmp_path / "l")
    one_line_error(run("records", "--limit", "-1", log), 2, "--limit")
    assert run("records", "--limit", "0", log).stdout == ""
    r = run("records", "--json", "--limit", "5", log)
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 5


def test_inspect_and_records_show_the_good_files_and_report_the_bad(tmp_path):
    good = make_log(tmp_path / "g")
    bad = tmp_path / "garbage.log"
    bad.write_bytes(b"not a log file at all")
    r = run("inspect", "--json", good, bad)
    assert r.exit_code == 2
    out = json.loads(r.stdout)
    assert [f["path"] for f in out["files"]] == [str(good)] and len(out["files"][0]["blocks"]) == 3
    assert str(bad) in r.stderr and out["summary"]["unreadable"] == 1
    r = run("records", "--json", bad, good)
    assert r.exit_code == 2 and len(r.stdout.splitlines()) == 12 and str(bad) in r.stderr
    r = run("inspect", good, bad)
    assert r.exit_code == 2 and r.stdout.splitlines()[-1] == "1 file(s), 3 block(s), 0 damaged span(s); 1 unreadable"


# ---- output that fits where it goes ------------------------------------------------------------

def test_piped_output_is_plain_and_whole(tmp_path):
    log = make_log(tmp_path / "p", name=f".{'f' * 60}-0_{INSTANT}.log.1_0-0-0")
    r = run("inspect", log)
    lines = r.stdout.splitlines()
    assert lines[0].split("\t")[:3] == ["File", "Block", "Offset"]
    cells = lines[1].split("\t")
    assert cells[0] == str(log)  # the whole path, however long
    header = json.loads(cells[7])
    assert header["SCHEMA"].startswith("<record trip, 8 fields, ")  # Hudi's 5 meta fields + 3
    assert "…" not in r.stdout
    r = run("records", log)
    assert r.stdout.splitlines()[0] == "File\tBlock\tInstantTime\tKind\tRecord" and len(r.stdout.splitlines()) == 13


# ---- write-block --------------------------------------------------------------------------------

def _v_table(tmp_path: Path, version: str) -> Path:
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps({"uuid": f"u{i}", "fare": 1.5, "rider": "r"}) + "\n" for i in range(3)))
    root = tmp_path / f"t{version}"
    r = run("write", root, "--input", src, "--table-type", "MERGE_ON_READ", "--table-version", version,
            "--record-key", "uuid", "--precombine", "fare")
    assert r.exit_code == 0, r.output
    return root


def _requested(root: Path, instant: str) -> None:
    hoodie = root / ".hoodie"
    folder = hoodie / "timeline" if (hoodie / "timeline").is_dir() else hoodie
    (folder / f"{instant}.deltacommit.requested").write_bytes(b"")


@pytest.mark.parametrize("version", ["6", "8", "9"])
def test_write_block_into_a_table_needs_a_pending_instant(tmp_path, version):
    root = _v_table(tmp_path, version)
    (tmp_path / "schema.avsc").write_text(json.dumps(SCHEMA))
    src = tmp_path / "rows.jsonl"
    args = ["write-block", src, "--schema", tmp_path / "schema.avsc", "--record-key", "uuid", "--table", root,
            "--file-id", "nope"]
    one_line_error(run(*args, "--instant", INSTANT), 2, str(root), f"instant {INSTANT} is not on the timeline",
                   "--force")
    assert not list(root.rglob(".nope_*"))
    one_line_error(run(*args, "--instant", "notatime"), 2, "notatime", "--instant")
    other = "8" if version == "6" else "6"
    _requested(root, INSTANT)
    one_line_error(run(*args, "--instant", INSTANT, "--table-version", other), 2,
                   f"the table is version {version}, not --table-version {other}")
    r = run(*args, "--instant", INSTANT, "--json")  # pending: written, with the table's version
    assert r.exit_code == 0, r.output
    [path] = json.loads(r.stdout)["files"]
    assert Path(path).name.startswith(f".nope_{INSTANT}.log.")
    later = "20250101120000999"
    r = run(*args, "--instant", later, "--force")
    assert r.exit_code == 0, r.output


def test_write_block_table_version_choices(tmp_path):
    log = tmp_path / f".{FILE_ID}_{INSTANT}.log.1_0-0-0"
    (tmp_path / "schema.avsc").write_text(json.dumps(SCHEMA))
    (tmp_path / "d.txt").write_text("k1\n")
    r = run("write-block", "--deletes", tmp_path / "d.txt", "--schema", tmp_path / "schema.avsc", "--instant",
            INSTANT, "--log-file", log, "--table-version", "7")
    one_line_error(r, 2, "--table-version")
    assert not log.exists()
