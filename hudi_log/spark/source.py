"""The ``hudi_log`` data source: Hudi tables read and written through hudi-log on Spark.

Read::

    spark.read.format("hudi_log")
         .option("hoodie.datasource.query.type", "snapshot")        # | read_optimized | incremental
         .option("as.of.instant", "20250101000000000")              # time travel (snapshot)
         .option("hoodie.datasource.read.begin.instanttime", T1)    # incremental: (T1, T2]
         .option("hoodie.datasource.read.end.instanttime", T2)
         .option("hoodie.datasource.query.incremental.format", "cdc")  # incremental: changes (spark.cdc)
         .option("hudi_log.read.strict", "true")                   # a missing or damaged committed file fails
         .option("hoodie.datasource.read.incr.fallback.fulltablescan.enable", "true")  # incremental over cleaned
         .load(path)

An incremental range over commits whose files the cleaner removed fails, naming them
(``IncrementalCommitsGoneError``), unless ``hoodie.datasource.read.incr.fallback.fulltablescan.enable`` is
true: then the latest snapshot filtered by ``_hoodie_commit_time`` (:mod:`hudi_log.table.read.incremental`).

Options the chosen query does not take (``as.of.instant`` with an incremental query, the begin / end
instants with a snapshot) and malformed times are refused (:mod:`hudi_log.table.read.instants`).

The table is planned once on the driver (:meth:`hudi_log.table.read.query.HudiTable.plan`): the schema, with
the ``_hoodie_*`` meta columns first, is the plan's; each input partition is one file slice, or a group
of small ones; each is merged in a Python worker by :func:`hudi_log.table.read.query.read_slice` and handed to
Spark as Arrow record batches. Filters on partition columns (``=``, ``<``, ``<=``, ``>``, ``>=``,
``IN``) prune file slices at planning time. The same comparisons on other top-level columns of exact
types (integers, strings, booleans, dates) are applied to each slice's merged rows in the worker, so rows
Spark would drop are not sent to it; never before the merge, where a log record can still change the value
(Hudi's own readers push filters into the merged file group reader for the same reason). Spark still
applies every filter to the rows: the pushdown only ever sends fewer rows, never decides alone. Floats stay
with Spark (its NaN is equal to itself and above every number; Arrow's comparisons say false), and so do
timestamps and decimals, whose Python values Spark hands over in other units and zones. The Python data
source API of PySpark 4 has no column pruning, so every column is read unless the reader names them.

Both happen only on a Spark that keeps a pushdown's read plan with its own scan (:func:`scan_scoped_pushdown`).
Spark up to 4.3 keeps it on the data source that every scan of one DataFrame shares, so after
``df.where("city = 'x'").count()`` a plain ``df.count()`` read the narrowed slices again and counted only
city x's rows. There, filters stay with Spark alone and every slice is read.

Option ``hudi_log.read.columns`` (comma-separated; :data:`COLUMNS`) is the projection that API cannot
express: only those columns, and the ones the merge needs, are read from base files and decoded from log
blocks (:func:`hudi_log.table.read.query.read_slice`), and only those are handed to Spark.

Write: see :mod:`hudi_log.spark.sink`. Streams: :mod:`hudi_log.spark.stream_sink` (``writeStream``) and
:mod:`hudi_log.spark.stream_source` (``readStream``).
"""

from __future__ import annotations

import json
from dataclasses import replace
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

from ..memory import tune_allocator
from ..paths import configure_storage
from ..table.properties import TableError
from .blocks import pack, spread

