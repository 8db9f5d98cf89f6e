"""Writing the timeline: instant times and the requested → inflight → completed protocol.

* Instant times are Hudi's ``yyyyMMddHHmmssSSS`` (17 digits) in the table's timeline zone
  (``hoodie.table.timeline.timezone``: UTC, or LOCAL, Java's default, the process's own zone), and strictly
  greater than every instant already on the timeline (requested and completion times, and the archived
  ones of the LSM history, whose file names carry them), so a clock step back or a writer in another zone
  never produces an older time: the next millisecond after the latest is taken instead. (The v6 archive
  needs no look: archival always leaves the newest instants active.)
* File names as :mod:`hudi_log.table.timeline.timeline` parses them: ``{ts}.{action}.requested``,
  ``{ts}.{action}.inflight`` (a ``commit``'s inflight is ``{ts}.inflight``), completed ``{ts}.{action}``
  (layout 1) or ``{ts}_{completion}.{action}`` (layout 2). A compaction completes as ``commit``.
* Completed commit metadata: JSON in layout 1, an Avro container (``HoodieCommitMetadata`` /
  ``HoodieReplaceCommitMetadata``) in layout 2, because hudi-rs refuses JSON there. Rollback metadata is
  Avro in both layouts, as Hudi writes it.
* Every instant file is written to a hidden temporary name in the same folder and renamed into place,
  so a reader never sees half an instant file; the completed file is the commit point.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Mapping

from ...paths import RemotePath, as_path, create_new, write_replace
from . import commit_metadata as cm
from ..properties import TableError, TableProperties
from .timeline import (
    CLEAN, CLUSTERING, COMMIT, COMPACTION, COMPLETED, LOG_COMPACTION, REPLACE_COMMIT, ROLLBACK,
    Instant, Timeline, parse_instant_file_name,
)

INSTANT_FORMAT = "%Y%m%d%H%M%S%f"  # %f is microseconds: cut to milliseconds below
_HISTORY_FILE = re.compile(r"^(\d{14,17})_(\d{14,17})_\d+\.parquet$")
_COMPLETES_AS = {COMPACTION: COMMIT, LOG_COMPACTION: "deltacommit", CLUSTERING: REPLACE_COMMIT}


class TimelineWriteError(TableError):
    """An instant cannot be written (already completed, unknown state or action)."""


def format_instant(t: datetime.datetime) -> str:
    return t.strftime(INSTANT_FORMAT)[:17]


def instant_after(t: str) -> str:
    """The next millisecond after instant ``t`` as an instant string (calendar-correct)."""
    dt = datetime.datetime.strptime(t[:14], "%Y%m%d%H%M%S").replace(microsecond=int(t[14:17] or 0) * 1000)
    return format_instant(dt + datetime.timedelta(milliseconds=1))


class TimelineWriter:
    """Writes instants of one table's active timeline."""

    def __init__(self, table_path, props: TableProperties):
        self.table_path = as_path(table_path)
        self.props = props
        self.layout = props.timeline_layout_version
        self.folder = props.timeline_folder(self.table_path)
        props.check_meta_folders(self.table_path)
        self._last: str | None = None

    # ---- time ----------------------------------------------------------------------------------
    def _latest_on_timeline(self) -> str | None:
        latest = self._last
        if self.folder.is_dir():
            for p in self.folder.iterdir():
                inst = parse_instant_file_name(p.name)
                if inst is None:
                    continue
                for t in (inst.requested_time, inst.completion_time):
                    if t is not None and (latest is None or t > latest):
                        latest = t
        history = self.props.get("hoodie.timeline.history.path")
        folder = self.props.meta_folder(self.table_path, "hoodie.timeline.history.path", "", self.folder) \
            if self.layout >= 2 and history else None
        if folder is not None and folder.is_dir():
            for p in folder.iterdir():
                m = _HISTORY_FILE.match(p.name)  # Java's LSM timeline: {min}_{max}_{level}.parquet
                if m and (latest is None or m.group(2) > latest):
                    latest = m.group(2)
        return latest

    def new_instant_time(self) -> str:
        utc = str(self.props.get("hoodie.table.timeline.timezone") or "LOCAL").upper() == "UTC"
        now = format_instant(datetime.datetime.now(datetime.timezone.utc) if utc else datetime.datetime.now())
        latest = self._latest_on_timeline()
        if latest is not None and now <= latest[:17]:
            now = instant_after(latest)
        self._last = now
        return now

    # ---- files ---------------------------------------------------------------------------------
    def _write_atomic(self, name: str, content: bytes, exclusive: bool = False) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.folder / name
        if exclusive and isinstance(final, RemotePath):
            # a completed instant is never overwritten; pyarrow cannot send S3's If-None-Match, so
            # check-then-PUT under the single-writer rule (hudi_log.paths)
            create_new(final, content)
        else:
            write_replace(final, content)
        return final

    def _pending_names(self, action: str, instant: str) -> tuple[str, str]:
        requested = f"{instant}.{action}.requested"
        inflight = f"{instant}.inflight" if action == COMMIT else f"{instant}.{action}.inflight"
        return requested, inflight

    def _check_not_completed(self, action: str, instant: str) -> None:
        done_action = _COMPLETES_AS.get(action, action)
        for p in self.folder.glob(f"{instant}*"):
            inst = parse_instant_file_name(p.name)
            if inst is not None and inst.state == COMPLETED and inst.requested_time == instant \
                    and inst.action == done_action:
                raise TimelineWriteError(p, f"instant {instant} ({action}) is already completed")

    def requested(self, action: str, instant: str, content: bytes | None = None) -> Path:
        self._check_not_completed(action, instant)
        return self._write_atomic(self._pending_names(action, instant)[0], content or b"")

    def inflight(self, action: str, instant: str, content: bytes | None = None) -> Path:
        self._check_not_completed(action, instant)
        return self._write_atomic(self._pending_names(action, instant)[1], content or b"")

    def encode_completed(self, action: str, metadata: Mapping | bytes) -> bytes:
        """The bytes of a completed instant file of ``action`` for ``metadata``."""
        if isinstance(metadata, (bytes, bytearray)):
            return bytes(metadata)
        if action == ROLLBACK:
            return cm.rollback_metadata_avro(metadata)
        if action == CLEAN:
            raise TimelineWriteError(self.folder, "clean metadata must be given as encoded bytes")
        if self.layout >= 2:
            return cm.commit_metadata_avro(metadata, replace=action == REPLACE_COMMIT)
        return cm.commit_metadata_json(metadata)

    def complete(self, action: str, instant: str, metadata: Mapping | bytes) -> Instant:
        """Write the completed instant (atomically, last). ``metadata``: a dict as
        ``Timeline.commit_metadata`` returns it, or already encoded bytes."""
        done_action = _COMPLETES_AS.get(action, action)
        self._check_not_completed(action, instant)
        content = self.encode_completed(done_action, metadata)
        if self.layout >= 2:
            completion = self.new_instant_time()
            if completion <= instant:
                completion = instant_after(instant)
                self._last = completion
            name = f"{instant}_{completion}.{done_action}"
        else:
            completion = None
            name = f"{instant}.{done_action}"
        path = self._write_atomic(name, content, exclusive=True)
        return Instant(instant, done_action, COMPLETED, completion, name, path)

    def remove_pending(self, action: str, instant: str) -> None:
        """Delete the requested / inflight files of ``instant`` (inflight first, as Hudi does)."""
        requested, inflight = self._pending_names(action, instant)
        for name in (inflight, requested):
            try:
                (self.folder / name).unlink()
            except FileNotFoundError:
                pass

    def timeline(self) -> Timeline:
        return Timeline(self.table_path, self.props)
