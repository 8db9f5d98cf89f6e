"""Key generators as Java Hudi computes them (issue 15, item 2): unit checks against values that follow from
Java's rules (the class named at each test), and the settings that decide them."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from hudi_log.table.errors import RecordKeyError, TableMismatchError, UnsupportedKeyGeneratorError
from hudi_log.table.write.keygen import KeyGenerator, escape_path_name
from hudi_log.table.write.keygen_config import key_generator, single_field_encoding
from hudi_log.table.write.timestamp_keygen import TimestampKeyGenError, TimestampPartitioner, TimestampSpec

TB = "hoodie.keygen.timebased."


def ts_segment(value, **settings) -> str:
    spec = TimestampSpec.from_settings({TB + k.replace("_", "."): v for k, v in settings.items()}, "t")
    return TimestampPartitioner(spec, "t", "f").segment(value, 0)


# ---- PartitionPathEncodeUtils.escapePathName (Hive's FileUtils list) -----------------------------------------------
@pytest.mark.parametrize("value, escaped", [
    ("plain-value_1.5", "plain-value_1.5"),
    ("a/b", "a%2Fb"), ("k=v", "k%3Dv"), ("10:30", "10%3A30"), ("50%", "50%25"), ("x#y?z", "x%23y%3Fz"),
    ("[a]{b}^c", "%5Ba%5D%7Bb}%5Ec"), ("tab\there", "tab%09here"), ("quote\"'*\\", "quote%22%27%2A%5C"),
    ("späce é", "späce é"),  # only ASCII characters are escaped (the BitSet has 128 bits), spaces too stay
])
def test_escape_path_name_as_hive(value, escaped):
    assert escape_path_name(value) == escaped


def test_partition_paths_simple_complex_hive_and_url_encoding():
    """KeyGenUtils.getPartitionPath / getRecordPartitionPath: default partition for null or empty, encoding
    before the hive prefix, segments joined by '/'."""
    batch = pa.table({"id": ["1", "2", "3"], "p": ["a/b", None, ""], "q": [1, 2, None]})
    kg = KeyGenerator("t", ("id",), ("p",), hive_style=True, url_encode=True)
    assert kg.partition_paths(batch) == ["p=a%2Fb", "p=__HIVE_DEFAULT_PARTITION__", "p=__HIVE_DEFAULT_PARTITION__"]
    kg = KeyGenerator("t", ("id",), ("p", "q"), url_encode=True, kind="COMPLEX")
    assert kg.partition_paths(batch) == ["a%2Fb/1", "__HIVE_DEFAULT_PARTITION__/2",
                                         "__HIVE_DEFAULT_PARTITION__/__HIVE_DEFAULT_PARTITION__"]
    # without encoding a '/' makes two levels, as in Java
    assert KeyGenerator("t", ("id",), ("p",)).partition_paths(batch)[0] == "a/b"


@pytest.mark.parametrize("value, url_encode, hive", [
    ("../x", False, False), ("/abs/olute", False, False), ("/", False, False), ("...", False, False),
    (".hidden", False, False), ("..\\..\\x", False, False), ("../../x", True, False), ("..\\..\\x", True, False),
    ("a/.b", False, True), ("a//b", False, False), ("a\x00b", False, False),
])
def test_a_partition_path_leaving_the_table_or_hidden_is_refused(value, url_encode, hive):
    """After url encoding and the hive prefix (containment.BAD_PARTITION_PATH, vectorized), both code paths."""
    kg = KeyGenerator("t", ("id",), ("p",), url_encode=url_encode, hive_style=hive)
    with pytest.raises(RecordKeyError, match=r"partition value: partition path .* \(made from partition field\(s\) p\)"):
        kg.partition_paths(pa.table({"id": ["1", "2"], "p": ["ok", value]}))
    # the row-by-row path (a timestamp field elsewhere, or encoding) refuses the same
    kg = KeyGenerator("t", ("id",), ("p", "q"), url_encode=url_encode, hive_style=hive, kind="COMPLEX")
    with pytest.raises(RecordKeyError, match="partition value"):
        kg.partition_paths(pa.table({"id": ["1"], "p": [value], "q": ["z"]}))


def test_record_keys_simple_complex_and_the_single_field_encodings():
    """ComplexAvroKeyGenerator: f:v pairs, __null__ / __empty__ parts; one field is prefixed or not
    (HUDI-7001); SimpleAvroKeyGenerator: the bare value, null or empty refused."""
    batch = pa.table({"id": [1, 2], "name": ["a", None], "d": [1.0, 1e20]})
    assert KeyGenerator("t", ("id",)).record_keys(batch) == ["1", "2"]
    assert KeyGenerator("t", ("id", "name"), kind="COMPLEX").record_keys(batch) == ["id:1,name:a", "id:2,name:__null__"]
    assert KeyGenerator("t", ("id",), kind="COMPLEX", field_prefixed=True).record_keys(batch) == ["id:1", "id:2"]
    assert KeyGenerator("t", ("id",), kind="COMPLEX", field_prefixed=False).record_keys(batch) == ["1", "2"]
    # Double.toString
    assert KeyGenerator("t", ("d",)).record_keys(batch) == ["1.0", "1.0E20"]
    with pytest.raises(RecordKeyError, match="null or empty"):
        KeyGenerator("t", ("name",)).record_keys(batch)
    with pytest.raises(RecordKeyError, match="null or empty"):  # one field, prefixed: all of it null
        KeyGenerator("t", ("name",), kind="COMPLEX", field_prefixed=True).record_keys(batch)
    with pytest.raises(RecordKeyError, match="cannot be a record key"):
        KeyGenerator("t", ("b",)).record_keys(pa.table({"b": [b"x"]}))


# ---- HUDI-7001: which encoding a single-field Complex key takes ---------------------------------------------------
@pytest.mark.parametrize("props, options, version, stored, prefixed", [
    ({"hoodie.table.complex.keygen.encoding": "VALUE_ONLY"}, {}, 9, ["id:1"], False),  # recorded wins
    ({"hoodie.table.complex.keygen.encoding": "field_prefixed"}, {}, 6, ["1"], True),
    ({}, {"hoodie.write.complex.keygen.new.encoding": "true"}, 9, [], True),  # v9: fixed, the option ignored
    ({}, {"hoodie.write.complex.keygen.new.encoding": "true"}, 8, ["id:1"], False),  # the option decides at <= 8
    ({}, {"hoodie.write.complex.keygen.new.encoding": "false"}, 6, ["1"], True),
    ({}, {}, 6, ["1", "2"], False),  # the stored keys (what a 0.14.1-1.0.2 writer left)
    ({}, {}, 8, ["id:1", "id:2"], True),
    ({}, {}, 6, [], True),  # nothing stored: Hudi 1.1's default
])
def test_single_field_complex_encoding(props, options, version, stored, prefixed):
    assert single_field_encoding(props, options, version, lambda: stored, "id", "t") is prefixed


def test_the_generator_comes_from_the_table_and_a_contradicting_write_is_refused():
    props = {"hoodie.table.keygenerator.class": "org.apache.hudi.keygen.ComplexAvroKeyGenerator",
             "hoodie.table.recordkey.fields": "id,name", "hoodie.table.partition.fields": "p",
             "hoodie.datasource.write.hive_style_partitioning": "true", "hoodie.table.version": "6"}
    kg = key_generator("t", props, {})
    assert (kg.kind, kg.record_key_fields, kg.partition_fields, kg.hive_style) == ("COMPLEX", ("id", "name"), ("p",), True)
    with pytest.raises(TableMismatchError, match="SimpleKeyGenerator"):
        key_generator("t", props, {"hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator"})
    # no generator recorded: inferred as KeyGenUtils.inferKeyGeneratorType
    bare = {"hoodie.table.recordkey.fields": "id", "hoodie.table.version": "8"}
    assert key_generator("t", bare, {}).kind == "NON_PARTITION"
    assert key_generator("t", {**bare, "hoodie.table.partition.fields": "a,b"}, {}).kind == "COMPLEX"
    with pytest.raises(UnsupportedKeyGeneratorError, match="one record key field"):
        key_generator("t", {**props, "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator"}, {})


def test_custom_partition_types_from_a_v8_table_or_a_v6_write():
    """CustomAvroKeyGenerator: field:SIMPLE / field:TIMESTAMP; 1.x tables store the types, 0.x ones do not."""
    ts = {TB + "timestamp.type": "EPOCHMILLISECONDS", TB + "output.dateformat": "yyyy-MM-dd"}
    v8 = {"hoodie.table.keygenerator.type": "CUSTOM", "hoodie.table.recordkey.fields": "id",
          "hoodie.table.partition.fields": "region:simple,ts:timestamp", "hoodie.table.version": "8", **ts}
    kg = key_generator("t", v8, {})
    assert kg.partition_fields == ("region", "ts") and kg.timestamp_fields == ("ts",)
    batch = pa.table({"id": ["a"], "region": ["eu"], "ts": [1705311000000]})
    assert kg.partition_paths(batch) == ["eu/2024-01-15"]
    assert kg.record_keys(batch) == ["a"]  # one key field: SimpleAvroKeyGenerator's bare value
    v6 = {**v8, "hoodie.table.version": "6", "hoodie.table.partition.fields": "region,ts",
          "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.CustomKeyGenerator"}
    del v6["hoodie.table.keygenerator.type"]
    with pytest.raises(UnsupportedKeyGeneratorError, match="field:SIMPLE or field:TIMESTAMP"):
        key_generator("t", v6, {})
    asked = {"hoodie.datasource.write.partitionpath.field": "region:SIMPLE,ts:TIMESTAMP"}
    assert key_generator("t", v6, asked).partition_paths(batch) == ["eu/2024-01-15"]
    two_keys = key_generator("t", {**v8, "hoodie.table.recordkey.fields": "id,region"}, {})
    assert two_keys.record_keys(batch) == ["id:a,region:eu"]  # several: ComplexAvroKeyGenerator


# ---- TimestampBasedAvroKeyGenerator -------------------------------------------------------------------------------
def test_timestamp_numbers_and_units():
    # EPOCHMILLISECONDS in UTC: the corpus's v9 table keeps 1705311000000 under 2024/01/15/09
    assert ts_segment(1705311000000, timestamp_type="EPOCHMILLISECONDS", output_dateformat="yyyy/MM/dd/HH",
                      output_timezone="UTC") == "2024/01/15/09"
    assert ts_segment(1705311000, timestamp_type="UNIX_TIMESTAMP", output_dateformat="yyyy/MM/dd/HH",
                      timezone="GMT+8:00") == "2024/01/15/17"
    # EPOCHMICROSECONDS: TimeUnit.convert truncates toward zero (also below the epoch)
    assert ts_segment(-1500, timestamp_type="EPOCHMICROSECONDS", output_dateformat="yyyy-MM-dd HH:mm:ss.SSS",
                      output_timezone="UTC") == "1969-12-31 23:59:59.999"
    # SCALAR days, Hudi's key generator guide: 20000 -> "2024-10-04 12", null -> "1970-01-02 12"
    scalar = dict(timestamp_type="SCALAR", timestamp_scalar_time_unit="days", output_dateformat="yyyy-MM-dd hh",
                  timezone="GMT")
    assert ts_segment(20000, **scalar) == "2024-10-04 12"
    assert ts_segment(None, **scalar) == "1970-01-02 12"
    # a double or decimal drops its fraction first (Number.longValue)
    assert ts_segment(1.9, timestamp_type="UNIX_TIMESTAMP", output_dateformat="ss", timezone="UTC") == "01"
    with pytest.raises(TimestampKeyGenError, match="takes numbers"):
        ts_segment("1705311000000", timestamp_type="EPOCHMILLISECONDS", output_dateformat="yyyy", timezone="UTC")


def test_timestamp_without_an_output_zone_prints_in_the_local_zone(monkeypatch):
    """new DateTime(millis, null): the JVM's default zone, i.e. this process's."""
    expected = dt.datetime.fromtimestamp(1705311000).strftime("%Y-%m-%d %H")
    assert ts_segment(1705311000, timestamp_type="UNIX_TIMESTAMP", output_dateformat="yyyy-MM-dd HH") == expected


def test_timestamp_date_strings():
    fmt = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
    ds = dict(timestamp_type="DATE_STRING", input_dateformat=fmt, output_dateformat="yyyy/MM/dd/HH")
    assert ts_segment("2024-01-15T10:30:00.000Z", **ds) == "2024/01/15/10"  # the corpus's DATE_STRING table
    # no output zone: the zone the string carried; an output zone converts
    assert ts_segment("2024-01-15T10:30:00.000+0200", **ds) == "2024/01/15/10"
    assert ts_segment("2024-01-15T10:30:00.000+02:00", **ds, output_timezone="UTC") == "2024/01/15/08"
    # no offset in the text: the input zone reads the wall time
    assert ts_segment("2024-07-01 23:30", timestamp_type="DATE_STRING", input_dateformat="yyyy-MM-dd HH:mm",
                      input_timezone="America/New_York", output_timezone="UTC",
                      output_dateformat="yyyy-MM-dd HH") == "2024-07-02 03"
    # MIXED: the first format that reads the whole text
    mixed = dict(timestamp_type="MIXED", input_dateformat="yyyy-MM-dd,yyyyMMdd", output_dateformat="yyyy/MM/dd",
                 timezone="UTC")
    assert ts_segment("20240115", **mixed) == "2024/01/15"
    assert ts_segment("2024-1-5", **mixed) == "2024/01/05"  # Joda reads one digit where the pattern has two
    # null: the epoch + 1 ms in the first input format ("+0000" for Z in UTC), parsed back
    assert ts_segment(None, **ds) == "1970/01/01/00"
    with pytest.raises(TimestampKeyGenError, match="does not match"):
        ts_segment("15/01/2024", **ds)
    with pytest.raises(TimestampKeyGenError, match="not a valid date"):
        ts_segment("2024-02-30T00:00:00.000Z", **ds)


def test_joda_output_letters():
    d = dict(timestamp_type="EPOCHMILLISECONDS", timezone="UTC")
    ms = 1705311000123  # Monday 2024-01-15 09:30:00.123 UTC
    assert ts_segment(ms, output_dateformat="EEE, d MMM yy hh:mm a", **d) == "Mon, 15 Jan 24 09:30 AM"
    assert ts_segment(ms, output_dateformat="EEEE MMMM D 'day' '''x'''", **d) == "Monday January 15 day 'x'"
    assert ts_segment(ms, output_dateformat="yyyyMMddHHmmssSSS Z ZZ", **d) == "20240115093000123 +0000 +00:00"
    assert ts_segment(ms, output_dateformat="k K S SSSS", **d) == "9 9 1 1230"


@pytest.mark.parametrize("settings, named", [
    ({"output.dateformat": "yyyy z"}, "'z'"),
    ({"output.dateformat": "yyyy ZZZ"}, "'Z'"),
    ({"output.dateformat": "xxxx-ww"}, "'x'"),
    ({"output.dateformat": "yyyy q"}, "'q'"),
    ({"output.dateformat": "yyyy", "timezone": "Mars/Olympus"}, "Mars/Olympus"),
    ({"output.dateformat": ""}, "output.dateformat is required"),
    ({"output.dateformat": "yyyy", "timestamp.type": "DATE_STRING"}, "input.dateformat is required"),
    ({"output.dateformat": "yyyy", "timestamp.type": "DATE_STRING", "input.dateformat": "EEE yyyy"}, "output formats only"),
    ({"output.dateformat": "yyyy", "timestamp.type": "WEEKS"}, "timestamp.type=WEEKS"),
])
def test_timestamp_settings_hudi_log_cannot_mirror_are_refused_by_name(settings, named):
    full = {TB + "timestamp.type": "EPOCHMILLISECONDS", **{TB + k: v for k, v in settings.items()}}
    with pytest.raises(TimestampKeyGenError, match=named):
        TimestampSpec.from_settings(full, "t")


def test_timestamp_typed_columns_are_refused():
    props = {"hoodie.table.keygenerator.type": "TIMESTAMP", "hoodie.table.recordkey.fields": "id",
             "hoodie.table.partition.fields": "t", "hoodie.table.version": "8",
             TB + "timestamp.type": "EPOCHMICROSECONDS", TB + "output.dateformat": "yyyy"}
    batch = pa.table({"id": ["a"], "t": pa.array([0], pa.timestamp("us"))})
    with pytest.raises(RecordKeyError, match="number and string columns only"):
        key_generator("t", props, {}).partition_paths(batch)


def test_a_key_generator_pickles_for_the_workers():
    """Spark executors and worker processes receive the driver's key generator inside the write context."""
    import pickle

    props = {"hoodie.table.keygenerator.type": "CUSTOM", "hoodie.table.recordkey.fields": "id",
             "hoodie.table.partition.fields": "region:simple,ts:timestamp", "hoodie.table.version": "8",
             TB + "timestamp.type": "EPOCHMILLISECONDS", TB + "output.dateformat": "yyyy-MM-dd HH",
             TB + "output.timezone": "Asia/Kolkata"}
    kg = key_generator("t", props, {})
    batch = pa.table({"id": ["a"], "region": ["eu"], "ts": [1705311000000]})
    copy = pickle.loads(pickle.dumps(kg))
    assert copy == kg and copy.partition_paths(batch) == kg.partition_paths(batch) == ["eu/2024-01-15 15"]
