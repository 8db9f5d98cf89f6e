"""Which key generator a write uses, and with which settings, as Java Hudi decides it from the table's
``hoodie.properties`` and the write's options (Hudi's option names).

* The generator: ``hoodie.table.keygenerator.class`` (0.x tables) or ``hoodie.table.keygenerator.type`` (1.x),
  else the write's ``hoodie.datasource.write.keygenerator.class`` / ``.type``; a write that names another
  generator than the table's is refused (Java's ``HoodieWriterUtils.validateTableConfig``). None anywhere:
  inferred as ``KeyGenUtils.inferKeyGeneratorType`` does (no partition field: NON_PARTITION; a ``field:type``
  partition field: CUSTOM; one partition and one key field: SIMPLE; else COMPLEX).
* Supported: Simple, Complex, NonPartitioned, TimestampBased, Custom, under their Spark class names, their Avro
  twins and the 1.x ``KeyGeneratorType`` names. Everything else is refused by name before a byte is written.
* Virtual keys (``hoodie.populate.meta.fields=false``): only Simple, NonPartitioned and Complex, as Java's
  ``HoodieTableMetaClient.validateTableProperties`` allows; the keys are then computed from the data columns
  wherever they are needed (the index, merges, compaction). A Complex key of ONE field written
  ``field:value`` is refused: Java's reader keys such records by the bare value (``RecordContext.
  virtualKeyExtractor``), so its deletes and updates would miss them.
* Partition fields: ``hoodie.table.partition.fields``; a version-8+ table stores Custom's ``field:type`` there
  (``HoodieTableConfig.getPartitionFieldsForKeyGenerator``), a version-6 table only the names, so the write's
  ``hoodie.datasource.write.partitionpath.field`` must give the types, as Java 0.x needs it to.
* Timestamp settings (``hoodie.keygen.timebased.*``): the table's (1.x stores them; hudi-log records them on
  the tables it creates), else the write's; a write that sets one differently from the table is refused.
* Complex with ONE record-key field, :func:`single_field_encoding` (HUDI-7001).
"""

from __future__ import annotations

from typing import Callable, Mapping

from ...format.content.meta_fields import POPULATE_META_FIELDS, populates_meta_fields
from ..cdc import CDC_ENABLED
from ..errors import TableMismatchError, UnsupportedKeyGeneratorError
from .create import option, split_fields
from .keygen import KeyGenerator
from .timestamp_keygen import OLD_PREFIX, PREFIX, TimestampSpec

KINDS = ("SIMPLE", "COMPLEX", "NON_PARTITION", "TIMESTAMP", "CUSTOM")
_PKG = "org.apache.hudi.keygen."
#: the class names Java records (0.x) and their Avro twins -> the 1.x KeyGeneratorType
CLASS_KINDS = {
    **{_PKG + c: "SIMPLE" for c in ("SimpleKeyGenerator", "SimpleAvroKeyGenerator")},
    **{_PKG + c: "COMPLEX" for c in ("ComplexKeyGenerator", "ComplexAvroKeyGenerator")},
    **{_PKG + c: "NON_PARTITION" for c in ("NonpartitionedKeyGenerator", "NonpartitionedAvroKeyGenerator")},
    **{_PKG + c: "TIMESTAMP" for c in ("TimestampBasedKeyGenerator", "TimestampBasedAvroKeyGenerator")},
    **{_PKG + c: "CUSTOM" for c in ("CustomKeyGenerator", "CustomAvroKeyGenerator")},
}
#: the Spark class each kind records in a version-6 table's hoodie.table.keygenerator.class
KIND_CLASSES = {"SIMPLE": _PKG + "SimpleKeyGenerator", "COMPLEX": _PKG + "ComplexKeyGenerator",
                "NON_PARTITION": _PKG + "NonpartitionedKeyGenerator", "TIMESTAMP": _PKG + "TimestampBasedKeyGenerator",
                "CUSTOM": _PKG + "CustomKeyGenerator"}
