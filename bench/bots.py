"""What bots cost: ``python -m bench.bots [--races 1000] [--level 5] [--window 10]``.

One race server on the server core; on the generator core, first a probe alone:
``--pairs`` human races whose players each play a card every ``--pace``
seconds, timing each ``play`` to its ``played``. Then the same probe beside
``--races`` bot races at once (each opened by a client seeking a bot at once,
who only watches and asks for a rematch at each ``game_over``, so the bots
play all the window). Reported: the server's CPU in each window (as a share of
one core, and per bot card), the bot cards played, and the probe's p50 and
p99 with and without the bots, and the clients' own CPU (one process: near 100%
means the probe's times include waiting for its own process). Level 5 (about
0.3 s a card) is the busiest.
The last line is the result as JSON; ``make bench`` runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect

import engine

from .common import raise_open_files, tree_cpu_seconds
from .run import GENERATOR_CORE, server

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main", "measure"]

WINNABLE = {"deal": "mirror", "winnable_only": True}


async def _player(url: str, name: str) -> ClientConnection:
    ws = await connect(url, max_size=2**22, proxy=None)
    await ws.send(json.dumps({"type": "hello", "name": name}))
    while json.loads(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def _until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] == kind:
            return message


async def _bot_race(url: str, name: str, level: int, cards: list[int], stop: asyncio.Event) -> None:
    """A client that seeks a bot at once and rematches at each game_over, counting bot cards."""
    ws = await _player(url, name)
    await ws.send(
        json.dumps({"type": "seek", "rules": WINNABLE, "bot": {"after_s": 0, "level": level}})
    )
    while not stop.is_set():
        message = json.loads(await ws.recv())
        if message["type"] == "played" and message["seat"] == 1:
            cards[0] += 1
        elif message["type"] == "game_over":
            await ws.send(json.dumps({"type": "rematch"}))
    await ws.close()


async def _probe_pair(
    url: str, tag: str, pace: float, times: list[float], stop: asyncio.Event
) -> None:
    """Two humans in a room, each playing a legal card every ``pace`` s; play-to-ack times."""
    host, guest = await _player(url, f"{tag}h"), await _player(url, f"{tag}g")
    while not stop.is_set():
        await host.send(json.dumps({"type": "create_room", "rules": WINNABLE}))
        code = (await _until(host, "room"))["code"]
        await guest.send(json.dumps({"type": "join_room", "code": code}))
        start = await _until(host, "game_start")
        await _until(guest, "game_start")
        board = start["boards"][0]
        for card in _greedy(board):
            if stop.is_set():
                break
            sent = time.perf_counter()
            await host.send(json.dumps({"type": "play", "card": card}))
            await _until(host, "played")
            times.append(time.perf_counter() - sent)
            await asyncio.sleep(pace)  # a person's pace, not a wait for an event
        await host.send(json.dumps({"type": "resign"}))
        await _until(host, "game_over")
        await _until(guest, "game_over")
    await host.close()
    await guest.close()


def _greedy(board: dict[str, Any]) -> list[str]:
    """Every card of a wire board's layout in an order that plays them all (greedily)."""
    beds = tuple(tuple(engine.Card.parse(code) for code in bed) for bed in board["beds"])
    bouquet = tuple(engine.Card.parse(code) for code in board["bouquet"])
    return [str(card) for card in engine.greedy_plays(engine.Board(engine.Layout(beds, bouquet)))]


async def _window(
    url: str, pid: int, *, races: int, level: int, pairs: int, pace: float, window: float
) -> dict[str, Any]:
    stop, cards, times = asyncio.Event(), [0], list[float]()
    tasks = [
        asyncio.create_task(_bot_race(url, f"br{n}x{time.time_ns() % 10**6}", level, cards, stop))
        for n in range(races)
    ]
    tag = f"pp{time.time_ns() % 10**6}"
    tasks += [
        asyncio.create_task(_probe_pair(url, f"{tag}x{n}", pace, times, stop)) for n in range(pairs)
    ]
    await asyncio.sleep(3.0)  # every race under way: a warm-up, not a wait for an event
    cpu, started, counted, timed = tree_cpu_seconds(pid), time.perf_counter(), cards[0], len(times)
    own = time.process_time()
    await asyncio.sleep(window)  # the measured window
    cpu, elapsed = tree_cpu_seconds(pid) - cpu, time.perf_counter() - started
    own = time.process_time() - own
    played, latencies = cards[0] - counted, sorted(times[timed:])
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "races": races,
        "bot_cards_per_s": round(played / elapsed, 1),
        "server_cpu_pct": round(100 * cpu / elapsed, 1),
        "cpu_us_per_bot_card": round(1e6 * cpu / played, 1) if played else None,
        "clients_cpu_pct": round(100 * own / elapsed, 1),
        "probe_plays": len(latencies),
        "probe_p50_ms": round(1000 * statistics.median(latencies), 2) if latencies else None,
        "probe_p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 2)
        if latencies
        else None,
    }


def measure(races: int, level: int, pairs: int, pace: float, window: float) -> dict[str, Any]:
    """Both windows, each on a fresh server."""
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        for label, count in (("alone", 0), ("with_bots", races)):
            with server("race", "asyncio", Path(scratch)) as (port, pid):
                url = f"ws://127.0.0.1:{port}/ws"
                results[label] = asyncio.run(
                    _window(
                        url, pid, races=count, level=level, pairs=pairs, pace=pace, window=window
                    )
                )
    return {"level": level, **results}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__)
    parser.add_argument("--races", type=int, default=1000, help="bot races at once")
    parser.add_argument("--level", type=int, choices=range(1, 6), default=5, help="the bots' level")
    parser.add_argument("--pairs", type=int, default=10, help="human races in the probe")
    parser.add_argument("--pace", type=float, default=0.3, help="seconds between a probe's plays")
    parser.add_argument("--window", type=float, default=10.0, help="seconds measured")
    args = parser.parse_args(argv)
    raise_open_files()
    os.sched_setaffinity(0, {int(GENERATOR_CORE)})  # the server has the other core
    result = measure(args.races, args.level, args.pairs, args.pace, args.window)
    for label in ("alone", "with_bots"):
        print(f"{label:10} {result[label]}", file=sys.stderr)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
