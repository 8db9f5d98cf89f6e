// Decodes hudi-log's metadata-table records of the column_stats, partition_stats and bloom_filters partitions
// with Java's Avro, as Hudi's HoodieMetadataPayload reads them (issue 36): the HoodieMetadataRecord writer schema
// parsed by Avro's own Schema.Parser, each record decoded with GenericDatumReader. tests/test_mdt_stats.py
// writes the schema and each record's bytes to files and runs this on a manifest, one line per record:
//
//   <schema file> <datum file>
//       prints {"key", "type", "column", "file", "min"/"max": "<wrapper record name>:<value>", "valueCount",
//       "nullCount", "deleted", "tight", "valueType", "info", "bloomType", "bloomTimestamp", "bloomBytes",
//       "bloomDeleted", "rest": bytes left over after the record}.

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

public class HudiLogMdtStatsCheck {

  static String quote(Object o) {
    return o == null ? "null" : "\"" + o.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static String wrapped(Object o) {
    if (!(o instanceof GenericRecord)) {
      return null;
    }
    GenericRecord w = (GenericRecord) o;
    Object v = w.get("value");
    String text;
    if (v instanceof ByteBuffer) {
      ByteBuffer b = ((ByteBuffer) v).duplicate();
      StringBuilder sb = new StringBuilder();
      while (b.hasRemaining()) {
        sb.append(String.format("%02x", b.get()));
      }
      text = sb.toString();
    } else {
      text = String.valueOf(v);
    }
    return w.getSchema().getName() + ":" + text;
  }

  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(new File(args[0]).toPath());
    for (String line : lines) {
      if (line.isEmpty()) {
        continue;
      }
      String[] parts = line.split("\t");
      Schema schema = new Schema.Parser().setValidateDefaults(true).parse(new File(parts[0]));
      byte[] datum = Files.readAllBytes(new File(parts[1]).toPath());
      BinaryDecoder dec = DecoderFactory.get().binaryDecoder(datum, null);
      GenericRecord r = new GenericDatumReader<GenericRecord>(schema).read(null, dec);
      StringBuilder out = new StringBuilder("{\"key\":" + quote(r.get("key")) + ",\"type\":" + r.get("type"));
      Object cs = r.get("ColumnStatsMetadata");
      if (cs instanceof GenericRecord) {
        GenericRecord c = (GenericRecord) cs;
        out.append(",\"column\":").append(quote(c.get("columnName")))
            .append(",\"file\":").append(quote(c.get("fileName")))
            .append(",\"min\":").append(quote(wrapped(c.get("minValue"))))
            .append(",\"max\":").append(quote(wrapped(c.get("maxValue"))))
            .append(",\"valueCount\":").append(c.get("valueCount"))
            .append(",\"nullCount\":").append(c.get("nullCount"))
            .append(",\"deleted\":").append(c.get("isDeleted"))
            .append(",\"tight\":").append(c.get("isTightBound"));
        Object vt = c.getSchema().getField("valueType") == null ? null : c.get("valueType");
        if (vt instanceof GenericRecord) {
          out.append(",\"valueType\":").append(((GenericRecord) vt).get("typeOrdinal"))
              .append(",\"info\":").append(quote(((GenericRecord) vt).get("additionalInfo")));
        }
      }
      Object bf = r.get("BloomFilterMetadata");
      if (bf instanceof GenericRecord) {
        GenericRecord b = (GenericRecord) bf;
        ByteBuffer bytes = (ByteBuffer) b.get("bloomFilter");
        byte[] raw = new byte[bytes.remaining()];
        bytes.duplicate().get(raw);
        out.append(",\"bloomType\":").append(quote(b.get("type")))
            .append(",\"bloomTimestamp\":").append(quote(b.get("timestamp")))
            .append(",\"bloomBytes\":").append(quote(new String(raw, StandardCharsets.UTF_8)))
            .append(",\"bloomDeleted\":").append(b.get("isDeleted"));
      }
      int rest = 0;
      while (!dec.isEnd()) {
        dec.readFixed(new byte[1]);
        rest++;
      }
      out.append(",\"rest\":").append(rest).append("}");
      System.out.println(out);
    }
  }
}
