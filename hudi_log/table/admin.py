"""Operator repairs of a table, as hudi-cli's ``TableCommand``, ``RepairsCommand``, ``MarkersCommand`` and
``ExportCommand`` run them:

* :func:`update_table_configs` / :func:`overwrite_table_properties` (``table update-configs``, ``repair
  overwrite-hoodie-props``): Java's ``HoodieTableConfig.modify``: recover a prior attempt first, write
  ``hoodie.properties.backup`` with the current properties, delete ``hoodie.properties`` (readers fall back
  to the backup meanwhile), write the new one with a fresh ``hoodie.table.checksum``, check it reads back,
  then delete the backup. A key hudi-log cannot read after the change (an unsupported
  ``hoodie.table.version``, no ``hoodie.table.name``) or the checksum itself is refused before anything
  is written.
* :func:`recover_table_configs` (``table recover-configs``, ``HoodieTableConfig.recover``): a missing or
  damaged ``hoodie.properties`` is restored from the backup; the backup is then deleted.
* :func:`add_partition_metadata` (``repair addpartitionmeta``): every folder holding Hudi data files but
  no ``.hoodie_partition_metadata`` gets one naming the latest write instant (dry run by default, as Java).
* :func:`delete_instant_markers` (``marker delete``): the markers folder of an instant, refused while its
  writer is alive (its heartbeat is fresh; the markers are what its rollback would undo).
* :func:`export_instants` (``export instants``): completed instants of the archive (their metadata as
  JSON, ``{instant}.{action}``) and of the active timeline (the instant file's bytes, under its name) copied
  to a local folder, newest first with ``desc``.

Paths from the table's listing go through :func:`hudi_log.containment.within_table`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from ..containment import within_table
from ..paths import as_path, walk_dirs
from .concurrency.config import concurrency_config
from .concurrency.heartbeat import is_expired
from .concurrency.lock import TableLock
from .markers import delete_markers, marker_dir, read_markers
from .services.options import resolve_service_options
from .properties import (BACKUP_FILE, PROPERTIES_FILE, SUPPORTED_TABLE_VERSIONS, TableError, TablePropertiesError,
                         _read_one, read_properties, replace_properties, write_atomic)
from .timeline.timeline import WRITE_ACTIONS, Timeline
from .view.file_system_view import PARTITION_METAFILE, parse_base_file_name, parse_log_file_name

CHECKSUM = "hoodie.table.checksum"
#: what an exported archived instant's file name must look like: ``{digits}.{action}``
_EXPORT_NAME = re.compile(r"^\d+\.[a-z]+$")
#: Java's default for ``export instants --actions``
EXPORT_ACTIONS = ("clean", "commit", "deltacommit", "rollback", "savepoint", "restore")


class AdminError(TableError):
    """An operator repair refused or failed (names the table and what to do)."""


@dataclass(frozen=True)
class ConfigChange:
    """One property an update changed: key, old value (None: added), new value (None: removed)."""
    key: str
    old: str | None
    new: str | None

    def to_dict(self) -> dict:
        return {"property": self.key, "old": self.old, "new": self.new}


def _meta(table_path) -> Path:
    return as_path(table_path) / ".hoodie"


def recover_table_configs(table_path) -> str:
    """``HoodieTableConfig.recover``: what it did ("restored from the backup", "deleted the backup" or
    "nothing to recover")."""
    meta = _meta(table_path)
    cfg, backup = meta / PROPERTIES_FILE, meta / BACKUP_FILE
    if not backup.is_file():
        read_properties(table_path)  # a missing or damaged file without a backup stays an error
        return "nothing to recover"
    try:
        _read_one(cfg)
        done = "deleted the backup"
    except (TablePropertiesError, OSError):
        _read_one(backup)  # the backup itself must be whole to be restored
        write_atomic(cfg, backup.read_bytes())
        done = "restored from the backup"
    backup.unlink()
    return done


def _check_new(table_path, old: Mapping[str, str], new: Mapping[str, str]) -> None:
    if not new.get("hoodie.table.name"):
        raise AdminError(_meta(table_path) / PROPERTIES_FILE, "hoodie.table.name would be missing (keep it)")
    version = new.get("hoodie.table.version")
    if version != old.get("hoodie.table.version") and (not str(version).isdigit()
                                                        or int(version) not in SUPPORTED_TABLE_VERSIONS):
        raise AdminError(_meta(table_path) / PROPERTIES_FILE,
                         f"hoodie.table.version {version!r} is not one hudi-log reads "
                         f"({', '.join(map(str, SUPPORTED_TABLE_VERSIONS))}); an upgrade rewrites more than this file")


def _modify(table_path, change: Callable[[dict], dict], options: Mapping | None) -> list[ConfigChange]:
    """Java's ``HoodieTableConfig.modify`` (see the module docstring), under the table lock."""
    options = resolve_service_options(table_path, options)
    meta = _meta(table_path)
    cfg = meta / PROPERTIES_FILE
    with TableLock(table_path, concurrency_config(options)):
        if (meta / BACKUP_FILE).is_file():
            recover_table_configs(table_path)
        old = dict(read_properties(table_path))
        new = change(dict(old))
        if CHECKSUM in new and new[CHECKSUM] != old.get(CHECKSUM):
            raise AdminError(cfg, f"{CHECKSUM} is computed from the table's name, not set (leave it out)")
        _check_new(table_path, old, new)
        # backup, delete, write, read back, drop the backup: the steps the upgrade takes too
        new[CHECKSUM] = replace_properties(table_path, new)[CHECKSUM]
    return [ConfigChange(k, old.get(k), new.get(k)) for k in sorted(set(old) | set(new))
            if old.get(k) != new.get(k) and k != CHECKSUM]


