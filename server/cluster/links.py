"""Links between a socket on one worker and its player's home on another.

A player's *home* is the worker whose lobby core holds them. When their socket
is on another worker, the two ends of the link are:

* on the socket's worker, the :class:`~server.conn.Conn` itself, proxied
  (``conn.proxy`` names the home): what the client says is forwarded to the
  home (:mod:`server.cluster.to_home`), and what the home writes comes back
  as bytes to write as they are (:mod:`server.cluster.to_socket`);
* on the home, a :class:`~server.cluster.remote.RemoteConn` in the socket's
  place, which the glue treats as one of its own connections: it is taken
  over, receives, and closes through the same calls as a socket here.

:class:`Links` keeps both kinds of ends of one worker, by connection id, and
turns bus messages into those calls. When the bus says that a link with
another worker lost a message, or that the worker was born again, every end
shared with that worker goes (:meth:`Links.drop_links_with`): sockets here
whose home it was are closed with 1012, and remote connections whose socket
was there are gone, so that the players come back and get their race whole.

A racer proxied to their race's worker is answered there (``game_state``) at
once. If nothing has come back from it after :data:`ANSWER_WAIT` seconds (it is
stopped, dead, or cut off, still holds a lease, and holds the race; or has not
got the race back yet), the racer is told ``unavailable`` and the socket closes
with 1012: they come back, by then to a worker that answers, never left in silence.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING

from core.glicko2 import Glicko
from core.identity import Identity
from core.limits import RateLimiter
from protocol.close_codes import CloseCode
from server.transport.outbox import Wire, Writer

from .remote import RemoteConn
from .to_home import Attach, Gone, Inbound
from .to_socket import Close, Outbound

if TYPE_CHECKING:
    from collections.abc import Callable

    from server.conn import Conn
    from server.peers import Glue

    from .bus import Bus
    from .to_socket import ToSocket

__all__ = ["ANSWER_WAIT", "Links"]

ANSWER_WAIT = 3.0
"""Seconds a racer proxied to their race's worker waits for its first frame: a
``game_state`` comes within milliseconds from a worker that is there, and a
client gives up at 5 s (the chaos racers do)."""

_UNLIMITED = 1e12
_LOST = "the line to your race's server was lost; connect again"
_UNANSWERED = "your race's server does not answer now; try again"


class Links:
    """The links of one worker (see the module docstring)."""

    def __init__(
        self, bus: Bus, worker: str, send_queue: int, missed: Callable[[str], None]
    ) -> None:
        """``missed`` is told of each player whose remote connection went with what it
        carried (the lobby core's): they learn their last race's end on coming back."""
        self._bus, self._worker, self._send_queue = bus, worker, send_queue
        self._missed = missed
        self.remotes: dict[str, RemoteConn] = {}
        """Sockets on other workers of players whose home is here, by connection id."""
        self.proxied: dict[str, Conn] = {}
        """Sockets here of players whose home is elsewhere, by connection id."""
        self.writer = Writer()
        """Writes the frames of the remote connections, as a listener does its own."""
        self.glue: Glue | None = None
        self._ids = itertools.count()
        self._unanswered: dict[str, asyncio.TimerHandle] = {}
        """Racers proxied to their race's worker that it has not answered yet, by
        connection id: each one's timer (:data:`ANSWER_WAIT`)."""

    def workers(self) -> set[str]:
        """Every worker a link goes to: the homes of sockets here, the sockets of homes here."""
        homes = {conn.proxy for conn in self.proxied.values() if conn.proxy}
        return homes | {remote.worker for remote in self.remotes.values()}

    # -- the socket's end ------------------------------------------------------

    def proxy(
        self,
        conn: Conn,
        identity: Identity,
        home: str,
        then: str | None = None,
        *,
        racing: bool = False,
    ) -> None:
        """From now on ``conn``'s player lives at ``home``: forward what it says.
        ``racing``: ``home`` runs their live race, and is to answer at once."""
        # The incarnation too: a worker born again counts from 0 again, and a frame
        # sent to its last incarnation's socket must not reach a new one's.
        conn.conn_id = conn.conn_id or f"{self._worker}:{self._bus.incarnation}:{next(self._ids)}"
        conn.proxy = home
        self.proxied[conn.conn_id] = conn
        self._answered(conn.conn_id)  # moved on (a room, a race to watch): no race awaited
        if racing:
            loop = asyncio.get_running_loop()
            self._unanswered[conn.conn_id] = loop.call_later(ANSWER_WAIT, self._silent, conn)
        rating = identity.rating
        attach = Attach(
            conn.conn_id, self._worker, conn.ip, identity.player_id, identity.name,
            identity.token_hash, identity.created,
            (rating.rating, rating.deviation, rating.volatility), then, identity.bot,
            identity.flags,
        )  # fmt: skip
        self._bus.send(home, attach)

    def forward(self, conn: Conn, text: str) -> None:
        assert conn.proxy is not None
        self._bus.send(conn.proxy, Inbound(conn.conn_id, text))

    def gone(self, conn: Conn) -> None:
        """A proxied socket has closed."""
        self.proxied.pop(conn.conn_id, None)
        self._answered(conn.conn_id)
        if conn.proxy is not None:
            self._bus.send(conn.proxy, Gone(conn.conn_id, conn.close_code, conn.from_home))

    def to_socket(self, message: ToSocket) -> None:
        """Frames, or the end, from a player's home for their socket here."""
        conn = self.proxied.get(message.conn_id)
        if conn is None:
            return
        self._answered(message.conn_id)
        if isinstance(message, Outbound):
            conn.from_home += not conn.closing  # behind a close frame, it is never read
            conn.enqueue(Wire(message.data))
        else:
            conn.replaced = message.code == CloseCode.REPLACED
            conn.close(message.code, message.reason)

    def _answered(self, conn_id: str) -> None:
        timer = self._unanswered.pop(conn_id, None)
        if timer is not None:
            timer.cancel()

    def _silent(self, conn: Conn) -> None:
        """A racer's home has not answered in time: ``unavailable``, and 1012."""
        self._unanswered.pop(conn.conn_id, None)
        if self.proxied.get(conn.conn_id) is conn and self.glue is not None:
            self.glue.unavailable(conn, _UNANSWERED)

    def close_proxied_to(self, worker: str, code: int, reason: str) -> None:
        """Close every socket here whose player's home is ``worker``."""
        for conn in [c for c in self.proxied.values() if c.proxy == worker]:
            conn.close(code, reason)

    # -- the home's end --------------------------------------------------------

    def from_socket(self, message: Inbound | Gone) -> None:
        """A message, or the end, from a socket on another worker, for its player's home here."""
        remote = self.remotes.get(message.conn_id)
        if remote is None or self.glue is None:
            return
        if isinstance(message, Inbound):
            self.glue.received(remote, message.text)
            return
        if 0 <= message.heard < remote.sent:  # writes crossed the socket's end
            remote.unread()  # so the glue tells its last race's end again on coming back
        self._gone(remote, message.code)

    def attach(self, message: Attach) -> None:
        """A socket on another worker is now one of this home's connections."""
        assert self.glue is not None
        rating = Glicko(*message.rating)
        identity = Identity(
            message.player_id, message.name, message.token_hash, message.created, rating,
            message.bot, message.flags,
        )  # fmt: skip
        remote = RemoteConn(
            message.conn_id,
            message.worker,
            message.ip,
            limiter=RateLimiter(burst=int(_UNLIMITED), rate=_UNLIMITED),
            queue=self._send_queue,
            writer=self.writer,
            send=self._bus.send,
        )
        remote.player = identity
        self.remotes[remote.conn_id] = remote
        self.glue.take_over(remote, identity)
        if message.then is not None:
            self.glue.received(remote, message.then)

    def close_remotes(self, code: int, reason: str) -> None:
        """Close every remote connection (shutting down), at once."""
        for remote in list(self.remotes.values()):
            remote.close(code, reason)
            remote.write()  # now, not on the writer's next pass: the bus closes next

    # -- links that broke ------------------------------------------------------

    def drop_links_with(self, worker: str) -> None:
        """Every end shared with ``worker`` goes: what went between may have been lost.

        Sockets here whose home is ``worker`` close with 1012, so that their
        clients come back; remote connections whose socket is on ``worker``
        are gone here (the grace starts), and ``worker`` is asked to close
        those sockets, if it still has them.
        """
        self.close_proxied_to(worker, CloseCode.SERVICE_RESTART, _LOST)
        for remote in [r for r in self.remotes.values() if r.worker == worker]:
            if remote.player is not None:  # its last frames, a game_over among them, lost
                self._missed(remote.player.player_id)
            remote.drop()
            self._bus.send(worker, Close(remote.conn_id, CloseCode.SERVICE_RESTART, _LOST))
            self._gone(remote, None)

    def _gone(self, remote: RemoteConn, code: int | None) -> None:
        assert self.glue is not None
        self.remotes.pop(remote.conn_id, None)
        remote.close_code = code
        self.glue.closed(remote)
