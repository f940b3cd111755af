"""The load generator: N real WebSocket connections, each with one message in flight.

``python -m bench.loadgen --url ws://127.0.0.1:P/ws --mode race|echo -n 1000``

Against the race server (``--mode race``) every connection is a player: it says
``hello`` and ``seek``s a race with ``mirror`` and ``winnable_only``, so the
N players make N/2 simultaneous races, each 52 plays per player. A player
plays the board out (the engine's first legal play each time) as fast as
acknowledgements come back: a ``play`` goes out, the player's own ``played``
(its acknowledgement) comes back, the next ``play`` goes out. After
``game_over`` it seeks again, so the load holds for the whole run.

The pairs of players seek at times spread evenly over the warm-up, as players
arrive at a real server, so that races also end at different times. With
``--lockstep`` every player seeks at once: all races then end, are written to
the store and start again in the same fraction of a second, a burst the
benchmark measures on its own.

Against an echo server (``--mode echo``) every connection sends a play-shaped
frame and waits for its echo, the same pattern without the game.

A round trip is one ``play`` and its acknowledgement (or one frame and its
echo). After a warm-up, the generator counts round trips over a fixed window
and keeps each one's latency; it reads the server's CPU time (``--server-pid``)
and its own at both ends of the window. Then players stop sending, the last
acknowledgements come in, and it hangs up. The generator runs on picows (and
uvloop, when installed) so that it is cheaper per frame than any server it
measures. Its last line of output is one JSON object.

For the multi-worker benchmark (``bench/cluster.py``): ``--url`` given more
than once spreads the connections over the URLs (connection ``i`` to URL
``i mod k``); ``--pairing rooms`` pairs each even player with the next one
for the whole run (the even one opens a room, the odd one joins it by its
code, and after each race both ask for a rematch: :mod:`bench.room_pairs`), so
that with two URLs every race has one player on each; ``--server-pid`` may be
given more than once (each process's CPU time counts with its children's:
a supervisor's workers); and ``--cpu-pid NAME=PID`` reports the CPU time of
other processes (Redis, PostgreSQL) in the window, with the frames the
generator sent, under ``extra``. Without them the output is as it was.

This module holds the run (:func:`measure`, :func:`main`); the state all
connections share is :class:`bench.generator.Generator`, the connections
themselves :mod:`bench.clients` (the echo's and the race player's) and
:mod:`bench.room_pairs` (``--pairing rooms``), and a player's plays come
from :mod:`bench.clearing`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from picows import WSCloseCode, WSListener, ws_connect

from .clients import Client, Racer
from .common import raise_open_files, run_loop, tree_cpu_seconds
from .generator import Generator

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from .generator import Mode, Pairing

__all__ = ["CONNECTING", "Result", "connect_all", "main", "measure"]

CONNECTING = 100
"""Handshakes in flight at once: more overflow the server's listen backlog."""


@dataclass(frozen=True, slots=True)
class Result:
    """One measurement window."""

    mode: str
    lockstep: bool
    connections: int
    round_trips: int
    window_s: float
    rt_per_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    races: int
    errors: int
    server_cpu_s: float
    server_cpu_us_per_rt: float
    generator_cpu_pct: float
    generator_loop: str
    extra: dict[str, Any] | None = None
    """With ``--cpu-pid``: other processes' CPU time in the window, frames sent, pairing."""


async def connect_all(
    url: str | Sequence[str],
    clients: Sequence[WSListener],
    *,
    at_once: int = CONNECTING,
) -> None:
    """Open one connection per client, ``at_once`` handshakes at a time; client ``i``
    to ``url``, or to the ``i``-th of several URLs, round robin."""
    gate = asyncio.Semaphore(at_once)
    urls = [url] if isinstance(url, str) else list(url)

    async def connect(client: WSListener, url: str) -> None:
        async with gate:
            # A small first read buffer: it grows for the rare large frame.
            await ws_connect(lambda: client, url, read_buffer_init_size=2048)

    await asyncio.gather(*(connect(c, urls[i % len(urls)]) for i, c in enumerate(clients)))


