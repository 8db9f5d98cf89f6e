"""The ``hudi_log`` streaming source: ``spark.readStream.format("hudi_log").load(path)``, each micro-batch
the incremental read of the instants completed since the last offset (Apache Hudi's
``HoodieStreamSource`` / ``HoodieStreamSourceV2`` and ``HoodieSourceOffset``).

Offsets are Hudi's checkpoint format, ``{"offsetCommitTime": t}`` (``HoodieSourceOffset``'s JSON), with
``t`` a *completion* time on table version ≥ 8 (V2 source: the batch reads the write instants completed
in (start, end]) and a *requested* time below (V1 source: commit times in (start, end]). The first
offset, ``hoodie.datasource.streaming.startOffset``:

* ``earliest`` (default): ``00000000000000`` (``HoodieTimeline.INIT_INSTANT_TS``), so the first batch
  reads every commit still on the active timeline;
* ``latest``: the latest completed instant's time (changes from then on only);
* an instant time: changes completed after it.

``latestOffset`` is the latest completed instant's time (on version < 8, the newest completed commit
requested before the earliest pending write, so that a write completing late is not passed over: Java's
V1 source can skip it). Spark checkpoints the offsets, so a query restarted from its checkpoint
continues after the last batch it committed: no change is lost or read twice.

Each batch is planned on the driver (:meth:`hudi_log.table.read.query.HudiTable.plan` with
``query="incremental"``), its file slices read in the tasks as the batch reader does, the rows conformed
to the stream's schema (the table's schema when the query started; columns added later are not read,
missing ones are null).

With ``hoodie.datasource.query.incremental.format=cdc`` (a table with CDC on) each batch is the CDC rows
(``op``, ``ts_ms``, ``before``, ``after``) of the same instants, one input partition per instant
(:mod:`hudi_log.spark.cdc`): deletes reach the consumer.

Over cleaned or archived commits (a stream started from ``earliest``, or one that fell behind the cleaner):
a batch whose commits' files are gone fails, naming them (``IncrementalCommitsGoneError``), as Java's
source fails on the missing files; with ``hoodie.datasource.read.incr.fallback.fulltablescan.enable=true``
that batch is the latest snapshot's rows whose ``_hoodie_commit_time`` is in its range (Java's full table
scan; :mod:`hudi_log.table.read.incremental`). The offsets are the same either way.

Rate limit: Java's Spark source has none in a release (HUDI-6129's pull requests were not merged; Flink
has ``read.commits.limit``). ``hudi_log.streaming.maxRowsPerTrigger`` caps a batch at the whole commits
whose write stats count at most that many changed rows (inserts + updates + deletes; at least one
commit): Spark's ``ReadMaxRows``. ``Trigger.AvailableNow`` reads up to the offset at its start, in
batches of that size.
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows, SupportsTriggerAvailableNow

from ..memory import tune_allocator
from ..paths import as_path, configure_storage
from .source import BATCH_ROWS, MAX_SLICES_PER_PARTITION, TARGET_PARTITION_BYTES, HudiReadError, fallback_option
from .blocks import pack
from .cdc import instant_partitions, is_cdc_query, read_instant

START_OFFSET = "hoodie.datasource.streaming.startOffset"
MAX_ROWS = "hudi_log.streaming.maxRowsPerTrigger"
OFFSET_KEY = "offsetCommitTime"
#: pending instants that will complete with new changes (a compaction only rewrites them)
_DATA_WRITES = ("commit", "deltacommit", "replacecommit")
INIT_INSTANT_TS = "00000000000000"


def _option(options, key: str, default=None):
    for k in (key, key.lower()):
        if k in options:
            return options[k]
    return default


def _time(offset: dict) -> str:
    try:
        return str(offset[OFFSET_KEY])
    except (KeyError, TypeError):
        raise HudiReadError("<offset>", f"not a Hudi source offset: {offset!r} (expected {{{OFFSET_KEY!r}: time}})")


class _Timeline:
    """The table's write instants as the source orders them: (offset time, requested time, changed rows)."""

    def __init__(self, path: str):
        from ..table.properties import read_properties
        from ..table.timeline.timeline import Timeline

        self.path = path
        self.props = read_properties(path)
        self.timeline = Timeline(as_path(path), self.props)
        self.by_completion = self.props.version >= 8

    def commits(self) -> list:
        done = self.timeline.completed_commits()
        if self.by_completion:
            return sorted(done, key=lambda i: i.completion_time or i.requested_time)
        pending = [i.requested_time for i in self.timeline.pending() if i.action in _DATA_WRITES]
        if pending:  # a write requested earlier may still complete: do not pass over it
            done = [i for i in done if i.requested_time < min(pending)]
        return sorted(done, key=lambda i: i.requested_time)

    def time_of(self, inst) -> str:
        return (inst.completion_time or inst.requested_time) if self.by_completion else inst.requested_time

    def latest(self) -> str | None:
        if self.by_completion:
            # Java V2: the latest completion time of any completed instant
            times = [i.completion_time or i.requested_time for i in self.timeline.completed()]
            return max(times) if times else None
        commits = self.commits()
        return commits[-1].requested_time if commits else None

    def rows(self, inst) -> int:
        from ..table.timeline.commit_metadata import write_stats

        stats = write_stats(self.timeline.commit_metadata(inst))
        return sum(int(s.get(k) or 0) for s in stats for k in ("numInserts", "numUpdateWrites", "numDeletes"))


