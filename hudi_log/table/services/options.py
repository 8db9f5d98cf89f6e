"""Hudi's option names resolved once, and the options hudi-log's table services read: the gate every entry
point passes first, the write's (:mod:`hudi_log.table.write.options`, which adds the write's own options to
:data:`SERVICE_OPTIONS`) and the services' (compaction, clustering, clean, archival, rollback, savepoint and
restore, the operator's repairs), from the package and from the CLI alike.

It mirrors what Java's ``ConfigProperty`` declares for each option (its key, the alternative keys
``withAlternatives`` still accepts, the enum whose ``valueOf`` parses it) and how ``HoodieWriterUtils``
checks parameters against each other: one setting given twice (an explicit argument or flag and the option,
or Hudi 1.x's name and its 0.x alias) with two values is an error, never a silent choice of one; an
enumerated option's unknown value is refused naming the option and the values hudi-log applies (Java's
``valueOf`` fails the same way, only less kindly); a boolean that is not ``true``/``false``
(``Boolean.parseBoolean`` reads it as false) or a malformed number is refused by name.

It sits in the services layer, below the write path, because the services take options of their own
(``HoodieCleanConfig``, ``HoodieArchivalConfig``, ``HoodieCompactionConfig``, ``HoodieClusteringConfig``,
``HoodieLockConfig``, ``HoodieMetadataConfig`` and the base files' bloom and size settings) and must refuse
them as the write does. The modules that read an option keep their deeper checks (a count below 1, a lock
provider's path).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ...format.content.bloom import TYPE_CODES
from ..concurrency.config import EAGER, LAZY, LOCK_PROVIDERS, NEVER, OPTIMISTIC, SINGLE_WRITER
from ..errors import ConcurrencyConfigError, TableOptionsError, WriteError

WHERE = "<options>"
OPERATION = "hoodie.datasource.write.operation"
KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS, KEEP_LATEST_BY_HOURS = (
    "KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS")
#: HoodieCleaningPolicy's values
POLICIES = (KEEP_LATEST_COMMITS, KEEP_LATEST_FILE_VERSIONS, KEEP_LATEST_BY_HOURS)

# kinds of option
ENUM, BOOL, INT, NUMBER, TEXT, FIELDS = "enum", "bool", "int", "number", "text", "fields"
#: a table property hudi-log writes itself (refused as a write option), a merging rule it does not apply
#: (refused), an option of reads (a write ignores it, as Java's does), a file named like an option
STORED, REFUSED, READ, FILE = "stored", "refused", "read", "file"


class OptionError(TableOptionsError, WriteError):
    """An option's value is unknown, malformed, or disagrees with the same setting given another way;
    refused before anything is written."""


def split_fields(v) -> list[str]:
    """A field list option (``a,b``, or a list) as its names."""
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [str(x).strip() for x in v if str(x).strip()]
    return [p.strip() for p in str(v).split(",") if p.strip()]


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
_CLUSTERING = "hoodie.clustering.plan.strategy."


def _archive_error(*args):
    """:class:`~.archive.ArchiveError` (imported when raised: archive.py resolves its options here)."""
    from .archive import ArchiveError
    return ArchiveError(*args)


#: the options the table services read (a write reads them too: it runs the services inline)
SERVICE_OPTIONS: tuple[Opt, ...] = (
    # the base files compaction and clustering write: bloom filters and sizes
    Opt(("hoodie.bloom.index.filter.type",), ENUM, TYPE_CODES, "DYNAMIC_V0", "bloom filter type"),
    _I("hoodie.index.bloom.num_entries", sample="60000"),
    Opt(("hoodie.index.bloom.fpp",), NUMBER, sample="0.000000001"),
    _I("hoodie.bloom.index.filter.dynamic.max.entries", sample="100000"),
    _B("hoodie.parquet.bloom.filter.enabled"),
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
    # clean (HoodieCleanConfig)
    _B("hoodie.clean.automatic"),
    Opt(("hoodie.cleaner.policy",), ENUM, POLICIES, KEEP_LATEST_COMMITS, "cleaner policy"),
    _I("hoodie.cleaner.fileversions.retained", sample="3"), _I("hoodie.cleaner.hours.retained", sample="24"),
    # archival's (the commits a clean retains bound it too): refused as the archive refuses them
    *(Opt(o.names, o.kind, sample=o.sample, error=_archive_error) for o in (
        _I("hoodie.cleaner.commits.retained"), _B("hoodie.archive.automatic"), _I("hoodie.keep.min.commits", sample="20"),
        _I("hoodie.keep.max.commits", sample="30"), _B("hoodie.archive.beyond.savepoint"),
        _I("hoodie.commits.archival.batch"), _I("hoodie.timeline.compaction.batch.size"))),
    # compaction and clustering (HoodieCompactionConfig, HoodieClusteringConfig)
    _B("hoodie.compact.inline"), _I("hoodie.compact.inline.max.delta.commits", sample="5"),
    _B("hoodie.datasource.compaction.async.enable"),
    _B("hoodie.clustering.inline"), _I(_CLUSTERING + "small.file.limit", sample="314572800"),
    _I(_CLUSTERING + "max.bytes.per.group", sample="2147483648"),
    _I(_CLUSTERING + "target.file.max.bytes", sample="1073741824"), _I(_CLUSTERING + "max.num.groups", sample="30"),
    _B(_CLUSTERING + "single.group.clustering.enabled"),
    Opt((_CLUSTERING + "sort.columns",), FIELDS, sample="v"),
    _B("hoodie.clustering.rollback.pending.replacecommit.on.conflict"),
    # concurrency (HoodieLockConfig, HoodieWriteConfig's concurrency mode and failed-writes policy)
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
)


class Options:
    """A table of :class:`Opt` looked up by any spelling, and the resolution over it."""

    def __init__(self, opts: tuple[Opt, ...]):
        self.opts = opts
        self._by_name = {n.lower(): o for o in opts for n in o.names}

    def lookup(self, name: str) -> Opt | None:
        """The option ``name`` is a spelling of (any case: Spark may hand option names lower-cased)."""
        found = self._by_name.get(name.lower())
        if found is None:
            found = next((o for o in self.opts if o.prefix and name.lower().startswith(o.name.lower() + ".")), None)
        return found

    def resolve(self, options: Mapping | None, explicit: Mapping[str, object] | None = None,
                labels: Mapping[str, str] | None = None, where=WHERE) -> dict[str, str]:
        """``options`` (Hudi's names, any of a setting's spellings) with ``explicit`` settings (a CLI flag,
        a function's argument: Hudi name -> value, None for not given) added, checked as Java checks them: a
        setting given twice with two values, an unknown enumerated value, a malformed boolean or number, a
        table property or merging rule hudi-log does not take: :class:`OptionError` (or the option's own
        error) at ``where``, naming the option (and the flag or argument, by ``labels``). Returns plain
        strings, each known option under the name Spark's lower-casing may have changed put back as Hudi
        spells it, and each setting also under the name hudi-log's code reads first."""
        out: dict[str, str] = {}
        for k, v in (options or {}).items():
            key, value = str(k), str(v).lower() if isinstance(v, bool) else str(v)
            o = self.lookup(key)
            if o is not None and not o.prefix:
                key = next(n for n in o.names if n.lower() == key.lower())
            out[key] = value
        given: dict[Opt, list[tuple[str, str]]] = {}
        for key, value in out.items():
            o = self.lookup(key)
            if o is None or o.kind in (READ, FILE) or value == "":
                continue
            _check_value(o, key, value, where)
            given.setdefault(o, []).append((key, value))
        for name, value in (explicit or {}).items():
            if value is None or str(value) == "":
                continue
            o = self.lookup(name)
            value = str(value).lower() if isinstance(value, bool) else str(value)
            flag = (labels or {}).get(name, name)
            if o is not None:
                _check_value(o, flag, value, where)
                clash = [(n, v) for n, v in given.get(o, []) if o.canonical(v) != o.canonical(value)]
                if clash:
                    raise OptionError(where, f"{flag} {value!r} and {clash[0][0]}={clash[0][1]!r} disagree "
                                             "(give one of them)")
                given.setdefault(o, []).append((name, value))
            out[name] = value
        for o, pairs in given.items():
            values = {o.canonical(v) for _, v in pairs}
            if len(values) > 1:
                raise OptionError(where, " and ".join(f"{n}={v!r}" for n, v in pairs) + " disagree (one setting "
                                         "given twice; give one of them)")
            out.setdefault(o.name, pairs[0][1])
        return out


def _check_value(o: Opt, name: str, value: str, where) -> None:
    v = o.canonical(value)
    if o.kind == ENUM and v not in o.choices:
        raise o.error(where, f"unknown {o.label} {value!r}: {name}={value} is not supported (one of "
                             f"{', '.join(o.choices)})")
    if o.kind == BOOL and v not in ("true", "false"):
        raise o.error(where, f"{name}={value!r} is not true or false")
    if o.kind in (INT, NUMBER):
        try:
            int(v) if o.kind == INT else float(v)
        except ValueError:
            raise o.error(where, f"{name}={value!r} is not {'an integer' if o.kind == INT else 'a number'}") \
                from None
    if o.kind == STORED:
        raise OptionError(where, f"{name} is a table property hudi-log writes itself, not a write option "
                                 "(leave it out; `hudi-log table update-configs` changes a table's properties)")
    if o.kind == REFUSED:
        raise OptionError(where, f"{name} is a merging rule hudi-log does not apply (docs/interop.md); leave it "
                                 "out or write with Java Hudi")


SERVICES = Options(SERVICE_OPTIONS)


def resolve_service_options(path, options: Mapping | None, explicit: Mapping[str, object] | None = None,
                            labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """The options a table service at ``path`` was given, resolved as every entry point resolves them
    (:meth:`Options.resolve` over :data:`SERVICE_OPTIONS`); errors name the table."""
    return SERVICES.resolve(options, explicit, labels, where=path)
