"""Fixtures for the integration tests: a real server on port 0, real websocket clients.

* ``start_server(**settings)`` runs an in-process :class:`~server.app.GameServer`
  with an SQLite file in ``tmp_path``, or the store ``db`` names (a PostgreSQL
  URL: ``server.store.backends.open_store``); ``server`` is one with default settings.
* ``connect(server)`` opens a :class:`Client`; ``player(server)`` also says hello.
* ``race(server)`` brings two players into a race through the quick-match
  queue (``mirror`` + ``winnable_only`` by default: boards that clear).
* ``cli_server(db)`` runs ``python -m server --port 0`` as a subprocess (``nofile=N``:
  with at most N file descriptors).

Nothing here sleeps to wait for something: every wait is an awaited message
with a timeout, and server-side timers are made short through the settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect as ws_connect

from server.app import GameServer
from server.config import Settings
from server.store.backends import open_store

from .racers import (  # re-exported: the tests import them from here
    RANKS,
    TIMEOUT,
    WINNABLE,
    Client,
    Race,
    apply,
    buried,
    fresh_name,
    legal,
    play_out,
)

__all__ = [
    "RANKS",
    "TIMEOUT",
    "WINNABLE",
    "Client",
    "Race",
    "apply",
    "buried",
    "fresh_name",
    "http_get",
    "legal",
    "lobby_until",
    "play_out",
    "seek_pair",
]  # fmt: skip

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

REPO = Path(__file__).resolve().parents[2]

# -- the in-process server ------------------------------------------------------


@dataclass
class Servers:
    tmp_path: Path
    stack: contextlib.AsyncExitStack
    clients: list[Client] = field(default_factory=list)

    async def start(
        self,
        store: Any = None,
        clock: Any = None,
        limiter: Any = None,
        wall: Any = None,
        **settings: Any,
    ) -> GameServer:
        db = settings.pop("db", str(self.tmp_path / "db.sqlite3"))
        config = Settings(host="127.0.0.1", port=0, db=db, **settings)
        extra: dict[str, Any] = {} if clock is None else {"clock": clock}
        if limiter is not None:
            extra["limiter"] = limiter
        if wall is not None:  # the daily deal's wall clock (server/daily_watch.py)
            extra["wall"] = wall
        server = GameServer(config, store if store is not None else open_store(db), **extra)
        return await self.stack.enter_async_context(server)

    async def connect(
        self, where: GameServer | str, rcvbuf: int | None = None, max_queue: int | None = None
    ) -> Client:
        """A client on a socket of its own (``rcvbuf``: its ``SO_RCVBUF``).

        ``max_queue=None`` by default: a test may leave messages unread, and a
        client that stops reading cannot see the server's close frame when it closes.
        """
        url = where if isinstance(where, str) else where.url
        host, port = urlsplit(url).hostname or "127.0.0.1", urlsplit(url).port or 80
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, port))
        ws = await ws_connect(url, sock=sock, proxy=None, open_timeout=TIMEOUT, max_queue=max_queue)
        client = Client(ws, sock)
        self.clients.append(client)
        return client


@pytest.fixture
async def servers(tmp_path: Path) -> AsyncIterator[Servers]:
    async with contextlib.AsyncExitStack() as stack:
        servers = Servers(tmp_path, stack)
        yield servers
        for client in servers.clients:
            await client.ws.close()


@pytest.fixture
def start_server(servers: Servers) -> Callable[..., Awaitable[GameServer]]:
    """``await start_server(grace=0.3, ...)``: a server with these settings."""
    return servers.start


@pytest.fixture
async def server(servers: Servers) -> GameServer:
    return await servers.start()


@pytest.fixture
def connect(servers: Servers) -> Callable[[GameServer | str], Awaitable[Client]]:
    """``await connect(server)``: a connected client that has not said hello."""
    return servers.connect


@pytest.fixture
def player(servers: Servers) -> Callable[..., Awaitable[Client]]:
    """``await player(server, name=None)``: a client that has been welcomed."""

    async def make(where: GameServer | str, name: str | None = None, **fields: Any) -> Client:
        client = await servers.connect(where)
        await client.hello(name, **fields)
        return client

    return make


@pytest.fixture
def race(player: Callable[..., Awaitable[Client]]) -> Callable[..., Awaitable[Race]]:
    """``await race(server, rules=WINNABLE)``: two new players racing (``a`` sought first)."""

    async def make(where: GameServer | str, rules: dict[str, Any] | None = None) -> Race:
        rules = WINNABLE if rules is None else rules
        a, b = await player(where), await player(where)
        return await seek_pair(a, b, rules)

    return make


async def seek_pair(a: Client, b: Client, rules: dict[str, Any]) -> Race:
    """Both seek with ``rules``; ``a`` is queued first, so takes seat 0."""
    await a.send(type="seek", rules=rules)
    await a.recv("seeking")
    await b.send(type="seek", rules=rules, id="b-seek")
    seeking = await b.recv("seeking")
    assert seeking["id"] == "b-seek"
    start_b = await b.recv("game_start")
    start_a = await a.recv("game_start")
    assert "id" not in start_b
    return Race(a, b, start_a, start_b)


# -- the CLI server ---------------------------------------------------------------


@dataclass
class CliServer:
    process: asyncio.subprocess.Process
    url: str
    log: list[str]
    line: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when a line is added to ``log``."""

    async def logged(self, check: Callable[[], bool], timeout: float = TIMEOUT) -> None:
        """Wait until ``check()`` holds, checking again at every line of the log."""
        async with asyncio.timeout(timeout):
            while not check():
                self.line.clear()
                await self.line.wait()

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send ``sig``; the exit code."""
        self.process.send_signal(sig)
        return await asyncio.wait_for(self.process.wait(), 15)


async def _drain(stream: asyncio.StreamReader, cli: CliServer) -> None:
    """Keep reading the server's log, so that it never blocks on a full pipe."""
    while line := await stream.readline():
        cli.log.append(line.decode(errors="replace").rstrip())
        cli.line.set()


