"""What one write instant is, for every process that takes part in it: the operation and its action
(Hudi's ``WriteOperationType`` and the commit action it completes), the write options under Hudi's
names, and :class:`WriteContext`, the plain, picklable state the driver hands to each task (as Java's
write client hands its ``HoodieWriteConfig`` and index to the executors).

The driver side is :mod:`.client`, the task side :mod:`.task`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


from ...paths import as_path
from .create import (
    option,
)
from ...format.content.bloom import BloomOptions
from ..view.base_file import bloom_options
from .index import DeferredIndex, FileGroupInfo, KeyIndex
from .key_lookup import FileGroupIndex
from .keygen import KeyGenerator
from .keygen_config import key_generator
from ..properties import TableProperties
from ..timeline.timeline import COMMIT, DELTA_COMMIT, REPLACE_COMMIT
from ..errors import OrderingFieldError, WriteError

from .options import OPERATION as OPERATION_OPTION, operation_of, resolve
#: operations that complete a replacecommit (Java's ``WriteOperationType.isOverwrite`` and DELETE_PARTITION)
REPLACE_OPERATIONS = ("insert_overwrite", "insert_overwrite_table", "delete_partition")
#: Java's ``DataSourceWriteOptions.PARTITIONS_TO_DELETE``: comma-separated partition paths, ``*`` a wildcard
PARTITIONS_TO_DELETE = "hoodie.datasource.write.partitions.to.delete"
DEFAULT_MAX_FILE_SIZE = 120 * 1024 * 1024  # hoodie.parquet.max.file.size
DEFAULT_RECORD_SIZE_ESTIMATE = 1024  # hoodie.copyonwrite.record.size.estimate
DEFAULT_SMALL_FILE_LIMIT = 100 * 1024 * 1024  # hoodie.parquet.small.file.limit
SmallFiles = dict[str, list[tuple[str, int]]]  # partition -> [(file id, base file bytes)], in packing order


@dataclass
class WriteContext:
    """What a worker needs to write its share of one instant (plain data; pickles)."""
    table_path: str
    props: dict[str, str]
    instant: str
    action: str
    schema: dict  # the Avro table schema (no meta fields) this instant writes
    operation: str
    index: KeyIndex | DeferredIndex | FileGroupIndex  # record key -> (partition, file id); or per-group facts
    options: dict[str, str]
    file_groups: dict[str, FileGroupInfo] = field(default_factory=dict)  # file id -> latest slice
    records_per_file: int = DEFAULT_MAX_FILE_SIZE // DEFAULT_RECORD_SIZE_ESTIMATE
    key_generator: KeyGenerator | None = None  # resolved once by the driver (begin_write)
    # file id -> (partition, instant) of the pending clustering that took it: updates there are refused
    clustering: dict[str, tuple[str, str]] = field(default_factory=dict)
    # inserts go to these first (.small_files: Java's bin-packing), with this average record size
    small_files: SmallFiles = field(default_factory=dict)
    record_size: int = DEFAULT_RECORD_SIZE_ESTIMATE
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # MERGE_ON_READ file groups whose base file this write rewrites (they take inserts; the Spark
    # partitioner sets it, a single process finds them itself)
    merge_file_ids: frozenset = frozenset()

    @property
    def properties(self) -> TableProperties:
        return TableProperties(self.props, as_path(self.table_path) / ".hoodie" / "hoodie.properties")

    @property
    def bloom(self) -> BloomOptions:
        """The bloom filter every base file of this write carries (checked when the write began)."""
        return bloom_options(self.props, self.options)

    @property
    def keygen(self) -> KeyGenerator:
        """The table's key generator (:mod:`.keygen_config`), as the driver resolved it for this write."""
        if self.key_generator is None:
            self.key_generator = key_generator(self.table_path, self.props, self.options)
        return self.key_generator


def normalise_options(options: Mapping | None) -> dict[str, str]:
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in (options or {}).items()}


