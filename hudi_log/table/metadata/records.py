"""The metadata table's record schema (``HoodieMetadataRecord``, hudi-common's ``HoodieMetadata.avsc``) as Java
writes it, per table version, and records encoded into HFILE data blocks.

Java writes every metadata block and base HFile with the writer schema ``HoodieAvroUtils.addMetadataFields``
makes of the generated class's schema: the five ``_hoodie_*`` fields first (nullable strings, doc "", default
null), then the record's own fields, strings marked ``avro.java.string: String`` (the generated classes use
``java.lang.String``). The schema grew field by field across releases; :data:`_DECLARATION` holds each field
once, with the table version from which Java writes it (6: Hudi 0.14/0.15; 8: 1.0; 9: 1.1), and
:func:`metadata_schema` builds the schema of one version from it. Versions 8 and 9 are held equal to the
schemas in the corpus's Java-written metadata tables (tests/test_metadata_records.py); version 6 is the
declaration without the fields Hudi 1.0 added (``isTightBound``, the record index's ``position``,
``SecondaryIndexMetadata``) and 1.1 added (``ArrayWrapper``, ``valueType``).

:func:`hfile_block` turns :class:`~.change.MetadataRecord`\\ s into one HFILE data block
(``HoodieHFileDataBlock``: cells sorted as Java's String order, fields a payload leaves out written as null,
the record type's field defaults kept); :func:`delete_block` the delete block of the records without payload.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from ...format.block import LogBlock
from ...format.content.deletes import DeleteRecord, OrderingKind
from ...format.framing import framed_delete_block, hfile_data_block
from ...format.grammar import HeaderKey
from ..errors import TableError
from .change import MetadataRecord

NAMESPACE = "org.apache.hudi.avro.model"
_NO_DEFAULT = object()
# the payload's record types (HoodieMetadataPayload's METADATA_TYPE_*)
TYPE_PARTITION_LIST, TYPE_FILE_LIST, TYPE_COLUMN_STATS, TYPE_BLOOM_FILTER = 1, 2, 3, 4
TYPE_RECORD_INDEX, TYPE_PARTITION_STATS, TYPE_SECONDARY_INDEX = 5, 6, 7
META_FIELDS = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
               "_hoodie_file_name")


class MetadataSchemaError(TableError):
    """A metadata record does not fit the metadata table's writer schema (names the key and field)."""


@dataclass(frozen=True)
class Field:
    name: str
    type: Any
    doc: str | None = None
    default: Any = _NO_DEFAULT
    since: int = 6
    """The first table version whose Java writer has this field."""


@dataclass(frozen=True)
class Record:
    name: str
    fields: tuple
    doc: str | None = None
    since: int = 6


@dataclass(frozen=True)
class Map:
    values: Any


@dataclass(frozen=True)
class Array:
    items: Any


@dataclass(frozen=True)
class Union:
    """A union; a member that is a ``(type, since)`` pair is in it from that table version on."""
    members: tuple


STRING = {"type": "string", "avro.java.string": "String"}


def _opt(t) -> Union:
    return Union(("null", t))


def _wrapper(name: str, what: str, value_type, since: int = 6) -> Record:
    return Record(name, (Field("value", value_type),),
                  f"A record wrapping {what} to be able to be used it w/in Avro's Union", since)


_WRAPPERS = (
    _wrapper("BooleanWrapper", "boolean type", "boolean"),
    _wrapper("IntWrapper", "int type", "int"),
    _wrapper("LongWrapper", "long type", "long"),
    _wrapper("FloatWrapper", "float type", "float"),
    _wrapper("DoubleWrapper", "double type", "double"),
    _wrapper("BytesWrapper", "bytes type", "bytes"),
    _wrapper("StringWrapper", "string type", STRING),
    _wrapper("DateWrapper", "Date logical type", "int"),
    _wrapper("DecimalWrapper", "Decimal logical type",
             {"type": "bytes", "logicalType": "decimal", "precision": 30, "scale": 15}),
    _wrapper("TimeMicrosWrapper", "Time-micros logical type", {"type": "long", "logicalType": "time-micros"}),
    _wrapper("TimestampMicrosWrapper", "Timestamp-micros logical type", "long"),
    _wrapper("LocalDateWrapper", "Local Date type", "int"),
)
_ARRAY_WRAPPER = Record("ArrayWrapper", (
    Field("wrappedValues", _opt(Array(Union(("null",) + tuple(w.name for w in _WRAPPERS)))),
          "An array where each element is one of the supported wrapper types.", None),
), "A record containing a list of wrapped values.", 9)

_UUID_DOC = ("A UUID based fileId is stored as 3 pieces in RLI (fileIdHighBits, fileIdLowBits and fileIndex). "
             "\nFileID format is {UUID}-{fileIndex}.")
_RANGE_NOTE = "Based on user data table schema, we can convert {} to appropriate type"

