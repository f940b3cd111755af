"""The websocket worker: connect, say hello, read frames, reconnect when the line drops.

:meth:`Connection.run` is the body of the app's one network worker. It turns
every frame into a Textual message posted to the app (:class:`ServerEvent`),
and reports the state of the line (:class:`LinkChanged`). The app sends with
:meth:`Connection.send`, which never blocks: frames go through a queue that
belongs to the current connection, so a play typed while the line is down is
refused at once rather than sent, late, after a reconnect.

Reconnecting: after a drop the worker waits ``backoff(attempt)`` (exponential
from 0.5 s, capped at 15 s, half of it random so that a server restart is not
met by every client at the same instant), then says ``hello`` with the stored
token, which resumes the race: the server answers with ``game_state``. A
welcome resets the attempts. Close code 4000 (this player connected again
elsewhere) ends the worker: reconnecting would take the player back from
the newer connection, which would do the same, forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from typing import TYPE_CHECKING

from textual.message import Message
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol import PROTOCOL_VERSION, DecodeError, Error, Hello, Welcome, decode_server, encode

from .tokens import Identity, TokenStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import ClientMessage, ServerMessage

    from .state import Link

__all__ = ["Connection", "LinkChanged", "NameRefused", "ServerEvent", "backoff"]

log = logging.getLogger("flowergarden.client")

REPLACED = 4000


class ServerEvent(Message):
    """A message from the server (or from practice, which speaks the same language)."""

    def __init__(self, message: ServerMessage) -> None:
        super().__init__()
        self.message = message


class LinkChanged(Message):
    """The line is connecting, online, waiting ``delay`` seconds to reconnect, or gone."""

    def __init__(self, link: Link, attempt: int = 0, delay: float | None = None) -> None:
        super().__init__()
        self.link: Link = link
        self.attempt = attempt
        self.delay = delay


class NameRefused(Message):
    """The server refused the name for a new player (``bad_name`` or ``name_taken``)."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


def backoff(attempt: int, rng: random.Random, base: float = 0.5, cap: float = 15.0) -> float:
    """Seconds to wait before reconnection attempt ``attempt`` (1, 2, ...)."""
    step: float = min(cap, base * 2.0 ** (attempt - 1))
    return step / 2 + rng.uniform(0, step / 2)


class Connection:
    """One player's line to one server; see the module's docstring."""

    def __init__(
        self,
        url: str,
        name: str | None,
        tokens: TokenStore,
        post: Callable[[Message], object],
        *,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        self.name = name
        self.tokens = tokens
        self._post = post
        self._rng = rng or random.Random()
        self._ws: ClientConnection | None = None
        self._queue: asyncio.Queue[str] | None = None
        self._now = False
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def websocket(self) -> ClientConnection | None:
        """The open connection, once welcomed."""
        return self._ws

    def send(self, message: ClientMessage) -> bool:
        """Queue ``message`` on the open connection; False if there is none."""
        if self._queue is None:
            return False
        self._queue.put_nowait(encode(message))
        return True

    def resync(self) -> None:
        """Reconnect at once: the ``game_state`` that answers ``hello`` resumes the race."""
        self._now = True
        if self._ws is not None:
            task = asyncio.create_task(self._ws.close())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def run(self) -> None:
        """Connect and reconnect until the app stops, or reconnecting cannot help."""
        attempt = 0
        self._post(LinkChanged("connecting"))
        while True:
            welcomed = await self._session()
            if welcomed is None:
                return
            attempt = 0 if welcomed else attempt
            if self._now:
                delay, self._now = 0.0, False
            else:
                attempt += 1
                delay = backoff(attempt, self._rng)
            self._post(LinkChanged("reconnecting", attempt, delay))
            await asyncio.sleep(delay)

    async def _session(self) -> bool | None:
        """One connection: True if it was welcomed, False if not, None to stop for good."""
        welcomed = False
        try:
            async with connect(self.url, open_timeout=10, close_timeout=2) as ws:
                welcomed = await self._hello(ws)
                if not welcomed:
                    return None
                with contextlib.suppress(ConnectionClosed):
                    await self._serve(ws)
                if ws.close_code == REPLACED:
                    self._post(LinkChanged("replaced"))
                    return None
        except InvalidURI:
            self._post(LinkChanged("failed"))
            return None
        except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed) as exc:
            log.info("connection to %s: %s", self.url, exc)
        return welcomed

    async def _serve(self, ws: ClientConnection) -> None:
        queue: asyncio.Queue[str] = asyncio.Queue()
        sender = asyncio.create_task(self._send_all(ws, queue))
        self._ws, self._queue = ws, queue
        self._post(LinkChanged("online"))
        try:
            async for frame in ws:
                self._receive(frame)
        finally:
            self._ws = self._queue = None
            sender.cancel()

    async def _send_all(self, ws: ClientConnection, queue: asyncio.Queue[str]) -> None:
        while True:
            frame = await queue.get()
            try:
                await ws.send(frame)
            except ConnectionClosed:
                return  # the reader sees the close and reconnects

    def _receive(self, frame: str | bytes) -> None:
        try:
            message = decode_server(frame if isinstance(frame, str) else frame.decode())
        except (DecodeError, UnicodeDecodeError) as exc:
            log.warning("ignoring a frame that is not protocol: %s", exc)
            return
        self._post(ServerEvent(message))

    async def _hello(self, ws: ClientConnection) -> bool:
        """Say hello, with the stored token if there is one; True once welcomed."""
        stored = self.tokens.get(self.url, self.name)
        while True:
            name = stored.name if stored else (self.name or "")
            token = stored.token if stored else None
            await ws.send(encode(Hello(name=name, token=token, protocol=PROTOCOL_VERSION)))
            reply = decode_server(await ws.recv())
            if isinstance(reply, Welcome):
                self.name = reply.name
                self.tokens.put(self.url, Identity(reply.name, reply.token))
                self._post(ServerEvent(reply))
                return True
            if not isinstance(reply, Error):
                continue
            if reply.code == "bad_token" and stored is not None:
                self.tokens.forget(self.url, stored.name)  # the server forgot us: start afresh
                stored = None
                continue
            if reply.code in ("bad_name", "name_taken"):
                self._post(NameRefused(reply.message))
            else:
                self._post(LinkChanged("failed"))
            return False
