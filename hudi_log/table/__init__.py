"""Reading whole Hudi tables: properties, timeline, file-system view, merged log scanner, queries."""

from .file_system_view import FileSlice, FileSystemView, list_partitions
from .properties import (NotAHudiTableError, TableError, TableProperties, TablePropertiesError,
                         UnsupportedTableVersionError, read_properties)
from .read import HudiTable, QueryError, read_table
from .scanner import MergedLogScanner
from .timeline import Instant, Timeline, TimelineError

__all__ = ["FileSlice", "FileSystemView", "HudiTable", "Instant", "MergedLogScanner", "NotAHudiTableError",
           "QueryError", "TableError", "TableProperties", "TablePropertiesError", "Timeline", "TimelineError",
           "UnsupportedTableVersionError", "list_partitions", "read_properties", "read_table"]
