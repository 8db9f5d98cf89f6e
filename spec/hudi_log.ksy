meta:
  id: hudi_log
  title: Apache Hudi log file (Merge-On-Read log format, `#HUDI#` blocks)
  application: Apache Hudi
  xref:
    wikidata: Q96376427
  tags:
    - database
    - log
  license: Apache-2.0
  file-extension: log
  ks-version: '0.11'
  endian: be
  encoding: UTF-8
doc: |
  The log files of an Apache Hudi Merge-On-Read table (`.{fileId}_{instant}.log.{version}_{writeToken}`)
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
doc-ref:
  - https://github.com/apache/hudi/blob/release-1.0.2/hudi-hadoop-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatWriter.java
  - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFileReader.java
  - https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java

seq:
  - id: blocks
    type: block
    repeat: eos
    doc: The blocks of the file, in the order they were appended. Zero blocks for an empty file.

types:
  block:
    doc: |
      One log block. On disk a format-version-1 block takes len_block + 14 bytes: the 6-byte
      magic, the 8-byte block size (Hudi's blockSize, here `len_block`), and len_block bytes
      that end with the reverse pointer. A format-version-0 block takes len_block + 18: its
      content (len_block bytes, as Hudi's reader takes it) follows the 4-byte version. Readers
      also check that the fields between the block size and the reverse pointer add up to
      len_block (Hudi finds the reverse pointer len_block bytes after the size field); this
      grammar checks the two ends agree. Lengths are named `len_*` as Kaitai's style guide
      asks; Hudi's own names are kept in `-orig-id`.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-hadoop-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatWriter.java
    -webide-representation: '{block_type} @ {instant_time} ({num_records:dec} records)'
    seq:
      - id: magic
        contents: '#HUDI#'
        doc: Block magic, 6 bytes of ASCII `#HUDI#` (HoodieLogFormat.MAGIC).
      - id: len_block
        -orig-id: blockSize
        type: s8
        valid:
          min: 0
          max: 2147483647
        doc: |
          The block size: number of bytes that follow this field up to and including the reverse pointer:
          4 (format version) + 4 (block type) + header + 8 (content length) + content + footer
          + 8 (reverse pointer). Written as a Java int, so at most 2^31 - 1 (checked: a larger
          value would be read imprecisely by JavaScript engines, which hold numbers as doubles).
      - id: format_version
        type: s4
        valid:
          any-of: [0, 1]
        doc: Log format version, 4 bytes; 1 (HoodieLogFormat.CURRENT_VERSION) since Hudi 0.4.1.
        doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/HoodieLogFormatVersion.java
      - id: block_type
        type: s4
        enum: block_type
        valid:
          in-enum: true
        if: format_version != 0
        doc: Block type, 4 bytes, the ordinal of HoodieLogBlockType.
      - id: header
        type: metadata_map
        if: format_version != 0
        doc: Header metadata map (instant time, schema, rollback target ...).
      - id: len_content
        -orig-id: contentLength
        type: s8
        valid:
          min: 0
          max: 2147483647
        if: format_version != 0
        doc: |
          The content length: bytes of the content that follows; a Java int written as 8 bytes, so
          at most 2^31 - 1.
      - id: content
        size: len_content
        type: block_content
        if: format_version != 0
        doc: |
          The block's payload, len_content bytes, laid out by block type (its `body`, parsed
          only when asked for). Command blocks have none: their command is in the header.
      - id: legacy_content
        size: len_legacy_content
        if: format_version == 0
        doc: |
          Format version 0: the content, len_block bytes (as Hudi's reader takes it), raw: that
          layout has no block type.
      - id: footer
        type: metadata_map
        if: format_version != 0
        doc: Footer metadata map; no footer keys are defined, so Hudi always writes 4 zero bytes.
      - id: reverse_pointer
        type: s8
        valid:
          expr: _ == len_block + 6
        if: format_version != 0
        doc: |
          Bytes from the first byte of the magic up to (not including) this field, i.e.
          len_block + 6. Lets a reader jump from the end of a block back to its magic.
    instances:
      len_legacy_content:
        value: len_block
        doc: |
          Format version 0 has no content length: Hudi's reader takes the block size as the
          content's length (contentLength = blockSize when the version is 0).
      instant_time:
        value: 'format_version != 0 ? header.instant_time : ""'
        doc: The INSTANT_TIME header value ("" when absent).
      num_records:
        value: >-
          format_version != 0
          and (block_type == block_type::avro_data_block or block_type == block_type::cdc_data_block)
          ? content.num_records : 0
        doc: Number of records of an Avro data or CDC block; 0 for other blocks.

  block_content:
    doc: |
      A block's content bytes. Their layout (`body`) is parsed on demand, like the gallery's
      sqlite3.ksy pages and mcap.ksy records: the Kaitai Web IDE then opens a log of large delete
      or Avro blocks at once (a block's millions of records become objects only when its body is
      expanded), and a framing scan of a log reads no content. The record count of an Avro data or
      CDC block is read on its own (4 bytes) for the block's one-line representation.
    -webide-representation: '{_parent.block_type}: {_io.size:dec} bytes'
    instances:
      body:
        pos: 0
        size-eos: true
        type:
          switch-on: _parent.block_type
          cases:
            'block_type::delete_block': delete_content
            'block_type::avro_data_block': avro_data_content
            'block_type::hfile_data_block': hfile_content
            'block_type::parquet_data_block': parquet_content
            'block_type::cdc_data_block': avro_data_content
        doc: |
          The content laid out by the block type; raw bytes for a type without a layout (a
          command block's empty content).
      num_records:
        pos: 4
        type: s4
        if: >-
          _parent.block_type == block_type::avro_data_block
          or _parent.block_type == block_type::cdc_data_block
        doc: |
          The record count of an Avro data or CDC block, the same 4 bytes as `body.num_records`,
          read without parsing the records.

  metadata_map:
    doc: |
      Header or footer metadata: a count, then that many (key, value) entries. Entries keep the
      order found in the file: Hudi iterates a Java HashMap, so the order differs between writers.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java
    -webide-representation: '{num_entries} entries'
    seq:
      - id: num_entries
        type: s4
        valid:
          min: 0
        doc: Number of entries that follow (4 bytes).
      - id: entries
        type: metadata_entry
        repeat: expr
        repeat-expr: num_entries
        doc: The entries, num_entries of them.
    instances:
      instant_time:
        doc: The value of the INSTANT_TIME entry, or "" when there is none.
        value: >-
          num_entries > 0 and entries[0].key == header_key::instant_time ? entries[0].text :
          num_entries > 1 and entries[1].key == header_key::instant_time ? entries[1].text :
          num_entries > 2 and entries[2].key == header_key::instant_time ? entries[2].text :
          num_entries > 3 and entries[3].key == header_key::instant_time ? entries[3].text :
          num_entries > 4 and entries[4].key == header_key::instant_time ? entries[4].text :
          num_entries > 5 and entries[5].key == header_key::instant_time ? entries[5].text :
          num_entries > 6 and entries[6].key == header_key::instant_time ? entries[6].text :
          num_entries > 7 and entries[7].key == header_key::instant_time ? entries[7].text :
          num_entries > 8 and entries[8].key == header_key::instant_time ? entries[8].text : ""

  metadata_entry:
    doc: |
      One metadata entry; the value is text, UTF-8 encoded (Java's String.getBytes on write,
      `new String(bytes)` on read).

      The value is kept as bytes: Kaitai's engines decode invalid UTF-8 differently (the Python
      runtime raises, the JavaScript runtime substitutes U+FFFD as Java does), and bytes are what
      both read alike. `text` is the decoded view; hudi-log's reader reports a value that is not
      UTF-8 as a damaged block rather than rewrite it.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieLogBlock.java
    -webide-representation: '{key}: {text}'
    seq:
      - id: key
        type: s4
        enum: header_key
        valid:
          in-enum: true
        doc: Entry key, 4 bytes, the ordinal of HeaderMetadataType.
      - id: len_value
        type: s4
        valid:
          min: 0
        doc: Length of the value, in bytes (4 bytes).
      - id: value
        size: len_value
        doc: The value, len_value bytes of UTF-8 text (instants, Avro schema JSON, decimal numbers).
    instances:
      text:
        value: value.to_s("UTF-8")
        doc: The value as text (valid UTF-8 only; see the type's doc).
      command_block_type:
        value: text.to_i
        enum: command_block_type
        if: key == header_key::command_block_type
        doc: For the COMMAND_BLOCK_TYPE entry, its decimal value as the command it names.

  avro_data_content:
    doc: |
      Content of AVRO_DATA_BLOCK and CDC_DATA_BLOCK: a version, a record count, then every record
      as its length and its Avro binary encoding (no container, no sync markers) under the writer
      schema of the SCHEMA header. Uncompressed. The same layout in content versions 1 to 3.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieAvroDataBlock.java
    -webide-representation: 'v{content_version}: {num_records:dec} records'
    seq:
      - id: content_version
        type: s4
        valid:
          any-of: [1, 2, 3]
        doc: Content version, 4 bytes (HoodieLogBlock.version at write time; 3 since Hudi 0.14).
      - id: num_records
        type: s4
        valid:
          min: 0
        doc: Number of records that follow (4 bytes).
      - id: records
        type: avro_record
        repeat: expr
        repeat-expr: num_records
        doc: The records, num_records of them.

  avro_record:
    doc: One length-prefixed Avro binary datum.
    -webide-representation: '{len_datum:dec} bytes'
    seq:
      - id: len_datum
        type: s4
        valid:
          min: 0
        doc: Length of the datum, in bytes (4 bytes).
      - id: datum
        size: len_datum
        doc: The record, len_datum bytes of Avro binary encoding under the block's writer schema.

  delete_content:
    doc: Content of DELETE_BLOCK, the keys (and ordering values) of the deleted records.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieDeleteBlock.java
    -webide-representation: 'v{content_version}: {len_payload:dec} bytes'
    seq:
      - id: content_version
        type: s4
        valid:
          any-of: [1, 2, 3]
        doc: Content version, 4 bytes; 3 since Hudi 0.14 (Avro), 1 and 2 were Kryo.
      - id: len_payload
        type: s4
        valid:
          min: 0
        doc: Length of the payload, in bytes (4 bytes, not 8).
      - id: payload
        size: len_payload
        doc: |
          The deleted keys, len_payload bytes, as bytes; `records` lays them out. Version 3: Avro
          HoodieDeleteRecordList. Versions 1 and 2 (Hudi before 0.14): a Kryo-serialized Java
          HoodieKey[] / DeleteRecord[].
    instances:
      records:
        pos: 8  # after content_version and len_payload (4 bytes each): where `payload` starts
        size: len_payload
        type:
          switch-on: content_version
          cases:
            1: kryo_object_array
            2: kryo_object_array
            3: delete_record_list
        doc: |
          The payload laid out by content version, parsed only when asked for: a delete block
          shows its size at once and its records one click further (the Kaitai Web IDE opens and
          expands a block of 250,000 deletes in a small heap; `hudi-log view` pages through them).

  kryo_object_array:
    doc: |
      A delete payload of content version 1 or 2: Kryo 4's writeClassAndObject of a Java
      HoodieKey[] (1) or DeleteRecord[] (2), as Hudi's SerializationUtils wrote it (registration
      not required, references on). The grammar describes the array's own start; its elements
      cannot be described here, because Kryo writes a class name only where it first occurs in
      the stream and refers back to strings and objects already written by their order of
      appearance. Each element is: class (1 = by name, then the name's id, then the name the first
      time), a reference marker (1 = new object, 0 = null, n = object n - 2), then the fields in
      name order (HoodieKey: partitionPath, recordKey as reference marker + Kryo string;
      DeleteRecord: hoodieKey as class + HoodieKey, orderingVal as class + value). hudi-log's
      reader (hudi_log/format/content/deletes_kryo.py) decodes them.
    doc-ref:
      - https://github.com/apache/hudi/blob/release-0.13.1/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieDeleteBlock.java
      - https://github.com/apache/hudi/blob/release-0.13.1/hudi-common/src/main/java/org/apache/hudi/common/util/SerializationUtils.java
    -webide-representation: '{class_name}: {num_elements:dec} elements'
    seq:
      - id: class_tag
        type: kryo_varint
        valid:
          expr: _.value == 1
        doc: Class tag, a Kryo varint; 1 = a class written by name (arrays are not registered).
      - id: class_name_id
        type: kryo_varint
        valid:
          expr: _.value == 0
        doc: Id of the class name, a Kryo varint; 0, the first name of the stream.
      - id: class_name
        type: str
        encoding: ASCII
        terminator: 0xbb
        valid:
          expr: >-
            _ == (_parent.content_version == 1 ? "[Lorg.apache.hudi.common.model.HoodieKey"
            : "[Lorg.apache.hudi.common.model.DeleteRecord")
        doc: |
          The array class's binary name as a Kryo ASCII string, up to its last character: Kryo
          marks the end of an ASCII string with the high bit of its last byte, here ';' (0xBB).
      - id: reference
        type: kryo_varint
        valid:
          expr: _.value == 1
        doc: Reference marker, a Kryo varint; 1 = a new object.
      - id: num_elements_plus_one
        type: kryo_varint
        valid:
          expr: _.value >= 1
        doc: The array's length + 1, a Kryo varint (0 would be a null array).
      - id: elements
        size-eos: true
        doc: The elements, each a class, a reference marker and the object's fields (see above).
    instances:
      num_elements:
        value: num_elements_plus_one.value - 1
        doc: Number of elements (deleted keys).

  kryo_varint:
    doc: |
      A Kryo positive varint (Output.writeVarInt(value, true)): 7 bits a byte, least significant
      group first, the high bit set when more bytes follow; at most 5 bytes.
    -webide-representation: '{value:dec}'
    seq:
      - id: groups
        type: u1
        repeat: until
        repeat-until: _ < 128
        valid:
          expr: groups.size <= 5
        doc: The varint's bytes.
    instances:
      value:
        value: >-
          (groups[0] % 128)
          + (groups.size > 1 ? (groups[1] % 128) * 128 : 0)
          + (groups.size > 2 ? (groups[2] % 128) * 16384 : 0)
          + (groups.size > 3 ? (groups[3] % 128) * 2097152 : 0)
          + (groups.size > 4 ? (groups[4] % 128) * 268435456 : 0)
        doc: The value.

  delete_record_list:
    doc: |
      Avro binary of org.apache.hudi.avro.model.HoodieDeleteRecordList
      {deleteRecordList: array<HoodieDeleteRecord>}: an Avro array, i.e. blocks of items ended by
      a block whose count is 0.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/avro/HoodieDeleteRecordList.avsc
    seq:
      - id: array_blocks
        type: delete_record_array_block
        repeat: until
        repeat-until: _.num_items.value == 0
        doc: The array's blocks; the last one has count 0 and no items.

  delete_record_array_block:
    doc: One block of an Avro array of HoodieDeleteRecord.
    -webide-representation: '{num_items.value:dec} items'
    seq:
      - id: num_items
        type: avro_long
        valid:
          expr: _.value >= -2147483647 and _.value <= 2147483647
        doc: |
          Number of items in this block (negative when a byte size follows), as an Avro long;
          at most 2^31 - 1 either way (a Java array's size).
      - id: len_items
        type: avro_long
        if: num_items.value < 0
        doc: Size of the items of this block, in bytes (present only when count is negative).
      - id: items
        type: delete_record
        repeat: expr
        repeat-expr: 'num_items.value < 0 ? -num_items.value : num_items.value'
        doc: The items, |count| of them.

  delete_record:
    doc: 'One HoodieDeleteRecord {recordKey, partitionPath, orderingVal}.'
    -webide-representation: '{record_key.value}'
    seq:
      - id: record_key
        type: avro_optional_string
        doc: The record key, union ["null", "string"].
      - id: partition_path
        type: avro_optional_string
        doc: The partition path, union ["null", "string"].
      - id: ordering_value
        type: ordering_value(false)
        doc: The ordering (precombine) value of the delete, a union of wrapper records.

  ordering_value:
    doc: |
      Union [null, BooleanWrapper, IntWrapper, LongWrapper, FloatWrapper, DoubleWrapper,
      BytesWrapper, StringWrapper, DateWrapper, DecimalWrapper, TimeMicrosWrapper,
      TimestampMicrosWrapper, ArrayWrapper]. Each wrapper is a record with the single field
      `value`, so it encodes as that value alone. Deletes without an ordering value carry
      IntWrapper(0). Inside an ArrayWrapper the union is the same except that branch 12 is
      LocalDateWrapper (an int), so arrays do not nest.
    doc-ref: https://github.com/apache/hudi/blob/release-1.1.0/hudi-common/src/main/avro/HoodieMetadata.avsc
    -webide-representation: '{kind}'
    params:
      - id: in_array
        type: bool
        doc: True for the items of an ArrayWrapper, where branch 12 means LocalDateWrapper.
    seq:
      - id: branch
        type: avro_long
        valid:
          expr: _.value >= 0 and _.value <= 12
        doc: Union branch index, as an Avro long.
      - id: value
        type:
          switch-on: kind
          cases:
            ordering_kind::boolean: u1
            ordering_kind::int: avro_long
            ordering_kind::long: avro_long
            ordering_kind::float: f4le
            ordering_kind::double: f8le
            ordering_kind::bytes: avro_bytes
            ordering_kind::string: avro_bytes
            ordering_kind::date: avro_long
            ordering_kind::decimal: avro_bytes
            ordering_kind::time_micros: avro_long
            ordering_kind::timestamp_micros: avro_long
            ordering_kind::array: array_wrapper
            ordering_kind::local_date: avro_long
        if: branch.value != 0
        doc: |
          The wrapped value: boolean (1 byte), int / long / date and local date (epoch day) /
          time-micros / timestamp-micros (Avro long), float (4 bytes LE), double (8 bytes LE),
          bytes / string / decimal(30, 15) (Avro length-prefixed bytes), or an ArrayWrapper.
    instances:
      kind:
        value: 'in_array and branch.value == 12 ? 13 : branch.value'
        enum: ordering_kind
        doc: The wrapper type, named.

  array_wrapper:
    doc: |
      ArrayWrapper {wrappedValues: ["null", array<ordering value>]}, the ordering values of
      several ordering fields (Hudi 1.1).
    seq:
      - id: branch
        type: avro_long
        valid:
          expr: _.value == 0 or _.value == 1
        doc: Union branch index of wrappedValues, as an Avro long (0 = null, 1 = array).
      - id: array_blocks
        type: ordering_value_array_block
        repeat: until
        repeat-until: _.num_items.value == 0
        if: branch.value == 1
        doc: The array's blocks; the last one has count 0 and no items.

  ordering_value_array_block:
    doc: One block of an Avro array of ordering values.
    seq:
      - id: num_items
        type: avro_long
        valid:
          expr: _.value >= -2147483647 and _.value <= 2147483647
        doc: |
          Number of items in this block (negative when a byte size follows), as an Avro long;
          at most 2^31 - 1 either way (a Java array's size).
      - id: len_items
        type: avro_long
        if: num_items.value < 0
        doc: Size of the items of this block, in bytes (present only when count is negative).
      - id: items
        type: ordering_value(true)
        repeat: expr
        repeat-expr: 'num_items.value < 0 ? -num_items.value : num_items.value'
        doc: The items, |count| of them.

  avro_optional_string:
    doc: Avro union ["null", "string"].
    -webide-representation: '{value}'
    seq:
      - id: branch
        type: avro_long
        valid:
          expr: _.value == 0 or _.value == 1
        doc: Union branch index, as an Avro long (0 = null, 1 = string).
      - id: string
        type: avro_bytes
        if: branch.value == 1
        doc: The string, as Avro length-prefixed UTF-8 bytes.
    instances:
      value:
        value: 'branch.value == 1 ? string.data.to_s("UTF-8") : ""'
        doc: The string ("" for null).

  avro_bytes:
    doc: Avro bytes or string, its length as an Avro long, then the bytes.
    seq:
      - id: len_data
        type: avro_long
        valid:
          expr: _.value >= 0 and _.value <= 2147483647
        doc: Length of the data, in bytes, as an Avro long (Avro's Java decoder reads it as an int).
      - id: data
        size: len_data.value
        doc: The data, len_data bytes.

  avro_long:
    doc: |
      Avro int or long: zig-zag encoded, then written 7 bits at a time, least significant group
      first, the high bit of each byte set when more bytes follow (1 to 10 bytes).
    doc-ref: https://avro.apache.org/docs/1.11.1/specification/#primitive-types-1
    -webide-representation: '{value:dec}'
    seq:
      - id: groups
        type: u1
        repeat: until
        repeat-until: _ < 128
        valid:
          expr: groups.size <= 10
        doc: |
          The varint's bytes, 1 byte each; the last one has its high bit clear. At most 10, as
          Avro's decoder allows: the check counts the collected bytes (`_index` inside
          `repeat-until` is not evaluated alike by every engine).
    instances:
      len_groups:
        value: groups.size
        doc: Number of bytes of the varint.
      zigzag:
        doc: The unsigned varint value before zig-zag decoding (arithmetic, so that it also works in JavaScript).
        value: >-
          (groups[0] % 128)
          + (len_groups > 1 ? (groups[1] % 128) * 128 : 0)
          + (len_groups > 2 ? (groups[2] % 128) * 16384 : 0)
          + (len_groups > 3 ? (groups[3] % 128) * 2097152 : 0)
          + (len_groups > 4 ? (groups[4] % 128) * 268435456 : 0)
          + (len_groups > 5 ? (groups[5] % 128) * 34359738368 : 0)
          + (len_groups > 6 ? (groups[6] % 128) * 4398046511104 : 0)
          + (len_groups > 7 ? (groups[7] % 128) * 562949953421312 : 0)
          + (len_groups > 8 ? (groups[8] % 128) * 72057594037927936 : 0)
          + (len_groups > 9 ? (groups[9] % 128) * 9223372036854775808 : 0)
      value:
        value: 'groups[0] % 2 == 0 ? zigzag / 2 : -((zigzag + 1) / 2)'
        doc: |
          The decoded signed value. The sign is the lowest bit of the first byte, so that it is
          right in JavaScript too, where a zigzag above 2^53 is a rounded double (the magnitude
          then is too; `groups` are exact in every engine).

  parquet_content:
    doc: |
      Content of PARQUET_DATA_BLOCK: a complete Parquet file (written with the SCHEMA header as
      writer schema, codec from hoodie.parquet.compression.codec). Readers open it in place.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieParquetDataBlock.java
    seq:
      - id: magic
        contents: PAR1
        doc: Parquet file magic, 4 bytes.
      - id: body
        size: _io.size - 12
        doc: Column chunks and the Thrift FileMetaData, all but the last 12 bytes of the file.
      - id: len_footer
        type: u4le
        doc: Length of the Thrift FileMetaData at the end of body, in bytes (little-endian).
      - id: end_magic
        contents: PAR1
        doc: Parquet file magic again, 4 bytes.

  hfile_content:
    doc: |
      Content of HFILE_DATA_BLOCK (metadata table): a complete HBase HFile version 3, records
      sorted by key. Blocks (data, index, file info) come first, then a fixed 4096-byte trailer.
    doc-ref: https://github.com/apache/hudi/blob/release-1.0.2/hudi-common/src/main/java/org/apache/hudi/common/table/log/block/HoodieHFileDataBlock.java
    seq:
      - id: blocks
        size: _io.size - 4096
        doc: The HFile's blocks (DATABLK*, IDXROOT2, FILEINF2 ...), all but the last 4096 bytes.
      - id: trailer
        size: 4096
        type: hfile_trailer
        doc: The fixed file trailer, 4096 bytes.

  hfile_trailer:
    doc: HFile v3 fixed trailer; its fields are a protobuf (FileTrailerProto) after the magic.
    seq:
      - id: magic
        contents: TRABLK"$
        doc: Trailer block magic, 8 bytes.
      - id: body
        size: 4096 - 8 - 4
        doc: Length-delimited protobuf FileTrailerProto, zero padded, 4084 bytes.
      - id: version
        type: u4
        valid:
          expr: _ % 16777216 == 3
        doc: HFile version, 4 bytes; major version (3) in the low 3 bytes, minor version in the top byte.
    instances:
      major_version:
        value: version % 16777216
        doc: HFile major version (3).
      minor_version:
        value: version / 16777216
        doc: HFile minor version (0 for Hudi's native writer, 3 with CRC32C checksums).

enums:
  block_type:
    0:
      id: command_block
      doc: Command (rollback); empty content, the command type in the COMMAND_BLOCK_TYPE header.
    1:
      id: delete_block
      doc: Keys of deleted records.
    2:
      id: corrupt_block
      doc: Never written; readers report damaged spans with this type.
    3:
      id: avro_data_block
      doc: Records as Avro binary.
    4:
      id: hfile_data_block
      doc: Records as an HFile (metadata table); since Hudi 0.6.
    5:
      id: parquet_data_block
      doc: Records as a Parquet file; since Hudi 0.11.
    6:
      id: cdc_data_block
      doc: Change-data-capture records as Avro binary, only in `.cdc` log files; since Hudi 0.13.
  header_key:
    0:
      id: instant_time
      doc: Instant that wrote the block (yyyyMMddHHmmssSSS).
    1:
      id: target_instant_time
      doc: For a rollback command block, the instant rolled back.
    2:
      id: schema
      doc: Avro writer schema of the block, JSON.
    3:
      id: command_block_type
      doc: Command of a command block, decimal ordinal of command_block_type.
    4:
      id: compacted_block_times
      doc: Comma-separated instants merged by log compaction; since Hudi 0.13.
    5:
      id: record_positions
      doc: Base64 of a Roaring64 bitmap of row positions in the base file; since Hudi 0.14.
    6:
      id: block_identifier
      doc: Spark attempt and per-handle block sequence number, to drop retried duplicates.
    7:
      id: is_partial
      doc: '"true" when SCHEMA is a partial-update schema; since Hudi 1.0.'
    8:
      id: base_file_instant_time_of_record_positions
      doc: Commit time of the base file that RECORD_POSITIONS refer to; since Hudi 1.0.
  command_block_type:
    0:
      id: rollback_block
      doc: Rolls back the blocks of TARGET_INSTANT_TIME that precede it.
  ordering_kind:
    0:
      id: "null"
      doc: No ordering value (union branch null).
    1:
      id: boolean
      doc: BooleanWrapper, one byte (0 or 1).
    2:
      id: int
      doc: IntWrapper, an Avro int; deletes without an ordering value carry IntWrapper(0).
    3:
      id: long
      doc: LongWrapper, an Avro long.
    4:
      id: float
      doc: FloatWrapper, 4 bytes little-endian IEEE 754.
    5:
      id: double
      doc: DoubleWrapper, 8 bytes little-endian IEEE 754.
    6:
      id: bytes
      doc: BytesWrapper, Avro bytes.
    7:
      id: string
      doc: StringWrapper, an Avro string.
    8:
      id: date
      doc: DateWrapper, days since 1970-01-01 as an Avro int.
    9:
      id: decimal
      doc: DecimalWrapper, decimal(30, 15) as Avro bytes (big-endian two's complement unscaled value).
    10:
      id: time_micros
      doc: TimeMicrosWrapper, microseconds after midnight as an Avro long.
    11:
      id: timestamp_micros
      doc: TimestampMicrosWrapper, microseconds since the epoch as an Avro long.
    12:
      id: array
      doc: ArrayWrapper, the values of several ordering fields (Hudi 1.1); never inside an array.
    13:
      id: local_date
      doc: LocalDateWrapper, only inside an ArrayWrapper (where it is union branch 12).