TABLE_KEYS = ("hoodie.table.keygenerator.class", "hoodie.table.keygenerator.type")
WRITE_KEYS = ("hoodie.datasource.write.keygenerator.class", "hoodie.datasource.write.keygenerator.type")
HIVE_STYLE = "hoodie.datasource.write.hive_style_partitioning"
URL_ENCODE = "hoodie.datasource.write.partitionpath.urlencode"
PARTITION_OPTION = "hoodie.datasource.write.partitionpath.field"
NEW_ENCODING = "hoodie.write.complex.keygen.new.encoding"  # HoodieWriteConfig.COMPLEX_KEYGEN_NEW_ENCODING
TABLE_ENCODING = "hoodie.table.complex.keygen.encoding"  # HoodieTableConfig.COMPLEX_KEYGEN_ENCODING
ENCODINGS = ("FIELD_PREFIXED", "VALUE_ONLY")


def kind_of(value: str) -> str | None:
    """The KeyGeneratorType of a class name or type name, None when hudi-log does not compute it."""
    v = str(value).strip()
    if v in CLASS_KINDS:
        return CLASS_KINDS[v]
    t = v.upper()
    t = t[: -len("_AVRO")] if t.endswith("_AVRO") else t
    return t if t in KINDS else None


def check_key_generation(settings: Mapping, where) -> None:
    """Refuse, naming it, a key generator or key setting whose keys hudi-log would compute differently from
    Java: generators other than the five above, and records without meta fields."""
    for key in TABLE_KEYS + WRITE_KEYS:
        value = settings.get(key)
        if value and kind_of(value) is None:
            raise UnsupportedKeyGeneratorError(where, f"{key}={value} is not supported for writing (hudi-log "
                                               "computes keys as the Simple, Complex, NonPartitioned, "
                                               "TimestampBased and Custom key generators do); write this table "
                                               "with Apache Hudi")


VIRTUAL_KEY_KINDS = ("SIMPLE", "NON_PARTITION", "COMPLEX")


def check_virtual_keys(props: Mapping, options: Mapping, kg: KeyGenerator, cls: str, where) -> None:
    """Java's rule for tables without meta fields (see the module's docstring), for a table that records
    ``hoodie.populate.meta.fields=false`` or a new one the write asks it for (a write to an existing table
    asking for another setting than the table's is refused by :func:`.create.check_table_matches`)."""
    if populates_meta_fields(props) and populates_meta_fields(options):
        return
    if kg.kind not in VIRTUAL_KEY_KINDS:
        raise UnsupportedKeyGeneratorError(where, f"{POPULATE_META_FIELDS}=false takes the Simple, NonPartitioned "
                                           f"or Complex key generator only, not {cls} (Java refuses it: only simple, "
                                           "non-partitioned or complex key generator are supported when "
                                           "meta-fields are disabled)")
    if any(str(src.get(CDC_ENABLED, "")).strip().lower() == "true" for src in (props, options)):
        raise UnsupportedKeyGeneratorError(where, f"{POPULATE_META_FIELDS}=false with {CDC_ENABLED}=true is not "
                                           "supported by hudi-log (its change log keys rows by _hoodie_record_key); "
                                           "write this table with Apache Hudi")
    if kg.prefixes_single_field:
        raise UnsupportedKeyGeneratorError(where, f"{POPULATE_META_FIELDS}=false with a Complex key of one field "
                                           f"written field:value ({TABLE_ENCODING}=FIELD_PREFIXED, the default "
                                           "from table version 9): Java's reader keys such rows by the bare value, "
                                           "so updates and deletes would miss them (set "
                                           f"{TABLE_ENCODING}=VALUE_ONLY on a new table, or use the Simple key "
                                           "generator)")


def infer_kind(record_keys: list[str], partition_spec: list[str]) -> str:
    """``KeyGenUtils.inferKeyGeneratorType``."""
    if not partition_spec:
        return "NON_PARTITION"
    if ":" in partition_spec[0]:
        return "CUSTOM"
    if len(partition_spec) == 1:
        return "COMPLEX" if len(record_keys) > 1 else "SIMPLE"
    return "COMPLEX"


def table_kind(props: Mapping, options: Mapping, where) -> str:
    """The table's generator (or, for a table without one, the write's; else inferred)."""
    recorded = [(k, kind_of(props[k])) for k in TABLE_KEYS if props.get(k)]
    asked = [(k, kind_of(options[k])) for k in WRITE_KEYS if options.get(k)]
    for (k1, a), (k2, b) in ((x, y) for x in recorded + asked for y in recorded + asked):
        if a != b:
            src = options if k2 in WRITE_KEYS else props
            raise TableMismatchError(where, f"the table's key generator is {props.get(k1) or options.get(k1)}, "
                                     f"{k2}={src.get(k2)} asks for another")
    if recorded or asked:
        return (recorded or asked)[0][1]
    keys = split_fields(option(props, "hoodie.table.recordkey.fields")
                        or option(options, "hoodie.datasource.write.recordkey.field"))
    return infer_kind(keys, partition_spec(props, options))


