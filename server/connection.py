"""The websockets connection class of the server, and how long a close may take."""

from __future__ import annotations

from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection

if TYPE_CHECKING:
    import asyncio

__all__ = ["CLOSE_TIMEOUT", "tracked"]

CLOSE_TIMEOUT = 3.0
"""Seconds a closing handshake may take before the TCP connection is aborted
(websockets' default is 10): a peer that does not answer a close frame within
it is not coming back, and holds its slot and a shutdown meanwhile."""


def tracked(connections: set[ServerConnection]) -> type[ServerConnection]:
    """A :class:`ServerConnection` that is in ``connections`` while its TCP connection is open.

    websockets' ``Server`` lists a connection only once its opening handshake
    is done; shutting down must also see those still in it.
    """

    class Tracked(ServerConnection):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            connections.add(self)

        def connection_lost(self, exc: Exception | None) -> None:
            connections.discard(self)
            super().connection_lost(exc)

    return Tracked
