"""How long a worker's races take to go on elsewhere after its ``kill -9``.

:func:`measure` makes ``races`` races, each between a player connected to
``w2`` (who opens a room) and one connected to ``w1`` (who joins it by its
code), so that ``w2`` owns every race and the ``w1`` player's socket is
proxied to it. The ``w1`` player makes :data:`PLAYS` plays, each
acknowledged, so that each race's journal holds moves. Then it calls
``kill`` (which sends SIGKILL to ``w2``) and, for every race at once, waits
for the ``w1`` player's socket to close (``w1`` closes it with 1012 once it
has taken the race over), connects to ``w1`` again with the player's token
and waits for ``game_state``. It reports, for each race, the time from the
kill to that close and to that ``game_state``, and checks that the state
holds every acknowledged play.

The lease is 3 s and the beat 1 s (``server/cluster/shared.py``): the survivor sees
the lease lapse between 2 and 4 s after the kill, depending on where in
their beats the kill falls.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .clearing import ClearingOrder

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["PLAYS", "measure", "summary"]

PLAYS = 3
RULES = {"deal": "mirror", "winnable_only": True}
TIMEOUT = 60.0
SETTING_UP = 20
"""Races set up at once."""


@dataclass(slots=True)
class _Race:
    game_id: str
    seat: int
    joiner: ClientConnection
    owner: ClientConnection
    name: str
    token: str


async def _send(ws: ClientConnection, **message: Any) -> None:
    await ws.send(json.dumps(message))


async def _until(ws: ClientConnection, *kinds: str) -> dict[str, Any]:
    """The next message of one of ``kinds``; an ``error`` of another code raises."""
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] in kinds:
            return message
        if message["type"] == "error":
            raise RuntimeError(f"refused: {message}")


async def _player(url: str, name: str) -> tuple[ClientConnection, str]:
    ws = await connect(url, ping_interval=None, compression=None)
    await _send(ws, type="hello", name=name)
    welcome = await _until(ws, "welcome")
    return ws, welcome["token"]


async def _race(w1: str, w2: str, index: int, gate: asyncio.Semaphore) -> _Race:
    tag = f"f{os.getpid() % 10_000}x{index}"
    async with gate:
        owner, _ = await _player(w2, tag + "o")
        joiner, token = await _player(w1, tag + "j")
        await _send(owner, type="create_room", rules=RULES)
        code = (await _until(owner, "room"))["code"]
        for _ in range(100):  # w1 may look the room up before w2 has listed it
            await _send(joiner, type="join_room", code=code)
            reply = await _until(joiner, "game_start", "error")
            if reply["type"] == "game_start":
                break
            await asyncio.sleep(0.05)  # a bounded retry, not a wait for an event
        else:
            raise RuntimeError(f"race {index}: the room was never found")
        seat = reply["seat"]
        order = ClearingOrder(reply["boards"][seat])
        for play in range(PLAYS):
            frame = order.frame(play)
            assert frame is not None
            await joiner.send(frame.decode())
            while (await _until(joiner, "played"))["seat"] != seat:
                pass  # the opponent's: none here, the owner's player never plays
        return _Race(reply["game_id"], seat, joiner, owner, tag + "j", token)


async def _come_back(race: _Race, w1: str, killed: float) -> dict[str, Any]:
    """Wait for the close, connect again, and time the ``game_state``."""
    with_state: dict[str, Any] = {}
    try:
        while True:
            await race.joiner.recv()
    except ConnectionClosed:
        pass
    closed = time.monotonic() - killed
    ws = await connect(w1, ping_interval=None, compression=None)
    try:
        await _send(ws, type="hello", name=race.name, token=race.token)
        with_state = await _until(ws, "game_state")
        back = time.monotonic() - killed
    finally:
        await ws.close()
    whole = with_state["game_id"] == race.game_id and with_state["seq"] == PLAYS
    return {"closed_s": closed, "state_s": back, "code": race.joiner.close_code, "whole": whole}


async def measure(w1: str, w2: str, races: int, kill: Callable[[], None]) -> list[dict[str, Any]]:
    """Set up ``races`` races owned by ``w2``, ``kill()``, and time their coming back:
    for each race, seconds from the kill to the close and to ``game_state``."""
    gate = asyncio.Semaphore(SETTING_UP)
    async with asyncio.timeout(TIMEOUT):
        made = await asyncio.gather(*(_race(w1, w2, index, gate) for index in range(races)))
    await asyncio.sleep(0.2)  # let the last acknowledgements' frames settle
    killed = time.monotonic()
    kill()
    try:
        async with asyncio.timeout(TIMEOUT):
            backs = await asyncio.gather(*(_come_back(race, w1, killed) for race in made))
    finally:
        for race in made:
            race.owner.transport.abort()  # its server is dead
            race.joiner.transport.abort()
    return list(backs)


def summary(runs: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """Min, median and max over every race of every run; each run's median."""
    backs = [back for run in runs for back in run]
    states = sorted(back["state_s"] for back in backs)
    closes = sorted(back["closed_s"] for back in backs)
    codes: dict[str, int] = {}
    for back in backs:
        codes[str(back["code"])] = codes.get(str(back["code"]), 0) + 1
    return {
        "runs": len(runs),
        "races": len(backs),
        "plays_each": PLAYS,
        "run_medians_s": [round(statistics.median(b["state_s"] for b in run), 3) for run in runs],
        "state_min_s": round(states[0], 3),
        "state_median_s": round(statistics.median(states), 3),
        "state_max_s": round(states[-1], 3),
        "closed_min_s": round(closes[0], 3),
        "closed_median_s": round(statistics.median(closes), 3),
        "closed_max_s": round(closes[-1], 3),
        "close_codes": codes,
        "whole": sum(back["whole"] for back in backs),
    }
