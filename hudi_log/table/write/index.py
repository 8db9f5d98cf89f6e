"""A simple index: which file group holds each record key, read from the latest file slices.

Keys come from the base file's ``_hoodie_record_key`` column (on a table without meta fields, from its data
columns through the table's key generator, as Java's ``HoodieKeyLocationFetchHandle`` reads them with its
``keyGeneratorOpt``: :func:`base_file_keys`, the one place every writer reads stored keys) and, for MOR slices with log files, from the
reader's merge of the slice (``read.read_slice``: columnar, committed blocks only). A key of the base
file deleted in a log still maps to its file group, as Hudi's index finds it in the base file: a later
upsert of that key goes back to the same file group. A log file that completed commits wrote only updates
and deletes to (no write stat naming it counts inserts) is not read at all: Hudi counts a record as an
update only where the index placed it in the group, so its keys are the group's already. Repeated
upserts therefore do not make the next index build slower until a compaction.

The index is non-global, as Hudi's default (``BLOOM``/``SIMPLE``): a record is an update only when its
key lives in the *same* partition; the map keeps one location per key (the last seen when a key lives
in several partitions after a partition-path change).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...paths import RemotePath, as_path, read_parquet
from ...format.content.meta_fields import RECORD_KEY
from .keygen import KeyGenerator
from ..timeline.commit_metadata import write_stats
from ..view.file_system_view import FileSystemView
from ..properties import TableProperties
from ..timeline.timeline import Timeline
from ..workers import cpus, ordered_map


@dataclass(frozen=True)
class FileGroupInfo:
    """The latest slice of one file group, as plain data (paths as str) so a context pickles."""
    partition: str
    file_id: str
    base_instant: str
    base_file: str | None
    log_files: tuple[str, ...]
    size: int
    base_size: int = 0  # the base file's bytes (Java sizes small files by them)


def virtual_key_generator(table_path, props: TableProperties) -> KeyGenerator | None:
    """The key generator that makes a table's stored keys from its data columns: None where the table
    fills ``_hoodie_record_key`` (``hoodie.populate.meta.fields``, default true)."""
    if props.populate_meta_fields:
        return None
    from .keygen_config import key_generator  # builds on the modules this one builds on

    return key_generator(str(table_path), props.to_dict(), {})


def base_file_keys(path, keygen: KeyGenerator | None, table: pa.Table | None = None) -> pa.Array:
    """The record keys of a base file's rows, in row order (strings; null where a row has none): its
    ``_hoodie_record_key`` column, or with ``keygen`` (:func:`virtual_key_generator`) the keys made from the
    record-key columns. ``table``: the file's rows already read (their columns are used)."""
    if keygen is None:
        col = table.column(RECORD_KEY) if table is not None else read_parquet(path, columns=[RECORD_KEY]).column(0)
        return col.combine_chunks().cast(pa.string())
    if table is None:
        table = read_parquet(path, columns=list(keygen.record_key_fields))
    return keygen.record_key_array(table)


def latest_slices(table_path, props: TableProperties, timeline: Timeline) -> dict[str, FileGroupInfo]:
    fs = FileSystemView(table_path, props, timeline)
    # appends go to the group's newest slice: under a pending compaction that is the compaction's (v6 names
    # the log after it, as HoodieAppendHandle does); the files to read keys from are the merged slice's
    newest = {(g.partition, g.file_id): g.latest_slice.base_instant
              for gs in fs.file_groups.values() for g in gs if g.latest_slice is not None}
    out = {}
    for s in fs.latest_file_slices():
        out[s.file_id] = FileGroupInfo(
            s.partition, s.file_id, newest.get((s.partition, s.file_id), s.base_instant),
            str(s.base_file.path) if s.base_file else None,
            tuple(str(lf.path) for lf in s.log_files), s.total_size, s.base_file.size if s.base_file else 0)
    return out


