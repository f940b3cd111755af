"""The baseline: a raw ``websockets`` echo server, no parsing, no logic.

``python -m bench.echo_websockets --port P [--loop uvloop]``

It sends every text frame back as it came. It is the physical limit of the
race server's stack (the same library, loop and settings: no compression, as
the race server offers none, and the race server's garbage collector and
malloc settings from :mod:`server.tuning`), so the race server is reported
as a ratio of it. It runs until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection, serve

from server.__main__ import on_signals
from server.tuning import tune_gc, tune_malloc

from .common import LOOPS, LoopName, raise_open_files, run_loop

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "run"]


async def _echo(ws: ServerConnection) -> None:
    async for message in ws:
        await ws.send(message)


async def run(port: int) -> None:
    """Echo on 127.0.0.1:``port`` until a signal asks to stop."""
    stop = asyncio.Event()
    on_signals(asyncio.get_running_loop(), stop)
    # The race server's limits, so that only the logic differs between the two.
    async with serve(_echo, "127.0.0.1", port, compression=None, max_size=4096):
        await stop.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.echo_websockets")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--loop", choices=LOOPS, default="asyncio")
    args = parser.parse_args(argv)
    loop: LoopName = args.loop
    raise_open_files()
    # The race server's process settings: only the logic differs between the two.
    tune_gc()
    tune_malloc()
    run_loop(run(args.port), loop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
