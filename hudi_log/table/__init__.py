"""Reading whole Hudi tables: properties, timeline, file-system view, merged log scanner, queries."""

from .file_system_view import FileSlice, FileSystemView, list_partitions
from .properties import (NotAHudiTableError, TableError, TableProperties, TablePropertiesError,
                         UnsupportedTableVersionError, read_properties)
from .read import (HudiTable, QueryError, ReadContext, ReadPlan, SliceTask, iter_plan, read_plan, read_slice,
                   read_table)
from .scanner import MergedLogScanner
from .timeline import Instant, Timeline, TimelineError

__all__ = ["FileSlice", "FileSystemView", "HudiTable", "Instant", "MergedLogScanner", "NotAHudiTableError",
           "QueryError", "ReadContext", "ReadPlan", "SliceTask", "TableError", "TableProperties", "TablePropertiesError", "Timeline", "TimelineError",
           "UnsupportedTableVersionError", "iter_plan", "list_partitions", "read_plan", "read_properties", "read_slice", "read_table"]
