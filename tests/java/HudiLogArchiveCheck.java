// Decodes the records of hudi-log's v6 timeline archive with Java's Avro, as Hudi's HoodieArchivedTimeline
// does (issue 20): the block's SCHEMA header parsed by Avro's own Schema.Parser (stricter than fastavro:
// names defined once, defaults valid), each record decoded with GenericDatumReader. tests/test_archive.py
// writes the header and each record's bytes to files and runs this on a manifest, one line per record:
//
//   <schema file> <datum file>
//       prints {"commitTime", "actionType", "actionState", "metadata": the name of the non-null metadata
//       field, "writeStats": partitions of hoodieCommitMetadata.partitionToWriteStats or -1, "rest": bytes
//       left over after the record (0 when the record is exactly one datum)}.

import java.io.File;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

public class HudiLogArchiveCheck {

  static String quote(Object o) {
    return o == null ? "null" : "\"" + o.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
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
      String metadata = null;
      for (Schema.Field f : schema.getFields()) {
        Object v = r.get(f.name());
        if (v instanceof GenericRecord) {
          metadata = f.name();
        }
      }
      int stats = -1;
      Object cm = r.get("hoodieCommitMetadata");
      if (cm instanceof GenericRecord) {
        Object m = ((GenericRecord) cm).get("partitionToWriteStats");
        stats = m instanceof Map ? ((Map<?, ?>) m).size() : -1;
      }
      int rest = 0;
      while (!dec.isEnd()) {
        dec.readFixed(new byte[1]);
        rest++;
      }
      System.out.println("{\"commitTime\":" + quote(r.get("commitTime")) + ",\"actionType\":" + quote(r.get("actionType"))
          + ",\"actionState\":" + quote(r.get("actionState")) + ",\"metadata\":" + quote(metadata)
          + ",\"writeStats\":" + stats + ",\"rest\":" + rest + "}");
    }
  }
}
