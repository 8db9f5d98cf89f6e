"""Avro binary records of data blocks, through fastavro, with the block's writer schema.

fastavro is a third-party decoder whose errors are many (EOFError, ValueError, IndexError, KeyError,
OverflowError, UnicodeDecodeError, ...): :func:`decode_datums` is the documented boundary where each becomes
a ContentError naming the file, the block's content offset and the record. What fastavro does not bound is
bounded before it runs (:mod:`.bounds`): the schema's depth, arrays of items that take no bytes, and the
nesting of values of recursive schemas.
"""

from __future__ import annotations

import io
from functools import lru_cache
import json
from typing import Any, Iterable, Mapping

import fastavro

from ...errors import ContentError
from .bounds import BoundError, check_datums, check_work


@lru_cache(maxsize=64)
def _parsed(schema_json: str):
    # Hudi repeats one schema across many blocks; parse each distinct schema once.
    return fastavro.parse_schema(json.loads(schema_json))


def parsed_schema(schema: Mapping | str):
    return _parsed(schema if isinstance(schema, str) else json.dumps(schema, sort_keys=True))


def decode_datums(
    datums: Iterable[bytes], writer_schema: Mapping, reader_schema: Mapping | None,
    path: str | None, offset: int,
) -> list[dict[str, Any]]:
    """Decode Avro binary datums; each must be consumed exactly."""
    try:
        datums = list(datums)
        walk = check_work(writer_schema, len(datums))  # before fastavro sees the schema
        w = parsed_schema(writer_schema)
        r = parsed_schema(reader_schema) if reader_schema is not None else None
    except BoundError as e:
        raise ContentError(path, offset, e.field, str(e)) from e
    except Exception as e:  # fastavro's schema errors (SchemaParseException, KeyError, TypeError, ...)
        raise ContentError(path, offset, "header.SCHEMA", f"invalid Avro schema: {type(e).__name__}: {e}") from e
    if walk:  # zero-width items or a recursive record: fastavro would loop for ever or overflow the C stack
        try:
            check_datums(datums, writer_schema)
        except BoundError as e:
            raise ContentError(path, offset, e.field, str(e)) from e
    out = []
    for i, datum in enumerate(datums):
        buf = io.BytesIO(datum)
        try:
            out.append(fastavro.schemaless_reader(buf, w, r))
        except Exception as e:  # the fastavro boundary (see the module's docstring)
            raise ContentError(path, offset, f"records[{i}]", f"{type(e).__name__}: {str(e)[:200]}") from e
        if buf.tell() != len(datum):
            raise ContentError(path, offset, f"records[{i}]", f"{len(datum) - buf.tell()} bytes left after the datum")
    return out


def encode_records(records: Iterable[Mapping[str, Any]], schema: Mapping) -> list[bytes]:
    """Avro binary of each record under ``schema`` (raises on a record that does not fit it)."""
    w = parsed_schema(schema)
    out = []
    buf = io.BytesIO()
    for rec in records:
        buf.seek(0)
        buf.truncate()
        fastavro.schemaless_writer(buf, w, rec)
        out.append(buf.getvalue())
    return out
