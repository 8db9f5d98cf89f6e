// Kryo payloads of delete blocks of content versions 1 and 2, written the way Hudi before 0.14
// wrote them: SerializationUtils' Kryo (registration not required, references on, StdInstantiatorStrategy
// fallback), writeClassAndObject of a HoodieKey[] (version 1) or DeleteRecord[] (version 2).
// HoodieKey and DeleteRecord below are stand-ins with Hudi's class names and field names/types
// (hudi-common org.apache.hudi.common.model), which is all Kryo's FieldSerializer writes.
// Prints one line per case: name, a tab, the payload in hex. Used by tests/test_deletes_kryo.py.
package org.apache.hudi.common.model;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayOutputStream;
import java.io.Serializable;

class HoodieKey implements Serializable {
  private String recordKey;
  private String partitionPath;

  HoodieKey() {}

  HoodieKey(String recordKey, String partitionPath) {
    this.recordKey = recordKey;
    this.partitionPath = partitionPath;
  }
}

class DeleteRecord implements Serializable {
  private final HoodieKey hoodieKey;
  private final Comparable<?> orderingVal;

  DeleteRecord(HoodieKey hoodieKey, Comparable<?> orderingVal) {
    this.hoodieKey = hoodieKey;
    this.orderingVal = orderingVal;
  }
}

public class KryoDeleteBlocks {
  static String payload(Object o) {
    Kryo kryo = new Kryo();
    kryo.setRegistrationRequired(false);
    kryo.setInstantiatorStrategy(new Kryo.DefaultInstantiatorStrategy(new org.objenesis.strategy.StdInstantiatorStrategy()));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Output out = new Output(bytes);
    kryo.writeClassAndObject(out, o);
    out.close();
    StringBuilder hex = new StringBuilder();
    for (byte b : bytes.toByteArray()) hex.append(String.format("%02x", b));
    return hex.toString();
  }

  static DeleteRecord d(String key, String partition, Comparable<?> ordering) {
    return new DeleteRecord(new HoodieKey(key, partition), ordering);
  }

  public static void main(String[] args) {
    String shared = new String("2025/01/01");
    String longKey = "k".repeat(70);
    System.out.println("v1-keys\t" + payload(new HoodieKey[] {
        new HoodieKey("id-1", shared), new HoodieKey("id-2", shared), new HoodieKey("x", null)}));
    System.out.println("v1-empty\t" + payload(new HoodieKey[0]));
    System.out.println("v2-mixed\t" + payload(new DeleteRecord[] {
        d("id-1", shared, 0), d("id-2", shared, 5L), d("id-3", null, "s"), d("id-4", "", null),
        d(longKey, shared, Long.MIN_VALUE), d("Grüße-😀", shared, Long.MAX_VALUE), d("id-6", shared, -1),
        d("id-7", shared, 1.5f), d("id-8", shared, -2.25d), d("id-9", shared, true), d("é", shared, "ordering-é"),
        d("id-10", shared, Integer.MIN_VALUE)}));
    System.out.println("v2-decimal\t" + payload(new DeleteRecord[] {d("a", "p", new java.math.BigDecimal("1.5"))}));
  }
}
