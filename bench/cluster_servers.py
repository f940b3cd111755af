"""The servers of the multi-worker benchmark (:mod:`bench.cluster`): started, stopped, read.

For each measurement a :class:`Backing` (a fresh PostgreSQL database and a
fresh ``redis-server``, :mod:`bench.services`) and its workers, each the real
``python -m server --redis URL --db postgresql://...`` (:func:`server`), on
127.0.0.1 and free ports, with the limits per address lifted. What the
tables show besides the generator's figures is read from them: every
worker's ``/metrics`` (:func:`scrape`) and the warnings in their logs
(:func:`complaints`).
"""

from __future__ import annotations

import contextlib
import datetime
import http.client
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import services
from .common import free_port
from .run import SERVER_CORE, _stop, _wait_listening

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

__all__ = ["PINNED", "Backing", "Running", "backing", "complaints", "scrape", "server"]

LIMITS = (
    *("--max-connections", "1000000", "--max-connections-per-ip", "1000000"),
    *("--new-players-per-ip", "1000000", "--wrong-codes-per-ip", "1000000"),
)
"""Every benchmark client is 127.0.0.1: the limits per address are lifted (the
per-message rate limit is not: at 1,000 players each sends far below it)."""
PINNED = ("taskset", "-c", SERVER_CORE)


@dataclass(frozen=True, slots=True)
class Backing:
    """What one measurement's workers share: a fresh database and a fresh Redis."""

    db: str
    redis: services.Service
    postgres_pid: int
    scratch: Path
    pinned: bool


@contextlib.contextmanager
def backing(postgres: services.Service, scratch: Path, *, pinned: bool) -> Iterator[Backing]:
    """A fresh database and Redis; with ``pinned``, PostgreSQL and Redis on the server core."""
    cores = {int(SERVER_CORE)} if pinned else set(range(os.cpu_count() or 1))
    _pin_tree(postgres.pid, cores)  # its backends, forked later, inherit it
    with (
        services.fresh_database(postgres.url) as db,
        services.redis(PINNED if pinned else ()) as redis,
    ):
        yield Backing(db, redis, postgres.pid, scratch, pinned)


def _pin_tree(pid: int, cores: set[int]) -> None:
    """Set the CPU affinity of ``pid`` and of every process whose parent it is."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rpartition(")")[2].split()[1])
            if int(entry) == pid or parent == pid:
                os.sched_setaffinity(int(entry), cores)
        except (OSError, ValueError):
            continue  # ended meanwhile


@dataclass(frozen=True, slots=True)
class Running:
    port: int
    pid: int
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


@contextlib.contextmanager
def server(
    back: Backing, name: str, *, workers: int = 1, redis: bool = True, sqlite: bool = False
) -> Iterator[Running]:
    """``python -m server``: a worker, or a supervisor of ``workers``, until SIGTERM;
    with ``sqlite``, on a fresh SQLite file instead of the PostgreSQL database."""
    port = free_port()
    db = str(back.scratch / f"{name}-{port}.sqlite3") if sqlite else back.db
    command = [*(PINNED if back.pinned else ()), sys.executable, "-m", "server"]
    command += ["--port", str(port), "--db", db, "--worker-id", name, *LIMITS]
    command += ["--workers", str(workers), *(["--redis", back.redis.url] if redis else [])]
    path = back.scratch / f"{name}-{port}.log"
    with open(path, "ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
    try:
        _wait_listening(port, process, timeout=30)
        names = {name} if workers == 1 else {f"{name}-{i}" for i in range(1, workers + 1)}
        scrape(port, names)  # every worker of a supervisor serves
        yield Running(port, process.pid, path)
    finally:
        children = _children(process.pid)
        _stop(process)
        for pid in children:  # a supervisor killed after its timeout leaves its workers
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _children(pid: int) -> list[int]:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{pid}/children") as listed:
        return [int(child) for child in listed.read().split()]
    return []


def scrape(port: int, names: set[str], timeout: float = 30) -> dict[str, dict[str, float]]:
    """``/metrics`` of every worker in ``names`` on ``port``, by worker.

    Workers that share a port are reached by asking again: the kernel hands
    each new connection to one of them.
    """
    seen: dict[str, dict[str, float]] = {}
    deadline = time.monotonic() + timeout
    while set(seen) != names:
        if time.monotonic() > deadline:
            raise RuntimeError(f"/metrics on {port}: saw {sorted(seen)}, not {sorted(names)}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/metrics")
            text = connection.getresponse().read().decode()
            connection.close()
            values = _parse(text)
            worker = next(key for key in values if key.startswith("flowergarden_worker_info"))
            seen[worker.split('"')[1]] = values
            continue
        time.sleep(0.05)  # a worker still starting: ask again, until the deadline
    return seen


def complaints(logs: Sequence[Path], until: float) -> dict[str, int]:
    """The servers' WARNING and ERROR lines logged up to ``until`` (epoch seconds), counted."""
    found: dict[str, int] = {}
    for path in logs:
        for line in path.read_text(errors="replace").splitlines():
            day, _, rest = line.partition(" ")
            clock, _, rest = rest.partition(" ")
            level, _, rest = rest.partition(" ")
            if level not in ("WARNING", "ERROR"):
                continue
            with contextlib.suppress(ValueError):
                when = datetime.datetime.strptime(f"{day} {clock}", "%Y-%m-%d %H:%M:%S,%f")
                if when.timestamp() <= until:
                    what = f"{level} {rest.partition(': ')[2][:90]}"
                    found[what] = found.get(what, 0) + 1
    return found


def _parse(text: str) -> dict[str, float]:
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            values[key] = float(value)
    return values
