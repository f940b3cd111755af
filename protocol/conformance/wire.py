"""The conformance tools' side of the wire: a websocket peer, boards, and plain HTTP.

A :class:`Peer` is one connection. It reads frames one at a time, each awaited
with a timeout (nothing here sleeps to wait for a message), and keeps every
frame it read in the :class:`Log` its peers share, so that a run can say at
the end whether every frame was a valid message (:func:`protocol.decode_server`).
A :class:`Racer` is a seat's board as the engine sees it, for choosing legal plays.
:func:`http_get` is the least HTTP/1.1 that asks the same port for a JSON page.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import ssl
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import engine
from protocol import DecodeError, WireBoard, board_from_wire, decode_server

__all__ = [
    "TIMEOUT",
    "Closed",
    "HttpAnswer",
    "Log",
    "Peer",
    "Racer",
    "Unexpected",
    "fresh_name",
    "http_get",
]

TIMEOUT = 5.0
"""How long a peer waits for one message: far longer than any round trip on a LAN."""


class Unexpected(Exception):
    """A message came that the script did not expect, or none came in time."""


class Closed(Exception):
    """The server closed the connection; ``code`` is its close code (None: no close frame)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"the server closed the connection (code {code})")
        self.code = code


def fresh_name(prefix: str = "cf") -> str:
    """A name unlikely to be taken, and a valid one: ``cf`` and ten hex digits."""
    return prefix + secrets.token_hex(5)


@dataclass
class Log:
    """Every frame the peers of one run read, and those that were no valid message."""

    frames: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)

    def add(self, frame: str) -> None:
        self.frames.append(frame)
        try:
            decode_server(frame)
        except DecodeError as exc:
            self.invalid.append(f"{exc}: {frame[:120]}")


class Peer:
    """One websocket connection to the server under test."""

    def __init__(self, ws: ClientConnection, log: Log, name: str) -> None:
        self.ws = ws
        self.log = log
        self.name = name
        self.welcome: dict[str, Any] = {}

    @classmethod
    async def open(cls, url: str, log: Log, name: str | None = None) -> Peer:
        ws = await connect(url, proxy=None, open_timeout=TIMEOUT, max_size=None)
        return cls(ws, log, name or fresh_name())

    async def hello(self, **fields: Any) -> dict[str, Any]:
        """Say hello with this peer's name (and ``fields``); the ``welcome``."""
        await self.send(type="hello", name=self.name, protocol=1, **fields)
        self.welcome = await self.recv("welcome")
        return self.welcome

    async def send(self, **fields: Any) -> None:
        await self.ws.send(json.dumps(fields))

    async def send_raw(self, frame: str) -> None:
        await self.ws.send(frame)

    async def recv(self, *types: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message, which must be of one of ``types`` (any, if none)."""
        try:
            frame = await asyncio.wait_for(self.ws.recv(), timeout)
        except TimeoutError:
            wanted = " or ".join(types) or "message"
            raise Unexpected(f"{self.name}: no {wanted} within {timeout:g} s") from None
        except ConnectionClosed as closed:
            raise Closed(None if closed.rcvd is None else closed.rcvd.code) from None
        if not isinstance(frame, str):
            raise Unexpected(f"{self.name}: a binary frame")
        self.log.add(frame)
        message: dict[str, Any] = json.loads(frame)
        if types and message.get("type") not in types:
            raise Unexpected(f"{self.name}: expected {' or '.join(types)}, got {frame[:200]}")
        return message

    async def until(self, *types: str) -> list[dict[str, Any]]:
        """Every message up to and including the first of one of ``types``."""
        seen = []
        while True:
            message = await self.recv()
            seen.append(message)
            if message["type"] in types:
                return seen

    async def closed(self) -> int | None:
        """Read until the server closes; its close code."""
        try:
            while True:
                await self.recv()
        except Closed as closed:
            return closed.code

    async def close(self) -> None:
        with contextlib.suppress(ConnectionClosed, OSError):
            await self.ws.close()


class Racer:
    """One seat's board, kept by the engine from what the server says of it."""

    def __init__(self, board: dict[str, Any], redeals: int) -> None:
        self.board = board_from_wire(WireBoard.model_validate(board))
        self.redeals = redeals

    def next_play(self) -> str | None:
        """A legal card to play now (the first the engine lists), or None."""
        plays = self.board.legal_plays()
        return str(plays[0]) if plays else None

    def played(self, card: str) -> None:
        self.board.play(engine.Card.parse(card))

    def redealt(self, board: dict[str, Any]) -> None:
        self.board = board_from_wire(WireBoard.model_validate(board))

    @property
    def can_redeal(self) -> bool:
        return self.board.status is engine.Status.STUCK


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


async def http_get(ws_url: str, path: str) -> HttpAnswer:
    """``GET path`` on the host and port of ``ws_url`` (``wss``: over TLS)."""
    url = urlsplit(ws_url)
    secure = url.scheme == "wss"
    host, port = url.hostname or "127.0.0.1", url.port or (443 if secure else 80)
    context = ssl.create_default_context() if secure else None
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(host, port, ssl=context), TIMEOUT
    )
    try:
        request = f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: close\r\n\r\n"
        writer.write(request.encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        length = headers.get("content-length")
        read = reader.readexactly(int(length)) if length is not None else reader.read()
        body = await asyncio.wait_for(read, TIMEOUT)
        return HttpAnswer(int(status_line.split()[1]), headers, body)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
