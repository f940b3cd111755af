"""The HTTP responses the port answers with, besides the websocket's handshake.

websockets' own :class:`~websockets.http11.Response`, made whole here: a body
with its type and length, and ``Connection: close``, since the server answers
one request per connection. JSON answers carry the CORS header that lets any
page read the public API.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import TYPE_CHECKING

from websockets.datastructures import Headers
from websockets.http11 import Response

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "CORS",
    "INTERNAL_ERROR",
    "METHOD_NOT_ALLOWED",
    "NOT_ON_HEAD",
    "http_response",
    "json_bytes_response",
    "json_response",
    "text_response",
]


def http_response(
    status: HTTPStatus, body: bytes, content_type: str, headers: Iterable[tuple[str, str]] = ()
) -> Response:
    """A whole HTTP response, after which the server closes the connection."""
    fields = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
        *headers,
    ]
    return Response(status.value, status.phrase, Headers(fields), body)


def text_response(status: HTTPStatus, text: str) -> Response:
    return http_response(status, text.encode(), "text/plain; charset=utf-8")


def json_response(status: HTTPStatus, body: object) -> Response:
    return json_bytes_response(status, (json.dumps(body) + "\n").encode())


def json_bytes_response(status: HTTPStatus, data: bytes) -> Response:
    """JSON already encoded (a model's dump), with the CORS header."""
    return http_response(status, data, "application/json", [CORS])


CORS = ("Access-Control-Allow-Origin", "*")
"""The header that lets any page read the public API."""


METHOD_NOT_ALLOWED = http_response(
    HTTPStatus.METHOD_NOT_ALLOWED,
    b"Only GET and HEAD\n",
    "text/plain; charset=utf-8",
    [("Allow", "GET, HEAD")],
)
"""The answer to a request whose method is not ``GET`` or ``HEAD``."""
NOT_ON_HEAD = http_response(
    HTTPStatus.METHOD_NOT_ALLOWED,
    b"A websocket opens on GET\n",
    "text/plain; charset=utf-8",
    [("Allow", "GET")],
)
"""The answer to a ``HEAD`` of the websocket's path."""
INTERNAL_ERROR = text_response(HTTPStatus.INTERNAL_SERVER_ERROR, "Internal error\n")
"""The answer to a request whose answer met a bug (the API answers its own, in JSON)."""
