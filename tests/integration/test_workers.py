"""``flowergarden-server --workers 2``: one supervisor, two worker processes on one port.

Real processes on a real Redis and PostgreSQL (``redis_server``, ``postgres_url``
in tests/conftest.py). Which worker answers a connection is the kernel's
choice (``SO_REUSEPORT`` hashes each new connection to one of the sockets),
so the tests connect again and again until they have seen what they wait
for, within a deadline. Everything else is awaited: each line the supervisor
and its workers log, and each process's exit. These tests are about the
processes, not the lobby they share.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import REPO, http_get

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from tests.redis_service import RedisServer

STARTUP = 40.0
"""Seconds for both workers to listen: imports, the schema on a fresh database, Redis."""
STOP = 20.0
"""Seconds the supervisor has to stop: each worker closes in about 4 s at most."""
POLL = 0.02
"""Seconds between two fresh connections while the tests wait for a worker to answer."""
WORKER_INFO = re.compile(r'^flowergarden_worker_info\{worker="([^"]+)"\} 1\.0$', re.MULTILINE)
NAMES = ("fgtest-1", "fgtest-2")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def entry_point() -> list[str]:
    """``flowergarden-server`` beside this interpreter (the installed script), else ``-m``."""
    script = Path(sys.executable).with_name("flowergarden-server")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "server"]


def parent_of(pid: int) -> int:
    """The parent pid of ``pid`` (Linux' /proc), 0 once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@dataclass
class Supervised:
    """A running ``flowergarden-server --workers N`` and everything it and its workers log."""

    process: asyncio.subprocess.Process
    port: int
    log: list[str] = field(default_factory=list)
    line: asyncio.Event = field(default_factory=asyncio.Event)

    async def logged(self, pattern: str, timeout: float, after: int = 0) -> re.Match[str]:
        """The first line from ``after`` on that matches ``pattern``, once it is logged."""
        compiled = re.compile(pattern)
        seen = after
        try:
            async with asyncio.timeout(timeout):
                while True:
                    for line in self.log[seen:]:
                        if match := compiled.search(line):
                            return match
                    seen = len(self.log)
                    self.line.clear()
                    await self.line.wait()
        except TimeoutError:
            tail = "\n".join(self.log[-40:])
            raise AssertionError(f"no line matched {pattern!r} in {timeout} s:\n{tail}") from None

    async def started(self, name: str, timeout: float, after: int = 0) -> int:
        """The pid of worker ``name``, once it has logged that it listens."""
        match = await self.logged(rf"worker {name} started \(pid (\d+)\)", timeout, after)
        await self.logged(rf"\[{name}\]: listening on ws://", timeout, after)
        return int(match[1])

    async def answers(self, want: set[str], timeout: float = STARTUP) -> set[str]:
        """Connect again and again until each of ``want`` has answered ``/metrics``;
        every worker that answered. A connection that fails fails the test."""
        seen: set[str] = set()
        async with asyncio.timeout(timeout):
            while not want <= seen:
                status, body = await http_get(self.port, "/metrics")
                assert status == 200
                seen.update(WORKER_INFO.findall(body.decode()))
                if not want <= seen:
                    await asyncio.sleep(POLL)  # polling, within the deadline
        return seen

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        self.process.send_signal(sig)
        return await asyncio.wait_for(self.process.wait(), STOP)


async def _drain(stream: asyncio.StreamReader, supervised: Supervised) -> None:
    while line := await stream.readline():
        supervised.log.append(line.decode(errors="replace").rstrip())
        supervised.line.set()


@pytest.fixture
async def supervisor(
    redis_server: RedisServer, postgres_url: str
) -> AsyncIterator[Callable[..., Awaitable[Supervised]]]:
    """``await supervisor(*flags)``: ``flowergarden-server --workers 2`` on a free port."""
    running: list[tuple[Supervised, asyncio.Task[None]]] = []

    async def start(*flags: str) -> Supervised:
        port = free_port()
        process = await asyncio.create_subprocess_exec(
            *entry_point(),
            *("--workers", "2", "--worker-id", "fgtest", "--port", str(port)),
            *("--db", postgres_url, "--redis", redis_server.url, *flags),
            cwd=REPO,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        assert process.stderr is not None
        supervised = Supervised(process, port)
        running.append((supervised, asyncio.create_task(_drain(process.stderr, supervised))))
        return supervised

    yield start
    for supervised, drain in running:
        if supervised.process.returncode is None:  # a failed test: leave nothing behind
            with contextlib.suppress(TimeoutError):
                await supervised.stop()
        if supervised.process.returncode is None:
            supervised.process.kill()
            await supervised.process.wait()
        await asyncio.wait_for(drain, 5)


async def test_two_workers_serve_one_port_and_stop_on_sigterm(supervisor) -> None:
    began = time.monotonic()
    cluster = await supervisor()
    pids = [await cluster.started(name, STARTUP) for name in NAMES]
    assert len(set(pids)) == 2
    for pid in pids:
        assert parent_of(pid) == cluster.process.pid
        # A process group of its own: a terminal's Ctrl-C reaches the supervisor alone.
        assert os.getpgid(pid) == pid
    assert await cluster.answers(set(NAMES)) == set(NAMES)
    assert any("starting 2 workers on 127.0.0.1:" in line for line in cluster.log)

    stopping = time.monotonic()
    assert await cluster.stop(signal.SIGTERM) == 0, "\n".join(cluster.log)
    assert time.monotonic() - stopping < STOP
    for name, pid in zip(NAMES, pids, strict=True):
        assert gone(pid)
        assert any(f"[{name}]: closed" in line for line in cluster.log), cluster.log
        assert any(
            f"worker {name} (pid {pid}) exited with status 0" in line for line in cluster.log
        )
    assert "stopped: every worker exited cleanly" in cluster.log[-1]
    assert time.monotonic() - began < 50


async def test_a_killed_worker_is_started_again_while_the_other_serves(supervisor) -> None:
    cluster = await supervisor()
    first, other = [await cluster.started(name, STARTUP) for name in NAMES]
    await cluster.answers(set(NAMES))

    mark = len(cluster.log)
    os.kill(first, signal.SIGKILL)
    died = await cluster.logged(
        rf"worker fgtest-1 \(pid {first}\) was killed by SIGKILL; starting it again in 0\.5 s",
        STOP,
        mark,
    )
    assert died
    # Its socket went with it: every new connection meanwhile reaches the other
    # worker (``answers`` fails on one that fails), until the new fgtest-1
    # listens and the kernel hashes some to it.
    assert "fgtest-1" in await cluster.answers({"fgtest-1"})
    assert await cluster.answers(set(NAMES)) == set(NAMES)
    again = await cluster.started("fgtest-1", STARTUP, mark)
    assert again != first
    assert gone(first)
    assert parent_of(again) == cluster.process.pid
    assert not gone(other), "the other worker served on"

    # SIGINT (a terminal's Ctrl-C) stops everything as SIGTERM does.
    assert await cluster.stop(signal.SIGINT) == 0, "\n".join(cluster.log)
    assert gone(again)
    assert gone(other)
