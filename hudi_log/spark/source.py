"""The ``hudi_log`` data source: Hudi tables read and written through hudi-log on Spark.

Read::

    spark.read.format("hudi_log")
         .option("hoodie.datasource.query.type", "snapshot")        # | read_optimized | incremental
         .option("as.of.instant", "20250101000000000")              # time travel (snapshot)
         .option("hoodie.datasource.read.begin.instanttime", T1)    # incremental: (T1, T2]
         .option("hoodie.datasource.read.end.instanttime", T2)
         .load(path)

The table is planned once on the driver (:meth:`hudi_log.table.read.query.HudiTable.plan`): the schema, with
the ``_hoodie_*`` meta columns first, is the plan's; each input partition is one file slice, or a group
of small ones; each is merged in a Python worker by :func:`hudi_log.table.read.query.read_slice` and handed to
Spark as Arrow record batches. Filters on partition columns (``=``, ``<``, ``<=``, ``>``, ``>=``,
``IN``) prune file slices at planning time; Spark still applies every filter to the rows.

Write: see :mod:`hudi_log.spark.sink`.
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    LessThan,
    LessThanOrEqual,
)

from ..paths import configure_storage
from ..table.properties import TableError
from .blocks import pack

QUERY_TYPE = "hoodie.datasource.query.type"
AS_OF = "as.of.instant"
BEGIN = "hoodie.datasource.read.begin.instanttime"
END = "hoodie.datasource.read.end.instanttime"
#: file slices smaller than this are grouped into one input partition (up to this many bytes)
TARGET_PARTITION_BYTES = 32 << 20
MAX_SLICES_PER_PARTITION = 64
#: rows per Arrow batch handed to Spark
BATCH_ROWS = 65536

_OPS = {EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<", LessThanOrEqual: "<="}


class HudiReadError(TableError):
    """The read options do not make a query (e.g. incremental without a begin instant)."""


def read_args(options) -> dict:
    """``HudiTable.plan`` arguments from Hudi's read option names."""
    query = (options.get(QUERY_TYPE) or "snapshot").lower()
    args = {"query": query, "as_of": options.get(AS_OF), "begin": options.get(BEGIN), "end": options.get(END)}
    if query == "incremental" and not args["begin"]:
        raise HudiReadError(options.get("path") or "<options>", f"an incremental query needs option {BEGIN}")
    return args


def _plan(options, filters=()):
    from ..table.read.query import HudiTable

    path = options.get("path")
    if not path:
        raise HudiReadError("<options>", "give the table path: spark.read.format('hudi_log').load(path)")
    configure_storage(options)  # fs.s3a.* options reach s3:// tables (hudi_log.paths)
    return HudiTable(path).plan(**read_args(options), filters=list(filters) or None)


def spark_arrow_schema(schema: pa.Schema):
    """(Spark StructType, the Arrow schema Spark expects batches in) for a plan's Arrow schema."""
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    st = from_arrow_schema(schema)
    # Spark takes timestamps from a Python data source's Arrow batches as UTC instants
    return st, to_arrow_schema(st, timezone="UTC")


def partition_filters(filters, partition_fields) -> list[tuple]:
    """The pushed Spark filters that name a top-level partition column, as plan filters."""
    out = []
    for f in filters:
        attr = getattr(f, "attribute", ())
        if len(attr) != 1 or attr[0] not in partition_fields:
            continue
        if isinstance(f, In):
            out.append((attr[0], "in", list(f.value)))
        elif type(f) in _OPS:
            out.append((attr[0], _OPS[type(f)], f.value))
    return out


class SlicesPartition(InputPartition):
    def __init__(self, tasks: list):
        super().__init__(len(tasks))
        self.tasks = tasks


class HudiReader(DataSourceReader):
    def __init__(self, options, plan):
        self.options = options
        self.plan = plan

    def pushFilters(self, filters):
        filters = list(filters)
        from ..table.properties import read_properties

        pfields = read_properties(self.options["path"]).partition_fields
        pruning = partition_filters(filters, set(pfields or ()))
        if pruning:
            pruned = _plan(self.options, pruning)
            # keep the planned schema; only the slice list narrows
            self.plan.tasks = [t for t in self.plan.tasks
                               if (t.partition, t.file_id) in {(p.partition, p.file_id) for p in pruned.tasks}]
        # every filter stays with Spark: pruning drops whole slices only, rows are still filtered there
        return filters

    def partitions(self):
        tasks = [(t, t.size) for t in self.plan.tasks]
        groups = pack(tasks, int(self.options.get("hudi_log.read.targetPartitionBytes", TARGET_PARTITION_BYTES)),
                      MAX_SLICES_PER_PARTITION)
        return [SlicesPartition(g) for g in groups]

    def read(self, partition: SlicesPartition) -> Iterator[pa.RecordBatch]:
        from ..table.read.query import read_slice

        ctx = self.plan.context
        configure_storage(self.options)  # this Python worker's own file systems
        _, target = spark_arrow_schema(ctx.schema)
        # a plan without slices: Spark hands over one placeholder InputPartition
        for task in getattr(partition, "tasks", ()):
            table = read_slice(ctx, task)
            if table.num_rows == 0:
                continue
            table = pa.Table.from_arrays([c.cast(f.type) for c, f in zip(table.columns, target)], schema=target)
            yield from table.to_batches(max_chunksize=BATCH_ROWS)


class HudiDataSource(DataSource):
    """``format("hudi_log")``: a Hudi table (read) or its writer (``df.write``)."""

    @classmethod
    def name(cls) -> str:
        return "hudi_log"

    def _read_plan(self):
        if getattr(self, "_plan", None) is None:
            # planned once: the pickled data source carries the plan from schema() to reader()
            self._plan = _plan(self.options)
        return self._plan

    def schema(self):
        return spark_arrow_schema(self._read_plan().schema)[0]

    def reader(self, schema) -> HudiReader:
        return HudiReader(self.options, self._read_plan())

    def writer(self, schema, overwrite: bool):
        from .sink import HudiWriter

        return HudiWriter(self.options, schema, overwrite)
