"""Log file names: ``.{fileId}_{instant}.log.{version}_{writeToken}`` (and the ``.cdc`` suffix).

Built as Hudi's ``FSUtils.makeLogFileName`` builds them, parsed with Hudi's current regex
(``FileNameParser``, apache/hudi master)::

    ^\\.([^._]+)_([^.]*)\\.(log|archive)\\.(\\d+)(_((\\d+)-(\\d+)-(\\d+))(\\.cdc)?)?$

groups: fileId, instant, extension, version, write token (task partition id, stage id, attempt
id), ``.cdc``. Everything the regex accepts parses (so names without a write token, written before
Hudi 0.5, and the pre-1.0 timeline archive ``.commits_.archive.N_token`` with its empty instant,
parse too); everything else raises ``LogFileNameError``. hudi-rs is stricter (it requires a token
and a non-empty instant, and does not know ``.cdc`` yet); we follow Java.

Sorting follows ``HoodieLogFile.LogFileComparator``: by instant (string order), then version
(numeric), then write token (string order, a missing token first), then suffix (none before
``.cdc``, so a CDC file sorts right after its twin). Java compares files of one file group; for a
total order we break the remaining ties by file id and extension.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from ..errors import LogFileNameError

#: Hudi's current parser regex (anchored; the fileId stops at the first "." or "_")
LOG_FILE_PATTERN = re.compile(r"^\.([^._]+)_([^.]*)\.(log|archive)\.(\d+)(_((\d+)-(\d+)-(\d+))(\.cdc)?)?$")
_WRITE_TOKEN = re.compile(r"^(\d+)-(\d+)-(\d+)$")
_FILE_ID = re.compile(r"^[^._]+$")
_INSTANT = re.compile(r"^[^.]*$")

#: the first version of a log file (``HoodieLogFile.LOGFILE_BASE_VERSION``)
LOGFILE_BASE_VERSION = 1
#: ``HoodieLogFormat.UNKNOWN_WRITE_TOKEN``: a writer without a Spark task context
UNKNOWN_WRITE_TOKEN = "1-0-1"
#: ``HoodieLogFormat.DEFAULT_WRITE_TOKEN``: metadata-table bootstrap files
DEFAULT_WRITE_TOKEN = "0-0-0"
DELTA_EXTENSION = "log"
ARCHIVE_EXTENSION = "archive"
CDC_SUFFIX = ".cdc"
_INT_MAX = 2**31 - 1  # Java parses the version with Integer.parseInt


def make_write_token(task_partition_id: int, stage_id: int, attempt_id: int) -> str:
    """``{taskPartitionId}-{stageId}-{taskAttemptId}`` (``FSUtils.makeWriteToken``)."""
    for name, v in (("task_partition_id", task_partition_id), ("stage_id", stage_id), ("attempt_id", attempt_id)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise LogFileNameError(f"write token part {name} must be a non-negative int, not {v!r}")
    return f"{task_partition_id}-{stage_id}-{attempt_id}"


@functools.total_ordering
@dataclass(frozen=True)
class LogFileName:
    """The parts of a log file name. ``str(name)`` builds it; ``LogFileName.parse`` reads it."""

    file_id: str
    instant: str
    version: int
    write_token: Optional[str] = None
    extension: str = DELTA_EXTENSION
    cdc: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.file_id, str) or not _FILE_ID.match(self.file_id):
            raise LogFileNameError(f"file id {self.file_id!r} must be non-empty and hold no '.' or '_'")
        if not isinstance(self.instant, str) or not _INSTANT.match(self.instant):
            raise LogFileNameError(f"instant {self.instant!r} must hold no '.'")
        if self.extension not in (DELTA_EXTENSION, ARCHIVE_EXTENSION):
            raise LogFileNameError(f"extension {self.extension!r} must be 'log' or 'archive'")
        if not isinstance(self.version, int) or isinstance(self.version, bool) or not 0 <= self.version <= _INT_MAX:
            raise LogFileNameError(f"version {self.version!r} must be an int in 0..{_INT_MAX}")
        if self.write_token is not None and (not isinstance(self.write_token, str) or not _WRITE_TOKEN.match(self.write_token)):
            raise LogFileNameError(f"write token {self.write_token!r} must look like '1-0-1'")
        if self.cdc and self.write_token is None:
            raise LogFileNameError("a .cdc log file name needs a write token")

    # ---- building and parsing ------------------------------------------------------------------
    def __str__(self) -> str:
        name = f".{self.file_id}_{self.instant}.{self.extension}.{self.version}"
        if self.write_token is not None:
            name += f"_{self.write_token}"
        if self.cdc:
            name += CDC_SUFFIX
        return name

    @property
    def name(self) -> str:
        return str(self)

    @classmethod
    def parse(cls, name: str | os.PathLike) -> "LogFileName":
        """Parse a file name (a path's last component is used); raise ``LogFileNameError``."""
        text = os.fspath(name)
        base = text.rsplit("/", 1)[-1]
        m = LOG_FILE_PATTERN.fullmatch(base)  # "$" alone would allow a trailing newline
        if m is None:
            raise LogFileNameError(
                f"{base!r} is not a log file name: expected '.{{fileId}}_{{instant}}.log.{{version}}_{{writeToken}}'"
                " (fileId without '.' or '_', numeric version, token like '1-0-1', optional '.cdc')"
            )
        version = int(m.group(4))
        if version > _INT_MAX:
            raise LogFileNameError(f"{base!r}: version {version} does not fit a Java int")
        return cls(
            file_id=m.group(1), instant=m.group(2), extension=m.group(3), version=version,
            write_token=m.group(6), cdc=m.group(10) is not None,
        )

    @classmethod
    def is_log_file_name(cls, name: str) -> bool:
        try:
            cls.parse(name)
        except LogFileNameError:
            return False
        return True

    # ---- parts ---------------------------------------------------------------------------------
    def _token_part(self, i: int) -> Optional[int]:
        return None if self.write_token is None else int(self.write_token.split("-")[i])

    @property
    def task_partition_id(self) -> Optional[int]:
        return self._token_part(0)

    @property
    def stage_id(self) -> Optional[int]:
        return self._token_part(1)

    @property
    def attempt_id(self) -> Optional[int]:
        return self._token_part(2)

    @property
    def is_delta_log(self) -> bool:
        """A data-table log file (not the timeline archive)."""
        return self.extension == DELTA_EXTENSION

    @property
    def suffix(self) -> str:
        return CDC_SUFFIX if self.cdc else ""

    def rolled_over(self, write_token: Optional[str] = None) -> "LogFileName":
        """The next version (``HoodieLogFile.rollOver``), with ``write_token`` (default: this one)."""
        token = self.write_token if write_token is None else write_token
        return LogFileName(self.file_id, self.instant, self.version + 1, token, self.extension, self.cdc)

    # ---- ordering ------------------------------------------------------------------------------
    def sort_key(self) -> tuple:
        """Hudi's LogFileComparator order, then file id and extension for a total order."""
        token = (0, "") if self.write_token is None else (1, self.write_token)
        return (self.instant, self.version, token, self.suffix, self.file_id, self.extension)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, LogFileName):
            return NotImplemented
        return self.sort_key() < other.sort_key()