def partition_spec(props: Mapping, options: Mapping) -> list[str]:
    """The partition fields as the key generator takes them (``field:type`` for Custom where known)."""
    table = split_fields(props.get("hoodie.table.partition.fields"))
    asked = split_fields(option(options, PARTITION_OPTION))
    if table and all(":" not in f for f in table) and asked and [a.split(":")[0] for a in asked] == table:
        return asked  # a version-6 Custom table: the types come with the write, as Java 0.x takes them
    return table or asked


def timestamp_settings(props: Mapping, options: Mapping, where) -> dict[str, str]:
    """The ``hoodie.keygen.timebased.*`` settings: the table's, else the write's; a write contradicting the
    table is refused."""
    out: dict[str, str] = {}
    for src in (options, props):
        for k, v in src.items():
            if k.startswith(PREFIX) or k.startswith(OLD_PREFIX):
                key = PREFIX + k[len(PREFIX if k.startswith(PREFIX) else OLD_PREFIX):]
                if src is props and key in out and out[key] != str(v):
                    raise TableMismatchError(where, f"the table records {key}={v}, the write asked for {out[key]}")
                out[key] = str(v)
    return out


def single_field_encoding(props: Mapping, options: Mapping, version: int,
                          stored_keys: Callable[[], list[str]] | None, field: str, where) -> bool:
    """Whether a Complex generator with ONE record-key field writes ``field:value`` (FIELD_PREFIXED) rather
    than the bare value (VALUE_ONLY). Hudi 0.14.0 and older wrote the former; 0.14.1, 0.15.0 and 1.0.0-1.0.2
    the latter (HUDI-7001); 1.1 (``KeyGenUtils.encodeSingleKeyFieldNameForComplexKeyGen``) writes the former
    at table version 9 and, at 8 and below, unless ``hoodie.write.complex.keygen.new.encoding=true``. In order:

    1. ``hoodie.table.complex.keygen.encoding`` in the table (recorded by later Hudi releases, and by hudi-log
       on the tables it creates) is what the table's data carries;
    2. table version 9+: FIELD_PREFIXED;
    3. ``hoodie.write.complex.keygen.new.encoding`` given with the write: true means VALUE_ONLY;
    4. keys already stored (``stored_keys``, read from a base file as Hudi 1.1.1's encoding deduction reads
       them): FIELD_PREFIXED when every one starts with ``field:``, else VALUE_ONLY, so an upsert finds them;
    5. else (no data yet) FIELD_PREFIXED, Hudi 1.1's default.
    """
    recorded = props.get(TABLE_ENCODING)
    if recorded:
        enc = str(recorded).strip().upper()
        if enc not in ENCODINGS:
            raise UnsupportedKeyGeneratorError(where, f"{TABLE_ENCODING}={recorded} is not one of {ENCODINGS}")
        return enc == "FIELD_PREFIXED"
    if version >= 9:
        return True
    asked = option(options, NEW_ENCODING)
    if asked is not None:
        return asked.strip().lower() != "true"
    keys = stored_keys() if stored_keys is not None else []
    if keys:
        return all(k.startswith(f"{field}:") for k in keys)
    return True


def stored_record_keys(table_path, props, timeline, limit: int = 64) -> list[str]:
    """Some record keys the table already holds: the ``_hoodie_record_key`` of the first base file of its
    latest file slices (how Hudi 1.1.1 deduces a table's single-field Complex encoding); [] for none."""
    import pyarrow.parquet as pq

    from .index import latest_slices

    for g in sorted(latest_slices(table_path, props, timeline).values(), key=lambda g: (g.partition, g.file_id)):
        if g.base_file:
            pf = pq.ParquetFile(g.base_file)
            if pf.metadata.num_rows:
                col = pf.read_row_group(0, columns=["_hoodie_record_key"]).column(0)
                return [k for k in col.slice(0, limit).to_pylist() if k is not None]
    return []


