"""``.hoodie/hoodie.properties``: the table's configuration.

Facts (Apache Hudi ``HoodieTableConfig``):

* The file is a Java properties file (``#``/``!`` comments, ``key=value`` or ``key:value``, backslash
  escapes such as ``\\:``, line continuations). Every key is kept.
* ``hoodie.table.checksum`` is the CRC32 of the UTF-8 bytes of ``"{database}.{table}"`` where
  ``database`` is ``hoodie.database.name`` (empty when absent) and ``table`` is ``hoodie.table.name``.
  Hudi checks it when the key is present and falls back to ``hoodie.properties.backup`` when the main
  file is missing or fails the check; so do we.
* Table versions read and written here: 6 (0.14/0.15), 8 (1.0), 9 (1.1). Timeline layout 1 up to v6, 2 from v8.

Damaged values are refused, naming the file and the key (:class:`PropertyValueError`), where reading on
would give a wrong answer with no error:

* ``hoodie.table.type`` other than ``COPY_ON_WRITE`` / ``MERGE_ON_READ`` (Java's ``HoodieTableType.valueOf``
  throws too; we accept any letter case). When the key is missing, Java's default is COPY_ON_WRITE, and
  reading a MERGE_ON_READ table so brings deleted rows back and loses updates: the key may be missing only
  where the table looks copy-on-write. The timeline is checked here (an instant of a MERGE_ON_READ-only
  action: deltacommit, compaction, logcompaction), and the file-system view refuses a data log file
  (:func:`check_missing_type_log_file`).
* ``hoodie.timeline.layout.version`` that is not an integer Java's ``TimelineLayoutVersion`` takes (0 to 2),
  or one the table version does not go with (versions 6: 0 or 1; 8 and 9: 2): another layout would look
  for instants where there are none, and read an empty table.
* ``hoodie.table.checksum`` that is not an integer fails the checksum (and so falls back to the backup).
"""

from __future__ import annotations

import datetime
import functools
import re
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Iterator

from ..containment import within_table
from ..format.content.meta_fields import populates_meta_fields
from ..paths import as_path, write_replace
from ..errors import HudiLogError

SUPPORTED_TABLE_VERSIONS = (6, 8, 9)
PROPERTIES_FILE = "hoodie.properties"
BACKUP_FILE = "hoodie.properties.backup"


class TableError(HudiLogError):
    """Something about a Hudi table (not a single log file) is wrong; ``path`` names the file."""

    def __init__(self, path, message: str):
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")


class NotAHudiTableError(TableError):
    """The path has no ``.hoodie`` folder."""


class TablePropertiesError(TableError):
    """``hoodie.properties`` is missing, unreadable, incomplete or fails its checksum."""


class PropertyValueError(TablePropertiesError):
    """A key of ``hoodie.properties`` holds a value that would make reads wrong (see the module docstring);
    ``field`` names the key. Not taken for damage the backup may repair: the backup is not read instead."""

    def __init__(self, path, field: str, message: str):
        self.field = field
        super().__init__(path, f"{field}: {message}")


TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")
#: the timeline layout versions each table version is read with (Java's TimelineLayoutVersion: 0 to 2)
LAYOUTS_OF_VERSION = {6: (0, 1), 8: (2,), 9: (2,)}
#: instant file names of actions only a MERGE_ON_READ table has, in either timeline layout
_MOR_INSTANT = re.compile(r"^\d+(_\d+)?\.(deltacommit|compaction|logcompaction)(\.requested|\.inflight)?$")


class UnsupportedTableVersionError(TableError):
    """``hoodie.table.version`` is not one this reader knows (6, 8, 9)."""


#: the table versions hudi-log writes
WRITABLE_TABLE_VERSIONS = (6, 8, 9)


class UnwritableTableVersionError(UnsupportedTableVersionError):
    """A table hudi-log reads but does not write: every action that would change its files refuses, the same
    way, before it changes anything."""


