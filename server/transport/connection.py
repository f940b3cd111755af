"""The server's websocket connections, on websockets' documented sans-I/O API.

Every coupling to websockets lives in this module: the glue sees a
:class:`Connection`, the :class:`~server.transport.handler.Handler` callbacks it
implements, the HTTP :class:`Request` it is asked (:mod:`.request`) and the
:class:`Response` it answers with (websockets' own, public, re-exported here).

Theory of operation. A :class:`Connection` is an asyncio protocol that owns
a :class:`websockets.server.ServerProtocol`, as websockets' own asyncio layer
does: bytes from the socket go to ``receive_data``, the events it returns are
handled, and what ``data_to_send`` returns is written.

* Reading. The connection is an :class:`asyncio.BufferedProtocol`: asyncio
  reads the socket into a buffer the connection gives it (``recv_into``), the
  listener's one :data:`READ_SIZE` buffer, shared by every connection because
  each read is handled before the next begins. A plain :class:`asyncio.Protocol`
  gets a new 256 KiB ``bytes`` for every read, shrunk to what came: 14.5 µs a
  read on this project's benchmark machine, against 3.2 µs for ``recv_into``
  and a copy of the bytes that came (``bench/README.md``).

* Incoming. Until the request is whole its bytes go to a
  :class:`~server.transport.request.RequestReader`, which hands a ``GET`` to the
  protocol up to the end of its head and reads any other method itself
  (h11). The request goes to :meth:`~server.transport.handler.Handler.request`,
  which answers it (a :class:`Response`, or a future of one while the socket
  is not read) or lets a ``GET`` upgrade (None). Whatever came after the
  request waits until it is answered: then it is read as frames if the
  websocket opened, and discarded if not. One request is answered per
  connection. Once open, the connection cuts the stream into whole frames
  itself, from their headers (:func:`~server.transport.frames.split_frame`): a
  plain text message, outside a fragmented one, goes straight to
  :meth:`~server.transport.handler.Handler.received`; any other whole frame is
  fed to the protocol alone, so that the protocol always starts at a frame's
  first byte and judges the frame as it would have anyway. The connection
  stops cutting, and feeds every byte to the protocol from then on, at the
  first thing out of the ordinary: a frame over the size limit, or the
  protocol no longer open. Messages reach the handler in the order they
  were sent, whichever way they come.
* Refusals and bugs. A request that cannot be read is answered ``400`` (or
  ``413``, ``431``) with one line in the log, and a bug a client's bytes reach
  is logged once with its traceback: both within the listener's
  :class:`~server.transport.logbudget.LogBudget`, so that no client can fill
  the log.
* Outgoing. Every frame the server writes, the protocol's own pongs and
  close frames included, joins the connection's bounded queue
  (:class:`~server.transport.outbox.Outbox`), written once per pass of the event loop,
  paused while asyncio says the socket's buffer is full; a receiver whose
  queue overflows is cut off. Text frames are framed there
  (:func:`~server.transport.frames.text_header`), and only there: no extension
  is offered, so websockets frames only its own control frames. (The
  permessage-deflate option the benchmark once offered cost throughput and
  doubled memory on frames this small, and was the one path where websockets
  framed the server's text: it is gone.)
* Closing. :meth:`Connection.close` puts the close frame behind what is
  queued. From the moment the protocol expects the TCP connection to end, it
  has :data:`CLOSE_TIMEOUT` seconds to do so before it is aborted, whatever
  the peer does; the opening handshake has ``open_timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, cast

from websockets.frames import Frame, Opcode
from websockets.http11 import Request as Handshake
from websockets.http11 import Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from .exchange import Exchange
from .frames import TOO_BIG, split_frame
from .outbox import Wire
from .request import Request

if TYPE_CHECKING:
    from .handler import Host

__all__ = ["CLOSE_TIMEOUT", "Connection", "Request", "Response"]

log = logging.getLogger("flowergarden.server")

CLOSE_TIMEOUT = 3.0
"""Seconds a closing TCP connection may take before it is aborted: a peer that
does not answer a close frame within it is not coming back."""
READ_SIZE = 256 * 1024
"""Bytes one read may bring: what asyncio reads at most into a new buffer."""
WRITE_LIMIT = 32 * 1024
"""Bytes buffered in the transport before it pauses the queue (websockets' default)."""

_OPEN, _CONNECTING = State.OPEN, State.CONNECTING
_CONT, _TEXT, _BINARY, _PING = Opcode.CONT, Opcode.TEXT, Opcode.BINARY, Opcode.PING


class Connection(Exchange):
    """One TCP connection: its opening handshake, then its websocket."""

    __slots__ = (
        "_binary", "_buffer", "_deadline", "_eof", "_fragments", "_gone", "_handler", "_host",
        "_lost", "_pinged", "_rest", "_split", "_timer", "_waiter", "heard", "ip", "ip_rank",
        "opened", "protocol", "rank", "transport",
    )  # fmt: skip

    def __init__(self, host: Host) -> None:
        options = host.options
        super().__init__(options.queue, host.writer)
        self.protocol = ServerProtocol(max_size=options.max_size)
        self._host, self._handler, self._buffer = host, host.handler, host.read_buffer
        self.transport: asyncio.Transport
        self.ip = "?"
        self.rank = self.ip_rank = 0
        """Open connections in all, and from this one's address, when it was accepted."""
        self.opened = False
        self.heard = False
        """Bytes came since the last keepalive round (:meth:`keepalive`)."""
        self._gone = self._lost = self._eof = self._deadline = self._pinged = False
        self._split = False
        self._rest = b""
        """The start of a frame not yet whole."""
        self._fragments: list[bytes] | None = None
        """The frames of a fragmented message under way."""
        self._binary = False
        self._timer: asyncio.TimerHandle | None = None
        self._waiter: asyncio.Future[None] | None = None

    # -- asyncio.BufferedProtocol ----------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses: no isinstance.
        transport = cast("asyncio.Transport", transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.ip = str(peer[0]) if peer else "?"
        if not self._host.attach(self):
            self._gone = True
            self.drop()
            transport.close()
            return
        transport.set_write_buffer_limits(WRITE_LIMIT, WRITE_LIMIT // 4)
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self._host.options.open_timeout, self.abort)

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._buffer

    def buffer_updated(self, nbytes: int) -> None:
        # The bytes are copied out at once: the next read, any connection's, reuses the buffer.
        try:
            self._received(self._buffer[:nbytes].tobytes())
        except Exception as exc:  # a bug: once in the log, not asyncio's traceback a read
            self._host.log_budget.bug(self.ip, exc)
            self.abort()

    def _received(self, data: bytes) -> None:
        self.heard = True
        if self._split:
            if not self.closing:
                self._split_frames(data)
                return
            self._split = False  # closing: the protocol reads the rest, cut or not
            data, self._rest = self._rest + data, b""
        if self._gone:
            return
        if self._reader is not None:
            self._read_request(data)
        elif not self._waiting:
            self._feed(data)

    def eof_received(self) -> None:
        self._eof = True
        self.protocol.receive_eof()
        self._take_output()
        self.write()
        # Returning None lets asyncio close the transport: a websocket has
        # nothing to say after the peer's end of the stream.

    def connection_lost(self, exc: Exception | None) -> None:
        self._gone = self._lost = True
        self.drop()
        if self._timer is not None:
            self._timer.cancel()
        if not self._eof:  # receive_eof is idempotent only from websockets 14 on
            self._eof = True
            self.protocol.receive_eof()
        self._host.detach(self)
        if self._waiter is not None:
            self._waiter.set_result(None)
        if self.opened:
            self._handler.closed(self)

    def pause_writing(self) -> None:
        self.pause()

    def resume_writing(self) -> None:
        self.resume()

    # -- incoming --------------------------------------------------------------

    def _split_frames(self, data: bytes) -> None:
        if self._rest:
            data, self._rest = self._rest + data, b""
        start, end = 0, len(data)
        max_size, handler = self._host.options.max_size, self._handler
        while start < end:
            stop, text = split_frame(data, start, max_size)
            if stop < 0:
                if stop == TOO_BIG:
                    self._unsplit(data[start:])
                else:
                    self._rest = data[start:]
                return
            if text is not None and self._fragments is None:
                handler.received(self, text)
            else:
                self._feed(data[start:stop])
            start = stop
            # Set when the protocol stops being open, whatever closed it.
            if self.closing:
                self._unsplit(data[start:])
                return

    def _unsplit(self, rest: bytes) -> None:
        """From now on every byte goes to the protocol, ``rest`` first."""
        self._split = False
        if rest and not self._gone:
            self._feed(rest)

    def _feed(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                if self.opened and protocol.state is _OPEN:
                    self._frame(event)
            elif isinstance(event, Handshake):
                method = "HEAD" if self.head_only else "GET"
                self._ask(Request(method, event.path, event.headers), event)
        self._take_output()

    def _frame(self, frame: Frame) -> None:
        # A fragmented message is known from the protocol's own events, which
        # every frame that is not plain passes through: while one is under
        # way, the splitter hands the protocol text frames too.
        opcode = frame.opcode
        if opcode is _TEXT or opcode is _BINARY:
            if frame.fin:
                self._message(opcode is _TEXT, bytes(frame.data))
            else:
                self._fragments, self._binary = [bytes(frame.data)], opcode is _BINARY
        elif opcode is _CONT and self._fragments is not None:
            self._fragments.append(bytes(frame.data))
            if frame.fin:
                data, self._fragments = b"".join(self._fragments), None
                self._message(not self._binary, data)
        elif opcode is _PING:
            self._handler.pinged(self)

    def _message(self, text: bool, data: bytes) -> None:
        if not text:
            self._handler.received(self, data)
            return
        try:
            decoded = data.decode()
        except UnicodeDecodeError as exc:  # RFC 6455, 8.1: fail the connection
            self.protocol.fail(1007, f"{exc.reason} at position {exc.start}")
            return
        self._handler.received(self, decoded)

    def _respond(self, response: Response) -> None:
        protocol = self.protocol
        self._responded = True
        if self.head_only:  # the headers a GET would have, Content-Length included
            response = Response(response.status_code, response.reason_phrase, response.headers)
        protocol.send_response(response)
        self._take_output()  # the response goes before anything the handler sends
        if protocol.state is not _OPEN:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.opened = True
        # websockets read the request alone (request.py): its reader is at a frame's first byte.
        self._split = True
        self._handler.opened(self)

    # -- outgoing --------------------------------------------------------------

    @property
    def outbox(self) -> Connection:
        """The connection itself, which queues frames: ``conn.outbox.push(frame, barrier)``."""
        return self

    def close(self, code: int, reason: str) -> None:
        """Close the websocket with ``code`` once what is queued has been written."""
        if self.closing:
            return
        state = self.protocol.state
        if state is _OPEN:
            self.protocol.send_close(code, reason)
            self._take_output()
        elif state is _CONNECTING:
            self.abort()

    def abort(self) -> None:
        """End the TCP connection now: nothing more is written."""
        if not self._gone:
            self._gone = True
            self.drop()
            self.transport.abort()

    async def wait_closed(self) -> None:
        """Wait until the TCP connection has ended."""
        if not self._lost:
            if self._waiter is None:
                self._waiter = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._waiter)

    @property
    def close_code(self) -> int | None:
        """The code of the close frame received (1006 for none), once the connection ended."""
        return self.protocol.close_code

    def keepalive(self) -> None:
        """One round of keepalive: ping a connection silent since the last round,
        and abort one that has not answered the ping by this one."""
        if not self.opened or self.closing:
            return
        if self.heard:
            self.heard = self._pinged = False
        elif self._pinged:
            log.info("connection from %s did not answer a ping", self.ip)
            self.abort()
        else:
            self._pinged = True
            self.protocol.send_ping(b"")
            self._take_output()

    def _take_output(self) -> None:
        """Queue what the protocol has to send, and keep its state's promises."""
        protocol = self.protocol
        for data in protocol.data_to_send():
            if not self._responded:
                self._responded = True
                if not data and not self._eof:  # websockets gave up on the request unanswered
                    self._refused_unread()
            if not self._gone:
                self.enqueue(Wire(data))
        if protocol.state is not _OPEN and self.opened:
            self.closing = True
        if not self._deadline and protocol.close_expected() and not self._gone:
            self._deadline = True
            if self._timer is not None:
                self._timer.cancel()
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(CLOSE_TIMEOUT, self.abort)

    # -- the outbox's socket ---------------------------------------------------

    def write_bytes(self, data: bytes) -> None:
        self.transport.write(data)

    def write_end(self) -> None:
        transport = self.transport
        if not transport.can_write_eof():  # TLS
            transport.close()
            return
        try:
            transport.write_eof()
        except (OSError, RuntimeError):  # the peer is gone (uvloop raises RuntimeError)
            self.abort()

    def overflowed(self) -> None:
        log.warning("dropping a receiver that does not keep up (%s)", self.ip)
        self.abort()

    def cut_off(self) -> None:
        self.abort()
