"""Bus messages to the worker that holds a player's socket, from the player's home.

The home keeps a :class:`~server.cluster.remote.RemoteConn` in the socket's
place; what it would write reaches the socket's worker as these, and is
written as it is (server/cluster/links.py). The other direction is
:mod:`server.cluster.to_home`; the bytes are :mod:`server.cluster.bus_codec`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Close", "Outbound", "ToSocket"]


@dataclass(frozen=True, slots=True)
class Outbound:
    """Bytes for socket ``conn_id``: whole websocket frames, written as they are."""

    conn_id: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Close:
    """Close socket ``conn_id`` with ``code`` once what came before is written."""

    conn_id: str
    code: int
    reason: str


ToSocket = Outbound | Close