class UnsupportedMergeConfigError(TablePropertiesError):
    """The table merges records in a way hudi-log does not (version 9's partial updates or merge properties):
    an action that merges records would merge them differently from Java, so it refuses."""


#: version 9 (Hudi 1.1, ``HoodieTableConfig``): how records merge beyond the merge mode and ordering fields.
#: ``EightToNineUpgradeHandler`` and ``inferMergingConfigsForV9TableCreation`` set them for the payloads they
#: retire (partial updates of ``PartialUpdateAvroPayload`` and Debezium's, the delete markers of AWS DMS and
#: Debezium); hudi-log merges by the event- or commit-time mode and ordering fields alone, so it merges no
#: table that has them, nor one whose merge mode is CUSTOM (versions 8 and 9: a user's merger or payload).
PARTIAL_UPDATE_MODE = "hoodie.table.partial.update.mode"
MERGE_MODE = "hoodie.record.merge.mode"
MERGE_PROPERTY_PREFIX = "hoodie.record.merge.property."


def check_mergeable(props: "TableProperties", action: str) -> None:
    """Refuse ``action`` (one that merges records: a write, a compaction, a clustering) on a table whose
    records merge by more than its merge mode and ordering fields, naming the properties that say so."""
    odd = [f"{k}={v}" for k, v in props.items()
           if (k == PARTIAL_UPDATE_MODE and v.strip().upper() not in ("", "NONE"))
           or (k.startswith(MERGE_PROPERTY_PREFIX) and v.strip())
           or (k == MERGE_MODE and v.strip().upper() == "CUSTOM")]  # a merger or payload class of the user's
    if odd:
        raise UnsupportedMergeConfigError(props.path, f"{action} would merge records of a table that merges by "
                                          f"{', '.join(sorted(odd))}, which hudi-log does not apply (write it "
                                          "with Apache Hudi 1.1)")


def check_writable(props: "TableProperties", action: str) -> None:
    """Refuse ``action`` on a table version hudi-log does not write, saying what to do instead."""
    v = props.version
    if v in WRITABLE_TABLE_VERSIONS:
        return
    if v > max(WRITABLE_TABLE_VERSIONS):
        advice = "write it with the Apache Hudi release that made it"
    else:
        advice = "upgrade it with Apache Hudi 0.14 or later first (its next write upgrades it to version 6)"
    raise UnwritableTableVersionError(props.path, f"{action} would change a table of version {v}, which hudi-log "
                                      f"reads but does not write (it writes versions "
                                      f"{', '.join(map(str, WRITABLE_TABLE_VERSIONS))}): {advice}")


def parse_java_properties(text: str) -> dict[str, str]:
    """Parse Java ``.properties`` text (the subset Hudi writes plus continuations and escapes)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].lstrip()
        i += 1
        if not line or line[0] in "#!":
            continue
        # join continuation lines: an odd number of trailing backslashes
        while _continues(line) and i < len(lines):
            line = line[:-1] + lines[i].lstrip()
            i += 1
        key_chars: list[str] = []
        j = 0
        while j < len(line):
            c = line[j]
            if c == "\\" and j + 1 < len(line):
                key_chars.append(line[j:j + 2])
                j += 2
                continue
            if c in "=: \t\f":
                break
            key_chars.append(c)
            j += 1
        # skip separator: whitespace, then at most one of = or :, then whitespace
        while j < len(line) and line[j] in " \t\f":
            j += 1
        if j < len(line) and line[j] in "=:":
            j += 1
        while j < len(line) and line[j] in " \t\f":
            j += 1
        out[_unescape("".join(key_chars))] = _unescape(line[j:])
    return out


def _continues(line: str) -> bool:
    n = len(line) - len(line.rstrip("\\"))
    return n % 2 == 1


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out = []
    j = 0
    while j < len(s):
        c = s[j]
        if c == "\\" and j + 1 < len(s):
            n = s[j + 1]
            if n == "u" and j + 6 <= len(s):
                try:
                    out.append(chr(int(s[j + 2:j + 6], 16)))
                    j += 6
                    continue
                except ValueError:
                    pass
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(n, n))
            j += 2
        else:
            out.append(c)
            j += 1
    return "".join(out)


def table_checksum(props: Mapping[str, str]) -> int:
    """Hudi's ``generateChecksum``: CRC32 of ``"{database}.{table}"``."""
    name = props.get("hoodie.table.name")
    if name is None:
        raise KeyError("hoodie.table.name")
    database = props.get("hoodie.database.name", "")
    return zlib.crc32(f"{database}.{name}".encode("utf-8"))


