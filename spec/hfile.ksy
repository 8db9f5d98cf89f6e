meta:
  id: hfile
  title: HFile version 3 as Apache Hudi writes it (metadata-table base files and HFILE_DATA_BLOCK contents)
  application: Apache Hudi (metadata table), Apache HBase
  tags:
    - database
  license: Apache-2.0
  file-extension: hfile
  ks-version: '0.11'
  endian: be
  encoding: UTF-8
doc: |
  The sorted key/value file of Apache HBase, version 3, as Apache Hudi writes it for its metadata
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
doc-ref:
  - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileWriterImpl.java
  - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileReaderImpl.java
  - https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileBlock.java
  - https://github.com/apache/hbase/blob/rel/2.4.9/hbase-server/src/main/java/org/apache/hadoop/hbase/io/hfile/HFileWriterImpl.java

seq:
  - id: section
    size: _io.size - 4096
    type: block_section
    doc: Every block of the file, all but the last 4096 bytes.
  - id: trailer
    size: 4096
    type: trailer
    doc: The fixed file trailer, the last 4096 bytes.

types:
  block_section:
    doc: The blocks, from offset 0 up to the trailer, each right after the one before.
    seq:
      - id: blocks
        type: block
        repeat: eos
        doc: The blocks in file order (data, meta, root data index, meta index, file info).

  block:
    doc: |
      One block: a 33-byte header, the payload (compressed with the file's codec), then the
      checksums of header and payload, 4 bytes per `bytes_per_checksum` chunk. The block takes
      33 + len_on_disk_without_header bytes.
    doc-ref: https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileBlock.java
    -webide-representation: '{magic} {len_uncompressed_without_header:dec} bytes'
    seq:
      - id: magic
        type: str
        size: 8
        encoding: ASCII
        valid:
          any-of:
            - '"DATABLK*"'
            - '"DATABLKE"'
            - '"IDXLEAF2"'
            - '"BLMFBLK2"'
            - '"METABLKc"'
            - '"IDXINTE2"'
            - '"IDXROOT2"'
            - '"FILEINF2"'
            - '"BLMFMET2"'
            - '"DFBLMET2"'
        doc: Block magic, 8 ASCII bytes naming the block type (HFileBlockType); `block_type` is its code.
      - id: len_on_disk_without_header
        type: s4
        valid:
          min: 0
        doc: |
          Bytes after the header up to the next block, 4 bytes: the stored payload and the checksums.
      - id: len_uncompressed_without_header
        type: s4
        valid:
          min: 0
        doc: Length of the payload once decompressed, 4 bytes.
      - id: prev_block_offset
        type: s8
        doc: |
          File offset of the previous block of the same type, 8 bytes; -1 for none (HBase's
          writer chains data blocks and the two root indexes; Hudi 1.1's writer writes -1 for
          its first data block and every other block, and a later data block's own offset).
      - id: checksum_type
        type: u1
        enum: checksum_type
        valid:
          in-enum: true
        doc: Checksum algorithm of this block, 1 byte (ChecksumType).
      - id: bytes_per_checksum
        type: s4
        valid:
          min: 1
        doc: Bytes covered by each checksum, 4 bytes; 16384 in every writer Hudi uses.
      - id: len_on_disk_data_with_header
        type: s4
        valid:
          min: 33
          max: len_on_disk_without_header + 33
        doc: Header (33) plus stored payload, 4 bytes; the checksums cover exactly these bytes.
      - id: payload
        size: len_on_disk_data_with_header - 33
        type: block_payload
        doc: The stored payload, compressed with the trailer's codec.
      - id: checksums
        size: len_on_disk_without_header + 33 - len_on_disk_data_with_header
        doc: |
          The checksums, one 4-byte value per bytes_per_checksum chunk of header and payload
          (CRC32C for type 2; Hudi's native writer writes zeros for type NULL).
    instances:
      block_type:
        value: >-
          magic == "DATABLK*" ? 0 : magic == "DATABLKE" ? 1 : magic == "IDXLEAF2" ? 2 :
          magic == "BLMFBLK2" ? 3 : magic == "METABLKc" ? 4 : magic == "IDXINTE2" ? 5 :
          magic == "IDXROOT2" ? 6 : magic == "FILEINF2" ? 7 : magic == "BLMFMET2" ? 8 : 9
        enum: block_type
        doc: The block type the magic names.

  block_payload:
    doc: |
      A block's stored payload. `data` holds its bytes as stored; where the file is not
      compressed, `body` is the same bytes laid out by the block's magic.
    -webide-representation: '{_io.size:dec} bytes stored'
    seq:
      - id: data
        size-eos: true
        doc: The payload as stored (for GZ, one gzip member).
    instances:
      body:
        pos: 0
        size-eos: true
        if: _root.trailer.compression_codec == compression_codec::none
        type:
          switch-on: _parent.magic
          cases:
            '"DATABLK*"': data_block_body
            '"IDXROOT2"': index_body
            '"FILEINF2"': file_info_body
            '"IDXLEAF2"': nonroot_index_body
            '"IDXINTE2"': nonroot_index_body
        doc: The uncompressed payload laid out by magic (meta and bloom blocks stay raw bytes).

  data_block_body:
    doc: |
      Uncompressed payload of a DATABLK* block: cells in key order. Every writer Hudi uses sets
      file info KEY_VALUE_VERSION to 1 and writes no tags, so every cell ends with its memstore
      timestamp (always 0, one byte).
    doc-ref: https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileDataBlock.java
    seq:
      - id: cells
        type: cell
        repeat: eos
        doc: The cells of the block.

  cell:
    doc: One key/value (HBase KeyValue); for Hudi the row is the record key, the value an Avro record.
    doc-ref: https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/KeyValue.java
    -webide-representation: '{key.row_text}: {len_value:dec} bytes'
    seq:
      - id: len_key
        type: s4
        valid:
          min: 12
        doc: Length of the key, 4 bytes (row length + row + family length + family + qualifier + 9).
      - id: len_value
        type: s4
        valid:
          min: 0
        doc: Length of the value, 4 bytes.
      - id: key
        size: len_key
        type: cell_key
        doc: The cell key.
      - id: value
        size: len_value
        doc: The value; for Hudi, the Avro binary HoodieMetadataRecord (key field blanked).
      - id: memstore_ts
        type: hadoop_vint
        valid:
          expr: _.value == 0
        doc: The memstore timestamp (MVCC version), a Hadoop vlong; 0 in every Hudi file.

  cell_key:
    doc: The key of a cell.
    -webide-representation: '{row_text}'
    seq:
      - id: len_row
        type: s2
        valid:
          min: 0
        doc: Length of the row, 2 bytes.
      - id: row
        size: len_row
        doc: The row, UTF-8 (Hudi's record key).
      - id: len_family
        type: u1
        doc: Length of the column family, 1 byte; 0 in Hudi.
      - id: family
        size: len_family
        doc: The column family; empty in Hudi.
      - id: qualifier
        size: _io.size - _io.pos - 9
        doc: The column qualifier, the rest of the key but the last 9 bytes; empty in Hudi.
      - id: timestamp
        type: s8
        doc: Cell timestamp, 8 bytes; Long.MAX_VALUE (latest) in Hudi's native writer.
      - id: key_type
        type: u1
        enum: key_type
        valid:
          in-enum: true
        doc: Cell type, 1 byte (KeyValue.Type); always Put in Hudi.
    instances:
      row_text:
        value: row.to_s("UTF-8")
        doc: The row as text.

  index_body:
    doc: |
      Uncompressed payload of an IDXROOT2 block: the single-level root data index (one entry per
      data block) or the meta index (one per meta block). Hudi writes one index level only (the
      trailer's num_data_index_levels is 1 in every Hudi file); HBase's root index of a multi-level
      index would end with a mid-key record (long, int, int) that this type does not describe.
    doc-ref: https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileRootIndexBlock.java
    seq:
      - id: entries
        type: index_entry
        repeat: eos
        doc: The entries, in key order.

  index_entry:
    doc: One index entry.
    -webide-representation: '@{offset:dec} ({len_block:dec} bytes)'
    seq:
      - id: offset
        type: s8
        valid:
          min: 0
        doc: File offset of the block indexed, 8 bytes.
      - id: len_block
        type: s4
        valid:
          min: 0
        doc: On-disk size of that block with its header, 4 bytes.
      - id: len_key
        type: hadoop_vint
        valid:
          expr: _.value >= 0
        doc: Length of the key, a Hadoop vint.
      - id: key
        size: len_key.value
        doc: |
          The block's first key: for a data index in Hudi's native writer a 2-byte length and
          the row; in HBase's writer the whole cell key; for the meta index the meta block's name.

  nonroot_index_body:
    doc: Uncompressed payload of an IDXLEAF2 or IDXINTE2 block (multi-level index; HBase only).
    seq:
      - id: num_entries
        type: s4
        valid:
          min: 0
        doc: Number of entries, 4 bytes.
      - id: secondary_index
        type: s4
        repeat: expr
        repeat-expr: num_entries + 1
        doc: Offsets of each entry (and of the end) after this array, 4 bytes each.
      - id: entries
        size-eos: true
        doc: The entries (long offset, int on-disk size, key), located by secondary_index.

  file_info_body:
    doc: Uncompressed payload of the FILEINF2 block, `PBUF` then a length-delimited protobuf InfoProto.
    doc-ref: https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileFileInfoBlock.java
    seq:
      - id: pb_magic
        contents: PBUF
        doc: Protobuf magic, 4 bytes.
      - id: len_info
        type: pb_varint
        doc: Length of the InfoProto message, a protobuf varint.
      - id: info
        size: len_info.value
        type: pb_message
        doc: InfoProto, field 1 repeated (`map_entry`, a BytesBytesPair of name and value each).
      - id: rest
        size-eos: true
        doc: Bytes after the message; none in Hudi's files.

  trailer:
    doc: |
      The fixed trailer: magic, a length-delimited protobuf TrailerProto, zero padding, and the
      version (major in the low 3 bytes, minor in the top byte).
    doc-ref: https://github.com/apache/hudi/blob/master/hudi-io/src/main/java/org/apache/hudi/io/hfile/HFileTrailer.java
    -webide-representation: 'v{major_version:dec}.{minor_version:dec}'
    seq:
      - id: magic
        contents: TRABLK"$
        doc: Trailer magic, 8 bytes.
      - id: len_proto
        type: pb_varint
        doc: Length of the TrailerProto, a protobuf varint.
      - id: proto
        size: len_proto.value
        type: pb_message
        doc: The TrailerProto message (field numbers in `trailer_field`).
      - id: padding
        size: _io.size - _io.pos - 4
        doc: Zero bytes up to the version.
      - id: version
        type: u4
        valid:
          expr: _ % 16777216 == 3
        doc: Version, 4 bytes; major version 3 in the low 3 bytes, minor version in the top byte.
    instances:
      major_version:
        value: version % 16777216
        doc: HFile major version (3).
      minor_version:
        value: version / 16777216
        doc: Minor version; 3 from HBase's writer (Hudi 0.x, 1.0), 0 from Hudi 1.1's.
      compression_codec:
        value: >-
          proto.fields.size > 11 and proto.fields[11].number == trailer_field::compression_codec.to_i
          ? proto.fields[11].int_value : proto.fields.size > 10
          and proto.fields[10].number == trailer_field::compression_codec.to_i
          ? proto.fields[10].int_value : 2
        enum: compression_codec
        doc: |
          The compression codec (field 12) where it sits at its place in the message, as every
          writer puts it (fields in number order; field 4 is absent in Hudi 1.1's files); NONE
          otherwise.

  pb_message:
    doc: A protobuf message as its fields in the order written.
    seq:
      - id: fields
        type: pb_field
        repeat: eos
        doc: The fields.

  pb_field:
    doc: One protobuf field, a tag and a value laid out by the wire type.
    -webide-representation: '{number:dec}'
    seq:
      - id: tag
        type: pb_varint
        valid:
          expr: >-
            _.value % 8 == wire_type::varint.to_i or _.value % 8 == wire_type::len_delimited.to_i
            or _.value % 8 == wire_type::fixed64.to_i or _.value % 8 == wire_type::fixed32.to_i
        doc: Field number times 8 plus the wire type.
      - id: value
        type:
          switch-on: wire_type
          cases:
            'wire_type::varint': pb_varint
            'wire_type::len_delimited': pb_bytes
            'wire_type::fixed64': pb_fixed64
            'wire_type::fixed32': pb_fixed32
        doc: The value.
    instances:
      number:
        value: tag.value / 8
        doc: Field number.
      wire_type:
        value: tag.value % 8
        enum: wire_type
        doc: Wire type.
      int_value:
        value: 'wire_type == wire_type::varint ? value.as<pb_varint>.value : 0'
        doc: The value of a varint field (0 for other wire types).

  pb_bytes:
    doc: A length-delimited protobuf value (string, bytes or message).
    seq:
      - id: len_data
        type: pb_varint
        doc: Length, a protobuf varint.
      - id: data
        size: len_data.value
        doc: The bytes.

  pb_fixed64:
    doc: A fixed 64-bit protobuf value.
    seq:
      - id: data
        size: 8
        doc: 8 bytes, little-endian.

  pb_fixed32:
    doc: A fixed 32-bit protobuf value.
    seq:
      - id: data
        size: 4
        doc: 4 bytes, little-endian.

  pb_varint:
    doc: |
      A protobuf base-128 varint, least significant group first. Protobuf writes at most 10 groups;
      `value` reads 10 (hudi-log's bridge refuses longer ones).
    -webide-representation: '{value:dec}'
    seq:
      - id: groups
        type: u1
        repeat: until
        repeat-until: _ < 128
        doc: The 7-bit groups; the high bit marks a group that is not the last.
    instances:
      value:
        value: >-
          (groups[0] % 128)
          + (groups.size > 1 ? (groups[1] % 128) * 128 : 0)
          + (groups.size > 2 ? (groups[2] % 128) * 16384 : 0)
          + (groups.size > 3 ? (groups[3] % 128) * 2097152 : 0)
          + (groups.size > 4 ? (groups[4] % 128) * 268435456 : 0)
          + (groups.size > 5 ? (groups[5] % 128) * 34359738368 : 0)
          + (groups.size > 6 ? (groups[6] % 128) * 4398046511104 : 0)
          + (groups.size > 7 ? (groups[7] % 128) * 562949953421312 : 0)
          + (groups.size > 8 ? (groups[8] % 128) * 72057594037927936 : 0)
          + (groups.size > 9 ? (groups[9] % 128) * 9223372036854775807 + (groups[9] % 128) : 0)
        doc: |
          The value. Above 2^53 it is exact in Python only (JavaScript numbers are doubles): HBase
          writes 2^64 - 1 (-1) as the first and last data block offsets of a file without cells.

  hadoop_vint:
    doc: |
      Hadoop's WritableUtils variable-length integer: one byte for -112..127, else a marker byte
      (-113..-120 for 1..8 positive bytes, -121..-128 for negative) and the bytes, big-endian.
      Lengths and memstore timestamps are never negative, so negative markers are refused.
    -webide-representation: '{value:dec}'
    seq:
      - id: first
        type: s1
        valid:
          min: -116
        doc: The value itself (-112..127) or the marker of 1..4 following bytes.
      - id: rest
        size: 'first >= -112 ? 0 : -112 - first'
        doc: The value's bytes, big-endian, when the first byte is a marker.
    instances:
      value:
        value: >-
          first >= -112 ? first : rest.size == 1 ? rest[0] : rest.size == 2 ? rest[0] * 256 + rest[1]
          : rest.size == 3 ? (rest[0] * 256 + rest[1]) * 256 + rest[2]
          : ((rest[0] * 256 + rest[1]) * 256 + rest[2]) * 256 + rest[3]
        doc: The value.

enums:
  block_type:
    0:
      id: data
      doc: DATABLK*, cells.
    1:
      id: encoded_data
      doc: DATABLKE, cells in a data block encoding (never in Hudi's files).
    2:
      id: leaf_index
      doc: IDXLEAF2, leaf level of a multi-level data index.
    3:
      id: bloom_chunk
      doc: BLMFBLK2, a chunk of a compound bloom filter (HBase).
    4:
      id: meta
      doc: METABLKc, a named meta block (Hudi's record-key bloom filter).
    5:
      id: intermediate_index
      doc: IDXINTE2, intermediate level of a multi-level data index.
    6:
      id: root_index
      doc: IDXROOT2, root data index and meta index.
    7:
      id: file_info
      doc: FILEINF2, the file info map.
    8:
      id: general_bloom_meta
      doc: BLMFMET2, bloom filter metadata (HBase).
    9:
      id: delete_family_bloom_meta
      doc: DFBLMET2, delete-family bloom metadata (HBase).
  checksum_type:
    0:
      id: "null"
      doc: No checksum (Hudi 1.1's writer, which still writes 4 zero bytes per chunk).
    1:
      id: crc32
      doc: CRC32.
    2:
      id: crc32c
      doc: CRC32C (HBase's default).
  compression_codec:
    0:
      id: lzo
      doc: LZO.
    1:
      id: gz
      doc: GZ, one gzip member per block; what Hudi's metadata table uses.
    2:
      id: none
      doc: No compression.
    3:
      id: snappy
      doc: Snappy.
    4:
      id: lz4
      doc: LZ4.
    5:
      id: bzip2
      doc: BZip2.
    6:
      id: zstd
      doc: Zstandard.
  key_type:
    0:
      id: minimum
      doc: Minimum (never stored).
    4:
      id: put
      doc: Put; every Hudi cell.
    8:
      id: delete
      doc: Delete.
    10:
      id: delete_family_version
      doc: DeleteFamilyVersion.
    12:
      id: delete_column
      doc: DeleteColumn.
    14:
      id: delete_family
      doc: DeleteFamily.
    255:
      id: maximum
      doc: Maximum (never stored).
  wire_type:
    0:
      id: varint
      doc: Varint.
    1:
      id: fixed64
      doc: 64-bit.
    2:
      id: len_delimited
      doc: Length-delimited.
    5:
      id: fixed32
      doc: 32-bit.
  trailer_field:
    1:
      id: file_info_offset
      doc: Offset of the FILEINF2 block.
    2:
      id: load_on_open_data_offset
      doc: Offset of the load-on-open section (the root data index).
    3:
      id: uncompressed_data_index_size
      doc: Uncompressed size of the data index (Hudi 1.1 writes the sum of its data blocks' uncompressed sizes).
    4:
      id: total_uncompressed_bytes
      doc: Uncompressed size of all blocks (absent in Hudi 1.1's files).
    5:
      id: data_index_count
      doc: Entries of the root data index.
    6:
      id: meta_index_count
      doc: Entries of the meta index.
    7:
      id: entry_count
      doc: Number of cells.
    8:
      id: num_data_index_levels
      doc: Levels of the data index (1 in Hudi).
    9:
      id: first_data_block_offset
      doc: Offset of the first data block (2^64 - 1 when there is none).
    10:
      id: last_data_block_offset
      doc: Offset of the last data block (2^64 - 1 when there is none).
    11:
      id: comparator_class_name
      doc: Key comparator class (org.apache.hudi.io.storage.HoodieHBaseKVComparator).
    12:
      id: compression_codec
      doc: Compression codec ordinal (`compression_codec`).
    13:
      id: encryption_key
      doc: Encryption key (absent; encrypted files are not supported).