_DECLARATION = Record("HoodieMetadataRecord", (
    Field("key", STRING),
    Field("type", "int", "Type of the metadata record"),
    Field("filesystemMetadata", _opt(Map(Record("HoodieMetadataFileInfo", (
        Field("size", "long", "Size of the file"),
        Field("isDeleted", "boolean", "True if this file has been deleted"),
    )))), "Contains information about partitions and files within the dataset"),
    Field("BloomFilterMetadata", _opt(Record("HoodieMetadataBloomFilter", (
        Field("type", STRING, "Bloom filter type code"),
        Field("timestamp", STRING, "Instant timestamp when this metadata was created/updated"),
        Field("bloomFilter", "bytes", "Bloom filter binary byte array"),
        Field("isDeleted", "boolean", "Bloom filter entry valid/deleted flag"),
    ), "Data file bloom filter details")), "Metadata Index of bloom filters for all data files in the user table",
        None),
    Field("ColumnStatsMetadata", _opt(Record("HoodieMetadataColumnStats", (
        Field("fileName", _opt(STRING), "File name for which this column statistics applies", None),
        Field("columnName", _opt(STRING), "Column name for which this column statistics applies", None),
        Field("minValue", Union(("null",) + _WRAPPERS + ((_ARRAY_WRAPPER, 9),)),
              "Minimum value in the range. " + _RANGE_NOTE.format("this"), None),
        Field("maxValue", Union(("null",) + tuple(w.name for w in _WRAPPERS) + (("ArrayWrapper", 9),)),
              "Maximum value in the range. " + _RANGE_NOTE.format("it"), None),
        Field("valueCount", _opt("long"), "Total count of values", None),
        Field("nullCount", _opt("long"), "Total count of null values", None),
        Field("totalSize", _opt("long"), "Total storage size on disk", None),
        Field("totalUncompressedSize", _opt("long"), "Total uncompressed storage size on disk", None),
        Field("isDeleted", "boolean", "Column range entry valid/deleted flag"),
        Field("isTightBound", "boolean", "Whether the min/max range of a column is tight bound or not", False, 8),
        Field("valueType", _opt(Record("HoodieValueTypeInfo", (
            Field("typeOrdinal", "int", "Enum type ordinal representing the value type"),
            Field("additionalInfo", _opt(STRING), "Optional additional information about the value type", None),
        ))), "Value type information containing enum ordinal and optional additional information", None, 9),
    ), "Data file column statistics")), "Metadata Index of column statistics for all data files in the user table",
        None),
    Field("recordIndexMetadata", _opt(Record("HoodieRecordIndexInfo", (
        Field("partitionName", _opt(STRING), "Refers to the partition name the record belongs to", None),
        Field("fileIdHighBits", _opt("long"), "Refers to high 64 bits if the fileId is based on UUID format. \n"
              + _UUID_DOC, None),
        Field("fileIdLowBits", _opt("long"), "Refers to low 64 bits if the fileId is based on UUID format. \n"
              + _UUID_DOC, None),
        Field("fileIndex", _opt("int"), "Index representing file index which is used to re-construct UUID based "
              "fileID. Applicable when the fileId is based on UUID format. \n" + _UUID_DOC, None),
        Field("fileId", _opt(STRING), "Represents fileId of the location where record belongs to. When the encoding "
              "is 1, fileID is stored in raw string format.", None),
        Field("instantTime", _opt("long"), "Epoch time in millisecond representing the commit time at which record "
              "was added", None),
        Field("fileIdEncoding", "int", "Represents fileId encoding. Possible values are 0 and 1. O represents UUID "
              "based fileID, and 1 represents raw string format of the fileId. \nWhen the encoding is 0, reader can "
              "deduce fileID from fileIdLowBits, fileIdHighBits and fileIndex.", 0),
        Field("position", _opt("long"), "Represents position of record within a file group for easier access. It "
              "will be used for index lookup.", None, 8),
    ))), "Metadata Index that contains information about record keys and their location in the dataset", None),
    Field("SecondaryIndexMetadata", _opt(Record("HoodieSecondaryIndexInfo", (
        Field("isDeleted", "boolean", "True if this entry has been deleted"),
    ))), "Metadata Index that contains information about secondary keys and the corresponding record keys in the "
        "dataset", None, 8),
), "A record saved within the Metadata Table")

#: the table versions whose metadata schema is declared (Java's writers of them: 0.14/0.15, 1.0, 1.1)
VERSIONS = (6, 8, 9)


def _emit(t, version: int, top: bool = False):
    """Avro JSON of a declared type at ``version``, keys in the order Avro's ``Schema.toString`` writes them."""
    if isinstance(t, Record):
        out = {"type": "record", "name": t.name}
        if top:
            out["namespace"] = NAMESPACE
        if t.doc is not None:
            out["doc"] = t.doc
        out["fields"] = [_emit_field(f, version) for f in t.fields if f.since <= version]
        return out
    if isinstance(t, Union):
        members = []
        for m in t.members:
            m, since = m if isinstance(m, tuple) else (m, 6)
            if since <= version:
                members.append(_emit(m, version))
        return members
    if isinstance(t, Map):
        return {"type": "map", "values": _emit(t.values, version), "avro.java.string": "String"}
    if isinstance(t, Array):
        return {"type": "array", "items": _emit(t.items, version)}
    return t


