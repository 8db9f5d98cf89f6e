"""Table upgrade and downgrade between versions 6, 8 and 9, as Java's ``UpgradeDowngrade`` runs them.

Java (apache/hudi 1.1, ``org.apache.hudi.table.upgrade``) walks one version at a time: 6 -> 7
(``SixToSevenUpgradeHandler``, no change of format) -> 8 (``SevenToEightUpgradeHandler``) -> 9
(``EightToNineUpgradeHandler``), and back 9 -> 8 (``NineToEightDowngradeHandler``) -> 7
(``EightToSevenDowngradeHandler``) -> 6 (``SevenToSixDowngradeHandler``, no change). Every step between
6, 8 and 9 is one Java rolls back failed writes and compacts a MERGE_ON_READ table before
(``UpgradeDowngrade.performRollbackAndCompactionIfRequired``), so hudi-log does the same, with its own
rollback and compaction. The steps:

* 6 -> 8: the timeline moves from ``.hoodie`` (layout 1) to ``.hoodie/timeline`` (layout 2). A completed
  instant ``{t}.{action}`` becomes ``{t}_{completion}.{action}`` with the completion time its file's
  modification time (as layout 1 is read), and commit, delta commit and replace commit metadata is rewritten
  from JSON to Avro; requested and inflight files keep their names and bytes, but a ``replacecommit``'s are
  renamed ``clustering`` (``SIX_TO_EIGHT_TIMELINE_ACTION_MAP``). ``hoodie.properties`` gains
  ``hoodie.timeline.path``, layout 2, ``hoodie.table.initial.version`` (6), the key generator's type next to
  its class, the bootstrap index type next to its class, and the merge mode, strategy id and payload class
  that ``upgradeMergeMode`` infers; a Custom key generator's partition fields are taken from the write's
  ``hoodie.datasource.write.partitionpath.field`` (with their types) where it is given.
* 8 -> 9: only ``hoodie.properties``, and only for MERGE_ON_READ (Java's handler leaves copy-on-write alone):
  ``hoodie.table.partial.update.mode``, the merge mode of retired payloads, merge properties, and a retired
  payload class moved to ``hoodie.legacy.payload.class``.
* 9 -> 8: ``hoodie.table.partial.update.mode`` and merge properties removed, a legacy payload class put back
  (with CUSTOM and the payload strategy for the ones no builtin mode covers), ``hoodie.table.ordering.fields``
  back to ``hoodie.table.precombine.field``. A Complex key generator with one record key field is refused, as
  Java refuses it (``hoodie.write.complex.keygen.validation.enable=false`` lets it through).
* 8 -> 6: the timeline moves back; completed names lose their completion time, which becomes the file's
  modification time (read back in the table's timeline zone, so a round trip keeps every completion time), and
  commit metadata is rewritten as JSON; pending ``clustering`` files become ``replacecommit``.
  ``hoodie.properties`` loses the merge mode (a payload class recorded in its place where none is),
  strategy id, initial version and the key generator and bootstrap index types (their classes kept).

* 6 <-> 8, the archived timeline: the version-6 archive's instants go into the LSM history on the way up (the
  archive kept), the history's instants the archive lacks are appended to it on the way down
  (:mod:`~hudi_log.table.services.archive_convert`, where Java's downgrade differs from what it says it does).

Not done (refused by name before anything changes): tables with a metadata table (unless
``hoodie.metadata.enable=false``, which deletes it, item 7 of docs/interop.md), with pending instants that are
neither a failed write nor a compaction (a pending clustering, a savepoint restore), and downgrades to 6 on
object stores (Java sets the files' modification times, which a store does not let us do).

Crash safety: the new timeline files are written next to the old ones (the old layout's readers never look in
the other folder), then ``hoodie.properties`` is replaced once, with Java's backup protocol
(:func:`~hudi_log.table.properties.replace_properties`), and only then are the old layout's files deleted.
A kill before the swap leaves the table at its old version with stray copies in the other layout's folder; a
kill after it leaves the new version with stale files in the old folder. Either is settled by the next
upgrade or downgrade, and by every write (:func:`settle`): the files of the layout that ``hoodie.properties``
does not name are deleted.
"""

