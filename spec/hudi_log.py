"""The Hudi log grammar of spec/hudi_log.ksy, expressed with `construct` (2.10) so that it builds too.

This is a second, independent spelling of the same grammar: every .ksy type is a module-level
construct of the same name, with the same field ids, so the two can be compared field by field
(tests/test_construct_grammar.py does so on the corpus and on random blocks). Where the .ksy is
lenient this module is lenient in the same way; see the notes at the end of the module.

Building: every length and count (len_block, len_content, reverse_pointer, num_entries,
len_value, num_records, len_datum, len_payload, Avro array counts and byte sizes, Avro
length prefixes) is recomputed from the data, so a caller only supplies the data fields (a delete
content's `records`: its `payload` bytes are built from them).

Avro varints (`avro_long`) parse to their decoded value and build canonically (shortest form).
Parsing accepts non-canonical varints, as the .ksy does; such input would not rebuild to the same
bytes. Hudi's Avro encoder writes canonical varints only, and the corpus test checks that every
corpus file rebuilds byte for byte.

Enum values are not typed here: they come from the generated codec (HudiLog.BlockType,
HudiLog.HeaderKey, HudiLog.OrderingKind), which kaitai-struct-compiler makes from the .ksy.
"""

from __future__ import annotations

import io

from construct import (
    Array,
    Bytes,
    Computed,
    Const,
    Construct,
    Enum,
    ExprValidator,
    FixedSized,
    Float32l,
    Float64l,
    GreedyBytes,
    GreedyRange,
    If,
    Int8ub,
    Int32sb,
    Int32ub,
    Int32ul,
    Int64sb,
    IntegerError,
    LazyBound,
    NullTerminated,
    OneOf,
    Rebuild,
    RepeatUntil,
    SizeofError,
    StreamError,
    StringEncoded,
    StringError,
    Struct,
    Subconstruct,
    Switch,
    Terminated,
    VarInt,
    ValidationError,
    len_,
    stream_read,
    stream_seek,
    stream_size,
    stream_tell,
    stream_write,
    this,
)

try:
    from hudi_log_generated.hudi_log import HudiLog
except ImportError:  # running from a checkout without the package installed
    from generated.hudi_log import HudiLog

__all__ = [
    "BLOCK_TYPE",
    "HEADER_KEY",
    "ORDERING_KIND",
    "AvroLong",
    "AllButLast",
    "avro_long",
    "avro_bytes",
    "avro_optional_string",
    "avro_record",
    "avro_data_content",
    "block",
    "delete_content",
    "delete_record",
    "delete_record_array_block",
    "delete_record_list",
    "hfile_content",
    "hfile_trailer",
    "log_file",
    "metadata_entry",
    "metadata_map",
    "ordering_value",
    "ordering_value_in_array",
    "array_wrapper",
    "ordering_value_array_block",
    "kryo_object_array",
    "kryo_varint",
    "parquet_content",
]

# --- enums, from the generated codec (the .ksy is the one place they are written) -------------

BLOCK_TYPE: dict[str, int] = {m.name: m.value for m in HudiLog.BlockType}
HEADER_KEY: dict[str, int] = {m.name: m.value for m in HudiLog.HeaderKey}
ORDERING_KIND: dict[str, int] = {m.name: m.value for m in HudiLog.OrderingKind}
_BLOCK_TYPE_NAME = {v: k for k, v in BLOCK_TYPE.items()}
_ORDERING_KIND_NAME = {v: k for k, v in ORDERING_KIND.items()}
_BT = HudiLog.BlockType
_OK = HudiLog.OrderingKind


def _enum(subcon, mapping):
    """An enum that, like the .ksy's `valid: in-enum: true`, rejects values outside the enum."""
    return Enum(OneOf(subcon, sorted(mapping.values())), **mapping)


#: `valid: max:` of every length a Java int carries (len_block, len_content, Avro lengths)
JAVA_INT_MAX = 2**31 - 1