def _emit_field(f: Field, version: int) -> dict:
    out = {"name": f.name, "type": _emit(f.type, version)}
    if f.doc is not None:
        out["doc"] = f.doc
    if f.default is not _NO_DEFAULT:
        out["default"] = f.default
    return out


def metadata_schema(table_version: int) -> dict:
    """The writer schema Java uses for the metadata table of a data table at ``table_version``."""
    version = 9 if table_version >= 9 else 8 if table_version >= 8 else 6
    if table_version < 6:
        raise MetadataSchemaError("hoodie.table.version", f"table version {table_version}: hudi-log writes the "
                                  "metadata table of versions 6, 8 and 9 only (upgrade the table first)")
    schema = _emit(_DECLARATION, version, top=True)
    meta = [{"name": n, "type": ["null", "string"], "doc": "", "default": None} for n in META_FIELDS]
    schema["fields"] = meta + schema["fields"]
    return schema


def metadata_schema_text(table_version: int) -> str:
    """The schema as the SCHEMA header and the base file's file info carry it (Avro's compact JSON)."""
    return json.dumps(metadata_schema(table_version), separators=(",", ":"), ensure_ascii=False)


def _filled(record: dict, fields: list) -> dict:
    """``record`` with every schema field present: a missing one takes its default or null (Java's builders
    set only the payload's field)."""
    out = {}
    for f in fields:
        name = f["name"]
        if name in record:
            value = record[name]
            sub = _record_type(f["type"])
            if isinstance(value, dict) and sub is not None:
                value = _filled(value, sub["fields"])
            out[name] = value
        else:
            out[name] = f.get("default")
    return out


def _record_type(t):
    """The record schema a nullable record field holds (its fields to fill), else None."""
    if isinstance(t, list):
        recs = [m for m in t if isinstance(m, dict) and m.get("type") == "record"]
        return recs[0] if len(recs) == 1 and len(t) == 2 else None
    return t if isinstance(t, dict) and t.get("type") == "record" else None


def payload_record(rec: MetadataRecord, schema: dict) -> dict:
    """The full Avro record Java writes for ``rec``: its key, its payload's fields, the rest null/defaults."""
    if rec.payload is None:
        raise MetadataSchemaError(rec.key, "a delete has no payload to encode")
    payload = dict(rec.payload)
    names = {f["name"] for f in schema["fields"]}
    extra = sorted(set(payload) - names)
    if extra:
        raise MetadataSchemaError(rec.key, f"field(s) {', '.join(extra)} not in the metadata schema of this table "
                                  "version")
    if "type" not in payload:
        raise MetadataSchemaError(rec.key, "the payload has no record type")
    return _filled({**payload, "key": rec.key}, schema["fields"])


def hfile_block(instant: str, records: Sequence[MetadataRecord], table_version: int,
                create_time_ms: int | None = None) -> LogBlock:
    """One HFILE_DATA_BLOCK holding ``records`` (all with payloads) at ``instant`` (headers INSTANT_TIME and
    SCHEMA as Java writes them)."""
    schema = metadata_schema(table_version)
    text = metadata_schema_text(table_version)
    rows = [payload_record(r, schema) for r in records]
    try:
        return hfile_data_block(instant, text, rows, create_time_ms=create_time_ms)
    except (ValueError, TypeError) as e:  # fastavro: a value that does not fit its field
        raise MetadataSchemaError(instant, f"a metadata record does not fit the writer schema: {e}") from e


def base_hfile(records: Sequence[MetadataRecord], table_version: int, create_time_ms: int | None = None) -> bytes:
    """A metadata base file (``HoodieAvroHFileWriter``): the records' cells in Java's key order, file info
    ``schema`` and the first and last record keys."""
    from ...format.content.avro import encode_records
    from ...format.content.hfile_grammar import layout_bytes
    from ...format.content.hfile_writer import build_hfile

    schema = metadata_schema(table_version)
    rows = sorted((payload_record(r, schema) for r in records), key=lambda r: sort_key(r["key"]))
    keys = [r["key"] for r in rows]
    try:
        values = encode_records(({**r, "key": ""} for r in rows), schema)
    except (ValueError, TypeError) as e:
        raise MetadataSchemaError(keys[0] if keys else "", f"a metadata record does not fit the writer schema: {e}") from e
    info = {"schema": metadata_schema_text(table_version).encode("utf-8")}
    if keys:
        info["minRecordKey"], info["maxRecordKey"] = keys[0].encode("utf-8"), keys[-1].encode("utf-8")
    return layout_bytes(build_hfile(zip(keys, values), file_info=info, create_time_ms=create_time_ms))


def delete_block(instant: str, keys: Iterable[str], partition: str):
    """The delete block of the keys deleted at ``instant`` (``HoodieDeleteBlock``: record key, the metadata
    partition as partition path, no ordering value), framed for writing."""
    return framed_delete_block({HeaderKey.instant_time: instant},
                               [DeleteRecord(k, partition, None, OrderingKind.NULL) for k in keys])


def sort_key(key: str) -> bytes:
    """Java's String order (UTF-16 code units), the order of cells in an HFile."""
    return key.encode("utf-16-be", "surrogatepass")