def sort_log_files(names: Iterable[str | LogFileName]) -> list[LogFileName]:
    """Parsed and sorted as Hudi orders the log files of a file slice (oldest first)."""
    return sorted(n if isinstance(n, LogFileName) else LogFileName.parse(n) for n in names)


def latest_log_file(
    names: Iterable[str | LogFileName], file_id: str, instant: str,
    extension: str = DELTA_EXTENSION, include_cdc: bool = False,
) -> Optional[LogFileName]:
    """The latest log file of ``file_id`` whose name carries ``instant`` (``FSUtils.getLatestLogFile``).

    Names that are not log files are ignored, as Hudi's directory listing filter ignores them.
    """
    best: Optional[LogFileName] = None
    for n in names:
        if isinstance(n, LogFileName):
            lf = n
        else:
            try:
                lf = LogFileName.parse(n)
            except LogFileNameError:
                continue
        if lf.file_id != file_id or lf.instant != instant or lf.extension != extension:
            continue
        if lf.cdc and not include_cdc:
            continue
        if best is None or best < lf:
            best = lf
    return best


def latest_log_version(
    names: Iterable[str | LogFileName], file_id: str, instant: str, extension: str = DELTA_EXTENSION,
) -> Optional[tuple[int, Optional[str]]]:
    """``(version, write token)`` of the latest log file, as ``FSUtils.getLatestLogVersion``; None if none."""
    lf = latest_log_file(names, file_id, instant, extension)
    return None if lf is None else (lf.version, lf.write_token)