def _non_negative(subcon):
    """`valid: min: 0`."""
    return ExprValidator(subcon, lambda obj, ctx: obj >= 0)


def _java_int_length(subcon):
    """`valid: min: 0, max: 2147483647`: a length Java holds in an int."""
    return ExprValidator(subcon, lambda obj, ctx: 0 <= obj <= JAVA_INT_MAX)


def _only_if(cond, subcon):
    """The .ksy's `if:`: None when absent, and a field a built object may leave out then."""
    field = If(cond, subcon)
    field.flagbuildnone = True  # construct's If otherwise insists on the key even when cond is false
    return field


def _built_len(subcon, obj, context):
    """Byte length of `obj` built with `subcon` in the current context.

    Lengths that precede their data (len_block, len_content, len_payload, len_items) are
    measured by building the data once more; building in the caller's context lets Switch keys
    such as the block type resolve as they will in the real build.
    """
    return len(_built(subcon, obj, context))


def _built(subcon, obj, context) -> bytes:
    """`obj` built with `subcon` in the current context (see _built_len)."""
    stream = io.BytesIO()
    subcon._build(obj, stream, context, "(building a part)")
    return stream.getvalue()


# --- primitives that construct lacks --------------------------------------------------------------


class AvroLong(Construct):
    """Avro int/long: zig-zag, then 7-bit groups, least significant first (the .ksy `avro_long`).

    Parses like the .ksy: groups up to one with its high bit clear, at most 10 of them (an 11th
    is an error, as in Avro's decoder); the value is not range-checked. Builds the canonical
    (shortest) encoding of a signed 64-bit value.
    """

    def _parse(self, stream, context, path):
        zigzag = 0
        for i in range(10):
            group = stream_read(stream, 1, path)[0]
            zigzag |= (group & 0x7F) << (7 * i)
            if group < 0x80:
                return (zigzag >> 1) ^ -(zigzag & 1)
        raise ValidationError("avro long of more than 10 bytes", path=path)

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, int) or not -(2**63) <= obj < 2**63:
            raise IntegerError(f"avro long must be a signed 64-bit integer, got {obj!r}", path=path)
        zigzag = (obj << 1) ^ (obj >> 63)
        out = bytearray()
        while zigzag >= 0x80:
            out.append((zigzag & 0x7F) | 0x80)
            zigzag >>= 7
        out.append(zigzag)
        stream_write(stream, bytes(out), len(out), path)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("an Avro varint has no fixed size", path=path)


avro_long = AvroLong()


class AllButLast(Construct):
    """Bytes from here up to `n` bytes before the end of the (sub)stream.

    Spells the .ksy's `size: _io.size - K` for fields that start at a fixed offset K - n into their
    stream (parquet body: offset 4, K = 12, n = 8; hfile blocks: offset 0, K = n = 4096).
    """

    def __init__(self, n):
        super().__init__()
        self.n = n

    def _parse(self, stream, context, path):
        length = stream_size(stream) - stream_tell(stream, path) - self.n
        if length < 0:
            raise StreamError(f"stream too short: needs {self.n} more bytes after this field", path=path)
        return stream_read(stream, length, path)

    def _build(self, obj, stream, context, path):
        stream_write(stream, obj, len(obj), path)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("size depends on the enclosing stream", path=path)


class Lookahead(Subconstruct):
    """The .ksy's parse instance at the current position: parsed without moving past it (unlike
    construct's Peek, a parse error is raised, not turned into None); builds nothing."""

    def _parse(self, stream, context, path):
        at = stream_tell(stream, path)
        try:
            return self.subcon._parsereport(stream, context, path)
        finally:
            stream_seek(stream, at, 0, path)

    def _build(self, obj, stream, context, path):
        return obj

    def _sizeof(self, context, path):
        return 0


# --- metadata maps (header and footer) ----------------------------------------------------------

def _command_block_type(this):
    # the .ksy instance `command_block_type`: the COMMAND_BLOCK_TYPE entry's decimal value
    if this.key != "command_block_type":
        return None
    return int(this.text) if this.text.isascii() and this.text.isdigit() else None


