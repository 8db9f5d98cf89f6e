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
* A reader never sees half an instant file: on local disk it is written to a hidden temporary name in the
  same folder and renamed (inflight) or hard-linked (requested, completed) into place; on an object store a
  PUT is visible whole. The completed file is the commit point.
* Requested and completed files are created, never replaced (Java's ``createImmutableFileInPath``): on local
  disk and S3 atomically (:func:`hudi_log.paths.create_new`: the link fails, or the store refuses the PUT with
  ``If-None-Match: *``), so of two writers completing one instant exactly one succeeds and the other gets
  :class:`InstantCompletedError`. In layout 2 the completed name carries the completion time, so there two
  writers holding one instant would not aim at one name: reserving the instant time (its heartbeat, created
  the same way) is what keeps two writers off one instant.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Mapping

from ...paths import as_path, create_new, write_replace
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


class InstantCompletedError(TimelineWriteError):
    """The instant is already completed: found before writing, or the completed file's name was taken while
    this writer wrote it (the store refused to replace it). ``instant`` names it."""

    def __init__(self, path, instant: str, message: str):
        self.instant = instant
        super().__init__(path, message)


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
        """Write instant file ``name``; ``exclusive``: create it, FileExistsError if it exists."""
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.folder / name
        if exclusive:
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
                raise InstantCompletedError(p, instant, f"instant {instant} ({action}) is already completed")

    def requested(self, action: str, instant: str, content: bytes | None = None) -> Path:
        self._check_not_completed(action, instant)
        name = self._pending_names(action, instant)[0]
        try:  # a new instant's first file: its time is reserved, so one that exists is another writer's
            return self._write_atomic(name, content or b"", exclusive=True)
        except FileExistsError:
            raise TimelineWriteError(self.folder / name, f"instant {instant} ({action}) was already requested "
                                     "by another writer; nothing of this one was written") from None

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
        try:
            path = self._write_atomic(name, content, exclusive=True)
        except FileExistsError:  # the name was taken since the check: another writer completed it first
            raise InstantCompletedError(self.folder / name, instant, f"instant {instant} ({action}) was completed "
                                        "by another writer while this one completed it; its completed file "
                                        "stands, this writer's was not written") from None
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
