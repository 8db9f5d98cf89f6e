"""Hudi's option names, resolved once for every entry point that writes: the CLI (``hudi-log write -o`` and its
flags), :func:`~hudi_log.table.write.client.write_table` / ``begin_write``, the Spark writer
(``df.write.format("hudi_log")``, ``hudi_log.spark.write``) and the stream sink.

It mirrors what Java's ``ConfigProperty`` declares for each option (its key, the alternative keys
``withAlternatives`` still accepts, the enum whose ``valueOf`` parses it) and how ``HoodieWriterUtils``
checks a write's parameters against each other: one setting given twice (an explicit flag and the option,
or Hudi 1.x's name and its 0.x alias) with two values is an error, never a silent choice of one; an enumerated
option's unknown value is refused naming the option and the values hudi-log applies (Java's ``valueOf`` fails
the same way, only less kindly). hudi-log is stricter than Java in two places, both where Java would go on
wrongly: a boolean that is not ``true``/``false`` (``Boolean.parseBoolean`` reads it as false) and a table
property hudi-log computes itself given as a write option (Java ignores it) are refused by name.

:data:`OPTIONS` is the one list of the Hudi options hudi-log knows; every option README.md and docs/ name is
in it (tests/test_option_resolution.py extracts them from the docs). The modules that read an option keep
their own deeper checks (a key generator's fields, a lock provider's path): this module is the gate that
every entry point passes first, so a value is refused the same way wherever it came in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ...format.content.bloom import TYPE_CODES
from ..cdc import MODES as CDC_MODES
from ..concurrency.config import EAGER, LAZY, LOCK_PROVIDERS, NEVER, OPTIMISTIC, SINGLE_WRITER
from ..errors import ConcurrencyConfigError, TableMismatchError, UnsupportedKeyGeneratorError, WriteError
from ..properties import WRITABLE_TABLE_VERSIONS
from ..read.query import QUERY_TYPES
from ..services.archive import ArchiveError
from ..services.clean import POLICIES
from .create import ORDERING_OPTIONS, PAYLOAD_MODES, STRATEGY_IDS, TABLE_TYPES, TableOptionsError, split_fields
from .key_lookup import INDEX_TYPES, IndexTypeError
from .keygen_config import CLASS_KINDS, ENCODINGS, KINDS
from .timestamp_keygen import TIMESTAMP_TYPES

WHERE = "<options>"
OPERATION = "hoodie.datasource.write.operation"
OPERATIONS = ("insert", "upsert", "delete", "bulk_insert", "insert_overwrite", "insert_overwrite_table",
              "delete_partition")

# kinds of option
ENUM, BOOL, INT, NUMBER, TEXT, FIELDS = "enum", "bool", "int", "number", "text", "fields"
#: a table property hudi-log writes itself (refused as a write option), a merging rule it does not apply
#: (refused), an option of reads (a write ignores it, as Java's does), a file named like an option
STORED, REFUSED, READ, FILE = "stored", "refused", "read", "file"


class OptionError(TableOptionsError, WriteError):
    """A write option's value is unknown, malformed, or disagrees with the same setting given another way;
    refused before anything is written."""


class TableVersionOptionError(OptionError, TableMismatchError):
    """``hoodie.write.table.version`` names a version hudi-log neither writes nor moves a table to."""


@dataclass(frozen=True)
class Opt:
    """One Hudi setting: its names (the one hudi-log's code reads first, then the spellings Java also takes),
    what it holds, the values an enumerated one may take, a valid value (the docs' walk writes with it)."""
    names: tuple[str, ...]
    kind: str
    choices: tuple[str, ...] = ()
    sample: str | None = None
    label: str = ""  # what an enumerated option names ("operation"), for its error
    prefix: bool = False  # names a family (hoodie.record.merge.property.*)
    case_sensitive: bool = False
    #: the error it is refused with: the owning module's, where callers catch that one
    error: type = OptionError

    @property
    def name(self) -> str:
        return self.names[0]

    def canonical(self, value: str) -> str:
        """The value as hudi-log compares it (enumerations ignore case, as Java's ``toUpperCase`` + ``valueOf``)."""
        v = value.strip()
        if self.kind == ENUM and not self.case_sensitive:
            v = v.upper().replace("-", "_") if self.name != OPERATION else v.lower()
            return {"COW": "COPY_ON_WRITE", "MOR": "MERGE_ON_READ"}.get(v, v) if "table.type" in self.name else v
        if self.kind == BOOL:
            return v.lower()
        if self.kind == FIELDS:
            return ",".join(split_fields(v))
        return v


_LOCKS = LOCK_PROVIDERS + tuple(p.rsplit(".", 1)[1] for p in LOCK_PROVIDERS)
_B = lambda *names: Opt(names, BOOL, sample="true")  # noqa: E731
_I = lambda *names, sample="10": Opt(names, INT, sample=sample)  # noqa: E731
_S = lambda *names: Opt(names, STORED)  # noqa: E731

#: every Hudi option hudi-log knows, by the name its code reads first
OPTIONS: tuple[Opt, ...] = (
    # what the write is and the table it creates
    Opt((OPERATION,), ENUM, OPERATIONS, "upsert", "operation"),
    Opt(("hoodie.datasource.write.table.type", "hoodie.table.type"), ENUM, TABLE_TYPES, "MERGE_ON_READ",
        "table type"),
    Opt(("hoodie.table.name", "hoodie.datasource.write.table.name"), TEXT, sample="t"),
    Opt(("hoodie.write.table.version", "hoodie.table.version"), ENUM, tuple(map(str, WRITABLE_TABLE_VERSIONS)), "6",
        "table version", error=TableVersionOptionError),
    Opt(("hoodie.datasource.write.recordkey.field", "hoodie.table.recordkey.fields"), FIELDS, sample="id"),
    Opt(("hoodie.datasource.write.partitionpath.field", "hoodie.table.partition.fields"), FIELDS, sample="p"),
    Opt(ORDERING_OPTIONS, FIELDS, sample="ts"),
    Opt(("hoodie.datasource.write.keygenerator.class", "hoodie.table.keygenerator.class"), ENUM,
        tuple(CLASS_KINDS), "org.apache.hudi.keygen.SimpleKeyGenerator", "key generator class", case_sensitive=True,
        error=UnsupportedKeyGeneratorError),
    Opt(("hoodie.datasource.write.keygenerator.type", "hoodie.table.keygenerator.type"), ENUM, KINDS, "SIMPLE",
        "key generator type", error=UnsupportedKeyGeneratorError),
    _B("hoodie.datasource.write.hive_style_partitioning"),
    _B("hoodie.datasource.write.partitionpath.urlencode"),
    Opt(("hoodie.datasource.write.partitions.to.delete",), TEXT, sample="p=x"),
    Opt(("hoodie.keygen.timebased.timestamp.type", "hoodie.deltastreamer.keygen.timebased.timestamp.type"), ENUM,
        TIMESTAMP_TYPES, "EPOCHMILLISECONDS", "timestamp type"),
    Opt(("hoodie.table.complex.keygen.encoding",), ENUM, ENCODINGS, "FIELD_PREFIXED", "complex key encoding"),
    _B("hoodie.write.complex.keygen.new.encoding"),
    _B("hoodie.write.complex.keygen.validation.enable"),
    _B("hoodie.populate.meta.fields"),
    _B("hoodie.write.auto.upgrade"),
    Opt(("hoodie.table.timeline.timezone",), ENUM, ("UTC", "LOCAL"), "UTC", "timeline time zone"),
    # how records merge
    Opt(("hoodie.datasource.write.payload.class", "hoodie.compaction.payload.class"), ENUM, tuple(PAYLOAD_MODES),
        "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload", "payload class", case_sensitive=True),
    Opt(("hoodie.record.merge.mode", "hoodie.write.record.merge.mode"), ENUM, tuple(STRATEGY_IDS),
        "COMMIT_TIME_ORDERING", "merge mode"),
    Opt(("hoodie.record.merge.strategy.id", "hoodie.write.record.merge.strategy.id"), ENUM,
        tuple(STRATEGY_IDS.values()), STRATEGY_IDS["EVENT_TIME_ORDERING"], "merge strategy id", case_sensitive=True),
    Opt(("hoodie.table.partial.update.mode",), REFUSED),
    Opt(("hoodie.record.merge.property",), REFUSED, prefix=True),
    _B("hoodie.combine.before.upsert"), _B("hoodie.combine.before.insert"), _B("hoodie.combine.before.delete"),
    # schema
    _B("hoodie.avro.schema.validate"),
    _B("hoodie.write.set.null.for.missing.columns"),
    # CDC
    _B("hoodie.table.cdc.enabled"),
    Opt(("hoodie.table.cdc.supplemental.logging.mode",), ENUM, CDC_MODES, "DATA_BEFORE_AFTER", "CDC logging mode"),
    # index and bloom filters
    Opt(("hoodie.index.type",), ENUM, INDEX_TYPES, "SIMPLE", "index type", error=IndexTypeError),
    Opt(("hoodie.bloom.index.filter.type",), ENUM, TYPE_CODES, "DYNAMIC_V0", "bloom filter type"),
    _I("hoodie.index.bloom.num_entries", sample="60000"),
    Opt(("hoodie.index.bloom.fpp",), NUMBER, sample="0.000000001"),
    _I("hoodie.bloom.index.filter.dynamic.max.entries", sample="100000"),
    _B("hoodie.parquet.bloom.filter.enabled"),
    _I("hoodie.bloom.index.parallelism", sample="4"), _B("hoodie.bloom.index.prune.by.ranges"),
    _I("hoodie.simple.index.parallelism", sample="4"), _B("hoodie.simple.index.use.caching"),
    # a one-process write's threads (hudi_log.table.workers): Java's write tasks per operation
    _I("hoodie.upsert.shuffle.parallelism", sample="2"), _I("hoodie.insert.shuffle.parallelism", sample="2"),
    _I("hoodie.bulkinsert.shuffle.parallelism", sample="2"), _I("hoodie.delete.shuffle.parallelism", sample="2"),
    # file sizes
    _I("hoodie.parquet.max.file.size", sample="125829120"), _I("hoodie.parquet.small.file.limit", sample="104857600"),
    _I("hoodie.logfile.max.size", sample="1073741824"), _I("hoodie.logfile.data.block.max.size", sample="268435456"),
    # the metadata table
    _B("hoodie.metadata.enable"),
    _I("hoodie.metadata.compact.max.delta.commits"), _I("hoodie.metadata.cleaner.commits.retained", sample="20"),
    _B("hoodie.metadata.record.index.enable"),
    _I("hoodie.metadata.record.index.min.filegroup.count"),
    _I("hoodie.metadata.record.index.max.filegroup.count", sample="10000"),
    _I("hoodie.metadata.record.index.max.filegroup.size", sample="1073741824"),
    Opt(("hoodie.metadata.record.index.growth.factor",), NUMBER, sample="2.0"),
    # Hudi 1.1's partitioned record index: only the global one is kept
    Opt(("hoodie.metadata.record.level.index.enable",), ENUM, ("FALSE",), "false",
        "partitioned record index setting (hudi-log keeps the global record index)"),
    # its statistics indexes (hudi_log.table.metadata.column_stats, partition_stats, bloom_filters)
    Opt(("hoodie.metadata.index.column.stats.column.list",), FIELDS, sample="v"),
    _I("hoodie.metadata.index.column.stats.max.columns.to.index", sample="32"),
    _I("hoodie.metadata.index.column.stats.file.group.count", sample="2"),
    _I("hoodie.metadata.index.partition.stats.file.group.count", sample="1"),
    _I("hoodie.metadata.index.bloom.filter.file.group.count", sample="4"),
    # table services a write runs
    _B("hoodie.clean.automatic"),
    Opt(("hoodie.cleaner.policy",), ENUM, POLICIES, "KEEP_LATEST_COMMITS", "cleaner policy"),
    # archival's (the commits a clean retains bound it too): refused as the auto-archive refuses them
    *(Opt(o.names, o.kind, sample=o.sample, error=ArchiveError) for o in (
        _I("hoodie.cleaner.commits.retained"), _B("hoodie.archive.automatic"), _I("hoodie.keep.min.commits", sample="20"),
        _I("hoodie.keep.max.commits", sample="30"), _B("hoodie.archive.beyond.savepoint"),
        _I("hoodie.timeline.compaction.batch.size"))),
    _B("hoodie.compact.inline"), _I("hoodie.compact.inline.max.delta.commits", sample="5"),
    _B("hoodie.datasource.compaction.async.enable"),
    _B("hoodie.clustering.inline"), _I("hoodie.clustering.plan.strategy.small.file.limit", sample="314572800"),
    Opt(("hoodie.clustering.plan.strategy.sort.columns",), FIELDS, sample="v"),
    _B("hoodie.clustering.rollback.pending.replacecommit.on.conflict"),
    # concurrency
    *(Opt(o.names, o.kind, o.choices, o.sample, o.label, case_sensitive=o.case_sensitive, error=ConcurrencyConfigError)
      for o in (
          Opt(("hoodie.write.concurrency.mode",), ENUM, (SINGLE_WRITER, OPTIMISTIC), SINGLE_WRITER, "concurrency mode"),
          Opt(("hoodie.cleaner.policy.failed.writes", "hoodie.clean.failed.writes.policy"), ENUM, (EAGER, LAZY, NEVER),
              EAGER, "failed writes policy"),
          Opt(("hoodie.write.lock.provider",), ENUM, _LOCKS, LOCK_PROVIDERS[0], "lock provider", case_sensitive=True),
          _I("hoodie.client.heartbeat.interval_in_ms", sample="60000"),
          _I("hoodie.client.heartbeat.tolerable.misses", sample="2"),
          _I("hoodie.write.lock.wait_time_ms", sample="60000"), _I("hoodie.write.lock.client.num_retries", sample="50"),
          _I("hoodie.write.lock.client.wait_time_ms_between_retry", sample="5000"),
          Opt(("hoodie.write.lock.filesystem.path",), TEXT, sample="/tmp/hudi-log-locks"),
          Opt(("hoodie.write.lock.filesystem.expire",), NUMBER, sample="0"))),
    # streaming writes
    Opt(("hoodie.datasource.write.streaming.checkpoint.identifier",), TEXT, sample="writer-1"),
    _B("hoodie.datasource.write.streaming.disable.compaction"),
    # reads (a write ignores them, as Java's does)
    Opt(("hoodie.datasource.query.type",), READ, QUERY_TYPES),
    Opt(("hoodie.datasource.query.incremental.format",), READ, ("latest_state", "cdc")),
    Opt(("hoodie.datasource.read.begin.instanttime",), READ), Opt(("hoodie.datasource.read.end.instanttime",), READ),
    Opt(("hoodie.datasource.read.incr.fallback.fulltablescan.enable",), READ),
    Opt(("hoodie.datasource.streaming.startOffset",), READ),
    # table properties hudi-log writes itself, from the options above and the data
    *(_S(n) for n in ("hoodie.table.checksum", "hoodie.table.initial.version", "hoodie.table.format",
                      "hoodie.table.metadata.partitions",
                      "hoodie.table.metadata.partitions.inflight", "hoodie.table.index.defs.path", "hoodie.timeline.path",
                      "hoodie.timeline.history.path", "hoodie.timeline.layout.version", "hoodie.table.create.schema",
                      "hoodie.legacy.payload.class", "hoodie.archivelog.folder")),
    Opt(("hoodie.properties",), FILE), Opt(("hoodie.properties.backup",), FILE),
)

_BY_NAME = {n.lower(): o for o in OPTIONS for n in o.names}


def lookup(name: str) -> Opt | None:
    """The option ``name`` is a spelling of (any case: Spark may hand option names lower-cased)."""
    found = _BY_NAME.get(name.lower())
    if found is None:
        found = next((o for o in OPTIONS if o.prefix and name.lower().startswith(o.name.lower() + ".")), None)
    return found


def _check_value(o: Opt, name: str, value: str) -> None:
    v = o.canonical(value)
    if o.kind == ENUM and v not in o.choices:
        raise o.error(WHERE, f"unknown {o.label} {value!r}: {name}={value} is not supported (one of "
                             f"{', '.join(o.choices)})")
    if o.kind == BOOL and v not in ("true", "false"):
        raise o.error(WHERE, f"{name}={value!r} is not true or false")
    if o.kind in (INT, NUMBER):
        try:
            int(v) if o.kind == INT else float(v)
        except ValueError:
            raise o.error(WHERE, f"{name}={value!r} is not {'an integer' if o.kind == INT else 'a number'}") \
                from None
    if o.kind == STORED:
        raise OptionError(WHERE, f"{name} is a table property hudi-log writes itself, not a write option "
                                 "(leave it out; `hudi-log table update-configs` changes a table's properties)")
    if o.kind == REFUSED:
        raise OptionError(WHERE, f"{name} is a merging rule hudi-log does not apply (docs/interop.md); leave it "
                                 "out or write with Java Hudi")


def resolve(options: Mapping | None, explicit: Mapping[str, object] | None = None,
            labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """``options`` (Hudi's names, any of a setting's spellings) with ``explicit`` settings (a CLI flag,
    ``write_table``'s ``operation``: Hudi name -> value, None for not given) added, checked as Java checks a
    write's parameters: a setting given twice with two values, an unknown enumerated value, a malformed boolean
    or number, a table property or merging rule hudi-log does not take: :class:`OptionError`, naming the
    option (and the flag, by ``labels``). Returns plain strings, each known option under the name Spark's
    lower-casing may have changed put back as Hudi spells it, and each setting also under the name hudi-log's
    code reads first."""
    out: dict[str, str] = {}
    for k, v in (options or {}).items():
        key, value = str(k), str(v).lower() if isinstance(v, bool) else str(v)
        o = lookup(key)
        if o is not None and not o.prefix:
            key = next(n for n in o.names if n.lower() == key.lower())
        out[key] = value
    given: dict[Opt, list[tuple[str, str]]] = {}
    for key, value in out.items():
        o = lookup(key)
        if o is None or o.kind in (READ, FILE) or value == "":
            continue
        _check_value(o, key, value)
        given.setdefault(o, []).append((key, value))
    for name, value in (explicit or {}).items():
        if value is None or str(value) == "":
            continue
        o = lookup(name)
        value = str(value).lower() if isinstance(value, bool) else str(value)
        flag = (labels or {}).get(name, name)
        if o is not None:
            _check_value(o, flag, value)
            clash = [(n, v) for n, v in given.get(o, []) if o.canonical(v) != o.canonical(value)]
            if clash:
                raise OptionError(WHERE, f"{flag} {value!r} and {clash[0][0]}={clash[0][1]!r} disagree "
                                         "(give one of them)")
            given.setdefault(o, []).append((name, value))
        out[name] = value
    for o, pairs in given.items():
        values = {o.canonical(v) for _, v in pairs}
        if len(values) > 1:
            raise OptionError(WHERE, " and ".join(f"{n}={v!r}" for n, v in pairs) + " disagree (one setting given "
                                     "twice; give one of them)")
        out.setdefault(o.name, pairs[0][1])
    return out


def operation_of(options: Mapping) -> str:
    """The operation of resolved ``options`` (lower case; upsert when none is given)."""
    return (options.get(OPERATION) or "upsert").strip().lower()
