"""Damaged tables give typed errors naming the file and the field, never a wrong answer (issue 35, item 3):
``hoodie.properties`` with a missing or unknown ``hoodie.table.type``, an unknown
``hoodie.timeline.layout.version``, a ``hoodie.table.checksum`` that is not a number; commit metadata of
the wrong shape (JSON in table version 6, Avro in 8); a truncated, garbled or empty base Parquet file.
Each through the package API (``read_table``) and the CLI (``read``, ``table``: one line, exit 2;
``validate --table``: its own contract, exit 1 listing the file, or 2 when the table cannot be read).
A full disk during a write is a StorageWriteError naming the table and file (the CLI's exit 3), the instant is
rolled back and nothing the write began is left (injected at the storage layer, and on a real 1 MiB tmpfs
where mounting one is permitted)."""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import subprocess

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hudi_log.cli import main
from hudi_log.errors import DamagedFileError, HudiLogError
from hudi_log.log import storage
from hudi_log.table import HudiTable, read_table
from hudi_log.table.errors import StorageWriteError
from hudi_log.table.properties import PropertyValueError, TablePropertiesError, read_properties
from hudi_log.table.timeline.commit_metadata import COMMIT_METADATA_SCHEMA, avro_container
from hudi_log.table.timeline.timeline import TimelineError
from hudi_log.table.validate import validate_table
from hudi_log.table.write.client import write_table

# the tables here keep no metadata table: these are the data table's damage and disk-full checks (every file as
# it was, only a rollback's new); the metadata table's are tests/test_metadata_writer.py's
OPTIONS = {"hoodie.table.name": "damaged", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "part",
           "hoodie.metadata.enable": "false"}


