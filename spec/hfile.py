"""The HFile grammar of spec/hfile.ksy, expressed with `construct` (2.10) so that it builds too.

A second, independent spelling of the same grammar, as spec/hudi_log.py is for the log format: every
.ksy type is a module-level construct of the same name with the same field ids, so the two can be
compared field by field (tests/test_hfile_construct.py does so on every HFile of the corpus and on
built files, and checks that both refuse the same damaged ones).

Spelling differences, all of representation only:
- `pb_varint` and `hadoop_vint` parse to their value (the .ksy keeps the groups / marker bytes and
  has the value as an instance); they build canonically, as every writer Hudi uses writes them.
- `block_payload.body` (the .ksy's instance for files stored without compression) is not spelled
  here: the body types are, and apply to a payload once inflated, as hudi-log's bridge does.
- Enum values are plain numbers, checked against the generated codec's enums (as spec/hudi_log.py).

Building: every length (block sizes, key and value lengths, protobuf lengths, the trailer's padding)
is recomputed from the data.
"""

from __future__ import annotations

from construct import (
    Array,
    Bytes,
    Const,
    Construct,
    ExprValidator,
    FixedSized,
    GreedyBytes,
    GreedyRange,
    Int8sb,
    Int8ub,
    Int16sb,
    Int32sb,
    Int32ub,
    Int64sb,
    OneOf,
    Rebuild,
    SizeofError,
    StringEncoded,
    Struct,
    Switch,
    Terminated,
    ValidationError,
    VarInt,
    len_,
    stream_read,
    stream_tell,
    stream_write,
    this,
)

try:
    from hudi_log_generated.hfile import Hfile
except ImportError:  # running from a checkout without the package installed
    from generated.hfile import Hfile

__all__ = [
    "hfile", "block_section", "block", "block_payload", "data_block_body", "cell", "cell_key",
    "index_body", "index_entry", "nonroot_index_body", "file_info_body", "trailer", "pb_message",
    "pb_field", "pb_bytes", "pb_fixed64", "pb_fixed32", "pb_varint", "hadoop_vint", "MAGICS",
]

HEADER_SIZE = 33
TRAILER_SIZE = 4096
#: the block magics the .ksy's `block.magic` accepts, in HFileBlockType order
MAGICS = ["DATABLK*", "DATABLKE", "IDXLEAF2", "BLMFBLK2", "METABLKc", "IDXINTE2", "IDXROOT2", "FILEINF2",
          "BLMFMET2", "DFBLMET2"]


def _at_least(sub, low):
    return ExprValidator(sub, lambda obj, ctx: obj >= low)


def _in_enum(sub, enum):
    return OneOf(sub, [e.value for e in enum])