def resolve_operation(operation: str | None, options: Mapping) -> str:
    """The write's operation: the explicit argument (a CLI flag, ``write_table``'s ``operation``) or Hudi's
    ``hoodie.datasource.write.operation``, default upsert, resolved by :func:`.options.resolve`: the two
    disagreeing is an error, never a silent choice of one (a ``delete`` given as an option and overridden by a
    default would keep the rows)."""
    return operation_of(resolve(options, {OPERATION_OPTION: operation}, {OPERATION_OPTION: "the operation"}))


def action_for(props: TableProperties, operation: str) -> str:
    if operation in REPLACE_OPERATIONS:
        return REPLACE_COMMIT
    return DELTA_COMMIT if props.is_mor else COMMIT


def replaced_file_groups(ctx: "WriteContext", written_partitions, written_ids) -> dict[str, list[str]]:
    """The file groups a replacecommit replaces (``partitionToReplaceFileIds``), by partition: for
    ``insert_overwrite`` every group of the partitions written, for ``insert_overwrite_table`` every group of
    the table (Java's ``SparkInsertOverwriteTableCommitActionExecutor``), for ``delete_partition`` every group
    of the partitions :data:`PARTITIONS_TO_DELETE` names (``*`` matches within a segment, as Java's
    ``HoodieSparkSqlWriter`` resolves the wildcard); never a group this instant wrote."""
    import fnmatch

    if ctx.operation == "delete_partition":
        patterns = [p.strip() for p in str(ctx.options.get(PARTITIONS_TO_DELETE, "")).split(",") if p.strip()]
        taken = lambda part: any(fnmatch.fnmatchcase(part, pat) and part.count("/") == pat.count("/")  # noqa: E731
                                 for pat in patterns)
    elif ctx.operation == "insert_overwrite_table":
        taken = lambda part: True  # noqa: E731
    else:
        taken = lambda part: part in written_partitions  # noqa: E731
    out: dict[str, list[str]] = {}
    for g in ctx.file_groups.values():
        if taken(g.partition) and g.file_id not in written_ids:
            out.setdefault(g.partition, []).append(g.file_id)
    return {p: sorted(v) for p, v in out.items()}


# ---- the worker -----------------------------------------------------------------------------------
def combine_option(ctx: WriteContext | str) -> str:
    """The Hudi option that says whether this operation (a context's, or named) combines rows of one key:
    ``hoodie.combine.before.upsert`` / ``.delete``, and ``.insert`` for insert, bulk_insert and insert_overwrite."""
    op = ctx if isinstance(ctx, str) else ctx.operation
    return f"hoodie.combine.before.{op if op in ('upsert', 'delete') else 'insert'}"


def combines(ctx: WriteContext) -> bool:
    """Whether rows of one key are combined before writing (:func:`combine_option`; default true for
    upsert and delete, false for the inserts). Turned off, duplicates are written as they come, as
    Hudi does."""
    return combines_rows(ctx.operation, ctx.options)


def combines_rows(operation: str, options: Mapping) -> bool:
    """:func:`combines` for an operation and options, before a context exists."""
    name = combine_option(operation)
    default = "false" if name.endswith(".insert") else "true"
    return option(options, name, default=default).lower() == "true"


def check_ordering_columns(table_path, fields, options: Mapping, names, operation: str) -> None:
    """The refusal of an input whose columns ``names`` lack an ordering field (``fields``: the table's, or a
    new table's from the options) where the operation combines rows of one key by it: Java's Spark writer
    reads each record's ordering value then and fails on a missing field (``HoodieCreateRecordUtils``, with
    ``getNestedFieldVal(..., returnNullIfNotFound=false)``). A delete builds keys only and is never refused;
    an insert combines only with ``hoodie.combine.before.insert``. Made on the driver before anything starts."""
    if operation in ("delete", "delete_partition") or not combines_rows(operation, options):
        return
    names = set(names)
    missing = [f for f in fields if f and f.split(".")[0] not in names]  # a nested field: its top column
    if missing:
        raise OrderingFieldError(table_path, f"the input has no ordering (precombine) column(s) {missing}, which "
                                 f"{operation} combines rows of one key by; add the column, or set "
                                 f"{combine_option(operation)}=false to write the rows as they come")
