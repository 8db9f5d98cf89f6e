"""Record keys and partition paths of incoming rows, as Hudi's key generators compute them.

* One record-key field: the value's text (``SimpleKeyGenerator`` / ``NonpartitionedKeyGenerator``).
  Several: ``f1:v1,f2:v2`` (``ComplexKeyGenerator``). A null or empty key value is refused
  (Hudi: "recordKey value ... cannot be null or empty").
* Partition path: the partition fields' values joined by ``/``; hive style writes ``field=value``;
  a null or empty value becomes ``__HIVE_DEFAULT_PARTITION__``; no partition fields → ``""``.
* Values print as Java's ``toString`` does for the common types (``true``, ``1``, ``1.5``); dates as
  ``yyyy-MM-dd`` (Hudi converts the Avro date to a LocalDate), timestamps and times by their Avro long.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pt

from ..errors import RecordKeyError

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def _text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _column_values(batch: pa.RecordBatch | pa.Table, name: str) -> list:
    col = batch.column(batch.schema.get_field_index(name))
    t = col.type
    if pt.is_date(t):
        return [None if v is None else v.isoformat() for v in col.to_pylist()]  # Hudi: LocalDate text
    if pt.is_timestamp(t) or pt.is_time(t):
        col = col.cast(pa.int64())  # the Avro long (millis / micros), as Hudi keys timestamps
    return col.to_pylist()


def _column_text(batch, name: str):
    """The column's values as Java's toString prints them, as one Arrow string array, for the types where
    Arrow's cast prints the same (strings, integers, booleans); None for the others (the list path)."""
    col = batch.column(batch.schema.get_field_index(name))
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    t = col.type
    if pt.is_string(t) or pt.is_large_string(t) or pt.is_integer(t) or pt.is_boolean(t):
        return col.cast(pa.string())
    return None


def _null_or_empty(arr) -> bool:
    return arr.null_count > 0 or pc.any(pc.equal(arr, "")).as_py() is True


@dataclass(frozen=True)
class KeyGenerator:
    table_path: str
    record_key_fields: tuple[str, ...]
    partition_fields: tuple[str, ...] = ()
    hive_style: bool = False

    def record_keys(self, batch) -> list[str]:
        return self.record_key_array(batch).to_pylist()

    def record_key_array(self, batch) -> pa.Array:
        """The record keys as one Arrow string array."""
        missing = [f for f in self.record_key_fields if f not in batch.schema.names]
        if missing:
            raise RecordKeyError(self.table_path, f"the input has no record key column(s) {missing}")
        if len(self.record_key_fields) == 1:  # the common case as one vectorized cast
            arr = _column_text(batch, self.record_key_fields[0])
            if arr is not None and not _null_or_empty(arr):
                return arr
        cols = [_column_values(batch, f) for f in self.record_key_fields]
        out: list[str] = []
        single = len(cols) == 1
        for i, vals in enumerate(zip(*cols)):
            if single:
                v = vals[0]
                if v is None or v == "":
                    raise RecordKeyError(self.table_path, f"row {i}: record key field "
                                         f"{self.record_key_fields[0]!r} is null or empty")
                out.append(_text(v))
                continue
            parts = []
            for f, v in zip(self.record_key_fields, vals):
                parts.append(f"{f}:" + ("__null__" if v is None else "__empty__" if v == "" else _text(v)))
            if all(v is None or v == "" for v in vals):
                raise RecordKeyError(self.table_path, f"row {i}: every record key field "
                                     f"{list(self.record_key_fields)} is null or empty")
            out.append(",".join(parts))
        return pa.array(out, pa.string())

    def partition_paths(self, batch) -> list[str]:
        return self.partition_path_array(batch).to_pylist()

    def partition_path_array(self, batch) -> pa.Array:
        """Each row's partition path as one Arrow string array."""
        n = batch.num_rows
        if not self.partition_fields:
            return pa.repeat(pa.scalar("", pa.string()), n)
        missing = [f for f in self.partition_fields if f not in batch.schema.names]
        if missing:
            raise RecordKeyError(self.table_path, f"the input has no partition column(s) {missing}")
        texts = [_column_text(batch, f) for f in self.partition_fields]
        if all(t is not None for t in texts):  # vectorized: same text, default partition, hive prefix
            segs = []
            for f, t in zip(self.partition_fields, texts):
                t = pc.if_else(pc.fill_null(pc.equal(t, ""), True), DEFAULT_PARTITION, t)
                segs.append(pc.binary_join_element_wise(f"{f}=", t, "") if self.hive_style else t)
            joined = segs[0] if len(segs) == 1 else pc.binary_join_element_wise(*segs, "/")
            return joined.cast(pa.string())
        cols = [_column_values(batch, f) for f in self.partition_fields]
        out = []
        for vals in zip(*cols):
            segs = []
            for f, v in zip(self.partition_fields, vals):
                s = DEFAULT_PARTITION if v is None or v == "" else _text(v)
                segs.append(f"{f}={s}" if self.hive_style else s)
            out.append("/".join(segs))
        return pa.array(out, pa.string())
