"""The lobby: ``lobby``, ``seek``, ``create_room``, ``join_room``, ``cancel``."""

from __future__ import annotations

import asyncio

from .conftest import WINNABLE, lobby_until

DEFAULT_RULES = {
    "deal": "independent",
    "winnable_only": False,
    "redeals": 0,
    "tiebreak": "draw",
    "time_limit_s": None,
    "rated": False,
}


async def test_lobby_snapshot(server, player):
    client = await player(server)
    await client.send(type="lobby", id="l")
    snapshot = await client.recv("lobby")
    assert snapshot == {
        "type": "lobby",
        "online": 1,
        "seeking": 0,
        "seeks": [],
        "rooms": [],
        "rooms_total": 0,
        "games": [],
        "games_total": 0,
        "arenas": [],
        "daily": {"date": server.daily.today(), "players": 0, "best_ms": None},
        "id": "l",
    }


async def test_lobby_counts_online_seeking_public_rooms_and_races(server, player, race):
    racing = await race(server)
    seeker = await player(server)
    await seeker.send(type="seek", rules={"redeals": 1})
    await seeker.recv("seeking")
    public = await player(server)
    await public.send(type="create_room", public=True, rules={"tiebreak": "first"}, id="r")
    room = await public.recv("room")
    assert room["id"] == "r"
    assert len(room["code"]) >= 4
    assert room["rules"] == {**DEFAULT_RULES, "tiebreak": "first"}
    private = await player(server)
    await private.send(type="create_room")
    hidden = await private.recv("room")
    assert hidden["code"] != room["code"]
    viewer = await player(server)

    await viewer.send(type="lobby")
    snapshot = await viewer.recv("lobby")
    assert snapshot["online"] == 6
    assert snapshot["seeking"] == 1
    assert snapshot["seeks"] == [{"rules": {**DEFAULT_RULES, "redeals": 1}, "count": 1}]
    assert (snapshot["rooms_total"], snapshot["games_total"]) == (1, 1)
    assert snapshot["rooms"] == [
        {"code": room["code"], "host": public.name, "rules": {**DEFAULT_RULES, "tiebreak": "first"}}
    ]
    assert snapshot["games"] == [
        {
            "game_id": racing.game_id,
            "players": [racing.a.name, racing.b.name],
            "counts": [0, 0],
            "bots": [False, False],
        }
    ]

    # A player who leaves is no longer online, and their seek and room go with them.
    await seeker.close()
    await public.close()
    await racing.b.close()
    await racing.a.recv("opponent_away")
    snapshot = await lobby_until(viewer, lambda lobby: lobby["online"] == 3)
    assert (snapshot["seeking"], snapshot["rooms"]) == (0, [])
    assert snapshot["games"][0]["game_id"] == racing.game_id  # the race waits for b


async def test_seek_fills_in_default_rules(server, player):
    client = await player(server)
    await client.send(type="seek", id=1)
    assert await client.recv("seeking") == {"type": "seeking", "rules": DEFAULT_RULES, "id": 1}


async def test_seek_with_every_rule(server, player):
    client = await player(server)
    rules = {
        "deal": "mirror",
        "winnable_only": True,
        "redeals": 1,
        "tiebreak": "first",
        "time_limit_s": 30,
        "rated": True,
    }
    await client.send(type="seek", rules=rules)
    assert (await client.recv("seeking"))["rules"] == rules
    await client.send(type="cancel")
    await client.recv("cancelled")
    await client.send(type="seek", rules={**rules, "time_limit_s": 3600})
    assert (await client.recv("seeking"))["rules"]["time_limit_s"] == 3600


async def test_seek_pairs_only_equal_rules(server, player):
    a, b, c = await player(server), await player(server), await player(server)
    await a.send(type="seek", rules={"redeals": 1})
    await a.recv("seeking")
    await b.send(type="seek", rules={"redeals": 0})
    await b.recv("seeking")
    # Defaults filled in, c's rules equal a's: they are paired, b keeps waiting.
    await c.send(type="seek", rules={"redeals": 1, "deal": "independent", "time_limit_s": None})
    await c.recv("seeking")
    start_c = await c.recv("game_start")
    start_a = await a.recv("game_start")
    assert start_a["game_id"] == start_c["game_id"]
    assert (start_a["seat"], start_c["seat"]) == (0, 1)
    assert start_a["players"] == start_c["players"] == [a.name, c.name]
    assert start_a["rules"]["redeals"] == 1
    assert start_a["seq"] == start_c["seq"] == 0
    assert start_a["boards"] == start_c["boards"]
    await b.quiet()


async def test_game_start_boards(server, race):
    racing = await race(server, {"deal": "mirror", "winnable_only": True, "redeals": 1})
    boards = racing.start_a["boards"]
    assert boards[0] == boards[1]
    board = boards[0]
    assert [len(bed) for bed in board["beds"]] == [6] * 6
    assert len(board["bouquet"]) == 16
    cards = [card for bed in board["beds"] for card in bed] + board["bouquet"]
    assert len(set(cards)) == 52
    assert board["foundations"] == {"S": 0, "H": 0, "D": 0, "C": 0}
    assert (board["count"], board["status"], board["redeals_left"]) == (0, "playing", 1)


