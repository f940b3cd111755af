"""The client's HTTP module against the real game server, after a real rated race.

Two real apps race (a rated quick match on a real server on port 0); then
:class:`client.api_client.ApiClient`, given the server's websocket URL as a person gives
it, reads the profiles, the history and the race's record, and the record
replays and verifies.
"""

from __future__ import annotations

import pytest

from client.api_client import ApiClient, ApiError
from client.replay import Replay
from protocol import Rules

from .conftest import over
from .test_race import play_by_key, racing

RATED = Rules(deal="mirror", winnable_only=True, rated=True)


async def test_the_api_module_reads_what_the_real_server_answers(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server, rules=RATED) as (a, b):
        await a.until_shown("1500?")  # a new player: provisional
        for _ in range(3):
            await play_by_key(a)
        await play_by_key(b)  # both race: a rated race rates only what both raced
        await b.press("x")
        await b.press("y")
        await a.until(lambda: a.race.over is not None, "the end")
        ratings = over(a.race).ratings
        assert len(ratings) == 2 and ratings[a.race.seat or 0].after > 1500
        await a.until_shown("rating:")
        name, game_id = a.state.name, a.race.game_id
    api = ApiClient(server.url)
    profile = await api.player(name.upper())  # names are one ignoring case
    assert profile.name == name and profile.provisional and profile.wins == 1
    page = await api.races(name)
    assert [race.game_id for race in page.races] == [game_id] and page.next is None
    assert page.races[0].change(page.races[0].seat_of(name) or 0) is not None
    replay = Replay.of(await api.race(game_id), 0.0)
    replay.to_end(0.0)
    assert replay.index == len(replay.moves) == 4 and replay.fault is None
    assert replay.verdict is not None
    assert replay.verdict.ok, replay.verdict.report()
    board = await api.leaderboard()
    assert board.players == []  # nobody has 10 rated races yet
    with pytest.raises(ApiError) as unknown:
        await api.player("nobody-here")
    assert unknown.value.words == "no player named nobody-here on this server"
