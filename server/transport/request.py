"""A new connection's HTTP request, read up to its end: the websocket's handshake or another.

Theory of operation. The port answers two kinds of request, read by two
parsers. A ``GET`` (or ``HEAD``) may be a websocket's opening handshake, so
websockets' own parser reads it (:class:`~websockets.server.ServerProtocol`):
the upgrade needs the request it parsed. websockets reads nothing else: a
request of any other method (the operator's ``POST /api/admin/...``,
PROTOCOL.md "HTTP") is read here with h11, a sans-I/O HTTP/1.1 parser that
reads bodies, both framings (``Content-Length`` and chunked) and
``Expect: 100-continue``, and refuses what RFC 9112 refuses; a parser of our
own would have to earn the same trust one hostile request at a time.

:class:`RequestReader` is fed a new connection's bytes and says, from the
method on, which way they go:

* A ``GET``: its bytes for websockets (a ``HEAD`` goes as a ``GET``: its answer
  loses its body), up to the blank line that ends its head, and then what came
  after it. That rest is held back from the protocol until the request is
  answered: it is the next request of a client that pipelines, a body the
  ``GET`` should not have, or frames sent before the ``101``; fed to the
  protocol at once it would be read as frames of a websocket not yet open.
* Any other method: a whole :class:`Request` (method, path, headers, and a
  body of at most :data:`MAX_BODY` bytes), or the answer refusing it:
  ``400`` malformed, ``413`` a body too large, ``431`` a head too large.

Either way the server answers one request per connection
(``Connection: close``): a second one is never read.
"""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, NamedTuple

import h11
from websockets.datastructures import Headers

from .responses import text_response

if TYPE_CHECKING:
    from collections.abc import Callable

    from websockets.http11 import Response

__all__ = ["MAX_BODY", "MAX_HEAD", "Head", "Request", "RequestReader", "refusal"]

MAX_BODY = 16 * 1024
"""Largest request body read, in bytes: an admin command is a small JSON object."""
MAX_HEAD = 16 * 1024
"""Largest request line and headers read by h11, in bytes (``431`` past it)."""
_REASON = 100
"""Characters of a parser's reason kept in an answer: they may quote the request."""
_METHOD_END = 9
"""Bytes within which the method's space must come: ``OPTIONS`` and ``DELETE`` fit."""


@dataclass(frozen=True, slots=True)
class Request:
    """One HTTP request, as :meth:`~server.transport.handler.Handler.request` gets it."""

    method: str
    """``GET``, ``HEAD``, ``POST``...: what websockets or h11 read."""
    path: str
    """The request target: the path and its query, as sent."""
    headers: Headers
    body: bytes = b""
    """Empty for a ``GET`` or ``HEAD``: websockets refuses a body there."""


class Head(NamedTuple):
    """Bytes of a ``GET`` for websockets' parser."""

    data: bytes
    """The next bytes of the request's head."""
    rest: bytes | None
    """None while the head goes on; else what came after its blank line, held back."""


class RequestReader:
    """Reads the request that opens a connection, up to its end (module docstring)."""

    __slots__ = ("_body", "_chunks", "_line", "_request", "_send", "_size", "_tail", "head_only")

    def __init__(self, send: Callable[[bytes], object]) -> None:
        self._send = send
        """Where an interim answer goes: ``100 Continue`` to a client that waits for it."""
        self._line: bytes | None = b""
        """The first bytes until the method is known; None from then on."""
        self._tail = b""
        """A ``GET``: the last bytes of its head so far, to find its end across reads."""
        self._body: h11.Connection | None = None
        """Another method: h11, reading it."""
        self._request: h11.Request | None = None
        self._chunks: list[bytes] = []
        self._size = 0
        self.head_only = False
        """The request is a ``HEAD``: its answer goes without its body."""

    def receive(self, data: bytes) -> Head | Request | Response | None:
        """What ``data`` brings: bytes for websockets (a ``GET``), a whole request or
        the answer refusing it (another method), or None until there is more."""
        if self._body is not None:
            return self._read(data)
        if self._line is None:
            return self._head(data)
        line = self._line + data
        space = line.find(b" ", 0, _METHOD_END)
        if space < 0 and len(line) < _METHOD_END:
            self._line = line
            return None
        self._line = None
        method = line[:space]
        if method == b"HEAD":
            self.head_only = True
            return self._head(b"GET" + line[4:])
        if method == b"GET":
            return self._head(line)
        self._body = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        return self._read(line)

    def _head(self, data: bytes) -> Head:
        seen = self._tail + data
        end = seen.find(b"\r\n\r\n")
        if end < 0:
            self._tail = seen[-3:]
            return Head(data, None)
        end += 4 - len(self._tail)
        return Head(data[:end], data[end:])

    def _read(self, data: bytes) -> Request | Response | None:
        body = self._body
        assert body is not None
        try:
            body.receive_data(data)
            while (event := body.next_event()) is not h11.NEED_DATA:
                done = self._event(event)
                if done is not None:
                    return done
        except h11.RemoteProtocolError as exc:
            return refusal(exc.error_status_hint, str(exc))
        if body.they_are_waiting_for_100_continue:
            self._send(
                body.send(
                    h11.InformationalResponse(status_code=100, headers=[], reason=b"Continue")
                )
            )
        return None

    def _event(self, event: object) -> Request | Response | None:
        if isinstance(event, h11.Request):
            self._request = event
            length = next((int(v) for k, v in event.headers if k == b"content-length"), 0)
            return _too_large() if length > MAX_BODY else None
        if isinstance(event, h11.Data):
            self._size += len(event.data)
            self._chunks.append(bytes(event.data))
            return _too_large() if self._size > MAX_BODY else None
        if isinstance(event, h11.EndOfMessage) and self._request is not None:
            request = self._request
            headers = Headers(
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers
            )
            method, target = request.method.decode("ascii"), request.target.decode("ascii")
            return Request(method, target, headers, b"".join(self._chunks))
        return refusal(400, "no request")  # h11 reads nothing else from a client first


def refusal(status: int, reason: str) -> Response:
    """The answer to a request that cannot be read: ``status`` and why (its start)."""
    code = HTTPStatus(status)
    return text_response(code, f"{code.phrase}: {reason[:_REASON]}\n")


def _too_large() -> Response:
    return refusal(413, f"a request body is at most {MAX_BODY} bytes")
