"""Bus messages to a player's home: from the worker that holds their socket, or that wants them.

A player's *home* is the worker whose lobby core holds them (server/cluster/links.py).
These are what reaches a home from other workers, each a small typed value;
:mod:`server.cluster.bus_codec` alone turns them into bytes and back. The other
direction, to the worker that holds a socket, is :mod:`server.cluster.to_socket`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Attach", "Gone", "Inbound", "Migrate", "ToHome", "Unmigrated"]


@dataclass(frozen=True, slots=True)
class Attach:
    """The socket ``conn_id`` on ``worker`` is this player's: take them over here.

    ``then`` is a message of theirs to handle once they are here (the ``seek``
    or ``join_room`` that moved them), or None. ``bot`` and ``flags`` are the
    player's as their hello read them (``Identity``), for the home's lobby core.
    """

    conn_id: str
    worker: str
    ip: str
    player_id: str
    name: str
    token_hash: str
    created: float
    rating: tuple[float, float, float]
    then: str | None
    bot: bool = False
    flags: int = 0


@dataclass(frozen=True, slots=True)
class Inbound:
    """A message the client sent on socket ``conn_id``, as it came."""

    conn_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Gone:
    """Socket ``conn_id`` has closed, with ``code`` (None: no close frame came), having
    had ``heard`` writes from its home (:class:`~server.cluster.to_socket.Outbound`):
    fewer than the home made, and the rest, a race's end maybe, never reached it.
    -1: not counted (a release before the count)."""

    conn_id: str
    code: int | None
    heard: int = -1


@dataclass(frozen=True, slots=True)
class Migrate:
    """Seeker ``player_id`` is to be paired on worker ``to``: move them there.

    ``asker`` is the seeker on ``to`` who found them; ``then`` is their ``seek``
    to handle there.
    """

    player_id: str
    to: str
    then: str
    asker: str


@dataclass(frozen=True, slots=True)
class Unmigrated:
    """The seeker that ``asker`` was paired with could not be moved: look again."""

    asker: str


ToHome = Attach | Inbound | Gone | Migrate | Unmigrated
