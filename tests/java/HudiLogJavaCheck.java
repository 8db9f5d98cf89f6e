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

  static String avroBlock(String writerFile, String contentFile, String readerFile) throws Exception {
    Schema writer = schema(writerFile);
    Schema reader = schema(readerFile);
    GenericDatumReader<GenericRecord> datumReader = new GenericDatumReader<>(writer, reader);
    List<String> keys = new ArrayList<>();
    int version;
    int count;
    try (DataInputStream in = new DataInputStream(new FileInputStream(contentFile))) {
      version = in.readInt();
      count = in.readInt();
      BinaryDecoder decoder = null;
      for (int i = 0; i < count; i++) {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
        GenericRecord r = datumReader.read(null, decoder);
        if (!decoder.isEnd()) {
          throw new IllegalStateException("record " + i + " has bytes left after decoding");
        }
        Object key = r.get("_hoodie_record_key");
        keys.add(key == null ? null : key.toString());
      }
      if (in.read() != -1) {
        throw new IllegalStateException("bytes left after " + count + " records");
      }
    }
    String readsWriter = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType().name();
    String writerReadsReader = SchemaCompatibility.checkReaderWriterCompatibility(writer, reader).getType().name();
    StringBuilder b = new StringBuilder("{\"version\":" + version + ",\"count\":" + count + ",\"keys\":[");
    for (int i = 0; i < keys.size(); i++) {
      b.append(i == 0 ? "" : ",").append(keys.get(i) == null ? "null" : quote(keys.get(i)));
    }
    return b.append("],\"reader_reads_writer\":").append(quote(readsWriter))
        .append(",\"writer_reads_reader\":").append(quote(writerReadsReader)).append("}").toString();
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