class TableProperties(Mapping):
    """All keys of ``hoodie.properties`` plus typed accessors for the ones reading needs."""

    def __init__(self, props: dict[str, str], path: Path):
        self._props = dict(props)
        self.path = as_path(path)

    # Mapping protocol: every key kept as written
    def __getitem__(self, key: str) -> str:
        return self._props[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._props)

    def __len__(self) -> int:
        return len(self._props)

    def __repr__(self) -> str:
        return f"TableProperties({self.name!r}, version={self.version}, type={self.table_type})"

    @property
    def name(self) -> str:
        return self._props.get("hoodie.table.name", "")

    @property
    def database(self) -> str:
        return self._props.get("hoodie.database.name", "")

    @property
    def version(self) -> int:
        return int(self._props["hoodie.table.version"])

    @property
    def table_type(self) -> str:
        return self._props.get("hoodie.table.type", "COPY_ON_WRITE").upper()

    @property
    def is_mor(self) -> bool:
        return self.table_type == "MERGE_ON_READ"

    @property
    def timeline_layout_version(self) -> int:
        v = self._props.get("hoodie.timeline.layout.version")
        if v is not None:
            return int(v)
        return 2 if self.version >= 8 else 1

    @property
    def timeline_path(self) -> str:
        """Folder of active instants relative to ``.hoodie`` ("" for layout 1)."""
        if self.timeline_layout_version >= 2:
            return self._props.get("hoodie.timeline.path", "timeline")
        return ""

    def meta_folder(self, table_path, key: str, default: str, under=None):
        """The folder ``key`` names (``default`` when unset) under ``under`` (``.hoodie`` when None), through the
        containment rule: ``hoodie.timeline.path=../../evil`` would otherwise put instants outside the table."""
        root = under if under is not None else as_path(table_path) / ".hoodie"
        return within_table(root, self._props.get(key) or default, source=self.path, field=key)

    def timeline_folder(self, table_path):
        """Where the active timeline's instants are: ``.hoodie`` (layout 1, whatever ``hoodie.timeline.path``
        says: a table Java downgraded from version 8 keeps the key) or ``.hoodie/{hoodie.timeline.path}``."""
        if not self.timeline_path:
            return as_path(table_path) / ".hoodie"
        return self.meta_folder(table_path, "hoodie.timeline.path", self.timeline_path)

    def check_meta_folders(self, table_path) -> None:
        """Every folder ``hoodie.properties`` names (timeline, LSM history, archive) held under ``.hoodie``:
        checked by every writer before it changes anything, since archival runs after a write commits."""
        timeline = self.meta_folder(table_path, "hoodie.timeline.path", "timeline")
        self.meta_folder(table_path, "hoodie.timeline.history.path", "history", timeline)
        self.meta_folder(table_path, "hoodie.archivelog.folder", "archived")

    @property
    def record_key_fields(self) -> list[str]:
        return _split(self._props.get("hoodie.table.recordkey.fields", ""))

    @property
    def partition_fields(self) -> list[str]:
        """The partition columns; a version-8+ Custom key generator's ``field:type`` entries give their field
        (``HoodieTableConfig.getPartitionFields``)."""
        return [f.split(":")[0].strip() for f in _split(self._props.get("hoodie.table.partition.fields", ""))]

    @property
    def ordering_fields(self) -> list[str]:
        """``hoodie.table.ordering.fields`` (v9, may list several) or ``hoodie.table.precombine.field``."""
        v = self._props.get("hoodie.table.ordering.fields") or self._props.get("hoodie.table.precombine.field", "")
        return _split(v)

    @property
    def payload_class(self) -> str | None:
        return self._props.get("hoodie.compaction.payload.class") or self._props.get("hoodie.table.payload.class")

    @property
    def merge_mode(self) -> str:
        """``EVENT_TIME_ORDERING``, ``COMMIT_TIME_ORDERING`` or ``CUSTOM``.

        v8+ store ``hoodie.record.merge.mode``. For v6 we infer it as Hudi's v6→v8 upgrade does: payload
        ``OverwriteWithLatestAvroPayload`` ⇒ commit time, ``DefaultHoodieRecordPayload`` ⇒ event time;
        no payload class ⇒ event time when an ordering field is set, else commit time.
        """
        mode = self._props.get("hoodie.record.merge.mode")
        if mode:
            return mode.upper()
        payload = self.payload_class or ""
        if payload.endswith("OverwriteWithLatestAvroPayload"):
            return "COMMIT_TIME_ORDERING"
        if payload.endswith("DefaultHoodieRecordPayload"):
            return "EVENT_TIME_ORDERING"
        return "EVENT_TIME_ORDERING" if self.ordering_fields else "COMMIT_TIME_ORDERING"

    @property
    def populate_meta_fields(self) -> bool:
        return populates_meta_fields(self._props)

    @property
    def cdc_enabled(self) -> bool:
        """``hoodie.table.cdc.enabled``: writes log changes and CDC queries are served (hudi_log.table.cdc)."""
        return self._props.get("hoodie.table.cdc.enabled", "false").lower() == "true"

    @property
    def cdc_mode(self) -> str:
        """``hoodie.table.cdc.supplemental.logging.mode`` (default DATA_BEFORE_AFTER)."""
        from .cdc import mode_of

        return mode_of(self._props.get("hoodie.table.cdc.supplemental.logging.mode"))

    @property
    def hive_style_partitioning(self) -> bool:
        return self._props.get("hoodie.datasource.write.hive_style_partitioning", "false").lower() == "true"

    @property
    def checksum(self) -> int | None:
        """The stored checksum; None when there is none, or when it is not an integer (then it fails)."""
        v = self._props.get("hoodie.table.checksum")
        try:
            return int(v) if v is not None else None
        except ValueError:
            return None

    def checksum_ok(self) -> bool | None:
        """True/False when a checksum is stored, None when there is none to check."""
        if "hoodie.table.checksum" not in self._props:
            return None
        if self.checksum is None:
            return False  # not an integer: damaged
        try:
            return table_checksum(self._props) == self.checksum
        except KeyError:
            return False

    @property
    def table_type_missing(self) -> bool:
        """``hoodie.table.type`` is absent (Java's default COPY_ON_WRITE applies, where the files agree)."""
        return "hoodie.table.type" not in self._props

    def to_dict(self) -> dict[str, str]:
        return dict(self._props)


