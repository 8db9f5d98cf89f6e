"""The bounds every content decoder holds, so that its work and memory follow from the bytes it is given.

Hudi's Java reader trusts a block's writer schema and counts (Avro's ``BinaryDecoder`` only caps a
collection at ``Integer.MAX_VALUE - 8`` items, ``org.apache.avro.limits.collectionItems.maxLength``). A
block here may come from anyone who can write the table folder (docs/security.md, "Decoding untrusted bytes"), so:

* **Schema depth.** A writer schema (the SCHEMA header) may nest at most ``MAX_SCHEMA_DEPTH`` JSON levels
  (objects and arrays; a nested record costs about four: its field list, the field, a union, the record).
  It is checked on the text before ``json.loads``, so neither the JSON parser nor fastavro, pyarrow or our
  own schema walks can run out of stack (``RecursionError``) on a hostile schema.
* **Counts against bytes.** Every item of an Avro array or map takes at least one byte unless its type
  takes none (``null``, a record of such fields, ``fixed`` of size 0): a count over the bytes left is
  damage. The columnar decoders check record counts the same way (each record has a 4-byte length prefix)
  before they size anything.
* **Zero-width items.** Items that take no bytes cannot be bounded by bytes; a datum of a few bytes could
  claim 2**63 of them (fastavro would loop for ever, building a list). Where the writer schema has arrays of
  such items, every datum is walked first (:func:`check_datums`, which skips zero-width items by arithmetic)
  and a block holding more than ``MAX_ZERO_WIDTH_ITEMS`` of them in all is refused.
* **Work per record.** A decoder reads every type of the schema for every record, and a type that takes no
  bytes (``null``, an empty record) costs work no byte pays for; a schema can also use a named record twice,
  and that one another twice, and so on: exponentially more types expanded than written. A schema may have
  at most ``MAX_SCHEMA_NODES`` types with its named types expanded, and a block at most
  ``MAX_ZERO_WIDTH_VALUES`` zero-width values over all its records.
* **Recursive schemas.** A record that holds itself (through a union with null, an array, a map) lets a
  datum nest as deep as its bytes go: fastavro's compiled reader then overflows the C stack (a segfault at
  about 5,000 levels) and pyarrow's type inference crawls. Datums of such schemas are walked first too, and
  values nested more than ``MAX_VALUE_DEPTH`` levels are refused. (Spark, and so Hudi, never writes a
  recursive schema.)

Failures are :class:`BoundError` (a ValueError); the block turns them into ContentError naming the file,
the offset and the field.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Mapping, Sequence

#: JSON nesting levels a writer schema may have (about 24 nested records)
MAX_SCHEMA_DEPTH = 100
#: array items of a zero-width type (null, an empty record, fixed(0)) a block may hold, in all its records
MAX_ZERO_WIDTH_ITEMS = 1_000_000
#: how deep a value of a recursive schema (a record that holds itself) may nest
MAX_VALUE_DEPTH = 64
#: types of a schema with its named types expanded (each is decoded for every record)
MAX_SCHEMA_NODES = 100_000
#: values that take no bytes (null fields, empty records) times records, in a block
MAX_ZERO_WIDTH_VALUES = 16_000_000


class BoundError(ValueError):
    """Bytes or a schema beyond a decoding bound (or not decodable at all); ``field`` says where."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def json_depth(text: str, stop: int | None = None) -> int:
    """The deepest nesting of JSON objects and arrays in ``text`` (strings ignored; no recursion); with
    ``stop``, counting ends as soon as the depth passes it (a hostile schema is refused from its head)."""
    depth = deepest = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop is not None and deepest > stop:
                    break
        elif c in "]}":
            depth -= 1
    return deepest


@lru_cache(maxsize=64)
def _load(text: str) -> Any:
    """The parsed text, or the BoundError it gives (kept too: a bad schema repeats across calls and blocks)."""
    depth = json_depth(text, MAX_SCHEMA_DEPTH)
    if depth > MAX_SCHEMA_DEPTH:
        return BoundError("header.SCHEMA", f"schema nests more than {MAX_SCHEMA_DEPTH} levels deep")
    try:
        return json.loads(text)
    except ValueError as e:
        return BoundError("header.SCHEMA", f"not JSON: {e}")


def load_schema(text: str) -> dict:
    """A writer schema's JSON, nesting checked before it is parsed; it must be an Avro record.
    Callers must not change the result (it is shared: schemas repeat across blocks)."""
    schema = _load(text)
    if isinstance(schema, BoundError):
        raise BoundError(schema.field, str(schema))
    if not isinstance(schema, dict) or schema.get("type") not in ("record", "error") or \
            not isinstance(schema.get("fields"), list):
        raise BoundError("header.SCHEMA", f"not an Avro record schema: {text[:80]!r}")
    return schema


# --------------------------------------------------------------------------------------------------
# Zero-width array items

_PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def _names(schema: Any) -> dict[str, Any]:
    """Named types by full and short name (a walk of the schema; its depth is bounded)."""
    out: dict[str, Any] = {}

    def walk(s, ns):
        if isinstance(s, list):
            for b in s:
                walk(b, ns)
        elif isinstance(s, Mapping):
            t = s.get("type")
            if t in ("record", "error", "enum", "fixed") and isinstance(s.get("name"), str):
                name = s["name"]
                inner = s.get("namespace", ns) if "." not in name else name.rsplit(".", 1)[0]
                full = name if "." in name or not inner else f"{inner}.{name}"
                out[full] = s
                out.setdefault(full.rsplit(".", 1)[-1], s)
                ns = inner
            if t in ("record", "error") and isinstance(s.get("fields"), list):
                for f in s["fields"]:
                    if isinstance(f, Mapping):
                        walk(f.get("type"), ns)
            elif t == "array":
                walk(s.get("items"), ns)
            elif t == "map":
                walk(s.get("values"), ns)
            elif isinstance(t, (list, Mapping)):
                walk(t, ns)

    walk(schema, None)
    return out


def _resolve(s: Any, names: Mapping[str, Any]) -> Any:
    seen = 0
    while True:
        if isinstance(s, str) and s not in _PRIMITIVES:
            if s not in names:
                raise BoundError("header.SCHEMA", f"unknown type {s!r}")
            s = names[s]
        elif isinstance(s, Mapping) and isinstance(s.get("type"), (str, list, Mapping)) and \
                s.get("type") not in ("record", "error", "enum", "fixed", "array", "map"):
            s = s["type"]  # {"type": "long", "logicalType": ...} and the like
        else:
            return s
        seen += 1
        if seen > MAX_SCHEMA_DEPTH:
            raise BoundError("header.SCHEMA", "type names refer to each other in a loop")


def _children(s: Any) -> list:
    """The types directly inside type ``s`` (named references left as names)."""
    if isinstance(s, list):
        return list(s)
    if not isinstance(s, Mapping):
        return []
    t = s.get("type")
    if t in ("record", "error"):
        fields = s.get("fields")
        return [f.get("type") for f in fields if isinstance(f, Mapping)] if isinstance(fields, list) else []
    if t == "array":
        return [s.get("items")]
    if t == "map":
        return [s.get("values")]
    if t in ("enum", "fixed"):
        return []
    return [t] if isinstance(t, (str, list, Mapping)) else []


class Shape:
    """What a schema costs to decode, in one linear pass (named records are looked at once each):

    * ``nodes``: its types with every named reference expanded (capped just past ``MAX_SCHEMA_NODES``): a
      schema that uses a named record twice, and that one another twice, ... is exponentially larger
      expanded than written, and a decoder does that expanded work for every datum;
    * ``zero_width_values``: the values a record holds that take no bytes (null, empty records), expanded
      the same way: a decoder does them for every datum, whatever its bytes;
    * ``recursive``: a named record is used inside itself;
    * ``zero_width_items``: an array has items that can take no bytes.
    """

    def __init__(self, schema: Any):
        self.names = _names(schema)
        self.recursive = False
        self.zero_width_items = False
        self._zw: dict[int, bool] = {}
        self._memo: dict[int, tuple[int, int]] = {}
        self._open: set[int] = set()
        self.nodes, self.zero_width_values = self._cost(schema)

    def zero_width(self, s: Any) -> bool:
        """True when a value of type ``s`` can take no bytes at all."""
        s = _resolve(s, self.names)
        if s == "null":
            return True
        if not isinstance(s, Mapping):
            return False
        t = s.get("type")
        if t == "fixed":
            return s.get("size") == 0
        if t not in ("record", "error"):
            return False
        key = id(s)
        if key not in self._zw:
            self._zw[key] = False  # a recursive record reached again takes bytes wherever it ends
            self._zw[key] = all(self.zero_width(c) for c in _children(s))
        return self._zw[key]

    def _cost(self, s: Any) -> tuple[int, int]:
        s = _resolve(s, self.names)
        record = isinstance(s, Mapping) and s.get("type") in ("record", "error")
        if record:
            key = id(s)
            if key in self._open:
                self.recursive = True
                return 1, 0
            if key in self._memo:
                return self._memo[key]
            self._open.add(key)
        if isinstance(s, Mapping) and s.get("type") == "array" and self.zero_width(s.get("items")):
            self.zero_width_items = True
        nodes, zero = 1, int(s == "null")
        if not (isinstance(s, Mapping) and s.get("type") in ("array", "map")):  # items: counted by the walker
            for c in _children(s):
                n, z = self._cost(c)
                nodes, zero = min(nodes + n, MAX_SCHEMA_NODES + 1), min(zero + z, MAX_SCHEMA_NODES + 1)
        else:
            for c in _children(s):
                n, _ = self._cost(c)
                nodes = min(nodes + n, MAX_SCHEMA_NODES + 1)
        if record:
            self._open.discard(id(s))
            self._memo[id(s)] = (nodes, zero)
        return nodes, zero


