"""Table and log-file paths on local disk or on an object store, through one pathlib-like type.

Hudi names every file by a Hadoop ``Path`` whose scheme chooses the file system (``HoodieStorage``,
``StorageSchemes``): ``s3a://`` goes to S3A, ``gs://`` to GCS, a bare path to local disk. Here a bare
path stays a :class:`pathlib.Path`, and a URI becomes a :class:`RemotePath`, which answers the part of
``pathlib.Path`` the table code uses (``/``, ``name``, ``parent``, ``exists``, ``iterdir``, ``glob``,
``read_bytes``, ``stat``, ...) with ``pyarrow.fs`` calls. So the table layer's code is one code for both.

Object stores differ from disks in three ways that matter to Hudi, each handled where it arises:

* **no rename**: :func:`write_replace` writes a whole small file (``hoodie.properties``, a timeline
  file) as one PUT, which the store makes visible at once; on local disk it is temp file + fsync +
  ``os.replace``. No commit anywhere depends on a rename.
* **no put-if-absent through pyarrow**: ``pyarrow.fs`` cannot send S3's ``If-None-Match: *`` (checked with
  pyarrow 26: it drops headers it does not know and overwrites). :func:`create_new` (completed and
  requested instants, the file-system lock, the heartbeat that reserves an instant time) therefore PUTs
  through :mod:`hudi_log.conditional_put` on S3, and the store refuses an existing key: of two writers
  aiming at one name, exactly one succeeds, the other gets ``FileExistsError``. On GCS, Azure, HDFS (and
  an S3-compatible store without conditional writes) it checks, then writes: two writers racing within
  that window can collide there, so hudi-log keeps Hudi's single-writer rule (one writer per table, or an
  external lock: docs/concurrency.md); file names carry unique instants and write tokens, so honest
  writers never aim at the same name.
* **no directories**: a "directory" is a key prefix; :meth:`RemotePath.mkdir` writes nothing, and a
  listing is one prefix LIST (``iterdir``; ``rglob`` lists the whole prefix recursively).

Credentials and endpoints (:func:`filesystem_for`): the ``AWS_*`` environment variables (the AWS SDK's
own chain, plus ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` and ``AWS_REGION``), overridden by the
Hadoop S3A option names (``fs.s3a.endpoint``, ``fs.s3a.access.key``, ...) given to
:func:`configure_storage` (the Spark data sources and the CLI's ``--option`` pass theirs here).
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import posixpath
import shutil
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator, Mapping, Optional, Union

import pyarrow.fs as pafs

from .conditional_put import s3_put_if_absent
from .errors import HudiLogError

#: schemes that mean S3 (Hadoop's s3a/s3n included, as Hudi tables are often registered with them)
S3_SCHEMES = frozenset({"s3", "s3a", "s3n"})
GCS_SCHEMES = frozenset({"gs", "gcs"})
AZURE_SCHEMES = frozenset({"abfs", "abfss"})

#: the Hadoop S3A option names read here, as Spark options or ``--option`` (fs.s3a.* in core-site.xml)
S3A_OPTIONS = ("fs.s3a.endpoint", "fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.session.token",
               "fs.s3a.path.style.access", "fs.s3a.endpoint.region", "fs.s3a.connection.ssl.enabled")


class UnsupportedSchemeError(HudiLogError):
    """A URI whose scheme hudi-log has no file system for (naming the scheme and the URI)."""

    def __init__(self, uri: str, scheme: str, why: str):
        self.uri, self.scheme = uri, scheme
        super().__init__(f"{uri}: unsupported storage scheme {scheme!r}: {why}")


AnyPath = Union[Path, "RemotePath"]

_options: dict[str, str] = {}
_filesystems: dict[tuple, pafs.FileSystem] = {}
_lock = threading.Lock()


def configure_storage(options: Optional[Mapping[str, str]]) -> None:
    """Take the ``fs.s3a.*`` keys of ``options`` for the file systems made from now on (process-wide,
    as Hadoop's configuration is per JVM)."""
    if not options:
        return
    picked = {k: str(v) for k, v in options.items() if k in S3A_OPTIONS}
    if picked:
        with _lock:
            _options.update(picked)


def storage_options() -> dict[str, str]:
    """The ``fs.s3a.*`` options in force (what a Spark driver hands to its executors)."""
    return dict(_options)


def is_uri(p) -> bool:
    return isinstance(p, RemotePath) or (isinstance(p, str) and "://" in p and not p.startswith("file://"))


def full_path_text(p) -> str:
    """A file's full path as Java's plans and metadata hold them: the URI of an object-store path, the absolute
    path of a local one (a relative table path taken as given)."""
    return str(p) if is_uri(p) else os.path.abspath(p)


def as_path(p) -> AnyPath:
    """``p`` (str, Path or RemotePath) as a Path for local disk or a RemotePath for a URI."""
    if isinstance(p, (RemotePath, Path)):
        return p
    p = os.fspath(p)
    if p.startswith("file://"):
        return Path(p[len("file://"):])
    if "://" not in p:
        return Path(p)
    fs, key, scheme = filesystem_for(p)
    return RemotePath(fs, scheme, key)


def _bool(v: str) -> bool:
    return v.strip().lower() in ("true", "1", "yes")


def _s3_kwargs(bucket: str) -> dict:
    opt, env = _options, os.environ
    kw: dict = {}
    endpoint = opt.get("fs.s3a.endpoint") or env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    if endpoint:
        scheme, sep, host = endpoint.partition("://")
        if not sep:  # S3A takes a bare host; its ssl option says which scheme
            scheme, host = ("https" if _bool(opt.get("fs.s3a.connection.ssl.enabled", "true")) else "http"), endpoint
        kw["endpoint_override"], kw["scheme"] = host.rstrip("/"), scheme
    if opt.get("fs.s3a.access.key"):
        kw["access_key"] = opt["fs.s3a.access.key"]
        kw["secret_key"] = opt.get("fs.s3a.secret.key", "")
        if opt.get("fs.s3a.session.token"):
            kw["session_token"] = opt["fs.s3a.session.token"]
    region = opt.get("fs.s3a.endpoint.region") or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if not region and not endpoint:
        try:  # a bucket on AWS answers where it lives (one HEAD request)
            region = pafs.resolve_s3_region(bucket)
        except OSError:
            region = None
    if region:
        kw["region"] = region
    if "fs.s3a.path.style.access" in opt:
        kw["force_virtual_addressing"] = not _bool(opt["fs.s3a.path.style.access"])
    return kw


def _s3_kwargs_of(fs: pafs.FileSystem, bucket: str) -> dict:
    """The keyword arguments ``fs`` was made with by :func:`filesystem_for` (else made again for ``bucket``)."""
    with _lock:
        for (_, _, items), made in _filesystems.items():
            if made is fs:
                return dict(items)
    return _s3_kwargs(bucket)


def filesystem_for(uri: str) -> tuple[pafs.FileSystem, str, str]:
    """The file system for ``uri``, the path inside it (``bucket/key`` for S3), and the scheme.

    File systems are made once per bucket and options, and shared (so are their connections)."""
    scheme, _, rest = uri.partition("://")
    scheme = scheme.lower()
    if scheme in S3_SCHEMES:
        bucket = rest.split("/", 1)[0]
        if not bucket:
            raise UnsupportedSchemeError(uri, scheme, "no bucket in the URI (s3://bucket/path)")
        kw = _s3_kwargs(bucket)
        key = ("s3", bucket, tuple(sorted(kw.items())))
        with _lock:
            fs = _filesystems.get(key)
            if fs is None:
                fs = _filesystems[key] = pafs.S3FileSystem(**kw)
        return fs, rest.rstrip("/"), scheme
    if scheme == "file":
        return pafs.LocalFileSystem(), rest, scheme
    if scheme in GCS_SCHEMES or scheme in AZURE_SCHEMES or scheme in ("hdfs", "mock"):
        # mock://: pyarrow's in-memory file system, for tests
        name = {"hdfs": "HadoopFileSystem", "mock": "FileSystem"}.get(
            scheme, "GcsFileSystem" if scheme in GCS_SCHEMES else "AzureFileSystem")
        if not hasattr(pafs, name):
            raise UnsupportedSchemeError(uri, scheme, f"this pyarrow has no {name}")
        try:
            fs, path = pafs.FileSystem.from_uri(uri)
        except (ValueError, OSError) as e:
            raise UnsupportedSchemeError(uri, scheme, f"pyarrow cannot open it: {e}") from e
        return fs, path.rstrip("/"), scheme
    raise UnsupportedSchemeError(
        uri, scheme, "supported: a local path, file://, s3:// (s3a://, s3n://), and gs://, abfs(s)://, "
        "hdfs:// where pyarrow has the file system")


@dataclass(frozen=True)
class RemoteStat:
    st_size: int
    st_mtime: float
    st_mtime_ns: int


class RemotePath:
    """A file or key prefix on an object store, answering the ``pathlib.Path`` calls the project uses.

    ``str()`` gives the URI back (``s3://bucket/key``), so it travels as a string (to Spark executors,
    into task contexts) and :func:`as_path` makes it a RemotePath again. Entries from ``iterdir``/
    ``glob`` carry their listing's size and time, so asking them costs no further request."""

    __slots__ = ("fs", "scheme", "key", "_info")

    def __init__(self, fs: pafs.FileSystem, scheme: str, key: str, info: Optional[pafs.FileInfo] = None):
        self.fs, self.scheme, self.key, self._info = fs, scheme, key.rstrip("/"), info

    # ---- names -----------------------------------------------------------------------------------
    def __str__(self) -> str:
        return f"{self.scheme}://{self.key}"

    def __repr__(self) -> str:
        return f"RemotePath({str(self)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, RemotePath) and (self.scheme, self.key) == (other.scheme, other.key)

    def __hash__(self) -> int:
        return hash((self.scheme, self.key))

    def __lt__(self, other: "RemotePath") -> bool:
        return self.key < other.key

    def _child(self, key: str, info=None) -> "RemotePath":
        return RemotePath(self.fs, self.scheme, key, info)

    def __truediv__(self, other) -> "RemotePath":
        part = str(other).strip("/")
        return self._child(posixpath.join(self.key, part) if part else self.key)

    def joinpath(self, *parts) -> "RemotePath":
        p = self
        for part in parts:
            p = p / part
        return p

    @property
    def name(self) -> str:
        return posixpath.basename(self.key)

    @property
    def parent(self) -> "RemotePath":
        return self._child(posixpath.dirname(self.key))

    @property
    def parents(self) -> list["RemotePath"]:
        """The enclosing prefixes, nearest first, down to the bucket (never the bare scheme)."""
        out, key = [], posixpath.dirname(self.key)
        while key:
            out.append(self._child(key))
            key = posixpath.dirname(key)
        return out

    @property
    def suffix(self) -> str:
        return posixpath.splitext(self.name)[1]

    @property
    def stem(self) -> str:
        return posixpath.splitext(self.name)[0]

    def with_name(self, name: str) -> "RemotePath":
        return self.parent / name

    def relative_to(self, other: "RemotePath") -> PurePosixPath:
        return PurePosixPath(posixpath.relpath(self.key, other.key))

    def resolve(self) -> "RemotePath":
        return self

    absolute = resolve

    # ---- queries ---------------------------------------------------------------------------------
    def _file_info(self) -> pafs.FileInfo:
        if self._info is None:
            return self.fs.get_file_info(self.key)
        return self._info

    def exists(self) -> bool:
        return self._file_info().type != pafs.FileType.NotFound

    def is_file(self) -> bool:
        return self._file_info().type == pafs.FileType.File

    def is_dir(self) -> bool:
        return self._file_info().type == pafs.FileType.Directory

    def is_symlink(self) -> bool:
        return False  # an object store has no links

    def stat(self) -> RemoteStat:
        info = self._file_info()
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(errno.ENOENT, "no such file", str(self))
        ns = info.mtime_ns or 0
        return RemoteStat(info.size or 0, ns / 1e9, ns)

    def _listing(self, recursive: bool) -> list[pafs.FileInfo]:
        memo = getattr(_scope, "listings", None)
        if memo is None:
            return self._list(recursive)
        found = memo.get((str(self), recursive))
        if found is None and not recursive:
            found = _children_from(memo, self)
        if found is None:
            found = memo[(str(self), recursive)] = self._list(recursive)
        return found

    def _list(self, recursive: bool) -> list[pafs.FileInfo]:
        sel = pafs.FileSelector(self.key, allow_not_found=True, recursive=recursive)
        return self.fs.get_file_info(sel)

    def iterdir(self) -> Iterator["RemotePath"]:
        for i in self._listing(False):
            yield self._child(i.path, i)

    def glob(self, pattern: str) -> Iterator["RemotePath"]:
        """Entries directly here whose names match ``pattern`` (one LIST); ``**/`` patterns recurse."""
        if pattern.startswith("**/"):
            yield from self.rglob(pattern[3:])
            return
        for p in self.iterdir():
            if fnmatch.fnmatchcase(p.name, pattern):
                yield p

    def rglob(self, pattern: str) -> Iterator["RemotePath"]:
        for i in self._listing(True):
            if fnmatch.fnmatchcase(i.base_name, pattern):
                yield self._child(i.path, i)

    # ---- contents --------------------------------------------------------------------------------
    def open(self, mode: str = "rb"):
        if mode in ("rb", "r"):
            f = self.fs.open_input_file(self.key)
            return f if mode == "rb" else _TextReader(f)
        if mode in ("wb", "w"):
            return self.fs.open_output_stream(self.key)
        raise ValueError(f"{self}: mode {mode!r} is not supported on an object store")

    def read_bytes(self) -> bytes:
        try:
            with self.fs.open_input_file(self.key) as f:
                return f.read()
        except FileNotFoundError:
            raise
        except OSError as e:
            if self.fs.get_file_info(self.key).type == pafs.FileType.NotFound:
                raise FileNotFoundError(errno.ENOENT, "no such file", str(self)) from e
            raise

    def read_text(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        return self.read_bytes().decode(encoding, errors)

    def write_bytes(self, data: bytes) -> int:
        with self.fs.open_output_stream(self.key) as f:
            f.write(data)
        return len(data)

    def write_text(self, text: str, encoding: str = "utf-8") -> int:
        return self.write_bytes(text.encode(encoding))

    # ---- changes ---------------------------------------------------------------------------------
    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        """Nothing to do: a prefix exists once a key under it does (no directory marker objects)."""

    def rmdir(self) -> None:
        """Nothing to do: an empty prefix is no object."""

    def touch(self, exist_ok: bool = True) -> None:
        if self.exists():
            if not exist_ok:
                raise FileExistsError(errno.EEXIST, "file exists", str(self))
            return
        self.write_bytes(b"")

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.fs.delete_file(self.key)
        except FileNotFoundError:
            if not missing_ok:
                raise


_scope = threading.local()


@contextlib.contextmanager
def listing_scope() -> Iterator[None]:
    """Within the block, this thread LISTs each object-store prefix once, and a recursive listing answers
    for the prefixes under it. For work that lists the same folders more than once and writes nothing
    meanwhile (a read's planning: its integrity check and its file-system view list every partition)."""
    if getattr(_scope, "listings", None) is not None:
        yield  # an enclosing scope's listings serve
        return
    _scope.listings = {}
    try:
        yield
    finally:
        _scope.listings = None


def _children_from(memo: dict, path: "RemotePath") -> Optional[list[pafs.FileInfo]]:
    """``path``'s direct entries, cut from a recursive listing of it or of a prefix above it (None: none
    was made). A key deeper down stands for the folder holding it, as a LIST with a delimiter shows it."""
    for (uri, recursive), infos in memo.items():
        if not recursive or not (str(path) == uri or str(path).startswith(uri + "/")):
            continue
        out, folders, head = [], set(), path.key + "/"
        for i in infos:
            if not i.path.startswith(head):
                continue
            first, sep, _ = i.path[len(head):].partition("/")
            if sep or i.type == pafs.FileType.Directory:
                folders.add(first)
            else:
                out.append(i)
        out += [pafs.FileInfo(head + d, pafs.FileType.Directory) for d in sorted(folders)]
        memo[(str(path), False)] = out
        return out
    return None


class _TextReader:
    def __init__(self, f):
        self._f = f

    def read(self) -> str:
        return self._f.read().decode("utf-8")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._f.close()


# ---- operations that differ by kind -------------------------------------------------------------
def _synced_temp(path: Path, data: bytes) -> Path:
    """``data`` in a new temp file beside ``path``, fsynced; a half-written one is removed (a full disk) and the
    error names ``path``."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        raise naming(e, path)
    return tmp


def write_replace(path: AnyPath, data: bytes) -> None:
    """Write a whole small file, replacing any earlier one, so a reader sees the old or the new bytes.

    Local disk: a temp file, fsync, ``os.replace``. Object store: one PUT, which becomes visible whole."""
    if isinstance(path, RemotePath):
        path.write_bytes(data)
        return
    tmp = _synced_temp(path, data)
    try:
        os.replace(tmp, path)
    except BaseException as e:
        tmp.unlink(missing_ok=True)  # no half-written leftover (and the space back, when the disk is full)
        raise naming(e, path)


def create_new(path: AnyPath, data: bytes = b"") -> None:
    """Create ``path`` with ``data``, whole, never replacing a file; ``FileExistsError`` if it exists.

    Local disk: a temp file, fsync, then a hard link to ``path``, which fails if it exists, so a reader
    never sees half the file (``O_EXCL`` in place where the file system has no links). S3: one PUT with
    ``If-None-Match: *`` (:mod:`hudi_log.conditional_put`). Other stores: check, then PUT (module docstring)."""
    if isinstance(path, RemotePath):
        if path.scheme in S3_SCHEMES:
            bucket, _, key = path.key.partition("/")
            if s3_put_if_absent(str(path), bucket, key, data, _s3_kwargs_of(path.fs, bucket)):
                return
        if path.exists():
            raise FileExistsError(errno.EEXIST, "file exists", str(path))
        path.write_bytes(data)
        return
    tmp = None
    try:
        tmp = _synced_temp(path, data)
        try:
            os.link(tmp, path)
            return
        except OSError as e:
            if isinstance(e, FileExistsError) or e.errno not in (errno.EPERM, errno.ENOTSUP, errno.ENOSYS):
                raise
    except FileExistsError:
        raise
    except BaseException as e:
        raise naming(e, path)
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # no hard links here
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(path)  # ours (O_EXCL): no half-written file stays
        raise naming(e, path)


def naming(e: BaseException, path) -> BaseException:
    """``e``, an OSError that names no file (a failed write: ``[Errno 28] No space left on device``), as one
    naming ``path``; anything else unchanged. To be raised: ``raise naming(e, path)``."""
    if isinstance(e, OSError) and e.filename is None and e.errno is not None:
        named = OSError(e.errno, e.strerror or str(e), str(path))
        named.__cause__ = e
        return named
    return e


def touch_existing(path: AnyPath) -> None:
    """Make ``path``'s modification time now (a heartbeat, a held lock); ``FileNotFoundError`` when it
    is gone. An object's time changes only when it is written, so there its bytes are PUT again."""
    if isinstance(path, RemotePath):
        path.write_bytes(path.read_bytes())
        return
    os.utime(path)


def remove_tree(path: AnyPath) -> None:
    """Delete ``path`` and all under it; nothing when it is absent."""
    if isinstance(path, RemotePath):
        try:
            path.fs.delete_dir(path.key)
        except (FileNotFoundError, OSError):
            for p in path.rglob("*"):
                p.unlink(missing_ok=True)
        return
    shutil.rmtree(path, ignore_errors=True)


def walk_dirs(root: AnyPath) -> Iterator[tuple[str, list[str], list[str]]]:
    """(relative dir with "/", sub-dir names, file names) under ``root``, like ``os.walk``; on an object
    store from one recursive LIST. The caller may prune sub-dir names in place, as with ``os.walk``."""
    if not isinstance(root, RemotePath):
        for dirpath, dirnames, filenames in os.walk(root):
            rel = os.path.relpath(dirpath, root)
            yield ("" if rel == "." else rel.replace(os.sep, "/")), dirnames, filenames
        return
    files: dict[str, list[str]] = {"": []}
    subdirs: dict[str, set[str]] = {"": set()}
    for i in root._listing(True):
        rel = posixpath.relpath(i.path, root.key)
        parent = posixpath.dirname(rel)
        # every ancestor of a key is a directory, marker object or not
        parts = rel.split("/")
        for depth in range(1, len(parts) if i.type == pafs.FileType.File else len(parts) + 1):
            d, up = "/".join(parts[:depth]), "/".join(parts[:depth - 1])
            subdirs.setdefault(up, set()).add(parts[depth - 1])
            subdirs.setdefault(d, set())
            files.setdefault(d, [])
        if i.type == pafs.FileType.File:
            files.setdefault(parent, []).append(posixpath.basename(rel))
    stack = [""]
    while stack:
        d = stack.pop()
        names = sorted(subdirs.get(d, ()))
        yield d, names, sorted(files.get(d, []))
        stack.extend(posixpath.join(d, n) if d else n for n in reversed(names))


def arrow_location(path) -> tuple[str, Optional[pafs.FileSystem]]:
    """``(path, filesystem)`` for pyarrow readers and writers (``filesystem=None`` on local disk)."""
    p = as_path(path)
    if isinstance(p, RemotePath):
        return p.key, p.fs
    return str(p), None


# the Parquet readers live in parquet_io.py (paths.py holds the path types and storage operations); the names
# stay importable from here, where every layer has always found them
from .parquet_io import (  # noqa: E402,F401
    open_parquet, parquet_errors, read_parquet, read_parquet_columns, read_parquet_metadata, read_parquet_schema,
)