def _split(v: str) -> list[str]:
    return [p.strip() for p in v.split(",") if p.strip()]


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> dict[str, str]:
    """:func:`parse_java_properties` once per distinct text: a write reads the file some 30 times, and the
    parse was ~1 ms of each (callers get a copy; the file is read every time, so a change is seen)."""
    return parse_java_properties(text)


def _read_one(path: Path) -> TableProperties:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise TablePropertiesError(path, f"cannot read table properties: {e.strerror or e}") from e
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    props = dict(_parsed(text))
    tp = TableProperties(props, path)
    if "hoodie.table.version" not in props and "hoodie.table.name" not in props:
        raise TablePropertiesError(path, "damaged table properties: neither hoodie.table.name nor hoodie.table.version")
    if tp.checksum_ok() is False:
        stored = props.get("hoodie.table.checksum")
        if tp.checksum is None:
            raise TablePropertiesError(path, f"damaged table properties: hoodie.table.checksum is not an integer: "
                                             f"{stored!r}")
        raise TablePropertiesError(
            path, f"checksum mismatch: hoodie.table.checksum={stored} but "
                  f"CRC32('{tp.database}.{tp.name}')={table_checksum(props) if 'hoodie.table.name' in props else '?'}")
    if "hoodie.table.name" not in props:
        raise TablePropertiesError(path, "damaged table properties: hoodie.table.name missing")
    if "hoodie.table.version" not in props:
        raise TablePropertiesError(path, "damaged table properties: hoodie.table.version missing")
    try:
        version = tp.version
    except ValueError:
        raise TablePropertiesError(path, f"hoodie.table.version is not an integer: {props['hoodie.table.version']!r}")
    if version not in SUPPORTED_TABLE_VERSIONS:
        raise UnsupportedTableVersionError(
            path, f"unknown table version {version} (supported: {', '.join(map(str, SUPPORTED_TABLE_VERSIONS))})")
    _check_layout(tp)
    _check_table_type(tp)
    return tp