metadata_entry = Struct(
    "key" / _enum(Int32sb, HEADER_KEY),
    "len_value" / Rebuild(_non_negative(Int32sb), len_(this.value)),
    # bytes, as in the .ksy (the engines decode invalid UTF-8 differently); `text` decodes it the
    # way Java's new String(bytes) and the JavaScript runtime do, invalid sequences as U+FFFD
    "value" / Bytes(this.len_value),
    "text" / Computed(lambda this: this.value.decode("utf-8", "replace")),
    "command_block_type" / Computed(_command_block_type),
)

metadata_map = Struct(
    "num_entries" / Rebuild(_non_negative(Int32sb), len_(this.entries)),
    # entry order is kept: Hudi writes a Java HashMap, so it varies between writers
    "entries" / Array(this.num_entries, metadata_entry),
)

# --- Avro data / CDC content ---------------------------------------------------------------------

avro_record = Struct(
    "len_datum" / Rebuild(_non_negative(Int32sb), len_(this.datum)),
    "datum" / Bytes(this.len_datum),
)

avro_data_content = Struct(
    "content_version" / OneOf(Int32sb, [1, 2, 3]),
    "num_records" / Rebuild(_non_negative(Int32sb), len_(this.records)),
    "records" / Array(this.num_records, avro_record),
)

# --- delete content: Avro HoodieDeleteRecordList (content version 3) -----------------------------

avro_bytes = Struct(
    "len_data" / Rebuild(_java_int_length(avro_long), len_(this.data)),
    "data" / Bytes(this.len_data),
)


def _optional_string_value(this):
    # the .ksy instance `value`: the string, "" for null
    if this.branch != 1:
        return ""
    try:
        return this.string.data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StringError(f"union string is not UTF-8: {e}") from None


avro_optional_string = Struct(
    "branch" / ExprValidator(avro_long, lambda obj, ctx: obj in (0, 1)),
    "string" / _only_if(this.branch == 1, avro_bytes),
    "value" / Computed(_optional_string_value),
)


def _avro_array_block(item):
    """One block of an Avro array: count, byte size when the count is negative, |count| items.

    On build the count is the number of items, negative (with a rebuilt byte size) when the object
    being built had a negative count, so parsed blocks rebuild as they were.
    """

    def items_size(this):
        return sum(_built_len(item, it, this) for it in this["items"])

    def num_items(this):
        return -len(this["items"]) if (this.get("num_items") or 0) < 0 else len(this["items"])

    return Struct(
        "num_items" / Rebuild(ExprValidator(avro_long, lambda obj, ctx: -JAVA_INT_MAX <= obj <= JAVA_INT_MAX), num_items),
        "len_items" / _only_if(this.num_items < 0, Rebuild(avro_long, items_size)),
        "items" / Array(lambda this: abs(this.num_items), item),
    )


def _avro_array(block_):
    # blocks until one with count 0; that block has no items, which is what build checks, since
    # the count of an object being built is rebuilt and may be absent
    return RepeatUntil(lambda obj, lst, ctx: len(obj["items"]) == 0, block_)


def _ordering_value(in_array: bool):
    """The .ksy's `ordering_value(in_array)`.

    A union of wrapper records; each wrapper encodes as its single value. Inside an ArrayWrapper
    (in_array) branch 12 is LocalDateWrapper instead of ArrayWrapper, so arrays do not nest.
    """

    def kind(this):
        code = _OK.local_date if in_array and this.branch == _OK.array else this.branch
        return _ORDERING_KIND_NAME[code]

    return Struct(
        "branch" / ExprValidator(avro_long, lambda obj, ctx: 0 <= obj <= 12),
        # the .ksy instance `kind`, placed before `value` because value switches on it
        "kind" / Computed(kind),
        "value"
        / _only_if(
            this.branch != 0,
            Switch(
                this.kind,
                {
                    _OK.boolean.name: Int8ub,
                    _OK.int.name: avro_long,
                    _OK.long.name: avro_long,
                    _OK.float.name: Float32l,
                    _OK.double.name: Float64l,
                    _OK.bytes.name: avro_bytes,
                    _OK.string.name: avro_bytes,
                    _OK.date.name: avro_long,
                    _OK.decimal.name: avro_bytes,
                    _OK.time_micros.name: avro_long,
                    _OK.timestamp_micros.name: avro_long,
                    _OK.array.name: LazyBound(lambda: array_wrapper),
                    _OK.local_date.name: avro_long,
                },
            ),
        ),
    )


