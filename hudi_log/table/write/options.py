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
every entry point passes first, so a value is refused the same way wherever it came in. The resolution
itself, and the options the table services read (which they resolve alike when called on their own), are
:mod:`hudi_log.table.services.options`, below the write path.
"""

from __future__ import annotations

from typing import Mapping

from ..cdc import MODES as CDC_MODES
from ..errors import TableMismatchError, UnsupportedKeyGeneratorError
from ..properties import WRITABLE_TABLE_VERSIONS
from ..read.query import QUERY_TYPES
from ..services.options import (  # noqa: F401  (the resolution's names, imported here by the write's callers)
    BOOL, ENUM, FIELDS, FILE, INT, NUMBER, OPERATION, READ, REFUSED, SERVICE_OPTIONS, STORED, TEXT, WHERE, Opt,
    OptionError, Options,
)
from .create import ORDERING_OPTIONS, PAYLOAD_MODES, STRATEGY_IDS, TABLE_TYPES
from .key_lookup import INDEX_TYPES, IndexTypeError
from .keygen_config import CLASS_KINDS, ENCODINGS, KINDS
from .timestamp_keygen import TIMESTAMP_TYPES

TABLE_VERSION = "hoodie.write.table.version"
OPERATIONS = ("insert", "upsert", "delete", "bulk_insert", "insert_overwrite", "insert_overwrite_table",
              "delete_partition")


class TableVersionOptionError(OptionError, TableMismatchError):
    """``hoodie.write.table.version`` names a version hudi-log neither writes nor moves a table to."""


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
    Opt((TABLE_VERSION, "hoodie.table.version"), ENUM, tuple(map(str, WRITABLE_TABLE_VERSIONS)), "6",
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
    _I("hoodie.bloom.index.parallelism", sample="4"), _B("hoodie.bloom.index.prune.by.ranges"),
    _I("hoodie.simple.index.parallelism", sample="4"), _B("hoodie.simple.index.use.caching"),
    # what the table services read (a write runs them inline)
    *SERVICE_OPTIONS,
    # a one-process write's threads (hudi_log.table.workers): Java's write tasks per operation
    _I("hoodie.upsert.shuffle.parallelism", sample="2"), _I("hoodie.insert.shuffle.parallelism", sample="2"),
    _I("hoodie.bulkinsert.shuffle.parallelism", sample="2"), _I("hoodie.delete.shuffle.parallelism", sample="2"),
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

WRITE = Options(OPTIONS)
lookup = WRITE.lookup


def resolve(options: Mapping | None, explicit: Mapping[str, object] | None = None,
            labels: Mapping[str, str] | None = None, where=WHERE) -> dict[str, str]:
    """``options`` resolved over every option hudi-log knows (``Options.resolve`` of
    :mod:`hudi_log.table.services.options`), for every entry point that writes; errors at ``where``."""
    return WRITE.resolve(options, explicit, labels, where)


def operation_of(options: Mapping) -> str:
    """The operation of resolved ``options`` (lower case; upsert when none is given)."""
    return (options.get(OPERATION) or "upsert").strip().lower()
