"""The workers of the fault harness: real ``python -m server`` processes, one port each.

Each :class:`Worker` is the one-process server as the supervisor starts it
(``--workers 1 --worker-id NAME``, server/cluster/workers.py), on a port of
its own, reaching Redis through its own :class:`~bench.chaos_proxy.Proxy`
and PostgreSQL directly. The harness starts, pauses (SIGSTOP), resumes,
kills (SIGKILL) and starts again each one itself, under the same name and
port, as the supervisor would after a crash. Every line a worker logs is
kept with the time it was read (and written to its log file), so that a
test awaits a line instead of sleeping: :meth:`Worker.logged`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .cluster_servers import LIMITS
from .common import free_port

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["LISTENING", "Line", "Worker"]

REPO = Path(__file__).resolve().parents[1]
LISTENING = r"listening on ws://"
"""What a worker logs once it takes players (server/app.py)."""
STARTUP = 60.0
"""Seconds a worker has to listen: imports, the schema, Redis; longer while PostgreSQL is down."""
STOP = 20.0
"""Seconds a worker has to close once asked (its close timeout, then the store's last writes)."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line a worker logged: when it was read (monotonic), and by which of its processes."""

    at: float
    run: int
    text: str


class Worker:
    """One worker, under one name and port for the whole run (see the module docstring)."""

    def __init__(
        self, name: str, *, redis: str, db: str, logs: Path, flags: Sequence[str] = ()
    ) -> None:
        self.name, self.redis, self.db = name, redis, db
        self.port = free_port()
        self.log_path = logs / f"{name}.log"
        self.flags = tuple(flags)
        self.lines: list[Line] = []
        self.runs = 0
        """Processes started under this name so far."""
        self.paused = False
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._heard = asyncio.Event()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int | None:
        process = self._process
        return None if process is None or process.returncode is not None else process.pid

    def command(self) -> list[str]:
        return [
            *(sys.executable, "-m", "server", "--workers", "1", "--worker-id", self.name),
            *("--host", "127.0.0.1", "--port", str(self.port)),
            *("--redis", self.redis, "--db", self.db, *LIMITS, *self.flags),
        ]

    async def start(self) -> None:
        """Start a process under this name; return once it listens."""
        mark = len(self.lines)
        self.runs += 1
        self._process = await asyncio.create_subprocess_exec(
            *self.command(),
            cwd=REPO,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        process = self._process
        assert process.stderr is not None
        self._reader = asyncio.create_task(self._read(process.stderr, self.runs))
        listening = asyncio.ensure_future(self.logged(LISTENING, STARTUP, after=mark))
        exited = asyncio.ensure_future(process.wait())
        await asyncio.wait({listening, exited}, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if not listening.done():
            listening.cancel()
            tail = "\n".join(line.text for line in self.lines[mark:][-30:])
            raise RuntimeError(f"{self.name} exited with {process.returncode} on start:\n{tail}")
        listening.result()  # a timeout raises here

    async def kill(self) -> None:
        """``kill -9``; return once the process is gone."""
        process = self._process
        assert process is not None and process.returncode is None, f"{self.name} is not running"
        process.kill()
        await process.wait()
        self.paused = False
        if self._reader is not None:
            await self._reader  # its last lines, up to the kill

    def pause(self) -> None:
        """SIGSTOP: the process stands still, its sockets open, until :meth:`resume`."""
        assert self.pid is not None
        os.kill(self.pid, signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        assert self.pid is not None
        os.kill(self.pid, signal.SIGCONT)
        self.paused = False

    async def stop(self) -> int | None:
        """SIGTERM (after SIGCONT if paused), SIGKILL past :data:`STOP`; the exit code."""
        process = self._process
        if process is None:
            return None
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                if self.paused:
                    self.resume()
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP)
            except TimeoutError:
                process.kill()
                await process.wait()
        if self._reader is not None:
            await self._reader
        return process.returncode

    async def logged(self, pattern: str, timeout: float, after: int = 0) -> Line:
        """The first line from ``after`` on that matches ``pattern``, once it is logged."""
        compiled = re.compile(pattern)
        seen = after
        try:
            async with asyncio.timeout(timeout):
                while True:
                    for line in self.lines[seen:]:
                        if compiled.search(line.text):
                            return line
                    seen = len(self.lines)
                    self._heard.clear()
                    await self._heard.wait()
        except TimeoutError:
            tail = "\n".join(line.text for line in self.lines[-30:])
            raise RuntimeError(
                f"{self.name} logged no {pattern!r} in {timeout} s:\n{tail}"
            ) from None

    def matching(self, pattern: str, since: float = 0.0) -> list[Line]:
        """Every line logged at or after ``since`` (monotonic) that matches ``pattern``."""
        compiled = re.compile(pattern)
        return [line for line in self.lines if line.at >= since and compiled.search(line.text)]

    async def _read(self, stream: asyncio.StreamReader, run: int) -> None:
        with open(self.log_path, "a", encoding="utf-8") as log:
            while raw := await stream.readline():
                text = raw.decode(errors="replace").rstrip()
                self.lines.append(Line(time.monotonic(), run, text))
                log.write(text + "\n")
                self._heard.set()
            log.write(f"-- process {run} of {self.name} ended\n")
