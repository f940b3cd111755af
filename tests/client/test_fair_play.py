"""Fair play and the operator's hand, seen from the terminal (issue 26): a report from the
result, the banned screen, a rated race refused and offered unrated, a race left unrated,
a taken name, declared bots. Real apps against a real server, driven by Pilot; each case
is told apart by error code and close code, never by the server's English.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from client.bot_client import BotClient, BotOptions
from client.result import render_result
from client.state import ClientState
from client.tokens import TokenStore
from client.words import REPORT_ID
from lang import t
from protocol import Error, Report, Rules
from tests.integration.admin_helpers import TOKEN, act

from .conftest import driving, flat, fresh_name, over, screen_lines, seat
from .test_race import play_by_key, racing
from .wire import game_over, game_start

if TYPE_CHECKING:
    from .conftest import Driver

RATED = Rules(deal="mirror", winnable_only=True, rated=True)


def on_top(driver: Driver) -> str:
    return type(driver.app.screen).__name__


def shown(driver: Driver, words: str) -> bool:
    return words in flat("\n".join(screen_lines(driver.app)))


def net_stopped(driver: Driver) -> bool:
    """The network worker has ended: the client will not connect again by itself."""
    return all(worker.is_finished for worker in driver.app.workers if worker.group == "net")


# -- a report from the result ------------------------------------------------------------


async def test_the_result_reports_the_race_once_and_says_the_answer(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server) as (a, b):
        await play_by_key(a)
        await a.press("x", "y")
        await b.until(lambda: b.race.over is not None, "b's game_over")
        assert "! report" in await b.text()  # the footer and the result offer it
        await b.press("exclamation_mark")
        await b.until(lambda: on_top(b) == "ReportScreen", "the question")
        await b.press(*"too fast", "enter")
        await b.until(lambda: b.race.report == "done", "reported")
        await b.until_shown(t("tui.report.done"))
        assert "! report" not in await b.text()  # once a race
        await b.press("exclamation_mark")  # does nothing now
        assert on_top(b) == "RaceScreen"
        # A second report is refused by code (not_allowed), and the result says so.
        b.app.send(Report(game_id=b.race.game_id))
        await b.until(lambda: b.race.report == "twice", "refused")
        await b.until_shown(t("tui.report.twice"))
        assert not b.state.notice_is_error  # said on the result, not as a stray error
        # The other player may still report it; Esc on the question reports nothing.
        await a.until(lambda: a.race.over is not None, "a's game_over")
        await a.press("exclamation_mark")
        await a.until(lambda: on_top(a) == "ReportScreen", "a's question")
        await a.press("escape")
        assert a.race.report == "open" and on_top(a) == "RaceScreen"


async def test_a_report_of_a_race_the_server_does_not_know_is_said_on_the_result():
    state = ClientState("ws://x/ws", "ann")
    state.apply(game_start(), 1.0)
    state.apply(game_over(0, "resigned", [3, 0], seq=1), 2.0)
    race = state.race
    assert race is not None and race.reportable
    state.sending(Report(game_id=race.game_id, id=REPORT_ID))
    state.apply(Error(code="game_not_found", message="whatever", id=REPORT_ID), 3.0)
    assert race.report == "gone" and not race.reportable
    assert t("tui.report.gone") in render_result(race).plain
    assert state.notice == ""


# -- banned ------------------------------------------------------------------------------


async def test_a_ban_shows_the_banned_screen_and_the_client_stays_away(start_server, make_app):
    server = await start_server(admin_token=TOKEN)
    name = fresh_name("ann")
    async with driving(make_app(server, name)) as a:
        await a.until(lambda: a.state.link == "online", "online")
        await act(server, "ban", name, "plays too fast")
        await a.until(lambda: on_top(a) == "BannedScreen", "the banned screen")  # close 4001
        await a.until(lambda: net_stopped(a), "the worker stops")
        assert a.state.link == "banned"
        await a.until_shown(t("tui.banned.title"))
        assert shown(a, "does not connect again by itself")
    # Started again with the kept token: hello is answered `banned`, and the client stops.
    async with driving(make_app(server, name)) as again:
        await again.until(lambda: on_top(again) == "BannedScreen", "banned at hello")
        await again.until(lambda: net_stopped(again), "the worker stops")
        await again.press("q")
        await again.until(lambda: again.app.return_code == 0, "q quits")


# -- a rated race refused ----------------------------------------------------------------


async def flag(server, player_id: str, opponent_id: str, races: int = 3) -> None:
    """``races`` races of ``player_id`` flagged, as the store records them."""
    now = time.time()
    for i in range(races):
        await server.store.execute_for_tests(
            "INSERT INTO races (id, rules, seeds, player0, player1, started, ended, result,"
            f" reason, count0, count1) VALUES ('f{i}', '{{}}', '[]', '{player_id}',"
            f" '{opponent_id}', {now}, {now}, 'draw', 'equal_cards', 0, 0)"
        )
        await server.store.execute_for_tests(
            "INSERT INTO marks (player_id, race_id, kind, at) VALUES"
            f" ('{player_id}', 'f{i}', 'flag', {now})"
        )


async def test_a_refused_rated_seek_says_why_and_offers_it_unrated(start_server, make_app):
    server = await start_server()
    ann, bob = fresh_name("ann"), fresh_name("bob")
    ids = []
    for name in (ann, bob):
        async with driving(make_app(server, name)) as d:
            await d.until(lambda: d.state.player_id, "welcomed")
            ids.append(d.state.player_id)
    await flag(server, ids[0], ids[1])
    async with driving(make_app(server, ann, action="seek", rules=RATED)) as a:
        await a.until(lambda: on_top(a) == "RatedRefusedScreen", "the refusal")
        text = flat(await a.text())
        assert "barred from rated races" in text and "unrated races are open to you" in text
        assert "u seek the same rules unrated" in text
        await a.press("u")
        await a.until(lambda: a.state.waiting is not None, "seeking unrated")
        assert a.state.waiting.rules == RATED.model_copy(update={"rated": False})
        assert on_top(a) == "LobbyScreen" and a.state.offer is None


async def test_a_refused_rated_room_can_be_left_and_opened_unrated_later(start_server, make_app):
    server = await start_server()
    ann = fresh_name("ann")
    async with driving(make_app(server, ann)) as d:
        await d.until(lambda: d.state.player_id, "welcomed")
        ann_id = d.state.player_id
    async with driving(make_app(server, fresh_name("bob"))) as d:
        await d.until(lambda: d.state.player_id, "welcomed")
        bob_id = d.state.player_id
    await flag(server, ann_id, bob_id)
    async with driving(make_app(server, ann, action="create_room", rules=RATED)) as a:
        await a.until(lambda: on_top(a) == "RatedRefusedScreen", "the refusal")
        await a.until_shown("u open the room unrated")
        await a.press("escape")
        assert on_top(a) == "LobbyScreen" and a.state.waiting is None
        assert "barred from rated races" in a.state.notice
        await a.press("u")  # the lobby's key asks the same, later
        await a.until(lambda: a.state.waiting is not None, "the room")
        assert a.state.waiting.kind == "room" and not a.state.waiting.rules.rated


# -- unrated results ---------------------------------------------------------------------


async def test_a_rated_race_without_a_play_says_it_changed_no_rating(start_server, make_app):
    server = await start_server()
    async with racing(make_app, server, rules=RATED) as (a, b):
        assert a.race.rules.rated
        await a.press("x", "y")  # resigned at once: no play was made
        await b.until(lambda: b.race.over is not None, "b's game_over")
        assert over(b.race).unrated == "no_play" and over(b.race).ratings == ()
        await b.until_shown(t("unrated.no_play"))
        assert "rating:" not in await b.text()


def test_a_race_flagged_for_its_timing_says_so_where_the_rating_would_be():
    state = ClientState("ws://x/ws", "ann")
    state.apply(game_start(rules=RATED, ratings=[1500, 1500]), 1.0)
    state.apply(game_over(1, "cleared", [3, 52], seq=1, unrated="fair_play"), 2.0)
    assert state.race is not None
    text = render_result(state.race).plain
    assert t("unrated.fair_play") in text and "rating:" not in text


# -- names and bots ----------------------------------------------------------------------


async def test_a_taken_name_says_names_ignore_case(start_server, make_app, config_home):
    server = await start_server()
    name = fresh_name("Ann")
    async with driving(make_app(server, name)) as a:
        await a.until(lambda: a.state.link == "online", "online")
    TokenStore().forget(server.url, name)  # another person, on another machine
    async with driving(make_app(server, name.swapcase())) as b:
        await b.until(lambda: on_top(b) == "NameScreen", "asked for another name")
        await b.until_shown(t("tui.name.taken"))
        assert b.state.link == "offline"  # not "connecting…" while a name is asked


async def test_the_bot_command_declares_itself_and_is_labelled(start_server, make_app, tmp_path):
    server = await start_server()
    app = make_app(server, fresh_name("ann"), action="create_room")
    async with driving(app) as a:
        await a.until(lambda: a.state.waiting is not None and a.state.waiting.code, "the room")
        code = a.state.waiting.code
        options = BotOptions(server=server.url, action="join_room", room=code, level=5)
        bot = BotClient(options, TokenStore(tmp_path / "bot-tokens.json"))
        task = asyncio.create_task(bot.run())
        try:
            await a.until(lambda: a.state.race is not None, "the race")
            other = 1 - seat(a.race)
            assert a.race.bots[other]  # hello.bot: the server labels it
            await a.until_shown(f"{a.race.players[other]} (bot)")
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
