"""The seam between one worker's glue and the other workers: :class:`Peers`.

The glue (:mod:`server.app`) serves its own sockets and runs its own cores;
whatever concerns other workers it asks of its :class:`Peers`, always the same
calls, whether there are others or not:

* :class:`Alone` is one process on its own: every player's home is here,
  nothing is shared, and starting means taking back every race the last
  process left live.
* :class:`server.cluster.cluster.Cluster` is a worker among several over
  Redis: homes and owners live there, and messages go over the bus.

So the glue has no "if clustered" branch, and the cluster reaches into the
glue only through :class:`Glue`, the few calls a worker's peers may make of
it: carry out a command here, deliver outputs, take a connection that lives on
another worker as one of this one's (its messages then come in as a socket's
do), let a player go, restore races.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Collection

    from core.events import Output, Send
    from core.identity import Identity
    from protocol import ClientMessage, ErrorCode, RequestId

    from .cluster.remote import RemoteConn
    from .conn import Conn
    from .store.arena_rows import KeptArena
    from .store.end_rows import OwedEnds

__all__ = ["Alone", "Glue", "Peers"]


class Glue(Protocol):
    """What a worker's peers may ask of its glue (:class:`server.app.GameServer`)."""

    def command(self, player_id: str, message: ClientMessage) -> None:
        """Carry out a player's command in this worker's lobby core."""

    def refuse(self, player_id: str, message: ClientMessage, code: ErrorCode, why: str) -> None:
        """Answer a player's command with an ``error``."""

    def deliver(self, outputs: list[Output], sender: str, request_id: RequestId | None) -> None:
        """Carry out the cores' outputs (the sender's first frame carries the id)."""

    def received(self, conn: Conn | RemoteConn, message: str | bytes) -> None:
        """A message from a connection, as a socket's arrives."""

    def closed(self, conn: Conn | RemoteConn) -> None:
        """A connection has ended."""

    def take_over(self, conn: Conn | RemoteConn, identity: Identity) -> None:
        """``conn`` is ``identity``'s connection now, and this worker their home."""

    def release(self, conn: Conn | RemoteConn) -> None:
        """``conn``'s player leaves this worker's lobby core; the socket stays as it is."""

    def resync(self, player_id: str) -> None:
        """Send a racing player their race's whole state again."""

    def unavailable(self, conn: Conn, why: str) -> None:
        """Answer a socket here ``unavailable`` (``why``) and close it with 1012: its
        player's race cannot be reached now, and they are to come back."""

    def conn_of(self, player_id: str) -> Conn | RemoteConn | None:
        """The connection of a player whose home is here."""

    def players_here(self) -> list[str]:
        """The players whose home is this worker and who are connected."""

    def connections_by_ip(self, at_least: int) -> dict[str, int]:
        """This worker's open TCP connections by address (those with ``at_least``)."""

    async def restore_races(self, only: Collection[str] | None = None) -> None:
        """Take back the live races of the store, or those of them in ``only``."""

    async def restore_arenas(self, only: Collection[str] | None = None) -> list[KeptArena]:
        """Take the unfinished arenas of the store, or those of them in ``only``."""

    def hold_races(self) -> None:
        """Hold every race here: this worker is not sure it still owns them."""

    def go_on(self, game_id: str) -> None:
        """A held race is this worker's after all: it goes on."""

    def let_go_of(self, game_id: str) -> None:
        """A race is another worker's now: it leaves here, and its people go to it."""


