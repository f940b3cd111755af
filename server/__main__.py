"""``flowergarden-server``: run the race server until SIGTERM or SIGINT.

On either signal the server stops accepting players (``/healthz`` answers
503), closes every connection with 1001, lets finished races reach the
store, closes it, and exits with 0.

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
from typing import TYPE_CHECKING

from server.cluster.workers import own_worker_id, supervise
from server.store.backends import open_store

from .app import GameServer
from .config import Settings, parse_args
from .tuning import tune_gc, tune_malloc

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["configure_logging", "main", "on_signals", "run"]


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


async def run(settings: Settings) -> None:
    """Serve until a signal asks to stop."""
    stop = asyncio.Event()
    on_signals(asyncio.get_running_loop(), stop)
    store = open_store(settings.db)
    server = GameServer(settings, store, worker=settings.worker_id, redis=settings.redis)
    async with server:
        await stop.wait()
        logging.getLogger("flowergarden.server").info("shutting down")


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