def _write(path, table_type: str, version: int) -> None:
    opts = {**OPTIONS, "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version)}
    write_table(path, pa.table({"id": ["a", "b", "c"], "ts": [1, 1, 1], "part": ["x", "x", "y"], "v": [1, 2, 3]}),
                "upsert", opts)
    write_table(path, pa.table({"id": ["a"], "ts": [2], "part": ["x"], "v": [10]}), "upsert", opts)
    write_table(path, pa.table({"id": ["b"], "ts": [2], "part": ["x"], "v": [0]}), "delete", opts)


#: what every table below reads when intact: b deleted, a updated
INTACT = [("a", 10), ("c", 3)]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One intact table per (type, version), copied by each test that damages it."""
    root = tmp_path_factory.mktemp("intact")
    out = {}
    for table_type in ("MERGE_ON_READ", "COPY_ON_WRITE"):
        for version in (6, 8):
            p = root / f"{table_type.lower()}_v{version}"
            _write(p, table_type, version)
            out[(table_type, version)] = p
    return out


@pytest.fixture
def table(built, tmp_path):
    def copy(table_type="MERGE_ON_READ", version=6):
        dest = tmp_path / f"{table_type.lower()}_v{version}"
        shutil.copytree(built[(table_type, version)], dest)
        return dest
    return copy


def rows(path):
    return sorted((r["id"], r["v"]) for r in read_table(path, columns=["id", "v"]).to_pylist())


def props_file(path):
    return path / ".hoodie" / "hoodie.properties"


def edit_properties(path, edit) -> None:
    """Rewrite hoodie.properties line by line (``edit(line)``: the new line, or None to drop it)."""
    f = props_file(path)
    lines = [edit(line) for line in f.read_text().splitlines()]
    f.write_text("\n".join(line for line in lines if line is not None) + "\n")


def set_property(path, key, value) -> None:
    edit_properties(path, lambda line: (f"{key}={value}" if value is not None else None)
                    if line.split("=", 1)[0] == key else line)


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line(r, code: int, *fragments) -> str:
    """The CLI's convention: exit ``code``, one line on stderr naming what is wrong, no traceback."""
    assert r.exit_code == code, (r.exit_code, r.output)
    assert "Traceback" not in r.output and (r.exception is None or isinstance(r.exception, SystemExit)), r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hudi-log: "), r.stderr
    for f in fragments:
        assert str(f) in lines[0], (f, lines[0])
    return lines[0]


def assert_everywhere(path, error: type[HudiLogError], *fragments) -> None:
    """The package API raises ``error`` naming ``fragments``; `read` and `table` say it in one line (exit 2);
    `validate --table` cannot read the table either (exit 2) or lists it as a problem (exit 1)."""
    with pytest.raises(error) as e:
        read_table(path)
    for f in fragments:
        assert str(f) in str(e.value), (f, str(e.value))
    assert_one_line(cli("read", path), 2, *fragments)
    assert_one_line(cli("table", path), 2, *fragments)


# ---- hoodie.properties --------------------------------------------------------------------------------
@pytest.mark.parametrize("version", [6, 8])
def test_missing_table_type_of_a_merge_on_read_table_is_an_error_naming_the_timeline(table, version):
    """Java's default for a missing hoodie.table.type is COPY_ON_WRITE: read so, the MOR table's deleted row
    comes back and its update is lost. The deltacommits on the timeline say it is MERGE_ON_READ."""
    path = table("MERGE_ON_READ", version)
    assert rows(path) == INTACT
    set_property(path, "hoodie.table.type", None)
    assert_everywhere(path, PropertyValueError, props_file(path), "hoodie.table.type", "missing", ".deltacommit",
                      "hoodie.table.type=MERGE_ON_READ")
    r = cli("validate", "--table", path)
    assert r.exit_code == 2 and "hoodie.table.type" in r.stderr and "Traceback" not in r.output, r.output


def test_missing_table_type_with_the_deltacommits_gone_is_an_error_naming_a_log_file(table):
    """No MERGE_ON_READ-only instant on the timeline (here: each deltacommit renamed a commit), the log
    files still say MERGE_ON_READ."""
    path = table("MERGE_ON_READ", 6)
    set_property(path, "hoodie.table.type", None)
    for f in (path / ".hoodie").iterdir():
        if f.name.endswith(".deltacommit"):
            f.rename(f.with_name(f.name.replace(".deltacommit", ".commit")))
        elif ".deltacommit." in f.name:
            f.unlink()
    with pytest.raises(PropertyValueError, match=r"hoodie\.table\.type: missing.*the log file .*\.log\.") as e:
        read_table(path)
    assert e.value.field == "hoodie.table.type" and e.value.path == str(props_file(path))
    assert_one_line(cli("read", path), 2, "hoodie.table.type", ".log.")


@pytest.mark.parametrize("version", [6, 8])
def test_missing_table_type_of_a_copy_on_write_table_reads_as_java_does(table, version):
    """Nothing says otherwise: COPY_ON_WRITE, Java's default, and the same rows."""
    path = table("COPY_ON_WRITE", version)
    set_property(path, "hoodie.table.type", None)
    assert read_properties(path).table_type == "COPY_ON_WRITE"
    assert rows(path) == INTACT
    assert cli("read", path).exit_code == 0


@pytest.mark.parametrize("value", ["MERGE_ON_REED", "", "MOR"])
def test_unknown_table_type_is_an_error_naming_the_file_and_value(table, value):
    path = table("MERGE_ON_READ", 8)
    set_property(path, "hoodie.table.type", value)
    assert_everywhere(path, PropertyValueError, props_file(path), "hoodie.table.type", repr(value))
    # the write refuses it before anything is written
    before = tree(path)
    with pytest.raises(PropertyValueError):
        write_table(path, pa.table({"id": ["z"], "ts": [1], "part": ["x"], "v": [1]}), "upsert", OPTIONS)
    assert tree(path) == before


@pytest.mark.parametrize("version, value", [(6, "7"), (6, "abc"), (6, "2"), (8, "1"), (8, "-1"), (8, "3")])
def test_unknown_timeline_layout_version_is_an_error_not_an_empty_table(table, version, value):
    """Another layout looks for instants where there are none: 0 rows, no error, before."""
    path = table("MERGE_ON_READ", version)
    set_property(path, "hoodie.timeline.layout.version", value)
    assert_everywhere(path, PropertyValueError, props_file(path), "hoodie.timeline.layout.version", repr(value))


def test_layouts_java_reads_for_the_table_version_are_taken(table):
    path = table("MERGE_ON_READ", 6)
    set_property(path, "hoodie.timeline.layout.version", "0")  # pre-0.5.1 names are those of layout 1
    assert rows(path) == INTACT


@pytest.mark.parametrize("value", ["abc", "12.5", ""])
def test_checksum_that_is_not_a_number_is_a_damaged_properties_file(table, value):
    path = table("COPY_ON_WRITE", 6)
    set_property(path, "hoodie.table.checksum", value)
    assert_everywhere(path, TablePropertiesError, props_file(path), "hoodie.table.checksum is not an integer")


def test_checksum_that_is_not_a_number_falls_back_to_the_backup(table):
    """As for a wrong checksum (Java's HoodieTableConfig): the backup, when it is good, is read instead."""
    path = table("MERGE_ON_READ", 6)
    shutil.copy(props_file(path), path / ".hoodie" / "hoodie.properties.backup")
    set_property(path, "hoodie.table.checksum", "abc")
    assert rows(path) == INTACT


# ---- commit metadata of the wrong shape ----------------------------------------------------------------
def latest_commit_file(path):
    files = sorted((f for f in (path / ".hoodie").rglob("*")
                    if f.is_file() and f.suffix in (".deltacommit", ".commit")), key=lambda f: f.name)
    return files[-1]


def first_stat(md):
    return next(iter(md["partitionToWriteStats"].values()))[0]


def _drop_path(md):
    del first_stat(md)["path"]
    return md


def _count_as_text(md):
    first_stat(md)["numWrites"] = "many"
    return md


def _nul_partition(md):
    md["partitionToWriteStats"] = {"x\x00y": md["partitionToWriteStats"]["x"]}
    return md


JSON_SHAPES = [
    ("a list", lambda md: [md], "not a JSON object"),
    ("stats a list", lambda md: {**md, "partitionToWriteStats": [1, 2]}, "partitionToWriteStats is a list"),
    ("stats of strings", lambda md: {**md, "partitionToWriteStats": {"x": ["a"]}},
     "partitionToWriteStats['x'][0] is a string"),
    ("stat without path", _drop_path, "partitionToWriteStats['x'][0].path is None"),
    ("count as text", _count_as_text, "numWrites is 'many', not an integer"),
    ("NUL in a partition", _nul_partition, "partitionToWriteStats has the partition path 'x\\x00y'"),
    ("extra not a map", lambda md: {**md, "extraMetadata": ["schema"]}, "extraMetadata is a list"),
]


@pytest.mark.parametrize("what, damage, message", JSON_SHAPES, ids=[c[0] for c in JSON_SHAPES])
def test_json_commit_metadata_of_the_wrong_shape_names_the_file(table, what, damage, message):
    path = table("MERGE_ON_READ", 6)
    f = latest_commit_file(path)
    f.write_text(json.dumps(damage(json.loads(f.read_text()))))
    assert_everywhere(path, TimelineError, f, message)
    r = cli("validate", "--table", path)
    assert r.exit_code == 1 and f"{f}: METADATA: " in r.stdout and message in r.stdout, r.output


def _other_schema(md):
    """A record of another schema under the same name: partitionToWriteStats a string."""
    schema = {"type": "record", "name": "HoodieCommitMetadata", "namespace": "org.apache.hudi.avro.model",
              "fields": [{"name": "partitionToWriteStats", "type": "string"}]}
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), [{"partitionToWriteStats": "oops"}])
    return buf.getvalue()


