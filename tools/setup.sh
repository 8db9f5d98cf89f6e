#!/usr/bin/env bash
# Sets up a fresh machine for hudi-log: a Python venv with the package and its test tools, and the
# pinned npm packages (Kaitai Struct compiler and runtime) used to regenerate and check generated/.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# a machine whose pip config names local package folders that lack a package warns once per package and
# folder ("Location 'file://...' is ignored"): noise about the machine, not about this set-up
pip_install() { .venv/bin/python -m pip install --quiet "$@" 2> >(grep -v "^WARNING: Location 'file://.*' is ignored" >&2); }
pip_install --upgrade pip
pip_install -e '.[test,spark]'
# Spark (the demo, the pipeline, the Spark tests) runs on a JVM: Java 17 or newer must be on PATH
java -version >/dev/null 2>&1 || echo "setup.sh: warning: no java on PATH; Spark needs Java 17+ (e.g. apt-get install openjdk-17-jre-headless)" >&2
npm ci --no-audit --no-fund --loglevel=error >/dev/null  # its summary line on stdout; errors still reach stderr
# `hudi-log view`'s browser tests and `hudi-log map -o x.png` run Debian's chromium: installed here when we
# run as root with apt (CI does), skipped when present; otherwise those tests skip and say why
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq chromium >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; } \
      || echo "setup.sh: warning: could not install chromium; the viewer's browser tests will skip" >&2
  else
    echo "setup.sh: note: no chromium (apt-get install chromium as root); the viewer's browser tests will skip" >&2
  fi
fi
