"""Connections that drop, come back, or are replaced; the grace and the idle limit."""

from __future__ import annotations

import json

from .conftest import WINNABLE, apply, legal, play_out
from .hostile_helpers import write_at_once


async def test_reconnect_mid_race(start_server, connect, race):
    server = await start_server(grace=30.0)
    racing = await race(server)
    board, acks = await play_out(racing.a, racing.board_a(), limit=3)
    for ack in acks:
        assert await racing.b.recv("played") == {k: v for k, v in ack.items() if k != "id"}

    racing.a.drop()  # a dropped connection, no closing handshake
    away = await racing.b.recv("opponent_away")
    assert away == {"type": "opponent_away", "game_id": racing.game_id, "grace_s": 30}
    # The race goes on while a is away.
    theirs = legal(racing.board_b())[0]
    await racing.b.send(type="play", card=theirs)
    assert (await racing.b.recv("played"))["seq"] == 4

    back = await connect(server)
    welcome = await back.hello("ignored", token=racing.a.token, id="back")
    assert welcome["id"] == "back"
    assert welcome["player_id"] == racing.a.player_id
    state = await back.recv("game_state")
    assert "id" not in state  # the id went on the welcome
    assert state["game_id"] == racing.game_id
    assert state["seat"] == racing.seat_a
    assert state["players"] == racing.start_a["players"]
    assert state["rules"] == racing.start_a["rules"]
    assert state["seq"] == 4
    assert state["over"] is None
    mine = state["boards"][racing.seat_a]
    for key in ("beds", "bouquet", "foundations", "count"):
        assert mine[key] == board[key], key
    assert state["boards"][racing.seat_b]["count"] == 1
    assert (
        state["boards"][racing.seat_b]["foundations"]
        == apply(racing.board_b(), theirs)["foundations"]
    )
    assert await racing.b.recv("opponent_back") == {
        "type": "opponent_back",
        "game_id": racing.game_id,
    }

    card = legal(board)[0]
    await back.send(type="play", card=card, id="again")
    assert (await back.recv("played"))["seq"] == 5
    assert (await racing.b.recv("played"))["card"] == card


async def test_away_past_the_grace_abandons(start_server, connect, race):
    server = await start_server(grace=0.3)
    racing = await race(server)
    await racing.b.send(type="play", card=legal(racing.board_b())[0])
    await racing.b.recv("played")
    await racing.a.recv("played")
    await racing.a.close()
    away = await racing.b.recv("opponent_away")
    assert away["grace_s"] == 0.3  # the grace as the server applies it, not rounded up
    status = await racing.b.recv("status")
    assert status == {
        "type": "status",
        "game_id": racing.game_id,
        "seat": racing.seat_a,
        "status": "abandoned",
        "count": 0,
        "seq": 2,
    }
    over = await racing.b.recv("game_over")
    times = over["times_ms"]
    assert len(over["seeds"]) == 2
    assert {k: v for k, v in over.items() if k not in ("times_ms", "seeds")} == {
        "type": "game_over",
        "game_id": racing.game_id,
        "result": "win",
        "winner": racing.seat_b,
        "reason": "abandoned",
        "counts": [0, 1] if racing.seat_a == 0 else [1, 0],
        "ratings": None,
        "unrated": None,
        "daily": None,
        "arena": None,
        "seq": 3,
    }
    assert times[racing.seat_a] is None and isinstance(times[racing.seat_b], int)

    # Coming back later: the race is over, and game_state says so.
    back = await connect(server)
    await back.hello(token=racing.a.token)
    state = await back.recv("game_state")
    assert state["seat"] == racing.seat_a
    assert state["seq"] == 3
    assert state["over"] == over
    assert state["boards"][racing.seat_a]["status"] == "abandoned"
    await back.send(type="play", card=legal(racing.board_a())[0], id=1)
    await back.error("game_over", id=1)
    await racing.b.quiet()  # no opponent_back for a finished race
    # a was away when the race ended: there is no rematch to offer.
    await racing.b.send(type="rematch", id=2)
    await racing.b.error("game_not_found", id=2)


async def test_a_second_connection_replaces_the_first(server, connect, race):
    racing = await race(server)
    board, _ = await play_out(racing.a, racing.board_a(), limit=2)
    newer = await connect(server)
    welcome = await newer.hello(token=racing.a.token)
    assert welcome["player_id"] == racing.a.player_id
    state = await newer.recv("game_state")
    assert (state["seat"], state["seq"], state["over"]) == (racing.seat_a, 2, None)
    assert state["boards"][racing.seat_a]["count"] == 2
    await racing.a.expect_close(4000)
    # The player never left: the opponent hears of no absence.
    card = legal(board)[0]
    await newer.send(type="play", card=card)
    assert (await newer.recv("played"))["seq"] == 3
    for seq in (1, 2, 3):
        assert (await racing.b.recv("played"))["seq"] == seq


async def test_replacing_a_connection_outside_a_race(server, connect, player):
    first = await player(server)
    second = await connect(server)
    await second.hello(token=first.token)
    await first.expect_close(4000)
    await second.quiet()  # no game_state: there is no race
    await second.send(type="lobby")
    assert (await second.recv("lobby"))["online"] == 1


async def test_idle_limit_times_out(start_server, race):
    server = await start_server(idle_timeout=1.0)
    racing = await race(server)
    await racing.a.send(type="play", card=legal(racing.board_a())[0])
    await racing.a.recv("played")
    # b never plays: timed out, count final at 0, and a already has more: a wins.
    seen = await racing.b.until("game_over")
    statuses = [m for m in seen if m["type"] == "status"]
    assert statuses == [
        {
            "type": "status",
            "game_id": racing.game_id,
            "seat": racing.seat_b,
            "status": "timed_out",
            "count": 0,
            "seq": 2,
        }
    ]
    over = seen[-1]
    assert over["reason"] == "most_cards"
    assert over["winner"] == racing.seat_a
    assert over["seq"] == 3
    assert (await racing.a.until("game_over"))[-1] == over


async def test_idle_limit_both_idle_is_a_draw(start_server, race):
    server = await start_server(idle_timeout=0.3)
    racing = await race(server)
    seen = await racing.a.until("game_over")
    assert sorted((m["seat"], m["status"]) for m in seen[:-1]) == [
        (0, "timed_out"),
        (1, "timed_out"),
    ]
    assert [m["seq"] for m in seen] == [1, 2, 3]
    assert seen[-1]["result"] == "draw"
    assert seen[-1]["winner"] is None
    assert seen[-1]["reason"] == "equal_cards"
    assert seen[-1]["counts"] == [0, 0]


async def test_a_receiver_that_cannot_keep_up_is_cut_off(start_server, player):
    """With room for two queued frames, the three that ``lobby`` and a matching
    ``seek`` in one write send (``lobby``, ``seeking``, ``game_start``, which waits
    for the race's start to be journaled) overflow the seeker's queue."""
    server = await start_server(send_queue=2)
    a, b = await player(server), await player(server)
    await a.send(type="seek", rules=WINNABLE)
    await a.recv("seeking")
    write_at_once(b, json.dumps({"type": "lobby"}), json.dumps({"type": "seek", "rules": WINNABLE}))
    await b.expect_close(None)
    start = await a.recv("game_start")
    # The race goes on without them: b is away, and may come back.
    assert (await a.recv("opponent_away"))["game_id"] == start["game_id"]
