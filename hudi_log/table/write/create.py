"""Creating a Hudi table: ``.hoodie/hoodie.properties``, the ``.hoodie`` folders, partition metadata.

What we write follows the tables Hudi itself created in ``../shared/corpus``:

* table version 6 (default; Hudi 0.14/0.15): timeline layout 1 (instants in ``.hoodie``),
  ``hoodie.table.keygenerator.class``, payload ``OverwriteWithLatestAvroPayload`` (the Spark datasource
  default, so merging across commits is by commit time), folders ``.aux/.bootstrap/{.partitions,.fileids}``,
  ``.schema``, ``.temp``, ``archived``;
* table version 8 (``hoodie.write.table.version=8``; Hudi 1.0): timeline layout 2 (``.hoodie/timeline``
  and ``timeline/history``), ``hoodie.table.keygenerator.type``, ``hoodie.record.merge.mode``
  (the given payload's mode, else EVENT_TIME_ORDERING when an ordering field is set, as Hudi 1.0 infers it),
  the mode's payload class (``DefaultHoodieRecordPayload`` / ``OverwriteWithLatestAvroPayload``, or the given
  one) and merge strategy id, ``hoodie.table.initial.version``.
* table version 9 (``hoodie.write.table.version=9``; Hudi 1.1, ``HoodieTableMetaClient.TableBuilder`` with
  ``HoodieTableConfig.inferMergingConfigsForV9TableCreation``): as 8, but the ordering fields (one or several)
  in ``hoodie.table.ordering.fields`` instead of ``hoodie.table.precombine.field``, the merge mode alone (no
  payload class and no merge strategy id: Hudi 1.1 retires both for the event- and commit-time modes, as its
  ``EightToNineUpgradeHandler`` removes them), and ``hoodie.table.format=native``; the corpus's Hudi 1.1
  tables hold exactly these keys. A payload class given with the write is kept as
  ``hoodie.legacy.payload.class`` with its mode's strategy id (the case of the payloads Hudi 1.1 retires).
* ``hoodie.table.checksum`` = CRC32 of ``"{database}.{table}"``; values escaped as
  ``java.util.Properties.store`` does (``\\:``, ``\\=``, ``\\#``, ``\\!``, ``\\uXXXX``).
* A first write that fails before its commit takes the table it created away again
  (:func:`remove_new_table`): the folder is left as it was, so a corrected retry starts afresh rather
  than meeting the type and schema the failed input chose.
* ``.hoodie_partition_metadata``: ``commitTime`` (the first instant writing there) and
  ``partitionDepth`` (number of path segments, 0 for the table root).

Options use Hudi's names; the ``hoodie.datasource.write.*`` spellings and the ``hoodie.table.*`` ones are
both accepted.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Mapping

from ...containment import within_table
from ...paths import as_path, remove_tree
from ...format.content.avro_arrow import spark_create_schema
from ...format.content.meta_fields import POPULATE_META_FIELDS, populates_meta_fields
from ..cdc import CDC_ENABLED, CDC_MODE, CdcOptionError, mode_of
from ..metadata_table import MetadataTableError  # noqa: F401  (where writers import it)
from ..errors import TableMismatchError, TableOptionsError, UnsupportedKeyGeneratorError  # noqa: F401  (importers take them here)
from ..services.options import split_fields
from ..timeline.timeline import ROLLBACK, Timeline
from ..properties import (
    BACKUP_FILE, PROPERTIES_FILE, WRITABLE_TABLE_VERSIONS, TableError, TableProperties, check_mergeable, check_writable,
    java_date, properties_text, read_properties, table_checksum, write_atomic,
)

DEFAULT_TABLE_VERSION = 6
TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")
MERGE_STRATEGY_ID = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"  # Hudi's default (Avro) merger strategy id
PARTITION_METAFILE = ".hoodie_partition_metadata"
TIMELINE_TIMEZONE = "hoodie.table.timeline.timezone"

_PAYLOAD = "org.apache.hudi.common.model.{}"


def check_key_generation(settings: Mapping, where) -> None:
    """:func:`.keygen_config.check_key_generation` (imported when called: that module builds on this one)."""
    from .keygen_config import check_key_generation as check

    check(settings, where)


def option(options: Mapping, *names: str, default=None):
    """The first of ``names`` set in ``options`` (Hudi accepts several spellings)."""
    for n in names:
        v = options.get(n)
        if v is not None and str(v) != "":
            return str(v)
    return default


#: the ordering (precombine) field's names: Hudi 1.x's first, then the 0.x spellings Java still takes
ORDERING_OPTIONS = ("hoodie.table.ordering.fields", "hoodie.datasource.write.precombine.field",
                    "hoodie.table.precombine.field", "hoodie.payload.ordering.field")
#: the first table version that records several ordering fields (``hoodie.table.ordering.fields``, Hudi 1.1)
ORDERING_FIELDS_VERSION = 9
TABLE_FORMAT = "hoodie.table.format"


def ordering_field(options: Mapping, path, version: int = DEFAULT_TABLE_VERSION) -> str | None:
    """The ordering field(s) a new table of ``version`` records, comma-separated, from any of Java's spellings
    (:data:`ORDERING_OPTIONS`). Spellings that disagree are an error; so are several fields below table
    version 9, which alone records them (``hoodie.table.ordering.fields``)."""
    given = {n: ",".join(split_fields(options.get(n))) for n in ORDERING_OPTIONS if split_fields(options.get(n))}
    if len(set(given.values())) > 1:
        raise TableOptionsError(path, "ordering fields disagree: " + ", ".join(f"{k}={v!r}" for k, v in given.items())
                                + " (give one of them)")
    value = next(iter(given.values()), None)
    if value and "," in value and version < ORDERING_FIELDS_VERSION:
        raise TableOptionsError(path, f"several ordering fields ({value!r}) need table version 9; "
                                      f"versions 6 and 8 record one (hoodie.table.precombine.field)")
    return value


#: the merge modes hudi-log applies, with Hudi's merge strategy id (``HoodieRecordMerger``) and the payload
#: class Hudi 1.0 records for each (``HoodieRecordPayload.getAvroPayloadForMergeMode``)
STRATEGY_IDS = {"EVENT_TIME_ORDERING": MERGE_STRATEGY_ID,
                "COMMIT_TIME_ORDERING": "ce9acb64-bde0-424c-9b91-f6ebba25356d"}
MODE_PAYLOADS = {"EVENT_TIME_ORDERING": "DefaultHoodieRecordPayload",
                 "COMMIT_TIME_ORDERING": "OverwriteWithLatestAvroPayload"}
#: the payload classes whose merging is one of those modes (``HoodieTableConfig.inferRecordMergeModeFromPayloadClass``)
PAYLOAD_MODES = {_PAYLOAD.format("DefaultHoodieRecordPayload"): "EVENT_TIME_ORDERING",
                 _PAYLOAD.format("EventTimeAvroPayload"): "EVENT_TIME_ORDERING",
                 _PAYLOAD.format("OverwriteWithLatestAvroPayload"): "COMMIT_TIME_ORDERING"}


def _merge_mode(options: Mapping, ordering: str | None, path) -> tuple[str, str | None]:
    """A new version-8+ table's merge mode and the payload class the write gave (None: none given), as Java's
    ``HoodieTableConfig.inferMergingConfigsForPreV9Table`` infers them: the payload's mode, else the mode given,
    else event time with ordering fields and commit time without. Modes and payloads hudi-log does not apply
    (CUSTOM, other payload classes), and a mode that contradicts the payload, are refused as Java refuses them."""
    mode = option(options, "hoodie.write.record.merge.mode", "hoodie.record.merge.mode")
    payload = option(options, "hoodie.datasource.write.payload.class", "hoodie.compaction.payload.class")
    if payload is not None and payload not in PAYLOAD_MODES:
        raise TableOptionsError(path, f"payload class {payload} merges records in a way hudi-log does not apply "
                                      f"(it applies {', '.join(sorted(PAYLOAD_MODES))})")
    inferred = PAYLOAD_MODES[payload] if payload else None
    mode = (mode or inferred or ("EVENT_TIME_ORDERING" if ordering else "COMMIT_TIME_ORDERING")).upper()
    if mode not in STRATEGY_IDS:  # CUSTOM: a merger hudi-log cannot run
        raise TableOptionsError(path, f"hoodie.record.merge.mode={mode} is not EVENT_TIME_ORDERING or "
                                      "COMMIT_TIME_ORDERING, the merge modes hudi-log applies")
    if inferred and mode != inferred:
        raise TableOptionsError(path, f"hoodie.record.merge.mode={mode} contradicts payload class {payload} "
                                      f"({inferred}); give one of them")
    return mode, payload


def requested_table_type(options: Mapping) -> str | None:
    t = option(options, "hoodie.datasource.write.table.type", "hoodie.table.type")
    if t is None:
        return None
    t = t.upper().replace("-", "_")
    if t in ("COW",):
        t = "COPY_ON_WRITE"
    if t in ("MOR",):
        t = "MERGE_ON_READ"
    return t


def requested_table_version(options: Mapping) -> int | None:
    v = option(options, "hoodie.write.table.version", "hoodie.table.version")
    return int(v) if v is not None else None


def _cdc_properties(options: Mapping, path) -> dict[str, str]:
    # Java's table builder records the flag only when the write set it, and the mode only with CDC on
    enabled = option(options, CDC_ENABLED)
    if enabled is None:
        return {}
    if str(enabled).lower() not in ("true", "false"):
        raise TableOptionsError(path, f"{CDC_ENABLED}={enabled!r} is not true or false")
    if str(enabled).lower() == "false":
        return {CDC_ENABLED: "false"}
    try:
        return {CDC_ENABLED: "true", CDC_MODE: mode_of(option(options, CDC_MODE))}
    except CdcOptionError as e:
        raise TableOptionsError(path, str(e)) from None


def table_properties_for(options: Mapping, schema: Mapping | None = None) -> dict[str, str]:
    """The ``hoodie.properties`` keys Hudi writes for a new table with these options."""
    path = "<options>"
    check_key_generation(options, path)
    name = option(options, "hoodie.table.name", "hoodie.datasource.write.table.name")
    if not name:
        raise TableOptionsError(path, "hoodie.table.name is required to create a table")
    version = requested_table_version(options) or DEFAULT_TABLE_VERSION
    if version not in WRITABLE_TABLE_VERSIONS:
        raise TableOptionsError(path, f"cannot write table version {version} "
                                      f"(writable: {', '.join(map(str, WRITABLE_TABLE_VERSIONS))})")
    table_type = requested_table_type(options) or "COPY_ON_WRITE"
    if table_type not in TABLE_TYPES:
        raise TableOptionsError(path, f"unknown table type {table_type!r} (COPY_ON_WRITE or MERGE_ON_READ)")
    keys = split_fields(option(options, "hoodie.datasource.write.recordkey.field", "hoodie.table.recordkey.fields"))
    if not keys:
        raise TableOptionsError(path, "hoodie.datasource.write.recordkey.field is required")
    precombine = ordering_field(options, path, version)
    partitions = split_fields(option(options, "hoodie.datasource.write.partitionpath.field",
                                     "hoodie.table.partition.fields"))
    hive = option(options, "hoodie.datasource.write.hive_style_partitioning", default="false").lower()
    encode = option(options, "hoodie.datasource.write.partitionpath.urlencode", default="false").lower()
    database = option(options, "hoodie.database.name", default="default")
    from .keygen_config import new_table_key_properties  # builds on this module

    key_props = new_table_key_properties(options, keys, partitions, version, path)
    # Java takes the zone of instant times from the table (default LOCAL, the writer's own zone): recording
    # UTC makes every writer, Java's on other machines included, agree with ours
    timezone = str(option(options, TIMELINE_TIMEZONE, default="UTC")).upper()
    if timezone not in ("UTC", "LOCAL"):
        raise TableOptionsError(path, f"{TIMELINE_TIMEZONE}={timezone!r} is not UTC or LOCAL")

    p: dict[str, str] = {
        "hoodie.table.name": name,
        "hoodie.table.type": table_type,
        "hoodie.table.version": str(version),
        "hoodie.table.recordkey.fields": ",".join(keys),
        "hoodie.database.name": database,
        "hoodie.archivelog.folder": "archived",
        "hoodie.datasource.write.hive_style_partitioning": "true" if hive == "true" else "false",
        "hoodie.datasource.write.partitionpath.urlencode": "true" if encode == "true" else "false",
        "hoodie.datasource.write.drop.partition.columns": "false",
        TIMELINE_TIMEZONE: timezone,
    }
    if precombine:
        p["hoodie.table.ordering.fields" if version >= ORDERING_FIELDS_VERSION
          else "hoodie.table.precombine.field"] = precombine
    p.update(key_props)
    if options.get(POPULATE_META_FIELDS) is not None:  # recorded when the write sets it (absent: true)
        p[POPULATE_META_FIELDS] = str(populates_meta_fields(options)).lower()
    p.update(_cdc_properties(options, path))
    if schema is not None:
        # Spark's own spelling (null last, no defaults), as Java's Spark SQL CREATE TABLE records it
        p["hoodie.table.create.schema"] = json.dumps(spark_create_schema(schema), separators=(",", ":"))
    if version < 8:
        payload = option(options, "hoodie.datasource.write.payload.class", "hoodie.compaction.payload.class",
                         default=_PAYLOAD.format("OverwriteWithLatestAvroPayload"))
        p.update({
            "hoodie.timeline.layout.version": "1",
            "hoodie.compaction.payload.class": payload,
            "hoodie.compaction.record.merger.strategy": MERGE_STRATEGY_ID,
        })
    else:
        mode, payload = _merge_mode(options, precombine, path)
        p.update({
            "hoodie.timeline.layout.version": "2",
            "hoodie.timeline.path": "timeline",
            "hoodie.timeline.history.path": "history",
            "hoodie.table.initial.version": str(version),
            "hoodie.record.merge.mode": mode,
        })
        if version < ORDERING_FIELDS_VERSION:  # Hudi 1.0: the payload class and strategy id of the mode
            p.update({"hoodie.record.merge.strategy.id": STRATEGY_IDS[mode],
                      "hoodie.compaction.payload.class": payload or _PAYLOAD.format(MODE_PAYLOADS[mode])})
        else:
            if payload:  # a payload Hudi 1.1 retires: kept as the legacy one, with the strategy id of its mode
                p.update({"hoodie.legacy.payload.class": payload,
                          "hoodie.record.merge.strategy.id": STRATEGY_IDS[mode]})
            p[TABLE_FORMAT] = "native"  # Java 1.1's default table format, recorded on every new table
    p["hoodie.table.checksum"] = str(table_checksum(p))
    return p


# ---- Java properties text ------------------------------------------------------------------------
# ---- the table -----------------------------------------------------------------------------------
def create_table(path, options: Mapping, *, schema: Mapping | None = None) -> TableProperties:
    """Create the table at ``path`` (which must not be a Hudi table yet); returns its properties."""
    root = as_path(path)
    meta = root / ".hoodie"
    if (meta / PROPERTIES_FILE).exists() or (meta / BACKUP_FILE).exists():
        raise TableMismatchError(meta / PROPERTIES_FILE, "a Hudi table already exists here")
    props = table_properties_for(options, schema)
    for d in (".aux/.bootstrap/.partitions", ".aux/.bootstrap/.fileids", ".schema", ".temp"):
        (meta / d).mkdir(parents=True, exist_ok=True)
    if int(props["hoodie.table.version"]) >= 8:
        (meta / "timeline" / "history").mkdir(parents=True, exist_ok=True)
    else:
        (meta / "archived").mkdir(parents=True, exist_ok=True)
    # hoodie.properties last: its presence is what makes the folder a table
    write_atomic(meta / PROPERTIES_FILE, properties_text(props).encode("latin-1"))
    return read_properties(root)


def folder_before_create(path) -> tuple[str, ...] | None:
    """What :func:`remove_new_table` needs to restore a folder: the names in it before a table is created
    there (None: the folder does not exist; on an object store, a prefix holding nothing)."""
    root = as_path(path)
    return tuple(sorted(p.name for p in root.iterdir())) if root.is_dir() else None


def remove_new_table(path, before: tuple[str, ...] | None) -> bool:
    """Take away a table this process created when its first write failed: ``.hoodie`` and every entry
    that was not in the folder ``before`` (the whole folder if it did not exist). Only while the timeline
    holds nothing but rollbacks (the failed write's own): a table another writer committed to meanwhile
    is left alone. True when the table was removed."""
    root = as_path(path)
    try:
        props = read_properties(root)
    except TableError:
        return False
    if any(i.action != ROLLBACK for i in Timeline(root, props).instants):
        return False
    if before is None:
        remove_tree(root)
        return True
    for name in {p.name for p in root.iterdir()} - set(before) | {".hoodie"}:
        p = root / name
        if p.is_dir() and not p.is_symlink():
            remove_tree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()
    return True


def check_table_matches(props: TableProperties, options: Mapping) -> None:
    """A write's options must agree with the existing table (type, version, name, record key), and the
    table's key generation must be one hudi-log computes as Java does."""
    where = props.path
    check_key_generation(props.to_dict(), where)
    check_key_generation(options, "<options>")
    t = requested_table_type(options)
    if t is not None and t != props.table_type:
        raise TableMismatchError(where, f"table is {props.table_type}, the write asked for {t}")
    v = requested_table_version(options)
    if v is not None and v != props.version:
        raise TableMismatchError(where, f"table version is {props.version}, the write asked for {v}")
    check_writable(props, "the write")
    check_mergeable(props, "the write")
    asked = options.get(POPULATE_META_FIELDS)
    if asked is not None and populates_meta_fields(options) != props.populate_meta_fields:
        # the files would mix rows with and without keys (Java takes the table's setting)
        raise TableMismatchError(where, f"the table {'fills' if props.populate_meta_fields else 'leaves out'} its "
                                 f"meta fields ({POPULATE_META_FIELDS}="
                                 f"{str(props.populate_meta_fields).lower()}), the write asked for {asked}")
    name = option(options, "hoodie.table.name")
    if name is not None and name != props.name:
        raise TableMismatchError(where, f"table name is {props.name!r}, the write asked for {name!r}")
    keys = split_fields(option(options, "hoodie.datasource.write.recordkey.field"))
    if keys and keys != props.record_key_fields:
        raise TableMismatchError(where, f"record key is {props.record_key_fields}, the write asked for {keys}")
    ordering = ordering_field(options, "<options>", props.version)
    # Java's HoodieWriterUtils.validateTableConfig: ordering fields that differ from the table's are a conflict
    if ordering and props.ordering_fields and split_fields(ordering) != props.ordering_fields:
        raise TableMismatchError(where, f"ordering field is {','.join(props.ordering_fields)!r}, "
                                        f"the write asked for {ordering!r}")
    parts = option(options, "hoodie.datasource.write.partitionpath.field")
    # Custom's field:type spelling names the same fields (HoodieTableConfig.getPartitionFields strips the types)
    if parts is not None and [f.split(":")[0] for f in split_fields(parts)] != props.partition_fields:
        raise TableMismatchError(where, f"partition fields are {props.partition_fields}, "
                                        f"the write asked for {split_fields(parts)}")


def partition_depth(partition: str) -> int:
    partition = partition.strip("/")
    return partition.count("/") + 1 if partition else 0


def write_partition_metadata(table_path, partition: str, instant: str) -> Path:
    """``{partition}/.hoodie_partition_metadata`` unless it exists (Hudi keeps the first one)."""
    d = within_table(table_path, partition.strip("/"), source="partition value", field="partition path",
                     timeline=False)
    d.mkdir(parents=True, exist_ok=True)
    f = d / PARTITION_METAFILE
    if not f.exists():
        now = datetime.datetime.now(datetime.timezone.utc)
        text = f"#partition metadata\n#{java_date(now)}\ncommitTime={instant}\npartitionDepth={partition_depth(partition)}\n"
        write_atomic(f, text.encode("utf-8"))
    return f
