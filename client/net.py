"""The websocket worker: connect, say hello, read frames, reconnect when the line drops.

:meth:`ServerConnection.run` is the body of the app's one network worker. It turns
every frame into a Textual message posted to the app (:class:`ServerEvent`),
and reports the state of the line (:class:`LinkChanged`). The app sends with
:meth:`ServerConnection.send`, which never blocks: frames go through a queue that
belongs to the current connection, so a play typed while the line is down is
refused at once rather than sent, late, after a reconnect.

Reconnecting: after a drop the worker waits as :data:`core.backoff.CLIENT`
says (exponential from 0.5 s, capped at 15 s, half of it random so that a
server restart is not met by every client at the same instant), then says
``hello`` with the stored token, which resumes the race: the server answers
with ``game_state``. A welcome resets the attempts. A close code of
:data:`~protocol.close_codes.STAY_AWAY` ends the worker: after ``REPLACED``
(this player connected again elsewhere) reconnecting would take the player
back from the newer connection, which would do the same, forever; after
``BANNED`` the server would only refuse it.

Failing: every way a connection ends is put in words by :mod:`client.failures`,
which also decides whether trying again can help; the words go to the app in
:class:`LinkChanged`, as the reason beside "connecting" or "reconnecting", or
as the reason the client stopped ("failed"). A name the server refuses for a
new player is :class:`NameRefused` instead, and the app asks for another.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from typing import TYPE_CHECKING

from textual.message import Message
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from core.backoff import CLIENT
from lang import t
from protocol import PROTOCOL_VERSION, DecodeError, Error, Hello, Welcome, decode_server, encode

from .failures import (
    Failure,
    closed,
    failure,
    hello_refused,
    no_new_players,
    not_protocol,
    url_problem,
)
from .tokens import KeptIdentity, TokenStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from protocol import ClientMessage, ServerMessage

    from .state import Link

__all__ = ["LinkChanged", "NameRefused", "ServerConnection", "ServerEvent"]

log = logging.getLogger("flowergarden.client")

OPEN_TIMEOUT = 10.0
"""Seconds for the TCP connection and the websocket handshake, and again for hello's answer."""


class ServerEvent(Message):
    """A message from the server (or from practice, which speaks the same language)."""

    def __init__(self, message: ServerMessage) -> None:
        super().__init__()
        self.message = message


class LinkChanged(Message):
    """The line is connecting, online, waiting ``delay`` seconds to reconnect, or gone.

    ``reason``: why the last attempt ended, or why the client gave up, in words.
    """

    def __init__(
        self, link: Link, attempt: int = 0, delay: float | None = None, reason: str = ""
    ) -> None:
        super().__init__()
        self.link: Link = link
        self.attempt = attempt
        self.delay = delay
        self.reason = reason


class NameRefused(Message):
    """The server did not make a new player of this name (``bad_name``, ``name_taken``, or
    ``unavailable``); ``name`` is offered again, to send as it is or to mend."""

    def __init__(self, reason: str, name: str = "") -> None:
        super().__init__()
        self.reason = reason
        self.name = name


class _Refused(Exception):
    """``hello`` was not welcomed: why, or None when the app has been told already."""

    def __init__(self, failure: Failure | None) -> None:
        super().__init__(failure)
        self.failure = failure


class ServerConnection:
    """One player's line to one server; see the module's docstring."""

    def __init__(
        self,
        url: str,
        name: str | None,
        tokens: TokenStore,
        post: Callable[[Message], object],
        *,
        rng: random.Random | None = None,
        open_timeout: float | None = None,
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
        self._open_timeout = OPEN_TIMEOUT if open_timeout is None else open_timeout
        self._welcomed = False
        """Whether the current connection was welcomed."""
        self._welcomed_before = False
        """Whether any connection was: then the address is right, and every failure passes."""

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
        problem = url_problem(self.url)
        if problem is not None:
            self._post(LinkChanged("failed", reason=problem))
            return
        attempt = 0
        self._post(LinkChanged("connecting"))
        while True:
            self._welcomed = False
            ended = await self._session()
            if ended is None:
                return
            if not ended.retry:
                self._post(LinkChanged(ended.link, reason=ended.words))
                return
            attempt = 0 if self._welcomed else attempt
            reason = ended.words
            if self._now:  # our own close, to catch up: nothing went wrong
                delay, self._now, reason = 0.0, False, ""
            else:
                attempt += 1
                delay = CLIENT.after(attempt, self._rng)
            link: Link = "reconnecting" if self._welcomed_before else "connecting"
            self._post(LinkChanged(link, attempt, delay, reason))
            await asyncio.sleep(delay)

    async def _session(self) -> Failure | None:
        """One connection: why it ended, or None to stop with nothing more to say."""
        try:
            async with connect(self.url, open_timeout=self._open_timeout, close_timeout=2) as ws:
                await self._hello(ws)
                with contextlib.suppress(ConnectionClosed):
                    await self._serve(ws)
                return closed(ws.close_code, self.url)
        except _Refused as refused:
            return refused.failure
        except (OSError, EOFError, WebSocketException) as exc:
            log.info("connection to %s: %r", self.url, exc)
            return failure(exc, self.url, welcomed_before=self._welcomed_before)

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

    async def _hello(self, ws: ClientConnection) -> None:
        """Say hello, with the stored token if there is one; raise :class:`_Refused` unless
        welcomed."""
        stored = self.tokens.get(self.url, self.name)
        while True:
            name = stored.name if stored else (self.name or "")
            token = stored.token if stored else None
            await ws.send(encode(Hello(name=name, token=token, protocol=PROTOCOL_VERSION)))
            reply = await self._answer(ws)
            if isinstance(reply, Welcome):
                self.name = reply.name
                self.tokens.put(self.url, KeptIdentity(reply.name, reply.token))
                self._welcomed = self._welcomed_before = True
                self._post(ServerEvent(reply))
                return
            if reply.code == "bad_token" and stored is not None:
                self.tokens.forget(self.url, stored.name)  # the server forgot us: start afresh
                stored = None
                continue
            if stored is None and reply.code in ("bad_name", "name_taken", "unavailable"):
                self._post(LinkChanged("offline"))  # nobody is connected while a name is asked
                self._post(NameRefused(_name_refused(reply), name))  # the name kept, to mend
                raise _Refused(None)
            returning = stored is not None
            raise _Refused(hello_refused(reply.code, reply.message, returning=returning))

    async def _answer(self, ws: ClientConnection) -> Welcome | Error:
        """The server's answer to ``hello``; a peer that does not answer in time is
        TimeoutError, one that does not speak the protocol is :class:`_Refused`."""
        async with asyncio.timeout(self._open_timeout):
            while True:
                frame = await ws.recv()
                try:
                    reply = decode_server(frame if isinstance(frame, str) else frame.decode())
                except (DecodeError, UnicodeDecodeError):
                    welcomed = self._welcomed_before
                    raise _Refused(not_protocol(self.url, welcomed_before=welcomed)) from None
                if isinstance(reply, Welcome | Error):
                    return reply


def _name_refused(reply: Error) -> str:
    """Why a new player's name was refused, by code: taken (in any case), not the name's
    fault (``unavailable``), or off the rule (``bad_name``: the rule in the server's words,
    which are the client's too: ``protocol.NAME_RULE``)."""
    if reply.code == "name_taken":
        return t("tui.name.taken")
    if reply.code == "unavailable":
        return no_new_players()
    return t("error.bad_name")
