// The arithmetic of the metadata table's record and secondary indexes, done by the JDK itself (issue 36):
// tests/test_metadata_record_index.py compiles and runs it on a manifest, one check per line (tab separated,
// text given as comma-separated UTF-16 code units so that any string passes), and reads one JSON line each:
//
//   hash <key> <n>        -> {"hash": key.hashCode(), "group": Math.abs(Math.abs(key.hashCode()) % n)}
//   uuid <file id>        -> {"high": most significant bits, "low": least significant bits} of
//                            UUID.fromString(the file id without its "-N" suffix where it is longer than 36)
//   time <instant> <zone> -> {"ms": the yyyyMMddHHmmssSSS instant parsed in the zone, as epoch milliseconds}
//   Errors print {"error": "<exception class>"}.

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.text.SimpleDateFormat;
import java.util.List;
import java.util.TimeZone;
import java.util.UUID;

public class HudiLogKeyHashCheck {

  static String text(String units) {
    if (units.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    for (String u : units.split(",")) {
      b.append((char) Integer.parseInt(u));
    }
    return b.toString();
  }

  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
    for (String line : lines) {
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\t", -1);
      try {
        if (f[0].equals("hash")) {
          String key = text(f[1]);
          int n = Integer.parseInt(f[2]);
          int h = key.hashCode();
          System.out.println("{\"hash\": " + h + ", \"group\": " + Math.abs(Math.abs(h) % n) + "}");
        } else if (f[0].equals("uuid")) {
          String id = text(f[1]);
          UUID u = UUID.fromString(id.length() == 36 ? id : id.substring(0, id.lastIndexOf('-')));
          System.out.println("{\"high\": " + u.getMostSignificantBits() + ", \"low\": " + u.getLeastSignificantBits() + "}");
        } else {
          SimpleDateFormat fmt = new SimpleDateFormat("yyyyMMddHHmmssSSS");
          fmt.setTimeZone(TimeZone.getTimeZone(f[2]));
          fmt.setLenient(false);
          System.out.println("{\"ms\": " + fmt.parse(f[1]).getTime() + "}");
        }
      } catch (Exception e) {
        System.out.println("{\"error\": \"" + e.getClass().getName() + "\"}");
      }
    }
  }
}
