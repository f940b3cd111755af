"""``flowergarden-server``: run the race server until SIGTERM or SIGINT.

On either signal the server stops accepting players (``/healthz`` answers
503), closes every connection with 1001, lets finished races reach the
store, closes it, and exits with 0.

A server started before its PostgreSQL (a compose file, a machine booting)
waits for it rather than exits: :func:`open_when_up` tries the store again
for ``--db-wait`` seconds, logging each failure, and a signal meanwhile ends
the wait and the process.

With ``--workers N`` (N > 1) this process is instead the supervisor of N
workers, each this same program with ``--workers 1`` (:mod:`server.cluster.workers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import sys
import time
from typing import TYPE_CHECKING

import psycopg

from core.backoff import STORE, Attempts
from server.cluster.workers import own_worker_id, supervise
from server.store import StoreError, StoreUnavailable, open_store
from server.store.postgres import classified_pg

from .app import GameServer
from .config import Settings, parse_args
from .tuning import tune_gc, tune_malloc

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from core.identity import Identity
    from server.store import Store

__all__ = ["configure_logging", "main", "on_signals", "open_when_up", "passing", "run"]

log = logging.getLogger("flowergarden.server")


def on_signals(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Set ``stop`` on SIGTERM or SIGINT, even when the loop is flooded with wake-ups.

    ``loop.add_signal_handler`` learns of a signal only through a byte on the
    loop's wake-up socket, and that byte is lost when the socket is full (a
    thousand store writes finishing at once fill it). A plain Python handler
    runs in the main thread whatever the socket holds, and queues ``stop.set``
    with ``call_soon_threadsafe``, which keeps the callback even when its own
    wake-up byte cannot be written.
    """

    def handler(signum: int, frame: object) -> None:
        # A signal after the loop has closed (a second SIGTERM, from systemd
        # and a supervisor both) finds the server stopped already.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(stop.set)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


def passing(exc: StoreError) -> bool:
    """Whether the store failed to open for a reason that may pass: a database that
    refuses connections, is starting up, or has a name that does not resolve yet."""
    if isinstance(exc, StoreUnavailable):
        return True
    # The store wraps what psycopg raised on connecting: its own classifier says.
    cause = exc.__cause__
    return isinstance(cause, psycopg.Error) and isinstance(classified_pg(cause), StoreUnavailable)


async def open_when_up(
    store: Store,
    wait: float,
    stop: asyncio.Event,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> list[Identity] | None:
    """Open ``store`` and return its players, trying again for ``wait`` seconds.

    A failure that may pass (:func:`passing`) is logged with the delay before
    the next try, from the store's retry policy (:data:`core.backoff.STORE`);
    one that will not, or one whose next try would come past ``wait``, is
    raised. None when ``stop`` is set while waiting.
    """
    deadline = clock() + wait
    attempts = Attempts(STORE)
    while True:
        try:
            return await store.open()
        except StoreError as exc:
            if not passing(exc):
                raise
            delay = attempts.failed()
            if clock() + delay > deadline:
                if wait:
                    log.error("gave up waiting for the database after %g s (--db-wait)", wait)
                raise
            log.warning("waiting for the database (%s): trying again in %.2f s", _line(exc), delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
            log.info("stopped while waiting for the database")
            return None


def _line(exc: BaseException) -> str:
    """``exc``'s message on one line: libpq's come in several."""
    return " ".join(str(exc).split())


async def run(settings: Settings) -> None:
    """Serve until a signal asks to stop."""
    stop = asyncio.Event()
    on_signals(asyncio.get_running_loop(), stop)
    store = open_store(settings.db, init=settings.init_db)
    try:
        known = await open_when_up(store, settings.database_wait, stop)
    except StoreError as exc:  # a wrong --db, or a database down: a line, not a traceback
        log.error("cannot open the database: %s", _line(exc))
        raise SystemExit(1) from None
    if known is None:
        return
    server = GameServer(settings, store, worker=settings.worker_id, redis=settings.redis)
    await server.start(known)
    try:
        await stop.wait()
        log.info("shutting down")
    finally:
        await server.close()


def configure_logging(level: str, worker: str = "") -> None:
    """Timestamped lines on stderr; websockets' own per-connection lines only when they matter.

    ``worker`` (a worker id given by flag, as the supervisor gives its
    workers) tags every line, since the workers of one supervisor share its
    stderr."""
    tag = f"[{worker.replace('%', '%%')}]" if worker else ""
    logging.basicConfig(
        level=level.upper(),
        format=f"%(asctime)s %(levelname)s %(name)s{tag}: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> int:
    settings = parse_args(argv)
    if settings.workers > 1:
        configure_logging(settings.log_level)
        return supervise(settings)
    configure_logging(settings.log_level, settings.worker_id)
    settings = dataclasses.replace(settings, worker_id=own_worker_id(settings))
    tune_gc()
    tune_malloc()
    asyncio.run(run(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
