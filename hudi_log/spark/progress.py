"""Progress output for Spark jobs run from the command line: a line per step, and task counts of the
running stages (polled from Spark's status tracker, printed when they change)."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager


class Progress:
    def __init__(self, spark=None, out=None, interval: float = 1.0):
        self.spark = spark
        self.out = out
        self.interval = interval
        self.t0 = time.monotonic()

    def say(self, message: str) -> None:
        # sys.stderr as it is now (not at import: a caller may have redirected it since)
        print(f"[{time.monotonic() - self.t0:7.1f}s] {message}", file=self.out or sys.stderr, flush=True)

    @contextmanager
    def step(self, message: str):
        """Announce a step, show task progress while it runs, and its time when it ends."""
        self.say(message + " ...")
        start = time.monotonic()
        stop = threading.Event()
        watcher = None
        if self.spark is not None:
            watcher = threading.Thread(target=self._watch, args=(stop,), daemon=True)
            watcher.start()
        try:
            yield self
        finally:
            stop.set()
            if watcher is not None:
                watcher.join()
        self.say(f"{message}: done in {time.monotonic() - start:.1f}s")

    def _watch(self, stop: threading.Event) -> None:
        tracker = self.spark.sparkContext.statusTracker()
        last = None
        while not stop.wait(self.interval):
            try:
                stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
            except Exception:  # the JVM is shutting down: progress is best-effort
                return
            now = tuple(sorted((s.stageId, s.numCompletedTasks, s.numTasks) for s in stages if s))
            if now and now != last:
                self.say("  " + ", ".join(f"stage {i}: {done}/{n} tasks" for i, done, n in now))
                last = now
