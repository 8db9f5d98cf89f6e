"""CDC reads on Spark: ``hoodie.datasource.query.type=incremental`` with
``hoodie.datasource.query.incremental.format=cdc``, in batch and in the streaming source (Hudi's
``CDCRelation`` / ``HoodieCDCRDD`` and the CDC branch of ``HoodieStreamSource``).

Rows are Hudi's four nullable strings, ``op``, ``ts_ms``, ``before``, ``after``
(:mod:`hudi_log.table.read.cdc`). The driver picks the instants; each input partition is one instant,
whose changes a Python worker computes (its file groups before and after it, or its CDC log files).
Batch reads take the instants with requested times in (begin, end], as Java's extractor does; the
streaming source passes the instants of its own offsets (completion times on table version 8 and up),
so that every change is read once across batches.
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition

from ..memory import tune_allocator
from ..paths import configure_storage
from ..table.cdc import CDC_ARROW_SCHEMA, INCREMENTAL_FORMAT
from .source import BATCH_ROWS


def is_cdc_query(options) -> bool:
    """``hoodie.datasource.query.incremental.format`` is ``cdc`` (Spark may hand option names lower-cased)."""
    fmt = options.get(INCREMENTAL_FORMAT) or options.get(INCREMENTAL_FORMAT.lower()) or "latest_state"
    return str(fmt).lower() == "cdc"


def cdc_spark_schema():
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(CDC_ARROW_SCHEMA)


class InstantPartition(InputPartition):
    def __init__(self, path: str, requested_time: str):
        super().__init__(requested_time)
        self.path = path
        self.requested_time = requested_time


def instant_partitions(path: str, requested_times) -> list[InstantPartition]:
    return [InstantPartition(path, t) for t in requested_times]


def read_instant(options, partition: InstantPartition) -> Iterator[pa.RecordBatch]:
    """The changes of one instant, as record batches of the CDC schema."""
    from ..table.read.cdc import changes_table

    configure_storage(options)  # this Python worker's own file systems
    tune_allocator()  # one slice's memory reused by the next (hudi_log.memory)
    table = changes_table(partition.path, [partition.requested_time])
    if table.num_rows:
        yield from table.to_batches(max_chunksize=BATCH_ROWS)


class HudiCdcReader(DataSourceReader):
    """A batch CDC read: the instants are chosen on the driver when the reader is made."""

    def __init__(self, options):
        from ..table.read.cdc import cdc_instants
        from .source import BEGIN, END, HudiReadError

        self.options = options
        path = options.get("path")
        begin = options.get(BEGIN)
        if not begin:
            raise HudiReadError(path or "<options>", f"a CDC query needs option {BEGIN} (use 0 for the first change)")
        configure_storage(options)
        self.times = cdc_instants(path, begin, options.get(END) or None)

    def partitions(self):
        return instant_partitions(self.options["path"], self.times)

    def read(self, partition) -> Iterator[pa.RecordBatch]:
        if isinstance(partition, InstantPartition):  # no instant: Spark hands over one placeholder
            yield from read_instant(self.options, partition)