def _check_layout(tp: TableProperties) -> None:
    v = tp.get("hoodie.timeline.layout.version")
    if v is None:
        return  # the table version's own layout
    allowed = LAYOUTS_OF_VERSION[tp.version]
    try:
        layout = int(v)
    except ValueError:
        layout = None
    if layout not in allowed:
        raise PropertyValueError(tp.path, "hoodie.timeline.layout.version", (
            f"unknown timeline layout version {v!r} for table version {tp.version}, which is read with layout "
            f"{' or '.join(map(str, allowed))}; reading on would look for instants where there are none (repair "
            "hoodie.properties, e.g. from hoodie.properties.backup)"))


def _check_table_type(tp: TableProperties) -> None:
    """``hoodie.table.type`` one of :data:`TABLE_TYPES`; when missing, no MERGE_ON_READ-only instant on the
    active timeline (the log files are the file-system view's to check)."""
    if not tp.table_type_missing:
        if tp.table_type not in TABLE_TYPES:
            raise PropertyValueError(tp.path, "hoodie.table.type", (
                f"unknown table type {tp['hoodie.table.type']!r} (COPY_ON_WRITE or MERGE_ON_READ; repair "
                "hoodie.properties)"))
        return
    meta = tp.path.parent
    # hoodie.timeline.path is the table's own word: contained like every such path (hudi_log.containment)
    folder = within_table(meta, tp.timeline_path, source=tp.path, field="hoodie.timeline.path") \
        if tp.timeline_path else meta
    try:
        names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    except OSError:
        names = []  # the timeline's own read says what is wrong with its folder
    evidence = next((n for n in names if _MOR_INSTANT.match(n)), None)
    if evidence is not None:
        raise missing_type_error(tp, f"the timeline holds {folder / evidence}")


def missing_type_error(tp: TableProperties, evidence: str) -> PropertyValueError:
    """``hoodie.table.type`` is missing from a table that ``evidence`` shows is MERGE_ON_READ."""
    return PropertyValueError(tp.path, "hoodie.table.type", (
        f"missing, so Hudi would read the table as COPY_ON_WRITE, but {evidence}, which only a MERGE_ON_READ "
        "table has: read so, deleted rows would come back and updates be lost (add "
        "hoodie.table.type=MERGE_ON_READ to hoodie.properties)"))


def check_missing_type_log_file(tp: TableProperties, log_file) -> None:
    """A data log file in a table whose ``hoodie.table.type`` is missing: refused (see the module docstring).
    A CDC log file (``.cdc``) is no evidence: copy-on-write tables with CDC write them too."""
    if tp.table_type_missing and not str(log_file).endswith(".cdc"):
        raise missing_type_error(tp, f"it holds the log file {log_file}")


def has_properties(table_path) -> bool:
    """A table (or metadata table) is at ``table_path``: its ``.hoodie/hoodie.properties`` exists."""
    return (as_path(table_path) / ".hoodie" / PROPERTIES_FILE).exists()


