// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.Hfile || (root.Hfile = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (Hfile_, KaitaiStream) {
/**
 * The sorted key/value file of Apache HBase, version 3, as Apache Hudi writes it for its metadata
 * table: every base file (`*.hfile`) of `.hoodie/metadata/<partition>/` and the content of every
 * HFILE_DATA_BLOCK of its log files. Hudi 0.x and 1.0 write it through HBase's writer (trailer
 * minor version 3, CRC32C checksums); Hudi 1.1 through its own (hudi-io HFileWriterImpl: minor
 * version 0, checksum type NULL with zero checksum bytes).
 * 
 * Layout: blocks, one after another from offset 0 (scanned section: data blocks; then meta blocks
 * such as the key bloom filter; then the load-on-open section: root data index, meta index, file
 * info), then a fixed 4096-byte trailer whose protobuf gives the offsets of the sections.
 * Integers are big-endian.
 * 
 * Every block has a 33-byte header (checksummed format) and is compressed with the file's codec
 * (the trailer's `compression_codec`; Hudi uses GZ, one gzip member per block). A block's
 * uncompressed payload is laid out by its magic (`data_block_body`, `index_body`,
 * `file_info_body`); for blocks of an uncompressed file it is parsed in place (`payload.body`),
 * otherwise hudi-log inflates `payload.data` and parses it with the same types.
 * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileWriterImpl.java|Source}
 * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileReaderImpl.java|Source}
 * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileBlock.java|Source}
 * @see {@link https://github.com/apache/hbase/blob/rel/2.4.9/hbase-server/src/main/java/org/apache/hadoop/hbase/io/hfile/HFileWriterImpl.java|Source}
 */

