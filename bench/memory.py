"""Resident memory per idle connection: ``python -m bench.memory --url URL --pid PID``.

Opens connections in steps (by default to 1,000, 5,000 and 10,000 in all) and
leaves them idle; against the race server (``--hello``) each says ``hello``
first, so that it is a player in the lobby, as a real idle client is. After
each step has settled it reads the server's ``VmRSS`` from /proc. The cost
of one connection is the growth since a baseline taken after a few warm-up
connections (which pay the one-time costs: lazy imports, the store's first
write), divided by the connections added since. Its last line is JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from picows import WSCloseCode, WSFrame, WSListener, WSMsgType, WSTransport

from .common import raise_open_files, rss_bytes, run_loop
from .loadgen import CONNECTING, connect_all

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Step", "main", "measure"]

WARM_UP = 50
SETTLE_S = 1.0
"""Time for the server to finish with the last handshakes and hellos before reading."""


@dataclass(frozen=True, slots=True)
class Step:
    connections: int
    rss_mib: float
    per_connection_kib: float


class _Idle(WSListener):
    """A connection that says hello (or nothing) and then waits."""

    def __init__(self, name: str | None) -> None:
        super().__init__()
        self.name = name
        self.ready = name is None
        self.transport: WSTransport | None = None

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport
        if self.name is not None:
            hello = json.dumps({"type": "hello", "name": self.name}).encode()
            transport.send(WSMsgType.TEXT, hello)

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.TEXT:
            self.ready = True  # welcome: the only message an idle player gets
        elif frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(WSCloseCode.OK)
            transport.disconnect()


async def _open(url: str, first: int, count: int, hello: bool, *, at_once: int) -> list[_Idle]:
    tag = os.getpid() % 10_000
    clients = [_Idle(f"m{tag}x{i}" if hello else None) for i in range(first, first + count)]
    await connect_all(url, clients, at_once=at_once)
    async with asyncio.timeout(60):
        while not all(client.ready for client in clients):
            await asyncio.sleep(0.05)
    await asyncio.sleep(SETTLE_S)
    return clients


async def measure(
    url: str,
    pid: int,
    steps: Sequence[int],
    *,
    hello: bool,
    at_once: int = CONNECTING,
) -> list[Step]:
    """Open connections up to each total in ``steps``; the memory each one costs."""
    clients = await _open(url, 0, WARM_UP, hello, at_once=at_once)
    base = rss_bytes(pid)
    results = []
    for total in steps:
        more = total - len(clients)
        clients += await _open(url, len(clients), more, hello, at_once=at_once)
        rss = rss_bytes(pid)
        per = (rss - base) / (len(clients) - WARM_UP) / 1024
        results.append(Step(total, round(rss / 2**20, 1), round(per, 2)))
    for client in clients:
        if client.transport is not None:
            client.transport.disconnect(graceful=False)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__)
    parser.add_argument("--url", required=True, help="ws://127.0.0.1:PORT/ws")
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--steps", default="1000,5000,10000", help="totals, comma-separated")
    parser.add_argument("--hello", action="store_true", help="say hello (the race server)")
    parser.add_argument("--connecting", type=int, default=CONNECTING, help="handshakes at once")
    args = parser.parse_args(argv)
    if not args.url.startswith("ws://127.0.0.1:"):
        parser.error("only servers on 127.0.0.1")
    raise_open_files()
    steps = [int(step) for step in args.steps.split(",")]
    run = measure(args.url, args.pid, steps, hello=args.hello, at_once=args.connecting)
    results = run_loop(run, "asyncio")
    print(json.dumps([asdict(step) for step in results]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
