"""Hudi's meta fields (``HoodieRecord.HoodieMetadataField``): the five ``_hoodie_*`` columns every record of a
table with ``hoodie.populate.meta.fields=true`` carries, the writer schema that prepends them to the table
schema (each ``["null","string"]`` with default null, exactly the JSON Hudi writes), and the counter behind
``_hoodie_commit_seqno`` = ``{instant}_{taskPartitionId}_{counter}``.

A table with ``hoodie.populate.meta.fields=false`` (virtual keys) still carries the five columns in its files,
every value null (Java's handles prepend them with no values); its keys come from the data columns.

Both the log layer (the append handle fills them) and the table layer (base files, the index, reads) use
them, so they live here, below both.
"""

from __future__ import annotations

import copy
import json
import threading
from typing import Mapping

from ...errors import AppendHandleError

COMMIT_TIME = "_hoodie_commit_time"
COMMIT_SEQNO = "_hoodie_commit_seqno"
RECORD_KEY = "_hoodie_record_key"
PARTITION_PATH = "_hoodie_partition_path"
FILE_NAME = "_hoodie_file_name"
META_FIELDS = (COMMIT_TIME, COMMIT_SEQNO, RECORD_KEY, PARTITION_PATH, FILE_NAME)
POPULATE_META_FIELDS = "hoodie.populate.meta.fields"  # HoodieTableConfig.POPULATE_META_FIELDS, default true


def populates_meta_fields(settings: Mapping) -> bool:
    """Whether a table's properties (or a write's options) fill the meta fields: unset, or ``true`` in any case
    (Java's ``Boolean.parseBoolean``: every other value is false)."""
    return str(settings.get(POPULATE_META_FIELDS) or "true").strip().lower() == "true"


class SeqCounter:
    """A sequence counter that can also hand out a run of numbers at once (for batches)."""

    def __init__(self, start: int):
        self._next = start
        self._lock = threading.Lock()

    def __next__(self) -> int:
        return self.take(1)

    def take(self, n: int) -> int:
        """Reserve ``n`` numbers; returns the first."""
        with self._lock:
            first = self._next
            self._next += n
            return first


# JVM-wide in Hudi (an AtomicLong starting at 1); process-wide here.
GLOBAL_SEQNO = SeqCounter(1)


def meta_field_schemas() -> list[dict]:
    """The five meta fields as Hudi writes them into a writer schema."""
    return [{"name": n, "type": ["null", "string"], "doc": "", "default": None} for n in META_FIELDS]


def writer_schema(table_schema: Mapping) -> dict:
    """The table schema with the meta fields prepended (unchanged if it already starts with them)."""
    schema = copy.deepcopy(dict(table_schema))
    if schema.get("type") != "record":
        raise AppendHandleError(f"a table schema must be an Avro record, not {schema.get('type')!r}")
    fields = list(schema.get("fields", []))
    names = [f["name"] for f in fields]
    if tuple(names[: len(META_FIELDS)]) == META_FIELDS:
        return schema
    clash = [n for n in names if n in META_FIELDS]
    if clash:
        raise AppendHandleError(f"table schema has meta field(s) {clash} but not as the first five fields")
    schema["fields"] = meta_field_schemas() + fields
    # keep Hudi's key order: type, name, namespace, (doc), fields
    ordered = {k: schema[k] for k in ("type", "name", "namespace", "doc") if k in schema}
    ordered.update({k: v for k, v in schema.items() if k not in ordered})
    return ordered


def schema_json(schema: Mapping) -> str:
    """Compact JSON, as Hudi's SCHEMA header holds it."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def strip_meta_fields(schema: Mapping) -> dict:
    s = dict(schema)
    s["fields"] = [f for f in schema.get("fields", []) if f["name"] not in META_FIELDS]
    return s
