"""The HTTP side of a connection: its one request, read, asked and answered.

:class:`Exchange` is what a :class:`~server.transport.connection.Connection` is
before a websocket opens (or instead of one): the connection adds the websocket. Its bytes go to a
:class:`~server.transport.request.RequestReader` until the request is whole:
a ``GET`` is fed to websockets' protocol up to the end of its head, and the
protocol's handshake event comes back here through :meth:`Exchange._ask`;
any other method is read by the reader itself. The handler
(:meth:`~server.transport.handler.Handler.request`) answers it, at once or
with a future; while a future is pending the socket is not read, so that
nothing a client sends meanwhile is read as a websocket's frames or costs
memory. What came after the request is read once it is answered: as frames
if the websocket opened, and discarded if not.

A request that cannot be read is answered ``400`` (``413``, ``431``) with one
line in the log; a bug the request reaches is answered ``500`` and logged
once. Both go through the listener's
:class:`~server.transport.logbudget.LogBudget`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .outbox import Outbox, Wire
from .request import Head, Request, RequestReader, refusal
from .responses import INTERNAL_ERROR, METHOD_NOT_ALLOWED, NOT_ON_HEAD

if TYPE_CHECKING:
    from websockets.http11 import Request as Handshake
    from websockets.http11 import Response
    from websockets.server import ServerProtocol

    from .handler import Handler, Host
    from .outbox import Writer

__all__ = ["Exchange"]


class Exchange(Outbox, asyncio.BufferedProtocol):
    """A connection's request and its answer (module docstring), before any websocket."""

    __slots__ = ("_reader", "_responded", "_waiting", "head_only")

    if TYPE_CHECKING:  # the connection's own, which its HTTP side uses
        protocol: ServerProtocol
        transport: asyncio.Transport
        ip: str
        _host: Host
        _handler: Handler[Any]
        _gone: bool

        def _feed(self, data: bytes) -> None: ...
        def _received(self, data: bytes) -> None: ...
        def _respond(self, response: Response) -> None: ...

    def __init__(self, limit: int, writer: Writer) -> None:
        super().__init__(limit, writer)
        self._reader: RequestReader | None = RequestReader(self._interim)
        """Reads the request until it is whole; None from then on."""
        self._waiting = False
        """An answer is awaited: nothing is read meanwhile."""
        self._responded = False
        """An answer is on its way (the handler's, websockets' own, or a refusal)."""
        self.head_only = False
        """The request is a ``HEAD``: its answer goes without its body."""

    def _read_request(self, data: bytes) -> None:
        """The request's bytes: to websockets for a GET, else to the reader until whole."""
        reader = self._reader
        assert reader is not None
        got = reader.receive(data)
        if got is None:
            return
        if isinstance(got, Head):  # a GET: websockets reads it, and _feed asks the handler
            self.head_only = reader.head_only
            if got.rest is not None:
                self._reader = None
            self._feed(got.data)
            if got.rest and not self._waiting and not self._gone:
                self._received(got.rest)  # early frames if it opened; else discarded
            return
        self._reader = None
        if isinstance(got, Request):
            self._ask(got, None)
        else:
            self._note(got)
            self._respond(got)

    def _ask(self, request: Request, handshake: Handshake | None) -> None:
        """Answer ``request``: the handler's answer, or the websocket's ``101``."""
        try:
            answer = self._handler.request(self, request)
        except Exception as exc:
            self._host.log_budget.bug(self.ip, exc)
            answer = INTERNAL_ERROR
        if isinstance(answer, asyncio.Future):  # a page that waits for the store
            self._waiting = True  # nothing more is read until it is sent
            self.transport.pause_reading()
            answer.add_done_callback(self._answered)
            return
        if answer is None:  # the websocket opens, on a GET only
            if handshake is None:
                answer = METHOD_NOT_ALLOWED
            elif self.head_only:
                answer = NOT_ON_HEAD
            else:
                answer = self.protocol.accept(handshake)
        self._respond(answer)

    def _answered(self, answer: asyncio.Future[Response]) -> None:
        """A page that had to wait is ready: send it, unless the connection is gone."""
        if self._gone or answer.cancelled():
            return
        try:
            response = answer.result()
        except Exception as exc:
            self._host.log_budget.bug(self.ip, exc)
            response = INTERNAL_ERROR
        self._waiting = False
        self._respond(response)
        if not self._gone:
            self.transport.resume_reading()  # to the client's end of the stream, discarding

    def _refused_unread(self) -> None:
        """A GET websockets gave up on without an answer (a body, a bad line): say so first."""
        exc = self.protocol.handshake_exc
        answer = refusal(400, str(exc.__cause__ or exc) if exc is not None else "unreadable")
        self._note(answer)
        self.enqueue(Wire(answer.serialize()))

    def _note(self, refused: Response) -> None:
        reason = refused.body.decode(errors="replace").strip()
        self._host.log_budget.note(self.ip, "refused an HTTP request from %s: %s", self.ip, reason)

    def _interim(self, data: bytes) -> None:
        """An answer before the request is whole (``100 Continue``): it goes first."""
        if not self._gone:
            self.enqueue(Wire(data))