def is_recursive(schema: Mapping) -> bool:
    """True when a named record of the schema is used inside itself."""
    return Shape(schema).recursive


def has_zero_width_items(schema: Mapping) -> bool:
    """True when an array of the schema has items that can take no bytes."""
    return Shape(schema).zero_width_items


@lru_cache(maxsize=64)
def _shape(schema_json: str) -> "Shape":
    # Hudi repeats one schema across many blocks (a metadata table's is large): its shape is worked out once
    return Shape(json.loads(schema_json))


def check_work(schema: Mapping, records: int) -> bool:
    """Whether the datums of ``records`` records must be walked before fastavro reads them (zero-width
    array items, a recursive record); BoundError when the schema alone would cost too much per record."""
    sh = _shape(json.dumps(schema, sort_keys=True))
    if sh.nodes > MAX_SCHEMA_NODES:
        raise BoundError("header.SCHEMA", f"schema has more than {MAX_SCHEMA_NODES} types with its named types "
                                          "expanded (named records used within each other many times)")
    if sh.zero_width_values * records > MAX_ZERO_WIDTH_VALUES:
        raise BoundError("records", f"{records} records of {sh.zero_width_values} values that take no bytes "
                                    f"each (at most {MAX_ZERO_WIDTH_VALUES} a block)")
    return sh.zero_width_items or sh.recursive


class _Walker:
    """Skips Avro binary datums of one schema, counting zero-width array items instead of reading them."""

    def __init__(self, schema: Mapping):
        self.shape = Shape(schema)
        self.names = self.shape.names
        self.schema = schema
        self.zero_width_items = 0
        self.depth = 0

    def datum(self, data: bytes) -> None:
        self.buf, self.pos = data, 0
        self.value(self.schema)
        if self.pos != len(data):
            raise BoundError("records", f"{len(data) - self.pos} bytes left after the datum")

    def long(self) -> int:
        n = shift = 0
        while True:
            if self.pos >= len(self.buf):
                raise BoundError("records", "datum ends inside a number")
            b = self.buf[self.pos]
            self.pos += 1
            n |= (b & 0x7F) << shift
            if b < 0x80:
                return (n >> 1) ^ -(n & 1)
            shift += 7
            if shift > 63:
                raise BoundError("records", "number longer than 10 bytes")

    def skip(self, n: int) -> None:
        if n < 0 or n > len(self.buf) - self.pos:
            raise BoundError("records", f"{n} bytes claimed, {len(self.buf) - self.pos} left")
        self.pos += n

    def value(self, s: Any) -> None:
        s = _resolve(s, self.names)
        if isinstance(s, list):  # a union holds its branch's value: no level of its own
            return self._complex(s)
        if isinstance(s, Mapping):
            self.depth += 1
            if self.depth > MAX_VALUE_DEPTH:
                raise BoundError("records", f"values nest more than {MAX_VALUE_DEPTH} levels deep")
            try:
                self._complex(s)
            finally:
                self.depth -= 1
            return
        if s in ("int", "long"):
            self.long()
        elif s in ("bytes", "string"):
            self.skip(self.long())
        elif s != "null":
            self.skip({"boolean": 1, "float": 4, "double": 8}[s])

    def _complex(self, s: Any) -> None:
        if isinstance(s, list):
            i = self.long()
            if not 0 <= i < len(s):
                raise BoundError("records", f"union branch {i} of {len(s)}")
            return self.value(s[i])
        t = s.get("type")
        if t in ("record", "error"):
            for f in s.get("fields", ()):
                self.value(f.get("type"))
        elif t == "enum":
            self.long()
        elif t == "fixed":
            size = s.get("size")
            self.skip(size if isinstance(size, int) else -1)
        elif t in ("array", "map"):
            item = s.get("items") if t == "array" else s.get("values")
            zero = t == "array" and self.shape.zero_width(item)
            while True:
                count = self.long()
                if count == 0:
                    return
                if count < 0:  # a block of -count items, preceded by its size in bytes
                    count = -count
                    self.long()
                if zero:
                    self.zero_width_items += count
                    if self.zero_width_items > MAX_ZERO_WIDTH_ITEMS:
                        raise BoundError("records", f"more than {MAX_ZERO_WIDTH_ITEMS} array items that take "
                                                    "no bytes (null, empty records)")
                    continue
                if count > len(self.buf) - self.pos:  # every item takes a byte at least
                    raise BoundError("records", f"{count} items claimed, {len(self.buf) - self.pos} bytes left")
                for _ in range(count):
                    if t == "map":
                        self.skip(self.long())
                    self.value(item)
        else:
            raise BoundError("records", f"type {t!r} cannot be decoded")


def check_datums(datums: Sequence[bytes], schema: Mapping) -> None:
    """Walk every datum of a block whose schema :func:`check_work` says must be; BoundError past the bounds."""
    w = _Walker(schema)
    for i, d in enumerate(datums):
        try:
            w.datum(d)
        except BoundError as e:
            raise BoundError(f"records[{i}]", str(e)) from None
