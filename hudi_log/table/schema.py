"""The table's Avro schema and how a write may evolve it.

* The current schema is ``extraMetadata.schema`` of the latest completed write instant (as Hudi's
  ``TableSchemaResolver`` finds it), else ``hoodie.table.create.schema``.
* A batch's schema (Arrow) maps to Avro as Hudi's Spark writer does
  (:func:`~hudi_log.format.content.avro_arrow.arrow_to_avro_schema`: record ``{table}_record`` in
  namespace ``hoodie.{table}``, nullable fields ``["null", T]`` with default null, decimals as ``fixed``).
* Compatible evolution, as Hudi's out-of-the-box schema evolution allows it on write (HUDI-6872;
  ``HoodieSchemaUtils.deduceWriterSchema``, ``AvroSchemaEvolutionUtils.reconcileSchemaRequirements``,
  ``AvroSchemaUtils.checkValidEvolution``):

  * a new column is appended;
  * a column is promoted when the batch widens it: ``int → long, float, double, string``,
    ``long → float, double, string``, ``float → double, string``, ``double → string``;
  * a batch narrower than the table (``long`` into an ``int``... column, any of those into ``string``,
    ``string`` and ``bytes`` either way) keeps the table's type, and its values are cast on write;
  * a column is nullable when the table or the batch has it nullable;
  * a column the batch lacks is an error (Hudi: "missing columns"), unless
    ``hoodie.write.set.null.for.missing.columns`` is true, when it is kept and written null.

  The same rules hold inside structs (a new nested field goes at the end of its struct), list elements
  and map values. Anything else is :class:`SchemaEvolutionError`, naming the (nested) column. The table's
  own spelling of an unchanged column stays (e.g. a decimal as ``bytes`` that an older hudi-log wrote).
* A batch's schema other readers could not read is refused before anything is written
  (:func:`check_writable`, :class:`~hudi_log.table.errors.WriteSchemaError`): a field name that is not an
  Avro name (``[A-Za-z_][A-Za-z0-9_]*``: Java's ``Schema.Field`` throws on it, so do Spark's
  ``SchemaConverters`` and hudi-rs), a name twice in one record, a decimal whose precision is over 38 (Spark's
  and Arrow's ``decimal128`` limit, which Java's Spark readers and hudi-rs read with) or whose scale is not
  within 0 and its precision. Nested fields too, named by their dotted path.
* Reading with the latest schema, as Hudi's readers do: :func:`read_type` (the type a file's column
  reads as), :func:`cast_column` (Arrow columns; also used to cast a narrower batch on write) and
  :func:`coerce_value` (decoded records) give the same values; a number promoted to string reads as Java's
  ``String.valueOf`` prints it (``HoodieAvroUtils.rewriteRecordWithNewSchema``).
"""

from __future__ import annotations

import json
import re
from typing import Mapping

import pyarrow as pa
import pyarrow.compute as pc

from ..format.content.avro_arrow import arrow_to_avro_schema, fix_null_ordering
from ..format.content.meta_fields import META_FIELDS, strip_meta_fields
from ..log.append_handle import avro_to_arrow_schema
from .properties import TableProperties
from .timeline.timeline import Timeline, TimelineError
from .errors import SchemaEvolutionError, WriteSchemaError

#: (table type, batch type) pairs where the batch's type becomes the column's (a widening)
PROMOTIONS = frozenset({("int", "long"), ("int", "float"), ("int", "double"), ("int", "string"),
                        ("long", "float"), ("long", "double"), ("long", "string"),
                        ("float", "double"), ("float", "string"), ("double", "string")})
#: (table type, batch type) pairs where the table's type stays and the batch's values are cast to it
_NARROWER = frozenset({(a, b) for b, a in PROMOTIONS} | {("string", "bytes"), ("bytes", "string")})


def current_schema(props: TableProperties, timeline: Timeline) -> dict | None:
    """The table's latest schema without meta fields, null first in its unions (Java's
    ``deduceWriterSchema`` fixes the null ordering of the table's schema before it evolves it; Spark SQL's
    ``hoodie.table.create.schema`` puts null last)."""
    for inst in reversed(timeline.completed_commits()):
        try:
            s = (timeline.commit_metadata(inst).get("extraMetadata") or {}).get("schema")
        except Exception:  # noqa: BLE001 - an unreadable commit file: look further back
            continue
        if s:
            return fix_null_ordering(strip_meta_fields(_schema_json(s, inst.path or timeline.folder / inst.file_name,
                                                                    "extraMetadata.schema")))
    s = props.get("hoodie.table.create.schema")
    if not s:
        return None
    return fix_null_ordering(strip_meta_fields(_schema_json(s, props.path, "hoodie.table.create.schema")))


