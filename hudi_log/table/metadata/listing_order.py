"""The order in which Java's metadata compaction writes a ``files`` record's file map.

``HoodieMetadataPayload.combineFileSystemMetadata`` builds each merged listing in a new ``java.util.HashMap``
(``putAll`` of the older record's map, then the newer record's entries merged in), and Avro serializes a map
in its iteration order: by bucket (the spread String hash modulo the table's capacity), insertion order
within a bucket. A map Avro reads is a ``HashMap`` sized for its entries. The capacity follows Java's rules:
``putAll`` into an empty map sizes it ``tableSizeFor(n / 0.75 + 1)``, a first ``put`` into a map never
sized gives 16, and it doubles when an insertion passes three quarters of it.

The corpus's compactions (Hudi 1.0 and 1.1) write the order that folds a slice's log records newest first
(the fold so far as the older map, the next older record as the newer) and then merges that fold into the
base file's record (older: the base). Only the order is taken from that fold; which files a record lists
and their sizes are the readers' merge (:func:`hudi_log.table.metadata_files.merge_rule`). Readers ignore
the order; it makes the base files Java's byte for byte.
"""

from __future__ import annotations

from ...format.content.hfile_writer import _java_string_hash

_LOAD = 0.75
_DEFAULT_CAPACITY = 16


def _spread(key: str) -> int:
    h = _java_string_hash(key)
    return h ^ (h >> 16)


def _table_size_for(n: int) -> int:
    c = 1
    while c < n:
        c *= 2
    return c


class _JavaMap:
    """Keys, tombstone flags, and capacity of a ``HashMap<String, HoodieMetadataFileInfo>``."""

    def __init__(self, capacity: int | None = None):
        self.keys: list[str] = []
        self.deleted: dict[str, bool] = {}
        self.capacity = capacity

    def order(self) -> list[str]:
        cap = self.capacity or _DEFAULT_CAPACITY
        return sorted(self.keys, key=lambda k: _spread(k) & (cap - 1))  # stable: insertion order in a bucket

    def put(self, key: str, deleted: bool) -> None:
        if key in self.deleted:
            self.deleted[key] = deleted
            return
        if self.capacity is None:
            self.capacity = _DEFAULT_CAPACITY
        self.keys.append(key)
        self.deleted[key] = deleted
        if len(self.keys) > int(self.capacity * _LOAD):
            self.capacity *= 2

    def remove(self, key: str) -> None:
        if self.deleted.pop(key, None) is not None:
            self.keys.remove(key)


def _read(entries: list[tuple[str, bool]]) -> _JavaMap:
    """A map as Avro reads it (``new HashMap<>(size)``), entries in their serialized order."""
    m = _JavaMap(_table_size_for(len(entries)) if entries else None)
    for k, d in entries:
        m.put(k, d)
    return m


def _combine(older: _JavaMap, newer: _JavaMap) -> _JavaMap:
    m = _JavaMap(_table_size_for(int(len(older.keys) / _LOAD + 1.0)) if older.keys else None)
    for k in older.order():
        m.put(k, older.deleted[k])
    for k in newer.order():
        d = newer.deleted[k]
        if k in m.deleted and d:
            if m.deleted[k]:
                m.put(k, d)
            else:
                m.remove(k)
        else:
            m.put(k, d and k not in m.deleted)
    return m


def listing_order(base: list[tuple[str, bool]] | None, logs: list[list[tuple[str, bool]]]) -> list[str]:
    """The file names of one ``files`` record in the order Java's compaction serializes them: ``base`` the
    base file's record (names and tombstone flags in serialized order, None without one), ``logs`` the log
    records in log order."""
    acc = None
    for entries in reversed(logs):
        acc = _read(entries) if acc is None else _combine(acc, _read(entries))
    if base is not None:
        acc = _read(base) if acc is None else _combine(_read(base), acc)
    return acc.order() if acc is not None else []
