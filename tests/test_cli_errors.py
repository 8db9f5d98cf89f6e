"""Every `hudi-log` command against a list of bad inputs (issue 22, item 6): each answer is one line on
stderr naming the file or table, the exit code the convention gives (2: usage or input error), and never
a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from hudi_log.cli import main as cli

INSTANT = "20250101120000000"


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bad")
    p = {"root": root, "missing": root / "missing", "empty_dir": root / "empty", "garbage": root / "garbage.bin",
         "not_table": root / "not_table", "bad_props": root / "bad_props", "jsonl": root / "rows.jsonl",
         "not_json": root / "not_json.jsonl", "schema": root / "schema.avsc", "log_dir": root / "logs"}
    p["empty_dir"].mkdir()
    p["fifo"] = root / "fifo"
    os.mkfifo(p["fifo"])  # an output that is not a regular file: the rename onto it would replace it
    p["not_table"].mkdir()
    p["garbage"].write_bytes(os.urandom(64).replace(b"#", b"x"))
    (p["bad_props"] / ".hoodie").mkdir(parents=True)
    (p["bad_props"] / ".hoodie" / "hoodie.properties").write_bytes(b"\x00\xff garbage")
    p["jsonl"].write_text(json.dumps({"uuid": "a", "fare": 1.0}) + "\n")
    p["not_json"].write_text("{not json\n")
    p["schema"].write_text(json.dumps({"type": "record", "name": "r", "fields": [
        {"name": "uuid", "type": "string"}, {"name": "fare", "type": "double"}]}))
    p["log_dir"].mkdir()
    p["log"] = p["log_dir"] / f".f1-0_{INSTANT}.log.1_0-0-0"
    r = CliRunner().invoke(cli, ["write-block", str(p["jsonl"]), "--schema", str(p["schema"]), "--instant", INSTANT,
                                 "--record-key", "uuid", "--log-file", str(p["log"])])
    assert r.exit_code == 0, r.output
    p["table"] = root / "table"
    r = CliRunner().invoke(cli, ["write", str(p["table"]), "--input", str(p["jsonl"]), "--record-key", "uuid",
                                 "--precombine", "fare", "--table-type", "MERGE_ON_READ"])
    assert r.exit_code == 0, r.output
    return p


#: (command line with {placeholders}, exit code, fragments the one-line message must hold)
CASES = [
    # log-file commands: missing files, folders, garbage, bad options
    ("inspect {missing}", 2, ["{missing}", "no such file"]),
    ("inspect {empty_dir}", 2, ["{empty_dir}", "no log files"]),
    ("inspect {garbage}", 2, ["{garbage}", "not a Hudi log file"]),
    ("inspect --bogus {log}", 2, ["--bogus", "--help"]),
    ("inspect", 2, ["FILES"]),
    ("records {missing}", 2, ["{missing}"]),
    ("records {garbage}", 2, ["{garbage}", "not a Hudi log file"]),
    ("records --limit -1 {log}", 2, ["--limit", "-1"]),
    ("records --limit x {log}", 2, ["--limit"]),
    ("validate --framing-only --bogus {log}", 2, ["--bogus"]),
    ("salvage {missing} -o {root}/out.log", 2, ["{missing}", "no such file"]),
    ("salvage {log_dir} -o {root}/out.log", 2, ["{log_dir}", "folder"]),
    ("salvage {garbage} -o {root}/out.log", 2, ["{garbage}", "not a Hudi log file"]),
    ("salvage {log} -o {root}/nonexistent/dir/out", 2, ["{root}/nonexistent/dir/out", "does not exist"]),
    ("salvage {log} -o {empty_dir}", 2, ["{empty_dir}", "folder"]),
    ("salvage {log} -o {log}", 2, ["must not be the input"]),
    ("salvage {log} -o {fifo}", 2, ["{fifo}", "not a regular file"]),
    ("salvage {log}", 2, ["-o"]),
    # write-block: bad instants, versions, paths
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant notatime --log-file {root}/x/.f_1.log.1_0-0-0",
     2, ["notatime", "--instant"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --table-version 7 "
     "--log-file {log}", 2, ["--table-version", "7"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --log-file {log_dir}",
     2, ["{log_dir}", "is a directory"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --log-file {root}/bad.log",
     2, ["bad.log", "not a log file name"]),
    ("write-block {jsonl} --schema {not_json} --record-key uuid --instant " + INSTANT + " --log-file {log}",
     2, ["{not_json}", "not JSON"]),
    ("write-block {missing} --schema {schema} --instant " + INSTANT + " --log-file {log}", 2, ["{missing}"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --log-file {log} "
     "--log-file-max-size -1", 2, ["--log-file-max-size", "-1"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --log-file {log} "
     "--max-block-size 0", 2, ["--max-block-size", "0"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --log-file {log} "
     "--task-partition-id -1", 2, ["--task-partition-id", "-1"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --table {not_table} "
     "--file-id f1", 2, ["{not_table}", "not a Hudi table", "--force"]),
    ("write-block {jsonl} --schema {schema} --record-key uuid --instant " + INSTANT + " --table {table} "
     "--file-id nope", 2, ["{table}", "not pending", "--force"]),
    # table commands
    ("table {missing}", 2, ["{missing}"]),
    ("table {not_table}", 2, ["{not_table}", "not a Hudi table"]),
    ("table {bad_props}", 2, ["{bad_props}"]),
    ("table {garbage}", 2, ["{garbage}"]),
    ("read {missing}", 2, ["{missing}"]),
    ("read {not_table}", 2, ["{not_table}", "not a Hudi table"]),
    ("read {table} --format parquet", 2, ["-o"]),
    ("read {table} --format parquet -o {empty_dir}", 2, ["{empty_dir}", "folder"]),
    ("read {table} --format jsonl -o {root}/nonexistent/dir/out", 2, ["does not exist"]),
    ("read {table} --format jsonl -o {fifo}", 2, ["{fifo}", "not a regular file"]),
    ("read {table} --limit -1", 2, ["--limit"]),
    ("read {table} --columns nope", 2, ["{table}", "unknown columns: nope"]),
    ("read {table} --columns ,", 2, ["--columns", "at least one column"]),
    ("read {table} --columns=", 2, ["--columns", "at least one column"]),
    ("write {root}/w --input {missing}", 2, ["{missing}"]),
    ("write {root}/w2 --input {not_json} --record-key uuid", 2, ["{not_json}", "not JSON"]),
    ("write {table} --input {jsonl} --option novalue", 2, ["novalue", "KEY=VALUE"]),
    ("write {table} --input {jsonl} --option =x", 2, ["=x", "no key", "KEY=VALUE"]),
    ("write {garbage} --input {jsonl}", 2, ["{garbage}"]),
    # services
    ("compact {missing}", 2, ["{missing}"]),
    ("compact {not_table}", 2, ["{not_table}"]),
    ("clean {not_table} --retain-commits 1", 2, ["{not_table}"]),
    ("clean {table} --retain-commits 0", 2, ["--retain-commits"]),
    ("rollback {not_table} " + INSTANT, 2, ["{not_table}"]),
    ("rollback {table} 20990101000000000", 2, ["20990101000000000"]),
    ("no-such-command", 2, ["no-such-command"]),
]


@pytest.mark.parametrize("line, code, fragments", CASES, ids=[c[0].split()[0] + ":" + str(i) for i, c in enumerate(CASES)])
def test_bad_input(places, line, code, fragments):
    fill = {k: str(v) for k, v in places.items()}
    args = [a.format(**fill) for a in line.split()]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == code, (args, r.exit_code, r.output)
    assert "Traceback" not in r.output and (r.exception is None or isinstance(r.exception, SystemExit)), r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hudi-log: "), (args, r.stderr)
    for f in fragments:
        assert f.format(**fill) in lines[0], (f, lines[0])


def test_validate_keeps_its_own_contract(places):
    """validate: 0 intact, 1 damaged, 2 unreadable, with a report line per file and a summary line."""
    r = CliRunner().invoke(cli, ["validate", str(places["log"])])
    assert r.exit_code == 0 and r.stdout.splitlines()[-1].startswith("OK: 1 file(s)")
    for bad in ("missing", "garbage", "empty_dir"):
        r = CliRunner().invoke(cli, ["validate", str(places["log"]), str(places[bad])])
        assert r.exit_code == 2, r.output
        assert f"{places[bad]}: UNREADABLE" in r.stdout and "Traceback" not in r.output
        assert r.stdout.splitlines()[-1].startswith("UNREADABLE: 2 file(s): 1 intact, 0 damaged, 1 unreadable")
    assert "0 all" not in (h := CliRunner().invoke(cli, ["validate", "--help"]).stdout) and "1 some block" in h


def test_exit_code_for_failures_in_the_middle():
    """The mapping by base class: storage and concurrency failures are 3, bad input 2."""
    from hudi_log.cli.output import exit_code_for
    from hudi_log.errors import NotALogFileError
    from hudi_log.log.storage import StorageError
    from hudi_log.table.errors import ConcurrencyConfigError, ConcurrentWriterError, WriteConflictError

    assert exit_code_for(StorageError("disk full")) == 3
    assert exit_code_for(WriteConflictError("t", "conflict")) == 3
    assert exit_code_for(ConcurrencyConfigError("t", "bad lock option")) == 2
    assert exit_code_for(ConcurrentWriterError("t", "instant 1 is held by a live writer")) == 2
    assert exit_code_for(NotALogFileError("f", 0, "magic", "no")) == 2
    assert exit_code_for(FileNotFoundError(2, "No such file", "f")) == 2
    assert exit_code_for(OSError(5, "I/O error")) == 3


def test_refused_outputs_stay_what_they_were(places):
    """After the cases above: the FIFO they were refused to write is still a FIFO (a temporary file
    renamed onto it would have replaced it, as it once replaced /dev/full)."""
    import stat

    assert stat.S_ISFIFO(os.stat(places["fifo"]).st_mode)
