"""What a :class:`~server.transport.connection.Connection` needs from those around it.

:class:`Handler` is what the glue implements (:class:`~server.app.GameServer`),
:class:`Host` what the listener gives every connection it makes
(:class:`~server.transport.listener.Listener`), :class:`ConnectionOptions` how connections behave.
No callback may raise or wait: each runs inside asyncio's ``buffer_updated``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import asyncio

    from .connection import Connection, Request, Response
    from .logbudget import LogBudget
    from .outbox import Writer

__all__ = ["ConnectionOptions", "Handler", "Host"]

C_contra = TypeVar("C_contra", bound="Connection", contravariant=True)


class Handler(Protocol[C_contra]):
    """What the glue does with a connection; no callback may raise or wait."""

    def request(
        self, connection: C_contra, request: Request
    ) -> Response | asyncio.Future[Response] | None:
        """The answer to the connection's one HTTP request, or None to upgrade.

        ``request`` is a ``GET`` or ``HEAD`` (websockets' handshake request,
        without a body) or a request of another method with its body
        (:mod:`~server.transport.request`); None opens a websocket on a
        ``GET`` and answers any other method ``405``. A page that must wait
        (for the store) gives a future of its answer, which the connection
        sends when it is done; the opening timeout still bounds the wait.
        """

    def opened(self, connection: C_contra) -> None:
        """The websocket is open."""

    def received(self, connection: C_contra, message: str | bytes) -> None:
        """A whole message: text as ``str``, binary as ``bytes``."""

    def pinged(self, connection: C_contra) -> None:
        """A ping came (and is answered)."""

    def closed(self, connection: C_contra) -> None:
        """The TCP connection of an opened websocket has ended."""


class Host(Protocol):
    """What a connection needs from the listener that made it."""

    handler: Handler[Any]
    options: ConnectionOptions
    writer: Writer
    read_buffer: memoryview
    """Where connections read their sockets into: shared, each read handled at once."""
    log_budget: LogBudget
    """What connections log about what clients sent, within a budget per address."""

    def attach(self, connection: Connection) -> bool:
        """Count a new TCP connection; False if it is to be closed at once."""

    def detach(self, connection: Connection) -> None:
        """The TCP connection has ended."""


@dataclass(frozen=True, slots=True)
class ConnectionOptions:
    max_size: int
    """Largest incoming message, in bytes; a larger one closes with 1009."""
    queue: int
    """Frames queued for a receiver before it is cut off."""
    open_timeout: float
    """Seconds from the TCP accept to the end of the opening handshake."""
