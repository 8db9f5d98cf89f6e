"""Every ```python and ```bash block of README.md and docs/*.md runs as written (issue 39, deliverable 7).

The blocks are read from the documents themselves, so a snippet changed or added there is run (or this
test fails until it is listed below). What a snippet assumes is prepared, never edited into it:

* A temp working folder (``prepare``) holds what the snippets name: ``trips.parquet``, the MERGE_ON_READ
  tables ``lake/trips`` (trips, partitioned by city, with log files) and ``data/events`` (events, change
  data capture on), JSON files arriving in ``landing/events``, and a bucket ``lake`` on the repo's moto S3
  server (tools/s3server.py) holding ``trips`` and the log file the README validates there.
* ``STAND_INS``: a snippet's absolute example folders (``/data``, ``/lake``, ``/landing``,
  ``/checkpoints``) are the same folders inside the working folder (a test cannot write to ``/`` on a
  shared machine), and ``http://minio:9000`` (the snippets' own fs.s3a.endpoint) is the moto server; the
  AWS_* environment points at it too.
* ``PRELUDES``: variables a Python snippet uses without defining them (``path``, ``spark``, ``df``,
  ``events``, ...), keyed by document and a substring of the block; ``EPILOGUES``: what runs after one
  (a started stream is drained and stopped).
* Bash: every command (continuation lines joined, ``&&`` split, comments dropped) that starts with
  ``hudi-log``, ``.venv/bin/hudi-log`` or ``.venv/bin/python -m hudi_log...`` (or ``-m tools...``) runs,
  and must exit 0; ``SYNOPSES`` are usage blocks with placeholders, whose every option is checked against
  the command's ``--help``; anything else must be in ``SKIPPED`` with its reason.

Spark snippets (the Python blocks using Spark, the pipeline and the demo) run in one slow test, the
Python ones in one subprocess with one local[2] SparkSession; the rest are fast.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
BIN = Path(sys.executable).parent  # the tests run with the venv's python; hudi-log is beside it

#: languages whose blocks run; untagged blocks are diagrams, profiles and sample output
RUN_LANGS = {"python", "bash"}

#: commands that cannot run here, by document and a substring of the command, with the reason
SKIPPED = {
    ("README.md", "bash tools/setup.sh"): "makes the .venv this test runs in (tests/test_setup.py checks it)",
    ("README.md", '-m pytest -m "slow or not slow"'): "the whole test suite, this test included",
    ("README.md", "spark-submit --master spark://host:7077"): "needs a Spark cluster; the same module runs above "
                                                             "through python -m hudi_log.pipeline",
    ("README.md", "export AWS_ACCESS_KEY_ID=..."): "placeholders for real credentials: the test sets AWS_* "
                                                  "for the local moto server instead",
    ("docs/benchmarks.md", "nice .venv/bin/python -m tools.bench"): "the full benchmark (1,000,000 records, "
                                                                    "a 1 GB file, minutes); its smoke run below runs",
}

#: usage blocks: placeholders (FILES..., PATH), so each option named is checked against ``--help``
SYNOPSES = {("README.md", "hudi-log inspect FILES...")}

#: the Python a snippet assumes, run before it in its namespace (cwd: the prepared working folder)
PRELUDES = {
    ("README.md", "from hudi_log.spark import read, spark_session, write"): (
        "import json, os\n"
        "path = os.path.abspath('lake/trips')\n"
        "t1, t2 = json.load(open('trips_instants.json'))\n"),
    ("README.md", "hudi_log.open_log(path)"): (
        "import glob\n"
        "path = sorted(glob.glob('lake/trips/*/.*.log.*'))[0]\n"),
    ("README.md", 'write_table("s3://lake/trips"'): (
        "import pyarrow as pa\n"
        "batch = pa.table({'uuid': ['a', 'b'], 'fare': [1.5, 2.5], 'ts': [5, 5], 'year': ['2024', '2024']})\n"
        "hudi_options = {'hoodie.table.name': 'trips', 'hoodie.datasource.write.table.type': 'MERGE_ON_READ',\n"
        "                'hoodie.datasource.write.recordkey.field': 'uuid',\n"
        "                'hoodie.datasource.write.precombine.field': 'ts',\n"
        "                'hoodie.datasource.write.partitionpath.field': 'year'}\n"
        "df = spark.createDataFrame(batch.to_pandas())\n"),
    ("docs/streaming.md", 'events.writeStream.format("hudi_log")'): (
        "import os\n"
        "events = spark.readStream.schema('id long, ts long, name string').json(os.path.abspath('landing/events'))\n"),
}

EPILOGUES = {
    ("docs/streaming.md", 'events.writeStream.format("hudi_log")'): (
        "for q in spark.streams.active:\n"
        "    q.processAllAvailable()\n"
        "    q.stop()\n"
        "import hudi_log\n"
        "assert hudi_log.read_table('lake/events').num_rows == 3\n"),
}

#: a snippet's example locations and what stands in for them here ({tmp}: the working folder)
STAND_INS = {r"(?<![\w:/.])/(data|lake|landing|checkpoints)/": r"{tmp}/\1/", r"http://minio:9000": "{s3}"}


@dataclass(frozen=True)
class Block:
    doc: str  # relative to the repo: README.md, docs/x.md
    line: int  # of the opening fence
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"

    def key(self, table) -> tuple | None:
        """The entry of ``table`` (keyed by document and substring) this block matches."""
        hits = [k for k in table if k[0] == self.doc and k[1] in self.text]
        assert len(hits) <= 1, f"{self.where}: several entries match: {hits}"
        return hits[0] if hits else None


def blocks(doc: Path) -> list[Block]:
    out, current = [], None
    for n, line in enumerate(doc.read_text().split("\n"), 1):
        m = re.match(r"^\s*```\s*(\S*)\s*$", line)
        if current is None:
            if m:
                current = (n, m.group(1), [])
        elif m and not m.group(1):
            out.append(Block(str(doc.relative_to(REPO)), current[0], current[1], "\n".join(current[2])))
            current = None
        else:
            current[2].append(line)
    assert current is None, f"{doc}: a code fence opened at line {current[0]} is never closed"
    return out


ALL = [b for doc in DOCS for b in blocks(doc)]
RUN = [b for b in ALL if b.lang in RUN_LANGS]


def commands(block: Block) -> list[list[str]]:
    """A bash block's commands as argument lists: continuations joined, comments dropped, && split."""
    out = []
    for line in block.text.replace("\\\n", " ").split("\n"):
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            out.append(words[:cut])
            words = words[cut + 1:]
    return [c for c in out if c]


