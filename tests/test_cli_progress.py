"""Output that fits where it goes (issue 22, item 7), the parts beyond plain text: progress bars go to
stderr, and only when stderr is a terminal, for `read`, `write`, `compact` and `validate` of many files,
never into the answer on stdout; `read` writes rows as file slices arrive and stops reading at --limit."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from hudi_log.cli import main as cli
from hudi_log.cli import output, read_output

ESC = "\x1b["  # a terminal control sequence: the bar drawing itself


@pytest.fixture
def stderr_terminal(monkeypatch):
    """Make the CLI take stderr for a terminal (stdout stays a pipe, as in `hudi-log read T | head`)."""
    for module in (output, read_output):
        monkeypatch.setattr(module, "stderr_is_terminal", lambda: True)


def run(*args) -> "CliRunner":
    return CliRunner().invoke(cli, [str(a) for a in args])


def mor_table(tmp_path: Path, partitions: int = 1) -> Path:
    """A MERGE_ON_READ table with an insert and an update (so there is something to compact)."""
    src = tmp_path / "in.jsonl"
    table = tmp_path / "t"
    for fare in (1.0, 2.0):
        src.write_text("".join(json.dumps({"uuid": f"k{i}", "fare": fare, "part": f"p{i % partitions}"}) + "\n"
                               for i in range(3 * partitions)))
        r = run("write", table, "--input", src, "--record-key", "uuid", "--precombine", "fare",
                "--partition-field", "part", "--table-type", "MERGE_ON_READ")
        assert r.exit_code == 0, r.output
    return table


def test_bars_only_on_a_terminal_stderr(tmp_path, monkeypatch):
    table = mor_table(tmp_path)
    src = tmp_path / "in.jsonl"
    for args in (("write", table, "--input", src), ("read", table), ("compact", table)):
        r = run(*args)
        assert r.exit_code == 0, r.output
        assert r.stderr == "" and ESC not in r.stdout, (args, r.stderr)


def test_write_compact_read_show_a_bar_on_stderr(tmp_path, stderr_terminal):
    table = mor_table(tmp_path)
    r = run("write", table, "--input", tmp_path / "in.jsonl")
    assert r.exit_code == 0 and "writing 3 record(s)" in r.stderr and ESC in r.stderr, r.stderr
    assert ESC not in r.stdout and r.stdout.startswith("deltacommit ")
    r = run("compact", table)
    assert r.exit_code == 0 and "compacting" in r.stderr and ESC not in r.stdout, r.output
    assert r.stdout.startswith("compaction ")
    # piped rows: the bar on stderr, the rows on stdout untouched
    r = run("read", table, "--columns", "uuid,fare")
    assert r.exit_code == 0 and "reading file slices" in r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "uuid\tfare" and sorted(lines[1:]) == ["k0\t2", "k1\t2", "k2\t2"], lines


def test_validate_many_files_shows_a_bar(corpus_log_files, stderr_terminal):
    files = corpus_log_files[:12]
    r = run("validate", "--framing-only", *files)
    assert r.exit_code == 0, r.output
    assert "validating" in r.stderr and ESC in r.stderr and ESC not in r.stdout
    assert r.stdout.splitlines()[-1].startswith("OK: 12 file(s)")
    # a few files: no bar (it would only flicker)
    r = run("validate", "--framing-only", *files[:2])
    assert r.exit_code == 0 and r.stderr == ""


def test_read_writes_rows_before_the_last_slice_is_read(capsys):
    """Streaming: each slice's rows are out before the next slice is asked for."""
    seen_before = []

    def parts():
        for n in range(3):
            seen_before.append(capsys.readouterr().out.count("\n"))
            yield pa.table({"k": [f"{n}-{i}" for i in range(4)]})

    rows = read_output.stream_table(pa.schema([("k", pa.string())]), parts(), 3, "jsonl", None, None)
    assert rows == 12 and seen_before == [0, 4, 4]


def test_read_limit_stops_reading(tmp_path, monkeypatch):
    """--limit: the reader is closed at the limit, so the slices after it are never read."""
    import hudi_log.table.read.query as query

    table = mor_table(tmp_path, partitions=6)
    read = []
    real = query.read_slice

    def counting(context, task, *a, **k):
        read.append(task)
        return real(context, task, *a, **k)

    monkeypatch.setattr(query, "read_slice", counting)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)  # one slice at a time: nothing read ahead
    r = run("read", table, "--format", "jsonl", "--limit", "2")
    assert r.exit_code == 0, r.output
    assert len(r.stdout.splitlines()) == 2 and len(read) == 1
    read.clear()
    r = run("read", table, "--format", "jsonl")
    assert len(r.stdout.splitlines()) == 18 and len(read) == 6