def _avro_without_path(md):
    first_stat(md)["path"] = None
    return avro_container(COMMIT_METADATA_SCHEMA, md)


AVRO_SHAPES = [("another schema", _other_schema, "partitionToWriteStats is a string ('oops')"),
               ("stat without path", _avro_without_path, "partitionToWriteStats['x'][0].path is None")]


@pytest.mark.parametrize("what, damage, message", AVRO_SHAPES, ids=[c[0] for c in AVRO_SHAPES])
def test_avro_commit_metadata_of_the_wrong_shape_names_the_file(table, what, damage, message):
    path = table("MERGE_ON_READ", 8)
    f = latest_commit_file(path)
    md = next(iter(fastavro.reader(io.BytesIO(f.read_bytes()))))
    f.write_bytes(damage(md))
    assert_everywhere(path, TimelineError, f, message)
    r = cli("validate", "--table", path)
    assert r.exit_code == 1 and f"{f}: METADATA: " in r.stdout, r.output


def test_commit_schema_that_is_not_json_stops_a_write_naming_the_file(table):
    path = table("COPY_ON_WRITE", 6)
    f = latest_commit_file(path)
    md = json.loads(f.read_text())
    md["extraMetadata"]["schema"] = "{not json"
    f.write_text(json.dumps(md))
    before = tree(path)
    with pytest.raises(TimelineError, match=r"extraMetadata\.schema is not JSON") as e:
        write_table(path, pa.table({"id": ["z"], "ts": [1], "part": ["x"], "v": [1]}), "upsert",
                    {**OPTIONS, "hoodie.datasource.write.table.type": "COPY_ON_WRITE"})
    assert e.value.path == str(f)
    assert tree(path) == before  # refused before anything was written