var Hfile = (function() {
  Hfile.BlockType = Object.freeze({
    DATA: 0,
    ENCODED_DATA: 1,
    LEAF_INDEX: 2,
    BLOOM_CHUNK: 3,
    META: 4,
    INTERMEDIATE_INDEX: 5,
    ROOT_INDEX: 6,
    FILE_INFO: 7,
    GENERAL_BLOOM_META: 8,
    DELETE_FAMILY_BLOOM_META: 9,

    0: "DATA",
    1: "ENCODED_DATA",
    2: "LEAF_INDEX",
    3: "BLOOM_CHUNK",
    4: "META",
    5: "INTERMEDIATE_INDEX",
    6: "ROOT_INDEX",
    7: "FILE_INFO",
    8: "GENERAL_BLOOM_META",
    9: "DELETE_FAMILY_BLOOM_META",
  });

  Hfile.ChecksumType = Object.freeze({
    NULL: 0,
    CRC32: 1,
    CRC32C: 2,

    0: "NULL",
    1: "CRC32",
    2: "CRC32C",
  });

  Hfile.CompressionCodec = Object.freeze({
    LZO: 0,
    GZ: 1,
    NONE: 2,
    SNAPPY: 3,
    LZ4: 4,
    BZIP2: 5,
    ZSTD: 6,

    0: "LZO",
    1: "GZ",
    2: "NONE",
    3: "SNAPPY",
    4: "LZ4",
    5: "BZIP2",
    6: "ZSTD",
  });

  Hfile.KeyType = Object.freeze({
    MINIMUM: 0,
    PUT: 4,
    DELETE: 8,
    DELETE_FAMILY_VERSION: 10,
    DELETE_COLUMN: 12,
    DELETE_FAMILY: 14,
    MAXIMUM: 255,

    0: "MINIMUM",
    4: "PUT",
    8: "DELETE",
    10: "DELETE_FAMILY_VERSION",
    12: "DELETE_COLUMN",
    14: "DELETE_FAMILY",
    255: "MAXIMUM",
  });

  Hfile.TrailerField = Object.freeze({
    FILE_INFO_OFFSET: 1,
    LOAD_ON_OPEN_DATA_OFFSET: 2,
    UNCOMPRESSED_DATA_INDEX_SIZE: 3,
    TOTAL_UNCOMPRESSED_BYTES: 4,
    DATA_INDEX_COUNT: 5,
    META_INDEX_COUNT: 6,
    ENTRY_COUNT: 7,
    NUM_DATA_INDEX_LEVELS: 8,
    FIRST_DATA_BLOCK_OFFSET: 9,
    LAST_DATA_BLOCK_OFFSET: 10,
    COMPARATOR_CLASS_NAME: 11,
    COMPRESSION_CODEC: 12,
    ENCRYPTION_KEY: 13,

    1: "FILE_INFO_OFFSET",
    2: "LOAD_ON_OPEN_DATA_OFFSET",
    3: "UNCOMPRESSED_DATA_INDEX_SIZE",
    4: "TOTAL_UNCOMPRESSED_BYTES",
    5: "DATA_INDEX_COUNT",
    6: "META_INDEX_COUNT",
    7: "ENTRY_COUNT",
    8: "NUM_DATA_INDEX_LEVELS",
    9: "FIRST_DATA_BLOCK_OFFSET",
    10: "LAST_DATA_BLOCK_OFFSET",
    11: "COMPARATOR_CLASS_NAME",
    12: "COMPRESSION_CODEC",
    13: "ENCRYPTION_KEY",
  });

  Hfile.WireType = Object.freeze({
    VARINT: 0,
    FIXED64: 1,
    LEN_DELIMITED: 2,
    FIXED32: 5,

    0: "VARINT",
    1: "FIXED64",
    2: "LEN_DELIMITED",
    5: "FIXED32",
  });

  function Hfile(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  Hfile.prototype._read = function() {
    this._debug.section = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._raw_section = this._io.readBytes(this._io.size - 4096);
    var _io__raw_section = new KaitaiStream(this._raw_section);
    this.section = new BlockSection(_io__raw_section, this, this._root);
    this.section._read();
    this._debug.section.end = this._io.pos;
    this._debug.trailer = { start: this._io.pos, ioOffset: this._io.byteOffset };
    this._raw_trailer = this._io.readBytes(4096);
    var _io__raw_trailer = new KaitaiStream(this._raw_trailer);
    this.trailer = new Trailer(_io__raw_trailer, this, this._root);
    this.trailer._read();
    this._debug.trailer.end = this._io.pos;
  }

  /**
   * One block: a 33-byte header, the payload (compressed with the file's codec), then the
   * checksums of header and payload, 4 bytes per `bytes_per_checksum` chunk. The block takes
   * 33 + len_on_disk_without_header bytes.
   * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileBlock.java|Source}
   */

  var Block = Hfile.Block = (function() {
    function Block(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Block.prototype._read = function() {
      this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.magic = KaitaiStream.bytesToStr(this._io.readBytes(8), "ASCII");
      this._debug.magic.end = this._io.pos;
      if (!( ((this.magic == "DATABLK*") || (this.magic == "DATABLKE") || (this.magic == "IDXLEAF2") || (this.magic == "BLMFBLK2") || (this.magic == "METABLKc") || (this.magic == "IDXINTE2") || (this.magic == "IDXROOT2") || (this.magic == "FILEINF2") || (this.magic == "BLMFMET2") || (this.magic == "DFBLMET2")) )) {
        var _err = new KaitaiStream.ValidationNotAnyOfError(this.magic, this._io, "/types/block/seq/0");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.lenOnDiskWithoutHeader = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenOnDiskWithoutHeader = this._io.readS4be();
      this._debug.lenOnDiskWithoutHeader.end = this._io.pos;
      if (!(this.lenOnDiskWithoutHeader >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenOnDiskWithoutHeader, this._io, "/types/block/seq/1");
        this._debug.lenOnDiskWithoutHeader.validationError = _err;
        throw _err;
      }
      this._debug.lenUncompressedWithoutHeader = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenUncompressedWithoutHeader = this._io.readS4be();
      this._debug.lenUncompressedWithoutHeader.end = this._io.pos;
      if (!(this.lenUncompressedWithoutHeader >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenUncompressedWithoutHeader, this._io, "/types/block/seq/2");
        this._debug.lenUncompressedWithoutHeader.validationError = _err;
        throw _err;
      }
      this._debug.prevBlockOffset = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.prevBlockOffset = this._io.readS8be();
      this._debug.prevBlockOffset.end = this._io.pos;
      this._debug.checksumType = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "Hfile.ChecksumType" };
      this.checksumType = this._io.readU1();
      this._debug.checksumType.end = this._io.pos;
      if (!Object.prototype.hasOwnProperty.call(Hfile.ChecksumType, this.checksumType)) {
        var _err = new KaitaiStream.ValidationNotInEnumError(this.checksumType, this._io, "/types/block/seq/4");
        this._debug.checksumType.validationError = _err;
        throw _err;
      }
      this._debug.bytesPerChecksum = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.bytesPerChecksum = this._io.readS4be();
      this._debug.bytesPerChecksum.end = this._io.pos;
      if (!(this.bytesPerChecksum >= 1)) {
        var _err = new KaitaiStream.ValidationLessThanError(1, this.bytesPerChecksum, this._io, "/types/block/seq/5");
        this._debug.bytesPerChecksum.validationError = _err;
        throw _err;
      }
      this._debug.lenOnDiskDataWithHeader = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenOnDiskDataWithHeader = this._io.readS4be();
      this._debug.lenOnDiskDataWithHeader.end = this._io.pos;
      if (!(this.lenOnDiskDataWithHeader >= 33)) {
        var _err = new KaitaiStream.ValidationLessThanError(33, this.lenOnDiskDataWithHeader, this._io, "/types/block/seq/6");
        this._debug.lenOnDiskDataWithHeader.validationError = _err;
        throw _err;
      }
      if (!(this.lenOnDiskDataWithHeader <= this.lenOnDiskWithoutHeader + 33)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(this.lenOnDiskWithoutHeader + 33, this.lenOnDiskDataWithHeader, this._io, "/types/block/seq/6");
        this._debug.lenOnDiskDataWithHeader.validationError = _err;
        throw _err;
      }
      this._debug.payload = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._raw_payload = this._io.readBytes(this.lenOnDiskDataWithHeader - 33);
      var _io__raw_payload = new KaitaiStream(this._raw_payload);
      this.payload = new BlockPayload(_io__raw_payload, this, this._root);
      this.payload._read();
      this._debug.payload.end = this._io.pos;
      this._debug.checksums = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.checksums = this._io.readBytes((this.lenOnDiskWithoutHeader + 33) - this.lenOnDiskDataWithHeader);
      this._debug.checksums.end = this._io.pos;
    }

    /**
     * The block type the magic names.
     */
    Object.defineProperty(Block.prototype, 'blockType', {
      get: function() {
        if (this._m_blockType !== undefined)
          return this._m_blockType;
        this._debug._m_blockType = { enumName: "Hfile.BlockType" };
        this._m_blockType = (this.magic == "DATABLK*" ? 0 : (this.magic == "DATABLKE" ? 1 : (this.magic == "IDXLEAF2" ? 2 : (this.magic == "BLMFBLK2" ? 3 : (this.magic == "METABLKc" ? 4 : (this.magic == "IDXINTE2" ? 5 : (this.magic == "IDXROOT2" ? 6 : (this.magic == "FILEINF2" ? 7 : (this.magic == "BLMFMET2" ? 8 : 9)))))))));
        return this._m_blockType;
      }
    });

    /**
     * Block magic, 8 ASCII bytes naming the block type (HFileBlockType); `block_type` is its code.
     */

    /**
     * Bytes after the header up to the next block, 4 bytes: the stored payload and the checksums.
     */

    /**
     * Length of the payload once decompressed, 4 bytes.
     */

    /**
     * File offset of the previous block of the same type, 8 bytes; -1 for none (HBase's
     * writer chains data blocks and the two root indexes; Hudi 1.1's writer writes -1 for
     * its first data block and every other block, and a later data block's own offset).
     */

    /**
     * Checksum algorithm of this block, 1 byte (ChecksumType).
     */

    /**
     * Bytes covered by each checksum, 4 bytes; 16384 in every writer Hudi uses.
     */

    /**
     * Header (33) plus stored payload, 4 bytes; the checksums cover exactly these bytes.
     */

    /**
     * The stored payload, compressed with the trailer's codec.
     */

    /**
     * The checksums, one 4-byte value per bytes_per_checksum chunk of header and payload
     * (CRC32C for type 2; Hudi's native writer writes zeros for type NULL).
     */

    return Block;
  })();

  /**
   * A block's stored payload. `data` holds its bytes as stored; where the file is not
   * compressed, `body` is the same bytes laid out by the block's magic.
   */

  var BlockPayload = Hfile.BlockPayload = (function() {
    function BlockPayload(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BlockPayload.prototype._read = function() {
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytesFull();
      this._debug.data.end = this._io.pos;
    }

    /**
     * The uncompressed payload laid out by magic (meta and bloom blocks stay raw bytes).
     */
    Object.defineProperty(BlockPayload.prototype, 'body', {
      get: function() {
        if (this._m_body !== undefined)
          return this._m_body;
        if (this._root.trailer.compressionCodec == Hfile.CompressionCodec.NONE) {
          var _pos = this._io.pos;
          this._io.seek(0);
          this._debug._m_body = { start: this._io.pos, ioOffset: this._io.byteOffset };
          switch (this._parent.magic) {
          case "DATABLK*":
            this._raw__m_body = this._io.readBytesFull();
            var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
            this._m_body = new DataBlockBody(_io__raw__m_body, this, this._root);
            this._m_body._read();
            break;
          case "FILEINF2":
            this._raw__m_body = this._io.readBytesFull();
            var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
            this._m_body = new FileInfoBody(_io__raw__m_body, this, this._root);
            this._m_body._read();
            break;
          case "IDXINTE2":
            this._raw__m_body = this._io.readBytesFull();
            var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
            this._m_body = new NonrootIndexBody(_io__raw__m_body, this, this._root);
            this._m_body._read();
            break;
          case "IDXLEAF2":
            this._raw__m_body = this._io.readBytesFull();
            var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
            this._m_body = new NonrootIndexBody(_io__raw__m_body, this, this._root);
            this._m_body._read();
            break;
          case "IDXROOT2":
            this._raw__m_body = this._io.readBytesFull();
            var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
            this._m_body = new IndexBody(_io__raw__m_body, this, this._root);
            this._m_body._read();
            break;
          default:
            this._m_body = this._io.readBytesFull();
            break;
          }
          this._debug._m_body.end = this._io.pos;
          this._io.seek(_pos);
        }
        return this._m_body;
      }
    });

    /**
     * The payload as stored (for GZ, one gzip member).
     */

    return BlockPayload;
  })();

  /**
   * The blocks, from offset 0 up to the trailer, each right after the one before.
   */

  var BlockSection = Hfile.BlockSection = (function() {
    function BlockSection(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BlockSection.prototype._read = function() {
      this._debug.blocks = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.blocks.arr = [];
      this.blocks = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.blocks.arr[this.blocks.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_blocks = new Block(this._io, this, this._root);
        try {
          _t_blocks._read();
        } finally {
          this.blocks.push(_t_blocks);
        }
        this._debug.blocks.arr[this.blocks.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.blocks.end = this._io.pos;
    }

    /**
     * The blocks in file order (data, meta, root data index, meta index, file info).
     */

    return BlockSection;
  })();

  /**
   * One key/value (HBase KeyValue); for Hudi the row is the record key, the value an Avro record.
   * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/KeyValue.java|Source}
   */

  var Cell = Hfile.Cell = (function() {
    function Cell(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Cell.prototype._read = function() {
      this._debug.lenKey = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenKey = this._io.readS4be();
      this._debug.lenKey.end = this._io.pos;
      if (!(this.lenKey >= 12)) {
        var _err = new KaitaiStream.ValidationLessThanError(12, this.lenKey, this._io, "/types/cell/seq/0");
        this._debug.lenKey.validationError = _err;
        throw _err;
      }
      this._debug.lenValue = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenValue = this._io.readS4be();
      this._debug.lenValue.end = this._io.pos;
      if (!(this.lenValue >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenValue, this._io, "/types/cell/seq/1");
        this._debug.lenValue.validationError = _err;
        throw _err;
      }
      this._debug.key = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._raw_key = this._io.readBytes(this.lenKey);
      var _io__raw_key = new KaitaiStream(this._raw_key);
      this.key = new CellKey(_io__raw_key, this, this._root);
      this.key._read();
      this._debug.key.end = this._io.pos;
      this._debug.value = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.value = this._io.readBytes(this.lenValue);
      this._debug.value.end = this._io.pos;
      this._debug.memstoreTs = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.memstoreTs = new HadoopVint(this._io, this, this._root);
      this.memstoreTs._read();
      this._debug.memstoreTs.end = this._io.pos;
      var _ = this.memstoreTs;
      if (!(_.value == 0)) {
        var _err = new KaitaiStream.ValidationExprError(this.memstoreTs, this._io, "/types/cell/seq/4");
        this._debug.memstoreTs.validationError = _err;
        throw _err;
      }
    }

    /**
     * Length of the key, 4 bytes (row length + row + family length + family + qualifier + 9).
     */

    /**
     * Length of the value, 4 bytes.
     */

    /**
     * The cell key.
     */

    /**
     * The value; for Hudi, the Avro binary HoodieMetadataRecord (key field blanked).
     */

    /**
     * The memstore timestamp (MVCC version), a Hadoop vlong; 0 in every Hudi file.
     */

    return Cell;
  })();

  /**
   * The key of a cell.
   */

  var CellKey = Hfile.CellKey = (function() {
    function CellKey(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    CellKey.prototype._read = function() {
      this._debug.lenRow = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenRow = this._io.readS2be();
      this._debug.lenRow.end = this._io.pos;
      if (!(this.lenRow >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenRow, this._io, "/types/cell_key/seq/0");
        this._debug.lenRow.validationError = _err;
        throw _err;
      }
      this._debug.row = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.row = this._io.readBytes(this.lenRow);
      this._debug.row.end = this._io.pos;
      this._debug.lenFamily = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenFamily = this._io.readU1();
      this._debug.lenFamily.end = this._io.pos;
      this._debug.family = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.family = this._io.readBytes(this.lenFamily);
      this._debug.family.end = this._io.pos;
      this._debug.qualifier = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.qualifier = this._io.readBytes((this._io.size - this._io.pos) - 9);
      this._debug.qualifier.end = this._io.pos;
      this._debug.timestamp = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.timestamp = this._io.readS8be();
      this._debug.timestamp.end = this._io.pos;
      this._debug.keyType = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "Hfile.KeyType" };
      this.keyType = this._io.readU1();
      this._debug.keyType.end = this._io.pos;
      if (!Object.prototype.hasOwnProperty.call(Hfile.KeyType, this.keyType)) {
        var _err = new KaitaiStream.ValidationNotInEnumError(this.keyType, this._io, "/types/cell_key/seq/6");
        this._debug.keyType.validationError = _err;
        throw _err;
      }
    }

    /**
     * The row as text.
     */
    Object.defineProperty(CellKey.prototype, 'rowText', {
      get: function() {
        if (this._m_rowText !== undefined)
          return this._m_rowText;
        this._debug._m_rowText = {  };
        this._m_rowText = KaitaiStream.bytesToStr(this.row, "UTF-8");
        return this._m_rowText;
      }
    });

    /**
     * Length of the row, 2 bytes.
     */

    /**
     * The row, UTF-8 (Hudi's record key).
     */

    /**
     * Length of the column family, 1 byte; 0 in Hudi.
     */

    /**
     * The column family; empty in Hudi.
     */

    /**
     * The column qualifier, the rest of the key but the last 9 bytes; empty in Hudi.
     */

    /**
     * Cell timestamp, 8 bytes; Long.MAX_VALUE (latest) in Hudi's native writer.
     */

    /**
     * Cell type, 1 byte (KeyValue.Type); always Put in Hudi.
     */

    return CellKey;
  })();

  /**
   * Uncompressed payload of a DATABLK* block: cells in key order. Every writer Hudi uses sets
   * file info KEY_VALUE_VERSION to 1 and writes no tags, so every cell ends with its memstore
   * timestamp (always 0, one byte).
   * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileDataBlock.java|Source}
   */

  var DataBlockBody = Hfile.DataBlockBody = (function() {
    function DataBlockBody(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DataBlockBody.prototype._read = function() {
      this._debug.cells = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.cells.arr = [];
      this.cells = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.cells.arr[this.cells.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_cells = new Cell(this._io, this, this._root);
        try {
          _t_cells._read();
        } finally {
          this.cells.push(_t_cells);
        }
        this._debug.cells.arr[this.cells.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.cells.end = this._io.pos;
    }

    /**
     * The cells of the block.
     */

    return DataBlockBody;
  })();

  /**
   * Uncompressed payload of the FILEINF2 block, `PBUF` then a length-delimited protobuf InfoProto.
   * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileFileInfoBlock.java|Source}
   */

  var FileInfoBody = Hfile.FileInfoBody = (function() {
    function FileInfoBody(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    FileInfoBody.prototype._read = function() {
      this._debug.pbMagic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.pbMagic = this._io.readBytes(4);
      this._debug.pbMagic.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.pbMagic, new Uint8Array([80, 66, 85, 70])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([80, 66, 85, 70]), this.pbMagic, this._io, "/types/file_info_body/seq/0");
        this._debug.pbMagic.validationError = _err;
        throw _err;
      }
      this._debug.lenInfo = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenInfo = new PbVarint(this._io, this, this._root);
      this.lenInfo._read();
      this._debug.lenInfo.end = this._io.pos;
      this._debug.info = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._raw_info = this._io.readBytes(this.lenInfo.value);
      var _io__raw_info = new KaitaiStream(this._raw_info);
      this.info = new PbMessage(_io__raw_info, this, this._root);
      this.info._read();
      this._debug.info.end = this._io.pos;
      this._debug.rest = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.rest = this._io.readBytesFull();
      this._debug.rest.end = this._io.pos;
    }

    /**
     * Protobuf magic, 4 bytes.
     */

    /**
     * Length of the InfoProto message, a protobuf varint.
     */

    /**
     * InfoProto, field 1 repeated (`map_entry`, a BytesBytesPair of name and value each).
     */

    /**
     * Bytes after the message; none in Hudi's files.
     */

    return FileInfoBody;
  })();

  /**
   * Hadoop's WritableUtils variable-length integer: one byte for -112..127, else a marker byte
   * (-113..-120 for 1..8 positive bytes, -121..-128 for negative) and the bytes, big-endian.
   * Lengths and memstore timestamps are never negative, so negative markers are refused.
   */

  var HadoopVint = Hfile.HadoopVint = (function() {
    function HadoopVint(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    HadoopVint.prototype._read = function() {
      this._debug.first = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.first = this._io.readS1();
      this._debug.first.end = this._io.pos;
      if (!(this.first >= -116)) {
        var _err = new KaitaiStream.ValidationLessThanError(-116, this.first, this._io, "/types/hadoop_vint/seq/0");
        this._debug.first.validationError = _err;
        throw _err;
      }
      this._debug.rest = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.rest = this._io.readBytes((this.first >= -112 ? 0 : -112 - this.first));
      this._debug.rest.end = this._io.pos;
    }

    /**
     * The value.
     */
    Object.defineProperty(HadoopVint.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = (this.first >= -112 ? this.first : (this.rest.length == 1 ? this.rest[0] : (this.rest.length == 2 ? this.rest[0] * 256 + this.rest[1] : (this.rest.length == 3 ? (this.rest[0] * 256 + this.rest[1]) * 256 + this.rest[2] : ((this.rest[0] * 256 + this.rest[1]) * 256 + this.rest[2]) * 256 + this.rest[3]))));
        return this._m_value;
      }
    });

    /**
     * The value itself (-112..127) or the marker of 1..4 following bytes.
     */

    /**
     * The value's bytes, big-endian, when the first byte is a marker.
     */

    return HadoopVint;
  })();

  /**
   * Uncompressed payload of an IDXROOT2 block: the single-level root data index (one entry per
   * data block) or the meta index (one per meta block). Hudi writes one index level only (the
   * trailer's num_data_index_levels is 1 in every Hudi file); HBase's root index of a multi-level
   * index would end with a mid-key record (long, int, int) that this type does not describe.
   * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileRootIndexBlock.java|Source}
   */

  var IndexBody = Hfile.IndexBody = (function() {
    function IndexBody(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    IndexBody.prototype._read = function() {
      this._debug.entries = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.entries.arr = [];
      this.entries = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.entries.arr[this.entries.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_entries = new IndexEntry(this._io, this, this._root);
        try {
          _t_entries._read();
        } finally {
          this.entries.push(_t_entries);
        }
        this._debug.entries.arr[this.entries.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.entries.end = this._io.pos;
    }

    /**
     * The entries, in key order.
     */

    return IndexBody;
  })();

  /**
   * One index entry.
   */

  var IndexEntry = Hfile.IndexEntry = (function() {
    function IndexEntry(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    IndexEntry.prototype._read = function() {
      this._debug.offset = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.offset = this._io.readS8be();
      this._debug.offset.end = this._io.pos;
      if (!(this.offset >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.offset, this._io, "/types/index_entry/seq/0");
        this._debug.offset.validationError = _err;
        throw _err;
      }
      this._debug.lenBlock = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenBlock = this._io.readS4be();
      this._debug.lenBlock.end = this._io.pos;
      if (!(this.lenBlock >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenBlock, this._io, "/types/index_entry/seq/1");
        this._debug.lenBlock.validationError = _err;
        throw _err;
      }
      this._debug.lenKey = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenKey = new HadoopVint(this._io, this, this._root);
      this.lenKey._read();
      this._debug.lenKey.end = this._io.pos;
      var _ = this.lenKey;
      if (!(_.value >= 0)) {
        var _err = new KaitaiStream.ValidationExprError(this.lenKey, this._io, "/types/index_entry/seq/2");
        this._debug.lenKey.validationError = _err;
        throw _err;
      }
      this._debug.key = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.key = this._io.readBytes(this.lenKey.value);
      this._debug.key.end = this._io.pos;
    }

    /**
     * File offset of the block indexed, 8 bytes.
     */

    /**
     * On-disk size of that block with its header, 4 bytes.
     */

    /**
     * Length of the key, a Hadoop vint.
     */

    /**
     * The block's first key: for a data index in Hudi's native writer a 2-byte length and
     * the row; in HBase's writer the whole cell key; for the meta index the meta block's name.
     */

    return IndexEntry;
  })();

  /**
   * Uncompressed payload of an IDXLEAF2 or IDXINTE2 block (multi-level index; HBase only).
   */

  var NonrootIndexBody = Hfile.NonrootIndexBody = (function() {
    function NonrootIndexBody(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    NonrootIndexBody.prototype._read = function() {
      this._debug.numEntries = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.numEntries = this._io.readS4be();
      this._debug.numEntries.end = this._io.pos;
      if (!(this.numEntries >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.numEntries, this._io, "/types/nonroot_index_body/seq/0");
        this._debug.numEntries.validationError = _err;
        throw _err;
      }
      this._debug.secondaryIndex = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.secondaryIndex.arr = [];
      this.secondaryIndex = [];
      for (var i = 0; i < this.numEntries + 1; i++) {
        this._debug.secondaryIndex.arr[i] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.secondaryIndex.push(this._io.readS4be());
        this._debug.secondaryIndex.arr[i].end = this._io.pos;
      }
      this._debug.secondaryIndex.end = this._io.pos;
      this._debug.entries = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.entries = this._io.readBytesFull();
      this._debug.entries.end = this._io.pos;
    }

    /**
     * Number of entries, 4 bytes.
     */

    /**
     * Offsets of each entry (and of the end) after this array, 4 bytes each.
     */

    /**
     * The entries (long offset, int on-disk size, key), located by secondary_index.
     */

    return NonrootIndexBody;
  })();

  /**
   * A length-delimited protobuf value (string, bytes or message).
   */

  var PbBytes = Hfile.PbBytes = (function() {
    function PbBytes(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    PbBytes.prototype._read = function() {
      this._debug.lenData = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenData = new PbVarint(this._io, this, this._root);
      this.lenData._read();
      this._debug.lenData.end = this._io.pos;
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.lenData.value);
      this._debug.data.end = this._io.pos;
    }

    /**
     * Length, a protobuf varint.
     */

    /**
     * The bytes.
     */

    return PbBytes;
  })();

  /**
   * One protobuf field, a tag and a value laid out by the wire type.
   */

  var PbField = Hfile.PbField = (function() {
    function PbField(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    PbField.prototype._read = function() {
      this._debug.tag = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.tag = new PbVarint(this._io, this, this._root);
      this.tag._read();
      this._debug.tag.end = this._io.pos;
      var _ = this.tag;
      if (!( ((KaitaiStream.mod(_.value, 8) == Hfile.WireType.VARINT) || (KaitaiStream.mod(_.value, 8) == Hfile.WireType.LEN_DELIMITED) || (KaitaiStream.mod(_.value, 8) == Hfile.WireType.FIXED64) || (KaitaiStream.mod(_.value, 8) == Hfile.WireType.FIXED32)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.tag, this._io, "/types/pb_field/seq/0");
        this._debug.tag.validationError = _err;
        throw _err;
      }
      this._debug.value = { start: this._io.pos, ioOffset: this._io.byteOffset };
      switch (this.wireType) {
      case Hfile.WireType.FIXED32:
        this.value = new PbFixed32(this._io, this, this._root);
        this.value._read();
        break;
      case Hfile.WireType.FIXED64:
        this.value = new PbFixed64(this._io, this, this._root);
        this.value._read();
        break;
      case Hfile.WireType.LEN_DELIMITED:
        this.value = new PbBytes(this._io, this, this._root);
        this.value._read();
        break;
      case Hfile.WireType.VARINT:
        this.value = new PbVarint(this._io, this, this._root);
        this.value._read();
        break;
      }
      this._debug.value.end = this._io.pos;
    }

    /**
     * The value of a varint field (0 for other wire types).
     */
    Object.defineProperty(PbField.prototype, 'intValue', {
      get: function() {
        if (this._m_intValue !== undefined)
          return this._m_intValue;
        this._debug._m_intValue = {  };
        this._m_intValue = (this.wireType == Hfile.WireType.VARINT ? this.value.value : 0);
        return this._m_intValue;
      }
    });

    /**
     * Field number.
     */
    Object.defineProperty(PbField.prototype, 'number', {
      get: function() {
        if (this._m_number !== undefined)
          return this._m_number;
        this._debug._m_number = {  };
        this._m_number = Math.floor(this.tag.value / 8);
        return this._m_number;
      }
    });

    /**
     * Wire type.
     */
    Object.defineProperty(PbField.prototype, 'wireType', {
      get: function() {
        if (this._m_wireType !== undefined)
          return this._m_wireType;
        this._debug._m_wireType = { enumName: "Hfile.WireType" };
        this._m_wireType = KaitaiStream.mod(this.tag.value, 8);
        return this._m_wireType;
      }
    });

    /**
     * Field number times 8 plus the wire type.
     */

    /**
     * The value.
     */

    return PbField;
  })();

  /**
   * A fixed 32-bit protobuf value.
   */

  var PbFixed32 = Hfile.PbFixed32 = (function() {
    function PbFixed32(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    PbFixed32.prototype._read = function() {
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(4);
      this._debug.data.end = this._io.pos;
    }

    /**
     * 4 bytes, little-endian.
     */

    return PbFixed32;
  })();

  /**
   * A fixed 64-bit protobuf value.
   */

  var PbFixed64 = Hfile.PbFixed64 = (function() {
    function PbFixed64(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    PbFixed64.prototype._read = function() {
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(8);
      this._debug.data.end = this._io.pos;
    }

    /**
     * 8 bytes, little-endian.
     */

    return PbFixed64;
  })();

  /**
   * A protobuf message as its fields in the order written.
   */

  var PbMessage = Hfile.PbMessage = (function() {
    function PbMessage(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    PbMessage.prototype._read = function() {
      this._debug.fields = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.fields.arr = [];
      this.fields = [];
      var i = 0;
      while (!this._io.isEof()) {
        this._debug.fields.arr[this.fields.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_fields = new PbField(this._io, this, this._root);
        try {
          _t_fields._read();
        } finally {
          this.fields.push(_t_fields);
        }
        this._debug.fields.arr[this.fields.length - 1].end = this._io.pos;
        i++;
      }
      this._debug.fields.end = this._io.pos;
    }

    /**
     * The fields.
     */

    return PbMessage;
  })();

  /**
   * A protobuf base-128 varint, least significant group first. Protobuf writes at most 10 groups;
   * `value` reads 10 (hudi-log's bridge refuses longer ones).
   */

  var PbVarint = Hfile.PbVarint = (function() {
    function PbVarint(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    PbVarint.prototype._read = function() {
      this._debug.groups = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.groups.arr = [];
      this.groups = [];
      var i = 0;
      do {
        this._debug.groups.arr[this.groups.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _ = this._io.readU1();
        this.groups.push(_);
        this._debug.groups.arr[this.groups.length - 1].end = this._io.pos;
        i++;
      } while (!(_ < 128));
      this._debug.groups.end = this._io.pos;
    }

    /**
     * The value. Above 2^53 it is exact in Python only (JavaScript numbers are doubles): HBase
     * writes 2^64 - 1 (-1) as the first and last data block offsets of a file without cells.
     */
    Object.defineProperty(PbVarint.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = ((((((((KaitaiStream.mod(this.groups[0], 128) + (this.groups.length > 1 ? KaitaiStream.mod(this.groups[1], 128) * 128 : 0)) + (this.groups.length > 2 ? KaitaiStream.mod(this.groups[2], 128) * 16384 : 0)) + (this.groups.length > 3 ? KaitaiStream.mod(this.groups[3], 128) * 2097152 : 0)) + (this.groups.length > 4 ? KaitaiStream.mod(this.groups[4], 128) * 268435456 : 0)) + (this.groups.length > 5 ? KaitaiStream.mod(this.groups[5], 128) * 34359738368 : 0)) + (this.groups.length > 6 ? KaitaiStream.mod(this.groups[6], 128) * 4398046511104 : 0)) + (this.groups.length > 7 ? KaitaiStream.mod(this.groups[7], 128) * 562949953421312 : 0)) + (this.groups.length > 8 ? KaitaiStream.mod(this.groups[8], 128) * 72057594037927936 : 0)) + (this.groups.length > 9 ? KaitaiStream.mod(this.groups[9], 128) * 9223372036854775807 + KaitaiStream.mod(this.groups[9], 128) : 0);
        return this._m_value;
      }
    });

    /**
     * The 7-bit groups; the high bit marks a group that is not the last.
     */

    return PbVarint;
  })();

  /**
   * The fixed trailer: magic, a length-delimited protobuf TrailerProto, zero padding, and the
   * version (major in the low 3 bytes, minor in the top byte).
   * @see {@link https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileTrailer.java|Source}
   */

  var Trailer = Hfile.Trailer = (function() {
    function Trailer(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Trailer.prototype._read = function() {
      this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.magic = this._io.readBytes(8);
      this._debug.magic.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.magic, new Uint8Array([84, 82, 65, 66, 76, 75, 34, 36])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([84, 82, 65, 66, 76, 75, 34, 36]), this.magic, this._io, "/types/trailer/seq/0");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.lenProto = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenProto = new PbVarint(this._io, this, this._root);
      this.lenProto._read();
      this._debug.lenProto.end = this._io.pos;
      this._debug.proto = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._raw_proto = this._io.readBytes(this.lenProto.value);
      var _io__raw_proto = new KaitaiStream(this._raw_proto);
      this.proto = new PbMessage(_io__raw_proto, this, this._root);
      this.proto._read();
      this._debug.proto.end = this._io.pos;
      this._debug.padding = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.padding = this._io.readBytes((this._io.size - this._io.pos) - 4);
      this._debug.padding.end = this._io.pos;
      this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.version = this._io.readU4be();
      this._debug.version.end = this._io.pos;
      var _ = this.version;
      if (!(KaitaiStream.mod(_, 16777216) == 3)) {
        var _err = new KaitaiStream.ValidationExprError(this.version, this._io, "/types/trailer/seq/4");
        this._debug.version.validationError = _err;
        throw _err;
      }
    }

    /**
     * The compression codec (field 12) where it sits at its place in the message, as every
     * writer puts it (fields in number order; field 4 is absent in Hudi 1.1's files); NONE
     * otherwise.
     */
    Object.defineProperty(Trailer.prototype, 'compressionCodec', {
      get: function() {
        if (this._m_compressionCodec !== undefined)
          return this._m_compressionCodec;
        this._debug._m_compressionCodec = { enumName: "Hfile.CompressionCodec" };
        this._m_compressionCodec = ( ((this.proto.fields.length > 11) && (this.proto.fields[11].number == Hfile.TrailerField.COMPRESSION_CODEC))  ? this.proto.fields[11].intValue : ( ((this.proto.fields.length > 10) && (this.proto.fields[10].number == Hfile.TrailerField.COMPRESSION_CODEC))  ? this.proto.fields[10].intValue : 2));
        return this._m_compressionCodec;
      }
    });

    /**
     * HFile major version (3).
     */
    Object.defineProperty(Trailer.prototype, 'majorVersion', {
      get: function() {
        if (this._m_majorVersion !== undefined)
          return this._m_majorVersion;
        this._debug._m_majorVersion = {  };
        this._m_majorVersion = KaitaiStream.mod(this.version, 16777216);
        return this._m_majorVersion;
      }
    });

    /**
     * Minor version; 3 from HBase's writer (Hudi 0.x, 1.0), 0 from Hudi 1.1's.
     */
    Object.defineProperty(Trailer.prototype, 'minorVersion', {
      get: function() {
        if (this._m_minorVersion !== undefined)
          return this._m_minorVersion;
        this._debug._m_minorVersion = {  };
        this._m_minorVersion = Math.floor(this.version / 16777216);
        return this._m_minorVersion;
      }
    });

    /**
     * Trailer magic, 8 bytes.
     */

    /**
     * Length of the TrailerProto, a protobuf varint.
     */

    /**
     * The TrailerProto message (field numbers in `trailer_field`).
     */

    /**
     * Zero bytes up to the version.
     */

    /**
     * Version, 4 bytes; major version 3 in the low 3 bytes, minor version in the top byte.
     */

    return Trailer;
  })();

  /**
   * Every block of the file, all but the last 4096 bytes.
   */

  /**
   * The fixed file trailer, the last 4096 bytes.
   */

  return Hfile;
})();
Hfile_.Hfile = Hfile;
});
