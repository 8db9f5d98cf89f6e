"""The table layer: whole Hudi tables, as Hudi's ``hudi-common`` table packages and ``hudi-client``'s
actions organise them (docs/architecture.md):

* :mod:`.properties`, :mod:`.schema`, :mod:`.errors`, :mod:`.markers`: what every part below shares;
* :mod:`.timeline`: instants, reading and writing the timeline, commit metadata, pending plans;
* :mod:`.view`: the file-system view (partitions, file groups, slices) and base files;
* :mod:`.read`: query plans, the merged log scanner, the columnar slice merge;
* :mod:`.services`: compaction, clean and rollback;
* :mod:`.write`: table creation, key generators, the index, and the write client;
* :mod:`.validate`: a whole table checked (properties, instant metadata, committed files, log files).

This module is the layer's public face: what users import from ``hudi_log.table``.
"""

from .properties import (NotAHudiTableError, TableError, TableProperties, TablePropertiesError,
                         UnsupportedTableVersionError, read_properties)
from .read.query import (HudiTable, QueryError, ReadContext, ReadPlan, SliceTask, iter_plan, read_plan, read_slice,
                         read_table)
from .read.integrity import IntegrityWarning
from .read.scanner import MergedLogScanner
# the services keep the module names the README has always given them: hudi_log.table.compaction.compact(path),
# hudi_log.table.clean.clean(path, retain_commits=N)
from .services import clean, compaction, rollback
from .timeline.timeline import Instant, Timeline, TimelineError
from .view.file_system_view import FileSlice, FileSystemView, list_partitions
from .errors import IntegrityError
from .validate import TableReport, validate_table

__all__ = ["FileSlice", "FileSystemView", "HudiTable", "Instant", "IntegrityError", "IntegrityWarning",
           "MergedLogScanner", "NotAHudiTableError", "TableReport", "validate_table",
           "QueryError", "ReadContext", "ReadPlan", "SliceTask", "TableError", "TableProperties", "TablePropertiesError",
           "Timeline", "TimelineError", "UnsupportedTableVersionError", "clean", "compaction", "iter_plan",
           "list_partitions", "read_plan", "read_properties", "read_slice", "read_table", "rollback", "write_table"]


def __getattr__(name: str):
    # the write client loads on first use, as hudi_log.write_table does: readers need none of it
    if name == "write_table":
        from .write.client import write_table
        return write_table
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
