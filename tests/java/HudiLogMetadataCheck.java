// Decodes the HoodieMetadataRecords hudi-log writes into metadata-table HFiles with Java's Avro (PySpark's
// jars): tests/test_metadata_writer.py compiles and runs it on a manifest, one cell per line:
//
//   datum  <writer schema file>  <value file>   -> {"out": GenericData's JSON text of the record}
//
// The value is one cell's bytes: the Avro binary of the record under the writer schema (no container), as
// Hudi's HoodieHFileDataBlock and base-file reader decode it. Errors print {"error": "<class>: <message>"}.

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

public class HudiLogMetadataCheck {

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
    for (String line : lines) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\t");
      try {
        Schema schema = new Schema.Parser().parse(new String(Files.readAllBytes(Paths.get(f[1])), StandardCharsets.UTF_8));
        byte[] value = Files.readAllBytes(Paths.get(f[2]));
        BinaryDecoder in = DecoderFactory.get().binaryDecoder(value, null);
        GenericRecord rec = new GenericDatumReader<GenericRecord>(schema).read(null, in);
        if (!in.isEnd()) {
          throw new IllegalStateException("bytes left after the record");
        }
        System.out.println("{\"out\": " + quote(rec.toString()) + "}");
      } catch (Exception e) {
        System.out.println("{\"error\": " + quote(e.getClass().getName() + ": " + e.getMessage()) + "}");
      }
    }
  }
}
