// This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild

(function (root, factory) {
  if (typeof define === 'function' && define.amd) {
    define(['exports', 'kaitai-struct/KaitaiStream'], factory);
  } else if (typeof exports === 'object' && exports !== null && typeof exports.nodeType !== 'number') {
    factory(exports, require('kaitai-struct/KaitaiStream'));
  } else {
    factory(root.HudiLog || (root.HudiLog = {}), root.KaitaiStream);
  }
})(typeof self !== 'undefined' ? self : this, function (HudiLog_, KaitaiStream) {
/**
 * The log files of an Apache Hudi Merge-On-Read table (`.{fileId}_{instant}.log.{version}_{writeToken}`)
 * hold updates and deletes for one file group. A file is a sequence of blocks with no file header and
 * no trailer; an empty file (0 bytes) is legal. Every block starts with the magic `#HUDI#` and is
 * framed by its size on both ends (block size after the magic, reverse pointer at the end), so a
 * reader can detect a torn block and walk the file backwards.
 * 
 * Integers are big-endian (Java DataOutputStream), except inside Avro and Parquet payloads. Log
 * format version 1 is written by every Hudi release since 0.4.1 and by table versions up to 9.
 * Format version 0 (no header, footer or reverse pointer) is described for completeness; modern
 * Hudi readers cannot read it.
 * 
 * Content layouts: Avro data and CDC blocks hold length-prefixed Avro binary records written with
 * the schema of the SCHEMA header; delete blocks hold an Avro `HoodieDeleteRecordList` (content
 * version 3); Parquet and HFile blocks embed a whole file; command blocks (rollback) are empty.
 * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-hadoop-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatWriter.java|Source}
 * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFileReader.java|Source}
 * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java|Source}
 */

var HudiLog = (function() {
  HudiLog.BlockType = Object.freeze({
    COMMAND_BLOCK: 0,
    DELETE_BLOCK: 1,
    CORRUPT_BLOCK: 2,
    AVRO_DATA_BLOCK: 3,
    HFILE_DATA_BLOCK: 4,
    PARQUET_DATA_BLOCK: 5,
    CDC_DATA_BLOCK: 6,

    0: "COMMAND_BLOCK",
    1: "DELETE_BLOCK",
    2: "CORRUPT_BLOCK",
    3: "AVRO_DATA_BLOCK",
    4: "HFILE_DATA_BLOCK",
    5: "PARQUET_DATA_BLOCK",
    6: "CDC_DATA_BLOCK",
  });

  HudiLog.CommandBlockType = Object.freeze({
    ROLLBACK_BLOCK: 0,

    0: "ROLLBACK_BLOCK",
  });

  HudiLog.HeaderKey = Object.freeze({
    INSTANT_TIME: 0,
    TARGET_INSTANT_TIME: 1,
    SCHEMA: 2,
    COMMAND_BLOCK_TYPE: 3,
    COMPACTED_BLOCK_TIMES: 4,
    RECORD_POSITIONS: 5,
    BLOCK_IDENTIFIER: 6,
    IS_PARTIAL: 7,
    BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS: 8,

    0: "INSTANT_TIME",
    1: "TARGET_INSTANT_TIME",
    2: "SCHEMA",
    3: "COMMAND_BLOCK_TYPE",
    4: "COMPACTED_BLOCK_TIMES",
    5: "RECORD_POSITIONS",
    6: "BLOCK_IDENTIFIER",
    7: "IS_PARTIAL",
    8: "BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS",
  });

  HudiLog.OrderingKind = Object.freeze({
    NULL: 0,
    BOOLEAN: 1,
    INT: 2,
    LONG: 3,
    FLOAT: 4,
    DOUBLE: 5,
    BYTES: 6,
    STRING: 7,
    DATE: 8,
    DECIMAL: 9,
    TIME_MICROS: 10,
    TIMESTAMP_MICROS: 11,
    ARRAY: 12,
    LOCAL_DATE: 13,

    0: "NULL",
    1: "BOOLEAN",
    2: "INT",
    3: "LONG",
    4: "FLOAT",
    5: "DOUBLE",
    6: "BYTES",
    7: "STRING",
    8: "DATE",
    9: "DECIMAL",
    10: "TIME_MICROS",
    11: "TIMESTAMP_MICROS",
    12: "ARRAY",
    13: "LOCAL_DATE",
  });

  function HudiLog(_io, _parent, _root) {
    this._io = _io;
    this._parent = _parent;
    this._root = _root || this;
    this._debug = {};

  }
  HudiLog.prototype._read = function() {
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
   * ArrayWrapper {wrappedValues: ["null", array<ordering value>]}, the ordering values of
   * several ordering fields (Hudi 1.1).
   */

  var ArrayWrapper = HudiLog.ArrayWrapper = (function() {
    function ArrayWrapper(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    ArrayWrapper.prototype._read = function() {
      this._debug.branch = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.branch = new AvroLong(this._io, this, this._root);
      this.branch._read();
      this._debug.branch.end = this._io.pos;
      var _ = this.branch;
      if (!( ((_.value == 0) || (_.value == 1)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.branch, this._io, "/types/array_wrapper/seq/0");
        this._debug.branch.validationError = _err;
        throw _err;
      }
      if (this.branch.value == 1) {
        this._debug.arrayBlocks = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this._debug.arrayBlocks.arr = [];
        this.arrayBlocks = [];
        var i = 0;
        do {
          this._debug.arrayBlocks.arr[this.arrayBlocks.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
          var _t_arrayBlocks = new OrderingValueArrayBlock(this._io, this, this._root);
          try {
            _t_arrayBlocks._read();
          } finally {
            var _ = _t_arrayBlocks;
            this.arrayBlocks.push(_);
          }
          this._debug.arrayBlocks.arr[this.arrayBlocks.length - 1].end = this._io.pos;
          i++;
        } while (!(_.numItems.value == 0));
        this._debug.arrayBlocks.end = this._io.pos;
      }
    }

    /**
     * Union branch index of wrappedValues, as an Avro long (0 = null, 1 = array).
     */

    /**
     * The array's blocks; the last one has count 0 and no items.
     */

    return ArrayWrapper;
  })();

  /**
   * Avro bytes or string, its length as an Avro long, then the bytes.
   */

  var AvroBytes = HudiLog.AvroBytes = (function() {
    function AvroBytes(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    AvroBytes.prototype._read = function() {
      this._debug.lenData = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenData = new AvroLong(this._io, this, this._root);
      this.lenData._read();
      this._debug.lenData.end = this._io.pos;
      var _ = this.lenData;
      if (!( ((_.value >= 0) && (_.value <= 2147483647)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.lenData, this._io, "/types/avro_bytes/seq/0");
        this._debug.lenData.validationError = _err;
        throw _err;
      }
      this._debug.data = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.data = this._io.readBytes(this.lenData.value);
      this._debug.data.end = this._io.pos;
    }

    /**
     * Length of the data, in bytes, as an Avro long (Avro's Java decoder reads it as an int).
     */

    /**
     * The data, len_data bytes.
     */

    return AvroBytes;
  })();

  /**
   * Content of AVRO_DATA_BLOCK and CDC_DATA_BLOCK: a version, a record count, then every record
   * as its length and its Avro binary encoding (no container, no sync markers) under the writer
   * schema of the SCHEMA header. Uncompressed. The same layout in content versions 1 to 3.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieAvroDataBlock.java|Source}
   */

  var AvroDataContent = HudiLog.AvroDataContent = (function() {
    function AvroDataContent(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    AvroDataContent.prototype._read = function() {
      this._debug.contentVersion = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.contentVersion = this._io.readS4be();
      this._debug.contentVersion.end = this._io.pos;
      if (!( ((this.contentVersion == 1) || (this.contentVersion == 2) || (this.contentVersion == 3)) )) {
        var _err = new KaitaiStream.ValidationNotAnyOfError(this.contentVersion, this._io, "/types/avro_data_content/seq/0");
        this._debug.contentVersion.validationError = _err;
        throw _err;
      }
      this._debug.numRecords = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.numRecords = this._io.readS4be();
      this._debug.numRecords.end = this._io.pos;
      if (!(this.numRecords >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.numRecords, this._io, "/types/avro_data_content/seq/1");
        this._debug.numRecords.validationError = _err;
        throw _err;
      }
      this._debug.records = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.records.arr = [];
      this.records = [];
      for (var i = 0; i < this.numRecords; i++) {
        this._debug.records.arr[i] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_records = new AvroRecord(this._io, this, this._root);
        try {
          _t_records._read();
        } finally {
          this.records.push(_t_records);
        }
        this._debug.records.arr[i].end = this._io.pos;
      }
      this._debug.records.end = this._io.pos;
    }

    /**
     * Content version, 4 bytes (HoodieLogBlock.version at write time; 3 since Hudi 0.14).
     */

    /**
     * Number of records that follow (4 bytes).
     */

    /**
     * The records, num_records of them.
     */

    return AvroDataContent;
  })();

  /**
   * Avro int or long: zig-zag encoded, then written 7 bits at a time, least significant group
   * first, the high bit of each byte set when more bytes follow (1 to 10 bytes).
   * @see {@link https://avro.apache.org/docs/1.11.1/specification/#primitive-types-1|Source}
   */

  var AvroLong = HudiLog.AvroLong = (function() {
    function AvroLong(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    AvroLong.prototype._read = function() {
      this._debug.groups = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.groups.arr = [];
      this.groups = [];
      var i = 0;
      do {
        this._debug.groups.arr[this.groups.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _ = this._io.readU1();
        this.groups.push(_);
        this._debug.groups.arr[this.groups.length - 1].end = this._io.pos;
        var _ = this.groups[i];
        if (!(this.groups.length <= 10)) {
          var _err = new KaitaiStream.ValidationExprError(this.groups[i], this._io, "/types/avro_long/seq/0");
          this._debug.groups.arr[this.groups.length - 1].validationError = _err;
          throw _err;
        }
        i++;
      } while (!(_ < 128));
      this._debug.groups.end = this._io.pos;
    }

    /**
     * Number of bytes of the varint.
     */
    Object.defineProperty(AvroLong.prototype, 'lenGroups', {
      get: function() {
        if (this._m_lenGroups !== undefined)
          return this._m_lenGroups;
        this._debug._m_lenGroups = {  };
        this._m_lenGroups = this.groups.length;
        return this._m_lenGroups;
      }
    });

    /**
     * The decoded signed value. The sign is the lowest bit of the first byte, so that it is
     * right in JavaScript too, where a zigzag above 2^53 is a rounded double (the magnitude
     * then is too; `groups` are exact in every engine).
     */
    Object.defineProperty(AvroLong.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = (KaitaiStream.mod(this.groups[0], 2) == 0 ? Math.floor(this.zigzag / 2) : -(Math.floor((this.zigzag + 1) / 2)));
        return this._m_value;
      }
    });

    /**
     * The unsigned varint value before zig-zag decoding (arithmetic, so that it also works in JavaScript).
     */
    Object.defineProperty(AvroLong.prototype, 'zigzag', {
      get: function() {
        if (this._m_zigzag !== undefined)
          return this._m_zigzag;
        this._debug._m_zigzag = {  };
        this._m_zigzag = ((((((((KaitaiStream.mod(this.groups[0], 128) + (this.lenGroups > 1 ? KaitaiStream.mod(this.groups[1], 128) * 128 : 0)) + (this.lenGroups > 2 ? KaitaiStream.mod(this.groups[2], 128) * 16384 : 0)) + (this.lenGroups > 3 ? KaitaiStream.mod(this.groups[3], 128) * 2097152 : 0)) + (this.lenGroups > 4 ? KaitaiStream.mod(this.groups[4], 128) * 268435456 : 0)) + (this.lenGroups > 5 ? KaitaiStream.mod(this.groups[5], 128) * 34359738368 : 0)) + (this.lenGroups > 6 ? KaitaiStream.mod(this.groups[6], 128) * 4398046511104 : 0)) + (this.lenGroups > 7 ? KaitaiStream.mod(this.groups[7], 128) * 562949953421312 : 0)) + (this.lenGroups > 8 ? KaitaiStream.mod(this.groups[8], 128) * 72057594037927936 : 0)) + (this.lenGroups > 9 ? KaitaiStream.mod(this.groups[9], 128) * 9223372036854775808 : 0);
        return this._m_zigzag;
      }
    });

    /**
     * The varint's bytes, 1 byte each; the last one has its high bit clear. At most 10, as
     * Avro's decoder allows: the check counts the collected bytes (`_index` inside
     * `repeat-until` is not evaluated alike by every engine).
     */

    return AvroLong;
  })();

  /**
   * Avro union ["null", "string"].
   */

  var AvroOptionalString = HudiLog.AvroOptionalString = (function() {
    function AvroOptionalString(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    AvroOptionalString.prototype._read = function() {
      this._debug.branch = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.branch = new AvroLong(this._io, this, this._root);
      this.branch._read();
      this._debug.branch.end = this._io.pos;
      var _ = this.branch;
      if (!( ((_.value == 0) || (_.value == 1)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.branch, this._io, "/types/avro_optional_string/seq/0");
        this._debug.branch.validationError = _err;
        throw _err;
      }
      if (this.branch.value == 1) {
        this._debug.string = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.string = new AvroBytes(this._io, this, this._root);
        this.string._read();
        this._debug.string.end = this._io.pos;
      }
    }

    /**
     * The string ("" for null).
     */
    Object.defineProperty(AvroOptionalString.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = (this.branch.value == 1 ? KaitaiStream.bytesToStr(this.string.data, "UTF-8") : "");
        return this._m_value;
      }
    });

    /**
     * Union branch index, as an Avro long (0 = null, 1 = string).
     */

    /**
     * The string, as Avro length-prefixed UTF-8 bytes.
     */

    return AvroOptionalString;
  })();

  /**
   * One length-prefixed Avro binary datum.
   */

  var AvroRecord = HudiLog.AvroRecord = (function() {
    function AvroRecord(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    AvroRecord.prototype._read = function() {
      this._debug.lenDatum = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenDatum = this._io.readS4be();
      this._debug.lenDatum.end = this._io.pos;
      if (!(this.lenDatum >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenDatum, this._io, "/types/avro_record/seq/0");
        this._debug.lenDatum.validationError = _err;
        throw _err;
      }
      this._debug.datum = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.datum = this._io.readBytes(this.lenDatum);
      this._debug.datum.end = this._io.pos;
    }

    /**
     * Length of the datum, in bytes (4 bytes).
     */

    /**
     * The record, len_datum bytes of Avro binary encoding under the block's writer schema.
     */

    return AvroRecord;
  })();

  /**
   * One log block. On disk a format-version-1 block takes len_block + 14 bytes: the 6-byte
   * magic, the 8-byte block size (Hudi's blockSize, here `len_block`), and len_block bytes
   * that end with the reverse pointer. A format-version-0 block takes len_block + 18: its
   * content (len_block bytes, as Hudi's reader takes it) follows the 4-byte version. Readers
   * also check that the fields between the block size and the reverse pointer add up to
   * len_block (Hudi finds the reverse pointer len_block bytes after the size field); this
   * grammar checks the two ends agree. Lengths are named `len_*` as Kaitai's style guide
   * asks; Hudi's own names are kept in `-orig-id`.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-hadoop-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatWriter.java|Source}
   */

  var Block = HudiLog.Block = (function() {
    function Block(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    Block.prototype._read = function() {
      this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.magic = this._io.readBytes(6);
      this._debug.magic.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.magic, new Uint8Array([35, 72, 85, 68, 73, 35])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([35, 72, 85, 68, 73, 35]), this.magic, this._io, "/types/block/seq/0");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.lenBlock = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenBlock = this._io.readS8be();
      this._debug.lenBlock.end = this._io.pos;
      if (!(this.lenBlock >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenBlock, this._io, "/types/block/seq/1");
        this._debug.lenBlock.validationError = _err;
        throw _err;
      }
      if (!(this.lenBlock <= 2147483647)) {
        var _err = new KaitaiStream.ValidationGreaterThanError(2147483647, this.lenBlock, this._io, "/types/block/seq/1");
        this._debug.lenBlock.validationError = _err;
        throw _err;
      }
      this._debug.formatVersion = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.formatVersion = this._io.readS4be();
      this._debug.formatVersion.end = this._io.pos;
      if (!( ((this.formatVersion == 0) || (this.formatVersion == 1)) )) {
        var _err = new KaitaiStream.ValidationNotAnyOfError(this.formatVersion, this._io, "/types/block/seq/2");
        this._debug.formatVersion.validationError = _err;
        throw _err;
      }
      if (this.formatVersion != 0) {
        this._debug.blockType = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "HudiLog.BlockType" };
        this.blockType = this._io.readS4be();
        this._debug.blockType.end = this._io.pos;
        if (!Object.prototype.hasOwnProperty.call(HudiLog.BlockType, this.blockType)) {
          var _err = new KaitaiStream.ValidationNotInEnumError(this.blockType, this._io, "/types/block/seq/3");
          this._debug.blockType.validationError = _err;
          throw _err;
        }
      }
      if (this.formatVersion != 0) {
        this._debug.header = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.header = new MetadataMap(this._io, this, this._root);
        this.header._read();
        this._debug.header.end = this._io.pos;
      }
      if (this.formatVersion != 0) {
        this._debug.lenContent = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.lenContent = this._io.readS8be();
        this._debug.lenContent.end = this._io.pos;
        if (!(this.lenContent >= 0)) {
          var _err = new KaitaiStream.ValidationLessThanError(0, this.lenContent, this._io, "/types/block/seq/5");
          this._debug.lenContent.validationError = _err;
          throw _err;
        }
        if (!(this.lenContent <= 2147483647)) {
          var _err = new KaitaiStream.ValidationGreaterThanError(2147483647, this.lenContent, this._io, "/types/block/seq/5");
          this._debug.lenContent.validationError = _err;
          throw _err;
        }
      }
      if (this.formatVersion != 0) {
        this._debug.content = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this._raw_content = this._io.readBytes(this.lenContent);
        var _io__raw_content = new KaitaiStream(this._raw_content);
        this.content = new BlockContent(_io__raw_content, this, this._root);
        this.content._read();
        this._debug.content.end = this._io.pos;
      }
      if (this.formatVersion == 0) {
        this._debug.legacyContent = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.legacyContent = this._io.readBytes(this.lenLegacyContent);
        this._debug.legacyContent.end = this._io.pos;
      }
      if (this.formatVersion != 0) {
        this._debug.footer = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.footer = new MetadataMap(this._io, this, this._root);
        this.footer._read();
        this._debug.footer.end = this._io.pos;
      }
      if (this.formatVersion != 0) {
        this._debug.reversePointer = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.reversePointer = this._io.readS8be();
        this._debug.reversePointer.end = this._io.pos;
        var _ = this.reversePointer;
        if (!(_ == this.lenBlock + 6)) {
          var _err = new KaitaiStream.ValidationExprError(this.reversePointer, this._io, "/types/block/seq/9");
          this._debug.reversePointer.validationError = _err;
          throw _err;
        }
      }
    }

    /**
     * The INSTANT_TIME header value ("" when absent).
     */
    Object.defineProperty(Block.prototype, 'instantTime', {
      get: function() {
        if (this._m_instantTime !== undefined)
          return this._m_instantTime;
        this._debug._m_instantTime = {  };
        this._m_instantTime = (this.formatVersion != 0 ? this.header.instantTime : "");
        return this._m_instantTime;
      }
    });

    /**
     * Format version 0 has no content length: Hudi's reader takes the block size as the
     * content's length (contentLength = blockSize when the version is 0).
     */
    Object.defineProperty(Block.prototype, 'lenLegacyContent', {
      get: function() {
        if (this._m_lenLegacyContent !== undefined)
          return this._m_lenLegacyContent;
        this._debug._m_lenLegacyContent = {  };
        this._m_lenLegacyContent = this.lenBlock;
        return this._m_lenLegacyContent;
      }
    });

    /**
     * Number of records of an Avro data or CDC block; 0 for other blocks.
     */
    Object.defineProperty(Block.prototype, 'numRecords', {
      get: function() {
        if (this._m_numRecords !== undefined)
          return this._m_numRecords;
        this._debug._m_numRecords = {  };
        this._m_numRecords = ( ((this.formatVersion != 0) && ( ((this.blockType == HudiLog.BlockType.AVRO_DATA_BLOCK) || (this.blockType == HudiLog.BlockType.CDC_DATA_BLOCK)) ))  ? this.content.numRecords : 0);
        return this._m_numRecords;
      }
    });

    /**
     * Block magic, 6 bytes of ASCII `#HUDI#` (HoodieLogFormat.MAGIC).
     */

    /**
     * The block size: number of bytes that follow this field up to and including the reverse pointer:
     * 4 (format version) + 4 (block type) + header + 8 (content length) + content + footer
     * + 8 (reverse pointer). Written as a Java int, so at most 2^31 - 1 (checked: a larger
     * value would be read imprecisely by JavaScript engines, which hold numbers as doubles).
     */

    /**
     * Log format version, 4 bytes; 1 (HoodieLogFormat.CURRENT_VERSION) since Hudi 0.4.1.
     * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatVersion.java|Source}
     */

    /**
     * Block type, 4 bytes, the ordinal of HoodieLogBlockType.
     */

    /**
     * Header metadata map (instant time, schema, rollback target ...).
     */

    /**
     * The content length: bytes of the content that follows; a Java int written as 8 bytes, so
     * at most 2^31 - 1.
     */

    /**
     * The block's payload, len_content bytes, laid out by block type (its `body`, parsed
     * only when asked for). Command blocks have none: their command is in the header.
     */

    /**
     * Format version 0: the content, len_block bytes (as Hudi's reader takes it), raw: that
     * layout has no block type.
     */

    /**
     * Footer metadata map; no footer keys are defined, so Hudi always writes 4 zero bytes.
     */

    /**
     * Bytes from the first byte of the magic up to (not including) this field, i.e.
     * len_block + 6. Lets a reader jump from the end of a block back to its magic.
     */

    return Block;
  })();

  /**
   * A block's content bytes. Their layout (`body`) is parsed on demand, like the gallery's
   * sqlite3.ksy pages and mcap.ksy records: the Kaitai Web IDE then opens a log of large delete
   * or Avro blocks at once (a block's millions of records become objects only when its body is
   * expanded), and a framing scan of a log reads no content. The record count of an Avro data or
   * CDC block is read on its own (4 bytes) for the block's one-line representation.
   */

  var BlockContent = HudiLog.BlockContent = (function() {
    function BlockContent(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    BlockContent.prototype._read = function() {
    }

    /**
     * The content laid out by the block type; raw bytes for a type without a layout (a
     * command block's empty content).
     */
    Object.defineProperty(BlockContent.prototype, 'body', {
      get: function() {
        if (this._m_body !== undefined)
          return this._m_body;
        var _pos = this._io.pos;
        this._io.seek(0);
        this._debug._m_body = { start: this._io.pos, ioOffset: this._io.byteOffset };
        switch (this._parent.blockType) {
        case HudiLog.BlockType.AVRO_DATA_BLOCK:
          this._raw__m_body = this._io.readBytesFull();
          var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
          this._m_body = new AvroDataContent(_io__raw__m_body, this, this._root);
          this._m_body._read();
          break;
        case HudiLog.BlockType.CDC_DATA_BLOCK:
          this._raw__m_body = this._io.readBytesFull();
          var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
          this._m_body = new AvroDataContent(_io__raw__m_body, this, this._root);
          this._m_body._read();
          break;
        case HudiLog.BlockType.DELETE_BLOCK:
          this._raw__m_body = this._io.readBytesFull();
          var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
          this._m_body = new DeleteContent(_io__raw__m_body, this, this._root);
          this._m_body._read();
          break;
        case HudiLog.BlockType.HFILE_DATA_BLOCK:
          this._raw__m_body = this._io.readBytesFull();
          var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
          this._m_body = new HfileContent(_io__raw__m_body, this, this._root);
          this._m_body._read();
          break;
        case HudiLog.BlockType.PARQUET_DATA_BLOCK:
          this._raw__m_body = this._io.readBytesFull();
          var _io__raw__m_body = new KaitaiStream(this._raw__m_body);
          this._m_body = new ParquetContent(_io__raw__m_body, this, this._root);
          this._m_body._read();
          break;
        default:
          this._m_body = this._io.readBytesFull();
          break;
        }
        this._debug._m_body.end = this._io.pos;
        this._io.seek(_pos);
        return this._m_body;
      }
    });

    /**
     * The record count of an Avro data or CDC block, the same 4 bytes as `body.num_records`,
     * read without parsing the records.
     */
    Object.defineProperty(BlockContent.prototype, 'numRecords', {
      get: function() {
        if (this._m_numRecords !== undefined)
          return this._m_numRecords;
        if ( ((this._parent.blockType == HudiLog.BlockType.AVRO_DATA_BLOCK) || (this._parent.blockType == HudiLog.BlockType.CDC_DATA_BLOCK)) ) {
          var _pos = this._io.pos;
          this._io.seek(4);
          this._debug._m_numRecords = { start: this._io.pos, ioOffset: this._io.byteOffset };
          this._m_numRecords = this._io.readS4be();
          this._debug._m_numRecords.end = this._io.pos;
          this._io.seek(_pos);
        }
        return this._m_numRecords;
      }
    });

    return BlockContent;
  })();

  /**
   * Content of DELETE_BLOCK, the keys (and ordering values) of the deleted records.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieDeleteBlock.java|Source}
   */

  var DeleteContent = HudiLog.DeleteContent = (function() {
    function DeleteContent(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DeleteContent.prototype._read = function() {
      this._debug.contentVersion = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.contentVersion = this._io.readS4be();
      this._debug.contentVersion.end = this._io.pos;
      if (!( ((this.contentVersion == 1) || (this.contentVersion == 2) || (this.contentVersion == 3)) )) {
        var _err = new KaitaiStream.ValidationNotAnyOfError(this.contentVersion, this._io, "/types/delete_content/seq/0");
        this._debug.contentVersion.validationError = _err;
        throw _err;
      }
      this._debug.lenPayload = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenPayload = this._io.readS4be();
      this._debug.lenPayload.end = this._io.pos;
      if (!(this.lenPayload >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenPayload, this._io, "/types/delete_content/seq/1");
        this._debug.lenPayload.validationError = _err;
        throw _err;
      }
      this._debug.payload = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.payload = this._io.readBytes(this.lenPayload);
      this._debug.payload.end = this._io.pos;
    }

    /**
     * The payload laid out by content version, parsed only when asked for: a delete block
     * shows its size at once and its records one click further (the Kaitai Web IDE opens and
     * expands a block of 250,000 deletes in a small heap; `hudi-log view` pages through them).
     */
    Object.defineProperty(DeleteContent.prototype, 'records', {
      get: function() {
        if (this._m_records !== undefined)
          return this._m_records;
        var _pos = this._io.pos;
        this._io.seek(8);
        this._debug._m_records = { start: this._io.pos, ioOffset: this._io.byteOffset };
        switch (this.contentVersion) {
        case 1:
          this._raw__m_records = this._io.readBytes(this.lenPayload);
          var _io__raw__m_records = new KaitaiStream(this._raw__m_records);
          this._m_records = new KryoObjectArray(_io__raw__m_records, this, this._root);
          this._m_records._read();
          break;
        case 2:
          this._raw__m_records = this._io.readBytes(this.lenPayload);
          var _io__raw__m_records = new KaitaiStream(this._raw__m_records);
          this._m_records = new KryoObjectArray(_io__raw__m_records, this, this._root);
          this._m_records._read();
          break;
        case 3:
          this._raw__m_records = this._io.readBytes(this.lenPayload);
          var _io__raw__m_records = new KaitaiStream(this._raw__m_records);
          this._m_records = new DeleteRecordList(_io__raw__m_records, this, this._root);
          this._m_records._read();
          break;
        default:
          this._m_records = this._io.readBytes(this.lenPayload);
          break;
        }
        this._debug._m_records.end = this._io.pos;
        this._io.seek(_pos);
        return this._m_records;
      }
    });

    /**
     * Content version, 4 bytes; 3 since Hudi 0.14 (Avro), 1 and 2 were Kryo.
     */

    /**
     * Length of the payload, in bytes (4 bytes, not 8).
     */

    /**
     * The deleted keys, len_payload bytes, as bytes; `records` lays them out. Version 3: Avro
     * HoodieDeleteRecordList. Versions 1 and 2 (Hudi before 0.14): a Kryo-serialized Java
     * HoodieKey[] / DeleteRecord[].
     */

    return DeleteContent;
  })();

  /**
   * One HoodieDeleteRecord {recordKey, partitionPath, orderingVal}.
   */

  var DeleteRecord = HudiLog.DeleteRecord = (function() {
    function DeleteRecord(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DeleteRecord.prototype._read = function() {
      this._debug.recordKey = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.recordKey = new AvroOptionalString(this._io, this, this._root);
      this.recordKey._read();
      this._debug.recordKey.end = this._io.pos;
      this._debug.partitionPath = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.partitionPath = new AvroOptionalString(this._io, this, this._root);
      this.partitionPath._read();
      this._debug.partitionPath.end = this._io.pos;
      this._debug.orderingValue = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.orderingValue = new OrderingValue(this._io, this, this._root, false);
      this.orderingValue._read();
      this._debug.orderingValue.end = this._io.pos;
    }

    /**
     * The record key, union ["null", "string"].
     */

    /**
     * The partition path, union ["null", "string"].
     */

    /**
     * The ordering (precombine) value of the delete, a union of wrapper records.
     */

    return DeleteRecord;
  })();

  /**
   * One block of an Avro array of HoodieDeleteRecord.
   */

  var DeleteRecordArrayBlock = HudiLog.DeleteRecordArrayBlock = (function() {
    function DeleteRecordArrayBlock(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DeleteRecordArrayBlock.prototype._read = function() {
      this._debug.numItems = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.numItems = new AvroLong(this._io, this, this._root);
      this.numItems._read();
      this._debug.numItems.end = this._io.pos;
      var _ = this.numItems;
      if (!( ((_.value >= -2147483647) && (_.value <= 2147483647)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.numItems, this._io, "/types/delete_record_array_block/seq/0");
        this._debug.numItems.validationError = _err;
        throw _err;
      }
      if (this.numItems.value < 0) {
        this._debug.lenItems = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.lenItems = new AvroLong(this._io, this, this._root);
        this.lenItems._read();
        this._debug.lenItems.end = this._io.pos;
      }
      this._debug.items = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.items.arr = [];
      this.items = [];
      for (var i = 0; i < (this.numItems.value < 0 ? -(this.numItems.value) : this.numItems.value); i++) {
        this._debug.items.arr[i] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_items = new DeleteRecord(this._io, this, this._root);
        try {
          _t_items._read();
        } finally {
          this.items.push(_t_items);
        }
        this._debug.items.arr[i].end = this._io.pos;
      }
      this._debug.items.end = this._io.pos;
    }

    /**
     * Number of items in this block (negative when a byte size follows), as an Avro long;
     * at most 2^31 - 1 either way (a Java array's size).
     */

    /**
     * Size of the items of this block, in bytes (present only when count is negative).
     */

    /**
     * The items, |count| of them.
     */

    return DeleteRecordArrayBlock;
  })();

  /**
   * Avro binary of org.apache.hudi.avro.model.HoodieDeleteRecordList
   * {deleteRecordList: array<HoodieDeleteRecord>}: an Avro array, i.e. blocks of items ended by
   * a block whose count is 0.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/avro/HoodieDeleteRecordList.avsc|Source}
   */

  var DeleteRecordList = HudiLog.DeleteRecordList = (function() {
    function DeleteRecordList(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    DeleteRecordList.prototype._read = function() {
      this._debug.arrayBlocks = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.arrayBlocks.arr = [];
      this.arrayBlocks = [];
      var i = 0;
      do {
        this._debug.arrayBlocks.arr[this.arrayBlocks.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_arrayBlocks = new DeleteRecordArrayBlock(this._io, this, this._root);
        try {
          _t_arrayBlocks._read();
        } finally {
          var _ = _t_arrayBlocks;
          this.arrayBlocks.push(_);
        }
        this._debug.arrayBlocks.arr[this.arrayBlocks.length - 1].end = this._io.pos;
        i++;
      } while (!(_.numItems.value == 0));
      this._debug.arrayBlocks.end = this._io.pos;
    }

    /**
     * The array's blocks; the last one has count 0 and no items.
     */

    return DeleteRecordList;
  })();

  /**
   * Content of HFILE_DATA_BLOCK (metadata table): a complete HBase HFile version 3, records
   * sorted by key. Blocks (data, index, file info) come first, then a fixed 4096-byte trailer.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieHFileDataBlock.java|Source}
   */

  var HfileContent = HudiLog.HfileContent = (function() {
    function HfileContent(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    HfileContent.prototype._read = function() {
      this._debug.blocks = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.blocks = this._io.readBytes(this._io.size - 4096);
      this._debug.blocks.end = this._io.pos;
      this._debug.trailer = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._raw_trailer = this._io.readBytes(4096);
      var _io__raw_trailer = new KaitaiStream(this._raw_trailer);
      this.trailer = new HfileTrailer(_io__raw_trailer, this, this._root);
      this.trailer._read();
      this._debug.trailer.end = this._io.pos;
    }

    /**
     * The HFile's blocks (DATABLK*, IDXROOT2, FILEINF2 ...), all but the last 4096 bytes.
     */

    /**
     * The fixed file trailer, 4096 bytes.
     */

    return HfileContent;
  })();

  /**
   * HFile v3 fixed trailer; its fields are a protobuf (FileTrailerProto) after the magic.
   */

  var HfileTrailer = HudiLog.HfileTrailer = (function() {
    function HfileTrailer(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    HfileTrailer.prototype._read = function() {
      this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.magic = this._io.readBytes(8);
      this._debug.magic.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.magic, new Uint8Array([84, 82, 65, 66, 76, 75, 34, 36])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([84, 82, 65, 66, 76, 75, 34, 36]), this.magic, this._io, "/types/hfile_trailer/seq/0");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.body = this._io.readBytes((4096 - 8) - 4);
      this._debug.body.end = this._io.pos;
      this._debug.version = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.version = this._io.readU4be();
      this._debug.version.end = this._io.pos;
      var _ = this.version;
      if (!(KaitaiStream.mod(_, 16777216) == 3)) {
        var _err = new KaitaiStream.ValidationExprError(this.version, this._io, "/types/hfile_trailer/seq/2");
        this._debug.version.validationError = _err;
        throw _err;
      }
    }

    /**
     * HFile major version (3).
     */
    Object.defineProperty(HfileTrailer.prototype, 'majorVersion', {
      get: function() {
        if (this._m_majorVersion !== undefined)
          return this._m_majorVersion;
        this._debug._m_majorVersion = {  };
        this._m_majorVersion = KaitaiStream.mod(this.version, 16777216);
        return this._m_majorVersion;
      }
    });

    /**
     * HFile minor version (0 for Hudi's native writer, 3 with CRC32C checksums).
     */
    Object.defineProperty(HfileTrailer.prototype, 'minorVersion', {
      get: function() {
        if (this._m_minorVersion !== undefined)
          return this._m_minorVersion;
        this._debug._m_minorVersion = {  };
        this._m_minorVersion = Math.floor(this.version / 16777216);
        return this._m_minorVersion;
      }
    });

    /**
     * Trailer block magic, 8 bytes.
     */

    /**
     * Length-delimited protobuf FileTrailerProto, zero padded, 4084 bytes.
     */

    /**
     * HFile version, 4 bytes; major version (3) in the low 3 bytes, minor version in the top byte.
     */

    return HfileTrailer;
  })();

  /**
   * A delete payload of content version 1 or 2: Kryo 4's writeClassAndObject of a Java
   * HoodieKey[] (1) or DeleteRecord[] (2), as Hudi's SerializationUtils wrote it (registration
   * not required, references on). The grammar describes the array's own start; its elements
   * cannot be described here, because Kryo writes a class name only where it first occurs in
   * the stream and refers back to strings and objects already written by their order of
   * appearance. Each element is: class (1 = by name, then the name's id, then the name the first
   * time), a reference marker (1 = new object, 0 = null, n = object n - 2), then the fields in
   * name order (HoodieKey: partitionPath, recordKey as reference marker + Kryo string;
   * DeleteRecord: hoodieKey as class + HoodieKey, orderingVal as class + value). hudi-log's
   * reader (hudi_log/format/content/deletes_kryo.py) decodes them.
   * @see {@link https://github.com/apache/hudi/blob/release-0.13.1/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieDeleteBlock.java|Source}
   * @see {@link https://github.com/apache/hudi/blob/release-0.13.1/hudi-common/src/main/java/org/apache/hudi/common/util/SerializationUtils.java|Source}
   */

  var KryoObjectArray = HudiLog.KryoObjectArray = (function() {
    function KryoObjectArray(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    KryoObjectArray.prototype._read = function() {
      this._debug.classTag = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.classTag = new KryoVarint(this._io, this, this._root);
      this.classTag._read();
      this._debug.classTag.end = this._io.pos;
      var _ = this.classTag;
      if (!(_.value == 1)) {
        var _err = new KaitaiStream.ValidationExprError(this.classTag, this._io, "/types/kryo_object_array/seq/0");
        this._debug.classTag.validationError = _err;
        throw _err;
      }
      this._debug.classNameId = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.classNameId = new KryoVarint(this._io, this, this._root);
      this.classNameId._read();
      this._debug.classNameId.end = this._io.pos;
      var _ = this.classNameId;
      if (!(_.value == 0)) {
        var _err = new KaitaiStream.ValidationExprError(this.classNameId, this._io, "/types/kryo_object_array/seq/1");
        this._debug.classNameId.validationError = _err;
        throw _err;
      }
      this._debug.className = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.className = KaitaiStream.bytesToStr(this._io.readBytesTerm(187, false, true, true), "ASCII");
      this._debug.className.end = this._io.pos;
      var _ = this.className;
      if (!(_ == (this._parent.contentVersion == 1 ? "[Lorg.apache.hudi.common.model.HoodieKey" : "[Lorg.apache.hudi.common.model.DeleteRecord"))) {
        var _err = new KaitaiStream.ValidationExprError(this.className, this._io, "/types/kryo_object_array/seq/2");
        this._debug.className.validationError = _err;
        throw _err;
      }
      this._debug.reference = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.reference = new KryoVarint(this._io, this, this._root);
      this.reference._read();
      this._debug.reference.end = this._io.pos;
      var _ = this.reference;
      if (!(_.value == 1)) {
        var _err = new KaitaiStream.ValidationExprError(this.reference, this._io, "/types/kryo_object_array/seq/3");
        this._debug.reference.validationError = _err;
        throw _err;
      }
      this._debug.numElementsPlusOne = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.numElementsPlusOne = new KryoVarint(this._io, this, this._root);
      this.numElementsPlusOne._read();
      this._debug.numElementsPlusOne.end = this._io.pos;
      var _ = this.numElementsPlusOne;
      if (!(_.value >= 1)) {
        var _err = new KaitaiStream.ValidationExprError(this.numElementsPlusOne, this._io, "/types/kryo_object_array/seq/4");
        this._debug.numElementsPlusOne.validationError = _err;
        throw _err;
      }
      this._debug.elements = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.elements = this._io.readBytesFull();
      this._debug.elements.end = this._io.pos;
    }

    /**
     * Number of elements (deleted keys).
     */
    Object.defineProperty(KryoObjectArray.prototype, 'numElements', {
      get: function() {
        if (this._m_numElements !== undefined)
          return this._m_numElements;
        this._debug._m_numElements = {  };
        this._m_numElements = this.numElementsPlusOne.value - 1;
        return this._m_numElements;
      }
    });

    /**
     * Class tag, a Kryo varint; 1 = a class written by name (arrays are not registered).
     */

    /**
     * Id of the class name, a Kryo varint; 0, the first name of the stream.
     */

    /**
     * The array class's binary name as a Kryo ASCII string, up to its last character: Kryo
     * marks the end of an ASCII string with the high bit of its last byte, here ';' (0xBB).
     */

    /**
     * Reference marker, a Kryo varint; 1 = a new object.
     */

    /**
     * The array's length + 1, a Kryo varint (0 would be a null array).
     */

    /**
     * The elements, each a class, a reference marker and the object's fields (see above).
     */

    return KryoObjectArray;
  })();

  /**
   * A Kryo positive varint (Output.writeVarInt(value, true)): 7 bits a byte, least significant
   * group first, the high bit set when more bytes follow; at most 5 bytes.
   */

  var KryoVarint = HudiLog.KryoVarint = (function() {
    function KryoVarint(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    KryoVarint.prototype._read = function() {
      this._debug.groups = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.groups.arr = [];
      this.groups = [];
      var i = 0;
      do {
        this._debug.groups.arr[this.groups.length] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _ = this._io.readU1();
        this.groups.push(_);
        this._debug.groups.arr[this.groups.length - 1].end = this._io.pos;
        var _ = this.groups[i];
        if (!(this.groups.length <= 5)) {
          var _err = new KaitaiStream.ValidationExprError(this.groups[i], this._io, "/types/kryo_varint/seq/0");
          this._debug.groups.arr[this.groups.length - 1].validationError = _err;
          throw _err;
        }
        i++;
      } while (!(_ < 128));
      this._debug.groups.end = this._io.pos;
    }

    /**
     * The value.
     */
    Object.defineProperty(KryoVarint.prototype, 'value', {
      get: function() {
        if (this._m_value !== undefined)
          return this._m_value;
        this._debug._m_value = {  };
        this._m_value = (((KaitaiStream.mod(this.groups[0], 128) + (this.groups.length > 1 ? KaitaiStream.mod(this.groups[1], 128) * 128 : 0)) + (this.groups.length > 2 ? KaitaiStream.mod(this.groups[2], 128) * 16384 : 0)) + (this.groups.length > 3 ? KaitaiStream.mod(this.groups[3], 128) * 2097152 : 0)) + (this.groups.length > 4 ? KaitaiStream.mod(this.groups[4], 128) * 268435456 : 0);
        return this._m_value;
      }
    });

    /**
     * The varint's bytes.
     */

    return KryoVarint;
  })();

  /**
   * One metadata entry; the value is text, UTF-8 encoded (Java's String.getBytes on write,
   * `new String(bytes)` on read).
   * 
   * The value is kept as bytes: Kaitai's engines decode invalid UTF-8 differently (the Python
   * runtime raises, the JavaScript runtime substitutes U+FFFD as Java does), and bytes are what
   * both read alike. `text` is the decoded view; hudi-log's reader reports a value that is not
   * UTF-8 as a damaged block rather than rewrite it.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java|Source}
   */

  var MetadataEntry = HudiLog.MetadataEntry = (function() {
    function MetadataEntry(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    MetadataEntry.prototype._read = function() {
      this._debug.key = { start: this._io.pos, ioOffset: this._io.byteOffset, enumName: "HudiLog.HeaderKey" };
      this.key = this._io.readS4be();
      this._debug.key.end = this._io.pos;
      if (!Object.prototype.hasOwnProperty.call(HudiLog.HeaderKey, this.key)) {
        var _err = new KaitaiStream.ValidationNotInEnumError(this.key, this._io, "/types/metadata_entry/seq/0");
        this._debug.key.validationError = _err;
        throw _err;
      }
      this._debug.lenValue = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenValue = this._io.readS4be();
      this._debug.lenValue.end = this._io.pos;
      if (!(this.lenValue >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.lenValue, this._io, "/types/metadata_entry/seq/1");
        this._debug.lenValue.validationError = _err;
        throw _err;
      }
      this._debug.value = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.value = this._io.readBytes(this.lenValue);
      this._debug.value.end = this._io.pos;
    }

    /**
     * For the COMMAND_BLOCK_TYPE entry, its decimal value as the command it names.
     */
    Object.defineProperty(MetadataEntry.prototype, 'commandBlockType', {
      get: function() {
        if (this._m_commandBlockType !== undefined)
          return this._m_commandBlockType;
        if (this.key == HudiLog.HeaderKey.COMMAND_BLOCK_TYPE) {
          this._debug._m_commandBlockType = { enumName: "HudiLog.CommandBlockType" };
          this._m_commandBlockType = Number.parseInt(this.text, 10);
        }
        return this._m_commandBlockType;
      }
    });

    /**
     * The value as text (valid UTF-8 only; see the type's doc).
     */
    Object.defineProperty(MetadataEntry.prototype, 'text', {
      get: function() {
        if (this._m_text !== undefined)
          return this._m_text;
        this._debug._m_text = {  };
        this._m_text = KaitaiStream.bytesToStr(this.value, "UTF-8");
        return this._m_text;
      }
    });

    /**
     * Entry key, 4 bytes, the ordinal of HeaderMetadataType.
     */

    /**
     * Length of the value, in bytes (4 bytes).
     */

    /**
     * The value, len_value bytes of UTF-8 text (instants, Avro schema JSON, decimal numbers).
     */

    return MetadataEntry;
  })();

  /**
   * Header or footer metadata: a count, then that many (key, value) entries. Entries keep the
   * order found in the file: Hudi iterates a Java HashMap, so the order differs between writers.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java|Source}
   */

  var MetadataMap = HudiLog.MetadataMap = (function() {
    function MetadataMap(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    MetadataMap.prototype._read = function() {
      this._debug.numEntries = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.numEntries = this._io.readS4be();
      this._debug.numEntries.end = this._io.pos;
      if (!(this.numEntries >= 0)) {
        var _err = new KaitaiStream.ValidationLessThanError(0, this.numEntries, this._io, "/types/metadata_map/seq/0");
        this._debug.numEntries.validationError = _err;
        throw _err;
      }
      this._debug.entries = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.entries.arr = [];
      this.entries = [];
      for (var i = 0; i < this.numEntries; i++) {
        this._debug.entries.arr[i] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_entries = new MetadataEntry(this._io, this, this._root);
        try {
          _t_entries._read();
        } finally {
          this.entries.push(_t_entries);
        }
        this._debug.entries.arr[i].end = this._io.pos;
      }
      this._debug.entries.end = this._io.pos;
    }

    /**
     * The value of the INSTANT_TIME entry, or "" when there is none.
     */
    Object.defineProperty(MetadataMap.prototype, 'instantTime', {
      get: function() {
        if (this._m_instantTime !== undefined)
          return this._m_instantTime;
        this._debug._m_instantTime = {  };
        this._m_instantTime = ( ((this.numEntries > 0) && (this.entries[0].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[0].text : ( ((this.numEntries > 1) && (this.entries[1].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[1].text : ( ((this.numEntries > 2) && (this.entries[2].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[2].text : ( ((this.numEntries > 3) && (this.entries[3].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[3].text : ( ((this.numEntries > 4) && (this.entries[4].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[4].text : ( ((this.numEntries > 5) && (this.entries[5].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[5].text : ( ((this.numEntries > 6) && (this.entries[6].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[6].text : ( ((this.numEntries > 7) && (this.entries[7].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[7].text : ( ((this.numEntries > 8) && (this.entries[8].key == HudiLog.HeaderKey.INSTANT_TIME))  ? this.entries[8].text : "")))))))));
        return this._m_instantTime;
      }
    });

    /**
     * Number of entries that follow (4 bytes).
     */

    /**
     * The entries, num_entries of them.
     */

    return MetadataMap;
  })();

  /**
   * Union [null, BooleanWrapper, IntWrapper, LongWrapper, FloatWrapper, DoubleWrapper,
   * BytesWrapper, StringWrapper, DateWrapper, DecimalWrapper, TimeMicrosWrapper,
   * TimestampMicrosWrapper, ArrayWrapper]. Each wrapper is a record with the single field
   * `value`, so it encodes as that value alone. Deletes without an ordering value carry
   * IntWrapper(0). Inside an ArrayWrapper the union is the same except that branch 12 is
   * LocalDateWrapper (an int), so arrays do not nest.
   * @see {@link https://github.com/apache/hudi/blob/release-1.1.0/hudi-common/src/main/avro/HoodieMetadata.avsc|Source}
   */

  var OrderingValue = HudiLog.OrderingValue = (function() {
    function OrderingValue(_io, _parent, _root, inArray) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this.inArray = inArray;
      this._debug = {};

    }
    OrderingValue.prototype._read = function() {
      this._debug.branch = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.branch = new AvroLong(this._io, this, this._root);
      this.branch._read();
      this._debug.branch.end = this._io.pos;
      var _ = this.branch;
      if (!( ((_.value >= 0) && (_.value <= 12)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.branch, this._io, "/types/ordering_value/seq/0");
        this._debug.branch.validationError = _err;
        throw _err;
      }
      if (this.branch.value != 0) {
        this._debug.value = { start: this._io.pos, ioOffset: this._io.byteOffset };
        switch (this.kind) {
        case HudiLog.OrderingKind.ARRAY:
          this.value = new ArrayWrapper(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.BOOLEAN:
          this.value = this._io.readU1();
          break;
        case HudiLog.OrderingKind.BYTES:
          this.value = new AvroBytes(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.DATE:
          this.value = new AvroLong(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.DECIMAL:
          this.value = new AvroBytes(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.DOUBLE:
          this.value = this._io.readF8le();
          break;
        case HudiLog.OrderingKind.FLOAT:
          this.value = this._io.readF4le();
          break;
        case HudiLog.OrderingKind.INT:
          this.value = new AvroLong(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.LOCAL_DATE:
          this.value = new AvroLong(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.LONG:
          this.value = new AvroLong(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.STRING:
          this.value = new AvroBytes(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.TIME_MICROS:
          this.value = new AvroLong(this._io, this, this._root);
          this.value._read();
          break;
        case HudiLog.OrderingKind.TIMESTAMP_MICROS:
          this.value = new AvroLong(this._io, this, this._root);
          this.value._read();
          break;
        }
        this._debug.value.end = this._io.pos;
      }
    }

    /**
     * The wrapper type, named.
     */
    Object.defineProperty(OrderingValue.prototype, 'kind', {
      get: function() {
        if (this._m_kind !== undefined)
          return this._m_kind;
        this._debug._m_kind = { enumName: "HudiLog.OrderingKind" };
        this._m_kind = ( ((this.inArray) && (this.branch.value == 12))  ? 13 : this.branch.value);
        return this._m_kind;
      }
    });

    /**
     * Union branch index, as an Avro long.
     */

    /**
     * The wrapped value: boolean (1 byte), int / long / date and local date (epoch day) /
     * time-micros / timestamp-micros (Avro long), float (4 bytes LE), double (8 bytes LE),
     * bytes / string / decimal(30, 15) (Avro length-prefixed bytes), or an ArrayWrapper.
     */

    /**
     * True for the items of an ArrayWrapper, where branch 12 means LocalDateWrapper.
     */

    return OrderingValue;
  })();

  /**
   * One block of an Avro array of ordering values.
   */

  var OrderingValueArrayBlock = HudiLog.OrderingValueArrayBlock = (function() {
    function OrderingValueArrayBlock(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    OrderingValueArrayBlock.prototype._read = function() {
      this._debug.numItems = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.numItems = new AvroLong(this._io, this, this._root);
      this.numItems._read();
      this._debug.numItems.end = this._io.pos;
      var _ = this.numItems;
      if (!( ((_.value >= -2147483647) && (_.value <= 2147483647)) )) {
        var _err = new KaitaiStream.ValidationExprError(this.numItems, this._io, "/types/ordering_value_array_block/seq/0");
        this._debug.numItems.validationError = _err;
        throw _err;
      }
      if (this.numItems.value < 0) {
        this._debug.lenItems = { start: this._io.pos, ioOffset: this._io.byteOffset };
        this.lenItems = new AvroLong(this._io, this, this._root);
        this.lenItems._read();
        this._debug.lenItems.end = this._io.pos;
      }
      this._debug.items = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this._debug.items.arr = [];
      this.items = [];
      for (var i = 0; i < (this.numItems.value < 0 ? -(this.numItems.value) : this.numItems.value); i++) {
        this._debug.items.arr[i] = { start: this._io.pos, ioOffset: this._io.byteOffset };
        var _t_items = new OrderingValue(this._io, this, this._root, true);
        try {
          _t_items._read();
        } finally {
          this.items.push(_t_items);
        }
        this._debug.items.arr[i].end = this._io.pos;
      }
      this._debug.items.end = this._io.pos;
    }

    /**
     * Number of items in this block (negative when a byte size follows), as an Avro long;
     * at most 2^31 - 1 either way (a Java array's size).
     */

    /**
     * Size of the items of this block, in bytes (present only when count is negative).
     */

    /**
     * The items, |count| of them.
     */

    return OrderingValueArrayBlock;
  })();

  /**
   * Content of PARQUET_DATA_BLOCK: a complete Parquet file (written with the SCHEMA header as
   * writer schema, codec from hoodie.parquet.compression.codec). Readers open it in place.
   * @see {@link https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieParquetDataBlock.java|Source}
   */

  var ParquetContent = HudiLog.ParquetContent = (function() {
    function ParquetContent(_io, _parent, _root) {
      this._io = _io;
      this._parent = _parent;
      this._root = _root;
      this._debug = {};

    }
    ParquetContent.prototype._read = function() {
      this._debug.magic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.magic = this._io.readBytes(4);
      this._debug.magic.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.magic, new Uint8Array([80, 65, 82, 49])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([80, 65, 82, 49]), this.magic, this._io, "/types/parquet_content/seq/0");
        this._debug.magic.validationError = _err;
        throw _err;
      }
      this._debug.body = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.body = this._io.readBytes(this._io.size - 12);
      this._debug.body.end = this._io.pos;
      this._debug.lenFooter = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.lenFooter = this._io.readU4le();
      this._debug.lenFooter.end = this._io.pos;
      this._debug.endMagic = { start: this._io.pos, ioOffset: this._io.byteOffset };
      this.endMagic = this._io.readBytes(4);
      this._debug.endMagic.end = this._io.pos;
      if (!((KaitaiStream.byteArrayCompare(this.endMagic, new Uint8Array([80, 65, 82, 49])) == 0))) {
        var _err = new KaitaiStream.ValidationNotEqualError(new Uint8Array([80, 65, 82, 49]), this.endMagic, this._io, "/types/parquet_content/seq/3");
        this._debug.endMagic.validationError = _err;
        throw _err;
      }
    }

    /**
     * Parquet file magic, 4 bytes.
     */

    /**
     * Column chunks and the Thrift FileMetaData, all but the last 12 bytes of the file.
     */

    /**
     * Length of the Thrift FileMetaData at the end of body, in bytes (little-endian).
     */

    /**
     * Parquet file magic again, 4 bytes.
     */

    return ParquetContent;
  })();

  /**
   * The blocks of the file, in the order they were appended. Zero blocks for an empty file.
   */

  return HudiLog;
})();
HudiLog_.HudiLog = HudiLog;
});
