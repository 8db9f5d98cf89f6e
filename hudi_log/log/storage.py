"""Where log files live: a small layer over ``pyarrow.fs``.

Local disk is the default. Any ``pyarrow.fs.FileSystem`` works, as does a URI
(``s3://bucket/table``, ``gs://…``, ``hdfs://…``, ``file:///…``) through
:func:`hudi_log.paths.filesystem_for` (credentials and endpoint from ``AWS_*`` and ``fs.s3a.*``);
:meth:`Storage.for_path` keeps the table's URIs as they are spelled.

What the log writer needs from storage, and how each kind provides it:

* **exclusive create** (a new log file never replaces another writer's file): on local disk an
  ``O_CREAT|O_EXCL`` open, atomic. Elsewhere a check-then-create: a log file is streamed through
  pyarrow, which cannot send S3's ``If-None-Match`` (the small files that must never be replaced, timeline
  files and locks, are PUT with it: :mod:`hudi_log.conditional_put`); two writers racing within that
  window on an object store can still collide, which Hudi avoids the same way (unique write tokens).
* **append** (``supports_append``): local disk and HDFS can append to an existing file; object
  stores cannot (Hudi's ``StorageSchemes.isAppendSupported``). The writer rolls over to a new log
  version where append is not supported.
* **durability**: ``OutputFile.sync()`` flushes and ``fsync``s on local disk. On object stores an
  object becomes visible when its stream is closed (as with Hudi on S3). A writer of many files that
  only needs them durable before it reports (a table write task, before its commit message) gives the
  storage a :class:`BackgroundSyncs`: each ``fsync`` then runs on a thread while the writer goes on
  encoding, and ``BackgroundSyncs.wait`` returns once every one is done.
* **single writer per file**: on local disk the writer holds an exclusive ``flock`` on the file
  while it writes, like an HDFS lease; a second writer that cannot take it rolls over
  (``try_lock``). Locks vanish with the process that held them, so a crashed writer never blocks.
"""

from __future__ import annotations

import errno
import os
import posixpath
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import BinaryIO, Optional

import pyarrow.fs as pafs

from ..errors import HudiLogError
from ..paths import filesystem_for, is_uri

try:  # POSIX only; elsewhere no advisory locks
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

#: pyarrow file system type names that can append to an existing file
APPEND_CAPABLE = frozenset({"local", "hdfs"})


class StorageError(HudiLogError):
    """A storage operation that cannot be done (e.g. append on an object store)."""


class AppendNotSupportedError(StorageError):
    """The storage cannot append to an existing file."""


@dataclass
class FileEntry:
    name: str
    path: str
    size: int
    is_dir: bool


