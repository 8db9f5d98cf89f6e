"""Test helpers for writers that die: what a crash leaves behind, without killing the test process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def crash(tx, seconds_ago: float = 3600.0) -> None:
    """As if the process running ``tx`` had died ``seconds_ago``: its instant stays pending, its heartbeat
    stops beating and the last beat is that old (past any timeout), so other writers take it for failed."""
    tx.heartbeat.stop(delete=False)
    then = time.time() - seconds_ago
    os.utime(tx.heartbeat.path, (then, then))


def kill_midway(held_script: str, hold: str, args: list[str]) -> None:
    """Run ``held_script`` (a ``python -c`` wrapper of ``hudi-log ARGS`` that prints ``holding`` and pauses at the
    point ``hold`` names) in a subprocess, and SIGKILL it there: a kill -9 at a fixed point, with no timed race."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.Popen([sys.executable, "-c", held_script, hold, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        said = p.stdout.readline().strip()
        assert said == "holding", (said, p.stderr.read() if p.poll() is not None else "")
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=60)
        p.stdout.close()
        p.stderr.close()
