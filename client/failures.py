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

from lang import t
from protocol import ERROR_CODES
from protocol.close_codes import STAY_AWAY, CloseCode

if TYPE_CHECKING:
    from .state import Link

__all__ = [
    "Failure",
    "address",
    "closed",
    "failure",
    "hello_refused",
    "no_new_players",
    "not_ours",
    "not_protocol",
    "url_hint",
    "url_problem",
    "websocket_url",
]


def url_hint() -> str:
    """What a server's address looks like, said after a wrong one."""
    return t("tui.fail.url_hint")


def not_ours() -> str:
    """An answer that is no race server's."""
    return t("tui.fail.not_ours", hint=url_hint())


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
        return t("tui.fail.bad_url", url=repr(url), hint=url_hint())
    if parts.scheme not in ("ws", "wss"):
        return t("tui.fail.not_websocket_url", url=repr(url), hint=url_hint())
    if not parts.hostname:
        return t("tui.fail.no_host", url=repr(url), hint=url_hint())
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
        return Failure(
            url_problem(url) or t("tui.fail.cannot_use", url=repr(url), why=str(exc)), retry=False
        )
    if isinstance(exc, InvalidStatus):
        return _status(exc.response.status_code, where, welcomed_before=welcomed_before)
    if isinstance(exc, ProxyError):
        words = t("tui.fail.proxy", where=where, why=str(exc))
        return Failure(words, retry=welcomed_before)
    if isinstance(exc, InvalidHandshake):
        words = t("tui.fail.no_websocket", where=where, not_ours=not_ours())
        return Failure(words, retry=welcomed_before)
    if isinstance(exc, TimeoutError):
        return Failure(t("tui.fail.timeout", where=where), retry=True)
    if isinstance(exc, ConnectionRefusedError):
        return Failure(t("tui.fail.refused", where=where), retry=True)
    if isinstance(exc, socket.gaierror):
        host = urlsplit(url).hostname
        again = welcomed_before or exc.errno == socket.EAI_AGAIN  # a resolver that may recover
        return Failure(t("tui.fail.no_such_host", host=str(host)), retry=again)
    if isinstance(exc, ssl.SSLError):
        words = t("tui.fail.tls", where=where, why=str(exc.reason or exc))
        return Failure(words, retry=welcomed_before)
    if isinstance(exc, ConnectionError | EOFError | ConnectionClosed):
        return Failure(t("tui.fail.cut", where=where), retry=True)
    if isinstance(exc, OSError):
        return Failure(
            t("tui.fail.unreachable", where=where, why=str(exc.strerror or exc)), retry=True
        )
    return Failure(t("tui.fail.other", where=where, why=str(exc)), retry=welcomed_before)


def _status(code: int, where: str, *, welcomed_before: bool) -> Failure:
    if code >= 500:  # the server (or a proxy in front of it) is shutting down or restarting
        return Failure(t("tui.fail.http_restarting", where=where, code=str(code)), retry=True)
    if code == 429:
        return Failure(t("tui.fail.http_busy", where=where), retry=True)
    words = t("tui.fail.http_other", where=where, code=str(code), not_ours=not_ours())
    return Failure(words, retry=welcomed_before)


_CLOSES: dict[int, str] = {
    CloseCode.GOING_AWAY: "tui.close.going_away",
    CloseCode.POLICY_VIOLATION: "tui.close.policy",
    CloseCode.INTERNAL_ERROR: "tui.close.internal",
    CloseCode.SERVICE_RESTART: "tui.close.restart",
}
"""The closes worth a word of their own, by the catalogue's key; the rest "dropped"."""
_STAYED_AWAY: dict[int, Link] = {CloseCode.REPLACED: "replaced", CloseCode.BANNED: "banned"}
"""The closes after which the client stops: the link state it shows (``close.<state>``)."""
assert set(_STAYED_AWAY) == STAY_AWAY


def closed(code: int | None, url: str) -> Failure:
    """Why a welcomed connection ended, from its close code (None or 1006: it dropped);
    after a code of :data:`~protocol.close_codes.STAY_AWAY`, the client stops."""
    stop = _STAYED_AWAY.get(code or 0)
    if stop is not None:
        return Failure(t(f"tui.close.{stop}"), retry=False, link=stop)
    key = _CLOSES.get(code or 0)
    return Failure(t(key) if key else t("tui.close.dropped", where=address(url)), retry=True)


def no_new_players() -> str:
    """``unavailable`` answering a new player's ``hello``: the store fails; the name is not
    taken."""
    return t("tui.fail.no_new_players")


def hello_refused(code: str, message: str, *, returning: bool) -> Failure:
    """The server answered ``hello`` with ``error`` (other than a refused name or token).

    ``banned`` stops the client, as the close with 4001 that follows it would: the server
    would answer every hello the same.
    """
    if code == "banned":
        return closed(CloseCode.BANNED, "")
    if code == "unavailable":
        return Failure(t("tui.fail.sign_in_later"), retry=returning)
    if code == "unsupported_protocol":
        return Failure(t("tui.fail.protocol"), retry=False)
    if code == "rate_limited" and not returning:
        return Failure(t("tui.fail.new_players_limited"), retry=False)
    words = t("tui.fail.hello_refused", why=t(f"error.{code}") if code in ERROR_CODES else code)
    return Failure(words, retry=returning)


def not_protocol(url: str, *, welcomed_before: bool) -> Failure:
    """The websocket answered, but not in the race protocol."""
    words = t("tui.fail.not_protocol", where=address(url), not_ours=not_ours())
    return Failure(words, retry=welcomed_before)