def is_spark_python(block: Block) -> bool:
    return bool(re.search(r"\bspark\b|\bdf\.write\b|writeStream|readStream", block.text))


def argv_of(cmd: list[str]) -> list[str] | None:
    """The command as run here (the venv's programs), or None when it is not one this test runs."""
    if cmd[0] in ("hudi-log", ".venv/bin/hudi-log"):
        return [str(BIN / "hudi-log"), *cmd[1:]]
    if cmd[0] == ".venv/bin/python" and cmd[1:2] == ["-m"] and cmd[2].split(".")[0] in ("hudi_log", "tools"):
        return [sys.executable, *cmd[1:]]
    return None


def is_spark_command(cmd: list[str]) -> bool:
    return "hudi_log.pipeline" in cmd or "hudi_log.demo" in cmd or "--spark" in cmd


def skip_reason(block: Block, cmd: list[str]) -> str | None:
    line = shlex.join(cmd)
    hits = [why for (doc, sub), why in SKIPPED.items() if doc == block.doc and sub in line.replace("'", '"')]
    return hits[0] if hits else None


def stand_in(text: str, tmp: Path, s3) -> str:
    for pattern, repl in STAND_INS.items():
        text = re.sub(pattern, repl.replace("{tmp}", str(tmp)).replace("{s3}", s3.endpoint), text)
    return text


def env_for(s3) -> dict:
    env = dict(os.environ, **s3.env(), PYTHONPATH=str(REPO), PYSPARK_PYTHON=sys.executable)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


