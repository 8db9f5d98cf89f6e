#!/usr/bin/env bash
# Sets up a fresh machine for hudi-log: a Python venv with the package and its test tools, and the
# pinned npm packages (Kaitai Struct compiler and runtime) used to regenerate and check generated/.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test,spark]'
# Spark (the demo, the pipeline, the Spark tests) runs on a JVM: Java 17 or newer must be on PATH
java -version >/dev/null 2>&1 || echo "setup.sh: warning: no java on PATH; Spark needs Java 17+ (e.g. apt-get install openjdk-17-jre-headless)" >&2
npm ci --no-audit --no-fund --loglevel=error
