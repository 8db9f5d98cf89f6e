"""Typed errors. Every error about a file names the file, the byte offset and the field."""

from __future__ import annotations


class HudiLogError(Exception):
    """Base class of every error hudi-log raises on purpose."""


class LogFormatError(HudiLogError):
    """Bytes that do not follow the log format, at a known place in a known file."""

    def __init__(self, path: str | None, offset: int, field: str, message: str):
        self.path = path
        self.offset = offset
        self.field = field
        self.message = message
        where = path if path is not None else "<bytes>"
        super().__init__(f"{where}: offset {offset}: {field}: {message}")


class NotALogFileError(LogFormatError):
    """The file does not start with the block magic: it is not a Hudi log file."""


class TruncatedLogError(LogFormatError):
    """The file ends inside a block (strict reading only; the default reader reports a corrupt block)."""


class CorruptBlockError(LogFormatError):
    """A block is damaged (strict reading only; the default reader reports a corrupt block)."""


class ReverseReadError(LogFormatError):
    """Reading backwards met damage; read the file forward instead, which recovers the intact blocks."""


class ContentError(LogFormatError):
    """A block's framing is intact but its content cannot be decoded (records, deletes, Parquet, HFile)."""


class CorruptBlockWriteError(HudiLogError, ValueError):
    """A block of type CORRUPT_BLOCK was to be written. Only a reader reports one (for a damaged span,
    as Hudi's HoodieLogFileReader does); no Hudi writer writes it, and Hudi's reader has no case for
    one found on disk."""


class LogFileNameError(HudiLogError, ValueError):
    """A log file name that does not follow `.{fileId}_{instant}.log.{version}_{writeToken}`."""


class AppendHandleError(HudiLogError):
    """A log write cannot do what was asked (closed handle, wrong table version, a schema it cannot
    write). Raised by the log layer's AppendHandle and by the schema helpers below it."""


class DamagedFileError(HudiLogError):
    """A file of a table (a base Parquet file, an LSM history file) is there but its bytes cannot be read as
    what its name says: truncated, garbled, not that format. ``path`` names it."""

    def __init__(self, path, message: str):
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")