async def _until(ready: Callable[[], bool], timeout: float) -> None:
    """Wait for ``ready()`` to hold, checking every 20 ms; raise TimeoutError after ``timeout``."""
    async with asyncio.timeout(timeout):
        while not ready():
            await asyncio.sleep(0.02)


def _ms(values: Sequence[int], share: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(share * len(values)))] / 1e6


async def measure(
    url: str | Sequence[str],
    *,
    mode: Mode,
    connections: int,
    warmup: float,
    window: float,
    server_pid: int | Sequence[int] | None,
    lockstep: bool = False,
    pairing: Pairing = "seek",
    cpu_pids: Mapping[str, int] | None = None,
    connecting: int = CONNECTING,
) -> Result:
    """Connect, warm up, measure one window, stop, hang up.

    Races start at staggered times over the warm-up, as players arrive at a
    real server, so that they also end at different times; with ``lockstep``
    every race starts at once (and they all end and restart together).
    ``cpu_pids``: processes (and their children) whose CPU time in the window
    goes in ``extra``, by name. ``connecting``: handshakes at once.
    """
    gen = Generator(mode, lockstep=lockstep, pairing=pairing)
    clients = [gen.client(index) for index in range(connections)]
    await connect_all(url, clients, at_once=connecting)
    racers = [c for c in clients if isinstance(c, Racer)]
    if mode == "race":
        await _until(lambda: all(c.welcomed or c.closed for c in racers), 60)
    gen.start(0.0 if lockstep or mode == "echo" else warmup)
    unready = await _warm_up(racers, warmup, rooms=pairing == "rooms")
    pids = [server_pid] if isinstance(server_pid, int) else list(server_pid or ())
    measured = await _window(gen, window, pids, dict(cpu_pids or {}))
    gen.stop()
    try:
        await asyncio.wait_for(gen.drained.wait(), 5)
    finally:
        await _hang_up(clients)
    extra = None if cpu_pids is None else _extra(gen, measured, unready)
    return _result(gen, measured, extra)


async def _warm_up(racers: Sequence[Racer], seconds: float, *, rooms: bool) -> int:
    """Wait out the warm-up; with ``rooms``, only once every pair is racing (or after
    30 s). The players not racing when it ends (always 0 without ``rooms``)."""
    if rooms:
        with contextlib.suppress(TimeoutError):
            await _until(lambda: all(c.seat >= 0 or c.closed for c in racers), 30)
    await asyncio.sleep(seconds)
    return sum(1 for c in racers if c.closed or c.seat < 0) if rooms else 0


@dataclass(frozen=True, slots=True)
class _Window:
    """What the window measured besides the generator's counts: its length, CPU times."""

    elapsed: float
    own_cpu: float
    server_cpu: float
    others_cpu: dict[str, float]
    """Of the processes named with ``--cpu-pid``, by name."""
    ended_at: float
    """Wall clock, to compare with the servers' logs."""


async def _window(
    gen: Generator, seconds: float, pids: Sequence[int], named: Mapping[str, int]
) -> _Window:
    """Record round trips for ``seconds``, and the CPU time of every process concerned."""
    server, others = _cpu(pids), {name: _cpu([pid]) for name, pid in named.items()}
    started, own = time.perf_counter(), _own_cpu()
    gen.recording = True
    await asyncio.sleep(seconds)
    gen.recording = False
    elapsed, ended_at = time.perf_counter() - started, time.time()
    own, server = _own_cpu() - own, _cpu(pids) - server
    others = {name: round(_cpu([pid]) - others[name], 3) for name, pid in named.items()}
    return _Window(elapsed, own, server, others, ended_at)


def _extra(gen: Generator, window: _Window, unready: int) -> dict[str, Any]:
    """What ``--cpu-pid`` adds to the result, for the multi-worker benchmark."""
    return {
        "cpu_s": window.others_cpu,
        "frames_sent": gen.sent,
        "pairing": gen.pairing,
        "unready_at_window": unready,
        "window_ended_at": window.ended_at,
    }


