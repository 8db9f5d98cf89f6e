"""The payload of a DELETE_BLOCK of content version 1 or 2: Kryo, as Hudi before 0.14 wrote it.

HoodieDeleteBlock (apache/hudi, hudi-common ``table/log/block/HoodieDeleteBlock.java``) wrote its
keys with ``SerializationUtils.serialize`` (``hudi-common .../common/util/SerializationUtils.java``):
one ``Kryo.writeClassAndObject`` of a Java array, by a Kryo 4 instance with registration not
required and references on (Kryo's defaults otherwise). Version 1 holds ``HoodieKey[]`` (read back
as deletes with ordering value 0, as ``DeleteRecord.create(HoodieKey)`` does); version 2 holds
``DeleteRecord[]``. Tables upgraded since still carry such blocks, so a reader must decode them.

Kryo's layout, as far as these classes use it (com.esotericsoftware.kryo 4: Output, DefaultClassResolver,
MapReferenceResolver, FieldSerializer, ObjectArraySerializer):

* varints: 7 bits a group, least significant first, high bit = more (at most 5 bytes for an int,
  9 for a long, the 9th holding 8 bits); "positive" ones are plain, the others zig-zag encoded.
* a class: varint 0 for null; ``id + 2`` for a registered class (0 int, 1 String, 2 float,
  3 boolean, 4 byte, 5 char, 6 short, 7 long, 8 double: wrappers share their primitive's id);
  1 for a class by name, then the name's id (positive varint), then -- the first time this id
  occurs in the stream only -- the name as a Kryo string.
* a reference marker before every object of a class that takes references (all but the
  primitive wrappers): 0 null, 1 a new object (it gets the next id, in reading order), ``id + 2``
  the object read earlier with that id.
* a string: ASCII with the high bit set on its last byte; or a length+1 varint whose first byte
  carries 0x80 (and 0x40 when more length bytes follow, 6 bits in the first byte) and UTF-16
  code units in 1 to 3 bytes each (0x80 alone: null; 0x81: empty).
* an object array: its length + 1, then each element as class + reference marker + object.
* FieldSerializer: the fields in name order; a field of a final class (String) as reference
  marker + value, any other as class + (reference marker) + value.
  HoodieKey: partitionPath, recordKey. DeleteRecord: hoodieKey, orderingVal.
* int (IntSerializer) and long: zig-zag varints; float/double: 4/8 bytes big-endian; boolean and
  byte: 1 byte; short and char: 2 bytes.

Ordering values of the wrapper types and String decode; any other class (BigDecimal, Avro's Utf8,
dates) is refused with a DeletePayloadError naming it, never guessed. The spec's grammar describes
the fixed start of such a payload (spec/hudi_log.ksy, ``kryo_object_array``).
"""

from __future__ import annotations

import struct

from .deletes import DeleteRecord, DeletePayloadError, OrderingKind

__all__ = ["KEY_ARRAY_CLASS", "DELETE_RECORD_ARRAY_CLASS", "decode_kryo_delete_payload"]

_MODEL = "org.apache.hudi.common.model."
KEY_CLASS = _MODEL + "HoodieKey"
DELETE_RECORD_CLASS = _MODEL + "DeleteRecord"
#: the array class each content version holds (Java's binary name of an object array)
KEY_ARRAY_CLASS = f"[L{KEY_CLASS};"
DELETE_RECORD_ARRAY_CLASS = f"[L{DELETE_RECORD_CLASS};"
_ARRAY_CLASS = {1: KEY_ARRAY_CLASS, 2: DELETE_RECORD_ARRAY_CLASS}

# Kryo 4's default registrations (Kryo's constructor), as class-id -> Java type name
_REGISTERED = {0: "int", 1: "java.lang.String", 2: "float", 3: "boolean", 4: "byte", 5: "char", 6: "short",
               7: "long", 8: "double"}
