// Computes timestamp-based partition segments and escaped partition values with the libraries Java Hudi's key
// generators use (issue 15, item 2): Joda-Time (TimestampBasedAvroKeyGenerator, HoodieDateTimeParser) and Hive's
// FileUtils.escapePathName (whose character list PartitionPathEncodeUtils carries), both from PySpark's jars.
// tests/test_keygen_java.py compiles and runs it on a manifest, one check per line (tab separated, every field
// given as comma-separated UTF-16 code units so that any text passes), and reads one JSON line per check:
//
//   esc  <value>                      -> {"out": FileUtils.escapePathName(value)}
//   num  <unit> <long> <out fmt> <out zone or empty>
//        -> the partition of a number: TimeUnit.MILLISECONDS.convert(value, unit), printed with
//           DateTimeFormat.forPattern(out fmt) in the output zone (none: new DateTime(ms, null), the default zone)
//   str  <in fmts> <delimiter regex> <out fmt> <in zone> <out zone> <value or the word NULL>
//        -> the partition of a string: the input formats as one DateTimeFormatterBuilder.append(null, parsers),
//           withZone(in zone) or withOffsetParsed(); printed in the output zone, else in the parsed value's zone.
//           NULL: the epoch + 1 ms printed with the first input format (in zone, else out zone, else GMT) first.
//   Errors print {"error": "<exception class>: <message>"}.

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hive.common.FileUtils;
import org.joda.time.DateTime;
import org.joda.time.DateTimeZone;
import org.joda.time.format.DateTimeFormat;
import org.joda.time.format.DateTimeFormatter;
import org.joda.time.format.DateTimeFormatterBuilder;
import org.joda.time.format.DateTimeParser;

public class HudiLogKeygenCheck {

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

  static String text(String codes) {
    if (codes.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    for (String c : codes.split(",")) {
      b.append((char) Integer.parseInt(c));
    }
    return b.toString();
  }

  static DateTimeZone zone(String id) {
    return id.trim().isEmpty() ? null : DateTimeZone.forTimeZone(TimeZone.getTimeZone(id));
  }

  static String number(String[] f) {
    long ms = TimeUnit.MILLISECONDS.convert(Long.parseLong(text(f[2])), TimeUnit.valueOf(text(f[1])));
    DateTimeZone out = zone(text(f[4]));
    DateTimeFormatter printer = DateTimeFormat.forPattern(text(f[3]));
    if (out != null) {
      printer = printer.withZone(out);
    }
    return new DateTime(ms, out).toString(printer);
  }

  static String string(String[] f) {
    String formats = text(f[1]);
    String delimiter = text(f[2]);
    DateTimeZone in = zone(text(f[4]));
    DateTimeZone out = zone(text(f[5]));
    String value = text(f[6]);
    DateTimeParser[] parsers = Arrays.stream(formats.split(delimiter)).map(String::trim)
        .map(DateTimeFormat::forPattern).map(DateTimeFormatter::getParser).toArray(DateTimeParser[]::new);
    DateTimeFormatter parser = new DateTimeFormatterBuilder().append(null, parsers).toFormatter();
    parser = in != null ? parser.withZone(in) : parser.withOffsetParsed();
    if (value.equals("NULL")) {
      String first = formats.split(delimiter)[0];
      DateTimeZone z = in != null ? in : out != null ? out : DateTimeZone.forTimeZone(TimeZone.getTimeZone("GMT"));
      value = new DateTime(1L, z).toString(first);
    }
    DateTime parsed = parser.parseDateTime(value);
    DateTimeFormatter printer = DateTimeFormat.forPattern(text(f[3]));
    printer = printer.withZone(out != null ? out : parsed.getZone());
    return new DateTime(parsed.getMillis(), out).toString(printer);
  }

  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
    for (String line : lines) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\t", -1);
      try {
        String out;
        switch (f[0]) {
          case "esc":
            out = FileUtils.escapePathName(text(f[1]));
            break;
          case "num":
            out = number(f);
            break;
          default:
            out = string(f);
        }
        System.out.println("{\"out\": " + quote(out) + "}");
      } catch (Exception e) {
        System.out.println("{\"error\": " + quote(e.getClass().getSimpleName() + ": " + e.getMessage()) + "}");
      }
    }
  }
}
