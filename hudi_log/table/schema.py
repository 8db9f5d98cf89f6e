"""The table's Avro schema and how a write may evolve it.

* The current schema is ``extraMetadata.schema`` of the latest completed write instant (as Hudi's
  ``TableSchemaResolver`` finds it), else ``hoodie.table.create.schema``.
* A batch's schema (Arrow) maps to Avro as Hudi's Spark writer does: record ``{table}_record`` in
  namespace ``hoodie.{table}``, every field ``["null", T]`` with default null.
* Compatible evolution (Avro reader/writer rules Hudi checks): a new column is appended (nullable);
  a column may be promoted ``int → long → float → double`` and ``float → double``; a column the batch
  lacks is an error (Hudi: "missing columns"), unless ``hoodie.write.set.null.for.missing.columns`` is
  true, when it is kept and written null. Anything else is :class:`SchemaEvolutionError`.
"""

from __future__ import annotations

import json
from typing import Mapping

from ..format.content.avro_arrow import arrow_to_avro_schema
from ..format.content.meta_fields import META_FIELDS, strip_meta_fields
from ..log.append_handle import avro_to_arrow_schema
from .properties import TableProperties
from .timeline.timeline import Timeline
from .errors import SchemaEvolutionError

_PROMOTIONS = {("int", "long"), ("int", "float"), ("int", "double"), ("long", "float"), ("long", "double"),
               ("float", "double")}


def current_schema(props: TableProperties, timeline: Timeline) -> dict | None:
    for inst in reversed(timeline.completed_commits()):
        try:
            s = (timeline.commit_metadata(inst).get("extraMetadata") or {}).get("schema")
        except Exception:  # noqa: BLE001 - an unreadable commit file: look further back
            continue
        if s:
            return strip_meta_fields(json.loads(s))
    s = props.get("hoodie.table.create.schema")
    return strip_meta_fields(json.loads(s)) if s else None


def batch_schema(arrow_schema, table_name: str) -> dict:
    return arrow_to_avro_schema(arrow_schema, name=table_name, namespace=f"hoodie.{table_name}")


def _non_null(t):
    if isinstance(t, list):
        rest = [b for b in t if b != "null"]
        return rest[0] if len(rest) == 1 else rest
    return t


def _canon(t) -> str:
    return json.dumps(_non_null(t), sort_keys=True)


def _same_type(a, b) -> bool:
    """Same Avro type, or two spellings of one (a decimal as ``fixed`` or ``bytes``, a record named
    differently): equal when they map to the same Arrow type, as the Parquet files store them."""
    if _canon(a) == _canon(b):
        return True
    try:
        def arrow(t):
            return avro_to_arrow_schema({"type": "record", "name": "probe", "fields": [{"name": "f", "type": t}]})[0].type
        return arrow(a) == arrow(b)
    except Exception:  # noqa: BLE001 - a reference to a named type defined elsewhere: not the same
        return False


def evolve(table_path, old: Mapping | None, new: Mapping, *, allow_missing: bool = False) -> dict:
    """The schema to write with: ``old`` evolved by the batch schema ``new``."""
    if old is None:
        return dict(new)
    new_fields = {f["name"]: f for f in new["fields"] if f["name"] not in META_FIELDS}
    out = []
    for f in old["fields"]:
        nf = new_fields.pop(f["name"], None)
        if nf is None:
            if not allow_missing:
                raise SchemaEvolutionError(table_path, f"the batch lacks column {f['name']!r} of the table schema "
                                           "(set hoodie.write.set.null.for.missing.columns=true to write it null)")
            out.append(f)
            continue
        a, b = _non_null(f["type"]), _non_null(nf["type"])
        if _same_type(a, b):
            out.append(f)  # the table's spelling stays
        elif isinstance(a, str) and isinstance(b, str) and (a, b) in _PROMOTIONS:
            out.append(nf)
        elif isinstance(a, str) and isinstance(b, str) and (b, a) in _PROMOTIONS:
            out.append(f)  # a narrower incoming type is widened to the table's on write
        else:
            raise SchemaEvolutionError(table_path, f"column {f['name']!r} changes type from {_canon(a)} to "
                                       f"{_canon(b)}, which is not a compatible evolution")
    out.extend(new_fields.values())  # added columns, nullable with default null
    result = {k: v for k, v in old.items() if k != "fields"}
    result["fields"] = out
    return result