class KeyIndex:
    """record key → (partition, file id), as Arrow columns: the keys and, per key, the number of its
    location in ``locations``. Pickles as a few buffers (a driver ships it to every Spark task).

    Lookups are vectorized for any batch size: the keys' 64-bit hashes are sorted once per process
    (``_sorted``, never pickled: each process hashes with its own polars), each query is a binary
    search, and a hash match counts only when the key itself is equal."""

    def __init__(self, keys: pa.Array, groups: np.ndarray, locations: list[tuple[str, str]]):
        self.keys = keys.cast(pa.string()) if keys.type != pa.string() else keys  # unique
        self.groups = np.asarray(groups, np.int32)
        self.locations = list(locations)

    @classmethod
    def empty(cls) -> "KeyIndex":
        return cls(pa.array([], pa.string()), np.zeros(0, np.int32), [])

    @classmethod
    def from_dict(cls, index: dict[str, tuple[str, str]]) -> "KeyIndex":
        locations = sorted(set(index.values()))
        at = {loc: i for i, loc in enumerate(locations)}
        return cls(pa.array(list(index), pa.string()), np.array([at[v] for v in index.values()], np.int32), locations)

    def __len__(self) -> int:
        return len(self.keys)

    def __getstate__(self):
        return {"keys": self.keys, "groups": self.groups, "locations": self.locations}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __eq__(self, other) -> bool:
        return isinstance(other, KeyIndex) and self.to_dict() == other.to_dict()

    def to_dict(self) -> dict[str, tuple[str, str]]:
        return dict(zip(self.keys.to_pylist(), (self.locations[g] for g in self.groups)))

    def get(self, key: str) -> tuple[str, str] | None:
        g = self.positions(pa.array([key], pa.string()))[0]
        return None if g < 0 else self.locations[self.groups[g]]

    @property
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        cached = self.__dict__.get("_sorted_cache")
        if cached is None:
            cached = self.__dict__["_sorted_cache"] = _sorted_hashes(_hash(self.keys))
        return cached

    def positions(self, keys: pa.Array) -> np.ndarray:
        """Each key's row in the index, -1 where the index does not hold it."""
        n = len(keys)
        out = np.full(n, -1, np.int64)
        if n == 0 or len(self.keys) == 0:
            return out
        keys = keys.cast(pa.string()) if keys.type != pa.string() else keys
        hs, order = self._sorted
        qh = _hash(keys)
        qo = _arg_sort(qh)  # sorted needles: each binary search starts where the last ended
        lo = np.empty(n, np.int64)
        lo[qo] = np.searchsorted(hs, qh[qo], "left")
        last = len(hs) - 1
        at = np.minimum(lo, last)
        hit = hs[at] == qh
        cand = order[at]
        same = pc.fill_null(pc.equal(self.keys.take(pa.array(cand)), keys), False).to_numpy(zero_copy_only=False)
        out[hit & same] = cand[hit & same]
        # a hash shared by several keys (the next sorted hash equal too): compare each key of the run
        shared = hit & ~same & (hs[np.minimum(lo + 1, last)] == qh) & (lo < last)
        for i in np.nonzero(shared)[0]:
            k = keys[int(i)].as_py()
            j = int(lo[i])
            while j <= last and hs[j] == qh[i]:
                if self.keys[int(order[j])].as_py() == k:
                    out[i] = order[j]
                    break
                j += 1
        return out

    def locate(self, keys: pa.Array, partitions: pa.Array | None = None) -> tuple[pa.Array, pa.Array]:
        """(file id, partition) per key as string arrays, null where the index does not hold the key or,
        given ``partitions``, holds it in another partition (a non-global index)."""
        pos = self.positions(keys)
        found = pos >= 0
        g = pa.array(self.groups[np.where(found, pos, 0)] if len(self.groups) else np.zeros(len(pos), np.int32),
                     pa.int32(), mask=~found)  # a null position takes a null
        fids = pa.array([l[1] for l in self.locations], pa.string()).take(g)
        parts = pa.array([l[0] for l in self.locations], pa.string()).take(g)
        if partitions is not None:
            same = pc.fill_null(pc.equal(parts, partitions), False)
            fids = pc.if_else(same, fids, pa.scalar(None, pa.string()))
        return fids, parts

    # ---- as a file: what a driver hands to its tasks without pickling the keys ----------------------
    def save(self, path) -> None:
        """Write the index as one Arrow IPC file (keys, groups and the hash order, so a reader need not
        sort again), atomically: a reader sees the whole file or none."""
        hs, order = self._sorted
        meta = {"locations": json.dumps(self.locations), "probe": str(int(_hash(_PROBE)[0]))}
        t = pa.table({"keys": self.keys, "groups": pa.array(self.groups, pa.int32()),
                      "sorted_hashes": pa.array(hs, pa.uint64()), "order": pa.array(order, pa.int64())})
        path = as_path(path)
        if isinstance(path, RemotePath):  # one PUT: visible whole or not at all, no rename
            sink = pa.BufferOutputStream()
            with pa.ipc.new_file(sink, t.schema.with_metadata(meta)) as w:
                w.write_table(t)
            path.write_bytes(sink.getvalue().to_pybytes())
            return
        tmp = as_path(_tmp_path(path))
        try:
            with pa.OSFile(str(tmp), "wb") as f, pa.ipc.new_file(f, t.schema.with_metadata(meta)) as w:
                w.write_table(t)
            os.replace(tmp, path)
        except BaseException:
            if tmp.exists():
                tmp.unlink()
            raise

    @classmethod
    def load(cls, path) -> "KeyIndex":
        """An index saved by :meth:`save`, memory-mapped (the keys are not copied)."""
        p = as_path(path)
        if isinstance(p, RemotePath):
            t = pa.ipc.open_file(pa.py_buffer(p.read_bytes())).read_all()
        else:
            with pa.memory_map(str(path)) as src:
                t = pa.ipc.open_file(src).read_all()
        meta = t.schema.metadata or {}
        locations = [tuple(x) for x in json.loads(meta[b"locations"])]
        col = lambda name: t.column(name).combine_chunks() if t.num_rows else pa.array([], t.schema.field(name).type)
        index = cls(col("keys"), col("groups").to_numpy(), locations)
        # the saved order holds only where this process hashes as the writer's did (same polars build)
        if meta.get(b"probe") == str(int(_hash(_PROBE)[0])).encode():
            index.__dict__["_sorted_cache"] = (col("sorted_hashes").to_numpy(), col("order").to_numpy())
        return index