from __future__ import annotations

import datetime
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Mapping

from ...paths import as_path, remove_tree, write_replace
from ..concurrency.config import concurrency_config
from ..metadata_table import guard_metadata_table
from ..properties import TableError, TableProperties, read_properties, replace_properties
from ..services.compaction import compact_all
from ..services.rollback import rollback_failed_writes
from ..timeline import commit_metadata as cm
from ..services.archive_convert import archive_to_history, history_to_archive
from ..timeline.timeline import (
    CLUSTERING, COMMIT, COMPACTION, DELTA_COMMIT, REPLACE_COMMIT, ROLLBACK, Instant, Timeline, parse_instant_file_name,
    parse_instant_metadata,
)
from .create import STRATEGY_IDS, check_table_matches, option
from .keygen_config import CLASS_KINDS, KIND_CLASSES
from .options import TABLE_VERSION, resolve

log = logging.getLogger("hudi_log")

VERSIONS = (6, 8, 9)
WRITE_VERSION = "hoodie.write.table.version"
AUTO_UPGRADE = "hoodie.write.auto.upgrade"  # HoodieWriteConfig.AUTO_UPGRADE_VERSION, default true
COMPLEX_VALIDATION = "hoodie.write.complex.keygen.validation.enable"

_PAYLOAD = "org.apache.hudi.common.model."
DEFAULT_PAYLOAD = _PAYLOAD + "DefaultHoodieRecordPayload"
EVENT_TIME_PAYLOAD = _PAYLOAD + "EventTimeAvroPayload"
OVERWRITE_PAYLOAD = _PAYLOAD + "OverwriteWithLatestAvroPayload"
AWS_DMS_PAYLOAD = _PAYLOAD + "AWSDmsAvroPayload"
PARTIAL_PAYLOAD = _PAYLOAD + "PartialUpdateAvroPayload"
NON_DEFAULTS_PAYLOAD = _PAYLOAD + "OverwriteNonDefaultsWithLatestAvroPayload"
MYSQL_PAYLOAD = _PAYLOAD + "debezium.MySqlDebeziumAvroPayload"
POSTGRES_PAYLOAD = _PAYLOAD + "debezium.PostgresDebeziumAvroPayload"
#: ``UpgradeDowngradeUtils.PAYLOAD_CLASSES_TO_HANDLE``: the payloads version 9 retires
RETIRED_PAYLOADS = frozenset({AWS_DMS_PAYLOAD, DEFAULT_PAYLOAD, EVENT_TIME_PAYLOAD, MYSQL_PAYLOAD,
                              NON_DEFAULTS_PAYLOAD, OVERWRITE_PAYLOAD, PARTIAL_PAYLOAD, POSTGRES_PAYLOAD})
#: ``HoodieRecordMerger``'s strategy ids
EVENT_TIME_ID = STRATEGY_IDS["EVENT_TIME_ORDERING"]
COMMIT_TIME_ID = STRATEGY_IDS["COMMIT_TIME_ORDERING"]
PAYLOAD_ID = "00000000-0000-0000-0000-000000000000"
CUSTOM_ID = "1897ef5f-18bc-4557-939c-9d6a8afd1519"
BUILTIN_IDS = frozenset({EVENT_TIME_ID, COMMIT_TIME_ID, PAYLOAD_ID, CUSTOM_ID})

TIMELINE_FOLDER = "timeline"  # HoodieTableConfig.TIMELINE_PATH's default, which the 6 -> 8 upgrade records
PAYLOAD_KEY = "hoodie.compaction.payload.class"
LEGACY_PAYLOAD_KEY = "hoodie.legacy.payload.class"
MODE_KEY = "hoodie.record.merge.mode"
STRATEGY_KEY = "hoodie.record.merge.strategy.id"
STRATEGY_ALT_KEY = "hoodie.compaction.record.merger.strategy"  # RECORD_MERGE_STRATEGY_ID's alternative
PARTIAL_KEY = "hoodie.table.partial.update.mode"
MERGE_PROPERTY = "hoodie.record.merge.property."
PRECOMBINE_KEY = "hoodie.table.precombine.field"
ORDERING_KEY = "hoodie.table.ordering.fields"
KEYGEN_CLASS_KEY = "hoodie.table.keygenerator.class"
KEYGEN_TYPE_KEY = "hoodie.table.keygenerator.type"
BOOTSTRAP_CLASS_KEY = "hoodie.bootstrap.index.class"
BOOTSTRAP_TYPE_KEY = "hoodie.bootstrap.index.type"
BOOTSTRAP_TYPES = {"org.apache.hudi.common.bootstrap.index.hfile.HFileBootstrapIndex": "HFILE",
                   "org.apache.hudi.common.bootstrap.index.NoOpBootstrapIndex": "NO_OP"}


