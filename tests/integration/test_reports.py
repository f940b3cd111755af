"""``report`` against a real server: once a race, only one's own, a limit a day, in order."""

from __future__ import annotations

import time

from server.store.marks import REPORTS_PER_DAY

from .conftest import WINNABLE
from .test_api import cleared


async def test_a_player_reports_a_finished_race_of_theirs_once(server, race) -> None:
    racing = await race(server, WINNABLE)
    await cleared(racing)
    a, b = racing.a, racing.b
    await b.send(type="report", game_id=racing.game_id, reason="inhumanly fast", id=1)
    assert await b.recv("reported") == {"type": "reported", "game_id": racing.game_id, "id": 1}
    await b.send(type="report", game_id=racing.game_id, id=2)
    await b.error("not_allowed", id=2)  # a second report of the same race
    await a.send(type="report", game_id=racing.game_id, id=3)
    assert (await a.recv("reported"))["id"] == 3  # the other player may report it too


async def test_only_a_player_of_the_race_may_report_it(server, race, player) -> None:
    racing = await race(server, WINNABLE)
    await cleared(racing)
    stranger = await player(server)
    await stranger.send(type="report", game_id=racing.game_id, id="r")
    await stranger.error("not_allowed", id="r")
    await stranger.send(type="report", game_id="0123456789abcdef", id="u")
    await stranger.error("game_not_found", id="u")


async def test_a_live_race_is_not_reported_and_messages_behind_a_report_wait(server, race) -> None:
    racing = await race(server, WINNABLE)
    a = racing.a
    # Sent together: the lobby's answer comes after the report's, in order.
    await a.send(type="report", game_id=racing.game_id, id="r")
    await a.send(type="lobby", id="l")
    await a.error("game_not_found", id="r")  # not finished yet
    assert (await a.recv("lobby"))["id"] == "l"


async def test_reports_are_limited_a_day(server, race) -> None:
    racing = await race(server, WINNABLE)
    await cleared(racing)
    a = racing.a
    now = time.time()
    for i in range(REPORTS_PER_DAY):  # as many earlier reports today, of other races
        await server.store.execute_for_tests(
            "INSERT INTO races (id, rules, seeds, player0, player1, started, ended, result,"
            f" reason, count0, count1) VALUES ('old{i}', '{{}}', '[]', '{a.player_id}',"
            f" '{racing.b.player_id}', {now}, {now}, 'draw', 'equal_cards', 0, 0)"
        )
        await server.store.execute_for_tests(
            "INSERT INTO marks (player_id, race_id, kind, reporter, at) VALUES"
            f" ('{racing.b.player_id}', 'old{i}', 'report', '{a.player_id}', {now - 3600})"
        )
    await a.send(type="report", game_id=racing.game_id, id="r")
    await a.error("rate_limited", id="r")
    await server.store.execute_for_tests(
        f"UPDATE marks SET at = {now - 90000} WHERE race_id = 'old0'"
    )
    await a.send(type="report", game_id=racing.game_id, id="again")
    assert (await a.recv("reported"))["id"] == "again"  # one of them is a day old now