def read_properties(table_path) -> TableProperties:
    """Read and check ``{table_path}/.hoodie/hoodie.properties`` (falling back to the backup as Hudi does)."""
    root = as_path(table_path)
    meta = root / ".hoodie"
    if not root.exists():
        raise NotAHudiTableError(root, "no such directory")
    if not meta.is_dir():
        raise NotAHudiTableError(root, "not a Hudi table: no .hoodie folder")
    main = meta / PROPERTIES_FILE
    backup = meta / BACKUP_FILE
    if not main.is_file():
        if backup.is_file():
            return _read_one(backup)
        raise TablePropertiesError(main, "missing table properties (hoodie.properties)")
    try:
        return _read_one(main)
    except (UnsupportedTableVersionError, PropertyValueError):
        raise
    except TablePropertiesError:
        if backup.is_file():
            try:
                return _read_one(backup)
            except TableError:
                pass
        raise


# ---- writing ------------------------------------------------------------------------------------
def _escape(s: str, is_key: bool) -> str:
    out = []
    for i, c in enumerate(s):
        if c == "\\":
            out.append("\\\\")
        elif c in "=:#!":
            out.append("\\" + c)
        elif c == " " and (is_key or i == 0):
            out.append("\\ ")
        elif c == "\t":
            out.append("\\t")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\f":
            out.append("\\f")
        elif ord(c) < 0x20 or ord(c) > 0x7E:
            out.extend(f"\\u{u:04X}" for u in _utf16(c))
        else:
            out.append(c)
    return "".join(out)


def _utf16(c: str) -> list[int]:
    b = c.encode("utf-16-be")
    return [int.from_bytes(b[i:i + 2], "big") for i in range(0, len(b), 2)]


def java_date(now: datetime.datetime) -> str:
    return now.strftime("%a %b %d %H:%M:%S UTC %Y")


def properties_text(props: Mapping[str, str], comment: str = "Properties saved on") -> str:
    now = datetime.datetime.now(datetime.timezone.utc)
    lines = [f"#{comment} {now.strftime('%Y-%m-%dT%H:%M:%S.%fZ')}", f"#{java_date(now)}"]
    lines += [f"{_escape(k, True)}={_escape(str(v), False)}" for k, v in props.items()]
    return "\n".join(lines) + "\n"


def write_atomic(path, data: bytes) -> None:
    """Replace ``path`` whole (:func:`hudi_log.paths.write_replace`: no rename on object stores)."""
    write_replace(as_path(path), data)


def write_properties(table_path, props: Mapping[str, str]) -> TableProperties:
    """(Re)write ``hoodie.properties`` atomically with a fresh checksum."""
    meta = as_path(table_path) / ".hoodie"
    p = dict(props)
    p["hoodie.table.checksum"] = str(table_checksum(p))
    write_atomic(meta / PROPERTIES_FILE, properties_text(p).encode("latin-1"))
    return read_properties(table_path)


def replace_properties(table_path, props: Mapping[str, str]) -> TableProperties:
    """Rewrite ``hoodie.properties`` as Java's ``HoodieTableConfig.modify`` does: the current file copied to
    ``hoodie.properties.backup``, the main one deleted (readers take the backup meanwhile), the new one
    written with a fresh checksum and read back, then the backup deleted. A crash at any point leaves one
    whole file that :func:`read_properties` takes: the main one, or the backup where the main one is missing
    or fails its checksum."""
    meta = as_path(table_path) / ".hoodie"
    main, backup = meta / PROPERTIES_FILE, meta / BACKUP_FILE
    if main.is_file():
        write_atomic(backup, main.read_bytes())
        main.unlink()
    p = dict(props)
    p["hoodie.table.checksum"] = str(table_checksum(p))
    write_atomic(main, properties_text(p).encode("latin-1"))
    _read_one(main)  # whole and with its checksum, else the backup stays for the reader to fall back to
    backup.unlink(missing_ok=True)
    return read_properties(table_path)