class BackgroundSyncs:
    """fsyncs that run on a thread while the caller goes on (the disk writes while the CPU encodes).

    ``submit(fd)`` syncs a duplicate of ``fd``, so the file may be closed at once; ``wait()`` (also on
    leaving a ``with`` block without an error) returns when every submitted sync is done, and raises
    the first one that failed."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future] = []
        self._lock = threading.Lock()  # writers of several file groups may submit from their own threads

    def submit(self, fd: int) -> None:
        dup = os.dup(fd)
        try:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(1, thread_name_prefix="hudi_log-fsync")
                self._pending.append(self._pool.submit(_fsync_and_close, dup))
        except BaseException:
            os.close(dup)
            raise

    def wait(self) -> None:
        pending, self._pending = self._pending, []
        try:
            for f in pending:
                f.result()
        finally:  # after a failure too, the others finish before we return: shutdown waits for them
            if self._pool is not None:
                self._pool.shutdown()
                self._pool = None

    def __enter__(self) -> "BackgroundSyncs":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.wait()
        else:  # the error in flight is the one to report; the syncs still end before we return
            try:
                self.wait()
            except OSError:
                pass


def _fsync_and_close(fd: int) -> None:
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class OutputFile:
    """An open output stream: ``write``, ``sync`` (flush + fsync where possible), ``close``."""

    #: bytes in the file when it was opened (0 for a new file)
    start_size: int = 0

    def write(self, data: bytes) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def tell(self) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def sync(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def try_lock(self) -> bool:
        """Take the single-writer lock; False when another live writer holds it."""
        return True

    def close(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def closed(self) -> bool:  # pragma: no cover - interface
        raise NotImplementedError


class _LocalOutput(OutputFile):
    def __init__(self, f: BinaryIO, syncs: Optional[BackgroundSyncs] = None):
        self._f = f
        self._syncs = syncs
        self.start_size = os.fstat(f.fileno()).st_size
        self._pos = self.start_size

    def write(self, data) -> int:
        n = self._f.write(data)
        self._pos += n
        return n

    def tell(self) -> int:
        return self._pos

    def sync(self) -> None:
        self._f.flush()
        if self._syncs is not None:
            self._syncs.submit(self._f.fileno())
        else:
            os.fsync(self._f.fileno())

    def try_lock(self) -> bool:
        if fcntl is None:  # pragma: no cover
            return True
        try:
            fcntl.flock(self._f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        return True

    def close(self) -> None:
        if not self._f.closed:
            self._f.close()  # also drops the flock

    @property
    def closed(self) -> bool:
        return self._f.closed


class _ArrowOutput(OutputFile):
    def __init__(self, stream, start_size: int = 0):
        self._s = stream
        self.start_size = start_size
        self._pos = start_size

    def write(self, data) -> int:
        self._s.write(data)
        self._pos += len(data)
        return len(data)

    def tell(self) -> int:
        return self._pos

    def sync(self) -> None:
        self._s.flush()

    def close(self) -> None:
        if not self._s.closed:
            self._s.close()

    @property
    def closed(self) -> bool:
        return self._s.closed


class Storage:
    """File operations on one ``pyarrow.fs.FileSystem`` (local disk by default).

    Paths are the file system's own paths (plain OS paths for local disk; ``bucket/key`` for S3).
    ``supports_append`` defaults from the file system type and can be forced (e.g. ``False`` to
    make local disk behave like an object store). ``syncs``: the local files' fsyncs run there (see
    :class:`BackgroundSyncs`), and are durable only once it has waited.
    """

    def __init__(self, filesystem: Optional[pafs.FileSystem] = None, *, supports_append: Optional[bool] = None,
                 syncs: Optional[BackgroundSyncs] = None, cache_listings: bool = False):
        self.fs = filesystem if filesystem is not None else pafs.LocalFileSystem()
        self.is_local = isinstance(self.fs, pafs.LocalFileSystem)
        #: set by :meth:`for_path`: paths are URIs of this scheme, given and taken whole
        self.uri_scheme: Optional[str] = None
        self._supports_append = supports_append
        self.syncs = syncs
        #: ``cache_listings``: :meth:`list_names` lists a folder once and then follows what this storage
        #: creates, renames and deletes there. For a write task, whose file groups no one else writes while it
        #: runs: each log writer looks up its group's latest log file, and a listing per group made a task's
        #: cost grow with groups x files in the partition (and one LIST request per group on an object store)
        self._names: Optional[dict[str, list[str]]] = {} if cache_listings else None
        # the cache is shared by the threads of a task that writes its file groups side by side
        self._names_lock = threading.RLock()

    @classmethod
    def from_uri(cls, uri: str, **kw) -> tuple["Storage", str]:
        """A storage for ``uri`` and the path inside it (:func:`hudi_log.paths.filesystem_for`: the
        credentials and endpoint from the environment and ``fs.s3a.*`` options).

        A plain path (no scheme) means local disk.
        """
        if "://" not in uri:
            return cls(pafs.LocalFileSystem(), **kw), os.path.abspath(uri)
        fs, path, _ = filesystem_for(uri)
        return cls(fs, **kw), path

    @classmethod
    def for_path(cls, path, **kw) -> "Storage":
        """A storage that takes and gives paths as ``path`` spells them: plain paths for local disk,
        URIs (``s3://bucket/key``) for an object store, so the table layer's paths pass unchanged."""
        if not is_uri(path):
            return cls(**kw)
        fs, _, scheme = filesystem_for(str(path))
        st = cls(fs, **kw)
        st.uri_scheme = scheme
        return st

    def _native(self, path: str) -> str:
        """The file system's own path for ``path`` (a URI loses its scheme)."""
        if self.uri_scheme is not None:
            return str(path).split("://", 1)[-1]
        return path

    @staticmethod
    def _type_name(fs: pafs.FileSystem) -> str:
        while isinstance(fs, pafs.SubTreeFileSystem):
            fs = fs.base_fs
        return fs.type_name

    @property
    def supports_append(self) -> bool:
        if self._supports_append is not None:
            return self._supports_append
        return self._type_name(self.fs) in APPEND_CAPABLE

    def __repr__(self) -> str:
        return f"Storage({self.fs.type_name}, supports_append={self.supports_append})"

    # ---- paths ---------------------------------------------------------------------------------
    def join(self, *parts: str) -> str:
        parts = tuple(p for p in parts if p)
        if self.is_local:
            return os.path.join(*parts)
        return posixpath.join(*parts)

    def basename(self, path: str) -> str:
        return os.path.basename(path) if self.is_local else posixpath.basename(path)

    # ---- queries -------------------------------------------------------------------------------
    def exists(self, path: str) -> bool:
        if self.is_local:
            return os.path.lexists(path)
        return self.fs.get_file_info(self._native(path)).type != pafs.FileType.NotFound

    def size(self, path: str) -> int:
        if self.is_local:
            return os.stat(path).st_size
        info = self.fs.get_file_info(self._native(path))
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(errno.ENOENT, "no such file", path)
        return info.size

    def list(self, directory: str) -> list[FileEntry]:
        """Entries directly in ``directory`` (empty when it does not exist)."""
        if self.is_local:
            try:
                with os.scandir(directory) as it:
                    return [
                        FileEntry(e.name, e.path, e.stat().st_size if e.is_file() else 0, e.is_dir())
                        for e in it
                    ]
            except FileNotFoundError:
                return []
        infos = self.fs.get_file_info(pafs.FileSelector(self._native(directory), allow_not_found=True))
        pre = f"{self.uri_scheme}://" if self.uri_scheme is not None else ""
        return [
            FileEntry(i.base_name, pre + i.path, i.size or 0, i.type == pafs.FileType.Directory) for i in infos
        ]

    def list_names(self, directory: str) -> list[str]:
        """The names of the files directly in ``directory``."""
        if self._names is None:
            return self._list_names(directory)
        with self._names_lock:  # one listing per folder, whichever thread asks first
            return self._list_names(directory)

    def _list_names(self, directory: str) -> list[str]:
        if self._names is not None and directory in self._names:
            return list(self._names[directory])
        if self.is_local:
            try:
                with os.scandir(directory) as it:
                    names = [e.name for e in it if not e.is_dir()]  # no stat: the entry's type is enough
            except FileNotFoundError:
                names = []
        else:
            names = [e.name for e in self.list(directory) if not e.is_dir]
        if self._names is not None:
            self._names[directory] = names
        return list(names)

    def _listed(self, path: str, present: bool) -> None:
        """Keep a cached listing of ``path``'s folder true to a change this storage made."""
        if self._names is None:
            return
        folder, name = (os.path.split(path) if self.is_local else posixpath.split(str(path)))
        with self._names_lock:
            names = self._names.get(folder)
            if names is None:
                return
            if present and name not in names:
                names.append(name)
            elif not present and name in names:
                names.remove(name)

    # ---- changes -------------------------------------------------------------------------------
    def makedirs(self, directory: str) -> None:
        if not directory:
            return
        if self.is_local:
            os.makedirs(directory, exist_ok=True)
        else:
            # object stores have no directories: a prefix exists once a key under it does, and S3's
            # create_dir would PUT an empty marker object per call
            if self._type_name(self.fs) not in ("s3", "gcs", "abfs"):
                self.fs.create_dir(self._native(directory), recursive=True)

    def create(self, path: str) -> OutputFile:
        """Create ``path`` for writing; ``FileExistsError`` if it exists (atomic on local disk)."""
        if self.is_local:
            out = _LocalOutput(open(path, "xb"), self.syncs)
        else:
            if self.exists(path):
                raise FileExistsError(errno.EEXIST, "file exists", path)
            out = _ArrowOutput(self.fs.open_output_stream(self._native(path)))
        self._listed(path, True)
        return out

    def open_append(self, path: str) -> OutputFile:
        """Open an existing file to append to it; ``AppendNotSupportedError`` where storage cannot."""
        if not self.supports_append:
            raise AppendNotSupportedError(f"{self!r} cannot append to {path}")
        if self.is_local:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # no O_CREAT: the file must exist
            return _LocalOutput(os.fdopen(fd, "ab"), self.syncs)
        size = self.size(path)
        return _ArrowOutput(self.fs.open_append_stream(self._native(path)), start_size=size)

    def open_input(self, path: str) -> BinaryIO:
        """A seekable binary file for reading (hudi_log.open_log accepts it)."""
        if self.is_local:
            return open(path, "rb")
        return self.fs.open_input_file(self._native(path))

    def read_bytes(self, path: str) -> bytes:
        with self.open_input(path) as f:
            return f.read()

    def write_bytes(self, path: str, data: bytes, exclusive: bool = False) -> None:
        """Write a whole small file (properties, timeline files); replace unless ``exclusive``."""
        if exclusive:
            out = self.create(path)
        elif self.is_local:
            out = _LocalOutput(open(path, "wb"))
        else:
            out = _ArrowOutput(self.fs.open_output_stream(self._native(path)))
        try:
            out.write(data)
            out.sync()
        finally:
            out.close()

    def rename(self, src: str, dst: str) -> None:
        if self.is_local:
            os.replace(src, dst)
        else:
            self.fs.move(self._native(src), self._native(dst))
        self._listed(src, False)
        self._listed(dst, True)

    def delete(self, path: str) -> None:
        if self.is_local:
            os.unlink(path)
        else:
            self.fs.delete_file(self._native(path))
        self._listed(path, False)
