"""A faster echo server, built on picows: it shows the generator is not the bottleneck.

``python -m bench.echo_picows --port P [--loop uvloop]``

If the load generator drives this server well above the ``websockets`` echo,
the figures measured against the ``websockets`` echo are the server's, not the
generator's. It runs until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from picows import WSFrame, WSListener, WSMsgType, WSTransport, WSUpgradeRequest, ws_create_server

from server.__main__ import on_signals
from server.tuning import tune_gc, tune_malloc

from .common import LOOPS, LoopName, raise_open_files, run_loop

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "run"]


class _Echo(WSListener):
    """Sends every text frame back; answers a close frame and hangs up."""

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.TEXT:
            transport.send(WSMsgType.TEXT, frame.get_payload_as_bytes())
        elif frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()


def _listener(request: WSUpgradeRequest) -> WSListener:
    return _Echo()


async def run(port: int) -> None:
    """Echo on 127.0.0.1:``port`` until a signal asks to stop."""
    stop = asyncio.Event()
    on_signals(asyncio.get_running_loop(), stop)
    server = await ws_create_server(_listener, "127.0.0.1", port, max_frame_size=4096)
    async with server:
        await stop.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.echo_picows")
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
