"""Random-access byte sources the reader works on: a path, an open binary file, or bytes."""

from __future__ import annotations

import io
import os
from typing import BinaryIO, Protocol, Union

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
    """A file on disk, opened on demand, so blocks stay readable after the scan that found them."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self._f: BinaryIO | None = open(self.path, "rb")
        self.size = os.fstat(self._f.fileno()).st_size

    def read(self, offset: int, length: int) -> bytes:
        if self._f is None or self._f.closed:
            self._f = open(self.path, "rb")
        self._f.seek(offset)
        return self._f.read(length)

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def open_source(path_or_file: PathOrFile) -> Source:
    if isinstance(path_or_file, (bytes, bytearray, memoryview)):
        return BytesSource(path_or_file)
    if isinstance(path_or_file, (str, os.PathLike)):
        return PathSource(path_or_file)
    if hasattr(path_or_file, "read") and hasattr(path_or_file, "seek"):
        return FileSource(path_or_file)
    raise TypeError(f"expected a path, a seekable binary file or bytes, not {type(path_or_file).__name__}")