def _schema_json(text: str, where, field: str) -> dict:
    """An Avro record schema stored as JSON text; damage is a :class:`TimelineError` naming the file and field."""
    try:
        schema = json.loads(text)
    except ValueError as e:
        raise TimelineError(where, f"{field} is not JSON: {e}") from None
    if not isinstance(schema, dict) or not isinstance(schema.get("fields"), list):
        raise TimelineError(where, f"{field} is not an Avro record schema")
    return schema


def batch_schema(arrow_schema, table_name: str) -> dict:
    return arrow_to_avro_schema(arrow_schema, name=table_name, namespace=f"hoodie.{table_name}")


#: Avro's rule for names (the specification's "Names"), which Java's ``Schema`` enforces
AVRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the greatest decimal precision every reader of the table takes (Spark's DecimalType, Arrow's decimal128)
MAX_DECIMAL_PRECISION = 38


def check_writable(table_path, schema: Mapping) -> None:
    """Refuse (:class:`WriteSchemaError`, naming the table and the column) a batch's Avro record schema that
    would make a table other readers cannot read (see the module docstring)."""
    problem = _record_problem(schema, "")
    if problem is not None:
        raise WriteSchemaError(table_path, f"{problem}; nothing was written")


def _record_problem(record: Mapping, prefix: str) -> str | None:
    seen = set()
    for f in record.get("fields") or []:
        name = f.get("name")
        where = f"{prefix}{name}"
        if not isinstance(name, str) or not AVRO_NAME.fullmatch(name):
            return (f"column {where!r}: {name!r} is not an Avro name (letters, digits and '_', not starting with a "
                    "digit), which Hudi's Avro schema must carry; rename the column")
        if name in seen:
            return f"column {where!r} is given twice; give each column once"
        seen.add(name)
        problem = _type_problem(f.get("type"), where)
        if problem is not None:
            return problem
    return None


def _type_problem(t, where: str) -> str | None:
    if isinstance(t, list):
        return next((p for p in (_type_problem(b, where) for b in t) if p is not None), None)
    if not isinstance(t, Mapping):
        return None
    kind = t.get("type")
    if kind in ("record", "error"):
        return _record_problem(t, where + ".")
    if kind == "array":
        return _type_problem(t.get("items"), where + ".element")
    if kind == "map":
        return _type_problem(t.get("values"), where + ".value")
    if t.get("logicalType") == "decimal":
        precision, scale = t.get("precision"), t.get("scale", 0)
        if not isinstance(precision, int) or not 1 <= precision <= MAX_DECIMAL_PRECISION:
            return (f"column {where!r}: decimal precision {precision} is not within 1 and {MAX_DECIMAL_PRECISION}, "
                    "what Spark, Java's readers and hudi-rs read; cast it to a decimal of precision 38 or less, or "
                    "to a string")
        if not isinstance(scale, int) or not 0 <= scale <= precision:
            return f"column {where!r}: decimal scale {scale} is not within 0 and its precision {precision}"
    return None


def _non_null(t):
    if isinstance(t, list):
        rest = [b for b in t if b != "null"]
        return rest[0] if len(rest) == 1 else rest
    return t


def _nullable(t) -> bool:
    return isinstance(t, list) and "null" in t


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
    return _evolve_record(table_path, old, new, allow_missing, "")


