"""The supervisor (server/cluster/workers.py) over stand-in workers: restarts, stops, a hung worker.

Each stand-in is a real process, a few lines of Python that behave as a
worker may: exit at once with an error, stop on SIGTERM, ignore it, or die of
it while starting. A stand-in that runs says so by connecting to the test
and sending its pid, and the supervisor's log lines are awaited as they are
emitted, so nothing here sleeps to wait for anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

import pytest

from server.cluster.workers import Supervisor
from server.config import Settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

TIMEOUT = 10.0

STAND_IN = """\
import os, signal, socket, sys
mode, port = sys.argv[1], int(sys.argv[2])
if mode == "fails":
    sys.exit(3)
if mode == "stops":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
if mode == "hangs":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
# "starting": SIGTERM keeps its default action, as before a worker sets its handler.
socket.create_connection(("127.0.0.1", port)).sendall(b"%d\\n" % os.getpid())
while True:
    signal.pause()
"""


class Lines(logging.Handler):
    """The supervisor's log messages, awaitable as they come."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.line = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        self.line.set()

    async def logged(self, text: str) -> None:
        async with asyncio.timeout(TIMEOUT):
            while not any(text in line for line in self.lines):
                self.line.clear()
                await self.line.wait()


class StandIns:
    """Stand-in workers: ``modes[name]`` is what each next start of ``name`` does."""

    def __init__(self, modes: dict[str, list[str]]) -> None:
        self.modes = modes
        self.starts: list[str] = []
        self.ready: asyncio.Queue[int] = asyncio.Queue()
        self.port = 0

    def command(self, name: str) -> list[str]:
        self.starts.append(name)
        mode = self.modes[name].pop(0)
        return [sys.executable, "-c", STAND_IN, mode, str(self.port)]

    async def running(self) -> int:
        """The pid of the next stand-in that runs."""
        return await asyncio.wait_for(self.ready.get(), TIMEOUT)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.ready.put_nowait(int(await reader.readline()))
        writer.close()


@pytest.fixture
def lines() -> Iterator[Lines]:
    logger = logging.getLogger("flowergarden.workers")
    handler, level = Lines(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


@contextlib.asynccontextmanager
async def supervising(
    modes: dict[str, list[str]], stop_timeout: float = 10.0
) -> AsyncIterator[tuple[Supervisor, StandIns, asyncio.Task[int]]]:
    stand_ins = StandIns(modes)
    server = await asyncio.start_server(stand_ins._connected, "127.0.0.1", 0)
    stand_ins.port = server.sockets[0].getsockname()[1]
    settings = Settings(workers=len(modes))
    supervisor = Supervisor(
        settings, names=list(modes), command=stand_ins.command, stop_timeout=stop_timeout
    )
    run = asyncio.create_task(supervisor.run())
    try:
        yield supervisor, stand_ins, run
    finally:
        if not run.done():
            supervisor.stop()
        await asyncio.wait_for(run, TIMEOUT + stop_timeout)
        server.close()
        await server.wait_closed()


async def test_a_worker_that_fails_is_started_again_and_sigterm_stops_it(lines) -> None:
    async with supervising({"w": ["fails", "stops"]}) as (_, stand_ins, run):
        pid = await stand_ins.running()
        await lines.logged("worker w (pid ")
        assert any("exited with status 3; starting it again in 0.5 s" in x for x in lines.lines)
        os.kill(os.getpid(), signal.SIGTERM)  # to the supervisor: here, this process
        assert await asyncio.wait_for(run, TIMEOUT) == 0
    assert stand_ins.starts == ["w", "w"]
    assert f"worker w (pid {pid}) exited with status 0" in lines.lines
    assert "SIGTERM: stopping every worker" in lines.lines


async def test_sigint_is_passed_on_as_sigterm(lines) -> None:
    async with supervising({"a": ["stops"], "b": ["stops"]}) as (_, stand_ins, run):
        pids = {await stand_ins.running(), await stand_ins.running()}
        os.kill(os.getpid(), signal.SIGINT)
        assert await asyncio.wait_for(run, TIMEOUT) == 0
    for pid in pids:
        assert any(f"(pid {pid}) exited with status 0" in line for line in lines.lines)
    assert "SIGINT: stopping every worker" in lines.lines


async def test_a_stop_during_the_backoff_starts_nothing_again(lines) -> None:
    async with supervising({"w": ["fails", "stops"]}) as (supervisor, stand_ins, run):
        await lines.logged("starting it again in 0.5 s")
        supervisor.stop()
        # The worker's last run failed, and it was not running when asked to stop.
        assert await asyncio.wait_for(run, TIMEOUT) == 1
    assert stand_ins.starts == ["w"]
    assert "worker w is not started again: stopping" in lines.lines


async def test_a_worker_that_ignores_the_stop_is_killed_after_the_timeout(lines) -> None:
    modes = {"hung": ["hangs"], "fine": ["stops"]}
    async with supervising(modes, stop_timeout=0.5) as (supervisor, stand_ins, run):
        await stand_ins.running()
        await stand_ins.running()
        supervisor.stop()
        assert await asyncio.wait_for(run, TIMEOUT) == 1
    assert any("worker hung (pid" in x and "did not stop in time" in x for x in lines.lines)
    assert any("worker hung (pid" in x and "killed by SIGKILL" in x for x in lines.lines)
    assert "stopped; workers that did not exit cleanly: hung" in lines.lines


async def test_a_worker_the_stop_ends_while_it_starts_has_stopped_as_asked(lines) -> None:
    async with supervising({"w": ["starting"]}) as (supervisor, stand_ins, run):
        pid = await stand_ins.running()
        supervisor.stop()
        assert await asyncio.wait_for(run, TIMEOUT) == 0
    assert f"worker w (pid {pid}) exited with status 0" in lines.lines