ordering_value = _ordering_value(in_array=False)  # ordering_value(false): a delete's own value
ordering_value_in_array = _ordering_value(in_array=True)  # ordering_value(true): ArrayWrapper items

ordering_value_array_block = _avro_array_block(ordering_value_in_array)

# ArrayWrapper {wrappedValues: ["null", array<ordering value>]}
array_wrapper = Struct(
    "branch" / ExprValidator(avro_long, lambda obj, ctx: obj in (0, 1)),
    "array_blocks" / _only_if(this.branch == 1, _avro_array(ordering_value_array_block)),
)

delete_record = Struct(
    "record_key" / avro_optional_string,
    "partition_path" / avro_optional_string,
    "ordering_value" / ordering_value,
)

delete_record_array_block = _avro_array_block(delete_record)
delete_record_list = Struct("array_blocks" / _avro_array(delete_record_array_block))

# --- delete content: Kryo (content versions 1 and 2, Hudi before 0.14) ----------------------------

# Output.writeVarInt(value, true): 7-bit groups, least significant first, at most 5 bytes
kryo_varint = ExprValidator(VarInt, lambda obj, ctx: obj < 2**35)

_KRYO_ARRAY_CLASS = {1: "[Lorg.apache.hudi.common.model.HoodieKey", 2: "[Lorg.apache.hudi.common.model.DeleteRecord"}

kryo_object_array = Struct(
    "class_tag" / ExprValidator(kryo_varint, lambda obj, ctx: obj == 1),
    "class_name_id" / ExprValidator(kryo_varint, lambda obj, ctx: obj == 0),
    # ASCII up to the last character, ';', written with Kryo's end-of-string bit (0xBB)
    "class_name"
    / ExprValidator(
        StringEncoded(NullTerminated(GreedyBytes, term=b"\xbb"), "ascii"),
        lambda obj, ctx: obj == _KRYO_ARRAY_CLASS.get(ctx._.content_version),
    ),
    "reference" / ExprValidator(kryo_varint, lambda obj, ctx: obj == 1),
    "num_elements_plus_one" / ExprValidator(kryo_varint, lambda obj, ctx: obj >= 1),
    "elements" / GreedyBytes,
    "num_elements" / Computed(this.num_elements_plus_one - 1),
)

_delete_payload = Switch(
    this.content_version, {1: kryo_object_array, 2: kryo_object_array, 3: delete_record_list}, default=GreedyBytes,
)

delete_content = Struct(
    "content_version" / OneOf(Int32sb, [1, 2, 3]),
    "len_payload" / Rebuild(_non_negative(Int32sb), lambda this: _built_len(_delete_payload, this.records, this)),
    # the .ksy's `records` instance: the payload laid out, parsed on demand there (so the Web IDE and
    # `hudi-log view` show a big delete block at once) and here at once, without moving past it;
    # placed before `payload`, whose bytes are built from it
    "records" / Lookahead(FixedSized(this.len_payload, _delete_payload)),
    "payload" / Rebuild(Bytes(this.len_payload), lambda this: _built(_delete_payload, this.records, this)),
)

# --- embedded files ------------------------------------------------------------------------------

parquet_content = Struct(
    "magic" / Const(b"PAR1"),
    "body" / AllButLast(8),
    "len_footer" / Int32ul,
    "end_magic" / Const(b"PAR1"),
)