async def test_cancel_leaves_the_queue(server, player):
    a, b = await player(server), await player(server)
    await a.send(type="seek")
    await a.recv("seeking")
    await a.send(type="cancel", id="c")
    assert await a.recv("cancelled") == {"type": "cancelled", "id": "c"}
    await b.send(type="seek")
    await b.recv("seeking")
    await a.send(type="lobby")
    assert (await a.recv("lobby"))["seeking"] == 1
    await b.quiet()  # no game_start: a had left the queue


async def test_cancel_with_nothing_to_cancel(server, player):
    client = await player(server)
    await client.send(type="cancel")
    await client.recv("cancelled")


async def test_cancel_closes_the_room(server, player):
    host, guest = await player(server), await player(server)
    await host.send(type="create_room", public=True)
    room = await host.recv("room")
    await host.send(type="cancel")
    await host.recv("cancelled")
    await guest.send(type="join_room", code=room["code"], id="j")
    await guest.error("room_not_found", id="j")
    await guest.send(type="lobby")
    assert (await guest.recv("lobby"))["rooms"] == []


async def test_join_room_starts_the_race(server, player):
    host, guest = await player(server), await player(server)
    await host.send(type="create_room", rules=WINNABLE)
    room = await host.recv("room")
    # Codes are read out loud: any case, stray spaces are fine.
    await guest.send(type="join_room", code=f" {room['code'].lower()} ", id="j")
    start_guest = await guest.recv("game_start")
    assert start_guest["id"] == "j"
    start_host = await host.recv("game_start")
    assert "id" not in start_host
    assert (start_host["seat"], start_guest["seat"]) == (0, 1)
    assert start_host["players"] == [host.name, guest.name]
    assert start_host["rules"] == {**DEFAULT_RULES, **WINNABLE}


async def test_join_room_errors(server, player, race):
    host, guest, late = await player(server), await player(server), await player(server)
    await late.send(type="join_room", code="ZZZZZZ", id=1)
    await late.error("room_not_found", id=1)
    await host.send(type="create_room", rules=WINNABLE)
    room = await host.recv("room")
    await host.send(type="join_room", code=room["code"], id=2)
    await host.error("busy", id=2)  # one's own room
    await guest.send(type="join_room", code=room["code"])
    await guest.recv("game_start")
    await host.recv("game_start")
    await late.send(type="join_room", code=room["code"], id=3)
    await late.error("room_full", id=3)
    await guest.send(type="resign")
    await guest.until("game_over")
    await late.send(type="join_room", code=room["code"], id=4)
    await late.error("room_not_found", id=4)  # the room closed with its race


async def test_two_players_join_one_room_at_once(server, player):
    host, b, c = await player(server), await player(server), await player(server)
    await host.send(type="create_room", rules=WINNABLE)
    code = (await host.recv("room"))["code"]
    await asyncio.gather(b.send(type="join_room", code=code), c.send(type="join_room", code=code))
    replies = [await b.recv(), await c.recv()]
    assert sorted(reply["type"] for reply in replies) == ["error", "game_start"]
    error = next(reply for reply in replies if reply["type"] == "error")
    assert error["code"] == "room_full"
    start = next(reply for reply in replies if reply["type"] == "game_start")
    assert (await host.recv("game_start"))["game_id"] == start["game_id"]
    await b.quiet()
    await c.quiet()


async def test_busy_while_seeking_in_a_room_or_racing(server, player, race):
    seeker, host = await player(server), await player(server)
    await seeker.send(type="seek")
    await seeker.recv("seeking")
    await seeker.send(type="seek", id=1)
    await seeker.error("busy", id=1)
    await seeker.send(type="create_room", id=2)
    await seeker.error("busy", id=2)
    await host.send(type="create_room")
    code = (await host.recv("room"))["code"]
    await host.send(type="seek", id=3)
    await host.error("busy", id=3)
    await seeker.send(type="join_room", code=code, id=4)
    await seeker.error("busy", id=4)

    racing = await race(server)
    for kind, fields in [("seek", {}), ("create_room", {}), ("join_room", {"code": code})]:
        await racing.a.send(type=kind, id=kind, **fields)
        await racing.a.error("busy", id=kind)
    await racing.a.send(type="watch", game_id=racing.game_id, id="w")
    await racing.a.error("busy", id="w")


async def test_bad_message_and_unknown_type_after_hello(server, player):
    client = await player(server)
    await client.send(type="seek", rules={"redeals": 2}, id="r")
    await client.error("bad_message", id="r")
    await client.send(type="seek", rules={"time_limit_s": 10})
    await client.error("bad_message")
    await client.send(type="join_room")
    await client.error("bad_message")
    await client.send_raw("[1, 2]")
    await client.error("bad_message")
    await client.send_raw('{"id": 5}')
    await client.error("bad_message", id=5)
    await client.send(type="seek", id="x" * 65)
    await client.error("bad_message")
    await client.send(type="warp", id="x" * 64)
    await client.error("unknown_type", id="x" * 64)
    await client.send_raw("")
    await client.error("bad_json")
    # Unknown fields are ignored.
    await client.send(type="cancel", colour="blue", id=9)
    assert (await client.recv("cancelled"))["id"] == 9
