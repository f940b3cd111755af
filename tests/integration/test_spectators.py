"""``watch``: spectators see the whole race, to its end."""

from __future__ import annotations

from .conftest import legal, play_out


async def test_a_spectator_sees_every_event_to_game_over(server, player, race):
    racing = await race(server)
    board, _ = await play_out(racing.a, racing.board_a(), limit=2)
    viewer = await player(server)
    await viewer.send(type="lobby")
    games = (await viewer.recv("lobby"))["games"]
    assert games == [
        {
            "game_id": racing.game_id,
            "players": racing.start_a["players"],
            "counts": [2, 0] if racing.seat_a == 0 else [0, 2],
            "bots": [False, False],
        }
    ]
    await viewer.send(type="watch", game_id=racing.game_id, id="w")
    state = await viewer.recv("game_state")
    assert "seat" not in state
    assert state["id"] == "w"
    assert state["game_id"] == racing.game_id
    assert state["players"] == racing.start_a["players"]
    assert state["seq"] == 2
    assert state["over"] is None
    assert state["boards"][racing.seat_a]["foundations"] == board["foundations"]

    rest, more = await play_out(racing.a, board)
    assert rest["count"] == 52
    over = await racing.a.recv("game_over")
    seen = await viewer.until("game_over")
    assert [m["type"] for m in seen] == ["played"] * len(more) + ["game_over"]
    assert [m["seq"] for m in seen] == list(range(3, 3 + len(more) + 1))
    assert [m["card"] for m in seen[:-1]] == [m["card"] for m in more]
    assert all("id" not in m for m in seen)
    assert seen[-1] == over


async def test_spectators_see_status_and_resign(server, player, race):
    racing = await race(server)
    viewers = [await player(server), await player(server)]
    for viewer in viewers:
        await viewer.send(type="watch", game_id=racing.game_id)
        await viewer.recv("game_state")
    await racing.b.send(type="resign")
    status = await racing.b.recv("status")
    over = await racing.b.recv("game_over")
    for viewer in viewers:
        assert await viewer.recv("status") == status
        assert await viewer.recv("game_over") == over


async def test_a_spectator_who_moves_on_stops_seeing(server, player, race):
    racing = await race(server)
    viewer = await player(server)
    await viewer.send(type="watch", game_id=racing.game_id)
    await viewer.recv("game_state")
    await viewer.send(type="cancel")
    await viewer.recv("cancelled")
    await racing.a.send(type="play", card=legal(racing.board_a())[0])
    await racing.a.recv("played")
    await viewer.quiet()


async def test_watch_errors(server, player, race):
    viewer = await player(server)
    await viewer.send(type="watch", game_id="0123456789abcdef", id=1)
    await viewer.error("game_not_found", id=1)
    racing = await race(server)
    await racing.a.send(type="resign")
    await racing.a.until("game_over")
    await viewer.send(type="watch", game_id=racing.game_id, id=2)
    await viewer.error("game_not_found", id=2)  # only live races can be watched
