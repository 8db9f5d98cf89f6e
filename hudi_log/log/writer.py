"""LogWriter: appends blocks to the log files of one file group, as ``HoodieLogFormatWriter`` does.

* ``append_blocks(blocks)`` writes every block's bytes (each from the grammar's serializer, via
  ``LogBlock.to_bytes``), then flushes and fsyncs once, and returns
  ``AppendResult(log_file, start_offset, bytes_written)``.
* The file is created lazily, on the first append.
* After an append, when the file is larger than ``size_threshold`` (Hudi's
  ``hoodie.logfile.max.size``, 1 GiB) the writer closes it and rolls over: the next append goes to
  version + 1 with the writer's own write token.
* Which file the first append goes to (``HoodieLogFormat.WriterBuilder`` + ``getOutputStream``):
  the latest existing log file of the slice (same file id and instant) is the target; if there is
  none, version 1 with the writer's token. If the target exists:

  - table version < 8 and storage that can append (local disk, HDFS): reopen it and append, as
    Hudi 0.x did on HDFS — unless another live writer holds it (the local-disk lock stands in
    for the HDFS lease), then roll over;
  - table version >= 8, or storage that cannot append (object stores): roll over.

  New files are created exclusively; a ``FileExistsError`` (another writer created that version
  first) means roll over and retry, so two writers on one file group always end up in two files.

Crash safety: blocks are written whole and in order, with nothing before or between them, so a
writer killed at any point leaves the earlier blocks intact and at most one partial block at the
end, which the reader reports as a CORRUPT_BLOCK. Nothing here ever rewrites or truncates bytes
that are already in a file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from ..format.block import LogBlock
from ..errors import HudiLogError, LogFileNameError
from ..paths import naming
from ..format.log_file_name import (
    DELTA_EXTENSION,
    LOGFILE_BASE_VERSION,
    UNKNOWN_WRITE_TOKEN,
    LogFileName,
    latest_log_file,
)
from .storage import OutputFile, Storage

#: ``hoodie.logfile.max.size``: roll over to a new log version past this size
DEFAULT_LOG_FILE_MAX_SIZE = 1024 * 1024 * 1024
#: first table version that never appends to an existing log file (Hudi 1.0)
FIRST_NO_APPEND_TABLE_VERSION = 8
#: how many existing versions a writer skips before giving up (a runaway guard)
_MAX_ROLLOVERS_PER_OPEN = 10_000


class LogWriterError(HudiLogError):
    """The log writer cannot go on (it is closed, or a write failed and closed it)."""


class LogWriterClosedError(LogWriterError):
    """The writer is closed (Hudi: IllegalStateException on a closed writer)."""


@dataclass(frozen=True)
class AppendResult:
    """Where one ``append_blocks`` call put its bytes (Hudi's ``AppendResult``)."""

    log_file: LogFileName
    path: str
    start_offset: int
    bytes_written: int


class LogWriter:
    """Writes blocks to the log files of one file group in one partition directory."""

    def __init__(
        self,
        partition_dir: str,
        file_id: str,
        instant: str,
        *,
        table_version: int = 6,
        write_token: str = UNKNOWN_WRITE_TOKEN,
        size_threshold: int = DEFAULT_LOG_FILE_MAX_SIZE,
        storage: Optional[Storage] = None,
        version: Optional[int] = None,
        extension: str = DELTA_EXTENSION,
        cdc: bool = False,
    ):
        """
        ``instant`` is the instant in the file name: for table version < 8 the base instant of
        the latest file slice (or the writing instant for a new log-only file group), for 8 and
        up the writing (delta commit) instant. ``write_token`` is this writer's token, used for
        every file it creates. ``version``: start from this log version instead of looking up the
        latest one on storage.
        """
        if size_threshold <= 0:
            raise ValueError(f"size_threshold must be positive, not {size_threshold}")
        self.storage = storage if storage is not None else Storage()
        self.partition_dir = partition_dir
        self.table_version = table_version
        self.write_token = write_token
        self.size_threshold = size_threshold
        if version is None:
            same_kind = []
            for name in self.storage.list_names(partition_dir):
                if file_id not in name:  # another group's file: not worth parsing (thousands in a partition)
                    continue
                try:
                    lf = LogFileName.parse(name)
                except LogFileNameError:
                    continue
                if lf.cdc == cdc:
                    same_kind.append(lf)
            latest = latest_log_file(same_kind, file_id, instant, extension, include_cdc=cdc)
            if latest is not None:
                self._log_file = latest  # its own version and token
            else:
                self._log_file = LogFileName(file_id, instant, LOGFILE_BASE_VERSION, write_token, extension, cdc)
        else:
            self._log_file = LogFileName(file_id, instant, version, write_token, extension, cdc)
        self._out: Optional[OutputFile] = None
        self._synced: Optional[int] = None  # where the current file was last fsynced
        self._closed = False
        #: every file this writer created or appended to, in order
        self.files_written: list[LogFileName] = []
        self._created: set[str] = set()  # files this writer created (a failed first append removes them)

    # ---- state ---------------------------------------------------------------------------------
    @property
    def log_file(self) -> LogFileName:
        """The file the next append goes to (or the one being written)."""
        return self._log_file

    @property
    def path(self) -> str:
        return self.storage.join(self.partition_dir, str(self._log_file))

    @property
    def appends_allowed(self) -> bool:
        """Whether an existing target file is reopened (else the writer rolls over)."""
        return self.table_version < FIRST_NO_APPEND_TABLE_VERSION and self.storage.supports_append

    @property
    def current_size(self) -> int:
        """Bytes in the current file (0 before it is opened or right after a rollover)."""
        self._check_open()
        return self._out.tell() if self._out is not None else 0

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise LogWriterClosedError(f"log writer for {self._log_file} is closed")

    # ---- opening -------------------------------------------------------------------------------
    def _roll(self) -> None:
        self._log_file = self._log_file.rolled_over(self.write_token)

    def _open(self) -> OutputFile:
        self.storage.makedirs(self.partition_dir)
        for _ in range(_MAX_ROLLOVERS_PER_OPEN):
            path = self.path
            out: Optional[OutputFile] = None
            if self.storage.exists(path):
                if self.appends_allowed:
                    try:
                        out = self.storage.open_append(path)
                    except FileNotFoundError:  # deleted meanwhile: create it below
                        out = None
                    except OSError:  # e.g. HDFS "already being created" / lease held: Hudi rolls over
                        self._roll()
                        continue
                    if out is not None and not out.try_lock():
                        out.close()  # another live writer has it ("already being created")
                        out = None
                        self._roll()
                        continue
                else:
                    self._roll()
                    continue
            if out is None:
                try:
                    out = self.storage.create(path)
                except FileExistsError:
                    self._roll()
                    continue
                self._created.add(path)
                if not out.try_lock():  # pragma: no cover - only if someone locks a file we just made
                    out.close()
                    self._roll()
                    continue
            self.files_written.append(self._log_file)
            return out
        raise LogWriterError(f"no free log version for {self._log_file.file_id} after {_MAX_ROLLOVERS_PER_OPEN} tries")

    # ---- writing -------------------------------------------------------------------------------
    def append_blocks(self, blocks: Sequence[LogBlock] | Iterable[LogBlock]) -> AppendResult:
        """Write ``blocks`` in one go, flush + fsync, then roll over if the file passed the threshold."""
        self._check_open()
        blocks = list(blocks)
        if not blocks:
            raise ValueError("append_blocks needs at least one block")
        for b in blocks:
            if not isinstance(b, LogBlock):
                raise TypeError(f"append_blocks takes LogBlock objects, not {type(b).__name__}")
        # Serialize first: a block the grammar refuses stops the append before any byte is written.
        data = [part for b in blocks for part in b.byte_parts()]  # framed content chunks are not joined
        if self._out is None:
            self._out = self._open()
        out = self._out
        log_file, path = self._log_file, self.path
        start = out.tell()
        try:
            for chunk in data:
                out.write(chunk)
            out.sync()
            self._synced = out.tell()
        except BaseException as e:
            self._abort()
            self._undo(path, start)
            raise naming(e, path)
        result = AppendResult(log_file, path, start, out.tell() - start)
        if out.tell() > self.size_threshold:
            self.roll_over()
        return result

    def roll_over(self) -> None:
        """Close the current file; the next append goes to the next version (Hudi ``rollOver``)."""
        self._check_open()
        if self._out is not None:
            out, self._out = self._out, None
            try:
                self._sync_if_written(out)
            finally:
                out.close()
        self._roll()

    def _sync_if_written(self, out) -> None:
        # every append already synced what it wrote: only bytes written since need another fsync
        if out.tell() != self._synced:
            out.sync()

    def _undo(self, path: str, start: int) -> None:
        """After a failed append (a full disk): no partial block is left. A file this writer created and had
        written nothing else to goes; on local disk, another is cut back to where the append began. (Java
        leaves the tail for readers to skip as a corrupt block; taking it away frees the space the rollback
        that follows needs.)"""
        try:
            if start == 0 and path in self._created:
                self.storage.delete(path)
                self.files_written = [f for f in self.files_written if f != self._log_file]
            elif self.storage.is_local:
                os.truncate(path, start)
        except OSError:
            pass  # the write error is the one to report; the rollback takes the file

    def _abort(self) -> None:
        self._closed = True
        out, self._out = self._out, None
        if out is not None:
            try:
                out.close()
            except Exception:  # the write error is the one to report
                pass

    def close(self) -> None:
        """Flush, sync and close the current file. Idempotent."""
        if self._closed:
            return
        self._closed = True
        out, self._out = self._out, None
        if out is not None:
            try:
                self._sync_if_written(out)
            finally:
                out.close()

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("open" if self._out is not None else "lazy")
        return f"LogWriter({self.path!r}, {state})"
