"""Partition paths of timestamp-based partition fields, as Hudi's ``TimestampBasedAvroKeyGenerator`` (and the
``field:TIMESTAMP`` parts of ``CustomAvroKeyGenerator``) compute them with Joda-Time.

Settings (``TimestampKeyGeneratorConfig``; the older ``hoodie.deltastreamer.keygen.timebased.*`` spellings
too): ``hoodie.keygen.timebased.timestamp.type`` (UNIX_TIMESTAMP, EPOCHMILLISECONDS, EPOCHMICROSECONDS, SCALAR
with ``timestamp.scalar.time.unit``, DATE_STRING, MIXED), ``input.dateformat`` (a list split by
``input.dateformat.list.delimiter.regex``, default ``,``), ``output.dateformat``, ``input.timezone`` /
``output.timezone``, or ``timezone`` for both (``HoodieDateTimeParser``).

Java's rules, followed here:

* a number is converted to milliseconds with ``TimeUnit.convert`` (truncating, saturating); floats and decimals
  first drop their fraction (``longValue``). A string is parsed with the input formats (DATE_STRING / MIXED
  only); the first format that reads the whole text wins, as Joda's multi-parser does.
* without an output zone the path is printed in the zone the parsed string carried (its offset, else the input
  zone), and for numbers in the JVM's default zone, i.e. this process's local zone;
* a null value takes ``1`` (one unit after the epoch) for numbers, and for strings the epoch + 1 ms printed
  with the first input format (in the input zone, else the output zone, else GMT) and parsed back: never
  ``__HIVE_DEFAULT_PARTITION__``;
* Joda pattern letters: ``y yy Y M MM MMM MMMM d D H k K h a m s S E Z ZZ`` and quoted text. Others (``z``,
  ``ZZZ``, week-based ``x w e``, ``G C``) are refused by name, as is a zone id Python does not know (Java's
  ``TimeZone.getTimeZone`` would silently take GMT for a misspelt one). Month and day names are English (the
  JVM's usual default locale).
* text under a number type (UNIX_TIMESTAMP, EPOCHMILLISECONDS, EPOCHMICROSECONDS, SCALAR) is refused, as Java
  refuses it (no input formatter outside DATE_STRING / MIXED). A Spark SQL table may declare such a partition
  column as a number and still hold it as text in later files and its commit schema (the corpus's
  ``sample_table_cow_v9_timebasedkeygen_epochmillis`` after its SQL UPDATE and DELETE): rows read back from it
  take the column as numbers again to be upserted, by Java as by hudi-log.
* date and timestamp *typed* columns are refused: Java's Avro path and its Spark row path treat them
  differently (the Avro one reads the raw epoch day / microsecond count as the configured unit).
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping

from ..errors import RecordKeyError

PREFIX = "hoodie.keygen.timebased."
OLD_PREFIX = "hoodie.deltastreamer.keygen.timebased."
TIMESTAMP_TYPES = ("UNIX_TIMESTAMP", "DATE_STRING", "MIXED", "EPOCHMILLISECONDS", "EPOCHMICROSECONDS", "SCALAR")
#: java.util.concurrent.TimeUnit -> (numerator, denominator) of milliseconds per unit
_UNIT_MS = {"NANOSECONDS": (1, 1_000_000), "MICROSECONDS": (1, 1000), "MILLISECONDS": (1, 1),
            "SECONDS": (1000, 1), "MINUTES": (60_000, 1), "HOURS": (3_600_000, 1), "DAYS": (86_400_000, 1)}
_FIXED_UNIT = {"UNIX_TIMESTAMP": "SECONDS", "EPOCHMILLISECONDS": "MILLISECONDS", "EPOCHMICROSECONDS": "MICROSECONDS"}
_LONG_MAX, _LONG_MIN = 2**63 - 1, -(2**63)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_NUMERIC = set("yYMdDHkKhmsS")
_OUTPUT_ONLY = set("ED")  # parsing them would set fields Joda resolves against the date: refused in input formats
_REFUSED = {"z": "time zone names", "x": "week-based years", "w": "weeks of the year", "e": "numeric days of the week",
            "G": "eras", "C": "centuries"}


class TimestampKeyGenError(RecordKeyError):
    """A timestamp-based partition setting or value hudi-log cannot turn into Java's partition path."""