hfile_trailer = Struct(
    "magic" / Const(b'TRABLK"$'),
    "body" / Bytes(4096 - 8 - 4),
    "version" / ExprValidator(Int32ub, lambda obj, ctx: obj % 2**24 == 3),
    "major_version" / Computed(this.version % 2**24),
    "minor_version" / Computed(this.version // 2**24),
)

hfile_content = Struct(
    "blocks" / AllButLast(4096),
    "trailer" / FixedSized(4096, hfile_trailer),
)

# --- blocks and the file -------------------------------------------------------------------------


def _content_case(this):
    """The .ksy's content switch key: the block type's name."""
    bt = this.block_type  # parsed: the enum name (a str); built: a name, an int or an IntEnum
    return str(bt) if isinstance(bt, str) else _BLOCK_TYPE_NAME.get(bt, bt)


_content_body = Switch(
    _content_case,
    {
        _BT.delete_block.name: delete_content,
        _BT.avro_data_block.name: avro_data_content,
        _BT.hfile_data_block.name: hfile_content,
        _BT.parquet_data_block.name: parquet_content,
        _BT.cdc_data_block.name: avro_data_content,
    },
    default=GreedyBytes,  # command blocks (empty), corrupt blocks
)

MAGIC = b"#HUDI#"
# fixed fields that len_block counts besides header, content and footer (format version 1):
# format_version, block_type, len_content, reverse_pointer
_V1_FIXED = Int32sb.sizeof() + Int32sb.sizeof() + Int64sb.sizeof() + Int64sb.sizeof()


def _len_block(this):
    if this.format_version == 0:
        return len(this.legacy_content)  # version 0: the block size is the content length (Hudi's reader reads it so)
    content = _built_len(_content_body, this.content, this)
    return _V1_FIXED + _built_len(metadata_map, this.header, this) + content + _built_len(metadata_map, this.footer, this)


def _is_v1(this):
    return this.format_version != 0


def _v1_only(subcon):
    """A field of format version 1 only."""
    return _only_if(_is_v1, subcon)


block = Struct(
    "magic" / Const(MAGIC),
    "len_block" / Rebuild(_java_int_length(Int64sb), _len_block),
    "format_version" / OneOf(Int32sb, [0, 1]),
    "block_type" / _v1_only(_enum(Int32sb, BLOCK_TYPE)),
    "header" / _v1_only(metadata_map),
    "len_content" / _v1_only(Rebuild(_java_int_length(Int64sb), lambda this: _built_len(_content_body, this.content, this))),
    # the .ksy parses this lazily, as the `body` instance of its `block_content` (for the Web IDE);
    # parsed here at once, it is the same bytes and fields (tests compare `content.body` with it)
    "content" / _v1_only(FixedSized(this.len_content, _content_body)),
    # the .ksy sizes it by its `len_legacy_content` instance, which is len_block
    "legacy_content" / _only_if(lambda this: this.format_version == 0, Bytes(this.len_block)),
    "footer" / _v1_only(metadata_map),
    # bytes from the magic up to this field; lets a reader walk the file backwards
    "reverse_pointer"
    / _v1_only(
        Rebuild(
            ExprValidator(Int64sb, lambda obj, ctx: obj == ctx.len_block + len(MAGIC)),
            this.len_block + len(MAGIC),
        ),
    ),
)

# The file: blocks up to the end (an empty file is legal). GreedyRange stops at the first piece
# that is not a block; Terminated then refuses to drop it silently.
log_file = Struct(
    "blocks" / GreedyRange(block),
    Terminated,
)

# Notes where this follows the .ksy although the format may deserve stricter rules:
# - len_block is only tied to the rest by reverse_pointer == len_block + 6; nothing checks that
#   it equals the bytes actually read (it is rebuilt on build).
# - a content type, or the delete payload, need not use up its sized region; leftover bytes are
#   dropped on parse (and not rebuilt).
# - len_items of an Avro array block is not checked against the items.
# - a Kryo varint is bounded by value (< 2^35) here and by length (<= 5 bytes) in the .ksy; they
#   differ only on non-canonical varints padded with zero groups, which Kryo never writes.
