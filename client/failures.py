"""Why the line to a server failed, in words a person can act on, and whether to try again.

Theory of operation
-------------------
:class:`~client.net.ServerConnection` hands every exception that ends a connection
attempt to :func:`failure`, with whether this client was ever welcomed on
that server. The answer is one line of words and a verdict:

- worth retrying, with backoff: what a server restart, a deploy or a network
  blip looks like (refused, reset, timed out, HTTP 5xx from a proxy), and,
  once the client has been welcomed there, anything at all: the address was
  right, so whatever answers now is passing;
- not worth retrying at the first connection: what a wrong address looks
  like (a bad URL, a host that does not resolve, a path or a port where no
  websocket server answers). Trying forever would only hide the mistake.

A refused connection is retried even at the first connection: the usual
cause is a server not started yet (``make serve`` in the other terminal), and
the words say so while the client waits. :func:`url_problem` catches the
URLs that cannot work before any connection is tried; the command line uses
it too, after :func:`websocket_url` has turned the page's ``http://HOST:PORT``
into its websocket URL, so ``--server http://HOST:PORT/other`` fails at once.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from websockets.exceptions import (
    ConnectionClosed,
    InvalidHandshake,
    InvalidProxy,
    InvalidStatus,
    InvalidURI,
    ProxyError,
)

from protocol.close_codes import STAY_AWAY, CloseCode

from .words import BANNED_LINK

if TYPE_CHECKING:
    from .state import Link

__all__ = [
    "NO_NEW_PLAYERS",
    "URL_HINT",
    "Failure",
    "address",
    "closed",
    "failure",
    "hello_refused",
    "not_protocol",
    "url_problem",
    "websocket_url",
]

URL_HINT = "URLs look like ws://HOST:8765/ws, or the page's http://HOST:8765"
NOT_OURS = f"that is not a Flower Garden server: {URL_HINT}"


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a connection ended; ``retry``: whether trying again may help."""

    words: str
    retry: bool
    link: Link = "failed"
    """The link state to show if the client stops here."""


def websocket_url(url: str) -> str:
    """The race server's websocket URL for ``url``: the address a person sees in the browser,
    ``http(s)://HOST:PORT`` (with or without the ``/``), becomes ``ws(s)://HOST:PORT/ws``,
    where that server's page connects. Anything else is left as it is, for
    :func:`url_problem` to judge."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    schemes = {"http": "ws", "https": "wss"}
    if parts.scheme not in schemes or parts.path not in ("", "/") or parts.query or parts.fragment:
        return url
    return urlunsplit((schemes[parts.scheme], parts.netloc, "/ws", "", ""))


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a race server's address, or None if it may be one."""
    try:
        parts = urlsplit(url)
        port_ok = parts.port != 0  # .port raises ValueError for one that is not a number in range
    except ValueError:
        port_ok = False
    if not port_ok:
        return f"not a valid URL: {url!r} ({URL_HINT})"
    if parts.scheme not in ("ws", "wss"):
        return f"not a websocket URL: {url!r} ({URL_HINT})"
    if not parts.hostname:
        return f"no host in {url!r} ({URL_HINT})"
    return None