def setting(settings: Mapping, name: str, default: str | None = None) -> str | None:
    """``hoodie.keygen.timebased.<name>``, else its older ``hoodie.deltastreamer.`` spelling."""
    for key in (PREFIX + name, OLD_PREFIX + name):
        v = settings.get(key)
        if v is not None:
            return str(v)
    return default


# ---- zones ---------------------------------------------------------------------------------------------
_CUSTOM = re.compile(r"GMT([+-])(\d{1,2})(?::?(\d{2}))?$")


def java_zone(where, key: str, name: str) -> dt.tzinfo:
    """The zone Java's ``TimeZone.getTimeZone(name)`` gives, or a refusal naming the setting."""
    n = name.strip()
    if n in ("UTC", "GMT", "Z", "UT"):
        return dt.timezone.utc
    m = _CUSTOM.match(n)  # Java's custom ids GMT+h, GMT+hh, GMT+hh:mm, GMT+hhmm
    if m:
        h, mm = int(m.group(2)), int(m.group(3) or 0)
        if h <= 23 and mm <= 59:
            off = dt.timedelta(hours=h, minutes=mm)
            return dt.timezone(off if m.group(1) == "+" else -off)
    try:
        return zoneinfo.ZoneInfo(n)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise TimestampKeyGenError(where, f"{key}={name!r} is not a zone id hudi-log knows (Java's TimeZone would "
                                   "take GMT for an unknown id); use a tz database id or GMT+hh:mm") from None


# ---- Joda patterns -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Token:
    letter: str  # "" for literal text
    count: int = 0
    text: str = ""
    max_digits: int = 0  # parsing of numbers: Joda's greedy maximum


