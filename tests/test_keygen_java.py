"""hudi-log's timestamp-based partitions and partition-value escaping against the Java libraries Hudi's key
generators use: Joda-Time and Hive's FileUtils.escapePathName, from PySpark's jars (tests/java/
HudiLogKeygenCheck.java; issue 15, items 2 and 9). Skips, saying why, where Java is absent."""

from __future__ import annotations

import random
from pathlib import Path

from hudi_log.table.write.keygen import escape_path_name
from hudi_log.table.write.timestamp_keygen import TimestampKeyGenError, TimestampPartitioner, TimestampSpec

SOURCE = Path(__file__).parent / "java" / "HudiLogKeygenCheck.java"
TB = "hoodie.keygen.timebased."
OUT_FORMATS = ["yyyy/MM/dd/HH", "yyyy-MM-dd", "yyyyMMdd", "yy-M-d H:m:s.S", "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
               "EEE, d MMM yyyy hh:mm a", "EEEE MMMM D k K", "yyyy-MM-dd HH:mm:ss ZZ", "'dt='yyyy''MM", "SSSSSS"]
ZONES = ["", "UTC", "GMT+8:00", "GMT-03:30", "America/New_York", "Asia/Kolkata", "Europe/Berlin", "Australia/Lord_Howe"]
UNITS = ["SECONDS", "MILLISECONDS", "MICROSECONDS", "NANOSECONDS", "MINUTES", "HOURS", "DAYS"]


def codes(s: str) -> str:
    return ",".join(str(ord(c)) for c in s)


def python_number(unit, value, fmt, zone):
    kind = {"SECONDS": "UNIX_TIMESTAMP", "MILLISECONDS": "EPOCHMILLISECONDS",
            "MICROSECONDS": "EPOCHMICROSECONDS"}.get(unit, "SCALAR")
    settings = {TB + "timestamp.type": kind, TB + "timestamp.scalar.time.unit": unit, TB + "output.dateformat": fmt,
                TB + "output.timezone": zone}
    return TimestampPartitioner(TimestampSpec.from_settings(settings, "t"), "t", "f").segment(value, 0)


def python_string(formats, delim, fmt, zin, zout, value):
    settings = {TB + "timestamp.type": "MIXED", TB + "input.dateformat": formats,
                TB + "input.dateformat.list.delimiter.regex": delim, TB + "output.dateformat": fmt,
                TB + "input.timezone": zin, TB + "output.timezone": zout}
    part = TimestampPartitioner(TimestampSpec.from_settings(settings, "t"), "t", "f")
    return part.segment(None if value == "NULL" else value, 0)


def outcome(fn, *args):
    try:
        return {"out": fn(*args)}
    except TimestampKeyGenError as e:
        return {"error": str(e)}


def test_timestamp_partitions_and_escaping_agree_with_joda_and_hive(java_program):
    run = java_program(SOURCE)
    rng = random.Random(15)
    lines, expected = [], []
    # numbers: every unit, zone and format, over instants around the epoch, DST changes and far dates
    values = [0, 1, -1, 1705311000, 1711846800, 1730592000, -86_400_123, 4_102_444_800, 253_402_128_000]
    for unit in UNITS:
        for fmt in OUT_FORMATS:
            for zone in ZONES:
                v = rng.choice(values)
                scale = {"MILLISECONDS": 1000, "MICROSECONDS": 10**6, "NANOSECONDS": 10**9}.get(unit, 1)
                if unit in ("MINUTES", "HOURS", "DAYS"):
                    v //= {"MINUTES": 60, "HOURS": 3600, "DAYS": 86400}[unit]
                else:
                    v = v * scale + rng.randrange(scale)
                    if v >= 2**63:  # a Java long (an int64 column) holds no more
                        continue
                lines.append(["num", codes(unit), codes(str(v)), codes(fmt), codes(zone)])
                expected.append(outcome(python_number, unit, v, fmt, zone))
    # strings: input formats (lists too), zones in and out, offsets in the text, nulls, text that fails
    cases = [
        ("yyyy-MM-dd'T'HH:mm:ss.SSSZ", ["2024-01-15T10:30:00.000Z", "2024-01-15T10:30:00.000+0530",
                                        "2024-03-31T02:30:00.000-02:00", "2024-1-5T1:2:3.4Z", "NULL", "2024-01-15"]),
        ("yyyy-MM-dd HH:mm:ss", ["2024-03-10 02:30:00", "2024-11-03 01:30:00", "2024-07-01 23:59:59", "NULL"]),
        ("yyyy-MM-dd,yyyyMMdd,dd/MM/yy", ["20240115", "2024-01-15", "15/01/24", "15/01/1999", "1/2/3", "NULL"]),
        ("yyyyMMddHHmmss", ["20240115103000", "2024011510300"]),
        ("dd MMM yyyy hh:mm a", ["15 Jan 2024 09:30 PM", "15 january 2024 12:05 am", "1 Sept 2024 01:00 AM"]),
    ]
    for formats, texts in cases:
        for text in texts:
            for zin, zout in [("", ""), ("UTC", ""), ("", "UTC"), ("America/New_York", "Asia/Kolkata"),
                              ("GMT+8:00", "")]:
                lines.append(["str", codes(formats), codes(","), codes("yyyy/MM/dd/HH:mm"), codes(zin), codes(zout),
                              codes(text)])
                expected.append(outcome(python_string, formats, ",", "yyyy/MM/dd/HH:mm", zin, zout, text))
    # escaping: every ASCII character and some beyond
    for c in list(map(chr, range(1, 128))) + ["é", "€", "日本", "a b"]:
        lines.append(["esc", codes(f"x{c}y")])
        expected.append({"out": escape_path_name(f"x{c}y")})
    got = run(lines)
    wrong = []
    for line, want, have in zip(lines, expected, got):
        if "error" in have:  # Java fails: so must we (the message is ours)
            ok = "error" in want
        else:
            ok = want == have
        if not ok:
            wrong.append((line, want, have))
    assert not wrong, f"{len(wrong)} of {len(lines)} differ, e.g. {wrong[:5]}"
    assert sum("error" in h for h in got) >= 3  # the failing texts did fail
