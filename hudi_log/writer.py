"""Writing blocks to a log file; every byte comes from the grammar's serializer."""

from __future__ import annotations

import os
from typing import BinaryIO, Iterable, Union

from .block import LogBlock


def write_blocks(dest: Union[str, os.PathLike, BinaryIO], blocks: Iterable[LogBlock], append: bool = False) -> int:
    """Write ``blocks`` to ``dest`` (a path, or a binary file) and return the bytes written.

    A path is created (or appended to with ``append=True``), flushed and synced.
    """
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "ab" if append else "wb") as f:
            n = write_blocks(f, blocks)
            f.flush()
            os.fsync(f.fileno())
            return n
    n = 0
    for block in blocks:
        n += dest.write(block.to_bytes())
    return n