_NAME = 1  # class tag: a class written by name
_NOT_NULL = 1  # reference marker: a new object


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.names: dict[int, str] = {}  # class-name ids seen so far
        self.objects: list[object] = []  # referenced objects, by id

    def fail(self, message: str) -> DeletePayloadError:
        return DeletePayloadError(f"Kryo delete payload, byte {self.pos}: {message}")

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise self.fail("payload ends early")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise self.fail(f"payload ends early ({n} bytes wanted)")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def varint(self, wide: bool = False) -> int:
        """An unsigned Kryo varint (5 bytes at most; 9 with ``wide``, the 9th holding 8 bits)."""
        result = 0
        for i in range(9 if wide else 5):
            b = self.byte()
            if wide and i == 8:
                return result | (b << 56)
            result |= (b & 0x7F) << (7 * i)
            if b < 0x80:
                return result
        if wide:
            return result  # pragma: no cover (the 9th byte returns above)
        raise self.fail("varint longer than 5 bytes")

    def zigzag(self, bits: int) -> int:
        n = self.varint(wide=bits == 64) & ((1 << bits) - 1)
        return (n >> 1) ^ -(n & 1)

    def string(self) -> str | None:
        b = self.byte()
        if b < 0x80:  # ASCII: up to the byte with its high bit set
            start = self.pos - 1
            while b < 0x80:
                b = self.byte()
            raw = bytearray(self.data[start:self.pos])
            raw[-1] &= 0x7F
            return raw.decode("ascii")
        length = b & 0x3F
        if b & 0x40:
            shift = 6
            while True:
                nb = self.byte()
                length |= (nb & 0x7F) << shift
                shift += 7
                if nb < 0x80 or shift > 34:
                    break
        if length == 0:
            return None
        units = []
        for _ in range(length - 1):
            c = self.byte()
            top = c >> 4
            if c < 0x80:
                units.append(c)
            elif top in (12, 13):
                units.append((c & 0x1F) << 6 | self.byte() & 0x3F)
            elif top == 14:
                units.append((c & 0x0F) << 12 | (self.byte() & 0x3F) << 6 | self.byte() & 0x3F)
            else:
                raise self.fail(f"byte 0x{c:02x} starts no character")
        # UTF-16 code units: astral characters arrive as surrogate pairs
        raw = b"".join(u.to_bytes(2, "little") for u in units)
        return raw.decode("utf-16-le", "surrogatepass")

    def class_name(self) -> str | None:
        tag = self.varint()
        if tag == 0:
            return None
        if tag != _NAME:
            name = _REGISTERED.get(tag - 2)
            if name is None:
                raise self.fail(f"class id {tag - 2} is not one Kryo registers by default")
            return name
        name_id = self.varint()
        if name_id not in self.names:
            name = self.string()
            if not name:
                raise self.fail("empty class name")
            self.names[name_id] = name
        return self.names[name_id]

    def reference(self) -> tuple[bool, object]:
        """A reference marker: (True, object) for null or an earlier object, (False, None) for a new one."""
        marker = self.varint()
        if marker == 0:
            return True, None
        if marker == _NOT_NULL:
            return False, None
        if marker - 2 >= len(self.objects):
            raise self.fail(f"reference to object {marker - 2}, only {len(self.objects)} read")
        return True, self.objects[marker - 2]

    def earlier(self, kind: type, what: str, nullable: bool = True) -> tuple[bool, object]:
        """A reference marker, the object it refers to checked to be a ``kind`` (``what`` names it)."""
        known, value = self.reference()
        if known and not (isinstance(value, kind) or (nullable and value is None)):
            raise self.fail(f"a {what} refers to a {type(value).__name__}")
        return known, value

    def new_object(self, value=None) -> int:
        self.objects.append(value)
        return len(self.objects) - 1

    def final_string(self) -> str | None:
        """A String field (a final class: no class tag, a reference marker)."""
        known, value = self.earlier(str, "String field")
        if known:
            return value
        slot = self.new_object()
        s = self.string()
        self.objects[slot] = s
        return s

    def key(self) -> tuple[str | None, str | None]:
        """A HoodieKey (class already read): reference marker, partitionPath, recordKey."""
        known, value = self.earlier(tuple, "HoodieKey", nullable=False)
        if known:
            return value
        slot = self.new_object()
        partition = self.final_string()
        record_key = self.final_string()
        self.objects[slot] = (record_key, partition)
        return record_key, partition

    def ordering(self) -> tuple[object, OrderingKind]:
        name = self.class_name()
        if name is None:
            return None, OrderingKind.NULL
        if name == "int":
            return self.zigzag(32), OrderingKind.INT
        if name == "long":
            return self.zigzag(64), OrderingKind.LONG
        if name == "boolean":
            return self.byte() != 0, OrderingKind.BOOLEAN
        if name == "float":
            return struct.unpack(">f", self.take(4))[0], OrderingKind.FLOAT
        if name == "double":
            return struct.unpack(">d", self.take(8))[0], OrderingKind.DOUBLE
        if name == "java.lang.String":
            known, value = self.earlier(str, "String ordering value", nullable=False)
            if not known:
                slot = self.new_object()
                value = self.objects[slot] = self.string()
            return value, OrderingKind.STRING
        raise self.fail(f"ordering value of class {name} is not decoded (only Java's wrappers and String)")

    def element(self, version: int) -> DeleteRecord | None:
        name = self.class_name()
        if name is None:
            return None
        want = KEY_CLASS if version == 1 else DELETE_RECORD_CLASS
        if name != want:
            raise self.fail(f"element of class {name}, expected {want}")
        if version == 1:
            record_key, partition = self.key()
            return DeleteRecord(record_key, partition, 0, OrderingKind.INT)
        known, value = self.earlier(DeleteRecord, "DeleteRecord", nullable=False)
        if known:
            return value
        slot = self.new_object()
        key_class = self.class_name()  # hoodieKey: HoodieKey is not final, so its class is written
        if key_class is None:
            raise self.fail("a DeleteRecord without a HoodieKey")
        if key_class != KEY_CLASS:
            raise self.fail(f"hoodieKey of class {key_class}")
        record_key, partition = self.key()
        value, kind = self.ordering()
        rec = DeleteRecord(record_key, partition, value, kind)
        self.objects[slot] = rec
        return rec


def decode_kryo_delete_payload(version: int, payload: bytes) -> list[DeleteRecord]:
    """The deletes of a content-version-1 (``HoodieKey[]``) or -2 (``DeleteRecord[]``) payload.

    Raises DeletePayloadError, saying where and why, for anything else (another class, an
    ordering value of a class not decoded here, trailing bytes, a payload cut short)."""
    if version not in _ARRAY_CLASS:
        raise DeletePayloadError(f"content version {version} is not a Kryo delete payload (1 or 2)")
    r = _Reader(bytes(payload))
    name = r.class_name()
    if name != _ARRAY_CLASS[version]:
        raise r.fail(f"payload holds {name}, content version {version} holds {_ARRAY_CLASS[version]}")
    known, _ = r.reference()
    if known:
        raise r.fail("the array itself is null or a back-reference")
    r.new_object()
    n = r.varint() - 1
    if n < 0:
        raise r.fail("null array")
    out = []
    for _ in range(n):
        rec = r.element(version)
        if rec is None:
            raise r.fail("null element (Hudi never writes one)")
        out.append(rec)
    if r.pos != len(r.data):
        raise r.fail(f"{len(r.data) - r.pos} bytes after the array")
    return out
