"""The C allocator's settings for processes hudi-log owns: Spark's Python workers and the ``hudi-log`` CLI.

No Hudi class is mirrored here: Java Hudi's executors allocate on the JVM's heap, which keeps what it has
grown to. A Python process reading a file slice allocates through glibc's malloc: each log block's bytes,
the decoder's column buffers, the merged slice. glibc gives memory back to the system as soon as more than
a few megabytes sit free at the top of its heap (its dynamic threshold, twice the largest block freed), and
serves large blocks (from 128 KiB, the bound rising with what was freed) with fresh ``mmap`` calls, so every
slice touches its memory anew: page faults and zeroed pages for gigabytes a read. Read at 10M rows on one
core, that was a third of the read (5.0 s against 3.3 s; docs/benchmarks.md).

:func:`tune_allocator` keeps blocks up to 32 MiB in the heap and up to 64 MiB free at its top, so one slice's
memory is reused by the next. The peak resident size does not grow (it is the slice's working set either
way); a worker keeps at most 64 MiB it no longer uses. The environment variable ``HUDI_LOG_MALLOC=off``
in the process's environment (a Spark worker's: on ``local`` masters the driver's) leaves the allocator as
it was. Where the C library is not glibc, nothing is changed.
"""

from __future__ import annotations

import ctypes
import os

#: mallopt's parameter numbers (glibc's malloc.h) and the values set
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20
#: the environment variable that turns the setting off
ENV = "HUDI_LOG_MALLOC"

_done: bool | None = None


def tune_allocator() -> bool:
    """Set glibc's malloc thresholds once per process; True when they are in force."""
    global _done
    if _done is None:
        _done = _apply()
    return _done


def _apply() -> bool:
    if os.environ.get(ENV, "").strip().lower() in ("off", "0", "false", "no"):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # glibc only: musl's and macOS's mallopt differ or are absent
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