def address(url: str) -> str:
    """``HOST:PORT`` of a URL that passed :func:`url_problem`, with the scheme's default port."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    return f"{parts.hostname}:{port}"


def failure(exc: BaseException, url: str, *, welcomed_before: bool) -> Failure:
    """Words and a verdict for ``exc``, raised while connecting to ``url``.

    The order matters: websockets' exceptions before OSError's subclasses,
    TimeoutError (an OSError) before the rest.
    """
    where = address(url) if url_problem(url) is None else url
    if isinstance(exc, InvalidURI | InvalidProxy):
        return Failure(url_problem(url) or f"cannot use {url!r}: {exc}", retry=False)
    if isinstance(exc, InvalidStatus):
        return _status(exc.response.status_code, where, welcomed_before=welcomed_before)
    if isinstance(exc, ProxyError):
        return Failure(f"the proxy would not connect to {where}: {exc}", retry=welcomed_before)
    if isinstance(exc, InvalidHandshake):
        return Failure(f"{where} does not speak websocket: {NOT_OURS}", retry=welcomed_before)
    if isinstance(exc, TimeoutError):
        return Failure(f"{where} did not answer in time", retry=True)
    if isinstance(exc, ConnectionRefusedError):
        return Failure(f"cannot reach {where}: is the server running? (`make serve`)", retry=True)
    if isinstance(exc, socket.gaierror):
        host = urlsplit(url).hostname
        again = welcomed_before or exc.errno == socket.EAI_AGAIN  # a resolver that may recover
        return Failure(f"cannot find the host {host}: check the server URL", retry=again)
    if isinstance(exc, ssl.SSLError):
        return Failure(
            f"no secure connection to {where}: {exc.reason or exc}", retry=welcomed_before
        )
    if isinstance(exc, ConnectionError | EOFError | ConnectionClosed):
        return Failure(f"the connection to {where} was cut", retry=True)
    if isinstance(exc, OSError):
        return Failure(f"cannot reach {where}: {exc.strerror or exc}", retry=True)
    return Failure(f"cannot connect to {where}: {exc}", retry=welcomed_before)


def _status(code: int, where: str, *, welcomed_before: bool) -> Failure:
    if code >= 500:  # the server (or a proxy in front of it) is shutting down or restarting
        return Failure(f"{where} answered HTTP {code}: the server may be restarting", retry=True)
    if code == 429:
        return Failure(f"{where} refuses more connections from this address for now", retry=True)
    return Failure(f"{where} answered HTTP {code}: {NOT_OURS}", retry=welcomed_before)


_CLOSES: dict[int, str] = {
    CloseCode.GOING_AWAY: "the server shut down; it may be restarting",
    CloseCode.POLICY_VIOLATION: "the server closed the connection: too many messages",
    CloseCode.INTERNAL_ERROR: "the server failed while handling a message",
    CloseCode.SERVICE_RESTART: "the server is restarting",
}
_STAYED_AWAY: dict[int, Failure] = {
    CloseCode.REPLACED: Failure(
        "signed in elsewhere: this client stopped", retry=False, link="replaced"
    ),
    CloseCode.BANNED: Failure(BANNED_LINK, retry=False, link="banned"),
}
assert set(_STAYED_AWAY) == STAY_AWAY


def closed(code: int | None, url: str) -> Failure:
    """Why a welcomed connection ended, from its close code (None or 1006: it dropped);
    after a code of :data:`~protocol.close_codes.STAY_AWAY`, the client stops."""
    stop = _STAYED_AWAY.get(code or 0)
    if stop is not None:
        return stop
    words = _CLOSES.get(code or 0, f"the connection to {address(url)} dropped")
    return Failure(words, retry=True)


NO_NEW_PLAYERS = "the server cannot register new players right now; try again in a moment"
"""``unavailable`` answering a new player's ``hello``: the store fails; the name is not taken."""


def hello_refused(code: str, message: str, *, returning: bool) -> Failure:
    """The server answered ``hello`` with ``error`` (other than a refused name or token).

    ``banned`` stops the client, as the close with 4001 that follows it would: the server
    would answer every hello the same.
    """
    if code == "banned":
        return _STAYED_AWAY[CloseCode.BANNED]
    if code == "unavailable":
        return Failure("the server cannot sign you in right now; trying again", retry=returning)
    if code == "unsupported_protocol":
        return Failure(
            f"the server speaks another protocol ({message}): update the client", retry=False
        )
    if code == "rate_limited" and not returning:
        words = "the server turns away new players from this address for now: try again later"
        return Failure(words, retry=False)
    return Failure(f"the server refused this client: {code}: {message}", retry=returning)


def not_protocol(url: str, *, welcomed_before: bool) -> Failure:
    """The websocket answered, but not in the race protocol."""
    return Failure(
        f"{address(url)} does not speak the race protocol: {NOT_OURS}", retry=welcomed_before
    )