# ---------------------------------------------------------------------------------------------- fixtures

def prepare(tmp: Path, s3) -> None:
    """What the snippets assume, in ``tmp`` and the moto bucket ``lake``."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyarrow.fs import FileSelector

    import hudi_log

    trips = pa.table({"uuid": [f"u{i}" for i in range(6)], "fare": [10.0 + i for i in range(6)],
                      "ts": [1] * 6, "city": ["sf", "nyc", "sf", "la", "nyc", "sf"]})
    pq.write_table(trips, tmp / "trips.parquet")
    opts = {"hoodie.table.name": "trips", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
            "hoodie.datasource.write.recordkey.field": "uuid", "hoodie.datasource.write.precombine.field": "ts",
            "hoodie.datasource.write.partitionpath.field": "city"}
    first = hudi_log.write_table(str(tmp / "lake/trips"), trips, "insert", opts)
    update = trips.slice(0, 3).set_column(2, "ts", pa.array([2] * 3))
    second = hudi_log.write_table(str(tmp / "lake/trips"), update, "upsert", opts)  # log files
    (tmp / "trips_instants.json").write_text(json.dumps([first.instant, second.instant]))

    events = pa.table({"id": [1, 2, 3], "ts": [1, 1, 1], "name": ["a", "b", "c"]})
    (tmp / "landing/events").mkdir(parents=True)
    (tmp / "landing/events/part-0.json").write_text(
        "".join(json.dumps(r) + "\n" for r in events.to_pylist()))
    ev_opts = {"hoodie.table.name": "events", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
               "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts",
               "hoodie.table.cdc.enabled": "true"}
    hudi_log.write_table(str(tmp / "data/events"), events, "insert", ev_opts)
    hudi_log.write_table(str(tmp / "data/events"), events.slice(1, 1).set_column(1, "ts", pa.array([2])),
                         "upsert", ev_opts)

    fs = s3.filesystem()
    try:
        fs.delete_dir("lake")  # the session's server is shared: start from an empty bucket
    except OSError:
        pass
    s3.create_bucket("lake")
    s3_opts = {**opts, "hoodie.datasource.write.partitionpath.field": "year", **s3.options()}
    by_year = trips.drop_columns(["city"]).append_column("year", pa.array(["2024"] * 6))
    hudi_log.write_table("s3://lake/trips", by_year, "insert", s3_opts)
    hudi_log.write_table("s3://lake/trips", by_year.slice(0, 2), "upsert", s3_opts)
    # the README validates this one log file by name: an intact copy of one the upsert wrote
    log = next(f for f in fs.get_file_info(FileSelector("lake/trips/2024")) if ".log." in f.base_name)
    with fs.open_input_file(log.path) as src, \
            fs.open_output_stream("lake/trips/2024/.f1_20240101000000000.log.1_0-1-1") as dst:
        dst.write(src.read())


@pytest.fixture
def workdir(tmp_path, s3_server):
    prepare(tmp_path, s3_server)
    return tmp_path


def run(argv: list[str], cwd: Path, s3, where: str) -> subprocess.CompletedProcess:
    r = subprocess.run(argv, cwd=cwd, env=env_for(s3), capture_output=True, text=True)
    assert r.returncode == 0, (f"{where}: {shlex.join(argv)} exited {r.returncode}\n"
                               f"--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-5000:]}")
    return r


#: runs Python blocks given as JSON [[where, prelude, code, epilogue], ...] in order, one namespace each
RUNNER = """
import json, sys, traceback
spark = None
if sys.argv[2] == "spark":
    from hudi_log.spark import spark_session
    spark = spark_session("local[2]", app_name="doc snippets")
for where, prelude, code, epilogue in json.load(open(sys.argv[1])):
    ns = {"__name__": "__snippet__", "spark": spark}
    try:
        exec(compile(prelude, where + " (prelude)", "exec"), ns)
        exec(compile(code, where, "exec"), ns)
        exec(compile(epilogue, where + " (epilogue)", "exec"), ns)
    except BaseException:
        traceback.print_exc()
        sys.exit(f"snippet failed: {where}")
