// Reads hudi-log's v8 LSM timeline history with Java's Parquet, Avro and Jackson, the way Hudi 1.x's
// LSMTimeline / ArchivedTimelineV2 read it (issue 20). parquet-avro is not among PySpark's jars, so the
// footer's parquet.avro.schema (what AvroParquetReader decodes with) is parsed by Avro's Schema.Parser and
// compared with HoodieLSMTimelineInstant.avsc, and the rows are read with parquet-hadoop's Group reader.
// One line of the manifest per check:
//
//   parquet <file> <avsc file>
//       prints {"avroSchemaEqual": the footer schema equals the avsc (Avro's Schema.equals), "message": the
//       Parquet schema as text, "rows": [{"instantTime", "completionTime", "action", "metadata": records of
//       the Avro container the metadata bytes hold (-1 when null), "writeStats": partitions of its
//       partitionToWriteStats (-1 when none), "plan": bytes of plan (-1 when null), "version"}]}
//   manifest <file>
//       prints {"files": [[fileName, fileLen], ...]} read into a class of exactly Hudi's fields
//       (HoodieLSMTimelineManifest, field visibility as Hudi's JsonUtils), unknown properties refused
//   version <file>
//       prints {"version": Integer.parseInt of the content}

import java.io.ByteArrayInputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

public class HudiLogLsmCheck {

  public static class Entry {
    String fileName;
    long fileLen;
  }

  public static class Manifest {
    List<Entry> files;
  }

  static String quote(Object o) {
    return o == null ? "null" : "\"" + o.toString().replace("\\", "\\\\").replace("\"", "\\\"")
        .replace("\n", "\\n") + "\"";
  }

  static String str(Group g, String field) {
    return g.getFieldRepetitionCount(field) == 0 ? null : g.getString(field, 0);
  }

  static byte[] bytes(Group g, String field) {
    return g.getFieldRepetitionCount(field) == 0 ? null : g.getBinary(field, 0).getBytes();
  }

  static String parquet(String file, String avsc) throws Exception {
    Configuration conf = new Configuration();
    Path path = new Path(new File(file).getAbsolutePath());
    ParquetMetadata footer;
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))) {
      footer = r.getFooter();
    }
    Map<String, String> kv = footer.getFileMetaData().getKeyValueMetaData();
    Schema expected = new Schema.Parser().setValidateDefaults(true).parse(new File(avsc));
    Schema inFile = new Schema.Parser().setValidateDefaults(true).parse(kv.get("parquet.avro.schema"));
    StringBuilder rows = new StringBuilder();
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), path).withConf(conf).build()) {
      Group g;
      while ((g = reader.read()) != null) {
        byte[] md = bytes(g, "metadata");
        byte[] plan = bytes(g, "plan");
        int records = -1;
        int stats = -1;
        if (md != null) {
          records = 0;
          try (DataFileStream<GenericRecord> s = new DataFileStream<>(new ByteArrayInputStream(md),
              new GenericDatumReader<>())) {
            for (GenericRecord rec : s) {
              records++;
              Schema.Field f = rec.getSchema().getField("partitionToWriteStats");
              Object m = f == null ? null : rec.get("partitionToWriteStats");
              stats = m instanceof Map ? ((Map<?, ?>) m).size() : -1;
            }
          }
        }
        if (rows.length() > 0) {
          rows.append(",");
        }
        rows.append("{\"instantTime\":").append(quote(str(g, "instantTime")))
            .append(",\"completionTime\":").append(quote(str(g, "completionTime")))
            .append(",\"action\":").append(quote(str(g, "action")))
            .append(",\"metadata\":").append(records).append(",\"writeStats\":").append(stats)
            .append(",\"plan\":").append(plan == null ? -1 : plan.length)
            .append(",\"version\":").append(g.getInteger("version", 0)).append("}");
      }
    }
    return "{\"avroSchemaEqual\":" + expected.equals(inFile) + ",\"message\":"
        + quote(footer.getFileMetaData().getSchema().toString()) + ",\"rows\":[" + rows + "]}";
  }

  static String manifest(String file) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    mapper.setVisibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE);
    mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    Manifest m = mapper.readValue(new File(file), Manifest.class);
    List<String> out = new ArrayList<>();
    for (Entry e : m.files) {
      out.add("[" + quote(e.fileName) + "," + e.fileLen + "]");
    }
    return "{\"files\":[" + String.join(",", out) + "]}";
  }

  public static void main(String[] args) throws Exception {
    for (String line : Files.readAllLines(new File(args[0]).toPath())) {
      if (line.isEmpty()) {
        continue;
      }
      String[] p = line.split("\t");
      String out;
      if (p[0].equals("parquet")) {
        out = parquet(p[1], p[2]);
      } else if (p[0].equals("manifest")) {
        out = manifest(p[1]);
      } else {
        String text = new String(Files.readAllBytes(new File(p[1]).toPath()), StandardCharsets.UTF_8);
        out = "{\"version\":" + Integer.parseInt(text) + "}";
      }
      System.out.println(out);
    }
  }
}
