# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import ReadWriteKaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class HudiLog(ReadWriteKaitaiStruct):
    """The log files of an Apache Hudi Merge-On-Read table (`.{fileId}_{instant}.log.{version}_{writeToken}`)
    hold updates and deletes for one file group. A file is a sequence of blocks with no file header and
    no trailer; an empty file (0 bytes) is legal. Every block starts with the magic `#HUDI#` and is
    framed by its size on both ends (block size after the magic, reverse pointer at the end), so a
    reader can detect a torn block and walk the file backwards.
    
    Integers are big-endian (Java DataOutputStream), except inside Avro and Parquet payloads. Log
    format version 1 is written by every Hudi release since 0.4.1 and by table versions up to 9.
    Format version 0 (no header, footer or reverse pointer) is described for completeness; modern
    Hudi readers cannot read it.
    
    Content layouts: Avro data and CDC blocks hold length-prefixed Avro binary records written with
    the schema of the SCHEMA header; delete blocks hold an Avro `HoodieDeleteRecordList` (content
    version 3); Parquet and HFile blocks embed a whole file; command blocks (rollback) are empty.
    
    .. seealso::
       Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-hadoop-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatWriter.java
    
    
    .. seealso::
       Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFileReader.java
    
    
    .. seealso::
       Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java
    """

    class BlockType(IntEnum):
        command_block = 0
        delete_block = 1
        corrupt_block = 2
        avro_data_block = 3
        hfile_data_block = 4
        parquet_data_block = 5
        cdc_data_block = 6

    class CommandBlockType(IntEnum):
        rollback_block = 0

    class HeaderKey(IntEnum):
        instant_time = 0
        target_instant_time = 1
        schema = 2
        command_block_type = 3
        compacted_block_times = 4
        record_positions = 5
        block_identifier = 6
        is_partial = 7
        base_file_instant_time_of_record_positions = 8

    class OrderingKind(IntEnum):
        null = 0
        boolean = 1
        int = 2
        long = 3
        float = 4
        double = 5
        bytes = 6
        string = 7
        date = 8
        decimal = 9
        time_micros = 10
        timestamp_micros = 11
        array = 12
        local_date = 13
    def __init__(self, _io=None, _parent=None, _root=None):
        super(HudiLog, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self

    def _read(self):
        self.blocks = []
        i = 0
        while not self._io.is_eof():
            _t_blocks = HudiLog.Block(self._io, self, self._root)
            try:
                _t_blocks._read()
            finally:
                self.blocks.append(_t_blocks)
            i += 1

        self._dirty = False


    def _fetch_instances(self):
        pass
        for i in range(len(self.blocks)):
            pass
            self.blocks[i]._fetch_instances()



    def _write__seq(self, io=None):
        super(HudiLog, self)._write__seq(io)
        for i in range(len(self.blocks)):
            pass
            if self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"blocks", 0, self._io.size() - self._io.pos())
            self.blocks[i]._write__seq(self._io)

        if not self._io.is_eof():
            raise kaitaistruct.ConsistencyError(u"blocks", 0, self._io.size() - self._io.pos())


    def _check(self):
        for i in range(len(self.blocks)):
            pass
            if self.blocks[i]._root != self._root:
                raise kaitaistruct.ConsistencyError(u"blocks", self._root, self.blocks[i]._root)
            if self.blocks[i]._parent != self:
                raise kaitaistruct.ConsistencyError(u"blocks", self, self.blocks[i]._parent)

        self._dirty = False

    class ArrayWrapper(ReadWriteKaitaiStruct):
        """ArrayWrapper {wrappedValues: ["null", array<ordering value>]}, the ordering values of
        several ordering fields (Hudi 1.1).
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.ArrayWrapper, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.branch = HudiLog.AvroLong(self._io, self, self._root)
            self.branch._read()
            _ = self.branch
            if not  ((_.value == 0) or (_.value == 1)) :
                raise kaitaistruct.ValidationExprError(self.branch, self._io, u"/types/array_wrapper/seq/0")
            if self.branch.value == 1:
                pass
                self.array_blocks = []
                i = 0
                while True:
                    _t_array_blocks = HudiLog.OrderingValueArrayBlock(self._io, self, self._root)
                    try:
                        _t_array_blocks._read()
                    finally:
                        _ = _t_array_blocks
                        self.array_blocks.append(_)
                    if _.num_items.value == 0:
                        break
                    i += 1

            self._dirty = False


        def _fetch_instances(self):
            pass
            self.branch._fetch_instances()
            if self.branch.value == 1:
                pass
                for i in range(len(self.array_blocks)):
                    pass
                    self.array_blocks[i]._fetch_instances()




        def _write__seq(self, io=None):
            super(HudiLog.ArrayWrapper, self)._write__seq(io)
            self.branch._write__seq(self._io)
            if self.branch.value == 1:
                pass
                for i in range(len(self.array_blocks)):
                    pass
                    self.array_blocks[i]._write__seq(self._io)




        def _check(self):
            if self.branch._root != self._root:
                raise kaitaistruct.ConsistencyError(u"branch", self._root, self.branch._root)
            if self.branch._parent != self:
                raise kaitaistruct.ConsistencyError(u"branch", self, self.branch._parent)
            _ = self.branch
            if not  ((_.value == 0) or (_.value == 1)) :
                raise kaitaistruct.ValidationExprError(self.branch, None, u"/types/array_wrapper/seq/0")
            if self.branch.value == 1:
                pass
                if len(self.array_blocks) == 0:
                    raise kaitaistruct.ConsistencyError(u"array_blocks", 0, len(self.array_blocks))
                for i in range(len(self.array_blocks)):
                    pass
                    if self.array_blocks[i]._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"array_blocks", self._root, self.array_blocks[i]._root)
                    if self.array_blocks[i]._parent != self:
                        raise kaitaistruct.ConsistencyError(u"array_blocks", self, self.array_blocks[i]._parent)
                    _ = self.array_blocks[i]
                    if (_.num_items.value == 0) != (i == len(self.array_blocks) - 1):
                        raise kaitaistruct.ConsistencyError(u"array_blocks", i == len(self.array_blocks) - 1, _.num_items.value == 0)


            self._dirty = False


    class AvroBytes(ReadWriteKaitaiStruct):
        """Avro bytes or string, its length as an Avro long, then the bytes."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.AvroBytes, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.len_data = HudiLog.AvroLong(self._io, self, self._root)
            self.len_data._read()
            _ = self.len_data
            if not  ((_.value >= 0) and (_.value <= 2147483647)) :
                raise kaitaistruct.ValidationExprError(self.len_data, self._io, u"/types/avro_bytes/seq/0")
            self.data = self._io.read_bytes(self.len_data.value)
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.len_data._fetch_instances()


        def _write__seq(self, io=None):
            super(HudiLog.AvroBytes, self)._write__seq(io)
            self.len_data._write__seq(self._io)
            self._io.write_bytes(self.data)


        def _check(self):
            if self.len_data._root != self._root:
                raise kaitaistruct.ConsistencyError(u"len_data", self._root, self.len_data._root)
            if self.len_data._parent != self:
                raise kaitaistruct.ConsistencyError(u"len_data", self, self.len_data._parent)
            _ = self.len_data
            if not  ((_.value >= 0) and (_.value <= 2147483647)) :
                raise kaitaistruct.ValidationExprError(self.len_data, None, u"/types/avro_bytes/seq/0")
            if len(self.data) != self.len_data.value:
                raise kaitaistruct.ConsistencyError(u"data", self.len_data.value, len(self.data))
            self._dirty = False


    class AvroDataContent(ReadWriteKaitaiStruct):
        """Content of AVRO_DATA_BLOCK and CDC_DATA_BLOCK: a version, a record count, then every record
        as its length and its Avro binary encoding (no container, no sync markers) under the writer
        schema of the SCHEMA header. Uncompressed. The same layout in content versions 1 to 3.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieAvroDataBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.AvroDataContent, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.content_version = self._io.read_s4be()
            if not  ((self.content_version == 1) or (self.content_version == 2) or (self.content_version == 3)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.content_version, self._io, u"/types/avro_data_content/seq/0")
            self.num_records = self._io.read_s4be()
            if not self.num_records >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.num_records, self._io, u"/types/avro_data_content/seq/1")
            self.records = []
            for i in range(self.num_records):
                _t_records = HudiLog.AvroRecord(self._io, self, self._root)
                try:
                    _t_records._read()
                finally:
                    self.records.append(_t_records)

            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.records)):
                pass
                self.records[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(HudiLog.AvroDataContent, self)._write__seq(io)
            self._io.write_s4be(self.content_version)
            self._io.write_s4be(self.num_records)
            for i in range(len(self.records)):
                pass
                self.records[i]._write__seq(self._io)



        def _check(self):
            if not  ((self.content_version == 1) or (self.content_version == 2) or (self.content_version == 3)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.content_version, None, u"/types/avro_data_content/seq/0")
            if not self.num_records >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.num_records, None, u"/types/avro_data_content/seq/1")
            if len(self.records) != self.num_records:
                raise kaitaistruct.ConsistencyError(u"records", self.num_records, len(self.records))
            for i in range(len(self.records)):
                pass
                if self.records[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"records", self._root, self.records[i]._root)
                if self.records[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"records", self, self.records[i]._parent)

            self._dirty = False


    class AvroLong(ReadWriteKaitaiStruct):
        """Avro int or long: zig-zag encoded, then written 7 bits at a time, least significant group
        first, the high bit of each byte set when more bytes follow (1 to 10 bytes).
        
        .. seealso::
           Source - https://avro.apache.org/docs/1.11.1/specification/#primitive-types-1
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.AvroLong, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.groups = []
            i = 0
            while True:
                _ = self._io.read_u1()
                self.groups.append(_)
                _ = self.groups[i]
                if not len(self.groups) <= 10:
                    raise kaitaistruct.ValidationExprError(self.groups[i], self._io, u"/types/avro_long/seq/0")
                if _ < 128:
                    break
                i += 1
            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.groups)):
                pass



        def _write__seq(self, io=None):
            super(HudiLog.AvroLong, self)._write__seq(io)
            for i in range(len(self.groups)):
                pass
                self._io.write_u1(self.groups[i])



        def _check(self):
            if len(self.groups) == 0:
                raise kaitaistruct.ConsistencyError(u"groups", 0, len(self.groups))
            for i in range(len(self.groups)):
                pass
                _ = self.groups[i]
                if not len(self.groups) <= 10:
                    raise kaitaistruct.ValidationExprError(self.groups[i], None, u"/types/avro_long/seq/0")
                _ = self.groups[i]
                if (_ < 128) != (i == len(self.groups) - 1):
                    raise kaitaistruct.ConsistencyError(u"groups", i == len(self.groups) - 1, _ < 128)

            self._dirty = False

        @property
        def len_groups(self):
            """Number of bytes of the varint."""
            if hasattr(self, '_m_len_groups'):
                return self._m_len_groups

            self._m_len_groups = len(self.groups)
            return getattr(self, '_m_len_groups', None)

        def _invalidate_len_groups(self):
            del self._m_len_groups
        @property
        def value(self):
            """The decoded signed value. The sign is the lowest bit of the first byte, so that it is
            right in JavaScript too, where a zigzag above 2^53 is a rounded double (the magnitude
            then is too; `groups` are exact in every engine).
            """
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = (self.zigzag // 2 if self.groups[0] % 2 == 0 else -((self.zigzag + 1) // 2))
            return getattr(self, '_m_value', None)

        def _invalidate_value(self):
            del self._m_value
        @property
        def zigzag(self):
            """The unsigned varint value before zig-zag decoding (arithmetic, so that it also works in JavaScript)."""
            if hasattr(self, '_m_zigzag'):
                return self._m_zigzag

            self._m_zigzag = ((((((((self.groups[0] % 128 + ((self.groups[1] % 128) * 128 if self.len_groups > 1 else 0)) + ((self.groups[2] % 128) * 16384 if self.len_groups > 2 else 0)) + ((self.groups[3] % 128) * 2097152 if self.len_groups > 3 else 0)) + ((self.groups[4] % 128) * 268435456 if self.len_groups > 4 else 0)) + ((self.groups[5] % 128) * 34359738368 if self.len_groups > 5 else 0)) + ((self.groups[6] % 128) * 4398046511104 if self.len_groups > 6 else 0)) + ((self.groups[7] % 128) * 562949953421312 if self.len_groups > 7 else 0)) + ((self.groups[8] % 128) * 72057594037927936 if self.len_groups > 8 else 0)) + ((self.groups[9] % 128) * 9223372036854775808 if self.len_groups > 9 else 0)
            return getattr(self, '_m_zigzag', None)

        def _invalidate_zigzag(self):
            del self._m_zigzag

    class AvroOptionalString(ReadWriteKaitaiStruct):
        """Avro union ["null", "string"]."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.AvroOptionalString, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.branch = HudiLog.AvroLong(self._io, self, self._root)
            self.branch._read()
            _ = self.branch
            if not  ((_.value == 0) or (_.value == 1)) :
                raise kaitaistruct.ValidationExprError(self.branch, self._io, u"/types/avro_optional_string/seq/0")
            if self.branch.value == 1:
                pass
                self.string = HudiLog.AvroBytes(self._io, self, self._root)
                self.string._read()

            self._dirty = False


        def _fetch_instances(self):
            pass
            self.branch._fetch_instances()
            if self.branch.value == 1:
                pass
                self.string._fetch_instances()



        def _write__seq(self, io=None):
            super(HudiLog.AvroOptionalString, self)._write__seq(io)
            self.branch._write__seq(self._io)
            if self.branch.value == 1:
                pass
                self.string._write__seq(self._io)



        def _check(self):
            if self.branch._root != self._root:
                raise kaitaistruct.ConsistencyError(u"branch", self._root, self.branch._root)
            if self.branch._parent != self:
                raise kaitaistruct.ConsistencyError(u"branch", self, self.branch._parent)
            _ = self.branch
            if not  ((_.value == 0) or (_.value == 1)) :
                raise kaitaistruct.ValidationExprError(self.branch, None, u"/types/avro_optional_string/seq/0")
            if self.branch.value == 1:
                pass
                if self.string._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"string", self._root, self.string._root)
                if self.string._parent != self:
                    raise kaitaistruct.ConsistencyError(u"string", self, self.string._parent)

            self._dirty = False

        @property
        def value(self):
            """The string ("" for null)."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = ((self.string.data).decode(u"UTF-8") if self.branch.value == 1 else u"")
            return getattr(self, '_m_value', None)

        def _invalidate_value(self):
            del self._m_value

    class AvroRecord(ReadWriteKaitaiStruct):
        """One length-prefixed Avro binary datum."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.AvroRecord, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.len_datum = self._io.read_s4be()
            if not self.len_datum >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_datum, self._io, u"/types/avro_record/seq/0")
            self.datum = self._io.read_bytes(self.len_datum)
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(HudiLog.AvroRecord, self)._write__seq(io)
            self._io.write_s4be(self.len_datum)
            self._io.write_bytes(self.datum)


        def _check(self):
            if not self.len_datum >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_datum, None, u"/types/avro_record/seq/0")
            if len(self.datum) != self.len_datum:
                raise kaitaistruct.ConsistencyError(u"datum", self.len_datum, len(self.datum))
            self._dirty = False


    class Block(ReadWriteKaitaiStruct):
        """One log block. On disk a format-version-1 block takes len_block + 14 bytes: the 6-byte
        magic, the 8-byte block size (Hudi's blockSize, here `len_block`), and len_block bytes
        that end with the reverse pointer. A format-version-0 block takes len_block + 18: its
        content (len_block bytes, as Hudi's reader takes it) follows the 4-byte version. Readers
        also check that the fields between the block size and the reverse pointer add up to
        len_block (Hudi finds the reverse pointer len_block bytes after the size field); this
        grammar checks the two ends agree. Lengths are named `len_*` as Kaitai's style guide
        asks; Hudi's own names are kept in `-orig-id`.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-hadoop-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatWriter.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.Block, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.magic = self._io.read_bytes(6)
            if not self.magic == b"\x23\x48\x55\x44\x49\x23":
                raise kaitaistruct.ValidationNotEqualError(b"\x23\x48\x55\x44\x49\x23", self.magic, self._io, u"/types/block/seq/0")
            self.len_block = self._io.read_s8be()
            if not self.len_block >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_block, self._io, u"/types/block/seq/1")
            if not self.len_block <= 2147483647:
                raise kaitaistruct.ValidationGreaterThanError(2147483647, self.len_block, self._io, u"/types/block/seq/1")
            self.format_version = self._io.read_s4be()
            if not  ((self.format_version == 0) or (self.format_version == 1)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.format_version, self._io, u"/types/block/seq/2")
            if self.format_version != 0:
                pass
                self.block_type = KaitaiStream.resolve_enum(HudiLog.BlockType, self._io.read_s4be())
                if not isinstance(self.block_type, HudiLog.BlockType):
                    raise kaitaistruct.ValidationNotInEnumError(self.block_type, self._io, u"/types/block/seq/3")

            if self.format_version != 0:
                pass
                self.header = HudiLog.MetadataMap(self._io, self, self._root)
                self.header._read()

            if self.format_version != 0:
                pass
                self.len_content = self._io.read_s8be()
                if not self.len_content >= 0:
                    raise kaitaistruct.ValidationLessThanError(0, self.len_content, self._io, u"/types/block/seq/5")
                if not self.len_content <= 2147483647:
                    raise kaitaistruct.ValidationGreaterThanError(2147483647, self.len_content, self._io, u"/types/block/seq/5")

            if self.format_version != 0:
                pass
                self._raw_content = self._io.read_bytes(self.len_content)
                _io__raw_content = KaitaiStream(BytesIO(self._raw_content))
                self.content = HudiLog.BlockContent(_io__raw_content, self, self._root)
                self.content._read()

            if self.format_version == 0:
                pass
                self.legacy_content = self._io.read_bytes(self.len_legacy_content)

            if self.format_version != 0:
                pass
                self.footer = HudiLog.MetadataMap(self._io, self, self._root)
                self.footer._read()

            if self.format_version != 0:
                pass
                self.reverse_pointer = self._io.read_s8be()
                _ = self.reverse_pointer
                if not _ == self.len_block + 6:
                    raise kaitaistruct.ValidationExprError(self.reverse_pointer, self._io, u"/types/block/seq/9")

            self._dirty = False


        def _fetch_instances(self):
            pass
            if self.format_version != 0:
                pass

            if self.format_version != 0:
                pass
                self.header._fetch_instances()

            if self.format_version != 0:
                pass

            if self.format_version != 0:
                pass
                self.content._fetch_instances()

            if self.format_version == 0:
                pass

            if self.format_version != 0:
                pass
                self.footer._fetch_instances()

            if self.format_version != 0:
                pass



        def _write__seq(self, io=None):
            super(HudiLog.Block, self)._write__seq(io)
            self._io.write_bytes(self.magic)
            self._io.write_s8be(self.len_block)
            self._io.write_s4be(self.format_version)
            if self.format_version != 0:
                pass
                self._io.write_s4be(int(self.block_type))

            if self.format_version != 0:
                pass
                self.header._write__seq(self._io)

            if self.format_version != 0:
                pass
                self._io.write_s8be(self.len_content)

            if self.format_version != 0:
                pass
                _io__raw_content = KaitaiStream(BytesIO(bytearray(self.len_content)))
                self._io.add_child_stream(_io__raw_content)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self.len_content))
                def handler(parent, _io__raw_content=_io__raw_content):
                    self._raw_content = _io__raw_content.to_byte_array()
                    if len(self._raw_content) != self.len_content:
                        raise kaitaistruct.ConsistencyError(u"raw(content)", self.len_content, len(self._raw_content))
                    parent.write_bytes(self._raw_content)
                _io__raw_content.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self.content._write__seq(_io__raw_content)

            if self.format_version == 0:
                pass
                self._io.write_bytes(self.legacy_content)

            if self.format_version != 0:
                pass
                self.footer._write__seq(self._io)

            if self.format_version != 0:
                pass
                self._io.write_s8be(self.reverse_pointer)



        def _check(self):
            if len(self.magic) != 6:
                raise kaitaistruct.ConsistencyError(u"magic", 6, len(self.magic))
            if not self.magic == b"\x23\x48\x55\x44\x49\x23":
                raise kaitaistruct.ValidationNotEqualError(b"\x23\x48\x55\x44\x49\x23", self.magic, None, u"/types/block/seq/0")
            if not self.len_block >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_block, None, u"/types/block/seq/1")
            if not self.len_block <= 2147483647:
                raise kaitaistruct.ValidationGreaterThanError(2147483647, self.len_block, None, u"/types/block/seq/1")
            if not  ((self.format_version == 0) or (self.format_version == 1)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.format_version, None, u"/types/block/seq/2")
            if self.format_version != 0:
                pass
                if not isinstance(self.block_type, HudiLog.BlockType):
                    raise kaitaistruct.ValidationNotInEnumError(self.block_type, None, u"/types/block/seq/3")

            if self.format_version != 0:
                pass
                if self.header._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"header", self._root, self.header._root)
                if self.header._parent != self:
                    raise kaitaistruct.ConsistencyError(u"header", self, self.header._parent)

            if self.format_version != 0:
                pass
                if not self.len_content >= 0:
                    raise kaitaistruct.ValidationLessThanError(0, self.len_content, None, u"/types/block/seq/5")
                if not self.len_content <= 2147483647:
                    raise kaitaistruct.ValidationGreaterThanError(2147483647, self.len_content, None, u"/types/block/seq/5")

            if self.format_version != 0:
                pass
                if self.content._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"content", self._root, self.content._root)
                if self.content._parent != self:
                    raise kaitaistruct.ConsistencyError(u"content", self, self.content._parent)

            if self.format_version == 0:
                pass
                if len(self.legacy_content) != self.len_legacy_content:
                    raise kaitaistruct.ConsistencyError(u"legacy_content", self.len_legacy_content, len(self.legacy_content))

            if self.format_version != 0:
                pass
                if self.footer._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"footer", self._root, self.footer._root)
                if self.footer._parent != self:
                    raise kaitaistruct.ConsistencyError(u"footer", self, self.footer._parent)

            if self.format_version != 0:
                pass
                _ = self.reverse_pointer
                if not _ == self.len_block + 6:
                    raise kaitaistruct.ValidationExprError(self.reverse_pointer, None, u"/types/block/seq/9")

            self._dirty = False

        @property
        def instant_time(self):
            """The INSTANT_TIME header value ("" when absent)."""
            if hasattr(self, '_m_instant_time'):
                return self._m_instant_time

            self._m_instant_time = (self.header.instant_time if self.format_version != 0 else u"")
            return getattr(self, '_m_instant_time', None)

        def _invalidate_instant_time(self):
            del self._m_instant_time
        @property
        def len_legacy_content(self):
            """Format version 0 has no content length: Hudi's reader takes the block size as the
            content's length (contentLength = blockSize when the version is 0).
            """
            if hasattr(self, '_m_len_legacy_content'):
                return self._m_len_legacy_content

            self._m_len_legacy_content = self.len_block
            return getattr(self, '_m_len_legacy_content', None)

        def _invalidate_len_legacy_content(self):
            del self._m_len_legacy_content
        @property
        def num_records(self):
            """Number of records of an Avro data or CDC block; 0 for other blocks."""
            if hasattr(self, '_m_num_records'):
                return self._m_num_records

            self._m_num_records = (self.content.num_records if  ((self.format_version != 0) and ( ((self.block_type == HudiLog.BlockType.avro_data_block) or (self.block_type == HudiLog.BlockType.cdc_data_block)) ))  else 0)
            return getattr(self, '_m_num_records', None)

        def _invalidate_num_records(self):
            del self._m_num_records

    class BlockContent(ReadWriteKaitaiStruct):
        """A block's content bytes. Their layout (`body`) is parsed on demand, like the gallery's
        sqlite3.ksy pages and mcap.ksy records: the Kaitai Web IDE then opens a log of large delete
        or Avro blocks at once (a block's millions of records become objects only when its body is
        expanded), and a framing scan of a log reads no content. The record count of an Avro data or
        CDC block is read on its own (4 bytes) for the block's one-line representation.
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.BlockContent, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._should_write_body = False
            self.body__enabled = True
            self._should_write_num_records = False
            self.num_records__enabled = True

        def _read(self):
            pass
            self._dirty = False


        def _fetch_instances(self):
            pass
            _ = self.body
            if hasattr(self, '_m_body'):
                pass
                _on = self._parent.block_type
                if _on == HudiLog.BlockType.avro_data_block:
                    pass
                    self._m_body._fetch_instances()
                elif _on == HudiLog.BlockType.cdc_data_block:
                    pass
                    self._m_body._fetch_instances()
                elif _on == HudiLog.BlockType.delete_block:
                    pass
                    self._m_body._fetch_instances()
                elif _on == HudiLog.BlockType.hfile_data_block:
                    pass
                    self._m_body._fetch_instances()
                elif _on == HudiLog.BlockType.parquet_data_block:
                    pass
                    self._m_body._fetch_instances()
                else:
                    pass

            _ = self.num_records
            if hasattr(self, '_m_num_records'):
                pass



        def _write__seq(self, io=None):
            super(HudiLog.BlockContent, self)._write__seq(io)
            self._should_write_body = self.body__enabled
            self._should_write_num_records = self.num_records__enabled


        def _check(self):
            if self.body__enabled:
                pass
                _on = self._parent.block_type
                if _on == HudiLog.BlockType.avro_data_block:
                    pass
                    if self._m_body._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                    if self._m_body._parent != self:
                        raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                elif _on == HudiLog.BlockType.cdc_data_block:
                    pass
                    if self._m_body._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                    if self._m_body._parent != self:
                        raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                elif _on == HudiLog.BlockType.delete_block:
                    pass
                    if self._m_body._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                    if self._m_body._parent != self:
                        raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                elif _on == HudiLog.BlockType.hfile_data_block:
                    pass
                    if self._m_body._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                    if self._m_body._parent != self:
                        raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                elif _on == HudiLog.BlockType.parquet_data_block:
                    pass
                    if self._m_body._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                    if self._m_body._parent != self:
                        raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                else:
                    pass

            if self.num_records__enabled:
                pass
                if  ((self._parent.block_type == HudiLog.BlockType.avro_data_block) or (self._parent.block_type == HudiLog.BlockType.cdc_data_block)) :
                    pass


            self._dirty = False

        @property
        def body(self):
            """The content laid out by the block type; raw bytes for a type without a layout (a
            command block's empty content).
            """
            if self._should_write_body:
                self._write_body()
            if hasattr(self, '_m_body'):
                return self._m_body

            if not self.body__enabled:
                return None

            _pos = self._io.pos()
            self._io.seek(0)
            _on = self._parent.block_type
            if _on == HudiLog.BlockType.avro_data_block:
                pass
                self._raw__m_body = self._io.read_bytes_full()
                _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                self._m_body = HudiLog.AvroDataContent(_io__raw__m_body, self, self._root)
                self._m_body._read()
            elif _on == HudiLog.BlockType.cdc_data_block:
                pass
                self._raw__m_body = self._io.read_bytes_full()
                _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                self._m_body = HudiLog.AvroDataContent(_io__raw__m_body, self, self._root)
                self._m_body._read()
            elif _on == HudiLog.BlockType.delete_block:
                pass
                self._raw__m_body = self._io.read_bytes_full()
                _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                self._m_body = HudiLog.DeleteContent(_io__raw__m_body, self, self._root)
                self._m_body._read()
            elif _on == HudiLog.BlockType.hfile_data_block:
                pass
                self._raw__m_body = self._io.read_bytes_full()
                _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                self._m_body = HudiLog.HfileContent(_io__raw__m_body, self, self._root)
                self._m_body._read()
            elif _on == HudiLog.BlockType.parquet_data_block:
                pass
                self._raw__m_body = self._io.read_bytes_full()
                _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                self._m_body = HudiLog.ParquetContent(_io__raw__m_body, self, self._root)
                self._m_body._read()
            else:
                pass
                self._m_body = self._io.read_bytes_full()
            self._io.seek(_pos)
            return getattr(self, '_m_body', None)

        @body.setter
        def body(self, v):
            self._dirty = True
            self._m_body = v

        def _write_body(self):
            self._should_write_body = False
            _pos = self._io.pos()
            self._io.seek(0)
            _on = self._parent.block_type
            if _on == HudiLog.BlockType.avro_data_block:
                pass
                _io__raw__m_body = KaitaiStream(BytesIO(bytearray(self._io.size() - self._io.pos())))
                self._io.add_child_stream(_io__raw__m_body)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self._io.size() - self._io.pos()))
                def handler(parent, _io__raw__m_body=_io__raw__m_body):
                    self._raw__m_body = _io__raw__m_body.to_byte_array()
                    parent.write_bytes(self._raw__m_body)
                    if not parent.is_eof():
                        raise kaitaistruct.ConsistencyError(u"raw(body)", 0, parent.size() - parent.pos())
                _io__raw__m_body.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_body._write__seq(_io__raw__m_body)
            elif _on == HudiLog.BlockType.cdc_data_block:
                pass
                _io__raw__m_body = KaitaiStream(BytesIO(bytearray(self._io.size() - self._io.pos())))
                self._io.add_child_stream(_io__raw__m_body)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self._io.size() - self._io.pos()))
                def handler(parent, _io__raw__m_body=_io__raw__m_body):
                    self._raw__m_body = _io__raw__m_body.to_byte_array()
                    parent.write_bytes(self._raw__m_body)
                    if not parent.is_eof():
                        raise kaitaistruct.ConsistencyError(u"raw(body)", 0, parent.size() - parent.pos())
                _io__raw__m_body.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_body._write__seq(_io__raw__m_body)
            elif _on == HudiLog.BlockType.delete_block:
                pass
                _io__raw__m_body = KaitaiStream(BytesIO(bytearray(self._io.size() - self._io.pos())))
                self._io.add_child_stream(_io__raw__m_body)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self._io.size() - self._io.pos()))
                def handler(parent, _io__raw__m_body=_io__raw__m_body):
                    self._raw__m_body = _io__raw__m_body.to_byte_array()
                    parent.write_bytes(self._raw__m_body)
                    if not parent.is_eof():
                        raise kaitaistruct.ConsistencyError(u"raw(body)", 0, parent.size() - parent.pos())
                _io__raw__m_body.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_body._write__seq(_io__raw__m_body)
            elif _on == HudiLog.BlockType.hfile_data_block:
                pass
                _io__raw__m_body = KaitaiStream(BytesIO(bytearray(self._io.size() - self._io.pos())))
                self._io.add_child_stream(_io__raw__m_body)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self._io.size() - self._io.pos()))
                def handler(parent, _io__raw__m_body=_io__raw__m_body):
                    self._raw__m_body = _io__raw__m_body.to_byte_array()
                    parent.write_bytes(self._raw__m_body)
                    if not parent.is_eof():
                        raise kaitaistruct.ConsistencyError(u"raw(body)", 0, parent.size() - parent.pos())
                _io__raw__m_body.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_body._write__seq(_io__raw__m_body)
            elif _on == HudiLog.BlockType.parquet_data_block:
                pass
                _io__raw__m_body = KaitaiStream(BytesIO(bytearray(self._io.size() - self._io.pos())))
                self._io.add_child_stream(_io__raw__m_body)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self._io.size() - self._io.pos()))
                def handler(parent, _io__raw__m_body=_io__raw__m_body):
                    self._raw__m_body = _io__raw__m_body.to_byte_array()
                    parent.write_bytes(self._raw__m_body)
                    if not parent.is_eof():
                        raise kaitaistruct.ConsistencyError(u"raw(body)", 0, parent.size() - parent.pos())
                _io__raw__m_body.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_body._write__seq(_io__raw__m_body)
            else:
                pass
                self._io.write_bytes(self._m_body)
                if not self._io.is_eof():
                    raise kaitaistruct.ConsistencyError(u"body", 0, self._io.size() - self._io.pos())
            self._io.seek(_pos)

        @property
        def num_records(self):
            """The record count of an Avro data or CDC block, the same 4 bytes as `body.num_records`,
            read without parsing the records.
            """
            if self._should_write_num_records:
                self._write_num_records()
            if hasattr(self, '_m_num_records'):
                return self._m_num_records

            if not self.num_records__enabled:
                return None

            if  ((self._parent.block_type == HudiLog.BlockType.avro_data_block) or (self._parent.block_type == HudiLog.BlockType.cdc_data_block)) :
                pass
                _pos = self._io.pos()
                self._io.seek(4)
                self._m_num_records = self._io.read_s4be()
                self._io.seek(_pos)

            return getattr(self, '_m_num_records', None)

        @num_records.setter
        def num_records(self, v):
            self._dirty = True
            self._m_num_records = v

        def _write_num_records(self):
            self._should_write_num_records = False
            if  ((self._parent.block_type == HudiLog.BlockType.avro_data_block) or (self._parent.block_type == HudiLog.BlockType.cdc_data_block)) :
                pass
                _pos = self._io.pos()
                self._io.seek(4)
                self._io.write_s4be(self._m_num_records)
                self._io.seek(_pos)



    class DeleteContent(ReadWriteKaitaiStruct):
        """Content of DELETE_BLOCK, the keys (and ordering values) of the deleted records.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieDeleteBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.DeleteContent, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._should_write_records = False
            self.records__enabled = True

        def _read(self):
            self.content_version = self._io.read_s4be()
            if not  ((self.content_version == 1) or (self.content_version == 2) or (self.content_version == 3)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.content_version, self._io, u"/types/delete_content/seq/0")
            self.len_payload = self._io.read_s4be()
            if not self.len_payload >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_payload, self._io, u"/types/delete_content/seq/1")
            self.payload = self._io.read_bytes(self.len_payload)
            self._dirty = False


        def _fetch_instances(self):
            pass
            _ = self.records
            if hasattr(self, '_m_records'):
                pass
                _on = self.content_version
                if _on == 1:
                    pass
                    self._m_records._fetch_instances()
                elif _on == 2:
                    pass
                    self._m_records._fetch_instances()
                elif _on == 3:
                    pass
                    self._m_records._fetch_instances()
                else:
                    pass



        def _write__seq(self, io=None):
            super(HudiLog.DeleteContent, self)._write__seq(io)
            self._should_write_records = self.records__enabled
            self._io.write_s4be(self.content_version)
            self._io.write_s4be(self.len_payload)
            self._io.write_bytes(self.payload)


        def _check(self):
            if not  ((self.content_version == 1) or (self.content_version == 2) or (self.content_version == 3)) :
                raise kaitaistruct.ValidationNotAnyOfError(self.content_version, None, u"/types/delete_content/seq/0")
            if not self.len_payload >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_payload, None, u"/types/delete_content/seq/1")
            if len(self.payload) != self.len_payload:
                raise kaitaistruct.ConsistencyError(u"payload", self.len_payload, len(self.payload))
            if self.records__enabled:
                pass
                _on = self.content_version
                if _on == 1:
                    pass
                    if self._m_records._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"records", self._root, self._m_records._root)
                    if self._m_records._parent != self:
                        raise kaitaistruct.ConsistencyError(u"records", self, self._m_records._parent)
                elif _on == 2:
                    pass
                    if self._m_records._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"records", self._root, self._m_records._root)
                    if self._m_records._parent != self:
                        raise kaitaistruct.ConsistencyError(u"records", self, self._m_records._parent)
                elif _on == 3:
                    pass
                    if self._m_records._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"records", self._root, self._m_records._root)
                    if self._m_records._parent != self:
                        raise kaitaistruct.ConsistencyError(u"records", self, self._m_records._parent)
                else:
                    pass
                    if len(self._m_records) != self.len_payload:
                        raise kaitaistruct.ConsistencyError(u"records", self.len_payload, len(self._m_records))

            self._dirty = False

        @property
        def records(self):
            """The payload laid out by content version, parsed only when asked for: a delete block
            shows its size at once and its records one click further (the Kaitai Web IDE opens and
            expands a block of 250,000 deletes in a small heap; `hudi-log view` pages through them).
            """
            if self._should_write_records:
                self._write_records()
            if hasattr(self, '_m_records'):
                return self._m_records

            if not self.records__enabled:
                return None

            _pos = self._io.pos()
            self._io.seek(8)
            _on = self.content_version
            if _on == 1:
                pass
                self._raw__m_records = self._io.read_bytes(self.len_payload)
                _io__raw__m_records = KaitaiStream(BytesIO(self._raw__m_records))
                self._m_records = HudiLog.KryoObjectArray(_io__raw__m_records, self, self._root)
                self._m_records._read()
            elif _on == 2:
                pass
                self._raw__m_records = self._io.read_bytes(self.len_payload)
                _io__raw__m_records = KaitaiStream(BytesIO(self._raw__m_records))
                self._m_records = HudiLog.KryoObjectArray(_io__raw__m_records, self, self._root)
                self._m_records._read()
            elif _on == 3:
                pass
                self._raw__m_records = self._io.read_bytes(self.len_payload)
                _io__raw__m_records = KaitaiStream(BytesIO(self._raw__m_records))
                self._m_records = HudiLog.DeleteRecordList(_io__raw__m_records, self, self._root)
                self._m_records._read()
            else:
                pass
                self._m_records = self._io.read_bytes(self.len_payload)
            self._io.seek(_pos)
            return getattr(self, '_m_records', None)

        @records.setter
        def records(self, v):
            self._dirty = True
            self._m_records = v

        def _write_records(self):
            self._should_write_records = False
            _pos = self._io.pos()
            self._io.seek(8)
            _on = self.content_version
            if _on == 1:
                pass
                _io__raw__m_records = KaitaiStream(BytesIO(bytearray(self.len_payload)))
                self._io.add_child_stream(_io__raw__m_records)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self.len_payload))
                def handler(parent, _io__raw__m_records=_io__raw__m_records):
                    self._raw__m_records = _io__raw__m_records.to_byte_array()
                    if len(self._raw__m_records) != self.len_payload:
                        raise kaitaistruct.ConsistencyError(u"raw(records)", self.len_payload, len(self._raw__m_records))
                    parent.write_bytes(self._raw__m_records)
                _io__raw__m_records.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_records._write__seq(_io__raw__m_records)
            elif _on == 2:
                pass
                _io__raw__m_records = KaitaiStream(BytesIO(bytearray(self.len_payload)))
                self._io.add_child_stream(_io__raw__m_records)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self.len_payload))
                def handler(parent, _io__raw__m_records=_io__raw__m_records):
                    self._raw__m_records = _io__raw__m_records.to_byte_array()
                    if len(self._raw__m_records) != self.len_payload:
                        raise kaitaistruct.ConsistencyError(u"raw(records)", self.len_payload, len(self._raw__m_records))
                    parent.write_bytes(self._raw__m_records)
                _io__raw__m_records.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_records._write__seq(_io__raw__m_records)
            elif _on == 3:
                pass
                _io__raw__m_records = KaitaiStream(BytesIO(bytearray(self.len_payload)))
                self._io.add_child_stream(_io__raw__m_records)
                _pos2 = self._io.pos()
                self._io.seek(self._io.pos() + (self.len_payload))
                def handler(parent, _io__raw__m_records=_io__raw__m_records):
                    self._raw__m_records = _io__raw__m_records.to_byte_array()
                    if len(self._raw__m_records) != self.len_payload:
                        raise kaitaistruct.ConsistencyError(u"raw(records)", self.len_payload, len(self._raw__m_records))
                    parent.write_bytes(self._raw__m_records)
                _io__raw__m_records.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
                self._m_records._write__seq(_io__raw__m_records)
            else:
                pass
                self._io.write_bytes(self._m_records)
            self._io.seek(_pos)


    class DeleteRecord(ReadWriteKaitaiStruct):
        """One HoodieDeleteRecord {recordKey, partitionPath, orderingVal}."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.DeleteRecord, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.record_key = HudiLog.AvroOptionalString(self._io, self, self._root)
            self.record_key._read()
            self.partition_path = HudiLog.AvroOptionalString(self._io, self, self._root)
            self.partition_path._read()
            self.ordering_value = HudiLog.OrderingValue(False, self._io, self, self._root)
            self.ordering_value._read()
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.record_key._fetch_instances()
            self.partition_path._fetch_instances()
            self.ordering_value._fetch_instances()


        def _write__seq(self, io=None):
            super(HudiLog.DeleteRecord, self)._write__seq(io)
            self.record_key._write__seq(self._io)
            self.partition_path._write__seq(self._io)
            self.ordering_value._write__seq(self._io)


        def _check(self):
            if self.record_key._root != self._root:
                raise kaitaistruct.ConsistencyError(u"record_key", self._root, self.record_key._root)
            if self.record_key._parent != self:
                raise kaitaistruct.ConsistencyError(u"record_key", self, self.record_key._parent)
            if self.partition_path._root != self._root:
                raise kaitaistruct.ConsistencyError(u"partition_path", self._root, self.partition_path._root)
            if self.partition_path._parent != self:
                raise kaitaistruct.ConsistencyError(u"partition_path", self, self.partition_path._parent)
            if self.ordering_value._root != self._root:
                raise kaitaistruct.ConsistencyError(u"ordering_value", self._root, self.ordering_value._root)
            if self.ordering_value._parent != self:
                raise kaitaistruct.ConsistencyError(u"ordering_value", self, self.ordering_value._parent)
            if self.ordering_value.in_array != False:
                raise kaitaistruct.ConsistencyError(u"ordering_value", False, self.ordering_value.in_array)
            self._dirty = False


    class DeleteRecordArrayBlock(ReadWriteKaitaiStruct):
        """One block of an Avro array of HoodieDeleteRecord."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.DeleteRecordArrayBlock, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.num_items = HudiLog.AvroLong(self._io, self, self._root)
            self.num_items._read()
            _ = self.num_items
            if not  ((_.value >= -2147483647) and (_.value <= 2147483647)) :
                raise kaitaistruct.ValidationExprError(self.num_items, self._io, u"/types/delete_record_array_block/seq/0")
            if self.num_items.value < 0:
                pass
                self.len_items = HudiLog.AvroLong(self._io, self, self._root)
                self.len_items._read()

            self.items = []
            for i in range((-(self.num_items.value) if self.num_items.value < 0 else self.num_items.value)):
                _t_items = HudiLog.DeleteRecord(self._io, self, self._root)
                try:
                    _t_items._read()
                finally:
                    self.items.append(_t_items)

            self._dirty = False


        def _fetch_instances(self):
            pass
            self.num_items._fetch_instances()
            if self.num_items.value < 0:
                pass
                self.len_items._fetch_instances()

            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(HudiLog.DeleteRecordArrayBlock, self)._write__seq(io)
            self.num_items._write__seq(self._io)
            if self.num_items.value < 0:
                pass
                self.len_items._write__seq(self._io)

            for i in range(len(self.items)):
                pass
                self.items[i]._write__seq(self._io)



        def _check(self):
            if self.num_items._root != self._root:
                raise kaitaistruct.ConsistencyError(u"num_items", self._root, self.num_items._root)
            if self.num_items._parent != self:
                raise kaitaistruct.ConsistencyError(u"num_items", self, self.num_items._parent)
            _ = self.num_items
            if not  ((_.value >= -2147483647) and (_.value <= 2147483647)) :
                raise kaitaistruct.ValidationExprError(self.num_items, None, u"/types/delete_record_array_block/seq/0")
            if self.num_items.value < 0:
                pass
                if self.len_items._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"len_items", self._root, self.len_items._root)
                if self.len_items._parent != self:
                    raise kaitaistruct.ConsistencyError(u"len_items", self, self.len_items._parent)

            if len(self.items) != (-(self.num_items.value) if self.num_items.value < 0 else self.num_items.value):
                raise kaitaistruct.ConsistencyError(u"items", (-(self.num_items.value) if self.num_items.value < 0 else self.num_items.value), len(self.items))
            for i in range(len(self.items)):
                pass
                if self.items[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"items", self._root, self.items[i]._root)
                if self.items[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"items", self, self.items[i]._parent)

            self._dirty = False


    class DeleteRecordList(ReadWriteKaitaiStruct):
        """Avro binary of org.apache.hudi.avro.model.HoodieDeleteRecordList
        {deleteRecordList: array<HoodieDeleteRecord>}: an Avro array, i.e. blocks of items ended by
        a block whose count is 0.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/avro/HoodieDeleteRecordList.avsc
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.DeleteRecordList, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.array_blocks = []
            i = 0
            while True:
                _t_array_blocks = HudiLog.DeleteRecordArrayBlock(self._io, self, self._root)
                try:
                    _t_array_blocks._read()
                finally:
                    _ = _t_array_blocks
                    self.array_blocks.append(_)
                if _.num_items.value == 0:
                    break
                i += 1
            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.array_blocks)):
                pass
                self.array_blocks[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(HudiLog.DeleteRecordList, self)._write__seq(io)
            for i in range(len(self.array_blocks)):
                pass
                self.array_blocks[i]._write__seq(self._io)



        def _check(self):
            if len(self.array_blocks) == 0:
                raise kaitaistruct.ConsistencyError(u"array_blocks", 0, len(self.array_blocks))
            for i in range(len(self.array_blocks)):
                pass
                if self.array_blocks[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"array_blocks", self._root, self.array_blocks[i]._root)
                if self.array_blocks[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"array_blocks", self, self.array_blocks[i]._parent)
                _ = self.array_blocks[i]
                if (_.num_items.value == 0) != (i == len(self.array_blocks) - 1):
                    raise kaitaistruct.ConsistencyError(u"array_blocks", i == len(self.array_blocks) - 1, _.num_items.value == 0)

            self._dirty = False


    class HfileContent(ReadWriteKaitaiStruct):
        """Content of HFILE_DATA_BLOCK (metadata table): a complete HBase HFile version 3, records
        sorted by key. Blocks (data, index, file info) come first, then a fixed 4096-byte trailer.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieHFileDataBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.HfileContent, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.blocks = self._io.read_bytes(self._io.size() - 4096)
            self._raw_trailer = self._io.read_bytes(4096)
            _io__raw_trailer = KaitaiStream(BytesIO(self._raw_trailer))
            self.trailer = HudiLog.HfileTrailer(_io__raw_trailer, self, self._root)
            self.trailer._read()
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.trailer._fetch_instances()


        def _write__seq(self, io=None):
            super(HudiLog.HfileContent, self)._write__seq(io)
            if len(self.blocks) != self._io.size() - 4096:
                raise kaitaistruct.ConsistencyError(u"blocks", self._io.size() - 4096, len(self.blocks))
            self._io.write_bytes(self.blocks)
            _io__raw_trailer = KaitaiStream(BytesIO(bytearray(4096)))
            self._io.add_child_stream(_io__raw_trailer)
            _pos2 = self._io.pos()
            self._io.seek(self._io.pos() + (4096))
            def handler(parent, _io__raw_trailer=_io__raw_trailer):
                self._raw_trailer = _io__raw_trailer.to_byte_array()
                if len(self._raw_trailer) != 4096:
                    raise kaitaistruct.ConsistencyError(u"raw(trailer)", 4096, len(self._raw_trailer))
                parent.write_bytes(self._raw_trailer)
            _io__raw_trailer.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
            self.trailer._write__seq(_io__raw_trailer)


        def _check(self):
            if self.trailer._root != self._root:
                raise kaitaistruct.ConsistencyError(u"trailer", self._root, self.trailer._root)
            if self.trailer._parent != self:
                raise kaitaistruct.ConsistencyError(u"trailer", self, self.trailer._parent)
            self._dirty = False


    class HfileTrailer(ReadWriteKaitaiStruct):
        """HFile v3 fixed trailer; its fields are a protobuf (FileTrailerProto) after the magic."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.HfileTrailer, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.magic = self._io.read_bytes(8)
            if not self.magic == b"\x54\x52\x41\x42\x4C\x4B\x22\x24":
                raise kaitaistruct.ValidationNotEqualError(b"\x54\x52\x41\x42\x4C\x4B\x22\x24", self.magic, self._io, u"/types/hfile_trailer/seq/0")
            self.body = self._io.read_bytes((4096 - 8) - 4)
            self.version = self._io.read_u4be()
            _ = self.version
            if not _ % 16777216 == 3:
                raise kaitaistruct.ValidationExprError(self.version, self._io, u"/types/hfile_trailer/seq/2")
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(HudiLog.HfileTrailer, self)._write__seq(io)
            self._io.write_bytes(self.magic)
            self._io.write_bytes(self.body)
            self._io.write_u4be(self.version)


        def _check(self):
            if len(self.magic) != 8:
                raise kaitaistruct.ConsistencyError(u"magic", 8, len(self.magic))
            if not self.magic == b"\x54\x52\x41\x42\x4C\x4B\x22\x24":
                raise kaitaistruct.ValidationNotEqualError(b"\x54\x52\x41\x42\x4C\x4B\x22\x24", self.magic, None, u"/types/hfile_trailer/seq/0")
            if len(self.body) != (4096 - 8) - 4:
                raise kaitaistruct.ConsistencyError(u"body", (4096 - 8) - 4, len(self.body))
            _ = self.version
            if not _ % 16777216 == 3:
                raise kaitaistruct.ValidationExprError(self.version, None, u"/types/hfile_trailer/seq/2")
            self._dirty = False

        @property
        def major_version(self):
            """HFile major version (3)."""
            if hasattr(self, '_m_major_version'):
                return self._m_major_version

            self._m_major_version = self.version % 16777216
            return getattr(self, '_m_major_version', None)

        def _invalidate_major_version(self):
            del self._m_major_version
        @property
        def minor_version(self):
            """HFile minor version (0 for Hudi's native writer, 3 with CRC32C checksums)."""
            if hasattr(self, '_m_minor_version'):
                return self._m_minor_version

            self._m_minor_version = self.version // 16777216
            return getattr(self, '_m_minor_version', None)

        def _invalidate_minor_version(self):
            del self._m_minor_version

    class KryoObjectArray(ReadWriteKaitaiStruct):
        """A delete payload of content version 1 or 2: Kryo 4's writeClassAndObject of a Java
        HoodieKey[] (1) or DeleteRecord[] (2), as Hudi's SerializationUtils wrote it (registration
        not required, references on). The grammar describes the array's own start; its elements
        cannot be described here, because Kryo writes a class name only where it first occurs in
        the stream and refers back to strings and objects already written by their order of
        appearance. Each element is: class (1 = by name, then the name's id, then the name the first
        time), a reference marker (1 = new object, 0 = null, n = object n - 2), then the fields in
        name order (HoodieKey: partitionPath, recordKey as reference marker + Kryo string;
        DeleteRecord: hoodieKey as class + HoodieKey, orderingVal as class + value). hudi-log's
        reader (hudi_log/format/content/deletes_kryo.py) decodes them.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-0.13.1/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieDeleteBlock.java
        
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-0.13.1/hudi-common/src/main/java/org/apache/hudi/common/util/SerializationUtils.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.KryoObjectArray, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.class_tag = HudiLog.KryoVarint(self._io, self, self._root)
            self.class_tag._read()
            _ = self.class_tag
            if not _.value == 1:
                raise kaitaistruct.ValidationExprError(self.class_tag, self._io, u"/types/kryo_object_array/seq/0")
            self.class_name_id = HudiLog.KryoVarint(self._io, self, self._root)
            self.class_name_id._read()
            _ = self.class_name_id
            if not _.value == 0:
                raise kaitaistruct.ValidationExprError(self.class_name_id, self._io, u"/types/kryo_object_array/seq/1")
            self.class_name = (self._io.read_bytes_term(187, False, True, True)).decode(u"ASCII")
            _ = self.class_name
            if not _ == (u"[Lorg.apache.hudi.common.model.HoodieKey" if self._parent.content_version == 1 else u"[Lorg.apache.hudi.common.model.DeleteRecord"):
                raise kaitaistruct.ValidationExprError(self.class_name, self._io, u"/types/kryo_object_array/seq/2")
            self.reference = HudiLog.KryoVarint(self._io, self, self._root)
            self.reference._read()
            _ = self.reference
            if not _.value == 1:
                raise kaitaistruct.ValidationExprError(self.reference, self._io, u"/types/kryo_object_array/seq/3")
            self.num_elements_plus_one = HudiLog.KryoVarint(self._io, self, self._root)
            self.num_elements_plus_one._read()
            _ = self.num_elements_plus_one
            if not _.value >= 1:
                raise kaitaistruct.ValidationExprError(self.num_elements_plus_one, self._io, u"/types/kryo_object_array/seq/4")
            self.elements = self._io.read_bytes_full()
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.class_tag._fetch_instances()
            self.class_name_id._fetch_instances()
            self.reference._fetch_instances()
            self.num_elements_plus_one._fetch_instances()


        def _write__seq(self, io=None):
            super(HudiLog.KryoObjectArray, self)._write__seq(io)
            self.class_tag._write__seq(self._io)
            self.class_name_id._write__seq(self._io)
            self._io.write_bytes((self.class_name).encode(u"ASCII"))
            self._io.write_u1(187)
            self.reference._write__seq(self._io)
            self.num_elements_plus_one._write__seq(self._io)
            self._io.write_bytes(self.elements)
            if not self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"elements", 0, self._io.size() - self._io.pos())


        def _check(self):
            if self.class_tag._root != self._root:
                raise kaitaistruct.ConsistencyError(u"class_tag", self._root, self.class_tag._root)
            if self.class_tag._parent != self:
                raise kaitaistruct.ConsistencyError(u"class_tag", self, self.class_tag._parent)
            _ = self.class_tag
            if not _.value == 1:
                raise kaitaistruct.ValidationExprError(self.class_tag, None, u"/types/kryo_object_array/seq/0")
            if self.class_name_id._root != self._root:
                raise kaitaistruct.ConsistencyError(u"class_name_id", self._root, self.class_name_id._root)
            if self.class_name_id._parent != self:
                raise kaitaistruct.ConsistencyError(u"class_name_id", self, self.class_name_id._parent)
            _ = self.class_name_id
            if not _.value == 0:
                raise kaitaistruct.ValidationExprError(self.class_name_id, None, u"/types/kryo_object_array/seq/1")
            if KaitaiStream.byte_array_index_of((self.class_name).encode(u"ASCII"), 187) != -1:
                raise kaitaistruct.ConsistencyError(u"class_name", -1, KaitaiStream.byte_array_index_of((self.class_name).encode(u"ASCII"), 187))
            _ = self.class_name
            if not _ == (u"[Lorg.apache.hudi.common.model.HoodieKey" if self._parent.content_version == 1 else u"[Lorg.apache.hudi.common.model.DeleteRecord"):
                raise kaitaistruct.ValidationExprError(self.class_name, None, u"/types/kryo_object_array/seq/2")
            if self.reference._root != self._root:
                raise kaitaistruct.ConsistencyError(u"reference", self._root, self.reference._root)
            if self.reference._parent != self:
                raise kaitaistruct.ConsistencyError(u"reference", self, self.reference._parent)
            _ = self.reference
            if not _.value == 1:
                raise kaitaistruct.ValidationExprError(self.reference, None, u"/types/kryo_object_array/seq/3")
            if self.num_elements_plus_one._root != self._root:
                raise kaitaistruct.ConsistencyError(u"num_elements_plus_one", self._root, self.num_elements_plus_one._root)
            if self.num_elements_plus_one._parent != self:
                raise kaitaistruct.ConsistencyError(u"num_elements_plus_one", self, self.num_elements_plus_one._parent)
            _ = self.num_elements_plus_one
            if not _.value >= 1:
                raise kaitaistruct.ValidationExprError(self.num_elements_plus_one, None, u"/types/kryo_object_array/seq/4")
            self._dirty = False

        @property
        def num_elements(self):
            """Number of elements (deleted keys)."""
            if hasattr(self, '_m_num_elements'):
                return self._m_num_elements

            self._m_num_elements = self.num_elements_plus_one.value - 1
            return getattr(self, '_m_num_elements', None)

        def _invalidate_num_elements(self):
            del self._m_num_elements

    class KryoVarint(ReadWriteKaitaiStruct):
        """A Kryo positive varint (Output.writeVarInt(value, true)): 7 bits a byte, least significant
        group first, the high bit set when more bytes follow; at most 5 bytes.
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.KryoVarint, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.groups = []
            i = 0
            while True:
                _ = self._io.read_u1()
                self.groups.append(_)
                _ = self.groups[i]
                if not len(self.groups) <= 5:
                    raise kaitaistruct.ValidationExprError(self.groups[i], self._io, u"/types/kryo_varint/seq/0")
                if _ < 128:
                    break
                i += 1
            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.groups)):
                pass



        def _write__seq(self, io=None):
            super(HudiLog.KryoVarint, self)._write__seq(io)
            for i in range(len(self.groups)):
                pass
                self._io.write_u1(self.groups[i])



        def _check(self):
            if len(self.groups) == 0:
                raise kaitaistruct.ConsistencyError(u"groups", 0, len(self.groups))
            for i in range(len(self.groups)):
                pass
                _ = self.groups[i]
                if not len(self.groups) <= 5:
                    raise kaitaistruct.ValidationExprError(self.groups[i], None, u"/types/kryo_varint/seq/0")
                _ = self.groups[i]
                if (_ < 128) != (i == len(self.groups) - 1):
                    raise kaitaistruct.ConsistencyError(u"groups", i == len(self.groups) - 1, _ < 128)

            self._dirty = False

        @property
        def value(self):
            """The value."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = (((self.groups[0] % 128 + ((self.groups[1] % 128) * 128 if len(self.groups) > 1 else 0)) + ((self.groups[2] % 128) * 16384 if len(self.groups) > 2 else 0)) + ((self.groups[3] % 128) * 2097152 if len(self.groups) > 3 else 0)) + ((self.groups[4] % 128) * 268435456 if len(self.groups) > 4 else 0)
            return getattr(self, '_m_value', None)

        def _invalidate_value(self):
            del self._m_value

    class MetadataEntry(ReadWriteKaitaiStruct):
        """One metadata entry; the value is text, UTF-8 encoded (Java's String.getBytes on write,
        `new String(bytes)` on read).
        
        The value is kept as bytes: Kaitai's engines decode invalid UTF-8 differently (the Python
        runtime raises, the JavaScript runtime substitutes U+FFFD as Java does), and bytes are what
        both read alike. `text` is the decoded view; hudi-log's reader reports a value that is not
        UTF-8 as a damaged block rather than rewrite it.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.MetadataEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.key = KaitaiStream.resolve_enum(HudiLog.HeaderKey, self._io.read_s4be())
            if not isinstance(self.key, HudiLog.HeaderKey):
                raise kaitaistruct.ValidationNotInEnumError(self.key, self._io, u"/types/metadata_entry/seq/0")
            self.len_value = self._io.read_s4be()
            if not self.len_value >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_value, self._io, u"/types/metadata_entry/seq/1")
            self.value = self._io.read_bytes(self.len_value)
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(HudiLog.MetadataEntry, self)._write__seq(io)
            self._io.write_s4be(int(self.key))
            self._io.write_s4be(self.len_value)
            self._io.write_bytes(self.value)


        def _check(self):
            if not isinstance(self.key, HudiLog.HeaderKey):
                raise kaitaistruct.ValidationNotInEnumError(self.key, None, u"/types/metadata_entry/seq/0")
            if not self.len_value >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_value, None, u"/types/metadata_entry/seq/1")
            if len(self.value) != self.len_value:
                raise kaitaistruct.ConsistencyError(u"value", self.len_value, len(self.value))
            self._dirty = False

        @property
        def command_block_type(self):
            """For the COMMAND_BLOCK_TYPE entry, its decimal value as the command it names."""
            if hasattr(self, '_m_command_block_type'):
                return self._m_command_block_type

            if self.key == HudiLog.HeaderKey.command_block_type:
                pass
                self._m_command_block_type = KaitaiStream.resolve_enum(HudiLog.CommandBlockType, int(self.text))

            return getattr(self, '_m_command_block_type', None)

        def _invalidate_command_block_type(self):
            del self._m_command_block_type
        @property
        def text(self):
            """The value as text (valid UTF-8 only; see the type's doc)."""
            if hasattr(self, '_m_text'):
                return self._m_text

            self._m_text = (self.value).decode(u"UTF-8")
            return getattr(self, '_m_text', None)

        def _invalidate_text(self):
            del self._m_text

    class MetadataMap(ReadWriteKaitaiStruct):
        """Header or footer metadata: a count, then that many (key, value) entries. Entries keep the
        order found in the file: Hudi iterates a Java HashMap, so the order differs between writers.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.MetadataMap, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.num_entries = self._io.read_s4be()
            if not self.num_entries >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.num_entries, self._io, u"/types/metadata_map/seq/0")
            self.entries = []
            for i in range(self.num_entries):
                _t_entries = HudiLog.MetadataEntry(self._io, self, self._root)
                try:
                    _t_entries._read()
                finally:
                    self.entries.append(_t_entries)

            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.entries)):
                pass
                self.entries[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(HudiLog.MetadataMap, self)._write__seq(io)
            self._io.write_s4be(self.num_entries)
            for i in range(len(self.entries)):
                pass
                self.entries[i]._write__seq(self._io)



        def _check(self):
            if not self.num_entries >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.num_entries, None, u"/types/metadata_map/seq/0")
            if len(self.entries) != self.num_entries:
                raise kaitaistruct.ConsistencyError(u"entries", self.num_entries, len(self.entries))
            for i in range(len(self.entries)):
                pass
                if self.entries[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"entries", self._root, self.entries[i]._root)
                if self.entries[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"entries", self, self.entries[i]._parent)

            self._dirty = False

        @property
        def instant_time(self):
            """The value of the INSTANT_TIME entry, or "" when there is none."""
            if hasattr(self, '_m_instant_time'):
                return self._m_instant_time

            self._m_instant_time = (self.entries[0].text if  ((self.num_entries > 0) and (self.entries[0].key == HudiLog.HeaderKey.instant_time))  else (self.entries[1].text if  ((self.num_entries > 1) and (self.entries[1].key == HudiLog.HeaderKey.instant_time))  else (self.entries[2].text if  ((self.num_entries > 2) and (self.entries[2].key == HudiLog.HeaderKey.instant_time))  else (self.entries[3].text if  ((self.num_entries > 3) and (self.entries[3].key == HudiLog.HeaderKey.instant_time))  else (self.entries[4].text if  ((self.num_entries > 4) and (self.entries[4].key == HudiLog.HeaderKey.instant_time))  else (self.entries[5].text if  ((self.num_entries > 5) and (self.entries[5].key == HudiLog.HeaderKey.instant_time))  else (self.entries[6].text if  ((self.num_entries > 6) and (self.entries[6].key == HudiLog.HeaderKey.instant_time))  else (self.entries[7].text if  ((self.num_entries > 7) and (self.entries[7].key == HudiLog.HeaderKey.instant_time))  else (self.entries[8].text if  ((self.num_entries > 8) and (self.entries[8].key == HudiLog.HeaderKey.instant_time))  else u"")))))))))
            return getattr(self, '_m_instant_time', None)

        def _invalidate_instant_time(self):
            del self._m_instant_time

    class OrderingValue(ReadWriteKaitaiStruct):
        """Union [null, BooleanWrapper, IntWrapper, LongWrapper, FloatWrapper, DoubleWrapper,
        BytesWrapper, StringWrapper, DateWrapper, DecimalWrapper, TimeMicrosWrapper,
        TimestampMicrosWrapper, ArrayWrapper]. Each wrapper is a record with the single field
        `value`, so it encodes as that value alone. Deletes without an ordering value carry
        IntWrapper(0). Inside an ArrayWrapper the union is the same except that branch 12 is
        LocalDateWrapper (an int), so arrays do not nest.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.1.0/hudi-common/src/main/avro/HoodieMetadata.avsc
        """
        def __init__(self, in_array, _io=None, _parent=None, _root=None):
            super(HudiLog.OrderingValue, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.in_array = in_array

        def _read(self):
            self.branch = HudiLog.AvroLong(self._io, self, self._root)
            self.branch._read()
            _ = self.branch
            if not  ((_.value >= 0) and (_.value <= 12)) :
                raise kaitaistruct.ValidationExprError(self.branch, self._io, u"/types/ordering_value/seq/0")
            if self.branch.value != 0:
                pass
                _on = self.kind
                if _on == HudiLog.OrderingKind.array:
                    pass
                    self.value = HudiLog.ArrayWrapper(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.boolean:
                    pass
                    self.value = self._io.read_u1()
                elif _on == HudiLog.OrderingKind.bytes:
                    pass
                    self.value = HudiLog.AvroBytes(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.date:
                    pass
                    self.value = HudiLog.AvroLong(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.decimal:
                    pass
                    self.value = HudiLog.AvroBytes(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.double:
                    pass
                    self.value = self._io.read_f8le()
                elif _on == HudiLog.OrderingKind.float:
                    pass
                    self.value = self._io.read_f4le()
                elif _on == HudiLog.OrderingKind.int:
                    pass
                    self.value = HudiLog.AvroLong(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.local_date:
                    pass
                    self.value = HudiLog.AvroLong(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.long:
                    pass
                    self.value = HudiLog.AvroLong(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.string:
                    pass
                    self.value = HudiLog.AvroBytes(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.time_micros:
                    pass
                    self.value = HudiLog.AvroLong(self._io, self, self._root)
                    self.value._read()
                elif _on == HudiLog.OrderingKind.timestamp_micros:
                    pass
                    self.value = HudiLog.AvroLong(self._io, self, self._root)
                    self.value._read()

            self._dirty = False


        def _fetch_instances(self):
            pass
            self.branch._fetch_instances()
            if self.branch.value != 0:
                pass
                _on = self.kind
                if _on == HudiLog.OrderingKind.array:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.boolean:
                    pass
                elif _on == HudiLog.OrderingKind.bytes:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.date:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.decimal:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.double:
                    pass
                elif _on == HudiLog.OrderingKind.float:
                    pass
                elif _on == HudiLog.OrderingKind.int:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.local_date:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.long:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.string:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.time_micros:
                    pass
                    self.value._fetch_instances()
                elif _on == HudiLog.OrderingKind.timestamp_micros:
                    pass
                    self.value._fetch_instances()



        def _write__seq(self, io=None):
            super(HudiLog.OrderingValue, self)._write__seq(io)
            self.branch._write__seq(self._io)
            if self.branch.value != 0:
                pass
                _on = self.kind
                if _on == HudiLog.OrderingKind.array:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.boolean:
                    pass
                    self._io.write_u1(self.value)
                elif _on == HudiLog.OrderingKind.bytes:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.date:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.decimal:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.double:
                    pass
                    self._io.write_f8le(self.value)
                elif _on == HudiLog.OrderingKind.float:
                    pass
                    self._io.write_f4le(self.value)
                elif _on == HudiLog.OrderingKind.int:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.local_date:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.long:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.string:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.time_micros:
                    pass
                    self.value._write__seq(self._io)
                elif _on == HudiLog.OrderingKind.timestamp_micros:
                    pass
                    self.value._write__seq(self._io)



        def _check(self):
            if self.branch._root != self._root:
                raise kaitaistruct.ConsistencyError(u"branch", self._root, self.branch._root)
            if self.branch._parent != self:
                raise kaitaistruct.ConsistencyError(u"branch", self, self.branch._parent)
            _ = self.branch
            if not  ((_.value >= 0) and (_.value <= 12)) :
                raise kaitaistruct.ValidationExprError(self.branch, None, u"/types/ordering_value/seq/0")
            if self.branch.value != 0:
                pass
                _on = self.kind
                if _on == HudiLog.OrderingKind.array:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.boolean:
                    pass
                elif _on == HudiLog.OrderingKind.bytes:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.date:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.decimal:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.double:
                    pass
                elif _on == HudiLog.OrderingKind.float:
                    pass
                elif _on == HudiLog.OrderingKind.int:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.local_date:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.long:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.string:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.time_micros:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
                elif _on == HudiLog.OrderingKind.timestamp_micros:
                    pass
                    if self.value._root != self._root:
                        raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                    if self.value._parent != self:
                        raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)

            self._dirty = False

        @property
        def kind(self):
            """The wrapper type, named."""
            if hasattr(self, '_m_kind'):
                return self._m_kind

            self._m_kind = KaitaiStream.resolve_enum(HudiLog.OrderingKind, (13 if  ((self.in_array) and (self.branch.value == 12))  else self.branch.value))
            return getattr(self, '_m_kind', None)

        def _invalidate_kind(self):
            del self._m_kind

    class OrderingValueArrayBlock(ReadWriteKaitaiStruct):
        """One block of an Avro array of ordering values."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.OrderingValueArrayBlock, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.num_items = HudiLog.AvroLong(self._io, self, self._root)
            self.num_items._read()
            _ = self.num_items
            if not  ((_.value >= -2147483647) and (_.value <= 2147483647)) :
                raise kaitaistruct.ValidationExprError(self.num_items, self._io, u"/types/ordering_value_array_block/seq/0")
            if self.num_items.value < 0:
                pass
                self.len_items = HudiLog.AvroLong(self._io, self, self._root)
                self.len_items._read()

            self.items = []
            for i in range((-(self.num_items.value) if self.num_items.value < 0 else self.num_items.value)):
                _t_items = HudiLog.OrderingValue(True, self._io, self, self._root)
                try:
                    _t_items._read()
                finally:
                    self.items.append(_t_items)

            self._dirty = False


        def _fetch_instances(self):
            pass
            self.num_items._fetch_instances()
            if self.num_items.value < 0:
                pass
                self.len_items._fetch_instances()

            for i in range(len(self.items)):
                pass
                self.items[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(HudiLog.OrderingValueArrayBlock, self)._write__seq(io)
            self.num_items._write__seq(self._io)
            if self.num_items.value < 0:
                pass
                self.len_items._write__seq(self._io)

            for i in range(len(self.items)):
                pass
                self.items[i]._write__seq(self._io)



        def _check(self):
            if self.num_items._root != self._root:
                raise kaitaistruct.ConsistencyError(u"num_items", self._root, self.num_items._root)
            if self.num_items._parent != self:
                raise kaitaistruct.ConsistencyError(u"num_items", self, self.num_items._parent)
            _ = self.num_items
            if not  ((_.value >= -2147483647) and (_.value <= 2147483647)) :
                raise kaitaistruct.ValidationExprError(self.num_items, None, u"/types/ordering_value_array_block/seq/0")
            if self.num_items.value < 0:
                pass
                if self.len_items._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"len_items", self._root, self.len_items._root)
                if self.len_items._parent != self:
                    raise kaitaistruct.ConsistencyError(u"len_items", self, self.len_items._parent)

            if len(self.items) != (-(self.num_items.value) if self.num_items.value < 0 else self.num_items.value):
                raise kaitaistruct.ConsistencyError(u"items", (-(self.num_items.value) if self.num_items.value < 0 else self.num_items.value), len(self.items))
            for i in range(len(self.items)):
                pass
                if self.items[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"items", self._root, self.items[i]._root)
                if self.items[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"items", self, self.items[i]._parent)
                if self.items[i].in_array != True:
                    raise kaitaistruct.ConsistencyError(u"items", True, self.items[i].in_array)

            self._dirty = False


    class ParquetContent(ReadWriteKaitaiStruct):
        """Content of PARQUET_DATA_BLOCK: a complete Parquet file (written with the SCHEMA header as
        writer schema, codec from hoodie.parquet.compression.codec). Readers open it in place.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieParquetDataBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(HudiLog.ParquetContent, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.magic = self._io.read_bytes(4)
            if not self.magic == b"\x50\x41\x52\x31":
                raise kaitaistruct.ValidationNotEqualError(b"\x50\x41\x52\x31", self.magic, self._io, u"/types/parquet_content/seq/0")
            self.body = self._io.read_bytes(self._io.size() - 12)
            self.len_footer = self._io.read_u4le()
            self.end_magic = self._io.read_bytes(4)
            if not self.end_magic == b"\x50\x41\x52\x31":
                raise kaitaistruct.ValidationNotEqualError(b"\x50\x41\x52\x31", self.end_magic, self._io, u"/types/parquet_content/seq/3")
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(HudiLog.ParquetContent, self)._write__seq(io)
            self._io.write_bytes(self.magic)
            if len(self.body) != self._io.size() - 12:
                raise kaitaistruct.ConsistencyError(u"body", self._io.size() - 12, len(self.body))
            self._io.write_bytes(self.body)
            self._io.write_u4le(self.len_footer)
            self._io.write_bytes(self.end_magic)


        def _check(self):
            if len(self.magic) != 4:
                raise kaitaistruct.ConsistencyError(u"magic", 4, len(self.magic))
            if not self.magic == b"\x50\x41\x52\x31":
                raise kaitaistruct.ValidationNotEqualError(b"\x50\x41\x52\x31", self.magic, None, u"/types/parquet_content/seq/0")
            if len(self.end_magic) != 4:
                raise kaitaistruct.ConsistencyError(u"end_magic", 4, len(self.end_magic))
            if not self.end_magic == b"\x50\x41\x52\x31":
                raise kaitaistruct.ValidationNotEqualError(b"\x50\x41\x52\x31", self.end_magic, None, u"/types/parquet_content/seq/3")
            self._dirty = False



