"""The real server on each store, SQLite and PostgreSQL: races are kept, and outlive it.

``backend`` (tests/store_backends.py) gives each test a database of its own on
either store; the server is the in-process :class:`~server.app.GameServer`.
"""

from __future__ import annotations

import json

from .conftest import apply, http_get, legal, play_out


async def test_a_race_to_the_end_is_recorded_with_both_players_stats(backend, start_server, race):
    server = await start_server(db=backend.db)
    duel = await race(server)
    _, acks = await play_out(duel.a, duel.board_a())
    over = (await duel.b.until("game_over"))[-1]
    assert over["reason"] == "cleared" and len(acks) == 52
    record = await server.store.race(duel.game_id)
    assert record is not None and record.winner == duel.seat_a
    assert [move.card for move in record.moves] == [ack["card"] for ack in acks]
    winner = await server.store.player_stats(duel.a.player_id)
    loser = await server.store.player_stats(duel.b.player_id)
    assert winner is not None and (winner.games, winner.wins) == (1, 1)
    assert loser is not None and (loser.games, loser.losses) == (1, 1)
    assert await server.store.live_races() == []
    _, body = await http_get(server.port, "/healthz")
    assert json.loads(body)["status"] == "ok"


async def test_a_race_stopped_mid_way_goes_on_on_the_next_server_and_is_recorded(
    backend, start_server, race, connect
):
    first = await start_server(db=backend.db)
    duel = await race(first)
    board = duel.board_a()
    for _ in range(5):
        card = legal(board)[0]
        await duel.a.send(type="play", card=card)
        await duel.a.recv("played")
        board = apply(board, card)
    await first.close()

    second = await start_server(db=backend.db)
    again = await connect(second)
    await again.hello(token=duel.a.token)
    state = await again.recv("game_state")
    assert state["game_id"] == duel.game_id and state["seq"] == 5
    assert state["boards"][duel.seat_a] == board
    _, acks = await play_out(again, board)
    assert acks[-1]["status"] == "cleared"
    over = await again.recv("game_over")
    assert over["winner"] == duel.seat_a
    record = await second.store.race(duel.game_id)
    assert record is not None and len(record.moves) == 52
    assert await second.store.live_races() == []