class UpgradeDowngradeError(TableError):
    """The table cannot be moved to the version asked for; nothing was changed (``path`` names why)."""


@dataclass(frozen=True)
class VersionChange:
    """What :func:`change_table_version` did."""
    path: str
    from_version: int
    to_version: int
    rolled_back: tuple[str, ...] = ()
    compactions: tuple[str, ...] = ()
    instant_files: int = 0  # timeline files moved to the other layout
    properties_set: dict = field(default_factory=dict)
    properties_removed: tuple[str, ...] = ()
    archived_instants: int = 0  # archived actions carried into the other archive format

    def to_dict(self) -> dict:
        return asdict(self)


# ---- crash recovery ------------------------------------------------------------------------------
def _v1_instant_files(meta: Path) -> list[Path]:
    return [p for p in meta.iterdir() if p.is_file() and parse_instant_file_name(p.name) is not None] \
        if meta.is_dir() else []


def settle(table_path, props: TableProperties) -> int:
    """Finish or undo a killed upgrade or downgrade: delete the instant files of the timeline layout that
    ``hoodie.properties`` does not name (see the module docstring); the number of files deleted."""
    meta = as_path(table_path) / ".hoodie"
    if props.timeline_layout_version >= 2:
        stale = _v1_instant_files(meta)
        for p in stale:
            p.unlink(missing_ok=True)
        return len(stale)
    # the layout-2 folder: the one a downgrade left (the key kept, as Java keeps it) or an upgrade was filling
    folder = props.meta_folder(table_path, "hoodie.timeline.path", TIMELINE_FOLDER)
    if not folder.is_dir():
        return 0
    n = sum(1 for p in folder.iterdir() if parse_instant_file_name(p.name) is not None)
    remove_tree(folder)
    return n


# ---- hoodie.properties -------------------------------------------------------------------------------
def _merge_mode_for_eight(props: TableProperties) -> dict[str, str]:
    """``SevenToEightUpgradeHandler.upgradeMergeMode``."""
    payload = props.payload_class or ""
    by_payload = ({PAYLOAD_KEY: DEFAULT_PAYLOAD, MODE_KEY: "EVENT_TIME_ORDERING", STRATEGY_KEY: EVENT_TIME_ID}
                  if payload == DEFAULT_PAYLOAD else
                  {PAYLOAD_KEY: OVERWRITE_PAYLOAD, MODE_KEY: "COMMIT_TIME_ORDERING", STRATEGY_KEY: COMMIT_TIME_ID})
    if payload and payload not in (DEFAULT_PAYLOAD, EVENT_TIME_PAYLOAD, OVERWRITE_PAYLOAD):
        return {PAYLOAD_KEY: payload, MODE_KEY: "CUSTOM", STRATEGY_KEY: PAYLOAD_ID}
    if not props.is_mor:
        return by_payload
    if props.get(PRECOMBINE_KEY, "").strip():
        return {PAYLOAD_KEY: DEFAULT_PAYLOAD, MODE_KEY: "EVENT_TIME_ORDERING", STRATEGY_KEY: EVENT_TIME_ID}
    return by_payload


def _custom_partitions(props: TableProperties, options: Mapping) -> str | None:
    """The write's partition fields where the table's key generator is Custom (Java's upgrade and downgrade
    of ``hoodie.table.partition.fields``), else None."""
    parts = option(options, "hoodie.datasource.write.partitionpath.field")
    kg = props.get(KEYGEN_CLASS_KEY) or ""
    if parts is None or CLASS_KINDS.get(kg) != "CUSTOM":
        return None
    return str(parts)


