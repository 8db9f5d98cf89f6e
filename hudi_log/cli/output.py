"""What every `hudi-log` command shares: JSON for values Avro and Arrow hand back, and the one-line
failure message on stderr."""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import sys
import uuid
from typing import Any

import click

from ..paths import configure_storage, is_uri


def _json_default(value: Any):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if hasattr(value, "name") and hasattr(value, "value"):  # enums
        return value.name
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def dumps(value: Any, **kw) -> str:
    return json.dumps(value, default=_json_default, ensure_ascii=False, **kw)


def fail(message: str, code: int = 2) -> None:
    click.echo(f"hudi-log: {message}", err=True)
    sys.exit(code)


def hudi_options(pairs) -> dict[str, str]:
    """``--option KEY=VALUE`` (repeatable) as Hudi options; one without ``=`` is a usage error. The
    storage options among them (``fs.s3a.endpoint``, ...) also configure how s3:// paths are reached."""
    out = {}
    for kv in pairs:
        if "=" not in kv:
            fail(f"--option {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        out[k.strip()] = v.strip()
    configure_storage(out)
    return out


class StoragePath(click.Path):
    """A table or file argument: a local path (checked as ``click.Path`` checks it) or an object-store
    URI (``s3://bucket/key``), passed on unchecked, since looking costs a request and the command's own
    error names a missing table or file."""

    name = "path"

    def convert(self, value, param, ctx):
        if is_uri(value):
            return value
        return super().convert(value, param, ctx)
