"""Change data capture facts, one place for the writer and the reader (Hudi's ``HoodieCDCUtils``,
``HoodieCDCSupplementalLoggingMode``, ``HoodieCDCOperation``, ``HoodieTableConfig.CDC_*``).

* The table config: ``hoodie.table.cdc.enabled`` (default false) and
  ``hoodie.table.cdc.supplemental.logging.mode`` (``OP_KEY_ONLY`` | ``DATA_BEFORE`` |
  ``DATA_BEFORE_AFTER``, default the last, read case-insensitively). Both are written to
  ``hoodie.properties`` only when the creating write asks for CDC, as Java's table builder does.
* CDC log files are named as data log files with ``.cdc`` after the write token and hold
  CDC_DATA_BLOCKs (an Avro data block's layout; header INSTANT_TIME and SCHEMA) under the mode's
  schema: ``OP_KEY_ONLY`` a record ``Record`` {op, record_key} with ``["string","null"]`` unions;
  the data modes a record ``CDC`` with ``["null", ...]`` unions defaulting to null: {op, record_key,
  before} or {op, ts_ms, before, after}, the images being the table's record without the
  ``_hoodie_*`` meta fields. ``ts_ms`` holds the commit's instant time.
* Java writes them only where a base file is rewritten by a merge (``HoodieMergeHandleWithChangeLog``);
  appends to MOR logs and new file groups write none, and readers infer their changes.
* A CDC query returns four nullable strings: ``op`` (``i`` / ``u`` / ``d``), ``ts_ms`` (the
  instant), ``before`` and ``after`` (JSON images).
"""

from __future__ import annotations

import copy
from typing import Mapping

import pyarrow as pa

from ..format.content.meta_fields import META_FIELDS

CDC_ENABLED = "hoodie.table.cdc.enabled"
CDC_MODE = "hoodie.table.cdc.supplemental.logging.mode"

OP_KEY_ONLY = "OP_KEY_ONLY"
DATA_BEFORE = "DATA_BEFORE"
DATA_BEFORE_AFTER = "DATA_BEFORE_AFTER"
MODES = (OP_KEY_ONLY, DATA_BEFORE, DATA_BEFORE_AFTER)
DEFAULT_MODE = DATA_BEFORE_AFTER

#: HoodieCDCOperation values
INSERT, UPDATE, DELETE = "i", "u", "d"

#: the query option that makes an incremental read return changes (Hudi: ``...incremental.format=cdc``)
INCREMENTAL_FORMAT = "hoodie.datasource.query.incremental.format"

#: the rows of a CDC query (Hudi's ``FULL_CDC_SPARK_SCHEMA``)
CDC_COLUMNS = ("op", "ts_ms", "before", "after")
CDC_ARROW_SCHEMA = pa.schema([pa.field(c, pa.string()) for c in CDC_COLUMNS])


class CdcOptionError(ValueError):
    """A CDC option with a value Hudi does not know."""


def mode_of(value: str | None) -> str:
    """The supplemental logging mode named by ``value`` (Hudi upper-cases it), default DATA_BEFORE_AFTER."""
    if value is None or str(value).strip() == "":
        return DEFAULT_MODE
    mode = str(value).strip().upper()
    if mode not in MODES:
        raise CdcOptionError(f"{CDC_MODE}={value!r} is not one of {', '.join(MODES)}")
    return mode


def data_schema(table_schema: Mapping) -> dict:
    """The table's record schema without the ``_hoodie_*`` meta fields (``removeMetadataFields``)."""
    s = copy.deepcopy(dict(table_schema))
    s["fields"] = [f for f in s.get("fields", []) if f["name"] not in META_FIELDS]
    return s


def cdc_schema(mode: str, table_schema: Mapping) -> dict:
    """The Avro schema of the mode's CDC records (``HoodieCDCUtils.schemaBySupplementalLoggingMode``)."""
    if mode == OP_KEY_ONLY:
        return {"type": "record", "name": "Record", "fields": [
            {"name": "op", "type": ["string", "null"]},
            {"name": "record_key", "type": ["string", "null"]},
        ]}
    image = data_schema(table_schema)

    def opt(name, typ):
        return {"name": name, "type": ["null", typ], "doc": "", "default": None}

    if mode == DATA_BEFORE:
        fields = [opt("op", "string"), opt("record_key", "string"), opt("before", image)]
    else:
        # the second use of the named record type is its name (Avro's toString writes it so)
        fields = [opt("op", "string"), opt("ts_ms", "string"), opt("before", image),
                  opt("after", _full_name(image))]
    return {"type": "record", "name": "CDC", "doc": "", "fields": fields}


def _full_name(record: Mapping) -> str:
    ns = record.get("namespace")
    return f"{ns}.{record['name']}" if ns else record["name"]