if spark is not None:
    spark.stop()
"""


def run_python(selected: list[Block], tmp: Path, s3, mode: str) -> None:
    jobs = [[b.where, PRELUDES.get(b.key(PRELUDES), ""), stand_in(b.text, tmp, s3),
             EPILOGUES.get(b.key(EPILOGUES), "")] for b in selected]
    (tmp / "_snippets.json").write_text(json.dumps(jobs))
    (tmp / "_runner.py").write_text(RUNNER)
    run([sys.executable, "_runner.py", "_snippets.json", mode], tmp, s3, ", ".join(b.where for b in selected))


def bash_commands(spark: bool) -> list[tuple[Block, list[str]]]:
    out = []
    for b in RUN:
        if b.lang != "bash" or b.key(SYNOPSES):
            continue
        for cmd in commands(b):
            if argv_of(cmd) and not skip_reason(b, cmd) and is_spark_command(cmd) == spark:
                out.append((b, cmd))
    return out


# ------------------------------------------------------------------------------------------------- tests

def test_every_block_is_run_or_listed():
    """A block in a language this test does not know, a command neither run nor listed, or a listing that
    matches nothing (a stale entry after a doc edit) fails."""
    assert RUN, "no code blocks found"
    unknown = [f"{b.where} ```{b.lang}" for b in ALL if b.lang and b.lang not in RUN_LANGS]
    assert not unknown, f"code blocks in a language this test does not run: {unknown}"
    orphans = []
    for b in RUN:
        if b.lang == "bash" and not b.key(SYNOPSES):
            orphans += [f"{b.where}: {shlex.join(c)}" for c in commands(b) if not argv_of(c) and not skip_reason(b, c)]
    assert not orphans, f"commands neither run nor listed in SKIPPED (with a reason): {orphans}"
    for table in (SKIPPED, SYNOPSES, PRELUDES, EPILOGUES):
        for doc, sub in table:
            assert any(b.doc == doc and sub in b.text for b in RUN), f"stale entry: no block of {doc} holds {sub!r}"


def test_synopsis_options_exist():
    """Each option a usage block names is one its command's --help lists (in process: the same click
    group the hudi-log script runs)."""
    from click.testing import CliRunner

    from hudi_log.cli import main

    for b in RUN:
        if not b.key(SYNOPSES):
            continue
        lines = re.sub(r"\n\s+(?=\[|--)", " ", b.text).split("\n")  # continuation lines of one usage
        for line in lines:
            usage = line.split("  #")[0]
            if not usage.startswith("hudi-log "):
                continue
            words = usage.split()[1:]
            sub = []
            for w in words:
                if not re.fullmatch(r"[a-z][a-z-]*", w):
                    break
                sub.append(w)
            options = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", usage))
            r = CliRunner().invoke(main, [*sub, "--help"])
            assert r.exit_code == 0, f"{b.where}: hudi-log {' '.join(sub)} --help: {r.output}"
            help_text = r.output
            missing = [o for o in sorted(options) if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", help_text)]
            assert not missing, f"{b.where}: hudi-log {' '.join(sub)} has no {missing}"


def test_bash_snippets(workdir, s3_server):
    ran = bash_commands(spark=False)
    assert ran
    for b, cmd in ran:
        run(argv_of([stand_in(w, workdir, s3_server) for w in cmd]), workdir, s3_server, b.where)


def test_python_snippets(workdir, s3_server):
    selected = [b for b in RUN if b.lang == "python" and not is_spark_python(b)]
    assert selected
    for b in selected:  # a fresh interpreter each
        run_python([b], workdir, s3_server, "plain")


@pytest.mark.slow
def test_spark_snippets(workdir, s3_server):
    """The pipeline and demo commands (each starts its own Spark), then every Python block that uses
    Spark in one subprocess with one local[2] session, in document order."""
    for b, cmd in bash_commands(spark=True):
        run(argv_of([stand_in(w, workdir, s3_server) for w in cmd]), workdir, s3_server, b.where)
    run_python([b for b in RUN if b.lang == "python" and is_spark_python(b)], workdir, s3_server, "spark")
