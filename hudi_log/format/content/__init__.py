"""Block contents, the codecs of what the framing carries (Hudi's ``HoodieAvroDataBlock``,
``HoodieDeleteBlock``, ``HoodieHFileDataBlock`` and ``HoodieParquetDataBlock`` content):

* :mod:`.avro`: Avro records row by row (fastavro), the reference decoder and encoder;
* :mod:`.avro_arrow`: Avro schemas to Arrow schemas and back, as parquet-avro and Spark map them;
* :mod:`.avro_columnar`: Avro data blocks decoded straight into Arrow columns;
* :mod:`.columnar_encode` (+ the optional C encoder ``_avro_rows.c``): Arrow columns to Avro records;
* :mod:`.avro_validate`: checks a record against its Avro schema before a byte is written;
* :mod:`.meta_fields`: the five ``_hoodie_*`` meta fields, the writer schema with them, commit seqnos;
* :mod:`.deletes`: delete records (``DeleteRecord``, content version 3);
* :mod:`.hfile`: HFile contents of metadata-table blocks and base files (``read_hfile``, ``write_hfile``),
  over :mod:`.hfile_grammar` (the bridge to the codec generated from spec/hfile.ksy) and
  :mod:`.hfile_writer` (records laid out as Hudi 1.1's ``HFileWriterImpl`` lays them out).
"""
