"""``python -m protocol.conformance --serve URL``: a scripted opponent for a client author.

It says hello, then opens a private room and prints its code (or, with
``--seek``, seeks with the given rules), and waits for the author's client to
join. It races at a steady pace, one legal card every ``--pace`` seconds
(redealing when stuck), reads everything the server sends, and after
``game_over`` offers a rematch and races again if the other side accepts, up to
``--races`` races. As it goes it prints what it saw, one check a line as the
conformance run does: every event numbered one more than the last, ``t_ms``
never going back, the opponent's plays, the result, and the deal verified from
the revealed seeds. It exits 0 only if every check passed.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

import engine

from .checks import Tally
from .races import RACE_EVENTS
from .wire import Peer, Racer, Unexpected

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Script", "serve"]


@dataclass(frozen=True)
class Script:
    """What the scripted peer does."""

    rules: dict[str, Any]
    seek: bool = False
    pace: float = 1.0
    """Seconds between its plays."""
    races: int = 1
    wait: float = 300.0
    """Seconds it waits for an opponent, and for the opponent to finish or accept a rematch."""
    name: str | None = None


async def serve(
    url: str,
    script: Script,
    out: TextIO | None = sys.stdout,
    on_room: Callable[[str], None] | None = None,
) -> Tally:
    """Race as ``script`` says on the server at ``url``; the report of what it saw.

    ``on_room`` is told the room's code as soon as the server gives it.
    """
    report = Tally(out)
    peer = await Peer.open(url, report.log, script.name)
    try:
        welcome = await peer.hello()
        _say(report, f"hello: {peer.name} ({welcome['player_id']})")
        start = await _find_opponent(report, peer, script, on_room)
        for number in range(1, script.races + 1):
            events = await _race(peer, start, script)
            _check(report, number, start, events)
            if number == script.races:
                break
            await peer.send(type="rematch")
            _say(report, "rematch offered")
            again = await _rematched(peer, script.wait)
            if again is None:
                _say(report, "no rematch: the opponent did not accept")
                break
            start = again
            _started(report, start)
    except Unexpected as exc:
        report.check("the script ran to its end", False, exc)
    finally:
        await peer.close()
    report.check(
        f"every frame read ({len(report.log.frames)}) is a valid message",
        not report.log.invalid,
        report.log.invalid[:3],
    )
    _say(report, report.summary())
    return report


def _say(report: Tally, line: str) -> None:
    if report.out is not None:
        print(line, file=report.out, flush=True)


def _started(report: Tally, start: dict[str, Any]) -> None:
    players = " vs ".join(start["players"])
    _say(report, f"game_start {start['game_id']}: {players}, seat {start['seat']}")


async def _find_opponent(
    report: Tally, peer: Peer, script: Script, on_room: Callable[[str], None] | None
) -> dict[str, Any]:
    if script.seek:
        await peer.send(type="seek", rules=script.rules)
        seeking = await peer.recv("seeking")
        _say(report, f"seeking: {seeking['rules']}")
    else:
        await peer.send(type="create_room", rules=script.rules)
        room = await peer.recv("room")
        _say(
            report,
            f'room {room["code"]}: join it with {{"type":"join_room","code":"{room["code"]}"}}',
        )
        if on_room is not None:
            on_room(room["code"])
    start = await peer.recv("game_start", timeout=script.wait)
    _started(report, start)
    return start


async def _race(peer: Peer, start: dict[str, Any], script: Script) -> list[dict[str, Any]]:
    """Play at the script's pace until ``game_over``; every event of the race as seen."""
    loop = asyncio.get_running_loop()
    seat, racer = start["seat"], Racer(start["boards"][start["seat"]], start["rules"]["redeals"])
    events, pending, due = [start], False, loop.time() + script.pace
    while True:
        can_move = not pending and (racer.next_play() is not None or racer.can_redeal)
        try:
            message = await peer.recv(
                timeout=max(0.0, due - loop.time()) if can_move else script.wait
            )
        except Unexpected:
            if not can_move:
                raise
            card = racer.next_play()
            await (peer.send(type="play", card=card) if card else peer.send(type="redeal"))
            pending = True
            continue
        if message["type"] in RACE_EVENTS and message.get("game_id") == start["game_id"]:
            events.append(message)
        if message["type"] == "game_over":
            if pending:  # its last play came after the end: refused
                await peer.recv("error")
            return events
        if message.get("seat") == seat and message["type"] == "played":
            racer.played(message["card"])
        elif message.get("seat") == seat and message["type"] == "redealt":
            racer.redealt(message["board"])
        if message.get("seat") == seat and message["type"] in ("played", "redealt"):
            pending, due = False, loop.time() + script.pace
        elif message["type"] == "error":
            raise Unexpected(f"the server refused a play: {message}")


async def _rematched(peer: Peer, wait: float) -> dict[str, Any] | None:
    """The next race's ``game_start``, or None if the offer lapses or nobody accepts in time."""
    try:
        while True:
            message = await peer.recv(timeout=wait)
            if message["type"] == "game_start":
                return message
            if message["type"] == "error":
                return None
    except Unexpected:
        return None


def _check(report: Tally, number: int, start: dict[str, Any], events: list[dict[str, Any]]) -> None:
    over, other = events[-1], 1 - start["seat"]
    seqs = [event["seq"] for event in events]
    report.check(
        f"race {number}: every event numbered one more than the last",
        seqs == list(range(len(seqs))),
        seqs[:12],
    )
    times = [event["t_ms"] for event in events if "t_ms" in event]
    report.check(f"race {number}: t_ms never goes back", times == sorted(times), times[:12])
    plays = sum(1 for event in events if event["type"] == "played" and event["seat"] == other)
    _say(
        report,
        f"race {number}: the opponent played {plays} cards; "
        f"{over['result']}, {over['reason']}, counts {over['counts']}",
    )
    verdict = engine.check_deal(
        winnable=start["rules"]["winnable_only"],
        seeds=over["seeds"],
        commits=start["commits"],
        boards=start["boards"],
    )
    report.check(
        f"race {number}: the deal verifies from the revealed seeds", verdict.ok, verdict.report()
    )