QUERY_TYPE = "hoodie.datasource.query.type"
AS_OF = "as.of.instant"
BEGIN = "hoodie.datasource.read.begin.instanttime"
END = "hoodie.datasource.read.end.instanttime"
#: "true": a missing or damaged committed file fails the read (IntegrityError) instead of a warning
STRICT = "hudi_log.read.strict"
#: the columns to read, comma-separated (default: all). PySpark's Python data sources are not told which
#: columns a query uses, so this is how a projection reaches the slices: only these columns and those the
#: merge needs (keys, ordering values, delete markers) are read from the files and handed to Spark
COLUMNS = "hudi_log.read.columns"
#: filters as a JSON list of ``[column, op, value]`` (op ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``in``,
#: ``not in``): those on partition columns prune file slices when the read is planned, every one is applied to
#: the merged rows. PySpark 4.3 cannot keep a pushed filter with its own scan (:func:`scan_scoped_pushdown`),
#: so this option, which belongs to the one DataFrame it is given to, is how pruning reaches the plan there
FILTERS = "hudi_log.read.filters"
_FILTER_OPS = ("=", "==", "!=", "<", "<=", ">", ">=", "in", "not in")
#: without Spark's parallelism (``format("hudi_log")``: a Python data source is not told it), file slices are
#: grouped into input partitions of up to this many bytes: Spark's own ``spark.sql.files.maxPartitionBytes``.
#: (32 MB made 116 tasks of a 10M-row table and the read 10 s; 128 MB 29 tasks, 6.3 s)
TARGET_PARTITION_BYTES = 128 << 20
MAX_SLICES_PER_PARTITION = 64
#: rows per Arrow batch handed to Spark
BATCH_ROWS = 65536
#: with Spark's parallelism known (hudi_log.spark.read passes it), partitions are sized about as Spark sizes
#: its file scans' (``spark.sql.files.maxPartitionBytes``, ``openCostInBytes``): the table over the cores,
#: within these bounds, and in whole waves (a multiple of the cores, of about equal bytes). Each Python task
#: costs 50-70 ms that a JVM task does not (a 10M-row snapshot on 2 cores: 64 tasks 5.4 s, 32 tasks 4.5 s,
#: 8 tasks 3.45-3.9 s, 4 tasks 3.45 s, 2 tasks 3.3 s), so the bound is eight times Spark's 128 MB: about 2.5M
#: rows, a second or two of one core's work
MAX_PARTITION_BYTES = 1 << 30
MIN_PARTITION_BYTES = 4 << 20
#: (internal, from hudi_log.spark.read) the instant the driver planned at, and Spark's default parallelism
PLANNED_AT = "hudi_log.read.planned.instant"
PARALLELISM = "hudi_log.read.parallelism"

