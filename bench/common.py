"""What the benchmark's processes share: the event loop, file limits, /proc readings,
and the one writer of the benchmarks that drive a core by hand.

Every process of a run (servers and generator) picks its event loop with
:func:`run_loop`, so that a comparison is always between servers on the same
loop. The /proc readers are Linux-only, as is ``taskset``: the benchmark is
meant for a Linux machine. ``bench.core`` and ``bench.arena`` report through
:func:`report_main`: a Markdown table, then, as the last line, one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
from dataclasses import asdict
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar

from server.tuning import tune_gc

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Sequence

    from _typeshed import DataclassInstance

__all__ = [
    "LOOPS",
    "LoopName",
    "cpu_seconds",
    "free_port",
    "markdown_table",
    "raise_open_files",
    "report_main",
    "rss_bytes",
    "run_loop",
    "tree_cpu_seconds",
]

LoopName: TypeAlias = Literal["asyncio", "uvloop"]
LOOPS: tuple[LoopName, ...] = ("asyncio", "uvloop")
_TICKS = os.sysconf("SC_CLK_TCK")
T = TypeVar("T")
R = TypeVar("R", bound="DataclassInstance")


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


def markdown_table(title: str, columns: tuple[str, str], rows: Sequence[tuple[str, str]]) -> str:
    """``title``, a blank line, then a table of two columns, the figures aligned right."""
    lines = [title, "", f"| {columns[0]} | {columns[1]} |", "|---|---:|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    return "\n".join(lines)


def report_main(
    argv: Sequence[str] | None,
    *,
    prog: str,
    description: str,
    quick: str,
    measure: Callable[[bool], R],
    table: Callable[[R], str],
) -> int:
    """A benchmark's command line: ``--quick`` (said by ``quick``), the garbage collector as
    the server sets it, then ``table`` of what ``measure`` found and, as the last line, the
    same as one JSON object."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--quick", action="store_true", help=quick)
    args = parser.parse_args(argv)
    tune_gc()
    results = measure(args.quick)
    print(table(results))
    print()
    print(json.dumps(asdict(results)))
    return 0
