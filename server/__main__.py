"""``flowergarden-server``: run the race server until SIGTERM or SIGINT.

On either signal the server stops accepting players (``/healthz`` answers
503), closes every connection with 1001, lets finished races reach the
store, closes it, and exits with 0.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from typing import TYPE_CHECKING

from .app import GameServer
from .config import Settings, parse_args
from .store import SqliteStore

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["configure_logging", "main", "on_signals", "run", "tune_gc"]

GC_THRESHOLDS = (50_000, 20, 100)
"""Collect the youngest generation every 50,000 net allocations rather than 700."""


def tune_gc() -> None:
    """Make the cyclic garbage collector cheaper for a long-running server.

    Every play allocates a few short-lived containers, so with the default
    thresholds the collector runs every few plays, and each full collection
    walks every object of every connection. Profiled under load, that was a
    fifth of the server's CPU time. Objects made at start-up (modules, models)
    are frozen out of the collector's walks; nearly all garbage is freed by
    reference counting anyway, and the collector still runs, less often.
    """
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


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
        loop.call_soon_threadsafe(stop.set)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


async def run(settings: Settings) -> None:
    """Serve until a signal asks to stop."""
    stop = asyncio.Event()
    on_signals(asyncio.get_running_loop(), stop)
    server = GameServer(settings, SqliteStore(settings.db))
    async with server:
        await stop.wait()
        logging.getLogger("flowergarden.server").info("shutting down")


def configure_logging(level: str) -> None:
    """Timestamped lines on stderr; websockets' own per-connection lines only when they matter."""
    logging.basicConfig(
        level=level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> int:
    settings = parse_args(argv)
    configure_logging(settings.log_level)
    tune_gc()
    asyncio.run(run(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
