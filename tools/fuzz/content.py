"""Content fuzzing: blocks whose framing is intact and whose content or SCHEMA header is damaged.

``harness.mutate`` damages files mostly in their framing; a block it leaves intact keeps the content
it had. Here the content bytes themselves are edited in place (raw layouts, not structures written
again by an encoder: record counts, length prefixes, varints, version numbers, the bytes of a Parquet
file or an HFile), or the writer schema in the SCHEMA header is (deep nesting, zero-width array items,
types of the wrong shape, text that is not JSON), and the result is framed as an intact block with the
grammar's framing (``grammar.frame_block``, which copies the content as it is). Every public decode
path then runs on it (:func:`exercise`): ``summary``, ``records`` (with and without a reader schema),
``to_arrow`` (columnar, compiled or not, projected, and the record path), ``deletes``, ``hfile``,
``table``, ``record_count`` and ``to_bytes``, which must give back the block's bytes; then
``validate_log_file`` (``hudi-log validate``) over the whole file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Sequence

import hudi_log
from hudi_log import BlockType, HudiLogError, LogBlock
from hudi_log.format import grammar

from .harness import Base, Chooser

# --------------------------------------------------------------------------------------------------
# Seed blocks


@dataclass(frozen=True)
class Seed:
    name: str
    block_type: BlockType
    header: tuple
    content: bytes
    footer: tuple = ()


FLAT_SCHEMA = {
    "type": "record", "name": "flat", "namespace": "hudi_log.fuzz",
    "fields": [
        {"name": "_hoodie_record_key", "type": "string"},
        {"name": "i", "type": ["null", "int"], "default": None},
        {"name": "l", "type": "long"},
        {"name": "d", "type": ["double", "null"]},
        {"name": "f", "type": "float"},
        {"name": "b", "type": "boolean"},
        {"name": "raw", "type": ["null", "bytes"], "default": None},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    ],
}

NESTED_SCHEMA = {
    "type": "record", "name": "nested", "namespace": "hudi_log.fuzz",
    "fields": [
        {"name": "_hoodie_record_key", "type": "string"},
        {"name": "point", "type": {"type": "record", "name": "point", "fields": [
            {"name": "x", "type": "double"}, {"name": "tags", "type": {"type": "array", "items": "string"}}]}},
        {"name": "ids", "type": ["null", {"type": "array", "items": "long"}], "default": None},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "h", "type": {"type": "fixed", "name": "h", "size": 4}},
    ],
}

RICH_SCHEMA = {  # maps and enums: the record path only
    "type": "record", "name": "rich", "namespace": "hudi_log.fuzz",
    "fields": [
        {"name": "_hoodie_record_key", "type": "string"},
        {"name": "m", "type": {"type": "map", "values": "int"}},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}},
        {"name": "u", "type": ["null", "string", "long"]},
    ],
}


def _avro_seed(name: str, schema: dict, recs: list, block_type=BlockType.avro_data_block) -> Seed:
    from hudi_log.format.content.avro import encode_records

    content = grammar.avro_data_content(3, encode_records(recs, schema))
    header = ((grammar.HeaderKey.instant_time, "100"), (grammar.HeaderKey.schema, json.dumps(schema)))
    return Seed(name, block_type, header, content)


def generated_seeds() -> list[Seed]:
    import decimal

    flat = [{"_hoodie_record_key": f"k{i}", "i": None if i % 2 else i, "l": i * 1000, "d": i / 3 if i % 3 else None,
             "f": 1.5, "b": bool(i % 2), "raw": b"\x00\xff" * (i % 3) or None, "day": 19000 + i} for i in range(6)]
    nested = [{"_hoodie_record_key": f"k{i}", "point": {"x": i / 2, "tags": ["a", "bc"][: i % 3]},
               "ids": list(range(i)) if i % 2 else None, "amount": decimal.Decimal(f"{i}.25"), "h": b"abcd"}
              for i in range(5)]
    rich = [{"_hoodie_record_key": f"k{i}", "m": {"a": i, "b": -i}, "e": "ABC"[i % 3],
             "u": [None, "s", 7][i % 3]} for i in range(5)]
    return [
        _avro_seed("flat", FLAT_SCHEMA, flat),
        _avro_seed("nested", NESTED_SCHEMA, nested),
        _avro_seed("rich", RICH_SCHEMA, rich),
        _avro_seed("cdc", FLAT_SCHEMA, flat[:3], BlockType.cdc_data_block),
    ]


def seeds_from_bases(bases: Sequence[Base]) -> list[Seed]:
    """Every distinct intact block of the base files, as a seed (its content read as it is)."""
    out, seen = [], set()
    for base in bases:
        for b in hudi_log.open_log(base.data):
            if b.corrupt or b.format_version != 1:
                continue
            content = b.content()
            key = (b.block_type, content)
            if key in seen:
                continue
            seen.add(key)
            out.append(Seed(f"{base.name}@{b.offset}", b.block_type, b.header_entries, content, b.footer_entries))
    return out


# --------------------------------------------------------------------------------------------------
# Mutations


def _zigzag(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63) if -(1 << 63) <= n < (1 << 63) else n
    z &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


_BIG = [0, 1, -1, 2, 3, 7, 8, 255, 256, 1 << 16, 1 << 20, 1 << 24, (1 << 31) - 1, 1 << 31, 1 << 32, 1 << 40,
        (1 << 62), (1 << 63) - 1, -(1 << 31), -(1 << 63)]


def _int4(ch: Chooser) -> bytes:
    v = _BIG[ch.int(0, len(_BIG) - 1)] + ch.int(-1, 1)
    return (v & 0xFFFFFFFF).to_bytes(4, "big")


def _varint(ch: Chooser) -> bytes:
    return _zigzag(_BIG[ch.int(0, len(_BIG) - 1)] + ch.int(-1, 1))


def mutate_bytes(ch: Chooser, data: bytes, hot: Sequence[int] = ()) -> tuple[bytes, list[str]]:
    """Raw edits of a byte string; ``hot`` are positions worth aiming at (counts, length prefixes)."""
    buf = bytearray(data)
    ops = []
    for _ in range(1 if ch.int(0, 2) else ch.int(2, 4)):
        n = len(buf)
        if hot and ch.int(0, 2) == 0:
            pos = min(n, max(0, hot[ch.int(0, len(hot) - 1)]))
        else:
            pos = ch.int(0, n)
        op = ch.int(0, 9)
        if op == 0 and n:  # bit flip
            p = min(pos, n - 1)
            buf[p] ^= 1 << ch.int(0, 7)
            ops.append(f"flip@{p}")
        elif op == 1:  # 4-byte big-endian int (record counts, length prefixes, versions)
            buf[pos:pos + 4] = _int4(ch)
            ops.append(f"int4@{pos}")
        elif op == 2:  # a varint written over (Avro counts and lengths)
            v = _varint(ch)
            buf[pos:pos + len(v)] = v
            ops.append(f"varint-over@{pos}")
        elif op == 3:  # a varint inserted
            buf[pos:pos] = _varint(ch)
            ops.append(f"varint-ins@{pos}")
        elif op == 4:  # truncation
            del buf[pos:]
            ops.append(f"truncate@{pos}")
        elif op == 5 and n:  # deleted range
            k = ch.int(1, 16)
            del buf[pos:pos + k]
            ops.append(f"delete@{pos}+{k}")
        elif op == 6:  # inserted bytes
            k = ch.int(1, 16)
            buf[pos:pos] = ch.bytes(k) if ch.int(0, 1) else bytes([ch.int(0, 1) * 0xFF]) * k
            ops.append(f"insert@{pos}+{k}")
        elif op == 7 and n:  # duplicated range
            k = ch.int(1, 64)
            buf[pos:pos] = buf[pos:pos + k]
            ops.append(f"dup@{pos}+{k}")
        elif op == 8 and n:  # one byte set to an interesting value
            p = min(pos, n - 1)
            buf[p] = (0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF, 0xC0, 0xFE)[ch.int(0, 7)]
            ops.append(f"byte@{p}")
        elif op == 9 and n:  # a range overwritten with random bytes
            k = ch.int(1, 8)
            buf[pos:pos + k] = ch.bytes(k)
            ops.append(f"overwrite@{pos}+{k}")
    return bytes(buf), ops


def _hot(seed: Seed, content: bytes) -> list[int]:
    """Positions of the counts and length prefixes of Avro data-block content (and of any 4-byte prefix)."""
    hot = [0, 4, 8, 12]
    if seed.block_type in grammar.RECORD_BLOCK_TYPES and len(content) >= 8:
        pos, count = 8, int.from_bytes(content[4:8], "big")
        for _ in range(min(count, 64)):
            if pos + 4 > len(content):
                break
            hot += [pos, pos + 4, pos + 5]
            pos += 4 + int.from_bytes(content[pos:pos + 4], "big")
    else:
        hot += [len(content) - 4, len(content) - 8, len(content) - 12]  # trailers, footers
    return hot


# Avro types that are dangerous inside arrays and maps (zero-width), or not what the decoders expect
_ODD_TYPES = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string", "nosuchtype",
    {"type": "array", "items": "null"},
    {"type": "map", "values": "null"},
    {"type": "array", "items": {"type": "record", "name": "Empty", "fields": []}},
    {"type": "array", "items": {"type": "fixed", "name": "Zero", "size": 0}},
    {"type": "array", "items": {"type": "array", "items": "null"}},
    {"type": "array", "items": "long"},
    {"type": "map", "values": "string"},
    {"type": "enum", "name": "One", "symbols": ["A"]},
    {"type": "enum", "name": "NoSymbols", "symbols": []},
    {"type": "fixed", "name": "Big", "size": 1 << 40},
    {"type": "fixed", "name": "Neg", "size": -1},
    {"type": "bytes", "logicalType": "decimal", "precision": 50, "scale": 2},
    {"type": "bytes", "logicalType": "decimal", "precision": "x", "scale": 2},
    {"type": "fixed", "name": "Dec", "size": 16, "logicalType": "decimal", "precision": 38, "scale": 40},
    {"type": "long", "logicalType": "timestamp-micros"},
    {"type": "long", "logicalType": "timestamp-nanos"},
    {"type": "int", "logicalType": "time-millis"},
    {"type": "long", "logicalType": "local-timestamp-millis"},
    {"type": "string", "logicalType": "uuid"},
    {"type": "record", "name": "R", "fields": "notalist"},
    {"type": "record", "name": "R2"},
    {"type": "record", "fields": [{"type": "int"}]},
    {"type": "array"},
    {"type": ["null", "int"]},
    ["null", "string", "long"],
    ["int", "int"],
    [],
    ["null"],
    {"type": "error", "name": "Err", "fields": [{"name": "x", "type": "int"}]},
    {"items": "int"},
    17, None, True,
]


# records that hold themselves: a value may nest as deep as its bytes go
_RECURSIVE = [
    {"type": "record", "name": "Rec", "fields": [{"name": "next", "type": ["null", "Rec"]}]},
    {"type": "record", "name": "Tree", "fields": [{"name": "kids", "type": {"type": "array", "items": "Tree"}}]},
]
_ODD_TYPES += _RECURSIVE


def _deep(depth: int, kind: int) -> str:
    """A schema type nested ``depth`` levels deep, built as text (no recursion to build or dump it)."""
    if kind == 0:
        return '{"type": "array", "items": ' * depth + '"int"' + "}" * depth
    if kind == 1:
        return '["null", ' * depth + '"int"' + "]" * depth
    return ('{"type": "record", "name": "r%d", "fields": [{"name": "f", "type": ' * depth) % tuple(range(depth)) + \
        '"int"' + "}]}" * depth


def _dag(levels: int) -> str:
    """Named records each holding the previous one twice: 2**levels empty records, written in a few KB."""
    fields = [{"name": "t0", "type": {"type": "record", "name": "T0", "fields": []}}]
    for i in range(1, levels):
        fields.append({"name": f"t{i}", "type": {"type": "record", "name": f"T{i}", "fields": [
            {"name": "a", "type": f"T{i - 1}"}, {"name": "b", "type": f"T{i - 1}"}]}})
    return json.dumps({"type": "record", "name": "dag", "fields": fields})


def mutate_schema(ch: Chooser, text: str) -> tuple[str, str]:
    """A damaged or hostile writer schema (text) made from ``text``."""
    kind = ch.int(0, 7)
    try:
        schema = json.loads(text)
    except ValueError:
        schema = None
    fields = schema.get("fields") if isinstance(schema, dict) else None
    if kind <= 2 and isinstance(fields, list) and fields:  # one field's type replaced
        i = ch.int(0, len(fields) - 1)
        t = _ODD_TYPES[ch.int(0, len(_ODD_TYPES) - 1)]
        if isinstance(fields[i], dict):
            fields[i] = dict(fields[i], type=t)
        else:
            fields[i] = t
        return json.dumps(schema), f"schema field {i} type {json.dumps(t)[:40]}"
    if kind == 3:  # deep nesting, as text
        depth = (1, 2, 10, 30, 63, 64, 65, 100, 200, 1000, 3000, 20000)[ch.int(0, 11)]
        k = ch.int(0, 2)
        inner = _deep(depth, k)
        return ('{"type": "record", "name": "deep", "fields": [{"name": "_hoodie_record_key", "type": "string"}, '
                '{"name": "x", "type": ' + inner + "}]}"), f"schema deep {depth} kind {k}"
    if kind == 4 and isinstance(schema, dict):  # a key removed or of the wrong type
        key = ("fields", "type", "name", "namespace")[ch.int(0, 3)]
        val = (None, 1, "x", [], {}, [1, 2], "record")[ch.int(0, 6)]
        s = dict(schema)
        if ch.int(0, 1):
            s.pop(key, None)
        else:
            s[key] = val
        return json.dumps(s), f"schema key {key}={val!r}"
    if kind == 5:  # JSON of another shape
        other = ['"string"', "[]", "{}", "null", "1", '["null", "string"]', '{"type": "array", "items": "int"}',
                 '{"type": "record", "name": "x", "fields": [{"name": "a", "type": "a"}]}', '"' + "x" * 10 + '"',
                 '{"type": "record", "name": "x", "fields": [{"name": "a", "type": "int"}, {"name": "a", "type": "int"}]}']
        other += [_dag(ch.int(2, 40)), json.dumps({"type": "record", "name": "nulls", "fields": [
            {"name": f"n{i}", "type": "null"} for i in range(ch.int(1, 5000))]})]
        v = other[ch.int(0, len(other) - 1)]
        return v, f"schema {v[:30]}"
    # raw text edits: truncation, flips (invalid UTF-8 cannot be in a header: keep it text)
    raw, ops = mutate_bytes(ch, text.encode("utf-8"))
    return raw.decode("utf-8", "replace"), "schema raw " + ",".join(ops)


@dataclass
class ContentMutant:
    seed: Seed
    data: bytes  # a whole log file
    ops: list[str]


def _frame(block_type, header, content, footer) -> bytes:
    return grammar.frame_block(block_type, header, [content], footer)[0]


def crafted(ch: Chooser) -> tuple[tuple, bytes, str]:
    """A schema of one hostile field and a datum made for it: a large count of zero-width items, or a
    value of a recursive record nested thousands of levels deep."""
    if ch.int(0, 2) == 0:
        t = _RECURSIVE[ch.int(0, 1)]
        depth = (10, 63, 64, 65, 1000, 5000, 100000)[ch.int(0, 6)]
        # Rec: union branch 1 at each level, then null; Tree: an array block of one at each level, the
        # innermost array empty, then each level's closing zero count
        datum = b"\x02" * depth + b"\x00" * (1 + (depth if t["name"] == "Tree" else 0))
    else:
        t = _ODD_TYPES[ch.int(9, 13)]
        datum = _varint(ch) + (b"\x00" * ch.int(0, 3))
        if ch.int(0, 1):
            datum = _zigzag(-(1 << ch.int(0, 62))) + _varint(ch) + datum  # negative block count: a size follows
    schema = {"type": "record", "name": "z", "fields": [{"name": "x", "type": t}]}
    records = ch.int(1, 3)
    content = grammar.avro_content_prefix(3, records) + (len(datum).to_bytes(4, "big") + datum) * records
    header = ((grammar.HeaderKey.instant_time, "100"), (grammar.HeaderKey.schema, json.dumps(schema)))
    return header, content, f"crafted {json.dumps(t)[:40]} datum {datum[:12].hex()}"


def _pick(ch: Chooser, seeds: Sequence[Seed]) -> Seed:
    """A seed of a block type drawn first (the corpus holds many more HFile blocks than any other)."""
    types = sorted({s.block_type for s in seeds})
    t = types[ch.int(0, len(types) - 1)]
    of = [s for s in seeds if s.block_type == t]
    return of[ch.int(0, len(of) - 1)]


def mutate_content(ch: Chooser, seeds: Sequence[Seed]) -> ContentMutant:
    seed = _pick(ch, seeds)
    header, content, ops = seed.header, seed.content, []
    what = ch.int(0, 9)
    if what == 9:
        header, content, op = crafted(ch)
        ops.append(op)
    else:
        if what >= 6 or what == 0:
            has_schema = any(k == grammar.HeaderKey.schema for k, _ in header)
            if has_schema:
                new = []
                for k, v in header:
                    if k == grammar.HeaderKey.schema:
                        if ch.int(0, 9) == 0:
                            ops.append("schema removed")
                            continue
                        v, op = mutate_schema(ch, v)
                        ops.append(op)
                    new.append((k, v))
                header = tuple(new)
        if what <= 7:
            content, cops = mutate_bytes(ch, content, _hot(seed, content))
            ops += cops
    block = _frame(seed.block_type, header, content, seed.footer)
    # sometimes between other blocks, as in a real log
    if ch.int(0, 3) == 0:
        other = _pick(ch, seeds)
        block = _frame(other.block_type, other.header, other.content, other.footer) + block
    return ContentMutant(seed, block, ops)


# --------------------------------------------------------------------------------------------------
# The property: every decode path raises nothing but HudiLogError, and to_bytes gives the bytes back


def decode_calls(b: LogBlock) -> list[tuple[str, Callable]]:
    from hudi_log.format.content.avro_columnar import decode_block_content

    calls: list[tuple[str, Callable]] = [("summary", b.summary), ("record_count", lambda: b.record_count)]
    t = b.block_type
    if t in grammar.RECORD_BLOCK_TYPES:
        calls += [
            ("records", b.records),
            ("records(reader)", lambda: b.records(b.writer_schema())),
            ("to_arrow", b.to_arrow),
            ("to_arrow(columns)", lambda: b.to_arrow(columns=["_hoodie_record_key", "x", "l"])),
            ("to_arrow(row)", lambda: b.to_arrow(columnar=False)),
        ]
        if b.schema is not None:
            # the polars path too, for schemas the compiled decoder would take
            calls.append(("columnar(polars)", lambda: _typed_columnar(b, decode_block_content)))
    elif t == BlockType.delete_block:
        calls += [("deletes", b.deletes)]
    elif t == BlockType.parquet_data_block:
        calls += [("table", b.table), ("records", b.records), ("to_arrow", b.to_arrow)]
    elif t == BlockType.hfile_data_block:
        calls += [("hfile", b.hfile), ("records", b.records), ("to_arrow", b.to_arrow)]
    elif t == BlockType.command_block:
        calls += [("is_rollback", lambda: b.is_rollback)]
    return calls


def _typed_columnar(b: LogBlock, decode_block_content):
    """The columnar decoder's own contract: a ColumnarDecodeError (the caller then takes the record
    path) or a typed error, nothing else."""
    from hudi_log.format.content.avro_columnar import ColumnarDecodeError

    try:
        return decode_block_content(b.content(), b.schema, None, compiled=False)
    except ColumnarDecodeError:
        return None


def exercise_file(data: bytes, failures: list[str], skip_offsets=frozenset()) -> None:
    """open_log over ``data``, then every decode path of each intact block not in ``skip_offsets``."""
    try:
        blocks = list(hudi_log.open_log(data))
    except HudiLogError:
        return
    except Exception as e:  # noqa: BLE001 - that is the finding
        failures.append(f"open_log raised {type(e).__name__}: {str(e)[:200]}")
        return
    for b in blocks:
        try:
            out = b.to_bytes()
        except Exception as e:  # noqa: BLE001
            failures.append(f"block@{b.offset} {b.block_type_name}.to_bytes() raised {type(e).__name__}: {str(e)[:200]}")
        else:
            if out != data[b.offset:b.offset + b.length]:
                failures.append(f"block@{b.offset} {b.block_type_name}.to_bytes() differs from the bytes on disk")
        if b.corrupt or b.offset in skip_offsets:
            continue
        for name, fn in decode_calls(b):
            try:
                fn()
            except HudiLogError:
                continue
            except Exception as e:  # noqa: BLE001 - that is the finding
                failures.append(f"block@{b.offset} {b.block_type_name}.{name}() raised {type(e).__name__}: {str(e)[:200]}")


def check_content(m: ContentMutant) -> list[str]:
    from hudi_log.format.validate import validate_log_file

    failures: list[str] = []
    exercise_file(m.data, failures)
    try:  # `hudi-log validate`'s decode of every block: it reports damage, never raises for it
        validate_log_file(m.data)
    except Exception as e:  # noqa: BLE001 - that is the finding
        failures.append(f"validate_log_file raised {type(e).__name__}: {str(e)[:200]}")
    return failures