def _six_to_eight(props: TableProperties, options: Mapping) -> tuple[dict, set]:
    add = {"hoodie.timeline.path": TIMELINE_FOLDER, "hoodie.timeline.layout.version": "2",
           "hoodie.table.initial.version": props.get("hoodie.table.version", "6")}
    parts = _custom_partitions(props, options)
    if parts is not None:
        add["hoodie.table.partition.fields"] = parts
    add.update(_merge_mode_for_eight(props))
    kg = props.get(KEYGEN_CLASS_KEY)
    if kg:  # KeyGeneratorType.fromClassName: a class hudi-log does not know is a user's
        avro = kg in CLASS_KINDS and kg.endswith("AvroKeyGenerator")  # the Avro twins have their own types
        add[KEYGEN_TYPE_KEY] = CLASS_KINDS.get(kg, "USER_PROVIDED") + ("_AVRO" if avro else "")
    bootstrap = props.get(BOOTSTRAP_CLASS_KEY)
    if bootstrap and bootstrap in BOOTSTRAP_TYPES:
        add[BOOTSTRAP_TYPE_KEY] = BOOTSTRAP_TYPES[bootstrap]
    return add, set()


def _eight_to_nine(props: Mapping) -> tuple[dict, set]:
    """``EightToNineUpgradeHandler``: MERGE_ON_READ tables only."""
    if str(props.get("hoodie.table.type", "COPY_ON_WRITE")).upper() != "MERGE_ON_READ":
        return {}, set()
    add = {PARTIAL_KEY: "NONE"}
    payload = props.get(PAYLOAD_KEY) or props.get("hoodie.table.payload.class") or ""
    strategy = props.get(STRATEGY_KEY) or props.get(STRATEGY_ALT_KEY)
    if strategy not in BUILTIN_IDS or not payload:
        return add, set()
    if payload in (AWS_DMS_PAYLOAD, NON_DEFAULTS_PAYLOAD):
        add.update({MODE_KEY: "COMMIT_TIME_ORDERING", STRATEGY_KEY: COMMIT_TIME_ID})
    elif payload in (EVENT_TIME_PAYLOAD, MYSQL_PAYLOAD, PARTIAL_PAYLOAD, POSTGRES_PAYLOAD):
        add.update({MODE_KEY: "EVENT_TIME_ORDERING", STRATEGY_KEY: EVENT_TIME_ID})
    if payload in (NON_DEFAULTS_PAYLOAD, PARTIAL_PAYLOAD):
        add[PARTIAL_KEY] = "IGNORE_DEFAULTS"
    elif payload == POSTGRES_PAYLOAD:
        add[PARTIAL_KEY] = "IGNORE_MARKERS"
    if payload == AWS_DMS_PAYLOAD:
        add.update({MERGE_PROPERTY + "hoodie.payload.delete.field": "Op",
                    MERGE_PROPERTY + "hoodie.payload.delete.marker": "D"})
    elif payload == POSTGRES_PAYLOAD:
        add[MERGE_PROPERTY + "hoodie.write.partial.update.custom.marker"] = "__debezium_unavailable_value"
    remove = set()
    if payload in RETIRED_PAYLOADS:
        add[LEGACY_PAYLOAD_KEY] = payload
        remove.add(PAYLOAD_KEY)
    return add, remove


