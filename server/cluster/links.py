"""Links between a socket on one worker and its player's home on another.

A player's *home* is the worker whose lobby core holds them. When their socket
is on another worker, the two ends of the link are:

* on the socket's worker, the :class:`~server.conn.Conn` itself, proxied
  (``conn.proxy`` names the home): what the client says is forwarded to the
  home, and what the home writes comes back as bytes to write as they are;
* on the home, a :class:`~server.cluster.remote.RemoteConn` in the socket's
  place, which the glue treats as one of its own connections: it is taken
  over, receives, and closes through the same calls as a socket here.

:class:`Links` keeps both kinds of ends of one worker, by connection id, and
turns bus messages into those calls.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import TYPE_CHECKING, Any

from core.glicko2 import Glicko
from core.identity import Identity
from core.limits import RateLimiter
from protocol.close_codes import CloseCode
from server.transport.outbox import Wire, Writer

from .remote import RemoteConn

if TYPE_CHECKING:
    from server.conn import Conn
    from server.peers import Glue

    from .bus import Bus

__all__ = ["Links"]

_UNLIMITED = 1e12


class Links:
    """The links of one worker (see the module docstring)."""

    def __init__(self, bus: Bus, worker: str, send_queue: int) -> None:
        self._bus, self._worker, self._send_queue = bus, worker, send_queue
        self.remotes: dict[str, RemoteConn] = {}
        """Sockets on other workers of players whose home is here, by connection id."""
        self.proxied: dict[str, Conn] = {}
        """Sockets here of players whose home is elsewhere, by connection id."""
        self.writer = Writer()
        """Writes the frames of the remote connections, as a listener does its own."""
        self.glue: Glue | None = None
        self._ids = itertools.count()

    # -- the socket's end ------------------------------------------------------

    def proxy(self, conn: Conn, identity: Identity, home: str, then: str | None = None) -> None:
        """From now on ``conn``'s player lives at ``home``: forward what it says."""
        conn.conn_id = conn.conn_id or f"{self._worker}:{next(self._ids)}"
        conn.proxy = home
        self.proxied[conn.conn_id] = conn
        self._bus.send(
            home,
            {
                "k": "attach",
                "c": conn.conn_id,
                "w": self._worker,
                "ip": conn.ip,
                "p": [identity.player_id, identity.name, identity.token_hash, identity.created],
                "r": list(dataclasses.astuple(identity.rating)),
                "then": then,
            },
        )

    def forward(self, conn: Conn, text: str) -> None:
        assert conn.proxy is not None
        self._bus.send(conn.proxy, {"k": "in", "c": conn.conn_id, "m": text})

    def gone(self, conn: Conn) -> None:
        """A proxied socket has closed."""
        self.proxied.pop(conn.conn_id, None)
        if conn.proxy is not None:
            self._bus.send(conn.proxy, {"k": "gone", "c": conn.conn_id, "code": conn.close_code})

    def to_socket(self, message: dict[str, Any]) -> None:
        """Frames, or the end, from a player's home for their socket here."""
        conn = self.proxied.get(message["c"])
        if conn is None:
            return
        if message["k"] == "out":
            conn.enqueue(Wire(_bytes(message["d"])))
        else:
            conn.replaced = message["code"] == CloseCode.REPLACED
            conn.close(message["code"], message["why"])

    def close_proxied_to(self, worker: str, code: int, reason: str) -> None:
        """Close every socket here whose player's home is ``worker``."""
        for conn in [c for c in self.proxied.values() if c.proxy == worker]:
            conn.close(code, reason)

    def homes(self) -> set[str]:
        """The workers that sockets here are proxied to."""
        return {conn.proxy for conn in self.proxied.values() if conn.proxy}

    # -- the home's end --------------------------------------------------------

    def from_socket(self, message: dict[str, Any]) -> None:
        """A message, or the end, from a socket on another worker, for its player's home here."""
        remote = self.remotes.get(message["c"])
        if remote is None or self.glue is None:
            return
        kind = message["k"]
        if kind == "in":
            self.glue.received(remote, message["m"])
        elif kind == "gone":
            del self.remotes[remote.conn_id]
            remote.close_code = message["code"]
            self.glue.closed(remote)
        elif remote.player is not None:  # resync: frames to it may have been lost
            self.glue.resync(remote.player.player_id)

    def attach(self, message: dict[str, Any]) -> None:
        """A socket on another worker is now one of this home's connections."""
        assert self.glue is not None
        player_id, name, token_hash, created = message["p"]
        identity = Identity(player_id, name, token_hash, created, Glicko(*message["r"]))
        remote = RemoteConn(
            message["c"],
            message["w"],
            message["ip"],
            limiter=RateLimiter(burst=int(_UNLIMITED), rate=_UNLIMITED),
            queue=self._send_queue,
            writer=self.writer,
            send=self._bus.send,
        )
        remote.player = identity
        self.remotes[remote.conn_id] = remote
        self.glue.take_over(remote, identity)
        if message["then"] is not None:
            self.glue.received(remote, message["then"])

    def close_remotes(self, code: int, reason: str) -> None:
        """Close every remote connection (shutting down), at once."""
        for remote in list(self.remotes.values()):
            remote.close(code, reason)
            remote.write()  # now, not on the writer's next pass: the bus closes next

    def resync_remotes(self) -> None:
        """Frames to remote sockets may have been lost: each racer gets their race again."""
        assert self.glue is not None
        for remote in list(self.remotes.values()):
            if remote.player is not None:
                self.glue.resync(remote.player.player_id)


def _bytes(data: str) -> bytes:
    import base64

    return base64.b64decode(data)
