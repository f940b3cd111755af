"""A race over the wire: ``play``, ``redeal``, ``resign``, ``rematch`` and their events."""

from __future__ import annotations

import engine

from .conftest import WINNABLE, buried, legal, lobby_until, play_out, seek_pair


async def test_played_goes_to_both_with_the_id_on_the_movers_copy_only(server, race):
    racing = await race(server)
    board = racing.board_a()
    card = legal(board)[0]
    await racing.a.send(type="play", card=card, id="mine")
    mine = await racing.a.recv("played")
    theirs = await racing.b.recv("played")
    assert mine.pop("id") == "mine"
    assert "id" not in theirs
    assert mine == theirs
    assert 0 <= mine.pop("t_ms") < 60_000  # ms from the race's start: this test's own few
    in_bouquet = card in board["bouquet"]
    bed = None if in_bouquet else next(i for i, b in enumerate(board["beds"]) if b[-1:] == [card])
    assert mine == {
        "type": "played",
        "game_id": racing.game_id,
        "seat": racing.seat_a,
        "card": card,
        "from": "bouquet" if in_bouquet else "bed",
        "bed": bed,
        "count": 1,
        "status": "playing",
        "seq": 1,
    }


async def test_a_whole_race_to_cleared(server, race):
    racing = await race(server)
    board, acks = await play_out(racing.a, racing.board_a())
    assert board["count"] == 52
    assert [ack["seq"] for ack in acks] == list(range(1, 53))
    assert [ack["count"] for ack in acks] == list(range(1, 53))
    assert acks[-1]["status"] == "cleared"
    assert all(ack["status"] == "playing" for ack in acks[:-1])
    over = await racing.a.recv("game_over")
    times, seeds = over["times_ms"], over["seeds"]
    assert {k: v for k, v in over.items() if k not in ("times_ms", "seeds")} == {
        "type": "game_over",
        "game_id": racing.game_id,
        "result": "win",
        "winner": racing.seat_a,
        "reason": "cleared",
        "counts": [52, 0] if racing.seat_a == 0 else [0, 52],
        "ratings": None,
        "unrated": None,
        "daily": None,
        "arena": None,
        "seq": 53,
    }
    assert times[racing.seat_a] == acks[-1]["t_ms"]
    assert times[racing.seat_b] is None
    verdict = engine.check_deal(
        winnable=bool(racing.start_a["rules"]["winnable_only"]),
        seeds=seeds,
        commits=racing.start_a["commits"],
        boards=racing.start_a["boards"],
    )
    assert verdict.ok, verdict.report()
    seen = await racing.b.until("game_over")
    assert [m["seq"] for m in seen] == list(range(1, 54))
    assert [m["card"] for m in seen[:-1]] == [ack["card"] for ack in acks]
    assert seen[-1] == over


async def test_illegal_plays(server, race):
    racing = await race(server)
    board = racing.board_a()
    await racing.a.send(type="play", card=buried(board), id="b")
    await racing.a.error("illegal_move", id="b")
    blocked = next(c for c in board["bouquet"] if c not in legal(board))
    await racing.a.send(type="play", card=blocked)
    await racing.a.error("illegal_move")
    # A refused play changed nothing: the first legal play is seq 1, and b saw nothing before.
    card = legal(board)[0]
    await racing.a.send(type="play", card=card)
    assert (await racing.a.recv("played"))["seq"] == 1
    assert (await racing.b.recv("played"))["seq"] == 1


async def test_two_identical_plays_in_one_go(server, race):
    racing = await race(server)
    card = legal(racing.board_a())[0]
    play = f'{{"type": "play", "card": "{card}"}}'
    await racing.a.send_raw(play)  # both are sent before either reply is read
    await racing.a.send_raw(play)
    replies = [await racing.a.recv(), await racing.a.recv()]
    assert [r["type"] for r in replies] == ["played", "error"]
    assert replies[1]["code"] == "illegal_move"
    assert (await racing.b.recv("played"))["card"] == card
    await racing.b.quiet()  # exactly one played reached the opponent


async def test_redeal_when_not_stuck_is_illegal(server, race):
    racing = await race(server, {"deal": "mirror", "winnable_only": True, "redeals": 1})
    await racing.a.send(type="redeal", id="r")
    await racing.a.error("illegal_move", id="r")
    racing = await race(server)  # no redeal at all
    await racing.a.send(type="redeal")
    await racing.a.error("illegal_move")


