// Checks hudi-log's files the way Java reads them (issue 15, item 9), with the real Avro, Parquet and Hadoop
// libraries that ship in PySpark's jars. tests/test_java_checks.py compiles and runs it; it takes one
// manifest of checks (one per line, tab separated) so that one JVM runs them all, and prints one JSON
// line per check:
//
//   avro-block <writer schema file> <block content file> <reader schema file>
//       the records of an Avro data block's content (content version, record count, then each record
//       behind its int length, as HoodieAvroDataBlock writes them), decoded with GenericDatumReader from
//       the writer schema to the reader schema; prints the record count, each record's
//       _hoodie_record_key and the reader/writer SchemaCompatibility both ways.
//   schema-pair <our schema file> <Java's schema file>
//       Avro's SchemaCompatibility between the two both ways, whether Schema.equals holds, and whether
//       Java's Schema.toString() of our schema gives our file's text back (Avro's own key order).
//   cdc-block <writer schema file> <block content file>
//       the records of a CDC data block (the same layout) decoded with the writer schema of its SCHEMA
//       header, each printed as Hudi's HoodieCDCUtils.recordToJson prints an image (GenericData's
//       toString): op, record_key or ts_ms where the schema has them, before and after.
//   parquet-footer <parquet file>
//       the footer's key/value metadata and row count (ParquetFileReader), and whether
//       parquet.avro.schema parses as an Avro schema.

import java.io.DataInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

public class HudiLogJavaCheck {

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  static Schema schema(String file) throws Exception {
    return new Schema.Parser().parse(new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8));
  }

  /** The records of an Avro data or CDC block's content, decoded with datumReader; [0] of version gets the content version. */
  static List<GenericRecord> blockRecords(String contentFile, GenericDatumReader<GenericRecord> datumReader, int[] version)
      throws Exception {
    List<GenericRecord> out = new ArrayList<>();
    try (DataInputStream in = new DataInputStream(new FileInputStream(contentFile))) {
      version[0] = in.readInt();
      int count = in.readInt();
      BinaryDecoder decoder = null;
      for (int i = 0; i < count; i++) {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
        out.add(datumReader.read(null, decoder));
        if (!decoder.isEnd()) {
          throw new IllegalStateException("record " + i + " has bytes left after decoding");
        }
      }
      if (in.read() != -1) {
        throw new IllegalStateException("bytes left after " + count + " records");
      }
    }
    return out;
  }

  static String avroBlock(String writerFile, String contentFile, String readerFile) throws Exception {
    Schema writer = schema(writerFile);
    Schema reader = schema(readerFile);
    int[] version = new int[1];
    List<String> keys = new ArrayList<>();
    for (GenericRecord r : blockRecords(contentFile, new GenericDatumReader<>(writer, reader), version)) {
      // records without the field (an archive's HoodieArchivedMetaEntry) have no key
      Object key = r.getSchema().getField("_hoodie_record_key") == null ? null : r.get("_hoodie_record_key");
      keys.add(key == null ? null : key.toString());
    }
    String readsWriter = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType().name();
    String writerReadsReader = SchemaCompatibility.checkReaderWriterCompatibility(writer, reader).getType().name();
    StringBuilder b = new StringBuilder("{\"version\":" + version[0] + ",\"count\":" + keys.size() + ",\"keys\":[");
    for (int i = 0; i < keys.size(); i++) {
      b.append(i == 0 ? "" : ",").append(keys.get(i) == null ? "null" : quote(keys.get(i)));
    }
    return b.append("],\"reader_reads_writer\":").append(quote(readsWriter))
        .append(",\"writer_reads_reader\":").append(quote(writerReadsReader)).append("}").toString();
  }

  static String field(GenericRecord r, String name) {
    if (r.getSchema().getField(name) == null) {
      return "null";
    }
    Object v = r.get(name);
    return v == null ? "null" : quote(v.toString());
  }

  static String cdcBlock(String writerFile, String contentFile) throws Exception {
    StringBuilder b = new StringBuilder("{\"records\":[");
    boolean first = true;
    for (GenericRecord r : blockRecords(contentFile, new GenericDatumReader<>(schema(writerFile)), new int[1])) {
      b.append(first ? "" : ",").append("{\"op\":").append(field(r, "op"))
          .append(",\"record_key\":").append(field(r, "record_key"))
          .append(",\"ts_ms\":").append(field(r, "ts_ms"))
          .append(",\"before\":").append(field(r, "before"))
          .append(",\"after\":").append(field(r, "after")).append("}");
      first = false;
    }
    return b.append("]}").toString();
  }

  static String schemaPair(String oursFile, String javaFile) throws Exception {
    Schema ours = schema(oursFile);
    Schema java = schema(javaFile);
    String text = new String(Files.readAllBytes(Paths.get(oursFile)), StandardCharsets.UTF_8);
    return "{\"java_reads_ours\":" + quote(SchemaCompatibility.checkReaderWriterCompatibility(java, ours).getType().name())
        + ",\"ours_reads_java\":" + quote(SchemaCompatibility.checkReaderWriterCompatibility(ours, java).getType().name())
        + ",\"equal\":" + ours.equals(java) + ",\"to_string_same\":" + ours.toString().equals(text) + "}";
  }

  static String parquetFooter(String file) throws Exception {
    Configuration conf = new Configuration();
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file), conf))) {
      Map<String, String> kv = reader.getFooter().getFileMetaData().getKeyValueMetaData();
      StringBuilder b = new StringBuilder("{\"rows\":" + reader.getRecordCount() + ",\"avro_schema_parses\":");
      String avro = kv.get("parquet.avro.schema");
      boolean parses = false;
      if (avro != null) {
        new Schema.Parser().parse(avro);
        parses = true;
      }
      b.append(parses).append(",\"footer\":{");
      boolean first = true;
      for (Map.Entry<String, String> e : kv.entrySet()) {
        if (!e.getKey().equals("parquet.avro.schema")) {
          b.append(first ? "" : ",").append(quote(e.getKey())).append(":").append(quote(e.getValue()));
          first = false;
        }
      }
      return b.append("}}").toString();
    }
  }

  public static void main(String[] args) throws Exception {
    for (String line : Files.readAllLines(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
      String[] a = line.split("\t");
      String out;
      try {
        if (a[0].equals("avro-block")) {
          out = avroBlock(a[1], a[2], a[3]);
        } else if (a[0].equals("cdc-block")) {
          out = cdcBlock(a[1], a[2]);
        } else if (a[0].equals("schema-pair")) {
          out = schemaPair(a[1], a[2]);
        } else {
          out = parquetFooter(a[1]);
        }
      } catch (Exception e) {
        out = "{\"error\":" + quote(e.getClass().getName() + ": " + e.getMessage()) + "}";
      }
      System.out.println(out);
    }
  }
}