def compile_pattern(where, key: str, pattern: str, *, parsing: bool) -> tuple[_Token, ...]:
    """Joda's ``DateTimeFormat.forPattern`` tokens; a letter hudi-log cannot mirror is refused by name."""
    raw: list[_Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            j, buf = i + 1, []
            while j < n:
                if pattern[j] == "'":
                    if j + 1 < n and pattern[j + 1] == "'":
                        buf.append("'")
                        j += 2
                        continue
                    break
                buf.append(pattern[j])
                j += 1
            raw.append(_Token("", text="".join(buf) if j > i + 1 else "'"))
            i = j + 1
            continue
        if c.isascii() and c.isalpha():
            j = i
            while j < n and pattern[j] == c:
                j += 1
            count = j - i
            if c in _REFUSED or (c == "Z" and count > 2):
                what = _REFUSED.get(c, "zone ids")
                raise TimestampKeyGenError(where, f"{key}={pattern!r}: pattern letter {c!r} ({what}) is not "
                                           "supported by hudi-log's Joda-Time patterns")
            if c not in _NUMERIC and c not in "EaZ":
                raise TimestampKeyGenError(where, f"{key}={pattern!r}: {c!r} is not a Joda-Time pattern letter")
            if parsing and (c in _OUTPUT_ONLY or c in "YkK"):
                raise TimestampKeyGenError(where, f"{key}={pattern!r}: pattern letter {c!r} is supported in "
                                           "output formats only")
            raw.append(_Token(c, count))
            i = j
            continue
        raw.append(_Token("", text=c))
        i += 1
    out = []
    for k, t in enumerate(raw):
        if t.letter in _NUMERIC and not (t.letter == "M" and t.count >= 3):
            nxt = raw[k + 1] if k + 1 < len(raw) else None
            next_numeric = nxt is not None and nxt.letter in _NUMERIC and not (nxt.letter == "M" and nxt.count >= 3)
            if t.letter in "yY":  # long years unless a number follows; yy reads two digits, leniently more
                mx = (2 if t.count == 2 else t.count) if next_numeric else 9
            elif t.letter == "S":
                mx = t.count
            else:
                mx = max(t.count, 3 if t.letter == "D" else 2)
            t = _Token(t.letter, t.count, max_digits=mx)
        out.append(t)
    return tuple(out)


def _pad(v: int, width: int) -> str:
    return ("-" if v < 0 else "") + str(abs(v)).rjust(width, "0")


def _offset(d: dt.datetime, colon: bool) -> str:
    secs = int(d.utcoffset().total_seconds())
    sign = "-" if secs < 0 else "+"
    h, m = divmod(abs(secs) // 60, 60)
    return f"{sign}{h:02d}{':' if colon else ''}{m:02d}"


def format_instant(tokens: tuple[_Token, ...], d: dt.datetime) -> str:
    """Joda's print of the aware datetime ``d`` (millisecond precision)."""
    out = []
    for t in tokens:
        c, n = t.letter, t.count
        if not c:
            out.append(t.text)
        elif c in "yY":
            out.append(_pad(d.year % 100, 2) if n == 2 else _pad(d.year, n))
        elif c == "M":
            out.append(_MONTHS[d.month - 1] if n >= 4 else _MONTHS[d.month - 1][:3] if n == 3 else _pad(d.month, n))
        elif c == "d":
            out.append(_pad(d.day, n))
        elif c == "D":
            out.append(_pad(d.timetuple().tm_yday, n))
        elif c == "H":
            out.append(_pad(d.hour, n))
        elif c == "k":
            out.append(_pad(d.hour or 24, n))
        elif c == "K":
            out.append(_pad(d.hour % 12, n))
        elif c == "h":
            out.append(_pad(d.hour % 12 or 12, n))
        elif c == "m":
            out.append(_pad(d.minute, n))
        elif c == "s":
            out.append(_pad(d.second, n))
        elif c == "S":
            out.append(f"{d.microsecond // 1000:03d}".ljust(n, "0")[:n])
        elif c == "a":
            out.append("AM" if d.hour < 12 else "PM")
        elif c == "E":
            out.append(_DAYS[d.weekday()] if n >= 4 else _DAYS[d.weekday()][:3])
        elif c == "Z":
            out.append(_offset(d, colon=n == 2))
    return "".join(out)


class _ParseFailure(Exception):
    pass


def _two_digit_year(v: int, pivot: int) -> int:
    """Joda's ``TwoDigitYear`` within the century around ``pivot`` (this year - 30)."""
    low = pivot - 50
    t = low % 100 if low >= 0 else 99 + ((low + 1) % 100)
    return v + low + (100 if v < t else 0) - t


def _text_at(text: str, pos: int, names: list[str]) -> tuple[int, int]:
    """The longest of ``names`` (case-insensitive) at ``pos``: (its index, the end)."""
    best = None
    low = text[pos:].lower()
    for i, name in enumerate(names):
        if low.startswith(name.lower()) and (best is None or len(name) > len(names[best])):
            best = i
    if best is None:
        raise _ParseFailure
    return best, pos + len(names[best])


def parse_text(tokens: tuple[_Token, ...], text: str) -> tuple[dict, int | None]:
    """Joda's left-to-right, greedy parse of the whole ``text``: (fields, offset seconds or None)."""
    f = {"year": 1970, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "ms": 0, "pm": None, "h12": None}
    offset = None
    pos = 0
    for t in tokens:
        c = t.letter
        if not c:
            if not text.startswith(t.text, pos):
                raise _ParseFailure
            pos += len(t.text)
        elif c == "M" and t.count >= 3:
            i, pos = _text_at(text, pos, list(_MONTHS) + [m[:3] for m in _MONTHS])
            f["month"] = i % 12 + 1
        elif c == "a":
            i, pos = _text_at(text, pos, ["AM", "PM"])
            f["pm"] = i == 1
        elif c == "Z":
            if text.startswith("Z", pos):
                offset, pos = 0, pos + 1
                continue
            m = re.compile(r"([+-])(\d{2})(?::?(\d{2}))?").match(text, pos)
            if not m:
                raise _ParseFailure
            secs = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60
            offset, pos = (-secs if m.group(1) == "-" else secs), m.end()
        else:
            start = pos
            if c == "y" and pos < len(text) and text[pos] in "+-":
                pos += 1
            end = pos
            while end < len(text) and end - pos < t.max_digits and text[end].isdigit():
                end += 1
            if end == pos:
                raise _ParseFailure
            digits = text[pos:end]
            v = int(text[start:end])
            pos = end
            if c == "y":
                two = t.count == 2 and len(digits) == 2 and start == pos - 2
                f["year"] = _two_digit_year(v, dt.date.today().year - 30) if two else v
            elif c == "M":
                f["month"] = v
            elif c == "d":
                f["day"] = v
            elif c == "H":
                f["hour"] = v
            elif c == "h":
                f["h12"] = v % 12
            elif c == "m":
                f["minute"] = v
            elif c == "s":
                f["second"] = v
            elif c == "S":
                f["ms"] = int(digits.ljust(3, "0")[:3])
    if pos != len(text):
        raise _ParseFailure
    if f["h12"] is not None:
        f["hour"] = f["h12"] + (12 if f["pm"] else 0)
    elif f["pm"] is not None:
        f["hour"] = f["hour"] % 12 + (12 if f["pm"] else 0)
    return f, offset


@dataclass(frozen=True)
class TimestampSpec:
    """One timestamp-based partition field's settings, resolved (zones as ``tzinfo``; None: local)."""
    timestamp_type: str
    unit: str | None  # the TimeUnit of numbers; None for DATE_STRING / MIXED
    input_formats: tuple[str, ...]
    output_format: str
    input_zone: dt.tzinfo | None
    output_zone: dt.tzinfo | None

    @classmethod
    def from_settings(cls, settings: Mapping, where) -> "TimestampSpec":
        kind = (setting(settings, "timestamp.type") or "").strip().upper()
        if kind not in TIMESTAMP_TYPES:
            raise TimestampKeyGenError(where, f"{PREFIX}timestamp.type={kind or '<unset>'} is not one of "
                                       f"{', '.join(TIMESTAMP_TYPES)}")
        unit = _FIXED_UNIT.get(kind)
        if kind == "SCALAR":
            unit = (setting(settings, "timestamp.scalar.time.unit") or "SECONDS").strip().upper()
            if unit not in _UNIT_MS:
                raise TimestampKeyGenError(where, f"{PREFIX}timestamp.scalar.time.unit={unit} is not a TimeUnit")
        out = setting(settings, "output.dateformat") or ""
        if not out:
            raise TimestampKeyGenError(where, f"{PREFIX}output.dateformat is required")
        compile_pattern(where, PREFIX + "output.dateformat", out, parsing=False)
        formats: tuple[str, ...] = ()
        if kind in ("DATE_STRING", "MIXED"):
            raw = setting(settings, "input.dateformat") or ""
            if not raw:
                raise TimestampKeyGenError(where, f"{PREFIX}input.dateformat is required for {kind}")
            delim = setting(settings, "input.dateformat.list.delimiter.regex") or ","
            formats = tuple(re.split(delim, raw))
            for p in formats:
                compile_pattern(where, PREFIX + "input.dateformat", p.strip(), parsing=True)
        if setting(settings, "timezone") is not None:  # the deprecated one, for both, wins when present
            both = setting(settings, "timezone") or "GMT"
            zin = zout = both
            kin = kout = PREFIX + "timezone"
        else:
            zin, zout = setting(settings, "input.timezone") or "", setting(settings, "output.timezone") or ""
            kin, kout = PREFIX + "input.timezone", PREFIX + "output.timezone"
        return cls(kind, unit, formats, out,
                   java_zone(where, kin, zin) if zin.strip() else None,
                   java_zone(where, kout, zout) if zout.strip() else None)


def _millis(v: int, unit: str) -> int:
    """``TimeUnit.MILLISECONDS.convert(v, unit)``: truncating toward zero, saturating at Long's range."""
    num, den = _UNIT_MS[unit]
    if den > 1:
        q = abs(v) // den
        return q if v >= 0 else -q
    r = v * num
    return _LONG_MAX if r > _LONG_MAX else _LONG_MIN if r < _LONG_MIN else r


def _java_long(v) -> int:
    """``Number.longValue()`` of a float or decimal: the fraction dropped (NaN 0, saturating)."""
    if isinstance(v, float):
        if v != v:
            return 0
        if v >= 2.0**63:
            return _LONG_MAX
        if v <= -(2.0**63):
            return _LONG_MIN
        return int(v)
    if isinstance(v, Decimal):  # BigDecimal.longValue: the low 64 bits of the integer part
        i = int(v)
        return ((i + 2**63) % 2**64) - 2**63
    return int(v)


def _aware(ms: int, zone: dt.tzinfo | None) -> dt.datetime:
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    d = epoch + dt.timedelta(milliseconds=ms)
    return d.astimezone(zone) if zone is not None else d.astimezone()  # None: this process's zone, as the JVM's


class TimestampPartitioner:
    """Turns one column's values into Java's partition path segments (before hive style / url encoding)."""

    def __init__(self, spec: TimestampSpec, where, field: str):
        self.spec, self.where, self.field = spec, where, field
        self._out = compile_pattern(where, PREFIX + "output.dateformat", spec.output_format, parsing=False)
        self._ins = [compile_pattern(where, PREFIX + "input.dateformat", p.strip(), parsing=True)
                     for p in spec.input_formats]

    def _parse(self, text: str, row: int) -> dt.datetime:
        for tokens in self._ins:
            try:
                f, offset = parse_text(tokens, text)
            except _ParseFailure:
                continue
            try:
                naive = dt.datetime(f["year"], f["month"], f["day"], f["hour"], f["minute"], f["second"],
                                    f["ms"] * 1000)
            except ValueError:  # Joda refuses a field out of range (month 13, Feb 30), trying no other format
                raise TimestampKeyGenError(self.where, f"row {row}: {self.field}={text!r} is not a valid date") \
                    from None
            zone = self.spec.input_zone
            if offset is not None:
                instant = naive.replace(tzinfo=dt.timezone(dt.timedelta(seconds=offset)))
                # withOffsetParsed keeps the parsed offset as the zone; a configured input zone replaces it
                return instant.astimezone(zone) if zone is not None else instant
            if zone is None:
                return naive.astimezone()  # the JVM default zone reads the wall time
            aware = naive.replace(tzinfo=zone)
            if aware.astimezone(dt.timezone.utc).astimezone(zone).replace(tzinfo=None) != naive:
                raise TimestampKeyGenError(self.where, f"row {row}: {self.field}={text!r} is a wall time that "
                                           "does not exist in the input zone (a daylight-saving gap)")
            return aware
        raise TimestampKeyGenError(self.where, f"row {row}: {self.field}={text!r} does not match "
                                   f"{PREFIX}input.dateformat {list(self.spec.input_formats)}")

    def _null_value(self):
        spec = self.spec
        if spec.unit is not None:
            return 1
        zone = spec.input_zone or spec.output_zone or dt.timezone.utc
        first = compile_pattern(self.where, PREFIX + "input.dateformat", spec.input_formats[0], parsing=False)
        return format_instant(first, _aware(1, zone))

    def segment(self, v, row: int) -> str:
        spec = self.spec
        if v is None:
            v = self._null_value()
        if isinstance(v, str):
            if spec.unit is not None:
                # Java refuses text here too: its Avro generator parses a CharSequence only with an input
                # formatter, which only DATE_STRING / MIXED have ("Missing input formatter"), and its Spark row
                # path hands it a UTF8String, no CharSequence ("Unexpected type for partition field")
                raise TimestampKeyGenError(self.where, f"row {row}: {self.field}={v!r} is text: {PREFIX}timestamp."
                                           f"type={spec.timestamp_type} takes numbers, as Java's TimestampBased"
                                           "AvroKeyGenerator does (it has no input format to read text with; "
                                           "DATE_STRING / MIXED take strings); give the column as numbers (cast "
                                           "it to bigint)")
            d = self._parse(v, row)
            return format_instant(self._out, d.astimezone(spec.output_zone) if spec.output_zone else d)
        if isinstance(v, bool) or not isinstance(v, (int, float, Decimal)):
            raise TimestampKeyGenError(self.where, f"{self.field}: a {type(v).__name__} value cannot be a "
                                       "timestamp-based partition value")
        if spec.unit is None:
            raise TimestampKeyGenError(self.where, f"{self.field} holds numbers: {PREFIX}timestamp.type="
                                       f"{spec.timestamp_type} takes strings")
        ms = _millis(_java_long(v), spec.unit)
        try:
            d = _aware(ms, spec.output_zone)
        except (OverflowError, ValueError):
            raise TimestampKeyGenError(self.where, f"row {row}: {self.field}={v!r} is {ms} ms after the epoch, "
                                       "outside the years 1-9999 hudi-log prints") from None
        return format_instant(self._out, d)