async def test_redeal_when_stuck(server, race):
    """Any deal gets stuck under greedy play (only a cleared one does not, 2 in 10**9)."""
    racing = await race(server, {"redeals": 1})
    board, acks = await play_out(racing.a, racing.board_a())
    status = acks[-1]["status"] if acks else racing.board_a()["status"]
    assert status == "stuck"
    assert board["count"] < 52
    await racing.a.send(type="redeal", id="r")
    redealt = await racing.a.recv("redealt")
    assert redealt.pop("id") == "r"
    assert redealt["game_id"] == racing.game_id
    assert redealt["seat"] == racing.seat_a
    assert redealt["seq"] == len(acks) + 1
    new = redealt["board"]
    assert new["foundations"] == board["foundations"]
    assert new["count"] == board["count"]
    assert new["redeals_left"] == 0
    left = [c for bed in board["beds"] for c in bed] + board["bouquet"]
    assert sorted([c for bed in new["beds"] for c in bed] + new["bouquet"]) == sorted(left)
    # Dealt again as at the start: one card to each bed in turn, up to six each.
    sizes = [len(bed) for bed in new["beds"]]
    remaining = len(left)
    assert sizes == [min(6, remaining // 6 + (i < remaining % 6)) for i in range(6)]
    assert new["status"] == ("playing" if legal(new) else "stalled")
    seen = await racing.b.until("redealt")
    assert [m["seq"] for m in seen] == list(range(1, len(acks) + 2))
    assert seen[-1] == redealt
    # A second redeal is refused.
    await racing.a.send(type="redeal")
    await racing.a.error("illegal_move")


async def test_resign(server, race):
    racing = await race(server)
    await racing.a.send(type="play", card=legal(racing.board_a())[0])
    await racing.a.recv("played")
    await racing.b.recv("played")
    await racing.b.send(type="resign", id="bye")
    status = await racing.b.recv("status")
    assert status.pop("id") == "bye"
    assert status == {
        "type": "status",
        "game_id": racing.game_id,
        "seat": racing.seat_b,
        "status": "resigned",
        "count": 0,
        "seq": 2,
    }
    over = await racing.b.recv("game_over")
    assert over["result"] == "win"
    assert over["winner"] == racing.seat_a
    assert over["reason"] == "resigned"
    assert over["seq"] == 3
    assert await racing.a.recv("status") == status
    assert await racing.a.recv("game_over") == over


async def test_after_game_over(server, race, player):
    racing = await race(server)
    await racing.a.send(type="resign")
    await racing.a.until("game_over")
    await racing.b.until("game_over")
    for client in (racing.a, racing.b):
        await client.send(type="play", card=legal(racing.board_a())[0], id="late")
        await client.error("game_over", id="late")
        await client.send(type="resign")
        await client.error("game_over")
        await client.send(type="redeal")
        await client.error("game_over")
    loner = await player(server)
    await loner.send(type="play", card="AS", id=1)
    await loner.error("not_in_game", id=1)
    await loner.send(type="resign")
    await loner.error("not_in_game")
    await loner.send(type="redeal")
    await loner.error("not_in_game")
    await loner.send(type="rematch", id=2)
    await loner.error("not_in_game", id=2)


async def test_rematch(server, race):
    racing = await race(server)
    await racing.b.send(type="resign")
    first_over = (await racing.b.until("game_over"))[-1]
    await racing.a.until("game_over")
    await racing.b.send(type="rematch", id="again")
    waiting = await racing.b.recv("rematch_waiting")
    assert waiting == {"type": "rematch_waiting", "game_id": racing.game_id, "id": "again"}
    offered = await racing.a.recv("rematch_offered")
    assert offered == {"type": "rematch_offered", "game_id": racing.game_id}
    await racing.a.send(type="rematch", id="yes")
    start_a = await racing.a.recv("game_start")
    start_b = await racing.b.recv("game_start")
    assert start_a.pop("id") == "yes"
    assert "id" not in start_b
    assert start_a["game_id"] == start_b["game_id"] != first_over["game_id"]
    assert (start_a["seat"], start_b["seat"]) == (racing.seat_a, racing.seat_b)
    assert start_a["players"] == racing.start_a["players"]
    assert start_a["rules"] == racing.start_a["rules"]
    assert start_a["seq"] == 0
    await racing.a.send(type="play", card=legal(start_a["boards"][start_a["seat"]])[0])
    assert (await racing.a.recv("played"))["seq"] == 1


async def test_rematch_lapses_when_the_opponent_moves_on(server, race, player):
    racing = await race(server)
    await racing.a.send(type="resign")
    await racing.a.until("game_over")
    await racing.b.until("game_over")
    await racing.a.send(type="rematch")
    await racing.a.recv("rematch_waiting")
    await racing.b.recv("rematch_offered")
    await racing.b.send(type="cancel")
    await racing.b.recv("cancelled")
    await racing.a.send(type="rematch", id="late")
    await racing.a.error("game_not_found", id="late")


async def test_rematch_lapses_when_the_opponent_leaves(server, race):
    racing = await race(server)
    await racing.a.send(type="resign")
    await racing.a.until("game_over")
    await racing.b.until("game_over")
    await racing.b.close()
    await lobby_until(racing.a, lambda lobby: lobby["online"] == 1)
    await racing.a.send(type="rematch", id=1)
    await racing.a.error("game_not_found", id=1)


async def test_seek_again_after_a_race(server, race):
    racing = await race(server)
    await racing.a.send(type="resign")
    await racing.a.until("game_over")
    await racing.b.until("game_over")
    again = await seek_pair(racing.b, racing.a, {**WINNABLE, "tiebreak": "first"})
    assert again.game_id != racing.game_id
    assert again.seat_a == 0  # b sought first this time
    await again.a.send(type="resign")
    assert (await again.a.recv("status"))["seq"] == 1
