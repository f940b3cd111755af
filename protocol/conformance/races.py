"""The races' checks: quick match, a race to ``game_over``, rooms, spectators, resume, rematch.

PROTOCOL.md, "Server to client", "Deciding the race" and "Dealing, verifiably".
Two of the run's own clients seek with rules nobody else is likely to seek, then
race at once, each playing the first legal card the engine finds as soon as
its previous play is acknowledged: mirror and winnable, so the first to play
its 52nd card wins. Every event of the race is kept with its ``seq``, for the
checks that come after ``game_over``, among them the deal, verified with
:func:`engine.check_deal` from the revealed seeds.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

import engine

from .wire import Peer, Racer, Unexpected

if TYPE_CHECKING:
    from .checks import Context, Tally

__all__ = ["RACE_EVENTS", "race_suite", "room_suite"]

RULES = {"deal": "mirror", "winnable_only": True, "tiebreak": "first", "time_limit_s": 3599}
"""Quick match pairs equal rules only: these are the run's own (and clear)."""
RACE_EVENTS = frozenset({"game_start", "played", "redealt", "status", "game_over"})
"""The events that carry a race's ``seq``."""


async def race_suite(ctx: Context) -> None:
    report = ctx.report
    a, b = await Peer.open(ctx.url, report.log), await Peer.open(ctx.url, report.log)
    try:
        await a.hello()
        await b.hello()
        start_a, start_b = await _seek_pair(report, a, b)
        _check_start(report, start_a, start_b, (a.name, b.name))
        await _illegal_play(report, a, start_a)
        (events_a, acks_a), (events_b, acks_b) = await asyncio.gather(
            _race(a, start_a), _race(b, start_b)
        )
        report.check("every play is acknowledged by its own played", acks_a and acks_b)
        _check_events(report, events_a, events_b)
        _check_over(report, start_a, events_a[-1])
        ctx.racer = a.name
        ctx.finished.append(start_a["game_id"])
        await _report_race(report, a, start_a["game_id"])
    finally:
        await a.close()
        await b.close()


async def _seek_pair(report: Tally, a: Peer, b: Peer) -> tuple[dict[str, Any], dict[str, Any]]:
    await a.send(type="seek", rules=RULES, id="s")
    seeking = await a.recv("seeking")
    filled = {"redeals": 0, "rated": False, **RULES}
    report.check(
        "seek is answered seeking, with its id and the rules filled in",
        seeking == {"type": "seeking", "id": "s", "rules": filled},
        seeking,
    )
    await b.send(type="seek", rules=RULES)
    before = await b.until("game_start")
    report.check("seeking comes before the game_start it leads to", before[0]["type"] == "seeking")
    return await a.recv("game_start"), before[-1]


def _check_start(
    report: Tally, start_a: dict[str, Any], start_b: dict[str, Any], names: tuple[str, str]
) -> None:
    same = start_a["game_id"] == start_b["game_id"] and start_a["seq"] == start_b["seq"] == 0
    seats = {start_a["seat"], start_b["seat"]} == {0, 1}
    ours = sorted(start_a["players"]) == sorted(names)
    report.check("game_start to both: one race, seats 0 and 1, seq 0", same and seats, start_b)
    report.check("quick match paired the two seekers of equal rules", ours, start_a["players"])
    boards = start_a["boards"]
    report.check("mirror: both seats are dealt the same layout", boards[0] == boards[1])
    commits = start_a["commits"]
    hexes = all(len(c) == 64 and set(c) <= set("0123456789abcdef") for c in commits)
    report.check("game_start.commits: two SHA-256s in lowercase hex", hexes, commits)


async def _illegal_play(report: Tally, peer: Peer, start: dict[str, Any]) -> None:
    board = Racer(start["boards"][start["seat"]], 0).board
    legal = set(board.legal_plays())
    card = next(c for bed in board.beds for c in bed if c not in legal)
    await peer.send(type="play", card=str(card), id="bad")
    reply = await peer.recv()
    wanted = (reply.get("code"), reply.get("id")) == ("illegal_move", "bad")
    report.check("a card that cannot be played is illegal_move, with the id", wanted, reply)