def _nine_to_eight(props: Mapping, options: Mapping) -> tuple[dict, set]:
    """``NineToEightDowngradeHandler``."""
    kg = props.get(KEYGEN_TYPE_KEY) or CLASS_KINDS.get(props.get(KEYGEN_CLASS_KEY) or "", "")
    single_key = len([f for f in str(props.get("hoodie.table.recordkey.fields", "")).split(",") if f.strip()]) == 1
    if str(kg).upper().startswith("COMPLEX") and single_key and \
            str(option(options, COMPLEX_VALIDATION, default="true")).lower() != "false":
        raise UpgradeDowngradeError(props.path, "the downgrade would change how a Complex key generator with one "
                                    "record key field encodes keys, which Java refuses too (set "
                                    f"{COMPLEX_VALIDATION}=false to downgrade anyway)")
    add: dict[str, str] = {}
    remove = {PARTIAL_KEY}
    legacy = props.get(LEGACY_PAYLOAD_KEY) or ""
    if legacy in RETIRED_PAYLOADS:
        remove.add(LEGACY_PAYLOAD_KEY)
        add[PAYLOAD_KEY] = legacy
        if legacy not in (OVERWRITE_PAYLOAD, DEFAULT_PAYLOAD, EVENT_TIME_PAYLOAD):
            add.update({STRATEGY_KEY: PAYLOAD_ID, MODE_KEY: "CUSTOM"})
        if legacy in (AWS_DMS_PAYLOAD, POSTGRES_PAYLOAD):  # the merge properties their upgrade set
            remove.update(k for k in props if k.startswith(MERGE_PROPERTY))
    ordering = "_event_seq" if legacy == MYSQL_PAYLOAD else props.get(ORDERING_KEY)
    if ordering:
        add[PRECOMBINE_KEY] = ordering
        remove.add(ORDERING_KEY)
    return add, remove


def _eight_to_six(props: Mapping, options: Mapping) -> tuple[dict, set]:
    """``EightToSevenDowngradeHandler`` (``SevenToSixDowngradeHandler`` changes nothing)."""
    add = {"hoodie.timeline.layout.version": "1"}
    remove = {"hoodie.table.initial.version", MODE_KEY, STRATEGY_KEY, KEYGEN_TYPE_KEY, BOOTSTRAP_TYPE_KEY}
    kind = str(props.get(KEYGEN_TYPE_KEY) or "").upper()
    kg = props.get(KEYGEN_CLASS_KEY) or KIND_CLASSES.get(kind.removesuffix("_AVRO"))
    if kg:
        add[KEYGEN_CLASS_KEY] = kg
    if CLASS_KINDS.get(kg or "") == "CUSTOM" and option(options, "hoodie.datasource.write.partitionpath.field"):
        fields = str(props.get("hoodie.table.partition.fields", ""))
        add["hoodie.table.partition.fields"] = ",".join(f.split(":")[0].strip() for f in fields.split(",") if f)
    if not (props.get(PAYLOAD_KEY) or props.get("hoodie.table.payload.class")):
        mode = str(props.get(MODE_KEY) or "").upper()
        if mode not in ("EVENT_TIME_ORDERING", "COMMIT_TIME_ORDERING"):
            raise UpgradeDowngradeError(props.path, f"{MODE_KEY}={mode or '(none)'} with no payload class cannot "
                                        "be downgraded to version 6, which merges by payload classes (Java "
                                        "refuses it too) (give the table a payload class with Apache Hudi first)")
        add[PAYLOAD_KEY] = DEFAULT_PAYLOAD if mode == "EVENT_TIME_ORDERING" else OVERWRITE_PAYLOAD
    return add, remove


# ---- the timeline ---------------------------------------------------------------------------------
def _completion_ns(completion: str, utc: bool) -> int:
    """A completion time as the nanoseconds since the epoch its file's modification time is set to (whole
    numbers: a float would lose the last millisecond)."""
    t = datetime.datetime.strptime(completion[:14], "%Y%m%d%H%M%S")
    t = t.replace(tzinfo=datetime.timezone.utc) if utc else t
    return (int(t.timestamp()) * 1000 + int(completion[14:17] or 0)) * 1_000_000


def _convert(inst: Instant, to_layout: int, raw: bytes) -> tuple[str, bytes]:
    """The file name and bytes of instant file ``inst`` in the other layout (see the module docstring)."""
    if not inst.is_completed:
        name = inst.file_name
        if to_layout == 2 and inst.action == REPLACE_COMMIT:
            name = name.replace(f".{REPLACE_COMMIT}.", f".{CLUSTERING}.")
        elif to_layout == 1 and inst.action == CLUSTERING:
            name = name.replace(f".{CLUSTERING}.", f".{REPLACE_COMMIT}.")
        return name, raw
    name = f"{inst.requested_time}_{inst.completion_time}.{inst.action}" if to_layout == 2 \
        else f"{inst.requested_time}.{inst.action}"
    if inst.action in (COMMIT, DELTA_COMMIT, REPLACE_COMMIT):
        md = parse_instant_metadata(raw, inst.path)
        raw = cm.commit_metadata_avro(md, replace=inst.action == REPLACE_COMMIT) if to_layout == 2 \
            else cm.commit_metadata_json(md)
    return name, raw


