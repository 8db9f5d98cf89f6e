"""Base Parquet files as Hudi writes them (``HoodieAvroParquetWriter``):

* name ``{fileId}_{writeToken}_{instant}.parquet``;
* the five ``_hoodie_*`` meta columns first (strings), then the data columns typed from the table's Avro
  schema (:func:`hudi_log.log.append_handle.avro_to_arrow_schema`, as parquet-avro maps them);
* ``_hoodie_commit_seqno`` = ``{instant}_{taskPartitionId}_{n}`` with n counting from 0 per file,
  ``_hoodie_file_name`` = the base file's name;
* footer key/values ``parquet.avro.schema`` (the writer schema with meta fields), ``writer.model.name``
  = ``avro``, and what ``HoodieAvroWriteSupport`` adds for the record keys of the file, in row order
  (:mod:`hudi_log.format.content.bloom`): the bloom filter ``org.apache.hudi.bloomfilter``,
  ``hoodie_bloom_filter_type_code`` (DYNAMIC_V0 filters), ``hoodie_min_record_key`` /
  ``hoodie_max_record_key``. Java's BLOOM and GLOBAL_BLOOM indexes find a key's file through them, so
  every base file hudi-log writes (inserts, COW merges, compaction, Spark tasks) carries them, sized and
  typed by Hudi's options (``hoodie.index.bloom.num_entries``, ``hoodie.index.bloom.fpp``,
  ``hoodie.bloom.index.filter.type``, ``hoodie.bloom.index.filter.dynamic.max.entries``) from the write's
  options over the table's properties; ``hoodie.parquet.bloom.filter.enabled=false`` without a BLOOM
  ``hoodie.index.type`` leaves all four out, as Java's ``HoodieFileWriterFactory.enableBloomFilter`` does.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ...paths import RemotePath, arrow_location, as_path, naming
from ...format.content.bloom import BloomOptions, footer_metadata
from ...format.content.meta_fields import (
    COMMIT_SEQNO, COMMIT_TIME, FILE_NAME, META_FIELDS, PARTITION_PATH, RECORD_KEY, populates_meta_fields, schema_json,
    writer_schema,
)
from ...log.append_handle import avro_to_arrow_schema
from ..errors import ColumnCastError
from ..schema import cast_column


def base_file_name(file_id: str, write_token: str, instant: str) -> str:
    return f"{file_id}_{write_token}_{instant}.parquet"


def arrow_schema_for(table_schema: dict) -> pa.Schema:
    """The Arrow schema of base files (meta columns first) for an Avro table schema."""
    return avro_to_arrow_schema(writer_schema(table_schema))


def conform(table: pa.Table, schema: pa.Schema, strict: bool = True, *, where=None) -> pa.Table:
    """``table`` with exactly ``schema``'s columns (missing ones null), cast to its types. With
    ``strict=False`` a column Arrow cannot cast is kept as it is instead of raising; with ``strict`` it is a
    :class:`~hudi_log.table.errors.ColumnCastError` naming ``where`` (the table) and the column."""
    cols = []
    for f in schema:
        if f.name in table.column_names:
            col = table.column(f.name)
            if col.type != f.type:
                try:
                    col = cast_column(col, f.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
                    if strict:
                        raise ColumnCastError(where or "<data>", f"column {f.name!r}: its {col.type} values cannot "
                                              f"be written as {f.type}: {' '.join(str(e).split())} (cast them "
                                              "first, or round them to what the column holds)") from None
            cols.append(col)
        else:
            cols.append(pa.nulls(table.num_rows, f.type))
    if strict:
        return pa.Table.from_arrays(cols, schema=schema)
    return pa.table(cols, names=schema.names)


def with_meta_columns(data: pa.Table, *, instant: str | list, keys: list[str], partition: str, file_name: str,
                      task_partition_id: int, seqnos: list[str] | None = None, populate: bool = True) -> pa.Table:
    """``data`` with the meta columns (re)filled; ``instant``/``seqnos`` may be given per row. ``populate``
    false (``hoodie.populate.meta.fields=false``): the columns are there, every value null, as Java's create
    and merge handles write them (the meta fields prepended with no values, the file writer filling none)."""
    n = data.num_rows
    if not populate:
        data = data.drop_columns([c for c in META_FIELDS if c in data.column_names])
        for i, name in enumerate(META_FIELDS):
            data = data.add_column(i, name, pa.nulls(n, pa.string()))
        return data
    if seqnos is None:
        # "{instant}_{task partition}_{row}", made in Arrow: a Python string per row cost 0.1 s per 100,000 rows
        rows = pa.array(np.arange(n, dtype=np.int64)).cast(pa.string())
        seqnos = pc.binary_join_element_wise(f"{instant}_{task_partition_id}", rows, "_")
    # a value every row shares as one Arrow repeat (a Python list of n references cost ~25 ms per 177,000 rows)
    same = lambda value: pa.repeat(pa.scalar(value, pa.string()), n)  # noqa: E731
    meta = {
        COMMIT_TIME: pa.array(instant, pa.string()) if isinstance(instant, list) else same(instant),
        COMMIT_SEQNO: pa.array(seqnos, pa.string()),
        RECORD_KEY: pa.array(keys, pa.string()),
        PARTITION_PATH: same(partition),
        FILE_NAME: same(file_name),
    }
    data = data.drop_columns([c for c in META_FIELDS if c in data.column_names])
    for i, name in enumerate(META_FIELDS):
        data = data.add_column(i, name, meta[name])
    return data


def bloom_options(table_props: Mapping, options: Mapping | None = None) -> BloomOptions:
    """The bloom filter of base files: Hudi's options from ``options`` (a write's or a service's) over
    the table's properties. Raises :class:`~hudi_log.format.content.bloom.BloomFilterError` on values
    Java refuses. A table without meta fields gets none (``HoodieFileWriterFactory.enableBloomFilter``
    needs populated meta fields; no min / max key either, as they come with the filter)."""
    opts = BloomOptions.from_options({**dict(table_props), **dict(options or {})})
    if not populates_meta_fields(table_props):
        return replace(opts, enabled=False)
    return opts


def write_base_file(path: Path, rows: pa.Table, table_schema: dict, bloom: BloomOptions) -> int:
    """Write ``rows`` (meta columns included) to ``path``; returns the file size in bytes. The record
    keys' footer (bloom filter, min / max) comes from the rows' ``_hoodie_record_key`` in row order."""
    schema = arrow_schema_for(table_schema)
    rows = conform(rows, schema)
    footer = {
        b"parquet.avro.schema": schema_json(writer_schema(table_schema)).encode("utf-8"),
        b"writer.model.name": b"avro",
    }
    keys = pc.drop_null(rows.column(RECORD_KEY))
    path = as_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # the record keys' footer is made while Arrow encodes the rows (numpy's hashing and Parquet's encoding
    # both release the GIL: two cores on one file); it is the file's last bytes either way, so they are the
    # same. No ARROW:schema key (Hudi's files have none); the footer keys are added explicitly.
    with _keys_footer(keys, bloom) as keys_footer:
        if isinstance(path, RemotePath):
            # an object becomes visible only when its upload completes, so a killed write leaves no half
            # file, and there is no rename to do (Hudi writes base files in place on object stores too)
            where, fs = arrow_location(path)
            with pq.ParquetWriter(where, rows.schema, compression="snappy", store_schema=False, filesystem=fs) as w:
                w.write_table(rows)
                w.add_key_value_metadata({**footer, **keys_footer()})
            return fs.get_file_info(where).size
        tmp = path.with_name(f".{path.name}.tmp")
        # written aside and renamed: a killed write leaves no half Parquet file under a base file name, and a
        # failed one (a full disk) none at all, so the rollback that follows has room for its own files
        try:
            with pq.ParquetWriter(tmp, rows.schema, compression="snappy", store_schema=False) as w:
                w.write_table(rows)
                w.add_key_value_metadata({**footer, **keys_footer()})
            tmp.replace(path)
        except BaseException as e:
            tmp.unlink(missing_ok=True)
            raise naming(e, path)
        return path.stat().st_size


#: keys below which the footer is made in line: a thread costs more than it saves on a small file
_FOOTER_THREAD_KEYS = 20_000


@contextmanager
def _keys_footer(keys: pa.Array, bloom: BloomOptions):
    """A function returning :func:`footer_metadata` of ``keys``, made on a thread of its own from entry on
    (in line for a small file or no filter); leaving the block waits for that thread, so a write that failed
    leaves nothing running. A failure of the footer itself is raised unchanged by the function."""
    if not bloom.enabled or len(keys) < _FOOTER_THREAD_KEYS:
        made = footer_metadata(keys, bloom)
        yield lambda: made
        return
    with ThreadPoolExecutor(1, thread_name_prefix="hudi_log-footer") as pool:
        future = pool.submit(footer_metadata, keys, bloom)
        yield future.result
