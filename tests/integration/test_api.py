"""The HTTP API with a real HTTP client (urllib) against the real server, after real races."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

import engine

from .conftest import WINNABLE, play_out, seek_pair

if TYPE_CHECKING:
    from server.app import GameServer

    from .conftest import Client, Race

RATED = {**WINNABLE, "rated": True}


async def get(server: GameServer, path: str) -> tuple[int, dict[str, str], Any]:
    """``GET path`` with urllib: status, headers (lowercase names) and the JSON body."""

    def fetch() -> tuple[int, dict[str, str], bytes]:
        url = f"http://127.0.0.1:{server.port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                return reply.status, dict(reply.headers.items()), reply.read()
        except urllib.error.HTTPError as refused:
            return refused.code, dict(refused.headers.items()), refused.read()

    status, headers, body = await asyncio.to_thread(fetch)
    return status, {k.lower(): v for k, v in headers.items()}, json.loads(body)


async def cleared(racing: Race) -> dict[str, Any]:
    """Seat ``a`` clears; the ``game_over`` both see. At socket speed: unrated races only
    (a rated one would be judged too fast for a hand, docs/fair-play.md)."""
    await play_out(racing.a, racing.board_a())
    over = await racing.a.recv("game_over")
    assert (await racing.b.until("game_over"))[-1] == over
    return over


async def raced(racing: Race) -> dict[str, Any]:
    """A rated race both players raced, which ``a`` wins: each plays (``a`` three cards,
    fewer than the fair-play floor counts), then ``b`` resigns; the ``game_over``."""
    await play_out(racing.a, racing.board_a(), limit=3)
    await play_out(racing.b, racing.board_b(), limit=1)
    await racing.b.send(type="resign")
    over = (await racing.a.until("game_over"))[-1]
    assert (await racing.b.until("game_over"))[-1] == over
    assert over["unrated"] is None, over
    return over


async def test_a_rated_race_moves_both_ratings_and_is_recorded_to_replay(server, player):
    ann, bob = await player(server), await player(server)
    racing = await seek_pair(ann, bob, RATED)
    assert racing.start_a["ratings"] == [1500, 1500]
    over = await raced(racing)
    assert over["ratings"][0]["before"] == 1500 < over["ratings"][0]["after"]
    assert over["ratings"][1]["before"] == 1500 > over["ratings"][1]["after"]
    status, headers, record = await get(server, f"/api/races/{racing.game_id}")
    assert status == 200
    assert headers["access-control-allow-origin"] == "*"
    assert headers["content-type"] == "application/json"
    assert record["ratings"] == over["ratings"]
    assert record["players"] == [ann.name, bob.name]
    assert record["times_ms"] == over["times_ms"]
    assert record["seeds"] == over["seeds"] and record["commits"] == racing.start_a["commits"]
    verdict = engine.verify_record(record)
    assert verdict.ok, verdict.report()
    status, _, profile = await get(server, f"/api/players/{ann.name.upper()}")
    assert status == 200
    assert profile["name"] == ann.name
    assert profile["rating"] == over["ratings"][0]["after"] and profile["provisional"] is True
    assert (profile["races"], profile["wins"], profile["losses"], profile["draws"]) == (1, 1, 0, 0)
    assert profile["best_clear_ms"] is None  # won by a resignation, not a clear
    assert profile["bot"] is False and len(profile["joined"]) == 10  # 2026-12-01


async def test_coming_back_says_the_new_rating(server, player, connect):
    ann, bob = await player(server), await player(server)
    over = await raced(await seek_pair(ann, bob, RATED))
    back = await connect(server)
    welcome = await back.hello(token=bob.token)
    assert welcome["rating"] == {"rating": over["ratings"][1]["after"], "provisional": True}


async def test_a_history_pages_newest_first_by_its_cursor(start_server, player):
    server = await start_server(rated_per_day=50)
    ann, bob = await player(server), await player(server)
    races = []
    for rules in (RATED, WINNABLE, WINNABLE):  # rated again, they would wait: far apart now
        racing = await seek_pair(ann, bob, rules)
        await (raced if rules is RATED else cleared)(racing)
        races.append(racing.game_id)
    status, _, page = await get(server, f"/api/players/{bob.name}/races?limit=2")
    assert status == 200
    assert [race["game_id"] for race in page["races"]] == races[:0:-1]
    assert page["next"] == races[1]
    unrated = page["races"][1]
    assert (unrated["ratings"], unrated["rules"]["rated"], unrated["winner"]) == (None, False, 0)
    assert unrated["players"] == [ann.name, bob.name] and unrated["bots"] == [False, False]
    _, _, rest = await get(server, f"/api/players/{bob.name}/races?limit=2&before={page['next']}")
    assert ([race["game_id"] for race in rest["races"]], rest["next"]) == ([races[0]], None)


async def test_unknown_names_races_and_paths_are_json_404s_with_cors(server):
    for path, code in (
        ("/api/players/nobody_here", "player_not_found"),
        ("/api/players/no%20such%20name", "player_not_found"),
        ("/api/players/nobody_here/races", "player_not_found"),
        ("/api/races/0123456789abcdef", "race_not_found"),
        ("/api/whatever", "not_found"),
    ):
        status, headers, body = await get(server, path)
        assert (status, body["error"]) == (404, code), path
        assert headers["access-control-allow-origin"] == "*"
    status, _, body = await get(server, "/api/leaderboard?limit=0")
    assert (status, body["error"]) == (400, "bad_request")
    status, _, body = await get(server, "/api/leaderboard?limit=abc")
    assert status == 400


async def test_a_cursor_that_names_no_race_of_the_player_is_a_404(server, player):
    ann, bob = await player(server), await player(server)
    await cleared(await seek_pair(ann, bob, WINNABLE))
    status, _, body = await get(server, f"/api/players/{ann.name}/races?before=ffffffffffffffff")
    assert (status, body["error"]) == (404, "race_not_found")


async def test_the_leaderboard_lists_established_players_highest_first(server):
    rows = [  # name, rating, deviation, rated races
        ("top", 1900.4, 60.0, 30),
        ("second", 1700.0, 80.0, 12),
        ("unsure", 2100.0, 150.0, 40),  # provisional: not listed
        ("newish", 1800.0, 90.0, 9),  # too few rated races
    ]
    now = time.time()  # seen now: a player unseen for 30 days with no race is forgotten
    for n, (name, rating, deviation, races) in enumerate(rows):
        await server.store.execute_for_tests(
            "INSERT INTO players (id, name, name_key, token_hash, created, last_seen, rating,"
            f" deviation, rated_races) VALUES ('lb{n}', '{name}', '{name}', 'h{n}', {now},"
            f" {now}, {rating}, {deviation}, {races})"
        )
    status, _, board = await get(server, "/api/leaderboard")
    assert status == 200
    assert board["players"] == [
        {"rank": 1, "name": "top", "rating": 1900, "races": 30},
        {"rank": 2, "name": "second", "rating": 1700, "races": 12},
    ]
    _, _, one = await get(server, "/api/leaderboard?limit=1")
    assert [line["name"] for line in one["players"]] == ["top"]


async def test_past_the_limit_an_address_is_answered_429_and_players_race_on(start_server, player):
    server = await start_server(http_per_ip=4)  # 2 at once, then 4 a minute
    answers = [(await get(server, "/api/leaderboard"))[0] for _ in range(4)]
    assert answers[:2] == [200, 200]
    assert answers[-1] == 429
    status, headers, body = await get(server, "/api/leaderboard")
    assert (status, body["error"]) == (429, "rate_limited")
    assert headers["access-control-allow-origin"] == "*"
    client: Client = await player(server)
    await client.send(type="lobby")
    assert (await client.recv("lobby"))["online"] == 1


async def test_rated_races_between_the_same_two_are_limited_a_day(start_server, player):
    server = await start_server(rated_per_day=1)
    ann, bob = await player(server), await player(server)
    cat, dan = await player(server), await player(server)
    await raced(await seek_pair(ann, bob, RATED))
    await ann.send(type="rematch", id="again")
    refused = await ann.recv("error")
    assert (refused["code"], refused["id"]) == ("rate_limited", "again")
    await ann.send(type="seek", rules=RATED)
    await ann.recv("seeking")
    await bob.send(type="seek", rules=RATED)
    await bob.recv("seeking")  # not paired with Ann: they wait for someone else
    racing = await seek_pair(cat, dan, RATED)  # Cat and Dan, unaffected, race rated
    assert racing.start_a["ratings"] == [1500, 1500]
    await bob.send(type="seek", rules=WINNABLE)
    assert (await bob.recv("error"))["code"] == "busy"  # still seeking, nothing lost
    await ann.send(type="lobby")
    assert (await ann.recv("lobby"))["seeks"] == [
        {"rules": {**RATED, "redeals": 0, "tiebreak": "draw", "time_limit_s": None}, "count": 2}
    ]


async def test_rated_needs_a_speed_race(server, player):
    ann = await player(server)
    await ann.send(type="seek", rules={"rated": True, "deal": "mirror"})
    assert (await ann.recv("error"))["code"] == "bad_message"


async def test_bots_have_profiles_and_are_labelled_in_histories(server, player):
    ann = await player(server)
    await ann.send(type="seek", rules=WINNABLE, bot={"after_s": 0, "level": 5})
    await ann.recv("seeking")
    start = await ann.recv("game_start")
    assert (start["players"][1], start["bots"]) == ("BOT-Swift", [False, True])
    await ann.send(type="resign")
    over = await ann.until("game_over")
    assert over[-1]["winner"] == 1 and over[-1]["ratings"] is None
    status, _, profile = await get(server, "/api/players/BOT-Swift")
    assert (status, profile["bot"], profile["wins"]) == (200, True, 1)
    _, _, human = await get(server, f"/api/players/{ann.name}")
    assert human["bot"] is False
    _, _, page = await get(server, f"/api/players/{ann.name}/races")
    (race,) = page["races"]
    assert (race["players"], race["bots"]) == ([ann.name, "BOT-Swift"], [False, True])
    _, _, record = await get(server, f"/api/races/{race['game_id']}")
    assert engine.verify_record(record).ok