@pytest.fixture
async def cli_server() -> AsyncIterator[Callable[..., Awaitable[CliServer]]]:
    """``await cli_server(db, *flags)``: ``python -m server --port 0 --db DB`` in a subprocess."""
    running: list[tuple[CliServer, asyncio.Task[None]]] = []

    async def start(
        db: Path | str,
        *flags: str,
        env: dict[str, str] | None = None,
        nofile: int | None = None,
        script: str | None = None,
    ) -> CliServer:
        # ``nofile``: the server's RLIMIT_NOFILE, set in the child before the server starts;
        # ``script``: ``python -c script`` instead of ``-m server`` (a test's harness).
        command = ("-m", "server") if nofile is None else ("-c", _WITH_NOFILE % nofile)
        if script is not None:
            command = ("-c", script)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            *command,
            *("--port", "0", "--db", str(db), *flags),
            cwd=REPO,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        assert process.stderr is not None
        log: list[str] = []
        try:
            url = await asyncio.wait_for(_listening(process.stderr, log), 20)
        except BaseException:
            process.kill()
            await process.wait()
            raise
        cli = CliServer(process, url, log)
        drain = asyncio.create_task(_drain(process.stderr, cli))
        running.append((cli, drain))
        return cli

    yield start
    for cli, drain in running:
        if cli.process.returncode is None:
            cli.process.kill()
            await cli.process.wait()
        await asyncio.wait_for(drain, 5)


_WITH_NOFILE = """\
import resource, runpy, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (%d, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
runpy.run_module("server", run_name="__main__", alter_sys=True)
"""
"""``python -c`` this and the flags: ``python -m server`` with fewer file descriptors."""


async def _listening(stream: asyncio.StreamReader, log: list[str]) -> str:
    marker = "listening on "
    while line := (await stream.readline()).decode(errors="replace"):
        log.append(line.rstrip())
        if marker in line:
            return line.split(marker, 1)[1].split()[0]
    raise AssertionError("the server exited before listening:\n" + "\n".join(log))


# -- plain HTTP -------------------------------------------------------------------


async def http_get(port: int, path: str) -> tuple[int, bytes]:
    """``GET path`` on 127.0.0.1:port: the status code and the body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = dict(line.split(": ", 1) for line in lines[1:] if line)
        length = int(headers.get("Content-Length", "0"))
        body = await asyncio.wait_for(reader.readexactly(length), TIMEOUT)
        return status, body
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def lobby_until(
    client: Client, check: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
) -> dict[str, Any]:
    """Ask for lobby snapshots until one passes ``check``.

    For what no message announces (another client's connection going away):
    each round trip awaits the server, nothing sleeps.
    """
    async with asyncio.timeout(timeout):
        while True:
            await client.send(type="lobby")
            snapshot = await client.recv("lobby")
            if check(snapshot):
                return snapshot