def tree(path) -> dict[str, bytes]:
    """Every file under ``path`` with its bytes."""
    return {str(f.relative_to(path)): f.read_bytes() for f in sorted(path.rglob("*")) if f.is_file()}


# ---- damaged base files ---------------------------------------------------------------------------------
def _latest_base_file(path):
    return max((t.base_file for t in HudiTable(path).plan().tasks if t.base_file), key=str)


def _garble(data: bytes) -> bytes:
    g = bytearray(data)
    for i in range(4, min(len(g) - 200, 600)):  # the first pages, not the footer
        g[i] ^= 0x5A
    return bytes(g)


DAMAGE = {"truncated": lambda d: d[: len(d) // 2], "garbled": _garble, "empty": lambda d: b""}


@pytest.mark.parametrize("how", sorted(DAMAGE))
@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_damaged_base_file_is_an_error_naming_it(table, table_type, how):
    path = table(table_type, 8)
    base = _latest_base_file(path)
    with open(base, "rb") as f:
        data = f.read()
    with open(base, "wb") as f:
        f.write(DAMAGE[how](data))
    for columns in (None, ["id"]):
        with pytest.raises(DamagedFileError, match="damaged Parquet file") as e:
            read_table(path, columns=columns)
        assert e.value.path == str(base)
    assert_one_line(cli("read", path), 2, base, "damaged Parquet file")
    report = validate_table(path)
    damaged = [p.path for p in report.problems if p.kind == "damaged"]
    assert report.code == 1 and damaged == [str(base)], report.to_dict()
    r = cli("validate", "--table", path)
    assert r.exit_code == 1 and f"{base}: DAMAGED: damaged Parquet file" in r.stdout, r.output


def test_validate_reads_every_committed_base_file_of_an_intact_table(table):
    path = table("COPY_ON_WRITE", 6)
    report = validate_table(path)
    assert report.ok and report.base_files >= 3, report.to_dict()


@pytest.mark.slow
def test_spark_reads_say_the_damage_in_one_error(spark, table):
    """The data source (and hudi_log.spark.read, which plans on the driver) fails with the typed error's
    name and message."""
    from hudi_log.spark import read as spark_read

    path = table("MERGE_ON_READ", 8)
    set_property(path, "hoodie.table.type", None)
    with pytest.raises(Exception, match=r"PropertyValueError.*hoodie\.table\.type: missing"):
        spark.read.format("hudi_log").load(str(path)).collect()
    with pytest.raises(PropertyValueError, match="hoodie.table.type"):
        spark_read(spark, str(path)).collect()
    path = table("COPY_ON_WRITE", 6)
    base = _latest_base_file(path)
    with open(base, "r+b") as f:
        f.truncate(100)
    with pytest.raises(Exception, match=r"DamagedFileError.*damaged Parquet file"):
        spark.read.format("hudi_log").load(str(path)).collect()


# ---- disk full during a write ---------------------------------------------------------------------------
def _enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, "No space left on device")


def _full_at_base_file(monkeypatch):
    """The Parquet writer's file is open (created) when the disk fills."""
    monkeypatch.setattr(pq.ParquetWriter, "write_table", _enospc)


def _full_at_log_file(monkeypatch):
    """Half an append's bytes reach the log file, then the disk is full."""
    real = storage._LocalOutput.write

    def write(self, data):
        real(self, bytes(data[: len(data) // 2]))
        _enospc()
    monkeypatch.setattr(storage._LocalOutput, "write", write)


def _full_at_commit(monkeypatch):
    """Every data file written; the completed instant's file cannot be made durable."""
    real = os.fsync

    def fsync(fd):
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        if (".deltacommit." in name or ".commit." in name) and not any(
                s in name for s in (".requested", ".inflight", "rollback")):
            _enospc()
        return real(fd)
    monkeypatch.setattr(os, "fsync", fsync)


FULL = {"base file": (_full_at_base_file, ".parquet"), "log file": (_full_at_log_file, ".log."),
        "completed instant": (_full_at_commit, "commit")}


def assert_rolled_back_only(path, before: dict[str, bytes]) -> None:
    """Every file as it was; the only new files are the rollback's on the timeline; nothing half-written."""
    after = tree(path)
    assert {k: v for k, v in after.items() if k in before} == before
    new = [k for k in after if k not in before]
    assert new and all("rollback" in k.rsplit("/", 1)[-1] for k in new), new
    assert not [k for k in after if k.endswith(".tmp")], after.keys()


@pytest.mark.parametrize("where", sorted(FULL))
def test_disk_full_during_a_write_is_a_storage_error_and_the_table_stays_at_its_last_commit(table, monkeypatch,
                                                                                               where):
    path = table("MERGE_ON_READ", 8)
    before = tree(path)
    fill, file_part = FULL[where]
    update = pa.table({"id": ["a", "c"], "ts": [5, 5], "part": ["x", "y"], "v": [100, 300]})  # log appends
    opts = {**OPTIONS, "hoodie.datasource.write.table.type": "MERGE_ON_READ"}
    data = update if where != "base file" else pa.table({"id": ["n"], "ts": [1], "part": ["x"], "v": [7]})
    with monkeypatch.context() as m:
        fill(m)
        with pytest.raises(StorageWriteError) as e:
            write_table(path, data, "upsert", opts)
    assert e.value.path == str(path) and file_part in e.value.file and e.value.file.startswith(str(path))
    assert "No space left on device" in str(e.value) and e.value.file in str(e.value)
    assert_rolled_back_only(path, before)
    assert rows(path) == INTACT
    write_table(path, update, "upsert", opts)  # room again: the next write goes through
    assert rows(path) == [("a", 100), ("c", 300)]


def test_disk_full_through_the_cli_is_one_line_exit_3(table, monkeypatch, tmp_path):
    path = table("COPY_ON_WRITE", 6)
    before = tree(path)
    rows_file = tmp_path / "rows.jsonl"
    rows_file.write_text(json.dumps({"id": "n", "ts": 1, "part": "x", "v": 7}) + "\n")
    _full_at_base_file(monkeypatch)
    r = cli("write", path, "--input", rows_file, "--record-key", "id", "--precombine", "ts",
            "--partition-field", "part", "--option", "hoodie.metadata.enable=false")
    line = assert_one_line(r, 3, path, ".parquet", "No space left on device")
    assert "undone" in line
    assert_rolled_back_only(path, before)


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (root only, where mounting is permitted): a real full disk."""
    mount = tmp_path / "small"
    mount.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({r.stderr.strip() or r.returncode}): the monkeypatched "
                    "disk-full tests above cover the same paths")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.mark.parametrize("table_type, version", [("MERGE_ON_READ", 6), ("COPY_ON_WRITE", 8)])
def test_a_real_full_disk_leaves_the_table_at_its_last_commit(small_disk, table_type, version):
    import numpy as np

    path = small_disk / "t"
    opts = {**OPTIONS, "hoodie.datasource.write.table.type": table_type, "hoodie.write.table.version": str(version)}
    rng = np.random.default_rng(0)

    def batch(start, n, size):
        return pa.table({"id": [f"k{i}" for i in range(start, start + n)], "ts": [1] * n, "part": ["x"] * n,
                         "v": [rng.bytes(size).hex() for _ in range(n)]})
    write_table(path, batch(0, 100, 200), "upsert", opts)
    before = tree(path)
    with pytest.raises(StorageWriteError, match="No space left on device") as e:
        write_table(path, batch(1000, 3000, 400), "upsert", opts)  # about 2.4 MB of text into what is left
    assert e.value.path == str(path) and e.value.file.startswith(str(path))
    assert_rolled_back_only(path, before)
    assert read_table(path, columns=["id"]).num_rows == 100
    write_table(path, batch(2000, 10, 100), "upsert", opts)  # the space came back with what was removed
    assert read_table(path, columns=["id"]).num_rows == 110
