"""Base Parquet files as Hudi writes them (``HoodieAvroParquetWriter``):

* name ``{fileId}_{writeToken}_{instant}.parquet``;
* the five ``_hoodie_*`` meta columns first (strings), then the data columns typed from the table's Avro
  schema (:func:`hudi_log.log.append_handle.avro_to_arrow_schema`, as parquet-avro maps them);
* ``_hoodie_commit_seqno`` = ``{instant}_{taskPartitionId}_{n}`` with n counting from 0 per file,
  ``_hoodie_file_name`` = the base file's name;
* footer key/values ``parquet.avro.schema`` (the writer schema with meta fields), ``writer.model.name``
  = ``avro``, ``hoodie_min_record_key`` / ``hoodie_max_record_key``. Hudi also stores a bloom filter
  (``org.apache.hudi.bloomfilter``); we do not (readers do not need it; our index reads keys).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ...format.content.meta_fields import (
    COMMIT_SEQNO, COMMIT_TIME, FILE_NAME, META_FIELDS, PARTITION_PATH, RECORD_KEY, schema_json, writer_schema,
)
from ...log.append_handle import avro_to_arrow_schema


def base_file_name(file_id: str, write_token: str, instant: str) -> str:
    return f"{file_id}_{write_token}_{instant}.parquet"


def arrow_schema_for(table_schema: dict) -> pa.Schema:
    """The Arrow schema of base files (meta columns first) for an Avro table schema."""
    return avro_to_arrow_schema(writer_schema(table_schema))


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


def conform(table: pa.Table, schema: pa.Schema, strict: bool = True) -> pa.Table:
    """``table`` with exactly ``schema``'s columns (missing ones null), cast to its types. With
    ``strict=False`` a column Arrow cannot cast is kept as it is instead of raising."""
    cols = []
    for f in schema:
        if f.name in table.column_names:
            col = table.column(f.name)
            if col.type != f.type:
                try:
                    col = cast_column(col, f.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    if strict:
                        raise
            cols.append(col)
        else:
            cols.append(pa.nulls(table.num_rows, f.type))
    if strict:
        return pa.Table.from_arrays(cols, schema=schema)
    return pa.table(cols, names=schema.names)


def with_meta_columns(data: pa.Table, *, instant: str | list, keys: list[str], partition: str, file_name: str,
                      task_partition_id: int, seqnos: list[str] | None = None) -> pa.Table:
    """``data`` with the meta columns (re)filled; ``instant``/``seqnos`` may be given per row."""
    n = data.num_rows
    times = instant if isinstance(instant, list) else [instant] * n
    if seqnos is None:
        seqnos = [f"{instant}_{task_partition_id}_{i}" for i in range(n)]
    meta = {
        COMMIT_TIME: pa.array(times, pa.string()),
        COMMIT_SEQNO: pa.array(seqnos, pa.string()),
        RECORD_KEY: pa.array(keys, pa.string()),
        PARTITION_PATH: pa.array([partition] * n, pa.string()),
        FILE_NAME: pa.array([file_name] * n, pa.string()),
    }
    data = data.drop_columns([c for c in META_FIELDS if c in data.column_names])
    for i, name in enumerate(META_FIELDS):
        data = data.add_column(i, name, meta[name])
    return data


def write_base_file(path: Path, rows: pa.Table, table_schema: dict, keys: list[str]) -> int:
    """Write ``rows`` (meta columns included) to ``path``; returns the file size in bytes."""
    schema = arrow_schema_for(table_schema)
    rows = conform(rows, schema)
    footer = {
        b"parquet.avro.schema": schema_json(writer_schema(table_schema)).encode("utf-8"),
        b"writer.model.name": b"avro",
    }
    if keys:
        footer[b"hoodie_min_record_key"] = min(keys).encode("utf-8")
        footer[b"hoodie_max_record_key"] = max(keys).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    # written aside and renamed: a killed write leaves no half Parquet file under a base file name.
    # No ARROW:schema key (Hudi's files have none); the footer keys are added explicitly.
    with pq.ParquetWriter(tmp, rows.schema, compression="snappy", store_schema=False) as w:
        w.write_table(rows)
        w.add_key_value_metadata(footer)
    tmp.replace(path)
    return path.stat().st_size