def _evolve_record(table_path, old: Mapping, new: Mapping, allow_missing: bool, prefix: str) -> dict:
    """``old``'s fields evolved by ``new``'s, in ``old``'s order, then ``new``'s added fields (also inside
    nested records: Hudi appends new nested fields at the end of their struct)."""
    new_fields = {f["name"]: f for f in new["fields"] if f["name"] not in META_FIELDS}
    out = []
    for f in old["fields"]:
        name = prefix + f["name"]
        nf = new_fields.pop(f["name"], None)
        if nf is None:
            if not allow_missing:
                raise SchemaEvolutionError(table_path, f"the batch lacks column {name!r} of the table schema "
                                           "(set hoodie.write.set.null.for.missing.columns=true to write it null)")
            out.append(f)
            continue
        nullable = _nullable(f["type"]) or _nullable(nf["type"])
        t = _evolve_type(table_path, name, _non_null(f["type"]), _non_null(nf["type"]), allow_missing)
        g = {"name": f["name"], "type": ["null", t] if nullable else t}
        if "doc" in f:
            g["doc"] = f["doc"]
        if nullable:
            g["default"] = None
        elif "default" in f:
            g["default"] = f["default"]
        out.append(g)
    out.extend(new_fields.values())  # added columns, nullable with default null
    result = {k: v for k, v in old.items() if k != "fields"}
    result["fields"] = out
    return result


def _evolve_type(table_path, name: str, a, b, allow_missing: bool):
    """The column's type when the table has ``a`` and the batch ``b`` (both without their null branch)."""
    if _same_type(a, b):
        return a  # the table's spelling stays
    if isinstance(a, str) and isinstance(b, str):
        if (a, b) in PROMOTIONS:
            return b
        if (a, b) in _NARROWER:
            return a  # the batch's values are cast to the table's type
    elif isinstance(a, Mapping) and isinstance(b, Mapping) and a.get("type") == b.get("type"):
        kind = a["type"]
        if kind == "record":
            return _evolve_record(table_path, a, b, allow_missing, name + ".")
        if kind in ("array", "map"):
            key, part = ("items", "element") if kind == "array" else ("values", "value")
            inner = _evolve_type(table_path, f"{name}.{part}", _non_null(a[key]), _non_null(b[key]), allow_missing)
            return {"type": kind, key: ["null", inner] if _nullable(a[key]) or _nullable(b[key]) else inner}
    raise SchemaEvolutionError(table_path, f"column {name!r} changes type from {_canon(a)} to {_canon(b)}, "
                               "which is not a compatible evolution")


#: Arrow types by the Avro primitive they are read from, for :data:`PROMOTIONS`
_AVRO_NAME = {pa.int8(): "int", pa.int16(): "int", pa.int32(): "int", pa.int64(): "long", pa.float32(): "float",
              pa.float64(): "double", pa.string(): "string", pa.large_string(): "string", pa.binary(): "bytes",
              pa.large_binary(): "bytes"}


def read_type(file_type: pa.DataType, table_type: pa.DataType) -> pa.DataType:
    """The type a column of ``file_type`` (a base file's, a log block's) is read as when the table's latest
    schema has ``table_type``: Hudi reads every file with the latest table schema, so a column a later write
    promoted (``int`` then ``long``...; :data:`PROMOTIONS`) reads as the promoted type, also inside lists,
    maps and structs, a struct has the fields a later write added to it, and a list or map takes the
    table's element nullability. Anything else keeps the file's type."""
    if file_type == table_type:
        return file_type
    t = pa.types
    if (_AVRO_NAME.get(file_type), _AVRO_NAME.get(table_type)) in PROMOTIONS:
        return table_type
    if t.is_list(file_type) and t.is_list(table_type):
        fv, tv = file_type.value_field, table_type.value_field
        return pa.list_(pa.field(tv.name, read_type(fv.type, tv.type), nullable=fv.nullable or tv.nullable))
    if t.is_map(file_type) and t.is_map(table_type) and file_type.key_type == table_type.key_type:
        fv, tv = file_type.item_field, table_type.item_field
        vt, nullable = read_type(fv.type, tv.type), fv.nullable or tv.nullable
        if vt == fv.type and nullable == fv.nullable:
            return file_type  # the file's own map layout (entry names) stays
        return pa.map_(file_type.key_type, pa.field(tv.name, vt, nullable=nullable))
    if t.is_struct(file_type) and t.is_struct(table_type):
        # the table's fields in its order (a field the file lacks reads null), then any only the file has
        have = {f.name: f for f in file_type}
        fields = [pa.field(g.name, read_type(have[g.name].type, g.type), nullable=have[g.name].nullable or g.nullable)
                  if g.name in have else g.with_nullable(True) for g in table_type]
        names = {g.name for g in table_type}
        return pa.struct(fields + [f for f in file_type if f.name not in names])
    return file_type