_PROBE = pa.array(["hudi-log index probe"], pa.string())


def _tmp_path(path) -> str:
    """Where :meth:`KeyIndex.save` writes before the atomic rename."""
    return f"{path}.tmp"


def _hash(keys) -> np.ndarray:
    """64-bit hashes of string keys (an Arrow array or a polars Series), as this process's polars makes them."""
    import polars as pl

    return (keys if isinstance(keys, pl.Series) else pl.Series(keys)).hash(seed=0).to_numpy()


def _arg_sort(h: np.ndarray) -> np.ndarray:
    import polars as pl

    return pl.Series(h).arg_sort().to_numpy().astype(np.int64)  # polars sorts in parallel, numpy does not


def repeats(sorted_values: np.ndarray) -> int:
    """How many values of a sorted array equal the one before them."""
    return int(np.count_nonzero(sorted_values[1:] == sorted_values[:-1]))


def _sorted_hashes(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the hashes sorted, the order that sorts them): what lookups search."""
    order = _arg_sort(h)
    return h[order], order


class DeferredIndex:
    """A :class:`KeyIndex` the driver is still building into ``path`` while the tasks start: pickles as
    the path alone, and on first use waits for the file (or the driver's error file next to it). Waiting
    stops with an error when the instant's folder goes (the write was rolled back) or after ``timeout``."""

    def __init__(self, path: str, timeout: float = 3600.0):
        self.path = str(path)
        self.timeout = timeout

    def __getstate__(self):
        return {"path": self.path, "timeout": self.timeout}

    def __setstate__(self, state):
        self.__dict__.update(state)

    @property
    def error_path(self) -> str:
        return self.path + ".error"

    def files(self) -> tuple[str, ...]:
        """Every file the build may leave: the index, its temp file, the error file."""
        return self.path, _tmp_path(self.path), self.error_path

    def resolve(self) -> KeyIndex:
        index = self.__dict__.get("_index")
        if index is None:
            index = self.__dict__["_index"] = self._wait()
        return index

    def _wait(self) -> KeyIndex:
        from ..errors import WriteError

        path, folder = as_path(self.path), as_path(self.path).parent
        deadline = time.monotonic() + self.timeout
        delay = 0.005
        while True:
            if path.exists():
                return KeyIndex.load(path)
            if as_path(self.error_path).exists():
                raise WriteError(folder, "building the index failed on the driver: "
                                 + as_path(self.error_path).read_text(errors="replace"))
            if not folder.exists():
                raise WriteError(folder, "the write was rolled back while its index was being built")
            if time.monotonic() > deadline:
                raise WriteError(path, f"the index was not ready after {self.timeout:.0f}s")
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

    def __len__(self) -> int:
        return len(self.resolve())

    def locate(self, keys, partitions=None):
        return self.resolve().locate(keys, partitions)

    def positions(self, keys):
        return self.resolve().positions(keys)

    def get(self, key):
        return self.resolve().get(key)

    def to_dict(self):
        return self.resolve().to_dict()


def build_index(table_path, props: TableProperties, timeline: Timeline,
                groups: dict[str, FileGroupInfo]) -> KeyIndex:
    """record key → (partition, file id) over the latest slices in ``groups``.

    Per key: the last group where it is live, else the last where it appears (deleted there). A key
    deleted in one group and inserted again in another (insert does not look keys up) must go to the
    group where it is live, else its update or delete would miss it. Whether a key is live takes a
    merge of its slice, which is only needed for keys in several groups and for keys only logs hold;
    otherwise base-file keys (and the logs' key columns, to find log-only keys) are enough."""
    import polars as pl

    infos = list(groups.values())
    locs = [(g.partition, g.file_id) for g in infos]
    keygen = virtual_key_generator(table_path, props)
    with_base = [n for n, g in enumerate(infos) if g.base_file is not None]
    # one Parquet read per base file, side by side (Arrow decodes without the GIL: workers.py)
    base = dict(zip(with_base, ordered_map(lambda n: base_file_keys(infos[n].base_file, keygen), with_base,
                                           cpus())))
    plan = tasks = None
    exact: set[int] = set()  # groups whose liveness is needed
    if props.is_mor and any(g.log_files for g in infos):
        from ..read.keys import slice_log_keys
        from ..read.query import HudiTable

        plan = HudiTable(table_path).plan(query="snapshot")
        tasks = {(t.partition, t.file_id): t for t in plan.tasks}
        with_logs = [n for n, g in enumerate(infos)
                     if g.log_files and tasks.get(locs[n]) is not None and tasks[locs[n]].log_files]
        settled = _update_only_logs(timeline, min((tasks[locs[n]].base_instant for n in with_logs), default=""))
        # a log whose commits wrote no inserts holds only keys its group had: nothing to learn from its keys
        unsettled = {n: tuple(f for f in tasks[locs[n]].log_files if Path(f).name not in settled) for n in with_logs}
        with_logs = [n for n in with_logs if unsettled[n]]

        def log_only(n: int) -> bool:  # keys only the log holds (or unreadable keys): merge to know which live
            lk = slice_log_keys(plan, dataclasses.replace(tasks[locs[n]], log_files=unsettled[n]))
            return lk is None or (len(lk) > 0 and not pc.all(
                pc.is_in(lk, value_set=base.get(n, pa.array([], pa.string())))).as_py())

        exact.update(n for n, x in zip(with_logs, ordered_map(log_only, with_logs, cpus())) if x)
    frame = _entries({n: (k, None) for n, k in base.items()})
    # sorted hashes answer "does a key repeat?" (equal hashes: count exactly) and are the lookup order
    hashed = _sorted_hashes(_hash(frame["k"]))
    repeated = repeats(hashed[0]) > 0 and frame["k"].n_unique() != frame.height
    if repeated:
        shared = frame.filter(pl.col("k").is_duplicated())["g"].unique().to_list()
        exact.update(n for n in shared if tasks is not None and tasks.get(locs[n]) is not None
                     and tasks[locs[n]].log_files)
    if exact:
        from ..read.keys import read_slice_keys

        entries = {n: (k, None) for n, k in base.items() if n not in exact}
        merged = {}
        for n in sorted(exact):
            live = read_slice_keys(plan, tasks[locs[n]])
            k = base.get(n)
            # a base key the merge left out was deleted in the logs: known here, but not live
            if k is not None:
                entries[n] = (k, pc.is_in(k, value_set=live).to_numpy(zero_copy_only=False))
            merged[n] = live
        frame = _entries(entries, merged)
        repeated = frame.height > 0 and frame["k"].n_unique() != frame.height
        hashed = None
    if repeated:
        frame = frame.sort(["live", "g"], maintain_order=True).unique("k", keep="last", maintain_order=True)
        hashed = None
    index = KeyIndex(frame["k"].to_arrow().cast(pa.string()) if frame.height else pa.array([], pa.string()),
                     frame["g"].to_numpy() if frame.height else np.zeros(0, np.int32), locs)
    if hashed is not None:  # the keys as hashed: no second sort
        index.__dict__["_sorted_cache"] = hashed
    return index


def _update_only_logs(timeline: Timeline, since: str) -> set[str]:
    """Names of the log files that completed commits (from ``since`` on) wrote only updates and deletes
    to: every write stat naming the file counts no inserts. Hudi counts a record as an update when the
    index placed it in the file group, so such a file holds no key its group did not have already."""
    return {name for name, (inserts, _) in log_write_counts(timeline, since).items() if not inserts}


def log_write_counts(timeline: Timeline, since: str) -> dict[str, tuple[int, int]]:
    """Log file name -> (inserts, deletes) the completed commits from ``since`` on counted for it (every
    write stat naming the file); a log whose commit metadata is unreadable is not in it."""
    counts: dict[str, tuple[int, int]] = {}
    for inst in timeline.completed_commits():
        if inst.requested_time < since:
            continue
        try:
            md = timeline.commit_metadata(inst)
        except Exception:  # noqa: BLE001 - unreadable metadata: its files are read instead
            continue
        for st in write_stats(md):
            names = {Path(str(x)).name for x in [st.get("path"), *(st.get("logFiles") or [])] if x}
            ins, dels = int(st.get("numInserts") or 0), int(st.get("numDeletes") or 0)
            for name in names:
                if ".log." in name:
                    i, d = counts.get(name, (0, 0))
                    counts[name] = (i + ins, d + dels)
    return counts


def _entries(base: dict, merged: dict | None = None):
    """One row per (key, group) entry: key, live flag, group number."""
    import polars as pl

    keys, live, gs = [], [], []
    for n, (k, alive) in base.items():
        keys.append(k)
        live.append(np.ones(len(k), bool) if alive is None else alive)
        gs.append(np.full(len(k), n, np.int32))
    for n, k in (merged or {}).items():
        keys.append(k)
        live.append(np.ones(len(k), bool))
        gs.append(np.full(len(k), n, np.int32))
    if not keys:
        return pl.DataFrame({"k": pl.Series([], dtype=pl.String), "live": pl.Series([], dtype=pl.Boolean),
                             "g": pl.Series([], dtype=pl.Int32)})
    frame = pl.DataFrame({"k": pl.Series(pa.concat_arrays(keys)), "live": np.concatenate(live),
                          "g": np.concatenate(gs)})
    return frame.filter(pl.col("k").is_not_null())


# ---- an index built ahead, between two writes of one process ------------------------------------------
class _Ahead:
    """One table's index built on a background thread for the latest slices it saw (``groups``)."""

    def __init__(self, table_path: str):
        self.table_path = table_path
        self.found: tuple[dict, dict, KeyIndex] | None = None  # (properties, groups, index)
        self.thread = threading.Thread(target=self._build, name=f"hudi_log index ahead {table_path}", daemon=True)

    def _build(self) -> None:
        from ..properties import read_properties

        try:
            props = read_properties(self.table_path)
            timeline = Timeline(as_path(self.table_path), props)
            groups = latest_slices(self.table_path, props, timeline)
            self.found = (props.to_dict(), groups, build_index(self.table_path, props, timeline, groups))
        except Exception:  # noqa: BLE001 - nothing built: the next write builds its own, and reports what fails
            self.found = None


_ahead: dict[str, _Ahead] = {}
_ahead_lock = threading.Lock()


def build_index_ahead(table_path) -> None:
    """Start building the index of ``table_path`` as it is now, for the next write of this process (the
    streaming sink's next micro-batch, while Spark's tasks hand its rows over and this process waits):
    :func:`index_built_ahead` hands it to that write if the latest slices are still the ones it read."""
    key = str(as_path(table_path))
    job = _Ahead(key)
    with _ahead_lock:
        _ahead[key] = job
    job.thread.start()


def index_built_ahead(table_path, props: TableProperties, groups: dict[str, FileGroupInfo]) -> KeyIndex | None:
    """The index :func:`build_index_ahead` built for ``table_path`` (waiting for it), if it was built for these
    very latest slices and properties (the same files: the same keys), else None; taken once."""
    with _ahead_lock:
        job = _ahead.pop(str(as_path(table_path)), None)
    if job is None:
        return None
    job.thread.join()
    if job.found is None or job.found[0] != props.to_dict() or job.found[1] != groups:
        return None
    return job.found[2]