async def _race(peer: Peer, start: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """Play legal cards until ``game_over``: the race's events as seen, and whether
    each play was acknowledged by the mover's own ``played`` of that card."""
    seat, racer = start["seat"], Racer(start["boards"][start["seat"]], start["rules"]["redeals"])
    events, acked = [start], True
    while True:
        card = racer.next_play()
        if card is not None:
            await peer.send(type="play", card=card)
        elif racer.can_redeal:
            await peer.send(type="redeal")
        while True:
            message = await peer.recv()
            kind = message["type"]
            if kind in RACE_EVENTS and message.get("game_id") == start["game_id"]:
                events.append(message)
            mine = message.get("seat") == seat
            if kind == "game_over":
                if card is not None:  # its play came too late: refused
                    await peer.recv("error")
                return events, acked
            if kind == "played" and mine:
                acked = acked and message["card"] == card
                racer.played(message["card"])
                break
            if kind == "redealt" and mine:
                racer.redealt(message["board"])
                break
            if kind == "error":
                raise Unexpected(f"{peer.name}: {message}")


def _check_events(
    report: Tally, events_a: list[dict[str, Any]], events_b: list[dict[str, Any]]
) -> None:
    seqs = [event["seq"] for event in events_a]
    report.check(
        "seq counts up by one from game_start's 0 to game_over",
        seqs == list(range(len(seqs))),
        seqs[:12],
    )

    def shown(event: dict[str, Any]) -> tuple[object, ...]:
        return event["seq"], event["type"], event.get("seat"), event.get("card"), event.get("t_ms")

    same = [shown(e) for e in events_a[1:]] == [shown(e) for e in events_b[1:]]
    report.check("both players see every event, with the same numbers", same)
    times = [event["t_ms"] for event in events_a if "t_ms" in event]
    steady = all(later >= earlier for earlier, later in itertools.pairwise(times))
    report.check("t_ms never goes back along seq", steady, times[:12], revision=3)


def _check_over(report: Tally, start: dict[str, Any], over: dict[str, Any]) -> None:
    winner = over.get("winner")
    report.check(
        "game_over: the first to clear wins, reason cleared, 52 cards",
        over["type"] == "game_over"
        and over["reason"] == "cleared"
        and over["counts"][winner] == 52,
        over,
    )
    verdict = engine.check_deal(
        winnable=start["rules"]["winnable_only"],
        seeds=over["seeds"],
        commits=start["commits"],
        boards=start["boards"],
    )
    report.check(
        "the deal verifies: the seeds hash to the commits and deal the boards",
        verdict.ok,
        verdict.report(),
    )
    report.check(
        "mirror: one seed for both seats", over["seeds"][0] == over["seeds"][1], over["seeds"]
    )


async def _report_race(report: Tally, peer: Peer, game_id: str) -> None:
    await peer.send(type="report", game_id=game_id, reason="conformance check", id="rp")
    reply = await peer.recv()
    report.check("report is answered reported", reply.get("type") == "reported", reply, revision=3)
    await peer.send(type="report", game_id=game_id, id="rp2")
    reply = await peer.recv()
    report.check(
        "a second report of one race is not_allowed",
        reply.get("code") == "not_allowed",
        reply,
        revision=3,
    )


async def room_suite(ctx: Context) -> None:
    report = ctx.report
    peers = [await Peer.open(ctx.url, report.log) for _ in range(3)]
    a, b, c = peers
    try:
        for peer in peers:
            await peer.hello()
        start = await _open_room(report, a, b)
        await _watch_and_play(report, start, a, b, c)
        a = await _resume(ctx, start, a, b)
        peers.append(a)
        await _resign(report, start, a, b, c)
        ctx.finished.append(start["game_id"])
        await _rematch(report, start, a, b)
    finally:
        for peer in peers:
            await peer.close()


async def _open_room(report: Tally, a: Peer, b: Peer) -> dict[str, Any]:
    rules = {"deal": "mirror", "winnable_only": True}
    await a.send(type="create_room", rules=rules, id="r")
    room = await a.recv("room")
    filled = {"redeals": 0, "tiebreak": "draw", "time_limit_s": None, "rated": False, **rules}
    report.check(
        "create_room is answered room, with a code and the rules filled in",
        room.get("rules") == filled and room.get("id") == "r",
        room,
    )
    await b.send(type="join_room", code=room["code"])
    start_b = await b.recv("game_start")
    start_a = await a.recv("game_start")
    report.check(
        "join_room starts the race for both", start_a["game_id"] == start_b["game_id"], start_b
    )
    return start_a


async def _watch_and_play(report: Tally, start: dict[str, Any], a: Peer, b: Peer, c: Peer) -> None:
    await c.send(type="watch", game_id=start["game_id"], id="w")
    state = await c.recv("game_state")
    fresh = state.get("id") == "w" and state["seq"] == 0 and state["over"] is None
    report.check(
        "watch: game_state without a seat, with the id, seq 0, over null",
        "seat" not in state and fresh,
        state,
    )
    card = Racer(start["boards"][start["seat"]], 0).next_play()
    await a.send(type="play", card=card)
    seen = [await peer.recv("played") for peer in (a, b, c)]
    report.check(
        "a play reaches both players and the spectator alike, seq 1",
        seen[0] == seen[1] == seen[2] and seen[0]["seq"] == 1,
        seen,
    )


async def _resume(ctx: Context, start: dict[str, Any], a: Peer, b: Peer) -> Peer:
    """``a`` drops, ``b`` is told, ``a`` comes back twice with its token; the last connection."""
    report = ctx.report
    token, player_id = a.welcome["token"], a.welcome["player_id"]
    await a.close()
    away = await b.recv("opponent_away")
    report.check(
        "opponent_away tells the other player the grace in seconds",
        away["game_id"] == start["game_id"] and away["grace_s"] >= 0,
        away,
    )
    back = await Peer.open(ctx.url, report.log, a.name)
    welcome = await back.hello(token=token)
    report.check(
        "hello with the token is the same player", welcome["player_id"] == player_id, welcome
    )
    state = await back.recv("game_state")
    where = (state.get("seat"), state["seq"], state["boards"][start["seat"]]["count"])
    report.check(
        "resume: game_state with the seat, seq 1 and the board as it stands",
        where == (start["seat"], 1, 1),
        where,
    )
    returned = await b.recv("opponent_back")
    report.check(
        "opponent_back tells the other player", returned["game_id"] == start["game_id"], returned
    )
    again = await Peer.open(ctx.url, report.log, a.name)
    await again.hello(token=token)
    await again.recv("game_state")
    report.check(
        "a second connection with the token closes the first with 4000", await back.closed() == 4000
    )
    return again


async def _resign(report: Tally, start: dict[str, Any], a: Peer, b: Peer, c: Peer) -> None:
    await a.send(type="resign")
    ends = [(await peer.until("game_over"))[-1] for peer in (a, b, c)]
    over = ends[0]
    won = over["reason"] == "resigned" and over["winner"] == 1 - start["seat"]
    same = ends[0] == ends[1] == ends[2]
    report.check(
        "resign ends the race: the other seat wins, reason resigned, for all", won and same, over
    )


async def _rematch(report: Tally, start: dict[str, Any], a: Peer, b: Peer) -> None:
    await a.send(type="rematch", id="m")
    offered = await b.recv("rematch_offered")
    report.check(
        "rematch: the opponent is told rematch_offered",
        offered["game_id"] == start["game_id"],
        offered,
    )
    try:
        waiting = await a.recv()
    except Unexpected as nothing:
        waiting = {"nothing": str(nothing)}
    report.check(
        "rematch is answered rematch_waiting",
        waiting.get("type") == "rematch_waiting",
        waiting,
        revision=3,
    )
    await b.send(type="rematch")
    new_b = (await b.until("game_start"))[-1]
    new_a = await a.recv("game_start") if waiting.get("type") != "game_start" else waiting
    fresh = (
        new_a["game_id"] == new_b["game_id"] != start["game_id"]
        and new_a["rules"] == start["rules"]
    )
    report.check("both asking starts a new race, same rules", fresh, new_a)
    await b.send(type="resign")
    await a.until("game_over")
    await b.until("game_over")