def _move_timeline(root: Path, props: TableProperties, to_layout: int) -> tuple[list[Path], int]:
    """Write every instant file of the current layout into the other one; the files to delete once
    ``hoodie.properties`` names the new layout, and how many were written."""
    timeline = Timeline(root, props)
    utc = str(props.get("hoodie.table.timeline.timezone") or "LOCAL").upper() == "UTC"
    target = root / ".hoodie" / TIMELINE_FOLDER if to_layout == 2 else root / ".hoodie"
    if to_layout == 2:
        (target / "history").mkdir(parents=True, exist_ok=True)  # createTableLayoutOnStorage
    old = []
    for inst in sorted(timeline.all_files, key=Instant.sort_key):
        raw = inst.path.read_bytes()
        name, data = _convert(inst, to_layout, raw)
        dest = target / name
        write_replace(dest, data)
        if to_layout == 1 and inst.is_completed and inst.completion_time:
            t = _completion_ns(inst.completion_time, utc)
            os.utime(dest, ns=(t, t))
        old.append(inst.path)
    return old, len(old)


# ---- the whole change ----------------------------------------------------------------------------------
def _apply(props: dict, add: Mapping, remove: set) -> None:
    for k in remove:
        props.pop(k, None)
        if k == STRATEGY_KEY:
            props.pop(STRATEGY_ALT_KEY, None)  # clearValue drops the alternative key too
    props.update(add)
    if STRATEGY_KEY in add:
        props[STRATEGY_ALT_KEY] = add[STRATEGY_KEY]  # and setValue writes it too


#: pending actions that the rollback of failed writes and the compaction before the change complete or undo
_SETTLED_FIRST = frozenset({COMMIT, DELTA_COMMIT, REPLACE_COMMIT, COMPACTION, ROLLBACK})


def _check_movable(root: Path, props: TableProperties, to: int, options: Mapping) -> None:
    if to not in VERSIONS:
        raise UpgradeDowngradeError(props.path, f"cannot move the table to version {to} (hudi-log upgrades and "
                                    f"downgrades between versions {', '.join(map(str, VERSIONS))})")
    if props.version not in VERSIONS:
        raise UpgradeDowngradeError(props.path, f"table version {props.version} is not one hudi-log upgrades or "
                                    "downgrades (use Apache Hudi)")
    if to < 8 <= props.version and not isinstance(root, Path):
        raise UpgradeDowngradeError(root, "a downgrade to version 6 keeps completion times as the instant files' "
                                    "modification times, which an object store does not let hudi-log set "
                                    "(downgrade a local copy, or with Apache Hudi)")


def _new_properties(props: TableProperties, to: int, options: Mapping) -> tuple[dict, set]:
    """``hoodie.properties`` at version ``to``, one handler at a time, and the keys removed (a handler's
    refusal raised here, before anything changes)."""
    new = props.to_dict()
    removed: set[str] = set()
    version = props.version
    while version != to:
        if version == 6:
            add, rm = _six_to_eight(TableProperties(new, props.path), options)
            version = 8
        elif version == 8 and to > 8:
            add, rm = _eight_to_nine(new)
            version = 9
        elif version == 9:
            add, rm = _nine_to_eight(TableProperties(new, props.path), options)
            version = 8
        else:
            add, rm = _eight_to_six(TableProperties(new, props.path), options)
            version = 6
        _apply(new, add, rm)
        removed |= {k for k in rm if k in props and k not in add}
    new["hoodie.table.version"] = str(to)
    return new, removed


def _refuse_pending(props: TableProperties, pending: list[Instant], action: str) -> None:
    if pending:
        names = ", ".join(f"{i.requested_time} ({i.action}, {i.state.lower()})" for i in pending)
        raise UpgradeDowngradeError(props.path, f"{action} needs a timeline with no pending instants, as Java's "
                                    f"leaves it after rolling back and compacting; pending: {names} (complete or "
                                    "roll them back first)")