def java_number_string(x: float, single: bool = False) -> str:
    """``x`` as Java's ``Double.toString`` (``Float.toString`` when ``single``) prints it: what Hudi's
    ``HoodieAvroUtils.rewriteRecordWithNewSchema`` stores when a number column is promoted to string
    (``String.valueOf``). Shortest round-trip digits; plain between 10^-3 and 10^7, else ``d.dddE±n``."""
    import decimal
    import math

    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if single:
        import numpy as np

        text = np.format_float_scientific(np.float32(x), unique=True)
    else:
        text = repr(float(x))
    sign, digits, exp = decimal.Decimal(text).as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + exp  # the decimal point sits after this many digits
    head = "-" if sign else ""
    if 1e-3 <= abs(x) < 1e7:
        if point <= 0:
            return f"{head}0.{'0' * -point}{ds}"
        whole, frac = ds[:point].ljust(point, "0"), ds[point:]
        return f"{head}{whole}.{frac or '0'}"
    return f"{head}{ds[0]}.{ds[1:] or '0'}E{point - 1}"


def cast_column(col, to: pa.DataType):
    """``col`` cast to ``to`` as Hudi reads a column of an older type with a newer schema: floating point
    to string as Java prints it (:func:`java_number_string`); structs field by field (a field ``col``
    lacks is null, one ``to`` lacks is dropped); lists and maps element by element; the rest by Arrow's
    cast."""
    if isinstance(col, pa.ChunkedArray):
        return pa.chunked_array([cast_column(c, to) for c in col.chunks], to)
    t = pa.types
    if col.type == to:
        return col
    if t.is_floating(col.type) and (t.is_string(to) or t.is_large_string(to)):
        single = t.is_float32(col.type) or t.is_float16(col.type)
        return pa.array([None if v is None else java_number_string(v, single) for v in col.to_pylist()], to)
    if t.is_struct(col.type) and t.is_struct(to):
        names = {f.name for f in col.type}
        children = [cast_column(col.field(f.name), f.type) if f.name in names else pa.nulls(len(col), f.type)
                    for f in to]
        return pa.StructArray.from_arrays(children, fields=list(to), mask=col.is_null())
    if (t.is_list(col.type) and t.is_list(to)) or (t.is_map(col.type) and t.is_map(to)):
        # offsets from 0 over the slice's own values: Arrow takes no null mask with sliced offsets
        start, end = col.offsets[0].as_py(), col.offsets[-1].as_py()
        offsets = pc.subtract(col.offsets, start)
        if t.is_list(to):
            values = cast_column(col.values.slice(start, end - start), to.value_type)
            return pa.ListArray.from_arrays(offsets, values, type=to, mask=col.is_null())
        keys = col.keys.slice(start, end - start).cast(to.key_type)
        items = cast_column(col.items.slice(start, end - start), to.item_type)
        return pa.MapArray.from_arrays(offsets, keys, items, type=to, mask=col.is_null())
    return col.cast(to)


def coerce_value(v, to: pa.DataType):
    """A decoded record's value (Python) as :func:`cast_column` would give it for ``to``: the record-by-record
    read of a promoted column. Decoded Avro floats and doubles are both Python floats; one a float holds
    exactly is printed as Java prints a float."""
    t = pa.types
    if v is None:
        return None
    if t.is_struct(to):
        return {f.name: coerce_value(v.get(f.name), f.type) for f in to} if isinstance(v, dict) else v
    if t.is_list(to) or t.is_large_list(to):
        return [coerce_value(x, to.value_type) for x in v] if isinstance(v, (list, tuple)) else v
    if t.is_map(to):
        pairs = v.items() if isinstance(v, dict) else v
        return [(k, coerce_value(x, to.item_type)) for k, x in pairs]
    if t.is_string(to) or t.is_large_string(to):
        if isinstance(v, bool):
            return v
        if isinstance(v, float):
            import numpy as np

            return java_number_string(v, single=float(np.float32(v)) == v)
        if isinstance(v, int):
            return str(v)
        if isinstance(v, (bytes, bytearray)):
            return bytes(v).decode("utf-8")
    if (t.is_binary(to) or t.is_large_binary(to)) and isinstance(v, str):
        return v.encode("utf-8")
    if t.is_floating(to) and isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    return v
