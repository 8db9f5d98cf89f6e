"""The set-up the README describes (issue 22, item 9): it leaves the CLI runnable as written, and building
the package prints no warning of our own (setuptools' "experimental ext-modules" and "Editable
installation" notices), while still building the C extension."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_cli_the_readme_names_runs():
    script = Path(sys.executable).parent / "hudi-log"
    assert script.is_file(), "tools/setup.sh installs the hudi-log script into the venv"
    r = subprocess.run([str(script), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "validate" in r.stdout
    readme = (ROOT / "README.md").read_text()
    assert ".venv/bin/hudi-log" in readme and "source .venv/bin/activate" in readme
    from hudi_log.demo import _cli_command

    cmd = _cli_command()
    assert cmd == "hudi-log" or os.access(cmd, os.X_OK) or cmd.endswith("-m hudi_log.cli")


def test_no_experimental_config_in_pyproject():
    assert not any(line.startswith("ext-modules") for line in (ROOT / "pyproject.toml").read_text().splitlines())
    assert "_avro_rows" in (ROOT / "setup.py").read_text()


@pytest.mark.slow
def test_editable_install_prints_no_warning_of_ours(tmp_path):
    """`pip install -e .` as tools/setup.sh runs it (this venv's pip, which shows the build backend's
    warnings), into a scratch prefix: no setuptools warning, and the C extension is built.
    --ignore-installed: without it pip would uninstall this venv's own editable install first."""
    started = time.time() - 1
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--ignore-installed", "-e", str(ROOT),
                        "--prefix", str(tmp_path / "prefix")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    text = r.stdout + r.stderr
    assert "Building editable for hudi-log" in text  # the backend ran, and pip shows what it prints
    for ours in ("experimental", "Editable installation", "BuildBackendWarning", "SetuptoolsDeprecationWarning"):
        assert ours not in text, text[-3000:]
    # the editable build compiles the extension next to its source (where the package imports it from)
    assert any(so.stat().st_mtime >= started for so in (ROOT / "hudi_log/format/content").glob("_avro_rows*.so"))


@pytest.mark.slow
def test_a_local_session_prints_no_spark_log_lines():
    """The demo and the pipeline CLI start Spark through spark_session: Spark's start-up lines ("Setting default
    log level ...", log4j WARN lines) stay off the terminal. The JVM's own notice of the incubator module that
    Spark 4 adds to its command line is the one line left; nothing here can turn it off."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (tools/setup.sh installs it)")
    code = "from hudi_log.spark import spark_session; print(spark_session('local[1]').range(3).count())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "3"
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("WARNING: Using incubator modules")]
    assert not lines, r.stderr[-3000:]