def _log_grammar():
    # AllButLast is spec/hudi_log.py's; that file shares its module name with the hudi_log package,
    # so it is loaded by path
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("hudi_log_construct_grammar", Path(__file__).with_name("hudi_log.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


#: bytes from here up to `n` bytes before the end of the (sub)stream: the .ksy's
#: `size: _io.size - _io.pos - n` (n = 4096 for the block section, 4 for the trailer's padding,
#: 9 for a cell key's qualifier)
AllButLast = _log_grammar().AllButLast


class HadoopVInt(Construct):
    """Hadoop's WritableUtils vint, non-negative values (markers -113..-116: 1..4 bytes)."""

    def _parse(self, stream, context, path):
        first = Int8sb._parsereport(stream, context, path)
        if first < -116:
            raise ValidationError(f"vint marker {first} (a negative or over-long value)", path=path)
        if first >= -112:
            return first
        return int.from_bytes(stream_read(stream, -112 - first, path), "big")

    def _build(self, obj, stream, context, path):
        if not 0 <= obj < 1 << 32:
            raise ValidationError(f"vint {obj} out of range", path=path)
        if obj <= 127:
            stream_write(stream, bytes([obj]), 1, path)
        else:
            raw = obj.to_bytes((obj.bit_length() + 7) // 8, "big")
            stream_write(stream, bytes([(-112 - len(raw)) & 0xFF]) + raw, 1 + len(raw), path)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("variable size", path=path)


hadoop_vint = HadoopVInt()
pb_varint = VarInt

# --- protobuf -------------------------------------------------------------------------------------

pb_bytes = Struct(
    "len_data" / Rebuild(pb_varint, len_(this.data)),
    "data" / Bytes(this.len_data),
)
pb_fixed64 = Struct("data" / Bytes(8))
pb_fixed32 = Struct("data" / Bytes(4))

pb_field = Struct(
    "tag" / ExprValidator(pb_varint, lambda obj, ctx: obj % 8 in (0, 1, 2, 5)),
    "value" / Switch(this.tag % 8, {0: pb_varint, 1: pb_fixed64, 2: pb_bytes, 5: pb_fixed32}),
)

pb_message = Struct(
    "fields" / GreedyRange(pb_field),
    Terminated,
)


def _message_size(name):
    return lambda this: len(pb_message.build(this[name]))


# --- block bodies ---------------------------------------------------------------------------------

cell_key = Struct(
    "len_row" / Rebuild(_at_least(Int16sb, 0), len_(this.row)),
    "row" / Bytes(this.len_row),
    "len_family" / Rebuild(Int8ub, len_(this.family)),
    "family" / Bytes(this.len_family),
    "qualifier" / AllButLast(9),
    "timestamp" / Int64sb,
    "key_type" / _in_enum(Int8ub, Hfile.KeyType),
)

cell = Struct(
    "len_key" / Rebuild(
        _at_least(Int32sb, 12), lambda this: 12 + len(this.key.row) + len(this.key.family) + len(this.key.qualifier)
    ),
    "len_value" / Rebuild(_at_least(Int32sb, 0), len_(this.value)),
    "key" / FixedSized(this.len_key, cell_key),
    "value" / Bytes(this.len_value),
    "memstore_ts" / ExprValidator(hadoop_vint, lambda obj, ctx: obj == 0),
)

data_block_body = Struct(
    "cells" / GreedyRange(cell),
    Terminated,
)

index_entry = Struct(
    "offset" / _at_least(Int64sb, 0),
    "len_block" / _at_least(Int32sb, 0),
    "len_key" / Rebuild(hadoop_vint, len_(this.key)),
    "key" / Bytes(this.len_key),
)

index_body = Struct(
    "entries" / GreedyRange(index_entry),
    Terminated,
)

nonroot_index_body = Struct(
    "num_entries" / _at_least(Int32sb, 0),
    "secondary_index" / Array(this.num_entries + 1, Int32sb),
    "entries" / GreedyBytes,
)

file_info_body = Struct(
    "pb_magic" / Const(b"PBUF"),
    "len_info" / Rebuild(pb_varint, _message_size("info")),
    "info" / FixedSized(this.len_info, pb_message),
    "rest" / GreedyBytes,
)

# --- blocks and trailer ---------------------------------------------------------------------------

block_payload = Struct("data" / GreedyBytes)

block = Struct(
    "magic" / OneOf(StringEncoded(Bytes(8), "ascii"), MAGICS),
    "len_on_disk_without_header" / Rebuild(
        _at_least(Int32sb, 0), lambda this: len(this.payload.data) + len(this.checksums)
    ),
    "len_uncompressed_without_header" / _at_least(Int32sb, 0),
    "prev_block_offset" / Int64sb,
    "checksum_type" / _in_enum(Int8ub, Hfile.ChecksumType),
    "bytes_per_checksum" / _at_least(Int32sb, 1),
    "len_on_disk_data_with_header" / Rebuild(
        ExprValidator(Int32sb, lambda obj, ctx: HEADER_SIZE <= obj <= ctx.len_on_disk_without_header + HEADER_SIZE),
        lambda this: HEADER_SIZE + len(this.payload.data),
    ),
    "payload" / FixedSized(this.len_on_disk_data_with_header - HEADER_SIZE, block_payload),
    "checksums" / Bytes(this.len_on_disk_without_header + HEADER_SIZE - this.len_on_disk_data_with_header),
)

block_section = Struct(
    "blocks" / GreedyRange(block),
    Terminated,
)


class _Padding(Construct):
    """The trailer's zero padding: parsed as the .ksy reads it (up to the last 4 bytes); built as zeros
    filling the trailer up to its version when not given."""

    def _parse(self, stream, context, path):
        return AllButLast(4)._parsereport(stream, context, path)

    def _build(self, obj, stream, context, path):
        if obj is None:
            obj = bytes(TRAILER_SIZE - 4 - stream_tell(stream, path))
        stream_write(stream, obj, len(obj), path)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("size depends on the message", path=path)


trailer = Struct(
    "magic" / Const(b'TRABLK"$'),
    "len_proto" / Rebuild(pb_varint, _message_size("proto")),
    "proto" / FixedSized(this.len_proto, pb_message),
    "padding" / _Padding(),
    "version" / ExprValidator(Int32ub, lambda obj, ctx: obj % 16777216 == 3),
)

hfile = Struct(
    "section" / AllButLast(TRAILER_SIZE),  # the blocks, all but the last 4096 bytes
    "trailer" / FixedSized(TRAILER_SIZE, trailer),
)
# The section is parsed as a whole, then its blocks (AllButLast gives bytes): parse_hfile does both.


def parse_hfile(data: bytes):
    """Parse a whole HFile: the root, then its block section (a Container as the .ksy's tree)."""
    root = hfile.parse(data)
    root.section = block_section.parse(root.section)
    return root


def build_hfile(root) -> bytes:
    """Build a whole HFile from a tree shaped as :func:`parse_hfile` returns it."""
    section = block_section.build(root.section)
    return hfile.build(dict(section=section, trailer=root.trailer))
