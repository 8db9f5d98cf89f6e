"""Test helpers for writers that die: what a crash leaves behind, without killing the test process."""

from __future__ import annotations

import os
import time


def crash(tx, seconds_ago: float = 3600.0) -> None:
    """As if the process running ``tx`` had died ``seconds_ago``: its instant stays pending, its heartbeat
    stops beating and the last beat is that old (past any timeout), so other writers take it for failed."""
    tx.heartbeat.stop(delete=False)
    then = time.time() - seconds_ago
    os.utime(tx.heartbeat.path, (then, then))
