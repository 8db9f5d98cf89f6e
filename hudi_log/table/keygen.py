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
import pyarrow.types as pt

from .write_errors import RecordKeyError

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


@dataclass(frozen=True)
class KeyGenerator:
    table_path: str
    record_key_fields: tuple[str, ...]
    partition_fields: tuple[str, ...] = ()
    hive_style: bool = False

    def record_keys(self, batch) -> list[str]:
        missing = [f for f in self.record_key_fields if f not in batch.schema.names]
        if missing:
            raise RecordKeyError(self.table_path, f"the input has no record key column(s) {missing}")
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
        return out

    def partition_paths(self, batch) -> list[str]:
        n = batch.num_rows
        if not self.partition_fields:
            return [""] * n
        missing = [f for f in self.partition_fields if f not in batch.schema.names]
        if missing:
            raise RecordKeyError(self.table_path, f"the input has no partition column(s) {missing}")
        cols = [_column_values(batch, f) for f in self.partition_fields]
        out = []
        for vals in zip(*cols):
            segs = []
            for f, v in zip(self.partition_fields, vals):
                s = DEFAULT_PARTITION if v is None or v == "" else _text(v)
                segs.append(f"{f}={s}" if self.hive_style else s)
            out.append("/".join(segs))
        return out