_OPS = {EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<", LessThanOrEqual: "<="}
#: column types whose comparisons Arrow makes exactly as Spark does
_ROW_FILTER_TYPES = (pa.types.is_integer, pa.types.is_string, pa.types.is_large_string, pa.types.is_boolean,
                     pa.types.is_date)


class HudiReadError(TableError):
    """The read options do not make a query (e.g. incremental without a begin instant)."""


def read_args(options) -> dict:
    """``HudiTable.plan`` arguments from Hudi's read option names. An option the query does not take, or
    a time that is not an instant, is an error naming the option (hudi_log.table.read.instants)."""
    from ..table.read.instants import query_arguments

    where = options.get("path") or "<options>"
    query = (options.get(QUERY_TYPE) or "snapshot").lower()
    names = {"as_of": f"option {AS_OF}", "begin": f"option {BEGIN}", "end": f"option {END}"}
    args = query_arguments(where, query, options.get(AS_OF), options.get(BEGIN) or None, options.get(END), names)
    return {"query": query, **args, "fallback_full_table_scan": fallback_option(options)}


def fallback_option(options) -> bool:
    """Java's ``hoodie.datasource.read.incr.fallback.fulltablescan.enable`` (Spark lowercases option keys)."""
    from ..table.read.incremental import FALLBACK_OPTION, fallback_enabled

    return fallback_enabled(options.get(FALLBACK_OPTION) or options.get(FALLBACK_OPTION.lower()) or "false")


def _plan(options, filters=()):
    from ..table.read.query import HudiTable

    path = options.get("path")
    if not path:
        raise HudiReadError("<options>", "give the table path: spark.read.format('hudi_log').load(path)")
    configure_storage(options)  # fs.s3a.* options reach s3:// tables (hudi_log.paths)
    strict = str(options.get(STRICT) or "false").lower() == "true"
    args, validate = read_args(options), True
    planned = options.get(PLANNED_AT)
    if planned and args["query"] != "incremental" and args.get("as_of") is None:
        # the half of hudi_log.spark.read the driver left to this source: the same instant as the driver's
        # plan (checked there), which a later commit must not move
        args, validate = {**args, "as_of": planned}, False
    filters = read_filters(options) + list(filters)
    from ..table.metadata_files import ENABLE  # files listed from the metadata table unless this is false
    listing = {ENABLE: options[ENABLE]} if options.get(ENABLE) is not None else None
    plan = HudiTable(path, listing).plan(**args, filters=filters or None, strict=strict, validate=validate)
    # a DataFrame's rows have no order: the merge need not put a slice's rows in its base file's
    plan = replace(plan, context=replace(plan.context, ordered=False))
    columns = read_columns(options)
    if columns:
        names = plan.context.table_schema.names
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise HudiReadError(path, f"option {COLUMNS}: the table has no column {unknown[0]!r} (it has "
                                f"{', '.join(names)})")
        plan = replace(plan, context=replace(plan.context, columns=columns))
    return plan


def read_filters(options) -> list[tuple]:
    """The :data:`FILTERS` option's filters, each checked (an error names the option and the entry)."""
    given = options.get(FILTERS)
    if not given:
        return []
    where = options.get("path") or "<options>"
    try:
        entries = json.loads(given)
    except ValueError as e:
        raise HudiReadError(where, f"option {FILTERS}: not JSON ({e})") from None
    if not isinstance(entries, list):
        raise HudiReadError(where, f"option {FILTERS}: a JSON list of [column, op, value] is needed")
    out = []
    for e in entries:
        ok = isinstance(e, list) and len(e) == 3 and isinstance(e[0], str) and e[1] in _FILTER_OPS
        if ok and e[1] in ("in", "not in"):
            ok = isinstance(e[2], list)
        if not ok:
            raise HudiReadError(where, f"option {FILTERS}: {json.dumps(e)} is not [column, op, value] with op one of "
                                       f"{', '.join(_FILTER_OPS)} (a list for in / not in)")
        out.append(tuple(e))
    return out


def read_columns(options) -> tuple[str, ...]:
    """The :data:`COLUMNS` option's names, in order, each once."""
    given = options.get(COLUMNS) or ""
    return tuple(dict.fromkeys(c.strip() for c in str(given).split(",") if c.strip()))


def spark_arrow_schema(schema: pa.Schema):
    """(Spark StructType, the Arrow schema Spark expects batches in) for a plan's Arrow schema."""
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    st = from_arrow_schema(schema)
    # Spark takes timestamps from a Python data source's Arrow batches as UTC instants
    return st, to_arrow_schema(st, timezone="UTC")


def _as_plan_filter(f) -> tuple | None:
    attr = getattr(f, "attribute", ())
    if len(attr) != 1:
        return None
    if isinstance(f, In):
        return (attr[0], "in", list(f.value))
    if type(f) in _OPS:
        return (attr[0], _OPS[type(f)], f.value)
    return None


def partition_filters(filters, partition_fields) -> list[tuple]:
    """The pushed Spark filters that name a top-level partition column, as plan filters."""
    return [pf for pf in map(_as_plan_filter, filters) if pf is not None and pf[0] in partition_fields]


def row_filters(filters, schema: pa.Schema) -> list[tuple]:
    """The pushed Spark filters a slice can apply to its merged rows exactly as Spark would (see the module
    docstring for the types left to Spark), as plan filters."""
    out = []
    for pf in map(_as_plan_filter, filters):
        if pf is None or pf[0] not in schema.names:
            continue
        typ = schema.field(pf[0]).type
        if not any(is_type(typ) for is_type in _ROW_FILTER_TYPES):
            continue
        try:
            pa.array(pf[2] if pf[1] == "in" else [pf[2]], type=typ)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
            continue  # a value of another type (Spark casts it): left to Spark
        out.append(pf)
    return out


class SlicesPartition(InputPartition):
    def __init__(self, tasks: list):
        super().__init__(len(tasks))
        self.tasks = tasks


def scan_scoped_pushdown() -> bool:
    """True when this PySpark keeps what ``pushFilters`` planned with the one scan it was planned for. Up to 4.3
    Spark stores it on the shared ``PythonDataSourceV2`` (its ``readInfo``) and reuses it for the DataFrame's
    later scans; the change that moved it to the scan builder (SPARK-58551) also brought
    ``DataSourceReader.pushLimit``, which tells the versions apart in the Python worker."""
    return hasattr(DataSourceReader, "pushLimit")


def jvm_scan_scoped_pushdown(spark) -> bool:
    """The same question asked of the running JVM: does ``PythonScanBuilder`` hold the read plan itself?"""
    try:
        cls = spark._jvm.java.lang.Class.forName(
            "org.apache.spark.sql.execution.datasources.v2.python.PythonScanBuilder")
        return any(f.getName() == "readInfo" for f in cls.getDeclaredFields())
    except Exception:  # py4j errors, Spark Connect without a JVM: take the safe answer
        return False


class HudiReader(DataSourceReader):
    def __init__(self, options, plan):
        self.options = options
        self.plan = plan

    def pushFilters(self, filters):
        filters = list(filters)
        if scan_scoped_pushdown():
            self.narrow(filters)
        # every filter stays with Spark: the slices only ever send fewer rows
        return filters

    def narrow(self, filters) -> None:
        """Prune the plan's slices by the partition filters and hand the exact row filters to the slices."""
        from ..table.properties import read_properties

        pfields = read_properties(self.options["path"]).partition_fields
        pruning = partition_filters(filters, set(pfields or ()))
        if pruning:
            pruned = _plan(self.options, pruning)
            # keep the planned schema; only the slice list narrows
            self.plan.tasks = [t for t in self.plan.tasks
                               if (t.partition, t.file_id) in {(p.partition, p.file_id) for p in pruned.tasks}]
        rows = row_filters(filters, self.plan.context.table_schema)
        if rows:
            self.plan.context = replace(self.plan.context, filters=self.plan.context.filters + tuple(rows))

    def partitions(self):
        tasks = [(t, t.size) for t in self.plan.tasks]
        given = self.options.get("hudi_log.read.targetPartitionBytes")
        cores = int(self.options.get(PARALLELISM) or 0)
        if given or cores <= 0:
            groups = pack(tasks, int(given) if given else TARGET_PARTITION_BYTES, MAX_SLICES_PER_PARTITION)
        else:
            groups = spread(tasks, partition_count(sum(n for _, n in tasks), len(tasks), cores))
        return [SlicesPartition(g) for g in groups]

    def read(self, partition: SlicesPartition) -> Iterator[pa.RecordBatch]:
        from ..table.read.query import read_slice

        ctx = self.plan.context
        configure_storage(self.options)  # this Python worker's own file systems
        tune_allocator()  # one slice's memory reused by the next (hudi_log.memory)
        _, target = spark_arrow_schema(ctx.schema)
        # a plan without slices: Spark hands over one placeholder InputPartition
        for task in getattr(partition, "tasks", ()):
            table = read_slice(ctx, task)
            if table.num_rows == 0:
                continue
            table = pa.Table.from_arrays([c.cast(f.type) for c, f in zip(table.columns, target)], schema=target)
            yield from table.to_batches(max_chunksize=BATCH_ROWS)


def partition_count(total: int, slices: int, cores: int) -> int:
    """Input partitions for ``slices`` file slices of ``total`` bytes on ``cores``: whole waves of at most
    MAX_PARTITION_BYTES each, none under MIN_PARTITION_BYTES where the table allows, never more than there
    are slices. (Many small slices in one partition cost nothing per slice beyond their reads.)"""
    waves = max(1, -(-total // (cores * MAX_PARTITION_BYTES)))
    k = min(cores * waves, max(1, total // MIN_PARTITION_BYTES), slices)
    return max(1, k)


class HudiDataSource(DataSource):
    """``format("hudi_log")``: a Hudi table (read) or its writer (``df.write``)."""

    @classmethod
    def name(cls) -> str:
        return "hudi_log"

    def _is_cdc(self) -> bool:
        from .cdc import is_cdc_query

        return (self.options.get(QUERY_TYPE) or "").lower() == "incremental" and is_cdc_query(self.options)

    def _read_plan(self):
        if getattr(self, "_plan", None) is None:
            from .native import narrowed

            # planned once: the pickled data source carries the plan from schema() to reader(); without
            # the base files hudi_log.spark.read gave to Spark's Parquet scan
            self._plan = narrowed(_plan(self.options), self.options)
        return self._plan

    def schema(self):
        if self._is_cdc():  # Hudi's CDC rows: op, ts_ms, before, after (hudi_log.spark.cdc)
            from .cdc import cdc_spark_schema

            if read_columns(self.options):
                raise HudiReadError(self.options.get("path") or "<options>",
                                    f"option {COLUMNS}: a CDC query's rows are op, ts_ms, before and after")
            return cdc_spark_schema()
        return spark_arrow_schema(self._read_plan().schema)[0]

    def reader(self, schema):
        if self._is_cdc():
            from .cdc import HudiCdcReader

            return HudiCdcReader(self.options)
        plan = self._read_plan()
        # a copy: pushFilters narrows the reader's plan, never the data source's (a DataFrame is re-queried)
        return HudiReader(self.options, replace(plan, tasks=list(plan.tasks)))

    def writer(self, schema, overwrite: bool):
        from .sink import HudiWriter, say_refused

        with say_refused():
            return HudiWriter(self.options, schema, overwrite)

    def streamWriter(self, schema, overwrite: bool):
        from .stream_sink import HudiStreamWriter

        return HudiStreamWriter(self.options, schema, overwrite)

    def streamReader(self, schema):
        from .stream_source import HudiStreamReader

        return HudiStreamReader(self.options, schema)