class Peers(Protocol):
    """What the glue asks of the other workers (see the module docstring)."""

    async def start(self, glue: Glue) -> None:
        """Join the others, and take back the races this worker is to hold."""

    async def close(self) -> None:
        """Hand this worker's races over and leave (the glue has suspended them)."""

    async def home_of(self, identity: Identity) -> str | None:
        """Where ``identity``'s hello goes: None for here (claimed now), or another worker.

        Raises :class:`~core.events.Refused` (``unavailable``) when the player has
        a live race that cannot be found now: the hello must not be served as
        if it were gone.
        """

    def proxy(self, conn: Conn, identity: Identity, home: str) -> None:
        """From now on ``conn``'s player lives at ``home``: forward what it says."""

    def forward(self, conn: Conn, text: str) -> None:
        """A message from a socket whose player lives at another worker."""

    def gone(self, conn: Conn) -> None:
        """A socket whose player lives at another worker has closed."""

    def takes(self, player_id: str, message: ClientMessage) -> bool:
        """Whether the peers carry out ``message`` rather than this worker's core."""

    def changed(self) -> None:
        """What this worker shows of the lobby has changed."""

    def left(self, player_id: str) -> None:
        """A player whose home is here has no connection any more."""

    def owed_ends(self, game_id: str, player_ids: tuple[str, str]) -> OwedEnds | None:
        """Race ``game_id``, run here, is over: the ends its players may not be told here,
        for its record to keep (server/cluster/owed.py); None for none."""

    def told(self, player_id: str) -> list[Send]:
        """What a player whose connection is taken here is told first: the end of their
        last race, if another worker ended it and cannot tell them now."""

    def mirror(self, out: Output) -> asyncio.Future[None] | None:
        """Mirror an output that others must see; the write its frames wait for, if any."""

    async def allows_new_player(self, address: str) -> bool:
        """Whether ``address`` may make one more player, counted across every worker."""

    def connections_elsewhere(self, address: str) -> int:
        """Open connections from ``address`` on the other workers, as last heard."""

    def refused(self, game_id: str) -> None:
        """The store refused this worker's writes for ``game_id``, which has left it:
        take it back from the store, unless another worker runs it now."""

    async def claim_arena(self, arena_id: str) -> bool:
        """Whether this worker may make ``arena_id`` and own it: nobody else lists it. Asked
        before the arena is kept, so that no worker finds it kept and unowned."""

    def arena_done(self, arena_id: str) -> None:
        """``arena_id``, claimed here, is nobody's now: it finished, or was never made."""


class Alone:
    """The :class:`Peers` of one process on its own: there are none."""

    def __init__(self) -> None:
        self._glue: Glue | None = None
        self._restoring: set[asyncio.Task[None]] = set()

    async def start(self, glue: Glue) -> None:
        self._glue = glue
        await glue.restore_races()
        await glue.restore_arenas()  # after the races: each counts those it paired

    async def close(self) -> None:
        return None

    async def home_of(self, identity: Identity) -> str | None:
        return None

    def proxy(self, conn: Conn, identity: Identity, home: str) -> None:
        raise AssertionError("one process alone proxies nobody")  # pragma: no cover

    def forward(self, conn: Conn, text: str) -> None:
        raise AssertionError("one process alone proxies nobody")  # pragma: no cover

    def gone(self, conn: Conn) -> None:
        return None

    def takes(self, player_id: str, message: ClientMessage) -> bool:
        return False

    def changed(self) -> None:
        return None

    def left(self, player_id: str) -> None:
        return None

    def owed_ends(self, game_id: str, player_ids: tuple[str, str]) -> OwedEnds | None:
        return None  # this process's own lobby core tells them, for as long as it runs

    def told(self, player_id: str) -> list[Send]:
        return []

    def mirror(self, out: Output) -> asyncio.Future[None] | None:
        return None

    async def allows_new_player(self, address: str) -> bool:
        return True

    def connections_elsewhere(self, address: str) -> int:
        return 0

    async def claim_arena(self, arena_id: str) -> bool:
        return True

    def arena_done(self, arena_id: str) -> None:
        return None

    def refused(self, game_id: str) -> None:
        # Nobody else runs it: take it back as the store has it (its epoch grows).
        assert self._glue is not None
        task = asyncio.ensure_future(self._glue.restore_races({game_id}))
        self._restoring.add(task)
        task.add_done_callback(self._restoring.discard)
