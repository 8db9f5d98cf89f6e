"""hudi_log.memory: the allocator setting of the processes hudi-log owns (Spark's Python workers, the CLI).

Each check runs in a Python process of its own, as the setting is once per process. glibc's ``mallinfo2``
shows whether an 8 MiB block came from a fresh ``mmap`` (the default, and the page faults the setting
saves) or from the heap.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                                reason="the setting is glibc's; elsewhere tune_allocator changes nothing")

PROBE = """
import ctypes, sys
from hudi_log.memory import tune_allocator
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype, libc.malloc.restype, libc.free.argtypes = Info, ctypes.c_void_p, (ctypes.c_void_p,)
tuned = tune_allocator() if sys.argv[1] == "tune" else None
before = libc.mallinfo2().hblkhd
p = libc.malloc(8 << 20)
mapped = libc.mallinfo2().hblkhd - before >= 8 << 20
libc.free(p)
print(tuned, mapped, tune_allocator() == tuned if tuned is not None else "")
"""


def _probe(mode: str, **env) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True,
                         env={**os.environ, **env})
    return out.stdout.split()


def test_an_untuned_process_maps_a_large_block_afresh():
    assert _probe("plain") == ["None", "True"]


def test_tuned_blocks_up_to_32_mib_come_from_the_heap_and_the_setting_is_once():
    assert _probe("tune") == ["True", "False", "True"]


def test_the_environment_turns_it_off():
    assert _probe("tune", HUDI_LOG_MALLOC="off") == ["False", "True", "True"]
