"""Random-access byte sources the reader works on: a path, an open binary file, or bytes."""

from __future__ import annotations

import contextlib
import io
import os
from typing import BinaryIO, Iterator, Protocol, Union

from ..paths import RemotePath, as_path, is_uri

PathOrFile = Union[str, os.PathLike, BinaryIO, bytes, bytearray, memoryview]


class Source(Protocol):
    path: str | None
    size: int

    def read(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes at ``offset`` (fewer only at the end of the source)."""


class BytesSource:
    def __init__(self, data: bytes | bytearray | memoryview, path: str | None = None):
        self._data = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        self.path = path
        self.size = len(self._data)

    def read(self, offset: int, length: int) -> bytes:
        return bytes(self._data[offset : offset + length])


class JoinedSource:
    """Bytes given as pieces, joined into one only when something is read (a framed block that is
    written piece by piece is usually never read back)."""

    def __init__(self, parts, path: str | None = None):
        self._parts = list(parts)
        self._data: bytes | None = None
        self.path = path
        self.size = sum(len(p) for p in self._parts)

    @property
    def parts(self) -> list:
        return list(self._parts)

    @property
    def data(self) -> bytes:
        if self._data is None:
            self._data = b"".join(self._parts)
            self._parts = [self._data]
        return self._data

    def read(self, offset: int, length: int) -> bytes:
        return self.data[offset : offset + length]


class FileSource:
    """An open, seekable binary file owned by the caller."""

    def __init__(self, f: BinaryIO, path: str | None = None):
        self._f = f
        self.path = path if path is not None else getattr(f, "name", None)
        if not isinstance(self.path, str):
            self.path = None
        self.size = f.seek(0, io.SEEK_END)

    def read(self, offset: int, length: int) -> bytes:
        self._f.seek(offset)
        return self._f.read(length)


class PathSource:
    """A file on disk. It is open only while a scan reads it (:meth:`opened`); a block kept afterwards
    opens the file for each read and closes it again, so blocks kept from many files hold no file
    descriptors (a process keeping blocks of thousands of log files would otherwise run out)."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self._f: BinaryIO | None = None
        self.size = os.stat(self.path).st_size

    @contextlib.contextmanager
    def opened(self) -> Iterator["PathSource"]:
        """The file held open for the reads of one pass (a scan's many small reads), closed after it."""
        if self._f is not None:  # nested: the outer pass owns the handle
            yield self
            return
        self._f = open(self.path, "rb")
        try:
            yield self
        finally:
            f, self._f = self._f, None
            f.close()

    def read(self, offset: int, length: int) -> bytes:
        if self._f is not None:
            self._f.seek(offset)
            return self._f.read(length)
        with open(self.path, "rb") as f:
            f.seek(offset)
            return f.read(length)

    def close(self) -> None:
        """Nothing stays open between reads (kept for callers that close their sources)."""


class RemoteSource:
    """A file on an object store, read in large ranged GETs kept in a small cache: the reader asks for
    many small pieces (headers, sizes, magics), each of which would otherwise cost one request."""

    CHUNK = 8 << 20
    KEEP = 4

    def __init__(self, path: RemotePath):
        self.path = str(path)
        self._p = path
        self._f = None
        self.size = path.stat().st_size
        self._chunks: dict[int, bytes] = {}

    def _chunk(self, i: int) -> bytes:
        c = self._chunks.get(i)
        if c is None:
            if self._f is None:
                self._f = self._p.fs.open_input_file(self._p.key)
            if len(self._chunks) >= self.KEEP:
                self._chunks.pop(next(iter(self._chunks)))
            c = self._chunks[i] = self._f.read_at(min(self.CHUNK, self.size - i * self.CHUNK), i * self.CHUNK)
        return c

    def read(self, offset: int, length: int) -> bytes:
        end = min(offset + length, self.size)
        out = []
        while offset < end:
            i, at = divmod(offset, self.CHUNK)
            c = self._chunk(i)
            piece = c[at:at + end - offset]
            if not piece:
                break
            out.append(piece)
            offset += len(piece)
        return b"".join(out)

    def close(self) -> None:
        self._chunks.clear()
        if self._f is not None:
            self._f.close()
            self._f = None


def open_source(path_or_file: PathOrFile) -> Source:
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        return BytesSource(path_or_file)
    if is_uri(path_or_file):
        p = as_path(path_or_file)
        if isinstance(p, RemotePath):
            return RemoteSource(p)
    if isinstance(path_or_file, (str, os.PathLike)):
        return PathSource(path_or_file)
    if hasattr(path_or_file, "read") and hasattr(path_or_file, "seek"):
        return FileSource(path_or_file)
    raise TypeError(f"expected a path, a seekable binary file or bytes, not {type(path_or_file).__name__}")