class StreamSlices(InputPartition):
    def __init__(self, context, tasks: list):
        super().__init__(len(tasks))
        self.context = context
        self.tasks = tasks


class HudiStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Lives on the driver for the query's run (offsets, planning); ``read`` runs in the tasks."""

    def __init__(self, options, schema):
        path = options.get("path")
        if not path:
            raise HudiReadError("<options>", "give the table path: spark.readStream.format('hudi_log').load(path)")
        self.cdc = is_cdc_query(options)
        if self.cdc:  # changes, not rows: each batch's instants' CDC rows (hudi_log.spark.cdc)
            from ..table.read.cdc import CdcQueryError, open_cdc_table

            try:
                open_cdc_table(path)
            except CdcQueryError as e:
                raise HudiReadError(path, e.message) from None
        self.path = path
        self.options = dict(options)
        configure_storage(self.options)  # fs.s3a.* options reach an s3:// table (hudi_log.paths)
        self.target = spark_arrow_schema_of(schema)
        self.start_option = str(_option(options, START_OFFSET, "earliest")).strip()
        limit = _option(options, MAX_ROWS)
        if limit is not None and (not str(limit).isdigit() or int(limit) < 1):
            raise HudiReadError(path, f"{MAX_ROWS}={limit!r}: give a positive number of rows")
        self.max_rows = int(limit) if limit is not None else None
        self.until: str | None = None  # Trigger.AvailableNow: the offset time at its start
        self.fallback = fallback_option(options)  # a batch over cleaned commits: scan instead of failing
        self.initialOffset()  # a bad start offset is refused when the query starts

    def initialOffset(self) -> dict:
        from ..table.errors import QueryError
        from ..table.read.instants import parse_instant

        start = self.start_option.lower()
        if start == "earliest":
            return {OFFSET_KEY: INIT_INSTANT_TS}
        if start == "latest":
            return {OFFSET_KEY: _Timeline(self.path).latest() or INIT_INSTANT_TS}
        try:
            return {OFFSET_KEY: parse_instant(self.start_option, START_OFFSET, self.path)}
        except QueryError:
            raise HudiReadError(self.path, f"{START_OFFSET}={self.start_option!r}: use earliest, latest or an "
                                "instant time (yyyyMMddHHmmss[SSS])") from None

    def getDefaultReadLimit(self):
        return ReadMaxRows(self.max_rows) if self.max_rows else ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        self.until = _Timeline(self.path).latest()

    def latestOffset(self, start: dict, limit) -> dict:
        tl = _Timeline(self.path)
        begin = _time(start)
        end = tl.latest() if self.until is None else self.until
        if end is None or end <= begin:
            return start
        if isinstance(limit, ReadMaxRows):
            budget = limit.max_rows
            chosen = None
            for inst in tl.commits():
                t = tl.time_of(inst)
                if t <= begin or t > end:
                    continue
                n = tl.rows(inst)
                if chosen is not None and n > budget:
                    break
                chosen, budget = t, budget - n
            end = chosen or end
        return {OFFSET_KEY: end}

    def reportLatestOffset(self):
        latest = _Timeline(self.path).latest()
        return {OFFSET_KEY: latest} if latest else None

    def partitions(self, start: dict, end: dict):
        from ..table.read.query import HudiTable

        begin, stop = _time(start), _time(end)
        if stop <= begin:
            return []
        if self.cdc:  # one partition per instant of this batch, in the order the offsets pass them
            tl = _Timeline(self.path)
            return instant_partitions(self.path, [i.requested_time for i in tl.commits()
                                                  if begin < tl.time_of(i) <= stop])
        plan = HudiTable(self.path).plan(query="incremental", begin=begin, end=stop,
                                         fallback_full_table_scan=self.fallback)
        if not plan.tasks:
            return []
        groups = pack([(t, t.size) for t in plan.tasks], TARGET_PARTITION_BYTES, MAX_SLICES_PER_PARTITION)
        return [StreamSlices(plan.context, g) for g in groups]

    def read(self, partition: StreamSlices) -> Iterator[pa.RecordBatch]:
        from ..table.read.query import read_slice

        if self.cdc:
            yield from read_instant(self.options, partition)
            return
        configure_storage(self.options)  # this Python worker's own file systems
        tune_allocator()  # one slice's memory reused by the next (hudi_log.memory)
        for task in partition.tasks:
            table = read_slice(partition.context, task)
            if table.num_rows:
                yield from conform_to(table, self.target).to_batches(max_chunksize=BATCH_ROWS)

    def commit(self, end: dict) -> None:
        pass  # nothing to release: Spark's checkpoint holds the offsets


def spark_arrow_schema_of(struct) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(struct, timezone="UTC")


def conform_to(table: pa.Table, target: pa.Schema) -> pa.Table:
    """``table`` in the stream's schema: its columns by name, cast; a column it lacks is null."""
    cols = []
    for f in target:
        if f.name in table.column_names:
            cols.append(table.column(f.name).cast(f.type))
        else:
            cols.append(pa.nulls(table.num_rows, f.type))
    return pa.Table.from_arrays(cols, schema=target)


__all__ = ["HudiStreamReader", "MAX_ROWS", "START_OFFSET"]
