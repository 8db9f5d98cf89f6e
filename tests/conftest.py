"""Shared fixtures. The real Hudi files live in ../shared/corpus (or $HUDI_LOG_CORPUS); tests that
need them skip with a clear reason where they are absent (a user's clone). CI has them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def corpus_root() -> Path:
    return Path(os.environ.get("HUDI_LOG_CORPUS", REPO.parent / "shared" / "corpus"))


def is_log_file_name(name: str) -> bool:
    return name.startswith(".") and ".log." in name


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    root = corpus_root()
    if not (root / "log_files").is_dir() or not (root / "tables").is_dir():
        pytest.skip(f"Hudi corpus not found at {root} (set HUDI_LOG_CORPUS or place ../shared/corpus beside the repo)")
    return root


@pytest.fixture(scope="session")
def corpus_tables(corpus_dir: Path, tmp_path_factory) -> dict[str, Path]:
    """Every corpus table unzipped once per session: {zip stem: table root}."""
    out_root = tmp_path_factory.mktemp("corpus_tables")
    tables = {}
    for z in sorted((corpus_dir / "tables").glob("*.zip")):
        dest = out_root / z.stem
        with zipfile.ZipFile(z) as zf:
            members = [m for m in zf.namelist() if not m.startswith("__MACOSX/")]
            zf.extractall(dest, members)
        tops = {Path(m).parts[0] for m in members if Path(m).parts}
        root = dest / tops.pop() if len(tops) == 1 else dest
        tables[z.stem] = root
    return tables


@pytest.fixture(scope="session")
def corpus_log_files(corpus_dir: Path, corpus_tables: dict[str, Path]) -> list[Path]:
    """Every log file of the corpus: the single files and those inside every table (metadata tables too)."""
    files = [p for p in (corpus_dir / "log_files").rglob("*") if p.is_file() and is_log_file_name(p.name)]
    for root in corpus_tables.values():
        for dirpath, _dirs, names in os.walk(root):
            files += [Path(dirpath) / n for n in names if is_log_file_name(n)]
    assert files, "corpus holds no log files"
    return sorted(files)


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession for every Spark test (start-up costs seconds), with hudi-log's sources."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
    from hudi_log.spark import spark_session

    session = spark_session("local[2]", app_name="hudi-log tests")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def java_program(tmp_path_factory):
    """``java_program(source)`` compiles one of tests/java/*.java with javac against the Avro, Parquet and
    Hadoop jars of the installed PySpark and returns ``run(lines)``: the program run once on a manifest
    of checks (one tab-separated line each), its JSON result lines back. Skips, saying why, where Java
    or the jars are absent (issue 15, item 9)."""
    if not (shutil.which("javac") and shutil.which("java")):
        pytest.skip("javac/java not on PATH: the Java-backed checks need a JDK (Java 17+)")
    try:
        import pyspark
    except ImportError:
        pytest.skip("pyspark is not installed: its jars/ folder holds the Avro, Parquet and Hadoop jars")
    jars = Path(pyspark.__file__).parent / "jars"
    needed = ["avro-", "parquet-hadoop-", "parquet-column-", "hadoop-client-api-"]
    if not all(any(j.name.startswith(n) for j in jars.glob("*.jar")) for n in needed):
        pytest.skip(f"{jars} lacks one of {needed}")
    cp = os.pathsep.join(str(j) for j in sorted(jars.glob("*.jar")))

    def compile_source(source: Path):
        out = tmp_path_factory.mktemp(source.stem)
        subprocess.run(["javac", "-nowarn", "-cp", cp, "-d", str(out), str(source)], check=True, capture_output=True)

        def run(lines: list[list]) -> list[dict]:
            manifest = out / "manifest.tsv"
            manifest.write_text("\n".join("\t".join(map(str, line)) for line in lines) + "\n", encoding="utf-8")
            res = subprocess.run(["java", "-cp", cp + os.pathsep + str(out), source.stem, str(manifest)],
                                 capture_output=True, text=True, encoding="utf-8", timeout=300)
            assert res.returncode == 0, res.stderr[-3000:]
            results = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
            assert len(results) == len(lines), res.stdout[-3000:]
            return results

        return run

    return compile_source


@pytest.fixture(scope="session")
def s3_server():
    """A local S3-compatible server for the session (moto's standalone server, tools/s3server.py), on a
    free port; skips, saying why, where moto[server] is not installed (tools/setup.sh installs it)."""
    try:
        from tools.s3server import S3Server
        server = S3Server()
    except ImportError as e:
        pytest.skip(f"moto[server] is not installed ({e}): no local S3 server for the object-store tests")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def s3(s3_server, monkeypatch, request):
    """The server, with the AWS_* environment pointing at it and a fresh bucket; ``s3.base`` is its URI."""
    import hashlib
    import re

    for k, v in s3_server.env().items():
        monkeypatch.setenv(k, v)
    # the test's name, cut to S3's 63 characters, made unique by a hash of the whole name (parametrized
    # tests share their first 50 characters, and a shared bucket would mix their tables)
    digest = hashlib.sha1(request.node.name.encode()).hexdigest()[:8]
    bucket = (re.sub(r"[^a-z0-9-]", "-", request.node.name.lower())[:50].strip("-") or "bucket") + "-" + digest
    s3_server.create_bucket(bucket)
    s3_server.base = f"s3://{bucket}"
    return s3_server
