"""What the benchmark's processes share: the event loop, file limits, /proc readings.

Every process of a run (servers and generator) picks its event loop with
:func:`run_loop`, so that a comparison is always between servers on the same
loop. The /proc readers are Linux-only, as is ``taskset``: the benchmark is
meant for a Linux machine.
"""

from __future__ import annotations

import asyncio
import os
import resource
import socket
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar

if TYPE_CHECKING:
    from collections.abc import Coroutine

__all__ = [
    "LOOPS",
    "LoopName",
    "cpu_seconds",
    "free_port",
    "raise_open_files",
    "rss_bytes",
    "run_loop",
    "tree_cpu_seconds",
]

LoopName: TypeAlias = Literal["asyncio", "uvloop"]
LOOPS: tuple[LoopName, ...] = ("asyncio", "uvloop")
_TICKS = os.sysconf("SC_CLK_TCK")
T = TypeVar("T")


def run_loop(main: Coroutine[object, object, T], loop: LoopName) -> T:
    """``asyncio.run(main)`` on the named loop (uvloop comes with the bench extra)."""
    if loop == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


def raise_open_files() -> int:
    """Raise the soft limit on open files to the hard limit; return the new soft limit.

    10,000 connections need 10,000 descriptors in each of the two processes,
    well over the usual soft limit of 1,024.
    """
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid``, all its threads, in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        # The command name may hold spaces: the fields after it start past the last ')'.
        fields = stat.read().rpartition(")")[2].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / _TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of process ``pid`` and of its living descendants (a supervisor's
    workers, PostgreSQL's backends), in seconds; a process gone counts 0."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError):
                continue  # ended meanwhile
            children.setdefault(parent, []).append(int(entry))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            total += cpu_seconds(current)
        except OSError:
            continue
        todo += children.get(current, [])
    return total


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` (``VmRSS``), in bytes."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")
