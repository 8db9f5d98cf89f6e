"""hudi-log: Apache Hudi Merge-On-Read log files without the JVM."""

from .block import LogBlock
from .errors import (
    ContentError,
    CorruptBlockError,
    HudiLogError,
    LogFileNameError,
    LogFormatError,
    NotALogFileError,
    ReverseReadError,
    TruncatedLogError,
)
from .grammar import BlockType, CommandBlockType, HeaderKey
from .reader import open_log, read_reverse
from .table import HudiTable, read_table
from .writer import write_blocks

__all__ = [
    "BlockType", "CommandBlockType", "ContentError", "CorruptBlockError", "HeaderKey", "HudiLogError",
    "LogBlock", "LogFileNameError", "LogFormatError", "NotALogFileError", "ReverseReadError",
    "TruncatedLogError", "HudiTable", "open_log", "read_reverse", "read_table", "write_blocks",
]
