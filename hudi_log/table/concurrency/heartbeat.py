"""Heartbeats of running instants, as Java's ``HoodieHeartbeatClient`` and ``HoodieHeartbeatUtils`` keep
them, so that Java's writers and hudi-log's see each other alive.

* The heartbeat of instant ``T`` is the empty file ``.hoodie/.heartbeat/T`` (also on timeline layout 2);
  its modification time is the last beat. A beat rewrites it; a thread beats every
  ``hoodie.client.heartbeat.interval_in_ms``.
* Expired: ``now - last beat > interval × hoodie.client.heartbeat.tolerable.misses``; a missing file is
  expired (Java counts its last beat as 0).
* The file is written before the instant's first timeline file and deleted after its last one (the
  completed instant, or the rollback that undid it), so an instant seen pending with no fresh heartbeat
  is one whose writer is gone.
* A writer that missed its own beats (paused past the timeout) stops beating and stays expired: another
  process may already be rolling it back, so it must not complete (as newer Hudi does).

Java writes heartbeats only under the LAZY failed-writes policy; hudi-log writes them for every write
and table service, whatever the policy, so a Java writer under LAZY and any hudi-log process see it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

from ...paths import RemotePath, as_path, create_new, touch_existing
from .config import ConcurrencyConfig

HEARTBEAT_FOLDER = (".hoodie", ".heartbeat")


def heartbeat_path(table_path, instant: str) -> Path:
    return as_path(table_path).joinpath(*HEARTBEAT_FOLDER, instant)


def last_beat(table_path, instant: str) -> float | None:
    """The time of the last beat of ``instant`` (seconds since the epoch), None without a heartbeat."""
    try:
        return heartbeat_path(table_path, instant).stat().st_mtime
    except FileNotFoundError:
        return None


def _stale(path: Path, timeout: float, now: float | None = None) -> bool:
    """Java's rule: older than the timeout, or missing (its last beat counts as 0)."""
    try:
        beat = path.stat().st_mtime
    except FileNotFoundError:
        return True
    return (time.time() if now is None else now) - beat > timeout


def is_expired(table_path, instant: str, config: ConcurrencyConfig, now: float | None = None) -> bool:
    return _stale(heartbeat_path(table_path, instant), config.heartbeat_timeout_s, now)


def heartbeat_expiry(table_path, instant: str, config: ConcurrencyConfig) -> float | None:
    """When the heartbeat of ``instant`` expires (seconds since the epoch: its last beat plus interval ×
    tolerable misses) if no beat comes before; None without a heartbeat (expired already)."""
    beat = last_beat(table_path, instant)
    return None if beat is None else beat + config.heartbeat_timeout_s


def heartbeat_age(table_path, instant: str) -> float | None:
    beat = last_beat(table_path, instant)
    return None if beat is None else time.time() - beat


def delete_heartbeat(table_path, instant: str) -> None:
    try:
        heartbeat_path(table_path, instant).unlink()
    except FileNotFoundError:
        pass


class Heartbeat:
    """The heartbeat of one instant this process runs: :meth:`start` beats once at once, then a daemon
    thread beats every interval until :meth:`stop`."""

    def __init__(self, table_path, instant: str, config: ConcurrencyConfig):
        self.path = heartbeat_path(table_path, instant)
        self.instant = instant
        self.interval = config.heartbeat_interval_ms / 1000.0
        self.timeout = config.heartbeat_timeout_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = 0.0
        self._lost = False  # a beat came too late: others may have seen it expired
        self._remote = False  # a copy pickled to another process: judged by the file's age

    def _create(self, exclusive: bool = False) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Java: create(overwrite=true), nothing written; exclusive: the instant time is reserved by it
        if isinstance(self.path, RemotePath):
            create_new(self.path) if exclusive else self.path.write_bytes(b"")
        else:
            flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
            os.close(os.open(self.path, flags, 0o644))
        self._last = time.monotonic()

    def beat_now(self) -> None:
        """Beat at once (before a commit: others then see a full timeout of life from here). Beats after the
        first only touch the file: one that is gone means the instant ended elsewhere (completed by the
        process this heartbeat was pickled to, or rolled back by another), so it is never brought back."""
        try:
            touch_existing(self.path)
        except FileNotFoundError:
            self._lost = True
            raise
        self._last = time.monotonic()

    def start(self, exclusive: bool = False) -> "Heartbeat":
        """Beat now and from a thread. ``exclusive``: fail with FileExistsError when the heartbeat exists
        (another process took this instant time)."""
        self._create(exclusive)
        self._thread = threading.Thread(target=self._beat_until, args=(self._stop, True),
                                        name=f"hudi_log heartbeat {self.instant}", daemon=True)
        self._thread.start()
        return self

    def _beat_until(self, stop: threading.Event, own: bool) -> None:
        """Beat every interval until ``stop``, or until the file is gone. ``own``: the process that began the
        instant, whose beats a pause past the timeout ends for good (it stays expired, never completes)."""
        while not stop.wait(self.interval):
            if own and time.monotonic() - self._last > self.timeout:
                self._lost = True
                return
            try:
                self.beat_now()
            except FileNotFoundError:
                return
            except OSError:
                pass  # the next beat tries again; expiry is judged by the file's age

    def __getstate__(self):
        # pickled to another process (a Spark commit): the beating stays with the process that started it
        return {**{k: v for k, v in self.__dict__.items() if k not in ("_stop", "_thread")}, "_remote": True}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._stop, self._thread = threading.Event(), None

    @property
    def expired(self) -> bool:
        """True when this writer may no longer complete its instant: a beat came too late or found the
        file gone, or the last beat is older than the timeout."""
        if self._lost:
            return True
        if self._remote:
            return _stale(self.path, self.timeout)
        return time.monotonic() - self._last > self.timeout

    @contextlib.contextmanager
    def kept_alive(self):
        """Beat from this process too while the block runs (a Spark task writing the instant's files, where
        the process that began the write may not live as long); a file that is gone stops it."""
        stop = threading.Event()
        try:
            self.beat_now()
        except OSError:
            pass  # gone (the loop then ends at once) or a passing error: the loop beats again
        thread = threading.Thread(target=self._beat_until, args=(stop, False),
                                  name=f"hudi_log task heartbeat {self.instant}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def stop(self, delete: bool = True) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        if delete:
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass


def reserve_instant(table_path, tw, config: ConcurrencyConfig) -> tuple[str, Heartbeat]:
    """A new instant time that no other process holds, with its heartbeat beating. Two processes may read
    the same latest time off the timeline at once; the heartbeat, created only if absent, decides which
    one gets it, and a time already on the timeline (an instant that has finished since) is skipped."""
    while True:
        instant = tw.new_instant_time()
        beat = Heartbeat(table_path, instant, config)
        try:
            beat.start(exclusive=True)
        except FileExistsError:
            continue  # the next time is after this one
        if any(tw.folder.glob(f"{instant}[._]*")):
            beat.stop(delete=True)
            continue
        return instant, beat
