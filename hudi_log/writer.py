"""Writing blocks to a log file; every byte comes from the grammar's serializer.

This is the plain "put these blocks in this file" helper. ``hudi_log.log_writer.LogWriter`` is the
writer with Hudi's semantics (lazy creation, exclusive create, append-or-roll, rollover), and
``hudi_log.append_handle.AppendHandle`` the one that turns records and deletes into blocks.
"""

from __future__ import annotations

import os
from typing import BinaryIO, Iterable, Union

from .block import LogBlock


def write_blocks(dest: Union[str, os.PathLike, BinaryIO], blocks: Iterable[LogBlock], append: bool = False) -> int:
    """Write ``blocks`` to ``dest`` (a path, or a binary file) and return the bytes written.

    Every block is serialized before the file is touched, so a block the grammar refuses leaves
    ``dest`` as it was. A path is created (or appended to with ``append=True``), flushed and synced.
    """
    data = [block.to_bytes() for block in blocks]
    if isinstance(dest, (str, os.PathLike)):
        with open(dest, "ab" if append else "wb") as f:
            n = sum(f.write(chunk) for chunk in data)
            f.flush()
            os.fsync(f.fileno())
            return n
    return sum(dest.write(chunk) for chunk in data)