def _result(gen: Generator, window: _Window, extra: dict[str, Any] | None) -> Result:
    latencies = sorted(gen.latencies)
    count, elapsed, server_cpu = len(latencies), window.elapsed, window.server_cpu
    return Result(
        mode=gen.mode,
        lockstep=gen.lockstep,
        connections=len(gen.clients),
        round_trips=count,
        window_s=round(elapsed, 3),
        rt_per_s=round(count / elapsed, 1),
        p50_ms=round(_ms(latencies, 0.50), 3),
        p99_ms=round(_ms(latencies, 0.99), 3),
        max_ms=round(latencies[-1] / 1e6 if latencies else float("nan"), 3),
        races=gen.races,
        errors=gen.errors,
        server_cpu_s=round(server_cpu, 3),
        server_cpu_us_per_rt=round(server_cpu / count * 1e6, 2) if count else float("nan"),
        generator_cpu_pct=round(window.own_cpu / elapsed * 100, 1),
        generator_loop=type(asyncio.get_running_loop()).__module__.split(".")[0],
        extra=extra,
    )


async def _hang_up(clients: Sequence[Client]) -> None:
    for client in clients:
        if client.transport is not None and not client.closed:
            client.transport.send_close(WSCloseCode.OK)
            client.transport.disconnect()
    await asyncio.sleep(0.2)  # let the close frames go out


def _own_cpu() -> float:
    times = os.times()
    return times.user + times.system


def _cpu(pids: Sequence[int]) -> float:
    """CPU time of the processes ``pids`` and of their children."""
    return sum(tree_cpu_seconds(pid) for pid in pids)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not all(url.startswith("ws://127.0.0.1:") for url in args.url):
        parser.error("the generator only loads servers on 127.0.0.1")
    named = None
    if args.cpu_pid:
        pairs = [item.partition("=") for item in args.cpu_pid]
        named = {name: int(pid) for name, _, pid in pairs}
    raise_open_files()
    run = measure(
        args.url[0] if len(args.url) == 1 else args.url,
        mode=args.mode,
        connections=args.connections,
        warmup=args.warmup,
        window=args.window,
        server_pid=args.server_pid,
        lockstep=args.lockstep,
        pairing=args.pairing,
        cpu_pids=named,
        connecting=args.connecting,
    )
    result = run_loop(run, "uvloop" if _has_uvloop() else "asyncio")
    fields = asdict(result)
    if fields["extra"] is None:  # the output of a plain run, as it always was
        del fields["extra"]
    print(json.dumps(fields))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.loadgen", description=__doc__)
    parser.add_argument(
        "--url",
        required=True,
        action="append",
        help="ws://127.0.0.1:PORT/ws; several: the connections round robin over them",
    )
    parser.add_argument("--mode", choices=("race", "echo"), required=True)
    parser.add_argument("-n", "--connections", type=int, default=1000)
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before the window")
    parser.add_argument("--window", type=float, default=5.0, help="seconds measured")
    parser.add_argument(
        "--lockstep",
        action="store_true",
        help="start every race at once, not spread over the warm-up",
    )
    _add_cluster_options(parser)
    return parser


def _add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """The options the multi-worker benchmark (bench/cluster.py) uses most."""
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        help="read this process's CPU time, its children's included (several: the sum)",
    )
    parser.add_argument(
        "--cpu-pid",
        action="append",
        metavar="NAME=PID",
        help="also report this process's CPU time in the window, under extra",
    )
    parser.add_argument(
        "--connecting", type=int, default=CONNECTING, help="handshakes at once, at the start"
    )
    parser.add_argument(
        "--pairing",
        choices=("seek", "rooms"),
        default="seek",
        help="quick match, or each pair of players in a room of its own, then rematches",
    )


def _has_uvloop() -> bool:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
