// Checks the record-key bloom filter of hudi-log's base files the way Java's BLOOM / GLOBAL_BLOOM index
// uses it (issue 15, items 5 and 9), with Hadoop's own bloom filter classes from PySpark's jars (Hudi's
// filters serialize as Hadoop's do). tests/test_java_bloom.py compiles and runs it on a manifest, one
// check per line (tab separated), and reads one JSON line per check:
//
//   <parquet file> <number of absent keys to try>
//       reads the footer (ParquetFileReader) and every _hoodie_record_key of the file (parquet-hadoop's
//       example Group reader); decodes org.apache.hudi.bloomfilter (Base64) as BloomFilterFactory
//       .fromString does by hoodie_bloom_filter_type_code: no code = SIMPLE, one Hadoop BloomFilter;
//       DYNAMIC_V0 = the header InternalDynamicBloomFilter writes (version, hash count, hash type, bits,
//       then nr, currentNbRecord, row count), parsed here, then each row read by Hadoop's
//       BloomFilter.readFields. A key is a member when any row's membershipTest holds it. Prints the
//       filter's layout, how many of the file's keys it misses, how many of the absent keys it takes,
//       the footer's min / max keys and the min / max by String.compareTo.

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.bloom.BloomFilter;
import org.apache.hadoop.util.bloom.Key;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;

public class HudiLogBloomCheck {

  static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {  // ASCII out, whatever the platform charset
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  static List<String> keys(String file, Configuration conf) throws Exception {
    List<String> keys = new ArrayList<>();
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), new Path(file))
        .withConf(conf).build()) {
      for (Group g = reader.read(); g != null; g = reader.read()) {
        keys.add(g.getFieldRepetitionCount("_hoodie_record_key") == 0 ? null : g.getString("_hoodie_record_key", 0));
      }
    }
    return keys;
  }

  static String check(String file, int absent) throws Exception {
    Configuration conf = new Configuration();
    Map<String, String> kv;
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file), conf))) {
      kv = reader.getFooter().getFileMetaData().getKeyValueMetaData();
    }
    String value = kv.get("org.apache.hudi.bloomfilter");
    if (value == null) {
      throw new IllegalStateException("no org.apache.hudi.bloomfilter in the footer");
    }
    String type = kv.getOrDefault("hoodie_bloom_filter_type_code", "SIMPLE");
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(
        value.getBytes(StandardCharsets.UTF_8))));
    List<BloomFilter> rows = new ArrayList<>();
    StringBuilder layout = new StringBuilder();
    if (type.equals("SIMPLE")) {
      BloomFilter f = new BloomFilter();
      f.readFields(in);
      rows.add(f);
      layout.append(",\"vector_size\":").append(f.getVectorSize());
    } else if (type.equals("DYNAMIC_V0")) {
      int version = in.readInt();
      int nbHash = in.readInt();
      int hashType = in.readByte();
      int vectorSize = in.readInt();
      int nr = in.readInt();
      int current = in.readInt();
      int count = in.readInt();
      if (version != -1) {
        throw new IllegalStateException("dynamic filter version " + version);
      }
      for (int i = 0; i < count; i++) {
        BloomFilter f = new BloomFilter();
        f.readFields(in);
        if (f.getVectorSize() != vectorSize) {
          throw new IllegalStateException("row " + i + " has " + f.getVectorSize() + " bits, header " + vectorSize);
        }
        rows.add(f);
      }
      layout.append(",\"nb_hash\":").append(nbHash).append(",\"hash_type\":").append(hashType)
          .append(",\"vector_size\":").append(vectorSize).append(",\"nr\":").append(nr)
          .append(",\"current\":").append(current);
    } else {
      throw new IllegalStateException("unknown bloom filter type code " + type);
    }
    if (in.available() != 0) {
      throw new IllegalStateException(in.available() + " bytes after the filter");
    }
    List<String> keys = keys(file, conf);
    Set<String> present = new HashSet<>();
    int missing = 0;
    String firstMissing = null;
    String min = null;
    String max = null;
    for (String k : keys) {
      if (k == null) {
        continue;
      }
      present.add(k);
      if (!member(rows, k)) {
        missing++;
        firstMissing = firstMissing == null ? k : firstMissing;
      }
      min = min == null || k.compareTo(min) < 0 ? k : min;
      max = max == null || k.compareTo(max) > 0 ? k : max;
    }
    int hits = 0;
    int tried = 0;
    for (int i = 0; tried < absent; i++) {
      String k = "absent-" + i + "-" + file.hashCode();
      if (!present.contains(k)) {
        tried++;
        hits += member(rows, k) ? 1 : 0;
      }
    }
    return "{\"type\":" + quote(type) + ",\"rows\":" + rows.size() + layout + ",\"keys\":" + keys.size()
        + ",\"missing\":" + missing + ",\"first_missing\":" + quote(firstMissing) + ",\"absent\":" + tried
        + ",\"absent_hits\":" + hits + ",\"footer_min\":" + quote(kv.get("hoodie_min_record_key"))
        + ",\"footer_max\":" + quote(kv.get("hoodie_max_record_key")) + ",\"java_min\":" + quote(min)
        + ",\"java_max\":" + quote(max) + "}";
  }

  static boolean member(List<BloomFilter> rows, String key) {
    Key k = new Key(key.getBytes(StandardCharsets.UTF_8));
    for (BloomFilter f : rows) {
      if (f.membershipTest(k)) {
        return true;
      }
    }
    return false;
  }

  public static void main(String[] args) throws Exception {
    for (String line : Files.readAllLines(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
      String[] a = line.split("\t");
      String out;
      try {
        out = check(a[0], Integer.parseInt(a[1]));
      } catch (Exception e) {
        out = "{\"error\":" + quote(e.getClass().getName() + ": " + e.getMessage()) + "}";
      }
      System.out.println(out);
    }
  }
}
