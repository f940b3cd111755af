"""The listening socket: :class:`Listener` accepts TCP connections and counts them.

Every connection counts from its TCP accept, before its opening handshake:
each one learns, as it is accepted, how many were open in all and from its
address (``rank``, ``ip_rank``), so that the glue can refuse its handshake
past a limit, and a client that opens connections and never finishes their
handshakes is held to the same limits as one that does. Past
``max_connections`` and a margin (:func:`ceiling`), a new connection is closed
at once, without reading its request: answering it would take the resources
the limit is there to keep.

When the process runs out of file descriptors, ``accept()`` fails, and asyncio
reports each failure (about one a second: it waits a second before trying
again) with a traceback. :class:`AcceptErrors` turns them into one warning
per :data:`ACCEPT_LOG_INTERVAL`, with a count.

With ``reuse_port`` (:meth:`Listener.start`), the socket takes
``SO_REUSEPORT``: every worker of ``--workers N`` listens on the same port,
each with a socket of its own, and the kernel hashes each new connection to
one of them. A worker that dies takes only its own socket, and its queue of
unaccepted connections, with it; the others go on accepting.

Once every :data:`KEEPALIVE` seconds the listener pings every websocket that
has sent nothing since the last round, and aborts one that has not answered
since (:meth:`~server.transport.connection.Connection.keepalive`): a client gone without
a word does not hold its slot for ever.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .connection import READ_SIZE, Connection
from .logbudget import LogBudget
from .outbox import Writer

if TYPE_CHECKING:
    from collections.abc import Callable

    from .handler import ConnectionOptions, Handler

__all__ = ["ACCEPT_LOG_INTERVAL", "KEEPALIVE", "AcceptErrors", "Listener", "ceiling"]

log = logging.getLogger("flowergarden.server")

KEEPALIVE = 20.0
"""Seconds between keepalive rounds (websockets' default ping interval)."""
ACCEPT_LOG_INTERVAL = 10.0
"""Seconds between two warnings that ``accept()`` fails."""
_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""The errors on which asyncio waits and tries ``accept()`` again."""

C = TypeVar("C", bound=Connection)


def ceiling(max_connections: int) -> int:
    """Open connections past which a new one is closed unread: 10% (16 at least) over the cap."""
    return max_connections + max(16, max_connections // 10)


class Listener(Generic[C]):
    """Serves ``handler`` on ``host:port`` with connections made by ``factory``."""

    def __init__(
        self,
        handler: Handler[C],
        factory: Callable[[Listener[C]], C],
        options: ConnectionOptions,
        max_connections: int,
        keepalive: float = KEEPALIVE,
    ) -> None:
        self.handler: Handler[Any] = handler
        self.options = options
        self.writer = Writer()
        self.read_buffer = memoryview(bytearray(READ_SIZE))
        """What every connection reads its socket into (server/transport/connection.py)."""
        self.log_budget = LogBudget()
        self.connections: set[C] = set()
        """Every TCP connection open, in its handshake or not."""
        self._factory = factory
        self._per_ip: dict[str, int] = {}
        self._ceiling = ceiling(max_connections)
        self._server: asyncio.Server | None = None
        self._interval = keepalive
        self._keepalive: asyncio.TimerHandle | None = None
        self._errors: AcceptErrors | None = None

    async def start(self, host: str, port: int, *, reuse_port: bool = False) -> None:
        """Listen on ``host:port``; ``reuse_port`` sets ``SO_REUSEPORT``, so that
        several processes (the workers of ``--workers``) listen on the same port
        and the kernel spreads new connections over them."""
        loop = asyncio.get_running_loop()
        self._errors = AcceptErrors.install(loop)
        try:
            self._server = await loop.create_server(
                lambda: self._factory(self), host, port, reuse_port=reuse_port
            )
        except OSError:  # the port is taken: leave the loop as it was
            self._errors.uninstall()
            raise
        self._keepalive = loop.call_later(self._interval, self._sweep)

    @property
    def port(self) -> int:
        assert self._server is not None, "the listener is not started"
        return int(self._server.sockets[0].getsockname()[1])

    def attach(self, connection: Connection) -> bool:
        ip = connection.ip
        connection.rank, connection.ip_rank = len(self.connections), self._per_ip.get(ip, 0)
        self.connections.add(connection)  # type: ignore[arg-type]  # made by the factory
        self._per_ip[ip] = connection.ip_rank + 1
        return connection.rank < self._ceiling

    def per_ip(self, at_least: int) -> dict[str, int]:
        """Open connections by address, for the addresses with ``at_least`` of them."""
        return {ip: count for ip, count in self._per_ip.items() if count >= at_least}

    def detach(self, connection: Connection) -> None:
        self.connections.discard(connection)
        ip = connection.ip
        if self._per_ip[ip] <= 1:
            del self._per_ip[ip]
        else:
            self._per_ip[ip] -= 1

    async def close_connections(self, code: int, reason: str) -> None:
        """Close every open websocket; wait until each TCP connection has ended.

        Each gets ``CLOSE_TIMEOUT`` seconds to answer, at once, so that this
        takes no longer whatever the clients do; connections still in their
        opening handshake are left to :meth:`close`.
        """
        opened = [connection for connection in self.connections if connection.opened]
        for connection in opened:
            connection.close(code, reason)
        await asyncio.gather(*(connection.wait_closed() for connection in opened))

    async def close(self) -> None:
        """Stop listening, and abort every connection still open."""
        if self._keepalive is not None:
            self._keepalive.cancel()
        if self._server is not None:
            self._server.close()
        remaining = list(self.connections)
        for connection in remaining:
            connection.abort()
        await asyncio.gather(*(connection.wait_closed() for connection in remaining))
        if self._server is not None:
            await self._server.wait_closed()
        if self._errors is not None:
            self._errors.uninstall()

    def _sweep(self) -> None:
        self.log_budget.tick()
        for connection in list(self.connections):
            connection.keepalive()
        self._keepalive = asyncio.get_running_loop().call_later(self._interval, self._sweep)


class AcceptErrors:
    """A loop exception handler that counts ``accept()`` failing for lack of
    resources and logs one warning an interval; it passes anything else on."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._loop = loop
        self._previous = loop.get_exception_handler()
        self._clock = clock
        self._failed = 0
        self._logged_at: float | None = None

    @classmethod
    def install(cls, loop: asyncio.AbstractEventLoop) -> AcceptErrors:
        errors = cls(loop)
        loop.set_exception_handler(errors)
        return errors

    def uninstall(self) -> None:
        if self._loop.get_exception_handler() is self:
            self._loop.set_exception_handler(self._previous)

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if (
            isinstance(exc, OSError)
            and exc.errno in _OUT_OF_RESOURCES
            and "accept" in str(context.get("message", ""))
        ):
            self.failed(exc)
        elif self._previous is not None:
            self._previous(loop, context)
        else:
            loop.default_exception_handler(context)

    def failed(self, exc: OSError) -> None:
        """One more failure: a warning if none was logged in the last interval."""
        self._failed += 1
        now = self._clock()
        if self._logged_at is not None and now - self._logged_at < ACCEPT_LOG_INTERVAL:
            log.debug("accept() failed again: %s", exc.strerror)
            return
        log.warning(
            "accept() failed %d time(s) since the last warning: %s (out of file descriptors"
            " or memory; raise `ulimit -n` or lower --max-connections); trying again",
            self._failed,
            exc.strerror,
        )
        self._failed, self._logged_at = 0, now