def update_table_configs(table_path, updates: Mapping[str, str], deletes=(), options: Mapping | None = None
                         ) -> list[ConfigChange]:
    """``table update-configs`` / ``delete-configs``: set ``updates`` and remove ``deletes``."""
    def change(props: dict) -> dict:
        props.update({str(k): str(v) for k, v in updates.items()})
        for k in deletes:
            props.pop(k, None)
        return props
    return _modify(table_path, change, options)


def overwrite_table_properties(table_path, new_props: Mapping[str, str], options: Mapping | None = None
                               ) -> list[ConfigChange]:
    """``repair overwrite-hoodie-props``: replace every property by ``new_props`` (the checksum recomputed)."""
    fresh = {str(k): str(v) for k, v in new_props.items() if k != CHECKSUM}
    return _modify(table_path, lambda _old: dict(fresh), options)


@dataclass(frozen=True)
class PartitionMetaRow:
    partition: str
    metadata_present: bool
    action: str  # "None", "Repaired" or "Would repair" (dry run)

    def to_dict(self) -> dict:
        return {"partition": self.partition, "metadata_present": self.metadata_present, "action": self.action}


def add_partition_metadata(table_path, dry_run: bool = True) -> list[PartitionMetaRow]:
    """``repair addpartitionmeta``: one row per folder holding Hudi data files (Java lists folders three
    levels down; here every depth, as the table's partitioning may be any)."""
    from .write.create import write_partition_metadata
    root = as_path(table_path)
    timeline = Timeline(root, read_properties(root))
    writes = [i for i in timeline.completed() if i.action in WRITE_ACTIONS]
    rows = []
    for rel, dirnames, filenames in walk_dirs(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__MACOSX")
        if not any(parse_base_file_name(Path(n)) or parse_log_file_name(Path(n)) for n in filenames):
            continue
        within_table(root, rel, source="the table's listing", field="partition", timeline=False)
        present = any(n.startswith(PARTITION_METAFILE) for n in filenames)
        action = "None"
        if not present:
            if not writes:
                raise AdminError(root, f"partition {rel!r} has no {PARTITION_METAFILE} and the timeline no "
                                       "completed write to name in it")
            action = "Would repair"
            if not dry_run:
                write_partition_metadata(root, rel, writes[-1].requested_time)
                action = "Repaired"
        rows.append(PartitionMetaRow(rel, present, action))
    return rows


def delete_instant_markers(table_path, instant: str, options: Mapping | None = None) -> int:
    """``marker delete``: the marker files of ``instant`` deleted; how many there were."""
    options = resolve_service_options(table_path, options)
    root = as_path(table_path)
    timeline = Timeline(root, read_properties(root))
    inst = timeline.instant(instant)
    if inst is not None and not inst.is_completed and not is_expired(root, instant, concurrency_config(options)):
        raise AdminError(inst.path or timeline.folder,
                         f"{inst.action} {instant} is {inst.state.lower()} and its writer is alive: its markers "
                         "are what its rollback undoes (wait for it to finish, or for its heartbeat to expire)")
    if not marker_dir(root, instant).exists():
        return 0
    n = len(read_markers(root, instant))
    delete_markers(root, instant)
    return n


@dataclass(frozen=True)
class ExportedInstant:
    instant: str
    action: str
    source: str  # "archived" or "active"
    file: str  # the exported file's name

    def to_dict(self) -> dict:
        return {"instant": self.instant, "action": self.action, "source": self.source, "file": self.file}


def export_instants(table_path, folder, actions=EXPORT_ACTIONS, limit: int | None = None,
                    desc: bool = False) -> list[ExportedInstant]:
    """``export instants``: the completed instants of ``actions`` (archived, then active; ``desc`` newest
    first), at most ``limit``, written to the local ``folder``."""
    from .services.archive import read_archive
    root = as_path(table_path)
    props = read_properties(root)
    timeline = Timeline(root, props)
    wanted = set(actions)
    items = [("archived", a.commit_time, a.action, a) for a in read_archive(root, props)
             if a.state == "COMPLETED" and a.action in wanted]
    items += [("active", i.requested_time, i.action, i) for i in timeline.completed() if i.action in wanted]
    for source, instant, action, item in items:
        if source == "archived" and not _EXPORT_NAME.match(f"{instant}.{action}"):  # from records: never a path
            raise AdminError(item.file or root, f"archived instant {instant}.{action!r} is not an instant time and "
                                                "action; nothing was exported (repair or remove that archive file)")
    items.sort(key=lambda t: t[1], reverse=desc)
    if limit is not None:
        items = items[:limit]
    out_dir = Path(folder)
    out_dir.mkdir(parents=True, exist_ok=True)
    done = []
    for source, instant, action, item in items:
        if source == "archived":
            name = f"{instant}.{action}"
            data = json.dumps(dict(item.metadata or {}), default=str, indent=2).encode("utf-8")
        else:
            name = item.file_name
            data = (item.path or timeline.folder / item.file_name).read_bytes()
        target = out_dir / name
        tmp = target.with_name(f".{name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        done.append(ExportedInstant(instant, action, source, name))
    return done


__all__ = ["AdminError", "ConfigChange", "ExportedInstant", "PartitionMetaRow", "add_partition_metadata",
           "delete_instant_markers", "export_instants", "overwrite_table_properties", "recover_table_configs",
           "update_table_configs"]
