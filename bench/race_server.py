"""The race server as the benchmark runs it: ``python -m bench.race_server --port P --db F``.

The same :class:`~server.app.GameServer`, store, logging and garbage collector
settings as ``flowergarden-server``, with two differences, each a flag:

- ``--loop uvloop`` runs it on uvloop, to compare the two loops;
- the per-client rate limit is lifted (``--rate``, default a million a second):
  PROTOCOL.md promises 50 messages a second, and at 100 connections one
  benchmark player sends several hundred. The limiter still runs on every
  message, so its cost is measured.

Connections (in all and per address) and new players per address are not
limited: every benchmark client is 127.0.0.1, and the memory benchmark opens 10,000.
It runs until SIGTERM or SIGINT, like the real server.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
from typing import TYPE_CHECKING

from core.limits import RateLimiter
from server.__main__ import configure_logging, on_signals
from server.app import GameServer
from server.config import Settings
from server.store import SqliteStore
from server.tuning import tune_gc, tune_malloc

from .common import LOOPS, LoopName, raise_open_files, run_loop

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "run"]


async def run(settings: Settings, rate: float) -> None:
    """Serve until a signal asks to stop, as ``server.__main__.run`` does."""
    stop = asyncio.Event()
    on_signals(asyncio.get_running_loop(), stop)
    limiter = functools.partial(RateLimiter, burst=int(rate), rate=rate)
    server = GameServer(settings, SqliteStore(settings.db), limiter=limiter)
    async with server:
        await stop.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.race_server")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True, help="SQLite file (a fresh one per run)")
    parser.add_argument("--loop", choices=LOOPS, default="asyncio")
    parser.add_argument("--rate", type=float, default=1e6, help="messages/s per client")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    loop: LoopName = args.loop
    settings = Settings(
        port=args.port,
        db=args.db,
        log_level=args.log_level,
        max_connections_per_ip=1_000_000,
        max_connections=1_000_000,
        new_players_per_ip=1_000_000,
    )
    configure_logging(settings.log_level)
    raise_open_files()
    tune_gc()
    tune_malloc()
    run_loop(run(settings, args.rate), loop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