def key_generator(table_path, props: Mapping, options: Mapping, *,
                  stored_keys: Callable[[], list[str]] | None = None) -> KeyGenerator:
    """The key generator of a write to the table whose properties are ``props`` (refusals named)."""
    where = table_path
    check_key_generation(props, where)
    check_key_generation(options, "<options>")
    kind = table_kind(props, options, where)
    keys = split_fields(props.get("hoodie.table.recordkey.fields")
                        or option(options, "hoodie.datasource.write.recordkey.field"))
    spec = partition_spec(props, options)
    names = [f.split(":")[0].strip() for f in spec]
    hive = str(props.get(HIVE_STYLE) or option(options, HIVE_STYLE, default="false")).lower() == "true"
    encode = str(props.get(URL_ENCODE) or option(options, URL_ENCODE, default="false")).lower() == "true"
    version = int(props.get("hoodie.table.version") or 6)
    cls = next((str(props.get(k) or options.get(k)) for k in TABLE_KEYS + WRITE_KEYS
                if props.get(k) or options.get(k)), kind)
    ts_fields: list[str] = []
    if kind in ("SIMPLE", "TIMESTAMP") and len(keys) != 1:
        raise UnsupportedKeyGeneratorError(where, f"{cls} takes one record key field, the table has {keys} "
                                           "(Java would look for one field named by them all)")
    if kind in ("SIMPLE", "TIMESTAMP") and len(names) != 1:
        raise UnsupportedKeyGeneratorError(where, f"{cls} takes one partition field, the table has {names} "
                                           "(Java would put every row in one default partition)")
    if kind == "NON_PARTITION":
        names = []
    elif kind == "TIMESTAMP":
        ts_fields = names[:1]
    elif kind == "CUSTOM":
        for f in spec:
            parts = f.split(":")
            if len(parts) != 2 or parts[1].strip().upper() not in ("SIMPLE", "TIMESTAMP"):
                raise UnsupportedKeyGeneratorError(where, f"{cls} needs its partition fields as field:SIMPLE or "
                                                   f"field:TIMESTAMP ({PARTITION_OPTION}), got {','.join(spec)!r}")
            if parts[1].strip().upper() == "TIMESTAMP":
                ts_fields.append(parts[0].strip())
    timestamp = TimestampSpec.from_settings(timestamp_settings(props, options, where), where) if ts_fields else None
    prefixed = False
    if kind == "COMPLEX" and len(keys) == 1:
        prefixed = single_field_encoding(props, options, version, stored_keys, keys[0], where)
    kg = KeyGenerator(str(table_path), tuple(keys), tuple(names), hive, encode, kind, prefixed, timestamp,
                      tuple(ts_fields))
    check_virtual_keys(props, options, kg, cls, where)
    return kg


def new_table_key_properties(options: Mapping, keys: list[str], partitions: list[str], version: int,
                             where) -> dict[str, str]:
    """The key generator's entries of a new table's ``hoodie.properties`` (and its check, before any file):
    the class (version 6) or type (8+), the partition fields (with Custom's types from version 8, as Java
    1.x stores them), the timestamp settings, and for Complex with one field its encoding."""
    named = option(options, *WRITE_KEYS, *TABLE_KEYS)
    kind = kind_of(named) if named else infer_kind(keys, partitions)
    if kind is None:
        raise UnsupportedKeyGeneratorError(where, f"key generator {named} is not supported for writing")
    stored_parts = partitions if version >= 8 else [p.split(":")[0].strip() for p in partitions]
    out: dict[str, str] = {}
    if stored_parts:
        out["hoodie.table.partition.fields"] = ",".join(stored_parts)
    if version < 8:
        cls = option(options, "hoodie.datasource.write.keygenerator.class")
        out["hoodie.table.keygenerator.class"] = cls if cls and kind_of(cls) else KIND_CLASSES[kind]
    else:
        out["hoodie.table.keygenerator.type"] = kind
    out.update(timestamp_settings({}, options, where))
    props = {**out, "hoodie.table.recordkey.fields": ",".join(keys), "hoodie.table.version": str(version)}
    kg = key_generator(where, props, {k: v for k, v in options.items() if k not in WRITE_KEYS + TABLE_KEYS})
    if kg.kind == "COMPLEX" and len(keys) == 1:
        out[TABLE_ENCODING] = "FIELD_PREFIXED" if kg.field_prefixed else "VALUE_ONLY"
    return out