def change_table_version(path, to: int, options: Mapping | None = None) -> VersionChange:
    """Upgrade or downgrade the table at ``path`` to version ``to`` (6, 8 or 9), Java's steps one version at a
    time (see the module docstring). Failed writes are rolled back and a MERGE_ON_READ table compacted first;
    ``hoodie.properties`` is replaced last. ``options`` are resolved as a write's (a table version among them
    disagreeing with ``to`` is an error)."""
    options = resolve(options, where=path)
    resolve(options, {TABLE_VERSION: str(to)}, {TABLE_VERSION: "to"}, path)
    root = as_path(path)
    props = read_properties(root)
    settled = settle(root, props)
    if settled:
        log.warning("%s: removed %d instant files of an upgrade or downgrade that was stopped midway", root, settled)
    to = int(to)
    _check_movable(root, props, to, options)
    start = props.version
    if to == start:
        return VersionChange(str(root), start, to)
    action = "the upgrade" if to > start else "the downgrade"
    _new_properties(props, to, options)  # a handler's refusal before the rollback and compaction change files
    # what neither the rollback of failed writes nor the compaction completes, refused before they run
    _refuse_pending(props, [i for i in Timeline(root, props).pending() if i.action not in _SETTLED_FIRST], action)
    props = guard_metadata_table(root, props, options, action, maintained=False)  # last of the refusals
    # the options' concurrency mode decides whether a pending write is failed or another writer's live one
    rolled = tuple(i.requested_time for i in rollback_failed_writes(root, concurrency_config(options)))
    compactions = tuple(r.instant for r in compact_all(root, options)) if props.is_mor else ()
    props = read_properties(root)
    _refuse_pending(props, Timeline(root, props).pending(), action)  # a live writer's, for one
    new, removed = _new_properties(props, to, options)
    old_files, moved, archived = [], 0, 0
    if (start < 8) != (to < 8):
        old_files, moved = _move_timeline(root, props, 2 if to >= 8 else 1)
        # the archived timeline too (services/archive_convert.py), before the switch
        archived = archive_to_history(root, props, root / ".hoodie" / TIMELINE_FOLDER / "history") if to >= 8 \
            else history_to_archive(root, props)
    set_ = {k: v for k, v in new.items() if props.get(k) != v}
    replace_properties(root, new)  # the switch: the new layout's files are all in place
    for p in old_files:
        p.unlink(missing_ok=True)
    if start >= 8 > to:
        remove_tree(props.timeline_folder(root))  # emptied above but for the (empty) history folder
        (root / ".hoodie" / "archived").mkdir(exist_ok=True)
    return VersionChange(str(root), start, to, rolled, compactions, moved, set_, tuple(sorted(removed)), archived)


def write_version_change(path, props: TableProperties, options: Mapping) -> tuple[TableProperties, dict]:
    """What a write does first when ``hoodie.write.table.version`` differs from the table's (Java's write
    client runs ``UpgradeDowngrade``): upgrade (unless ``hoodie.write.auto.upgrade=false``, when the write
    goes ahead at the table's version, as Java sets the write version back) or downgrade. Returns the table's
    properties and the write's options."""
    settle(path, props)
    wanted = option(options, WRITE_VERSION, "hoodie.table.version")
    if wanted is None or not str(wanted).strip().isdigit() or int(wanted) == props.version \
            or int(wanted) not in VERSIONS or props.version not in VERSIONS:
        return props, dict(options)  # the write's own checks say what is wrong
    at_table_version = {k: v for k, v in options.items() if k not in (WRITE_VERSION, "hoodie.table.version")}
    if int(wanted) > props.version and str(option(options, AUTO_UPGRADE, default="true")).lower() == "false":
        log.warning("%s: %s=false: writing at the table's version %d, not %s", path, AUTO_UPGRADE, props.version,
                    wanted)
        return props, at_table_version
    check_table_matches(props, at_table_version)  # the write's other disagreements refused before any change
    change = change_table_version(path, int(wanted), options)
    log.warning("%s: table moved from version %d to %d before the write", path, change.from_version,
                change.to_version)
    return read_properties(path), dict(options)
