"""Process-wide settings for a long-running server: the garbage collector and malloc.

Both are applied once, at start-up, by ``flowergarden-server`` (and by the
benchmark's servers, so that the reference echo runs under the same
allocator settings as the race server). Each was decided by a measurement;
``bench/README.md`` has the numbers.
"""

from __future__ import annotations

import ctypes
import gc

__all__ = ["GC_THRESHOLDS", "MMAP_THRESHOLD", "tune_gc", "tune_malloc"]

GC_THRESHOLDS = (50_000, 20, 100)
"""Collect the youngest generation every 50,000 net allocations rather than 700."""

MMAP_THRESHOLD = 1 << 20
"""Allocations under 1 MiB come from malloc's heap, never from a fresh mapping."""

_M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number for the mmap threshold (``malloc.h``)."""


def tune_gc() -> None:
    """Make the cyclic garbage collector cheaper for a long-running server.

    Every play allocates a few short-lived containers, so with the default
    thresholds the collector runs every few plays, and each full collection
    walks every object of every connection. Profiled under load, that was a
    fifth of the server's CPU time. Objects made at start-up (modules, models)
    are frozen out of the collector's walks; nearly all garbage is freed by
    reference counting anyway, and the collector still runs, less often.
    """
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def tune_malloc() -> bool:
    """Keep socket reads on the heap; True if the C library took the setting.

    asyncio reads each socket into a new 256 KiB buffer and shrinks it to
    what arrived. glibc serves an allocation that large with ``mmap`` unless
    its *dynamic* threshold has been raised, which happens only when a large
    mapping is freed whole, and a shrunk buffer never is. So whether every
    read costs an ``mmap``, an ``mremap``, a ``munmap`` and a page fault
    depended on the allocation history of the process, and the same server
    ran at two speeds from one start to the next. A fixed threshold settles
    it. Where there is no glibc ``mallopt`` (macOS; musl ignores it) this
    does nothing and returns False.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
