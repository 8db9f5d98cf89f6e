"""hudi-log: Apache Hudi Merge-On-Read log files without the JVM."""

from .format.block import LogBlock
from .errors import (
    ContentError,
    CorruptBlockError,
    CorruptBlockWriteError,
    HudiLogError,
    LogFileNameError,
    LogFormatError,
    NotALogFileError,
    ReverseReadError,
    TruncatedLogError,
)
from .format.grammar import BlockType, CommandBlockType, HeaderKey
from .format.reader import open_log, read_reverse
from .format.log_file_name import LogFileName
from .log.writer import AppendResult, LogWriter
from .log.storage import Storage
from .format.framing import write_blocks

__all__ = [
    "BlockType", "CommandBlockType", "ContentError", "CorruptBlockError", "CorruptBlockWriteError", "HeaderKey", "HudiLogError",
    "LogBlock", "LogFileNameError", "LogFormatError", "NotALogFileError", "ReverseReadError",
    "TruncatedLogError", "HudiTable", "AppendHandle", "AppendResult", "LogFileName", "LogWriter", "Storage", "open_log", "read_reverse", "read_table", "write_blocks",
    "write_table",
]


def __getattr__(name: str):
    # The table layer needs pyarrow; load it on first use so that log-file tools start light.
    if name in ("HudiTable", "read_table"):
        from . import table

        return getattr(table, name)
    if name == "write_table":
        from .table.write.client import write_table

        return write_table
    if name == "AppendHandle":
        from .log.append_handle import AppendHandle

        return AppendHandle
    raise AttributeError(f"module 'hudi_log' has no attribute {name!r}")
