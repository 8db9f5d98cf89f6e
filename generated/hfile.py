# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import ReadWriteKaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Hfile(ReadWriteKaitaiStruct):
    """The sorted key/value file of Apache HBase, version 3, as Apache Hudi writes it for its metadata
    table: every base file (`*.hfile`) of `.hoodie/metadata/<partition>/` and the content of every
    HFILE_DATA_BLOCK of its log files. Hudi 0.x and 1.0 write it through HBase's writer (trailer
    minor version 3, CRC32C checksums); Hudi 1.1 through its own (hudi-io HFileWriterImpl: minor
    version 0, checksum type NULL with zero checksum bytes).
    
    Layout: blocks, one after another from offset 0 (scanned section: data blocks; then meta blocks
    such as the key bloom filter; then the load-on-open section: root data index, meta index, file
    info), then a fixed 4096-byte trailer whose protobuf gives the offsets of the sections.
    Integers are big-endian.
    
    Every block has a 33-byte header (checksummed format) and is compressed with the file's codec
    (the trailer's `compression_codec`; Hudi uses GZ, one gzip member per block). A block's
    uncompressed payload is laid out by its magic (`data_block_body`, `index_body`,
    `file_info_body`); for blocks of an uncompressed file it is parsed in place (`payload.body`),
    otherwise hudi-log inflates `payload.data` and parses it with the same types.
    
    .. seealso::
       Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileWriterImpl.java
    
    
    .. seealso::
       Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileReaderImpl.java
    
    
    .. seealso::
       Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileBlock.java
    
    
    .. seealso::
       Source - https://github.com/apache/hbase/blob/rel/2.4.9/hbase-server/src/main/java/org/apache/hadoop/hbase/io/hfile/HFileWriterImpl.java
    """

    class BlockType(IntEnum):
        data = 0
        encoded_data = 1
        leaf_index = 2
        bloom_chunk = 3
        meta = 4
        intermediate_index = 5
        root_index = 6
        file_info = 7
        general_bloom_meta = 8
        delete_family_bloom_meta = 9

    class ChecksumType(IntEnum):
        null = 0
        crc32 = 1
        crc32c = 2

    class CompressionCodec(IntEnum):
        lzo = 0
        gz = 1
        none = 2
        snappy = 3
        lz4 = 4
        bzip2 = 5
        zstd = 6

    class KeyType(IntEnum):
        minimum = 0
        put = 4
        delete = 8
        delete_family_version = 10
        delete_column = 12
        delete_family = 14
        maximum = 255

    class TrailerField(IntEnum):
        file_info_offset = 1
        load_on_open_data_offset = 2
        uncompressed_data_index_size = 3
        total_uncompressed_bytes = 4
        data_index_count = 5
        meta_index_count = 6
        entry_count = 7
        num_data_index_levels = 8
        first_data_block_offset = 9
        last_data_block_offset = 10
        comparator_class_name = 11
        compression_codec = 12
        encryption_key = 13

    class WireType(IntEnum):
        varint = 0
        fixed64 = 1
        len_delimited = 2
        fixed32 = 5
    def __init__(self, _io=None, _parent=None, _root=None):
        super(Hfile, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self

    def _read(self):
        self._raw_section = self._io.read_bytes(self._io.size() - 4096)
        _io__raw_section = KaitaiStream(BytesIO(self._raw_section))
        self.section = Hfile.BlockSection(_io__raw_section, self, self._root)
        self.section._read()
        self._raw_trailer = self._io.read_bytes(4096)
        _io__raw_trailer = KaitaiStream(BytesIO(self._raw_trailer))
        self.trailer = Hfile.Trailer(_io__raw_trailer, self, self._root)
        self.trailer._read()
        self._dirty = False


    def _fetch_instances(self):
        pass
        self.section._fetch_instances()
        self.trailer._fetch_instances()


    def _write__seq(self, io=None):
        super(Hfile, self)._write__seq(io)
        _io__raw_section = KaitaiStream(BytesIO(bytearray(self._io.size() - 4096)))
        self._io.add_child_stream(_io__raw_section)
        _pos2 = self._io.pos()
        self._io.seek(self._io.pos() + (self._io.size() - 4096))
        def handler(parent, _io__raw_section=_io__raw_section):
            self._raw_section = _io__raw_section.to_byte_array()
            if len(self._raw_section) != self._io.size() - 4096:
                raise kaitaistruct.ConsistencyError(u"raw(section)", self._io.size() - 4096, len(self._raw_section))
            parent.write_bytes(self._raw_section)
        _io__raw_section.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
        self.section._write__seq(_io__raw_section)
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
        if self.section._root != self._root:
            raise kaitaistruct.ConsistencyError(u"section", self._root, self.section._root)
        if self.section._parent != self:
            raise kaitaistruct.ConsistencyError(u"section", self, self.section._parent)
        if self.trailer._root != self._root:
            raise kaitaistruct.ConsistencyError(u"trailer", self._root, self.trailer._root)
        if self.trailer._parent != self:
            raise kaitaistruct.ConsistencyError(u"trailer", self, self.trailer._parent)
        self._dirty = False

    class Block(ReadWriteKaitaiStruct):
        """One block: a 33-byte header, the payload (compressed with the file's codec), then the
        checksums of header and payload, 4 bytes per `bytes_per_checksum` chunk. The block takes
        33 + len_on_disk_without_header bytes.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.Block, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.magic = (self._io.read_bytes(8)).decode(u"ASCII")
            if not  ((self.magic == u"DATABLK*") or (self.magic == u"DATABLKE") or (self.magic == u"IDXLEAF2") or (self.magic == u"BLMFBLK2") or (self.magic == u"METABLKc") or (self.magic == u"IDXINTE2") or (self.magic == u"IDXROOT2") or (self.magic == u"FILEINF2") or (self.magic == u"BLMFMET2") or (self.magic == u"DFBLMET2")) :
                raise kaitaistruct.ValidationNotAnyOfError(self.magic, self._io, u"/types/block/seq/0")
            self.len_on_disk_without_header = self._io.read_s4be()
            if not self.len_on_disk_without_header >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_on_disk_without_header, self._io, u"/types/block/seq/1")
            self.len_uncompressed_without_header = self._io.read_s4be()
            if not self.len_uncompressed_without_header >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_uncompressed_without_header, self._io, u"/types/block/seq/2")
            self.prev_block_offset = self._io.read_s8be()
            self.checksum_type = KaitaiStream.resolve_enum(Hfile.ChecksumType, self._io.read_u1())
            if not isinstance(self.checksum_type, Hfile.ChecksumType):
                raise kaitaistruct.ValidationNotInEnumError(self.checksum_type, self._io, u"/types/block/seq/4")
            self.bytes_per_checksum = self._io.read_s4be()
            if not self.bytes_per_checksum >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.bytes_per_checksum, self._io, u"/types/block/seq/5")
            self.len_on_disk_data_with_header = self._io.read_s4be()
            if not self.len_on_disk_data_with_header >= 33:
                raise kaitaistruct.ValidationLessThanError(33, self.len_on_disk_data_with_header, self._io, u"/types/block/seq/6")
            if not self.len_on_disk_data_with_header <= self.len_on_disk_without_header + 33:
                raise kaitaistruct.ValidationGreaterThanError(self.len_on_disk_without_header + 33, self.len_on_disk_data_with_header, self._io, u"/types/block/seq/6")
            self._raw_payload = self._io.read_bytes(self.len_on_disk_data_with_header - 33)
            _io__raw_payload = KaitaiStream(BytesIO(self._raw_payload))
            self.payload = Hfile.BlockPayload(_io__raw_payload, self, self._root)
            self.payload._read()
            self.checksums = self._io.read_bytes((self.len_on_disk_without_header + 33) - self.len_on_disk_data_with_header)
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.payload._fetch_instances()


        def _write__seq(self, io=None):
            super(Hfile.Block, self)._write__seq(io)
            self._io.write_bytes((self.magic).encode(u"ASCII"))
            self._io.write_s4be(self.len_on_disk_without_header)
            self._io.write_s4be(self.len_uncompressed_without_header)
            self._io.write_s8be(self.prev_block_offset)
            self._io.write_u1(int(self.checksum_type))
            self._io.write_s4be(self.bytes_per_checksum)
            self._io.write_s4be(self.len_on_disk_data_with_header)
            _io__raw_payload = KaitaiStream(BytesIO(bytearray(self.len_on_disk_data_with_header - 33)))
            self._io.add_child_stream(_io__raw_payload)
            _pos2 = self._io.pos()
            self._io.seek(self._io.pos() + (self.len_on_disk_data_with_header - 33))
            def handler(parent, _io__raw_payload=_io__raw_payload):
                self._raw_payload = _io__raw_payload.to_byte_array()
                if len(self._raw_payload) != self.len_on_disk_data_with_header - 33:
                    raise kaitaistruct.ConsistencyError(u"raw(payload)", self.len_on_disk_data_with_header - 33, len(self._raw_payload))
                parent.write_bytes(self._raw_payload)
            _io__raw_payload.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
            self.payload._write__seq(_io__raw_payload)
            self._io.write_bytes(self.checksums)


        def _check(self):
            if len((self.magic).encode(u"ASCII")) != 8:
                raise kaitaistruct.ConsistencyError(u"magic", 8, len((self.magic).encode(u"ASCII")))
            if not  ((self.magic == u"DATABLK*") or (self.magic == u"DATABLKE") or (self.magic == u"IDXLEAF2") or (self.magic == u"BLMFBLK2") or (self.magic == u"METABLKc") or (self.magic == u"IDXINTE2") or (self.magic == u"IDXROOT2") or (self.magic == u"FILEINF2") or (self.magic == u"BLMFMET2") or (self.magic == u"DFBLMET2")) :
                raise kaitaistruct.ValidationNotAnyOfError(self.magic, None, u"/types/block/seq/0")
            if not self.len_on_disk_without_header >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_on_disk_without_header, None, u"/types/block/seq/1")
            if not self.len_uncompressed_without_header >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_uncompressed_without_header, None, u"/types/block/seq/2")
            if not isinstance(self.checksum_type, Hfile.ChecksumType):
                raise kaitaistruct.ValidationNotInEnumError(self.checksum_type, None, u"/types/block/seq/4")
            if not self.bytes_per_checksum >= 1:
                raise kaitaistruct.ValidationLessThanError(1, self.bytes_per_checksum, None, u"/types/block/seq/5")
            if not self.len_on_disk_data_with_header >= 33:
                raise kaitaistruct.ValidationLessThanError(33, self.len_on_disk_data_with_header, None, u"/types/block/seq/6")
            if not self.len_on_disk_data_with_header <= self.len_on_disk_without_header + 33:
                raise kaitaistruct.ValidationGreaterThanError(self.len_on_disk_without_header + 33, self.len_on_disk_data_with_header, None, u"/types/block/seq/6")
            if self.payload._root != self._root:
                raise kaitaistruct.ConsistencyError(u"payload", self._root, self.payload._root)
            if self.payload._parent != self:
                raise kaitaistruct.ConsistencyError(u"payload", self, self.payload._parent)
            if len(self.checksums) != (self.len_on_disk_without_header + 33) - self.len_on_disk_data_with_header:
                raise kaitaistruct.ConsistencyError(u"checksums", (self.len_on_disk_without_header + 33) - self.len_on_disk_data_with_header, len(self.checksums))
            self._dirty = False

        @property
        def block_type(self):
            """The block type the magic names."""
            if hasattr(self, '_m_block_type'):
                return self._m_block_type

            self._m_block_type = KaitaiStream.resolve_enum(Hfile.BlockType, (0 if self.magic == u"DATABLK*" else (1 if self.magic == u"DATABLKE" else (2 if self.magic == u"IDXLEAF2" else (3 if self.magic == u"BLMFBLK2" else (4 if self.magic == u"METABLKc" else (5 if self.magic == u"IDXINTE2" else (6 if self.magic == u"IDXROOT2" else (7 if self.magic == u"FILEINF2" else (8 if self.magic == u"BLMFMET2" else 9))))))))))
            return getattr(self, '_m_block_type', None)

        def _invalidate_block_type(self):
            del self._m_block_type

    class BlockPayload(ReadWriteKaitaiStruct):
        """A block's stored payload. `data` holds its bytes as stored; where the file is not
        compressed, `body` is the same bytes laid out by the block's magic.
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.BlockPayload, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._should_write_body = False
            self.body__enabled = True

        def _read(self):
            self.data = self._io.read_bytes_full()
            self._dirty = False


        def _fetch_instances(self):
            pass
            _ = self.body
            if hasattr(self, '_m_body'):
                pass
                _on = self._parent.magic
                if _on == u"DATABLK*":
                    pass
                    self._m_body._fetch_instances()
                elif _on == u"FILEINF2":
                    pass
                    self._m_body._fetch_instances()
                elif _on == u"IDXINTE2":
                    pass
                    self._m_body._fetch_instances()
                elif _on == u"IDXLEAF2":
                    pass
                    self._m_body._fetch_instances()
                elif _on == u"IDXROOT2":
                    pass
                    self._m_body._fetch_instances()
                else:
                    pass



        def _write__seq(self, io=None):
            super(Hfile.BlockPayload, self)._write__seq(io)
            self._should_write_body = self.body__enabled
            self._io.write_bytes(self.data)
            if not self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"data", 0, self._io.size() - self._io.pos())


        def _check(self):
            if self.body__enabled:
                pass
                if self._root.trailer.compression_codec == Hfile.CompressionCodec.none:
                    pass
                    _on = self._parent.magic
                    if _on == u"DATABLK*":
                        pass
                        if self._m_body._root != self._root:
                            raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                        if self._m_body._parent != self:
                            raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                    elif _on == u"FILEINF2":
                        pass
                        if self._m_body._root != self._root:
                            raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                        if self._m_body._parent != self:
                            raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                    elif _on == u"IDXINTE2":
                        pass
                        if self._m_body._root != self._root:
                            raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                        if self._m_body._parent != self:
                            raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                    elif _on == u"IDXLEAF2":
                        pass
                        if self._m_body._root != self._root:
                            raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                        if self._m_body._parent != self:
                            raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                    elif _on == u"IDXROOT2":
                        pass
                        if self._m_body._root != self._root:
                            raise kaitaistruct.ConsistencyError(u"body", self._root, self._m_body._root)
                        if self._m_body._parent != self:
                            raise kaitaistruct.ConsistencyError(u"body", self, self._m_body._parent)
                    else:
                        pass


            self._dirty = False

        @property
        def body(self):
            """The uncompressed payload laid out by magic (meta and bloom blocks stay raw bytes)."""
            if self._should_write_body:
                self._write_body()
            if hasattr(self, '_m_body'):
                return self._m_body

            if not self.body__enabled:
                return None

            if self._root.trailer.compression_codec == Hfile.CompressionCodec.none:
                pass
                _pos = self._io.pos()
                self._io.seek(0)
                _on = self._parent.magic
                if _on == u"DATABLK*":
                    pass
                    self._raw__m_body = self._io.read_bytes_full()
                    _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                    self._m_body = Hfile.DataBlockBody(_io__raw__m_body, self, self._root)
                    self._m_body._read()
                elif _on == u"FILEINF2":
                    pass
                    self._raw__m_body = self._io.read_bytes_full()
                    _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                    self._m_body = Hfile.FileInfoBody(_io__raw__m_body, self, self._root)
                    self._m_body._read()
                elif _on == u"IDXINTE2":
                    pass
                    self._raw__m_body = self._io.read_bytes_full()
                    _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                    self._m_body = Hfile.NonrootIndexBody(_io__raw__m_body, self, self._root)
                    self._m_body._read()
                elif _on == u"IDXLEAF2":
                    pass
                    self._raw__m_body = self._io.read_bytes_full()
                    _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                    self._m_body = Hfile.NonrootIndexBody(_io__raw__m_body, self, self._root)
                    self._m_body._read()
                elif _on == u"IDXROOT2":
                    pass
                    self._raw__m_body = self._io.read_bytes_full()
                    _io__raw__m_body = KaitaiStream(BytesIO(self._raw__m_body))
                    self._m_body = Hfile.IndexBody(_io__raw__m_body, self, self._root)
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
            if self._root.trailer.compression_codec == Hfile.CompressionCodec.none:
                pass
                _pos = self._io.pos()
                self._io.seek(0)
                _on = self._parent.magic
                if _on == u"DATABLK*":
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
                elif _on == u"FILEINF2":
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
                elif _on == u"IDXINTE2":
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
                elif _on == u"IDXLEAF2":
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
                elif _on == u"IDXROOT2":
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



    class BlockSection(ReadWriteKaitaiStruct):
        """The blocks, from offset 0 up to the trailer, each right after the one before."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.BlockSection, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.blocks = []
            i = 0
            while not self._io.is_eof():
                _t_blocks = Hfile.Block(self._io, self, self._root)
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
            super(Hfile.BlockSection, self)._write__seq(io)
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


    class Cell(ReadWriteKaitaiStruct):
        """One key/value (HBase KeyValue); for Hudi the row is the record key, the value an Avro record.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/KeyValue.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.Cell, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.len_key = self._io.read_s4be()
            if not self.len_key >= 12:
                raise kaitaistruct.ValidationLessThanError(12, self.len_key, self._io, u"/types/cell/seq/0")
            self.len_value = self._io.read_s4be()
            if not self.len_value >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_value, self._io, u"/types/cell/seq/1")
            self._raw_key = self._io.read_bytes(self.len_key)
            _io__raw_key = KaitaiStream(BytesIO(self._raw_key))
            self.key = Hfile.CellKey(_io__raw_key, self, self._root)
            self.key._read()
            self.value = self._io.read_bytes(self.len_value)
            self.memstore_ts = Hfile.HadoopVint(self._io, self, self._root)
            self.memstore_ts._read()
            _ = self.memstore_ts
            if not _.value == 0:
                raise kaitaistruct.ValidationExprError(self.memstore_ts, self._io, u"/types/cell/seq/4")
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.key._fetch_instances()
            self.memstore_ts._fetch_instances()


        def _write__seq(self, io=None):
            super(Hfile.Cell, self)._write__seq(io)
            self._io.write_s4be(self.len_key)
            self._io.write_s4be(self.len_value)
            _io__raw_key = KaitaiStream(BytesIO(bytearray(self.len_key)))
            self._io.add_child_stream(_io__raw_key)
            _pos2 = self._io.pos()
            self._io.seek(self._io.pos() + (self.len_key))
            def handler(parent, _io__raw_key=_io__raw_key):
                self._raw_key = _io__raw_key.to_byte_array()
                if len(self._raw_key) != self.len_key:
                    raise kaitaistruct.ConsistencyError(u"raw(key)", self.len_key, len(self._raw_key))
                parent.write_bytes(self._raw_key)
            _io__raw_key.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
            self.key._write__seq(_io__raw_key)
            self._io.write_bytes(self.value)
            self.memstore_ts._write__seq(self._io)


        def _check(self):
            if not self.len_key >= 12:
                raise kaitaistruct.ValidationLessThanError(12, self.len_key, None, u"/types/cell/seq/0")
            if not self.len_value >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_value, None, u"/types/cell/seq/1")
            if self.key._root != self._root:
                raise kaitaistruct.ConsistencyError(u"key", self._root, self.key._root)
            if self.key._parent != self:
                raise kaitaistruct.ConsistencyError(u"key", self, self.key._parent)
            if len(self.value) != self.len_value:
                raise kaitaistruct.ConsistencyError(u"value", self.len_value, len(self.value))
            if self.memstore_ts._root != self._root:
                raise kaitaistruct.ConsistencyError(u"memstore_ts", self._root, self.memstore_ts._root)
            if self.memstore_ts._parent != self:
                raise kaitaistruct.ConsistencyError(u"memstore_ts", self, self.memstore_ts._parent)
            _ = self.memstore_ts
            if not _.value == 0:
                raise kaitaistruct.ValidationExprError(self.memstore_ts, None, u"/types/cell/seq/4")
            self._dirty = False


    class CellKey(ReadWriteKaitaiStruct):
        """The key of a cell."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.CellKey, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.len_row = self._io.read_s2be()
            if not self.len_row >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_row, self._io, u"/types/cell_key/seq/0")
            self.row = self._io.read_bytes(self.len_row)
            self.len_family = self._io.read_u1()
            self.family = self._io.read_bytes(self.len_family)
            self.qualifier = self._io.read_bytes((self._io.size() - self._io.pos()) - 9)
            self.timestamp = self._io.read_s8be()
            self.key_type = KaitaiStream.resolve_enum(Hfile.KeyType, self._io.read_u1())
            if not isinstance(self.key_type, Hfile.KeyType):
                raise kaitaistruct.ValidationNotInEnumError(self.key_type, self._io, u"/types/cell_key/seq/6")
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(Hfile.CellKey, self)._write__seq(io)
            self._io.write_s2be(self.len_row)
            self._io.write_bytes(self.row)
            self._io.write_u1(self.len_family)
            self._io.write_bytes(self.family)
            if len(self.qualifier) != (self._io.size() - self._io.pos()) - 9:
                raise kaitaistruct.ConsistencyError(u"qualifier", (self._io.size() - self._io.pos()) - 9, len(self.qualifier))
            self._io.write_bytes(self.qualifier)
            self._io.write_s8be(self.timestamp)
            self._io.write_u1(int(self.key_type))


        def _check(self):
            if not self.len_row >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_row, None, u"/types/cell_key/seq/0")
            if len(self.row) != self.len_row:
                raise kaitaistruct.ConsistencyError(u"row", self.len_row, len(self.row))
            if len(self.family) != self.len_family:
                raise kaitaistruct.ConsistencyError(u"family", self.len_family, len(self.family))
            if not isinstance(self.key_type, Hfile.KeyType):
                raise kaitaistruct.ValidationNotInEnumError(self.key_type, None, u"/types/cell_key/seq/6")
            self._dirty = False

        @property
        def row_text(self):
            """The row as text."""
            if hasattr(self, '_m_row_text'):
                return self._m_row_text

            self._m_row_text = (self.row).decode(u"UTF-8")
            return getattr(self, '_m_row_text', None)

        def _invalidate_row_text(self):
            del self._m_row_text

    class DataBlockBody(ReadWriteKaitaiStruct):
        """Uncompressed payload of a DATABLK* block: cells in key order. Every writer Hudi uses sets
        file info KEY_VALUE_VERSION to 1 and writes no tags, so every cell ends with its memstore
        timestamp (always 0, one byte).
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileDataBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.DataBlockBody, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.cells = []
            i = 0
            while not self._io.is_eof():
                _t_cells = Hfile.Cell(self._io, self, self._root)
                try:
                    _t_cells._read()
                finally:
                    self.cells.append(_t_cells)
                i += 1

            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.cells)):
                pass
                self.cells[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(Hfile.DataBlockBody, self)._write__seq(io)
            for i in range(len(self.cells)):
                pass
                if self._io.is_eof():
                    raise kaitaistruct.ConsistencyError(u"cells", 0, self._io.size() - self._io.pos())
                self.cells[i]._write__seq(self._io)

            if not self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"cells", 0, self._io.size() - self._io.pos())


        def _check(self):
            for i in range(len(self.cells)):
                pass
                if self.cells[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"cells", self._root, self.cells[i]._root)
                if self.cells[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"cells", self, self.cells[i]._parent)

            self._dirty = False


    class FileInfoBody(ReadWriteKaitaiStruct):
        """Uncompressed payload of the FILEINF2 block, `PBUF` then a length-delimited protobuf InfoProto.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileFileInfoBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.FileInfoBody, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.pb_magic = self._io.read_bytes(4)
            if not self.pb_magic == b"\x50\x42\x55\x46":
                raise kaitaistruct.ValidationNotEqualError(b"\x50\x42\x55\x46", self.pb_magic, self._io, u"/types/file_info_body/seq/0")
            self.len_info = Hfile.PbVarint(self._io, self, self._root)
            self.len_info._read()
            self._raw_info = self._io.read_bytes(self.len_info.value)
            _io__raw_info = KaitaiStream(BytesIO(self._raw_info))
            self.info = Hfile.PbMessage(_io__raw_info, self, self._root)
            self.info._read()
            self.rest = self._io.read_bytes_full()
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.len_info._fetch_instances()
            self.info._fetch_instances()


        def _write__seq(self, io=None):
            super(Hfile.FileInfoBody, self)._write__seq(io)
            self._io.write_bytes(self.pb_magic)
            self.len_info._write__seq(self._io)
            _io__raw_info = KaitaiStream(BytesIO(bytearray(self.len_info.value)))
            self._io.add_child_stream(_io__raw_info)
            _pos2 = self._io.pos()
            self._io.seek(self._io.pos() + (self.len_info.value))
            def handler(parent, _io__raw_info=_io__raw_info):
                self._raw_info = _io__raw_info.to_byte_array()
                if len(self._raw_info) != self.len_info.value:
                    raise kaitaistruct.ConsistencyError(u"raw(info)", self.len_info.value, len(self._raw_info))
                parent.write_bytes(self._raw_info)
            _io__raw_info.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
            self.info._write__seq(_io__raw_info)
            self._io.write_bytes(self.rest)
            if not self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"rest", 0, self._io.size() - self._io.pos())


        def _check(self):
            if len(self.pb_magic) != 4:
                raise kaitaistruct.ConsistencyError(u"pb_magic", 4, len(self.pb_magic))
            if not self.pb_magic == b"\x50\x42\x55\x46":
                raise kaitaistruct.ValidationNotEqualError(b"\x50\x42\x55\x46", self.pb_magic, None, u"/types/file_info_body/seq/0")
            if self.len_info._root != self._root:
                raise kaitaistruct.ConsistencyError(u"len_info", self._root, self.len_info._root)
            if self.len_info._parent != self:
                raise kaitaistruct.ConsistencyError(u"len_info", self, self.len_info._parent)
            if self.info._root != self._root:
                raise kaitaistruct.ConsistencyError(u"info", self._root, self.info._root)
            if self.info._parent != self:
                raise kaitaistruct.ConsistencyError(u"info", self, self.info._parent)
            self._dirty = False


    class HadoopVint(ReadWriteKaitaiStruct):
        """Hadoop's WritableUtils variable-length integer: one byte for -112..127, else a marker byte
        (-113..-120 for 1..8 positive bytes, -121..-128 for negative) and the bytes, big-endian.
        Lengths and memstore timestamps are never negative, so negative markers are refused.
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.HadoopVint, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.first = self._io.read_s1()
            if not self.first >= -116:
                raise kaitaistruct.ValidationLessThanError(-116, self.first, self._io, u"/types/hadoop_vint/seq/0")
            self.rest = self._io.read_bytes((0 if self.first >= -112 else -112 - self.first))
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(Hfile.HadoopVint, self)._write__seq(io)
            self._io.write_s1(self.first)
            self._io.write_bytes(self.rest)


        def _check(self):
            if not self.first >= -116:
                raise kaitaistruct.ValidationLessThanError(-116, self.first, None, u"/types/hadoop_vint/seq/0")
            if len(self.rest) != (0 if self.first >= -112 else -112 - self.first):
                raise kaitaistruct.ConsistencyError(u"rest", (0 if self.first >= -112 else -112 - self.first), len(self.rest))
            self._dirty = False

        @property
        def value(self):
            """The value."""
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = (self.first if self.first >= -112 else (KaitaiStream.byte_array_index(self.rest, 0) if len(self.rest) == 1 else (KaitaiStream.byte_array_index(self.rest, 0) * 256 + KaitaiStream.byte_array_index(self.rest, 1) if len(self.rest) == 2 else ((KaitaiStream.byte_array_index(self.rest, 0) * 256 + KaitaiStream.byte_array_index(self.rest, 1)) * 256 + KaitaiStream.byte_array_index(self.rest, 2) if len(self.rest) == 3 else ((KaitaiStream.byte_array_index(self.rest, 0) * 256 + KaitaiStream.byte_array_index(self.rest, 1)) * 256 + KaitaiStream.byte_array_index(self.rest, 2)) * 256 + KaitaiStream.byte_array_index(self.rest, 3)))))
            return getattr(self, '_m_value', None)

        def _invalidate_value(self):
            del self._m_value

    class IndexBody(ReadWriteKaitaiStruct):
        """Uncompressed payload of an IDXROOT2 block: the single-level root data index (one entry per
        data block) or the meta index (one per meta block). Hudi writes one index level only (the
        trailer's num_data_index_levels is 1 in every Hudi file); HBase's root index of a multi-level
        index would end with a mid-key record (long, int, int) that this type does not describe.
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileRootIndexBlock.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.IndexBody, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.entries = []
            i = 0
            while not self._io.is_eof():
                _t_entries = Hfile.IndexEntry(self._io, self, self._root)
                try:
                    _t_entries._read()
                finally:
                    self.entries.append(_t_entries)
                i += 1

            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.entries)):
                pass
                self.entries[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(Hfile.IndexBody, self)._write__seq(io)
            for i in range(len(self.entries)):
                pass
                if self._io.is_eof():
                    raise kaitaistruct.ConsistencyError(u"entries", 0, self._io.size() - self._io.pos())
                self.entries[i]._write__seq(self._io)

            if not self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"entries", 0, self._io.size() - self._io.pos())


        def _check(self):
            for i in range(len(self.entries)):
                pass
                if self.entries[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"entries", self._root, self.entries[i]._root)
                if self.entries[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"entries", self, self.entries[i]._parent)

            self._dirty = False


    class IndexEntry(ReadWriteKaitaiStruct):
        """One index entry."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.IndexEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.offset = self._io.read_s8be()
            if not self.offset >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.offset, self._io, u"/types/index_entry/seq/0")
            self.len_block = self._io.read_s4be()
            if not self.len_block >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_block, self._io, u"/types/index_entry/seq/1")
            self.len_key = Hfile.HadoopVint(self._io, self, self._root)
            self.len_key._read()
            _ = self.len_key
            if not _.value >= 0:
                raise kaitaistruct.ValidationExprError(self.len_key, self._io, u"/types/index_entry/seq/2")
            self.key = self._io.read_bytes(self.len_key.value)
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.len_key._fetch_instances()


        def _write__seq(self, io=None):
            super(Hfile.IndexEntry, self)._write__seq(io)
            self._io.write_s8be(self.offset)
            self._io.write_s4be(self.len_block)
            self.len_key._write__seq(self._io)
            self._io.write_bytes(self.key)


        def _check(self):
            if not self.offset >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.offset, None, u"/types/index_entry/seq/0")
            if not self.len_block >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.len_block, None, u"/types/index_entry/seq/1")
            if self.len_key._root != self._root:
                raise kaitaistruct.ConsistencyError(u"len_key", self._root, self.len_key._root)
            if self.len_key._parent != self:
                raise kaitaistruct.ConsistencyError(u"len_key", self, self.len_key._parent)
            _ = self.len_key
            if not _.value >= 0:
                raise kaitaistruct.ValidationExprError(self.len_key, None, u"/types/index_entry/seq/2")
            if len(self.key) != self.len_key.value:
                raise kaitaistruct.ConsistencyError(u"key", self.len_key.value, len(self.key))
            self._dirty = False


    class NonrootIndexBody(ReadWriteKaitaiStruct):
        """Uncompressed payload of an IDXLEAF2 or IDXINTE2 block (multi-level index; HBase only)."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.NonrootIndexBody, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.num_entries = self._io.read_s4be()
            if not self.num_entries >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.num_entries, self._io, u"/types/nonroot_index_body/seq/0")
            self.secondary_index = []
            for i in range(self.num_entries + 1):
                self.secondary_index.append(self._io.read_s4be())

            self.entries = self._io.read_bytes_full()
            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.secondary_index)):
                pass



        def _write__seq(self, io=None):
            super(Hfile.NonrootIndexBody, self)._write__seq(io)
            self._io.write_s4be(self.num_entries)
            for i in range(len(self.secondary_index)):
                pass
                self._io.write_s4be(self.secondary_index[i])

            self._io.write_bytes(self.entries)
            if not self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"entries", 0, self._io.size() - self._io.pos())


        def _check(self):
            if not self.num_entries >= 0:
                raise kaitaistruct.ValidationLessThanError(0, self.num_entries, None, u"/types/nonroot_index_body/seq/0")
            if len(self.secondary_index) != self.num_entries + 1:
                raise kaitaistruct.ConsistencyError(u"secondary_index", self.num_entries + 1, len(self.secondary_index))
            for i in range(len(self.secondary_index)):
                pass

            self._dirty = False


    class PbBytes(ReadWriteKaitaiStruct):
        """A length-delimited protobuf value (string, bytes or message)."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.PbBytes, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.len_data = Hfile.PbVarint(self._io, self, self._root)
            self.len_data._read()
            self.data = self._io.read_bytes(self.len_data.value)
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.len_data._fetch_instances()


        def _write__seq(self, io=None):
            super(Hfile.PbBytes, self)._write__seq(io)
            self.len_data._write__seq(self._io)
            self._io.write_bytes(self.data)


        def _check(self):
            if self.len_data._root != self._root:
                raise kaitaistruct.ConsistencyError(u"len_data", self._root, self.len_data._root)
            if self.len_data._parent != self:
                raise kaitaistruct.ConsistencyError(u"len_data", self, self.len_data._parent)
            if len(self.data) != self.len_data.value:
                raise kaitaistruct.ConsistencyError(u"data", self.len_data.value, len(self.data))
            self._dirty = False


    class PbField(ReadWriteKaitaiStruct):
        """One protobuf field, a tag and a value laid out by the wire type."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.PbField, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.tag = Hfile.PbVarint(self._io, self, self._root)
            self.tag._read()
            _ = self.tag
            if not  ((_.value % 8 == int(Hfile.WireType.varint)) or (_.value % 8 == int(Hfile.WireType.len_delimited)) or (_.value % 8 == int(Hfile.WireType.fixed64)) or (_.value % 8 == int(Hfile.WireType.fixed32))) :
                raise kaitaistruct.ValidationExprError(self.tag, self._io, u"/types/pb_field/seq/0")
            _on = self.wire_type
            if _on == Hfile.WireType.fixed32:
                pass
                self.value = Hfile.PbFixed32(self._io, self, self._root)
                self.value._read()
            elif _on == Hfile.WireType.fixed64:
                pass
                self.value = Hfile.PbFixed64(self._io, self, self._root)
                self.value._read()
            elif _on == Hfile.WireType.len_delimited:
                pass
                self.value = Hfile.PbBytes(self._io, self, self._root)
                self.value._read()
            elif _on == Hfile.WireType.varint:
                pass
                self.value = Hfile.PbVarint(self._io, self, self._root)
                self.value._read()
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.tag._fetch_instances()
            _on = self.wire_type
            if _on == Hfile.WireType.fixed32:
                pass
                self.value._fetch_instances()
            elif _on == Hfile.WireType.fixed64:
                pass
                self.value._fetch_instances()
            elif _on == Hfile.WireType.len_delimited:
                pass
                self.value._fetch_instances()
            elif _on == Hfile.WireType.varint:
                pass
                self.value._fetch_instances()


        def _write__seq(self, io=None):
            super(Hfile.PbField, self)._write__seq(io)
            self.tag._write__seq(self._io)
            _on = self.wire_type
            if _on == Hfile.WireType.fixed32:
                pass
                self.value._write__seq(self._io)
            elif _on == Hfile.WireType.fixed64:
                pass
                self.value._write__seq(self._io)
            elif _on == Hfile.WireType.len_delimited:
                pass
                self.value._write__seq(self._io)
            elif _on == Hfile.WireType.varint:
                pass
                self.value._write__seq(self._io)


        def _check(self):
            if self.tag._root != self._root:
                raise kaitaistruct.ConsistencyError(u"tag", self._root, self.tag._root)
            if self.tag._parent != self:
                raise kaitaistruct.ConsistencyError(u"tag", self, self.tag._parent)
            _ = self.tag
            if not  ((_.value % 8 == int(Hfile.WireType.varint)) or (_.value % 8 == int(Hfile.WireType.len_delimited)) or (_.value % 8 == int(Hfile.WireType.fixed64)) or (_.value % 8 == int(Hfile.WireType.fixed32))) :
                raise kaitaistruct.ValidationExprError(self.tag, None, u"/types/pb_field/seq/0")
            _on = self.wire_type
            if _on == Hfile.WireType.fixed32:
                pass
                if self.value._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                if self.value._parent != self:
                    raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
            elif _on == Hfile.WireType.fixed64:
                pass
                if self.value._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                if self.value._parent != self:
                    raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
            elif _on == Hfile.WireType.len_delimited:
                pass
                if self.value._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                if self.value._parent != self:
                    raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
            elif _on == Hfile.WireType.varint:
                pass
                if self.value._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"value", self._root, self.value._root)
                if self.value._parent != self:
                    raise kaitaistruct.ConsistencyError(u"value", self, self.value._parent)
            self._dirty = False

        @property
        def int_value(self):
            """The value of a varint field (0 for other wire types)."""
            if hasattr(self, '_m_int_value'):
                return self._m_int_value

            self._m_int_value = (self.value.value if self.wire_type == Hfile.WireType.varint else 0)
            return getattr(self, '_m_int_value', None)

        def _invalidate_int_value(self):
            del self._m_int_value
        @property
        def number(self):
            """Field number."""
            if hasattr(self, '_m_number'):
                return self._m_number

            self._m_number = self.tag.value // 8
            return getattr(self, '_m_number', None)

        def _invalidate_number(self):
            del self._m_number
        @property
        def wire_type(self):
            """Wire type."""
            if hasattr(self, '_m_wire_type'):
                return self._m_wire_type

            self._m_wire_type = KaitaiStream.resolve_enum(Hfile.WireType, self.tag.value % 8)
            return getattr(self, '_m_wire_type', None)

        def _invalidate_wire_type(self):
            del self._m_wire_type

    class PbFixed32(ReadWriteKaitaiStruct):
        """A fixed 32-bit protobuf value."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.PbFixed32, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.data = self._io.read_bytes(4)
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(Hfile.PbFixed32, self)._write__seq(io)
            self._io.write_bytes(self.data)


        def _check(self):
            if len(self.data) != 4:
                raise kaitaistruct.ConsistencyError(u"data", 4, len(self.data))
            self._dirty = False


    class PbFixed64(ReadWriteKaitaiStruct):
        """A fixed 64-bit protobuf value."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.PbFixed64, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.data = self._io.read_bytes(8)
            self._dirty = False


        def _fetch_instances(self):
            pass


        def _write__seq(self, io=None):
            super(Hfile.PbFixed64, self)._write__seq(io)
            self._io.write_bytes(self.data)


        def _check(self):
            if len(self.data) != 8:
                raise kaitaistruct.ConsistencyError(u"data", 8, len(self.data))
            self._dirty = False


    class PbMessage(ReadWriteKaitaiStruct):
        """A protobuf message as its fields in the order written."""
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.PbMessage, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.fields = []
            i = 0
            while not self._io.is_eof():
                _t_fields = Hfile.PbField(self._io, self, self._root)
                try:
                    _t_fields._read()
                finally:
                    self.fields.append(_t_fields)
                i += 1

            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.fields)):
                pass
                self.fields[i]._fetch_instances()



        def _write__seq(self, io=None):
            super(Hfile.PbMessage, self)._write__seq(io)
            for i in range(len(self.fields)):
                pass
                if self._io.is_eof():
                    raise kaitaistruct.ConsistencyError(u"fields", 0, self._io.size() - self._io.pos())
                self.fields[i]._write__seq(self._io)

            if not self._io.is_eof():
                raise kaitaistruct.ConsistencyError(u"fields", 0, self._io.size() - self._io.pos())


        def _check(self):
            for i in range(len(self.fields)):
                pass
                if self.fields[i]._root != self._root:
                    raise kaitaistruct.ConsistencyError(u"fields", self._root, self.fields[i]._root)
                if self.fields[i]._parent != self:
                    raise kaitaistruct.ConsistencyError(u"fields", self, self.fields[i]._parent)

            self._dirty = False


    class PbVarint(ReadWriteKaitaiStruct):
        """A protobuf base-128 varint, least significant group first. Protobuf writes at most 10 groups;
        `value` reads 10 (hudi-log's bridge refuses longer ones).
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.PbVarint, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.groups = []
            i = 0
            while True:
                _ = self._io.read_u1()
                self.groups.append(_)
                if _ < 128:
                    break
                i += 1
            self._dirty = False


        def _fetch_instances(self):
            pass
            for i in range(len(self.groups)):
                pass



        def _write__seq(self, io=None):
            super(Hfile.PbVarint, self)._write__seq(io)
            for i in range(len(self.groups)):
                pass
                self._io.write_u1(self.groups[i])



        def _check(self):
            if len(self.groups) == 0:
                raise kaitaistruct.ConsistencyError(u"groups", 0, len(self.groups))
            for i in range(len(self.groups)):
                pass
                _ = self.groups[i]
                if (_ < 128) != (i == len(self.groups) - 1):
                    raise kaitaistruct.ConsistencyError(u"groups", i == len(self.groups) - 1, _ < 128)

            self._dirty = False

        @property
        def value(self):
            """The value. Above 2^53 it is exact in Python only (JavaScript numbers are doubles): HBase
            writes 2^64 - 1 (-1) as the first and last data block offsets of a file without cells.
            """
            if hasattr(self, '_m_value'):
                return self._m_value

            self._m_value = ((((((((self.groups[0] % 128 + ((self.groups[1] % 128) * 128 if len(self.groups) > 1 else 0)) + ((self.groups[2] % 128) * 16384 if len(self.groups) > 2 else 0)) + ((self.groups[3] % 128) * 2097152 if len(self.groups) > 3 else 0)) + ((self.groups[4] % 128) * 268435456 if len(self.groups) > 4 else 0)) + ((self.groups[5] % 128) * 34359738368 if len(self.groups) > 5 else 0)) + ((self.groups[6] % 128) * 4398046511104 if len(self.groups) > 6 else 0)) + ((self.groups[7] % 128) * 562949953421312 if len(self.groups) > 7 else 0)) + ((self.groups[8] % 128) * 72057594037927936 if len(self.groups) > 8 else 0)) + ((self.groups[9] % 128) * 9223372036854775807 + self.groups[9] % 128 if len(self.groups) > 9 else 0)
            return getattr(self, '_m_value', None)

        def _invalidate_value(self):
            del self._m_value

    class Trailer(ReadWriteKaitaiStruct):
        """The fixed trailer: magic, a length-delimited protobuf TrailerProto, zero padding, and the
        version (major in the low 3 bytes, minor in the top byte).
        
        .. seealso::
           Source - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileTrailer.java
        """
        def __init__(self, _io=None, _parent=None, _root=None):
            super(Hfile.Trailer, self).__init__(_io)
            self._parent = _parent
            self._root = _root

        def _read(self):
            self.magic = self._io.read_bytes(8)
            if not self.magic == b"\x54\x52\x41\x42\x4C\x4B\x22\x24":
                raise kaitaistruct.ValidationNotEqualError(b"\x54\x52\x41\x42\x4C\x4B\x22\x24", self.magic, self._io, u"/types/trailer/seq/0")
            self.len_proto = Hfile.PbVarint(self._io, self, self._root)
            self.len_proto._read()
            self._raw_proto = self._io.read_bytes(self.len_proto.value)
            _io__raw_proto = KaitaiStream(BytesIO(self._raw_proto))
            self.proto = Hfile.PbMessage(_io__raw_proto, self, self._root)
            self.proto._read()
            self.padding = self._io.read_bytes((self._io.size() - self._io.pos()) - 4)
            self.version = self._io.read_u4be()
            _ = self.version
            if not _ % 16777216 == 3:
                raise kaitaistruct.ValidationExprError(self.version, self._io, u"/types/trailer/seq/4")
            self._dirty = False


        def _fetch_instances(self):
            pass
            self.len_proto._fetch_instances()
            self.proto._fetch_instances()


        def _write__seq(self, io=None):
            super(Hfile.Trailer, self)._write__seq(io)
            self._io.write_bytes(self.magic)
            self.len_proto._write__seq(self._io)
            _io__raw_proto = KaitaiStream(BytesIO(bytearray(self.len_proto.value)))
            self._io.add_child_stream(_io__raw_proto)
            _pos2 = self._io.pos()
            self._io.seek(self._io.pos() + (self.len_proto.value))
            def handler(parent, _io__raw_proto=_io__raw_proto):
                self._raw_proto = _io__raw_proto.to_byte_array()
                if len(self._raw_proto) != self.len_proto.value:
                    raise kaitaistruct.ConsistencyError(u"raw(proto)", self.len_proto.value, len(self._raw_proto))
                parent.write_bytes(self._raw_proto)
            _io__raw_proto.write_back_handler = KaitaiStream.WriteBackHandler(_pos2, handler)
            self.proto._write__seq(_io__raw_proto)
            if len(self.padding) != (self._io.size() - self._io.pos()) - 4:
                raise kaitaistruct.ConsistencyError(u"padding", (self._io.size() - self._io.pos()) - 4, len(self.padding))
            self._io.write_bytes(self.padding)
            self._io.write_u4be(self.version)


        def _check(self):
            if len(self.magic) != 8:
                raise kaitaistruct.ConsistencyError(u"magic", 8, len(self.magic))
            if not self.magic == b"\x54\x52\x41\x42\x4C\x4B\x22\x24":
                raise kaitaistruct.ValidationNotEqualError(b"\x54\x52\x41\x42\x4C\x4B\x22\x24", self.magic, None, u"/types/trailer/seq/0")
            if self.len_proto._root != self._root:
                raise kaitaistruct.ConsistencyError(u"len_proto", self._root, self.len_proto._root)
            if self.len_proto._parent != self:
                raise kaitaistruct.ConsistencyError(u"len_proto", self, self.len_proto._parent)
            if self.proto._root != self._root:
                raise kaitaistruct.ConsistencyError(u"proto", self._root, self.proto._root)
            if self.proto._parent != self:
                raise kaitaistruct.ConsistencyError(u"proto", self, self.proto._parent)
            _ = self.version
            if not _ % 16777216 == 3:
                raise kaitaistruct.ValidationExprError(self.version, None, u"/types/trailer/seq/4")
            self._dirty = False

        @property
        def compression_codec(self):
            """The compression codec (field 12) where it sits at its place in the message, as every
            writer puts it (fields in number order; field 4 is absent in Hudi 1.1's files); NONE
            otherwise.
            """
            if hasattr(self, '_m_compression_codec'):
                return self._m_compression_codec

            self._m_compression_codec = KaitaiStream.resolve_enum(Hfile.CompressionCodec, (self.proto.fields[11].int_value if  ((len(self.proto.fields) > 11) and (self.proto.fields[11].number == int(Hfile.TrailerField.compression_codec)))  else (self.proto.fields[10].int_value if  ((len(self.proto.fields) > 10) and (self.proto.fields[10].number == int(Hfile.TrailerField.compression_codec)))  else 2)))
            return getattr(self, '_m_compression_codec', None)

        def _invalidate_compression_codec(self):
            del self._m_compression_codec
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
            """Minor version; 3 from HBase's writer (Hudi 0.x, 1.0), 0 from Hudi 1.1's."""
            if hasattr(self, '_m_minor_version'):
                return self._m_minor_version

            self._m_minor_version = self.version // 16777216
            return getattr(self, '_m_minor_version', None)

        def _invalidate_minor_version(self):
            del self._m_minor_version


